/*
 * broker_balance.c - rebalancing leaders: the stream pass, then the cluster
 * pass.
 *
 * How it works. A scope is one stream's leaders or all leaders, counted on
 * the eligible members; each member's floor and ceiling are its weighted
 * share of that count (pl__bounds()). A scope wants a move when a member is
 * over its ceiling or under its floor. The first-choice moves go from a
 * source (over the ceiling; or, when nobody is, above the floor) to a
 * destination (under the floor; or, when nobody is, below the ceiling).
 * Sources rank by how far over they are, destinations by how far under; ties
 * break on leaders per weight (projected ones in the stream pass: see
 * project()), then on the smaller member id.
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
 * its stream stays within its bounds on both members.
 *
 * When a search finds nothing but blocks (zones, caps, or the streams'
 * bounds), search_all() tries the fallbacks in turn: the wide search (every
 * pair that lowers the distance), the spread search (a member over its
 * ceiling to one it leads at least two more than, by count^2/weight), then a
 * relay (relay()).
 *
 * Why it terminates. A scope's potential is (distance to its bounds, the sum
 * of count^2/weight), compared in that order. A first-choice or wide move
 * goes from a member over (above) a bound to one under (below) it and lowers
 * the distance; a spread move keeps the distance and lowers the sum; with
 * equal weights each goes from a member leading at least two more, so the
 * sum of squared counts drops by at least 2. A cluster move keeps every
 * stream within its bounds on both members (no stream's potential rises) and
 * lowers the cluster's. A relay's first hop keeps the scope's distance, and
 * the scope's next move then lowers it (x -> d is a first-choice move), so no
 * two relays follow each other. Hence (the streams' potentials, the cluster's)
 * falls in lexicographic order over every two moves and is bounded below:
 * the moves end, and none can undo another. Every walk here is bounded, so
 * each call ends.
 */
#include "broker_int.h"

#define MOVED 0
#define FULL 1
#define WAIT 2
#define BLOCK_CAPS 3
#define BLOCK_ZONES 4
#define SETTLED 5 /* nothing the rules allow: balanced as far as the streams permit */

/* A scope: one stream's leaders (s = the stream) or all leaders (PL_NONE). */
typedef struct scope {
	uint32_t s;
	uint32_t L;        /* leaders counted on eligible members */
	uint32_t fl, ce;   /* the bounds, when weights are equal */
	int over, under;   /* some member over its ceiling, under its floor */
	uint32_t hot;      /* how far its furthest member is over its ceiling */
	int level;         /* 0 first search; fallbacks: 1 wide, 2 spread */
} scope;

static uint32_t count(const pl_view *v, const scope *sc, uint32_t m)
{
	return sc->s == PL_NONE ? v->m_leaders[m] : pl__cell_get(v, sc->s, m);
}

static void bounds(const pl_view *v, const scope *sc, uint32_t m, uint32_t *fl, uint32_t *ce)
{
	if (!v->weighted) {
		*fl = sc->fl;
		*ce = sc->ce;
		return;
	}
	pl__bounds(v, sc->L, m, fl, ce);
}

static void set_equal_bounds(const pl_view *v, scope *sc)
{
	sc->fl = sc->ce = 0;
	if (v->n_elig > 0)
		pl__bounds(v, sc->L, v->elig[0], &sc->fl, &sc->ce);
}

static uint32_t stream_leaders(const pl_view *v, uint32_t s)
{
	const pl__cell *c = v->cells + v->s_cell_first[s];
	uint32_t L = 0;
	for (uint32_t i = 0; i < v->s_cell_count[s]; i++)
		if (pl__eligible(v, c[i].member))
			L += c[i].leaders;
	return L;
}

