/* check_fleet_churn.c - the fleet after faults: honest status words (the
 * issue's two layouts, and every word checked against the ticks that follow
 * it in random lag and churn fleets), and deterministic churn
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

/* A layout of the issue: members and shards by id, each shard's xxh3 ring
 * home checked, lag overrides (member index, since) on some. */
static tl *issue_fleet(const char *const *members, uint32_t nm, const char *const *keys, const uint32_t *homes,
		       uint32_t nk)
{
	tl *t = tl_new();
	for (uint32_t m = 0; m < nm; m++)
		tl_member(t, members[m], NULL);
	for (uint32_t k = 0; k < nk; k++)
		tl_shard(t, keys[k], PL_NONE, PL_NONE, 0);
	pl_view *v = tl_view(t, PL_SCORER_XXH3);
	for (uint32_t k = 0; k < nk; k++)
		ck_assert_msg(pl_view_home(v, k) == (int)homes[k], "%s: ring home %d, want %u", keys[k],
			      pl_view_home(v, k), homes[k]);
	return t;
}

/* Keep moves wanted, and nothing else: moving, not returning-home. a and b;
 * s1, s4, s6 homed at a, s2 at b; b holds s1 and s4 by lag overrides whose
 * lag is over (10 old, return-home age 300). a counts 3 over its share 2,
 * b counts 1: the keep pass has a keep s1 on b, by count. */
START_TEST(keep_moves_wanted_read_moving)
{
	static const char *const members[] = {"a", "b"}, *const keys[] = {"s1", "s2", "s4", "s6"};
	static const uint32_t homes[] = {0, 1, 0, 0};
	tl *t = issue_fleet(members, 2, keys, homes, 4);
	tl_override(t, 0, 1, PL_ORIGIN_LAG, 990);
	tl_override(t, 2, 1, PL_ORIGIN_LAG, 990);
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	cfg.now = 1000;
	cfg.cooldown = 5;
	cfg.return_home_age = 300;
	pl_action a[8];
	pl_plan_info info;
	/* b has nothing to do: a's keep is wanted. */
	ck_assert_int_eq(sim_decide_scored(t, PL_SCORER_XXH3, cfg, 1, a, 8, &info), 0);
	ck_assert_str_eq(pl_status_name(info.status), "moving");
	/* a keeps s1 on b; then only s4 waits to go home (10 old of 300). */
	ck_assert_int_eq(sim_decide_scored(t, PL_SCORER_XXH3, cfg, 0, a, 8, &info), 1);
	ck_assert_uint_eq(a[0].tier, PL_FLEET_PICK_KEEP);
	ck_assert_uint_eq(a[0].shard, 0);
	ck_assert_str_eq(pl_status_name(info.status), "returning-home");
	/* The next tick, s1 kept: both read returning-home until s4 is 300 old,
	 * then a takes it back and both read balanced. */
	t->no = 0;
	tl_override(t, 0, 1, PL_ORIGIN_COUNT, 1000);
	tl_override(t, 2, 1, PL_ORIGIN_LAG, 990);
	cfg.now = 1005;
	for (uint32_t m = 0; m < 2; m++) {
		cfg.last_move = m == 0 ? 1000 : PL_FLEET_NEVER;
		ck_assert_int_eq(sim_decide_scored(t, PL_SCORER_XXH3, cfg, m, a, 8, &info), 0);
		ck_assert_str_eq(pl_status_name(info.status), "returning-home");
	}
	cfg.now = 1290;
	cfg.last_move = 1000;
	ck_assert_int_eq(sim_decide_scored(t, PL_SCORER_XXH3, cfg, 0, a, 8, &info), 1);
	ck_assert_uint_eq(a[0].reason, PL_REASON_RETURN_HOME);
	ck_assert_str_eq(pl_status_name(info.status), "balanced");
	tl_free(t);
}
END_TEST

/* No lag override can ever go home: uneven, not returning-home. a, b, c; s1,
 * s4, s8 homed at a, s2, s5, s7 at b, s3 at c; b holds s1 and a holds s2 by
 * lag overrides. Owned 3/3/1, floor 2, share 3, the spread pass off: a and b
 * own their share, so neither takes its shard back, and count balance has
 * nobody over the share. Nothing will ever move. */
