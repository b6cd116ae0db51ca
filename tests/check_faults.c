/*
 * check_faults.c - faults the tick model must survive, as properties on
 * random layouts: a broker cluster is run tick by tick, each tick's actions
 * carried out into the next tick's snapshot by this suite (not by the
 * library), while
 *  - moves fail: a leader move in flight disappears from the next snapshot
 *    with the leader still at the source, and a replica move is dropped;
 *  - a member flaps: down one tick, up the next;
 * then the faults stop. Every tick, whatever the faults, the policy emits
 * only actions that apply to the tick's view (checked on a copy), explain,
 * pass no member's max_shards, and never take a shard's replicas into
 * fewer zones by a move; once the faults stop it reaches a tick that emits
 * nothing, with every shard led by a live member. A region cluster is run
 * the same way, with copies that fail and members whose shard map falls
 * behind (stale epochs): no action takes a region below min(RF, live) live
 * peers once it had them, and a quiet tick comes once the faults stop.
 * Failures print the seed: PL_TEST_SEED=<seed> replays one layout.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"
#include "region_bound.h"
#include "testutil.h"

static unsigned long n_failed, n_moves, n_actions, worst_quiet;

/* Zones a replica list spans, on the layout's members. */
static uint32_t zones_of(const tl *t, const uint32_t *rep, uint32_t n)
{
	uint32_t z = 0;
	for (uint32_t i = 0; i < n; i++) {
		int seen = 0;
		for (uint32_t j = 0; j < i; j++)
			seen |= t->m[rep[j]].zone.len && t->m[rep[i]].zone.len == t->m[rep[j]].zone.len &&
				memcmp(t->m[rep[i]].zone.ptr, t->m[rep[j]].zone.ptr, t->m[rep[i]].zone.len) == 0;
		z += !seen;
	}
	return z;
}

static int rep_at(const pl_shard *k, uint32_t m)
{
	for (uint32_t j = 0; j < k->replica_count; j++)
		if (k->replicas[j] == m)
			return (int)j;
	return -1;
}

/* Settle last tick's moves into the snapshot: each finishes, or (with
 * faults) fails and disappears, the leader still at the source. */
static void settle(tl *t, uint64_t *rng, int faults)
{
	for (uint32_t i = 0; i < t->nk; i++) {
		pl_shard *k = &t->k[i];
		if (k->moving_to == PL_NONE)
			continue;
		n_moves++;
		if (faults && tl_below(rng, 3) == 0) {
			n_failed++;
		} else {
			int j = rep_at(k, k->moving_to);
			if (j < 0)
				k->replicas[rep_at(k, k->leader)] = k->moving_to;
			k->leader = k->moving_to;
		}
		k->moving_to = PL_NONE;
	}
}

/* Carry one action out into the snapshot, as a control plane would: a
 * leader move goes in flight; a replica move, with faults, may fail. */
static void carry_out(tl *t, const pl_action *a, uint64_t *rng, int faults)
{
	pl_shard *k = &t->k[a->shard];
	switch (a->kind) {
	case PL_ACTION_SET_LEADER:
		k->leader = a->to;
		break;
	case PL_ACTION_MOVE_LEADER:
		k->moving_to = a->to;
		break;
	case PL_ACTION_ADD_REPLICA:
		k->replicas[k->replica_count++] = a->to;
		break;
	case PL_ACTION_MOVE_REPLICA:
		n_moves++;
		if (faults && tl_below(rng, 3) == 0) {
			n_failed++;
			break; /* the copy failed: nothing changed */
		}
		{
			int j = rep_at(k, a->from);
			ck_assert_int_ge(j, 0);
			k->replicas[j] = a->to;
			if (k->leader == a->from)
				k->leader = a->to;
		}
		break;
	default:
		ck_abort_msg("broker emitted kind %u", a->kind);
	}
}

