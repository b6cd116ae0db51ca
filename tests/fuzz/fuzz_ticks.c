/*
 * fuzz_ticks.c - libFuzzer harness for the three policies over many ticks, on
 * valid-by-construction snapshots of up to 64 members, 16 streams and 2,000
 * shards (fuzz_valid.h), built with the library's own assertions on
 * (PL_DEBUG). The first bytes choose the policy, its configuration and the
 * output's capacity (small at times, so the output fills in the middle of a
 * pass); the rest make the snapshot. Then, tick after tick: decide, check,
 * settle, decide again. A crash, a sanitizer report, a failed assertion in
 * the library or a broken promise (abort()) is a bug:
 *  - a snapshot made valid is accepted, one with its deliberate fault is
 *    refused, with the element named, and nothing written;
 *  - a call on a valid view with a valid configuration never fails, writes
 *    at most cap actions and says so in its info;
 *  - every action applies to a copy of the view taken before the call (the
 *    policy's own bookkeeping agrees with pl_view_apply()), explains, and
 *    is of the policy's kinds;
 *  - no member's replicas pass its max_shards through an action, but for
 *    a placement in tier 5 (the least loaded, when every member is full);
 *  - every fleet member deciding on its own copy of one tick's view is a
 *    call like any other.
 * With PL_FUZZ_STATS set in the environment, the share of inputs whose
 * snapshot passed validation is printed at exit.
 *
 *   make fuzz FUZZ_TIME=60     build with clang -fsanitize=fuzzer and run
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_valid.h"
#include "placement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static unsigned long n_inputs, n_valid, n_actions;

static void print_stats(void)
{
	if (n_inputs)
		fprintf(stderr, "fuzz_ticks: %lu inputs, %lu valid (%.1f%%), %lu actions\n", n_inputs, n_valid,
			100.0 * (double)n_valid / (double)n_inputs, n_actions);
}

enum { CAP = 512 };
static pl_action out[CAP];
static fv_snapshot f;

/* Is kind one the policy emits? */
static int kind_ok(uint32_t policy, uint32_t kind)
{
	switch (policy) {
	case 0:
		return kind == PL_ACTION_SET_LEADER || kind == PL_ACTION_MOVE_LEADER || kind == PL_ACTION_ADD_REPLICA ||
		       kind == PL_ACTION_MOVE_REPLICA;
	case 1:
		return kind == PL_ACTION_SET_OVERRIDE || kind == PL_ACTION_DROP_OVERRIDE;
	default:
		return kind == PL_ACTION_ADD_REPLICA || kind == PL_ACTION_MOVE_REPLICA || kind == PL_ACTION_SET_LEADER ||
		       kind == PL_ACTION_MOVE_LEADER;
	}
}

/* One call of the policy on v; the count, or the error. */
static int decide(uint32_t policy, pl_view *v, const void *cfg, uint32_t cap, pl_plan_info *info)
{
	static pl_region_stall stalls[16];
	switch (policy) {
	case 0:
		return pl_broker_plan(v, cfg, out, cap, info, NULL);
	case 1:
		return pl_fleet_decide(v, cfg, out, cap, info, NULL);
	default:
		return pl_region_plan(v, cfg, out, cap, info, stalls, 16, NULL);
	}
}

/* Is out[j] a new shard's leader, placed in tier 5 (the least loaded: the
 * documented way past a cap when every member is full)? Its SET_LEADER,
 * later in the same call, says so. */
static int placed_in_tier5(int got, int j, const pl_action *a)
{
	if (a->tier == 5)
		return 1;
	for (int i = j + 1; i < got; i++)
		if (out[i].kind == PL_ACTION_SET_LEADER && out[i].shard == a->shard && out[i].to == a->to &&
		    out[i].tier == 5)
			return 1;
	return 0;
}

