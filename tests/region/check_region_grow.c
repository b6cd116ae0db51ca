/*
 * check_region_grow.c - step 1 of the region policy: growing regions below
 * the effective replication factor (zones first, then fewest replicas,
 * members behind on their map passed over), never placing rollup or debt
 * regions, claiming regions without a live primary, stalls and their names,
 * and the add-peer switch.
 */
#include "region_util.h"

/* ---- step 1 ------------------------------------------------------------------------ */

/* A one-member cluster owns every region, with one peer, whatever the
 * configured RF: new regions get it as peer, then as primary; regions it
 * already owns are left alone and nothing stalls. */
START_TEST(one_member_owns_every_region)
{
	for (uint32_t rf = 1; rf <= 5; rf += 2) {
		tl *t = tl_new();
		uint32_t a = ru_member(t, "solo", "z1", 1);
		for (int i = 0; i < 6; i++)
			ru_region(t, tl_str(t, "new/%d", i), PL_NONE, 0);
		for (int i = 0; i < 4; i++)
			ru_region(t, tl_str(t, "own/%d", i), a, 1, a);
		pl_view *v = tl_view(t, 0);
		pl_region_config c = ru_cfg(rf);
		ck_assert_int_eq(pl_region_effective_rf(v, &c, NULL), 1);
		ru_tick *tk = ru_tick_new();
		ck_assert_int_eq(ru_plan(v, &c, tk), 6);
		for (int i = 0; i < 6; i++) {
			ck_assert_uint_eq(tk->a[i].kind, PL_ACTION_ADD_REPLICA);
			ck_assert_uint_eq(tk->a[i].to, a);
			ck_assert_uint_eq(tk->a[i].total, 1);
			ck_assert(tk->a[i].flags & PL_ACTION_STAGE_FIRST);
		}
		ck_assert_uint_eq(tk->info.blocked, 0);
		ck_assert_uint_eq(tk->info.status, PL_STATUS_BALANCED);
		v = ru_next(t, 1);
		ck_assert_int_eq(ru_plan(v, &c, tk), 6);
		for (int i = 0; i < 6; i++) {
			ck_assert_uint_eq(tk->a[i].kind, PL_ACTION_SET_LEADER);
			ck_assert_uint_eq(tk->a[i].reason, PL_REASON_NO_PRIMARY);
			ck_assert_uint_eq(tk->a[i].from, PL_NONE);
			ck_assert_uint_eq(tk->a[i].to, a);
			ck_assert_uint_eq(tk->a[i].flags, 0);
		}
		v = ru_next(t, 1);
		ck_assert_int_eq(ru_plan(v, &c, tk), 0);
		ck_assert_uint_eq(tk->info.status, PL_STATUS_BALANCED);
		ck_assert_uint_eq(tk->info.blocked, 0);
		for (uint32_t k = 0; k < t->nk; k++) {
			pl_shard_state s = ru_state(v, k);
			ck_assert_uint_eq(s.replica_count, 1);
			ck_assert_uint_eq(s.replicas[0], a);
			ck_assert_uint_eq(s.leader, a);
		}
		free(tk);
		tl_free(t);
	}
}
END_TEST

/* Zones first, then fewest replicas, then the rendezvous score. */
START_TEST(grow_prefers_new_zone_then_fewest_replicas)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", "z1", 1), b = ru_member(t, "b", "z1", 2);
	uint32_t c = ru_member(t, "c", "z2", 3), d = ru_member(t, "d", "z2", 4);
	/* c holds more than d; b holds nothing but shares a's zone. */
	ru_region(t, "x0", c, 1, c);
	ru_region(t, "x1", c, 1, c);
	t->k[0].flags = t->k[1].flags = PL_SHARD_NOT_IDEMPOTENT; /* keep them out of the way */
	uint32_t r = ru_region(t, "r", a, 1, a);
	pl_view *v = tl_view(t, 0);
	pl_region_config cfg = ru_cfg(2);
	ru_tick *tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 1);
	ck_assert_uint_eq(tk->a[0].shard, r);
	ck_assert_uint_eq(tk->a[0].to, d); /* new zone z2, fewer than c */
	ck_assert_uint_eq(tk->a[0].tier, 1);
	ck_assert_uint_eq(tk->a[0].to_count, 1);
	ck_assert_uint_eq(tk->a[0].total, 2);
	ck_assert_uint_eq(tk->a[0].share, 0);
	(void)b;
	free(tk);
	tl_free(t);
}
END_TEST

