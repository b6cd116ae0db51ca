/*
 * broker_balance.c - rebalancing leaders: the stream pass, then the cluster
 * pass. The scopes, keys, ranking and offers both use are in broker_scope.c;
 * their hand-off chains, staging and relays in broker_handoff.c.
 *
 * How it works. A scope is one stream's leaders or all leaders, counted on
 * the eligible members; each member's floor and ceiling are its weighted
 * share of that count (pl__bounds()). A scope wants a move when a member is
 * over its ceiling or under its floor. The first-choice moves go from a
 * source (over the ceiling; or, when nobody is, above the floor) to a
 * destination (under the floor; or, when nobody is, below the ceiling).
 * Sources rank by how far over they are, destinations by how far under; ties
 * break on leaders per weight (projected ones in the stream pass: see
 * pl__bk_project()), then on the smaller member id.
 *
 * Stream pass: the streams whose furthest member is furthest over first
 * (next_streams()); for a stream that wants a move, one walk over its shards
 * (in key order) finds, for each shard led by a source, the best destination
 * it may go to: its eligible followers that are destinations, or the best
 * destination with room whose zone keeps the shard's zone count. Those come
 * from a list of the best destination with room of each of the 8 best zones:
 * a shard's other replicas span at most 7 zones, so one of the 8 is allowed
 * and the search is exact. The best (source, destination, shard) wins:
 * source rank, destination rank, a follower (no copy) before a copy, the
 * larger rise in rendezvous draw, key order.
 *
 * Cluster pass: only when no stream wanted a move in this call. The sources
 * are tried in rank order (at most PL_BROKER_SEARCH), each with one walk over
 * the shards it leads; a shard may go to an eligible follower or to one of
 * the PL_BROKER_SEARCH best destinations with room, when the zones allow and
 * its stream's potential does not rise (pl__bk_stream_allows()).
 *
 * When a search finds nothing but blocks (zones, caps, or the streams'
 * bounds), search_all() tries the fallbacks in turn: the wide search (every
 * pair that lowers the distance), the spread search (a member over its
 * ceiling to one it leads at least two more than, by count^2/weight), then a
 * relay (pl__bk_relay()), then the narrowing hand-offs (narrow()).
 *
 * Why it terminates. A scope's potential is (distance to its bounds, the sum
 * of count^2/weight), compared in that order. A first-choice or wide move
 * goes from a member over (above) a bound to one under (below) it and lowers
 * the distance; a spread move keeps the distance and lowers the sum; with
 * equal weights each goes from a member leading at least two more, so the
 * sum of squared counts drops by at least 2; a narrowing hand-off too. A
 * cluster move raises no stream's potential and lowers the cluster's. A relay's first hop keeps the scope's distance, and
 * the scope's next move then lowers it (x -> d is a first-choice move), so no
 * two relays follow each other. Hence (the streams' potentials, the cluster's)
 * falls in lexicographic order over every two moves and is bounded below:
 * the moves end, and none can undo another. Every walk here is bounded, so
 * each call ends.
 */
#include "broker/broker_int.h"

/* ---- the stream pass ------------------------------------------------------ */

/* In the stream pass (R: the stream's replicas on eligible members, replica
 * balance on and no replica left to drain): is no follower of shard k other
 * than a and d above its replica ceiling of the stream? Such a follower
 * will shed a replica of the stream, maybe this shard's, which would then
 * move twice; so a shard without one moves first. */
static uint32_t settled(const pl__bk *b, uint32_t k, uint32_t a, uint32_t d, uint32_t R)
{
	const pl_view *v = b->v;
	const pl__shard_state *st = pl__st(v, k);
	uint32_t s = v->snap.shards[k].stream;
	if (R == 0 || !b->rep_settled || s == PL_NONE)
		return 0;
	for (uint32_t j = 0; j < st->nrep; j++) {
		uint32_t f = pl__rep(st, j), fl, ce;
		if (f == a || f == d || !pl__eligible(v, f))
			continue;
		pl__bounds(v, R, f, &fl, &ce);
		if (pl__rcell_get(v, s, f) > ce)
			return 0;
	}
	return 1;
}

