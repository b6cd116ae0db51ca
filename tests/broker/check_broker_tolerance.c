/* check_broker_tolerance.c - tolerances (broker config version 4, snapshot
 * version 5): a stream's or the totals' bounds widened by that many shards.
 * A move is made only to bring a member within the widened bounds; a layout
 * within them is balanced as it is. The snapshot's stream_tolerance sets a
 * stream's, PL_TOLERANCE_DEFAULT leaves it to the config. Refusals name the
 * field or the stream. Random layouts (seed printed: PL_TEST_SEED replays):
 * every count ends within its widened bounds, the tick loop equals the dry
 * run, and a tolerance never costs more moves than none. */
#include "broker_util.h"

/* Stream s's 12 shards led `lead` on b0, b1, b2 (RF 1: leaders only). */
static tl *three(const uint32_t lead[3])
{
	tl *t = bu_new(3, NULL);
	bu_stream(t, "s", lead, 3, 1);
	return t;
}

START_TEST(within_the_widened_bounds_nothing_moves)
{
	static const uint32_t lead[3] = {5, 4, 3}; /* floor and ceiling 4 */
	tl *t = three(lead);
	pl_broker_config cfg = bu_cfg();
	pl_action out[16];
	uint32_t status;
	/* no tolerance: one move, 5/4/3 -> 4/4/4 */
	ck_assert_uint_eq(bu_dry_run(t, &cfg, out, 16, &status), 1);
	ck_assert_uint_eq(status, PL_STATUS_BALANCED);
	/* a tolerance of 1 for every stream and for the totals: 5 and 3 are
	 * within [3, 5]: balanced as it is */
	cfg.stream_tolerance = 1;
	cfg.tolerance = 1;
	ck_assert_uint_eq(bu_dry_run(t, &cfg, out, 16, &status), 0);
	ck_assert_uint_eq(status, PL_STATUS_BALANCED);
	/* the stream's alone is not enough: the totals (the same counts) want 4/4/4 */
	cfg.tolerance = 0;
	ck_assert_uint_eq(bu_dry_run(t, &cfg, out, 16, &status), 1);
	tl_free(t);
}
END_TEST

START_TEST(a_move_stops_at_the_widened_bound)
{
	static const uint32_t lead[3] = {7, 4, 1}; /* floor and ceiling 4 */
	tl *t = three(lead);
	pl_broker_config cfg = bu_cfg();
	cfg.stream_tolerance = 2;
	cfg.tolerance = 2;
	pl_action out[16];
	uint32_t status;
	/* widened to [2, 6]: one move from b0 (7) to b2 (1) brings both within */
	uint32_t n = bu_dry_run(t, &cfg, out, 16, &status);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(out[0].from, 0);
	ck_assert_uint_eq(out[0].to, 2);
	/* the action reports the widened bounds it served */
	ck_assert_uint_eq(out[0].floor, 2);
	ck_assert_uint_eq(out[0].ceiling, 6);
	/* without a tolerance: three moves to 4/4/4 */
	cfg.stream_tolerance = cfg.tolerance = 0;
	ck_assert_uint_eq(bu_dry_run(t, &cfg, out, 16, &status), 3);
	tl_free(t);
}
END_TEST

/* Weighted members: a (weight 1) and b (weight 3) share 8 leaders 2 and
 * 6; a leads 4. A tolerance of 1 widens a's ceiling to 3 (one move), of 2
 * to 4 (none). */
START_TEST(weighted_bounds_widen_alike)
{
	tl *t = tl_new();
	uint32_t a = tl_member(t, "a", NULL), b = tl_member(t, "b", NULL);
	t->m[b].weight = 3;
	uint32_t s = tl_stream(t, "s");
	for (uint32_t i = 0; i < 8; i++)
		tl_shard(t, tl_str(t, "s/%u", i), s, i < 4 ? a : b, 1, i < 4 ? a : b);
	pl_broker_config cfg = bu_cfg();
	pl_action out[16];
	uint32_t status;
	ck_assert_uint_eq(bu_dry_run(t, &cfg, out, 16, &status), 2);
	cfg.tolerance = cfg.stream_tolerance = 1;
	ck_assert_uint_eq(bu_dry_run(t, &cfg, out, 16, &status), 1);
	ck_assert_uint_eq(out[0].from, a);
	ck_assert_uint_eq(out[0].ceiling, 7); /* b's: 6 + 1 */
	cfg.tolerance = cfg.stream_tolerance = 2;
	ck_assert_uint_eq(bu_dry_run(t, &cfg, out, 16, &status), 0);
	ck_assert_uint_eq(status, PL_STATUS_BALANCED);
	tl_free(t);
}
END_TEST

