/* check_broker_isr.c - replicas out of sync (PL_SHARD_OUT_OF_SYNC): they
 * hold data and count as replicas, but no hand-off or failover goes to them,
 * and a shard with no live in-sync replica is reported, never given a copy.
 * Cases, the snapshot's refusals, and a property on random layouts (seed
 * printed: PL_TEST_SEED replays it). */
#include "broker_util.h"

/* The validation: a bit past replica_count, or on the leader, is refused. */
START_TEST(out_of_sync_bits_name_replicas_that_are_not_the_leader)
{
	tl *t = bu_new(3, NULL);
	uint32_t k = tl_shard(t, "s/0", PL_NONE, 0, 2, 0u, 1u);
	t->k[k].flags = PL_SHARD_OUT_OF_SYNC(1);
	pl_diag d;
	ck_assert_int_eq(tl_view_rc(t, 0, &d), 0);
	t->k[k].flags = PL_SHARD_OUT_OF_SYNC(2); /* past replica_count */
	ck_assert_int_eq(tl_view_rc(t, 0, &d), PL_E_FLAGS);
	ck_assert_uint_eq(d.kind, PL_ELEM_SHARD);
	ck_assert_uint_eq(d.index, k);
	t->k[k].flags = PL_SHARD_OUT_OF_SYNC(0); /* the leader */
	ck_assert_int_eq(tl_view_rc(t, 0, &d), PL_E_FLAGS);
	ck_assert_uint_eq(d.index, k);
	t->k[k].flags = 0x10000u; /* not a flag */
	ck_assert_int_eq(tl_view_rc(t, 0, &d), PL_E_FLAGS);
	tl_free(t);
}
END_TEST

/* b0 leads s/0 = b0, b1, b2 and is down; b1 is out of sync: b2 takes over. */
START_TEST(a_failover_skips_a_follower_out_of_sync)
{
	tl *t = bu_new(3, NULL);
	uint32_t k = tl_shard(t, "s/0", PL_NONE, 0, 3, 0u, 1u, 2u);
	t->k[k].flags = PL_SHARD_OUT_OF_SYNC(1);
	t->m[0].flags = PL_MEMBER_DOWN;
	/* b1 leads nothing, b2 one shard: the tiers alone would pick b1. */
	tl_shard(t, "t/0", PL_NONE, 2, 1, 2u);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_ge(n, 1);
	ck_assert_uint_eq(a[0].kind, PL_ACTION_SET_LEADER);
	ck_assert_uint_eq(a[0].shard, k);
	ck_assert_uint_eq(a[0].to, 2);
	tl_free(t);
}
END_TEST

/* The same, b1 and b2 both out of sync: the shard is offline. Nothing is
 * copied from a stale replica; the tick reports it stalled. */
START_TEST(a_shard_with_no_live_replica_in_sync_is_reported_offline)
{
	tl *t = bu_new(4, NULL);
	uint32_t k = tl_shard(t, "s/0", PL_NONE, 0, 3, 0u, 1u, 2u);
	t->k[k].flags = PL_SHARD_OUT_OF_SYNC(1) | PL_SHARD_OUT_OF_SYNC(2);
	t->m[0].flags = PL_MEMBER_DOWN;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	int n;
	pl_plan_info info;
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_STALLED);
	ck_assert_uint_eq(info.detail, k);
	tl_free(t);
}
END_TEST

/* An offline shard (no leader, every replica out of sync) on a and b, with
 * c holding nothing: replica balance copies other shards to c, never the
 * offline one, which has no source to copy from. */
START_TEST(an_offline_shard_is_never_copied)
{
	tl *t = bu_new(3, NULL);
	uint32_t s = tl_stream(t, "s");
	uint32_t k = tl_shard(t, "s/0", s, PL_NONE, 2, 0u, 1u);
	t->k[k].flags = PL_SHARD_OUT_OF_SYNC(0) | PL_SHARD_OUT_OF_SYNC(1);
	for (uint32_t i = 1; i < 6; i++)
		tl_shard(t, tl_str(t, "s/%u", i), s, i % 2, 2, 0u, 1u);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 8;
	uint32_t n;
	pl_plan_info info;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	uint32_t to_c = 0;
	for (uint32_t i = 0; i < n; i++) {
		ck_assert_msg(a[i].shard != k, "action %u touches the offline shard: %s", i, tl_say(t, &a[i]));
		to_c += a[i].to == 2;
	}
	ck_assert_uint_gt(to_c, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_STALLED);
	ck_assert_uint_eq(info.detail, k);
	free(a);
	tl_free(t);
}
END_TEST

