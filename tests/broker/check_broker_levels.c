/* check_broker_levels.c - failure domains in levels: a member's zone is a
 * path ("rack/host", "region/rack/host"), and a shard spreads over the top
 * level first, then the next. No move lowers the domains a shard spans at a
 * level unless it raises them at a higher one; zone repair and new
 * followers reach a new top-level domain before a new zone. Checked here by
 * a replay of every action against the paths' own bytes (not the library's
 * zone ids). Random layouts print their seed (PL_TEST_SEED replays). */
#include "broker_util.h"

/* The first `parts` parts of a zone path (all of it when fewer). */
static size_t prefix(const char *z, size_t len, uint32_t parts)
{
	for (size_t i = 0; i < len; i++)
		if (z[i] == '/' && --parts == 0)
			return i;
	return len;
}

/* Domains a replica set spans at level `parts` (the paths' first parts;
 * an empty zone is a domain of its own). */
static uint32_t span(const tl *t, const uint32_t *rep, uint32_t n, uint32_t parts)
{
	uint32_t c = 0;
	for (uint32_t j = 0; j < n; j++) {
		pl_bytes a = t->m[rep[j]].zone;
		size_t la = prefix(a.ptr, a.len, parts);
		int seen = 0;
		for (uint32_t i = 0; i < j && !seen && a.len; i++) {
			pl_bytes b = t->m[rep[i]].zone;
			size_t lb = prefix(b.ptr, b.len, parts);
			seen = b.len && la == lb && memcmp(a.ptr, b.ptr, la) == 0;
		}
		c += !seen;
	}
	return c;
}

/* The replica sets as a plan's actions leave them, replayed one action at
 * a time; fails the test when an action lowers a shard's spans at some
 * level before it raises them at a higher one. Returns how many shards end
 * spanning fewer top-level domains than they began with (0 when none). */
static uint32_t replay(const tl *t, const pl_action *a, uint32_t n, uint32_t levels, const char *what)
{
	uint32_t *rep = calloc((size_t)t->nk * PL_MAX_REPLICAS + 1, sizeof *rep), *nr = calloc(t->nk + 1, sizeof *nr);
	uint32_t *top0 = calloc(t->nk + 1, sizeof *top0);
	ck_assert(rep && nr && top0);
	for (uint32_t k = 0; k < t->nk; k++) {
		nr[k] = t->k[k].replica_count;
		memcpy(rep + (size_t)k * PL_MAX_REPLICAS, t->k[k].replicas, nr[k] * sizeof *rep);
		top0[k] = span(t, rep + (size_t)k * PL_MAX_REPLICAS, nr[k], 1);
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = a[i].shard, *r = rep + (size_t)k * PL_MAX_REPLICAS;
		uint32_t before[4], after[4], held = 0;
		for (uint32_t l = 0; l < levels; l++)
			before[l] = span(t, r, nr[k], l + 1);
		for (uint32_t j = 0; j < nr[k]; j++)
			held |= r[j] == a[i].to;
		if (a[i].kind == PL_ACTION_MOVE_REPLICA ||
		    (a[i].kind == PL_ACTION_MOVE_LEADER && (a[i].flags & PL_ACTION_STAGE_FIRST) && !held)) {
			for (uint32_t j = 0; j < nr[k]; j++)
				if (r[j] == a[i].from)
					r[j] = a[i].to;
		} else if (a[i].kind == PL_ACTION_ADD_REPLICA && !held) {
			r[nr[k]++] = a[i].to;
		} else {
			continue;
		}
		for (uint32_t l = 0; l < levels; l++)
			after[l] = span(t, r, nr[k], l + 1);
		for (uint32_t l = 0; l < levels; l++) {
			if (after[l] > before[l])
				break;
			ck_assert_msg(after[l] == before[l], "%s: action %u lowers the level %u domains of %s from %u to %u",
				      what, i, l + 1, t->k[k].key.ptr, before[l], after[l]);
		}
	}
	uint32_t fewer = 0;
	for (uint32_t k = 0; k < t->nk; k++)
		fewer += span(t, rep + (size_t)k * PL_MAX_REPLICAS, nr[k], 1) < top0[k];
	free(rep);
	free(nr);
	free(top0);
	return fewer;
}