/* Two regions in one call never both count the joiner as empty: each add
 * raises the count the next region reads. */
START_TEST(grow_sees_earlier_adds_in_the_same_call)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", NULL, 1);
	uint32_t j1 = ru_member(t, "j1", NULL, 5), j2 = ru_member(t, "j2", NULL, 6);
	for (int i = 0; i < 16; i++)
		ru_region(t, tl_str(t, "r%02d", i), a, 1, a);
	pl_view *v = tl_view(t, 0);
	pl_region_config c = ru_cfg(2);
	ru_tick *tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &c, tk), 16);
	uint32_t n1 = 0, n2 = 0;
	for (int i = 0; i < 16; i++) {
		n1 += tk->a[i].to == j1;
		n2 += tk->a[i].to == j2;
		/* Whoever is chosen held the fewest at the time. */
		ck_assert_uint_eq(tk->a[i].share, (uint32_t)i / 2);
	}
	ck_assert_uint_eq(n1, 8);
	ck_assert_uint_eq(n2, 8);
	free(tk);
	tl_free(t);
}
END_TEST

/* A member behind on its map version is passed over for the next candidate;
 * when no candidate is ready the region is reported, and the others go on. */
START_TEST(member_behind_is_skipped_for_the_next)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", "z1", 1);
	uint32_t b = ru_member(t, "b", "z2", 2); /* the best: a new zone, empty */
	uint32_t c = ru_member(t, "c", "z1", 3);
	t->m[a].map_version = t->m[c].map_version = 10;
	t->m[b].map_version = 4;
	for (int i = 0; i < 5; i++) {
		uint32_t k = ru_region(t, tl_str(t, "r%d", i), a, 1, a);
		t->k[k].epoch = 10;
	}
	uint32_t old = ru_region(t, "old", a, 1, a);
	t->k[old].epoch = 3; /* b is ready for this one */
	pl_view *v = tl_view(t, 0);
	pl_region_config cfg = ru_cfg(2);
	ru_tick *tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 6);
	for (int i = 0; i < 6; i++) {
		uint32_t k = tk->a[i].shard;
		ck_assert_uint_eq(tk->a[i].to, k == old ? b : c);
		ck_assert_int_eq(pl_region_check_add_peer(v, k, tk->a[i].to, t->k[k].epoch, NULL), PL_E_EPOCH_STALE);
		ck_assert_int_eq(pl_region_check_add_peer(v, k, tk->a[i].to, t->k[k].epoch + 1, NULL),
				 PL_E_PEER_DUPLICATE);
	}
	ck_assert_uint_eq(tk->info.blocked, 0);
	ck_assert_uint_eq(tk->info.status, PL_STATUS_BALANCED);
	free(tk);

	/* Now c is behind too: every region but "old" stalls, naming b. */
	t->m[c].map_version = 9;
	v = tl_view(t, 0);
	tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 1);
	ck_assert_uint_eq(tk->a[0].shard, old);
	ck_assert_uint_eq(tk->a[0].to, b);
	ck_assert_uint_eq(tk->info.status, PL_STATUS_STALLED);
	ck_assert_uint_eq(tk->info.blocked, 7);
	ck_assert_uint_eq(tk->info.detail, 0); /* r0, the first in key order */
	for (int i = 0; i < 5; i++) {
		ck_assert_uint_eq(tk->st[i].shard, (uint32_t)i);
		ck_assert_uint_eq(tk->st[i].reason, PL_REGION_STALL_NOT_READY);
		ck_assert_uint_eq(tk->st[i].step, 1);
		ck_assert_uint_eq(tk->st[i].member, b);
	}
	/* Stalled regions do not hold step 2 up; its idle members, newest
	 * first, are behind for every region they could take, and say so. */
	ck_assert_uint_eq(tk->st[5].step, 2);
	ck_assert_uint_eq(tk->st[5].member, c);
	ck_assert_uint_eq(tk->st[5].shard, 0);
	ck_assert_uint_eq(tk->st[6].step, 2);
	ck_assert_uint_eq(tk->st[6].member, b);
	ck_assert_str_eq(pl_region_stall_name(tk->st[0].reason), "not-ready");
	/* Fewer stall slots than stalls: the first ones, and the full count. */
	pl_region_stall two[2];
	pl_plan_info info;
	v = tl_view(t, 0);
	pl_action out[8];
	ck_assert_int_eq(pl_region_plan(v, &cfg, out, 8, &info, two, 2, NULL), 1);
	ck_assert_uint_eq(info.blocked, 7);
	ck_assert_uint_eq(two[1].shard, 1);
	free(tk);
	tl_free(t);
}
END_TEST

