/*
 * view.c - building a view of 1,000,000 shards over 1,000 members and 10,000
 * streams (RF 3), beside a baseline in the same run: one pass that reads
 * every key byte and replica of the snapshot, the least any view build must
 * do. Keys like "topic-00042/0017" first, then the same shards under keys of
 * other shapes: UUIDs (32 random hex digits and dashes), "stream/" and 8 hex
 * digits, a 16-digit hex stream hash and a partition, and topic names of
 * five lengths with their partitions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The fastest of three baseline passes and of three fresh builds of snap, in
 * ms; 0 when the build fails. */
static int time_build(const pl_snapshot *snap, const pl_view_options *opt, void *mem, size_t size, double *base,
		      double *view)
{
	const pl_shard *k = snap->shards;
	uint64_t acc = 0;
	*base = *view = 1e30;
	for (int rep = 0; rep < 3; rep++) {
		uint64_t t0 = bench_now();
		for (uint32_t i = 0; i < snap->n_shards; i++) {
			const unsigned char *p = (const unsigned char *)k[i].key.ptr;
			for (uint64_t j = 0; j < k[i].key.len; j++)
				acc += p[j];
			for (uint32_t r = 0; r < k[i].replica_count; r++)
				acc += k[i].replicas[r];
			acc += k[i].leader + k[i].stream;
		}
		double ms = bench_ms_since(t0);
		*base = ms < *base ? ms : *base;
		pl_view *v;
		t0 = bench_now();
		int rc = pl_view_init(&v, mem, size, snap, opt, NULL);
		ms = bench_ms_since(t0);
		if (rc) {
			printf("view init failed: %s\n", pl_strerror(rc));
			return 0;
		}
		*view = ms < *view ? ms : *view;
	}
	bench_keep(acc);
	return 1;
}

