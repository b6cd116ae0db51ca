/* check_broker_scope.c - what both rebalancing passes share (broker_scope.c,
 * broker_offer.c): how sources and destinations rank and break ties
 * (projected totals in the stream pass), which candidate move wins,
 * weighted bounds, and, through broker_int.h, the destination list of the
 * stream pass and the spread fallback's rule. */
#include "broker_util.h"
#include "broker/broker_int.h"

/* A call's state as far as the helpers tested here read it: the view and
 * the configuration (no per-member limits, nothing in flight). */
static pl__bk bk_start(pl_view *v, const pl_broker_config *cfg)
{
	pl__bk b;
	memset(&b, 0, sizeof b);
	b.v = v;
	b.cfg = cfg;
	return b;
}

/* ---- ranking --------------------------------------------------------------- */

START_TEST(source_ties_go_to_the_most_leaders_in_total)
{
	tl *t = bu_new(3, NULL);
	static const uint32_t a4[] = {4, 4, 0}, b2[] = {0, 1, 1};
	bu_stream(t, "a", a4, 3, 3); /* 8 on 3: ceiling 3, b0 and b1 one over each */
	bu_stream(t, "b", b2, 3, 3); /* even; b1 leads 5 in total, b0 4 */
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	int n;
	pl_action *m = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(m[0].from, 1);
	ck_assert_uint_eq(m[0].to, 2);
	ck_assert_uint_eq(m[0].reason, PL_REASON_STREAM_SKEW);
	tl_free(t);
}
END_TEST

/* Ties between destinations go to the fewest projected leaders: where the
 * totals are headed once the streams' forced moves are made. Plain totals
 * would give b1 (0) before b0 (5); but b0 must hand 3 of "u" away and b1
 * take 2: projected, b0..b3 all end at 4, and the smaller id wins. */
START_TEST(destination_ties_go_to_the_fewest_projected_leaders)
{
	tl *t = bu_new(4, NULL);
	static const uint32_t a8[] = {0, 0, 0, 8}, u8[] = {5, 0, 0, 3};
	bu_stream(t, "a", a8, 4, 4);
	bu_stream(t, "u", u8, 4, 4);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	int n;
	pl_action *m = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(m[0].stream, 0);
	ck_assert_uint_eq(m[0].to, 0);
	/* The whole run: both streams even and the totals within one, in the
	 * fewest moves (a: 6, u: 4). */
	pl_view_settle(t->view);
	uint32_t k;
	pl_action *all = bu_dry(t, &cfg, &k, &info, NULL);
	ck_assert_uint_eq(k + 1, 10);
	ck_assert_uint_le(bu_spread(t, t->view, PL_NONE), 1);
	free(all);
	tl_free(t);
}
END_TEST

/* Three members; b2 leads all four shards of stream a, and holds 4 of its
 * replicas, b1 3, b0 1 (floor 2, ceiling 3): only a/02 has b0 as a
 * follower, the others b1. */
static tl *four_on_b2(uint32_t *s)
{
	tl *t = bu_new(3, NULL);
	*s = tl_stream(t, "a");
	for (uint32_t i = 0; i < 4; i++)
		tl_shard(t, tl_str(t, "a/%02u", i), *s, 2, 2, 2u, i == 2 ? 0u : 1u);
	return t;
}

