/* check_explain_fleet.c - the fleet policy's sentences (explain_fleet.c):
 * count and spread moves with why that shard, their drops back home, a keep
 * after a lag, lag moves, returns and the clean-up drops; cut to fit any
 * buffer; and every action a fleet of deciders emits names its shard and
 * members. */
#include <stdlib.h>

#include "explain_util.h"
#include "fleetsim.h"

/* A count move of orders/07 from b2 (owning 5, share 4) to b0 (owning 2). */
static pl_action counted(uint32_t kind, uint32_t reason, uint32_t tier)
{
	pl_action a = eu_act(kind, reason, 2, 0);
	a.origin = PL_ORIGIN_COUNT;
	a.scope = PL_SCOPE_OWNED;
	a.tier = tier;
	a.from_count = 5;
	a.to_count = 2;
	a.share = 4;
	a.floor = 3;
	a.ceiling = 4;
	a.total = 13;
	return a;
}

START_TEST(a_count_move_says_why_that_shard_and_both_counts)
{
	tl *t = eu_names();
	pl_action a = counted(PL_ACTION_SET_OVERRIDE, PL_REASON_COUNT, PL_FLEET_PICK_HOME);
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 to b0 (its ring home): b2 owns 5, over the share 4; b0 owns 2, "
					"below its share 4");
	a.tier = PL_FLEET_PICK_NEXT;
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 to b0 (its next rendezvous choice): b2 owns 5, over the share "
					"4; b0 owns 2, below its share 4");
	a.tier = PL_FLEET_PICK_OVERRIDE;
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 to b0 (moving a count override on): b2 owns 5, over the share "
					"4; b0 owns 2, below its share 4");
	a.tier = PL_FLEET_PICK_ANY;
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 to b0: b2 owns 5, over the share 4; b0 owns 2, below its "
					"share 4");
	/* The target's own share (ceiling), not the giver's, closes it. */
	a.ceiling = 3;
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 to b0: b2 owns 5, over the share 4; b0 owns 2, below its "
					"share 3");
	tl_free(t);
}
END_TEST

START_TEST(a_spread_move_says_nobody_is_over_and_names_the_floor)
{
	tl *t = eu_names();
	pl_action a = counted(PL_ACTION_SET_OVERRIDE, PL_REASON_SPREAD, PL_FLEET_PICK_NEXT);
	a.from_count = 4;
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 to b0 (its next rendezvous choice): nobody is over the share; "
					"b2 owns 4, the share 4; b0 owns 2, below the floor 3");
	tl_free(t);
}
END_TEST

START_TEST(a_move_back_home_drops_the_count_override)
{
	tl *t = eu_names();
	pl_action a = counted(PL_ACTION_DROP_OVERRIDE, PL_REASON_COUNT, PL_FLEET_PICK_HOME);
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 back to its ring home b0: b2 owns 5, over the share 4; b0 owns "
					"2, below its share 4; its count override is dropped");
	a.reason = PL_REASON_SPREAD;
	a.from_count = 4;
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 back to its ring home b0: nobody is over the share; b2 owns 4, "
					"the share 4; b0 owns 2, below the floor 3; its count override is dropped");
	tl_free(t);
}
END_TEST

START_TEST(a_keep_says_no_owner_changes_and_which_limit)
{
	tl *t = eu_names();
	pl_action a = counted(PL_ACTION_SET_OVERRIDE, PL_REASON_COUNT, PL_FLEET_PICK_KEEP);
	a.from = 2;
	a.to = 0;
	ck_assert_str_eq(eu_say(t, &a), "keep orders/07 on b0 by count, the lag over: its ring home counts 5 with the shards "
					"held for it, over its share 4; b0 counts 2 without them, below its share 4");
	a.reason = PL_REASON_SPREAD;
	a.share = 3; /* the home's limit: its floor, for a spread keep */
	a.floor = 3;
	ck_assert_str_eq(eu_say(t, &a), "keep orders/07 on b0 by count, the lag over: its ring home counts 5 with the shards "
					"held for it, over its floor 3; b0 counts 2 without them, below its floor 3");
	/* A keep's sentence does not depend on whether it is written as a set
	 * or a drop. */
	a.kind = PL_ACTION_DROP_OVERRIDE;
	ck_assert_str_eq(eu_say(t, &a), "keep orders/07 on b0 by count, the lag over: its ring home counts 5 with the shards "
					"held for it, over its floor 3; b0 counts 2 without them, below its floor 3");
	tl_free(t);
}
END_TEST

START_TEST(a_lag_move_names_the_load_and_the_least_loaded)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_SET_OVERRIDE, PL_REASON_LAG, 2, 1);
	a.origin = PL_ORIGIN_LAG;
	a.load = 900;
	a.to_count = 3;
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 (lagging) to b1: its busiest shard, load 900; b1 is the least "
					"loaded member that is not lagging, owns 3");
	a.kind = PL_ACTION_DROP_OVERRIDE;
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 (lagging) to its ring home b1: its busiest shard, load 900; b1 "
					"is the least loaded member that is not lagging, owns 3");
	tl_free(t);
}
END_TEST

