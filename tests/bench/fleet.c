/*
 * fleet.c - one fleet count-balance decision, view build included, at 4,096
 * shards over 64 members and at 1,000,000 shards over 1,000 members; and
 * one routing decision.
 *
 * Baselines in the same run: the view build alone, and the rendezvous top-1
 * of every shard (pl_view_home() over all shards), which is what owned
 * counts need: every shard's ring home. The decision is reported as a
 * ratio against both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct fworld {
	uint32_t nm, nk;
	char (*ids)[24];
	char (*keys)[24];
	pl_member *m;
	pl_shard *k;
	pl_override *o;
	uint32_t no;
	pl_snapshot snap;
	void *mem;
	size_t size;
} fworld;

static void build(fworld *w, uint32_t nm, uint32_t nk)
{
	memset(w, 0, sizeof *w);
	w->nm = nm;
	w->nk = nk;
	w->ids = calloc(nm, sizeof *w->ids);
	w->keys = calloc(nk, sizeof *w->keys);
	w->m = calloc(nm, sizeof *w->m);
	w->k = calloc(nk, sizeof *w->k);
	w->o = calloc(nk / 20 + 1, sizeof *w->o);
	for (uint32_t i = 0; i < nm; i++) {
		int n = snprintf(w->ids[i], sizeof w->ids[i], "member-%u", i);
		w->m[i].id = (pl_bytes){w->ids[i], (uint64_t)n};
		w->m[i].load = i * 7u % 100;
	}
	for (uint32_t i = 0; i < nk; i++) {
		int n = snprintf(w->keys[i], sizeof w->keys[i], "stream/%08x", i);
		w->k[i].key = (pl_bytes){w->keys[i], (uint64_t)n};
		w->k[i].stream = w->k[i].leader = w->k[i].moving_to = PL_NONE;
		w->k[i].load = i % 97;
	}
	/* Member 0 holds one shard in 20 by count overrides: over its share. */
	for (uint32_t i = 1; i < nk; i += 20)
		w->o[w->no++] = (pl_override){1, i, 0, PL_ORIGIN_COUNT};
	w->snap = (pl_snapshot){.version = PL_SNAPSHOT_VERSION, .members = w->m, .shards = w->k,
			.overrides = w->o, .n_members = nm, .n_shards = nk, .n_overrides = w->no};
	w->size = pl_view_size(&w->snap);
	w->mem = malloc(w->size);
}

static void drop(fworld *w)
{
	free(w->ids);
	free(w->keys);
	free(w->m);
	free(w->k);
	free(w->o);
	free(w->mem);
}

static pl_view *view(fworld *w)
{
	pl_view *v;
	if (pl_view_init(&v, w->mem, w->size, &w->snap, NULL, NULL) != 0) {
		fprintf(stderr, "bench: view init failed\n");
		exit(1);
	}
	return v;
}

static double best_ms(int reps, double (*run)(fworld *), fworld *w)
{
	double best = 1e30;
	for (int r = 0; r < reps; r++) {
		double ms = run(w);
		best = ms < best ? ms : best;
	}
	return best;
}

static double run_build(fworld *w)
{
	uint64_t t0 = bench_now();
	pl_view *v = view(w);
	double ms = bench_ms_since(t0);
	pl_view_counts c;
	pl_view_stats(v, &c);
	bench_keep(c.shards);
	return ms;
}

/* The ring home of every shard, on a built view: the top-1 rate. */
static double run_homes(fworld *w)
{
	pl_view *v = view(w);
	uint64_t t0 = bench_now(), acc = 0;
	for (uint32_t k = 0; k < w->nk; k++)
		acc += (uint64_t)pl_view_home(v, k);
	double ms = bench_ms_since(t0);
	bench_keep(acc);
	return ms;
}

static int decided;
static pl_plan_info last_info;

static double run_decide(fworld *w)
{
	uint64_t t0 = bench_now();
	pl_view *v = view(w);
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	cfg.self = 0;
	static pl_action a[256]; /* clean-up drops of redundant overrides, then the move */
	decided = pl_fleet_decide(v, &cfg, a, 256, &last_info, NULL);
	return bench_ms_since(t0);
}

