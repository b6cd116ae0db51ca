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
 * peers once it had them, and a quiet tick comes once the faults stop. A
 * fleet is run the same way, every member deciding for itself each tick
 * (fleetsim.h), while override writes fail (the override a member wrote is
 * not in the next snapshot), a member flaps, a member leaves while the
 * document still names it and comes back, and the snapshot arrives with the
 * last tick's document (stale): no member is pushed past its share, every
 * action applies and explains, and once the faults stop the fleet goes
 * quiet with every member within [floor, share]. One loop, run_faults(),
 * runs the ticks of all three.
 * Failures print the seed: PL_TEST_SEED=<seed> replays one layout.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim.h"
#include "placement.h"
#include "region_bound.h"
#include "testutil.h"

static unsigned long n_failed, n_moves, n_actions, n_stale_reads, worst_quiet;

/* Run one layout per seed: PL_TEST_SEED's alone (returns 0: nothing to
 * print), else tl_iters(150) drawn from rng0, the counters zeroed first
 * (returns how many ran). */
static uint32_t run_many(void (*one)(uint64_t seed), uint64_t rng0)
{
	uint64_t seed = tl_seed(0), rng = rng0;
	uint32_t iters = tl_iters(150);
	if (seed) {
		one(seed);
		return 0;
	}
	n_actions = n_moves = n_failed = n_stale_reads = worst_quiet = 0;
	for (uint32_t i = 0; i < iters; i++)
		one(tl_rand(&rng) | 1);
	return iters;
}

/* Ticks with faults, then ticks allowed to reach a quiet one. */
#define FAULT_TICKS 40u
#define QUIET_WITHIN 400u

/* One tick of a policy under test: carries out the last tick's actions (or
 * fails them, with faults), decides, checks, and returns how many actions
 * the tick emitted. */
typedef uint32_t tick_fn(void *run, uint32_t tick, int faults);

/* Runs tick() FAULT_TICKS times with faults, then without until a tick emits
 * nothing; returns that tick, failing with the seed if none comes within
 * QUIET_WITHIN ticks. */
static uint32_t run_faults(tick_fn *tick, void *run, uint64_t seed, const char *policy)
{
	for (uint32_t t = 0; t < FAULT_TICKS + QUIET_WITHIN; t++) {
		int faults = t < FAULT_TICKS;
		if (tick(run, t, faults) == 0 && !faults) {
			if (t - FAULT_TICKS > worst_quiet)
				worst_quiet = t - FAULT_TICKS;
			return t;
		}
	}
	ck_abort_msg("seed %llu: %s: no quiet tick within %u after the faults stopped", (unsigned long long)seed,
		     policy, QUIET_WITHIN);
	return 0;
}

/* The flapping member: down, up, down ... every other tick with faults; up
 * once they stop. */
static void flap(tl *t, uint32_t m, uint32_t tick, int faults)
{
	if (faults && tick % 2 == 0)
		t->m[m].flags ^= PL_MEMBER_DOWN;
	else if (!faults)
		t->m[m].flags &= ~PL_MEMBER_DOWN;
}

/* Action i of a tick applies to c, the copy of the tick's view, and
 * explains. */
static void applies(tl *t, pl_view *c, const pl_action *a, uint64_t seed, uint32_t tick, int i)
{
	char line[512];
	ck_assert_msg(pl_view_apply(c, a) == 0, "seed %llu tick %u: action %d does not apply", (unsigned long long)seed,
		      tick, i);
	ck_assert_msg(pl_action_explain(tl_snap(t), a, line, sizeof line) > 0, "seed %llu tick %u: action %d does not explain",
		      (unsigned long long)seed, tick, i);
}

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

typedef struct broker_run {
	tl *t;
	uint64_t rng, seed;
	uint32_t flapper;
	pl_broker_config cfg;
} broker_run;