/* A rollup region (its destination is not idempotent) is never placed, nor
 * is a region with transfer debt: not grown, moved or handed a primary. */
START_TEST(rollup_and_debt_regions_are_never_placed)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", NULL, 1);
	for (int i = 0; i < 8; i++) {
		uint32_t k = ru_region(t, tl_str(t, "roll/%d", i), a, 1, a);
		t->k[k].flags = i % 2 ? PL_SHARD_NOT_IDEMPOTENT : PL_SHARD_TRANSFER_DEBT;
	}
	uint32_t nolead = ru_region(t, "roll/new", PL_NONE, 0);
	t->k[nolead].flags = PL_SHARD_NOT_IDEMPOTENT;
	ru_member(t, "j", NULL, 9);
	ru_member(t, "k", NULL, 10);
	pl_view *v = tl_view(t, 0);
	ru_tick *tk = ru_tick_new();
	for (uint32_t rf = 1; rf <= 3; rf++) {
		pl_region_config c = ru_cfg(rf);
		for (int call = 0; call < 4; call++) {
			ck_assert_int_eq(ru_plan(v, &c, tk), 0);
			ck_assert_uint_eq(tk->info.blocked, 0);
			v = ru_next(t, call % 2);
		}
	}
	free(tk);
	tl_free(t);
}
END_TEST

/* Add-peer proposals off: step 1 emits no add, says so, and names every
 * region held back; the other steps go on. */
START_TEST(proposals_off_emits_no_add)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", NULL, 1);
	uint32_t b = ru_member(t, "b", NULL, 2);
	for (int i = 0; i < 4; i++)
		ru_region(t, tl_str(t, "r%d", i), a, 1, a);
	uint32_t both = ru_region(t, "shared", a, 2, a, b); /* b is its newest peer */
	pl_view *v = tl_view(t, 0);
	pl_region_config c = ru_cfg(2);
	c.add_peer_proposals = 0;
	ru_tick *tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &c, tk), 1);
	ck_assert_uint_eq(tk->a[0].kind, PL_ACTION_MOVE_LEADER);
	ck_assert_uint_eq(tk->a[0].reason, PL_REASON_NEWEST_PEER);
	ck_assert_uint_eq(tk->a[0].shard, both);
	ck_assert_uint_eq(tk->info.status, PL_STATUS_PROPOSALS_OFF);
	ck_assert_uint_eq(tk->info.blocked, 4);
	ck_assert_uint_eq(tk->info.detail, 0);
	for (int i = 0; i < 4; i++) {
		ck_assert_uint_eq(tk->st[i].reason, PL_REGION_STALL_PROPOSALS_OFF);
		ck_assert_uint_eq(tk->st[i].member, PL_NONE);
	}
	for (int call = 0; call < 4; call++) {
		v = ru_next(t, 1);
		ru_plan(v, &c, tk);
		for (int i = 0; i < tk->rc; i++)
			ck_assert_uint_ne(tk->a[i].kind, PL_ACTION_ADD_REPLICA);
	}
	/* Switched back on, the regions grow. */
	c.add_peer_proposals = 1;
	ck_assert_int_eq(ru_plan(v, &c, tk), 4);
	ck_assert_uint_eq(tk->a[0].kind, PL_ACTION_ADD_REPLICA);
	free(tk);
	tl_free(t);
}
END_TEST

/* A region whose primary is down is claimed by a live ready peer leading
 * the fewest primaries; a region whose every peer is down is not grown. */
