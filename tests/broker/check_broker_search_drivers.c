/* check_broker_search_drivers.c - the drivers of broker_search.c: a scope's
 * moves until it wants none, stopping at max_moves, a full output or a
 * blocked scope; the cluster scope waiting for the streams. Driven through
 * broker_int.h with a scripted fill and move, then through pl_broker_plan
 * and pl_broker_dry_run (the statuses, a blocked stream not holding the
 * totals up), and a property on random layouts: the cluster moves only
 * after the streams, and keeps them as even. */
#include <stdlib.h>

#include "broker_util.h"
#include "broker_search_util.h"

/* ---- the drivers, scripted --------------------------------------------------- */

/* The scope a scripted fill reports: wanting a move while `wants` moves are
 * left; each scripted move makes one (spending the budget) or returns
 * move_rc once they are done. */
static int wants, move_rc, moves_made, fills;
static uint32_t filled_for;

static void scripted_fill(const pl__bk *b, uint32_t s, pl__scope *sc)
{
	(void)b;
	fills++;
	filled_for = s;
	*sc = scope(wants > 0, 0);
	sc->s = s;
}

static int scripted_move(pl__bk *b, const pl__scope *sc)
{
	ck_assert_int_gt(wants, 0); /* never called on a scope that wants nothing */
	ck_assert_uint_eq(sc->s, filled_for);
	if (move_rc != MV)
		return move_rc;
	b->budget--;
	wants--;
	moves_made++;
	return MV;
}

static void drive_script(int w, int rc)
{
	wants = w;
	move_rc = rc;
	moves_made = fills = 0;
}

START_TEST(a_driver_makes_a_scopes_moves_until_it_wants_none)
{
	pl_broker_config cfg = bu_cfg();
	pl__bk b = bk_call(NULL, &cfg, 10);
	int held = 0;
	drive_script(0, MV);
	ck_assert_int_eq(pl__bk_drive(&b, 3, scripted_fill, scripted_move, &held), 0);
	ck_assert_int_eq(held, 0);
	ck_assert_int_eq(moves_made, 0);
	drive_script(4, MV);
	ck_assert_int_eq(pl__bk_drive(&b, 3, scripted_fill, scripted_move, &held), 0);
	ck_assert_int_eq(moves_made, 4);
	ck_assert_int_eq(fills, 5); /* filled again after every move */
	ck_assert_int_eq(held, 1);
	ck_assert_uint_eq(b.budget, 6);
	ck_assert_uint_eq(b.want_limit + b.want_flight + b.blocked, 0);
}
END_TEST

START_TEST(a_driver_stops_the_pass_when_the_budget_is_spent)
{
	pl_broker_config cfg = bu_cfg();
	pl__bk b = bk_call(NULL, &cfg, 2);
	int held = 0;
	drive_script(5, MV);
	ck_assert_int_eq(pl__bk_drive(&b, 1, scripted_fill, scripted_move, &held), 1);
	ck_assert_int_eq(moves_made, 2);
	ck_assert_int_eq(held, 1);
	ck_assert_uint_eq(b.want_limit, 1);
	ck_assert_uint_eq(b.limit_member, PL_NONE); /* max_moves, not a member's limit */
	/* No budget at all: no search, the wait noted. */
	b = bk_call(NULL, &cfg, 0);
	held = 0;
	drive_script(1, MV);
	ck_assert_int_eq(pl__bk_drive(&b, 1, scripted_fill, scripted_move, &held), 1);
	ck_assert_int_eq(moves_made, 0);
	ck_assert_int_eq(held, 0);
	ck_assert_uint_eq(b.want_limit, 1);
	/* A scope that wants nothing does not wait on the budget. */
	b = bk_call(NULL, &cfg, 0);
	drive_script(0, MV);
	ck_assert_int_eq(pl__bk_drive(&b, 1, scripted_fill, scripted_move, &held), 0);
	ck_assert_uint_eq(b.want_limit, 0);
}
END_TEST