START_TEST(a_follower_takes_it_first_then_the_larger_rise_in_draw)
{
	uint32_t s;
	/* Leaders only: with replica balance on, see the next test. */
	tl *t = four_on_b2(&s);
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.replica_balance = 0;
	pl_plan_info info;
	int n;
	pl_action *m = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	if (m[0].to == 0) {
		ck_assert_uint_eq(m[0].shard, 2);
		ck_assert_uint_eq(m[0].flags, 0);
	} else {
		ck_assert_uint_eq(m[0].to, 1); /* b1 follows all but a/02 */
		ck_assert_uint_ne(m[0].shard, 2);
		ck_assert_uint_eq(m[0].flags, 0);
	}
	tl_free(t);
	/* No follower anywhere (RF 1): the shard whose draw rises the most. */
	t = bu_new(2, NULL);
	s = tl_stream(t, "a");
	for (uint32_t i = 0; i < 6; i++)
		tl_shard(t, tl_str(t, "a/%02u", i), s, 1, 1, 1u);
	v = tl_view(t, 0);
	m = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(m[0].to, 0);
	ck_assert_uint_eq(m[0].flags, PL_ACTION_STAGE_FIRST);
	/* Recompute the rises here and check the winner (states before the move
	 * are the snapshot's, and the draws do not depend on the layout). */
	int64_t bestg = INT64_MIN;
	uint32_t bestk = PL_NONE;
	for (uint32_t k = 0; k < t->nk; k++) {
		pl__draw d0 = pl__view_draw(v, v->k_hash[k], 0), d1 = pl__view_draw(v, v->k_hash[k], 1);
		int64_t g = (int64_t)(d0.score >> 1) - (int64_t)(d1.score >> 1);
		if (g > bestg) {
			bestg = g;
			bestk = k;
		}
	}
	ck_assert_uint_eq(m[0].shard, bestk);
	tl_free(t);
}
END_TEST

/* With replica balance on, a leader move that takes the old leader's
 * replica along (a copy) is preferred to a hand-off to a follower when the
 * copy also brings the stream's replicas closer to their bounds: one move
 * where the hand-off would need a replica move after it. */
START_TEST(a_copy_that_serves_the_replicas_comes_before_a_follower)
{
	uint32_t s;
	tl *t = four_on_b2(&s);
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	int n;
	pl_action *m = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(m[0].to, 0);
	ck_assert_uint_ne(m[0].shard, 2);
	ck_assert_uint_eq(m[0].flags, PL_ACTION_STAGE_FIRST);
	ck_assert_uint_eq(tl_stream_tally(v, s, 2).replicas, 3);
	ck_assert_uint_eq(tl_stream_tally(v, s, 0).replicas, 2);
	/* The whole run: leaders 2/1/1 and replicas 3/3/2, in leader moves
	 * alone, none moved twice. */
	pl_view_settle(v);
	uint32_t k;
	pl_action *all = bu_dry(t, &cfg, &k, &info, NULL);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(bu_count_kind(all, k, PL_ACTION_MOVE_REPLICA, 0), 0);
	ck_assert_uint_le(bu_most_moves(all, k, t->nk), 1);
	free(all);
	tl_free(t);
}
END_TEST

/* ---- bounds ---------------------------------------------------------------- */

