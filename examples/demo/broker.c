/*
 * broker.c - the seed's benchmark: three brokers, RF 3, four streams and a
 * cache, perf-quorum's twelve leaders at 1/1/10 while the totals read
 * 21/21/19. First what counting totals alone does (nothing), then the
 * broker policy one move at a time, each with its sentence, and the
 * per-stream charts before and after.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"

#define NM 3
#define NS 5

static const char *const member_ids[NM] = {"b0", "b1", "b2"};
static const char *const stream_ids[NS] = {"perf-quorum", "orders", "events", "metrics", "cache"};
/* Leaders per member of each stream, as the benchmark found them. */
static const uint32_t start[NS][NM] = {{1, 1, 10}, {5, 5, 2}, {5, 5, 2}, {4, 4, 4}, {6, 6, 1}};

typedef struct world {
	pl_member m[NM];
	pl_stream s[NS];
	pl_shard k[64];
	char keys[64][24];
	uint32_t nk;
	pl_snapshot snap;
} world;

static void build(world *w)
{
	memset(w, 0, sizeof *w);
	for (uint32_t i = 0; i < NM; i++)
		w->m[i].id = (pl_bytes){member_ids[i], strlen(member_ids[i])};
	for (uint32_t s = 0; s < NS; s++) {
		w->s[s].id = (pl_bytes){stream_ids[s], strlen(stream_ids[s])};
		uint32_t n = 0;
		for (uint32_t m = 0; m < NM; m++)
			for (uint32_t c = 0; c < start[s][m]; c++, n++) {
				pl_shard *k = &w->k[w->nk];
				int len = snprintf(w->keys[w->nk], sizeof w->keys[w->nk], "%s/%02u", stream_ids[s], n);
				k->key = (pl_bytes){w->keys[w->nk], (uint64_t)len};
				k->stream = s;
				k->leader = m;
				k->moving_to = PL_NONE;
				k->replica_count = NM; /* RF 3 on three brokers: everyone follows */
				for (uint32_t r = 0; r < NM; r++)
					k->replicas[r] = (m + r) % NM;
				w->nk++;
			}
	}
	w->snap = (pl_snapshot){.version = PL_SNAPSHOT_VERSION, .members = w->m, .streams = w->s,
			.shards = w->k, .n_members = NM, .n_streams = NS, .n_shards = w->nk};
}

static void chart(const pl_view *v, const char *when)
{
	printf("%s (| marks each member's ceiling for the stream):\n", when);
	for (uint32_t s = 0; s < NS; s++) {
		printf(" %s\n", stream_ids[s]);
		for (uint32_t m = 0; m < NM; m++) {
			pl_tally t;
			pl_view_stream_tally(v, s, m, &t);
			demo_bar(member_ids[m], t.leaders, t.ceiling, 12);
		}
	}
	printf(" totals:");
	for (uint32_t m = 0; m < NM; m++) {
		pl_tally t;
		pl_view_member_tally(v, m, &t);
		printf(" %s %u%s", member_ids[m], t.leaders, m + 1 < NM ? "," : "");
	}
	printf("\n\n");
}

int demo_broker(void)
{
	world w;
	void *mem = NULL;
	build(&w);
	demo_title("Broker leaders per stream: the 1/1/10 stream beside totals of 21/21/19");
	pl_view *v = demo_view(&w.snap, PL_SCORER_XXH3, &mem);
	chart(v, "Before");

	/* What counting only the totals does: the seed's placement before the fix. */
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	cfg.stream_balance = 0;
	pl_action out[64];
	pl_plan_info info;
	int n = pl_broker_dry_run(v, &cfg, out, 64, &info, NULL, NULL);
	if (n < 0) {
		printf("dry run failed: %s\n", pl_strerror(n));
		return 1;
	}
	pl_tally q;
	pl_view_stream_tally(v, 0, 2, &q);
	printf("Counting totals only (stream_balance 0): %d move%s, and perf-quorum still has %u leaders on b2:\n",
	       n, n == 1 ? "" : "s", q.leaders);
	for (int i = 0; i < n; i++)
		demo_explain(&w.snap, &out[i], (uint32_t)i + 1);

	/* The broker policy, one move per tick as configured by default. */
	v = demo_view(&w.snap, PL_SCORER_XXH3, &mem);
	pl_broker_config_init(&cfg);
	printf("\nPer stream (the default), one move at a time:\n");
	uint32_t step = 0;
	for (;;) {
		n = pl_broker_plan(v, &cfg, out, 64, &info, NULL);
		if (n < 0) {
			printf("plan failed: %s\n", pl_strerror(n));
			return 1;
		}
		if (n == 0)
			break;
		for (int i = 0; i < n; i++)
			demo_explain(&w.snap, &out[i], ++step);
		pl_view_settle(v); /* the move finished; next tick */
	}
	printf("  then: %s\n\n", pl_status_name(info.status));
	chart(v, "After");
	int rc = 0;
	for (uint32_t m = 0; m < NM; m++) {
		pl_view_stream_tally(v, 0, m, &q);
		rc |= q.leaders != 4;
	}
	if (rc)
		printf("perf-quorum did not end 4/4/4\n");
	free(mem);
	return rc;
}
