/*
 * region.c - one tick of the region policy at a realistic size: 100,000
 * regions over 64 members with RF 3 (each member holds ~4,700 replicas and
 * leads ~1,560 primaries), timed beside a plain pass over the same shards
 * (read every region's peers and primary once: the speed of memory) and the
 * view build, in the same run. Best of several runs; the VM is noisy.
 *
 * Ticks measured, each on a fresh view of its snapshot:
 *  - quiet:   the balanced cluster; nothing to do (every pass, no action);
 *  - join:    a 65th member joins empty; max_actions 16 idle-member moves;
 *  - follow:  the joiner holds its fair share but no primary; 16 primaries
 *             follow it (step 3, one pass per move with its early stop);
 *  - leave:   a member is down; the regions it held are below RF: 16 actions
 *             (claims and adds), then the same with max_actions unlimited
 *             (~4,600 claims and adds and ~2,000 newest-peer moves in one
 *             call), the worst case of one pass per move.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define NK 100000u
#define NM 64u
#define RUNS 7

typedef struct world {
	char (*ids)[16];
	char (*keys)[24];
	char (*zones)[8];
	pl_member *m;
	pl_shard *k;
	uint32_t nm;
	pl_snapshot snap;
	void *mem;
	size_t mem_size;
} world;

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* 64 members in 4 zones, 100,000 regions with 3 peers in 3 zones; primaries
 * spread evenly. Room for a 65th member. */
static void build(world *w)
{
	memset(w, 0, sizeof *w);
	w->ids = calloc(NM + 1, sizeof *w->ids);
	w->zones = calloc(NM + 1, sizeof *w->zones);
	w->keys = calloc(NK, sizeof *w->keys);
	w->m = calloc(NM + 1, sizeof *w->m);
	w->k = calloc(NK, sizeof *w->k);
	if (!w->ids || !w->zones || !w->keys || !w->m || !w->k) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	for (uint32_t i = 0; i <= NM; i++) {
		int n = snprintf(w->ids[i], sizeof w->ids[i], "node-%02u", i);
		int z = snprintf(w->zones[i], sizeof w->zones[i], "z%u", i % 4);
		w->m[i].id = (pl_bytes){w->ids[i], (uint64_t)n};
		w->m[i].zone = (pl_bytes){w->zones[i], (uint64_t)z};
		w->m[i].joined_at = 100 + i;
		w->m[i].map_version = 7;
		w->m[i].load = 1000;
	}
	w->nm = NM;
	uint64_t s = 42;
	for (uint32_t i = 0; i < NK; i++) {
		int n = snprintf(w->keys[i], sizeof w->keys[i], "cpu/%08x", i);
		pl_shard *k = &w->k[i];
		k->key = (pl_bytes){w->keys[i], (uint64_t)n};
		k->stream = k->moving_to = PL_NONE;
		k->epoch = 7;
		/* Three members in three different zones: one per zone class. */
		uint32_t skip = (uint32_t)(rng_next(&s) % 4), r = 0;
		for (uint32_t z = 0; z < 4; z++) {
			if (z == skip)
				continue;
			k->replicas[r++] = z + 4 * (uint32_t)(rng_next(&s) % (NM / 4));
		}
		k->replica_count = 3;
		k->leader = k->replicas[i % 3];
	}
	w->snap = (pl_snapshot){.version = PL_SNAPSHOT_VERSION, .members = w->m, .shards = w->k,
			.n_members = w->nm, .n_shards = NK};
	w->mem_size = pl_view_size(&w->snap) + 4096;
	w->mem = malloc(w->mem_size);
}

static void drop(world *w)
{
	free(w->ids);
	free(w->zones);
	free(w->keys);
	free(w->m);
	free(w->k);
	free(w->mem);
}

static pl_view *view(world *w)
{
	pl_view *v;
	w->snap = (pl_snapshot){.version = PL_SNAPSHOT_VERSION, .members = w->m, .shards = w->k,
			.n_members = w->nm, .n_shards = NK};
	if (pl_view_init(&v, w->mem, w->mem_size, &w->snap, NULL, NULL) != 0) {
		fprintf(stderr, "bench: view init failed\n");
		exit(1);
	}
	return v;
}

/* The baseline: read every region's peers and primary once. */
static uint64_t plain_pass(const world *w)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < NK; i++) {
		const pl_shard *k = &w->k[i];
		sum += k->leader;
		for (uint32_t j = 0; j < k->replica_count; j++)
			sum += k->replicas[j];
	}
	return sum;
}