/* Offer the moves of shard k's leadership from source a (key ka): to each
 * eligible follower that is a destination (no copy), and to the first
 * destination of l that keeps the zone count (a copy; one that serves the
 * replicas, pl__bk_serves() with R, ranks first). With s a stream (the
 * cluster pass), the shard's stream (L leaders on eligible members) must
 * keep its bounds on both members. */
static void offer_leader(pl__bk *b, const pl__scope *sc, const pl__dlist *l, pl__seen *w, pl__best *x, uint32_t k,
			 uint32_t a, uint32_t ka, uint32_t s, uint32_t L, uint32_t R)
{
	const pl_view *v = b->v;
	const pl__shard_state *st = pl__st(v, k);
	for (uint32_t r = 0; r < st->nrep; r++) {
		uint32_t f = pl__rep(st, r), kf;
		if (f == a || !pl__eligible(v, f) || !pl__in_sync(v, k, f) || !pl__bk_dest_key(v, sc, f, &kf))
			continue;
		if (!pl__bk_in_ok(b, f)) {
			pl__bk_seen_limit(w, f);
			continue;
		}
		if (pl__bk_pair_ok(v, sc, a, ka, f, kf) && pl__bk_stream_allows(b, s, L, a, f))
			pl__bk_offer(v, sc, x, a, ka, f, kf, 1, settled(b, k, a, f, R), k);
	}
	int offered = 0;
	for (uint32_t i = 0; i < l->n && sc->level != 3; i++) {
		uint32_t d = l->m[i];
		if (offered && l->key[i] != l->key[offered - 1])
			break; /* past the destinations as far under as the first offered */
		if (pl__holds(st, d) || !pl__bk_pair_ok(v, sc, a, ka, d, l->key[i]) || !pl__bk_stream_allows(b, s, L, a, d))
			continue; /* a follower: weighed above */
		if (b->cfg->handoff_only) {
			w->copy_seen = 1; /* only a copy: hand-offs only, so none */
			break;
		}
		/* The first copy's refusal is noted; a refusal of the ones as far
		 * under after it is not (the search found a copy). */
		if (!(offered ? pl__bk_copy_ok(b, k, a, d) : pl__bk_copy_seen(b, k, a, d, w)))
			continue;
		pl__bk_offer(v, sc, x, a, ka, d, l->key[i], pl__bk_serves(b, k, a, d, R) ? 2 : 0, settled(b, k, a, d, R), k);
		if (!offered)
			offered = (int)i + 1;
	}
}

/* The best move found, unless it is a copy that serves nothing else and a
 * chain of hand-offs does the same without one; a copy that also evens the
 * replicas (pl__bk_serves()) stays: a hand-off would leave that copy to the
 * replica pass. */
static int emit_or_handoff(pl__bk *b, const pl__scope *sc, const pl__best *x, const pl__seen *w)
{
	if (sc->level == 0 && (!x->have || x->follower == 0)) {
		pl__best h;
		if (pl__bk_handoff(b, sc, &h))
			return pl__bk_emit_best(b, sc, &h);
		int st = x->have ? pl__bk_stage(b, sc) : -1;
		if (st >= 0)
			return st;
	}
	if (x->have && !pl__bk_repeat_waits(b->v, sc, x, w))
		return pl__bk_emit_best(b, sc, x);
	return -1;
}

