/* check_explain_broker.c - the broker policy's sentences (explain_broker.c):
 * each kind and reason the broker emits reads as its own sentence, with the
 * tier, counts and bounds the action carries and the note its flags call
 * for; cut to fit any buffer as snprintf would; and on random layouts every
 * action the policy emits names its shard and members. */
#include <stdlib.h>

#include "broker_util.h"
#include "explain_util.h"

/* ---- placing: the tiers' words ------------------------------------------------ */

/* A placement chosen at `tier`: b2 leads 1 of orders, floor 2 ceiling 3,
 * 5 in total against a cluster share of 6. */
static pl_action placed(uint32_t kind, uint32_t reason, uint32_t from, uint32_t tier)
{
	pl_action a = eu_act(kind, reason, from, 2);
	a.tier = tier;
	a.scope = PL_SCOPE_STREAM;
	a.to_count = 1;
	a.floor = 2;
	a.ceiling = 3;
	a.load = 5;
	a.share = 6;
	a.total = 7;
	return a;
}

START_TEST(a_new_shard_says_its_tier_and_the_counts_that_chose_it)
{
	tl *t = eu_names();
	pl_action a = placed(PL_ACTION_SET_LEADER, PL_REASON_NEW, PL_NONE, 1);
	ck_assert_str_eq(eu_say(t, &a), "place leader of orders/07 on b2: new shard: tier 1, b2 leads 1 of stream orders, "
					"under its floor 2 (ceiling 3), and 5 in total, under the cluster share 6");
	a.tier = 2;
	ck_assert_str_eq(eu_say(t, &a), "place leader of orders/07 on b2: new shard: tier 2, b2 leads 1 of stream orders, "
					"under its ceiling 3 (floor 2), and 5 in total, under the cluster share 6");
	/* Tiers 1 and 2 prefer a member under the share: the words follow
	 * whether it was. */
	a.load = 6;
	ck_assert_str_eq(eu_say(t, &a), "place leader of orders/07 on b2: new shard: tier 2, b2 leads 1 of stream orders, "
					"under its ceiling 3 (floor 2), and 6 in total, cluster share 6");
	a.tier = 3;
	a.load = 5;
	ck_assert_str_eq(eu_say(t, &a), "place leader of orders/07 on b2: new shard: tier 3, b2 leads 1 of stream orders "
					"(floor 2, ceiling 3), and 5 in total, under the cluster share 6");
	a.tier = 4;
	ck_assert_str_eq(eu_say(t, &a), "place leader of orders/07 on b2: new shard: tier 4, b2 leads 1 of stream orders "
					"(floor 2, ceiling 3), and 5 in total, cluster share 6; it has room under its max_shards");
	a.tier = 5;
	ck_assert_str_eq(eu_say(t, &a),
			 "place leader of orders/07 on b2: new shard: tier 5, b2 leads 1 of stream orders (floor 2, ceiling 3), "
			 "and 5 in total, cluster share 6; every candidate is at its max_shards and it is the least loaded");
	/* A tier outside 1..5 (an action the caller built) names no tier rule. */
	a.tier = 0;
	ck_assert_str_eq(eu_say(t, &a), "place leader of orders/07 on b2: new shard: tier 0, b2 leads 1 of stream orders "
					"(floor 2, ceiling 3), and 5 in total, cluster share 6");
	tl_free(t);
}
END_TEST

START_TEST(a_placement_counted_in_total_says_only_the_total)
{
	/* A shard of no stream (or counted on the cluster) has no stream
	 * bounds to name. */
	tl *t = eu_names();
	pl_action a = placed(PL_ACTION_SET_LEADER, PL_REASON_NEW, PL_NONE, 3);
	a.scope = PL_SCOPE_CLUSTER;
	ck_assert_str_eq(eu_say(t, &a),
			 "place leader of orders/07 on b2: new shard: tier 3, b2 leads 5 in total, under the cluster share 6");
	a.scope = PL_SCOPE_STREAM;
	a.stream = PL_NONE;
	ck_assert_str_eq(eu_say(t, &a),
			 "place leader of orders/07 on b2: new shard: tier 3, b2 leads 5 in total, under the cluster share 6");
	tl_free(t);
}
END_TEST

