/*
 * fuzz_ticks.c - libFuzzer harness for the three policies over many ticks, on
 * valid-by-construction snapshots of up to 64 members, 16 streams and 2,000
 * shards (fuzz_valid.h), built with the library's own assertions on
 * (PL_DEBUG). The first bytes choose the policy, its configuration and the
 * output's capacity (small at times, so the output fills in the middle of a
 * pass); the rest make the snapshot. Then, tick after tick, as a control
 * plane runs it: decide, check, carry the actions out into the next tick's
 * snapshot, and build its view with the last one as a hint (reuse). Between
 * ticks the tick model's faults strike, drawn after the snapshot so they
 * change nothing it holds: a move or an override write that fails (the
 * shard stays as it was), a member flapping down or up, starting or ending
 * a lag episode, a shard map falling behind (stale epochs), a member
 * joining, a replica copy left staged in flight for a tick. A crash, a
 * sanitizer report, a failed assertion in the library or a broken promise
 * (abort()) is a bug:
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
 *    call like any other;
 *  - every next snapshot is valid, and its view built with the last as a
 *    hint decides byte for byte as one built without it (checked on some
 *    ticks);
 *  - the readers the policies come with answer: the broker's drain stalls
 *    (each a replica on a draining member), the fleet's owners (every shard
 *    owned by a member), the region's effective RF and add-peer check; a
 *    broker dry run that does not fill its output ends where a tick emits
 *    nothing.
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

static unsigned long n_actions, n_ticks;

static void print_stats(void)
{
	fprintf(stderr, "fuzz_ticks: %lu ticks, %lu actions\n", n_ticks, n_actions);
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

/* The tick model's faults, in sixteenths (fv_chance), drawn from the
 * snapshot's random stream after the snapshot. */
typedef struct faults {
	uint32_t fail, flap, lag, stale, join, stage, fresh;
} faults;

/* Next ticks' arrays: tick t's snapshot lives in buffer t % 2. */
static pl_member mb[2][FV_MEMBERS];
static pl_shard kb[2][FV_SHARDS];
static pl_override ob[2][FV_SHARDS];
static pl_copy cb[2][FV_COPIES];
static uint32_t had[FV_SHARDS]; /* 1 + the last snapshot's override of a shard, or 0 */

/* Is member m among st's replicas? */
static int holds(const pl_shard_state *st, uint32_t m)
{
	for (uint32_t j = 0; j < st->replica_count; j++)
		if (st->replicas[j] == m)
			return 1;
	return 0;
}

/* The snapshot after tick `t`'s actions (out[0..got), applied to v) were
 * carried out, with the faults, in buffer b. prev is tick t's snapshot. */
static pl_snapshot next_snapshot(const pl_snapshot *prev, const pl_view *v, int got, uint32_t b, const faults *fz)
{
	pl_snapshot n = *prev;
	uint32_t nm = prev->n_members;
	pl_member *m = mb[b];
	memcpy(m, prev->members, nm * sizeof *m);
	for (uint32_t i = 0; i < nm; i++) {
		if (fv_chance(&f, fz->flap))
			m[i].flags ^= PL_MEMBER_DOWN;
		if (fv_chance(&f, fz->lag))
			m[i].flags ^= PL_MEMBER_LAGGING;
		m[i].map_version = fv_chance(&f, fz->stale) ? 0 : UINT64_C(1) << 40;
	}
	if (nm < FV_MEMBERS && fv_chance(&f, fz->join)) {
		/* a member joins, its id in fv_read()'s scheme (37 is prime to 64) */
		int len = snprintf(f.mid[nm], sizeof f.mid[nm], "m%02u", (nm * 37u) % 64u);
		memset(&m[nm], 0, sizeof m[nm]);
		m[nm].id = (pl_bytes){f.mid[nm], (uint64_t)len};
		m[nm].joined_at = 1000 + nm;
		m[nm].map_version = UINT64_C(1) << 40;
		if (nm && fv_chance(&f, 8))
			m[nm].zone = m[fv_below(&f, nm)].zone;
		nm++;
	}
	for (uint32_t k = 0; k < prev->n_shards; k++)
		had[k] = 0;
	for (uint32_t o = 0; o < prev->n_overrides; o++)
		had[prev->overrides[o].shard] = 1 + o;
	pl_shard *k = kb[b];
	pl_override *o = ob[b];
	uint32_t no = 0, nc = 0;
	for (uint32_t i = 0; i < prev->n_shards; i++) {
		pl_shard_state st;
		pl_view_shard_state(v, i, &st);
		k[i] = prev->shards[i];
		k[i].moving_to = PL_NONE;
		int fail = fv_chance(&f, fz->fail);
		if (fail) {
			/* the move or copy failed: the shard stays as it was, the
			 * leader at the source */
		} else {
			k[i].leader = st.leader;
			k[i].replica_count = st.replica_count;
			memcpy(k[i].replicas, st.replicas, sizeof st.replicas);
			k[i].epoch = st.epoch;
		}
		if (fail && had[i])
			o[no++] = prev->overrides[had[i] - 1]; /* the override write failed */
		else if (!fail && st.override_member != PL_NONE)
			o[no++] = (pl_override){st.override_since, i, st.override_member, st.override_origin};
	}
	/* Some of this tick's copies stay staged, in flight, for one more tick:
	 * the shard keeps its source, the copy is listed. Only where the shard
	 * as carried out shows the copy finished. */
	for (int j = got - 1; j >= 0; j--) {
		const pl_action *a = &out[j];
		if ((a->kind != PL_ACTION_ADD_REPLICA && a->kind != PL_ACTION_MOVE_REPLICA) || nc == FV_COPIES ||
		    !fv_chance(&f, fz->stage))
			continue;
		pl_shard *s = &k[a->shard];
		pl_shard_state st = {.leader = s->leader, .replica_count = s->replica_count};
		memcpy(st.replicas, s->replicas, sizeof st.replicas);
		int listed = 0;
		for (uint32_t c = 0; c < nc; c++)
			listed |= cb[b][c].shard == a->shard;
		if (listed || !holds(&st, a->to) || s->leader == a->to || (a->from != PL_NONE && holds(&st, a->from)))
			continue;
		for (uint32_t r = 0; r < s->replica_count; r++)
			if (s->replicas[r] == a->to) {
				if (a->from != PL_NONE)
					s->replicas[r] = a->from;
				else
					s->replicas[r] = s->replicas[--s->replica_count];
				break;
			}
		cb[b][nc++] = (pl_copy){a->shard, a->to, a->from, 0};
	}
	n.members = m;
	n.n_members = nm;
	n.shards = k;
	n.overrides = o;
	n.n_overrides = no;
	n.copies = nc ? cb[b] : NULL;
	n.n_copies = nc;
	return n;
}

