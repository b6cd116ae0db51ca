/*
 * view/view_int.h - what the view offers the policies: the view's struct
 * and its accessors, scoring inside a view, the tallies and the cells,
 * ownership, applying an action, and the checks of a policy call's
 * arguments. How a view is built (validation, the key feed, reuse of a
 * hint) is the view's own business: view_build.h, which no policy includes.
 */
#ifndef PLACEMENT_VIEW_INT_H
#define PLACEMENT_VIEW_INT_H

#include "core/core.h"
#include "view/state.h"

#define PL_VIEW_MAGIC 0x706c7677u /* "plvw" */

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
	uint32_t sized;           /* the snapshot gives shard sizes (shard_bytes) */
	uint32_t zone_levels;     /* levels of the zones' paths: 1 + the most '/' in a zone, at most
				   * PL__ZONE_LEVELS (pl__zone_same()) */

	/* members */
	uint64_t *m_hash;     /* XXH3 of the id (both scorers, for the records) */
	uint32_t *m_weight;   /* effective weight (0 read as 1) */
	uint32_t *m_order;    /* rank -> index */
	uint32_t *m_rank;     /* index -> rank */
	uint32_t *m_zone;     /* zone id: members with equal zone bytes share it */
	uint32_t *m_leaders;  /* leaders in total */
	uint32_t *m_replicas; /* replicas in total */
	uint64_t *m_bytes;    /* the known sizes of the replicas it holds (snapshot
			       * shard_bytes; all 0 when the snapshot gives none) */
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
	/* One stream's leaders on eligible members (pl__cell_sum_elig()), the one
	 * last asked: cleared by every change of a leader cell. */
	uint32_t ls_stream; /* the stream summed, or PL_NONE */
	uint32_t ls_sum;
	/* One stream's leaders per member, dense (pl__cell_cache()): filled
	 * from its cells when a pass that reads every member's count of that
	 * stream asks for it, kept in step by pl__cell_add() while it holds
	 * that stream; pl__cell_get() reads it for that stream and searches
	 * the cells for any other, so asking stream after stream costs no
	 * refill. Zero for every member outside its stream's cells. */
	uint32_t lc_stream;  /* the stream held, or PL_NONE */
	uint32_t *lc_count;  /* [nm] */
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
			      * applied to it since the view was built or last
			      * settled, and one of those moved its leadership;
			      * cleared by pl_view_settle(), so a dry run decides
			      * every tick as a fresh view would */
	uint64_t *k_changed; /* a bit per shard: a leader or replica action was
			      * applied to it since the build (kept by
			      * pl_view_settle()): what a build with this view
			      * as its hint counts again (pl__reuse.delta) */
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

/* What has moved shard k in this tick (v->k_moved): 0, or
 * PL__MOVED (a MOVE_LEADER or MOVE_REPLICA was applied to it), with
 * PL__MOVED_LEADER when one of them moved its leadership. */
#define PL__MOVED 1u
#define PL__MOVED_LEADER 2u
#define PL__MOVED_WORDS(nk) (((size_t)(nk) + 31) / 32)
#define PL__CHANGED_WORDS(nk) (((size_t)(nk) + 63) / 64)

/* Has a leader or replica action been applied to shard k since v was built
 * (v->k_changed)? */
static inline int pl__changed(const pl_view *v, uint32_t k)
{
	return (int)(v->k_changed[k >> 6] >> (k & 63)) & 1;
}

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

/* May m, a replica of shard k, take its leadership: not marked out of sync
 * in the snapshot (PL_SHARD_OUT_OF_SYNC)? A replica the view added (a copy
 * made in this view) counts as in sync once settled; moving shards are not
 * handed off anyway. */
static inline int pl__in_sync(const pl_view *v, uint32_t k, uint32_t m)
{
	const pl_shard *s = &v->snap.shards[k];
	uint32_t oos = s->flags & PL_SHARD_OUT_OF_SYNC_ALL;
	if (oos == 0)
		return 1;
	for (uint32_t j = 0; j < s->replica_count; j++)
		if (s->replicas[j] == m)
			return !(oos & PL_SHARD_OUT_OF_SYNC(j));
	return 1;
}

/* May m take a replica of shard k without passing max_shards? */
static inline int pl__room(const pl_view *v, uint32_t m, uint32_t k)
{
	uint32_t cap = v->snap.members[m].max_shards;
	return cap == 0 || pl__holds(pl__st(v, k), m) || v->m_replicas[m] < cap;
}

