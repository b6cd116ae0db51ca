/*
 * broker_offer.c - how a rebalancing search ends: the candidate moves it
 * offers and the best of them, the move written, or why there was none.
 *
 * How it works. A pass walks the shards of its sources (the scopes, keys,
 * ranks and destination lists of broker_scope.c) and offers each candidate
 * move to pl__bk_offer(), which keeps the best; pl__bk_emit_best() writes
 * it (MOVE_LEADER, or MOVE_REPLICA in a scope of replicas) and keeps the
 * stream pass's projected totals current. A search that finds no move
 * notes why as it goes (a pl__seen: pl__bk_copy_seen(), ...) and ends with
 * pl__bk_outcome(). Each function here weighs or writes one move; why the
 * moves end is told in broker_balance.c.
 */
#include "broker/broker_int.h"

/* ---- offers --------------------------------------------------------------- */

/* The rise in rendezvous draw of a move of shard k from a to d. */
static int64_t gain(const pl_view *v, uint32_t k, uint32_t a, uint32_t d)
{
	pl__draw x = pl__view_draw(v, v->k_hash[k], d), y = pl__view_draw(v, v->k_hash[k], a);
	if (v->weighted)
		return x.draw - y.draw;
	return (int64_t)(x.score >> 1) - (int64_t)(y.score >> 1);
}

/* How much a candidate move of shard k (follower: as in pl__best) would
 * repeat the moves made since the view was built (pl__moved()): 2 when it
 * moves the shard's leadership (a leader move, or a replica move that takes
 * the leadership with it or hands it off first) and the leadership has
 * moved already, 1 when the shard has moved, else 0; plus two for a replica
 * move that hands the leadership off first, which moves the shard twice by
 * itself, its leadership among them; plus four for a copy to a member the
 * shard's replica left in this view (pl__bk_returns()): two copies that
 * bring a replica back where it was do nothing. */
static uint32_t repeats(const pl_view *v, const pl__scope *sc, uint32_t k, uint32_t d, uint32_t follower)
{
	uint32_t m = pl__moved(v, k);
	int leads = !sc->rep || follower != 2;
	uint32_t r = (leads && (m & PL__MOVED_LEADER) ? 2u : m ? 1u : 0u) + 2 * (sc->rep && follower == 0);
	if (m && (sc->rep || follower != 1) && pl__bk_returns(v, k, d))
		r += 4;
	return r;
}

/* How uneven a and d's bytes would be after a copy of shard k from a to d,
 * |(b_a - s) - (b_d + s)|: the shard that evens them best is the one a count
 * move copies, among shards that serve the counts alike. A shard of unknown
 * size last. */
static uint64_t evens(const pl_view *v, uint32_t k, uint32_t a, uint32_t d)
{
	uint64_t s = pl__size(v, k);
	if (s == PL_BYTES_UNKNOWN)
		return UINT64_MAX;
	/* bytes <= 2^62, 2 s <= 2^60: the difference fits in an int64_t */
	int64_t e = (int64_t)v->m_bytes[a] - (int64_t)v->m_bytes[d] - 2 * (int64_t)s;
	return e < 0 ? (uint64_t)-e : (uint64_t)e;
}

/* How many levels of failure domain a copy from a to d stays inside (the
 * whole zone: zone_levels). Between two copies that serve the counts alike,
 * the one that stays inside the lowest domain wins: the data crosses the
 * fewest boundaries (a rack's switch rather than the region's links).
 *
 * A hand-off copies nothing; it counts 0 here, as a copy that leaves every
 * domain, and is compared like any offer. The ranking must be one order
 * over all offers: when this tie applied only between two copies, a copy
 * near its source could beat a far copy, the far copy a hand-off (on the
 * kind), and the hand-off the near copy (on the destination's id), and
 * which won hung on the order the shards were offered in, the snapshot's
 * array order (check_broker_keep's shuffled arrays, seed 777). */
static uint32_t near(const pl_view *v, const pl__scope *sc, uint32_t a, uint32_t d, uint32_t follower)
{
	if (!sc->rep && follower == 1)
		return 0;
	if (v->m_zone[a] == v->m_zone[d])
		return v->snap.members[a].zone.len ? v->zone_levels : 0;
	uint32_t lv = 0;
	while (lv + 1 < v->zone_levels && pl__zone_same(v, a, d, lv))
		lv++;
	return lv;
}

/* Offer (a, d, k) to the best so far: source rank, destination rank, no copy
 * before a copy (a copy that serves the replicas first of all), a shard
 * none of whose other followers will shed a replica (settled), the larger
 * rise in rendezvous draw, key order. Between two moves whose source and
 * destination keys are equal (they lower the scope's potential alike), the
 * one that repeats less of the moves already made wins first: so a shard
 * that moved is not chosen again while another candidate does as well. */
