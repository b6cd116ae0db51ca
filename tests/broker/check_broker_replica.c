/* check_broker_replica.c - every replica, not only leaders: decommission
 * (a draining member hands off all it holds), zone repair and replica
 * balance, case by case and as properties on random seeded layouts (the
 * rules of every move are checked by the mirror of broker_prop.h). */
#include "broker_prop.h"

/* ---- decommission ----------------------------------------------------------- */

START_TEST(a_draining_member_hands_off_every_replica_and_ends_empty)
{
	tl *t = bu_new(5, NULL);
	static const uint32_t c[] = {3, 3, 3, 3, 0};
	bu_stream(t, "orders", c, 5, 3); /* replicas on the leader and the next two */
	t->m[3].flags = PL_MEMBER_DRAINING;
	pl_view *v = tl_view(t, 0);
	ck_assert_uint_eq(bu_held(v, 3), 9);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 4;
	pl_plan_info info;
	uint32_t n;
	pl_action *a = bu_dry_shown(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(bu_held(v, 3), 0);
	ck_assert_uint_eq(bu_total(v, 3), 0);
	/* Leadership first: a shard b3 led gets its leader before any replica
	 * of it moves off b3. */
	for (uint32_t i = 0; i < n; i++) {
		if (a[i].kind != PL_ACTION_MOVE_REPLICA || a[i].reason != PL_REASON_REPLICA_DRAIN)
			continue;
		ck_assert_uint_eq(a[i].from, 3);
		ck_assert_uint_eq(a[i].flags, PL_ACTION_STAGE_FIRST);
		for (uint32_t j = i + 1; j < n; j++)
			ck_assert_msg(a[j].shard != a[i].shard || a[j].kind != PL_ACTION_MOVE_LEADER ||
					      a[j].reason != PL_REASON_DRAIN,
				      "shard %u: leadership after its replica", a[i].shard);
	}
	ck_assert_uint_gt(bu_count_kind(a, n, PL_ACTION_MOVE_REPLICA, PL_REASON_REPLICA_DRAIN), 0);
	for (uint32_t i = 0; i < n; i++)
		if (a[i].reason == PL_REASON_REPLICA_DRAIN) {
			const char *buf = tl_say(t, &a[i]);
			ck_assert_msg(strstr(buf, "move replica of ") && strstr(buf, "(draining)") &&
					      strstr(buf, "replicas of stream orders") && strstr(buf, "keeps its zones"),
				      "%s", buf);
			break;
		}
	free(a);
	tl_free(t);
}
END_TEST

START_TEST(a_drain_that_cannot_finish_says_which_shard_and_moves_nothing)
{
	/* b0 (za) drains; b1 and b2 are in zb: b2 taking b0's place would
	 * leave the shard in one zone. */
	static const char *const zones[] = {"za", "zb", "zb"};
	tl *t = bu_new(3, zones);
	uint32_t s = tl_stream(t, "orders");
	uint32_t k = tl_shard(t, "orders/0", s, 1, 2, 1u, 0u);
	t->m[0].flags = PL_MEMBER_DRAINING;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	int n;
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_DRAIN_STALLED);
	ck_assert_uint_eq(info.detail, k);
	ck_assert_uint_eq(info.blocked, 1);
	ck_assert_str_eq(pl_status_name(info.status), "drain-stalled");
	/* The entries: which shard, on which member, and why. */
	pl_broker_stall e[4];
	uint32_t total = 99;
	ck_assert_int_eq(pl_broker_drain_stalls(t->view, e, 4, &total, NULL), 1);
	ck_assert_uint_eq(total, 1);
	ck_assert_uint_eq(e[0].shard, k);
	ck_assert_uint_eq(e[0].member, 0);
	ck_assert_uint_eq(e[0].reason, PL_BROKER_STALL_ZONES);
	ck_assert_uint_eq(e[0].reserved, 0);
	ck_assert_int_eq(pl_broker_drain_stalls(t->view, NULL, 0, &total, NULL), 0);
	ck_assert_uint_eq(total, 1);
	/* A member in za with room takes it; at its cap, the drain stalls again. */
	uint32_t b3 = tl_member(t, "b3", "za");
	tl_view(t, 0);
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].kind, PL_ACTION_MOVE_REPLICA);
	ck_assert_uint_eq(a[0].to, b3);
	t->m[b3].max_shards = 1;
	tl_shard(t, "other/0", PL_NONE, b3, 1, b3);
	tl_view(t, 0);
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_DRAIN_STALLED);
	ck_assert_int_eq(pl_broker_drain_stalls(t->view, e, 4, &total, NULL), 1);
	ck_assert_uint_eq(e[0].reason, PL_BROKER_STALL_CAPS);
	/* Every eligible member holds it already. */
	t->m[b3].flags = PL_MEMBER_DOWN;
	t->k[k].replica_count = 3;
	t->k[k].replicas[2] = 2;
	tl_view(t, 0);
	ck_assert_int_eq(pl_broker_drain_stalls(t->view, e, 4, &total, NULL), 1);
	ck_assert_uint_eq(e[0].reason, PL_BROKER_STALL_HELD);
	tl_free(t);
}
END_TEST

