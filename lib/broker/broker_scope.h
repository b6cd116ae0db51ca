/*
 * broker_scope.h - part of broker_int.h (included there, at its place in
 * the order of the layers): a scope's counts and bounds, the keys and
 * ranking of sources and destinations (broker_scope.c), and the offers a
 * search weighs (broker_offer.c). Not to be included alone.
 */
#ifndef PLACEMENT_BROKER_SCOPE_H
#define PLACEMENT_BROKER_SCOPE_H

#ifndef PLACEMENT_BROKER_INT_H
#error "include broker/broker_int.h, which includes this"
#endif

/* ---- 3. scopes, ranking (broker_scope.c) and offers (broker_offer.c) ---- */

/* How a search of a scope ended. */
#define PL__BK_MOVED 0
#define PL__BK_FULL 1
#define PL__BK_WAIT 2
#define PL__BK_BLOCK_CAPS 3
#define PL__BK_BLOCK_ZONES 4
#define PL__BK_SETTLED 5 /* nothing the rules allow (out of bounds: pl__bk_drive notes BLOCK_BOUNDS) */
#define PL__BK_BLOCK_HANDOFF 6 /* handoff_only: only a copy would move it */
#define PL__BK_BLOCK_FULL 7 /* a copy would pass a full ratio (or, bytes first, leave the band further) */
#define PL__BK_BLOCK_BOUNDS 8 /* out of bounds: each move a kept stream or another scope's rule refuses */
#define PL__BK_BLOCKED(rc)                                                                    \
	((rc) == PL__BK_BLOCK_CAPS || (rc) == PL__BK_BLOCK_ZONES || (rc) == PL__BK_BLOCK_HANDOFF || \
	 (rc) == PL__BK_BLOCK_FULL)

/* A scope: one stream's leaders (s = the stream) or all leaders (PL_NONE);
 * with rep, the replicas held instead of the leaders. */
typedef struct pl__scope {
	uint32_t s;
	uint32_t rep;      /* 1: replicas held, not leaders */
	uint32_t L;        /* leaders counted on eligible members */
	uint32_t fl, ce;   /* the bounds, when weights are equal */
	int over, under;   /* some member over its ceiling, under its floor */
	uint32_t hot;      /* how far its furthest member is over its ceiling */
	int level;         /* 0 first search; fallbacks: 1 wide, 2 spread, 3 even (replicas) */
	uint32_t tgt;      /* a stream's leaders with targets: hi says who ends at the ceiling */
	uint64_t hi;
	uint32_t tol;      /* the tolerance: the scope's bounds widened by it (pl__bk_widen()) */
} pl__scope;

/* A mark on a member, kept in the scratch's high bits beside the projection
 * (which fits far below them: it is at most the shards). */
#define PL__BK_MARK (INT64_C(1) << 40)

/* A rank-sorted list of destinations with room. With per_zone, it keeps the
 * best member of each of the best `max` zones; without, the best `max`. */
typedef struct pl__dlist {
	uint32_t n, max, per_zone;
	uint32_t m[PL_BROKER_SEARCH], key[PL_BROKER_SEARCH];
} pl__dlist;

/* Why a search found nothing. */
typedef struct pl__seen {
	int limit, flight, zones, caps;
	uint32_t limit_member;
	int flight_fresh; /* a shard passed over for being in flight could have
			   * moved without moving a leadership that moved already */
	int copy_seen;    /* handoff_only: a move that copies was passed over */
	int full;         /* a copy was passed over for a full ratio or the bytes band */
} pl__seen;

/* pl__bk_copy_why() of a candidate, noted in w when it is refused; 1 when
 * the copy may be made. */
int pl__bk_copy_seen(const pl__bk *b, uint32_t k, uint32_t from, uint32_t to, pl__seen *w);

