/*
 * broker_replica.c - balancing replicas: the replica stream pass, then the
 * replica cluster pass, with the scopes, keys and ranking of broker_scope.c
 * and the offers of broker_offer.c counted on replicas held instead of
 * leaders.
 *
 * How it works. A replica scope is one stream's replicas, or all replicas,
 * held by eligible members; each member's floor and ceiling are its weighted
 * share of that count. It wants a move when a member is over its ceiling or
 * under its floor, and a move goes from a source to a destination exactly as
 * for leaders (the same keys, fallbacks wide and spread, then an even
 * fallback; a relay in the cluster pass only). The
 * shard: one the source holds and the destination does not, whose zone
 * count the move keeps, and whose destination has room under max_shards.
 * A follower's replica is preferred to the leader's; the leader's moves with
 * its leadership (PL_ACTION_CARRIES_LEADER) only when the leadership's
 * stream and the leaders in total keep their bounds on both members and
 * their potentials do not rise (pl__bk_carry_ok()); when they would not,
 * the leadership first goes to a follower that keeps them (MOVE_LEADER, no
 * copy, with the replica pass's reason), and the replica, a follower's
 * then, moves on a later tick. In the cluster pass the
 * shard's stream's replica potential must not rise (pl__bk_no_rise()). Ties on replicas in total per
 * weight, then the smaller id; then a follower before the leader, the larger
 * rise in rendezvous draw, key order.
 *
 * When. Replica moves copy a shard, leader moves to a follower do not: one
 * tick makes the leader passes' moves first, and the replica passes run only
 * in a tick where no leader move was made or waits, and no replica drain or
 * zone repair was made or waits. So a tick never moves replicas while the
 * leaders still want moves, and a replica move never raises a leader
 * potential: the potentials of every leader scope come first and the
 * replica scopes' after them, compared in that order, and every move lowers
 * the pair (a leader move lowers the leaders' part; a replica move keeps it
 * and lowers the replicas'). Nothing can go back and forth between the two.
 *
 * No copy back. A move that keeps its scope's distance (the spread and even
 * fallbacks, a relay's first hop) never takes a shard moved since the view
 * was built: it only evens the sum of squares, and a later pass may carry
 * the replica on or back (b0 -> b3, b3 -> b4 between two members under
 * their floors, then b4 -> b3). A copy to a member the shard's replica left
 * ranks last among moves as good (broker_offer.c, repeats()).
 *
 * Why it terminates: as for leaders (broker_balance.c), each replica stream
 * move lowers its stream's (distance, sum of count^2/weight); each cluster
 * move lowers the cluster's and raises no stream's, but a relay's first
 * hop, which keeps it and is followed by a move that lowers it. Every walk
 * is bounded.
 */
#include "broker/broker_int.h"

/* ---- the replica stream pass -------------------------------------------- */

/* The follower of shard k its leader a may hand the leadership to, so that
 * a's replica can move next: eligible, within the limits, keeping the
 * leaders' bounds and potentials (pl__bk_carry_ok()); the fewest leaders
 * per weight, then the smaller id. PL_NONE when none. */
static uint32_t handoff(const pl__bk *b, uint32_t k, uint32_t a)
{
	const pl_view *v = b->v;
	const pl__shard_state *st = pl__st(v, k);
	uint32_t best = PL_NONE;
	for (uint32_t j = 0; j < st->nrep; j++) {
		uint32_t f = pl__rep(st, j);
		if (f == a || !pl__eligible(v, f) || !pl__in_sync(v, k, f) || !pl__bk_in_ok(b, f) ||
		    !pl__bk_carry_ok(b, k, a, f))
			continue;
		if (best != PL_NONE) {
			int c = pl__bk_cmp_w(v, v->m_leaders[f], f, v->m_leaders[best], best);
			if (c > 0 || (c == 0 && v->m_rank[f] > v->m_rank[best]))
				continue;
		}
		best = f;
	}
	return best;
}

/* A shard of k's stream (or, for a shard of none, of none) that d leads
 * and a follows in sync, which d may hand to a as k's leadership goes from
 * a to d with its replica: the leaders' counts stay as they were. The first
 * in key order; PL_NONE when there is none. */
