/* check_broker_drain.c - the replica moves before balance (broker_drain.c):
 * a draining member's replicas leave it after its leadership, one replica of
 * a shard per tick, the smallest draining id first, staged first, within the
 * limits, never lowering a zone count or passing a cap (else stalled, with
 * the first reason that holds); and zone repair, which moves the follower of
 * a shared zone holding the most into a zone the shard lacks, never the
 * leader, at most as often as the shard could gain zones. A property checks
 * every such move of a tick against the rules on random layouts. */
#include <stdlib.h>

#include "broker_util.h"

static uint32_t count_shard(const pl_action *a, int n, uint32_t k)
{
	uint32_t c = 0;
	for (int i = 0; i < n; i++)
		c += a[i].shard == k;
	return c;
}

/* Moves to spare: four at a time. */
static pl_broker_config four_moves(void)
{
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 4;
	return cfg;
}

/* b0, b1, b2 in za, b3 in zb, b4 in zc. */
static tl *three_in_za(void)
{
	static const char *const zones[] = {"za", "za", "za", "zb", "zc"};
	return bu_new(5, zones);
}

/* ---- decommission ----------------------------------------------------------- */

START_TEST(leadership_leaves_first_and_the_replica_on_the_next_tick)
{
	/* b0 drains and leads orders/0 (replicas b0, b1); b2 and b3 lead the
	 * stream's other shards, so the follower b1 (under its floor) takes
	 * the leadership. With moves to spare, the tick hands it off and
	 * leaves b0's replica: the shard is then in flight. After it settles,
	 * the replica goes, staged first. */
	tl *t = bu_new(4, NULL);
	uint32_t s = tl_stream(t, "orders");
	uint32_t k = tl_shard(t, "orders/0", s, 0, 2, 0u, 1u);
	tl_shard(t, "orders/1", s, 2, 1, 2u);
	tl_shard(t, "orders/2", s, 3, 1, 3u);
	t->m[0].flags = PL_MEMBER_DRAINING;
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = four_moves();
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].kind, PL_ACTION_MOVE_LEADER);
	ck_assert_uint_eq(a[0].reason, PL_REASON_DRAIN);
	ck_assert_uint_eq(a[0].to, 1);
	ck_assert_uint_eq(a[0].flags, 0); /* a follower: no copy */
	ck_assert_uint_eq(info.status, PL_STATUS_IN_FLIGHT);
	ck_assert_uint_eq(bu_held(v, 0), 1);
	pl_view_settle(v);
	a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_ge(n, 1);
	ck_assert_uint_eq(a[0].kind, PL_ACTION_MOVE_REPLICA);
	ck_assert_uint_eq(a[0].reason, PL_REASON_REPLICA_DRAIN);
	ck_assert_uint_eq(a[0].shard, k);
	ck_assert_uint_eq(a[0].from, 0);
	ck_assert_uint_eq(a[0].flags, PL_ACTION_STAGE_FIRST);
	ck_assert_uint_eq(bu_held(v, 0), 0);
	tl_free(t);
}
END_TEST

START_TEST(one_replica_of_a_shard_per_tick)
{
	/* b1 and b2 drain, both followers of orders/0: with moves to spare one
	 * tick moves b1's (the smaller id), the next b2's. */
	tl *t = bu_new(5, NULL);
	t->m[1].flags = t->m[2].flags = PL_MEMBER_DRAINING;
	uint32_t s = tl_stream(t, "orders");
	uint32_t k = tl_shard(t, "orders/0", s, 0, 3, 0u, 2u, 1u);
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = four_moves();
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].from, 1);
	pl_view_settle(v);
	a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].shard, k);
	ck_assert_uint_eq(a[0].from, 2);
	ck_assert_uint_eq(bu_held(v, 1) + bu_held(v, 2), 0);
	tl_free(t);
}
END_TEST

START_TEST(a_shard_whose_leader_is_down_gets_a_leader_before_a_replica_moves)
{
	/* orders/0: leader b0 down, followers b1 (draining) and b2. The tick
	 * promotes b2 and leaves b1's replica for a later tick. */
	tl *t = bu_new(4, NULL);
	t->m[0].flags = PL_MEMBER_DOWN;
	t->m[1].flags = PL_MEMBER_DRAINING;
	uint32_t s = tl_stream(t, "orders");
	uint32_t k = tl_shard(t, "orders/0", s, 0, 3, 0u, 1u, 2u);
	tl_view(t, 0);
	pl_broker_config cfg = four_moves();
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_ge(n, 1);
	ck_assert_uint_eq(a[0].kind, PL_ACTION_SET_LEADER);
	ck_assert_uint_eq(a[0].reason, PL_REASON_FAILOVER);
	ck_assert_uint_eq(a[0].to, 2);
	ck_assert_uint_eq(count_shard(a, n, k), 1);
	tl_free(t);
}
END_TEST