START_TEST(failover_says_who_is_down_or_that_there_was_no_leader)
{
	tl *t = eu_names();
	pl_action a = placed(PL_ACTION_SET_LEADER, PL_REASON_FAILOVER, 0, 1);
	ck_assert_str_eq(eu_say(t, &a), "promote b2 to lead orders/07: leader b0 is down: tier 1, b2 leads 1 of stream "
					"orders, under its floor 2 (ceiling 3), and 5 in total, under the cluster share 6");
	a.from = PL_NONE;
	ck_assert_str_eq(eu_say(t, &a), "promote b2 to lead orders/07: it has no leader: tier 1, b2 leads 1 of stream "
					"orders, under its floor 2 (ceiling 3), and 5 in total, under the cluster share 6");
	a = placed(PL_ACTION_MOVE_LEADER, PL_REASON_FAILOVER, 0, 4);
	a.flags = PL_ACTION_STAGE_FIRST;
	ck_assert_str_eq(eu_say(t, &a),
			 "move leader of orders/07 from b0 (down) to b2, staging a copy first: no live eligible follower: "
			 "tier 4, b2 leads 1 of stream orders (floor 2, ceiling 3), and 5 in total, cluster share 6; it has "
			 "room under its max_shards");
	a = eu_act(PL_ACTION_ADD_REPLICA, PL_REASON_FAILOVER, PL_NONE, 3);
	a.to_count = 0;
	a.total = 3;
	ck_assert_str_eq(eu_say(t, &a), "stage a copy of orders/07 on b3, then add it as a replica: no leader and no live "
					"eligible follower, 0 of 3 replicas");
	tl_free(t);
}
END_TEST

START_TEST(a_drain_hand_off_says_draining_and_whether_it_copies)
{
	tl *t = eu_names();
	pl_action a = placed(PL_ACTION_MOVE_LEADER, PL_REASON_DRAIN, 0, 2);
	ck_assert_str_eq(eu_say(t, &a), "hand leader of orders/07 from b0 (draining) to b2: tier 2, b2 leads 1 of stream "
					"orders, under its ceiling 3 (floor 2), and 5 in total, under the cluster share 6");
	a.flags = PL_ACTION_STAGE_FIRST;
	a.to = 3;
	ck_assert_str_eq(eu_say(t, &a),
			 "hand leader of orders/07 from b0 (draining) to b3, staging a copy first: tier 2, b3 leads 1 of "
			 "stream orders, under its ceiling 3 (floor 2), and 5 in total, under the cluster share 6");
	a.kind = PL_ACTION_SET_LEADER; /* the same sentence for the hand-off to a follower */
	a.flags = 0;
	ck_assert_str_eq(eu_say(t, &a), "hand leader of orders/07 from b0 (draining) to b3: tier 2, b3 leads 1 of stream "
					"orders, under its ceiling 3 (floor 2), and 5 in total, under the cluster share 6");
	tl_free(t);
}
END_TEST

START_TEST(a_new_shards_replica_says_how_many_are_placed)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_ADD_REPLICA, PL_REASON_NEW, PL_NONE, 1);
	a.to_count = 2;
	a.total = 3;
	ck_assert_str_eq(eu_say(t, &a),
			 "add a replica of orders/07 on b1: new shard, 2 of 3 replicas placed, zones spread first");
	tl_free(t);
}
END_TEST

/* ---- leader balance ------------------------------------------------------------- */