static void scope_stream(const pl__bk *b, uint32_t s, scope *sc)
{
	const pl_view *v = b->v;
	const pl__cell *c = v->cells + v->s_cell_first[s];
	uint32_t n = v->s_cell_count[s], ne = 0;
	sc->s = s;
	sc->L = 0;
	sc->over = sc->under = sc->level = 0;
	for (uint32_t i = 0; i < n; i++)
		if (pl__eligible(v, c[i].member)) {
			sc->L += c[i].leaders;
			ne++;
		}
	set_equal_bounds(v, sc);
	sc->hot = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t m = c[i].member, fl, ce;
		if (!pl__eligible(v, m))
			continue;
		bounds(v, sc, m, &fl, &ce);
		if (c[i].leaders > ce && c[i].leaders - ce > sc->hot)
			sc->hot = c[i].leaders - ce;
		sc->over |= c[i].leaders > ce;
		sc->under |= c[i].leaders < fl;
	}
	if (sc->under || ne == v->n_elig)
		return;
	/* Some eligible member leads none of the stream: under when its floor
	 * is above zero. */
	if (!v->weighted) {
		sc->under = sc->fl > 0;
		return;
	}
	if ((uint64_t)sc->L * b->w_max < v->weight_elig)
		return; /* every floor is zero */
	for (uint32_t e = 0; e < v->n_elig && !sc->under; e++) {
		uint32_t m = v->elig[e], fl, ce;
		bounds(v, sc, m, &fl, &ce);
		sc->under = fl > 0 && pl__cell_get(v, s, m) == 0;
	}
}

static void scope_cluster(const pl__bk *b, scope *sc)
{
	const pl_view *v = b->v;
	sc->s = PL_NONE;
	sc->L = 0;
	sc->hot = 0;
	sc->over = sc->under = sc->level = 0;
	for (uint32_t e = 0; e < v->n_elig; e++)
		sc->L += v->m_leaders[v->elig[e]];
	set_equal_bounds(v, sc);
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e], fl, ce;
		bounds(v, sc, m, &fl, &ce);
		sc->over |= v->m_leaders[m] > ce;
		sc->under |= v->m_leaders[m] < fl;
	}
}

/* Keys of the fallbacks: past this, a member is over its ceiling (source) or
 * under its floor (destination). */
#define WIDE (UINT32_C(1) << 30)

/* A mark on a member, kept in the scratch's high bits beside the projection
 * (which fits far below them: it is at most the shards). */
#define MARK (INT64_C(1) << 40)

/* Is eligible member m a source of the scope? Its key: how far over. The
 * wide fallback adds the members above their floor, the spread fallback
 * keeps only those over their ceiling. */
static int source_key(const pl_view *v, const scope *sc, uint32_t m, uint32_t *key)
{
	uint32_t c = count(v, sc, m), fl, ce;
	bounds(v, sc, m, &fl, &ce);
	if (sc->level == 1) {
		*key = c > ce ? WIDE + (c - ce) : c > fl ? c - fl : 0;
		return c > fl;
	}
	uint32_t bound = sc->over || sc->level == 2 ? ce : fl;
	*key = c > bound ? c - bound : 0;
	return c > bound;
}

/* Is eligible member m a destination of the scope? Its key: how far under;
 * in the wide fallback the members below their ceiling too; in the spread
 * fallback every member, fewest leaders of the scope first. */
static int dest_key(const pl_view *v, const scope *sc, uint32_t m, uint32_t *key)
{
	uint32_t c = count(v, sc, m), fl, ce;
	bounds(v, sc, m, &fl, &ce);
	if (sc->level == 1) {
		*key = c < fl ? WIDE + (fl - c) : c < ce ? ce - c : 0;
		return c < ce;
	}
	if (sc->level == 2) {
		*key = WIDE - (c < WIDE ? c : WIDE - 1);
		return 1;
	}
	uint32_t bound = sc->under ? fl : ce;
	*key = c < bound ? bound - c : 0;
	return c < bound;
}

/* May source a (key ka) hand a shard to destination d (key kd)? Always in
 * the first search. In the wide fallback when a is over its ceiling or d
 * under its floor: the move lowers the distance. In the spread fallback
 * (a is over its ceiling) when the move lowers the sum over members of
 * count^2 / weight, (2 c_a - 1) w_d > (2 c_d + 1) w_a: with equal weights,
 * when a leads at least two more than d. */
