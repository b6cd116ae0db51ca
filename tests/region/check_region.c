/*
 * check_region.c - the region policy's entry points: its configuration and
 * effective replication factor, bad input, the add-peer check, the caps and
 * the actions' sentences. Step 1 (growing regions, claims, stalls, the
 * add-peer switch) is in check_region_grow.c.
 */
#include "region_util.h"

/* ---- configuration ------------------------------------------------------------ */

START_TEST(config_init_matches_macro)
{
	pl_region_config a, b = PL_REGION_CONFIG_INIT;
	memset(&a, 0xa5, sizeof a);
	ck_assert_int_eq(pl_region_config_init(&a), 0);
	ck_assert_mem_eq(&a, &b, sizeof a);
	ck_assert_uint_eq(a.version, PL_REGION_CONFIG_VERSION);
	ck_assert_uint_eq(a.replication_factor, 3);
	ck_assert_uint_eq(a.add_peer_proposals, 1);
	ck_assert_uint_eq(a.load_balance, 0);
	ck_assert_uint_eq(a.load_threshold, 25);
	ck_assert_uint_eq(a.max_actions, 16);
	ck_assert_int_eq(pl_region_config_init(NULL), PL_E_INVAL);
}
END_TEST

START_TEST(effective_rf_is_capped_by_live_members)
{
	tl *t = tl_new();
	ru_member(t, "a", NULL, 1);
	ru_member(t, "b", NULL, 2);
	ru_member(t, "c", NULL, 3);
	t->m[2].flags = PL_MEMBER_DOWN;
	pl_view *v = tl_view(t, 0);
	pl_region_config c = ru_cfg(3);
	ck_assert_int_eq(pl_region_effective_rf(v, &c, NULL), 2);
	c.replication_factor = 1;
	ck_assert_int_eq(pl_region_effective_rf(v, &c, NULL), 1);
	pl_diag d;
	ck_assert_int_eq(pl_region_effective_rf(NULL, &c, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.index, 1);
	ck_assert_int_eq(pl_region_effective_rf(v, NULL, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.index, 2);
	c.replication_factor = 0;
	ck_assert_int_eq(pl_region_effective_rf(v, &c, &d), PL_E_CONFIG);
	ck_assert_uint_eq(d.kind, PL_ELEM_CONFIG);
	ck_assert_uint_eq(d.index, 1);
	c.version = 7;
	ck_assert_int_eq(pl_region_effective_rf(v, &c, &d), PL_E_VERSION);
	ck_assert_uint_eq(d.index, 0);
	tl_free(t);
}
END_TEST

/* ---- bad input: one test per code, nothing written ---------------------------------- */

/* a, b; two regions on a; b joined later. Every call would want actions. */
static tl *small(void)
{
	tl *t = tl_new();
	ru_member(t, "a", "z1", 1);
	ru_member(t, "b", "z2", 2);
	ru_region(t, "r0", 0, 1, 0u);
	ru_region(t, "r1", 0, 1, 0u);
	return t;
}

typedef struct frozen {
	pl_shard_state s[4];
	uint32_t reps[2], prims[2];
} frozen;

static frozen freeze(const tl *t)
{
	frozen f;
	memset(&f, 0, sizeof f);
	for (uint32_t k = 0; k < t->nk; k++)
		f.s[k] = ru_state(t->view, k);
	for (uint32_t m = 0; m < t->nm; m++) {
		f.reps[m] = ru_reps(t->view, m);
		f.prims[m] = ru_prims(t->view, m);
	}
	return f;
}

/* Call with one thing wrong; expect the code and the diag, and that out,
 * info, stalls and the view are untouched. */
static void expect_refused(tl *t, pl_view *v, const pl_region_config *cfg, pl_action *out, uint32_t cap,
			   pl_region_stall *st, uint32_t st_cap, int code, uint32_t kind, uint32_t index)
{
	pl_action out_before[4];
	pl_region_stall st_before[4];
	pl_plan_info info, info_before;
	memset(&info, 0x5a, sizeof info);
	info_before = info;
	if (out)
		memcpy(out_before, out, sizeof out_before);
	if (st)
		memcpy(st_before, st, sizeof st_before);
	frozen f0 = freeze(t);
	pl_diag d = {0, 0, 0, 0};
	ck_assert_int_eq(pl_region_plan(v, cfg, out, cap, &info, st, st_cap, &d), code);
	ck_assert_int_eq(d.code, code);
	ck_assert_uint_eq(d.kind, kind);
	ck_assert_uint_eq(d.index, index);
	ck_assert_mem_eq(&info, &info_before, sizeof info);
	if (out)
		ck_assert_mem_eq(out, out_before, sizeof out_before);
	if (st)
		ck_assert_mem_eq(st, st_before, sizeof st_before);
	frozen f1 = freeze(t);
	ck_assert_mem_eq(&f0, &f1, sizeof f0);
}

START_TEST(plan_refuses_bad_arguments)
{
	tl *t = small();
	pl_view *v = tl_view(t, 0);
	pl_region_config c = ru_cfg(2);
	pl_action out[4];
	pl_region_stall st[4];
	memset(out, 0xee, sizeof out);
	memset(st, 0xdd, sizeof st);
	expect_refused(t, NULL, &c, out, 4, st, 4, PL_E_INVAL, PL_ELEM_ARGUMENT, 1);
	/* A view that failed to build is not a view. */
	char junk[sizeof(void *) * 64];
	memset(junk, 0, sizeof junk);
	expect_refused(t, (pl_view *)(void *)junk, &c, out, 4, st, 4, PL_E_INVAL, PL_ELEM_ARGUMENT, 1);
	expect_refused(t, v, NULL, out, 4, st, 4, PL_E_INVAL, PL_ELEM_ARGUMENT, 2);
	expect_refused(t, v, &c, NULL, 4, st, 4, PL_E_INVAL, PL_ELEM_ARGUMENT, 3);
	expect_refused(t, v, &c, out, 4, NULL, 4, PL_E_INVAL, PL_ELEM_ARGUMENT, 6);
	tl_free(t);
}
END_TEST

START_TEST(plan_refuses_bad_config)
{
	tl *t = small();
	pl_view *v = tl_view(t, 0);
	pl_action out[4];
	pl_region_stall st[4];
	memset(out, 0xee, sizeof out);
	memset(st, 0xdd, sizeof st);
	pl_region_config c = ru_cfg(2);
	c.version = 0;
	expect_refused(t, v, &c, out, 4, st, 4, PL_E_VERSION, PL_ELEM_CONFIG, 0);
	c = ru_cfg(0);
	expect_refused(t, v, &c, out, 4, st, 4, PL_E_CONFIG, PL_ELEM_CONFIG, 1);
	c = ru_cfg(PL_MAX_REPLICAS + 1);
	expect_refused(t, v, &c, out, 4, st, 4, PL_E_CONFIG, PL_ELEM_CONFIG, 1);
	c = ru_cfg(2);
	c.add_peer_proposals = 2;
	expect_refused(t, v, &c, out, 4, st, 4, PL_E_CONFIG, PL_ELEM_CONFIG, 2);
	c = ru_cfg(2);
	c.load_balance = 3;
	expect_refused(t, v, &c, out, 4, st, 4, PL_E_CONFIG, PL_ELEM_CONFIG, 3);
	c = ru_cfg(2);
	c.load_threshold = 0;
	expect_refused(t, v, &c, out, 4, st, 4, PL_E_CONFIG, PL_ELEM_CONFIG, 4);
	c.load_threshold = 100;
	expect_refused(t, v, &c, out, 4, st, 4, PL_E_CONFIG, PL_ELEM_CONFIG, 4);
	c = ru_cfg(2);
	c.max_actions = 0;
	expect_refused(t, v, &c, out, 4, st, 4, PL_E_CONFIG, PL_ELEM_CONFIG, 5);
	tl_free(t);
}
END_TEST

START_TEST(plan_refuses_no_eligible_member)
{
	tl *t = small();
	t->m[0].flags = PL_MEMBER_DOWN;
	t->m[1].flags = PL_MEMBER_DRAINING;
	pl_view *v = tl_view(t, 0);
	pl_action out[4];
	pl_region_stall st[4];
	memset(out, 0xee, sizeof out);
	memset(st, 0xdd, sizeof st);
	pl_region_config c = ru_cfg(2);
	expect_refused(t, v, &c, out, 4, st, 4, PL_E_NO_ELIGIBLE, PL_ELEM_SNAPSHOT, 0);
	tl_free(t);
	/* No regions and no members: nothing needed, nothing to do. */
	t = tl_new();
	v = tl_view(t, 0);
	pl_plan_info info;
	ck_assert_int_eq(pl_region_plan(v, &c, NULL, 0, &info, NULL, 0, NULL), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(info.detail, PL_NONE);
	tl_free(t);
}
END_TEST

/* ---- the add-peer check ------------------------------------------------------------- */

/* A region whose copy is in flight is staged again onto no member (the
 * seed's "staged again next tick ... summed twice"): members a to d, r with
 * peers {a, b}, primary a, epoch 10, a copy in flight onto c: d at epoch 10
 * is refused, by its own code, naming the region; c already counts as a
 * peer. A primary move in flight refuses it the same way, and so does an
 * add applied to the view until the view is settled. */
START_TEST(check_add_peer_refuses_a_region_in_flight)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", NULL, 1), b = ru_member(t, "b", NULL, 2), c = ru_member(t, "c", NULL, 3);
	uint32_t d = ru_member(t, "d", NULL, 4), e = ru_member(t, "e", NULL, 5);
	for (uint32_t m = 0; m < t->nm; m++)
		t->m[m].map_version = 10;
	uint32_t r = ru_region(t, "r", a, 2, a, b), q = ru_region(t, "q", a, 2, a, b);
	t->k[r].epoch = t->k[q].epoch = 10;
	t->k[q].moving_to = b; /* q's primary moves to b */
	pl_copy cp = {r, c, PL_NONE, 0};
	t->snap.copies = &cp;
	t->snap.n_copies = 1;
	pl_view *v = tl_view(t, 0);
	pl_diag dg;
	ck_assert_int_eq(pl_region_check_add_peer(v, r, d, 10, &dg), PL_E_MOVE_IN_FLIGHT);
	ck_assert_uint_eq(dg.kind, PL_ELEM_SHARD);
	ck_assert_uint_eq(dg.index, r);
	ck_assert_str_eq(pl_error_name(PL_E_MOVE_IN_FLIGHT), "E_MOVE_IN_FLIGHT");
	ck_assert_int_eq(pl_region_check_add_peer(v, r, c, 10, &dg), PL_E_PEER_DUPLICATE);
	ck_assert_int_eq(pl_region_check_add_peer(v, r, d, 9, &dg), PL_E_EPOCH_STALE); /* the epoch first */
	ck_assert_int_eq(pl_region_check_add_peer(v, q, d, 10, &dg), PL_E_MOVE_IN_FLIGHT);
	ck_assert_uint_eq(dg.index, q);
	/* Nor does the policy grow either region while they are in flight. */
	pl_region_config cfg = ru_cfg(4);
	ru_tick *tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 0);
	free(tk);
	/* Landed (the view settled, as the next snapshot shows it), d may go. */
	ck_assert_int_eq(pl_view_settle(v), 2);
	ck_assert_int_eq(pl_region_check_add_peer(v, r, d, 10, NULL), 0);
	ck_assert_int_eq(pl_region_check_add_peer(v, q, d, 10, NULL), 0);
	/* An add applied to the view is a copy in flight until settled. */
	pl_action add = tl_action(PL_ACTION_ADD_REPLICA, PL_REASON_UNDER_RF, r, PL_NONE, PL_NONE, d);
	ck_assert_int_eq(pl_view_apply(v, &add), 0);
	ck_assert_int_eq(pl_region_check_add_peer(v, r, e, 11, NULL), PL_E_MOVE_IN_FLIGHT);
	ck_assert_int_eq(pl_region_check_add_peer(v, r, d, 11, NULL), PL_E_PEER_DUPLICATE);
	ck_assert_int_eq(pl_view_settle(v), 1);
	ck_assert_int_eq(pl_region_check_add_peer(v, r, e, 11, NULL), 0);
	tl_free(t);
}
END_TEST

START_TEST(check_add_peer_refuses_each_case)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", "z1", 1), b = ru_member(t, "b", "z2", 2);
	uint32_t down = ru_member(t, "down", NULL, 3), drain = ru_member(t, "drain", NULL, 4);
	uint32_t lag = ru_member(t, "lag", NULL, 5), behind = ru_member(t, "behind", NULL, 6);
	uint32_t capped = ru_member(t, "capped", NULL, 7);
	t->m[down].flags = PL_MEMBER_DOWN;
	t->m[drain].flags = PL_MEMBER_DRAINING;
	t->m[lag].flags = PL_MEMBER_LAGGING;
	t->m[capped].max_shards = 1;
	for (uint32_t m = 0; m < t->nm; m++)
		t->m[m].map_version = 9;
	t->m[behind].map_version = 8;
	uint32_t r = ru_region(t, "r", a, 2, a, capped);
	uint32_t roll = ru_region(t, "roll", a, 1, a);
	uint32_t debt = ru_region(t, "debt", a, 1, a);
	uint32_t full = ru_region(t, "full", a, 8, a, down, 7u, 8u, 9u, 10u, 11u, 12u);
	for (int i = 0; i < 6; i++)
		ru_member(t, tl_str(t, "gone%d", i), NULL, 0);
	for (uint32_t m = 7; m < 13; m++)
		t->m[m].flags = PL_MEMBER_DOWN;
	t->k[roll].flags = PL_SHARD_NOT_IDEMPOTENT;
	for (uint32_t k = 0; k < t->nk; k++)
		t->k[k].epoch = 9;
	t->k[debt].flags = PL_SHARD_TRANSFER_DEBT;
	pl_view *v = tl_view(t, 0);
	pl_diag d;
	ck_assert_int_eq(pl_region_check_add_peer(v, r, b, 9, &d), 0);
	ck_assert_int_eq(pl_region_check_add_peer(v, r, b, 8, &d), PL_E_EPOCH_STALE);
	ck_assert_uint_eq(d.kind, PL_ELEM_SHARD);
	ck_assert_uint_eq(d.index, r);
	ck_assert_int_eq(pl_region_check_add_peer(v, r, b, 10, &d), PL_E_EPOCH_STALE);
	ck_assert_int_eq(pl_region_check_add_peer(v, roll, b, 9, &d), PL_E_NOT_IDEMPOTENT);
	ck_assert_uint_eq(d.index, roll);
	ck_assert_int_eq(pl_region_check_add_peer(v, debt, b, 9, &d), PL_E_TRANSFER_DEBT);
	ck_assert_uint_eq(d.index, debt);
	ck_assert_int_eq(pl_region_check_add_peer(v, r, a, 9, &d), PL_E_PEER_DUPLICATE);
	ck_assert_uint_eq(d.kind, PL_ELEM_MEMBER);
	ck_assert_uint_eq(d.index, a);
	ck_assert_uint_eq(d.other, r);
	ck_assert_int_eq(pl_region_check_add_peer(v, r, down, 9, &d), PL_E_MEMBER_UNAVAILABLE);
	ck_assert_uint_eq(d.index, down);
	ck_assert_int_eq(pl_region_check_add_peer(v, r, drain, 9, &d), PL_E_MEMBER_UNAVAILABLE);
	ck_assert_int_eq(pl_region_check_add_peer(v, r, lag, 9, &d), PL_E_MEMBER_UNAVAILABLE);
	ck_assert_int_eq(pl_region_check_add_peer(v, r, behind, 9, &d), PL_E_NOT_READY);
	ck_assert_uint_eq(d.index, behind);
	ck_assert_int_eq(pl_region_check_add_peer(v, roll, capped, 9, &d), PL_E_NOT_IDEMPOTENT);
	ck_assert_int_eq(pl_region_check_add_peer(v, full, capped, 9, &d), PL_E_MEMBER_FULL);
	ck_assert_uint_eq(d.index, capped);
	ck_assert_int_eq(pl_region_check_add_peer(v, full, b, 9, &d), PL_E_REPLICA_SET_FULL);
	ck_assert_uint_eq(d.kind, PL_ELEM_SHARD);
	ck_assert_uint_eq(d.index, full);
	/* The order: region before epoch before member. */
	ck_assert_int_eq(pl_region_check_add_peer(v, roll, a, 3, &d), PL_E_NOT_IDEMPOTENT);
	ck_assert_int_eq(pl_region_check_add_peer(v, r, a, 3, &d), PL_E_EPOCH_STALE);
	/* Arguments. */
	ck_assert_int_eq(pl_region_check_add_peer(NULL, r, b, 9, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.kind, PL_ELEM_ARGUMENT);
	ck_assert_uint_eq(d.index, 1);
	ck_assert_int_eq(pl_region_check_add_peer(v, t->nk, b, 9, &d), PL_E_SHARD_RANGE);
	ck_assert_uint_eq(d.index, 2);
	ck_assert_int_eq(pl_region_check_add_peer(v, r, t->nm, 9, &d), PL_E_MEMBER_RANGE);
	ck_assert_uint_eq(d.index, 3);
	/* It reads the view: once b is added there, the epoch is the add's
	 * (a proposal against 9 is stale) and b is a duplicate. */
	pl_action add = tl_action(PL_ACTION_ADD_REPLICA, PL_REASON_UNDER_RF, r, PL_NONE, PL_NONE, b);
	ck_assert_int_eq(pl_view_apply(v, &add), 0);
	ck_assert_int_eq(pl_region_check_add_peer(v, r, b, 9, NULL), PL_E_EPOCH_STALE);
	ck_assert_int_eq(pl_region_check_add_peer(v, r, b, 10, NULL), PL_E_PEER_DUPLICATE);
	tl_free(t);
}
END_TEST

/* ---- caps ------------------------------------------------------------------------------ */

/* A draining member takes nothing new, and the region policy moves none of
 * its peers off it (pl_snapshot_validate(3)): the regions it holds keep it
 * as a peer, its primaries go to the peers that may take them, and the
 * cluster is balanced with it holding what it held. */
START_TEST(a_draining_member_keeps_its_peers)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", "z1", 1), d = ru_member(t, "d", "z2", 2), b = ru_member(t, "b", "z3", 3);
	t->m[d].flags = PL_MEMBER_DRAINING;
	ru_region(t, "r0", d, 2, d, a);
	ru_region(t, "r1", d, 2, d, b);
	pl_view *v = tl_view(t, 0);
	pl_region_config c = ru_cfg(2);
	ru_tick *tk = ru_tick_new();
	for (int tick = 0; tick < 4; tick++) {
		ru_plan(v, &c, tk);
		for (int i = 0; i < tk->rc; i++) {
			ck_assert_uint_ne(tk->a[i].to, d);
			ck_assert_uint_ne(tk->a[i].kind, PL_ACTION_MOVE_REPLICA);
		}
		v = ru_next(t, tick & 1);
	}
	ck_assert_uint_eq(tk->info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(ru_reps(v, d), 2);
	ck_assert_uint_eq(ru_prims(v, d), 0);
	free(tk);
	tl_free(t);
}
END_TEST

START_TEST(caps_stop_and_the_view_holds_exactly_the_written)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", NULL, 1), b = ru_member(t, "b", NULL, 2);
	for (int i = 0; i < 8; i++)
		ru_region(t, tl_str(t, "r%d", i), a, 1, a);
	pl_region_config c = ru_cfg(2);
	pl_action out[8];
	pl_plan_info info;

	/* The caller's array fills first. */
	pl_view *v = tl_view(t, 0);
	ck_assert_int_eq(pl_region_plan(v, &c, out, 3, &info, NULL, 0, NULL), 3);
	ck_assert_uint_eq(info.status, PL_STATUS_FULL);
	ck_assert_uint_eq(info.written, 3);
	ck_assert_uint_eq(info.wanted, 4);
	ck_assert_uint_eq(info.detail, 3);
	ck_assert_uint_eq(ru_reps(v, b), 3);

	/* max_actions reached first, or at the same time. */
	for (uint32_t cap = 3; cap <= 8; cap += 5) {
		v = tl_view(t, 0);
		c.max_actions = 3;
		ck_assert_int_eq(pl_region_plan(v, &c, out, cap, &info, NULL, 0, NULL), 3);
		ck_assert_uint_eq(info.status, PL_STATUS_ACTION_CAP);
		ck_assert_uint_eq(info.wanted, 4);
		ck_assert_uint_eq(ru_reps(v, b), 3);
	}

	/* cap 0 with a NULL array: nothing written, one wanted. */
	v = tl_view(t, 0);
	c.max_actions = 16;
	ck_assert_int_eq(pl_region_plan(v, &c, NULL, 0, &info, NULL, 0, NULL), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_FULL);
	ck_assert_uint_eq(info.wanted, 1);
	ck_assert_uint_eq(ru_reps(v, b), 0);

	/* A second call on the same view, unsettled, skips what is in flight. */
	v = tl_view(t, 0);
	ck_assert_int_eq(pl_region_plan(v, &c, out, 3, &info, NULL, 0, NULL), 3);
	ck_assert_int_eq(pl_region_plan(v, &c, out, 8, &info, NULL, 0, NULL), 5);
	for (int i = 0; i < 5; i++)
		ck_assert_uint_eq(out[i].shard, (uint32_t)i + 3);
	ck_assert_int_eq(pl_region_plan(v, &c, out, 8, &info, NULL, 0, NULL), 0);
	tl_free(t);
}
END_TEST

