/* check_fleet_churn.c - the fleet after faults: honest status words, and
 * deterministic churn
 * simulations (joins, leaves, drains, lag episodes starting and ending) in
 * which every member decides on the same snapshot each tick, with clocks
 * that disagree. Checked every tick: no pile-up past a share (fleetsim.h)
 * and no shard moved A -> B and later B -> A with no change of membership or
 * lag in between; after the last fault: back within [floor, share] in at
 * most the bound of placement/fleet.h, then nothing emitted. Every failure
 * prints the seed; PL_TEST_SEED=<seed> PL_TEST_ITERS=1 replays it. */
#include "fleetsim.h"

/* Owner changes of one shard: the last one, and the change epoch it was in. */
typedef struct hop {
	uint32_t from, to, epoch;
} hop;

typedef struct churn {
	sim *s;
	hop *hops;
	uint32_t *owner;
	uint32_t epoch; /* bumped by every change of membership or lag */
	uint32_t flaps;
	uint64_t seed;
} churn;

static void owners(tl *t, uint32_t scorer, uint32_t *out)
{
	pl_view *v = tl_view(t, scorer);
	ck_assert_int_eq(pl_fleet_owners(v, out, t->nk, NULL), (int)t->nk);
}

/* One tick, and the A -> B -> A check on its owner changes. A tick in which
 * a member lags counts as a change: the rule holds once no member lags. */
static uint32_t churn_tick(churn *c)
{
	tl *t = c->s->t;
	for (uint32_t i = 0; i < t->nm; i++)
		if (t->m[i].flags & PL_MEMBER_LAGGING) {
			c->epoch++;
			break;
		}
	uint32_t *now = malloc(t->nk * 4);
	/* Owners changed by the change itself (a member left, joined, drained)
	 * are no move of the policy's. */
	owners(t, c->s->scorer, now);
	for (uint32_t k = 0; k < t->nk; k++)
		if (now[k] != c->owner[k]) {
			c->owner[k] = now[k];
			c->hops[k].epoch = UINT32_MAX;
		}
	uint32_t n = sim_tick(c->s);
	if (getenv("CHURN_DEBUG"))
		for (uint32_t j = 0; j < c->s->nacts; j++) {
			char buf[512];
			pl_action_explain(tl_snap(t), &c->s->acts[j], buf, sizeof buf);
			fprintf(stderr, "%llu tick %u epoch %u by %u: %s\n", (unsigned long long)c->seed, c->s->ticks, c->epoch, c->s->actor[j], buf);
		}
	owners(t, c->s->scorer, now);
	for (uint32_t k = 0; k < t->nk; k++) {
		if (now[k] == c->owner[k])
			continue;
		hop *h = &c->hops[k];
		if (h->epoch == c->epoch && h->from == now[k] && h->to == c->owner[k]) {
			c->flaps++;
			ck_assert_msg(0, "seed %llu tick %u: shard %u moved %u -> %u -> %u with no change in between",
				      (unsigned long long)c->seed, c->s->ticks, k, now[k], c->owner[k], now[k]);
		}
		h->from = c->owner[k];
		h->to = now[k];
		h->epoch = c->epoch;
		c->owner[k] = now[k];
	}
	free(now);
	return n;
}

static void set_flags(churn *c, uint32_t m, uint32_t flags)
{
	if (c->s->t->m[m].flags != flags) {
		c->s->t->m[m].flags = flags;
		c->epoch++;
	}
}

/* The bound of placement/fleet.h for the fleet as it is: E + D over the
 * counts with every lag override after the lag counted at its ring home,
 * plus those overrides. */
static uint64_t fleet_bound(tl *t, uint32_t scorer)
{
	pl_view *v = tl_view(t, scorer);
	uint32_t nm = t->nm, *o = malloc(t->nk * 4);
	int64_t *eff = calloc(nm, sizeof *eff);
	ck_assert_int_eq(pl_fleet_owners(v, o, t->nk, NULL), (int)t->nk);
	uint64_t lagged = 0, e = 0, d = 0;
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state st;
		pl_view_shard_state(v, k, &st);
		uint32_t home = (uint32_t)pl_view_home(v, k);
		eff[o[k]]++;
		if (st.override_member == o[k] && st.override_origin == PL_ORIGIN_LAG && o[k] != home) {
			eff[o[k]]--;
			eff[home]++;
			lagged++;
		}
	}
	for (uint32_t m = 0; m < nm; m++) {
		uint32_t fl, sh;
		pl__bounds(v, t->nk, m, &fl, &sh);
		if (!pl__eligible(v, m))
			continue;
		e += eff[m] > sh ? (uint64_t)(eff[m] - sh) : 0;
		d += eff[m] < fl ? (uint64_t)(fl - eff[m]) : 0;
	}
	free(o);
	free(eff);
	return e + d + lagged;
}