static int pair_ok(const pl_view *v, const scope *sc, uint32_t a, uint32_t ka, uint32_t d, uint32_t kd)
{
	if (sc->level == 0)
		return 1;
	if (sc->level == 1)
		return ka >= WIDE || kd >= WIDE;
	uint64_t ca = count(v, sc, a), cd = count(v, sc, d);
	return (2 * ca - 1) * v->m_weight[d] > (2 * cd + 1) * v->m_weight[a];
}

/* The stream pass breaks ties on projected totals: a member's leaders in
 * total, less what it leads over its ceilings, plus what it lacks under its
 * floors, over every stream; that is where its total is headed once the
 * moves the streams must make are made, so a tie goes where the totals
 * will need it. Kept in v->m_scratch for the call (project(), and
 * reproject() after each stream move). */
static int64_t part(const pl_view *v, uint32_t s, uint32_t L, uint32_t m)
{
	uint32_t c = pl__cell_get(v, s, m), fl, ce;
	pl__bounds(v, L, m, &fl, &ce);
	return (c < fl ? (int64_t)(fl - c) : 0) - (c > ce ? (int64_t)(c - ce) : 0);
}

static void project(const pl__bk *b)
{
	const pl_view *v = b->v;
	int64_t *p = v->m_scratch, every = 0;
	for (uint32_t m = 0; m < v->nm; m++)
		p[m] = v->m_leaders[m];
	/* A stream's floors count for its members that lead none of it too;
	 * with equal weights that is one sum for everybody, corrected on the
	 * cells. With weights each member's floor differs: summed member by
	 * member, within a work bound past which those floors are left out
	 * (it only breaks ties). */
	uint64_t work = 4 * ((uint64_t)v->nk + v->nm);
	for (uint32_t s = 0; s < v->ns; s++) {
		uint32_t L = stream_leaders(v, s), fl, ce;
		if (L == 0)
			continue;
		pl__bounds(v, L, v->elig[0], &fl, &ce);
		int spread = 0;
		if (!v->weighted) {
			every += fl;
			spread = fl > 0;
		} else if ((uint64_t)L * b->w_max >= v->weight_elig && work >= v->n_elig) {
			work -= v->n_elig;
			spread = 1;
			for (uint32_t e = 0; e < v->n_elig; e++) {
				uint32_t m = v->elig[e];
				pl__bounds(v, L, m, &fl, &ce);
				p[m] += fl;
			}
		}
		const pl__cell *c = v->cells + v->s_cell_first[s];
		for (uint32_t i = 0; i < v->s_cell_count[s]; i++) {
			uint32_t m = c[i].member, n = c[i].leaders;
			if (!pl__eligible(v, m))
				continue;
			if (v->weighted)
				pl__bounds(v, L, m, &fl, &ce);
			p[m] += (n < fl ? (int64_t)(fl - n) : 0) - (n > ce ? (int64_t)(n - ce) : 0) -
				(spread ? (int64_t)fl : 0);
		}
	}
	for (uint32_t e = 0; e < v->n_elig; e++)
		p[v->elig[e]] += every;
}

/* Before a stream move of scope sc from a to d: take their parts out; after
 * it, put them back in (the totals change with the move itself). */
static void reproject(const pl__bk *b, const scope *sc, uint32_t a, uint32_t d, int64_t sign)
{
	const pl_view *v = b->v;
	v->m_scratch[a] += sign * part(v, sc->s, sc->L, a);
	v->m_scratch[d] += sign * part(v, sc->s, sc->L, d);
}

/* Ranks: furthest over (under) first; then the most (fewest) leaders per
 * weight, projected in the stream pass, in total in the cluster pass; then
 * the smaller id. */
static int tie(const pl_view *v, const scope *sc, uint32_t a, uint32_t b)
{
	int c = 0;
	if (sc->s != PL_NONE) {
		int64_t pa = v->m_scratch[a] & (MARK - 1), pb = v->m_scratch[b] & (MARK - 1);
		c = pl__bk_cmp_w(v, (uint64_t)pa, a, (uint64_t)pb, b);
	}
	else
		c = pl__bk_cmp_w(v, v->m_leaders[a], a, v->m_leaders[b], b);
	return c;
}

