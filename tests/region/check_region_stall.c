/* check_region_stall.c - stall reports that name the real blocker, and
 * epochs that actions applied to a view advance as their commit would. */
#include "region_util.h"

static int plan(tl *t, uint32_t rf, pl_action *a, uint32_t cap, pl_region_stall *st, uint32_t st_cap,
		pl_plan_info *info)
{
	pl_region_config cfg = ru_cfg(rf);
	return pl_region_plan(tl_view(t, 0), &cfg, a, cap, info, st, st_cap, NULL);
}

/* No live primary, its one live peer lagging (it may not lead), and the only
 * member that could join it behind the region's epoch: the stall names that
 * member, not-ready, and says a primary was wanted. */
START_TEST(no_primary_and_the_joiner_behind)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", NULL, 1), b = ru_member(t, "b", NULL, 2), j = ru_member(t, "j", NULL, 3);
	t->m[a].flags = PL_MEMBER_DOWN;
	t->m[b].flags = PL_MEMBER_LAGGING;
	uint32_t k = ru_region(t, "r/0", a, 2, a, b);
	t->k[k].epoch = 7;
	t->m[j].map_version = 6;
	t->m[b].map_version = 7;
	pl_action out[4];
	pl_region_stall st[4];
	pl_plan_info info;
	ck_assert_int_eq(plan(t, 3, out, 4, st, 4, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_STALLED);
	ck_assert_uint_eq(info.blocked, 1);
	ck_assert_uint_eq(st[0].shard, k);
	ck_assert_uint_eq(st[0].step, 1);
	ck_assert_str_eq(pl_region_stall_name(st[0].reason), "not-ready");
	ck_assert_uint_eq(st[0].member, j);
	ck_assert_uint_eq(st[0].wanted, PL_REGION_WANT_PRIMARY);
	/* The joiner catches up: it is added (and leads next tick). */
	t->m[j].map_version = 7;
	ck_assert_int_eq(plan(t, 3, out, 4, st, 4, &info), 1);
	ck_assert_uint_eq(out[0].kind, PL_ACTION_ADD_REPLICA);
	ck_assert_uint_eq(out[0].to, j);
	tl_free(t);
}
END_TEST

/* A step-1 stall says what was wanted: a peer for a region with a live
 * primary, the primary for one without. */
START_TEST(step_one_says_what_was_wanted)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", NULL, 2), b = ru_member(t, "b", NULL, 1), j = ru_member(t, "j", NULL, 3);
	uint32_t grow = ru_region(t, "r/grow", a, 2, a, b);
	t->k[grow].epoch = 4;
	/* a and b are ready, j is behind: the region waits for a peer */
	t->m[a].map_version = t->m[b].map_version = 4;
	t->m[j].map_version = 3;
	/* A region at R whose live peers may not lead (draining and lagging),
	 * one of them behind: a primary was wanted, not-ready names it. */
	uint32_t c = ru_member(t, "c", NULL, 4), d = ru_member(t, "d", NULL, 5), x = ru_member(t, "x", NULL, 0);
	uint32_t e = ru_member(t, "e", NULL, 6);
	t->m[x].flags = PL_MEMBER_DOWN;
	uint32_t lead = ru_region(t, "r/lead", x, 4, x, c, d, e);
	t->k[lead].epoch = 9;
	t->m[c].map_version = 3; /* behind, for both regions */
	t->m[d].flags = PL_MEMBER_LAGGING;
	t->m[e].flags = PL_MEMBER_DRAINING;
	pl_action out[8];
	pl_region_stall st[8];
	pl_plan_info info;
	ck_assert_int_eq(plan(t, 3, out, 8, st, 8, &info), 0);
	ck_assert_uint_eq(info.blocked, 2);
	/* key order: r/grow, r/lead */
	ck_assert_uint_eq(st[0].shard, grow);
	ck_assert_uint_eq(st[0].wanted, PL_REGION_WANT_PEER);
	ck_assert_str_eq(pl_region_stall_name(st[0].reason), "not-ready");
	ck_assert(st[0].member == j || st[0].member == c);
	ck_assert_uint_eq(st[1].shard, lead);
	ck_assert_uint_eq(st[1].wanted, PL_REGION_WANT_PRIMARY);
	ck_assert_str_eq(pl_region_stall_name(st[1].reason), "not-ready");
	ck_assert_uint_eq(st[1].member, c);
	tl_free(t);
}
END_TEST

/* A region without a live primary waits for one, however it stalls: with
 * every listed peer down (no source to grow from) and with no peer at all
 * (no member may take it), as with a live peer that may not lead; a region
 * with a live primary waits for a peer. */