/* A drain that cannot finish does not hold up replica balance. */
START_TEST(a_stalled_drain_holds_nothing_up)
{
	static const char *const zones[] = {"za", "zb", "zb", "zb"};
	tl *t = bu_new(4, zones);
	t->m[0].flags = PL_MEMBER_DRAINING;
	uint32_t a = tl_stream(t, "a"), x = tl_stream(t, "x");
	tl_shard(t, "a/0", a, 1, 2, 1u, 0u); /* b0's replica: no member keeps zone za */
	tl_shard(t, "x/0", x, 1, 2, 1u, 2u);
	tl_shard(t, "x/1", x, 2, 2, 2u, 1u);
	tl_shard(t, "x/2", x, 3, 2, 3u, 1u); /* replicas of x: 3/2/1 on b1/b2/b3 */
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n;
	pl_action *d = bu_dry(t, &cfg, &n, &info, NULL);
	bu_print(t, d, n);
	ck_assert_uint_eq(info.status, PL_STATUS_DRAIN_STALLED);
	ck_assert_uint_eq(bu_count_kind(d, n, PL_ACTION_MOVE_REPLICA, PL_REASON_REPLICA_STREAM_SKEW), 1);
	ck_assert_uint_le(bu_rspread(t, v, x), 1);
	free(d);
	tl_free(t);
}
END_TEST

START_TEST(drain_stalls_bad_input_writes_nothing)
{
	tl *t = bu_new(2, NULL);
	pl_broker_stall e[2] = {{7, 7, 7, 7}, {7, 7, 7, 7}};
	uint32_t total = 42;
	pl_diag d;
	memset(&d, 0, sizeof d);
	ck_assert_int_eq(pl_broker_drain_stalls(NULL, e, 2, &total, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.kind, PL_ELEM_ARGUMENT);
	ck_assert_uint_eq(d.index, 1);
	char junk[64] = {0};
	ck_assert_int_eq(pl_broker_drain_stalls((const pl_view *)(void *)junk, e, 2, &total, &d), PL_E_INVAL);
	ck_assert_int_eq(pl_broker_drain_stalls(tl_view(t, 0), NULL, 2, &total, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.index, 2);
	ck_assert_uint_eq(total, 42);
	ck_assert_uint_eq(e[0].shard, 7);
	ck_assert_int_eq(pl_broker_drain_stalls(t->view, e, 2, &total, NULL), 0);
	ck_assert_uint_eq(total, 0);
	tl_free(t);
}
END_TEST

START_TEST(a_paused_policy_starts_no_replica_move_and_limits_hold)
{
	tl *t = bu_new(5, NULL);
	static const uint32_t c[] = {3, 3, 3, 3, 0};
	bu_stream(t, "orders", c, 5, 3);
	t->m[3].flags = PL_MEMBER_DRAINING;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.paused = 1;
	pl_plan_info info;
	int n;
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_PAUSED);
	cfg.paused = 0;
	cfg.max_moves = 8;
	cfg.max_moves_out = 2;
	tl_view(t, 0);
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 2); /* b3 hands out two at a time, leadership or replica */
	for (int i = 0; i < n; i++)
		ck_assert_uint_eq(a[i].from, 3);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	ck_assert_uint_eq(info.detail, 3);
	tl_free(t);
}
END_TEST

/* ---- zone repair ------------------------------------------------------------- */