/* With CHURN_DEBUG set: the overrides and every member's word. */
static void dump(sim *s, uint32_t scorer)
{
	if (!getenv("CHURN_DEBUG"))
		return;
	tl *t = s->t;
	pl_view *v = tl_view(t, scorer);
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state st;
		pl_view_shard_state(v, k, &st);
		if (st.override_member != PL_NONE)
			fprintf(stderr, "shard %u home %d override %u origin %u since %llu\n", k, pl_view_home(v, k),
				st.override_member, st.override_origin, (unsigned long long)st.override_since);
	}
	uint32_t *owned = malloc(t->nm * 4), *fl = malloc(t->nm * 4), *sh = malloc(t->nm * 4);
	sim_spread(s, owned, fl, sh);
	for (uint32_t m = 0; m < t->nm; m++) {
		pl_fleet_config cfg = s->cfg;
		cfg.now = s->now + (s->skew ? s->skew[m] : 0);
		cfg.last_move = s->last[m];
		pl_plan_info info;
		pl_action a[4];
		int n = sim_decide_scored(t, scorer, cfg, m, a, 4, &info);
		fprintf(stderr, "member %u flags %u owns %u [%u, %u]: %d actions, %s\n", m, t->m[m].flags, owned[m],
			fl[m], sh[m], n, pl_status_name(info.status));
	}
	free(owned);
	free(fl);
	free(sh);
}

static void run_churn(uint64_t seed, uint32_t members, uint32_t shards, uint32_t fault_ticks, uint32_t scorer)
{
	uint64_t rng = seed;
	tl *t = sim_fleet(members, "streams-", 1, 0, shards, "s", 3);
	for (uint32_t k = 0; k < t->nk; k++)
		t->k[k].load = tl_below(&rng, 100);
	uint32_t cap = members + 16;
	uint64_t *skew = calloc(cap, sizeof *skew);
	sim *s = sim_new(t, scorer, seed);
	s->cfg.cooldown = tl_below(&rng, 3);
	s->cfg.return_home_age = 3 + tl_below(&rng, 6);
	s->cfg.moves_per_decision = 1 + (tl_below(&rng, 4) == 0);
	/* Clocks that disagree by up to three return-home ages. */
	uint64_t max_skew = 3 * s->cfg.return_home_age;
	for (uint32_t i = 0; i < cap; i++)
		skew[i] = tl_below(&rng, (uint32_t)max_skew + 1);
	s->skew = skew;
	churn c = {s, calloc(shards, sizeof(hop)), malloc(shards * 4), 0, 0, seed};
	for (uint32_t k = 0; k < shards; k++)
		c.hops[k].epoch = UINT32_MAX;
	owners(t, scorer, c.owner);
	for (uint32_t tick = 0; tick < fault_ticks; tick++) {
		uint32_t ev = tl_below(&rng, 100), m = tl_below(&rng, t->nm);
		if (ev < 3 && t->nm < cap) { /* a join */
			uint32_t old = t->nm;
			tl_member(t, tl_str(t, "streams-%u", old + 1), NULL);
			sim_grow(s, old);
			c.epoch++;
		} else if (ev < 6) { /* a leave (listed down while the document names it) or a comeback */
			set_flags(&c, m, t->m[m].flags & PL_MEMBER_DOWN ? 0 : PL_MEMBER_DOWN);
		} else if (ev < 8) {
			set_flags(&c, m, t->m[m].flags & PL_MEMBER_DRAINING ? 0 : PL_MEMBER_DRAINING);
		} else if (ev < 20) { /* a lag episode starts or ends */
			set_flags(&c, m, t->m[m].flags ^ PL_MEMBER_LAGGING);
		}
		uint32_t live = 0;
		for (uint32_t i = 0; i < t->nm; i++)
			live += !(t->m[i].flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING));
		if (live == 0)
			set_flags(&c, 0, 0);
		churn_tick(&c);
	}
	/* The last fault: every lag episode ends; membership stays. */
	for (uint32_t i = 0; i < t->nm; i++)
		set_flags(&c, i, t->m[i].flags & ~PL_MEMBER_LAGGING);
	uint64_t bound = fleet_bound(t, scorer);
	uint32_t before = s->moves + s->returns + s->lag_moves, still = 0, ticks = 0;
	uint32_t quiet = sim_quiet(s) + (uint32_t)(s->cfg.return_home_age + max_skew);
	uint32_t limit = (uint32_t)bound * (sim_quiet(s) + 1) + quiet + (uint32_t)s->cfg.return_home_age + 64;
	while (still < quiet && ticks < limit) {
		still = churn_tick(&c) ? 0 : still + 1;
		ticks++;
	}
	uint32_t moved = s->moves + s->returns + s->lag_moves - before;
	uint32_t nm = t->nm, *owned = malloc(nm * 4), *fl = malloc(nm * 4), *sh = malloc(nm * 4);
	sim_spread(s, owned, fl, sh);
	dump(s, scorer);
	for (uint32_t i = 0; i < nm; i++)
		if (!(t->m[i].flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING)))
			ck_assert_msg(owned[i] >= fl[i] && owned[i] <= sh[i],
				      "seed %llu: after the last fault member %u owns %u, bounds [%u, %u] (%u moves, %u ticks)",
				      (unsigned long long)seed, i, owned[i], fl[i], sh[i], moved, ticks);
	ck_assert_msg(still >= quiet, "seed %llu: still moving %u ticks after the last fault", (unsigned long long)seed,
		      ticks);
	ck_assert_msg(moved <= bound, "seed %llu: %u moves after the last fault, bound %llu", (unsigned long long)seed,
		      moved, (unsigned long long)bound);
	/* Honest words: every member reads balanced now. */
	for (uint32_t i = 0; i < nm; i++) {
		pl_fleet_config cfg = s->cfg;
		cfg.now = s->now + skew[i];
		pl_plan_info info;
		pl_action a[4];
		ck_assert_int_eq(sim_decide_scored(t, scorer, cfg, i, a, 4, &info), 0);
		if (!(t->m[i].flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING)))
			ck_assert_msg(info.status == PL_STATUS_BALANCED, "seed %llu: member %u reads %s",
				      (unsigned long long)seed, i, pl_status_name(info.status));
	}
	free(owned);
	free(fl);
	free(sh);
	free(c.hops);
	free(c.owner);
	free(skew);
	sim_free(s);
	tl_free(t);
}

