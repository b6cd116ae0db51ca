/*
 * core/core.h - what the core offers every layer above it: invariants,
 * errors into a diag, the canonical orders and the key feed, the scoring
 * primitives, and the guards on a snapshot's counts and byte ranges.
 * It knows nothing of a view (lib/README.md: which folder may call which).
 *
 *
 * Names: pl__ for non-static helpers (hidden by -fvisibility=hidden).
 */
#ifndef PLACEMENT_CORE_H
#define PLACEMENT_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "placement.h"

/* Invariants, written where they live (after SQLite's ALWAYS/NEVER): the
 * condition is expected to hold; tests build with PL_DEBUG to assert it. */
#ifdef PL_DEBUG
#include <assert.h>
#define PL_ASSERT(c) assert(c)
#else
#define PL_ASSERT(c) ((void)0)
#endif

/* One case of a switch over an X-macro list of the headers (entries are
 * (name, value, string)) that returns the entry's string: the name
 * functions of plan.c and pl_strerror(). */
#define PL__CASE_STRING(name, value, str) \
	case value:                       \
		return str;

/* ---- canonical orders (order.c) ---------------------------------------- */

/* Where to find the i-th byte range: base + i * stride + offset; and,
 * when tag_offset is not PL__NO_TAG, a uint32 payload at base + i * stride
 * + tag_offset to carry through the sort. */
typedef struct pl__byteseq {
	const char *base;
	size_t stride;
	size_t offset;
	size_t tag_offset;
} pl__byteseq;

#define PL__NO_TAG ((size_t)-1)

static inline pl_bytes pl__seq_at(const pl__byteseq *q, uint32_t i)
{
	pl_bytes b;
	memcpy(&b, q->base + (size_t)i * q->stride + q->offset, sizeof b);
	return b;
}

/* Ask for key i's bytes ahead of their read, when i < n: a caller's keys
 * may lie anywhere in memory, in no order. */
static inline void pl__seq_prefetch(const pl__byteseq *q, uint32_t i, uint32_t n)
{
#if defined(__GNUC__)
	if (i < n)
		__builtin_prefetch(pl__seq_at(q, i).ptr);
#else
	(void)q, (void)i, (void)n;
#endif
}

/* Compare two byte ranges: memcmp order, a shorter range before its extensions. */
int pl__bytes_cmp(const char *a, uint64_t alen, const char *b, uint64_t blen);

/* Scratch pl__sort_bytes() needs for n elements: 36 bytes each, rounded up
 * to 8 (so 0 for none): the packed first level's words, their copy, the
 * tags and the windows (order_first.c); the byte levels sort in place in 24
 * bytes an element (order.c). */
#define PL__SORT_SCRATCH(n) ((36 * (size_t)(n) + 7u) & ~(size_t)7)

/* Sort 0..n-1 by the byte ranges of q into out[], stably (equal ranges keep
 * index order); when out_tag is not NULL it receives each element's tag in
 * the same order (sequential reads afterwards, instead of random ones).
 * Returns the smallest index whose bytes an earlier element has, with that
 * earlier one in *dup_other, or PL_NONE. scratch: PL__SORT_SCRATCH(n) bytes,
 * aligned to 8. */
uint32_t pl__sort_bytes(const pl__byteseq *q, uint32_t n, uint32_t *out, uint32_t *out_tag, void *scratch,
			uint32_t *dup_other);

/* The first level of pl__sort_bytes() fed one key at a time, in index
 * order, by a pass that reads the keys anyway (validation's over the
 * shards), so the sort need not read them again: start from a sample of q's
 * keys (n of them, scratch as for the sort, not touched by anything else
 * until the sort), add each key and its tag, then sort with the feed. A key
 * that does not fit the sample's plan ends the feed (live 0); the sort then
 * reads the keys itself. Feeding stops at any time: fewer than n keys fed
 * is a feed the sort does not use. */