/* t planned with cfg: the first action is a zone repair's replica move. */
static pl_action *zone_repair_first(tl *t, const pl_broker_config *cfg, int *n, pl_plan_info *info)
{
	pl_action *a = bu_plan(t, cfg, n, info);
	ck_assert_int_ge(*n, 1);
	ck_assert_uint_eq(a[0].kind, PL_ACTION_MOVE_REPLICA);
	ck_assert_uint_eq(a[0].reason, PL_REASON_ZONE_REPAIR);
	return a;
}

START_TEST(zone_repair_moves_a_follower_into_a_zone_the_shard_lacks)
{
	static const char *const zones[] = {"za", "za", "zb", "zc"};
	tl *t = bu_new(4, zones);
	uint32_t s = tl_stream(t, "orders");
	uint32_t k = tl_shard(t, "orders/0", s, 0, 3, 0u, 1u, 2u);
	pl_view *v = tl_view(t, 0);
	ck_assert_uint_eq(bu_zones(t, v, k), 2);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	int n;
	pl_action *a = zone_repair_first(t, &cfg, &n, &info);
	ck_assert_uint_eq(a[0].from, 1); /* the follower of the shared zone, never the leader */
	ck_assert_uint_eq(a[0].to, 3);
	ck_assert_uint_eq(a[0].scope, PL_SCOPE_ZONES);
	ck_assert_uint_eq(a[0].from_count, 2);
	ck_assert_uint_eq(a[0].total, 3);
	ck_assert_uint_eq(bu_zones(t, v, k), 3);
	const char *buf = tl_say(t, &a[0]);
	ck_assert_msg(strstr(buf, "span 2 zones and could span 3") && strstr(buf, "zone zc"), "%s", buf);
	ck_assert_str_eq(pl_reason_name(PL_REASON_ZONE_REPAIR), "zone-repair");
	/* With zc's member at its cap, the shard spans all it can. */
	t->m[3].max_shards = 1;
	tl_shard(t, "other/0", PL_NONE, 3, 1, 3u);
	tl_view(t, 0);
	a = bu_plan(t, &cfg, &n, &info);
	for (int i = 0; i < n; i++)
		ck_assert_uint_ne(a[i].reason, PL_REASON_ZONE_REPAIR);
	tl_free(t);
}
END_TEST

/* Zone repair counts every replica, a down member's too (as placement
 * stats does): s/0 on b0 and the down b3, both in zone a. No follower can
 * move (b0 leads, b3 is down), so b3's replica moves, a copy from b0, into
 * a zone the shard lacks; with an eligible follower in the shared zone,
 * that follower moves instead and the down member's replica stays. */
START_TEST(zone_repair_counts_a_down_members_replica_and_moves_it_when_no_follower_can)
{
	static const char *const zones[] = {"a", "b", "c", "a", "a"};
	tl *t = bu_new(4, zones);
	t->m[3].flags = PL_MEMBER_DOWN;
	uint32_t s = tl_stream(t, "s");
	uint32_t k = tl_shard(t, "s/0", s, 0, 2, 0u, 3u);
	pl_view *v = tl_view(t, 0);
	ck_assert_uint_eq(bu_zones(t, v, k), 1);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	int n;
	pl_action *a = zone_repair_first(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].from, 3);
	ck_assert(a[0].to == 1 || a[0].to == 2);
	ck_assert_uint_eq(a[0].flags & PL_ACTION_STAGE_FIRST, PL_ACTION_STAGE_FIRST);
	ck_assert_uint_eq(bu_zones(t, v, k), 2);
	const char *buf = tl_say(t, &a[0]);
	ck_assert_msg(strstr(buf, "from b3 (down) to") && strstr(buf, "span 1 zone and could span 2"), "%s", buf);
	tl_free(t);
	/* An eligible follower in the shared zone moves first. */
	t = bu_new(5, zones);
	t->m[3].flags = PL_MEMBER_DOWN;
	s = tl_stream(t, "s");
	k = tl_shard(t, "s/0", s, 0, 3, 0u, 3u, 4u);
	v = tl_view(t, 0);
	a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_ge(n, 1);
	ck_assert_uint_eq(a[0].reason, PL_REASON_ZONE_REPAIR);
	ck_assert_uint_eq(a[0].from, 4);
	tl_free(t);
}
END_TEST