static int source_before(const pl_view *v, const scope *sc, uint32_t ka, uint32_t a, uint32_t kb, uint32_t b)
{
	if (ka != kb)
		return ka > kb;
	int c = tie(v, sc, a, b);
	if (c)
		return c > 0;
	return v->m_rank[a] < v->m_rank[b];
}

static int dest_before(const pl_view *v, const scope *sc, uint32_t ka, uint32_t a, uint32_t kb, uint32_t b)
{
	if (ka != kb)
		return ka > kb;
	int c = tie(v, sc, a, b);
	if (c)
		return c < 0;
	return v->m_rank[a] < v->m_rank[b];
}

/* Room for a replica it does not hold yet. */
static int room_new(const pl_view *v, uint32_t m)
{
	uint32_t cap = v->snap.members[m].max_shards;
	return cap == 0 || v->m_replicas[m] < cap;
}

/* A rank-sorted list of destinations with room. With per_zone, it keeps the
 * best member of each of the best `max` zones; without, the best `max`. */
typedef struct dlist {
	uint32_t n, max, per_zone;
	uint32_t m[PL_BROKER_SEARCH], key[PL_BROKER_SEARCH];
} dlist;

static void dlist_add(const pl_view *v, const scope *sc, dlist *l, uint32_t m, uint32_t key)
{
	if (l->per_zone)
		for (uint32_t i = 0; i < l->n; i++) {
			if (v->m_zone[l->m[i]] != v->m_zone[m])
				continue;
			if (!dest_before(v, sc, key, m, l->key[i], l->m[i]))
				return;
			memmove(l->m + i, l->m + i + 1, (l->n - i - 1) * sizeof *l->m);
			memmove(l->key + i, l->key + i + 1, (l->n - i - 1) * sizeof *l->key);
			l->n--;
			break;
		}
	if (l->n == l->max) {
		if (!dest_before(v, sc, key, m, l->key[l->n - 1], l->m[l->n - 1]))
			return;
		l->n--;
	}
	uint32_t i = l->n;
	while (i > 0 && dest_before(v, sc, key, m, l->key[i - 1], l->m[i - 1])) {
		l->m[i] = l->m[i - 1];
		l->key[i] = l->key[i - 1];
		i--;
	}
	l->m[i] = m;
	l->key[i] = key;
	l->n++;
}

/* Why a search found nothing. */
typedef struct seen {
	int limit, flight, zones, caps;
	uint32_t limit_member;
} seen;

static void seen_limit(seen *w, uint32_t m)
{
	if (!w->limit)
		w->limit_member = m;
	w->limit = 1;
}

/* Fill the destination list of a scope; note limits and caps. */
static void dests(const pl__bk *b, const scope *sc, dlist *l, seen *w)
{
	const pl_view *v = b->v;
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e], key;
		if (!dest_key(v, sc, m, &key))
			continue;
		if (!pl__bk_in_ok(b, m)) {
			seen_limit(w, m);
			continue;
		}
		if (!room_new(v, m)) {
			w->caps = 1;
			continue;
		}
		dlist_add(v, sc, l, m, key);
	}
}

/* A candidate move, and the best so far. */
typedef struct best {
	int have;
	uint32_t k, a, d, ka, kd, follower;
	int64_t gain; /* the rendezvous draw's rise: destination's less source's */
} best;

static int64_t gain(const pl_view *v, uint32_t k, uint32_t a, uint32_t d)
{
	pl__draw x = pl__view_draw(v, v->k_hash[k], d), y = pl__view_draw(v, v->k_hash[k], a);
	if (v->weighted)
		return x.draw - y.draw;
	return (int64_t)(x.score >> 1) - (int64_t)(y.score >> 1);
}

/* Offer (a, d, k) to the best so far: source rank, destination rank, no copy
 * before a copy, the larger rise in rendezvous draw, key order. */
