/*
 * internal.h - what the library's sources share and callers never see.
 *
 * Names: pl__ for non-static helpers (hidden by -fvisibility=hidden).
 */
#ifndef PLACEMENT_INTERNAL_H
#define PLACEMENT_INTERNAL_H

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

#define PL_VIEW_MAGIC 0x706c7677u /* "plvw" */

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



/* ---- scoring (hash.c) --------------------------------------------------- */

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

/* ---- the view ------------------------------------------------------------ */

#include "state.h"

struct pl_view {
	uint32_t magic;
	uint32_t scorer;
	pl_snapshot snap;
	uint32_t nm, ns, nk;      /* members, streams, shards */
	uint32_t n_live, n_elig;
	uint32_t n_moving;
	uint32_t n_overrides;     /* overrides in force */
	uint32_t n_lag;           /* of those, of origin lag (fleet scans skip them when 0) */
	uint32_t weighted;        /* eligible weights are not all equal */
	uint64_t weight_elig;     /* sum of eligible weights */

	/* members */
	uint64_t *m_hash;     /* XXH3 of the id (both scorers, for the records) */
	uint32_t *m_weight;   /* effective weight (0 read as 1) */
	uint32_t *m_order;    /* rank -> index */
	uint32_t *m_rank;     /* index -> rank */
	uint32_t *m_zone;     /* zone id: members with equal zone bytes share it */
	uint32_t *m_leaders;  /* leaders in total */
	uint32_t *m_replicas; /* replicas in total */
	uint32_t *m_owned;    /* fleet: shards owned (valid when homes_ready) */
	uint32_t *m_lagged;   /* fleet: of those, owned through a lag override off the
			       * ring home (valid when homes_ready) */
	int64_t *m_scratch;   /* per member, for one policy call's own use: no
	                       * meaning between calls, never read by the view */
	uint32_t *elig;       /* eligible member indices, canonical order */
	uint64_t *elig_hash;  /* their hashes ^ PL__MIX_M, for the top-1 loop */

	/* streams */
	uint32_t *s_order, *s_rank;
	uint32_t *s_shards;     /* shards in the stream */
	uint32_t *s_first;      /* [ns + 1] offsets into by_stream */
	uint32_t *s_cell_first; /* [ns + 1] offsets into cells */
	uint32_t *s_cell_count; /* live cells of the stream */
	pl__cell *cells;
	/* Replicas per member of one stream, the one last asked (pl__rcell_get()):
	 * counted from its shards' states when another stream is asked, kept in
	 * step by pl__rcell_add() while it holds that stream. Every member with
	 * a count is in rc_list[0..rc_n), once (counts that fall to zero stay
	 * listed). */
	uint32_t rc_stream;  /* the stream counted, or PL_NONE */
	uint32_t rc_n;
	uint32_t *rc_count;  /* [nm]; with rc_rows, the row of rc_stream */
	uint32_t *rc_list;   /* [nm]; with rc_rows, every member */
	/* A small view (streams x members at most a quarter of its shards:
	 * PL__RC_ROWS()) keeps every stream's counts instead, one row of
	 * members a stream, counted at the build and kept in step: asking
	 * another stream is then a pointer to its row. */
	uint32_t rc_rows;    /* rc_mat holds ns rows */
	uint32_t *rc_mat;    /* [ns * nm] when rc_rows */

	/* shards */
	uint64_t *k_hash;   /* scoring hash: XXH3 of the key, or FNV state after "key " */
	uint32_t *k_order, *k_rank;
	uint32_t *by_stream; /* shards of each stream in key order; stream-less excluded */
	uint32_t *k_home;    /* ring home (valid when homes_ready) */
	uint64_t *k_moved;   /* two bits per shard (pl__moved()): a move was
			      * applied to it since the view was built, and one
			      * of those moved its leadership; kept by
			      * pl_view_settle(), so a dry run sees its whole
			      * sequence */
	char *st;             /* the shard states, st_size bytes apart (pl__st()) */
	uint32_t st_size;
	uint32_t room;        /* replica slots per shard */
	uint32_t homes_ready;
	uint32_t simd;        /* PL__SIMD_*: the vector path this view scores with */
	uint32_t reused;      /* PL__REUSED_*: what the build took from a hint */
	uint32_t direct;      /* validation wrote the states (a direct key feed) */
	uint32_t moved;       /* a leader or replica action was applied: the tallies
			       * are no longer the snapshot's */
};