static int stream_search(pl__bk *b, const pl__scope *sc)
{
	const pl_view *v = b->v;
	pl__seen w = {0, 0, 0, 0, PL_NONE, 0, 0, 0};
	pl__dlist l;
	pl__bk_dlist_fill(b, sc, &l, PL_MAX_REPLICAS, 1, &w);
	uint32_t R = b->cfg->replica_balance ? pl__bk_stream_replicas(v, sc->s) : 0;
	pl__best x = {0, 0, 0, 0, 0, 0, 0, 0, PL_NONE, 0, PL_NONE};
	for (uint32_t j = v->s_first[sc->s]; j < v->s_first[sc->s + 1]; j++) {
		uint32_t k = v->by_stream[j], ka;
		const pl__shard_state *st = pl__st(v, k);
		uint32_t a = pl__leader(st);
		if (a == PL_NONE || !pl__eligible(v, a) || !pl__bk_source_key(v, sc, a, &ka))
			continue;
		if (x.have && ka < x.ka)
			continue; /* a worse source than one that can move */
		if (st->moving || st->touched) {
			w.flight = 1;
			w.flight_fresh |= !(pl__moved(v, k) & PL__MOVED_LEADER);
			continue;
		}
		if (!pl__bk_out_ok(b, a)) {
			pl__bk_seen_limit(&w, a);
			continue;
		}
		offer_leader(b, sc, &l, &w, &x, k, a, ka, PL_NONE, 0, R);
	}
	int rc = emit_or_handoff(b, sc, &x, &w);
	return rc >= 0 ? rc : pl__bk_outcome(b, &w);
}

/* ---- the cluster pass ----------------------------------------------------- */

static int cluster_search(pl__bk *b, const pl__scope *sc)
{
	const pl_view *v = b->v;
	pl__seen w = {0, 0, 0, 0, PL_NONE, 0, 0, 0};
	pl__dlist l;
	pl__bk_dlist_fill(b, sc, &l, PL_BROKER_SEARCH, 0, &w);
	pl__srcs src;
	for (uint32_t tries = 0; tries < PL_BROKER_SEARCH; tries++) {
		uint32_t ka, a = pl__bk_source_next(v, sc, &src, tries, &ka);
		if (a == PL_NONE)
			break;
		if (!pl__bk_out_ok(b, a)) {
			pl__bk_seen_limit(&w, a);
			continue;
		}
		pl__best x = {0, 0, 0, 0, 0, 0, 0, 0, PL_NONE, 0, PL_NONE};
		for (uint32_t k = 0; k < v->nk; k++) {
			const pl__shard_state *st = pl__st(v, k);
			if (pl__leader(st) != a)
				continue;
			if (st->moving || st->touched) {
				w.flight = 1;
				w.flight_fresh |= !(pl__moved(v, k) & PL__MOVED_LEADER);
				continue;
			}
			uint32_t s = v->snap.shards[k].stream;
			uint32_t L = s != PL_NONE && b->cfg->stream_balance ? pl__bk_stream_leaders(v, s) : 0;
			offer_leader(b, sc, &l, &w, &x, k, a, ka, s, L, 0);
		}
		if (x.have) {
			int rc = emit_or_handoff(b, sc, &x, &w);
			return rc >= 0 ? rc : pl__bk_outcome(b, &w);
		}
	}
	pl__best none = {0, 0, 0, 0, 0, 0, 0, 0, PL_NONE, 0, PL_NONE};
	int rc = emit_or_handoff(b, sc, &none, &w);
	return rc >= 0 ? rc : pl__bk_outcome(b, &w);
}

/* A search at the first level, then staging when zones block it. */
static int staged(pl__bk *b, const pl__scope *sc, pl__bk_search_fn search)
{
	int rc = search(b, sc);
	if (sc->level != 0 || rc != PL__BK_BLOCK_ZONES)
		return rc;
	int st = pl__bk_stage(b, sc);
	return st >= 0 ? st : rc;
}

static int stream_first(pl__bk *b, const pl__scope *sc)
{
	return staged(b, sc, stream_search);
}

static int cluster_first(pl__bk *b, const pl__scope *sc)
{
	return staged(b, sc, cluster_search);
}

/* When the bounds cannot be reached (every search and the relay blocked),
 * the scope is still made as even as hand-offs can make it: the narrowing
 * search (level 3) hands a leadership from any member to a follower it
 * leads at least two more than (by count^2/weight), the distance not
 * rising. Only hand-offs: they copy nothing, so narrowing never costs data.
 * Each lowers the scope's potential, as every other move does. */