static void offer(const pl_view *v, const scope *sc, best *x, uint32_t a, uint32_t ka, uint32_t d, uint32_t kd, uint32_t follower,
		  uint32_t k)
{
	int64_t g = gain(v, k, a, d);
	if (x->have) {
		if (a != x->a) {
			if (!source_before(v, sc, ka, a, x->ka, x->a))
				return;
		} else if (d != x->d) {
			if (!dest_before(v, sc, kd, d, x->kd, x->d))
				return;
		} else if (follower != x->follower) {
			if (follower < x->follower)
				return;
		} else if (g < x->gain || (g == x->gain && v->k_rank[k] > v->k_rank[x->k])) {
			return;
		}
	}
	x->have = 1;
	x->a = a;
	x->ka = ka;
	x->d = d;
	x->kd = kd;
	x->follower = follower;
	x->k = k;
	x->gain = g;
}

static int emit(pl__bk *b, const scope *sc, const best *x)
{
	const pl_view *v = b->v;
	pl_action a;
	pl__action_init(&a, PL_ACTION_MOVE_LEADER, sc->s == PL_NONE ? PL_REASON_CLUSTER_SKEW : PL_REASON_STREAM_SKEW,
			x->k, v->snap.shards[x->k].stream, x->a, x->d);
	a.flags = x->follower ? 0 : PL_ACTION_STAGE_FIRST;
	a.scope = sc->s == PL_NONE ? PL_SCOPE_CLUSTER : PL_SCOPE_STREAM;
	a.from_count = count(v, sc, x->a);
	a.to_count = count(v, sc, x->d);
	bounds(v, sc, x->d, &a.floor, &a.ceiling);
	if (sc->s == PL_NONE)
		a.share = a.ceiling;
	a.total = sc->L;
	if (sc->s == PL_NONE)
		return pl__bk_emit_move(b, &a) ? FULL : MOVED;
	reproject(b, sc, x->a, x->d, -1);
	int rc = pl__bk_emit_move(b, &a);
	if (rc == 0) {
		v->m_scratch[x->a]--;
		v->m_scratch[x->d]++;
	}
	reproject(b, sc, x->a, x->d, 1);
	return rc ? FULL : MOVED;
}

static int outcome(pl__bk *b, const seen *w)
{
	if (w->limit) {
		pl__bk_wait_limit(b, w->limit_member);
		return WAIT;
	}
	if (w->flight) {
		b->want_flight = 1;
		return WAIT;
	}
	if (w->zones)
		return BLOCK_ZONES;
	if (w->caps)
		return BLOCK_CAPS;
	return SETTLED;
}

/* ---- the stream pass ------------------------------------------------------ */

static int stream_search(pl__bk *b, const scope *sc)
{
	const pl_view *v = b->v;
	seen w = {0, 0, 0, 0, PL_NONE};
	dlist l;
	l.n = 0;
	l.max = PL_MAX_REPLICAS;
	l.per_zone = 1;
	dests(b, sc, &l, &w);
	best x = {0, 0, 0, 0, 0, 0, 0, 0};
	for (uint32_t j = v->s_first[sc->s]; j < v->s_first[sc->s + 1]; j++) {
		uint32_t k = v->by_stream[j], ka;
		const pl__shard_state *st = &v->st[k];
		uint32_t a = st->leader;
		if (a == PL_NONE || !pl__eligible(v, a) || !source_key(v, sc, a, &ka))
			continue;
		if (x.have && a != x.a && !source_before(v, sc, ka, a, x.ka, x.a))
			continue; /* a worse source than one that can move */
		if (st->moving || st->touched) {
			w.flight = 1;
			continue;
		}
		if (!pl__bk_out_ok(b, a)) {
			seen_limit(&w, a);
			continue;
		}
		for (uint32_t r = 0; r < st->nrep; r++) {
			uint32_t f = st->rep[r], kf;
			if (f == a || !pl__eligible(v, f) || !dest_key(v, sc, f, &kf))
				continue;
			if (!pl__bk_in_ok(b, f)) {
				seen_limit(&w, f);
				continue;
			}
			if (pair_ok(v, sc, a, ka, f, kf))
				offer(v, sc, &x, a, ka, f, kf, 1, k);
		}
		for (uint32_t i = 0; i < l.n; i++) {
			uint32_t d = l.m[i];
			if (pl__holds(st, d) || !pair_ok(v, sc, a, ka, d, l.key[i]))
				continue; /* a follower: weighed above */
			if (!pl__bk_zones_ok(v, k, a, d)) {
				w.zones = 1;
				continue;
			}
			offer(v, sc, &x, a, ka, d, l.key[i], 0, k);
			break;
		}
	}
	if (x.have)
		return emit(b, sc, &x);
	return outcome(b, &w);
}