/* ---- replica balance ----------------------------------------------------------- */

START_TEST(replicas_even_out_per_stream_then_in_total)
{
	tl *t = bu_new(3, NULL);
	static const uint32_t c[] = {2, 2, 2}, d[] = {1, 1, 1};
	bu_stream(t, "orders", c, 3, 2);
	bu_stream(t, "events", d, 3, 2);
	tl_member(t, "b3", NULL); /* joins empty */
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n;
	pl_action *a = bu_dry_shown(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	bu_expect_replicas_even(t, v);
	/* The leaders' moves come first; then the replicas'. */
	uint32_t last_leader = 0, first_replica = n;
	for (uint32_t i = 0; i < n; i++) {
		if (a[i].reason == PL_REASON_STREAM_SKEW || a[i].reason == PL_REASON_CLUSTER_SKEW)
			last_leader = i;
		if ((a[i].reason == PL_REASON_REPLICA_STREAM_SKEW || a[i].reason == PL_REASON_REPLICA_CLUSTER_SKEW) &&
		    first_replica == n)
			first_replica = i;
	}
	ck_assert_uint_lt(last_leader, first_replica);
	ck_assert_uint_lt(first_replica, n);
	const char *buf = tl_say(t, &a[first_replica]);
	ck_assert_msg(strstr(buf, "move replica of ") && strstr(buf, "holds") && strstr(buf, "floor"), "%s", buf);
	/* Switched off: leaders only. */
	tl_view(t, 0);
	cfg.replica_balance = 0;
	free(a);
	a = bu_dry(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(bu_count_kind(a, n, PL_ACTION_MOVE_REPLICA, 0), 0);
	free(a);
	tl_free(t);
}
END_TEST

/* ---- properties ---------------------------------------------------------------- */

/* Is there an eligible member not holding shard k, with room, whose taking
 * member d's place keeps the shard's zone count? (Brute force.) */
static int drain_possible(const tl *t, const pl_view *v, uint32_t k, uint32_t d)
{
	pl_shard_state st;
	pl_view_shard_state(v, k, &st);
	for (uint32_t m = 0; m < t->nm; m++) {
		int holds = 0;
		for (uint32_t j = 0; j < st.replica_count; j++)
			holds |= st.replicas[j] == m;
		if (holds || !bu_eligible(t, m))
			continue;
		if (t->m[m].max_shards && bu_held(v, m) >= t->m[m].max_shards)
			continue;
		uint32_t before = bu_zones(t, v, k);
		/* The zones after: d replaced by m. */
		uint32_t n = 0;
		for (uint32_t j = 0; j < st.replica_count; j++) {
			uint32_t r = st.replicas[j] == d ? m : st.replicas[j], dup = 0;
			for (uint32_t i = 0; i < j; i++)
				dup |= bu_same_zone(t, st.replicas[i] == d ? m : st.replicas[i], r);
			n += !dup;
		}
		if (n >= before)
			return 1;
	}
	return 0;
}

/* Random layouts with a draining member, zones or caps or neither: every
 * move keeps the rules (the mirror), the run ends, and the draining member
 * ends empty unless what it still holds has nowhere to go: then the status
 * says so. Without zones and caps, it always ends empty. */
START_TEST(a_draining_member_ends_empty_whenever_its_replicas_can_go)
{
	uint64_t seed = tl_seed(0xd4a1u), rng = seed;
	uint32_t iters = tl_iters(300), emptied = 0, stalled = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t s = tl_rand(&rng), r = s;
		uint32_t nm = 3 + tl_below(&r, 6), flags = tl_below(&r, 4);
		tl *t = tl_random(&r, nm, 1 + tl_below(&r, 4), 4 + tl_below(&r, 60), 1 + tl_below(&r, 3), flags & 1);
		uint32_t dm = tl_below(&r, nm);
		t->m[dm].flags = PL_MEMBER_DRAINING;
		if (flags & 2)
			for (uint32_t m = 0; m < nm; m++)
				if (tl_below(&r, 3) == 0)
					t->m[m].max_shards = t->nk / 2 + tl_below(&r, t->nk);
		pl_view *v = tl_view(t, 0);
		pl_broker_config cfg = bu_cfg();
		cfg.max_moves = 1 + tl_below(&r, 4);
		cfg.max_moves_in = tl_below(&r, 3);
		cfg.max_moves_out = tl_below(&r, 3);
		run x = mr_run(t, &cfg, s, 100000);
		ck_assert_msg(x.converged, "layout %llu: no convergence", (unsigned long long)s);
		if (bu_held(v, dm) == 0) {
			emptied++;
			ck_assert_uint_eq(bu_total(v, dm), 0);
		} else {
			stalled++;
			ck_assert_msg(x.status == PL_STATUS_DRAIN_STALLED || x.status == PL_STATUS_STALLED,
				      "layout %llu: %u replicas left on the draining member, status %s",
				      (unsigned long long)s, bu_held(v, dm), pl_status_name(x.status));
			ck_assert_msg(flags != 0 || nm - 1 < 3, "layout %llu: no zones or caps, yet not emptied",
				      (unsigned long long)s);
			uint32_t left = 0, total;
			for (uint32_t k = 0; k < t->nk; k++) {
				pl_shard_state st;
				pl_view_shard_state(v, k, &st);
				for (uint32_t j = 0; j < st.replica_count; j++) {
					left += st.replicas[j] == dm;
					if (st.replicas[j] == dm && st.leader != dm)
						ck_assert_msg(!drain_possible(t, v, k, dm),
							      "layout %llu: shard %u could leave the draining member",
							      (unsigned long long)s, k);
				}
			}
			/* The entries name every replica left, leaders' included. */
			pl_broker_drain_stalls(v, NULL, 0, &total, NULL);
			ck_assert_msg(total == left, "layout %llu: %u stall entries, %u replicas left",
				      (unsigned long long)s, total, left);
		}
		tl_free(t);
	}
	printf("broker: %u layouts with a draining member (seed %llu): %u emptied, %u stalled by zones, caps or "
	       "too few members\n",
	       iters, (unsigned long long)seed, emptied, stalled);
}
END_TEST

/* Zones without caps or churn: when the run ends every shard spans as many
 * zones as it could, min(replicas, zones). */
START_TEST(every_shard_ends_spanning_the_zones_it_could)
{
	uint64_t seed = tl_seed(0x2035u), rng = seed;
	uint32_t iters = tl_iters(300), repairs = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t s = tl_rand(&rng), r = s;
		uint32_t nm = 2 + tl_below(&r, 8);
		tl *t = tl_random(&r, nm, 1 + tl_below(&r, 4), 4 + tl_below(&r, 60), 1 + tl_below(&r, 4), 1);
		pl_view *v = tl_view(t, 0);
		pl_broker_config cfg = bu_cfg();
		cfg.max_moves = 1 + tl_below(&r, 4);
		run x = mr_run(t, &cfg, s, 100000);
		ck_assert_msg(x.converged, "layout %llu: no convergence", (unsigned long long)s);
		repairs += x.repairs;
		uint32_t nz = 0;
		for (uint32_t m = 0; m < nm; m++) {
			int first = 1;
			for (uint32_t o = 0; o < m; o++)
				first &= !bu_same_zone(t, o, m);
			nz += first;
		}
		for (uint32_t k = 0; k < t->nk; k++) {
			uint32_t rc = t->k[k].replica_count, want = rc < nz ? rc : nz;
			ck_assert_msg(bu_zones(t, v, k) == want, "layout %llu: shard %u spans %u zones of %u",
				      (unsigned long long)s, k, bu_zones(t, v, k), want);
		}
		tl_free(t);
	}
	printf("broker: %u layouts with zones (seed %llu): %u zone repairs\n", iters, (unsigned long long)seed, repairs);
}
END_TEST

