/*
 * broker_handoff.c - the leader passes' moves beyond a search's best
 * (broker_balance.c): chains of hand-offs, which move a leader to a
 * destination as a copy would but copy nothing; staging, which gives a
 * destination a replica first when every copy to it would lose a zone; and
 * the relay, the last fallback when no single move is allowed.
 *
 * How it works. When a first search's best move is a copy that serves
 * nothing else, or it found none, pl__bk_handoff() looks for a chain that
 * does the same without a copy; when it found such a copy and no chain,
 * pl__bk_stage() may stage instead; a first search blocked by zones stages
 * too. The ladder of fallbacks (pl__bk_search_all()) ends with
 * pl__bk_relay(). A chain and a relay make only their first hop now;
 * staging makes its copies now and leaves the leaderships to later ticks.
 * Every walk here is bounded (at most PL__BK_CHAIN hops or PL_BROKER_SEARCH
 * sources, each over the scope's shards and the eligible members); why the
 * moves end is told in broker_balance.c.
 */
#include "broker/broker_int.h"

/* ---- the shards of a scope ------------------------------------------------ */

/* The leaders of shard k's stream on eligible members (0 without a stream
 * or stream_balance). */
static uint32_t shard_L(const pl__bk *b, uint32_t k)
{
	uint32_t s = b->v->snap.shards[k].stream;
	return s != PL_NONE && b->cfg->stream_balance ? pl__bk_stream_leaders(b->v, s) : 0;
}

/* The shards of a scope: a stream's in key order, or every shard. */
static uint32_t scope_n(const pl_view *v, const pl__scope *sc)
{
	return sc->s == PL_NONE ? v->nk : v->s_first[sc->s + 1] - v->s_first[sc->s];
}

static uint32_t scope_at(const pl_view *v, const pl__scope *sc, uint32_t j)
{
	return sc->s == PL_NONE ? j : v->by_stream[v->s_first[sc->s] + j];
}

/* The same, in key order. */
static uint32_t scope_key(const pl_view *v, const pl__scope *sc, uint32_t j)
{
	return sc->s == PL_NONE ? v->k_order[j] : v->by_stream[v->s_first[sc->s] + j];
}

/* ---- hand-offs before copies ---------------------------------------------- */

/* A chain of hand-offs: the source a hands a shard of the scope to one of
 * its followers x1, x1 hands another on to a follower x2, ..., the last to a
 * destination d. Every hop moves a leadership to a member that holds a
 * replica already, so nothing is copied; the members between end where they
 * started, so the chain moves one leader from a to d, as a copy to d would.
 * The distances to the destinations are found backwards, one walk over the
 * scope's shards per hop (at most PL__BK_CHAIN hops), kept in the scratch's
 * bits DIST_SHIFT.. beside the projection and the mark. The shortest chain
 * wins, then the best source, then the best first hop (a destination by its
 * rank, else the smaller canonical rank), then key order; its first hop is
 * made now. The member it reaches then leads one more, and (unless it is a
 * destination) the next search continues the chain from there. */
#define DIST_SHIFT 48
#define DIST_NONE 0xffu
#define DIST_MASK ((int64_t)DIST_NONE << DIST_SHIFT)

static uint32_t dist_get(const pl_view *v, uint32_t m)
{
	return (uint32_t)(v->m_scratch[m] >> DIST_SHIFT) & DIST_NONE;
}

static void dist_set(const pl_view *v, uint32_t m, uint32_t d)
{
	v->m_scratch[m] = (v->m_scratch[m] & ~DIST_MASK) | ((int64_t)d << DIST_SHIFT);
}

/* May shard k's leadership be handed from its leader u to f, a follower? */
static int handoff_ok(const pl__bk *b, const pl__scope *sc, uint32_t k, uint32_t u, uint32_t f)
{
	const pl_view *v = b->v;
	if (f == u || !pl__eligible(v, f) || !pl__in_sync(v, k, f) || !pl__bk_in_ok(b, f))
		return 0;
	return sc->s != PL_NONE || pl__bk_stream_allows(b, v->snap.shards[k].stream, shard_L(b, k), u, f);
}