START_TEST(no_replica_drains_off_a_shard_without_a_live_leader)
{
	/* A shard with no leader and a full replica list: every replica down
	 * but b0's, which drains. Placing cannot add a replica (the list is
	 * full) and stalls it; the drain leaves it alone: a replica never
	 * leaves a shard that has no live leader. */
	tl *t = bu_new(PL_MAX_REPLICAS + 2, NULL);
	uint32_t k = tl_shard(t, "x", PL_NONE, PL_NONE, 0);
	for (uint32_t j = 0; j < PL_MAX_REPLICAS; j++) {
		t->k[k].replicas[j] = j;
		t->m[j].flags = j ? PL_MEMBER_DOWN : PL_MEMBER_DRAINING;
	}
	t->k[k].replica_count = PL_MAX_REPLICAS;
	tl_view(t, 0);
	pl_broker_config cfg = four_moves();
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_uint_eq(count_shard(a, n, k), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_STALLED);
	ck_assert_uint_eq(info.detail, k);
	tl_free(t);
}
END_TEST

START_TEST(a_replica_drain_carries_its_scope_and_counts)
{
	/* Of a stream: counted on the stream's replicas. b2 drains its follower
	 * replica of orders/0 (orders: 3 shards, RF 2, 6 replicas). */
	tl *t = bu_new(4, NULL);
	uint32_t s = tl_stream(t, "orders");
	tl_shard(t, "orders/0", s, 0, 2, 0u, 2u);
	tl_shard(t, "orders/1", s, 1, 2, 1u, 2u);
	tl_shard(t, "orders/2", s, 0, 2, 0u, 1u);
	t->m[2].flags = PL_MEMBER_DRAINING;
	tl_view(t, 0);
	pl_broker_config cfg = four_moves();
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_ge(n, 2);
	for (int i = 0; i < 2; i++) {
		ck_assert_uint_eq(a[i].reason, PL_REASON_REPLICA_DRAIN);
		ck_assert_uint_eq(a[i].scope, PL_SCOPE_STREAM_REPLICAS);
		ck_assert_uint_eq(a[i].total, 6);
		ck_assert_uint_eq(a[i].to, 3); /* the only member holding neither */
	}
	ck_assert_uint_eq(a[0].from_count, 2); /* b2's replicas of orders, before each */
	ck_assert_uint_eq(a[1].from_count, 1);
	ck_assert_uint_eq(a[0].to_count, 0);
	ck_assert_uint_eq(a[1].to_count, 1);
	tl_free(t);
	/* Of no stream: counted on the replicas in total, the bounds of `to`
	 * over every replica (4 over 3 eligible: floor 1, ceiling 2). */
	t = bu_new(4, NULL);
	tl_shard(t, "x", PL_NONE, 0, 2, 0u, 2u);
	tl_shard(t, "y", PL_NONE, 1, 2, 1u, 0u);
	t->m[2].flags = PL_MEMBER_DRAINING;
	tl_view(t, 0);
	a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_ge(n, 1);
	ck_assert_uint_eq(a[0].reason, PL_REASON_REPLICA_DRAIN);
	ck_assert_uint_eq(a[0].scope, PL_SCOPE_REPLICAS);
	ck_assert_uint_eq(a[0].from_count, 1);
	ck_assert_uint_eq(a[0].total, 4);
	ck_assert_uint_eq(a[0].floor, 1);
	ck_assert_uint_eq(a[0].ceiling, 2);
	tl_free(t);
}
END_TEST

START_TEST(replica_drains_wait_on_the_budget_and_on_the_members_out_limit)
{
	tl *t = bu_new(4, NULL);
	uint32_t s = tl_stream(t, "orders");
	for (int i = 0; i < 3; i++)
		tl_shard(t, tl_str(t, "orders/%d", i), s, (uint32_t)i, 2, (uint32_t)i, 3u); /* leaders even */
	t->m[3].flags = PL_MEMBER_DRAINING;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg(); /* max_moves 1 */
	int n;
	pl_plan_info info;
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	ck_assert_uint_eq(info.detail, PL_NONE);
	cfg.max_moves = 8;
	cfg.max_moves_out = 2;
	tl_view(t, 0);
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(a[0].from, 3);
	ck_assert_uint_eq(a[1].from, 3);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	ck_assert_uint_eq(info.detail, 3);
	tl_free(t);
}
END_TEST