/* Two draining members hold followers of one shard: the one that moves
 * first is the smaller id, whatever the order of the shard's replicas. */
START_TEST(a_shard_with_two_draining_followers_drains_them_in_id_order)
{
	for (int order = 0; order < 2; order++) {
		tl *t = bu_new(5, NULL);
		t->m[1].flags = t->m[2].flags = PL_MEMBER_DRAINING;
		uint32_t s = tl_stream(t, "orders");
		if (order == 0)
			tl_shard(t, "orders/0", s, 0u, 3, 0u, 1u, 2u);
		else
			tl_shard(t, "orders/0", s, 0u, 3, 0u, 2u, 1u);
		tl_view(t, 0);
		pl_broker_config cfg = bu_cfg();
		pl_plan_info info;
		int n;
		pl_action *a = bu_plan(t, &cfg, &n, &info);
		ck_assert_int_eq(n, 1);
		ck_assert_uint_eq(a[0].kind, PL_ACTION_MOVE_REPLICA);
		ck_assert_uint_eq(a[0].reason, PL_REASON_REPLICA_DRAIN);
		ck_assert_msg(a[0].from == 1, "replicas listed %s: the drain moves b%u first", order ? "b0 b2 b1" : "b0 b1 b2",
			      a[0].from);
		tl_free(t);
	}
}
END_TEST

