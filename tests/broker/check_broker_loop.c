/* check_broker_loop.c - a control plane's tick loop follows the dry run,
 * and leaders go by hand-off before any copy.
 *
 * The loop: every tick a fresh view of the layout the last tick left (the
 * moves carried out), one pl_broker_plan(), its moves carried out. The dry
 * run: pl_broker_dry_run() on one view. Both must give the same actions, one
 * for one, on the cases of pl_broker_plan(3) and on random layouts (seed
 * printed: PL_TEST_SEED replays it). */
#include "broker_util.h"

/* Six members in three zones, replicas even, m0 leading 4 of 12 and m1
 * none: four hand-offs to followers even the leaders; nothing is copied. */
static tl *six_members(void)
{
	tl *t = tl_new();
	for (uint32_t i = 0; i < 6; i++)
		tl_member(t, tl_str(t, "m%u", i), tl_str(t, "z%u", i / 2));
	uint32_t s = tl_stream(t, "s");
	static const uint32_t rep[12][3] = {{0, 2, 4}, {0, 3, 4}, {0, 2, 5}, {0, 3, 5}, {0, 2, 4}, {0, 3, 4},
					    {1, 2, 5}, {1, 3, 5}, {1, 2, 4}, {1, 3, 4}, {1, 2, 5}, {1, 3, 5}};
	static const uint32_t lead[12] = {0, 0, 0, 0, 2, 3, 2, 3, 4, 4, 5, 5};
	for (uint32_t i = 0; i < 12; i++)
		tl_shard(t, tl_str(t, "s/%02u", i), s, lead[i], 3, rep[i][0], rep[i][1], rep[i][2]);
	return t;
}

START_TEST(six_members_even_their_leaders_by_four_hand_offs)
{
	tl *t = six_members();
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	pl_action out[64];
	uint32_t status;
	uint32_t n = bu_dry_run(t, &cfg, out, 64, &status);
	ck_assert_uint_eq(status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(n, 4);
	for (uint32_t i = 0; i < n; i++) {
		ck_assert_uint_eq(out[i].kind, PL_ACTION_MOVE_LEADER);
		ck_assert_msg(!(out[i].flags & PL_ACTION_STAGE_FIRST), "action %u copies: %s", i, tl_say(t, &out[i]));
	}
	uint32_t len;
	ck_assert_int_eq(bu_loop_differs(t, &cfg, &len), -1);
	for (uint32_t m = 0; m < 6; m++)
		ck_assert_uint_eq(tl_member_tally(tl_view(t, 0), m).leaders, 2);
	tl_free(t);
}
END_TEST

/* Cruise Control's TopicLeadershipDistributionGoal layout: six members in
 * three zones (m0 and m3, m1 and m4, m2 and m5), 30 shards on m0, m1 and m2,
 * all led by m0. 45 copies are the fewest (15 to each of m3, m4, m5) and 25
 * leadership changes (25 leave m0). m4 and m5 can take a leadership only
 * with a copy of m1's or m2's replica (zones): a follower's replica is
 * copied first and m0 hands the leadership over after, so no shard's
 * leadership changes twice. */
START_TEST(a_leadership_zones_keep_from_a_member_is_staged_not_moved_twice)
{
	tl *t = tl_new();
	for (uint32_t i = 0; i < 6; i++)
		tl_member(t, tl_str(t, "m%u", i), tl_str(t, "r%u", i % 3));
	uint32_t s = tl_stream(t, "t");
	for (uint32_t i = 0; i < 30; i++)
		tl_shard(t, tl_str(t, "t/%02u", i), s, 0, 3, 0, 1, 2);
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	cfg.max_moves = PL_BROKER_MAX_MOVES;
	pl_action out[256];
	uint32_t status, changed[30] = {0}, copies = 0, changes = 0;
	uint32_t n = bu_dry_run(t, &cfg, out, 256, &status);
	ck_assert_uint_eq(status, PL_STATUS_BALANCED);
	for (uint32_t i = 0; i < n; i++) {
		copies += (out[i].flags & PL_ACTION_STAGE_FIRST) != 0;
		if (out[i].kind == PL_ACTION_MOVE_LEADER || (out[i].flags & PL_ACTION_CARRIES_LEADER)) {
			changes++;
			ck_assert_msg(++changed[out[i].shard] == 1, "action %u changes a leadership again: %s", i,
				      tl_say(t, &out[i]));
		}
	}
	ck_assert_uint_eq(copies, 45);
	ck_assert_uint_eq(changes, 25);
	/* Each copy staged for a hand-off (10: m4's and m5's five) is followed
	 * by that hand-off, of the same shard to the same member. */
	uint32_t staged = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!(out[i].flags & PL_ACTION_FOR_HANDOFF))
			continue;
		staged++;
		ck_assert_uint_eq(out[i].kind, PL_ACTION_MOVE_REPLICA);
		uint32_t j = i + 1;
		while (j < n && !(out[j].kind == PL_ACTION_MOVE_LEADER && out[j].shard == out[i].shard))
			j++;
		ck_assert_msg(j < n && out[j].to == out[i].to && !(out[j].flags & PL_ACTION_STAGE_FIRST),
			      "action %u is followed by no hand-off to its member: %s", i, tl_say(t, &out[i]));
	}
	ck_assert_uint_eq(staged, 10);
	uint32_t len;
	ck_assert_int_eq(bu_loop_differs(t, &cfg, &len), -1);
	for (uint32_t m = 0; m < 6; m++)
		ck_assert_uint_eq(tl_member_tally(tl_view(t, 0), m).leaders, 5);
	tl_free(t);
}
END_TEST

