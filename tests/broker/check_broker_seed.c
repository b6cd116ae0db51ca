/* check_broker_seed.c - the seed's scenarios end to end: its benchmark
 * layout with and without the per-stream rules, a new stream beside members
 * leading 6/6/0, skewed streams, a joining and a draining member, a shard
 * cap, zones, and five members with RF 3. */
#include "broker_util.h"

/* ---- the seed's benchmark layout ---------------------------------------- */

START_TEST(benchmark_layout_ends_4_4_4)
{
	uint32_t q;
	tl *t = bu_benchmark(&q);
	pl_view *v = tl_view(t, 0);
	ck_assert_uint_eq(bu_total(v, 0), 21);
	ck_assert_uint_eq(bu_total(v, 1), 21);
	ck_assert_uint_eq(bu_total(v, 2), 19);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n, ticks;
	pl_action *a = bu_dry_shown(t, &cfg, &n, &info, &ticks);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(ticks, n); /* one move at a time */
	for (uint32_t m = 0; m < 3; m++)
		ck_assert_uint_eq(bu_lead(v, q, m), 4);
	bu_expect_even(t, v);
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
	tl *t = bu_benchmark(&q);
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.stream_balance = 0;
	pl_plan_info info;
	uint32_t n;
	pl_action *a = bu_dry_shown(t, &cfg, &n, &info, NULL);
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
	tl *t = bu_new(3, NULL);
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
	bu_expect_even(t, v);
	for (uint32_t m = 0; m < 3; m++)
		ck_assert_uint_eq(bu_lead(v, fresh, m), 4);
	free(d);
	tl_free(t);
}
END_TEST

/* ---- five streams skewed different ways ----------------------------------- */

