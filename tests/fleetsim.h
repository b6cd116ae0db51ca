/*
 * fleetsim.h - a fleet simulated tick by tick for the fleet suites: every
 * member decides for itself on its own copy of the tick's view
 * (pl_view_copy()), with its own cooldown; the union of their actions is
 * applied and becomes the next tick's override document.
 *
 * Each tick checks what must hold of independent deciders: every action
 * applies, no shard is acted on twice, and no member that received count,
 * spread or return-home moves ends past its share.
 */
#ifndef PL_FLEETSIM_H
#define PL_FLEETSIM_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/view_build.h"
#include "testutil.h"

typedef struct sim {
	tl *t;
	uint32_t scorer;
	pl_fleet_config cfg; /* shared settings; self, now and last_move per member */
	uint64_t now, tick_len;
	uint64_t *last;      /* per member */
	uint64_t seed;       /* printed in failures */
	/* totals */
	uint32_t ticks;
	uint32_t moves;      /* count and spread moves */
	uint32_t lag_moves, returns, cleanups;
	uint32_t last_actions; /* actions in the last tick */
	pl_action *acts;     /* the last tick's actions */
	uint32_t *actor;     /* who made each */
	uint32_t nacts, cap_acts;
	void *copy;
	size_t copy_size;
	int verbose;
	const uint64_t *skew; /* optional: added to member i's clock */
} sim;

static inline sim *sim_new(tl *t, uint32_t scorer, uint64_t seed)
{
	sim *s = calloc(1, sizeof *s);
	ck_assert_ptr_nonnull(s);
	s->t = t;
	s->scorer = scorer ? scorer : PL_SCORER_XXH3;
	pl_fleet_config_init(&s->cfg);
	s->cfg.cooldown = 0;
	s->now = 1000;
	s->tick_len = 1;
	s->seed = seed;
	s->last = calloc(t->nm ? t->nm : 1, sizeof *s->last);
	for (uint32_t i = 0; i < t->nm; i++)
		s->last[i] = PL_FLEET_NEVER;
	return s;
}

static inline void sim_free(sim *s)
{
	free(s->last);
	free(s->acts);
	free(s->actor);
	free(s->copy);
	free(s);
}

/* One decision for `self` on a fresh view of t (default scorer), outside
 * any simulation. */
static inline int sim_decide(tl *t, pl_fleet_config cfg, uint32_t self, pl_action *out, uint32_t cap,
			     pl_plan_info *info)
{
	pl_view *v = tl_view(t, 0);
	cfg.self = self;
	return pl_fleet_decide(v, &cfg, out, cap, info, NULL);
}

/* The same with a scorer. */
static inline int sim_decide_scored(tl *t, uint32_t scorer, pl_fleet_config cfg, uint32_t self, pl_action *out,
				    uint32_t cap, pl_plan_info *info)
{
	pl_view *v = tl_view(t, scorer);
	cfg.self = self;
	return pl_fleet_decide(v, &cfg, out, cap, info, NULL);
}

/* After members were added to s->t: they never moved. */
static inline void sim_grow(sim *s, uint32_t old_nm)
{
	s->last = realloc(s->last, s->t->nm * sizeof *s->last);
	ck_assert_ptr_nonnull(s->last);
	for (uint32_t i = old_nm; i < s->t->nm; i++)
		s->last[i] = PL_FLEET_NEVER;
}

/* The owned counts and bounds of a view (homes filled). */
static inline void sim_counts(pl_view *v, uint32_t *owned, uint32_t *floor, uint32_t *share)
{
	uint32_t *o = malloc((v->nk ? v->nk : 1) * sizeof *o);
	ck_assert_int_eq(pl_fleet_owners(v, o, v->nk, NULL), (int)v->nk);
	free(o);
	for (uint32_t m = 0; m < v->nm; m++) {
		owned[m] = v->m_owned[m];
		pl__bounds(v, v->nk, m, &floor[m], &share[m]);
	}
}

/* E and D of a layout: excess over the share, deficit under the floor. */
static inline void sim_bound(sim *s, uint64_t *excess, uint64_t *deficit)
{
	pl_view *v = tl_view(s->t, s->scorer);
	uint32_t nm = v->nm ? v->nm : 1;
	uint32_t *owned = malloc(nm * 4), *fl = malloc(nm * 4), *sh = malloc(nm * 4);
	sim_counts(v, owned, fl, sh);
	*excess = *deficit = 0;
	for (uint32_t m = 0; m < v->nm; m++) {
		if (!pl__eligible(v, m))
			continue;
		*excess += owned[m] > sh[m] ? owned[m] - sh[m] : 0;
		*deficit += owned[m] < fl[m] ? fl[m] - owned[m] : 0;
	}
	free(owned);
	free(fl);
	free(sh);
}