/* Leaders only, no stream: a leads 4 shards that only b follows, b leads 2
 * that c follows, c leads none. Two chains of two hand-offs (b to c, then
 * a to b) end 2/2/2 with nothing copied, where a move from a to c would copy
 * twice. */
START_TEST(a_chain_of_hand_offs_comes_before_a_copy)
{
	tl *t = tl_new();
	uint32_t a = tl_member(t, "a", NULL), b = tl_member(t, "b", NULL), c = tl_member(t, "c", NULL);
	for (uint32_t i = 0; i < 4; i++)
		tl_shard(t, tl_str(t, "x/a%u", i), PL_NONE, a, 2, a, b);
	for (uint32_t i = 0; i < 2; i++)
		tl_shard(t, tl_str(t, "x/b%u", i), PL_NONE, b, 2, b, c);
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	cfg.replica_balance = 0;
	pl_action out[64];
	uint32_t status;
	uint32_t n = bu_dry_run(t, &cfg, out, 64, &status);
	ck_assert_uint_eq(status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(n, 4);
	for (uint32_t i = 0; i < n; i++)
		ck_assert_msg(out[i].kind == PL_ACTION_MOVE_LEADER && !(out[i].flags & PL_ACTION_STAGE_FIRST),
			      "action %u: %s", i, tl_say(t, &out[i]));
	/* The last hop first: b hands one to c, then a one to b. */
	ck_assert_uint_eq(out[0].from, b);
	ck_assert_uint_eq(out[0].to, c);
	ck_assert_uint_eq(out[1].from, a);
	ck_assert_uint_eq(out[1].to, b);
	tl_free(t);
}
END_TEST

/* Random layouts with equal weights and no zones, caps, drains or down
 * members: a plan that ends "balanced" has every count within its bounds,
 * leaders and replicas, per stream and in total (spread at most one); the
 * layouts that do not end balanced are counted and printed. */
START_TEST(balanced_means_every_count_within_its_bounds)
{
	uint64_t seed = tl_seed(0xba1u), rng = seed;
	uint32_t iters = tl_iters(500), balanced = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint32_t nm = 3 + tl_below(&rng, 6), ns = 1 + tl_below(&rng, 4);
		tl *t = tl_random(&rng, nm, ns, 6 + tl_below(&rng, 60), 1 + tl_below(&rng, 3), 0);
		/* Shards of fewer replicas than others, as the 3/4/5 layout of
		 * pl_broker_plan(3) (the leader, replicas[0] here, kept). */
		if (tl_below(&rng, 2))
			for (uint32_t k = 0; k < t->nk; k++)
				t->k[k].replica_count = 1 + tl_below(&rng, t->k[k].replica_count);
		tl_view(t, 0);
		pl_broker_config cfg = bu_cfg();
		cfg.max_moves = 1 + tl_below(&rng, 3);
		uint32_t n;
		pl_plan_info info;
		pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
		if (info.status == PL_STATUS_BALANCED) {
			balanced++;
			for (uint32_t st = 0; st <= t->ns; st++) {
				uint32_t sc = st < t->ns ? st : PL_NONE;
				ck_assert_msg(bu_spread(t, t->view, sc) <= 1 && bu_rspread(t, t->view, sc) <= 1,
					      "seed %llu (layout %u): balanced, but %s %u spreads leaders %u, replicas %u",
					      (unsigned long long)seed, it, st < t->ns ? "stream" : "the totals", st,
					      bu_spread(t, t->view, sc), bu_rspread(t, t->view, sc));
			}
		}
		free(a);
		tl_free(t);
	}
	printf("broker: %u random layouts (seed %llu): %u ended balanced, every count within its bounds; %u did "
	       "not end balanced\n",
	       iters, (unsigned long long)seed, balanced, iters - balanced);
}
END_TEST

/* Random layouts, the tick loop against the dry run. */
START_TEST(the_tick_loop_gives_the_dry_run_on_random_layouts)
{
	uint64_t seed = tl_seed(0x100bu), rng = seed;
	uint32_t iters = tl_iters(300), actions = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t s = tl_rand(&rng), r = s;
		uint32_t nm = 3 + tl_below(&r, 6), ns = 1 + tl_below(&r, 4), nk = 6 + tl_below(&r, 60);
		uint32_t rf = 1 + tl_below(&r, 3);
		tl *t = tl_random(&r, nm, ns, nk, rf, (int)tl_below(&r, 2));
		pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
		cfg.max_moves = 1 + tl_below(&r, 3);
		cfg.replica_balance = tl_below(&r, 4) != 0;
		uint32_t len;
		int at = bu_loop_differs(t, &cfg, &len);
		ck_assert_msg(at < 0, "seed %llu (layout %u, PL_TEST_SEED replays): the loop and the dry run differ at action %d",
			      (unsigned long long)seed, it, at);
		actions += len;
		tl_free(t);
	}
	printf("broker: %u random layouts (seed %llu): the tick loop gave the dry run's %u actions\n", iters,
	       (unsigned long long)seed, actions);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("broker_loop");
	TCase *c = tcase_create("cases");
	tcase_add_test(c, six_members_even_their_leaders_by_four_hand_offs);
	tcase_add_test(c, a_chain_of_hand_offs_comes_before_a_copy);
	tcase_add_test(c, a_leadership_zones_keep_from_a_member_is_staged_not_moved_twice);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 600);
	tcase_add_test(c, the_tick_loop_gives_the_dry_run_on_random_layouts);
	tcase_add_test(c, balanced_means_every_count_within_its_bounds);
	suite_add_tcase(s, c);
	return tl_run(s);
}