/* One layout: 40 ticks of faults, then up to 400 without. */
static void run_layout(uint64_t seed)
{
	uint64_t rng = seed;
	uint32_t nm = 3 + tl_below(&rng, 6), ns = 1 + tl_below(&rng, 4), nk = 4 + tl_below(&rng, 60);
	tl *t = tl_random(&rng, nm, ns, nk, 1 + tl_below(&rng, 3), 1);
	for (uint32_t m = 0; m < nm; m++)
		if (tl_below(&rng, 4) == 0)
			t->m[m].max_shards = nk / 2 + 1;
	uint32_t flapper = tl_below(&rng, nm);
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	cfg.max_moves = 1 + tl_below(&rng, 4);
	pl_action out[256];
	char line[512];
	uint32_t quiet_at = 0;
	for (uint32_t tick = 0; tick < 440 && !quiet_at; tick++) {
		int faults = tick < 40;
		if (faults && tick % 2 == 0)
			t->m[flapper].flags ^= PL_MEMBER_DOWN; /* down, up, down ... */
		else if (!faults)
			t->m[flapper].flags &= ~PL_MEMBER_DOWN;
		settle(t, &rng, faults);
		pl_view *v = tl_view(t, 0);
		size_t size = pl_view_size(tl_snap(t));
		void *mem = malloc(size);
		pl_view *c;
		ck_assert_int_eq(pl_view_copy(&c, mem, size, v), 0);
		pl_plan_info info;
		int n = pl_broker_plan(v, &cfg, out, 256, &info, NULL);
		ck_assert_msg(n >= 0, "seed %llu tick %u: %s", (unsigned long long)seed, tick, pl_error_name(n));
		for (int i = 0; i < n; i++) {
			const pl_action *a = &out[i];
			uint32_t had = tl_member_tally(c, a->to).replicas;
			ck_assert_msg(pl_view_apply(c, a) == 0, "seed %llu tick %u: action %d does not apply",
				      (unsigned long long)seed, tick, i);
			ck_assert_int_gt(pl_action_explain(tl_snap(t), a, line, sizeof line), 0);
			pl_tally tt = tl_member_tally(c, a->to);
			uint32_t cap = t->m[a->to].max_shards;
			if (a->kind == PL_ACTION_MOVE_LEADER || a->kind == PL_ACTION_MOVE_REPLICA)
				ck_assert_msg(cap == 0 || tt.replicas <= had || tt.replicas <= cap, "seed %llu tick %u: %s past the cap of %u",
					      (unsigned long long)seed, tick, pl_action_kind_name(a->kind), a->to);
			if (a->kind == PL_ACTION_MOVE_REPLICA ||
			    (a->kind == PL_ACTION_MOVE_LEADER && rep_at(&t->k[a->shard], a->to) < 0)) {
				pl_shard after = t->k[a->shard];
				after.replicas[rep_at(&after, a->kind == PL_ACTION_MOVE_LEADER ? after.leader : a->from)] = a->to;
				ck_assert_msg(zones_of(t, after.replicas, after.replica_count) >=
						      zones_of(t, t->k[a->shard].replicas, t->k[a->shard].replica_count),
					      "seed %llu tick %u: a move loses a zone", (unsigned long long)seed, tick);
			}
			carry_out(t, a, &rng, faults);
			n_actions++;
		}
		free(mem);
		if (!faults && n == 0)
			quiet_at = tick;
	}
	if (quiet_at - 40 > worst_quiet)
		worst_quiet = quiet_at - 40;
	ck_assert_msg(quiet_at, "seed %llu: no quiet tick within 400 after the faults stopped",
		      (unsigned long long)seed);
	settle(t, &rng, 0);
	for (uint32_t i = 0; i < t->nk; i++)
		ck_assert_msg(t->k[i].leader != PL_NONE && !(t->m[t->k[i].leader].flags & PL_MEMBER_DOWN),
			      "seed %llu: shard %u has no live leader", (unsigned long long)seed, i);
	tl_free(t);
}

START_TEST(broker_survives_failed_moves_and_flapping)
{
	uint64_t seed = tl_seed(0);
	uint32_t iters = tl_iters(150);
	if (seed) {
		run_layout(seed);
		return;
	}
	uint64_t rng = 14;
	for (uint32_t i = 0; i < iters; i++)
		run_layout(tl_rand(&rng) | 1);
	printf("faults: %u broker layouts: %lu actions, %lu moves carried out, %lu of them failed; quiet at most %lu ticks "
	       "after the faults stopped\n",
	       iters, n_actions, n_moves, n_failed, worst_quiet);
}
END_TEST

/* Regions: the same, with copies that fail (an added or moved peer never
 * arrives) and members whose shard map falls behind (a stale epoch) while
 * one member flaps. A region that had min(RF, live) live peers never drops
 * below it through an action; once the faults stop, and every member has
 * caught up, a quiet tick comes. */
