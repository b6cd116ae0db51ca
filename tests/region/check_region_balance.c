/*
 * check_region_balance.c - steps 2 to 4 of the region policy (an idle member
 * is filled, primaries follow the newest peer, primaries toward less load)
 * and the joins the issue names, end to end. The properties on random
 * clusters are in check_region_prop.c.
 */
#include "region_util.h"

/* Run calls until one emits nothing; returns the calls that emitted. */
static uint32_t quiesce(tl *t, const pl_region_config *c, uint32_t max_calls, uint32_t *actions)
{
	ru_tick *tk = ru_tick_new();
	pl_view *v = t->view;
	uint32_t calls = 0;
	*actions = 0;
	for (;;) {
		ck_assert_uint_le(calls, max_calls);
		if (ru_plan(v, c, tk) == 0)
			break;
		*actions += (uint32_t)tk->rc;
		calls++;
		v = ru_next(t, calls % 2);
	}
	free(tk);
	return calls;
}

/* ---- the joins of the issue ----------------------------------------------------------- */

/* 1 -> 2 with RF 2: the joiner receives a peer of every region, then
 * primaries until it leads no fewer than the incumbent, then nothing. */
START_TEST(one_to_two_peers_then_primaries)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", NULL, 100);
	for (int i = 0; i < 9; i++)
		ru_region(t, tl_str(t, "r%d", i), a, 1, a);
	uint32_t b = ru_member(t, "b", NULL, 200);
	pl_view *v = tl_view(t, 0);
	pl_region_config c = ru_cfg(2);
	ru_tick *tk = ru_tick_new();

	ck_assert_int_eq(ru_plan(v, &c, tk), 9);
	for (int i = 0; i < 9; i++) {
		ck_assert_uint_eq(tk->a[i].kind, PL_ACTION_ADD_REPLICA);
		ck_assert_uint_eq(tk->a[i].reason, PL_REASON_UNDER_RF);
		ck_assert_uint_eq(tk->a[i].to, b);
		ck_assert_uint_eq(tk->a[i].flags, PL_ACTION_STAGE_FIRST);
	}
	v = ru_next(t, 1);
	/* Primaries: 9/0 -> 4/5; each move reads the counts the last one left. */
	ck_assert_int_eq(ru_plan(v, &c, tk), 5);
	for (uint32_t i = 0; i < 5; i++) {
		ck_assert_uint_eq(tk->a[i].kind, PL_ACTION_MOVE_LEADER);
		ck_assert_uint_eq(tk->a[i].reason, PL_REASON_NEWEST_PEER);
		ck_assert_uint_eq(tk->a[i].from, a);
		ck_assert_uint_eq(tk->a[i].to, b);
		ck_assert_uint_eq(tk->a[i].to_count, i);
		ck_assert_uint_eq(tk->a[i].from_count, 9 - i);
		ck_assert_uint_eq(tk->a[i].at, 200);
		ck_assert_uint_eq(tk->a[i].flags, 0);
	}
	ck_assert_uint_eq(ru_prims(v, a), 4);
	ck_assert_uint_eq(ru_prims(v, b), 5);
	const char *buf = tl_say(t, &tk->a[1]);
	ck_assert_str_eq(buf, "hand primary of r1 from a to its newest peer b (joined at 200): b leads 1 primary, "
			      "fewer than the 8 of a");
	v = ru_next(t, 0);
	ck_assert_int_eq(ru_plan(v, &c, tk), 0);
	ck_assert_uint_eq(tk->info.status, PL_STATUS_BALANCED);
	free(tk);
	tl_free(t);
}
END_TEST

/* 1 -> 2 with RF 1: no region is under RF; half the regions move to the
 * joiner, each with its primary, then nothing. */
START_TEST(one_to_two_with_rf_one_moves_regions)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", NULL, 100);
	for (int i = 0; i < 9; i++)
		ru_region(t, tl_str(t, "r%d", i), a, 1, a);
	uint32_t b = ru_member(t, "b", NULL, 200);
	pl_view *v = tl_view(t, 0);
	pl_region_config c = ru_cfg(1);
	ru_tick *tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &c, tk), 4);
	for (uint32_t i = 0; i < 4; i++) {
		ck_assert_uint_eq(tk->a[i].kind, PL_ACTION_MOVE_REPLICA);
		ck_assert_uint_eq(tk->a[i].reason, PL_REASON_IDLE_MEMBER);
		ck_assert_uint_eq(tk->a[i].tier, 4); /* the primary moves with it */
		ck_assert_uint_eq(tk->a[i].share, 4);
		ck_assert_uint_eq(tk->a[i].total, 9);
		ck_assert_uint_eq(tk->a[i].to_count, i);
		ck_assert_uint_eq(tk->a[i].shard, i); /* key order */
	}
	ck_assert_uint_eq(ru_prims(v, b), 4);
	v = ru_next(t, 1);
	ck_assert_int_eq(ru_plan(v, &c, tk), 0);
	free(tk);
	tl_free(t);
}
END_TEST

