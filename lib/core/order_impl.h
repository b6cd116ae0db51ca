/*
 * order_impl.h - what the two sources of the canonical key order share:
 * order_first.c (the entry points and the packed first level) calls down
 * into order.c (the byte levels after it).
 */
#ifndef PLACEMENT_ORDER_IMPL_H
#define PLACEMENT_ORDER_IMPL_H

#include "core/core.h"

/* A byte-sort entry: 15 bytes of the key from the current level's offset,
 * big-endian, then one byte with the bytes remaining (capped at 16). */
typedef struct pl__kent {
	uint64_t hi, lo;
	uint32_t i, tag;
} pl__kent;

/* The first duplicate found: the smallest index repeating an earlier key,
 * and the earlier one. */
typedef struct pl__dups {
	uint32_t index, other;
} pl__dups;

/* A run of equal keys a[0..2+), in index order: keep its second element
 * as the first duplicate when it is the smallest so far. */
void pl__note_dup(pl__dups *d, const pl__kent *a);

/* Sort a[0..n) (index and tag set) by their keys' bytes from off, where
 * they all agree before it, in place: no room past a[n - 1]. Stable: equal
 * keys end in index order. */
void pl__sort_level(const pl__byteseq *q, pl__kent *a, uint32_t n, uint64_t off, pl__dups *d);

/* pl__sort_level() of n entries whose level keys at off are set. */
void pl__sort_keyed(const pl__byteseq *q, pl__kent *a, uint32_t n, uint64_t off, pl__dups *d);

/* An entry's level key from its window (the level key's 16 bytes in
 * memory order). */
void pl__kent_window(pl__kent *e, const unsigned char *w);

#endif
