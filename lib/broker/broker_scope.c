/*
 * broker_scope.c - what the two rebalancing passes (broker_balance.c) share:
 * a scope and its bounds, who is a source or a destination and how they
 * rank, and the destination lists. The offers and the move they choose are
 * in broker_offer.c.
 *
 * How it works. A scope (pl__scope) is one stream's leaders or all leaders,
 * counted on the eligible members, each of which has a floor and a ceiling
 * (pl__bounds()). Keys say how far a member is over (a source) or under (a
 * destination), at the level of the search: the first search, or the wide or
 * the spread fallback. Equal keys rank by leaders per weight (in the stream
 * pass the projected totals of pl__bk_project(), kept in v->m_scratch), then
 * by the smaller id. A pass fills a destination list (pl__bk_dests()) and
 * walks the shards of its sources. Every function here is a bounded walk:
 * over the eligible members, one stream's cells, or (the projection) every
 * stream's cells once; why the moves end is told in broker_balance.c.
 */
#include "broker/broker_int.h"

/* ---- scopes and their bounds ---------------------------------------------- */

static void set_equal_bounds(const pl_view *v, pl__scope *sc)
{
	sc->fl = sc->ce = 0;
	if (v->n_elig > 0) {
		pl__bounds(v, sc->L, v->elig[0], &sc->fl, &sc->ce);
		pl__bk_widen(sc->tol, &sc->fl, &sc->ce);
	}
}

/* Member i of a stream's counts: the leader cells, or with rep the members
 * that may hold replicas (pl__rcell_members()), with their counts (0: skip). */
typedef struct counts {
	const pl__cell *c;
	const uint32_t *m;
	uint32_t n;
} counts;

static counts stream_counts(const pl_view *v, uint32_t s, int rep)
{
	counts x = {NULL, NULL, 0};
	if (rep) {
		x.n = pl__rcell_members(v, s, &x.m);
	} else {
		x.c = v->cells + v->s_cell_first[s];
		x.n = v->s_cell_count[s];
	}
	return x;
}

static uint32_t counts_member(const counts *x, uint32_t i)
{
	return x->c ? pl__cell_member(x->c, i) : x->m[i];
}

static uint32_t counts_value(const pl_view *v, const counts *x, uint32_t i)
{
	return x->c ? pl__cell_leaders(x->c, i) : v->rc_count[x->m[i]];
}

/* Sum of a stream's counts (leaders, or with rep replicas): on eligible
 * members only when elig. */
static uint32_t cells_sum(const pl_view *v, uint32_t s, int rep, int elig)
{
	counts c = stream_counts(v, s, rep);
	uint32_t L = 0;
	for (uint32_t i = 0; i < c.n; i++)
		if (!elig || pl__eligible(v, counts_member(&c, i)))
			L += counts_value(v, &c, i);
	return L;
}

uint32_t pl__bk_stream_leaders(const pl_view *v, uint32_t s)
{
	return pl__cell_sum_elig(v, s);
}

uint32_t pl__bk_stream_replicas(const pl_view *v, uint32_t s)
{
	return cells_sum(v, s, 1, 1);
}

uint32_t pl__bk_stream_replicas_all(const pl_view *v, uint32_t s)
{
	return cells_sum(v, s, 1, 0);
}