/* 3 -> 4 with RF 3: no region is under RF; the joiner takes peers by moves
 * up to its fair share (never more in one call), primaries follow, then
 * nothing. Zones are kept. */
START_TEST(three_to_four_moves_then_primaries)
{
	tl *t = tl_new();
	uint32_t m[4];
	for (uint32_t i = 0; i < 3; i++)
		m[i] = ru_member(t, tl_str(t, "n%u", i), tl_str(t, "z%u", i), 10 + i);
	for (uint32_t i = 0; i < 12; i++)
		ru_region(t, tl_str(t, "r%02u", i), m[i % 3], 3, m[0], m[1], m[2]);
	m[3] = ru_member(t, "n3", "z3", 50);
	pl_view *v = tl_view(t, 0);
	pl_region_config c = ru_cfg(3);
	ru_tick *tk = ru_tick_new();

	ck_assert_int_eq(ru_plan(v, &c, tk), 9);
	uint32_t given[4] = {0, 0, 0, 0};
	for (uint32_t i = 0; i < 9; i++) {
		const pl_action *a = &tk->a[i];
		ck_assert_uint_eq(a->kind, PL_ACTION_MOVE_REPLICA);
		ck_assert_uint_eq(a->to, m[3]);
		ck_assert_uint_eq(a->tier, 2); /* not a primary; zones kept (3 -> 3) */
		ck_assert_uint_eq(a->share, 9);
		ck_assert_uint_eq(a->to_count, i);
		ck_assert_uint_gt(a->from_count, 9);
		ck_assert(a->flags & PL_ACTION_STAGE_FIRST);
		given[a->from]++;
	}
	const char *buf = tl_say(t, &tk->a[0]);
	ck_assert_str_eq(buf, "stage a copy of r01 on n3, then move the peer from n0: n3 holds 0 replicas, below its "
			      "fair share 9 of 36 peers; n0 holds 12, the most; not the primary");
	ck_assert_uint_eq(given[0], 3);
	ck_assert_uint_eq(given[1], 3);
	ck_assert_uint_eq(given[2], 3);
	for (uint32_t i = 0; i < 4; i++)
		ck_assert_uint_eq(ru_reps(v, m[i]), 9);
	ck_assert_uint_eq(tk->info.status, PL_STATUS_BALANCED);

	v = ru_next(t, 1);
	int n = ru_plan(v, &c, tk);
	ck_assert_int_gt(n, 0);
	for (int i = 0; i < n; i++) {
		ck_assert_uint_eq(tk->a[i].kind, PL_ACTION_MOVE_LEADER);
		ck_assert_uint_eq(tk->a[i].reason, PL_REASON_NEWEST_PEER);
		ck_assert_uint_eq(tk->a[i].to, m[3]);
		ck_assert_uint_lt(tk->a[i].to_count, tk->a[i].from_count);
	}
	for (uint32_t i = 0; i < 4; i++)
		ck_assert_uint_eq(ru_prims(v, m[i]), 3);
	v = ru_next(t, 0);
	ck_assert_int_eq(ru_plan(v, &c, tk), 0);
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state s = ru_state(v, k);
		ck_assert_uint_eq(s.replica_count, 3);
		ck_assert_uint_eq(ru_zones(t, &s), 3);
	}
	free(tk);
	tl_free(t);
}
END_TEST

/* Growing 1 -> 2 -> 4 with RF 3 and a small cap per call reaches the same
 * balance as one large call, and stops. */