/* Each replica on a draining member that cannot go is listed once, shards
 * in key order and members in id order whatever the replica lists say; a
 * replica that can go is not listed. */
START_TEST(drain_stalls_list_members_in_id_order)
{
	tl *t = tl_new();
	bu_members(t, 4, NULL);
	t->m[1].flags = t->m[2].flags = PL_MEMBER_DRAINING;
	uint32_t s = tl_stream(t, "orders");
	tl_shard(t, "orders/0", s, 0u, 4, 0u, 2u, 1u, 3u); /* every eligible member holds it */
	tl_shard(t, "orders/1", s, 0u, 2, 0u, 2u);         /* b3 can take b2's */
	pl_view *v = tl_view(t, 0);
	pl_broker_stall st[4];
	uint32_t total = 0;
	ck_assert_int_eq(pl_broker_drain_stalls(v, st, 4, &total, NULL), 2);
	ck_assert_uint_eq(total, 2);
	for (uint32_t i = 0; i < 2; i++) {
		ck_assert_uint_eq(st[i].shard, 0);
		ck_assert_uint_eq(st[i].member, 1 + i);
		ck_assert_uint_eq(st[i].reason, PL_BROKER_STALL_HELD);
	}
	ck_assert_int_eq(pl_broker_drain_stalls(v, st, 1, &total, NULL), 1); /* cut to fit, counted whole */
	ck_assert_uint_eq(total, 2);
	ck_assert_int_eq(pl_broker_drain_stalls(v, st, 1, NULL, NULL), 1);
	tl_free(t);
}
END_TEST

/* With stream_balance 0 no move is for a stream's sake, and with
 * replica_balance 0 no replica moves for balance; the totals still even
 * out where they are balanced. */
START_TEST(stream_and_replica_balance_switched_off)
{
	for (int off = 0; off < 2; off++) {
		uint64_t rng = 77 + (uint64_t)off;
		tl *t = tl_random(&rng, 4, 3, 48, 2, 0);
		pl_broker_config cfg = bu_cfg();
		cfg.max_moves = 8;
		if (off == 0)
			cfg.stream_balance = 0;
		else
			cfg.replica_balance = 0;
		uint32_t n, ticks;
		pl_plan_info info;
		pl_action *a = bu_dry(t, &cfg, &n, &info, &ticks);
		ck_assert_uint_gt(n, 0);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t r = a[i].reason;
			if (off == 0)
				ck_assert_msg(r != PL_REASON_STREAM_SKEW && r != PL_REASON_REPLICA_STREAM_SKEW,
					      "a %s move with stream balance off", pl_reason_name(r));
			else
				ck_assert_msg(r != PL_REASON_REPLICA_STREAM_SKEW && r != PL_REASON_REPLICA_CLUSTER_SKEW,
					      "a %s move with replica balance off", pl_reason_name(r));
		}
		ck_assert_uint_le(bu_spread(t, t->view, PL_NONE), 1);
		free(a);
		tl_free(t);
	}
}
END_TEST

/* Replicas 3/4/5 on b0/b1/b2, both bounds 4, leaders 3/3/3 at both bounds:
 * every replica move b2 could make takes a leadership along (b2's own
 * shards) or lands where the shard is held. b2's replica of s/8 goes to b0
 * with its leadership, and b0 hands s/1 to b2 in the same step: replicas
 * end 4/4/4, leaders 3/3/3, one copy. (Before: "balanced", 0 actions.) */