static void count_stream(const pl__bk *b, uint32_t s, uint32_t rep, pl__scope *sc)
{
	const pl_view *v = b->v;
	counts c = stream_counts(v, s, (int)rep);
	uint32_t n = c.n, ne = 0;
	uint32_t cmax = 0, cmin = UINT32_MAX;
	int all = v->n_elig == v->nm; /* no cell needs the eligibility test */
	sc->s = s;
	sc->rep = rep;
	sc->L = 0;
	sc->over = sc->under = sc->level = 0;
	sc->tgt = !rep && b->tgt_on;
	sc->hi = sc->tgt ? b->tgt[s] : 0;
	sc->tol = pl__bk_stream_tol(v, b->cfg, s);
	if (c.c != NULL) {
		for (uint32_t i = 0; i < n; i++)
			if (all || pl__eligible(v, pl__cell_member(c.c, i))) {
				uint32_t x = pl__cell_leaders(c.c, i);
				sc->L += x;
				ne++;
				cmax = x > cmax ? x : cmax;
				cmin = x < cmin ? x : cmin;
			}
	} else {
		const uint32_t *count = v->rc_count;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t m = c.m[i], x = count[m];
			if (x == 0 || !(all || pl__eligible(v, m)))
				continue;
			sc->L += x;
			ne++;
			cmax = x > cmax ? x : cmax;
			cmin = x < cmin ? x : cmin;
		}
	}
	set_equal_bounds(v, sc);
	sc->hot = 0;
	if (!v->weighted) {
		/* One bound for every member: the extremes say it all. */
		sc->over = ne > 0 && cmax > sc->ce;
		sc->hot = sc->over ? cmax - sc->ce : 0;
		sc->under = (ne > 0 && cmin < sc->fl) || (ne < v->n_elig && sc->fl > 0);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t m = counts_member(&c, i), x = counts_value(v, &c, i), fl, ce;
		if (!pl__eligible(v, m) || x == 0)
			continue;
		pl__bk_bounds(v, sc, m, &fl, &ce);
		if (x > ce && x - ce > sc->hot)
			sc->hot = x - ce;
		sc->over |= x > ce;
		sc->under |= x < fl;
	}
	if (sc->under || ne == v->n_elig)
		return;
	/* Some eligible member holds none of the stream: under when its floor
	 * is above zero. */
	if ((uint64_t)sc->L * b->w_max < v->weight_elig)
		return; /* every floor is zero */
	for (uint32_t e = 0; e < v->n_elig && !sc->under; e++) {
		uint32_t m = v->elig[e], fl, ce;
		pl__bk_bounds(v, sc, m, &fl, &ce);
		sc->under = fl > 0 && pl__bk_count(v, sc, m) == 0;
	}
}

/* A kept stream's scope is counted and bounded as any, and wants no move. */
static void scope_stream(const pl__bk *b, uint32_t s, uint32_t rep, pl__scope *sc)
{
	count_stream(b, s, rep, sc);
	if (pl__bk_kept_stream(b->v, s))
		sc->over = sc->under = 0, sc->hot = 0;
}

void pl__bk_scope_stream(const pl__bk *b, uint32_t s, pl__scope *sc)
{
	scope_stream(b, s, 0, sc);
}

void pl__bk_rscope_stream(const pl__bk *b, uint32_t s, pl__scope *sc)
{
	scope_stream(b, s, 1, sc);
}

static void scope_cluster(const pl__bk *b, uint32_t rep, pl__scope *sc)
{
	const pl_view *v = b->v;
	const uint32_t *cnt = rep ? v->m_replicas : v->m_leaders;
	sc->s = PL_NONE;
	sc->rep = rep;
	sc->L = 0;
	sc->hot = 0;
	sc->over = sc->under = sc->level = 0;
	sc->tgt = 0;
	sc->hi = 0;
	sc->tol = b->cfg->tolerance;
	for (uint32_t e = 0; e < v->n_elig; e++)
		sc->L += cnt[v->elig[e]];
	set_equal_bounds(v, sc);
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e], fl, ce;
		pl__bk_bounds(v, sc, m, &fl, &ce);
		sc->over |= cnt[m] > ce;
		sc->under |= cnt[m] < fl;
	}
}

void pl__bk_scope_cluster(const pl__bk *b, pl__scope *sc)
{
	scope_cluster(b, 0, sc);
}

void pl__bk_rscope_cluster(const pl__bk *b, pl__scope *sc)
{
	scope_cluster(b, 1, sc);
}

int pl__bk_carry_ok(const pl__bk *b, uint32_t k, uint32_t a, uint32_t d)
{
	const pl_view *v = b->v;
	uint32_t s = v->snap.shards[k].stream;
	if (s != PL_NONE && b->cfg->stream_balance &&
	    !pl__bk_keeps(v, pl__bk_stream_leaders(v, s), pl__bk_stream_tol(v, b->cfg, s), a, pl__cell_get(v, s, a), d,
			  pl__cell_get(v, s, d)))
		return 0;
	return pl__bk_keeps(v, b->lead_elig, b->cfg->tolerance, a, v->m_leaders[a], d, v->m_leaders[d]);
}

