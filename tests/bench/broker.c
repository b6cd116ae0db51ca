/*
 * broker.c - one broker rebalance decision, view build included, on
 * 1,000,000 shards over 1,000 members and 10,000 streams (RF 3), and on
 * 4,096 shards over 3 members, and on 2,000 over 16 members where the
 * leader targets' flow (lib/broker/broker_flow.c) runs near its bound. Beside
 * them, in the same run, the baseline: one plain pass that reads every
 * shard's leader and replicas.
 *
 * Three layouts of the big cluster, each with every stream led 100 shards on
 * 100 different members (floor 0, ceiling 1) and totals of 1,000 each:
 *  - balanced: the steady state, nothing to do (the whole scan, no move);
 *  - stream: the last stream in id order led 5 on one member (a stream move
 *    found after scanning every other stream);
 *  - cluster: two shards' leaders moved so the totals are 1,002/998 while
 *    every stream stays within its bounds (the cluster pass, after the
 *    stream pass found nothing).
 * Allocations inside the library call are counted by wrapping malloc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* ---- counting allocations (glibc: the real ones are __libc_*) ------------ */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static unsigned long allocs;

void *malloc(size_t n);
void *calloc(size_t n, size_t m);
void *realloc(void *p, size_t n);
void *malloc(size_t n)
{
	allocs++;
	return __libc_malloc(n);
}
void *calloc(size_t n, size_t m)
{
	allocs++;
	return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n)
{
	allocs++;
	return __libc_realloc(p, n);
}

unsigned long bench_allocs(void)
{
	return allocs;
}

void bench_big_build(bench_big *b, uint32_t nm, uint32_t ns, uint32_t per, uint32_t rf)
{
	b->nm = nm;
	b->ns = ns;
	b->nk = ns * per;
	b->stride = per % nm ? per % nm : 1;
	b->mid = calloc(nm, sizeof *b->mid);
	b->sid = calloc(ns, sizeof *b->sid);
	b->key = calloc(b->nk, sizeof *b->key);
	b->m = calloc(nm, sizeof *b->m);
	b->s = calloc(ns, sizeof *b->s);
	b->k = calloc(b->nk, sizeof *b->k);
	if (!b->mid || !b->sid || !b->key || !b->m || !b->s || !b->k) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	for (uint32_t i = 0; i < nm; i++) {
		int n = snprintf(b->mid[i], sizeof b->mid[i], "broker-%04u", i);
		b->m[i].id = (pl_bytes){b->mid[i], (uint64_t)n};
		b->m[i].weight = 1;
	}
	for (uint32_t i = 0; i < ns; i++) {
		int n = snprintf(b->sid[i], sizeof b->sid[i], "stream-%05u", i);
		b->s[i].id = (pl_bytes){b->sid[i], (uint64_t)n};
	}
	for (uint32_t i = 0; i < ns; i++)
		for (uint32_t j = 0; j < per; j++) {
			uint32_t x = i * per + j;
			int n = snprintf(b->key[x], sizeof b->key[x], "stream-%05u/%03u", i, j);
			pl_shard *k = &b->k[x];
			k->key = (pl_bytes){b->key[x], (uint64_t)n};
			k->stream = i;
			k->leader = (i * 7 + j) % nm;
			k->moving_to = PL_NONE;
			k->replica_count = rf < nm ? rf : nm;
			for (uint32_t r = 0; r < k->replica_count; r++)
				k->replicas[r] = (k->leader + r * b->stride) % nm;
		}
	b->snap = (pl_snapshot){.version = PL_SNAPSHOT_VERSION, .members = b->m, .streams = b->s,
			.shards = b->k, .n_members = nm, .n_streams = ns, .n_shards = b->nk};
	b->size = pl_view_size(&b->snap);
	b->mem = malloc(b->size);
	if (!b->mem) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
}

void bench_big_drop(bench_big *b)
{
	free(b->mid);
	free(b->sid);
	free(b->key);
	free(b->m);
	free(b->s);
	free(b->k);
	free(b->mem);
}

uint64_t bench_big_pass(const bench_big *b)
{
	uint64_t acc = 0;
	for (uint32_t x = 0; x < b->nk; x++) {
		const pl_shard *k = &b->k[x];
		acc += k->leader + k->stream;
		for (uint32_t j = 0; j < k->replica_count; j++)
			acc += k->replicas[j];
	}
	return acc;
}