/* Shard k, when its leader u may hand it off now: u, else PL_NONE. */
static uint32_t handoff_from(const pl__bk *b, uint32_t k)
{
	const pl_view *v = b->v;
	const pl__shard_state *st = pl__st(v, k);
	uint32_t u = pl__leader(st);
	if (u == PL_NONE || st->moving || st->touched || (pl__moved(v, k) & PL__MOVED_LEADER) || !pl__eligible(v, u) ||
	    !pl__bk_out_ok(b, u) || pl__bk_kept(v, k))
		return PL_NONE; /* a leadership moves once in a view; a kept stream's not at all */
	return u;
}

int pl__bk_handoff(pl__bk *b, const pl__scope *sc, pl__best *x)
{
	const pl_view *v = b->v;
	uint32_t n = scope_n(v, sc), key, found = 0;
	pl__bk_dkeys dk;
	pl__bk_scope_hold(v, sc);
	pl__bk_dkeys_init(v, sc, &dk);
	for (uint32_t m = 0; m < v->nm; m++)
		dist_set(v, m, DIST_NONE);
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e];
		if (pl__bk_dkey(v, sc, &dk, m, &key) && pl__bk_in_ok(b, m))
			dist_set(v, m, 0);
	}
	/* Level by level: a member at distance lev + 1 leads a shard of the
	 * scope that a member at distance lev follows. */
	uint32_t lev = 0;
	for (; lev < PL__BK_CHAIN && !found; lev++) {
		uint32_t grew = 0;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t k = scope_at(v, sc, j);
			const pl__shard_state *st = pl__st(v, k);
			/* u: what handoff_from() gives, when it may; a member found at
			 * lev + 1 already gains nothing from another of its shards. */
			uint32_t u = pl__leader(st);
			if (u == PL_NONE || dist_get(v, u) <= lev + 1)
				continue;
			uint32_t at_lev = 0; /* a follower at lev: only then may u hand k off? */
			for (uint32_t r = 0; r < st->nrep; r++)
				at_lev |= dist_get(v, pl__rep(st, r)) == lev;
			if (!at_lev || handoff_from(b, k) == PL_NONE)
				continue;
			for (uint32_t r = 0; r < st->nrep; r++) {
				uint32_t f = pl__rep(st, r);
				if (dist_get(v, f) == lev && handoff_ok(b, sc, k, u, f)) {
					if (dist_get(v, u) == DIST_NONE)
						grew = 1;
					dist_set(v, u, lev + 1);
					found |= pl__bk_source_key(v, sc, u, &key);
					break;
				}
			}
		}
		if (!grew)
			break;
	}
	/* The best source at the shortest distance, and its best first hop. */
	uint32_t a = PL_NONE, ka = 0, best_d = PL__BK_CHAIN + 1;
	for (uint32_t e = 0; found && e < v->n_elig; e++) {
		uint32_t m = v->elig[e], dm = dist_get(v, m);
		if (dm == 0 || dm > PL__BK_CHAIN || !pl__bk_source_key(v, sc, m, &key))
			continue;
		if (a == PL_NONE || dm < best_d || (dm == best_d && pl__bk_source_before(v, sc, key, m, ka, a))) {
			a = m;
			ka = key;
			best_d = dm;
		}
	}
	/* Along one shortest chain from a to a member x one hop from a
	 * destination (the follower of the smallest canonical rank at each
	 * step, the shard first in key order), then x's best hop. */
	x->have = 0;
	for (uint32_t step = best_d; a != PL_NONE && step > 1; step--) {
		uint32_t next = PL_NONE;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t k = scope_key(v, sc, j);
			const pl__shard_state *st = pl__st(v, k);
			if (pl__leader(st) != a || handoff_from(b, k) != a)
				continue;
			for (uint32_t r = 0; r < st->nrep; r++) {
				uint32_t f = pl__rep(st, r);
				if (dist_get(v, f) == step - 1 && handoff_ok(b, sc, k, a, f) &&
				    (next == PL_NONE || v->m_rank[f] < v->m_rank[next]))
					next = f;
			}
		}
		a = next;
	}
	/* The hop made now must not raise the scope's distance: from a member
	 * at or below its floor (one between in the chain, at a floor equal to
	 * its ceiling), only to a destination under its own floor. */
	uint32_t kd_best = 0, ca = 0, fa = 0, ea = 0;
	if (a != PL_NONE) {
		ca = pl__bk_count(v, sc, a);
		pl__bk_bounds(v, sc, a, &fa, &ea);
	}
	for (uint32_t j = 0; a != PL_NONE && j < n; j++) {
		uint32_t k = scope_key(v, sc, j);
		const pl__shard_state *st = pl__st(v, k);
		if (pl__leader(st) != a || handoff_from(b, k) != a)
			continue;
		for (uint32_t r = 0; r < st->nrep; r++) {
			uint32_t f = pl__rep(st, r), kf;
			if (dist_get(v, f) != 0 || !handoff_ok(b, sc, k, a, f))
				continue;
			if (ca <= fa) {
				uint32_t ff, ef;
				pl__bk_bounds(v, sc, f, &ff, &ef);
				if (pl__bk_count(v, sc, f) >= ff)
					continue;
			}
			pl__bk_dest_key(v, sc, f, &kf);
			if (!x->have || pl__bk_dest_before(v, sc, kf, f, kd_best, x->d)) {
				uint32_t kx = 0;
				pl__bk_source_key(v, sc, a, &kx);
				*x = (pl__best){1, k, a, f, kx, kf, 1, 0, PL_NONE, 0, PL_NONE};
				kd_best = kf;
			}
		}
	}
	for (uint32_t m = 0; m < v->nm; m++)
		dist_set(v, m, 0);
	return x->have;
}