/* May a shard of stream s go from a to d without raising the stream's
 * potential: its distance to its bounds, then its sum of count^2/weight
 * (with unequal weights a move within the bounds can raise it)? A stream
 * within its bounds stays within them; one that no move can bring within
 * them (a blocked stream) may still give the totals a leader, so long as
 * it ends no further from its bounds. */
int pl__bk_stream_allows(const pl__bk *b, uint32_t s, uint32_t L, uint32_t a, uint32_t d)
{
	const pl_view *v = b->v;
	if (s == PL_NONE || !b->cfg->stream_balance)
		return 1;
	return pl__bk_no_rise(v, L, pl__bk_stream_tol(v, b->cfg, s), a, pl__cell_get(v, s, a), d, pl__cell_get(v, s, d));
}

int pl__bk_serves(const pl__bk *b, uint32_t k, uint32_t a, uint32_t d, uint32_t R)
{
	const pl_view *v = b->v;
	if (!b->cfg->replica_balance || !b->rep_settled || pl__holds(pl__st(v, k), d))
		return 0; /* with replicas still to drain, their counts are not final */
	uint32_t s = v->snap.shards[k].stream, ra = v->m_replicas[a], rd = v->m_replicas[d];
	uint32_t tol = b->cfg->tolerance;
	if (s == PL_NONE || !b->cfg->stream_balance)
		return pl__bk_drops(v, b->rep_elig, tol, a, ra, d, rd);
	if (!pl__bk_no_rise(v, b->rep_elig, tol, a, ra, d, rd))
		return 0;
	uint32_t ca = pl__rcell_get(v, s, a), cd = pl__rcell_get(v, s, d);
	if (R)
		return pl__bk_drops(v, R, pl__bk_stream_tol(v, b->cfg, s), a, ca, d, cd);
	return ca > 0 && (2 * (uint64_t)ca - 1) * v->m_weight[d] > (2 * (uint64_t)cd + 1) * v->m_weight[a];
}

/* Member m's place in replica scope sc: bit 1, above its floor (may give
 * one); bit 2, over its ceiling; bit 4, below its ceiling (may take one);
 * bit 8, under its floor. 0 for a member not eligible. */
static uint32_t rplace(const pl_view *v, const pl__scope *sc, uint32_t m)
{
	if (!pl__eligible(v, m))
		return 0;
	uint32_t c = pl__bk_count(v, sc, m), fl, ce;
	pl__bk_bounds(v, sc, m, &fl, &ce);
	return (c > fl ? 1u : 0u) | (c > ce ? 2u : 0u) | (c < ce ? 4u : 0u) | (c < fl ? 8u : 0u);
}

int pl__bk_rscope_movable(const pl__bk *b, const pl__scope *sc)
{
	const pl_view *v = b->v;
	uint32_t below = 0, under = 0; /* eligible members below their ceilings, under their floors */
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t p = rplace(v, sc, v->elig[e]);
		below += (p & 4) != 0;
		under += (p & 8) != 0;
	}
	for (uint32_t k = 0; k < v->nk && (below || under); k++) {
		if (sc->s != PL_NONE && v->snap.shards[k].stream != sc->s)
			continue;
		const pl__shard_state *st = pl__st(v, k);
		uint32_t over_here = 0, give_here = 0, below_here = 0, under_here = 0;
		for (uint32_t j = 0; j < st->nrep; j++) {
			uint32_t p = rplace(v, sc, pl__rep(st, j));
			over_here |= p & 2;
			give_here |= p & 1;
			below_here += (p & 4) != 0;
			under_here += (p & 8) != 0;
		}
		if ((over_here && below > below_here) || (give_here && under > under_here))
			return 1;
	}
	return 0;
}

/* ---- sources and destinations --------------------------------------------- */