/* ---- the cluster pass ----------------------------------------------------- */

/* May a shard of stream s go from a to d without taking the stream out of
 * its bounds on either (the destination leads fewer of it)? */
static int stream_allows(const pl__bk *b, uint32_t s, uint32_t L, uint32_t a, uint32_t d)
{
	const pl_view *v = b->v;
	if (s == PL_NONE || !b->cfg->stream_balance)
		return 1;
	uint32_t fl, ce, ca = pl__cell_get(v, s, a), cd = pl__cell_get(v, s, d);
	pl__bounds(v, L, a, &fl, &ce);
	if (ca < fl + 1)
		return 0;
	pl__bounds(v, L, d, &fl, &ce);
	return cd + 1 <= ce;
}

/* The next source after `prev` in rank order (PL_NONE for the first). */
static uint32_t next_source(const pl_view *v, const scope *sc, uint32_t prev, uint32_t kprev, uint32_t *kout)
{
	uint32_t bestm = PL_NONE, bk = 0;
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e], key;
		if (!source_key(v, sc, m, &key))
			continue;
		if (prev != PL_NONE && !source_before(v, sc, kprev, prev, key, m))
			continue;
		if (bestm == PL_NONE || source_before(v, sc, key, m, bk, bestm)) {
			bestm = m;
			bk = key;
		}
	}
	*kout = bk;
	return bestm;
}

static int cluster_search(pl__bk *b, const scope *sc)
{
	const pl_view *v = b->v;
	seen w = {0, 0, 0, 0, PL_NONE};
	dlist l;
	l.n = 0;
	l.max = PL_BROKER_SEARCH;
	l.per_zone = 0;
	dests(b, sc, &l, &w);
	uint32_t a = PL_NONE, ka = 0;
	for (uint32_t tries = 0; tries < PL_BROKER_SEARCH; tries++) {
		a = next_source(v, sc, a, ka, &ka);
		if (a == PL_NONE)
			break;
		if (!pl__bk_out_ok(b, a)) {
			seen_limit(&w, a);
			continue;
		}
		best x = {0, 0, 0, 0, 0, 0, 0, 0};
		for (uint32_t k = 0; k < v->nk; k++) {
			const pl__shard_state *st = &v->st[k];
			if (st->leader != a)
				continue;
			if (st->moving || st->touched) {
				w.flight = 1;
				continue;
			}
			uint32_t s = v->snap.shards[k].stream;
			uint32_t L = s != PL_NONE && b->cfg->stream_balance ? stream_leaders(v, s) : 0;
			for (uint32_t r = 0; r < st->nrep; r++) {
				uint32_t f = st->rep[r], kf;
				if (f == a || !pl__eligible(v, f) || !dest_key(v, sc, f, &kf))
					continue;
				if (!pl__bk_in_ok(b, f)) {
					seen_limit(&w, f);
					continue;
				}
				if (pair_ok(v, sc, a, ka, f, kf) && stream_allows(b, s, L, a, f))
					offer(v, sc, &x, a, ka, f, kf, 1, k);
			}
			for (uint32_t i = 0; i < l.n; i++) {
				uint32_t d = l.m[i];
				if (pl__holds(st, d) || !pair_ok(v, sc, a, ka, d, l.key[i]) || !stream_allows(b, s, L, a, d))
					continue;
				if (!pl__bk_zones_ok(v, k, a, d)) {
					w.zones = 1;
					continue;
				}
				offer(v, sc, &x, a, ka, d, l.key[i], 0, k);
				break;
			}
		}
		if (x.have)
			return emit(b, sc, &x);
	}
	return outcome(b, &w);
}

/* May shard k (led by a) go to x? In the cluster scope its stream (with L
 * eligible leaders) must keep its bounds too. */