static uint32_t swap_partner(const pl__bk *b, uint32_t k, uint32_t a, uint32_t d)
{
	const pl_view *v = b->v;
	uint32_t s = v->snap.shards[k].stream;
	if (!pl__bk_out_ok(b, d) || !pl__bk_in_ok(b, a) || !pl__eligible(v, a))
		return PL_NONE;
	uint32_t n = s == PL_NONE ? v->nk : v->s_first[s + 1] - v->s_first[s];
	for (uint32_t j = 0; j < n; j++) {
		uint32_t k2 = s == PL_NONE ? v->k_order[j] : v->by_stream[v->s_first[s] + j];
		const pl__shard_state *st = pl__st(v, k2);
		if (k2 == k || pl__leader(st) != d || v->snap.shards[k2].stream != s || st->moving || st->touched ||
		    (pl__moved(v, k2) & PL__MOVED_LEADER) || !pl__holds(st, a) || !pl__in_sync(v, k2, a))
			continue;
		return k2;
	}
	return PL_NONE;
}

/* Offer every move of shard k's replicas to the destinations of l. */
static void offer_shard(pl__bk *b, const pl__scope *sc, const pl__dlist *l, pl__seen *w, pl__best *x, uint32_t k,
			uint32_t only, uint32_t ka_only, int keeps)
{
	const pl_view *v = b->v;
	const pl__shard_state *st = pl__st(v, k);
	uint32_t s = v->snap.shards[k].stream, R = 0;
	if (keeps && pl__moved(v, k))
		return; /* a move that keeps the distance never moves a shard again */
	if (pl__leader(st) == PL_NONE || !pl__live(v, pl__leader(st)))
		return; /* no live leader to copy from: placing's, or offline */
	if (sc->s == PL_NONE && s != PL_NONE && b->cfg->stream_balance)
		R = pl__bk_stream_replicas(v, s);
	for (uint32_t r = 0; r < st->nrep; r++) {
		uint32_t a = pl__rep(st, r), ka = ka_only;
		if (only != PL_NONE ? a != only : (!pl__eligible(v, a) || !pl__bk_source_key(v, sc, a, &ka)))
			continue;
		if (x->have && ka < x->ka)
			continue; /* a worse source than one that can move */
		if (st->moving || st->touched) {
			w->flight = 1;
			w->flight_fresh |= a != pl__leader(st) || !(pl__moved(v, k) & PL__MOVED_LEADER);
			continue;
		}
		if (!pl__bk_out_ok(b, a)) {
			pl__bk_seen_limit(w, a);
			continue;
		}
		int lead = a == pl__leader(st), offered = 0;
		for (uint32_t i = 0; i < l->n; i++) {
			uint32_t d = l->m[i];
			if (offered && l->key[i] != l->key[offered - 1])
				break; /* past the destinations as far under as the first offered */
			if (pl__holds(st, d) || !pl__bk_pair_ok(v, sc, a, ka, d, l->key[i]))
				continue;
			if (R && !pl__bk_no_rise(v, R, pl__bk_stream_tol(v, b->cfg, s), a, pl__rcell_get(v, s, a), d,
						 pl__rcell_get(v, s, d)))
				continue;
			/* as the leader passes: the first copy's refusal is noted, not
			 * those of the ones as far under after it */
			if (!(offered ? pl__bk_copy_ok(b, k, a, d) : pl__bk_copy_seen(b, k, a, d, w)))
				continue;
			if (!lead) {
				pl__bk_offer(v, sc, x, a, ka, d, l->key[i], 2, 0, k);
				if (!b->domains_shared)
					break; /* no copy stays nearer than another */
				offered = (int)i + 1;
				continue;
			}
			if (pl__bk_carry_ok(b, k, a, d)) {
				pl__bk_offer(v, sc, x, a, ka, d, l->key[i], 1, 0, k);
				break;
			}
			/* The leadership may not go to d: to a follower first? */
			uint32_t f = handoff(b, k, a);
			if (f != PL_NONE) {
				if (pl__bk_offer(v, sc, x, a, ka, d, l->key[i], 0, 0, k))
					x->via = f;
				break;
			}
			/* Or d hands a of its shards of the stream back. */
			uint32_t k2 = swap_partner(b, k, a, d);
			if (k2 != PL_NONE) {
				if (pl__bk_offer(v, sc, x, a, ka, d, l->key[i], 0, 0, k))
					x->swap = k2;
				break;
			}
			break;
		}
	}
}