/* Carry a call's state into the snapshot. */
static void adopt(world *w, const pl_view *v)
{
	for (uint32_t i = 0; i < NK; i++) {
		pl_shard_state s;
		pl_view_shard_state(v, i, &s);
		w->k[i].leader = s.leader;
		w->k[i].replica_count = s.replica_count;
		memcpy(w->k[i].replicas, s.replicas, sizeof w->k[i].replicas);
	}
}

typedef struct timing {
	uint64_t build, decide;
	int actions;
	pl_plan_info info;
} timing;

static pl_action out[NK];

static timing tick(world *w, const pl_region_config *cfg)
{
	timing best = {UINT64_MAX, UINT64_MAX, 0, {0, 0, 0, 0, 0}};
	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = bench_now();
		pl_view *v = view(w);
		uint64_t t1 = bench_now();
		int n = pl_region_plan(v, cfg, out, NK, &best.info, NULL, 0, NULL);
		uint64_t t2 = bench_now();
		if (n < 0) {
			fprintf(stderr, "bench: pl_region_plan: %s\n", pl_strerror(n));
			exit(1);
		}
		best.actions = n;
		best.build = t1 - t0 < best.build ? t1 - t0 : best.build;
		best.decide = t2 - t1 < best.decide ? t2 - t1 : best.decide;
	}
	return best;
}

static void report(const char *name, timing t, uint64_t base)
{
	printf("  %-7s %5d actions (%s)  view build %7.2f ms = %5.1fx   decide %7.2f ms = %6.1fx the plain pass\n", name,
	       t.actions, pl_status_name(t.info.status), (double)t.build / 1e6, (double)t.build / (double)base,
	       (double)t.decide / 1e6, (double)t.decide / (double)base);
}

void bench_region(void)
{
	world w;
	build(&w);
	printf("\nregion: %u regions over %u members, RF 3, 4 zones (best of %d)\n", NK, NM, RUNS);

	uint64_t base = UINT64_MAX;
	for (int r = 0; r < RUNS * 3; r++) {
		uint64_t t0 = bench_now();
		bench_keep(plain_pass(&w));
		uint64_t t1 = bench_now();
		base = t1 - t0 < base ? t1 - t0 : base;
	}
	printf("  plain pass over the shards: %.3f ms (the baseline, 1.0x)\n", (double)base / 1e6);
	printf("  view: %zu bytes\n", pl_view_size(&w.snap));

	pl_region_config cfg;
	pl_region_config_init(&cfg); /* RF 3, max_actions 16 */

	/* The generator leaves some members below the fair share: settle the
	 * cluster first, so "quiet" is quiet. */
	pl_region_config all = cfg;
	all.max_actions = NK;
	for (int i = 0; i < 64; i++) {
		pl_view *v = view(&w);
		int n = pl_region_plan(v, &all, out, NK, NULL, NULL, 0, NULL);
		adopt(&w, v);
		if (n <= 0)
			break;
	}
	report("quiet", tick(&w, &cfg), base);

	w.nm = NM + 1; /* node-64 joins, empty */
	report("join", tick(&w, &cfg), base);

	/* Let the joiner take its fair share of replicas (no primaries: the
	 * idle moves take non-primary peers first). */
	pl_region_config moves = all;
	for (int i = 0; i < 8; i++) {
		pl_view *v = view(&w);
		int n = pl_region_plan(v, &moves, out, NK, NULL, NULL, 0, NULL);
		/* Keep only the replica moves; primaries follow in the timed tick. */
		for (int j = 0; j < n; j++)
			if (out[j].kind == PL_ACTION_MOVE_REPLICA) {
				pl_shard *k = &w.k[out[j].shard];
				for (uint32_t r = 0; r < k->replica_count; r++)
					if (k->replicas[r] == out[j].from)
						k->replicas[r] = out[j].to;
				if (k->leader == out[j].from)
					k->leader = out[j].to;
			}
		if (n <= 0)
			break;
	}
	pl_tally jt;
	pl_view_member_tally(view(&w), NM, &jt);
	printf("  (the joiner now holds %u replicas and leads %u)\n", jt.replicas, jt.leaders);
	report("follow", tick(&w, &cfg), base);

	w.m[5].flags = PL_MEMBER_DOWN; /* the joiner stays */
	report("leave", tick(&w, &cfg), base);
	report("leave*", tick(&w, &all), base);
	printf("  (* max_actions unlimited: every under-RF region, claim and follow-up in one call;\n"
	       "     steps 2 and 3 take up to one pass over the regions per move, so a call costs\n"
	       "     O(max_actions x regions) at worst: the cap bounds work as well as churn)\n");
	w.m[5].flags = 0;

	printf("  peak memory %ld KiB (whole process)\n", bench_peak_kib());
	drop(&w);
}