/* A view of snap in *mem (grown to fit), with hint as its reuse. */
static pl_view *build(void **mem, size_t *have, const pl_snapshot *snap, const pl_view *hint)
{
	size_t size = pl_view_size(snap);
	if (size > *have) {
		free(*mem);
		*mem = malloc(size);
		*have = size;
	}
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	opt.reuse = hint;
	pl_view *v = NULL;
	pl_diag d = {0, 0, 0, 0};
	int rc = pl_view_init(&v, *mem, *have, snap, &opt, &d);
	if (rc != 0) {
		fprintf(stderr, "next tick refused: %s kind %u index %u\n", pl_error_name(rc), d.kind, d.index);
		abort(); /* a snapshot carried out from valid actions */
	}
	return v;
}

/* The readers each policy comes with, on the view after its tick. */
static void readers(uint32_t policy, pl_view *v, const pl_snapshot *snap, const void *cfg)
{
	if (policy == 0) {
		pl_broker_stall stalls[8];
		uint32_t total = 0, cap = (uint32_t)fv_below(&f, 9);
		int n = pl_broker_drain_stalls(v, cap ? stalls : NULL, cap, &total, NULL);
		if (n < 0 || (uint32_t)n > cap || (uint32_t)n > total)
			abort();
		for (int i = 0; i < n; i++) {
			pl_shard_state st;
			if (pl_view_shard_state(v, stalls[i].shard, &st) != 0 || !holds(&st, stalls[i].member) ||
			    !(snap->members[stalls[i].member].flags & PL_MEMBER_DRAINING) || stalls[i].reason < 1 ||
			    stalls[i].reason > 3)
				abort(); /* a stall that is no replica on a draining member */
		}
	} else if (policy == 1) {
		static uint32_t owners[FV_SHARDS];
		if (pl_fleet_owners(v, owners, snap->n_shards, NULL) != (int)snap->n_shards)
			abort();
		for (uint32_t k = 0; k < snap->n_shards; k++)
			if (owners[k] >= snap->n_members || (int)owners[k] != pl_fleet_owner(v, k))
				abort();
	} else {
		int r = pl_region_effective_rf(v, cfg, NULL);
		if (r < 0 || r > (int)PL_MAX_REPLICAS)
			abort();
		if (snap->n_shards) {
			uint32_t k = fv_below(&f, snap->n_shards);
			pl_shard_state st;
			pl_view_shard_state(v, k, &st);
			int rc = pl_region_check_add_peer(v, k, fv_below(&f, snap->n_members), st.epoch, NULL);
			if (rc > 0 || (rc == 0 && st.replica_count == PL_MAX_REPLICAS))
				abort();
		}
	}
}

/* Does the view built with a hint decide as one built without it? Both
 * decide on copies; the outputs and infos must be the same bytes. */