START_TEST(a_stalled_replica_is_reported_and_the_others_still_move)
{
	/* b0 (za) drains two followers. a/0 (b1 zb, b0, b3 zc): only b2 (zb)
	 * holds none of it, and would lose a zone. b/0 (b2 zb, b0): b3 keeps
	 * its zones. The stall names a/0, the first in key order, and b/0's
	 * replica moves in the same tick. */
	static const char *const zones[] = {"za", "zb", "zb", "zc"};
	tl *t = bu_new(4, zones);
	uint32_t ka = tl_shard(t, "a/0", PL_NONE, 1, 3, 1u, 0u, 3u);
	uint32_t kb = tl_shard(t, "b/0", PL_NONE, 2, 2, 2u, 0u);
	t->m[0].flags = PL_MEMBER_DRAINING;
	tl_view(t, 0);
	pl_broker_config cfg = four_moves();
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].shard, kb);
	ck_assert_uint_eq(a[0].to, 3);
	ck_assert_uint_eq(info.status, PL_STATUS_DRAIN_STALLED);
	ck_assert_uint_eq(info.detail, ka);
	ck_assert_uint_eq(info.blocked, 1);
	pl_broker_stall e[4];
	uint32_t total;
	ck_assert_int_eq(pl_broker_drain_stalls(t->view, e, 4, &total, NULL), 1);
	ck_assert_uint_eq(e[0].shard, ka);
	ck_assert_uint_eq(e[0].reason, PL_BROKER_STALL_ZONES);
	/* b3 at its cap: b/0 stalls too, for caps (its one zone keeper is
	 * full) though b1 would lose a zone as well: caps come before zones. */
	t->m[3].max_shards = 1;
	tl_view(t, 0);
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.detail, ka);
	ck_assert_uint_eq(info.blocked, 2);
	ck_assert_int_eq(pl_broker_drain_stalls(t->view, e, 4, &total, NULL), 2);
	ck_assert_uint_eq(e[0].shard, ka);
	ck_assert_uint_eq(e[0].reason, PL_BROKER_STALL_ZONES);
	ck_assert_uint_eq(e[1].shard, kb);
	ck_assert_uint_eq(e[1].reason, PL_BROKER_STALL_CAPS);
	tl_free(t);
}
END_TEST

/* a (no zone) and b (z1) drain; c (z0) leads s/0 = a, b, c; d is in z1.
 * a's replica cannot move (to d, it would lose a zone), b's can (to d, its
 * own zone): b's moves, and a's alone is reported. */
START_TEST(a_replica_that_cannot_drain_does_not_hold_up_one_that_can)
{
	static const char *const zones[] = {NULL, "z1", "z0", "z1"};
	tl *t = bu_new(4, zones);
	uint32_t k = tl_shard(t, "s/0", PL_NONE, 2, 3, 0u, 1u, 2u);
	t->m[0].flags = t->m[1].flags = PL_MEMBER_DRAINING;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].kind, PL_ACTION_MOVE_REPLICA);
	ck_assert_uint_eq(a[0].from, 1);
	ck_assert_uint_eq(a[0].to, 3);
	pl_view_settle(t->view);
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_DRAIN_STALLED);
	ck_assert_uint_eq(info.detail, k);
	tl_free(t);
}
END_TEST

/* a (z0) drains and leads s/0 = b, a; b and c are in z1; s/1 is moving to
 * b, and max_moves_in is 1. Handing s/0 to c would leave it in one zone:
 * the hand-off waits for b, which keeps the zone and needs no copy. */