START_TEST(no_live_primary_wants_a_primary_whatever_blocks_it)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", NULL, 1), b = ru_member(t, "b", NULL, 2), x = ru_member(t, "x", NULL, 3);
	t->m[x].flags = PL_MEMBER_DOWN;
	uint32_t lost = ru_region(t, "r/lost", x, 1, x); /* its one peer down */
	uint32_t none = ru_region(t, "r/none", PL_NONE, 0); /* no peer yet */
	uint32_t grow = ru_region(t, "r/grow", a, 1, a);    /* a live primary */
	t->k[none].epoch = t->k[grow].epoch = 4;            /* a and b are behind */
	pl_action out[8];
	pl_region_stall st[8];
	pl_plan_info info;
	ck_assert_int_eq(plan(t, 2, out, 8, st, 8, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_STALLED);
	ck_assert_uint_eq(info.blocked, 3);
	ck_assert_uint_eq(st[0].shard, grow); /* key order: r/grow, r/lost, r/none */
	ck_assert_uint_eq(st[0].reason, PL_REGION_STALL_NOT_READY);
	ck_assert_uint_eq(st[0].wanted, PL_REGION_WANT_PEER);
	ck_assert_uint_eq(st[1].shard, lost);
	ck_assert_uint_eq(st[1].reason, PL_REGION_STALL_NO_SOURCE);
	ck_assert_uint_eq(st[1].member, PL_NONE);
	ck_assert_uint_eq(st[1].wanted, PL_REGION_WANT_PRIMARY);
	ck_assert_uint_eq(st[2].shard, none);
	ck_assert_uint_eq(st[2].reason, PL_REGION_STALL_NOT_READY);
	ck_assert(st[2].member == a || st[2].member == b);
	ck_assert_uint_eq(st[2].wanted, PL_REGION_WANT_PRIMARY);
	tl_free(t);
}
END_TEST

/* A planned add advances the region's epoch in the view, as its commit
 * would: an add-peer proposal against the old epoch is then stale. */
START_TEST(actions_advance_the_epoch)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", NULL, 1), b = ru_member(t, "b", NULL, 2), j = ru_member(t, "j", NULL, 3);
	uint32_t k = ru_region(t, "r/0", a, 1, a);
	t->k[k].epoch = 5;
	t->m[a].map_version = t->m[b].map_version = t->m[j].map_version = 5;
	pl_view *v = tl_view(t, 0);
	ck_assert_int_eq(pl_region_check_add_peer(v, k, b, 5, NULL), 0);
	pl_region_config cfg = ru_cfg(2);
	pl_action out[4];
	ck_assert_int_eq(pl_region_plan(v, &cfg, out, 4, NULL, NULL, 0, NULL), 1);
	ck_assert_uint_eq(out[0].kind, PL_ACTION_ADD_REPLICA);
	uint32_t other = out[0].to == b ? j : b;
	pl_diag d;
	ck_assert_int_eq(pl_region_check_add_peer(v, k, other, 5, &d), PL_E_EPOCH_STALE);
	ck_assert_uint_eq(d.kind, PL_ELEM_SHARD);
	/* Against the add's epoch the region still has the add's copy in
	 * flight: no second copy until it lands (the view settled). */
	ck_assert_int_eq(pl_region_check_add_peer(v, k, other, 6, &d), PL_E_MOVE_IN_FLIGHT);
	ck_assert_uint_eq(d.kind, PL_ELEM_SHARD);
	ck_assert_uint_eq(d.index, k);
	ck_assert_int_eq(pl_view_settle(v), 1);
	ck_assert_int_eq(pl_region_check_add_peer(v, k, other, 6, NULL), 0);
	pl_shard_state ss;
	ck_assert_int_eq(pl_view_shard_state(v, k, &ss), 0);
	ck_assert(ss.epoch == 6);
	/* Every kind of region action does, once per action; settling keeps it. */
	pl_action mv = tl_action(PL_ACTION_MOVE_LEADER, PL_REASON_NEWEST_PEER, k, PL_NONE, a, out[0].to);
	ck_assert_int_eq(pl_view_apply(v, &mv), 0);
	ck_assert_int_eq(pl_view_settle(v), 1);
	pl_view_shard_state(v, k, &ss);
	ck_assert(ss.epoch == 7);
	/* Fleet overrides are not shard-map ops: no epoch. */
	pl_action ov = tl_action(PL_ACTION_SET_OVERRIDE, PL_REASON_COUNT, k, PL_NONE, a, b);
	ck_assert_int_eq(pl_view_apply(v, &ov), 0);
	pl_view_shard_state(v, k, &ss);
	ck_assert(ss.epoch == 7);
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("region_stall");
	TCase *c = tcase_create("stalls");
	tcase_add_test(c, no_primary_and_the_joiner_behind);
	tcase_add_test(c, step_one_says_what_was_wanted);
	tcase_add_test(c, no_live_primary_wants_a_primary_whatever_blocks_it);
	suite_add_tcase(s, c);
	c = tcase_create("epochs");
	tcase_add_test(c, actions_advance_the_epoch);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