int pl__bk_offer(const pl_view *v, const pl__scope *sc, pl__best *x, uint32_t a, uint32_t ka, uint32_t d, uint32_t kd,
		 uint32_t follower, uint32_t settled, uint32_t k)
{
	if (pl__bk_kept(v, k))
		return 0; /* every balance move is offered here: a kept stream's shards stay */
	int64_t g = gain(v, k, a, d);
	if (x->have) {
		uint32_t r, rx;
		int c = 0; /* > 0: the offer is better */
		if (ka != x->ka)
			c = ka > x->ka ? 1 : -1;
		else if (kd != x->kd)
			c = kd > x->kd ? 1 : -1;
		else if ((r = repeats(v, sc, k, d, follower)) != (rx = repeats(v, sc, x->k, x->d, x->follower)))
			c = r < rx ? 1 : -1;
		else if ((r = near(v, sc, a, d, follower)) != (rx = near(v, sc, x->a, x->d, x->follower)))
			c = r > rx ? 1 : -1;
		else if (a != x->a)
			c = pl__bk_source_before(v, sc, ka, a, x->ka, x->a) ? 1 : -1;
		else if (d != x->d)
			c = pl__bk_dest_before(v, sc, kd, d, x->kd, x->d) ? 1 : -1;
		if (c == 0 && follower != x->follower)
			c = follower > x->follower ? 1 : -1;
		if (c == 0 && settled != x->settled)
			c = settled > x->settled ? 1 : -1;
		if (c == 0 && v->sized && (sc->rep || follower != 1)) { /* a copy: the shard that evens the bytes */
			uint64_t e = evens(v, k, a, d), ex = evens(v, x->k, x->a, x->d);
			if (e != ex)
				c = e < ex ? 1 : -1;
		}
		if (c == 0)
			c = g > x->gain || (g == x->gain && v->k_rank[k] < v->k_rank[x->k]) ? 1 : -1;
		if (c < 0)
			return 0;
	}
	x->have = 1;
	x->a = a;
	x->ka = ka;
	x->d = d;
	x->kd = kd;
	x->follower = follower;
	x->k = k;
	x->gain = g;
	x->via = PL_NONE;
	x->swap = PL_NONE;
	x->settled = settled;
	return 1;
}

int pl__bk_repeat_waits(const pl_view *v, const pl__scope *sc, const pl__best *x, const pl__seen *w)
{
	return w->flight_fresh && (pl__moved(v, x->k) & PL__MOVED_LEADER) && (!sc->rep || x->follower != 2);
}

/* ---- the move ------------------------------------------------------------- */

/* Member m's part of its projected total from stream s (L leaders on eligible
 * members): what it lacks under its floor, less what it leads over its
 * ceiling (pl__bk_project()). */
static int64_t part(const pl_view *v, uint32_t s, uint32_t L, uint32_t m)
{
	uint32_t c = pl__cell_get(v, s, m), fl, ce;
	pl__bounds(v, L, m, &fl, &ce);
	return (c < fl ? (int64_t)(fl - c) : 0) - (c > ce ? (int64_t)(c - ce) : 0);
}

/* Before a stream move of scope sc from a to d: take their parts out; after
 * it, put them back in (the totals change with the move itself). */
static void reproject(const pl__bk *b, const pl__scope *sc, uint32_t a, uint32_t d, int64_t sign)
{
	const pl_view *v = b->v;
	v->m_scratch[a] += sign * part(v, sc->s, sc->L, a);
	v->m_scratch[d] += sign * part(v, sc->s, sc->L, d);
}

/* The numbers that decided the move x of scope sc, counted before it: the
 * scope (leaders or replicas, of the cluster or of sc's stream), x->a's and
 * x->d's counts, x->d's bounds, the share (the cluster's: d's ceiling; none
 * in a stream) and the scope's total. Every move written here carries them
 * (a replica move, its paired hand-off, a hand-off first to a follower, a
 * leader move), so they are filled in one place. */
static void counted(const pl_view *v, const pl__scope *sc, const pl__best *x, pl_action *a)
{
	if (sc->rep)
		a->scope = sc->s == PL_NONE ? PL_SCOPE_REPLICAS : PL_SCOPE_STREAM_REPLICAS;
	else
		a->scope = sc->s == PL_NONE ? PL_SCOPE_CLUSTER : PL_SCOPE_STREAM;
	a->from_count = pl__bk_count(v, sc, x->a);
	a->to_count = pl__bk_count(v, sc, x->d);
	pl__bk_bounds(v, sc, x->d, &a->floor, &a->ceiling);
	a->share = sc->s == PL_NONE ? a->ceiling : 0;
	a->total = sc->L;
}

/* A replica move: the holder x->a's replica to x->d (x->follower: a does
 * not lead the shard; else the leadership goes with it). */