/* 60 members in 6 hosts of 10 over 3 racks (2 hosts each); 512 shards of
 * RF 3, each on 3 hosts (a host rule), the first hosts favoured. zone =
 * "rN/hM" (paths) or "hM" (the host alone). */
static tl *sixty(uint64_t *rng, int paths)
{
	tl *t = tl_new();
	for (uint32_t i = 0; i < 60; i++) {
		uint32_t h = i / 10;
		tl_member(t, tl_str(t, "osd%02u", i), paths ? tl_str(t, "r%u/h%u", h / 2, h) : tl_str(t, "h%u", h));
	}
	uint32_t s = tl_stream(t, "pool");
	for (uint32_t k = 0; k < 512; k++) {
		uint32_t hosts[3], n = 0;
		while (n < 3) {
			uint32_t h = tl_below(rng, 4) ? tl_below(rng, 4) : tl_below(rng, 6), dup = 0;
			for (uint32_t j = 0; j < n; j++)
				dup |= hosts[j] == h;
			if (!dup)
				hosts[n++] = h;
		}
		uint32_t a = hosts[0] * 10 + tl_below(rng, 10), b = hosts[1] * 10 + tl_below(rng, 10),
			 c = hosts[2] * 10 + tl_below(rng, 10);
		tl_shard(t, tl_str(t, "pool/%03u", k), s, a, 3, a, b, c);
	}
	return t;
}

START_TEST(no_shard_spans_fewer_racks_after_the_plan)
{
	uint64_t seed = tl_seed(0x60u), r1 = seed, r2 = seed;
	tl *flat = sixty(&r1, 0), *t = sixty(&r2, 1);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 64;
	uint32_t n, nf;
	pl_plan_info info;
	pl_action *af = bu_dry(flat, &cfg, &nf, &info, NULL);
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	/* the same replay over the paths, for the plan that saw hosts alone */
	tl *seen = sixty(&(uint64_t){seed}, 1);
	uint32_t lost_flat = 0;
	{
		/* the host-only plan's actions on the path layout: count, not assert */
		uint32_t *rep = calloc((size_t)seen->nk * 3, sizeof *rep);
		ck_assert_ptr_nonnull(rep);
		for (uint32_t k = 0; k < seen->nk; k++)
			memcpy(rep + (size_t)k * 3, seen->k[k].replicas, 3 * sizeof *rep);
		for (uint32_t i = 0; i < nf; i++)
			if (af[i].kind == PL_ACTION_MOVE_REPLICA ||
			    (af[i].kind == PL_ACTION_MOVE_LEADER && (af[i].flags & PL_ACTION_STAGE_FIRST)))
				for (uint32_t j = 0; j < 3; j++)
					if (rep[(size_t)af[i].shard * 3 + j] == af[i].from)
						rep[(size_t)af[i].shard * 3 + j] = af[i].to;
		for (uint32_t k = 0; k < seen->nk; k++)
			lost_flat += span(seen, rep + (size_t)k * 3, 3, 1) < span(seen, seen->k[k].replicas, 3, 1);
		free(rep);
	}
	uint32_t lost = replay(t, a, n, 2, "racks");
	ck_assert_uint_eq(lost, 0);
	printf("broker: 60 members, 6 hosts, 3 racks, 512 shards (seed %llu): with paths %u actions, no shard spans "
	       "fewer racks; with hosts alone %u actions, %u shards span fewer racks\n",
	       (unsigned long long)seed, n, nf, lost_flat);
	free(a);
	free(af);
	tl_free(seen);
	tl_free(flat);
	tl_free(t);
}
END_TEST

/* Two racks of two hosts, and a third rack: shards on two racks get a
 * replica moved into the third (a repair at the top level), one move each. */