/* ---- explanations ----------------------------------------------------------------------- */

START_TEST(actions_explain_with_their_numbers)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "alpha", "z1", 1);
	ru_member(t, "beta", "z2", 2);
	ru_member(t, "gamma", NULL, 3);
	t->m[2].flags = PL_MEMBER_DOWN;
	ru_region(t, "region-0", a, 1, a);
	ru_region(t, "region-1", 2, 2, 2u, 0u);
	pl_view *v = tl_view(t, 0);
	pl_region_config c = ru_cfg(3);
	ru_tick *tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &c, tk), 2);
	char buf[512];
	ck_assert_int_gt(pl_action_explain(tl_snap(t), &tk->a[0], buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "stage a copy of region-0 on beta, then add it as a peer: 1 of 2 peers "
			      "(replication factor 3, 2 live members); beta is in a zone its peers are not, "
			      "and holds 0 replicas");
	ck_assert_int_gt(pl_action_explain(tl_snap(t), &tk->a[1], buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "make alpha primary of region-1: its primary gamma is down; alpha, its only "
			      "live peer, leads 1 primary");
	free(tk);
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("region");
	TCase *tc = tcase_create("config");
	tcase_add_test(tc, config_init_matches_macro);
	tcase_add_test(tc, effective_rf_is_capped_by_live_members);
	suite_add_tcase(s, tc);
	tc = tcase_create("bad_input");
	tcase_add_test(tc, plan_refuses_bad_arguments);
	tcase_add_test(tc, plan_refuses_bad_config);
	tcase_add_test(tc, plan_refuses_no_eligible_member);
	suite_add_tcase(s, tc);
	tc = tcase_create("check_add_peer");
	tcase_add_test(tc, check_add_peer_refuses_each_case);
	tcase_add_test(tc, check_add_peer_refuses_a_region_in_flight);
	suite_add_tcase(s, tc);
	tc = tcase_create("caps");
	tcase_add_test(tc, a_draining_member_keeps_its_peers);
	tcase_add_test(tc, caps_stop_and_the_view_holds_exactly_the_written);
	suite_add_tcase(s, tc);
	tc = tcase_create("explain");
	tcase_add_test(tc, actions_explain_with_their_numbers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