START_TEST(a_drain_hand_off_waits_for_the_member_that_keeps_the_zone)
{
	static const char *const zones[] = {"z0", "z1", "z1"};
	tl *t = bu_new(3, zones);
	uint32_t s = tl_stream(t, "s");
	uint32_t k0 = tl_shard(t, "s/0", s, 0, 2, 1u, 0u);
	uint32_t k1 = tl_shard(t, "s/1", s, 2, 2, 2u, 1u);
	t->k[k1].moving_to = 1;
	t->m[0].flags = PL_MEMBER_DRAINING;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 4;
	cfg.max_moves_in = 1;
	cfg.replication_factor = 2;
	int n;
	pl_plan_info info;
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	ck_assert_uint_eq(info.detail, 1);
	pl_view_settle(t->view);
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_ge(n, 1);
	ck_assert_uint_eq(a[0].kind, PL_ACTION_MOVE_LEADER);
	ck_assert_uint_eq(a[0].shard, k0);
	ck_assert_uint_eq(a[0].to, 1);
	ck_assert_uint_eq(a[0].flags & PL_ACTION_STAGE_FIRST, 0);
	tl_free(t);
}
END_TEST

/* ---- zone repair ----------------------------------------------------------------- */

/* An action array that fills stops the replica drains and the zone repair
 * with the moves that fit, FULL. */
START_TEST(a_full_array_stops_the_drains_and_the_zone_repair)
{
	pl_action out[1];
	pl_plan_info info;
	pl_diag d;
	tl *t = bu_new(4, NULL);
	uint32_t s = tl_stream(t, "orders");
	for (int i = 0; i < 3; i++)
		tl_shard(t, tl_str(t, "orders/%d", i), s, (uint32_t)i, 2, (uint32_t)i, 3u);
	t->m[3].flags = PL_MEMBER_DRAINING;
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 8;
	ck_assert_int_eq(pl_broker_plan(tl_view(t, 0), &cfg, out, 1, &info, &d), 1);
	ck_assert_uint_eq(info.status, PL_STATUS_FULL);
	ck_assert_uint_eq(out[0].kind, PL_ACTION_MOVE_REPLICA);
	ck_assert_uint_eq(out[0].from, 3);
	tl_free(t);

	t = three_in_za();
	s = tl_stream(t, "orders");
	tl_shard(t, "orders/0", s, 0, 3, 0u, 1u, 2u);
	tl_shard(t, "orders/1", s, 1, 3, 1u, 2u, 0u);
	tl_shard(t, "orders/2", s, 3, 2, 3u, 4u);
	ck_assert_int_eq(pl_broker_plan(tl_view(t, 0), &cfg, out, 1, &info, &d), 1);
	ck_assert_uint_eq(info.status, PL_STATUS_FULL);
	ck_assert_uint_eq(out[0].reason, PL_REASON_ZONE_REPAIR);
	ck_assert(out[0].to == 3 || out[0].to == 4);
	tl_free(t);
}
END_TEST

START_TEST(zone_repair_moves_the_follower_holding_the_most_never_the_leader)
{
	/* orders/0 all in za: b0 leads, b1 and b2 follow. b2 holds more of the
	 * stream than b1, and b0 as much as b2: b2 moves (to zb or zc), then
	 * b1; the leader stays. */
	tl *t = three_in_za();
	uint32_t s = tl_stream(t, "orders");
	uint32_t k = tl_shard(t, "orders/0", s, 0, 3, 0u, 1u, 2u);
	tl_shard(t, "orders/1", s, 3, 3, 3u, 2u, 4u);
	tl_shard(t, "orders/2", s, 4, 3, 4u, 0u, 3u);
	pl_view *v = tl_view(t, 0);
	ck_assert_uint_eq(bu_zones(t, v, k), 1);
	pl_broker_config cfg = four_moves();
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_ge(n, 1);
	ck_assert_uint_eq(a[0].reason, PL_REASON_ZONE_REPAIR);
	ck_assert_uint_eq(a[0].shard, k);
	ck_assert_uint_eq(a[0].from, 2);
	ck_assert(a[0].to == 3 || a[0].to == 4);
	ck_assert_uint_eq(a[0].from_count, 1);
	ck_assert_uint_eq(a[0].to_count, 2);
	ck_assert_uint_eq(a[0].total, 3);
	ck_assert_uint_eq(a[0].flags, PL_ACTION_STAGE_FIRST);
	ck_assert_uint_eq(count_shard(a, n, k), 1);
	uint32_t first = a[0].to;
	pl_view_settle(v);
	a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_ge(n, 1);
	ck_assert_uint_eq(a[0].reason, PL_REASON_ZONE_REPAIR);
	ck_assert_uint_eq(a[0].from, 1);
	ck_assert_uint_eq(a[0].to, first == 3 ? 4 : 3);
	ck_assert_uint_eq(a[0].from_count, 2);
	pl_shard_state st;
	pl_view_shard_state(v, k, &st);
	ck_assert_uint_eq(st.leader, 0);
	ck_assert_uint_eq(bu_zones(t, v, k), 3);
	tl_free(t);
}
END_TEST