static int hop_ok(const pl__bk *b, const scope *sc, uint32_t k, uint32_t L, uint32_t a, uint32_t x)
{
	const pl_view *v = b->v;
	const pl__shard_state *st = &v->st[k];
	if (x == a || !pl__eligible(v, x) || st->moving || st->touched)
		return 0;
	if (!pl__holds(st, x) && (!room_new(v, x) || !pl__bk_zones_ok(v, k, a, x)))
		return 0;
	return sc->s != PL_NONE || stream_allows(b, v->snap.shards[k].stream, L, a, x);
}

static uint32_t shard_L(const pl__bk *b, uint32_t k)
{
	uint32_t s = b->v->snap.shards[k].stream;
	return s != PL_NONE && b->cfg->stream_balance ? stream_leaders(b->v, s) : 0;
}

/* The shards of a scope: a stream's in key order, or every shard. */
static uint32_t scope_n(const pl_view *v, const scope *sc)
{
	return sc->s == PL_NONE ? v->nk : v->s_first[sc->s + 1] - v->s_first[sc->s];
}

static uint32_t scope_at(const pl_view *v, const scope *sc, uint32_t j)
{
	return sc->s == PL_NONE ? j : v->by_stream[v->s_first[sc->s] + j];
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
static int relay(pl__bk *b, const scope *sc)
{
	const pl_view *v = b->v;
	int64_t *mark = v->m_scratch;
	uint32_t kd = 0, d = PL_NONE, n = scope_n(v, sc);
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e], key;
		if (dest_key(v, sc, m, &key) && pl__bk_in_ok(b, m) &&
		    (d == PL_NONE || dest_before(v, sc, key, m, kd, d))) {
			d = m;
			kd = key;
		}
	}
	if (d == PL_NONE)
		return SETTLED;
	for (uint32_t m = 0; m < v->nm; m++)
		mark[m] &= ~MARK;
	/* Who can pass a shard of the scope on to d? */
	for (uint32_t j = 0; j < n; j++) {
		uint32_t k = scope_at(v, sc, j), x = v->st[k].leader;
		if (x == PL_NONE || x == d || (mark[x] & MARK) || !pl__eligible(v, x) || !pl__bk_out_ok(b, x))
			continue;
		if (hop_ok(b, sc, k, shard_L(b, k), x, d))
			mark[x] |= MARK;
	}
	uint32_t a = PL_NONE, ka = 0;
	best x = {0, 0, 0, 0, 0, 0, 0, 0};
	for (uint32_t tries = 0; tries < PL_BROKER_SEARCH && !x.have; tries++) {
		a = next_source(v, sc, a, ka, &ka);
		if (a == PL_NONE)
			break;
		if (!pl__bk_out_ok(b, a))
			continue;
		uint32_t ca = count(v, sc, a), fa, ea;
		bounds(v, sc, a, &fa, &ea);
		for (uint32_t j = 0; j < n; j++) {
			uint32_t k = scope_at(v, sc, j);
			if (v->st[k].leader != a)
				continue;
			uint32_t L = shard_L(b, k);
			for (uint32_t e = 0; e < v->n_elig; e++) {
				uint32_t m = v->elig[e], cm = count(v, sc, m), fm, em;
				if (m == a || !(mark[m] & MARK) || !pl__bk_in_ok(b, m))
					continue;
				bounds(v, sc, m, &fm, &em);
				if (!((ca > ea && cm <= em) || (ca > fa && cm < em)) || !hop_ok(b, sc, k, L, a, m))
					continue;
				offer(v, sc, &x, a, ka, m, 0, pl__holds(&v->st[k], m), k);
			}
		}
	}
	for (uint32_t m = 0; m < v->nm; m++)
		mark[m] &= ~MARK;
	return x.have ? emit(b, sc, &x) : SETTLED;
}

/* Search a scope: the first search; when every move it found is blocked by
 * zones or caps (or in the cluster pass the streams' bounds), the wide
 * fallback (every pair that still lowers the distance, when members are both
 * over and under), then the spread fallback (a member over its ceiling to
 * one it leads at least two more than, weighted), then a relay. A layout
 * that allows the first kind of move never sees the others. */