START_TEST(one_two_four_with_a_small_cap)
{
	tl *t = tl_new();
	ru_member(t, "a", "z0", 1);
	for (int i = 0; i < 24; i++)
		ru_region(t, tl_str(t, "r%02d", i), PL_NONE, 0);
	tl_view(t, 0);
	pl_region_config c = ru_cfg(3);
	c.max_actions = 3;
	uint32_t acts;
	quiesce(t, &c, 100, &acts);
	ck_assert_uint_eq(acts, 48); /* 24 adds, 24 claims */
	ru_member(t, "b", "z1", 2);
	ru_adopt(t);
	quiesce(t, &c, 100, &acts);
	ck_assert_uint_eq(ru_reps(t->view, 1), 24);
	ck_assert_uint_eq(ru_prims(t->view, 1), 12);
	ru_member(t, "c", "z2", 3);
	ru_member(t, "d", "z3", 4);
	ru_adopt(t);
	quiesce(t, &c, 200, &acts);
	/* The rule's fixed point: the newest peer never hands one back, so
	 * primaries end within 2 of each other (6/5/6/7 here; taken in key
	 * order instead of fullest first they would end at 6/3/6/9). */
	uint32_t lo = UINT32_MAX, hi = 0, sum = 0;
	for (uint32_t m = 0; m < 4; m++) {
		uint32_t p = ru_prims(t->view, m);
		ck_assert_uint_eq(ru_reps(t->view, m), 18);
		lo = p < lo ? p : lo;
		hi = p > hi ? p : hi;
		sum += p;
	}
	ck_assert_uint_eq(sum, 24);
	ck_assert_uint_le(hi - lo, 2);
	tl_free(t);
}
END_TEST

/* ---- step 2 details ----------------------------------------------------------------------- */

/* A move never lowers the zones a region spans: the giver in the
 * receiver's zone gives, though another is as full. */
START_TEST(idle_moves_keep_zones)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", "z1", 1), c = ru_member(t, "c", "z2", 2);
	for (int i = 0; i < 4; i++)
		ru_region(t, tl_str(t, "r%d", i), i % 2 ? a : c, 2, a, c);
	uint32_t j = ru_member(t, "j", "z2", 9);
	pl_view *v = tl_view(t, 0);
	pl_region_config cfg = ru_cfg(2);
	ru_tick *tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 2);
	for (int i = 0; i < 2; i++) {
		ck_assert_uint_eq(tk->a[i].from, c);
		ck_assert_uint_eq(tk->a[i].to, j);
		ck_assert_uint_eq(tk->a[i].tier, 2); /* c's non-primary peers first */
	}
	ck_assert_uint_eq(tk->a[0].shard, 1);
	ck_assert_uint_eq(tk->a[1].shard, 3);
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state s = ru_state(v, k);
		ck_assert_uint_eq(ru_zones(t, &s), 2);
	}
	free(tk);
	tl_free(t);
}
END_TEST

/* The newest idle member is served first, and a region that gains a zone is
 * preferred; members below the share that hold nothing wait their turn. */
START_TEST(idle_newest_first_and_zone_gain)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", "z1", 1), b = ru_member(t, "b", "z1", 2);
	for (int i = 0; i < 6; i++)
		ru_region(t, tl_str(t, "r%d", i), a, 2, a, b);
	uint32_t old = ru_member(t, "old", "z2", 5), young = ru_member(t, "young", "z3", 6);
	pl_view *v = tl_view(t, 0);
	pl_region_config cfg = ru_cfg(2);
	cfg.max_actions = 1;
	ru_tick *tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 1);
	ck_assert_uint_eq(tk->a[0].to, young);
	ck_assert_uint_eq(tk->a[0].from, b); /* a and b hold 6; b is not the primary */
	ck_assert_uint_eq(tk->a[0].tier, 1); /* z1 twice -> z1 + z3 */
	ck_assert_uint_eq(tk->info.status, PL_STATUS_ACTION_CAP);
	cfg.max_actions = 16;
	v = tl_view(t, 0);
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 6);
	/* F = 12 / 4 = 3: young takes 3, then old takes 3. */
	for (int i = 0; i < 6; i++)
		ck_assert_uint_eq(tk->a[i].to, i < 3 ? young : old);
	free(tk);
	tl_free(t);
}
END_TEST

/* The four tiers read as four sentences. */
START_TEST(idle_tiers_explain)
{
	tl *t = tl_new();
	ru_member(t, "a", NULL, 1);
	ru_member(t, "j", NULL, 2);
	ru_region(t, "r", 0, 1, 0u);
	pl_action x;
	memset(&x, 0, sizeof x);
	x.kind = PL_ACTION_MOVE_REPLICA;
	x.reason = PL_REASON_IDLE_MEMBER;
	x.shard = 0;
	x.stream = PL_NONE;
	x.from = 0;
	x.to = 1;
	x.from_count = 5;
	x.to_count = 1;
	x.share = 3;
	x.total = 6;
	static const char *tail[] = {"; not the primary, and the region gains a zone", "; not the primary",
				     "; the primary moves with it, and the region gains a zone",
				     "; the primary moves with it"};
	for (uint32_t tier = 1; tier <= 4; tier++) {
		char buf[256], want[256];
		x.tier = tier;
		pl_action_explain(tl_snap(t), &x, buf, sizeof buf);
		snprintf(want, sizeof want,
			 "stage a copy of r on j, then move the peer from a: j holds 1 replica, below its fair share 3 of "
			 "6 peers; a holds 5, the most%s",
			 tail[tier - 1]);
		ck_assert_str_eq(buf, want);
	}
	tl_free(t);
}
END_TEST