START_TEST(repair_reaches_a_new_rack_first)
{
	static const char *const zones[] = {"r0/h0", "r0/h0", "r0/h1", "r0/h1", "r1/h2",
					    "r1/h2", "r1/h3", "r1/h3", "r2/h4", "r2/h5"};
	tl *t = bu_new(10, zones);
	uint32_t s = tl_stream(t, "p");
	tl_shard(t, "p/0", s, 0, 3, 0u, 2u, 4u);
	tl_shard(t, "p/1", s, 1, 3, 1u, 3u, 5u);
	tl_shard(t, "p/2", s, 4, 3, 4u, 6u, 8u);
	tl_shard(t, "p/3", s, 5, 3, 5u, 7u, 9u);
	pl_broker_config cfg = bu_cfg();
	uint32_t n;
	pl_plan_info info;
	pl_action *a = bu_dry_shown(t, &cfg, &n, &info, NULL);
	ck_assert_uint_ge(n, 2);
	ck_assert_uint_eq(a[0].reason, PL_REASON_ZONE_REPAIR);
	ck_assert_uint_eq(a[0].at, 1); /* racks: the paths' first part */
	ck_assert_ptr_nonnull(strstr(tl_say(t, &a[0]), "at level 1"));
	ck_assert_uint_eq(replay(t, a, n, 2, "repair"), 0);
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state st;
		ck_assert_int_eq(pl_view_shard_state(t->view, k, &st), 0);
		ck_assert_uint_eq(span(t, st.replicas, st.replica_count, 1), 3);
	}
	uint32_t len;
	ck_assert_int_eq(bu_loop_differs(t, &cfg, &len), -1);
	free(a);
	tl_free(t);
}
END_TEST

/* A new stream's followers go to a rack none of its replicas is in before
 * another host of the same rack: rack r0 has three hosts, r1 one. */
START_TEST(new_followers_reach_a_new_rack_first)
{
	static const char *const zones[] = {"r0/h0", "r0/h1", "r0/h2", "r1/h3"};
	tl *t = bu_new(4, zones);
	bu_new_stream(t, "n", 8);
	pl_broker_config cfg = bu_cfg();
	cfg.replication_factor = 2;
	uint32_t n;
	pl_plan_info info;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state st;
		ck_assert_int_eq(pl_view_shard_state(t->view, k, &st), 0);
		ck_assert_uint_eq(st.replica_count, 2);
		ck_assert_msg(span(t, st.replicas, 2, 1) == 2, "%s spans one rack", t->k[k].key.ptr);
	}
	free(a);
	tl_free(t);
}
END_TEST

/* A single-level zone is a one-level path: a layout with zone "z0" plans
 * as it did, and "z0/a" and "z0/b" are two zones of one top-level domain. */