/* Keys of the fallbacks: past this, a member is over its ceiling (source) or
 * under its floor (destination). */
/* May source a (key ka) hand a shard to destination d (key kd)? Always in
 * the first search. In the even fallback of the replica passes (level 3:
 * any member to any member) when the move keeps the distance from rising
 * and lowers the sum of count^2 / weight, as the spread fallback's. In the wide fallback when a is over its ceiling or d
 * under its floor: the move lowers the distance. In the spread fallback
 * (a is over its ceiling) when the move lowers the sum over members of
 * count^2 / weight, (2 c_a - 1) w_d > (2 c_d + 1) w_a: with equal weights,
 * when a leads at least two more than d. */
int pl__bk_pair_ok(const pl_view *v, const pl__scope *sc, uint32_t a, uint32_t ka, uint32_t d, uint32_t kd)
{
	if (sc->level == 0)
		return 1;
	if (sc->level == 1)
		return ka >= PL__BK_WIDE || kd >= PL__BK_WIDE;
	uint64_t ca = pl__bk_count(v, sc, a), cd = pl__bk_count(v, sc, d);
	if (sc->level == 3) {
		/* The distance must not rise: a's and d's parts of it. */
		uint32_t fa, ea, fd, ed;
		pl__bk_bounds(v, sc, a, &fa, &ea);
		pl__bk_bounds(v, sc, d, &fd, &ed);
		int64_t before = (ca > ea ? (int64_t)(ca - ea) : ca < fa ? (int64_t)(fa - ca) : 0) +
				 (cd > ed ? (int64_t)(cd - ed) : cd < fd ? (int64_t)(fd - cd) : 0);
		int64_t after = (ca - 1 > ea ? (int64_t)(ca - 1 - ea) : ca - 1 < fa ? (int64_t)(fa - ca + 1) : 0) +
				(cd + 1 > ed ? (int64_t)(cd + 1 - ed) : cd + 1 < fd ? (int64_t)(fd - cd - 1) : 0);
		if (after > before)
			return 0;
	}
	return (2 * ca - 1) * v->m_weight[d] > (2 * cd + 1) * v->m_weight[a];
}

/* ---- ranking -------------------------------------------------------------- */

/* The stream pass breaks ties on projected totals: a member's leaders in
 * total, less what it leads over its ceilings, plus what it lacks under its
 * floors, over every stream; that is where its total is headed once the
 * moves the streams must make are made, so a tie goes where the totals
 * will need it. Kept in v->m_scratch for the call (pl__bk_project(), and
 * pl__bk_emit_best() after each stream move). */
void pl__bk_project(const pl__bk *b)
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
		uint32_t L = pl__bk_stream_leaders(v, s), fl, ce;
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
			uint32_t m = pl__cell_member(c, i), n = pl__cell_leaders(c, i);
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

/* Ranks: furthest over (under) first; then the most (fewest) leaders per
 * weight, projected in the stream pass, in total in the cluster pass; then
 * the smaller id. */
static int tie(const pl_view *v, const pl__scope *sc, uint32_t a, uint32_t b)
{
	int c = 0;
	if (sc->rep)
		c = pl__bk_cmp_w(v, v->m_replicas[a], a, v->m_replicas[b], b);
	else if (sc->s != PL_NONE) {
		int64_t pa = v->m_scratch[a] & (PL__BK_MARK - 1), pb = v->m_scratch[b] & (PL__BK_MARK - 1);
		c = pl__bk_cmp_w(v, (uint64_t)pa, a, (uint64_t)pb, b);
	}
	else
		c = pl__bk_cmp_w(v, v->m_leaders[a], a, v->m_leaders[b], b);
	return c;
}

int pl__bk_source_before(const pl_view *v, const pl__scope *sc, uint32_t ka, uint32_t a, uint32_t kb, uint32_t b)
{
	if (ka != kb)
		return ka > kb;
	int c = tie(v, sc, a, b);
	if (c)
		return c > 0;
	return v->m_rank[a] < v->m_rank[b];
}