static int search_all(pl__bk *b, const scope *sc, int (*search)(pl__bk *, const scope *))
{
	int rc = search(b, sc);
	if (rc != BLOCK_CAPS && rc != BLOCK_ZONES && rc != SETTLED)
		return rc;
	scope w = *sc;
	if (sc->over && sc->under) {
		w.level = 1;
		int again = search(b, &w);
		if (again == MOVED || again == FULL || again == WAIT)
			return again;
	}
	if (sc->over) {
		w.level = 2;
		int again = search(b, &w);
		if (again == MOVED || again == FULL || again == WAIT)
			return again;
	}
	int again = relay(b, sc);
	return again == SETTLED ? rc : again;
}

static int stream_move(pl__bk *b, const scope *sc)
{
	return search_all(b, sc, stream_search);
}

static int cluster_move(pl__bk *b, const scope *sc)
{
	return search_all(b, sc, cluster_search);
}

/* ---- both passes ---------------------------------------------------------- */

static void block(pl__bk *b, int rc, uint32_t scope_id)
{
	if (rc == BLOCK_CAPS)
		b->block_caps++;
	else
		b->block_zones++;
	if (b->block_caps + b->block_zones == 1)
		b->block_scope = scope_id;
	b->blocked++;
}

int pl__bk_any_wanted(const pl__bk *b)
{
	const pl_view *v = b->v;
	scope sc;
	if (b->cfg->stream_balance)
		for (uint32_t s = 0; s < v->ns; s++) {
			scope_stream(b, s, &sc);
			if (sc.over || sc.under)
				return 1;
		}
	scope_cluster(b, &sc);
	return sc.over || sc.under;
}

/* The streams that want a move, in the order the stream pass takes them:
 * the one whose furthest member is furthest over its ceiling first (the worst
 * hotspot), ties (and streams with members only under their floor, key 0)
 * in id order. A scan collects the next few below the last taken; their keys
 * cannot change meanwhile, since a move changes only its own stream. */
#define NEXT 16u

static uint32_t next_streams(const pl__bk *b, uint64_t below, uint32_t *pick, uint64_t *key)
{
	const pl_view *v = b->v;
	uint32_t n = 0;
	scope sc;
	for (uint32_t r = 0; r < v->ns; r++) {
		uint32_t s = v->s_order[r];
		scope_stream(b, s, &sc);
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

void pl__bk_balance(pl__bk *b)
{
	int held = 0; /* a stream moved or waits: the cluster pass waits too */
	scope sc;
	int projected = 0;
	uint32_t pick[NEXT];
	uint64_t key[NEXT], below = UINT64_MAX;
	uint32_t n = b->cfg->stream_balance ? next_streams(b, below, pick, key) : 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = pick[i];
		for (;;) {
			scope_stream(b, s, &sc);
			if (!sc.over && !sc.under)
				break;
			if (b->budget == 0) {
				pl__bk_wait_limit(b, PL_NONE);
				return;
			}
			if (!projected) {
				project(b); /* only once a stream wants a move */
				projected = 1;
			}
			int rc = stream_move(b, &sc);
			if (rc == MOVED) {
				held = 1;
				continue;
			}
			if (rc == FULL)
				return;
			if (rc == WAIT)
				held = 1;
			else if (rc == BLOCK_CAPS || rc == BLOCK_ZONES)
				block(b, rc, s);
			break;
		}
		if (i + 1 == n && n == NEXT) {
			below = key[i];
			n = next_streams(b, below, pick, key);
			i = UINT32_MAX; /* ++ makes it 0 */
		}
	}
	if (held) {
		/* The cluster pass runs once the streams' moves have settled. */
		scope_cluster(b, &sc);
		if (sc.over || sc.under)
			b->want_flight = 1;
		return;
	}
	for (;;) {
		scope_cluster(b, &sc);
		if (!sc.over && !sc.under)
			return;
		if (b->budget == 0) {
			pl__bk_wait_limit(b, PL_NONE);
			return;
		}
		int rc = cluster_move(b, &sc);
		if (rc == MOVED)
			continue;
		if (rc == BLOCK_CAPS || rc == BLOCK_ZONES)
			block(b, rc, PL_NONE);
		return;
	}
}
