/* check_explain_region.c - the region policy's sentences (explain_region.c):
 * primaries to the newest peer, toward less load, evened out (one hand-off
 * or a chain of them), claimed; peers added and
 * moved onto idle members, with singular and plural words and each tier of
 * the idle move; cut to fit any buffer; and every action the policy emits
 * while members join names its region and members. */
#include "explain_util.h"
#include "region_util.h"

START_TEST(a_newest_peer_hand_off_names_the_join_time_and_both_counts)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_MOVE_LEADER, PL_REASON_NEWEST_PEER, 0, 2);
	a.scope = PL_SCOPE_PRIMARIES;
	a.at = 30;
	a.to_count = 1;
	a.from_count = 3;
	ck_assert_str_eq(eu_say(t, &a),
			 "hand primary of orders/07 from b0 to its newest peer b2 (joined at 30): b2 leads 1 primary, fewer "
			 "than the 3 of b0");
	a.to_count = 0;
	ck_assert_str_eq(eu_say(t, &a),
			 "hand primary of orders/07 from b0 to its newest peer b2 (joined at 30): b2 leads 0 primaries, fewer "
			 "than the 3 of b0");
	tl_free(t);
}
END_TEST

START_TEST(a_load_hand_off_names_both_loads_and_the_threshold)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_MOVE_LEADER, PL_REASON_LOAD, 0, 1);
	a.scope = PL_SCOPE_PRIMARIES;
	a.at = 100;
	a.load = 400;
	a.share = 25;
	a.to_count = 2;
	a.from_count = 4;
	ck_assert_str_eq(eu_say(t, &a), "hand primary of orders/07 from b0 to b1: b1's load 100 is more than 25% below b0's "
					"400; b1 leads 2 primaries, b0 4");
	a.to_count = 1;
	ck_assert_str_eq(eu_say(t, &a), "hand primary of orders/07 from b0 to b1: b1's load 100 is more than 25% below b0's "
					"400; b1 leads 1 primary, b0 4");
	tl_free(t);
}
END_TEST

START_TEST(an_even_hand_off_names_both_counts_and_its_chain)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_MOVE_LEADER, PL_REASON_PRIMARY_SKEW, 0, 2);
	a.scope = PL_SCOPE_PRIMARIES;
	a.total = 1;
	a.from_count = a.ceiling = 4;
	a.to_count = a.floor = 1;
	ck_assert_str_eq(eu_say(t, &a), "hand primary of orders/07 from b0 to b2: b2 leads 1 primary, at least two fewer "
					"than the 4 of b0");
	a.to_count = a.floor = 0;
	ck_assert_str_eq(eu_say(t, &a), "hand primary of orders/07 from b0 to b2: b2 leads 0 primaries, at least two "
					"fewer than the 4 of b0");
	/* A hop of a chain: the chain's ends, and the counts at the hop. */
	a.total = 3;
	a.ceiling = 5;
	a.floor = 2;
	a.from_count = 4;
	a.to_count = 3;
	ck_assert_str_eq(eu_say(t, &a), "hand primary of orders/07 from b0 to b2: one of 3 hand-offs along peer sets that "
					"move a primary from a member leading 5 to one leading 2; b2 leads 3 primaries, "
					"b0 4");
	tl_free(t);
}
END_TEST

START_TEST(a_claim_says_why_and_among_how_many_live_peers)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_SET_LEADER, PL_REASON_NO_PRIMARY, PL_NONE, 1);
	a.scope = PL_SCOPE_PRIMARIES;
	a.total = 1;
	a.to_count = 1;
	ck_assert_str_eq(eu_say(t, &a),
			 "make b1 primary of orders/07: it has no primary; b1, its only live peer, leads 1 primary");
	a.from = 0;
	a.total = 3;
	a.to_count = 2;
	ck_assert_str_eq(eu_say(t, &a), "make b1 primary of orders/07: its primary b0 is down; b1 leads 2 primaries, the "
					"fewest of its 3 live peers");
	tl_free(t);
}
END_TEST

START_TEST(an_add_says_the_peers_the_effective_rf_and_the_zone_rule)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_ADD_REPLICA, PL_REASON_UNDER_RF, PL_NONE, 3);
	a.flags = PL_ACTION_STAGE_FIRST;
	a.scope = PL_SCOPE_PEERS;
	a.to_count = 2;
	a.total = 3;
	a.ceiling = 3;
	a.share = 4;
	a.tier = 1;
	ck_assert_str_eq(eu_say(t, &a), "stage a copy of orders/07 on b3, then add it as a peer: 2 of 3 peers; b3 is in a zone "
					"its peers are not, and holds 4 replicas");
	/* R below the configured RF says both; tier 2 says no new zone could. */
	a.to_count = 0;
	a.total = 1;
	a.share = 1;
	a.tier = 2;
	ck_assert_str_eq(eu_say(t, &a), "stage a copy of orders/07 on b3, then add it as a peer: 0 of 1 peer (replication "
					"factor 3, 1 live member); b3 holds 1 replica, and no member in a new zone could take it");
	a.total = 2;
	ck_assert_str_eq(eu_say(t, &a), "stage a copy of orders/07 on b3, then add it as a peer: 0 of 2 peers (replication "
					"factor 3, 2 live members); b3 holds 1 replica, and no member in a new zone could take it");
	tl_free(t);
}
END_TEST