/* The snapshot's stream_tolerance sets each stream's; PL_TOLERANCE_DEFAULT
 * takes the config's. Two streams skewed alike, one tolerant. */
START_TEST(the_snapshot_sets_a_stream_s_tolerance)
{
	static const uint32_t lead[3] = {5, 4, 3}, flip[3] = {3, 4, 5};
	tl *t = bu_new(3, NULL);
	uint32_t a = bu_stream(t, "a", lead, 3, 1), b = bu_stream(t, "b", flip, 3, 1);
	uint32_t tol[2];
	tol[a] = 1;
	tol[b] = PL_TOLERANCE_DEFAULT;
	t->snap.stream_tolerance = tol;
	pl_broker_config cfg = bu_cfg();
	pl_action out[16];
	uint32_t status;
	/* a tolerates 5/4/3; b takes the config's 0 and moves once; the
	 * totals (8/8/8) stay even only if b's move leaves them so: b's move
	 * goes from b2 to b0 and the totals end 9/8/7, so the totals' own
	 * tolerance of 1 keeps them */
	cfg.tolerance = 1;
	uint32_t n = bu_dry_run(t, &cfg, out, 16, &status);
	ck_assert_uint_eq(status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(t->k[out[0].shard].stream, b);
	/* the config's stream tolerance of 1 reaches b too: nothing moves */
	cfg.stream_tolerance = 1;
	ck_assert_uint_eq(bu_dry_run(t, &cfg, out, 16, &status), 0);
	/* the snapshot's 0 for a overrides the config's 1 */
	tol[a] = 0;
	n = bu_dry_run(t, &cfg, out, 16, &status);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(t->k[out[0].shard].stream, a);
	tl_free(t);
}
END_TEST

START_TEST(refused_tolerances_name_their_field_or_stream)
{
	static const uint32_t lead[3] = {5, 4, 3};
	tl *t = three(lead);
	pl_broker_config cfg = bu_cfg();
	pl_action out[4];
	pl_plan_info info;
	pl_diag d;
	memset(out, 0x5a, sizeof out);
	cfg.tolerance = PL_MAX_TOLERANCE + 1;
	ck_assert_int_eq(pl_broker_plan(tl_view(t, 0), &cfg, out, 4, &info, &d), PL_E_CONFIG);
	ck_assert_uint_eq(d.kind, PL_ELEM_CONFIG);
	ck_assert_uint_eq(d.index, 17);
	cfg.tolerance = PL_MAX_TOLERANCE;
	cfg.stream_tolerance = PL_MAX_TOLERANCE + 1;
	ck_assert_int_eq(pl_broker_plan(tl_view(t, 0), &cfg, out, 4, &info, &d), PL_E_CONFIG);
	ck_assert_uint_eq(d.index, 18);
	ck_assert_uint_eq(out[0].kind, 0x5a5a5a5au);
	/* the largest tolerances plan (nothing moves) */
	cfg.stream_tolerance = PL_MAX_TOLERANCE;
	ck_assert_int_eq(pl_broker_plan(tl_view(t, 0), &cfg, out, 4, &info, &d), 0);
	/* a stream's past PL_MAX_TOLERANCE: PL_E_TOLERANCE naming it */
	uint32_t tol[1] = {PL_MAX_TOLERANCE + 1};
	t->snap.stream_tolerance = tol;
	char work[4096];
	ck_assert_uint_le(pl_snapshot_work_size(tl_snap(t)), sizeof work);
	ck_assert_int_eq(pl_snapshot_validate(tl_snap(t), work, sizeof work, &d), PL_E_TOLERANCE);
	ck_assert_uint_eq(d.kind, PL_ELEM_STREAM);
	ck_assert_uint_eq(d.index, 0);
	ck_assert_int_eq(tl_view_rc(t, 0, &d), PL_E_TOLERANCE);
	tol[0] = PL_TOLERANCE_DEFAULT;
	ck_assert_int_eq(tl_view_rc(t, 0, &d), 0);
	/* a zone rule past PL_ZONES_RULE_MAX: PL_E_ZONE_RULE naming it */
	uint32_t rule[1] = {PL_ZONES_RULE_MAX + 1};
	t->snap.stream_zone_rule = rule;
	ck_assert_int_eq(tl_view_rc(t, 0, &d), PL_E_ZONE_RULE);
	ck_assert_uint_eq(d.kind, PL_ELEM_STREAM);
	ck_assert_uint_eq(d.index, 0);
	/* a version 3 snapshot ends before the rules: they are not read */
	t->snap.version = 3;
	ck_assert_int_eq(tl_view_rc(t, 0, &d), 0);
	t->snap.version = PL_SNAPSHOT_VERSION;
	t->snap.stream_zone_rule = NULL;
	tl_free(t);
}
END_TEST

/* Is every eligible member's count of scope s (a stream, PL_NONE: the
 * totals; leaders, or replicas with rep) within [floor - tol, ceiling +
 * tol], floor and ceiling its weighted share? */
static int within(const tl *t, const pl_view *v, uint32_t s, int rep, uint32_t tol)
{
	uint64_t L = 0, W = 0;
	uint32_t c[64];
	for (uint32_t m = 0; m < t->nm; m++) {
		pl_tally x = s == PL_NONE ? tl_member_tally(v, m) : tl_stream_tally(v, s, m);
		c[m] = rep ? x.replicas : x.leaders;
		if (bu_eligible(t, m)) {
			L += c[m];
			W += t->m[m].weight ? t->m[m].weight : 1;
		}
	}
	/* Each member's weighted share, floor and ceiling, widened by tol. */
	for (uint32_t m = 0; m < t->nm; m++) {
		uint64_t num = L * (t->m[m].weight ? t->m[m].weight : 1);
		uint64_t fl = num / W, ce = (num + W - 1) / W;
		fl = fl > tol ? fl - tol : 0;
		if (bu_eligible(t, m) && (c[m] < fl || c[m] > ce + tol))
			return 0;
	}
	return 1;
}

/* A move of another scope honours a stream's widened bounds. b11 (weight 4)
 * holds 2 of stream s's 9 replicas (floor 3 widened from 4, ceiling 5);
 * the totals want replicas off b11, the stream wants them on. Measured on
 * the unwidened bounds the cluster pass saw a move b11 -> b9 as keeping the
 * stream's potential, and the stream pass moved it back: the same copy, back
 * and forth, every tick. Now the plan ends, and nothing comes back. */
START_TEST(a_cluster_move_keeps_a_stream_within_its_widened_bounds)
{
	tl *t = tl_new();
	uint32_t b0 = tl_member(t, "b0", NULL), b4 = tl_member(t, "b4", NULL), b8 = tl_member(t, "b8", NULL);
	tl_member(t, "b9", "z1");
	uint32_t b10 = tl_member(t, "b10", NULL), b11 = tl_member(t, "b11", "z1");
	t->m[b11].weight = 4;
	uint32_t s = tl_stream(t, "s");
	tl_shard(t, "s/11", s, b4, 3, b4, b11, b10);
	tl_shard(t, "s/12", s, b4, 3, b4, b8, b11);
	tl_shard(t, "s/13", s, b0, 3, b0, b10, b8);
	pl_broker_config cfg = bu_cfg();
	cfg.stream_tolerance = 1;
	pl_action out[64];
	uint32_t status, len;
	uint32_t n = bu_dry_run(t, &cfg, out, 64, &status);
	ck_assert_msg(n <= 4, "%u actions: the plan did not end", n);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = i + 1; j < n; j++)
			ck_assert_msg(!(out[j].shard == out[i].shard && out[j].from == out[i].to && out[j].to == out[i].from),
				      "action %u undoes action %u: %s", j, i, tl_say(t, &out[j]));
	ck_assert_int_eq(bu_loop_differs(t, &cfg, &len), -1);
	tl_free(t);
}
END_TEST

