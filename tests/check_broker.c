/* check_broker.c - the broker policy's entry points: configuration, bad
 * input, status, dry run, and the seed's scenarios end to end. */
#include "broker_util.h"

/* ---- the seed's benchmark layout ---------------------------------------- */

/* Three members, RF 3, four streams and a cache: perf-quorum's 12 shards led
 * 1/1/10, totals 21/21/19. */
static tl *benchmark(uint32_t *quorum)
{
	tl *t = tl_new();
	bu_members(t, 3, NULL);
	static const uint32_t q[] = {1, 1, 10}, o[] = {5, 5, 2}, e[] = {5, 5, 2}, m[] = {4, 4, 4}, c[] = {6, 6, 1};
	*quorum = bu_stream(t, "perf-quorum", q, 3, 3);
	bu_stream(t, "orders", o, 3, 3);
	bu_stream(t, "events", e, 3, 3);
	bu_stream(t, "metrics", m, 3, 3);
	bu_stream(t, "cache", c, 3, 3);
	return t;
}

START_TEST(benchmark_layout_ends_4_4_4)
{
	uint32_t q;
	tl *t = benchmark(&q);
	pl_view *v = tl_view(t, 0);
	ck_assert_uint_eq(bu_total(v, 0), 21);
	ck_assert_uint_eq(bu_total(v, 1), 21);
	ck_assert_uint_eq(bu_total(v, 2), 19);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n, ticks;
	pl_action *a = bu_dry(t, &cfg, &n, &info, &ticks);
	bu_print(t, a, n);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(ticks, n); /* one move at a time */
	for (uint32_t m = 0; m < 3; m++)
		ck_assert_uint_eq(bu_lead(v, q, m), 4);
	for (uint32_t s = 0; s < t->ns; s++)
		ck_assert_msg(bu_spread(t, v, s) <= 1, "stream %u spread %u", s, bu_spread(t, v, s));
	ck_assert_uint_le(bu_spread(t, v, PL_NONE), 1);
	ck_assert_uint_eq(bu_most_moves(a, n, t->nk), 1);
	/* perf-quorum needs 6 moves alone; orders and events one each. */
	ck_assert_uint_ge(n, 8);
	free(a);
	tl_free(t);
}
END_TEST

/* The same layout with the per-stream rules off is what the seed saw: the
 * totals are even (one move takes 21/21/19 to 21/20/20) and the stream
 * stays lopsided. */
START_TEST(red_first_cluster_totals_only_never_reach_4_4_4)
{
	uint32_t q;
	tl *t = benchmark(&q);
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.stream_balance = 0;
	pl_plan_info info;
	uint32_t n;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	bu_print(t, a, n);
	ck_assert_uint_le(n, 1);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_le(bu_spread(t, v, PL_NONE), 1);
	ck_assert_uint_ge(bu_lead(v, q, 2), 9);
	ck_assert_uint_gt(bu_spread(t, v, q), 1);
	free(a);
	tl_free(t);
}
END_TEST

/* ---- a new stream beside members leading 6/6/0 ---------------------------- */

START_TEST(new_stream_beside_6_6_0_is_placed_4_4_4_and_never_moves)
{
	tl *t = tl_new();
	bu_members(t, 3, NULL);
	static const uint32_t a6[] = {3, 3, 0};
	bu_stream(t, "alpha", a6, 3, 3);
	bu_stream(t, "beta", a6, 3, 3);
	uint32_t fresh = bu_new_stream(t, "perf-quorum", 12);
	pl_view *v = tl_view(t, 0);
	ck_assert_uint_eq(bu_total(v, 0), 6);
	ck_assert_uint_eq(bu_total(v, 2), 0);
	pl_broker_config cfg = bu_cfg();
	/* One tick places every new shard (placing is not a move). */
	pl_action out[256];
	pl_plan_info info;
	int n = pl_broker_plan(v, &cfg, out, 256, &info, NULL);
	ck_assert_int_gt(n, 12 * 4 - 1);
	for (uint32_t m = 0; m < 3; m++)
		ck_assert_uint_eq(bu_lead(v, fresh, m), 4);
	uint32_t placed = 0;
	for (int i = 0; i < n; i++) {
		if (out[i].kind == PL_ACTION_SET_LEADER) {
			ck_assert_uint_eq(out[i].reason, PL_REASON_NEW);
			ck_assert_uint_le(out[i].tier, 2);
			placed++;
		}
	}
	ck_assert_uint_eq(placed, 12);
	pl_view_settle(v);
	/* Then the other streams rebalance; the new stream's shards never move. */
	uint32_t dn;
	pl_action *d = bu_dry(t, &cfg, &dn, &info, NULL);
	ck_assert_uint_gt(dn, 0);
	for (uint32_t i = 0; i < dn; i++)
		ck_assert_uint_ne(d[i].stream, fresh);
	for (uint32_t s = 0; s < t->ns; s++)
		ck_assert_uint_le(bu_spread(t, v, s), 1);
	ck_assert_uint_le(bu_spread(t, v, PL_NONE), 1);
	for (uint32_t m = 0; m < 3; m++)
		ck_assert_uint_eq(bu_lead(v, fresh, m), 4);
	free(d);
	tl_free(t);
}
END_TEST

/* ---- five streams skewed different ways ----------------------------------- */

START_TEST(five_skewed_streams_balance_with_no_shard_moving_twice)
{
	tl *t = tl_new();
	bu_members(t, 4, NULL);
	static const uint32_t s1[] = {12, 0, 0, 0}, s2[] = {0, 8, 0, 0}, s3[] = {1, 1, 4, 4}, s4[] = {0, 0, 0, 7},
			      s5[] = {3, 3, 3, 0};
	bu_stream(t, "s1", s1, 4, 3);
	bu_stream(t, "s2", s2, 4, 3);
	bu_stream(t, "s3", s3, 4, 3);
	bu_stream(t, "s4", s4, 4, 3);
	bu_stream(t, "s5", s5, 4, 3);
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	bu_print(t, a, n);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	for (uint32_t s = 0; s < t->ns; s++)
		ck_assert_msg(bu_spread(t, v, s) <= 1, "stream %u", s);
	ck_assert_uint_le(bu_spread(t, v, PL_NONE), 1);
	ck_assert_uint_eq(bu_most_moves(a, n, t->nk), 1);
	free(a);
	tl_free(t);
}
END_TEST

Suite *suite(void);
Suite *suite(void)
{
	Suite *s = suite_create("broker");
	TCase *c = tcase_create("seed");
	tcase_add_test(c, benchmark_layout_ends_4_4_4);
	tcase_add_test(c, red_first_cluster_totals_only_never_reach_4_4_4);
	tcase_add_test(c, new_stream_beside_6_6_0_is_placed_4_4_4_and_never_moves);
	tcase_add_test(c, five_skewed_streams_balance_with_no_shard_moving_twice);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(suite());
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