START_TEST(a_driver_stops_the_pass_on_a_full_output_and_the_scope_on_a_wait)
{
	pl_broker_config cfg = bu_cfg();
	pl__bk b = bk_call(NULL, &cfg, 5);
	int held = 0;
	drive_script(3, FU);
	ck_assert_int_eq(pl__bk_drive(&b, 0, scripted_fill, scripted_move, &held), 1);
	ck_assert_int_eq(held, 0);
	ck_assert_uint_eq(b.blocked, 0);
	/* A wait ends the scope, not the pass, and holds the cluster. */
	drive_script(3, WT);
	ck_assert_int_eq(pl__bk_drive(&b, 0, scripted_fill, scripted_move, &held), 0);
	ck_assert_int_eq(fills, 1);
	ck_assert_int_eq(held, 1);
	ck_assert_uint_eq(b.blocked, 0);
}
END_TEST

START_TEST(a_blocked_scope_is_noted_and_holds_nothing_up)
{
	pl_broker_config cfg = bu_cfg();
	pl__bk b = bk_call(NULL, &cfg, 5);
	int held = 0;
	drive_script(2, ZO);
	ck_assert_int_eq(pl__bk_drive(&b, 7, scripted_fill, scripted_move, &held), 0);
	ck_assert_int_eq(held, 0);
	ck_assert_uint_eq(b.block_zones, 1);
	ck_assert_uint_eq(b.block_scope, 7);
	drive_script(2, CA);
	ck_assert_int_eq(pl__bk_drive(&b, 9, scripted_fill, scripted_move, &held), 0);
	ck_assert_uint_eq(b.block_caps, 1);
	ck_assert_uint_eq(b.block_scope, 7); /* the first blocked scope */
	ck_assert_uint_eq(b.blocked, 2);
	/* Settled while it wants a move (leaders out of bounds, no move the
	 * rules allow): noted apart, so the other blocks keep their scope. */
	drive_script(2, SE);
	ck_assert_int_eq(pl__bk_drive(&b, 11, scripted_fill, scripted_move, &held), 0);
	ck_assert_uint_eq(b.blocked, 3);
	ck_assert_uint_eq(b.block_bounds, 1);
	ck_assert_uint_eq(b.bounds_scope, 11);
	ck_assert_uint_eq(b.block_scope, 7);
	ck_assert_int_eq(held, 0);
	ck_assert_uint_eq(b.want_limit + b.want_flight, 0);
	/* And the cluster runs after them. */
	drive_script(1, MV);
	ck_assert_int_eq(pl__bk_drive_cluster(&b, held, scripted_fill, scripted_move), 1);
	ck_assert_int_eq(moves_made, 1);
	ck_assert_uint_eq(filled_for, PL_NONE);
}
END_TEST

START_TEST(the_cluster_waits_for_the_streams_moves)
{
	pl_broker_config cfg = bu_cfg();
	pl__bk b = bk_call(NULL, &cfg, 5);
	/* Held: the cluster scope makes no move; IN_FLIGHT when it wants one. */
	drive_script(2, MV);
	ck_assert_int_eq(pl__bk_drive_cluster(&b, 1, scripted_fill, scripted_move), 1);
	ck_assert_int_eq(moves_made, 0);
	ck_assert_uint_eq(b.want_flight, 1);
	ck_assert_uint_eq(filled_for, PL_NONE);
	b = bk_call(NULL, &cfg, 5);
	drive_script(0, MV);
	ck_assert_int_eq(pl__bk_drive_cluster(&b, 1, scripted_fill, scripted_move), 1);
	ck_assert_uint_eq(b.want_flight, 0);
	/* Not held: its moves, 1 when it made one or waits, 0 when settled. */
	b = bk_call(NULL, &cfg, 5);
	drive_script(2, MV);
	ck_assert_int_eq(pl__bk_drive_cluster(&b, 0, scripted_fill, scripted_move), 1);
	ck_assert_int_eq(moves_made, 2);
	drive_script(1, WT);
	ck_assert_int_eq(pl__bk_drive_cluster(&b, 0, scripted_fill, scripted_move), 1);
	drive_script(1, SE);
	ck_assert_int_eq(pl__bk_drive_cluster(&b, 0, scripted_fill, scripted_move), 0);
	drive_script(0, MV);
	ck_assert_int_eq(pl__bk_drive_cluster(&b, 0, scripted_fill, scripted_move), 0);
	b = bk_call(NULL, &cfg, 1);
	drive_script(3, MV);
	ck_assert_int_eq(pl__bk_drive_cluster(&b, 0, scripted_fill, scripted_move), 1);
	ck_assert_uint_eq(b.want_limit, 1);
}
END_TEST