START_TEST(a_stream_move_names_both_counts_and_the_bounds)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW, 2, 0);
	a.scope = PL_SCOPE_STREAM;
	a.from_count = 10;
	a.to_count = 1;
	a.floor = 4;
	a.ceiling = 4;
	ck_assert_str_eq(eu_say(t, &a),
			 "move leader of orders/07 from b2 to b0: stream orders leads 10 on b2, 1 on b0, floor 4, ceiling 4");
	a.to = 3;
	a.flags = PL_ACTION_STAGE_FIRST;
	ck_assert_str_eq(eu_say(t, &a), "move leader of orders/07 from b2 to b3: stream orders leads 10 on b2, 1 on b3, "
					"floor 4, ceiling 4; b3 holds no replica, so a copy is staged first");
	/* An action naming no stream (written by hand) reads without a gap. */
	a.stream = PL_NONE;
	a.flags = 0;
	ck_assert_str_eq(eu_say(t, &a), "move leader of orders/07 from b2 to b3: stream leads 10 on b2, 1 on b3, "
					"floor 4, ceiling 4");
	tl_free(t);
}
END_TEST

START_TEST(a_cluster_move_names_the_stream_it_keeps_and_a_relay)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_MOVE_LEADER, PL_REASON_CLUSTER_SKEW, 2, 1);
	a.scope = PL_SCOPE_CLUSTER;
	a.from_count = 21;
	a.to_count = 19;
	a.share = 21;
	ck_assert_str_eq(eu_say(t, &a), "move leader of orders/07 from b2 to b1: cluster leads 21 on b2, 19 on b1, share 21; "
					"b1 leads fewer of stream orders");
	a.stream = PL_NONE;
	ck_assert_str_eq(eu_say(t, &a), "move leader of orders/07 from b2 to b1: cluster leads 21 on b2, 19 on b1, share 21");
	/* At the share: a relay's first hop. */
	a.to_count = 21;
	a.to = 3;
	a.flags = PL_ACTION_STAGE_FIRST;
	ck_assert_str_eq(eu_say(t, &a), "move leader of orders/07 from b2 to b3: cluster leads 21 on b2, 21 on b3, share 21; "
					"b3 is at its share and hands one on next (a relay); b3 holds no replica, so a copy is "
					"staged first");
	/* Over its share (weighted: a fallback that lowers the sum of
	 * count^2/weight): not a relay, and not "at its share". */
	a.to_count = 23;
	ck_assert_str_eq(eu_say(t, &a), "move leader of orders/07 from b2 to b3: cluster leads 21 on b2, 23 on b3, share 21; "
					"b3 is over its share too, and leads fewer per weight than b2; b3 holds no replica, so "
					"a copy is staged first");
	a.kind = PL_ACTION_MOVE_REPLICA;
	a.reason = PL_REASON_REPLICA_CLUSTER_SKEW;
	a.scope = PL_SCOPE_REPLICAS;
	a.stream = PL_NONE;
	ck_assert_str_eq(eu_say(t, &a), "move replica of orders/07 from b2 to b3, staging a copy first: cluster holds 21 "
					"replicas on b2, 23 on b3, share 21; b3 is over its share too, and holds fewer per "
					"weight than b2");
	tl_free(t);
}
END_TEST

/* ---- replicas ------------------------------------------------------------------- */