/* ---- relays --------------------------------------------------------------- */

/* May shard k (led by a) go to x? In the cluster scope its stream (with L
 * eligible leaders) must keep its bounds too. */
static int hop_ok(const pl__bk *b, const pl__scope *sc, uint32_t k, uint32_t L, uint32_t a, uint32_t x)
{
	const pl_view *v = b->v;
	const pl__shard_state *st = pl__st(v, k);
	if (x == a || !pl__eligible(v, x) || st->moving || st->touched || (pl__holds(st, x) && !pl__in_sync(v, k, x)) ||
	    pl__bk_kept(v, k))
		return 0;
	if (!pl__holds(st, x) && (b->cfg->handoff_only || !pl__bk_room_new(v, x) || !pl__bk_copy_ok(b, k, a, x)))
		return 0;
	return sc->s != PL_NONE || pl__bk_stream_allows(b, v->snap.shards[k].stream, L, a, x);
}

/* The best destination of the scope within the limits, or PL_NONE. */
static uint32_t best_dest(const pl__bk *b, const pl__scope *sc)
{
	const pl_view *v = b->v;
	uint32_t kd = 0, d = PL_NONE;
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e], key;
		if (pl__bk_dest_key(v, sc, m, &key) && pl__bk_in_ok(b, m) &&
		    (d == PL_NONE || pl__bk_dest_before(v, sc, key, m, kd, d))) {
			d = m;
			kd = key;
		}
	}
	return d;
}

/* The last resort: when no single move is allowed (zones, caps, or in the
 * cluster pass the streams' bounds), a relay may be. The source a hands a
 * shard to a member x that can hand one of the scope on to the destination
 * d. Only the first hop is made now: it leaves the scope's distance and sum
 * of squares as they were (a over its ceiling and x at or below it, or a
 * above its floor and x below its ceiling), and x -> d is then an ordinary
 * move, so a relay is always followed by a move that lowers them, never by
 * another relay. Sources in rank order (at most PL_BROKER_SEARCH), d the best
 * destination; x: as a move's shard and destination are chosen. */