/* Owned counts now, into caller arrays of t->nm; returns max - min over
 * eligible members. */
static inline uint32_t sim_spread(sim *s, uint32_t *owned, uint32_t *fl, uint32_t *sh)
{
	pl_view *v = tl_view(s->t, s->scorer);
	sim_counts(v, owned, fl, sh);
	uint32_t lo = UINT32_MAX, hi = 0;
	for (uint32_t m = 0; m < v->nm; m++) {
		if (!pl__eligible(v, m))
			continue;
		lo = owned[m] < lo ? owned[m] : lo;
		hi = owned[m] > hi ? owned[m] : hi;
	}
	return hi >= lo ? hi - lo : 0;
}

static inline void sim_push(sim *s, const pl_action *a, uint32_t who)
{
	if (s->nacts == s->cap_acts) {
		s->cap_acts = s->cap_acts ? s->cap_acts * 2 : 256;
		s->acts = realloc(s->acts, s->cap_acts * sizeof *s->acts);
		s->actor = realloc(s->actor, s->cap_acts * sizeof *s->actor);
		ck_assert_ptr_nonnull(s->acts);
		ck_assert_ptr_nonnull(s->actor);
	}
	s->acts[s->nacts] = *a;
	s->actor[s->nacts++] = who;
}

/* One tick; returns how many actions the fleet emitted. */
static inline uint32_t sim_tick(sim *s)
{
	tl *t = s->t;
	pl_view *v = tl_view(t, s->scorer);
	uint32_t nm = t->nm ? t->nm : 1, nk = t->nk ? t->nk : 1;
	uint32_t *owned = malloc(nm * 4), *fl = malloc(nm * 4), *sh = malloc(nm * 4), *got = calloc(nm, 4);
	uint32_t *hit = calloc(nk, sizeof *hit); /* 1 + the action on it */
	sim_counts(v, owned, fl, sh);
	size_t size = pl_view_size(tl_snap(t));
	if (size > s->copy_size) {
		free(s->copy);
		s->copy = malloc(size);
		s->copy_size = size;
	}
	s->nacts = 0;
	uint32_t bcap = t->nk + 64;
	pl_action *buf = malloc(bcap * sizeof *buf);
	for (uint32_t i = 0; i < t->nm; i++) {
		pl_view *c;
		ck_assert_int_eq(pl_view_copy(&c, s->copy, s->copy_size, v), 0);
		pl_fleet_config cfg = s->cfg;
		cfg.self = i;
		cfg.now = s->now + (s->skew ? s->skew[i] : 0);
		cfg.last_move = s->last[i];
		pl_plan_info info;
		int n = pl_fleet_decide(c, &cfg, buf, bcap, &info, NULL);
		ck_assert_msg(n >= 0, "seed %llu: decide: %s", (unsigned long long)s->seed, pl_error_name(n));
		ck_assert_msg(info.status != PL_STATUS_FULL, "seed %llu: shards + 64 actions were not enough",
			      (unsigned long long)s->seed);
		int moved = 0;
		for (int j = 0; j < n; j++) {
			sim_push(s, &buf[j], i);
			if (buf[j].reason != PL_REASON_VOID_OVERRIDE && buf[j].reason != PL_REASON_REDUNDANT_OVERRIDE)
				moved = 1;
		}
		if (moved)
			s->last[i] = cfg.now;
	}
	for (uint32_t j = 0; j < s->nacts; j++) {
		const pl_action *a = &s->acts[j];
		ck_assert_msg(!hit[a->shard] || s->actor[hit[a->shard] - 1] == s->actor[j], "seed %llu tick %u: shard %u acted on by two members: %s by %u, then %s by %u",
			      (unsigned long long)s->seed, s->ticks, a->shard,
			      hit[a->shard] ? pl_reason_name(s->acts[hit[a->shard] - 1].reason) : "", 
			      hit[a->shard] ? s->actor[hit[a->shard] - 1] : 0, pl_reason_name(a->reason), s->actor[j]);
		hit[a->shard] = j + 1;
		ck_assert_msg(pl_view_apply(v, a) == 0, "seed %llu tick %u: an action does not apply",
			      (unsigned long long)s->seed, s->ticks);
		switch (a->reason) {
		case PL_REASON_COUNT:
		case PL_REASON_SPREAD:
			s->moves++;
			got[a->to] += a->from != a->to; /* a holder keeping its shard changes no owner */
			break;
		case PL_REASON_RETURN_HOME:
			s->returns++;
			got[a->to]++;
			break;
		case PL_REASON_LAG:
			s->lag_moves++;
			break;
		default:
			s->cleanups++;
			break;
		}
	}
	for (uint32_t m = 0; m < t->nm; m++)
		ck_assert_msg(got[m] == 0 || owned[m] + got[m] <= sh[m],
			      "seed %llu tick %u: member %u pushed past its share: %u + %u > %u",
			      (unsigned long long)s->seed, s->ticks, m, owned[m], got[m], sh[m]);
	/* The next document: the view's overrides. */
	t->no = 0;
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state st;
		pl_view_shard_state(v, k, &st);
		if (st.override_member != PL_NONE)
			tl_override(t, k, st.override_member, st.override_origin, st.override_since);
	}
	free(owned);
	free(fl);
	free(sh);
	free(got);
	free(hit);
	free(buf);
	s->now += s->tick_len;
	s->ticks++;
	s->last_actions = s->nacts;
	return s->nacts;
}