/* A candidate move, and the best so far. */
typedef struct pl__best {
	int have;
	uint32_t k, a, d, ka, kd;
	uint32_t follower; /* leaders: 1 d holds a replica (no copy), 2 a copy that serves the
			    * replicas (pl__bk_serves()), 0 another copy; replicas: 2 a follows,
			    * 3 a follows and the leader hands d the leadership after the copy
			    * (staging), 1 a leads and its leadership goes with it, 0 a's
			    * leadership goes to the follower `via` first */
	int64_t gain; /* the rendezvous draw's rise: destination's less source's */
	uint32_t via; /* replicas: see follower */
	uint32_t settled; /* leaders: 1 no other follower of the shard is above its replica ceiling of the
			   * stream (pl__bk_offer()'s `settled`) */
	uint32_t swap;    /* replicas: a's leadership goes with its replica to d, and d hands shard `swap`
			   * of the same stream to a in the same step; PL_NONE otherwise */
} pl__best;

/* Member m's leaders (replicas) in the scope. */
static inline uint32_t pl__bk_count(const pl_view *v, const pl__scope *sc, uint32_t m)
{
	if (sc->rep)
		return sc->s == PL_NONE ? v->m_replicas[m] : pl__rcell_get(v, sc->s, m);
	return sc->s == PL_NONE ? v->m_leaders[m] : pl__cell_get(v, sc->s, m);
}

/* A pass about to read every member's count in scope sc: a stream's
 * leaders are then read from one dense count (pl__cell_cache()), not
 * searched for member by member. Changes no answer. */
static inline void pl__bk_scope_hold(const pl_view *v, const pl__scope *sc)
{
	if (!sc->rep && sc->s != PL_NONE)
		pl__cell_cache(v, sc->s);
}

/* Bounds widened by a tolerance: the floor down (not below 0), the ceiling
 * up (both at most PL_MAX_SHARDS, so no sum overflows). */
static inline void pl__bk_widen(uint32_t tol, uint32_t *fl, uint32_t *ce)
{
	*fl = *fl > tol ? *fl - tol : 0;
	*ce += tol;
}

/* Member m's floor and ceiling in the scope, widened by its tolerance. */
static inline void pl__bk_bounds(const pl_view *v, const pl__scope *sc, uint32_t m, uint32_t *fl, uint32_t *ce)
{
	if (!v->weighted) {
		*fl = sc->fl;
		*ce = sc->ce;
		return;
	}
	pl__bounds(v, sc->L, m, fl, ce);
	pl__bk_widen(sc->tol, fl, ce);
}

/* Is stream s kept as it is (PL_STREAM_KEEP)? No balance move takes one of
 * its shards, and its own scopes want none. */
static inline int pl__bk_kept_stream(const pl_view *v, uint32_t s)
{
	return s != PL_NONE && v->snap.stream_flags != NULL && (v->snap.stream_flags[s] & PL_STREAM_KEEP);
}

/* Is shard k's stream kept? */
static inline int pl__bk_kept(const pl_view *v, uint32_t k)
{
	return pl__bk_kept_stream(v, v->snap.shards[k].stream);
}

/* Stream s's tolerance: the snapshot's, else the config's. */
static inline uint32_t pl__bk_stream_tol(const pl_view *v, const pl_broker_config *cfg, uint32_t s)
{
	const uint32_t *t = v->snap.stream_tolerance;
	return t != NULL && t[s] != PL_TOLERANCE_DEFAULT ? t[s] : cfg->stream_tolerance;
}

/* Room for a replica it does not hold yet. */
static inline int pl__bk_room_new(const pl_view *v, uint32_t m)
{
	uint32_t cap = v->snap.members[m].max_shards;
	return cap == 0 || v->m_replicas[m] < cap;
}

static inline void pl__bk_seen_limit(pl__seen *w, uint32_t m)
{
	if (!w->limit)
		w->limit_member = m;
	w->limit = 1;
}

/* Leaders of stream s on eligible members. */
uint32_t pl__bk_stream_leaders(const pl_view *v, uint32_t s);

/* Replicas of stream s on eligible members; on every member. */
uint32_t pl__bk_stream_replicas(const pl_view *v, uint32_t s);
uint32_t pl__bk_stream_replicas_all(const pl_view *v, uint32_t s);