START_TEST(a_replica_drain_says_its_replica_tier_and_that_zones_are_kept)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_MOVE_REPLICA, PL_REASON_REPLICA_DRAIN, 2, 3);
	a.flags = PL_ACTION_STAGE_FIRST;
	a.scope = PL_SCOPE_STREAM_REPLICAS;
	a.tier = 1;
	a.from_count = 5;
	a.to_count = 2;
	a.floor = 3;
	a.ceiling = 4;
	a.load = 7;
	a.share = 8;
	ck_assert_str_eq(eu_say(t, &a), "move replica of orders/07 from b2 (draining) to b3, staging a copy first: tier 1, "
					"b3 holds 2 replicas of stream orders, under its floor 3 (ceiling 4), and 7 in total, "
					"under its replica share 8; the shard keeps its zones");
	a.tier = 4;
	a.load = 8;
	ck_assert_str_eq(eu_say(t, &a), "move replica of orders/07 from b2 (draining) to b3, staging a copy first: tier 4, "
					"b3 holds 2 replicas of stream orders (floor 3, ceiling 4), and 8 in total, replica share "
					"8; it has room under its max_shards; the shard keeps its zones");
	a.stream = PL_NONE;
	a.scope = PL_SCOPE_REPLICAS;
	a.tier = 3;
	a.load = 7;
	ck_assert_str_eq(eu_say(t, &a), "move replica of orders/07 from b2 (draining) to b3, staging a copy first: tier 3, "
					"b3 holds 7 replicas in total, under its replica share 8; the shard keeps its zones");
	/* One replica is one, in the stream and in total. */
	a.stream = 0;
	a.scope = PL_SCOPE_STREAM_REPLICAS;
	a.tier = 1;
	a.to_count = 1;
	a.load = 1;
	ck_assert_str_eq(eu_say(t, &a), "move replica of orders/07 from b2 (draining) to b3, staging a copy first: tier 1, "
					"b3 holds 1 replica of stream orders, under its floor 3 (ceiling 4), and 1 in total, "
					"under its replica share 8; the shard keeps its zones");
	a.stream = PL_NONE;
	a.scope = PL_SCOPE_REPLICAS;
	a.tier = 3;
	ck_assert_str_eq(eu_say(t, &a), "move replica of orders/07 from b2 (draining) to b3, staging a copy first: tier 3, "
					"b3 holds 1 replica in total, under its replica share 8; the shard keeps its zones");
	tl_free(t);
}
END_TEST

START_TEST(a_zone_repair_names_the_zones_and_the_new_one)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_MOVE_REPLICA, PL_REASON_ZONE_REPAIR, 1, 3);
	a.flags = PL_ACTION_STAGE_FIRST;
	a.scope = PL_SCOPE_ZONES;
	a.from_count = 2;
	a.to_count = 3;
	a.total = 3;
	a.load = 4;
	a.share = 5;
	ck_assert_str_eq(eu_say(t, &a), "move replica of orders/07 from b1 to b3, staging a copy first: its replicas span 2 "
					"zones and could span 3; b3 is in zone zc, which none of them is in, and b1 shares its "
					"zone with another replica; b3 holds 4 replicas, replica share 5");
	a.from_count = 1;
	a.total = 2;
	a.to = 2;
	ck_assert_str_eq(eu_say(t, &a), "move replica of orders/07 from b1 to b2, staging a copy first: its replicas span 1 "
					"zone and could span 2; b2 is in zone zb, which none of them is in, and b1 shares its "
					"zone with another replica; b2 holds 4 replicas, replica share 5");
	a.load = 1;
	ck_assert_str_eq(eu_say(t, &a), "move replica of orders/07 from b1 to b2, staging a copy first: its replicas span 1 "
					"zone and could span 2; b2 is in zone zb, which none of them is in, and b1 shares its "
					"zone with another replica; b2 holds 1 replica, replica share 5");
	tl_free(t);
}
END_TEST