START_TEST(no_return_possible_reads_uneven)
{
	static const char *const members[] = {"a", "b", "c"}, *const keys[] = {"s1", "s4", "s8", "s2", "s5", "s7", "s3"};
	static const uint32_t homes[] = {0, 0, 0, 1, 1, 1, 2};
	tl *t = issue_fleet(members, 3, keys, homes, 7);
	tl_override(t, 0, 1, PL_ORIGIN_LAG, 100);
	tl_override(t, 3, 0, PL_ORIGIN_LAG, 100);
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	cfg.spread = 0;
	pl_action a[8];
	pl_plan_info info;
	for (uint64_t now = 0; now <= 1000; now += 500) { /* too young, and old enough: the same */
		cfg.now = now;
		for (uint32_t m = 0; m < 3; m++) {
			ck_assert_int_eq(sim_decide_scored(t, PL_SCORER_XXH3, cfg, m, a, 8, &info), 0);
			ck_assert_msg(info.status == PL_STATUS_UNEVEN, "now %llu: member %u reads %s",
				      (unsigned long long)now, m, pl_status_name(info.status));
		}
	}
	tl_free(t);
}
END_TEST

/* ---- the words come true ----------------------------------------------------- */

/* What members did in one tick, per member: bits of WD_*. */
enum { WD_MOVE = 1, WD_COUNT = 2, WD_RETURN = 4 };

static uint8_t did_bits(const pl_action *a)
{
	switch (a->reason) {
	case PL_REASON_COUNT:
	case PL_REASON_SPREAD: return WD_MOVE | WD_COUNT; /* keeps too */
	case PL_REASON_RETURN_HOME: return WD_MOVE | WD_RETURN;
	case PL_REASON_LAG: return WD_MOVE;
	default: return 0; /* clean-up drops move nothing */
	}
}

/* Every member's word in the coming tick: the decision sim_tick() will make,
 * on a copy of the tick's view. */
static void words(sim *s, uint32_t *out)
{
	tl *t = s->t;
	pl_view *v = tl_view(t, s->scorer);
	uint32_t *o = malloc((t->nk ? t->nk : 1) * sizeof *o);
	if (t->nk > 0)
		ck_assert_int_eq(pl_fleet_owners(v, o, t->nk, NULL), (int)t->nk);
	free(o);
	void *mem;
	pl_action *buf = malloc((t->nk + 64) * sizeof *buf);
	for (uint32_t i = 0; i < t->nm; i++) {
		pl_view *c = tl_view_clone(t, v, &mem);
		pl_fleet_config cfg = s->cfg;
		cfg.self = i;
		cfg.now = s->now + (s->skew ? s->skew[i] : 0);
		cfg.last_move = s->last[i];
		pl_plan_info info;
		ck_assert_int_ge(pl_fleet_decide(c, &cfg, buf, t->nk + 64, &info, NULL), 0);
		out[i] = info.status;
		free(mem);
	}
	free(buf);
}

/* Random fleets after faults (joins, leaves, drains, lag episodes, clocks
 * that disagree, random configs), then nothing changes: every word every
 * member reads in a later tick must come true in the ticks that follow.
 *  balanced        no member moves a shard in a later tick;
 *  uneven          the same, and the fleet ends out of bounds;
 *  returning-home  lag overrides go home before anything else moves: other
 *                  members' returns that tick, or the next tick that
 *                  moves anything makes returns and no count, spread or
 *                  keep move;
 *  moving          a count, spread or keep move: other members' that tick,
 *                  or in the next tick that moves anything;
 *  lagging         a member lags.
 * Failures print the seed: PL_TEST_SEED=<seed> PL_TEST_ITERS=1 replays it
 * (WORDS_DEBUG=1 prints every tick's overrides, words and actions);
 * PL_TEST_VERBOSE=1 prints how many words of each were checked. */