/* Random layouts (weights on a third of them; no zones, caps, drains or
 * down members): with tolerances of 0 to 3, every plan ends; one that ends
 * balanced has every count
 * within its widened bounds; the tick loop equals the dry run; the moves
 * made are never more than with no tolerance, summed over the layouts. */
START_TEST(random_layouts_end_within_the_widened_bounds)
{
	uint64_t seed = tl_seed(0x7013u), rng = seed;
	uint32_t iters = tl_iters(300), balanced = 0, fewer = 0;
	uint64_t moves0 = 0, moves = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint32_t nm = 3 + tl_below(&rng, 6), ns = 1 + tl_below(&rng, 4);
		tl *t = tl_random(&rng, nm, ns, 6 + tl_below(&rng, 60), 1 + tl_below(&rng, 3), 0);
		int weighted = tl_below(&rng, 3) == 0; /* the bounds of one scope differ member by member */
		for (uint32_t m = 0; m < nm && weighted; m++)
			t->m[m].weight = 1 + tl_below(&rng, 4);
		pl_broker_config cfg = bu_cfg();
		cfg.max_moves = 1 + tl_below(&rng, 3);
		cfg.replica_balance = tl_below(&rng, 3) != 0;
		pl_action *out = malloc(BU_LOOP_CAP * sizeof *out);
		ck_assert_ptr_nonnull(out);
		uint32_t status;
		uint32_t n0 = bu_dry_run(t, &cfg, out, BU_LOOP_CAP, &status);
		cfg.tolerance = tl_below(&rng, 4);
		cfg.stream_tolerance = tl_below(&rng, 4);
		uint32_t n, len;
		pl_plan_info info;
		tl_view(t, 0);
		pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
		ck_assert_msg(n < BU_LOOP_CAP, "seed %llu (layout %u, PL_TEST_SEED replays): %u actions, the plan did not end",
			      (unsigned long long)seed, it, n);
		if (info.status == PL_STATUS_BALANCED) {
			balanced++;
			for (uint32_t st = 0; st <= t->ns; st++) {
				uint32_t sc = st < t->ns ? st : PL_NONE, tol = sc == PL_NONE ? cfg.tolerance : cfg.stream_tolerance;
				/* With weights, a heavy member's share of the replicas may pass
				 * one a shard, and the totals may be held by the streams'
				 * bounds ("as even as the streams permit"): only the
				 * streams' leaders can always be met. */
				if (weighted && sc == PL_NONE)
					continue;
				for (int rep = 0; rep <= (int)(cfg.replica_balance && !weighted); rep++)
					ck_assert_msg(within(t, t->view, sc, rep, tol),
						      "seed %llu (layout %u, PL_TEST_SEED replays): balanced, but %s %u's %s "
						      "stray past a tolerance of %u",
						      (unsigned long long)seed, it, st < t->ns ? "stream" : "the totals", st,
						      rep ? "replicas" : "leaders", tol);
			}
		}
		moves0 += n0;
		moves += n;
		fewer += n < n0;
		ck_assert_msg(bu_loop_differs(t, &cfg, &len) < 0,
			      "seed %llu (layout %u, PL_TEST_SEED replays): the loop and the dry run differ",
			      (unsigned long long)seed, it);
		free(a);
		free(out);
		tl_free(t);
	}
	ck_assert_uint_le(moves, moves0);
	printf("broker: %u random layouts (seed %llu) with tolerances 0..3: %u ended balanced within the widened "
	       "bounds; %llu actions against %llu with none, fewer on %u layouts\n",
	       iters, (unsigned long long)seed, balanced, (unsigned long long)moves, (unsigned long long)moves0, fewer);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("broker_tolerance");
	TCase *c = tcase_create("cases");
	tcase_add_test(c, within_the_widened_bounds_nothing_moves);
	tcase_add_test(c, a_move_stops_at_the_widened_bound);
	tcase_add_test(c, the_snapshot_sets_a_stream_s_tolerance);
	tcase_add_test(c, refused_tolerances_name_their_field_or_stream);
	tcase_add_test(c, weighted_bounds_widen_alike);
	tcase_add_test(c, a_cluster_move_keeps_a_stream_within_its_widened_bounds);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 600);
	tcase_add_test(c, random_layouts_end_within_the_widened_bounds);
	suite_add_tcase(s, c);
	return tl_run(s);
}