/* What has moved shard k since the view was built (v->k_moved): 0, or
 * PL__MOVED (a MOVE_LEADER or MOVE_REPLICA was applied to it), with
 * PL__MOVED_LEADER when one of them moved its leadership. */
#define PL__MOVED 1u
#define PL__MOVED_LEADER 2u
#define PL__MOVED_WORDS(nk) (((size_t)(nk) + 31) / 32)

static inline uint32_t pl__moved(const pl_view *v, uint32_t k)
{
	return (uint32_t)(v->k_moved[k >> 5] >> (2 * (k & 31))) & 3u;
}

/* Shard k's state. */
static inline pl__shard_state *pl__st(const pl_view *v, uint32_t k)
{
	return (pl__shard_state *)(void *)(v->st + (size_t)k * v->st_size);
}

/* Shard k's epoch: the snapshot's, plus one per replica or leader action. */
static inline uint64_t pl__epoch(const pl_view *v, uint32_t k)
{
	return v->snap.shards[k].epoch + pl__st(v, k)->ep;
}

static inline int pl__view_ok(const pl_view *v)
{
	return v != NULL && v->magic == PL_VIEW_MAGIC;
}

static inline int pl__live(const pl_view *v, uint32_t m)
{
	return !(v->snap.members[m].flags & PL_MEMBER_DOWN);
}

static inline int pl__eligible(const pl_view *v, uint32_t m)
{
	return !(v->snap.members[m].flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING));
}

/* May m take a replica of shard k without passing max_shards? */
static inline int pl__room(const pl_view *v, uint32_t m, uint32_t k)
{
	uint32_t cap = v->snap.members[m].max_shards;
	return cap == 0 || pl__holds(pl__st(v, k), m) || v->m_replicas[m] < cap;
}

/* Scoring hash of any key bytes under the view's scorer, or a scorer. */
uint64_t pl__key_hash(const pl_view *v, const char *key, uint64_t len);
uint64_t pl__scorer_key_hash(uint32_t scorer, const char *key, uint64_t len);

/* The rank key of member m for a key with scoring hash kh. */
pl__draw pl__view_draw(const pl_view *v, uint64_t kh, uint32_t m);

/* Top-1 over eligible members for scoring hash kh; PL_NONE when none. */
uint32_t pl__view_top1(const pl_view *v, uint64_t kh);

/* The k best eligible members for kh, zones spread first (pl_view_top's
 * rule), in one pass over the members; writes out[0..n) and returns n =
 * min(k, eligible). k <= PL_MAX_REPLICAS. */
uint32_t pl__view_topk(const pl_view *v, uint64_t kh, uint32_t *out, uint32_t k);

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

/* Best of cand[0..n) for kh (PL_NONE when n == 0). */
uint32_t pl__view_best(const pl_view *v, uint64_t kh, const uint32_t *cand, uint32_t n);

/* The next member of a zone-spread pick for kh: the best eligible member not
 * in pick[0..n), in a zone none of them is in when there is one. With
 * room_for a shard, only members with room for a replica of it (pl__room);
 * PL_NONE: any. PL_NONE when no member qualifies. */
uint32_t pl__view_spread_next(const pl_view *v, uint64_t kh, const uint32_t *pick, uint32_t n, uint32_t room_for);

/* Leader count of member m in stream s. */
uint32_t pl__cell_get(const pl_view *v, uint32_t s, uint32_t m);
/* Add +1 or -1 to it. */
void pl__cell_add(pl_view *v, uint32_t s, uint32_t m, int delta);

/* Entries of the per-stream replica counts a view of these counts keeps
 * (struct pl_view, rc_rows): streams x members when that is at most a
 * quarter of the shards (a byte a shard at most), else none. */
static inline size_t pl__rc_entries(uint32_t nm, uint32_t ns, uint32_t nk)
{
	uint64_t e = (uint64_t)nm * ns;
	return e > 0 && e <= nk / 4 ? (size_t)e : 0;
}