/* s/0's replicas share zone za, and its leader b0 leads 5 of the stream
 * (ceiling 2) where the follower b1 leads 1: b0 hands b1 the leadership
 * first (the stream pass would), and the repair moves b0's replica on the
 * next tick. Moving b1's replica first, then b0's leadership with a copy,
 * copies s/0 twice (3 copies in all, against 2). */
START_TEST(zone_repair_moves_a_leader_over_its_ceiling_after_a_hand_off)
{
	static const char *const zones[] = {"za", "za", "zb", "zb"};
	tl *t = bu_new(4, zones);
	uint32_t s = tl_stream(t, "s");
	uint32_t k = tl_shard(t, "s/0", s, 0, 2, 0u, 1u);
	tl_shard(t, "s/1", s, 0, 2, 0u, 2u);
	tl_shard(t, "s/2", s, 0, 2, 0u, 3u);
	tl_shard(t, "s/3", s, 0, 2, 0u, 2u);
	tl_shard(t, "s/4", s, 0, 2, 0u, 3u);
	tl_shard(t, "s/5", s, 1, 2, 1u, 2u);
	tl_shard(t, "s/6", s, 2, 2, 2u, 0u);
	tl_shard(t, "s/7", s, 3, 2, 3u, 1u);
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.replication_factor = 2;
	uint32_t n, copies = 0;
	pl_plan_info info;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	ck_assert_uint_ge(n, 2);
	ck_assert_uint_eq(a[0].kind, PL_ACTION_MOVE_LEADER);
	ck_assert_uint_eq(a[0].reason, PL_REASON_STREAM_SKEW);
	ck_assert_uint_eq(a[0].shard, k);
	ck_assert_uint_eq(a[0].from, 0);
	ck_assert_uint_eq(a[0].to, 1);
	ck_assert_uint_eq(a[0].flags, 0);
	ck_assert_uint_eq(a[1].reason, PL_REASON_ZONE_REPAIR);
	ck_assert_uint_eq(a[1].shard, k);
	ck_assert_uint_eq(a[1].from, 0);
	for (uint32_t i = 0; i < n; i++)
		copies += (a[i].flags & PL_ACTION_STAGE_FIRST) != 0;
	ck_assert_uint_eq(copies, 2);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(bu_zones(t, v, k), 2);
	free(a);
	tl_free(t);
}
END_TEST

START_TEST(zone_repair_ties_go_to_the_smaller_id_and_stop_at_what_it_could_span)
{
	/* b1 and b2 hold the same: b1 moves. zc's member is at its cap: the
	 * shard could span 2 zones, so one repair and no more. */
	tl *t = three_in_za();
	uint32_t s = tl_stream(t, "orders");
	uint32_t k = tl_shard(t, "orders/0", s, 0, 3, 0u, 2u, 1u);
	tl_shard(t, "other", PL_NONE, 4, 1, 4u);
	t->m[4].max_shards = 1;
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = four_moves();
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_ge(n, 1);
	ck_assert_uint_eq(a[0].reason, PL_REASON_ZONE_REPAIR);
	ck_assert_uint_eq(a[0].from, 1);
	ck_assert_uint_eq(a[0].to, 3);
	ck_assert_uint_eq(a[0].total, 2);
	uint32_t d;
	pl_view_settle(v);
	a = bu_dry(t, &cfg, &d, &info, NULL);
	ck_assert_uint_eq(bu_count_kind(a, d, PL_ACTION_MOVE_REPLICA, PL_REASON_ZONE_REPAIR), 0);
	ck_assert_uint_eq(bu_zones(t, v, k), 2);
	free(a);
	tl_free(t);
}
END_TEST

/* Kudu's PlacementPolicyViolationsMixed[0]: A, B, C in L0, D, E in L1, F
 * in L2; t0 on A, B, C and t1 on D, E, F must each span three zones, and
 * x0 on B, x1 on D. t1's repair goes to C, the member of L0 holding the
 * fewest replicas in its tier (B holds x0): not to B by the draw, from
 * where the replica balance would copy it on to C. No replica moves twice. */