/* Fill a stream's scope, or the cluster's: of leaders, or of replicas. */
void pl__bk_scope_stream(const pl__bk *b, uint32_t s, pl__scope *sc);
void pl__bk_scope_cluster(const pl__bk *b, pl__scope *sc);
void pl__bk_rscope_stream(const pl__bk *b, uint32_t s, pl__scope *sc);
void pl__bk_rscope_cluster(const pl__bk *b, pl__scope *sc);

/* May the leadership of shard k go from a to d with a replica move: its
 * stream's leaders (when stream_balance) and the leaders in total keep
 * their bounds on both and their potentials (pl__bk_keeps())? */
int pl__bk_carry_ok(const pl__bk *b, uint32_t k, uint32_t a, uint32_t d);

/* May a leader of stream s (L of them eligible) go from a to d, its potential not rising? */
int pl__bk_stream_allows(const pl__bk *b, uint32_t s, uint32_t L, uint32_t a, uint32_t d);

/* Would a leader move of shard k from a to d that takes a's replica (a
 * copy) also serve the replica balance: replica_balance on, the replicas
 * in total (b->rep_elig) not rising in potential, and the shard's stream's
 * replicas (R of them on eligible members) closer to their bounds, or, with
 * R 0, their sum of count^2/weight lower (an O(1) test for the cluster
 * pass)? Without a stream: the totals closer to their bounds. Never while
 * a member that is not eligible holds replicas (drains will move them). */
int pl__bk_serves(const pl__bk *b, uint32_t k, uint32_t a, uint32_t d, uint32_t R);

/* The wide fallback's keys: a member over its ceiling (under its floor)
 * ranks before every member only above (below) a bound. */
#define PL__BK_WIDE (UINT32_C(1) << 30)

/* Is eligible member m a source of the scope at its level? *key says how
 * far over it is. The wide fallback adds the members above their floor, the
 * spread fallback keeps only those over their ceiling. (Inline: the searches
 * ask it of every eligible member.) */
static inline int pl__bk_source_key(const pl_view *v, const pl__scope *sc, uint32_t m, uint32_t *key)
{
	uint32_t c = pl__bk_count(v, sc, m), fl, ce;
	pl__bk_bounds(v, sc, m, &fl, &ce);
	if (sc->level == 3) {
		*key = c;
		return c > 0;
	}
	if (sc->level == 1) {
		*key = c > ce ? PL__BK_WIDE + (c - ce) : c > fl ? c - fl : 0;
		return c > fl;
	}
	uint32_t bound = sc->over || sc->level == 2 ? ce : fl;
	*key = c > bound ? c - bound : 0;
	if (sc->tgt && sc->level == 0)
		*key = 2 * *key + (c > fl + (uint32_t)(sc->hi >> m & 1)); /* leads more than its target */
	return c > bound;
}

/* Is eligible member m a destination of the scope? *key says how far under;
 * in the wide fallback the members below their ceiling too; in the spread
 * fallback every member, fewest leaders of the scope first. */
static inline int pl__bk_dest_key(const pl_view *v, const pl__scope *sc, uint32_t m, uint32_t *key)
{
	uint32_t c = pl__bk_count(v, sc, m), fl, ce;
	pl__bk_bounds(v, sc, m, &fl, &ce);
	if (sc->level == 1) {
		*key = c < fl ? PL__BK_WIDE + (fl - c) : c < ce ? ce - c : 0;
		return c < ce;
	}
	if (sc->level >= 2) {
		*key = PL__BK_WIDE - (c < PL__BK_WIDE ? c : PL__BK_WIDE - 1);
		return 1;
	}
	uint32_t bound = sc->under ? fl : ce;
	*key = c < bound ? bound - c : 0;
	if (sc->tgt && sc->level == 0)
		*key = 2 * *key + (c < fl + (uint32_t)(sc->hi >> m & 1)); /* leads fewer than its target */
	return c < bound;
}
/* A walk that asks every eligible member's destination key: with equal
 * weights, at the first level and without leader targets, a key is how far
 * the member's count is below one bound, read from the scope's counts by
 * member (the totals, or a stream's held leaders or counted replicas);
 * otherwise pl__bk_dest_key(). The same keys either way. */