/* Replicas of stream s that member m holds, and +1 or -1 to it (called
 * after the shard's state changed). The first call for a stream other than
 * the one counted costs a walk of its shards' states. */
uint32_t pl__rcell_get(const pl_view *v, uint32_t s, uint32_t m);
void pl__rcell_add(pl_view *v, uint32_t s, uint32_t m, int delta);
/* The members that may hold replicas of stream s (each once, in no order;
 * some may count zero): their number, the list in *members. The list holds
 * while no other stream is asked. */
uint32_t pl__rcell_members(const pl_view *v, uint32_t s, const uint32_t **members);

/* Floor and ceiling of `count` shared over eligible weight, for member m. */
void pl__bounds(const pl_view *v, uint32_t count, uint32_t m, uint32_t *floor, uint32_t *ceil);

/* Owner of shard k: its override member when set and eligible (live and
 * not draining), else its ring home (k_home must be filled). An override on
 * a down or draining member is void: a draining member hands off what it
 * has, as it already does for the shards the ring gave it. */
uint32_t pl__owner(const pl_view *v, uint32_t k);

/* The member that owns shard k through a lag override in force that does not
 * name the shard's ring home, else PL_NONE (k_home must be filled). */
uint32_t pl__lag_holder(const pl_view *v, uint32_t k);

/* Fill k_home and m_owned (ring homes and fleet ownership) if not done yet. */
void pl__view_homes(pl_view *v);
/* The owned and lagged counts from filled ring homes; sets homes_ready. */
void pl__view_owned(pl_view *v);

/* Apply an action (checked first); 0 or PL_E_ACTION. */
int pl__view_apply(pl_view *v, const pl_action *a);

/* Start an action: every field zero but these six. */
static inline void pl__action_init(pl_action *a, uint32_t kind, uint32_t reason, uint32_t shard, uint32_t stream,
				   uint32_t from, uint32_t to)
{
	memset(a, 0, sizeof *a);
	a->kind = kind;
	a->reason = reason;
	a->shard = shard;
	a->stream = stream;
	a->from = from;
	a->to = to;
}

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

/* ---- fleet (fleet.c -> fleet_balance.c -> fleet_common.c) ---------------- */

/* One fleet decision in progress: where its actions go. */
typedef struct pl__fleet_run {
	pl_view *v;
	const pl_fleet_config *cfg;
	pl_action *out;
	uint32_t cap;
	uint32_t written;
	uint32_t full;      /* an action did not fit */
	uint32_t moves;     /* moves made so far (clean-up drops are not moves) */
} pl__fleet_run;

/* The tick's count or spread assignment, the same for every member. */
typedef struct pl__fleet_plan {
	uint32_t reason;     /* PL_REASON_COUNT, PL_REASON_SPREAD, or 0: no pass */
	uint32_t below_only; /* places are offered only below the floor */
	uint64_t places;     /* places offered in all */
	uint64_t offered;    /* moves the ranked members offer in all */
	uint64_t first;      /* self's first place */
	uint32_t u_self;     /* moves self offers */
	uint32_t take;       /* places self takes: min(u_self, places past first) */
	uint32_t waiting;    /* members ranked past the last place */
	uint32_t taken_self; /* places of self taken by the ranked members */
	uint32_t keeps;      /* no pass: lag overrides the keep pass turns into count ones */
	uint32_t keep_self;  /* of those, self's */
} pl__fleet_plan;

/* Lag overrides after the lag, counted by pl__fleet_count(). */
typedef struct pl__fleet_count_t {
	uint32_t released;
} pl__fleet_count_t;

static inline int pl__lagging(const pl_view *v, uint32_t m)
{
	return (v->snap.members[m].flags & PL_MEMBER_LAGGING) != 0;
}

/* fleet_common.c: */
/* The member holding shard k through a lag override after the lag (it and
 * the shard's ring home not lagging), else PL_NONE (homes ready). */
uint32_t pl__fleet_released(const pl_view *v, uint32_t k);
/* Count the released lag overrides, per member held (out) and homed (in),
 * into m_scratch ((in << 32) | out). */
void pl__fleet_count(const pl_view *v, pl__fleet_count_t *out);
/* fleet_balance.c: */
/* Fill the plan for self (homes ready); m_scratch then holds what
 * pl__fleet_balance() or pl__fleet_may_return() reads. */