static uint32_t broker_tick(void *run, uint32_t tick, int faults)
{
	broker_run *r = run;
	tl *t = r->t;
	pl_action out[256];
	flap(t, r->flapper, tick, faults);
	settle(t, &r->rng, faults);
	pl_view *v = tl_view(t, 0);
	size_t size = pl_view_size(tl_snap(t));
	void *mem = malloc(size);
	pl_view *c;
	ck_assert_int_eq(pl_view_copy(&c, mem, size, v), 0);
	pl_plan_info info;
	int n = pl_broker_plan(v, &r->cfg, out, 256, &info, NULL);
	ck_assert_msg(n >= 0, "seed %llu tick %u: %s", (unsigned long long)r->seed, tick, pl_error_name(n));
	for (int i = 0; i < n; i++) {
		const pl_action *a = &out[i];
		uint32_t had = tl_member_tally(c, a->to).replicas;
		applies(t, c, a, r->seed, tick, i);
		pl_tally tt = tl_member_tally(c, a->to);
		uint32_t cap = t->m[a->to].max_shards;
		if (a->kind == PL_ACTION_MOVE_LEADER || a->kind == PL_ACTION_MOVE_REPLICA)
			ck_assert_msg(cap == 0 || tt.replicas <= had || tt.replicas <= cap, "seed %llu tick %u: %s past the cap of %u",
				      (unsigned long long)r->seed, tick, pl_action_kind_name(a->kind), a->to);
		if (a->kind == PL_ACTION_MOVE_REPLICA ||
		    (a->kind == PL_ACTION_MOVE_LEADER && rep_at(&t->k[a->shard], a->to) < 0)) {
			pl_shard after = t->k[a->shard];
			after.replicas[rep_at(&after, a->kind == PL_ACTION_MOVE_LEADER ? after.leader : a->from)] = a->to;
			ck_assert_msg(zones_of(t, after.replicas, after.replica_count) >=
					      zones_of(t, t->k[a->shard].replicas, t->k[a->shard].replica_count),
				      "seed %llu tick %u: a move loses a zone", (unsigned long long)r->seed, tick);
		}
		carry_out(t, a, &r->rng, faults);
		n_actions++;
	}
	free(mem);
	return (uint32_t)n;
}

/* One layout: FAULT_TICKS ticks of faults, then until a quiet tick. */
static void run_layout(uint64_t seed)
{
	broker_run r = {NULL, seed, seed, 0, PL_BROKER_CONFIG_INIT};
	uint32_t nm = 3 + tl_below(&r.rng, 6), ns = 1 + tl_below(&r.rng, 4), nk = 4 + tl_below(&r.rng, 60);
	tl *t = r.t = tl_random(&r.rng, nm, ns, nk, 1 + tl_below(&r.rng, 3), 1);
	for (uint32_t m = 0; m < nm; m++)
		if (tl_below(&r.rng, 4) == 0)
			t->m[m].max_shards = nk / 2 + 1;
	r.flapper = tl_below(&r.rng, nm);
	r.cfg.max_moves = 1 + tl_below(&r.rng, 4);
	run_faults(broker_tick, &r, seed, "broker");
	settle(t, &r.rng, 0);
	for (uint32_t i = 0; i < t->nk; i++)
		ck_assert_msg(t->k[i].leader != PL_NONE && !(t->m[t->k[i].leader].flags & PL_MEMBER_DOWN),
			      "seed %llu: shard %u has no live leader", (unsigned long long)seed, i);
	tl_free(t);
}