static int narrow(pl__bk *b, const pl__scope *sc, pl__bk_search_fn search)
{
	int rc = pl__bk_search_all(b, sc, search, 0, pl__bk_relay);
	if (!PL__BK_BLOCKED(rc) && rc != PL__BK_SETTLED)
		return rc;
	pl__scope w = *sc;
	w.level = 3;
	int again = search(b, &w);
	return again == PL__BK_MOVED || again == PL__BK_FULL ? again : rc;
}

static int stream_move(pl__bk *b, const pl__scope *sc)
{
	if (!b->projected) {
		pl__bk_project(b); /* only once a stream wants a move */
		b->projected = 1;
	}
	return narrow(b, sc, stream_first);
}

static int cluster_move(pl__bk *b, const pl__scope *sc)
{
	return narrow(b, sc, cluster_first);
}

static void fill_cluster(const pl__bk *b, uint32_t s, pl__scope *sc)
{
	(void)s;
	pl__bk_scope_cluster(b, sc);
}

/* ---- both passes ---------------------------------------------------------- */

int pl__bk_any_wanted(const pl__bk *b)
{
	const pl_view *v = b->v;
	pl__scope sc;
	if (b->cfg->stream_balance)
		for (uint32_t s = 0; s < v->ns; s++) {
			pl__bk_scope_stream(b, s, &sc);
			if (sc.over || sc.under)
				return 1;
		}
	pl__bk_scope_cluster(b, &sc);
	return sc.over || sc.under;
}

/* The streams that want a move, in the order the stream pass takes them:
 * the one whose furthest member is furthest over its ceiling first (the worst
 * hotspot), ties (and streams with members only under their floor, key 0)
 * in id order. A scan collects the next few below the last taken; their keys
 * cannot change meanwhile, since a move changes only its own stream. */
#define NEXT 64u

static uint32_t next_streams(const pl__bk *b, uint64_t below, uint32_t *pick, uint64_t *key)
{
	const pl_view *v = b->v;
	uint32_t n = 0;
	pl__scope sc;
	for (uint32_t r = 0; r < v->ns; r++) {
		uint32_t s = v->s_order[r];
		pl__bk_scope_stream(b, s, &sc);
		if (!sc.over && !sc.under)
			continue;
		uint64_t k = ((uint64_t)sc.hot << 32) | (UINT32_MAX - r);
		if (k >= below || (n == NEXT && k <= key[n - 1]))
			continue;
		uint32_t i = n < NEXT ? n++ : n - 1;
		while (i > 0 && key[i - 1] < k) {
			key[i] = key[i - 1];
			pick[i] = pick[i - 1];
			i--;
		}
		key[i] = k;
		pick[i] = s;
	}
	return n;
}

int pl__bk_balance(pl__bk *b)
{
	const pl_view *v = b->v;
	int held = 0; /* a stream moved or waits: the cluster pass waits too */
	uint32_t all = 0;
	b->rep_elig = 0;
	for (uint32_t e = 0; e < v->n_elig; e++)
		b->rep_elig += v->m_replicas[v->elig[e]];
	for (uint32_t m = 0; m < v->nm; m++)
		all += v->m_replicas[m];
	b->rep_settled = all == b->rep_elig;
	uint32_t pick[NEXT];
	uint64_t key[NEXT];
	uint32_t n = b->cfg->stream_balance ? next_streams(b, UINT64_MAX, pick, key) : 0;
	if (n > 0)
		pl__bk_targets(b);
	for (uint32_t i = 0; i < n; i++) {
		if (pl__bk_drive(b, pick[i], pl__bk_scope_stream, stream_move, &held))
			return 1;
		if (i + 1 == n && n == NEXT) {
			n = next_streams(b, key[i], pick, key);
			i = UINT32_MAX; /* ++ makes it 0 */
		}
	}
	return pl__bk_drive_cluster(b, held, fill_cluster, cluster_move);
}