START_TEST(status_words_come_true)
{
	uint64_t seed0 = tl_seed(0x5747u);
	uint32_t iters = tl_iters(300), seen[32] = {0}, checked = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		uint32_t nm = 2 + tl_below(&rng, 6), nk = 3 + tl_below(&rng, 40), cap = nm + 4;
		uint32_t scorer = tl_below(&rng, 2) ? PL_SCORER_LEGACY_FNV1A : PL_SCORER_XXH3;
		tl *t = sim_fleet(nm, "m", 0, 0, nk, "s", 2);
		for (uint32_t k = 0; k < nk; k++)
			t->k[k].load = tl_below(&rng, 100);
		sim *s = sim_new(t, scorer, seed);
		s->cfg.cooldown = tl_below(&rng, 4);
		s->cfg.return_home_age = tl_below(&rng, 8) == 0 ? PL_FLEET_NEVER : 2 + tl_below(&rng, 8);
		s->cfg.moves_per_decision = 1 + (tl_below(&rng, 4) == 0);
		s->cfg.spread = tl_below(&rng, 4) != 0;
		s->cfg.count_balance = tl_below(&rng, 8) != 0;
		uint64_t *skew = calloc(cap, sizeof *skew), max_skew = tl_below(&rng, 2) ? 0 : 6;
		for (uint32_t i = 0; i < cap; i++)
			skew[i] = tl_below(&rng, (uint32_t)max_skew + 1);
		s->skew = skew;
		/* Faults. */
		uint32_t faults = 5 + tl_below(&rng, 40);
		for (uint32_t tick = 0; tick < faults; tick++) {
			uint32_t ev = tl_below(&rng, 100), m = tl_below(&rng, t->nm);
			if (ev < 3 && t->nm < cap) {
				uint32_t old = t->nm;
				tl_member(t, tl_str(t, "m%u", old), NULL);
				sim_grow(s, old);
			} else if (ev < 6) {
				t->m[m].flags ^= PL_MEMBER_DOWN;
			} else if (ev < 8) {
				t->m[m].flags ^= PL_MEMBER_DRAINING;
			} else if (ev < 30) {
				t->m[m].flags ^= PL_MEMBER_LAGGING;
			}
			uint32_t live = 0;
			for (uint32_t i = 0; i < t->nm; i++)
				live += !(t->m[i].flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING));
			if (live == 0)
				t->m[0].flags = 0;
			sim_tick(s);
		}
		/* Then nothing changes; most often the lag is over. */
		if (tl_below(&rng, 4) != 0)
			for (uint32_t i = 0; i < t->nm; i++)
				t->m[i].flags &= ~PL_MEMBER_LAGGING;
		nm = t->nm;
		uint32_t quiet = sim_quiet(s) + 2 +
				 (uint32_t)(s->cfg.return_home_age == PL_FLEET_NEVER ? 0 : s->cfg.return_home_age + max_skew);
		uint32_t max_ticks = 400, ticks = 0, still = 0;
		uint32_t *said = malloc((size_t)max_ticks * nm * sizeof *said);
		uint8_t *did = calloc((size_t)max_ticks * nm, 1);
		while (still < quiet && ticks < max_ticks) {
			words(s, said + (size_t)ticks * nm);
			if (getenv("WORDS_DEBUG")) {
				dump(s, s->scorer);
				for (uint32_t m = 0; m < nm; m++)
					fprintf(stderr, "tick %u member %u says %s\n", ticks, m, pl_status_name(said[(size_t)ticks * nm + m]));
			}
			still = sim_tick(s) ? 0 : still + 1;
			if (getenv("WORDS_DEBUG"))
				for (uint32_t j = 0; j < s->nacts; j++) {
					char buf[512];
					pl_action_explain(tl_snap(t), &s->acts[j], buf, sizeof buf);
					fprintf(stderr, "  by %u: %s\n", s->actor[j], buf);
				}
			for (uint32_t j = 0; j < s->nacts; j++) {
				uint8_t b = did_bits(&s->acts[j]);
				did[(size_t)ticks * nm + s->actor[j]] |= b;
				if (b)
					still = 0;
			}
			ticks++;
		}
		ck_assert_msg(still >= quiet, "seed %llu: not quiet after %u ticks", (unsigned long long)seed, ticks);
		/* From the end back: what anyone did in the ticks after each. */
		uint8_t later = 0;
		int lags = 0;
		for (uint32_t i = 0; i < nm; i++)
			lags |= (t->m[i].flags & (PL_MEMBER_LAGGING | PL_MEMBER_DOWN | PL_MEMBER_DRAINING)) == PL_MEMBER_LAGGING;
		uint32_t *owned = malloc(nm * 4), *fl = malloc(nm * 4), *sh = malloc(nm * 4);
		sim_spread(s, owned, fl, sh);
		int within = 1;
		for (uint32_t i = 0; i < nm; i++)
			if (!(t->m[i].flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING)) && (owned[i] < fl[i] || owned[i] > sh[i]))
				within = 0;
		/* later: what anyone did after the tick; next: the first later
		 * tick that moved anything, what it did. */
		uint8_t next = 0;
		for (uint32_t tk = ticks; tk-- > 0;) {
			uint8_t all = 0;
			for (uint32_t m = 0; m < nm; m++)
				all |= did[(size_t)tk * nm + m];
			for (uint32_t m = 0; m < nm; m++) {
				uint32_t w = said[(size_t)tk * nm + m];
				/* The others' moves that tick were decided on the
				 * tick's snapshot, m's word on it with m's own actions
				 * applied: either may bear the word out. */
				uint8_t others = 0;
				for (uint32_t o = 0; o < nm; o++)
					if (o != m)
						others |= did[(size_t)tk * nm + o];
				int ok = 1;
				switch (w) {
				case PL_STATUS_BALANCED: ok = !(later & WD_MOVE); break;
				case PL_STATUS_UNEVEN: ok = !(later & WD_MOVE) && !within; break;
				case PL_STATUS_RETURNING_HOME:
					ok = (others & WD_RETURN) || (next & (WD_RETURN | WD_COUNT)) == WD_RETURN;
					break;
				case PL_STATUS_MOVING: ok = ((others | later) & WD_COUNT) != 0; break;
				case PL_STATUS_LAGGING: ok = lags; break;
				default: continue;
				}
				ck_assert_msg(ok, "seed %llu tick %u of %u: member %u read %s; then others did %u that tick, "
						  "the next moving tick %u, later ticks %u; ends within %d",
					      (unsigned long long)seed, tk, ticks, m, pl_status_name(w), others, next, later,
					      within);
				seen[w]++;
				checked++;
			}
			later |= all;
			if (all & WD_MOVE)
				next = all;
		}
		free(owned);
		free(fl);
		free(sh);
		free(said);
		free(did);
		free(skew);
		sim_free(s);
		tl_free(t);
	}
	if (getenv("PL_TEST_VERBOSE"))
		fprintf(stderr, "status_words_come_true: %u words checked: balanced %u, moving %u, returning-home %u, "
				"uneven %u, lagging %u\n",
			checked, seen[PL_STATUS_BALANCED], seen[PL_STATUS_MOVING], seen[PL_STATUS_RETURNING_HOME],
			seen[PL_STATUS_UNEVEN], seen[PL_STATUS_LAGGING]);
	if (iters >= 100) {
		static const uint32_t want[] = {PL_STATUS_BALANCED, PL_STATUS_MOVING, PL_STATUS_RETURNING_HOME,
						PL_STATUS_UNEVEN, PL_STATUS_LAGGING};
		for (uint32_t i = 0; i < 5; i++)
			ck_assert_msg(seen[want[i]] > 0, "seed %llu: %u fleets and no member read %s",
				      (unsigned long long)seed0, iters, pl_status_name(want[i]));
	}
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
	tcase_add_test(c, keep_moves_wanted_read_moving);
	tcase_add_test(c, no_return_possible_reads_uneven);
	tcase_add_test(c, random_churn);
	tcase_add_test(c, status_words_come_true);
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