void bench_view(void)
{
	const uint32_t nm = 1000, ns = 10000, nk = 1000000, rf = 3;
	printf("\n== view build: %u shards, %u members, %u streams, RF %u\n", nk, nm, ns, rf);
	char (*ids)[16] = malloc(nm * sizeof *ids);
	char (*sids)[16] = malloc(ns * sizeof *sids);
	char (*keys)[24] = malloc(nk * sizeof *keys);
	char (*uuids)[48] = malloc(nk * sizeof *uuids); /* the other shapes' keys */
	pl_member *m = calloc(nm, sizeof *m);
	pl_stream *st = calloc(ns, sizeof *st);
	pl_shard *k = calloc(nk, sizeof *k);
	uint64_t rng = 42;
	for (uint32_t i = 0; i < nm; i++) {
		int n = snprintf(ids[i], sizeof ids[i], "broker-%04u", i);
		m[i].id = (pl_bytes){ids[i], (uint64_t)n};
		m[i].weight = 1;
	}
	for (uint32_t i = 0; i < ns; i++) {
		int n = snprintf(sids[i], sizeof sids[i], "topic-%05u", i);
		st[i].id = (pl_bytes){sids[i], (uint64_t)n};
	}
	for (uint32_t i = 0; i < nk; i++) {
		uint32_t s = i % ns;
		int n = snprintf(keys[i], sizeof keys[i], "topic-%05u/%04u", s, i / ns);
		k[i].key = (pl_bytes){keys[i], (uint64_t)n};
		k[i].stream = s;
		k[i].moving_to = PL_NONE;
		rng = rng * 6364136223846793005u + 1442695040888963407u;
		uint32_t a = (uint32_t)(rng >> 33) % nm;
		k[i].replica_count = rf;
		for (uint32_t r = 0; r < rf; r++)
			k[i].replicas[r] = (a + r * 7) % nm;
		k[i].leader = a;
	}
	pl_snapshot snap = {.version = PL_SNAPSHOT_VERSION, .members = m, .streams = st, .shards = k,
			.n_members = nm, .n_streams = ns, .n_shards = nk};
	/* Room for RF 3 in each shard's state (the default is PL_MAX_REPLICAS). */
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	opt.max_replicas = rf;
	size_t size = pl_view_size_opt(&snap, &opt), size_default = pl_view_size(&snap);
	void *mem = malloc(size);
	memset(mem, 0, size); /* fault the pages in before timing */
	long rss0 = bench_peak_kib();

	double best_base, best_view;
	if (!time_build(&snap, &opt, mem, size, &best_base, &best_view))
		return;
	printf("  baseline pass over the snapshot   %8.1f ms\n", best_base);
	printf("  pl_view_init                      %8.1f ms   (%.1fx the baseline)\n", best_view,
	       best_view / best_base);
	printf("  view memory                       %8.1f MiB  (%.1f bytes per shard with max_replicas %u; %.1f with the default %u)\n",
	       (double)size / 1048576.0, (double)size / nk, rf, (double)size_default / nk, PL_MAX_REPLICAS);
	printf("view-build-fresh-vs-pass: %.1fx (target <= 5.0x) %s\n", best_view / best_base,
	       best_view / best_base <= 5.0 ? "ok" : "MISSED");
	printf("view-bytes-per-shard: %.1f (target <= 56 at RF 3) %s\n", (double)size / nk,
	       (double)size / nk <= 56.0 ? "ok" : "MISSED");
	printf("  peak RSS %ld MiB (before the builds: %ld MiB; the snapshot itself is %.0f MiB)\n",
	       bench_peak_kib() / 1024, rss0 / 1024, (double)nk * sizeof *k / 1048576.0);

	/* The same shards under keys of other shapes: the same view size (the
	 * keys are not in the view); each build against its own pass. */
	for (int shape = 0; shape < 4; shape++) {
		static const char *const names[] = {"uuid", "hex", "hex-prefix", "mixed-length"};
		static const char *const words[] = {"a", "billing", "clickstream-events", "payments.v2",
						    "x-ray-telemetry-raw-eu-west-1"};
		for (uint32_t i = 0; i < nk; i++) {
			char *p = uuids[i];
			uint32_t s = i % ns, part = i / ns;
			int n = 36;
			if (shape == 0) { /* 8-4-4-4-12 random hex digits */
				static const char hex[] = "0123456789abcdef";
				for (int j = 0; j < 36; j++) {
					rng = rng * 6364136223846793005u + 1442695040888963407u;
					p[j] = j == 8 || j == 13 || j == 18 || j == 23 ? '-' : hex[(rng >> 60) & 15];
				}
			} else if (shape == 1) { /* stream/ and 8 hex digits: an odd multiplier is a bijection */
				n = snprintf(p, sizeof uuids[i], "stream/%08x", (unsigned)(i * 2654435761u));
			} else if (shape == 2) { /* a 64-bit stream hash in hex, then the partition */
				uint64_t h = (s + 1) * UINT64_C(0x9e3779b97f4a7c15);
				h ^= h >> 29;
				n = snprintf(p, sizeof uuids[i], "%016llx-%04u", (unsigned long long)h, part);
			} else { /* topic names of five lengths */
				n = snprintf(p, sizeof uuids[i], "%s-%u/%u", words[s % 5], s, part);
			}
			k[i].key = (pl_bytes){uuids[i], (uint64_t)n};
		}
		double ubase, uview;
		if (time_build(&snap, &opt, mem, size, &ubase, &uview)) {
			printf("  %-12s keys (e.g. %.*s): pass %.1f ms, pl_view_init %.1f ms\n", names[shape],
			       (int)k[nk - 1].key.len, k[nk - 1].key.ptr, ubase, uview);
			printf("view-build-%s-vs-pass: %.1fx (target <= 5.0x) %s\n", names[shape], uview / ubase,
			       uview / ubase <= 5.0 ? "ok" : "MISSED");
		}
	}
	free(ids);
	free(sids);
	free(keys);
	free(uuids);
	free(m);
	free(st);
	free(k);
	free(mem);
}