START_TEST(a_replica_balance_move_names_counts_and_a_carried_leadership)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_MOVE_REPLICA, PL_REASON_REPLICA_STREAM_SKEW, 2, 3);
	a.flags = PL_ACTION_STAGE_FIRST;
	a.scope = PL_SCOPE_STREAM_REPLICAS;
	a.from_count = 6;
	a.to_count = 2;
	a.floor = 4;
	a.ceiling = 4;
	ck_assert_str_eq(eu_say(t, &a), "move replica of orders/07 from b2 to b3, staging a copy first: stream orders holds "
					"6 replicas on b2, 2 on b3, floor 4, ceiling 4");
	a.flags |= PL_ACTION_CARRIES_LEADER;
	ck_assert_str_eq(eu_say(t, &a), "move replica of orders/07 from b2 to b3, staging a copy first: stream orders holds "
					"6 replicas on b2, 2 on b3, floor 4, ceiling 4; b2 leads it, and the leadership moves "
					"with it within the leaders' bounds");
	a.stream = PL_NONE;
	a.flags = PL_ACTION_STAGE_FIRST;
	ck_assert_str_eq(eu_say(t, &a), "move replica of orders/07 from b2 to b3, staging a copy first: stream holds "
					"6 replicas on b2, 2 on b3, floor 4, ceiling 4");
	a = eu_act(PL_ACTION_MOVE_REPLICA, PL_REASON_REPLICA_CLUSTER_SKEW, 2, 3);
	a.flags = PL_ACTION_STAGE_FIRST;
	a.scope = PL_SCOPE_REPLICAS;
	a.from_count = 9;
	a.to_count = 5;
	a.share = 7;
	ck_assert_str_eq(eu_say(t, &a), "move replica of orders/07 from b2 to b3, staging a copy first: cluster holds 9 "
					"replicas on b2, 5 on b3, share 7; stream orders is no less even after it");
	a.stream = PL_NONE;
	a.to_count = 7;
	a.flags |= PL_ACTION_CARRIES_LEADER;
	ck_assert_str_eq(eu_say(t, &a), "move replica of orders/07 from b2 to b3, staging a copy first: cluster holds 9 "
					"replicas on b2, 7 on b3, share 7; b3 is at its share and hands one on next (a relay); "
					"b2 leads it, and the leadership moves with it within the leaders' bounds");
	/* A follower's replica staged for a hand-off, in either scope. */
	a.flags = PL_ACTION_STAGE_FIRST | PL_ACTION_FOR_HANDOFF;
	a.to_count = 5;
	ck_assert_str_eq(eu_say(t, &a), "move replica of orders/07 from b2 to b3, staging a copy first: cluster holds 9 "
					"replicas on b2, 5 on b3, share 7; once it is in, the shard's leader hands b3 the "
					"leadership, which the leaders' bounds want and zones keep the leader's own replica from "
					"bringing");
	a = eu_act(PL_ACTION_MOVE_REPLICA, PL_REASON_REPLICA_STREAM_SKEW, 2, 3);
	a.flags = PL_ACTION_STAGE_FIRST | PL_ACTION_FOR_HANDOFF;
	a.scope = PL_SCOPE_STREAM_REPLICAS;
	a.from_count = 6;
	a.to_count = 2;
	a.floor = 4;
	a.ceiling = 4;
	ck_assert_str_eq(eu_say(t, &a), "move replica of orders/07 from b2 to b3, staging a copy first: stream orders holds "
					"6 replicas on b2, 2 on b3, floor 4, ceiling 4; once it is in, the shard's leader hands "
					"b3 the leadership, which the leaders' bounds want and zones keep the leader's own "
					"replica from bringing");
	tl_free(t);
}
END_TEST

START_TEST(a_leadership_handed_first_says_which_replica_moves_next)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_MOVE_LEADER, PL_REASON_REPLICA_STREAM_SKEW, 0, 1);
	a.scope = PL_SCOPE_STREAM_REPLICAS;
	a.from_count = 6;
	a.floor = 4;
	a.ceiling = 4;
	ck_assert_str_eq(eu_say(t, &a), "hand leader of orders/07 from b0 to its follower b1 first, so that the replica on b0 "
					"can move next: stream orders holds 6 replicas on b0, floor 4, ceiling 4; the leadership "
					"could not go with the replica within the leaders' bounds");
	a.reason = PL_REASON_REPLICA_CLUSTER_SKEW;
	a.scope = PL_SCOPE_REPLICAS;
	a.from_count = 9;
	a.share = 7;
	ck_assert_str_eq(eu_say(t, &a), "hand leader of orders/07 from b0 to its follower b1 first, so that the replica on b0 "
					"can move next: cluster holds 9 replicas on b0, share 7; the leadership could not go with "
					"the replica within the leaders' bounds");
	tl_free(t);
}
END_TEST

/* ---- what is not the broker's ----------------------------------------------------- */