START_TEST(five_skewed_streams_balance_with_no_shard_moving_twice)
{
	tl *t = bu_new(4, NULL);
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
	pl_action *a = bu_dry_shown(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	bu_expect_even(t, v);
	ck_assert_uint_eq(bu_most_moves(a, n, t->nk), 1);
	free(a);
	tl_free(t);
}
END_TEST

/* ---- the seed's further cases ----------------------------------------------- */

START_TEST(joining_member_gets_shards_that_stay)
{
	tl *t = bu_new(3, NULL);
	static const uint32_t even[] = {4, 4, 4}, odd[] = {3, 3, 3};
	bu_stream(t, "a", even, 3, 3);
	bu_stream(t, "b", even, 3, 3);
	bu_stream(t, "c", odd, 3, 3);
	tl_member(t, "b3", NULL); /* joins with nothing */
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n;
	pl_action *a = bu_dry_shown(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	bu_expect_even(t, v);
	ck_assert_uint_eq(bu_most_moves(a, n, t->nk), 1);
	for (uint32_t i = 0; i < n; i++) {
		ck_assert_uint_ne(a[i].from, 3); /* nothing given to the joiner leaves it */
		ck_assert_uint_eq(a[i].to, 3);
		ck_assert_uint_eq(a[i].flags, PL_ACTION_STAGE_FIRST); /* it holds no replica */
	}
	/* 33 leaders over 4: the joiner ends with 8; a and b with 3 each. */
	ck_assert_uint_eq(bu_total(v, 3), 8);
	ck_assert_uint_eq(bu_count_kind(a, n, PL_ACTION_MOVE_LEADER, 0), 8);
	/* Then replicas: the joiner takes its share of every stream's, and
	 * none of those leave it either. */
	bu_expect_replicas_even(t, v);
	free(a);
	tl_free(t);
}
END_TEST

START_TEST(draining_member_hands_off_each_leader_once)
{
	tl *t = bu_new(3, NULL);
	static const uint32_t c[] = {4, 4, 4}, d[] = {2, 2, 2};
	bu_stream(t, "orders", c, 3, 3);
	bu_stream(t, "events", d, 3, 3);
	t->m[2].flags = PL_MEMBER_DRAINING;
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n, ticks;
	pl_action *a = bu_dry_shown(t, &cfg, &n, &info, &ticks);
	/* Three members, RF 3: the two others hold every shard already, so the
	 * drain cannot finish, and says so, naming a shard b2 still holds. */
	ck_assert_uint_eq(info.status, PL_STATUS_DRAIN_STALLED);
	ck_assert_uint_eq(info.blocked, 18);
	ck_assert(info.detail < t->nk);
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(ticks, 6); /* a hand-off is a move: one at a time */
	for (uint32_t i = 0; i < n; i++) {
		ck_assert_uint_eq(a[i].kind, PL_ACTION_MOVE_LEADER);
		ck_assert_uint_eq(a[i].reason, PL_REASON_DRAIN);
		ck_assert_uint_eq(a[i].from, 2);
		ck_assert_uint_eq(a[i].flags, 0); /* RF 3: the others are followers */
	}
	ck_assert_uint_eq(bu_most_moves(a, n, t->nk), 1);
	ck_assert_uint_eq(bu_lead(v, 0, 0), 6);
	ck_assert_uint_eq(bu_lead(v, 0, 1), 6);
	ck_assert_uint_eq(bu_lead(v, 1, 0), 3);
	ck_assert_uint_eq(bu_total(v, 2), 0);
	free(a);
	tl_free(t);
}
END_TEST

START_TEST(member_with_a_shard_cap_is_never_filled_past_it)
{
	uint32_t q;
	tl *t = bu_new(3, NULL);
	static const uint32_t c[] = {1, 1, 10};
	q = bu_stream(t, "perf-quorum", c, 3, 1); /* RF 1: every move copies */
	t->m[0].max_shards = 2;                   /* room for one more */
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n;
	pl_action *a = bu_dry_shown(t, &cfg, &n, &info, NULL);
	pl_tally y;
	pl_view_member_tally(v, 0, &y);
	ck_assert_uint_eq(y.replicas, 2);
	ck_assert_uint_eq(bu_lead(v, q, 0), 2);
	/* 12 over the three: b0 can hold 2, so b1 and b2 end 5 each. */
	ck_assert_uint_eq(bu_lead(v, q, 1), 5);
	ck_assert_uint_eq(bu_lead(v, q, 2), 5);
	ck_assert_uint_eq(info.status, PL_STATUS_BLOCKED_CAPS);
	free(a);
	tl_free(t);
}
END_TEST

START_TEST(zones_are_never_lost)
{
	static const char *const zones[] = {"za", "za", "zb", "zb"};
	tl *t = bu_new(4, zones);
	/* RF 2 spanning both zones; everything led by b0. */
	uint32_t s = tl_stream(t, "orders");
	for (int i = 0; i < 8; i++)
		tl_shard(t, tl_str(t, "orders/%02d", i), s, 0, 2, 0u, (uint32_t)(2 + i % 2));
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n;
	pl_action *a = bu_dry_shown(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_le(bu_spread(t, v, s), 0);
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state st;
		pl_view_shard_state(v, k, &st);
		ck_assert_uint_eq(st.replica_count, 2);
		uint32_t z0 = st.replicas[0] < 2, z1 = st.replicas[1] < 2;
		ck_assert_msg(z0 != z1, "shard %u lost a zone", k);
	}
	free(a);
	tl_free(t);
}
END_TEST

START_TEST(five_members_rf3_balance)
{
	static const char *const zones[] = {"z1", "z2", "z3", "z1", "z2"};
	tl *t = bu_new(5, zones);
	static const uint32_t s1[] = {10, 0, 0, 0, 0}, s2[] = {0, 6, 6, 0, 0}, s3[] = {3, 3, 3, 3, 3},
			      s4[] = {0, 0, 0, 1, 8};
	bu_stream(t, "s1", s1, 5, 3);
	bu_stream(t, "s2", s2, 5, 3);
	bu_stream(t, "s3", s3, 5, 3);
	bu_stream(t, "s4", s4, 5, 3);
	pl_view *v = tl_view(t, 0);
	uint32_t zones_before[64];
	for (uint32_t k = 0; k < t->nk; k++)
		zones_before[k] = bu_zones(t, v, k);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n;
	pl_action *a = bu_dry_shown(t, &cfg, &n, &info, NULL);
	/* Leaders even; replicas not: three zones for every shard and b2 alone
	 * in z3 means b2 holds a replica of each, whatever its share. */
	ck_assert_uint_eq(info.status, PL_STATUS_BLOCKED_ZONES);
	bu_expect_even(t, v);
	ck_assert_uint_eq(tl_member_tally(v, 2).replicas, t->nk);
	/* A shard of s2 reaches b0 only through its replica in b0's zone (z1):
	 * moving it there and on is the one way that keeps three zones. */
	ck_assert_uint_le(bu_most_moves(a, n, t->nk), 2);
	uint32_t copies = 0;
	for (uint32_t i = 0; i < n; i++)
		copies += a[i].flags == PL_ACTION_STAGE_FIRST;
	ck_assert_uint_gt(copies, 0); /* RF 3 of 5: some destinations hold no copy */
	for (uint32_t k = 0; k < t->nk; k++)
		ck_assert_uint_ge(bu_zones(t, v, k), zones_before[k]);
	free(a);
	tl_free(t);
}
END_TEST

Suite *suite(void);
Suite *suite(void)
{
	Suite *s = suite_create("broker_seed");
	TCase *c = tcase_create("seed");
	tcase_add_test(c, benchmark_layout_ends_4_4_4);
	tcase_add_test(c, red_first_cluster_totals_only_never_reach_4_4_4);
	tcase_add_test(c, new_stream_beside_6_6_0_is_placed_4_4_4_and_never_moves);
	tcase_add_test(c, five_skewed_streams_balance_with_no_shard_moving_twice);
	tcase_add_test(c, joining_member_gets_shards_that_stay);
	tcase_add_test(c, draining_member_hands_off_each_leader_once);
	tcase_add_test(c, member_with_a_shard_cap_is_never_filled_past_it);
	tcase_add_test(c, zones_are_never_lost);
	tcase_add_test(c, five_members_rf3_balance);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
