/*
 * keyfeed.h - the sort's first level fed one key at a time (pl__keyfeed in
 * core.h): the per-key step, inline in the passes that feed it.
 *
 * A key of the length of the first key (the usual case: ids of one shape)
 * needs no window: every byte the level reads lies in the key's first
 * flen bytes up to the window's end, so two (or four) unaligned 8-byte
 * loads, each compared under a mask with the first key's bytes, check the
 * shared prefix and the bytes the plan holds constant at once, and each
 * varying byte is read in place for its rank. The bytes past the key and
 * the bytes remaining are those of the first key, whose ranks are summed
 * once (fbase). A key of another length takes the window path
 * (pl__keyfeed_other(), order_first.c); both give the same words, counts
 * and end of the feed.
 */
#ifndef PLACEMENT_KEYFEED_H
#define PLACEMENT_KEYFEED_H

#include "core/core.h"

#if defined(__GNUC__)
#define PL__FEED_INLINE __attribute__((always_inline)) inline /* one call a key otherwise */
#else
#define PL__FEED_INLINE inline
#endif

/* Key `key` (packed, in the plan) with its tag, at the feed's next index:
 * to its slot when direct, else as a word and in the digit counts. A slot
 * taken (a duplicate, or a run) ends the direct feed first. */
static PL__FEED_INLINE void pl__keyfeed_put(pl__keyfeed *f, uint64_t key, uint32_t tag)
{
	if (f->direct) {
		uint32_t i = f->next, *slot = f->slot;
		if (slot[key] == PL_NONE) {
			slot[key] = i;
			f->next = i + 1;
			f->tags[i] = tag;
			return;
		}
		pl__keyfeed_collide(f); /* the keys before it fit the same plan: still live */
		PL_ASSERT(f->live);
	}
	/* Every field read before the stores (which may alias them). */
	uint32_t i = f->next, (*counts)[1024] = f->counts;
	int width = f->width, np = f->nc, ibits = f->ibits;
	uint64_t *w = f->w;
	uint32_t *tags = f->tags;
	f->next = i + 1;
	tags[i] = tag;
	w[i] = key << ibits | i;
	if (np == 0)
		return; /* a dense range: no digit counts */
	uint32_t mask = (UINT32_C(1) << width) - 1;
	switch (np) { /* at most 4 digits */
	case 4: counts[3][(key >> (3 * width)) & mask]++; /* fall through */
	case 3: counts[2][(key >> (2 * width)) & mask]++; /* fall through */
	case 2: counts[1][(key >> width) & mask]++; /* fall through */
	default: counts[0][key & mask]++;
	}
}

static PL__FEED_INLINE void pl__keyfeed_next(pl__keyfeed *f, pl_bytes b, uint32_t tag)
{
	if (!f->live)
		return;
	if (b.len != f->flen) {
		uint64_t key = pl__keyfeed_other(f, b);
		if (f->live)
			pl__keyfeed_put(f, key, tag);
		return;
	}
	const char *p = b.ptr;
	const uint64_t *room = f->room;
	const uint32_t *fp = f->fp, *ftab = f->ftab;
	uint64_t x0, x1, diff, key = f->fbase;
	memcpy(&x0, p, 8);
	memcpy(&x1, p + f->fpos[1], 8);
	diff = ((x0 ^ f->fref[0]) & f->fmask[0]) | ((x1 ^ f->fref[1]) & f->fmask[1]);
	if (f->fwords > 2) {
		uint64_t x2, x3;
		memcpy(&x2, p + f->fpos[2], 8);
		memcpy(&x3, p + f->fpos[3], 8);
		diff |= ((x2 ^ f->fref[2]) & f->fmask[2]) | ((x3 ^ f->fref[3]) & f->fmask[3]);
	}
	/* Unrolled (no loop to count): at most 15 varying bytes, those of the
	 * window before its last (the bytes remaining, constant at one length). */
#define PL__FEED_RANK(j) (key += room[ftab[j] + (unsigned char)p[fp[j]]])
	PL_ASSERT(f->fnv <= 15);
	switch (f->fnv) {
	case 15: PL__FEED_RANK(14); /* fall through */
	case 14: PL__FEED_RANK(13); /* fall through */
	case 13: PL__FEED_RANK(12); /* fall through */
	case 12: PL__FEED_RANK(11); /* fall through */
	case 11: PL__FEED_RANK(10); /* fall through */
	case 10: PL__FEED_RANK(9); /* fall through */
	case 9: PL__FEED_RANK(8); /* fall through */
	case 8: PL__FEED_RANK(7); /* fall through */
	case 7: PL__FEED_RANK(6); /* fall through */
	case 6: PL__FEED_RANK(5); /* fall through */
	case 5: PL__FEED_RANK(4); /* fall through */
	case 4: PL__FEED_RANK(3); /* fall through */
	case 3: PL__FEED_RANK(2); /* fall through */
	case 2: PL__FEED_RANK(1); /* fall through */
	case 1: PL__FEED_RANK(0); /* fall through */
	default: break;
	}
#undef PL__FEED_RANK
	if (diff != 0 || key >= PL__FEED_BAD) {
		f->live = f->direct = 0; /* the words and tags so far are not used */
		return;
	}
	pl__keyfeed_put(f, key, tag);
}

#endif