/* Tick until `quiet` ticks in a row emit nothing, at most max_ticks; returns
 * the ticks run. */
static inline uint32_t sim_run(sim *s, uint32_t quiet, uint32_t max_ticks)
{
	uint32_t still = 0, n = 0;
	while (still < quiet && n < max_ticks) {
		still = sim_tick(s) ? 0 : still + 1;
		n++;
	}
	ck_assert_msg(still >= quiet, "seed %llu: the fleet did not go quiet in %u ticks",
		      (unsigned long long)s->seed, max_ticks);
	return n;
}

/* Ticks the cooldown may keep a member waiting, plus one. */
static inline uint32_t sim_quiet(const sim *s)
{
	return (uint32_t)(s->cfg.cooldown / (s->tick_len ? s->tick_len : 1)) + 2;
}

/* A fleet of `members` named <mp><number from first, mw digits> and
 * `shards` keys <kp><number, kw digits>, or two hex digits when kp is NULL
 * (the seed's "00" .. "3f"). */
static inline tl *sim_fleet(uint32_t members, const char *mp, uint32_t first, int mw, uint32_t shards,
			    const char *kp, int kw)
{
	tl *t = tl_new();
	for (uint32_t i = 0; i < members; i++)
		tl_member(t, tl_str(t, "%s%0*u", mp, mw, i + first), NULL);
	for (uint32_t k = 0; k < shards; k++)
		tl_shard(t, kp ? tl_str(t, "%s%0*u", kp, kw, k) : tl_str(t, "%02x", k), PL_NONE, PL_NONE, 0);
	return t;
}

/* Give the fleet count overrides so member m owns want[m] (sum = shards):
 * surplus shards of each member without an override, in key order, go to
 * members short of their count, in index order. */
static inline void sim_force(tl *t, uint32_t scorer, const uint32_t *want)
{
	pl_view *v = tl_view(t, scorer);
	uint8_t *has = calloc(t->nk ? t->nk : 1, 1);
	for (uint32_t o = 0; o < t->no; o++)
		has[t->o[o].shard] = 1;
	uint32_t *o = malloc(t->nk * sizeof *o), *have = calloc(t->nm, 4);
	ck_assert_int_eq(pl_fleet_owners(v, o, t->nk, NULL), (int)t->nk);
	for (uint32_t k = 0; k < t->nk; k++)
		have[o[k]]++;
	uint32_t to = 0;
	for (uint32_t r = 0; r < t->nk; r++) {
		uint32_t k = (uint32_t)pl_view_at(v, PL_ELEM_SHARD, r), m = o[k];
		if (have[m] <= want[m] || has[k])
			continue;
		while (to < t->nm && have[to] >= want[to])
			to++;
		ck_assert_uint_lt(to, t->nm);
		have[m]--;
		have[to]++;
		tl_override(t, k, to, PL_ORIGIN_COUNT, 1);
	}
	for (uint32_t m = 0; m < t->nm; m++)
		ck_assert_uint_eq(have[m], want[m]);
	free(o);
	free(have);
	free(has);
}

#endif