START_TEST(a_replica_moves_with_its_leadership_while_the_destination_hands_one_back)
{
	tl *t = bu_new(3, NULL);
	uint32_t s = tl_stream(t, "s");
	tl_shard(t, "s/0", s, 0, 2, 0u, 1u);
	tl_shard(t, "s/1", s, 0, 2, 0u, 2u);
	tl_shard(t, "s/2", s, 0, 2, 0u, 2u);
	for (uint32_t i = 3; i < 6; i++)
		tl_shard(t, tl_str(t, "s/%u", i), s, 1, 1, 1u);
	for (uint32_t i = 6; i < 9; i++)
		tl_shard(t, tl_str(t, "s/%u", i), s, 2, 1, 2u);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.replication_factor = 2;
	uint32_t n;
	pl_plan_info info;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(a[0].kind, PL_ACTION_MOVE_REPLICA);
	ck_assert_uint_eq(a[0].flags, PL_ACTION_STAGE_FIRST | PL_ACTION_CARRIES_LEADER | PL_ACTION_PAIRED);
	ck_assert_uint_eq(a[1].kind, PL_ACTION_MOVE_LEADER);
	ck_assert_uint_eq(a[1].flags, PL_ACTION_PAIRED);
	ck_assert_uint_eq(a[1].from, a[0].to);
	ck_assert_uint_eq(a[1].to, a[0].from);
	for (uint32_t m = 0; m < 3; m++) {
		ck_assert_uint_eq(bu_held(t->view, m), 4);
		ck_assert_uint_eq(bu_lead(t->view, s, m), 3);
	}
	free(a);
	tl_free(t);
}
END_TEST

/* The same layout with no stream: the totals alone, and the partner is
 * found among the shards of no stream. */
START_TEST(a_paired_step_among_shards_of_no_stream)
{
	tl *t = bu_new(3, NULL);
	tl_shard(t, "s/0", PL_NONE, 0, 2, 0u, 1u);
	tl_shard(t, "s/1", PL_NONE, 0, 2, 0u, 2u);
	tl_shard(t, "s/2", PL_NONE, 0, 2, 0u, 2u);
	for (uint32_t i = 3; i < 6; i++)
		tl_shard(t, tl_str(t, "s/%u", i), PL_NONE, 1, 1, 1u);
	for (uint32_t i = 6; i < 9; i++)
		tl_shard(t, tl_str(t, "s/%u", i), PL_NONE, 2, 1, 2u);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.replication_factor = 2;
	uint32_t n;
	pl_plan_info info;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(a[0].flags & PL_ACTION_PAIRED, PL_ACTION_PAIRED);
	ck_assert_uint_eq(a[1].flags, PL_ACTION_PAIRED);
	for (uint32_t m = 0; m < 3; m++) {
		ck_assert_uint_eq(bu_held(t->view, m), 4);
		ck_assert_uint_eq(bu_total(t->view, m), 3);
	}
	free(a);
	tl_free(t);
}
END_TEST

Suite *broker_replica_suite(void)
{
	Suite *s = suite_create("broker_replica");
	TCase *c = tcase_create("decommission");
	tcase_add_test(c, a_draining_member_hands_off_every_replica_and_ends_empty);
	tcase_add_test(c, a_drain_that_cannot_finish_says_which_shard_and_moves_nothing);
	tcase_add_test(c, drain_stalls_bad_input_writes_nothing);
	tcase_add_test(c, a_stalled_drain_holds_nothing_up);
	tcase_add_test(c, a_paused_policy_starts_no_replica_move_and_limits_hold);
	tcase_add_test(c, a_replica_moves_with_its_leadership_while_the_destination_hands_one_back);
	tcase_add_test(c, a_paired_step_among_shards_of_no_stream);
	tcase_add_test(c, a_shard_with_two_draining_followers_drains_them_in_id_order);
	tcase_add_test(c, drain_stalls_list_members_in_id_order);
	suite_add_tcase(s, c);
	c = tcase_create("zones and balance");
	tcase_add_test(c, zone_repair_moves_a_follower_into_a_zone_the_shard_lacks);
	tcase_add_test(c, zone_repair_counts_a_down_members_replica_and_moves_it_when_no_follower_can);
	tcase_add_test(c, replicas_even_out_per_stream_then_in_total);
	tcase_add_test(c, stream_and_replica_balance_switched_off);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, a_draining_member_ends_empty_whenever_its_replicas_can_go);
	tcase_add_test(c, every_shard_ends_spanning_the_zones_it_could);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(broker_replica_suite());
}