static int emit_replica(pl__bk *b, const pl__scope *sc, const pl__best *x)
{
	const pl_view *v = b->v;
	pl_action a;
	uint32_t reason = sc->s == PL_NONE ? PL_REASON_REPLICA_CLUSTER_SKEW : PL_REASON_REPLICA_STREAM_SKEW;
	if (x->swap != PL_NONE) {
		/* The leader's replica moves with its leadership, and d hands
		 * one of the stream to a: both in one step, the leaders' counts
		 * as they were. */
		if (b->cap - b->n < 2) {
			b->full = 1;
			return PL__BK_FULL;
		}
		pl__action_init(&a, PL_ACTION_MOVE_REPLICA, reason, x->k, v->snap.shards[x->k].stream, x->a, x->d);
		a.flags = PL_ACTION_STAGE_FIRST | PL_ACTION_CARRIES_LEADER | PL_ACTION_PAIRED;
		counted(v, sc, x, &a);
		pl_action h;
		pl__action_init(&h, PL_ACTION_MOVE_LEADER, reason, x->swap, v->snap.shards[x->swap].stream, x->d, x->a);
		h.flags = PL_ACTION_PAIRED;
		counted(v, sc, x, &h); /* the carry's numbers: the pair is one step */
		if (pl__bk_emit_move(b, &a))
			return PL__BK_FULL;
		int rc = pl__bk_emit(b, &h); /* the hand-off is the same step: no budget of its own */
		PL_ASSERT(rc == 0);
		if (rc == 0 && b->limits && b->n_flight < PL_BROKER_MAX_MOVES) {
			b->fl_from[b->n_flight] = h.from;
			b->fl_to[b->n_flight] = h.to;
			b->n_flight++;
		}
		return PL__BK_MOVED;
	}
	if (x->via != PL_NONE) {
		/* The leadership goes to a follower first (no copy); the
		 * replica, a follower's then, moves on a later tick. */
		pl__action_init(&a, PL_ACTION_MOVE_LEADER, reason, x->k, v->snap.shards[x->k].stream, x->a, x->via);
		counted(v, sc, x, &a);
		return pl__bk_emit_move(b, &a) ? PL__BK_FULL : PL__BK_MOVED;
	}
	pl__action_init(&a, PL_ACTION_MOVE_REPLICA, reason, x->k, v->snap.shards[x->k].stream, x->a, x->d);
	a.flags = PL_ACTION_STAGE_FIRST | (x->follower == 1 ? PL_ACTION_CARRIES_LEADER : 0) |
		  (x->follower == 3 ? PL_ACTION_FOR_HANDOFF : 0);
	counted(v, sc, x, &a);
	return pl__bk_emit_move(b, &a) ? PL__BK_FULL : PL__BK_MOVED;
}

int pl__bk_emit_best(pl__bk *b, const pl__scope *sc, const pl__best *x)
{
	const pl_view *v = b->v;
	if (sc->rep)
		return emit_replica(b, sc, x);
	pl_action a;
	pl__action_init(&a, PL_ACTION_MOVE_LEADER, sc->s == PL_NONE ? PL_REASON_CLUSTER_SKEW : PL_REASON_STREAM_SKEW,
			x->k, v->snap.shards[x->k].stream, x->a, x->d);
	a.flags = x->follower == 1 ? 0 : PL_ACTION_STAGE_FIRST;
	counted(v, sc, x, &a);
	if (sc->s == PL_NONE)
		return pl__bk_emit_move(b, &a) ? PL__BK_FULL : PL__BK_MOVED;
	reproject(b, sc, x->a, x->d, -1);
	int rc = pl__bk_emit_move(b, &a);
	if (rc == 0) {
		v->m_scratch[x->a]--;
		v->m_scratch[x->d]++;
	}
	reproject(b, sc, x->a, x->d, 1);
	return rc ? PL__BK_FULL : PL__BK_MOVED;
}

/* ---- no move: why --------------------------------------------------------- */

int pl__bk_outcome(pl__bk *b, const pl__seen *w)
{
	if (w->limit) {
		pl__bk_wait_limit(b, w->limit_member);
		return PL__BK_WAIT;
	}
	if (w->flight) {
		b->want_flight = 1;
		return PL__BK_WAIT;
	}
	if (w->zones)
		return PL__BK_BLOCK_ZONES;
	if (w->caps)
		return PL__BK_BLOCK_CAPS;
	if (w->full)
		return PL__BK_BLOCK_FULL;
	if (w->copy_seen)
		return PL__BK_BLOCK_HANDOFF;
	return PL__BK_SETTLED;
}

int pl__bk_copy_seen(const pl__bk *b, uint32_t k, uint32_t from, uint32_t to, pl__seen *w)
{
	int why = pl__bk_copy_why(b, k, from, to);
	if (why == PL__BK_COPY_ZONES)
		w->zones = 1;
	else if (why == PL__BK_COPY_FULL)
		w->full = 1;
	else if (why == PL__BK_COPY_LIMIT)
		pl__bk_seen_limit(w, to);
	return why == PL__BK_COPY_OK;
}