int pl__bk_relay(pl__bk *b, const pl__scope *sc)
{
	const pl_view *v = b->v;
	int64_t *mark = v->m_scratch;
	uint32_t d = best_dest(b, sc), n = scope_n(v, sc);
	if (d == PL_NONE)
		return PL__BK_SETTLED;
	pl__bk_scope_hold(v, sc);
	for (uint32_t m = 0; m < v->nm; m++)
		mark[m] &= ~PL__BK_MARK;
	/* Who can pass a shard of the scope on to d? */
	for (uint32_t j = 0; j < n; j++) {
		uint32_t k = scope_at(v, sc, j), x = pl__leader(pl__st(v, k));
		if (x == PL_NONE || x == d || (mark[x] & PL__BK_MARK) || !pl__eligible(v, x) || !pl__bk_out_ok(b, x))
			continue;
		if (hop_ok(b, sc, k, shard_L(b, k), x, d))
			mark[x] |= PL__BK_MARK;
	}
	pl__srcs src;
	pl__best x = {0, 0, 0, 0, 0, 0, 0, 0, PL_NONE, 0, PL_NONE};
	for (uint32_t tries = 0; tries < PL_BROKER_SEARCH && !x.have; tries++) {
		uint32_t ka, a = pl__bk_source_next(v, sc, &src, tries, &ka);
		if (a == PL_NONE)
			break;
		if (!pl__bk_out_ok(b, a))
			continue;
		uint32_t ca = pl__bk_count(v, sc, a), fa, ea;
		pl__bk_bounds(v, sc, a, &fa, &ea);
		for (uint32_t j = 0; j < n; j++) {
			uint32_t k = scope_at(v, sc, j);
			if (pl__leader(pl__st(v, k)) != a)
				continue;
			uint32_t L = shard_L(b, k);
			for (uint32_t e = 0; e < v->n_elig; e++) {
				uint32_t m = v->elig[e], cm = pl__bk_count(v, sc, m), fm, em;
				if (m == a || !(mark[m] & PL__BK_MARK) || !pl__bk_in_ok(b, m))
					continue;
				pl__bk_bounds(v, sc, m, &fm, &em);
				if (!((ca > ea && cm <= em) || (ca > fa && cm < em)) || !hop_ok(b, sc, k, L, a, m))
					continue;
				pl__bk_offer(v, sc, &x, a, ka, m, 0, pl__holds(pl__st(v, k), m), 0, k);
			}
		}
	}
	for (uint32_t m = 0; m < v->nm; m++)
		mark[m] &= ~PL__BK_MARK;
	return x.have ? pl__bk_emit_best(b, sc, &x) : PL__BK_SETTLED;
}

/* ---- staging -------------------------------------------------------------- */

/* Staging, when the first search finds every move to its destinations
 * would lose a zone: a destination d takes no leadership of a source
 * without a copy, and the source's own replica may not go to d. A follower
 * x of a shard k a source a leads then gives d its replica (MOVE_REPLICA, a
 * copy the replicas want anyway: pl__bk_serves(), zones kept), and a hands
 * d the leadership on a later tick with no second copy. The fallbacks would
 * move that leadership twice (to a member at its ceiling, then on to d
 * with that member's replica); staging moves it once. It keeps every
 * leader potential and lowers the replicas' (its stream's; the totals' does
 * not rise), so the proof's order holds. Each destination (in rank order)
 * is staged as many shards as it lacks to its ceiling, counting those
 * staged already (held by d, led by a source, in flight); while they are
 * all staged, the scope waits for them. For each: sources in rank order
 * (at most PL_BROKER_SEARCH), shards in key order, followers in rank order,
 * the first found. -1 when nothing was staged and nothing waits. */
static uint32_t stage_one(const pl__bk *b, const pl__scope *sc, uint32_t d, uint32_t *from)
{
	const pl_view *v = b->v;
	uint32_t n = scope_n(v, sc);
	pl__srcs src;
	for (uint32_t tries = 0; tries < PL_BROKER_SEARCH; tries++) {
		uint32_t ka, a = pl__bk_source_next(v, sc, &src, tries, &ka);
		if (a == PL_NONE)
			break;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t k = scope_key(v, sc, j), s = v->snap.shards[k].stream, best = PL_NONE;
			const pl__shard_state *st = pl__st(v, k);
			if (pl__leader(st) != a || handoff_from(b, k) != a || pl__holds(st, d) || pl__moved(v, k) ||
			    (sc->s == PL_NONE && !pl__bk_stream_allows(b, s, shard_L(b, k), a, d)))
				continue;
			uint32_t R = s != PL_NONE && b->cfg->stream_balance ? pl__bk_stream_replicas(v, s) : 0;
			for (uint32_t r = 0; r < st->nrep; r++) {
				uint32_t x = pl__rep(st, r);
				if (x == a || !pl__eligible(v, x) || !pl__bk_out_ok(b, x) || !pl__bk_copy_ok(b, k, x, d) ||
				    !pl__bk_serves(b, k, x, d, R) || (best != PL_NONE && v->m_rank[x] > v->m_rank[best]))
					continue;
				best = x;
			}
			if (best != PL_NONE) {
				*from = best;
				return k;
			}
		}
	}
	return PL_NONE;
}

