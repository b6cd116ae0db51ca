/* check_broker_handoff.c - the hand-off-only mode (handoff_only, config
 * version 2) and the config's layout versions: a version 1 config is read
 * as it was, and no byte past it; pl_broker_config_init_version() writes
 * only the fields of the version asked. Random layouts (seed printed:
 * PL_TEST_SEED replays it): hand-offs only copy nothing. */
#include "broker_util.h"

#include <stddef.h>

/* The bytes a version 1 config has: the eight fields before handoff_only. */
#define V1_SIZE offsetof(pl_broker_config, handoff_only)

START_TEST(init_writes_the_fields_of_the_version_asked_and_no_more)
{
	unsigned char buf[sizeof(pl_broker_config) + 8];
	memset(buf, 0x5a, sizeof buf);
	pl_broker_config *c = (pl_broker_config *)(void *)buf;
	ck_assert_int_eq(pl_broker_config_init_version(c, 1), 0);
	ck_assert_uint_eq(c->version, 1);
	ck_assert_uint_eq(c->max_moves, 1);
	ck_assert_uint_eq(c->replica_balance, 1);
	for (size_t i = V1_SIZE; i < sizeof buf; i++)
		ck_assert_uint_eq(buf[i], 0x5a);
	memset(buf, 0x5a, sizeof buf);
	ck_assert_int_eq(pl_broker_config_init_version(c, 2), 0);
	ck_assert_uint_eq(c->version, 2);
	ck_assert_uint_eq(c->handoff_only, 0);
	for (size_t i = offsetof(pl_broker_config, bytes_balance); i < sizeof buf; i++)
		ck_assert_uint_eq(buf[i], 0x5a);
	/* version 3 ends before the tolerances, version 4 at the struct's end */
	memset(buf, 0x5a, sizeof buf);
	ck_assert_int_eq(pl_broker_config_init_version(c, 3), 0);
	ck_assert_uint_eq(c->full_ratio, 90);
	for (size_t i = offsetof(pl_broker_config, tolerance); i < sizeof buf; i++)
		ck_assert_uint_eq(buf[i], 0x5a);
	memset(buf, 0x5a, sizeof buf);
	ck_assert_int_eq(pl_broker_config_init_version(c, 4), 0);
	ck_assert_uint_eq(c->tolerance, 0);
	ck_assert_uint_eq(c->stream_tolerance, 0);
	for (size_t i = sizeof *c; i < sizeof buf; i++)
		ck_assert_uint_eq(buf[i], 0x5a);
	/* The macro fills the header's layout, the same bytes as the
	 * initializer; the function of that name (what a program built
	 * against version 1 calls) fills version 1. */
	pl_broker_config a, b = PL_BROKER_CONFIG_INIT;
	ck_assert_int_eq(pl_broker_config_init(&a), 0);
	ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
	memset(buf, 0x5a, sizeof buf);
	ck_assert_int_eq((pl_broker_config_init)(c), 0);
	ck_assert_uint_eq(c->version, 1);
	ck_assert_uint_eq(buf[V1_SIZE], 0x5a);
	/* Refused: another version, NULL; nothing written. */
	memset(buf, 0x5a, sizeof buf);
	ck_assert_int_eq(pl_broker_config_init_version(c, 5), PL_E_VERSION);
	ck_assert_int_eq(pl_broker_config_init_version(c, 0), PL_E_VERSION);
	ck_assert_uint_eq(buf[0], 0x5a);
	ck_assert_int_eq(pl_broker_config_init_version(NULL, 2), PL_E_INVAL);
}
END_TEST

/* A version 1 config at the very end of its memory: the library reads no
 * byte past it (ASan would see one), and plans as with handoff_only 0. */