START_TEST(zone_repair_goes_to_the_fewest_of_its_tier)
{
	static const char *const names[] = {"A", "B", "C", "D", "E", "F"}, *const zones[] = {"L0", "L0", "L0", "L1", "L1", "L2"};
	tl *t = tl_new();
	for (uint32_t m = 0; m < 6; m++)
		tl_member(t, names[m], zones[m]);
	uint32_t s = tl_stream(t, "T0"), x = tl_stream(t, "X0");
	tl_shard(t, "t0", s, 0, 3, 0u, 1u, 2u);
	uint32_t k1 = tl_shard(t, "t1", s, 3, 3, 3u, 4u, 5u);
	tl_shard(t, "x0", x, 1, 1, 1u);
	tl_shard(t, "x1", x, 3, 1, 3u);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	uint32_t n, copies = 0, into[2] = {0, 0};
	pl_plan_info info;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	for (uint32_t i = 0; i < n; i++) {
		if (!(a[i].flags & PL_ACTION_STAGE_FIRST))
			continue;
		copies++;
		for (uint32_t j = 0; j < i; j++)
			ck_assert_msg(a[j].shard != a[i].shard || a[j].to != a[i].from,
				      "action %u moves on the replica action %u copied", i, j);
		if (a[i].shard == k1 && a[i].reason == PL_REASON_ZONE_REPAIR)
			into[a[i].to == 2]++;
	}
	ck_assert_uint_eq(into[1], 1);
	ck_assert_uint_eq(into[0], 0);
	ck_assert_uint_eq(copies, 3);
	free(a);
	tl_free(t);
}
END_TEST

START_TEST(zone_repair_counts_what_a_shard_could_span_after_the_repairs_before_it)
{
	/* a and b both sit in za. b4 (zc) has room for one replica, b3 (zb)
	 * for any but holds more: a's repair goes to b4, which is then full,
	 * so b, repaired next in the same tick, could span 2 zones, not 3. */
	tl *t = three_in_za();
	uint32_t ka = tl_shard(t, "a", PL_NONE, 0, 3, 0u, 1u, 2u);
	uint32_t kb = tl_shard(t, "b", PL_NONE, 1, 3, 1u, 2u, 0u);
	tl_shard(t, "c0", PL_NONE, 3, 1, 3u);
	tl_shard(t, "c1", PL_NONE, 3, 1, 3u);
	t->m[4].max_shards = 1;
	tl_view(t, 0);
	pl_broker_config cfg = four_moves();
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_ge(n, 2);
	ck_assert_uint_eq(a[0].reason, PL_REASON_ZONE_REPAIR);
	ck_assert_uint_eq(a[0].shard, ka);
	ck_assert_uint_eq(a[0].to, 4);
	ck_assert_uint_eq(a[0].total, 3);
	ck_assert_uint_eq(a[1].reason, PL_REASON_ZONE_REPAIR);
	ck_assert_uint_eq(a[1].shard, kb);
	ck_assert_uint_eq(a[1].to, 3);
	ck_assert_uint_eq(a[1].total, 2);
	tl_free(t);
}
END_TEST

START_TEST(zone_repair_waits_for_a_shard_in_flight_and_a_paused_policy)
{
	static const char *const zones[] = {"za", "za", "zb"};
	tl *t = bu_new(3, zones);
	uint32_t k = tl_shard(t, "x", PL_NONE, 0, 2, 0u, 1u);
	t->k[k].moving_to = 1; /* a leadership transfer in flight */
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	int n;
	pl_plan_info info;
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_IN_FLIGHT);
	t->k[k].moving_to = PL_NONE;
	cfg.paused = 1;
	tl_view(t, 0);
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_PAUSED);
	cfg.paused = 0;
	tl_view(t, 0);
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].reason, PL_REASON_ZONE_REPAIR);
	ck_assert_uint_eq(a[0].to, 2);
	tl_free(t);
}
END_TEST

/* ---- properties -------------------------------------------------------------------- */

/* The zones shard k spans in the snapshot layout (before a tick). */
static uint32_t zones_before(const tl *t, uint32_t k)
{
	const pl_shard *sh = &t->k[k];
	uint32_t n = 0;
	for (uint32_t j = 0; j < sh->replica_count; j++) {
		int dup = 0;
		for (uint32_t i = 0; i < j; i++)
			dup |= bu_same_zone(t, sh->replicas[i], sh->replicas[j]);
		n += !dup;
	}
	return n;
}

