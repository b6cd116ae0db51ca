/*
 * broker_replica.c - one broker replica-balance decision on 1,000,000 shards
 * over 1,000 members and 10,000 streams (RF 3), as a ratio against a plain
 * pass over the shards' replica arrays in the same run.
 *
 * The layout: stream i's 100 shards are led by members 7i .. 7i+99 and
 * replicated on 7i+j, 7i+j+100 and 7i+j+200 (mod 1,000), so every stream
 * holds one replica on each of 300 members and every member holds 3,000
 * replicas and leads 1,000: leaders and replicas balanced, per stream and in
 * total. Then one follower of the last stream in id order moves onto a
 * member that already holds one of it: that stream wants a replica move,
 * found after every leader scope and every other stream's replica scope was
 * found balanced. The decision is one pl_broker_plan() on a built view (the
 * view build is timed apart, and is bench_view's concern).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

void bench_broker_replica(void)
{
	const uint32_t nm = 1000, ns = 10000, per = 100, nk = ns * per;
	printf("\n== broker: one replica-balance decision, %u shards, %u members, %u streams, RF 3 (best of 5)\n", nk,
	       nm, ns);
	char (*mid)[16] = malloc(nm * sizeof *mid);
	char (*sid)[16] = malloc(ns * sizeof *sid);
	char (*key)[20] = malloc((size_t)nk * sizeof *key);
	pl_member *m = calloc(nm, sizeof *m);
	pl_stream *s = calloc(ns, sizeof *s);
	pl_shard *k = calloc(nk, sizeof *k);
	if (!mid || !sid || !key || !m || !s || !k) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	for (uint32_t i = 0; i < nm; i++) {
		int n = snprintf(mid[i], sizeof mid[i], "broker-%04u", i);
		m[i].id = (pl_bytes){mid[i], (uint64_t)n};
		m[i].weight = 1;
	}
	for (uint32_t i = 0; i < ns; i++) {
		int n = snprintf(sid[i], sizeof sid[i], "stream-%05u", i);
		s[i].id = (pl_bytes){sid[i], (uint64_t)n};
	}
	for (uint32_t i = 0; i < ns; i++)
		for (uint32_t j = 0; j < per; j++) {
			uint32_t x = i * per + j;
			int n = snprintf(key[x], sizeof key[x], "stream-%05u/%03u", i, j);
			k[x].key = (pl_bytes){key[x], (uint64_t)n};
			k[x].stream = i;
			k[x].moving_to = PL_NONE;
			k[x].replica_count = 3;
			for (uint32_t r = 0; r < 3; r++)
				k[x].replicas[r] = (7 * i + j + 100 * r) % nm;
			k[x].leader = k[x].replicas[0];
		}
	/* The last stream's first shard: its second replica onto the member
	 * that leads the stream's second shard. */
	uint32_t last = (ns - 1) * per;
	k[last].replicas[1] = k[last + 1].replicas[0];
	pl_snapshot snap = {.version = PL_SNAPSHOT_VERSION, .members = m, .streams = s, .shards = k,
			.n_members = nm, .n_streams = ns, .n_shards = nk};
	size_t size = pl_view_size(&snap);
	void *mem = malloc(size);
	if (!mem) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	double base = 1e30, dec = 1e30, view = 1e30;
	pl_action out[16], first;
	pl_plan_info info;
	int written = 0;
	memset(&first, 0, sizeof first);
	for (int run = 0; run < 5; run++) {
		uint64_t t0 = bench_now(), acc = 0;
		for (uint32_t x = 0; x < nk; x++)
			for (uint32_t r = 0; r < k[x].replica_count; r++)
				acc += k[x].replicas[r];
		bench_keep(acc);
		uint64_t t1 = bench_now();
		pl_view *v;
		if (pl_view_init(&v, mem, size, &snap, NULL, NULL) != 0) {
			fprintf(stderr, "bench: view init failed\n");
			exit(1);
		}
		uint64_t t2 = bench_now();
		written = pl_broker_plan(v, &cfg, out, 16, &info, NULL);
		uint64_t t3 = bench_now();
		double b = (double)(t1 - t0) / 1e6, w = (double)(t2 - t1) / 1e6, d = (double)(t3 - t2) / 1e6;
		base = b < base ? b : base;
		view = w < view ? w : view;
		dec = d < dec ? d : dec;
		if (written > 0)
			first = out[0];
	}
	char say[512] = "no move";
	if (written > 0)
		pl_action_explain(&snap, &first, say, sizeof say);
	printf("base (one pass over the replica arrays) %.2f ms; view %.1f ms; decision %.2f ms, %d action%s, %s: %s\n",
	       base, view, dec, written, written == 1 ? "" : "s", pl_status_name(info.status), say);
	double ratio = dec / base;
	int moved = written == 1 && first.kind == PL_ACTION_MOVE_REPLICA && first.reason == PL_REASON_REPLICA_STREAM_SKEW;
	printf("replica-balance decision on 1,000,000 shards / 1,000 members / 10,000 streams, RF 3: %.2fx (target 4x) %s\n",
	       ratio, ratio <= 4.0 && moved ? "ok" : "MISSED");
	free(mem);
	free(mid);
	free(sid);
	free(key);
	free(m);
	free(s);
	free(k);
}