START_TEST(a_version_1_config_is_read_as_it_was)
{
	tl *t = bu_new(3, NULL);
	uint32_t s = tl_stream(t, "s");
	for (uint32_t i = 0; i < 6; i++)
		tl_shard(t, tl_str(t, "s/%u", i), s, 0, 2, 0u, 1u);
	pl_broker_config *c = malloc(V1_SIZE); /* the fields of version 1, not one byte more */
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(pl_broker_config_init_version(c, 1), 0);
	pl_action out[16];
	pl_plan_info info;
	pl_diag d;
	int n = pl_broker_plan(tl_view(t, 0), c, out, 16, &info, &d);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(out[0].kind, PL_ACTION_MOVE_LEADER);
	/* The same move as version 2 with handoff_only 0 makes. */
	pl_broker_config v2 = PL_BROKER_CONFIG_INIT;
	pl_action out2[16];
	ck_assert_int_eq(pl_broker_plan(tl_view(t, 0), &v2, out2, 16, &info, &d), 1);
	ck_assert_int_eq(memcmp(&out[0], &out2[0], sizeof out[0]), 0);
	/* Version 5, or 0: refused, naming field 0, nothing written. */
	const uint32_t five = 5;
	memcpy(c, &five, sizeof five); /* the version, first */
	memset(out, 0x5a, sizeof out);
	ck_assert_int_eq(pl_broker_plan(tl_view(t, 0), c, out, 16, &info, &d), PL_E_VERSION);
	ck_assert_uint_eq(d.kind, PL_ELEM_CONFIG);
	ck_assert_uint_eq(d.index, 0);
	ck_assert_uint_eq(out[0].kind, 0x5a5a5a5au);
	free(c);
	/* handoff_only 2: PL_E_CONFIG naming field 8. */
	v2.handoff_only = 2;
	ck_assert_int_eq(pl_broker_plan(tl_view(t, 0), &v2, out, 16, &info, &d), PL_E_CONFIG);
	ck_assert_uint_eq(d.kind, PL_ELEM_CONFIG);
	ck_assert_uint_eq(d.index, 8);
	tl_free(t);
}
END_TEST

/* a and b hold every shard of s, a leads all 6; c holds none. Hand-offs
 * alone bring a down to b's level and no further: c can lead nothing
 * without a copy, and the plan names the stream. */
START_TEST(hand_offs_only_name_the_bound_only_a_copy_would_meet)
{
	tl *t = bu_new(3, NULL);
	uint32_t s = tl_stream(t, "s");
	for (uint32_t i = 0; i < 6; i++)
		tl_shard(t, tl_str(t, "s/%u", i), s, 0, 2, 0u, 1u);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.handoff_only = 1;
	uint32_t n;
	pl_plan_info info;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	ck_assert_uint_ge(n, 2);
	for (uint32_t i = 0; i < n; i++)
		ck_assert_msg(a[i].kind == PL_ACTION_MOVE_LEADER && !(a[i].flags & PL_ACTION_STAGE_FIRST) && a[i].to == 1,
			      "action %u: %s", i, tl_say(t, &a[i]));
	ck_assert_uint_eq(info.status, PL_STATUS_BLOCKED_HANDOFF);
	ck_assert_uint_eq(info.detail, s);
	ck_assert_uint_eq(bu_lead(t->view, s, 2), 0);
	free(a);
	/* Without the mode, c gets its share by copies. */
	tl_view(t, 0);
	cfg.handoff_only = 0;
	a = bu_dry(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(bu_lead(t->view, s, 2), 2);
	free(a);
	tl_free(t);
}
END_TEST

/* A draining leader hands off to an in-sync follower; with none, the shard
 * stalls: nothing is copied. */
START_TEST(hand_offs_only_drain_a_leader_to_a_follower_or_stall)
{
	tl *t = bu_new(3, NULL);
	uint32_t k0 = tl_shard(t, "s/0", PL_NONE, 0, 2, 0u, 1u);
	uint32_t k1 = tl_shard(t, "s/1", PL_NONE, 0, 1, 0u);
	t->m[0].flags = PL_MEMBER_DRAINING;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.handoff_only = 1;
	cfg.max_moves = 4;
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].shard, k0);
	ck_assert_uint_eq(a[0].to, 1);
	ck_assert_uint_eq(a[0].flags & PL_ACTION_STAGE_FIRST, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_STALLED);
	ck_assert_uint_eq(info.detail, k1);
	tl_free(t);
}
END_TEST

/* Hand-offs only, a draining leader whose one in-sync follower is at its
 * max_moves_in: the hand-off waits for it (no copy elsewhere). */
START_TEST(hand_offs_only_drain_waits_for_the_follower_at_its_limit)
{
	tl *t = bu_new(3, NULL);
	uint32_t k0 = tl_shard(t, "s/0", PL_NONE, 0, 2, 0u, 1u);
	uint32_t k1 = tl_shard(t, "s/1", PL_NONE, 2, 2, 2u, 1u);
	t->k[k1].moving_to = 1;
	t->m[0].flags = PL_MEMBER_DRAINING;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.handoff_only = 1;
	cfg.max_moves = 4;
	cfg.max_moves_in = 1;
	int n;
	pl_plan_info info;
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	ck_assert_uint_eq(info.detail, 1);
	pl_view_settle(t->view);
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_ge(n, 1);
	ck_assert_uint_eq(a[0].shard, k0);
	ck_assert_uint_eq(a[0].to, 1);
	for (int i = 0; i < n; i++)
		ck_assert_uint_eq(a[i].flags & PL_ACTION_STAGE_FIRST, 0);
	tl_free(t);
}
END_TEST