/* The traced case of the seed's rules: 7 members, 23 shards, the legacy
 * scorer, cooldown 1, return-home age 7, one long lag episode. */
START_TEST(lag_episode_seven_members)
{
	tl *t = sim_fleet(7, "streams-", 1, 0, 23, "s", 2);
	sim *s = sim_new(t, PL_SCORER_LEGACY_FNV1A, 7);
	s->cfg.cooldown = 1;
	s->cfg.return_home_age = 7;
	churn c = {s, calloc(23, sizeof(hop)), malloc(23 * 4), 0, 0, 7};
	for (uint32_t k = 0; k < 23; k++) {
		c.hops[k].epoch = UINT32_MAX;
		t->k[k].load = k * 7 % 23;
	}
	owners(t, PL_SCORER_LEGACY_FNV1A, c.owner);
	sim_run(s, sim_quiet(s), 1000);
	owners(t, PL_SCORER_LEGACY_FNV1A, c.owner);
	for (uint32_t m = 0; m < 7; m += 2) {
		set_flags(&c, m, PL_MEMBER_LAGGING);
		for (int i = 0; i < 6; i++)
			churn_tick(&c);
		set_flags(&c, m, 0);
	}
	uint64_t bound = fleet_bound(t, PL_SCORER_LEGACY_FNV1A);
	uint32_t before = s->moves + s->returns, still = 0, ticks = 0;
	while (still < 12 && ticks < 400) {
		still = churn_tick(&c) ? 0 : still + 1;
		ticks++;
	}
	uint32_t owned[7], fl[7], sh[7];
	sim_spread(s, owned, fl, sh);
	dump(s, PL_SCORER_LEGACY_FNV1A);
	for (uint32_t m = 0; m < 7; m++)
		ck_assert_msg(owned[m] >= fl[m] && owned[m] <= sh[m], "member %u owns %u, bounds [%u, %u]", m, owned[m],
			      fl[m], sh[m]);
	ck_assert_uint_le(s->moves + s->returns - before, bound);
	free(c.hops);
	free(c.owner);
	sim_free(s);
	tl_free(t);
}
END_TEST