/* Check what one call wrote against a copy c of the view taken before it. */
static void check_actions(uint32_t policy, const pl_snapshot *snap, pl_view *c, int got, uint32_t cap,
			  const pl_plan_info *info)
{
	char line[512];
	if (got < 0 || (uint32_t)got > cap || info->written != (uint32_t)got || info->wanted < info->written)
		abort();
	if (strcmp(pl_status_name(info->status), "unknown") == 0)
		abort();
	for (int j = 0; j < got; j++) {
		const pl_action *a = &out[j];
		if (!kind_ok(policy, a->kind) || pl_action_explain(snap, a, line, sizeof line) <= 0)
			abort();
		pl_tally before = {0, 0, 0, 0, 0}, after;
		if (a->to != PL_NONE && pl_view_member_tally(c, a->to, &before) != 0)
			abort();
		if (pl_view_apply(c, a) != 0)
			abort(); /* the policy emitted what the view refuses */
		if (a->to != PL_NONE) {
			pl_view_member_tally(c, a->to, &after);
			uint32_t cap_to = snap->members[a->to].max_shards;
			if (cap_to && after.replicas > before.replicas && after.replicas > cap_to &&
			    !placed_in_tier5(got, j, a))
				abort(); /* filled past max_shards */
		}
	}
	n_actions += (unsigned long)got;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static int registered;
	if (!registered && getenv("PL_FUZZ_STATS")) {
		atexit(print_stats);
		registered = 1;
	}
	in s = {data, len};
	uint32_t policy = take(&s, 3), ticks = 1 + take(&s, 8);
	uint32_t cap = take(&s, 4) ? CAP : 1 + take(&s, 6);
	pl_broker_config bc = PL_BROKER_CONFIG_INIT;
	bc.max_moves = 1 + take(&s, 8);
	bc.max_moves_in = take(&s, 3);
	bc.max_moves_out = take(&s, 3);
	bc.paused = take(&s, 16) == 0;
	bc.replication_factor = 1 + take(&s, PL_MAX_REPLICAS);
	bc.stream_balance = take(&s, 8) != 0;
	pl_fleet_config fc = PL_FLEET_CONFIG_INIT;
	fc.cooldown = take(&s, 3);
	fc.moves_per_decision = 1 + take(&s, 4);
	fc.spread = take(&s, 8) != 0;
	fc.return_home_age = take(&s, 400);
	fc.count_balance = take(&s, 8) != 0;
	uint32_t self = take(&s, FV_MEMBERS);
	pl_region_config rc = PL_REGION_CONFIG_INIT;
	rc.replication_factor = 1 + take(&s, PL_MAX_REPLICAS);
	rc.add_peer_proposals = take(&s, 8) != 0;
	rc.load_balance = take(&s, 2);
	rc.load_threshold = 1 + take(&s, 99);
	rc.max_actions = 1 + take(&s, 64);
	pl_snapshot snap = fv_read(&s, &f);
	n_inputs++;

	size_t size = pl_view_size(&snap);
	void *mem = malloc(size), *copy = malloc(size);
	pl_view *v = NULL, *c = NULL;
	pl_diag d = {0, 0, 0, 0};
	int init = pl_view_init(&v, mem, size, &snap, NULL, &d);
	if (init != 0) {
		if (!f.faulty || d.code != init || d.kind == PL_ELEM_NONE || v != NULL) {
			fprintf(stderr, "refused: %s kind %u index %u (fault %u)\n", pl_error_name(init), d.kind, d.index, f.faulty);
			abort(); /* a valid snapshot refused, or an error not named */
		}
		goto done;
	}
	n_valid++;
	fc.self = self % snap.n_members;
	pl_view_counts vc;
	pl_view_stats(v, &vc);
	const void *cfg = policy == 0 ? (const void *)&bc : policy == 1 ? (const void *)&fc : (const void *)&rc;
	for (uint32_t t = 0; t < ticks; t++) {
		pl_plan_info info;
		if (pl_view_copy(&c, copy, size, v) != 0)
			abort();
		int got = decide(policy, v, cfg, cap, &info);
		if (snap.n_shards > 0 && vc.eligible == 0) {
			if (got != PL_E_NO_ELIGIBLE)
				abort();
			break;
		}
		check_actions(policy, &snap, c, got, cap, &info);
		if (policy == 1) {
			/* every other member decides on its own copy of the tick's view */
			for (uint32_t m = 0; m < snap.n_members && m < 8; m++) {
				pl_fleet_config mc = fc;
				mc.self = (fc.self + 1 + m) % snap.n_members;
				if (pl_view_copy(&c, copy, size, v) != 0)
					abort();
				pl_view *c2 = c;
				got = pl_fleet_decide(c2, &mc, out, cap, &info, NULL);
				void *copy2 = malloc(size);
				pl_view *c3;
				pl_view_copy(&c3, copy2, size, v);
				check_actions(policy, &snap, c3, got, cap, &info);
				free(copy2);
			}
			fc.now += 1 + fc.cooldown;
		}
		if (pl_view_settle(v) < 0)
			abort();
	}
done:
	free(mem);
	free(copy);
	return 0;
}