void bench_big_lead(bench_big *b, uint32_t x, uint32_t m)
{
	pl_shard *k = &b->k[x];
	k->leader = m;
	for (uint32_t r = 0; r < k->replica_count; r++)
		k->replicas[r] = (m + r * b->stride) % b->nm;
}

typedef struct timing {
	double view_ms, plan_ms, base_ms;
	int written;
	uint32_t status;
	unsigned long allocs;
	pl_action first;
} timing;

/* Best of `runs`: the view build, then one decision on it. */
static timing measure(bench_big *b, int runs)
{
	timing t;
	memset(&t, 0, sizeof t);
	t.view_ms = t.plan_ms = t.base_ms = 1e30;
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	for (int r = 0; r < runs; r++) {
		uint64_t t0 = bench_now();
		bench_keep(bench_big_pass(b));
		uint64_t t1 = bench_now();
		pl_view *v;
		if (pl_view_init(&v, b->mem, b->size, &b->snap, NULL, NULL) != 0) {
			fprintf(stderr, "bench: view init failed\n");
			exit(1);
		}
		uint64_t t2 = bench_now();
		pl_action out[16];
		pl_plan_info info;
		unsigned long a0 = allocs;
		int n = pl_broker_plan(v, &cfg, out, 16, &info, NULL);
		unsigned long a1 = allocs;
		uint64_t t3 = bench_now();
		double base = (double)(t1 - t0) / 1e6, view = (double)(t2 - t1) / 1e6, plan = (double)(t3 - t2) / 1e6;
		t.base_ms = base < t.base_ms ? base : t.base_ms;
		t.view_ms = view < t.view_ms ? view : t.view_ms;
		t.plan_ms = plan < t.plan_ms ? plan : t.plan_ms;
		t.written = n;
		t.status = info.status;
		t.allocs += a1 - a0;
		if (n > 0)
			t.first = out[0];
	}
	return t;
}

static void report(const char *name, const bench_big *b, const timing *t)
{
	char say[512] = "";
	if (t->written > 0)
		pl_action_explain(&b->snap, &t->first, say, sizeof say);
	printf("%-9s %8.1f %9.2f %9.1f %9.2f %7.1fx %7.2fx %6lu  %s: %s\n", name, t->view_ms, t->plan_ms,
	       t->view_ms + t->plan_ms, t->base_ms, (t->view_ms + t->plan_ms) / t->base_ms, t->plan_ms / t->base_ms,
	       t->allocs, pl_status_name(t->status), t->written > 0 ? say : "no move");
}

/* The same cluster with sizes (1..100 MiB) and every capacity known: the
 * bytes rules' cost against the counts alone, on the balanced layout (plain:
 * its timing without sizes), with every member within its band (the rules'
 * checks alone); then one shard in 1,000 a thousand times the median, so
 * members leave their bands and the band acts (a search for an exchange). */
static void sized(bench_big *b, const timing *plain)
{
	uint64_t *size = malloc((size_t)b->nk * sizeof *size), *cap = malloc((size_t)b->nm * sizeof *cap);
	if (!size || !cap) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	uint64_t rng = 0x5eed, total = 0;
	for (uint32_t x = 0; x < b->nk; x++) {
		rng = rng * 6364136223846793005u + 1442695040888963407u;
		size[x] = ((rng >> 33) % 100 + 1) << 20;
		total += size[x] * b->k[x].replica_count;
	}
	for (uint32_t m = 0; m < b->nm; m++)
		cap[m] = total / b->nm * 4; /* a quarter full on average */
	b->snap.shard_bytes = size;
	b->snap.member_capacity = cap;
	timing t = measure(b, 5);
	report("sized", b, &t);
	printf("sizes against counts alone, the same layout, every member in its band: view %.2fx, decision "
	       "%.2fx, total %.2fx (target: at most 1.5x)\n",
	       t.view_ms / plain->view_ms, t.plan_ms / plain->plan_ms,
	       (t.view_ms + t.plan_ms) / (plain->view_ms + plain->plan_ms));
	for (uint32_t x = 0; x < b->nk; x += 1000)
		size[x] = (uint64_t)50000 << 20;
	t = measure(b, 5);
	report("heavy", b, &t);
	printf("heavy-tailed sizes, the band acting, against counts alone: total %.2fx\n",
	       (t.view_ms + t.plan_ms) / (plain->view_ms + plain->plan_ms));
	b->snap.shard_bytes = NULL;
	b->snap.member_capacity = NULL;
	free(size);
	free(cap);
}