START_TEST(broker_survives_failed_moves_and_flapping)
{
	uint32_t iters = run_many(run_layout, 14);
	if (!iters)
		return;
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
typedef struct region_run {
	tl *t;
	uint64_t rng, seed;
	uint32_t flapper;
	pl_region_config cfg;
} region_run;

static uint32_t region_tick(void *run, uint32_t tick, int faults)
{
	region_run *r = run;
	tl *t = r->t;
	pl_action out[64];
	pl_region_stall stalls[8];
	for (uint32_t m = 0; m < t->nm; m++) {
		/* caught up, or (with faults) behind every region's epoch */
		t->m[m].map_version = faults && tl_below(&r->rng, 3) == 0 ? 0 : UINT64_C(1) << 40;
	}
	flap(t, r->flapper, tick, faults);
	settle(t, &r->rng, faults);
	pl_view *v = tl_view(t, 0);
	size_t size = pl_view_size(tl_snap(t));
	void *mem = malloc(size);
	pl_view *c;
	ck_assert_int_eq(pl_view_copy(&c, mem, size, v), 0);
	pl_view_counts vc;
	pl_view_stats(v, &vc);
	uint32_t R = r->cfg.replication_factor < vc.live ? r->cfg.replication_factor : vc.live;
	pl_plan_info info;
	int n = pl_region_plan(v, &r->cfg, out, 64, &info, stalls, 8, NULL);
	if (vc.eligible == 0) {
		ck_assert_int_eq(n, PL_E_NO_ELIGIBLE);
		free(mem);
		return 1; /* not a quiet tick: nothing could be decided */
	}
	ck_assert_msg(n >= 0, "seed %llu tick %u: %s", (unsigned long long)r->seed, tick, pl_error_name(n));
	for (int i = 0; i < n; i++) {
		const pl_action *a = &out[i];
		pl_shard_state st;
		pl_view_shard_state(c, a->shard, &st);
		uint32_t before = region_live_peers(t->m, &st);
		applies(t, c, a, r->seed, tick, i);
		pl_view_shard_state(c, a->shard, &st);
		uint32_t after = region_live_peers(t->m, &st);
		ck_assert_msg(before < R || after >= R, "seed %llu tick %u: a region falls below %u live peers",
			      (unsigned long long)r->seed, tick, R);
		if (a->kind == PL_ACTION_ADD_REPLICA && faults && tl_below(&r->rng, 3) == 0) {
			n_failed++; /* the copy never arrived: the peer is not added */
			continue;
		}
		carry_out(t, a, &r->rng, faults);
		t->k[a->shard].epoch++;
		n_actions++;
	}
	free(mem);
	return (uint32_t)n;
}

static void run_regions(uint64_t seed)
{
	region_run r = {NULL, seed, seed, 0, PL_REGION_CONFIG_INIT};
	uint32_t nm = 2 + tl_below(&r.rng, 6), nk = 1 + tl_below(&r.rng, 24);
	tl *t = r.t = tl_random(&r.rng, nm, 0, nk, 1 + tl_below(&r.rng, 2), 1);
	for (uint32_t m = 0; m < nm; m++)
		t->m[m].joined_at = m;
	r.flapper = tl_below(&r.rng, nm);
	r.cfg.replication_factor = 1 + tl_below(&r.rng, 3);
	run_faults(region_tick, &r, seed, "region");
	tl_free(t);
}

START_TEST(region_survives_failed_copies_stale_maps_and_flapping)
{
	uint32_t iters = run_many(run_regions, 15);
	if (!iters)
		return;
	printf("faults: %u region layouts: %lu actions carried out, %lu copies failed; quiet at most %lu ticks after "
	       "the faults stopped\n",
	       iters, n_actions, n_failed, worst_quiet);
}
END_TEST

/* The fleet: every member decides each tick on its own copy of the tick's
 * view, the union becomes the next override document (fleetsim.h, which
 * checks that every action applies, that no shard is acted on by two
 * members and that no member is pushed past its share). The faults:
 *  - an override write fails: a shard whose override changed this tick
 *    keeps, in the next snapshot, the override it had before;
 *  - a member flaps down and up every other tick;
 *  - a member leaves (it is gone from the members) while the document still
 *    names it: the next snapshot's overrides are the document read back,
 *    which skips its lines; it comes back later, with no overrides;
 *  - the snapshot arrives stale: with the document of the tick before.
 * Once they stop the fleet goes quiet with every eligible member within
 * [floor, share]. */
typedef struct fleet_run {
	sim *s;
	uint64_t rng, seed;
	uint32_t flapper, leaver;
	pl_member gone;     /* the member that left, while it is away */
	pl_override *stale; /* the document of the tick before */
	uint32_t n_stale, stale_ok;
	unsigned long failed_writes, stale_reads, skipped;
} fleet_run;

/* The overrides of t, as the document a view of t writes, read back against
 * the view of t without overrides (after a member left: its lines are
 * skipped). Returns how many lines were skipped. */
static uint32_t fleet_doc_round_trip(tl *t, const char *doc, size_t len, uint64_t seed)
{
	t->no = 0;
	pl_view *v = tl_view(t, 0);
	pl_override *o = malloc((t->nk + 1) * sizeof *o);
	uint32_t skipped = 0;
	int n = pl_fleet_doc_read(v, doc, len, o, t->nk + 1, &skipped, NULL);
	ck_assert_msg(n >= 0, "seed %llu: the document does not read back: %s", (unsigned long long)seed, pl_error_name(n));
	for (int i = 0; i < n; i++)
		tl_override(t, o[i].shard, o[i].member, o[i].origin, o[i].since);
	free(o);
	return skipped;
}

/* Member m leaves: gone from the members (indices after it shift down),
 * while the document written before still names it. */
static void fleet_leave(fleet_run *r, uint32_t m)
{
	tl *t = r->s->t;
	pl_view *v = tl_view(t, 0);
	int len = pl_fleet_doc_format(v, NULL, 0);
	ck_assert_int_ge(len, 0);
	char *doc = malloc((size_t)len + 1);
	ck_assert_int_eq(pl_fleet_doc_format(v, doc, (size_t)len + 1), len);
	uint32_t named = 0;
	for (uint32_t o = 0; o < t->no; o++)
		named += t->o[o].member == m;
	r->gone = t->m[m];
	memmove(&t->m[m], &t->m[m + 1], (t->nm - m - 1) * sizeof *t->m);
	memmove(&r->s->last[m], &r->s->last[m + 1], (t->nm - m - 1) * sizeof *r->s->last);
	t->nm--;
	if (r->flapper > m)
		r->flapper--;
	uint32_t skipped = fleet_doc_round_trip(t, doc, (size_t)len, r->seed);
	ck_assert_msg(skipped == named, "seed %llu: %u lines named the member that left, %u skipped",
		      (unsigned long long)r->seed, named, skipped);
	r->skipped += skipped;
	r->leaver = t->nm; /* where it comes back */
	r->stale_ok = 0;   /* an older document would name it by index */
	free(doc);
}

static uint32_t fleet_tick(void *run, uint32_t tick, int faults)
{
	fleet_run *r = run;
	sim *s = r->s;
	tl *t = s->t;
	flap(t, r->flapper, tick, faults);
	if (faults && tick == FAULT_TICKS / 4 && t->nm > 2)
		fleet_leave(r, (r->flapper + 1) % t->nm);
	else if (tick == FAULT_TICKS / 2 && r->leaver != PL_NONE) {
		uint32_t old = t->nm;
		t->m = realloc(t->m, (t->nm + 1) * sizeof *t->m);
		t->cm = t->nm + 1;
		t->m[t->nm++] = r->gone; /* back, with no overrides */
		sim_grow(s, old);
		r->leaver = PL_NONE;
		r->stale_ok = 0;
	}
	/* the document this tick starts from, for a stale read next tick */
	pl_override *now = malloc((t->no + 1) * sizeof *now);
	memcpy(now, t->o, t->no * sizeof *now);
	uint32_t n_now = t->no;
	if (faults && r->stale_ok && tl_below(&r->rng, 4) == 0) {
		t->no = 0; /* the snapshot arrives with the last tick's document */
		for (uint32_t o = 0; o < r->n_stale; o++)
			tl_override(t, r->stale[o].shard, r->stale[o].member, r->stale[o].origin, r->stale[o].since);
		r->stale_reads++;
	}
	free(r->stale);
	r->stale = now;
	r->n_stale = n_now;
	r->stale_ok = 1;
	/* before the tick: each shard's override, to fail writes */
	uint32_t nk = t->nk;
	pl_override *had = malloc(nk * sizeof *had);
	uint8_t *has = calloc(nk, 1);
	for (uint32_t o = 0; o < t->no; o++) {
		had[t->o[o].shard] = t->o[o];
		has[t->o[o].shard] = 1;
	}
	uint32_t n = sim_tick(s);
	for (uint32_t j = 0; j < s->nacts; j++) {
		const pl_action *a = &s->acts[j];
		char line[512];
		ck_assert_msg(a->kind == PL_ACTION_SET_OVERRIDE || a->kind == PL_ACTION_DROP_OVERRIDE,
			      "seed %llu tick %u: the fleet emitted kind %u", (unsigned long long)r->seed, tick, a->kind);
		ck_assert_msg(pl_action_explain(tl_snap(t), a, line, sizeof line) > 0,
			      "seed %llu tick %u: an action does not explain", (unsigned long long)r->seed, tick);
	}
	n_actions += n;
	if (faults) {
		/* some writes fail: the shard keeps the override it had */
		uint8_t *fail = calloc(nk, 1);
		for (uint32_t j = 0; j < s->nacts; j++)
			if (tl_below(&r->rng, 3) == 0)
				fail[s->acts[j].shard] = 1;
		uint32_t keep = 0;
		for (uint32_t o = 0; o < t->no; o++)
			if (!fail[t->o[o].shard])
				t->o[keep++] = t->o[o];
		t->no = keep;
		for (uint32_t k = 0; k < nk; k++)
			if (fail[k]) {
				r->failed_writes++;
				if (has[k])
					tl_override(t, k, had[k].member, had[k].origin, had[k].since);
			}
		free(fail);
	}
	free(had);
	free(has);
	return n;
}

static void run_fleet(uint64_t seed)
{
	fleet_run r;
	memset(&r, 0, sizeof r);
	r.rng = r.seed = seed;
	r.leaver = PL_NONE;
	uint32_t nm = 3 + tl_below(&r.rng, 6), nk = 8 + tl_below(&r.rng, 60);
	tl *t = sim_fleet(nm, "f", 0, 2, nk, "k", 4);
	/* a layout off balance: count overrides piled on a few members */
	uint32_t pile = 1 + tl_below(&r.rng, nm - 1);
	for (uint32_t k = 0; k < nk; k++)
		if (tl_below(&r.rng, 2))
			tl_override(t, k, tl_below(&r.rng, pile), PL_ORIGIN_COUNT, 1);
	r.s = sim_new(t, PL_SCORER_XXH3, seed);
	r.s->cfg.moves_per_decision = 1 + tl_below(&r.rng, 3);
	r.flapper = tl_below(&r.rng, nm);
	run_faults(fleet_tick, &r, seed, "fleet");
	uint32_t *owned = malloc(t->nm * 4), *fl = malloc(t->nm * 4), *sh = malloc(t->nm * 4);
	sim_spread(r.s, owned, fl, sh);
	pl_view *v = tl_view(t, 0);
	for (uint32_t m = 0; m < t->nm; m++)
		ck_assert_msg(!pl__eligible(v, m) || (owned[m] >= fl[m] && owned[m] <= sh[m]),
			      "seed %llu: member %u owns %u once quiet, outside [%u, %u]", (unsigned long long)seed, m,
			      owned[m], fl[m], sh[m]);
	n_failed += r.failed_writes;
	n_stale_reads += r.stale_reads;
	free(owned);
	free(fl);
	free(sh);
	free(r.stale);
	sim_free(r.s);
	tl_free(t);
}

START_TEST(fleet_survives_failed_writes_leaves_stale_documents_and_flapping)
{
	uint32_t iters = run_many(run_fleet, 16);
	if (!iters)
		return;
	printf("faults: %u fleet layouts: %lu actions, %lu override writes failed, %lu stale documents read; quiet at "
	       "most %lu ticks after the faults stopped\n",
	       iters, n_actions, n_failed, n_stale_reads, worst_quiet);
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
	c = tcase_create("fleet");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, fleet_survives_failed_writes_leaves_stale_documents_and_flapping);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
