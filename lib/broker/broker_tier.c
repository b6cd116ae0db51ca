/*
 * broker_tier.c - the tier function of the broker policy: which member of a
 * candidate set takes a shard (placing, failover, drain).
 *
 * How it works. pl__bk_tier() rates every candidate of a set with the same
 * five tiers (placement/broker.h): under the stream floor, under the stream
 * ceiling (both preferring a member under the cluster share), under the
 * cluster share, with room under max_shards, least loaded. The best is the
 * lowest tier, then the preference, then (rate()'s rtie) the fewest replicas
 * where a replica is copied or placed, then the highest rendezvous draw (ties
 * on the smaller id, as pl__draw_gt() orders them). One walk over the set: it
 * always ends.
 *
 * Caps. Tiers 1 to 4 need room, so no member passes its max_shards while any
 * candidate has room; pl__bk_tier_widened() widens a set that keeps the zone
 * count to every eligible member when none of it has room.
 *
 * A new shard's followers (pl__bk_tier_follower()) are rated by the same
 * tiers counted on replicas, the one function the replica drain and the
 * replica balance's bounds agree with, among the members with room in a
 * zone none of the shard's replicas chosen so far is in, then among every
 * member with room: so the placement is what the replica balance would
 * keep, with zones spread first. A shard of a majority stream
 * (PL_ZONES_MAJORITY) then goes on to the zones holding the fewest of its
 * replicas so far, so it is placed within the majority limit when the zones
 * allow.
 */
#include "broker/broker_int.h"

typedef struct cand {
	uint32_t m, tier, pref;
	uint32_t count, floor, ceiling, total, share;
	uint32_t rtie, rtie2; /* ties before the draw, fewest per weight first (new shards only) */
	pl__draw d;
} cand;

/* How a candidate is rated (rate()'s `how`): on leaders or on replicas;
 * a new shard's leader (ties to the fewest replicas); a new shard's follower
 * (counts projected: below). */
#define RATE_REPLICAS 1
#define RATE_NEW_LEADER 2
#define RATE_NEW_FOLLOWER 4

/* Leaderships member m will still take, up to its floor of `count` shards
 * when it leads `has`. */
static uint32_t to_come(const pl_view *v, uint32_t count, uint32_t m, uint32_t has)
{
	uint32_t fl, ce;
	pl__bounds(v, count, m, &fl, &ce);
	return has < fl ? fl - has : 0;
}

/* Rate candidate m for shard k. With RATE_REPLICAS, counted on replicas: of
 * the stream (st_total of them, on every member) and in total (over
 * b->rep_total); a replica copied there (drain, zone repair) ties within its
 * tier to the fewest of the stream, then in total (per weight), before the
 * draw: the member the replica balance would copy it to next, so it is not
 * copied twice. A new shard's follower counts, beside the replicas of the
 * stream it holds, the leaderships of the stream it will take up to its
 * floor: each comes with a replica, so followers go where leaders will not.
 * Its ties within a tier go to the fewest so counted, then to the fewest
 * replicas in total (per weight), before the draw. */