START_TEST(a_move_keeps_the_top_level_before_the_zone)
{
	/* s/0 on a (r0/a) and c (r1/c): moving c's replica to b (r0/b) keeps two
	 * zones but loses rack r1, so the replica ceiling move goes to d (r1/d) */
	static const char *const zones[] = {"r0/a", "r0/b", "r1/c", "r1/d"};
	tl *t = bu_new(4, zones);
	uint32_t s = tl_stream(t, "s");
	for (uint32_t i = 0; i < 4; i++)
		tl_shard(t, tl_str(t, "s/%u", i), s, 0, 2, 0u, 2u);
	pl_broker_config cfg = bu_cfg();
	uint32_t n;
	pl_plan_info info;
	pl_action *a = bu_dry_shown(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(replay(t, a, n, 2, "keep"), 0);
	for (uint32_t i = 0; i < n; i++)
		if (a[i].kind == PL_ACTION_MOVE_REPLICA && a[i].from == 2)
			ck_assert_uint_eq(a[i].to, 3);
	free(a);
	tl_free(t);
}
END_TEST

/* Between copies that serve the counts alike, the one that stays inside the
 * deeper domain: p-src and q-src each hold one replica over, p-dst and
 * a-dst one under, and each source could send its replica to either (the
 * shards keep their zones). By rank alone p-src, the first source, would
 * send it to a-dst, the first destination, across zones, and q-src to
 * p-dst: both moves would cross. Each must stay in its source's zone, with
 * one-level zones (p, q, r) and with paths of one region (eu/p, eu/q,
 * eu/r: a-dst shares p-src's region, p-dst its zone too). */
START_TEST(copies_stay_inside_the_deepest_domain_they_can)
{
	static const char *const flat[] = {"p", "p", "q", "q", "r", "r"};
	static const char *const paths[] = {"eu/p", "eu/p", "eu/q", "eu/q", "eu/r", "eu/r"};
	static const char *const ids[] = {"p-src", "p-dst", "q-src", "a-dst", "r1", "r2"};
	for (int with_paths = 0; with_paths < 2; with_paths++) {
		tl *t = tl_new();
		for (uint32_t m = 0; m < 6; m++)
			tl_member(t, ids[m], with_paths ? paths[m] : flat[m]);
		uint32_t s = tl_stream(t, "s");
		tl_shard(t, "s/0", s, 0, 2, 0u, 4u);
		tl_shard(t, "s/1", s, 5, 2, 0u, 5u);
		tl_shard(t, "s/2", s, 3, 2, 0u, 3u);
		tl_shard(t, "s/3", s, 4, 2, 2u, 4u);
		tl_shard(t, "s/4", s, 2, 2, 2u, 5u);
		tl_shard(t, "s/5", s, 1, 2, 2u, 1u);
		pl_broker_config cfg = bu_cfg();
		cfg.max_moves = 4;
		uint32_t n;
		pl_plan_info info;
		pl_action *a = bu_dry_shown(t, &cfg, &n, &info, NULL);
		ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
		ck_assert_uint_eq(n, 2);
		for (uint32_t i = 0; i < n; i++) {
			ck_assert_uint_eq(a[i].kind, PL_ACTION_MOVE_REPLICA);
			ck_assert_msg(a[i].to == a[i].from + 1, "paths %d: action %u copies from %s to %s, across zones",
				      with_paths, i, ids[a[i].from], ids[a[i].to]);
		}
		free(a);
		tl_free(t);
	}
}
END_TEST

/* Kudu's RebalanceAlgoUnitTest.LocationBalancingFewMoves, its tenth case
 * (src/kudu/rebalance/rebalance_algo-test.cc): ts0 and ts1 in L0, ts2 to
 * ts5 in L1; table A's replicas 2 on ts0 and 4 on ts2 (RF 1: one shard a
 * replica). The locations are even already; Kudu moves inside them. Every
 * member without a replica is as far under as any other, so ts2's copies
 * go to ts3, ts4, ts5 and ts0's to ts1: four copies, none across. (The
 * first destination in rank order, ts1, took one of ts2's: two crossed.) */
START_TEST(kudu_moves_inside_a_location_when_that_does_as_well)
{
	tl *t = tl_new();
	for (uint32_t m = 0; m < 6; m++)
		tl_member(t, tl_str(t, "ts%u", m), m < 2 ? "L0" : "L1");
	uint32_t s = tl_stream(t, "A");
	for (uint32_t i = 0; i < 6; i++) {
		uint32_t m = i < 2 ? 0 : 2;
		tl_shard(t, tl_str(t, "A/ts%u/%u", m, i), s, m, 1, m);
	}
	pl_broker_config cfg = bu_cfg();
	uint32_t n;
	pl_plan_info info;
	pl_action *a = bu_dry_shown(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(n, 4);
	for (uint32_t i = 0; i < n; i++)
		ck_assert_msg((a[i].from < 2) == (a[i].to < 2), "action %u copies from ts%u to ts%u, across locations", i,
			      a[i].from, a[i].to);
	for (uint32_t m = 0; m < 6; m++)
		ck_assert_uint_eq(tl_member_tally(t->view, m).leaders, 1);
	free(a);
	tl_free(t);
}
END_TEST

/* Kudu's LocationBalancingFewMoves[11]: ts0 alone in L0, five servers in
 * L1, five single-replica shards on ts1. Four copies even the stream and
 * one member ends with none: the leader targets leave ts0 (another
 * location) at 0 rather than a member of the source's own location, so no
 * copy crosses a location, as in Kudu. */
START_TEST(kudu_leaves_the_far_member_empty_when_one_must_be)
{
	tl *t = tl_new();
	for (uint32_t m = 0; m < 6; m++)
		tl_member(t, tl_str(t, "ts%u", m), m == 0 ? "L0" : "L1");
	uint32_t s = tl_stream(t, "A");
	for (uint32_t i = 0; i < 5; i++)
		tl_shard(t, tl_str(t, "A/ts1/%u", i), s, 1, 1, 1);
	pl_broker_config cfg = bu_cfg();
	uint32_t n;
	pl_plan_info info;
	pl_action *a = bu_dry_shown(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(n, 4);
	for (uint32_t i = 0; i < n; i++)
		ck_assert_msg(a[i].to != 0, "action %u copies from ts%u to ts0, across locations", i, a[i].from);
	ck_assert_uint_eq(tl_member_tally(t->view, 0).leaders, 0);
	for (uint32_t m = 1; m < 6; m++)
		ck_assert_uint_eq(tl_member_tally(t->view, m).leaders, 1);
	free(a);
	tl_free(t);
}
END_TEST

/* A replica balance copy likewise: x (z0) holds 4 replicas of s, ceiling 3,
 * and y (z0), v (z2) and the z1 members 2 each. x's follower replica of
 * s/3 (led in z1) may go to y or to v alike; it goes to y, inside z0. */
START_TEST(a_replica_copy_stays_in_its_zone_when_that_does_as_well)
{
	static const char *const names[] = {"x", "y", "z", "w", "v"}, *const zones[] = {"z0", "z0", "z1", "z1", "z2"};
	static const uint32_t lead[6] = {0, 1, 2, 3, 4, 4}, follow[6] = {2, 3, 0, 0, 0, 1};
	tl *t = tl_new();
	for (uint32_t m = 0; m < 5; m++)
		tl_member(t, names[m], zones[m]);
	uint32_t s = tl_stream(t, "s");
	for (uint32_t i = 0; i < 6; i++)
		tl_shard(t, tl_str(t, "s/%u", i), s, lead[i], 2, lead[i], follow[i]);
	pl_broker_config cfg = bu_cfg();
	uint32_t n;
	pl_plan_info info;
	pl_action *a = bu_dry_shown(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(a[0].kind, PL_ACTION_MOVE_REPLICA);
	ck_assert_uint_eq(a[0].from, 0);
	ck_assert_msg(a[0].to == 1, "the copy goes from x to %s, out of z0", names[a[0].to]);
	free(a);
	tl_free(t);
}
END_TEST

/* Shard x on r0/h0 (leader), r0/h1 (draining) and r1/h2 spans two racks
 * of three. The drain of r0/h1 goes to r2/h4, the rack none of its
 * replicas is in, though r1/h3 holds fewer: there the zone repair would
 * copy it on to r2 (two copies of one replica where one does). The same
 * with whole zones (z0, z0, z1; z1 and z2 free). */
START_TEST(a_drain_copy_goes_where_the_zone_repair_would)
{
	static const char *const paths[] = {"r0/h0", "r0/h1", "r1/h2", "r1/h3", "r2/h4"};
	static const char *const zones[] = {"z0", "z0", "z1", "z1", "z2"};
	for (int flat = 0; flat < 2; flat++) {
		tl *t = bu_new(5, flat ? zones : paths);
		t->m[1].flags = PL_MEMBER_DRAINING;
		uint32_t kx = tl_shard(t, "x", PL_NONE, 0, 3, 0u, 1u, 2u);
		for (uint32_t i = 0; i < 4; i++) { /* r2/h4 holds more than r1/h3 */
			char key[8];
			snprintf(key, sizeof key, "y%u", i);
			tl_shard(t, key, PL_NONE, 4, 1, 4u);
		}
		pl_broker_config cfg = bu_cfg();
		uint32_t n, copies = 0;
		pl_plan_info info;
		pl_action *a = bu_dry_shown(t, &cfg, &n, &info, NULL);
		for (uint32_t i = 0; i < n; i++) {
			if (a[i].shard != kx || !(a[i].flags & PL_ACTION_STAGE_FIRST))
				continue;
			copies++;
			ck_assert_uint_eq(a[i].reason, PL_REASON_REPLICA_DRAIN);
			ck_assert_uint_eq(a[i].from, 1);
			ck_assert_uint_eq(a[i].to, 4);
		}
		ck_assert_uint_eq(copies, 1);
		pl_shard_state st;
		ck_assert_int_eq(pl_view_shard_state(t->view, kx, &st), 0);
		ck_assert_uint_eq(span(t, st.replicas, st.replica_count, flat ? 0 : 1), 3);
		uint32_t len;
		ck_assert_int_eq(bu_loop_differs(t, &cfg, &len), -1);
		free(a);
		tl_free(t);
	}
}
END_TEST

/* Random layouts with paths of 1 to 3 levels (some zones empty), RF 2 to
 * 4, skewed, some streams under the majority rule and some tolerances:
 * every action keeps the domains spanned, the top first; the tick loop
 * equals the dry run. */
START_TEST(random_paths_keep_their_domains_and_the_loop_equals_the_dry_run)
{
	uint64_t seed = tl_seed(0x1e7e1u), rng = seed;
	uint32_t iters = tl_iters(200), actions = 0, repairs = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint32_t nm = 4 + tl_below(&rng, 10), levels = 1 + tl_below(&rng, 3);
		tl *t = tl_new();
		for (uint32_t m = 0; m < nm; m++) {
			uint32_t r = tl_below(&rng, 3), h = tl_below(&rng, 3);
			const char *z = levels == 1   ? tl_str(t, "z%u", r)
					: levels == 2 ? tl_str(t, "r%u/h%u", r, h)
						      : tl_str(t, "g%u/r%u/h%u", tl_below(&rng, 2), r, h);
			if (tl_below(&rng, 12) == 0)
				z = NULL;
			tl_member(t, tl_str(t, "m%02u", m), z);
		}
		uint32_t rf = 2 + tl_below(&rng, 3), ns = 1 + tl_below(&rng, 3);
		rf = rf > nm ? nm : rf;
		for (uint32_t si = 0; si < ns; si++) {
			uint32_t s = tl_stream(t, tl_str(t, "s%u", si)), nk = 3 + tl_below(&rng, 20);
			for (uint32_t i = 0; i < nk; i++) {
				uint32_t lead = tl_below(&rng, 2) ? tl_below(&rng, nm) : tl_below(&rng, 1 + nm / 3);
				uint32_t k = tl_shard(t, tl_str(t, "s%u/%02u", si, i), s, lead, 1, lead);
				tl_add_replicas(t, k, rf, &rng);
			}
		}
		if (tl_below(&rng, 4) == 0)
			t->m[tl_below(&rng, nm)].flags |= PL_MEMBER_DRAINING;
		/* the other rules beside: some streams majority, tolerances */
		uint32_t rule[3], tol[3];
		for (uint32_t si = 0; si < ns; si++) {
			rule[si] = tl_below(&rng, 3) == 0 ? PL_ZONES_MAJORITY : PL_ZONES_SPAN;
			tol[si] = tl_below(&rng, 2) ? PL_TOLERANCE_DEFAULT : tl_below(&rng, 3);
		}
		t->snap.stream_zone_rule = rule;
		t->snap.stream_tolerance = tol;
		pl_broker_config cfg = bu_cfg();
		cfg.max_moves = 1 + tl_below(&rng, 4);
		cfg.tolerance = tl_below(&rng, 3);
		cfg.stream_tolerance = tl_below(&rng, 2);
		uint32_t n, len;
		pl_plan_info info;
		tl_view(t, 0);
		pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
		char what[96];
		snprintf(what, sizeof what, "seed %llu (layout %u, PL_TEST_SEED replays)", (unsigned long long)seed, it);
		replay(t, a, n, levels, what);
		actions += n;
		repairs += bu_count_kind(a, n, PL_ACTION_MOVE_REPLICA, PL_REASON_ZONE_REPAIR);
		ck_assert_msg(bu_loop_differs(t, &cfg, &len) < 0, "%s: the loop and the dry run differ", what);
		free(a);
		t->snap.stream_zone_rule = t->snap.stream_tolerance = NULL; /* the stack's, not the layout's */
		tl_free(t);
	}
	printf("broker: %u random layouts with paths of 1 to 3 levels, majority streams and tolerances (seed %llu): %u "
	       "actions, %u zone repairs, no domain lost before one gained\n",
	       iters, (unsigned long long)seed, actions, repairs);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("broker_levels");
	TCase *c = tcase_create("cases");
	tcase_add_test(c, repair_reaches_a_new_rack_first);
	tcase_add_test(c, new_followers_reach_a_new_rack_first);
	tcase_add_test(c, a_move_keeps_the_top_level_before_the_zone);
	tcase_add_test(c, copies_stay_inside_the_deepest_domain_they_can);
	tcase_add_test(c, kudu_moves_inside_a_location_when_that_does_as_well);
	tcase_add_test(c, kudu_leaves_the_far_member_empty_when_one_must_be);
	tcase_add_test(c, a_replica_copy_stays_in_its_zone_when_that_does_as_well);
	tcase_add_test(c, a_drain_copy_goes_where_the_zone_repair_would);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 600);
	tcase_add_test(c, no_shard_spans_fewer_racks_after_the_plan);
	tcase_add_test(c, random_paths_keep_their_domains_and_the_loop_equals_the_dry_run);
	suite_add_tcase(s, c);
	return tl_run(s);
}
