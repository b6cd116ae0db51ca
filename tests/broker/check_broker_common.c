/* check_broker_common.c - the broker policy's shared helpers
 * (broker_common.c): the zone rule a move keeps, the potential rule a move of
 * one count keeps (distance to the bounds, then count^2/weight), the
 * per-member limits on moves in and out (moves in flight counted), the move
 * budget, actions applied as they are written and a full output array, and
 * the first blocked scope a tick reports. The zone and potential rules are
 * read through the internal header: their exact edges (equal potentials,
 * weights) are not visible from a plan alone. */
#include <stdlib.h>

#include "broker_util.h"
#include "broker/broker_int.h"

/* ---- the zone rule ---------------------------------------------------------------- */

START_TEST(a_replacement_keeps_the_zone_count_unless_it_leaves_a_unique_zone_for_a_spanned_one)
{
	/* x: replicas b0 (za), b1 (za), b2 (zb). y: b0 (za), b2 (zb). b3 in zb,
	 * b4 in zc, b5 with no zone (a zone of its own). */
	static const char *const zones[] = {"za", "za", "zb", "zb", "zc", NULL};
	tl *t = bu_new(6, zones);
	uint32_t x = tl_shard(t, "x", PL_NONE, 0, 3, 0u, 1u, 2u);
	uint32_t y = tl_shard(t, "y", PL_NONE, 0, 2, 0u, 2u);
	pl_view *v = tl_view(t, 0);
	/* b0's zone is shared with b1: whoever takes its place keeps it. */
	ck_assert(pl__bk_zones_ok(v, x, 0, 3));
	ck_assert(pl__bk_zones_ok(v, x, 0, 4));
	/* b2 is alone in zb: another member of zb, or one of a zone the
	 * shard does not span, keeps the count. */
	ck_assert(pl__bk_zones_ok(v, x, 2, 3));
	ck_assert(pl__bk_zones_ok(v, x, 2, 4));
	ck_assert(pl__bk_zones_ok(v, x, 2, 5));
	ck_assert(!pl__bk_zones_ok(v, y, 2, 1)); /* za is spanned by b0 */
	ck_assert(!pl__bk_zones_ok(v, y, 0, 3)); /* zb is spanned by b2 */
	ck_assert(pl__bk_zones_ok(v, y, 0, 1));  /* za for za */
	/* A member already holding the shard changes nothing. */
	ck_assert(pl__bk_zones_ok(v, y, 0, 2));
	tl_free(t);
}
END_TEST

/* ---- the potential rule -------------------------------------------------------------- */

/* A view of members with these weights (and no shards): the bounds of any
 * count over them come from pl__bounds(). */
static tl *weighted(const uint32_t *w, uint32_t n)
{
	tl *t = bu_new(n, NULL);
	for (uint32_t m = 0; m < n; m++)
		t->m[m].weight = w[m];
	tl_view(t, 0);
	return t;
}

START_TEST(a_move_must_lower_the_distance_or_keep_it_and_not_raise_the_squares)
{
	static const uint32_t eq[] = {1, 1, 1};
	tl *t = weighted(eq, 3);
	pl_view *v = t->view;
	/* 12 over 3: floor and ceiling 4. */
	ck_assert(pl__bk_no_rise(v, 12, 0, 0, 6, 1, 2));  /* distance 4 -> 2 */
	ck_assert(pl__bk_no_rise(v, 12, 0, 0, 5, 1, 3));  /* 2 -> 0 */
	ck_assert(!pl__bk_no_rise(v, 12, 0, 0, 4, 1, 4)); /* 0 -> 2 */
	ck_assert(!pl__bk_no_rise(v, 12, 0, 0, 0, 1, 0)); /* nothing to give */
	/* 13 over 3: floor 4, ceiling 5. 5 -> 4 beside 4 -> 5 keeps the
	 * distance and the squares: allowed (not a rise); 5 beside 5 is not. */
	ck_assert(pl__bk_no_rise(v, 13, 0, 0, 5, 1, 4));
	ck_assert(!pl__bk_no_rise(v, 13, 0, 0, 5, 1, 5));
	ck_assert(!pl__bk_no_rise(v, 13, 0, 0, 4, 1, 4)); /* the giver falls under its floor */
	ck_assert(pl__bk_no_rise(v, 13, 0, 0, 6, 1, 3));  /* one over and one under: both end inside */
	tl_free(t);
	/* Weights 1 and 3, 9 shards: b0's bounds 2..3, b1's 6..7. Both moves
	 * keep the distance at 0; toward the heavier member the sum of
	 * count^2/weight falls (9 + 12 to 4 + 16.3), away from it it rises. */
	static const uint32_t w13[] = {1, 3};
	t = weighted(w13, 2);
	v = t->view;
	ck_assert(pl__bk_no_rise(v, 9, 0, 0, 3, 1, 6));
	ck_assert(!pl__bk_no_rise(v, 9, 0, 1, 7, 0, 2));
	tl_free(t);
}
END_TEST

