/*
 * keyplan.h - the plan of the packed first level, which the sort
 * (order_first.c) and its feed (keyfeed.c) share: the windows of the keys,
 * the shared prefix from a sample, the plans that pack level keys, and the
 * scratch's layout.
 */
#ifndef PLACEMENT_KEYPLAN_H
#define PLACEMENT_KEYPLAN_H

#include "core/order_impl.h"

/* The first level's window of a key at off: level_key()'s 16 bytes in memory
 * order (bytes [off, off + 15) zero-padded, then the bytes remaining capped
 * at 16), copied with fixed-size moves (no call for a short key). */
static inline void window(unsigned char *w, pl_bytes b, uint64_t off)
{
	uint64_t rem = b.len > off ? b.len - off : 0;
	if (rem >= 16) {
		memcpy(w, b.ptr + off, 16);
		w[15] = 16;
		return;
	}
	memset(w, 0, 16);
	const char *p = rem ? b.ptr + off : NULL;
	size_t m = (size_t)(rem < 15 ? rem : 15);
	if (m >= 8) {
		memcpy(w, p, 8); /* two overlapping moves cover 8..15 bytes */
		memcpy(w + m - 8, p + m - 8, 8);
	} else if (m >= 4) {
		memcpy(w, p, 4);
		memcpy(w + m - 4, p + m - 4, 4);
	} else {
		for (size_t j = 0; j < m; j++)
			w[j] = (unsigned char)p[j];
	}
	w[15] = (unsigned char)rem;
}

/* Does key b start with the off bytes of k0? Up to 8 bytes as one word
 * compared under a mask of their bytes, when b has 8. */
static inline int has_prefix(pl_bytes b, pl_bytes k0, uint64_t off)
{
	if (off == 0)
		return 1;
	if (b.len < off)
		return 0;
	if (off <= 8 && b.len >= 8 && k0.len >= 8) {
		static const unsigned char ones[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
		uint64_t x, y, m;
		memcpy(&x, b.ptr, 8);
		memcpy(&y, k0.ptr, 8);
		memcpy(&m, ones + 8 - off, 8);
		return ((x ^ y) & m) == 0;
	}
	return memcmp(b.ptr, k0.ptr, (size_t)off) == 0;
}

/* The prefix all n keys share: a bound from a sample of them first (the
 * shared prefix of all is at most theirs), then checked against each. */
static inline uint64_t sample_prefix(const pl__byteseq *q, uint32_t n)
{
	pl_bytes k0 = pl__seq_at(q, 0);
	uint64_t lcp = k0.len;
	for (uint32_t j = 1; j <= 32 && lcp > 0; j++) {
		pl_bytes b = pl__seq_at(q, (uint32_t)(((uint64_t)n - 1) * j / 32));
		uint64_t m = b.len < lcp ? b.len : lcp, x = 0;
		while (x < m && b.ptr[x] == k0.ptr[x])
			x++;
		lcp = x;
	}
	return lcp;
}

/* How level keys are packed: for each varying byte (from the least
 * significant, byte 15), its place, its multiplier, and each value's rank
 * (PLAN_BAD for a value the plan does not hold). */
#define PLAN_BAD 0x8000u
typedef struct plan {
	int nv, vt[16];
	uint64_t mult[16], prod;
	uint16_t rank[16][256];
} plan;

/* Turn the values marked non-zero in rank[t] of each byte t in `vary` into
 * ranks, and their counts into multipliers: 0 when their product passes
 * limit. */
static inline int plan_ranks(plan *p, uint32_t vary, uint64_t limit)
{
	p->nv = 0;
	p->prod = 1;
	for (int t = 15; t >= 0; t--) {
		if (!((vary >> t) & 1))
			continue;
		uint32_t c = 0;
		for (int b = 0; b < 256; b++)
			p->rank[t][b] = p->rank[t][b] ? (uint16_t)c++ : (uint16_t)PLAN_BAD;
		p->vt[p->nv] = t;
		p->mult[p->nv++] = p->prod;
		p->prod = p->prod > limit / c ? limit + 1 : p->prod * c;
	}
	return p->prod <= limit;
}

/* Radix digits over a packed key below prod: *np of *width bits, at most 10
 * bits each (four digits for the 40 bits a key may have). */
static inline void digits(uint64_t prod, int *np, int *width)
{
	int kbits = 0;
	while ((prod - 1) >> kbits) /* prod <= 2^40 */
		kbits++;
	*np = (kbits + 9) / 10;
	*width = *np ? (kbits + *np - 1) / *np : 0;
}

/* Where the first level keeps what it needs in the scratch of n keys
 * (PL__SORT_SCRATCH(n), 36 bytes a key rounded up to 8): the (packed key,
 * index) words and their copy (8 + 8 bytes a key), the tags (4, and 4 more
 * for an odd n), then the windows (16; or, when keys are fed, the digit
 * counts). The runs reuse the room from the windows to the end (16 bytes a
 * key), sorted there in place, 24 bytes a key of the run (pl__kent): a run
 * of up to two thirds of the keys fits. */
typedef struct layout {
	uint64_t *w, *wtmp;
	uint32_t *tags;
	unsigned char (*win)[16];
	uint32_t (*counts)[1024];
	pl__kent *run;
	size_t run_room;
} layout;

/* The windows end at 36 bytes a key, 4 more for an odd n. */
_Static_assert(PL__SORT_SCRATCH(1) >= 5 * sizeof(uint64_t) && PL__SORT_SCRATCH(2) >= 9 * sizeof(uint64_t) &&
		       PL__SORT_SCRATCH(3) - PL__SORT_SCRATCH(1) >= 2 * 36,
	       "the first level's scratch");
/* The byte levels sort every key's pl__kent in place. */
_Static_assert(PL__SORT_SCRATCH(2) - PL__SORT_SCRATCH(1) >= sizeof(pl__kent), "the byte levels' scratch");

static inline layout layout_of(void *scratch, uint32_t n)
{
	layout l;
	l.w = scratch;
	l.wtmp = l.w + n;
	l.tags = (uint32_t *)(void *)(l.wtmp + n);
	l.win = (unsigned char (*)[16])(void *)(l.wtmp + n + (n + 1) / 2);
	l.counts = (uint32_t (*)[1024])(void *)l.win;
	l.run = (pl__kent *)(void *)l.win;
	l.run_room = PL__SORT_SCRATCH(n) - (size_t)((char *)l.win - (char *)scratch);
	return l;
}

/* The index takes the low bits of a word, the packed key the rest, up to
 * 40 bits: the bits of the index, and the bound of a packed key. */
static inline int index_bits(uint32_t n, uint64_t *limit)
{
	int ibits = 1;
	while (((uint64_t)n - 1) >> ibits) /* n <= PL_MAX_SHARDS: at most 26 bits */
		ibits++;
	*limit = UINT64_C(1) << (64 - ibits < 40 ? 64 - ibits : 40);
	return ibits;
}

/* Do n packed keys below prod fill most of their range (at most two slots
 * a key)? Then a table of the range sorts them (dense() in order_first.c,
 * or a direct feed), and no digits are counted. */
static inline int dense_range(uint64_t prod, uint32_t n)
{
	return prod <= 2 * (uint64_t)n;
}

#endif