#define PL__FEED_BAD (UINT64_C(1) << 56)
typedef struct pl__keyfeed {
	uint32_t n, next, live;
	int ibits, nv, np, width, vt[16];
	uint64_t prod; /* the packed keys lie in [0, prod) */
	int nc;        /* digits counted as the keys are fed: np, or 0 for a
			* dense range (prod <= 2n: the sort needs no counts) */
	uint64_t off, cv[2], cm[2];
	pl_bytes k0;
	uint64_t *w, *room;
	uint32_t *tags;
	uint32_t (*counts)[1024];
	/* Direct (pl__keyfeed_start()'s direct_room): a dense range's keys go
	 * straight to their slot of the range's table (slot[key] = index), no
	 * word; the first key whose slot is taken starts the feed again
	 * without it, from the first key of q (pl__keyfeed_collide()). */
	uint32_t direct, *slot;
	pl__byteseq q;
	void *scratch;
	/* A key of the first key's length flen (UINT64_MAX: none) is checked
	 * by words (keyfeed.h): the bytes at fpos[0..fwords) under fmask
	 * equal to fref, the varying bytes read at fp[0..fnv) with their
	 * ranks at room + ftab[], fbase the ranks of the rest. */
	uint64_t flen, fbase, fref[4], fmask[4];
	int fwords, fnv;
	uint32_t fpos[4], fp[16], ftab[16];
} pl__keyfeed;
/* A feed of q's n keys in the scratch (PL__SORT_SCRATCH(n) bytes). Direct
 * when the plan's range is dense and its table, the tags and the ranks fit
 * the first `direct_room` bytes of the scratch (12 bytes a key and the
 * ranks' 2 KiB a varying byte; 0: never direct); the feed then writes
 * nothing past them while it stays direct. */
void pl__keyfeed_start(pl__keyfeed *f, const pl__byteseq *q, uint32_t n, void *scratch, size_t direct_room);
/* A direct feed's key whose slot is taken: the feed goes on without the
 * table, as if started without direct room and fed q's keys before it
 * (the key itself is not fed). */
void pl__keyfeed_collide(pl__keyfeed *f);
void pl__keyfeed_add(pl__keyfeed *f, pl_bytes key, uint32_t tag);
/* The packed key of a key of another length than flen (keyfeed.h), for
 * pl__keyfeed_put(); or the feed ends (live 0) when the key is outside the
 * plan. */
uint64_t pl__keyfeed_other(pl__keyfeed *f, pl_bytes key);
/* pl__sort_bytes() with a feed of q's keys (or NULL). */
uint32_t pl__sort_fed(const pl__byteseq *q, uint32_t n, const pl__keyfeed *fed, uint32_t *out, uint32_t *out_tag,
		      void *scratch, uint32_t *dup_other);

/* LSD radix sort of plain 64-bit keys; tmp has n entries. Result in a. */
void pl__radix_sort_u64(uint64_t *a, uint64_t *tmp, uint32_t n);



/* ---- scoring (hash.c, score_simd.c) --------------------------------------- */

#define PL__FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define PL__FNV_PRIME UINT64_C(0x100000001b3)

/* The pair mix: the 128-bit product of the two hashes, each xored with a
 * fixed constant (wyhash's), folded to 64 bits (high ^ low). One
 * multiply per pair; the same bits on every platform. */
#define PL__MIX_K UINT64_C(0xa0761d6478bd642f)
#define PL__MIX_M UINT64_C(0xe7037ed1a0b428db)

static inline uint64_t pl__fold_mul(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
	__extension__ typedef unsigned __int128 pl__u128;
	pl__u128 r = (pl__u128)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
	uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
	uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
	uint64_t lo = (ll & 0xffffffffu) | (mid << 32);
	uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	return lo ^ hi;
#endif
}

static inline uint64_t pl__mix(uint64_t key_hash, uint64_t member_hash)
{
	return pl__fold_mul(key_hash ^ PL__MIX_K, member_hash ^ PL__MIX_M);
}

static inline uint64_t pl__fnv(uint64_t h, const char *p, uint64_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	for (uint64_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= PL__FNV_PRIME;
	}
	return h;
}

/* A pair's rank key: higher draw wins, then higher score, then lower rank. */
typedef struct pl__draw {
	int64_t draw;
	uint64_t score;
	uint32_t rank;
} pl__draw;