/* A leader drain hands off to an in-sync follower, or copies to a member
 * that holds none: never to a follower out of sync. */
START_TEST(a_drain_hand_off_skips_a_follower_out_of_sync)
{
	tl *t = bu_new(3, NULL);
	uint32_t k = tl_shard(t, "s/0", PL_NONE, 0, 2, 0u, 1u);
	t->k[k].flags = PL_SHARD_OUT_OF_SYNC(1);
	t->m[0].flags = PL_MEMBER_DRAINING;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_ge(n, 1);
	ck_assert_uint_eq(a[0].kind, PL_ACTION_MOVE_LEADER);
	ck_assert_uint_eq(a[0].to, 2);
	ck_assert_uint_eq(a[0].flags & PL_ACTION_STAGE_FIRST, PL_ACTION_STAGE_FIRST);
	tl_free(t);
}
END_TEST

/* Random layouts with replicas marked out of sync: over the whole dry run,
 * no leadership goes to a replica marked out of sync without a copy (a
 * SET_LEADER, or a MOVE_LEADER without STAGE_FIRST), and every layout
 * converges. */
START_TEST(no_leadership_goes_to_a_replica_out_of_sync)
{
	uint64_t seed = tl_seed(0x15cu), rng = seed;
	uint32_t iters = tl_iters(300), marked = 0, moves = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint32_t nm = 3 + tl_below(&rng, 6);
		tl *t = tl_random(&rng, nm, 1 + tl_below(&rng, 3), 6 + tl_below(&rng, 40), 2 + tl_below(&rng, 2),
				  (int)tl_below(&rng, 2));
		for (uint32_t k = 0; k < t->nk; k++)
			for (uint32_t j = 0; j < t->k[k].replica_count; j++)
				if (t->k[k].replicas[j] != t->k[k].leader && tl_below(&rng, 3) == 0) {
					t->k[k].flags |= PL_SHARD_OUT_OF_SYNC(j);
					marked++;
				}
		if (tl_below(&rng, 4) == 0)
			t->m[tl_below(&rng, nm)].flags = tl_below(&rng, 2) ? PL_MEMBER_DOWN : PL_MEMBER_DRAINING;
		tl_view(t, 0);
		pl_broker_config cfg = bu_cfg();
		cfg.max_moves = 1 + tl_below(&rng, 4);
		uint32_t n;
		pl_plan_info info;
		pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
		ck_assert_msg(info.status != PL_STATUS_FULL, "seed %llu (layout %u): the dry run did not end",
			      (unsigned long long)seed, it);
		for (uint32_t i = 0; i < n; i++) {
			const pl_action *x = &a[i];
			int lead = x->kind == PL_ACTION_SET_LEADER ||
				   (x->kind == PL_ACTION_MOVE_LEADER && !(x->flags & PL_ACTION_STAGE_FIRST)) ||
				   (x->kind == PL_ACTION_MOVE_REPLICA && (x->flags & PL_ACTION_CARRIES_LEADER) &&
				    !(x->flags & PL_ACTION_STAGE_FIRST));
			if (!lead)
				continue;
			moves++;
			const pl_shard *s = &t->k[x->shard];
			for (uint32_t j = 0; j < s->replica_count; j++)
				ck_assert_msg(s->replicas[j] != x->to || !(s->flags & PL_SHARD_OUT_OF_SYNC(j)),
					      "seed %llu (layout %u): action %u gives %s the leadership, out of sync",
					      (unsigned long long)seed, it, i, t->m[x->to].id.ptr);
		}
		free(a);
		tl_free(t);
	}
	printf("broker: %u random layouts (seed %llu): %u replicas out of sync, %u leaderships handed to "
	       "replicas in sync, none to one out of sync\n",
	       iters, (unsigned long long)seed, marked, moves);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("broker_isr");
	TCase *c = tcase_create("cases");
	tcase_add_test(c, out_of_sync_bits_name_replicas_that_are_not_the_leader);
	tcase_add_test(c, a_failover_skips_a_follower_out_of_sync);
	tcase_add_test(c, a_shard_with_no_live_replica_in_sync_is_reported_offline);
	tcase_add_test(c, a_drain_hand_off_skips_a_follower_out_of_sync);
	tcase_add_test(c, an_offline_shard_is_never_copied);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 600);
	tcase_add_test(c, no_leadership_goes_to_a_replica_out_of_sync);
	suite_add_tcase(s, c);
	return tl_run(s);
}