int pl__bk_dest_before(const pl_view *v, const pl__scope *sc, uint32_t ka, uint32_t a, uint32_t kb, uint32_t b)
{
	if (ka != kb)
		return ka > kb;
	int c = tie(v, sc, a, b);
	if (c)
		return c < 0;
	return v->m_rank[a] < v->m_rank[b];
}

/* The sources of a scope count at least one at every level: a stream's are
 * among the members of its leader cells (or of its counted replicas), so a
 * stream scope walks those, not every eligible member. The list is the same
 * whatever the walk's order: pl__bk_source_before() is strict and total. */
uint32_t pl__bk_sources(const pl_view *v, const pl__scope *sc, uint32_t max, uint32_t *m, uint32_t *key,
			uint32_t *seen)
{
	counts c = {NULL, v->elig, v->n_elig};
	if (sc->s != PL_NONE)
		c = stream_counts(v, sc->s, (int)sc->rep);
	uint32_t n = 0, all = 0;
	for (uint32_t i = 0; i < c.n; i++) {
		uint32_t a = counts_member(&c, i), ka, j;
		if ((sc->s != PL_NONE && !pl__eligible(v, a)) || !pl__bk_source_key(v, sc, a, &ka))
			continue;
		all++;
		if (n == max && !pl__bk_source_before(v, sc, ka, a, key[n - 1], m[n - 1]))
			continue; /* after the last kept, with the list full */
		/* Insert in order, the last dropped when the list is full. */
		for (j = n < max ? n : max - 1; j > 0 && pl__bk_source_before(v, sc, ka, a, key[j - 1], m[j - 1]); j--) {
			m[j] = m[j - 1];
			key[j] = key[j - 1];
		}
		m[j] = a;
		key[j] = ka;
		n += n < max;
	}
	if (seen)
		*seen = all;
	return n;
}

/* ---- destination lists ---------------------------------------------------- */

/* Add destination m (its key) to l in rank order, within its limits. */
static void dlist_add(const pl_view *v, const pl__scope *sc, pl__dlist *l, uint32_t m, uint32_t key)
{
	/* Full, and m after the last: after every member listed (the order is
	 * strict and total), so neither it nor its zone's replacement enters. */
	if (l->n == l->max && !pl__bk_dest_before(v, sc, key, m, l->key[l->n - 1], l->m[l->n - 1]))
		return;
	if (l->per_zone)
		for (uint32_t i = 0; i < l->n; i++) {
			if (v->m_zone[l->m[i]] != v->m_zone[m])
				continue;
			if (!pl__bk_dest_before(v, sc, key, m, l->key[i], l->m[i]))
				return;
			memmove(l->m + i, l->m + i + 1, (l->n - i - 1) * sizeof *l->m);
			memmove(l->key + i, l->key + i + 1, (l->n - i - 1) * sizeof *l->key);
			l->n--;
			break;
		}
	if (l->n == l->max) {
		if (!pl__bk_dest_before(v, sc, key, m, l->key[l->n - 1], l->m[l->n - 1]))
			return;
		l->n--;
	}
	uint32_t i = l->n;
	while (i > 0 && pl__bk_dest_before(v, sc, key, m, l->key[i - 1], l->m[i - 1])) {
		l->m[i] = l->m[i - 1];
		l->key[i] = l->key[i - 1];
		i--;
	}
	l->m[i] = m;
	l->key[i] = key;
	l->n++;
}

/* Fill the destination list of a scope; note limits and caps. */
void pl__bk_dests(const pl__bk *b, const pl__scope *sc, pl__dlist *l, pl__seen *w)
{
	const pl_view *v = b->v;
	pl__bk_dkeys dk;
	pl__bk_scope_hold(v, sc);
	pl__bk_dkeys_init(v, sc, &dk);
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e], key;
		if (!pl__bk_dkey(v, sc, &dk, m, &key))
			continue;
		if (!pl__bk_in_ok(b, m)) {
			pl__bk_seen_limit(w, m);
			continue;
		}
		if (!pl__bk_room_new(v, m)) {
			w->caps = 1;
			continue;
		}
		dlist_add(v, sc, l, m, key);
	}
}
