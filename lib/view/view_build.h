/*
 * view/view_build.h - the view's insides: validation (snapshot.c), what a
 * hint offers a new build (view_reuse.c), and the steps of the build after
 * validation (view_build.c), called by pl_view_init() (view.c) in this
 * order. Each is described where it is defined. Only the view's own sources
 * include this header; a policy sees the view through view_int.h.
 */
#ifndef PLACEMENT_VIEW_BUILD_H
#define PLACEMENT_VIEW_BUILD_H

#include "core/keyfeed.h"
#include "view/view_int.h"

struct pl__reuse;

/* Validation core shared by pl_snapshot_validate() and pl_view_init(), which
 * first check the arrays with pl__check_arrays() (step 1). Writes
 * the canonical orders of members, streams and shards, and (when k_stream is
 * not NULL) the stream of each shard in key order; scratch holds
 * PL__SORT_SCRATCH(max(n)) bytes. */
int pl__validate(const pl_snapshot *s, uint32_t *m_order, uint32_t *s_order, uint32_t *k_order,
		 uint32_t *k_stream, void *scratch, struct pl__reuse *reuse, pl_diag *diag);

/* What an earlier view offers a new build (view_reuse.c). With `members`,
 * `streams` or `shards` set, every id of that array is the same bytes at the
 * same index as in old's snapshot (shards: and the same stream), so old's
 * canonical order of it holds; `zones`: member zones too; `hashes`: the
 * shards and the scorer, so old's key hashes hold. pl__validate() copies the
 * orders it is told hold instead of sorting (k_stream is then not written:
 * the caller copies the shards of each stream too). pl__reuse_plan() decides
 * members, zones and streams, and that the shards may match; validation's
 * pass over the shards decides `shards` and `hashes`. */
#define PL__REUSED_ORDERS 1u /* the shard order (and so the shards of each stream) */
#define PL__REUSED_HOMES 2u  /* the ring homes */
#define PL__REUSED_TALLIES 4u /* the leader and replica tallies and cells */
/* `tallies`: old's tallies are its snapshot's (no leader or replica action
 * applied to it), neither snapshot has copies in flight, the member count
 * is the same and (validation's pass) so is every shard's leader, move and
 * replica list, so old's tallies and cells hold. With `st` set, validation
 * writes each shard's state there (pl__state_from_shard()) while the shards
 * match old's, and `states` says it wrote them all (`moving` of them with a
 * leader move): the sort that would reuse that memory is not needed then. */
typedef struct pl__reuse {
	const pl_view *old;
	uint32_t members, zones, streams, shards, hashes;
	uint32_t scorer; /* the new view's */
	uint32_t tallies, states, moving;
	char *st;          /* the states, st_size bytes apart, with room slots */
	size_t st_size;
	uint32_t room;
	/* With k_hash set (room for every shard), validation writes each
	 * key's hash under `scorer` there, unless the hint's hold (`hashes`). */
	uint64_t *k_hash;
	/* Validation's finding: the most replicas a shard of the snapshot
	 * has, one more for a shard whose copy in flight adds one. States are
	 * written to st only while it stays within room. */
	uint32_t max_count;
	/* Without a hint: the scratch's first direct_room bytes are free of
	 * the states (0: none may be written). When the keys' feed is direct
	 * in that room (pl__keyfeed_start()), validation writes the
	 * states too (`states`), and `tags` gets each shard's stream in index
	 * order, in the scratch: valid until the cells are counted. */
	size_t direct_room;
	const uint32_t *tags;
} pl__reuse;

/* The same bytes: the same range, or equal contents. */
static inline int pl__same_bytes(pl_bytes a, pl_bytes b)
{
	if (a.len != b.len)
		return 0;
	if (a.ptr == b.ptr || a.len == 0)
		return 1;
	if (a.ptr == NULL || b.ptr == NULL)
		return 0; /* not read: validation refuses the new one (PL_E_NULL) */
	return memcmp(a.ptr, b.ptr, (size_t)a.len) == 0;
}
/* The state of shard i in a hint's st. */
static inline pl__shard_state *pl__reuse_st(const pl__reuse *r, uint32_t i)
{
	return (pl__shard_state *)(void *)(r->st + (size_t)i * r->st_size);
}

void pl__reuse_plan(pl__reuse *r, const pl_view *old, const pl_snapshot *s, uint32_t scorer);
/* Ring homes from old's, for a view built up to its shard states; fills the
 * owned counts and returns 1, or returns 0 (nothing written) when old has no
 * homes to offer. */
int pl__reuse_homes(pl_view *v, const pl__reuse *r);

/* ---- the layout (view_layout.c) ------------------------------------------ */

static inline uint32_t pl__clampc(uint32_t n, uint32_t lim)
{
	return n > lim ? lim : n;
}
/* Lay a view of these counts out after `base` (or just measure it when v is
 * NULL); the bytes it spans. */
size_t pl__view_layout(pl_view *v, char *base, uint32_t nm, uint32_t ns, uint32_t nk, uint32_t no, uint32_t nc,
		       uint32_t room);
/* The replica room the options ask for: max_replicas (version 3), 0 or
 * past the limit read as PL_MAX_REPLICAS. */
uint32_t pl__options_room(const pl_view_options *opt);

/* ---- the steps after validation (view_build.c) ---------------------------- */

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
