/*
 * imbalance.c - pl_view_imbalance(): one number for how balanced a view is.
 *
 * How it works. A scope is a count per member (leaders, replicas or shards
 * owned, in total or in one stream) and a number L the bounds share out:
 * each eligible member's floor and ceiling are its weighted share of L
 * (pl__bounds()). The scope's imbalance is the sum of each eligible
 * member's distance to its bounds, plus the whole count of each member
 * that is not held to them. Only members with a count are walked (a
 * stream's leader cells, the replica cache's list, in total every member):
 * an eligible member missing from the walk counts 0, so its distance is
 * its floor, and those are added as the sum of every eligible floor less
 * the floors of the eligible members walked. With equal weights that sum is
 * one product; with weights it is a walk of the eligible members, so a
 * stream costs O(its cells + eligible members) at most.
 *
 * Which counts and which L (placement(1), IMBALANCE, says the same):
 *  - leaders: L is every shard (in a stream, the stream's shards); a member
 *    that is not eligible (down or draining) is held to 0;
 *  - replicas (the broker's replica balance): L is the replicas eligible
 *    members hold, as the broker's replica passes share them; a draining
 *    member's replicas count (its drain moves them), a down member's do not
 *    (they stay until the caller removes them);
 *  - owned (fleet): L is every shard, owners as pl__owner() has them;
 *  - replicas (region): the fair share of the replicas live members hold
 *    over the live members, unweighted; a down member counts nothing.
 * The view's caches are filled as a policy fills them (the replica cache,
 * the ring homes): the view's own memory, not an answer.
 */
#include "view/view_int.h"

static uint32_t dist(uint32_t x, uint32_t fl, uint32_t ce)
{
	return x < fl ? fl - x : x > ce ? x - ce : 0;
}

/* Sum over the eligible members of their floors of L. */
static uint64_t floors(const pl_view *v, uint32_t L)
{
	uint32_t fl, ce;
	if (v->n_elig == 0)
		return 0;
	if (!v->weighted) {
		pl__bounds(v, L, v->elig[0], &fl, &ce);
		return (uint64_t)fl * v->n_elig;
	}
	uint64_t sum = 0;
	for (uint32_t e = 0; e < v->n_elig; e++) {
		pl__bounds(v, L, v->elig[e], &fl, &ce);
		sum += fl;
	}
	return sum;
}

/* One scope being summed: the distance so far and the floors of the
 * eligible members walked. */
typedef struct scope {
	uint32_t L;
	uint32_t down_counts; /* a down member's count is off its bounds */
	uint64_t d, walked_floors;
} scope;

static void walk(const pl_view *v, scope *sc, uint32_t m, uint32_t x)
{
	if (pl__eligible(v, m)) {
		uint32_t fl, ce;
		pl__bounds(v, sc->L, m, &fl, &ce);
		sc->d += dist(x, fl, ce);
		sc->walked_floors += fl;
	} else if (sc->down_counts || pl__live(v, m)) {
		sc->d += x;
	}
}

static uint64_t scope_end(const pl_view *v, const scope *sc)
{
	return sc->d + (floors(v, sc->L) - sc->walked_floors);
}

/* A count in total of every member: leaders, or replicas. */
static uint64_t totals(const pl_view *v, const uint32_t *count, uint32_t L, uint32_t down_counts)
{
	scope sc = {L, down_counts, 0, 0};
	for (uint32_t m = 0; m < v->nm; m++)
		walk(v, &sc, m, count[m]);
	return scope_end(v, &sc);
}

static uint64_t stream_leaders(const pl_view *v, uint32_t s)
{
	const pl__cell *c = v->cells + v->s_cell_first[s];
	scope sc = {v->s_shards[s], 1, 0, 0};
	for (uint32_t i = 0; i < v->s_cell_count[s]; i++)
		walk(v, &sc, pl__cell_member(c, i), pl__cell_leaders(c, i));
	return scope_end(v, &sc);
}

static uint64_t stream_replicas(const pl_view *v, uint32_t s)
{
	const uint32_t *list;
	uint32_t n = pl__rcell_members(v, s, &list);
	scope sc = {0, 0, 0, 0};
	for (uint32_t i = 0; i < n; i++)
		if (pl__eligible(v, list[i]))
			sc.L += pl__rcell_get(v, s, list[i]);
	for (uint32_t i = 0; i < n; i++)
		walk(v, &sc, list[i], pl__rcell_get(v, s, list[i]));
	return scope_end(v, &sc);
}

/* The region policy's fair share: replicas on live members over the live
 * members, a draining member held too. */
static uint64_t region_totals(const pl_view *v)
{
	uint64_t live = 0, d = 0;
	for (uint32_t m = 0; m < v->nm; m++)
		if (pl__live(v, m))
			live += v->m_replicas[m];
	if (v->n_live == 0)
		return 0;
	uint32_t fl = (uint32_t)(live / v->n_live), ce = (uint32_t)((live + v->n_live - 1) / v->n_live);
	for (uint32_t m = 0; m < v->nm; m++)
		if (pl__live(v, m))
			d += dist(v->m_replicas[m], fl, ce);
	return d;
}

int pl_view_imbalance(const pl_view *v, uint32_t measure, pl_imbalance *out)
{
	if (!pl__view_ok(v) || out == NULL || measure > PL_IMBALANCE_REPLICAS)
		return PL_E_INVAL;
	if (pl__overlaps_view(v, out, sizeof *out))
		return PL_E_OVERLAP;
	pl_imbalance r = {0, 0, 0};
	if (measure == PL_IMBALANCE_REPLICAS) {
		r.totals = region_totals(v);
	} else if (measure == PL_IMBALANCE_OWNED) {
		/* the ring homes and owned counts, once, as a fleet decision fills
		 * them (a view is used by one thread at a time) */
		pl__view_homes((pl_view *)(uintptr_t)v);
		r.totals = totals(v, v->m_owned, v->nk, 1);
	} else {
		r.totals = totals(v, v->m_leaders, v->nk, 1);
		for (uint32_t s = 0; s < v->ns; s++)
			r.streams += stream_leaders(v, s);
		if (measure == PL_IMBALANCE_BROKER) {
			uint32_t L = 0;
			for (uint32_t e = 0; e < v->n_elig; e++)
				L += v->m_replicas[v->elig[e]];
			r.totals += totals(v, v->m_replicas, L, 0);
			for (uint32_t s = 0; s < v->ns; s++)
				r.streams += stream_replicas(v, s);
		}
	}
	r.total = r.totals + r.streams;
	*out = r;
	return 0;
}