START_TEST(an_idle_member_move_says_the_fair_share_and_its_tier)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_MOVE_REPLICA, PL_REASON_IDLE_MEMBER, 0, 3);
	a.flags = PL_ACTION_STAGE_FIRST;
	a.scope = PL_SCOPE_REPLICAS;
	a.to_count = 0;
	a.from_count = 4;
	a.share = 2;
	a.total = 9;
	static const char *const tail[] = {
		"",
		"; not the primary, and the region gains a zone",
		"; not the primary",
		"; the primary moves with it, and the region gains a zone",
		"; the primary moves with it",
		"",
	};
	char want[512];
	for (uint32_t tier = 0; tier <= 5; tier++) {
		a.tier = tier;
		snprintf(want, sizeof want,
			 "stage a copy of orders/07 on b3, then move the peer from b0: b3 holds 0 replicas, below its fair "
			 "share 2 of 9 peers; b0 holds 4, the most%s",
			 tail[tier]);
		ck_assert_str_eq(eu_say(t, &a), want);
	}
	a.to_count = 1;
	a.tier = 2;
	ck_assert_str_eq(eu_say(t, &a), "stage a copy of orders/07 on b3, then move the peer from b0: b3 holds 1 replica, "
					"below its fair share 2 of 9 peers; b0 holds 4, the most; not the primary");
	tl_free(t);
}
END_TEST

/* Random clusters that members join (with zones, one member down and one
 * behind): every action of ticks until nothing more is emitted reads as its
 * own sentence, naming the region and its members. */
START_TEST(every_action_the_policy_emits_reads_as_its_own_sentence)
{
	uint64_t seed0 = tl_seed(0x4e610u);
	uint32_t iters = tl_iters(40);
	uint8_t seen[EU_REASONS] = {0};
	ru_tick *tk = ru_tick_new();
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		uint32_t nm = 2 + tl_below(&rng, 4), nk = 4 + tl_below(&rng, 20);
		tl *t = tl_new();
		for (uint32_t m = 0; m < nm; m++)
			ru_member(t, tl_str(t, "m%02u", m), tl_str(t, "z%u", m % 3), 10 + m);
		for (uint32_t k = 0; k < nk; k++) {
			uint32_t a = tl_below(&rng, nm), b = (a + 1) % nm;
			if (tl_below(&rng, 4) == 0)
				ru_region(t, tl_str(t, "r%03u", k), PL_NONE, 0);
			else
				ru_region(t, tl_str(t, "r%03u", k), tl_below(&rng, 3) ? a : PL_NONE, 2, a, b);
		}
		t->m[tl_below(&rng, nm)].flags |= PL_MEMBER_DOWN;
		for (uint32_t j = 0, joins = 1 + tl_below(&rng, 3); j < joins; j++)
			ru_member(t, tl_str(t, "new%u", j), tl_str(t, "z%u", j), 100 + j);
		pl_region_config cfg = ru_cfg(3);
		cfg.load_balance = 1;
		for (uint32_t m = 0; m < t->nm; m++)
			t->m[m].load = tl_below(&rng, 1000);
		pl_view *v = tl_view(t, 0);
		for (uint32_t tick = 0; tick < 64; tick++) {
			int n = ru_plan(v, &cfg, tk);
			for (int i = 0; i < n; i++)
				eu_own_sentence(t, &tk->a[i], seed, seen);
			if (n == 0)
				break;
			v = ru_next(t, 0);
		}
		tl_free(t);
	}
	free(tk);
	static const uint32_t want[] = {PL_REASON_UNDER_RF, PL_REASON_IDLE_MEMBER, PL_REASON_NEWEST_PEER,
					PL_REASON_NO_PRIMARY, PL_REASON_PRIMARY_SKEW};
	eu_saw_every(seen, want, sizeof want / sizeof want[0], "clusters", iters, seed0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("explain_region");
	TCase *c = tcase_create("primaries");
	tcase_add_test(c, a_newest_peer_hand_off_names_the_join_time_and_both_counts);
	tcase_add_test(c, a_load_hand_off_names_both_loads_and_the_threshold);
	tcase_add_test(c, an_even_hand_off_names_both_counts_and_its_chain);
	tcase_add_test(c, a_claim_says_why_and_among_how_many_live_peers);
	suite_add_tcase(s, c);
	c = tcase_create("peers");
	tcase_add_test(c, an_add_says_the_peers_the_effective_rf_and_the_zone_rule);
	tcase_add_test(c, an_idle_member_move_says_the_fair_share_and_its_tier);
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