#define FLIGHT_LIST 64u

/* The scope's shards in flight: listed (at most FLIGHT_LIST; past that, a
 * count of FLIGHT_LIST + 1 says "walk the scope"). */
typedef struct flight {
	uint32_t k[FLIGHT_LIST], n;
} flight;

static void flight_add(flight *f, uint32_t k)
{
	if (f->n < FLIGHT_LIST)
		f->k[f->n] = k;
	f->n += f->n <= FLIGHT_LIST;
}

/* Shards staged for d already, up to lack: in flight, led by an eligible
 * source other than d, and held by d. Only shards in flight count, so the
 * list of them (when it holds them all) is walked instead of the scope. */
static uint32_t staged_for(const pl_view *v, const pl__scope *sc, const flight *f, uint32_t d, uint32_t lack)
{
	uint32_t listed = f->n <= FLIGHT_LIST, walk = listed ? f->n : scope_n(v, sc), staged = 0, key;
	for (uint32_t j = 0; j < walk && staged < lack; j++) {
		const pl__shard_state *st = pl__st(v, listed ? f->k[j] : scope_at(v, sc, j));
		uint32_t a = pl__leader(st);
		staged += (st->moving || st->touched) && a != PL_NONE && a != d && pl__holds(st, d) &&
			  pl__eligible(v, a) && pl__bk_source_key(v, sc, a, &key);
	}
	return staged;
}

int pl__bk_stage(pl__bk *b, const pl__scope *sc)
{
	const pl_view *v = b->v;
	int moved = 0, waits = 0;
	if (!b->cfg->replica_balance || b->cfg->handoff_only || !b->rep_settled)
		return -1;
	uint32_t n = scope_n(v, sc), key, fl, ce;
	/* Listed once; a shard staged below joins the list. */
	flight f = {.n = 0};
	for (uint32_t j = 0; j < n && f.n <= FLIGHT_LIST; j++) {
		uint32_t k = scope_at(v, sc, j);
		const pl__shard_state *st = pl__st(v, k);
		if (st->moving || st->touched)
			flight_add(&f, k);
	}
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t d = v->elig[e];
		if (!pl__bk_dest_key(v, sc, d, &key))
			continue;
		pl__bk_bounds(v, sc, d, &fl, &ce);
		uint32_t c = pl__bk_count(v, sc, d), lack = ce > c ? ce - c : 0;
		uint32_t staged = staged_for(v, sc, &f, d, lack);
#ifdef PL_DEBUG
		const flight walk_all = {.n = FLIGHT_LIST + 1};
		PL_ASSERT(staged == staged_for(v, sc, &walk_all, d, lack)); /* the list misses no shard */
#endif
		while (staged < lack) {
			if (b->budget == 0)
				return moved ? PL__BK_MOVED : PL__BK_WAIT;
			uint32_t x, k;
			if (!pl__bk_in_ok(b, d) || !pl__bk_room_new(v, d) || (k = stage_one(b, sc, d, &x)) == PL_NONE)
				break;
			uint32_t s = v->snap.shards[k].stream;
			pl__scope rs;
			if (s != PL_NONE && b->cfg->stream_balance)
				pl__bk_rscope_stream(b, s, &rs);
			else
				pl__bk_rscope_cluster(b, &rs);
			pl__best m = {1, k, x, d, 0, 0, 3, 0, PL_NONE, 0, PL_NONE};
			if (pl__bk_emit_best(b, &rs, &m) == PL__BK_FULL)
				return PL__BK_FULL;
			flight_add(&f, k);
			moved = 1;
			staged++;
		}
		waits |= staged > 0;
	}
	return moved ? PL__BK_MOVED : waits ? PL__BK_WAIT : -1;
}