/* Shard k's size in bytes, PL_BYTES_UNKNOWN when the snapshot does not say. */
/* Levels of failure domain a zone's path names ("region/rack/host": three);
 * a deeper path's tail belongs to its last level. */
#define PL__ZONE_LEVELS 3u

/* The bytes of zone z's path up to its level `level` (0: the top): up to
 * its (level + 1)-th '/', or all of it. */
static inline uint64_t pl__zone_prefix(pl_bytes z, uint32_t level)
{
	for (uint64_t i = 0; i < z.len; i++)
		if (z.ptr[i] == '/' && level-- == 0)
			return i;
	return z.len;
}

/* Do members a and b share their failure domain at `level` (0: the top;
 * v->zone_levels - 1 and past: the whole zone)? An empty zone is a domain
 * of its own at every level; equal zones share every level. */
static inline int pl__zone_same(const pl_view *v, uint32_t a, uint32_t b, uint32_t level)
{
	if (v->m_zone[a] == v->m_zone[b])
		return 1;
	if (level + 1 >= v->zone_levels)
		return 0;
	pl_bytes za = v->snap.members[a].zone, zb = v->snap.members[b].zone;
	if (za.len == 0 || zb.len == 0)
		return 0;
	uint64_t la = pl__zone_prefix(za, level), lb = pl__zone_prefix(zb, level);
	return la == lb && memcmp(za.ptr, zb.ptr, (size_t)la) == 0;
}

/* The first level at which m's domain is none of set[0..n)'s, skipping
 * set members equal to `skip` (0: a top-level domain none of them is in);
 * v->zone_levels when one of them shares m's whole zone. Domains nest, so
 * m is new at every level past it too. */
static inline uint32_t pl__zone_new_level(const pl_view *v, const uint32_t *set, uint32_t n, uint32_t skip,
					  uint32_t m)
{
	uint32_t lv = 0;
	if (v->zone_levels == 1) { /* one level: is m's zone among theirs? */
		for (uint32_t j = 0; j < n; j++)
			if (set[j] != skip && v->m_zone[set[j]] == v->m_zone[m])
				return 1;
		return 0;
	}
	for (uint32_t j = 0; j < n && lv < v->zone_levels; j++)
		while (set[j] != skip && lv < v->zone_levels && pl__zone_same(v, set[j], m, lv))
			lv++;
	return lv;
}

static inline uint64_t pl__size(const pl_view *v, uint32_t k)
{
	return v->snap.shard_bytes ? v->snap.shard_bytes[k] : PL_BYTES_UNKNOWN;
}

/* Shard k's size as member sums count it: unknown as 0. */
static inline uint64_t pl__size0(const pl_view *v, uint32_t k)
{
	uint64_t b = pl__size(v, k);
	return b == PL_BYTES_UNKNOWN ? 0 : b;
}

/* Member m's capacity in bytes, PL_BYTES_UNKNOWN when the snapshot does not say. */
static inline uint64_t pl__capacity(const pl_view *v, uint32_t m)
{
	return v->snap.member_capacity ? v->snap.member_capacity[m] : PL_BYTES_UNKNOWN;
}

/* m_bytes from the shards' states (tally.c); all 0 without sizes. */
void pl__view_count_bytes(pl_view *v);

/* Scoring hash of any key bytes under the view's scorer. */
uint64_t pl__key_hash(const pl_view *v, const char *key, uint64_t len);

/* The rank key of member m for a key with scoring hash kh. */
pl__draw pl__view_draw(const pl_view *v, uint64_t kh, uint32_t m);

/* Top-1 over eligible members for scoring hash kh; PL_NONE when none. */
uint32_t pl__view_top1(const pl_view *v, uint64_t kh);

/* The k best eligible members for kh, zones spread first (pl_view_top's
 * rule), in one pass over the members; writes out[0..n) and returns n =
 * min(k, eligible). k <= PL_MAX_REPLICAS. */
uint32_t pl__view_topk(const pl_view *v, uint64_t kh, uint32_t *out, uint32_t k);


/* Best of cand[0..n) for kh (PL_NONE when n == 0). */
uint32_t pl__view_best(const pl_view *v, uint64_t kh, const uint32_t *cand, uint32_t n);

/* The next member of a zone-spread pick for kh: the best eligible member not
 * in pick[0..n), in a zone none of them is in when there is one. With
 * room_for a shard, only members with room for a replica of it (pl__room);
 * PL_NONE: any. PL_NONE when no member qualifies. */
