/*
 * broker_tier.c - the tier function of the broker policy: which member of a
 * candidate set takes a shard (placing, failover, drain).
 *
 * How it works. pl__bk_tier() rates every candidate of a set with the same
 * five tiers (placement/broker.h): under the stream floor, under the stream
 * ceiling (both preferring a member under the cluster share), under the
 * cluster share, with room under max_shards, least loaded. The best is the
 * lowest tier, then the preference, then the highest rendezvous draw (ties on
 * the smaller id, as pl__draw_gt() orders them). One walk over the set: it
 * always ends.
 *
 * Caps. Tiers 1 to 4 need room, so no member passes its max_shards while any
 * candidate has room; pl__bk_tier_widened() widens a set that keeps the zone
 * count to every eligible member when none of it has room.
 */
#include "broker_int.h"

typedef struct cand {
	uint32_t m, tier, pref;
	uint32_t count, floor, ceiling, total, share;
	pl__draw d;
} cand;

/* Rate candidate m for shard k. With rep, counted on replicas: of the
 * stream (st_total of them, on every member) and in total (b->rep_total). */
static void rate(const pl__bk *b, uint32_t k, uint32_t m, int rep, uint32_t st_total, cand *c)
{
	const pl_view *v = b->v;
	uint32_t s = v->snap.shards[k].stream, cfloor;
	int streams = s != PL_NONE && b->cfg->stream_balance;
	c->m = m;
	c->total = rep ? v->m_replicas[m] : v->m_leaders[m];
	pl__bounds(v, rep ? b->rep_total : v->nk, m, &cfloor, &c->share);
	c->count = c->floor = c->ceiling = 0;
	if (s != PL_NONE) {
		c->count = rep ? pl__rcell_get(v, s, m) : pl__cell_get(v, s, m);
		pl__bounds(v, st_total, m, &c->floor, &c->ceiling);
	}
	int under_share = c->total < c->share;
	if (!pl__room(v, m, k))
		c->tier = 5;
	else if (streams && c->count < c->floor)
		c->tier = 1;
	else if (streams && c->count < c->ceiling)
		c->tier = 2;
	else if (under_share)
		c->tier = 3;
	else
		c->tier = 4;
	c->pref = c->tier <= 2 && under_share;
	c->d = pl__view_draw(v, v->k_hash[k], m);
}

static int better(const pl_view *v, const cand *a, const cand *b)
{
	if (a->tier != b->tier)
		return a->tier < b->tier;
	if (a->pref != b->pref)
		return a->pref > b->pref;
	if (a->tier == 5) {
		int c = pl__bk_cmp_w(v, a->total, a->m, b->total, b->m);
		if (c)
			return c < 0;
		c = pl__bk_cmp_w(v, v->m_replicas[a->m], a->m, v->m_replicas[b->m], b->m);
		if (c)
			return c < 0;
	}
	return pl__draw_gt(a->d, b->d);
}

static void consider(const pl__bk *b, uint32_t k, uint32_t m, int rep, uint32_t st_total, cand *best, int *have)
{
	cand c;
	rate(b, k, m, rep, st_total, &c);
	if (!*have || better(b->v, &c, best)) {
		*best = c;
		*have = 1;
	}
}

/* Is m in a zone none of st's replicas is in? */
static int new_zone(const pl_view *v, const pl__shard_state *st, uint32_t m)
{
	for (uint32_t j = 0; j < st->nrep; j++)
		if (v->m_zone[st->rep[j]] == v->m_zone[m])
			return 0;
	return 1;
}

void pl__bk_tier(const pl__bk *b, uint32_t k, uint32_t set, uint32_t from, int limit_in, pl__pick *p)
{
	const pl_view *v = b->v;
	const pl__shard_state *st = &v->st[k];
	int rep = (set & PL__BK_REPLICA) != 0;
	uint32_t s = v->snap.shards[k].stream, st_total = 0;
	set &= PL__BK_SET;
	if (s != PL_NONE)
		st_total = rep ? pl__bk_stream_replicas_all(v, s) : v->s_shards[s];
	cand best;
	int have = 0;
	memset(&best, 0, sizeof best);
	if (set == PL__BK_FOLLOWERS) {
		for (uint32_t j = 0; j < st->nrep; j++) {
			uint32_t m = st->rep[j];
			if (m == st->leader || !pl__eligible(v, m) || (limit_in && !pl__bk_in_ok(b, m)))
				continue;
			consider(b, k, m, rep, st_total, &best, &have);
		}
	} else {
		for (uint32_t e = 0; e < v->n_elig; e++) {
			uint32_t m = v->elig[e];
			if (m == from || (limit_in && !pl__bk_in_ok(b, m)) || (rep && pl__holds(st, m)))
				continue;
			if (set == PL__BK_KEEP_ZONES && !pl__bk_zones_ok(v, k, from, m))
				continue;
			if (set == PL__BK_NEW_ZONE && !new_zone(v, st, m))
				continue;
			consider(b, k, m, rep, st_total, &best, &have);
		}
	}
	p->member = have ? best.m : PL_NONE;
	p->tier = best.tier;
	p->count = best.count;
	p->floor = best.floor;
	p->ceiling = best.ceiling;
	p->total = best.total;
	p->share = best.share;
	p->stream_total = st_total;
}

void pl__bk_tier_widened(const pl__bk *b, uint32_t k, uint32_t from, int limit_in, pl__pick *p)
{
	pl__bk_tier(b, k, PL__BK_KEEP_ZONES, from, limit_in, p);
	if (p->member != PL_NONE && p->tier < 5)
		return;
	pl__pick w;
	pl__bk_tier(b, k, PL__BK_ALL, from, limit_in, &w);
	if (p->member == PL_NONE || (w.member != PL_NONE && w.tier < 5))
		*p = w;
}