START_TEST(a_kept_move_also_keeps_the_giver_at_its_floor_and_the_taker_at_its_ceiling)
{
	static const uint32_t eq[] = {1, 1, 1};
	tl *t = weighted(eq, 3);
	pl_view *v = t->view;
	/* 12 over 3: bounds 4 and 4. */
	ck_assert(pl__bk_keeps(v, 12, 0, 0, 5, 1, 3));
	ck_assert(!pl__bk_keeps(v, 12, 0, 0, 4, 1, 3)); /* the giver would fall under its floor */
	/* A tolerance of 1 widens them to 3 and 5: the giver stays within. */
	ck_assert(pl__bk_keeps(v, 12, 1, 0, 4, 1, 3));
	/* 6 -> 5 beside 4 -> 5: the potential does not rise (distance 2 to
	 * 2, squares 52 to 50), but the taker passes its ceiling. */
	ck_assert(pl__bk_no_rise(v, 12, 0, 0, 6, 1, 4));
	ck_assert(!pl__bk_keeps(v, 12, 0, 0, 6, 1, 4));
	/* Widened to 3 and 5: 3 -> 2 beside 5 -> 6 takes both outside (0 to
	 * 2); 5 -> 4 beside 4 -> 5 keeps both within. */
	ck_assert(!pl__bk_no_rise(v, 12, 1, 1, 3, 0, 5));
	ck_assert(pl__bk_no_rise(v, 12, 1, 0, 5, 1, 4));
	tl_free(t);
}
END_TEST

/* ---- the move budget and the per-member limits ------------------------------------ */

/* orders led 6/0/0/0 on b0..b3 (RF 1), and maybe a shard in flight from
 * b0 to b3. */
static tl *skewed(int in_flight)
{
	tl *t = bu_new(4, NULL);
	static const uint32_t c[] = {6, 0, 0, 0};
	uint32_t s = bu_stream(t, "orders", c, 4, 1);
	if (in_flight) {
		uint32_t k = tl_shard(t, "orders/x", s, 0, 1, 0u);
		t->k[k].moving_to = 3;
	}
	return t;
}

START_TEST(max_moves_counts_the_moves_in_flight)
{
	tl *t = skewed(1);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	int n;
	pl_plan_info info;
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 0); /* the one move allowed is in flight */
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	ck_assert_uint_eq(info.detail, PL_NONE);
	ck_assert_uint_eq(info.wanted, 1);
	cfg.max_moves = 3;
	tl_view(t, 0);
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	tl_free(t);
}
END_TEST

START_TEST(max_moves_in_and_out_hold_per_member_with_moves_in_flight_counted)
{
	/* Room for eight moves: each member takes at most one, b3 none (a move
	 * into it is in flight). */
	tl *t = skewed(1);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 8;
	cfg.max_moves_in = 1;
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	uint32_t into[4] = {0};
	for (int i = 0; i < n; i++)
		if (a[i].kind == PL_ACTION_MOVE_LEADER)
			into[a[i].to]++;
	ck_assert_uint_eq(into[1], 1);
	ck_assert_uint_eq(into[2], 1);
	ck_assert_uint_eq(into[3], 0);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	ck_assert(info.detail >= 1 && info.detail <= 3);
	/* Out of b0: two, counting the one in flight. */
	cfg.max_moves_in = 0;
	cfg.max_moves_out = 2;
	tl_view(t, 0);
	a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].from, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	ck_assert_uint_eq(info.detail, 0);
	/* Without limits, the budget alone. */
	cfg.max_moves_out = 0;
	tl_view(t, 0);
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_ge(n, 3);
	tl_free(t);
}
END_TEST