START_TEST(a_return_home_names_the_age_and_the_share)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_DROP_OVERRIDE, PL_REASON_RETURN_HOME, 2, 0);
	a.at = 400;
	a.to_count = 3;
	a.share = 4;
	ck_assert_str_eq(eu_say(t, &a), "return orders/07 home to b0: its lag override on b2 is 400 old; b0 owns 3, within its "
					"share 4 after taking it back");
	tl_free(t);
}
END_TEST

START_TEST(a_clean_up_drop_says_why_the_override_is_void_or_redundant)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_DROP_OVERRIDE, PL_REASON_VOID_OVERRIDE, 2, 0);
	t->m[2].flags = PL_MEMBER_DOWN;
	ck_assert_str_eq(eu_say(t, &a), "drop the override of orders/07 to b2: b2 is down; orders/07 stays with its ring home b0");
	t->m[2].flags = PL_MEMBER_DRAINING;
	ck_assert_str_eq(eu_say(t, &a),
			 "drop the override of orders/07 to b2: b2 is draining; orders/07 stays with its ring home b0");
	t->m[2].flags = PL_MEMBER_DOWN | PL_MEMBER_DRAINING; /* down wins */
	ck_assert_str_eq(eu_say(t, &a), "drop the override of orders/07 to b2: b2 is down; orders/07 stays with its ring home b0");
	a = eu_act(PL_ACTION_DROP_OVERRIDE, PL_REASON_REDUNDANT_OVERRIDE, 0, 0);
	ck_assert_str_eq(eu_say(t, &a), "drop the override of orders/07 to b0: it names the shard's ring home");
	tl_free(t);
}
END_TEST

/* ---- the policy's own actions ------------------------------------------------ */

/* Random fleets with skew, lag overrides and a void one: every member
 * decides; each action reads as its own sentence naming shard and members,
 * and the count, clean-up and return kinds all show up. */
START_TEST(every_action_a_fleet_emits_reads_as_its_own_sentence)
{
	uint64_t seed0 = tl_seed(0xf1ee7u);
	uint32_t iters = tl_iters(60);
	uint8_t seen[EU_REASONS] = {0};
	pl_action out[64];
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		uint32_t nm = 3 + tl_below(&rng, 5), nk = 8 + tl_below(&rng, 40);
		tl *t = tl_new();
		for (uint32_t m = 0; m < nm; m++)
			tl_member(t, tl_str(t, "m%02u", m), NULL);
		for (uint32_t k = 0; k < nk; k++)
			tl_shard(t, tl_str(t, "k%03u", k), PL_NONE, PL_NONE, 0);
		/* A favourite holds a part of the shards by count override, some
		 * members hold some by lag override, and one override is void. */
		uint32_t fav = tl_below(&rng, nm);
		for (uint32_t k = 0; k < nk; k++) {
			uint32_t r = tl_below(&rng, 10);
			if (r < 4)
				tl_override(t, k, fav, PL_ORIGIN_COUNT, 10);
			else if (r < 5)
				tl_override(t, k, tl_below(&rng, nm), PL_ORIGIN_LAG, 10);
		}
		uint32_t down = tl_below(&rng, nm);
		if (down != fav && tl_below(&rng, 2))
			t->m[down].flags = PL_MEMBER_DOWN;
		if (tl_below(&rng, 3) == 0)
			t->m[tl_below(&rng, nm)].flags |= PL_MEMBER_LAGGING;
		for (uint32_t k = 0; k < nk; k++)
			t->k[k].load = tl_below(&rng, 1000);
		pl_fleet_config cfg;
		pl_fleet_config_init(&cfg);
		cfg.now = 10000;
		cfg.moves_per_decision = 2;
		for (uint32_t self = 0; self < nm; self++) {
			pl_plan_info info;
			int n = sim_decide(t, cfg, self, out, 64, &info);
			ck_assert_msg(n >= 0, "seed %llu: %s", (unsigned long long)seed, pl_error_name(n));
			for (int i = 0; i < n; i++)
				eu_own_sentence(t, &out[i], seed, seen);
		}
		tl_free(t);
	}
	static const uint32_t want[] = {PL_REASON_COUNT, PL_REASON_LAG, PL_REASON_RETURN_HOME, PL_REASON_VOID_OVERRIDE,
					PL_REASON_REDUNDANT_OVERRIDE};
	eu_saw_every(seen, want, sizeof want / sizeof want[0], "fleets", iters, seed0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("explain_fleet");
	TCase *c = tcase_create("count");
	tcase_add_test(c, a_count_move_says_why_that_shard_and_both_counts);
	tcase_add_test(c, a_spread_move_says_nobody_is_over_and_names_the_floor);
	tcase_add_test(c, a_move_back_home_drops_the_count_override);
	tcase_add_test(c, a_keep_says_no_owner_changes_and_which_limit);
	suite_add_tcase(s, c);
	c = tcase_create("lag");
	tcase_add_test(c, a_lag_move_names_the_load_and_the_least_loaded);
	tcase_add_test(c, a_return_home_names_the_age_and_the_share);
	suite_add_tcase(s, c);
	c = tcase_create("clean_up");
	tcase_add_test(c, a_clean_up_drop_says_why_the_override_is_void_or_redundant);
	suite_add_tcase(s, c);
	c = tcase_create("policy");
	tcase_set_timeout(c, 60);
	tcase_add_test(c, every_action_a_fleet_emits_reads_as_its_own_sentence);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