static int stream_search(pl__bk *b, const pl__scope *sc)
{
	const pl_view *v = b->v;
	pl__seen w = {0, 0, 0, 0, PL_NONE, 0, 0, 0};
	pl__dlist l;
	pl__bk_dlist_fill(b, sc, &l, PL_MAX_REPLICAS, 1, &w);
	pl__best x = {0, 0, 0, 0, 0, 0, 0, 0, PL_NONE, 0, PL_NONE};
	for (uint32_t j = v->s_first[sc->s]; j < v->s_first[sc->s + 1]; j++)
		offer_shard(b, sc, &l, &w, &x, v->by_stream[j], PL_NONE, 0, sc->level >= 2);
	if (x.have && !pl__bk_repeat_waits(v, sc, &x, &w))
		return pl__bk_emit_best(b, sc, &x);
	return pl__bk_outcome(b, &w);
}

/* ---- the replica cluster pass ------------------------------------------- */

/* The sources in rank order (at most PL_BROKER_SEARCH), each offering
 * every replica it holds, in key order, to the destinations of l: the first
 * source with a move makes the best of its moves (PL__BK_MOVED or
 * PL__BK_FULL). -1 when none has one, or (not for a relay's first hop) when
 * the best would move a leadership again while a shard in flight waits. */
static int walk_sources(pl__bk *b, const pl__scope *sc, const pl__dlist *l, pl__seen *w, int relay)
{
	const pl_view *v = b->v;
	pl__srcs src;
	for (uint32_t tries = 0; tries < PL_BROKER_SEARCH; tries++) {
		uint32_t ka, a = pl__bk_source_next(v, sc, &src, tries, &ka);
		if (a == PL_NONE)
			break;
		if (!pl__bk_out_ok(b, a)) {
			if (!relay)
				pl__bk_seen_limit(w, a);
			continue;
		}
		pl__best x = {0, 0, 0, 0, 0, 0, 0, 0, PL_NONE, 0, PL_NONE};
		for (uint32_t r = 0; r < v->nk; r++) {
			uint32_t k = v->k_order[r];
			if (pl__holds(pl__st(v, k), a))
				offer_shard(b, sc, l, w, &x, k, a, ka, relay || sc->level >= 2);
		}
		if (x.have && (relay || !pl__bk_repeat_waits(v, sc, &x, w)))
			return pl__bk_emit_best(b, sc, &x);
		if (x.have)
			break;
	}
	return -1;
}

static int cluster_search(pl__bk *b, const pl__scope *sc)
{
	pl__seen w = {0, 0, 0, 0, PL_NONE, 0, 0, 0};
	pl__dlist l;
	pl__bk_dlist_fill(b, sc, &l, PL_BROKER_SEARCH, 0, &w);
	int rc = walk_sources(b, sc, &l, &w, 0);
	return rc >= 0 ? rc : pl__bk_outcome(b, &w);
}

/* May x pass a replica of the scope on to d by a first-choice move? */
static int can_pass(pl__bk *b, uint32_t x, uint32_t d)
{
	const pl_view *v = b->v;
	if (!pl__bk_out_ok(b, x))
		return 0;
	for (uint32_t r = 0; r < v->nk; r++) {
		uint32_t k = v->k_order[r], s = v->snap.shards[k].stream;
		const pl__shard_state *st = pl__st(v, k);
		if (!pl__holds(st, x) || pl__holds(st, d) || st->moving || st->touched || pl__bk_kept(v, k) ||
		    !pl__bk_copy_ok(b, k, x, d))
			continue;
		if (s != PL_NONE && b->cfg->stream_balance &&
		    !pl__bk_no_rise(v, pl__bk_stream_replicas(v, s), pl__bk_stream_tol(v, b->cfg, s), x, pl__rcell_get(v, s, x),
				    d, pl__rcell_get(v, s, d)))
			continue;
		if (x == pl__leader(st) && !pl__bk_carry_ok(b, k, x, d) && handoff(b, k, x) == PL_NONE)
			continue;
		return 1;
	}
	return 0;
}