START_TEST(a_tick_waiting_on_several_limits_names_the_first_member)
{
	/* b0 and b1 drain, two shards each, one move out of each at a time:
	 * a/1 waits on b0 before b/1 waits on b1 (key order). */
	tl *t = bu_new(4, NULL);
	tl_shard(t, "a/0", PL_NONE, 0, 1, 0u);
	tl_shard(t, "a/1", PL_NONE, 0, 1, 0u);
	tl_shard(t, "b/0", PL_NONE, 1, 1, 1u);
	tl_shard(t, "b/1", PL_NONE, 1, 1, 1u);
	t->m[0].flags = t->m[1].flags = PL_MEMBER_DRAINING;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 8;
	cfg.max_moves_out = 1;
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(a[0].from, 0);
	ck_assert_uint_eq(a[1].from, 1);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	ck_assert_uint_eq(info.detail, 0);
	tl_free(t);
}
END_TEST

/* ---- writing actions -------------------------------------------------------------------- */

/* Tallies of two views agree, member by member and stream by stream. */
static void same_tallies(const tl *t, const pl_view *a, const pl_view *b, uint32_t cap)
{
	for (uint32_t m = 0; m < t->nm; m++) {
		pl_tally x = tl_member_tally(a, m), y = tl_member_tally(b, m);
		ck_assert_msg(x.leaders == y.leaders && x.replicas == y.replicas, "cap %u: member %u", cap, m);
		for (uint32_t s = 0; s < t->ns; s++) {
			x = tl_stream_tally(a, s, m);
			y = tl_stream_tally(b, s, m);
			ck_assert_msg(x.leaders == y.leaders && x.replicas == y.replicas, "cap %u: stream %u member %u", cap,
				      s, m);
		}
	}
}

START_TEST(a_full_output_stops_and_the_view_holds_exactly_what_was_written)
{
	uint32_t q;
	tl *t = bu_benchmark(&q);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 8;
	pl_action all[64];
	pl_plan_info info;
	int total = pl_broker_plan(tl_view(t, 0), &cfg, all, 64, &info, NULL);
	ck_assert_int_ge(total, 4);
	ck_assert_uint_ne(info.status, PL_STATUS_FULL);
	for (uint32_t cap = 0; cap < (uint32_t)total; cap++) {
		pl_action out[64];
		pl_view *v = tl_view(t, 0);
		int n = pl_broker_plan(v, &cfg, out, cap, &info, NULL);
		ck_assert_int_eq(n, (int)cap);
		ck_assert_uint_eq(info.status, PL_STATUS_FULL);
		ck_assert_uint_eq(info.written, cap);
		ck_assert_uint_eq(info.wanted, cap + 1);
		ck_assert_int_eq(memcmp(out, all, cap * sizeof *out), 0);
		/* A fresh view with the written actions applied is the view the
		 * call left: each was applied as it was written, none after. */
		void *mem;
		pl_view *w = tl_view_fresh(t, &mem);
		tl_apply(w, out, cap);
		same_tallies(t, v, w, cap);
		free(mem);
	}
	tl_free(t);
}
END_TEST

/* ---- blocked scopes ----------------------------------------------------------------------- */

START_TEST(a_blocked_tick_names_the_first_blocked_scope)
{
	/* Streams a (3/0/0) and b (5/0/0), RF 1, on b0; b1 and b2 are at
	 * their caps. Every move copies and is blocked by caps. The stream
	 * pass takes the worse hotspot first: b is the scope named, though a
	 * has the smaller id and the scopes after it are blocked too. */
	tl *t = bu_new(3, NULL);
	static const uint32_t ca[] = {3, 0, 0}, cb[] = {5, 0, 0};
	bu_stream(t, "a", ca, 3, 1);
	uint32_t sb = bu_stream(t, "b", cb, 3, 1);
	for (uint32_t m = 1; m < 3; m++) {
		tl_shard(t, tl_str(t, "pad%u", m), PL_NONE, m, 1, m);
		t->m[m].max_shards = 1;
	}
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	int n;
	pl_plan_info info;
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_BLOCKED_CAPS);
	ck_assert_uint_eq(info.detail, sb);
	ck_assert_uint_ge(info.blocked, 2);
	tl_free(t);
}
END_TEST

/* ---- properties -------------------------------------------------------------------- */

/* One tick on random layouts with zones, caps, a draining member, moves in
 * flight and random limits: the moves started (every MOVE_LEADER but a
 * failover's, every MOVE_REPLICA) stay within max_moves less the moves in
 * flight, and within each member's max_moves_in and max_moves_out with its
 * moves in flight counted; and no move by balance, replica drain or zone
 * repair lowers its shard's zone count (replayed on a copy of the view). */