static int holds(const pl_shard *sh, uint32_t m)
{
	for (uint32_t j = 0; j < sh->replica_count; j++)
		if (sh->replicas[j] == m)
			return 1;
	return 0;
}

/* What shard k could span in view w: min(replicas, its zones and the zones
 * of eligible members with room for a replica). */
static uint32_t could_span(const tl *t, const pl_view *w, uint32_t k)
{
	pl_shard_state st;
	ck_assert_int_eq(pl_view_shard_state(w, k, &st), 0);
	uint32_t z[64], nz = 0;
	for (uint32_t m = 0; m < t->nm; m++) {
		int in = 0;
		for (uint32_t j = 0; j < st.replica_count; j++)
			in |= st.replicas[j] == m;
		if (!in && !(bu_eligible(t, m) && (t->m[m].max_shards == 0 || bu_held(w, m) < t->m[m].max_shards)))
			continue;
		int seen = 0;
		for (uint32_t i = 0; i < nz; i++)
			seen |= bu_same_zone(t, z[i], m);
		if (!seen)
			z[nz++] = m;
	}
	return nz < st.replica_count ? nz : st.replica_count;
}

/* One tick on random layouts with zones, caps and draining members: every
 * replica drain moves the smallest-id draining follower of a shard whose
 * leader is live, of those a drain can move (pl_broker_drain_stalls()), to an eligible member that held none, with room, keeping
 * the zone count; every zone repair moves a follower (never the leader)
 * sharing a zone into a zone the shard did not span, from the zones it
 * spanned to one more, out of what it could span; no shard gets two. */