/* The cluster's last resort, as for leaders: when no move is allowed, a
 * source over its ceiling hands a replica to a member x at its ceiling that
 * can pass one on to the best destination under its floor. The hop keeps
 * the distance (a comes down one, x goes up one) and, with equal weights,
 * the sum of squares from rising; x -> d is then a first-choice move that
 * lowers the distance, so two relays never follow each other. Sources in
 * rank order and relays x among the PL_BROKER_SEARCH fewest-holding members
 * that can pass one on. */
static int relay(pl__bk *b, const pl__scope *sc)
{
	const pl_view *v = b->v;
	if (!sc->over || !sc->under)
		return PL__BK_SETTLED;
	uint32_t d = PL_NONE, kd = 0;
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e], key;
		if (pl__bk_dest_key(v, sc, m, &key) && pl__bk_in_ok(b, m) && pl__bk_room_new(v, m) &&
		    (d == PL_NONE || pl__bk_dest_before(v, sc, key, m, kd, d))) {
			d = m;
			kd = key;
		}
	}
	if (d == PL_NONE)
		return PL__BK_SETTLED;
	pl__dlist l;
	l.n = 0;
	l.max = PL_BROKER_SEARCH;
	l.per_zone = 0;
	for (uint32_t e = 0; e < v->n_elig && l.n < l.max; e++) {
		uint32_t x = v->elig[e], c = pl__bk_count(v, sc, x), fl, ce;
		pl__bk_bounds(v, sc, x, &fl, &ce);
		if (x == d || c > ce || !pl__bk_in_ok(b, x) || !pl__bk_room_new(v, x) || !can_pass(b, x, d))
			continue;
		l.m[l.n] = x;
		l.key[l.n++] = 0;
	}
	if (l.n == 0)
		return PL__BK_SETTLED;
	pl__seen w = {0, 0, 0, 0, PL_NONE, 0, 0, 0};
	int rc = walk_sources(b, sc, &l, &w, 1);
	return rc >= 0 ? rc : PL__BK_SETTLED;
}

/* ---- both passes ---------------------------------------------------------- */

static int stream_move(pl__bk *b, const pl__scope *sc)
{
	return pl__bk_search_all(b, sc, stream_search, 1, NULL);
}

static int cluster_move(pl__bk *b, const pl__scope *sc)
{
	return pl__bk_search_all(b, sc, cluster_search, 1, relay);
}

static void fill_cluster(const pl__bk *b, uint32_t s, pl__scope *sc)
{
	(void)s;
	pl__bk_rscope_cluster(b, sc);
}

int pl__bk_replicas_wanted(const pl__bk *b)
{
	const pl_view *v = b->v;
	pl__scope sc;
	if (!b->cfg->replica_balance)
		return 0;
	if (b->cfg->stream_balance)
		for (uint32_t s = 0; s < v->ns; s++) {
			pl__bk_rscope_stream(b, s, &sc);
			if (sc.over || sc.under)
				return 1;
		}
	pl__bk_rscope_cluster(b, &sc);
	return sc.over || sc.under;
}

void pl__bk_rbalance(pl__bk *b)
{
	const pl_view *v = b->v;
	int held = 0;
	b->lead_elig = 0;
	for (uint32_t e = 0; e < v->n_elig; e++)
		b->lead_elig += v->m_leaders[v->elig[e]];
	for (uint32_t r = 0; r < v->ns && b->cfg->stream_balance; r++)
		if (pl__bk_drive(b, v->s_order[r], pl__bk_rscope_stream, stream_move, &held))
			return;
	pl__bk_drive_cluster(b, held, fill_cluster, cluster_move);
}