/* No bound can be met by hand-offs (m0 and m1 lead 4 each with no
 * follower), but m2 leads 2 and can hand one to its follower m3: the
 * spread narrows (4/4/2/0 -> 4/4/1/1, the sum of squares 36 -> 34), though
 * neither comes within its bounds. Redpanda's balancer makes that move. */
START_TEST(hand_offs_only_narrow_the_spread_no_bound_can_be_met)
{
	tl *t = bu_new(4, NULL);
	for (uint32_t i = 0; i < 8; i++)
		tl_shard(t, tl_str(t, "g%u", i), PL_NONE, i / 4, 1, i / 4);
	tl_shard(t, "g8", PL_NONE, 2, 1, 2u);
	uint32_t k9 = tl_shard(t, "g9", PL_NONE, 2, 2, 2u, 3u);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.handoff_only = 1;
	cfg.replication_factor = 1;
	uint32_t n;
	pl_plan_info info;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(a[0].kind, PL_ACTION_MOVE_LEADER);
	ck_assert_uint_eq(a[0].shard, k9);
	ck_assert_uint_eq(a[0].to, 3);
	ck_assert_uint_eq(info.status, PL_STATUS_BLOCKED_HANDOFF);
	ck_assert_uint_eq(bu_total(t->view, 2), 1);
	ck_assert_uint_eq(bu_total(t->view, 3), 1);
	free(a);
	tl_free(t);
}
END_TEST

/* Two streams, each out of its bounds where no hand-off brings it within
 * them (the member under the floor holds no replica of it), totals 1/4/1.
 * A stream that cannot be evened does not hold the totals back: two
 * hand-offs give 2/2/2, and neither stream ends further from its bounds. */
START_TEST(a_stream_no_hand_off_can_even_does_not_block_the_totals)
{
	tl *t = bu_new(3, NULL);
	uint32_t sa = tl_stream(t, "a"), sb = tl_stream(t, "b");
	tl_shard(t, "a/0", sa, 1, 2, 1u, 0u);
	tl_shard(t, "a/1", sa, 1, 2, 1u, 0u);
	tl_shard(t, "a/2", sa, 0, 2, 0u, 1u);
	tl_shard(t, "b/0", sb, 1, 2, 1u, 2u);
	tl_shard(t, "b/1", sb, 1, 2, 1u, 2u);
	tl_shard(t, "b/2", sb, 2, 2, 2u, 1u);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.handoff_only = 1;
	cfg.replication_factor = 2;
	uint32_t n;
	pl_plan_info info;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(n, 2);
	for (uint32_t m = 0; m < 3; m++)
		ck_assert_uint_eq(bu_total(t->view, m), 2);
	/* Each stream: one member over by one, one under by one, as before. */
	ck_assert_uint_eq(bu_lead(t->view, sa, 0) + bu_lead(t->view, sa, 1), 3);
	ck_assert_uint_eq(bu_lead(t->view, sa, 2), 0);
	ck_assert_uint_eq(bu_lead(t->view, sb, 0), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_BLOCKED_HANDOFF);
	free(a);
	tl_free(t);
}
END_TEST

/* Random layouts, zones, weights, drains and down members: hand-offs only
 * copy nothing (no MOVE_REPLICA, no STAGE_FIRST, no ADD_REPLICA: every
 * shard has replicas), and every hand-off goes to a replica the shard has. */