static void same_as_fresh(uint32_t policy, const pl_view *v, const pl_snapshot *snap, const void *cfg, uint32_t cap)
{
	size_t size = pl_view_size(snap);
	void *m1 = malloc(size), *m2 = malloc(size);
	pl_view *fresh = NULL, *c = NULL;
	static pl_action keep[CAP];
	if (pl_view_init(&fresh, m1, size, snap, NULL, NULL) != 0 || pl_view_copy(&c, m2, size, v) != 0)
		abort();
	pl_plan_info i1, i2;
	memset(&i1, 0, sizeof i1);
	memset(&i2, 0, sizeof i2);
	int n1 = decide(policy, fresh, cfg, cap, &i1);
	if (n1 > 0)
		memcpy(keep, out, (size_t)n1 * sizeof *out);
	int n2 = decide(policy, c, cfg, cap, &i2);
	if (n1 != n2 || memcmp(&i1, &i2, sizeof i1) != 0 || (n1 > 0 && memcmp(keep, out, (size_t)n1 * sizeof *out) != 0))
		abort(); /* reuse changed a decision */
	free(m1);
	free(m2);
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
	/* the faults, after the snapshot: one input in four has none */
	faults fz = {0, 0, 0, 0, 0, 0, 0};
	if (fv_below(&f, 4)) {
		fz.fail = fv_below(&f, 8);
		fz.flap = fv_below(&f, 3);
		fz.lag = policy == 1 ? fv_below(&f, 3) : 0;
		fz.stale = policy == 2 ? fv_below(&f, 8) : 0;
		fz.join = fv_below(&f, 6);
		fz.stage = fv_below(&f, 12);
	}
	fz.fresh = fv_below(&f, 6);

	size_t size = pl_view_size(&snap), have[2] = {size, 0}, csize = size;
	void *mem[2] = {malloc(size), NULL}, *copy = malloc(size);
	pl_view *v = NULL, *c = NULL;
	pl_diag d = {0, 0, 0, 0};
	int init = pl_view_init(&v, mem[0], size, &snap, NULL, &d);
	count_valid("fuzz_ticks", init == 0);
	if (init != 0) {
		if (!f.faulty || d.code != init || d.kind == PL_ELEM_NONE || v != NULL) {
			fprintf(stderr, "refused: %s kind %u index %u (fault %u)\n", pl_error_name(init), d.kind, d.index, f.faulty);
			abort(); /* a valid snapshot refused, or an error not named */
		}
		goto done;
	}
	const void *cfg = policy == 0 ? (const void *)&bc : policy == 1 ? (const void *)&fc : (const void *)&rc;
	for (uint32_t t = 0; t < ticks; t++) {
		pl_plan_info info;
		pl_view_counts vc;
		pl_view_stats(v, &vc);
		fc.self = self % snap.n_members;
		size = pl_view_size(&snap);
		if (size > csize) {
			free(copy);
			copy = malloc(size);
			csize = size;
		}
		if (t && fv_chance(&f, fz.fresh))
			same_as_fresh(policy, v, &snap, cfg, cap);
		if (pl_view_copy(&c, copy, csize, v) != 0)
			abort();
		int got = decide(policy, v, cfg, cap, &info);
		n_ticks++;
		if (snap.n_shards > 0 && vc.eligible == 0) {
			if (got != PL_E_NO_ELIGIBLE)
				abort();
			break;
		}
		check_actions(policy, &snap, c, got, cap, &info);
		readers(policy, v, &snap, cfg);
		if (policy == 1) {
			/* every other member decides on its own copy of the tick's view */
			static pl_action mine[CAP];
			int kept = got;
			memcpy(mine, out, (size_t)got * sizeof *out);
			void *copy2 = malloc(csize);
			for (uint32_t m = 0; m < snap.n_members && m < 8; m++) {
				pl_fleet_config mc = fc;
				mc.self = (fc.self + 1 + m) % snap.n_members;
				if (pl_view_copy(&c, copy, csize, v) != 0)
					abort();
				got = pl_fleet_decide(c, &mc, out, cap, &info, NULL);
				pl_view *c3;
				pl_view_copy(&c3, copy2, csize, v);
				check_actions(policy, &snap, c3, got, cap, &info);
				/* what it decided is carried out too, where it still
				 * applies after the others' */
				for (int j = 0; j < got && kept < CAP; j++)
					if (pl_view_apply(v, &out[j]) == 0)
						mine[kept++] = out[j];
			}
			free(copy2);
			memcpy(out, mine, (size_t)kept * sizeof *out);
			got = kept;
			fc.now += 1 + fc.cooldown;
		}
		if (policy == 0 && t + 1 == ticks && snap.n_shards <= 120 && fv_chance(&f, 4)) {
			/* a dry run from here ends where a tick emits nothing (on
			 * small snapshots: a big one takes thousands of moves) */
			if (pl_view_copy(&c, copy, csize, v) != 0)
				abort();
			int n = pl_broker_dry_run(c, cfg, out, 128, &info, NULL, NULL);
			if (n < 0 || (info.status != PL_STATUS_FULL && pl_broker_plan(c, cfg, out, CAP, &info, NULL) != 0))
				abort();
			break;
		}
		if (t + 1 == ticks)
			break;
		/* carry the tick out into the next snapshot; its view reuses this one */
		uint32_t b = t % 2, nb = 1 - b;
		pl_snapshot next = next_snapshot(&snap, v, got, b, &fz);
		pl_view *nv = build(&mem[nb], &have[nb], &next, v);
		snap = next;
		v = nv;
	}
done:
	free(mem[0]);
	free(mem[1]);
	free(copy);
	return 0;
}