/* Stream a led 6/0/0, RF 1, on three members: four moves to 2/2/2. */
static tl *six_on_b0(void)
{
	tl *t = bu_new(3, NULL);
	static const uint32_t c[] = {6, 0, 0};
	bu_stream(t, "a", c, 3, 1);
	return t;
}

START_TEST(the_drivers_stop_at_max_moves_with_a_move_wanted)
{
	tl *t = six_on_b0();
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 3;
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 3);
	for (int i = 0; i < n; i++)
		ck_assert_uint_eq(a[i].reason, PL_REASON_STREAM_SKEW);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	ck_assert_uint_eq(info.detail, PL_NONE);
	ck_assert_uint_eq(info.wanted, 4);
	/* Enough moves: all four in one tick, then the totals wait for them. */
	tl_free(t);
	t = six_on_b0();
	tl_view(t, 0);
	cfg.max_moves = 8;
	a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 4);
	ck_assert_uint_ne(info.status, PL_STATUS_MOVE_LIMIT);
	tl_free(t);
}
END_TEST

START_TEST(the_drivers_stop_at_a_full_output)
{
	tl *t = six_on_b0();
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 8;
	pl_action out[2];
	pl_plan_info info;
	int n = pl_broker_plan(v, &cfg, out, 2, &info, NULL);
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(info.status, PL_STATUS_FULL);
	ck_assert_uint_eq(info.wanted, 3);
	ck_assert_uint_eq(bu_lead(v, 0, 0), 4); /* the view holds the two written */
	tl_free(t);
}
END_TEST

START_TEST(a_blocked_stream_does_not_hold_the_totals_up)
{
	/* Stream a: b0 leads 3 (RF 1), b1 and b2 at their caps: blocked by caps.
	 * The totals (b0 6, b1 0, b2 1) want a move, and b0's shards of no
	 * stream have b1 as a follower: the cluster pass hands one over in the
	 * same tick. */
	tl *t = bu_new(3, NULL);
	static const uint32_t c[] = {3, 0, 0};
	uint32_t s = bu_stream(t, "a", c, 3, 1);
	for (uint32_t i = 0; i < 3; i++)
		tl_shard(t, tl_str(t, "x/%02u", i), PL_NONE, 0, 2, 0u, 1u);
	tl_shard(t, "p", PL_NONE, 2, 1, 2u);
	t->m[1].max_shards = 3;
	t->m[2].max_shards = 1;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.replica_balance = 0;
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	bu_print(t, a, (uint32_t)n);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].reason, PL_REASON_CLUSTER_SKEW);
	ck_assert_uint_eq(a[0].from, 0);
	ck_assert_uint_eq(a[0].to, 1);
	ck_assert_uint_eq(a[0].flags, 0); /* to the follower: no copy */
	ck_assert_uint_ge(info.blocked, 1);
	/* The whole run ends with the stream still named as blocked. */
	pl_view_settle(t->view);
	uint32_t k;
	pl_action *all = bu_dry_shown(t, &cfg, &k, &info, NULL);
	ck_assert_uint_eq(info.status, PL_STATUS_BLOCKED_CAPS);
	ck_assert_uint_eq(info.detail, s);
	free(all);
	tl_free(t);
}
END_TEST

/* ---- properties through the public header ------------------------------------ */

/* Ticks on random layouts (equal weights, zones, caps, a draining member,
 * up to 8 moves a tick), each settled before the next: no tick that makes a
 * stream move makes a cluster move of the same kind (leaders, replicas),
 * since the cluster waits for the streams; and no cluster leader move
 * widens any stream's spread. */