typedef struct pl__bk_dkeys {
	const uint32_t *cnt; /* the scope's counts by member, or NULL */
	uint32_t bound;
} pl__bk_dkeys;

static inline void pl__bk_dkeys_init(const pl_view *v, const pl__scope *sc, pl__bk_dkeys *d)
{
	d->cnt = NULL;
	d->bound = sc->under ? sc->fl : sc->ce;
	if (v->weighted || sc->level != 0 || sc->tgt || v->nm == 0)
		return;
	if (sc->s == PL_NONE)
		d->cnt = sc->rep ? v->m_replicas : v->m_leaders;
	else if (!sc->rep) {
		pl__cell_cache(v, sc->s);
		d->cnt = v->lc_count;
	} else {
		(void)pl__rcell_get(v, sc->s, 0); /* counts the stream */
		d->cnt = v->rc_count;
	}
}

static inline int pl__bk_dkey(const pl_view *v, const pl__scope *sc, const pl__bk_dkeys *d, uint32_t m, uint32_t *key)
{
	if (d->cnt == NULL)
		return pl__bk_dest_key(v, sc, m, key);
	uint32_t c = d->cnt[m];
	*key = c < d->bound ? d->bound - c : 0;
	return c < d->bound;
}

/* May source a (key ka) hand a shard to destination d (key kd) at this level? */
int pl__bk_pair_ok(const pl_view *v, const pl__scope *sc, uint32_t a, uint32_t ka, uint32_t d, uint32_t kd);
/* Replica scope sc out of its bounds: has it a shard (kept or not) held by
 * a member over its ceiling and not by some member below its own, or held
 * by a member above its floor and not by some member under its own? 0 when
 * the holdings alone keep it where it is (every member holds every shard).
 * O(shards x replicas). */
int pl__bk_rscope_movable(const pl__bk *b, const pl__scope *sc);

/* The projected totals the stream pass breaks ties on, into v->m_scratch. */
void pl__bk_project(const pl__bk *b);

/* Does source a (key ka) rank before b (key kb)? destination a before b? */
int pl__bk_source_before(const pl_view *v, const pl__scope *sc, uint32_t ka, uint32_t a, uint32_t kb, uint32_t b);
int pl__bk_dest_before(const pl_view *v, const pl__scope *sc, uint32_t ka, uint32_t a, uint32_t kb, uint32_t b);

/* Fill the destination list of a scope (l->n, max, per_zone set); note
 * limits and caps in w. */
void pl__bk_dests(const pl__bk *b, const pl__scope *sc, pl__dlist *l, pl__seen *w);

/* Offer the move of shard k from a (key ka) to d (key kd; follower: see
 * pl__best) to the best so far, x: 1 when it is the best now. settled (a
 * leader move): 1 when none of the shard's other followers will shed a
 * replica of its stream (pl__best); 0 in the replica passes. */
int pl__bk_offer(const pl_view *v, const pl__scope *sc, pl__best *x, uint32_t a, uint32_t ka, uint32_t d, uint32_t kd,
		 uint32_t follower, uint32_t settled, uint32_t k);

/* Should the search wait rather than make its best move x: x would move a
 * leadership that has moved already in this view (pl__moved()) while a
 * candidate that would not was passed over only for being in flight
 * (w->flight_fresh)? The search then ends as waiting on moves in flight. */
int pl__bk_repeat_waits(const pl_view *v, const pl__scope *sc, const pl__best *x, const pl__seen *w);

/* Write and apply the best move (MOVE_LEADER in a scope of leaders,
 * MOVE_REPLICA in one of replicas): PL__BK_MOVED, or PL__BK_FULL. */
int pl__bk_emit_best(pl__bk *b, const pl__scope *sc, const pl__best *x);

/* What a search that found no move ends with (noting waits in b). */
int pl__bk_outcome(pl__bk *b, const pl__seen *w);

#endif /* PLACEMENT_BROKER_SCOPE_H */