uint32_t pl__view_spread_next(const pl_view *v, uint64_t kh, const uint32_t *pick, uint32_t n, uint32_t room_for);

/* Leader count of member m in stream s: read from the held stream's dense
 * count (pl__cell_cache()) when s is held, else searched in its cells. */
uint32_t pl__cell_find(const pl_view *v, uint32_t s, uint32_t m);
static inline uint32_t pl__cell_get(const pl_view *v, uint32_t s, uint32_t m)
{
	return v->lc_stream == s ? v->lc_count[m] : pl__cell_find(v, s, m);
}
void pl__cell_cache(const pl_view *v, uint32_t s);
/* Stream s's leaders on eligible members (remembered for the stream last
 * asked until a leader cell changes). */
uint32_t pl__cell_sum_elig(const pl_view *v, uint32_t s);
/* Add +1 or -1 to it. */
void pl__cell_add(pl_view *v, uint32_t s, uint32_t m, int delta);
/* Cells copied from old (pl__view_copy_cells(), the same streams, shards
 * and members) made v's, where shards ks[0..n) changed leader between
 * old's states and v's. */
void pl__cells_delta(pl_view *v, const pl_view *old, const uint32_t *ks, uint32_t n);

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
uint32_t pl__rcell_find(const pl_view *v, uint32_t s, uint32_t m);
static inline uint32_t pl__rcell_get(const pl_view *v, uint32_t s, uint32_t m)
{
	return v->rc_stream == s ? v->rc_count[m] : pl__rcell_find(v, s, m);
}
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

/* ---- outputs: overlaps and the arguments of a policy call ----------------- */

/* The bytes a built view spans (its memory, from the view on; view_layout.c). */
size_t pl__view_bytes(const pl_view *v);
/* Does it share a byte with the view's memory or its snapshot's arrays?
 * (view_guard.c, as the next.) */
int pl__overlaps_view(const pl_view *v, const void *p, size_t n);
/* One argument of a public call as the overlap rule (view.h) sees it: the
 * bytes [p, p + n), its position in the call (1-based, as a diag names it),
 * and whether the call writes it (an output) or only reads it. */
typedef struct pl__arg {
	const void *p;
	size_t n;
	uint32_t pos;
	uint32_t out;
} pl__arg;

#define PL__IN(p, n, pos) {(p), (n), (pos), 0u}
#define PL__OUT(p, n, pos) {(p), (n), (pos), 1u}

/* The overlap rule for one call, before it writes anything. Its inputs are
 * the view v (its memory and its snapshot's arrays; not compared when v is
 * NULL or holds no view), the snapshot s (the struct and its arrays; or
 * NULL) and the inputs among a[0..n); its outputs are the outputs among
 * a[0..n) and the diag. The diag is checked first: when
 * it shares a byte with any of them, the call gets PL_E_OVERLAP and nothing
 * is written to it. Then each output in a's order: the first that shares a
 * byte with an input or with an output before it is named, PL_E_OVERLAP.
 * 0 when every output stands apart. */
int pl__check_args(const pl_view *v, const pl_snapshot *s, const pl__arg *a, uint32_t n, pl_diag *diag);

/* The arguments a policy call checks first: the overlap rule over the view
 * (argument 1), the configuration (2, cfg_size bytes), the output array
 * (3), the optional info (5), one more output when `more` is not NULL (a
 * dry run's ticks, a region plan's stalls) and the diag; then
 * the view (1: PL_E_INVAL for memory that holds no view), the
 * configuration (2: NULL) and the output array (3: NULL only with cap 0).
 * 0, or PL_E_OVERLAP or PL_E_INVAL with the argument named in the diag. */
static inline int pl__check_policy_args(const pl_view *v, const void *cfg, size_t cfg_size, const pl_action *out,
					uint32_t cap, const pl_plan_info *info, const pl__arg *more, pl_diag *diag)
{
	const pl__arg a[4] = {PL__IN(cfg, cfg_size, 2), PL__OUT(out, pl__span(cap, sizeof *out), 3),
			      PL__OUT(info, sizeof *info, 5), more ? *more : (pl__arg)PL__IN(NULL, 0, 0)};
	int rc = pl__check_args(v, NULL, a, 4, diag);
	if (rc)
		return rc;
	if (!pl__view_ok(v))
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 1, PL_NONE);
	if (cfg == NULL)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 2, PL_NONE);
	if (out == NULL && cap > 0)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 3, PL_NONE);
	return 0;
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


#endif /* PLACEMENT_VIEW_INT_H */