static void run_regions(uint64_t seed)
{
	uint64_t rng = seed;
	uint32_t nm = 2 + tl_below(&rng, 6), nk = 1 + tl_below(&rng, 24);
	tl *t = tl_random(&rng, nm, 0, nk, 1 + tl_below(&rng, 2), 1);
	for (uint32_t m = 0; m < nm; m++)
		t->m[m].joined_at = m;
	uint32_t flapper = tl_below(&rng, nm);
	pl_region_config cfg = PL_REGION_CONFIG_INIT;
	cfg.replication_factor = 1 + tl_below(&rng, 3);
	pl_action out[64];
	pl_region_stall stalls[8];
	char line[512];
	uint32_t quiet_at = 0;
	for (uint32_t tick = 0; tick < 440 && !quiet_at; tick++) {
		int faults = tick < 40;
		for (uint32_t m = 0; m < nm; m++) {
			/* caught up, or (with faults) behind every region's epoch */
			t->m[m].map_version = faults && tl_below(&rng, 3) == 0 ? 0 : UINT64_C(1) << 40;
		}
		if (faults && tick % 2 == 0)
			t->m[flapper].flags ^= PL_MEMBER_DOWN;
		else if (!faults)
			t->m[flapper].flags &= ~PL_MEMBER_DOWN;
		settle(t, &rng, faults);
		pl_view *v = tl_view(t, 0);
		size_t size = pl_view_size(tl_snap(t));
		void *mem = malloc(size);
		pl_view *c;
		ck_assert_int_eq(pl_view_copy(&c, mem, size, v), 0);
		pl_view_counts vc;
		pl_view_stats(v, &vc);
		uint32_t R = cfg.replication_factor < vc.live ? cfg.replication_factor : vc.live;
		pl_plan_info info;
		int n = pl_region_plan(v, &cfg, out, 64, &info, stalls, 8, NULL);
		if (vc.eligible == 0) {
			ck_assert_int_eq(n, PL_E_NO_ELIGIBLE);
			free(mem);
			continue;
		}
		ck_assert_msg(n >= 0, "seed %llu tick %u: %s", (unsigned long long)seed, tick, pl_error_name(n));
		for (int i = 0; i < n; i++) {
			const pl_action *a = &out[i];
			pl_shard_state st;
			pl_view_shard_state(c, a->shard, &st);
			uint32_t before = region_live_peers(t->m, &st);
			ck_assert_msg(pl_view_apply(c, a) == 0, "seed %llu tick %u: action %d does not apply",
				      (unsigned long long)seed, tick, i);
			ck_assert_int_gt(pl_action_explain(tl_snap(t), a, line, sizeof line), 0);
			pl_view_shard_state(c, a->shard, &st);
			uint32_t after = region_live_peers(t->m, &st);
			ck_assert_msg(before < R || after >= R, "seed %llu tick %u: a region falls below %u live peers",
				      (unsigned long long)seed, tick, R);
			if (a->kind == PL_ACTION_ADD_REPLICA && faults && tl_below(&rng, 3) == 0) {
				n_failed++; /* the copy never arrived: the peer is not added */
				continue;
			}
			carry_out(t, a, &rng, faults);
			t->k[a->shard].epoch++;
			n_actions++;
		}
		free(mem);
		if (!faults && n == 0)
			quiet_at = tick;
	}
	ck_assert_msg(quiet_at, "seed %llu: no quiet tick within 400 after the faults stopped",
		      (unsigned long long)seed);
	if (quiet_at - 40 > worst_quiet)
		worst_quiet = quiet_at - 40;
	tl_free(t);
}

START_TEST(region_survives_failed_copies_stale_maps_and_flapping)
{
	uint64_t seed = tl_seed(0);
	uint32_t iters = tl_iters(150);
	if (seed) {
		run_regions(seed);
		return;
	}
	n_actions = n_moves = n_failed = worst_quiet = 0;
	uint64_t rng = 15;
	for (uint32_t i = 0; i < iters; i++)
		run_regions(tl_rand(&rng) | 1);
	printf("faults: %u region layouts: %lu actions carried out, %lu copies failed; quiet at most %lu ticks after "
	       "the faults stopped\n",
	       iters, n_actions, n_failed, worst_quiet);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("faults");
	TCase *c = tcase_create("broker");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, broker_survives_failed_moves_and_flapping);
	suite_add_tcase(s, c);
	c = tcase_create("region");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, region_survives_failed_copies_stale_maps_and_flapping);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