START_TEST(weighted_members_get_proportional_bounds)
{
	tl *t = bu_new(3, NULL);
	t->m[0].weight = 2;
	static const uint32_t a[] = {0, 8, 0};
	uint32_t s = bu_stream(t, "a", a, 3, 3);
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n;
	pl_action *m = bu_dry(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(bu_lead(v, s, 0), 4);
	ck_assert_uint_eq(bu_lead(v, s, 1), 2);
	ck_assert_uint_eq(bu_lead(v, s, 2), 2);
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(m[0].to, 0); /* furthest under its floor: 0 of 4 */
	ck_assert_uint_eq(m[0].floor, 4);
	free(m);
	tl_free(t);
}
END_TEST

/* ---- scopes through broker_int.h ------------------------------------------- */

/* The destination list of the stream pass keeps, best first, the best
 * destination with room of each zone, for at most `max` zones (that pass
 * asks for PL_MAX_REPLICAS: a shard's other replicas span at most 7 zones,
 * so one of the 8 is allowed and its search is exact). */
START_TEST(the_zone_list_keeps_the_best_destination_with_room_of_each_zone)
{
	static const char *const zones[] = {"z1", "z1", "z2", "z2", "z3", "z3"};
	tl *t = bu_new(6, zones);
	/* 18 leaders (RF 1) on 6: floor and ceiling 3; b0 is the one source. */
	static const uint32_t c[] = {12, 0, 1, 2, 2, 1};
	bu_stream(t, "a", c, 6, 1);
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl__bk b = bk_start(v, &cfg);
	pl__scope sc;
	pl__bk_scope_cluster(&b, &sc);
	ck_assert(sc.over && sc.under);
	pl__seen w = {0, 0, 0, 0, PL_NONE, 0, 0, 0};
	pl__dlist l = {0, PL_MAX_REPLICAS, 1, {0}, {0}};
	pl__bk_dests(&b, &sc, &l, &w);
	/* z1: b1 (3 under); z2: b2 (2) before b3 (1); z3: b5 (2) before b4 (1);
	 * b2 and b5 tie on keys and totals: the smaller id first. */
	ck_assert_uint_eq(l.n, 3);
	ck_assert_uint_eq(l.m[0], 1);
	ck_assert_uint_eq(l.key[0], 3);
	ck_assert_uint_eq(l.m[1], 2);
	ck_assert_uint_eq(l.m[2], 5);
	ck_assert_int_eq(w.caps, 0);
	/* Room for two zones: the best two. */
	pl__dlist two = {0, 2, 1, {0}, {0}};
	pl__bk_dests(&b, &sc, &two, &w);
	ck_assert_uint_eq(two.n, 2);
	ck_assert_uint_eq(two.m[0], 1);
	ck_assert_uint_eq(two.m[1], 2);
	/* b2 full: the next of its zone takes its place, and the cap is noted. */
	t->m[2].max_shards = 1;
	v = tl_view(t, 0);
	b = bk_start(v, &cfg);
	pl__bk_scope_cluster(&b, &sc);
	l.n = 0;
	pl__bk_dests(&b, &sc, &l, &w);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_uint_eq(l.m[0], 1);
	ck_assert_uint_eq(l.m[1], 5);
	ck_assert_uint_eq(l.m[2], 3);
	ck_assert_int_eq(w.caps, 1);
	tl_free(t);
}
END_TEST

/* The spread fallback pairs a source with a destination only when the move
 * lowers the sum of count^2 / weight: (2 c_a - 1) w_d > (2 c_d + 1) w_a. With
 * equal weights, when a leads at least two more; the first search pairs any. */
START_TEST(the_spread_fallback_pairs_lower_the_sum_of_squares_per_weight)
{
	tl *t = bu_new(5, NULL);
	t->m[3].weight = t->m[4].weight = 2;
	static const uint32_t c[] = {5, 3, 4, 4, 5};
	bu_stream(t, "a", c, 5, 1);
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl__bk b = bk_start(v, &cfg);
	pl__scope sc;
	pl__bk_scope_cluster(&b, &sc);
	sc.level = 2;
	ck_assert(pl__bk_pair_ok(v, &sc, 0, 0, 1, 0));  /* 5 -> 3 */
	ck_assert(!pl__bk_pair_ok(v, &sc, 0, 0, 2, 0)); /* 5 -> 4 */
	ck_assert(!pl__bk_pair_ok(v, &sc, 1, 0, 0, 0)); /* 3 -> 5 */
	ck_assert(pl__bk_pair_ok(v, &sc, 0, 0, 3, 0));  /* 5 -> 4 on weight 2 */
	ck_assert(!pl__bk_pair_ok(v, &sc, 4, 0, 1, 0)); /* 5 on weight 2 -> 3 */
	sc.level = 0;
	ck_assert(pl__bk_pair_ok(v, &sc, 0, 0, 2, 0));
	ck_assert(pl__bk_pair_ok(v, &sc, 4, 0, 1, 0));
	tl_free(t);
}
END_TEST

Suite *suite(void);
Suite *suite(void)
{
	Suite *s = suite_create("broker_scope");
	TCase *c = tcase_create("ranking");
	tcase_add_test(c, source_ties_go_to_the_most_leaders_in_total);
	tcase_add_test(c, destination_ties_go_to_the_fewest_projected_leaders);
	tcase_add_test(c, a_follower_takes_it_first_then_the_larger_rise_in_draw);
	tcase_add_test(c, a_copy_that_serves_the_replicas_comes_before_a_follower);
	suite_add_tcase(s, c);
	c = tcase_create("scopes");
	tcase_add_test(c, weighted_members_get_proportional_bounds);
	tcase_add_test(c, the_zone_list_keeps_the_best_destination_with_room_of_each_zone);
	tcase_add_test(c, the_spread_fallback_pairs_lower_the_sum_of_squares_per_weight);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
