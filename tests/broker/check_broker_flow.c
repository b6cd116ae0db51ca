/* check_broker_flow.c - the leader targets (broker_flow.c): one min-cost
 * flow over every stream and the totals chooses which members end a stream
 * at its ceiling, so the passes make the fewest moves the bounds allow; past
 * its size and work bounds the passes rank as before. The properties that
 * hold the moves to the bound on random layouts are check_broker_balance's. */
#include "broker_prop.h"

/* Four streams on four members where the stream pass's choices matter: s0
 * 0/2/0/0 hands one to a member at its floor, and which one decides whether
 * the totals then need a cluster move. The fewest moves are 5 (s3 to m01
 * and m02, s1 to m01, s2 to m00, s0 to m03); choosing s0's destination on
 * totals projected only by the other streams' gives (m00, tied with m02 and
 * m03 and the smaller id) needs 6. The targets of one flow over every
 * stream and the totals find the 5. */
START_TEST(the_stream_moves_follow_one_flow_over_every_stream)
{
	tl *t = bu_new(4, NULL);
	static const uint32_t s0[] = {0, 2, 0, 0}, s1[] = {2, 0, 1, 0}, s2[] = {1, 1, 3, 2}, s3[] = {3, 0, 0, 1};
	bu_stream(t, "s0", s0, 4, 1);
	bu_stream(t, "s1", s1, 4, 1);
	bu_stream(t, "s2", s2, 4, 1);
	bu_stream(t, "s3", s3, 4, 1);
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	ck_assert_uint_eq(mr_lower_bound(t, v), 5);
	uint32_t n;
	pl_plan_info info;
	pl_action *m = bu_dry(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(n, 5);
	for (uint32_t i = 0; i < n; i++) {
		ck_assert_uint_eq(m[i].reason, PL_REASON_STREAM_SKEW);
		if (m[i].stream == 0)
			ck_assert_uint_eq(m[i].to, 3);
	}
	char why[128];
	ck_assert_msg(mr_balanced(t, v, 1, 1, why, sizeof why), "%s", why);
	free(m);
	tl_free(t);
}
END_TEST

/* Past PL__BK_FLOW (64) members, or past the flow's work bound (40 streams
 * over 40 members, each with places to choose), the flow is left off and
 * the passes rank on projected totals as before: still balanced, near the
 * fewest moves. */
START_TEST(past_the_flow_bound_the_passes_rank_as_before)
{
	static const uint32_t sizes[][3] = {{70, 3, 60}, {40, 40, 50}, {4, 70, 12}}; /* members, streams, shards per stream */
	for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
		uint32_t nm = sizes[z][0], ns = sizes[z][1], per = sizes[z][2];
		tl *t = bu_new(nm, NULL);
		uint32_t c[70];
		for (uint32_t s = 0; s < ns; s++) {
			memset(c, 0, sizeof c);
			c[s % nm] = per - per / 3;
			c[(nm - 1 - s) % nm] = per / 3;
			bu_stream(t, tl_str(t, "s%u", s), c, nm, 1);
		}
		pl_view *v = tl_view(t, 0);
		pl_broker_config cfg = bu_cfg();
		cfg.max_moves = PL_BROKER_MAX_MOVES;
		uint64_t lb = mr_lower_bound(t, v);
		run x = mr_run(t, &cfg, 1, 100000);
		ck_assert(x.converged);
		ck_assert_uint_eq(x.status, PL_STATUS_BALANCED);
		char why[128];
		ck_assert_msg(mr_balanced(t, v, 1, 1, why, sizeof why), "%s", why);
		ck_assert_msg(x.moves >= lb && (uint64_t)x.moves * 100 <= lb * 110, "%u members: %u moves, bound %llu",
			      nm, x.moves, (unsigned long long)lb);
		tl_free(t);
	}
}
END_TEST

Suite *suite(void);
Suite *suite(void)
{
	Suite *s = suite_create("broker_flow");
	TCase *c = tcase_create("targets");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, the_stream_moves_follow_one_flow_over_every_stream);
	tcase_add_test(c, past_the_flow_bound_the_passes_rank_as_before);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