/* ---- step 3 details ---------------------------------------------------------------------- */

/* The newest peer that is behind on its map is passed over for the next. */
START_TEST(newest_peer_must_be_ready)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", NULL, 1), b = ru_member(t, "b", NULL, 2), j = ru_member(t, "j", NULL, 3);
	t->m[a].map_version = t->m[b].map_version = 5;
	for (int i = 0; i < 4; i++) {
		uint32_t k = ru_region(t, tl_str(t, "r%d", i), a, 3, a, b, j);
		t->k[k].epoch = 5;
	}
	pl_view *v = tl_view(t, 0);
	pl_region_config cfg = ru_cfg(3);
	ru_tick *tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 2);
	for (int i = 0; i < 2; i++)
		ck_assert_uint_eq(tk->a[i].to, b);
	/* Ties on joined_at go to the smaller id. */
	t->m[j].map_version = 5;
	t->m[j].joined_at = 2;
	v = tl_view(t, 0);
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 2);
	for (int i = 0; i < 2; i++)
		ck_assert_uint_eq(tk->a[i].to, b);
	free(tk);
	tl_free(t);
}
END_TEST

/* ---- step 4: load ------------------------------------------------------------------------- */

static tl *loaded(void)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", NULL, 3), b = ru_member(t, "b", NULL, 1), c = ru_member(t, "c", NULL, 2);
	t->m[a].load = 1000;
	t->m[b].flags = PL_MEMBER_UNMEASURED; /* load 0 means nothing */
	t->m[c].load = 900;
	for (int i = 0; i < 6; i++)
		ru_region(t, tl_str(t, "r%d", i), a, 3, a, b, c);
	return t;
}

/* An unmeasured peer never takes a primary on missing data; a measured
 * peer with clearly less load does, one per call, while the count rule
 * holds. */
START_TEST(unmeasured_peer_never_takes_a_primary)
{
	tl *t = loaded();
	pl_view *v = tl_view(t, 0);
	pl_region_config cfg = ru_cfg(3);
	cfg.load_balance = 1;
	ru_tick *tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 0); /* c: 900 is not 25% below 1000 */
	t->m[2].load = 760;
	v = tl_view(t, 0);
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 0); /* 76000 >= 75000 */
	t->m[2].load = 740;
	v = tl_view(t, 0);
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 1);
	const pl_action *m = &tk->a[0];
	ck_assert_uint_eq(m->kind, PL_ACTION_MOVE_LEADER);
	ck_assert_uint_eq(m->reason, PL_REASON_LOAD);
	ck_assert_uint_eq(m->from, 0);
	ck_assert_uint_eq(m->to, 2);
	ck_assert_uint_eq(m->load, 1000);
	ck_assert_uint_eq(m->at, 740);
	ck_assert_uint_eq(m->share, 25);
	ck_assert_uint_eq(m->shard, 0);
	const char *buf = tl_say(t, m);
	ck_assert_str_eq(buf, "hand primary of r0 from a to c: c's load 740 is more than 25% below a's 1000; "
			      "c leads 0 primaries, a 6");
	uint32_t acts;
	quiesce(t, &cfg, 10, &acts);
	ck_assert_uint_eq(acts, 2); /* 6/0 -> 5/1 -> 4/2 -> 3/3 */
	ck_assert_uint_eq(ru_prims(t->view, 0), 3);
	ck_assert_uint_eq(ru_prims(t->view, 2), 3);
	ck_assert_uint_eq(ru_prims(t->view, 1), 0);
	/* Off by default. */
	pl_region_config def = ru_cfg(3);
	tl *u = loaded();
	u->m[2].load = 10;
	v = tl_view(u, 0);
	ck_assert_int_eq(ru_plan(v, &def, tk), 0);
	/* An unmeasured primary is never moved off on missing data either. */
	u->m[0].flags = PL_MEMBER_UNMEASURED;
	v = tl_view(u, 0);
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 0);
	tl_free(u);
	free(tk);
	tl_free(t);
}
END_TEST