/* The first shard (index order) homed at h. */
static uint32_t homed_at(tl *t, uint32_t h)
{
	pl_view *v = tl_view(t, 0);
	for (uint32_t k = 0; k < t->nk; k++)
		if (pl_view_home(v, k) == (int)h)
			return k;
	ck_abort_msg("no shard homed at %u", h);
	return PL_NONE;
}

/* balanced only when every member is within [floor, share]; otherwise the
 * word names what holds the fleet. */
START_TEST(status_words_are_honest)
{
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	cfg.cooldown = 0;
	pl_action a[8];
	pl_plan_info info;
	/* 38 shards over 4: share 10, floor 9. */
	tl *t = sim_fleet(4, "m", 0, 0, 38, "k", 2);
	uint32_t even[4] = {9, 10, 10, 9};
	sim_force(t, 0, even);
	for (uint32_t m = 0; m < 4; m++) {
		ck_assert_int_eq(sim_decide(t, cfg, m, a, 8, &info), 0);
		ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	}
	/* A member lags and another is out of bounds: lagging. */
	tl_free(t);
	t = sim_fleet(4, "m", 0, 0, 38, "k", 2);
	uint32_t skew[4] = {12, 10, 8, 8};
	sim_force(t, 0, skew);
	t->m[2].flags = PL_MEMBER_LAGGING;
	ck_assert_int_eq(sim_decide(t, cfg, 3, a, 8, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_LAGGING);
	/* Moves under way elsewhere: moving. */
	t->m[2].flags = 0;
	ck_assert_int_eq(sim_decide(t, cfg, 1, a, 8, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVING);
	/* The seed's pass leaves members below the floor: uneven, not balanced. */
	cfg.spread = 0;
	tl_free(t);
	t = sim_fleet(4, "m", 0, 0, 38, "k", 2);
	uint32_t low[4] = {10, 10, 10, 8};
	sim_force(t, 0, low);
	ck_assert_int_eq(sim_decide(t, cfg, 0, a, 8, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_UNEVEN);
	cfg.spread = 1;
	/* A lag override after the lag, too young to go home: returning-home. */
	tl_free(t);
	t = sim_fleet(4, "m", 0, 0, 38, "k", 2);
	uint32_t k = homed_at(t, 3);
	tl_override(t, k, 0, PL_ORIGIN_LAG, 1000);
	uint32_t held[4] = {10, 10, 10, 8};
	sim_force(t, 0, held);
	cfg.now = 1001;
	cfg.return_home_age = 300;
	for (uint32_t m = 0; m < 4; m++) {
		ck_assert_int_eq(sim_decide(t, cfg, m, a, 8, &info), 0);
		ck_assert_uint_eq(info.status, PL_STATUS_RETURNING_HOME);
	}
	cfg.now = 1300; /* old enough: the home takes it back */
	ck_assert_int_eq(sim_decide(t, cfg, 3, a, 8, &info), 1);
	ck_assert_uint_eq(a[0].reason, PL_REASON_RETURN_HOME);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	for (uint32_t s = 16; s <= 19; s++)
		ck_assert_str_ne(pl_status_name(s), "unknown");
	tl_free(t);
}
END_TEST

START_TEST(random_churn)
{
	uint64_t seed = tl_seed(0xc4a2f1u);
	uint32_t iters = tl_iters(40);
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t rng = seed + it, rs = rng;
		uint32_t nm = 3 + tl_below(&rng, 8), nk = 8 + tl_below(&rng, 120);
		run_churn(rs, nm, nk, 60 + tl_below(&rng, 60), tl_below(&rng, 2) ? PL_SCORER_LEGACY_FNV1A : 0);
	}
}
END_TEST

/* One long run: 10,000 ticks of faults on 12 members and 300 shards. */
START_TEST(long_churn)
{
	run_churn(tl_seed(0x10c4a2f1u), 12, 300, 10000, PL_SCORER_LEGACY_FNV1A);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fleet_churn");
	TCase *c = tcase_create("churn");
	tcase_set_timeout(c, 300);
	tcase_add_test(c, lag_episode_seven_members);
	tcase_add_test(c, status_words_are_honest);
	tcase_add_test(c, random_churn);
	suite_add_tcase(s, c);
	c = tcase_create("long");
	tcase_set_timeout(c, 300);
	tcase_add_test(c, long_churn);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