void bench_broker(void)
{
	printf("\n== broker: one rebalance decision, view build included (best of 5)\n");
	printf("1,000,000 shards, 1,000 members, 10,000 streams, RF 3; ms, and ratios against one plain pass\n"
	       "over every shard (base)\n");
	printf("%-9s %8s %9s %9s %9s %8s %8s %6s\n", "layout", "view", "decision", "total", "base", "tot/base",
	       "dec/base", "allocs");
	bench_big b;
	bench_big_build(&b, 1000, 10000, 100, 3);
	timing t = measure(&b, 5);
	report("balanced", &b, &t);
	sized(&b, &t);
	/* The last stream led 5 on broker-0000: a stream move at the end of the scan. */
	uint32_t last = (b.ns - 1) * 100;
	for (uint32_t j = 0; j < 5; j++)
		bench_big_lead(&b, last + j, 0);
	t = measure(&b, 5);
	report("stream", &b, &t);
	for (uint32_t j = 0; j < 5; j++)
		bench_big_lead(&b, last + j, ((b.ns - 1) * 7 + j) % b.nm);
	/* Totals 1,002 on broker-0000 and 998 on broker-0001, streams in bounds:
	 * two streams where broker-0001 leads one and broker-0000 none. */
	uint32_t moved = 0;
	for (uint32_t i = 0; i < b.ns && moved < 2; i++) {
		uint32_t has0 = 0, at1 = PL_NONE;
		for (uint32_t j = 0; j < 100; j++) {
			has0 |= b.k[i * 100 + j].leader == 0;
			if (b.k[i * 100 + j].leader == 1)
				at1 = i * 100 + j;
		}
		if (!has0 && at1 != PL_NONE) {
			bench_big_lead(&b, at1, 0);
			moved++;
		}
	}
	t = measure(&b, 5);
	report("cluster", &b, &t);
	printf("view: %.1f MiB; peak resident set %.1f MiB (the snapshot's arrays and strings included)\n",
	       (double)b.size / 1048576.0, (double)bench_peak_kib() / 1024.0);
	bench_big_drop(&b);

	printf("\n== broker: one decision on 4,096 shards over 3 members (16 streams of 256), best of 200\n");
	bench_big_build(&b, 3, 16, 256, 3);
	for (uint32_t j = 0; j < 200; j++)
		bench_big_lead(&b, j, 2); /* stream 0 led mostly by one member */
	t = measure(&b, 200);
	printf("view %.1f us, decision %.1f us, total %.1f us; base %.1f us (%.1fx); allocs %lu; %s\n",
	       t.view_ms * 1e3, t.plan_ms * 1e3, (t.view_ms + t.plan_ms) * 1e3, t.base_ms * 1e3,
	       (t.view_ms + t.plan_ms) / t.base_ms, t.allocs, pl_status_name(t.status));
	bench_big_drop(&b);

	/* Every stream wants moves and has places to choose (250 on 16: floor
	 * 15, ceiling 16, 10 at the ceiling): the leader targets' flow runs near
	 * its bound (80 places x 8 streams x 16 members, a search of a few
	 * rounds each). */
	printf("\n== broker: one decision on 2,000 shards over 16 members (8 streams of 250, each led 40 on one "
	       "member), the leader targets' flow near its bound, best of 50\n");
	bench_big_build(&b, 16, 8, 250, 3);
	for (uint32_t i = 0; i < 8; i++)
		for (uint32_t j = 0; j < 40; j++)
			bench_big_lead(&b, i * 250 + j, (i * 5) % 16);
	t = measure(&b, 50);
	printf("view %.1f us, decision %.1f us, total %.1f us; base %.1f us (%.1fx); allocs %lu; %s\n",
	       t.view_ms * 1e3, t.plan_ms * 1e3, (t.view_ms + t.plan_ms) * 1e3, t.base_ms * 1e3,
	       (t.view_ms + t.plan_ms) / t.base_ms, t.allocs, pl_status_name(t.status));
	bench_big_drop(&b);
	printf("(target: the 1,000,000-shard decision with its view in 250 ms or less, no allocation)\n");
}