START_TEST(property_the_cluster_moves_only_after_the_streams_and_keeps_them_as_even)
{
	uint64_t seed0 = tl_seed(0xc1a55u);
	uint32_t iters = tl_iters(250), cluster_moves = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		uint32_t nm = 3 + tl_below(&rng, 6);
		tl *t = tl_random(&rng, nm, 1 + tl_below(&rng, 4), 6 + tl_below(&rng, 60), 1 + tl_below(&rng, 3),
				  tl_below(&rng, 2));
		for (uint32_t m = 0; m < nm; m++)
			if (tl_below(&rng, 5) == 0)
				t->m[m].max_shards = 4 + tl_below(&rng, 20);
		if (tl_below(&rng, 4) == 0)
			t->m[tl_below(&rng, nm)].flags = PL_MEMBER_DRAINING;
		pl_broker_config cfg = bu_cfg();
		cfg.max_moves = 1 + tl_below(&rng, 8);
		cfg.replica_balance = tl_below(&rng, 3) != 0;
		pl_view *v = tl_view(t, 0);
		void *mem;
		pl_view *shadow = tl_view_fresh(t, &mem);
		for (uint32_t tick = 0; tick < 60; tick++) {
			int n;
			pl_plan_info info;
			pl_action *a = bu_plan(t, &cfg, &n, &info);
			if (n == 0)
				break;
			int lead_stream = 0, rep_stream = 0;
			for (int i = 0; i < n; i++) {
				uint32_t r = a[i].reason;
				lead_stream |= r == PL_REASON_STREAM_SKEW;
				rep_stream |= r == PL_REASON_REPLICA_STREAM_SKEW;
				if (r == PL_REASON_CLUSTER_SKEW || r == PL_REASON_REPLICA_CLUSTER_SKEW) {
					int stream_first = r == PL_REASON_CLUSTER_SKEW ? lead_stream : rep_stream;
					ck_assert_msg(!stream_first,
						      "seed %llu (PL_TEST_SEED=%llu PL_TEST_ITERS=1) tick %u: a cluster move (%s) after a stream move",
						      (unsigned long long)seed, (unsigned long long)seed, tick, tl_say(t, &a[i]));
				}
				uint32_t before[16];
				for (uint32_t s = 0; s < t->ns && s < 16; s++)
					before[s] = bu_spread(t, shadow, s);
				tl_apply(shadow, &a[i], 1);
				if (r != PL_REASON_CLUSTER_SKEW)
					continue;
				cluster_moves++;
				for (uint32_t s = 0; s < t->ns && s < 16; s++)
					ck_assert_msg(bu_spread(t, shadow, s) <= before[s],
						      "seed %llu (PL_TEST_SEED=%llu PL_TEST_ITERS=1) tick %u: %s widens stream %u from %u to %u",
						      (unsigned long long)seed, (unsigned long long)seed, tick, tl_say(t, &a[i]), s,
						      before[s], bu_spread(t, shadow, s));
			}
			pl_view_settle(v);
			pl_view_settle(shadow);
		}
		free(mem);
		tl_free(t);
	}
	/* The cluster pass had moves to make: a reach check, on a full run only
	 * (the streams' moves serve the totals, so a few layouts may need none). */
	if (iters >= 100)
		ck_assert_uint_gt(cluster_moves, iters / 10);
}
END_TEST

Suite *suite(void);
Suite *suite(void)
{
	Suite *s = suite_create("broker_search_drivers");
	TCase *c = tcase_create("drivers");
	tcase_add_test(c, a_driver_makes_a_scopes_moves_until_it_wants_none);
	tcase_add_test(c, a_driver_stops_the_pass_when_the_budget_is_spent);
	tcase_add_test(c, a_driver_stops_the_pass_on_a_full_output_and_the_scope_on_a_wait);
	tcase_add_test(c, a_blocked_scope_is_noted_and_holds_nothing_up);
	tcase_add_test(c, the_cluster_waits_for_the_streams_moves);
	tcase_add_test(c, the_drivers_stop_at_max_moves_with_a_move_wanted);
	tcase_add_test(c, the_drivers_stop_at_a_full_output);
	tcase_add_test(c, a_blocked_stream_does_not_hold_the_totals_up);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 60);
	tcase_add_test(c, property_the_cluster_moves_only_after_the_streams_and_keeps_them_as_even);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