void pl__fleet_plan_tick(const pl_view *v, const pl_fleet_config *cfg, pl__fleet_plan *p);
/* The keep passes of a tick with no count or spread pass: holders counting
 * less than a pass's limit keep, by count, shards they hold for homes
 * counting more; the same assignment for every decider. Returns how many,
 * *mine self's; with r, self's are emitted. */
uint32_t pl__fleet_keep(const pl_view *v, const pl_fleet_config *cfg, pl__fleet_run *r, uint32_t *mine);
/* May shard k's released lag override go home this tick, as far as the
 * fleet's plan goes (the home checks its own room, age and cooldown)? */
int pl__fleet_may_return(const pl_view *v, const pl__fleet_plan *p, uint32_t k);
/* The fleet's status word when self has nothing more to do (view as left). */
uint32_t pl__fleet_status(const pl_view *v, const pl_fleet_config *cfg);
/* Make self's count or spread moves: its places, in order. */
void pl__fleet_balance(pl__fleet_run *r, const pl__fleet_plan *p);
/* fleet_common.c: */
/* Append an action and apply it to the view; 0, or 1 when out is full. */
int pl__fleet_emit(pl__fleet_run *r, const pl_action *a);
/* An override action on shard k with the fleet's common fields filled. */
pl_action pl__fleet_action(const pl_view *v, uint32_t kind, uint32_t reason, uint32_t k, uint32_t from,
			   uint32_t to);

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
/* Does [p, p + n) share a byte with the struct s or one of its arrays? */
int pl__overlaps_snapshot(const pl_snapshot *s, const void *p, size_t n);
/* The bytes a built view spans (its memory, from the view on). */
size_t pl__view_bytes(const pl_view *v);
/* Does it share a byte with the view's memory or its snapshot's arrays? */
int pl__overlaps_view(const pl_view *v, const void *p, size_t n);
/* An output (argument arg) that overlaps the view v (unless NULL) or the
 * input [q, q + m): PL_E_OVERLAP naming it; else 0. */
int pl__check_out(const pl_view *v, const void *p, size_t n, const void *q, size_t m, uint32_t arg, pl_diag *diag);
/* The memory of a view being built, [mem, mem + need): PL_E_OVERLAP when
 * out (argument 1) points into it, or it shares a byte with the snapshot
 * (unless NULL) or the options (argument 2); else 0. */
int pl__check_view_mem(const void *mem, size_t need, pl_view *const *out, const pl_snapshot *snap,
		       const pl_view_options *opt, pl_diag *diag);

/* The arguments a policy call checks first, in this order: the view
 * (argument 1; also memory that holds no view), the configuration (2,
 * cfg_size bytes), the output array (3: NULL only with cap 0; sharing no
 * byte with the view, its snapshot or the configuration) and the optional
 * info (5: sharing no byte with the view or the output array). 0, or
 * PL_E_INVAL or PL_E_OVERLAP with the argument named in the diag. */
static inline int pl__check_policy_args(const pl_view *v, const void *cfg, size_t cfg_size, const pl_action *out,
					uint32_t cap, const pl_plan_info *info, pl_diag *diag)
{
	if (!pl__view_ok(v))
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 1, PL_NONE);
	if (cfg == NULL)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 2, PL_NONE);
	if (out == NULL && cap > 0)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 3, PL_NONE);
	size_t out_size = pl__span(cap, sizeof *out);
	int rc = pl__check_out(v, out, out_size, cfg, cfg_size, 3, diag);
	return rc ? rc : pl__check_out(v, info, sizeof *info, out, out_size, 5, diag);
}

/* Fill a policy call's info when the caller asked for one: `written`
 * actions, plus one wanted when `more` (an action did not fit). */
static inline void pl__plan_info(pl_plan_info *info, uint32_t written, uint32_t more, uint32_t status,
				 uint32_t detail, uint32_t blocked)
{
	if (info == NULL)
		return;
	info->written = written;
	info->wanted = written + more;
	info->status = status;
	info->detail = detail;
	info->blocked = blocked;
}

#endif /* PLACEMENT_INTERNAL_H */