START_TEST(claims_and_sources)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", NULL, 1), b = ru_member(t, "b", NULL, 2), c = ru_member(t, "c", NULL, 3);
	t->m[a].flags = PL_MEMBER_DOWN;
	uint32_t r0 = ru_region(t, "r0", a, 3, a, b, c);
	uint32_t r1 = ru_region(t, "r1", b, 2, b, c); /* b leads 1 */
	uint32_t lost = ru_region(t, "lost", a, 1, a);
	pl_view *v = tl_view(t, 0);
	pl_region_config cfg = ru_cfg(2);
	ru_tick *tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 1);
	ck_assert_uint_eq(tk->a[0].kind, PL_ACTION_SET_LEADER);
	ck_assert_uint_eq(tk->a[0].shard, r0);
	ck_assert_uint_eq(tk->a[0].from, a);
	ck_assert_uint_eq(tk->a[0].to, c); /* leads 0; b leads 1 */
	ck_assert_uint_eq(tk->a[0].total, 2);
	ck_assert_uint_eq(tk->info.blocked, 1);
	ck_assert_uint_eq(tk->st[0].shard, lost);
	ck_assert_uint_eq(tk->st[0].reason, PL_REGION_STALL_NO_SOURCE);
	ck_assert_uint_eq(tk->info.status, PL_STATUS_STALLED);
	(void)r1;
	free(tk);
	tl_free(t);
}
END_TEST

/* A member at its max_shards is passed over; with nobody left, NO_MEMBER. */
START_TEST(no_member_and_full_sets)
{
	tl *t = tl_new();
	uint32_t a = ru_member(t, "a", NULL, 1), b = ru_member(t, "b", NULL, 2);
	t->m[b].max_shards = 1;
	ru_region(t, "r0", a, 1, a);
	ru_region(t, "r1", a, 1, a);
	pl_view *v = tl_view(t, 0);
	pl_region_config cfg = ru_cfg(2);
	ru_tick *tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 1);
	ck_assert_uint_eq(tk->a[0].to, b);
	ck_assert_uint_eq(tk->info.blocked, 1);
	ck_assert_uint_eq(tk->st[0].shard, 1);
	ck_assert_uint_eq(tk->st[0].reason, PL_REGION_STALL_NO_MEMBER);
	free(tk);
	tl_free(t);

	/* A peer list filled with down members cannot take one more. */
	t = tl_new();
	for (int i = 0; i < 10; i++)
		ru_member(t, tl_str(t, "m%d", i), NULL, (uint64_t)i);
	for (int i = 1; i < 8; i++)
		t->m[i].flags = PL_MEMBER_DOWN;
	ru_region(t, "r", 0, 8, 0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u);
	v = tl_view(t, 0);
	tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 0);
	ck_assert_uint_eq(tk->st[0].reason, PL_REGION_STALL_FULL);
	ck_assert_str_eq(pl_region_stall_name(PL_REGION_STALL_FULL), "full");
	ck_assert_str_eq(pl_region_stall_name(99), "unknown");
	free(tk);
	tl_free(t);
}
END_TEST

START_TEST(stall_names)
{
	ck_assert_str_eq(pl_region_stall_name(PL_REGION_STALL_NOT_READY), "not-ready");
	ck_assert_str_eq(pl_region_stall_name(PL_REGION_STALL_NO_MEMBER), "no-member");
	ck_assert_str_eq(pl_region_stall_name(PL_REGION_STALL_FULL), "full");
	ck_assert_str_eq(pl_region_stall_name(PL_REGION_STALL_NO_SOURCE), "no-source");
	ck_assert_str_eq(pl_region_stall_name(PL_REGION_STALL_PROPOSALS_OFF), "proposals-off");
	ck_assert_str_eq(pl_region_stall_name(0), "unknown");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("region_grow");
	TCase *tc = tcase_create("grow");
	tcase_add_test(tc, one_member_owns_every_region);
	tcase_add_test(tc, grow_prefers_new_zone_then_fewest_replicas);
	tcase_add_test(tc, grow_sees_earlier_adds_in_the_same_call);
	tcase_add_test(tc, member_behind_is_skipped_for_the_next);
	tcase_add_test(tc, rollup_and_debt_regions_are_never_placed);
	tcase_add_test(tc, proposals_off_emits_no_add);
	tcase_add_test(tc, claims_and_sources);
	tcase_add_test(tc, no_member_and_full_sets);
	tcase_add_test(tc, stall_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