START_TEST(property_a_tick_keeps_the_budget_the_limits_and_the_zones)
{
	uint64_t seed0 = tl_seed(0xc0aa0u);
	uint32_t iters = tl_iters(300), moves_seen = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		uint32_t nm = 3 + tl_below(&rng, 7);
		tl *t = tl_random(&rng, nm, 1 + tl_below(&rng, 3), 4 + tl_below(&rng, 50), 1 + tl_below(&rng, 3),
				  tl_below(&rng, 2));
		if (tl_below(&rng, 2))
			t->m[tl_below(&rng, nm)].flags = PL_MEMBER_DRAINING;
		for (uint32_t m = 0; m < nm; m++)
			if (tl_below(&rng, 4) == 0)
				t->m[m].max_shards = t->nk / 2 + tl_below(&rng, t->nk);
		uint32_t in[16] = {0}, out[16] = {0}, flying = 0;
		for (uint32_t k = 0; k < t->nk; k++) {
			uint32_t to = tl_below(&rng, nm);
			if (tl_below(&rng, 8) || to == t->k[k].leader)
				continue;
			t->k[k].moving_to = to;
			in[to]++;
			out[t->k[k].leader]++;
			flying++;
		}
		pl_broker_config cfg = bu_cfg();
		cfg.max_moves = 1 + tl_below(&rng, 10);
		cfg.max_moves_in = tl_below(&rng, 3);
		cfg.max_moves_out = tl_below(&rng, 3);
		void *mem;
		pl_view *v = tl_view(t, 0), *w = tl_view_clone(t, v, &mem);
		int n;
		pl_plan_info info;
		pl_action *a = bu_plan(t, &cfg, &n, &info);
		uint32_t started = 0;
		for (int i = 0; i < n; i++) {
			const pl_action *x = &a[i];
			int move = x->kind == PL_ACTION_MOVE_REPLICA ||
				   (x->kind == PL_ACTION_MOVE_LEADER && x->reason != PL_REASON_FAILOVER);
			uint32_t before = bu_zones(t, w, x->shard);
			ck_assert_msg(pl_view_apply(w, x) == 0, "seed %llu: action %d does not apply",
				      (unsigned long long)seed, i);
			if (!move)
				continue;
			started++;
			in[x->to]++;
			out[x->from]++;
			ck_assert_msg(cfg.max_moves_in == 0 || in[x->to] <= cfg.max_moves_in,
				      "seed %llu: %u moves into %u, limit %u", (unsigned long long)seed, in[x->to], x->to,
				      cfg.max_moves_in);
			ck_assert_msg(cfg.max_moves_out == 0 || out[x->from] <= cfg.max_moves_out,
				      "seed %llu: %u moves out of %u, limit %u", (unsigned long long)seed, out[x->from],
				      x->from, cfg.max_moves_out);
			if (x->reason != PL_REASON_DRAIN)
				ck_assert_msg(bu_zones(t, w, x->shard) >= before, "seed %llu: %s of shard %u: zones %u -> %u",
					      (unsigned long long)seed, pl_reason_name(x->reason), x->shard, before,
					      bu_zones(t, w, x->shard));
		}
		ck_assert_msg(started + flying <= cfg.max_moves || started == 0,
			      "seed %llu: %u moves started, %u in flight, max_moves %u", (unsigned long long)seed, started,
			      flying, cfg.max_moves);
		moves_seen += started;
		free(mem);
		tl_free(t);
	}
	ck_assert_uint_gt(moves_seen, iters);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("broker_common");
	TCase *c = tcase_create("rules");
	tcase_add_test(c, a_replacement_keeps_the_zone_count_unless_it_leaves_a_unique_zone_for_a_spanned_one);
	tcase_add_test(c, a_move_must_lower_the_distance_or_keep_it_and_not_raise_the_squares);
	tcase_add_test(c, a_kept_move_also_keeps_the_giver_at_its_floor_and_the_taker_at_its_ceiling);
	suite_add_tcase(s, c);
	c = tcase_create("limits");
	tcase_add_test(c, max_moves_counts_the_moves_in_flight);
	tcase_add_test(c, max_moves_in_and_out_hold_per_member_with_moves_in_flight_counted);
	tcase_add_test(c, a_tick_waiting_on_several_limits_names_the_first_member);
	suite_add_tcase(s, c);
	c = tcase_create("output");
	tcase_add_test(c, a_full_output_stops_and_the_view_holds_exactly_what_was_written);
	tcase_add_test(c, a_blocked_tick_names_the_first_blocked_scope);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 60);
	tcase_add_test(c, property_a_tick_keeps_the_budget_the_limits_and_the_zones);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