static inline int pl__draw_gt(pl__draw a, pl__draw b)
{
	if (a.draw != b.draw)
		return a.draw > b.draw;
	if (a.score != b.score)
		return a.score > b.score;
	return a.rank < b.rank;
}

/* The scoring hash of key bytes under a scorer (PL_SCORER_*). */
uint64_t pl__scorer_key_hash(uint32_t scorer, const char *key, uint64_t len);

/* Vector paths of the XXH3 scorer (score_simd.c). Every path gives the same
 * bits; the view records the best one this CPU runs (capped by the build's
 * PL_SIMD_MAX). */
#define PL__SIMD_SCALAR 0u
#define PL__SIMD_AVX2 1u
#define PL__SIMD_AVX512 2u
uint32_t pl__simd_detect(void);
/* The place i < n maximising pl__fold_mul(a, h[i]), ties to the smaller
 * place; n >= 1. */
uint32_t pl__top1_hashes(const uint64_t *h, uint32_t n, uint64_t a, uint32_t simd);
/* out[i] = pl__fold_mul(a, h[i]) for i < n. */
void pl__scores_hashes(const uint64_t *h, uint32_t n, uint64_t a, uint32_t simd, uint64_t *out);

/* ---- what every entry point shares -------------------------------------- */

/* The body of every pl_..._init(): copy the defaults def (size bytes, an
 * _INIT macro's value) into dst; PL_E_INVAL, writing nothing, when dst is
 * NULL. */
static inline int pl__init_from(void *dst, const void *def, size_t size)
{
	if (dst == NULL)
		return PL_E_INVAL;
	memcpy(dst, def, size);
	return 0;
}

static inline int pl__fail(pl_diag *d, int code, uint32_t kind, uint32_t index, uint32_t other)
{
	if (d) {
		d->code = code;
		d->kind = kind;
		d->index = index;
		d->other = other;
	}
	return code;
}

/* ---- limits and overlaps (guard.c) --------------------------------------- */

/* A caller's snapshot is read only when its version, the first field, is
 * PL_SNAPSHOT_VERSION (snapshot.h's layout rule): else nothing past the
 * version is read, and the call refuses it with PL_E_VERSION. */
static inline int pl__snapshot_known(const pl_snapshot *s)
{
	return s != NULL && (s->version == 1u || s->version == 3u || s->version == PL_SNAPSHOT_VERSION);
}

/* The bytes of a known snapshot's layout: version 1 ends before the sizes,
 * version 3 before the streams' rules. */
static inline size_t pl__snapshot_size(const pl_snapshot *s)
{
	return s->version == 1u   ? offsetof(pl_snapshot, shard_bytes)
	       : s->version == 3u ? offsetof(pl_snapshot, stream_tolerance)
				  : sizeof(pl_snapshot);
}

/* A known snapshot as the current layout: the caller's version's bytes, the
 * fields after them NULL (a version 1 snapshot gives no sizes, version 3 no
 * streams' rules). */
static inline void pl__snapshot_read(const pl_snapshot *s, pl_snapshot *out)
{
	memset(out, 0, sizeof *out);
	memcpy(out, s, pl__snapshot_size(s));
}

/* The first array of the snapshot (0..4: members, streams, shards,
 * overrides, copies) whose count passes its limit, or PL_NONE. */
uint32_t pl__past_limit(const pl_snapshot *s);
/* Step 1 of validation: an array NULL with a non-zero count (PL_E_NULL),
 * then a count past its limit (PL_E_LIMIT), PL_ELEM_SNAPSHOT naming it. */
int pl__check_arrays(const pl_snapshot *s, pl_diag *d);
/* count elements of `size` bytes, saturated at SIZE_MAX. */
size_t pl__span(uint32_t count, size_t size);
/* Do [p, p + n) and [q, q + m) share a byte? (NULL or empty: no.) */
int pl__overlap(const void *p, size_t n, const void *q, size_t m);
/* Does [p, p + n) share a byte with the struct s or one of its arrays? Of
 * a snapshot of another version only the version is read, and compared. */
int pl__overlaps_snapshot(const pl_snapshot *s, const void *p, size_t n);

#endif /* PLACEMENT_CORE_H */