static void rate(const pl__bk *b, uint32_t k, uint32_t m, int how, uint32_t st_total, cand *c)
{
	const pl_view *v = b->v;
	uint32_t s = v->snap.shards[k].stream, cfloor;
	int streams = s != PL_NONE && b->cfg->stream_balance, rep = how & RATE_REPLICAS;
	int follower = (how & RATE_NEW_FOLLOWER) != 0;
	c->m = m;
	c->total = rep ? v->m_replicas[m] : v->m_leaders[m];
	pl__bounds(v, rep ? b->rep_total : v->nk, m, &cfloor, &c->share);
	c->count = c->floor = c->ceiling = 0;
	if (s != PL_NONE) {
		c->count = rep ? pl__rcell_get(v, s, m) : pl__cell_get(v, s, m);
		pl__bounds(v, st_total, m, &c->floor, &c->ceiling);
		if (follower)
			c->count += to_come(v, v->s_shards[s], m, pl__cell_get(v, s, m));
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
	c->rtie = c->rtie2 = 0;
	if (how & RATE_NEW_LEADER)
		c->rtie = s != PL_NONE ? pl__rcell_get(v, s, m) : v->m_replicas[m];
	if (follower || (rep && !(how & RATE_NEW_LEADER))) {
		c->rtie = s != PL_NONE ? c->count : c->total;
		c->rtie2 = c->total;
	}
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
	int c = pl__bk_cmp_w(v, a->rtie, a->m, b->rtie, b->m);
	if (c)
		return c < 0;
	c = pl__bk_cmp_w(v, a->rtie2, a->m, b->rtie2, b->m);
	if (c)
		return c < 0;
	return pl__draw_gt(a->d, b->d);
}

static void consider(const pl__bk *b, uint32_t k, uint32_t m, int how, uint32_t st_total, cand *best, int *have)
{
	cand c;
	rate(b, k, m, how, st_total, &c);
	if (!*have || better(b->v, &c, best)) {
		*best = c;
		*have = 1;
	}
}

/* Is m in a domain none of st's replicas is in, at `level` or a higher
 * one? (At zone_levels - 1: a zone none of them is in.) */
static int new_zone(const pl_view *v, const pl__shard_state *st, uint32_t m, uint32_t level)
{
	uint32_t rep[PL_MAX_REPLICAS];
	for (uint32_t j = 0; j < st->nrep; j++)
		rep[j] = pl__rep(st, j);
	return pl__zone_new_level(v, rep, st->nrep, PL_NONE, m) <= level;
}

void pl__bk_tier(const pl__bk *b, uint32_t k, uint32_t set, uint32_t from, int limit_in, pl__pick *p)
{
	const pl_view *v = b->v;
	const pl__shard_state *st = pl__st(v, k);
	int rep = (set & PL__BK_REPLICA) != 0, how = (rep ? RATE_REPLICAS : 0) | ((set & PL__BK_NEW) ? RATE_NEW_LEADER : 0);
	uint32_t s = v->snap.shards[k].stream, st_total = 0;
	set &= PL__BK_SET;
	if (s != PL_NONE)
		st_total = rep ? pl__bk_stream_replicas_all(v, s) : v->s_shards[s];
	cand best;
	int have = 0;
	memset(&best, 0, sizeof best);
	if (set == PL__BK_FOLLOWERS) {
		for (uint32_t j = 0; j < st->nrep; j++) {
			uint32_t m = pl__rep(st, j);
			if (m == pl__leader(st) || !pl__eligible(v, m) || !pl__in_sync(v, k, m) ||
			    (limit_in && !pl__bk_in_ok(b, m)))
				continue;
			consider(b, k, m, how, st_total, &best, &have);
		}
	} else {
		for (uint32_t e = 0; e < v->n_elig; e++) {
			uint32_t m = v->elig[e];
			if (m == from || (limit_in && !pl__bk_in_ok(b, m)) || (rep && pl__holds(st, m)))
				continue;
			if (!rep && pl__holds(st, m) && !pl__in_sync(v, k, m))
				continue; /* holds data, may not lead it */
			if (set == PL__BK_KEEP_ZONES && !pl__bk_zones_ok(v, k, from, m))
				continue;
			if (!pl__bk_room_bytes(b, k, from, m)) /* a copy past a full ratio or a bytes limit */
				continue;
			if (set == PL__BK_NEW_ZONE && !new_zone(v, st, m, b->zone_level))
				continue;
			if (set == PL__BK_FEW_ZONE && pl__bk_zone_held(v, st, v->m_zone[m]) != b->maj_few)
				continue;
			consider(b, k, m, how, st_total, &best, &have);
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

/* Is m among pick[0..n)? in the zone of one of them? */
static int picked(const uint32_t *pick, uint32_t n, uint32_t m)
{
	for (uint32_t j = 0; j < n; j++)
		if (pick[j] == m)
			return 1;
	return 0;
}

/* How many of pick[0..n) are in m's zone. */
static uint32_t zone_picked(const pl_view *v, const uint32_t *pick, uint32_t n, uint32_t m)
{
	uint32_t c = 0;
	for (uint32_t j = 0; j < n; j++)
		c += v->m_zone[pick[j]] == v->m_zone[m];
	return c;
}

/* The fewest of pick[0..n) in the zone of an eligible member with room for
 * new shard k that is not in pick; UINT32_MAX when none has room. */
static uint32_t fewest_picked(const pl_view *v, uint32_t k, const uint32_t *pick, uint32_t n)
{
	uint32_t few = UINT32_MAX;
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e], c;
		if (!picked(pick, n, m) && pl__room(v, m, k) && (c = zone_picked(v, pick, n, m)) < few)
			few = c;
	}
	return few;
}

uint32_t pl__bk_tier_follower(const pl__bk *b, uint32_t k, const uint32_t *pick, uint32_t n, uint32_t st_total)
{
	const pl_view *v = b->v;
	/* A majority stream's shard: once every zone it can reach holds one,
	 * the next goes to a zone holding the fewest so far (within the
	 * zones with room), so no zone holds more than the zones make it. */
	uint32_t few = pl__bk_majority(v, k) ? fewest_picked(v, k, pick, n) : UINT32_MAX;
	/* a domain none of pick is in at the top level first, then at the
	 * next; last, any member (a majority shard's: in a zone holding the
	 * fewest) */
	for (uint32_t level = 0; level <= v->zone_levels; level++) {
		cand best;
		int have = 0;
		memset(&best, 0, sizeof best);
		for (uint32_t e = 0; e < v->n_elig; e++) {
			uint32_t m = v->elig[e];
			if (picked(pick, n, m) || pl__zone_new_level(v, pick, n, PL_NONE, m) > level)
				continue;
			if (level == v->zone_levels && few != UINT32_MAX && zone_picked(v, pick, n, m) != few)
				continue;
			consider(b, k, m, RATE_REPLICAS | RATE_NEW_FOLLOWER, st_total, &best, &have);
		}
		if (have && best.tier < 5)
			return best.m;
	}
	return PL_NONE;
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