START_TEST(an_action_of_another_family_is_not_read_as_a_broker_one)
{
	/* The region's NO_PRIMARY is a SET_LEADER too; the broker's words must
	 * not claim it. */
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_SET_LEADER, PL_REASON_NO_PRIMARY, PL_NONE, 1);
	a.total = 1;
	const char *s = eu_say(t, &a);
	ck_assert_msg(strncmp(s, "make b1 primary of orders/07", 28) == 0, "%s", s);
	/* A pair no family knows keeps the fallback form. */
	a = eu_act(PL_ACTION_ADD_REPLICA, PL_REASON_STREAM_SKEW, 2, 1);
	ck_assert_str_eq(eu_say(t, &a), "add-replica of orders/07 from b2 to b1: stream-skew");
	tl_free(t);
}
END_TEST

/* ---- the policy's own actions ------------------------------------------------------ */

/* Random layouts with a member down, one draining and new shards: every
 * action the broker emits, ticks until it settles, reads as its own sentence
 * naming the shard and its members; and each kind of reason shows up. */
START_TEST(every_action_the_policy_emits_reads_as_its_own_sentence)
{
	uint64_t seed0 = tl_seed(0xb40c3e5u);
	uint32_t iters = tl_iters(40);
	uint8_t seen[EU_REASONS] = {0};
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		uint32_t nm = 4 + tl_below(&rng, 5);
		tl *t = tl_random(&rng, nm, 1 + tl_below(&rng, 3), 10 + tl_below(&rng, 30), 1 + tl_below(&rng, 3),
				  tl_below(&rng, 2));
		for (uint32_t i = 0; i < 3; i++)
			tl_shard(t, tl_str(t, "new%u", i), t->ns ? tl_below(&rng, t->ns) : PL_NONE, PL_NONE, 0);
		t->m[tl_below(&rng, nm)].flags |= PL_MEMBER_DRAINING;
		t->m[tl_below(&rng, nm)].flags |= PL_MEMBER_DOWN;
		if (tl_below(&rng, 2))
			t->m[tl_below(&rng, nm)].max_shards = 1 + tl_below(&rng, 6);
		pl_broker_config cfg = bu_cfg();
		cfg.max_moves = 4;
		pl_plan_info info;
		uint32_t n;
		pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
		for (uint32_t i = 0; i < n; i++)
			eu_own_sentence(t, &a[i], seed, seen);
		free(a);
		tl_free(t);
	}
	static const uint32_t want[] = {PL_REASON_NEW, PL_REASON_FAILOVER, PL_REASON_DRAIN, PL_REASON_STREAM_SKEW,
					PL_REASON_REPLICA_DRAIN, PL_REASON_REPLICA_STREAM_SKEW};
	eu_saw_every(seen, want, sizeof want / sizeof want[0], "layouts", iters, seed0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("explain_broker");
	TCase *c = tcase_create("placing");
	tcase_add_test(c, a_new_shard_says_its_tier_and_the_counts_that_chose_it);
	tcase_add_test(c, a_placement_counted_in_total_says_only_the_total);
	tcase_add_test(c, failover_says_who_is_down_or_that_there_was_no_leader);
	tcase_add_test(c, a_drain_hand_off_says_draining_and_whether_it_copies);
	tcase_add_test(c, a_new_shards_replica_says_how_many_are_placed);
	suite_add_tcase(s, c);
	c = tcase_create("balance");
	tcase_add_test(c, a_stream_move_names_both_counts_and_the_bounds);
	tcase_add_test(c, a_cluster_move_names_the_stream_it_keeps_and_a_relay);
	suite_add_tcase(s, c);
	c = tcase_create("replicas");
	tcase_add_test(c, a_replica_drain_says_its_replica_tier_and_that_zones_are_kept);
	tcase_add_test(c, a_zone_repair_names_the_zones_and_the_new_one);
	tcase_add_test(c, a_replica_balance_move_names_counts_and_a_carried_leadership);
	tcase_add_test(c, a_leadership_handed_first_says_which_replica_moves_next);
	suite_add_tcase(s, c);
	c = tcase_create("families");
	tcase_add_test(c, an_action_of_another_family_is_not_read_as_a_broker_one);
	suite_add_tcase(s, c);
	c = tcase_create("policy");
	tcase_set_timeout(c, 60);
	tcase_add_test(c, every_action_the_policy_emits_reads_as_its_own_sentence);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