START_TEST(property_every_replica_move_of_a_tick_keeps_the_rules)
{
	uint64_t seed0 = tl_seed(0xd2a17u);
	uint32_t iters = tl_iters(400), drains = 0, repairs = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		uint32_t nm = 3 + tl_below(&rng, 8);
		tl *t = tl_random(&rng, nm, tl_below(&rng, 3), 4 + tl_below(&rng, 40), 2 + tl_below(&rng, 3), 1);
		for (uint32_t i = 0, nd = 1 + tl_below(&rng, 2); i < nd; i++)
			t->m[tl_below(&rng, nm)].flags = PL_MEMBER_DRAINING;
		for (uint32_t m = 0; m < nm; m++)
			if (tl_below(&rng, 4) == 0)
				t->m[m].max_shards = t->nk / 2 + tl_below(&rng, t->nk);
		/* A copy of the view the tick's actions are replayed on, so each
		 * is checked against the layout it was made in. */
		void *mem;
		pl_view *v = tl_view(t, 0), *w = tl_view_clone(t, v, &mem);
		pl_broker_config cfg = bu_cfg();
		cfg.max_moves = 1 + tl_below(&rng, 8);
		cfg.replica_balance = 0;
		/* The replicas no drain can move, before the tick. */
		uint32_t ncap = t->nk * PL_MAX_REPLICAS + 1, nstall;
		pl_broker_stall *stalls = malloc(ncap * sizeof *stalls);
		ck_assert_ptr_nonnull(stalls);
		int ns = pl_broker_drain_stalls(v, stalls, ncap, &nstall, NULL);
		ck_assert_int_ge(ns, 0);
		int n;
		pl_plan_info info;
		pl_action *a = bu_plan(t, &cfg, &n, &info);
		for (int i = 0; i < n; i++) {
			const pl_action *x = &a[i];
			uint32_t could = could_span(t, w, x->shard);
			ck_assert_msg(pl_view_apply(w, x) == 0, "seed %llu: action %d does not apply",
				      (unsigned long long)seed, i);
			if (x->kind == PL_ACTION_MOVE_LEADER && zones_before(t, x->shard) < could)
				repairs++; /* a repair begun by its leader's hand-off: the leader's replica moves next tick */
			if (x->kind != PL_ACTION_MOVE_REPLICA)
				continue;
			const pl_shard *sh = &t->k[x->shard];
			ck_assert_msg(count_shard(a, n, x->shard) == 1, "seed %llu: shard %u acted on twice",
				      (unsigned long long)seed, x->shard);
			ck_assert_msg(x->flags == PL_ACTION_STAGE_FIRST && bu_eligible(t, x->to) && !holds(sh, x->to) &&
					      holds(sh, x->from) && x->from != sh->leader,
				      "seed %llu: shard %u from %u to %u", (unsigned long long)seed, x->shard, x->from, x->to);
			ck_assert_msg(t->m[x->to].max_shards == 0 || bu_held(v, x->to) <= t->m[x->to].max_shards,
				      "seed %llu: %u past its cap", (unsigned long long)seed, x->to);
			uint32_t before = zones_before(t, x->shard), after = bu_zones(t, v, x->shard);
			if (x->reason == PL_REASON_REPLICA_DRAIN) {
				drains++;
				uint32_t want = PL_NONE;
				for (uint32_t j = 0; j < sh->replica_count; j++) {
					uint32_t m = sh->replicas[j];
					int stuck = 0;
					for (int e = 0; e < ns; e++)
						stuck |= stalls[e].shard == x->shard && stalls[e].member == m;
					if (m != sh->leader && !bu_eligible(t, m) && !stuck &&
					    (want == PL_NONE || memcmp(t->m[m].id.ptr, t->m[want].id.ptr, 3) < 0))
						want = m;
				}
				ck_assert_msg(x->from == want && !(t->m[sh->leader].flags & PL_MEMBER_DOWN),
					      "seed %llu: shard %u drains %u, not %u", (unsigned long long)seed, x->shard,
					      x->from, want);
				ck_assert_msg(after >= before, "seed %llu: shard %u from %u zones to %u",
					      (unsigned long long)seed, x->shard, before, after);
			} else {
				ck_assert_uint_eq(x->reason, PL_REASON_ZONE_REPAIR);
				repairs++;
				int shared = 0, new_zone = 1;
				for (uint32_t j = 0; j < sh->replica_count; j++) {
					shared |= sh->replicas[j] != x->from && bu_same_zone(t, sh->replicas[j], x->from);
					new_zone &= !bu_same_zone(t, sh->replicas[j], x->to);
				}
				ck_assert_msg(shared && new_zone && bu_eligible(t, x->from),
					      "seed %llu: shard %u repair from %u to %u", (unsigned long long)seed, x->shard,
					      x->from, x->to);
				ck_assert_msg(x->from_count == before && x->to_count == before + 1 && after == before + 1 &&
						      x->total == could && before < x->total,
					      "seed %llu: shard %u repair %u -> %u of %u (before %u after %u could %u)",
					      (unsigned long long)seed, x->shard, x->from_count, x->to_count, x->total,
					      before, after, could);
			}
		}
		free(stalls);
		free(mem);
		tl_free(t);
	}
	/* Both kinds reached: on the full run (a short PL_TEST_ITERS, as under
	 * valgrind, may meet no repair). */
	if (iters >= 400) {
		ck_assert_uint_gt(drains, iters / 4);
		ck_assert_uint_gt(repairs, iters / 10);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("broker_drain");
	TCase *c = tcase_create("decommission");
	tcase_add_test(c, leadership_leaves_first_and_the_replica_on_the_next_tick);
	tcase_add_test(c, one_replica_of_a_shard_per_tick);
	tcase_add_test(c, a_shard_whose_leader_is_down_gets_a_leader_before_a_replica_moves);
	tcase_add_test(c, no_replica_drains_off_a_shard_without_a_live_leader);
	tcase_add_test(c, a_replica_drain_carries_its_scope_and_counts);
	tcase_add_test(c, replica_drains_wait_on_the_budget_and_on_the_members_out_limit);
	tcase_add_test(c, a_full_array_stops_the_drains_and_the_zone_repair);
	tcase_add_test(c, a_stalled_replica_is_reported_and_the_others_still_move);
	tcase_add_test(c, a_replica_that_cannot_drain_does_not_hold_up_one_that_can);
	tcase_add_test(c, a_drain_hand_off_waits_for_the_member_that_keeps_the_zone);
	suite_add_tcase(s, c);
	c = tcase_create("zone_repair");
	tcase_add_test(c, zone_repair_moves_the_follower_holding_the_most_never_the_leader);
	tcase_add_test(c, zone_repair_moves_a_leader_over_its_ceiling_after_a_hand_off);
	tcase_add_test(c, zone_repair_ties_go_to_the_smaller_id_and_stop_at_what_it_could_span);
	tcase_add_test(c, zone_repair_goes_to_the_fewest_of_its_tier);
	tcase_add_test(c, zone_repair_counts_what_a_shard_could_span_after_the_repairs_before_it);
	tcase_add_test(c, zone_repair_waits_for_a_shard_in_flight_and_a_paused_policy);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 60);
	tcase_add_test(c, property_every_replica_move_of_a_tick_keeps_the_rules);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
