/*
 * view_build.h - the steps of a view's build after validation
 * (view_build.c), called by pl_view_init() (view.c) in this order. Each
 * is described where it is defined.
 */
#ifndef PLACEMENT_VIEW_BUILD_H
#define PLACEMENT_VIEW_BUILD_H

#include "internal.h"

/* Zone ids, in `scratch` (PL__SORT_SCRATCH(nm) bytes); `sorted` is room
 * for nm indices. Before pl__view_init_members(). */
void pl__view_init_zones(pl_view *v, uint32_t *sorted, void *scratch);
/* Member hashes, weights and eligibility; the member tallies zeroed. */
void pl__view_init_members(pl_view *v);
/* The shards of each stream in key order, from k_stream (the stream at
 * each rank). */
void pl__view_init_by_stream(pl_view *v, const uint32_t *k_stream);
/* Ranks, hashes, states, totals; the leaders of each stream's shards to
 * k_lead (room for nk) unless the hint's tallies hold. */
void pl__view_init_shards(pl_view *v, const pl__reuse *r, uint32_t *k_lead);
/* The per-stream leader cells from k_lead (read, and written over). */
void pl__view_init_cells(pl_view *v, uint32_t *k_lead);
/* The cells of a hint whose tallies hold. */
void pl__view_copy_cells(pl_view *v, const pl_view *old);

#endif /* PLACEMENT_VIEW_BUILD_H */
