/*
 * reuse.c - a tick that builds its view with the previous tick's view as a
 * hint (pl_view_options.reuse), beside baselines in the same run:
 *  - a fleet decision at 1,000,000 shards / 1,000 members, view build
 *    included, with membership unchanged and with one member joined, against
 *    one pass over the shard keys;
 *  - the view build alone at 1,000,000 shards / 1,000 members / 10,000
 *    streams (RF 3, max_replicas 3 as in view.c's fresh build), against a
 *    plain pass over the snapshot;
 *  - a broker decision at 4,096 shards / 3 members, view build included.
 * Each tick's snapshot is new arrays of structs whose id and key bytes stay
 * where they were, as a control plane that keeps its names does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct tick {
	pl_member *m;
	pl_stream *s;
	pl_shard *k;
	pl_snapshot snap;
	void *mem;
	size_t size;
	uint32_t room; /* pl_view_options.max_replicas, 0 for the default */
	pl_view *v;
} tick;

static char (*ids)[16], (*sids)[16], (*keys)[24];

/* A snapshot of nm members (the first `nm` names), ns streams, nk shards;
 * its views with a replica room of `room` (0: the default). */
static void make(tick *t, uint32_t nm, uint32_t ns, uint32_t nk, uint32_t rf, uint32_t room)
{
	memset(t, 0, sizeof *t);
	t->room = room;
	t->m = calloc(nm, sizeof *t->m);
	t->s = calloc(ns ? ns : 1, sizeof *t->s);
	t->k = calloc(nk, sizeof *t->k);
	for (uint32_t i = 0; i < nm; i++) {
		t->m[i].id = (pl_bytes){ids[i], strlen(ids[i])};
		t->m[i].weight = 1;
	}
	for (uint32_t i = 0; i < ns; i++)
		t->s[i].id = (pl_bytes){sids[i], strlen(sids[i])};
	uint64_t rng = 42;
	for (uint32_t i = 0; i < nk; i++) {
		pl_shard *k = &t->k[i];
		k->key = (pl_bytes){keys[i], strlen(keys[i])};
		k->stream = ns ? i % ns : PL_NONE;
		k->moving_to = PL_NONE;
		k->leader = PL_NONE;
		if (rf) {
			rng = rng * 6364136223846793005u + 1442695040888963407u;
			uint32_t a = (uint32_t)(rng >> 33) % nm;
			k->replica_count = rf;
			for (uint32_t r = 0; r < rf; r++)
				k->replicas[r] = (a + r * 7) % nm;
			k->leader = a;
		}
	}
	t->snap = (pl_snapshot){.version = PL_SNAPSHOT_VERSION, .members = t->m, .streams = ns ? t->s : NULL,
			.shards = t->k, .n_members = nm, .n_streams = ns, .n_shards = nk};
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	opt.max_replicas = room;
	t->size = pl_view_size_opt(&t->snap, &opt);
	t->mem = malloc(t->size);
	memset(t->mem, 0, t->size);
}

static void drop(tick *t)
{
	free(t->m);
	free(t->s);
	free(t->k);
	free(t->mem);
}

static pl_view *build(tick *t, const pl_view *reuse)
{
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	opt.reuse = reuse;
	opt.max_replicas = t->room;
	if (pl_view_init(&t->v, t->mem, t->size, &t->snap, &opt, NULL) != 0) {
		fprintf(stderr, "bench: view init failed\n");
		exit(1);
	}
	return t->v;
}

static void target(const char *name, double value, double limit, const char *unit)
{
	printf("%s: %.2f%s (target <= %.0f%s) %s\n", name, value, unit, limit, unit, value <= limit ? "ok" : "MISSED");
}

static double key_pass_ms(const tick *t, uint32_t nk)
{
	double best = 1e30;
	for (int r = 0; r < 5; r++) {
		uint64_t t0 = bench_now(), acc = 0;
		for (uint32_t i = 0; i < nk; i++) {
			const unsigned char *p = (const unsigned char *)t->k[i].key.ptr;
			for (uint64_t j = 0; j < t->k[i].key.len; j++)
				acc += p[j];
		}
		bench_keep(acc);
		double ms = bench_ms_since(t0);
		best = ms < best ? ms : best;
	}
	return best;
}

static double snapshot_pass_ms(const tick *t, uint32_t nk)
{
	double best = 1e30;
	for (int r = 0; r < 5; r++) {
		uint64_t t0 = bench_now(), acc = 0;
		for (uint32_t i = 0; i < nk; i++) {
			const pl_shard *k = &t->k[i];
			const unsigned char *p = (const unsigned char *)k->key.ptr;
			for (uint64_t j = 0; j < k->key.len; j++)
				acc += p[j];
			for (uint32_t x = 0; x < k->replica_count; x++)
				acc += k->replicas[x];
			acc += k->leader + k->stream;
		}
		bench_keep(acc);
		double ms = bench_ms_since(t0);
		best = ms < best ? ms : best;
	}
	return best;
}