/* Among peers with the same load, the one leading fewer primaries, then the
 * smaller id, takes the primary. */
START_TEST(load_ties_go_to_fewer_primaries)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", NULL, 9), b = ru_member(t, "b", NULL, 1), c = ru_member(t, "c", NULL, 2);
	t->m[a].load = 1000;
	t->m[b].load = t->m[c].load = 100;
	for (int i = 0; i < 6; i++)
		ru_region(t, tl_str(t, "r%d", i), a, 3, a, b, c);
	uint32_t x = ru_region(t, "x", b, 1, b); /* b leads one more than c */
	t->k[x].flags = PL_SHARD_NOT_IDEMPOTENT;
	pl_view *v = tl_view(t, 0);
	pl_region_config cfg = ru_cfg(3);
	cfg.load_balance = 1;
	ru_tick *tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 1);
	ck_assert_uint_eq(tk->a[0].to, c);
	t->k[x].replicas[0] = t->k[x].leader = c; /* now c leads more: b */
	v = tl_view(t, 0);
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 1);
	ck_assert_uint_eq(tk->a[0].to, b);
	/* equal primaries: the smaller id, b */
	t->k[x].replica_count = 0;
	t->k[x].leader = PL_NONE;
	v = tl_view(t, 0);
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 1);
	ck_assert_uint_eq(tk->a[0].to, b);
	free(tk);
	tl_free(t);
}
END_TEST

/* The load step never takes a region step 3 wants: here step 3 first hands
 * b1 to its newest peer, which leaves a0's newest peer n leading fewer than
 * a0's primary p; step 3 sees that in the same call and hands a0 to n, and
 * the load step, which runs after it, never gives a0 to the lighter q. */
START_TEST(load_never_takes_what_newest_peer_wants)
{
	tl *t = tl_new();
	uint32_t p = ru_member(t, "p", NULL, 1), q = ru_member(t, "q", NULL, 2);
	uint32_t n = ru_member(t, "n", NULL, 3), y = ru_member(t, "y", NULL, 4);
	t->m[p].load = 1000;
	t->m[q].load = 10;
	t->m[n].flags = t->m[y].flags = PL_MEMBER_UNMEASURED;
	t->m[q].max_shards = t->m[y].max_shards = 1; /* no idle-member moves */
	uint32_t a0 = ru_region(t, "a0", p, 3, p, q, n);
	uint32_t b1 = ru_region(t, "b1", n, 2, n, y);
	for (int i = 0; i < 2; i++) {
		uint32_t k = ru_region(t, tl_str(t, "z-p%d", i), p, 1, p);
		t->k[k].flags = PL_SHARD_NOT_IDEMPOTENT; /* they count, never move */
		k = ru_region(t, tl_str(t, "z-n%d", i), n, 1, n);
		t->k[k].flags = PL_SHARD_NOT_IDEMPOTENT;
	}
	pl_view *v = tl_view(t, 0);
	pl_region_config cfg = ru_cfg(1);
	cfg.load_balance = 1;
	ru_tick *tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 2);
	ck_assert_uint_eq(tk->a[0].shard, b1);
	ck_assert_uint_eq(tk->a[0].to, y);
	ck_assert_uint_eq(tk->a[1].shard, a0);
	ck_assert_uint_eq(tk->a[1].reason, PL_REASON_NEWEST_PEER);
	ck_assert_uint_eq(tk->a[1].to, n);
	v = ru_next(t, 1);
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 0);
	free(tk);
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("region_balance");
	TCase *tc = tcase_create("joins");
	tcase_add_test(tc, one_to_two_peers_then_primaries);
	tcase_add_test(tc, one_to_two_with_rf_one_moves_regions);
	tcase_add_test(tc, three_to_four_moves_then_primaries);
	tcase_add_test(tc, one_two_four_with_a_small_cap);
	suite_add_tcase(s, tc);
	tc = tcase_create("idle_member");
	tcase_add_test(tc, idle_moves_keep_zones);
	tcase_add_test(tc, idle_newest_first_and_zone_gain);
	tcase_add_test(tc, idle_tiers_explain);
	suite_add_tcase(s, tc);
	tc = tcase_create("newest_peer");
	tcase_add_test(tc, newest_peer_must_be_ready);
	suite_add_tcase(s, tc);
	tc = tcase_create("load");
	tcase_add_test(tc, unmeasured_peer_never_takes_a_primary);
	tcase_add_test(tc, load_ties_go_to_fewer_primaries);
	tcase_add_test(tc, load_never_takes_what_newest_peer_wants);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