START_TEST(hand_offs_only_copy_nothing_on_random_layouts)
{
	uint64_t seed = tl_seed(0x4a0du), rng = seed;
	uint32_t iters = tl_iters(300), moves = 0, blocked = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint32_t nm = 3 + tl_below(&rng, 7);
		tl *t = tl_random(&rng, nm, 1 + tl_below(&rng, 4), 6 + tl_below(&rng, 50), 1 + tl_below(&rng, 3),
				  (int)tl_below(&rng, 2));
		for (uint32_t m = 0; m < nm; m++) {
			if (tl_below(&rng, 3) == 0)
				t->m[m].weight = 1 + tl_below(&rng, 4);
			if (tl_below(&rng, 8) == 0)
				t->m[m].flags = tl_below(&rng, 2) ? PL_MEMBER_DOWN : PL_MEMBER_DRAINING;
		}
		int live = 0;
		for (uint32_t m = 0; m < nm; m++)
			live |= t->m[m].flags == 0;
		if (!live)
			t->m[0].flags = 0;
		tl_view(t, 0);
		pl_broker_config cfg = bu_cfg();
		cfg.handoff_only = 1;
		cfg.max_moves = 1 + tl_below(&rng, 4);
		uint32_t n;
		pl_plan_info info;
		pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
		ck_assert_msg(info.status != PL_STATUS_FULL, "seed %llu (layout %u): no end", (unsigned long long)seed,
			      it);
		for (uint32_t i = 0; i < n; i++) {
			const pl_action *x = &a[i];
			ck_assert_msg((x->kind == PL_ACTION_MOVE_LEADER || x->kind == PL_ACTION_SET_LEADER) &&
					      !(x->flags & PL_ACTION_STAGE_FIRST),
				      "seed %llu (layout %u): action %u copies: %s", (unsigned long long)seed, it, i,
				      tl_say(t, x));
			int held = 0;
			for (uint32_t j = 0; j < t->k[x->shard].replica_count; j++)
				held |= t->k[x->shard].replicas[j] == x->to;
			ck_assert_msg(held, "seed %llu (layout %u): action %u to a member without a replica",
				      (unsigned long long)seed, it, i);
		}
		moves += n;
		blocked += info.status == PL_STATUS_BLOCKED_HANDOFF;
		free(a);
		tl_free(t);
	}
	printf("broker: %u random layouts (seed %llu), hand-offs only: %u hand-offs, no copy; %u ended naming a "
	       "bound only a copy would meet\n",
	       iters, (unsigned long long)seed, moves, blocked);
}
END_TEST

/* Random layouts, equal weights, totals only, every member live, no
 * limits: after a hand-off-only plan no shard's leader leads two or more
 * than a follower of it (such a hand-off would narrow the
 * spread), whether or not the bounds were met. */
START_TEST(hand_offs_only_leave_no_narrowing_hand_off_on_random_layouts)
{
	uint64_t seed = tl_seed(0x4a0eu), rng = seed;
	uint32_t iters = tl_iters(300), moves = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint32_t nm = 3 + tl_below(&rng, 7);
		tl *t = tl_random(&rng, nm, 1 + tl_below(&rng, 4), 6 + tl_below(&rng, 50), 1 + tl_below(&rng, 3), 0);
		tl_view(t, 0);
		pl_broker_config cfg = bu_cfg();
		cfg.handoff_only = 1;
		cfg.stream_balance = 0;
		cfg.max_moves = 1 + tl_below(&rng, 4);
		uint32_t n;
		pl_plan_info info;
		pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
		moves += n;
		const pl_view *v = t->view;
		pl_shard_state sv;
		for (uint32_t k = 0; k < t->nk; k++) {
			ck_assert_int_eq(pl_view_shard_state(v, k, &sv), 0);
			if (sv.leader == PL_NONE)
				continue;
			for (uint32_t j = 0; j < sv.replica_count; j++) {
				uint32_t f = sv.replicas[j]; /* tl_random marks no replica out of sync */
				if (f == sv.leader)
					continue;
				ck_assert_msg(bu_total(v, sv.leader) < bu_total(v, f) + 2,
					      "seed %llu (layout %u): %s leads %u, its follower %s %u", (unsigned long long)seed,
					      it, t->m[sv.leader].id.ptr, bu_total(v, sv.leader), t->m[f].id.ptr,
					      bu_total(v, f));
			}
		}
		free(a);
		tl_free(t);
	}
	printf("broker: %u random layouts (seed %llu), hand-offs only, totals: %u hand-offs, none left that narrows\n",
	       iters, (unsigned long long)seed, moves);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("broker_handoff");
	TCase *c = tcase_create("config");
	tcase_add_test(c, init_writes_the_fields_of_the_version_asked_and_no_more);
	tcase_add_test(c, a_version_1_config_is_read_as_it_was);
	suite_add_tcase(s, c);
	c = tcase_create("handoff_only");
	tcase_add_test(c, hand_offs_only_name_the_bound_only_a_copy_would_meet);
	tcase_add_test(c, hand_offs_only_drain_a_leader_to_a_follower_or_stall);
	tcase_add_test(c, hand_offs_only_drain_waits_for_the_follower_at_its_limit);
	tcase_add_test(c, hand_offs_only_narrow_the_spread_no_bound_can_be_met);
	tcase_add_test(c, a_stream_no_hand_off_can_even_does_not_block_the_totals);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 600);
	tcase_add_test(c, hand_offs_only_copy_nothing_on_random_layouts);
	tcase_add_test(c, hand_offs_only_leave_no_narrowing_hand_off_on_random_layouts);
	suite_add_tcase(s, c);
	return tl_run(s);
}