/* A second decision on the same view: the ring homes are already there. */
static double run_decide_again(fworld *w)
{
	pl_view *v = view(w);
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	cfg.self = 1;
	static pl_action a[256];
	pl_fleet_decide(v, &cfg, a, 256, NULL, NULL); /* fills the homes */
	cfg.self = 0;
	uint64_t t0 = bench_now();
	decided = pl_fleet_decide(v, &cfg, a, 256, NULL, NULL);
	return bench_ms_since(t0);
}

static void one_size(uint32_t nm, uint32_t nk, int reps)
{
	fworld w;
	build(&w, nm, nk);
	double b = best_ms(reps, run_build, &w);
	double h = best_ms(reps, run_homes, &w);
	double d = best_ms(reps, run_decide, &w);
	double again = best_ms(reps, run_decide_again, &w);
	double pair_ns = h * 1e6 / ((double)nk * nm);
	printf("%8u %9u %10.2f %10.2f %10.2f %10.3f %8.2fx %8.2fx %9.3f\n", nm, nk, b, h, d, again, d / (b + h),
	       d / h, pair_ns);
	printf("           (decision: %d action(s), status %s)\n", decided, pl_status_name(last_info.status));
	drop(&w);
}

static void route_bench(void)
{
	pl_route_request r[64];
	for (int i = 0; i < 64; i++) {
		pl_route_request_init(&r[i]);
		r[i].answer = (uint32_t)(i & 1);
		r[i].owner_known = (uint32_t)((i >> 1) & 1);
		r[i].forwarded = (uint32_t)((i >> 2) & 1);
		r[i].body = (uint32_t)((i >> 3) & 3);
	}
	const uint32_t n = 20000000;
	double best = 1e30, base = 1e30;
	for (int rep = 0; rep < 5; rep++) {
		uint64_t acc = 0, t0 = bench_now();
		for (uint32_t i = 0; i < n; i++) {
			pl_route_verdict v;
			pl_route_decide(&r[i & 63], &v, NULL);
			acc += v.verdict;
		}
		double ns = (double)(bench_now() - t0) / n;
		best = ns < best ? ns : best;
		/* baseline: reading the same request fields */
		t0 = bench_now();
		for (uint32_t i = 0; i < n; i++)
			acc += r[i & 63].answer ^ r[i & 63].body;
		ns = (double)(bench_now() - t0) / n;
		base = ns < base ? ns : base;
		bench_keep(acc);
	}
	/* who owns a key, 1,000 members, ring homes filled */
	fworld w;
	build(&w, 1000, 100000);
	pl_view *v = view(&w);
	uint32_t *own = malloc(w.nk * sizeof *own);
	pl_fleet_owners(v, own, w.nk, NULL);
	double look;
	uint64_t acc = 0;
	BENCH_BEST_OF(look, 3, w.nk, {
		for (uint32_t i = 0; i < w.nk; i++) {
			pl_route_owner o;
			pl_route_lookup(v, w.keys[i], strlen(w.keys[i]), 0, &o, NULL);
			acc += o.owner;
		}
	});
	bench_keep(acc);
	printf("\n== routing: ns per call, best of 5\n");
	printf("  pl_route_decide      %8.2f ns  (%.1fx a read of the request's fields, %.2f ns)\n", best,
	       best / base, base);
	printf("  pl_route_lookup      %8.2f ns  (100,000 shards over 1,000 members, homes filled: a key "
	       "lookup, O(log n))\n", look);
	free(own);
	drop(&w);
}

void bench_fleet(void)
{
	printf("\n== fleet: one count-balance decision, view build included (ms, best of runs)\n");
	printf("%8s %9s %10s %10s %10s %10s %9s %9s %9s\n", "members", "shards", "build", "top-1 all", "decide",
	       "2nd decide", "/build+1", "/top-1", "ns/pair");
	one_size(64, 4096, 7);
	one_size(1000, 1000000, 2);
	printf("(decide = view build + every shard's ring home + the decision; \"2nd decide\" is a\n"
	       " decision on a view whose homes a first call filled; /build+1 and /top-1 are decide\n"
	       " over the build plus the top-1 of all shards, and over the top-1 alone)\n");
	route_bench();
	printf("  peak memory %ld KiB\n", bench_peak_kib());
}