/* One fleet tick on `cur` with `prev` (homes filled) as the hint. */
static double fleet_tick_ms(tick *cur, const pl_view *prev, int *written)
{
	static pl_action a[64];
	uint64_t t0 = bench_now();
	pl_view *v = build(cur, prev);
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	*written = pl_fleet_decide(v, &cfg, a, 64, NULL, NULL);
	return bench_ms_since(t0);
}

void bench_reuse(void)
{
	const uint32_t nm = 1000, ns = 10000, nk = 1000000;
	ids = malloc((nm + 1) * sizeof *ids);
	sids = malloc(ns * sizeof *sids);
	keys = malloc(nk * sizeof *keys);
	for (uint32_t i = 0; i <= nm; i++)
		snprintf(ids[i], sizeof ids[i], "broker-%04u", i);
	for (uint32_t i = 0; i < ns; i++)
		snprintf(sids[i], sizeof sids[i], "topic-%05u", i);
	for (uint32_t i = 0; i < nk; i++)
		snprintf(keys[i], sizeof keys[i], "topic-%05u/%04u", i % ns, i / ns);

	printf("\n== ticks with the previous view as a hint: %u shards, %u members\n", nk, nm);
	tick a, b, c;
	make(&a, nm, 0, nk, 0, 0);
	make(&b, nm, 0, nk, 0, 0);
	make(&c, nm + 1, 0, nk, 0, 0);
	double keyp = key_pass_ms(&a, nk);
	int w = 0;
	/* the previous tick: a fresh view whose first decision fills the homes */
	double fresh = 1e30, same = 1e30, joined = 1e30;
	for (int r = 0; r < 3; r++) {
		uint64_t t0 = bench_now();
		pl_view *pa = build(&a, NULL);
		pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
		static pl_action out[64];
		pl_fleet_decide(pa, &cfg, out, 64, NULL, NULL);
		double ms = bench_ms_since(t0);
		fresh = ms < fresh ? ms : fresh;
		ms = fleet_tick_ms(&b, pa, &w);
		same = ms < same ? ms : same;
		ms = fleet_tick_ms(&c, pa, &w);
		joined = ms < joined ? ms : joined;
	}
	printf("one pass over the keys %.1f ms; fleet tick (view + decision): fresh %.1f ms, reused %.1f ms,"
	       " one member joined %.1f ms\n",
	       keyp, fresh, same, joined);
	target("fleet-tick-reused-vs-key-pass", same / keyp, 3, "x");
	target("fleet-tick-one-joined-vs-key-pass", joined / keyp, 6, "x");
	drop(&a);
	drop(&b);
	drop(&c);

	printf("\n== view build with the previous view as a hint: %u shards, %u members, %u streams, RF 3"
	       " (max_replicas 3)\n",
	       nk, nm, ns);
	make(&a, nm, ns, nk, 3, 3); /* the room of the fresh build's section (view.c) */
	make(&b, nm, ns, nk, 3, 3);
	double snap = snapshot_pass_ms(&a, nk), vf = 1e30, vr = 1e30;
	for (int r = 0; r < 3; r++) {
		uint64_t t0 = bench_now();
		pl_view *pa = build(&a, NULL);
		double ms = bench_ms_since(t0);
		vf = ms < vf ? ms : vf;
		t0 = bench_now();
		build(&b, pa);
		ms = bench_ms_since(t0);
		vr = ms < vr ? ms : vr;
	}
	printf("plain pass over the snapshot %.1f ms; view build fresh %.1f ms, reused %.1f ms\n", snap, vf, vr);
	target("view-build-reused-vs-pass", vr / snap, 2, "x");
	drop(&a);
	drop(&b);

	printf("\n== broker tick on 4,096 shards over 3 members (16 streams of 256), best of 200\n");
	make(&a, 3, 16, 4096, 3, 0);
	make(&b, 3, 16, 4096, 3, 0);
	for (uint32_t j = 0; j < 200; j++) { /* stream 0 led mostly by one member */
		a.k[j * 16].leader = b.k[j * 16].leader = a.k[j * 16].replicas[0];
	}
	double bt = 1e30, bf = 1e30;
	pl_view *pa = build(&a, NULL);
	for (int r = 0; r < 200; r++) {
		pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
		pl_action out[16];
		uint64_t t0 = bench_now();
		pl_view *vb = build(&b, pa);
		pl_broker_plan(vb, &cfg, out, 16, NULL, NULL);
		double us = (double)(bench_now() - t0) / 1e3;
		bt = us < bt ? us : bt;
		t0 = bench_now();
		vb = build(&b, NULL);
		pl_broker_plan(vb, &cfg, out, 16, NULL, NULL);
		us = (double)(bench_now() - t0) / 1e3;
		bf = us < bf ? us : bf;
	}
	printf("view + decision: fresh %.1f us, with the previous view as a hint %.1f us\n", bf, bt);
	target("broker-tick-4096-reused", bt, 100, " us");
	drop(&a);
	drop(&b);
	free(ids);
	free(sids);
	free(keys);
}
