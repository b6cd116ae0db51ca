/*
 * broker_dry.c - issue 23: the whole broker dry run from a 10%-skewed start,
 * and one tick's decision on it, on 1,000,000 shards over 1,000 members and
 * 10,000 streams of 100 (RF 3), each as a ratio against the baseline
 * measured in the same run: one plain pass that reads every shard's leader
 * and replicas (bench_big_pass, broker.c's "base").
 *
 * The layout is broker.c's balanced one (bench_big_build: stream i's shard j
 * led by member 7i + j mod 1,000, replicated on the next two) with a skew:
 * every 10th shard of each stream (shards 0, 10, ..., 90: 100,000 in all) is
 * led by broker-(i mod 100), which takes the old leader's replica (or only
 * the leadership, when it holds one of the shard already). Each stream then
 * has one member leading 10 or 11 of its 100 shards (ceiling 1), and in total
 * broker-0000 .. broker-0099 lead 1,900 each and the other 900 members 900
 * (share 1,000).
 *
 * Every other count starts within its bounds: bench_big_build's replicas
 * sit one per member of each stream, so the replicas over their stream's
 * ceiling are the skew's own (the hot member's, where it took the old
 * leader's). The run evens leaders and replicas (replica_balance is on in
 * PL_BROKER_CONFIG_INIT) with max_moves 256, and is run whole: it prints the
 * actions, ticks and copies beside the lower bounds (a copy per replica over
 * its ceiling, a leadership change per leader over it).
 *
 * Allocations inside the library calls are counted by broker.c's malloc
 * wrapper (bench_allocs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define DECISION_TARGET 3.0 /* issue 23: one tick's decision in at most 3 passes */
#define DRY_TARGET 20.0	    /* issue 23: the whole dry run in at most 20 passes */

/* Every 10th shard of stream i led by broker-(i mod 100), with the old
 * leader's replica unless it holds one already. */
static void skew(bench_big *b)
{
	for (uint32_t x = 0; x < b->nk; x += 10) {
		pl_shard *k = &b->k[x];
		uint32_t hot = k->stream % 100, held = 0;
		for (uint32_t r = 0; r < k->replica_count; r++)
			held |= k->replicas[r] == hot;
		if (!held)
			for (uint32_t r = 0; r < k->replica_count; r++)
				if (k->replicas[r] == k->leader)
					k->replicas[r] = hot;
		k->leader = hot;
	}
}

/* What the view holds now, against the bounds: leaders and replicas over
 * their stream's ceiling (summed over streams and members), the most leaders
 * one member has of one stream, and the leaders' totals. Read through the
 * view (pl_view_shard_state, pl_view_stream_tally, pl_view_member_tally),
 * outside every timing. Every member is eligible with weight 1, so a
 * stream's bounds are the same on every member: its leaders' ceiling is
 * read for member 0, its replicas' is their count over the members, rounded
 * up. */
typedef struct excess {
	uint64_t leaders, replicas;
	uint32_t stream_max, stream_ceiling, total_max, total_min, share;
} excess;

static excess count_excess(const pl_view *v, const bench_big *b, uint32_t per)
{
	excess e;
	memset(&e, 0, sizeof e);
	e.total_min = UINT32_MAX;
	uint32_t *lead = calloc(b->nm, sizeof *lead), *rep = calloc(b->nm, sizeof *rep);
	uint32_t *total = calloc(b->nm, sizeof *total);
	if (!lead || !rep || !total) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	for (uint32_t i = 0; i < b->ns; i++) {
		pl_shard_state st;
		pl_tally t;
		uint32_t reps = 0;
		for (uint32_t j = 0; j < per; j++) {
			pl_view_shard_state(v, i * per + j, &st);
			lead[st.leader]++;
			total[st.leader]++;
			for (uint32_t r = 0; r < st.replica_count; r++)
				rep[st.replicas[r]]++;
			reps += st.replica_count;
		}
		pl_view_stream_tally(v, i, 0, &t);
		uint32_t rceil = (reps + b->nm - 1) / b->nm;
		e.stream_ceiling = t.ceiling > e.stream_ceiling ? t.ceiling : e.stream_ceiling;
		/* Second walk: read each member's counts once, and clear them. */
		for (uint32_t j = 0; j < per; j++) {
			pl_view_shard_state(v, i * per + j, &st);
			uint32_t m = st.leader;
			e.stream_max = lead[m] > e.stream_max ? lead[m] : e.stream_max;
			e.leaders += lead[m] > t.ceiling ? lead[m] - t.ceiling : 0;
			lead[m] = 0;
			for (uint32_t r = 0; r < st.replica_count; r++) {
				uint32_t q = st.replicas[r];
				e.replicas += rep[q] > rceil ? rep[q] - rceil : 0;
				rep[q] = 0;
			}
		}
	}
	for (uint32_t m = 0; m < b->nm; m++) {
		pl_tally t;
		pl_view_member_tally(v, m, &t);
		e.share = t.ceiling;
		e.total_max = total[m] > e.total_max ? total[m] : e.total_max;
		e.total_min = total[m] < e.total_min ? total[m] : e.total_min;
	}
	free(lead);
	free(rep);
	free(total);
	return e;
}

static pl_view *view_of(bench_big *b)
{
	pl_view *v;
	if (pl_view_init(&v, b->mem, b->size, &b->snap, NULL, NULL) != 0) {
		fprintf(stderr, "bench: view init failed\n");
		exit(1);
	}
	return v;
}

static uint32_t copies_in(const pl_action *a, uint32_t n)
{
	uint32_t c = 0;
	for (uint32_t i = 0; i < n; i++)
		c += (a[i].flags & PL_ACTION_STAGE_FIRST) != 0;
	return c;
}

static uint32_t kind_in(const pl_action *a, uint32_t n, uint32_t kind)
{
	uint32_t c = 0;
	for (uint32_t i = 0; i < n; i++)
		c += a[i].kind == kind;
	return c;
}

/* One tick's decision, best of 5: the base pass, the view build, then one
 * pl_broker_plan (max_moves 256) on the fresh view. Returns the best base. */
static double decision(bench_big *b, const pl_broker_config *cfg, pl_action *out)
{
	double base = 1e30, view = 1e30, dec = 1e30;
	unsigned long allocs = 0;
	pl_plan_info info;
	int n = 0;
	for (int run = 0; run < 5; run++) {
		uint64_t t0 = bench_now();
		bench_keep(bench_big_pass(b));
		uint64_t t1 = bench_now();
		unsigned long a0 = bench_allocs();
		pl_view *v = view_of(b);
		uint64_t t2 = bench_now();
		n = pl_broker_plan(v, cfg, out, PL_BROKER_MAX_MOVES, &info, NULL);
		uint64_t t3 = bench_now();
		allocs += bench_allocs() - a0;
		if (n < 0) {
			fprintf(stderr, "bench: pl_broker_plan: %s\n", pl_strerror(n));
			exit(1);
		}
		double bb = (double)(t1 - t0) / 1e6, w = (double)(t2 - t1) / 1e6, d = (double)(t3 - t2) / 1e6;
		base = bb < base ? bb : base;
		view = w < view ? w : view;
		dec = d < dec ? d : dec;
	}
	double r = dec / base;
	printf("base %.2f ms (best of 5)\n", base);
	printf("one tick's decision (pl_broker_plan, max_moves 256), best of 5, view build excluded and included:\n");
	printf("  decision %.2f ms = %.2fx base (target %.0fx: %s); with the view (%.1f ms) %.2f ms = %.2fx base\n", dec, r,
	       DECISION_TARGET, r <= DECISION_TARGET ? "ok" : "over", view, view + dec, (view + dec) / base);
	printf("  %d actions, %u copies; allocs %lu (view builds and decisions, 5 runs); %s\n", n,
	       copies_in(out, (uint32_t)n), allocs, pl_status_name(info.status));
	return base;
}

/* The decision alone (make bench BENCH=broker-tick): the section below
 * without its whole dry run, to profile a tick. */
void bench_broker_tick(void)
{
	printf("\n== broker: one tick's decision from a 10%%-skewed start (issue 23)\n");
	bench_big b;
	bench_big_build(&b, 1000, 10000, 100, 3);
	skew(&b);
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	cfg.max_moves = PL_BROKER_MAX_MOVES;
	pl_action *out = malloc(PL_BROKER_MAX_MOVES * sizeof *out);
	if (!out) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	decision(&b, &cfg, out);
	free(out);
	bench_big_drop(&b);
}

void bench_broker_dry(void)
{
	const uint32_t per = 100;
	printf("\n== broker: the whole dry run from a 10%%-skewed start, and one tick's decision (issue 23)\n");
	printf("1,000,000 shards, 1,000 members, 10,000 streams of 100, RF 3, max_moves 256; ratios against one plain\n"
	       "pass over every shard's leader and replicas (base)\n");
	bench_big b;
	bench_big_build(&b, 1000, 10000, per, 3);
	skew(&b);
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	cfg.max_moves = PL_BROKER_MAX_MOVES;

	/* Room for every action the run can write (it writes about 150,000). */
	uint32_t room = 1000000u;
	pl_action *out = malloc((size_t)room * sizeof *out);
	if (!out) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}

	pl_view *v = view_of(&b);
	excess e0 = count_excess(v, &b, per);
	printf("skew: every 10th shard of stream i (shards 0, 10, ..., 90; 100,000) led by broker-(i mod 100), with the\n"
	       "old leader's replica: a member leads up to %u of one stream (ceiling %u); totals %u to %u (share %u);\n"
	       "over their stream's ceiling: %llu leaders, %llu replicas\n",
	       e0.stream_max, e0.stream_ceiling, e0.total_min, e0.total_max, e0.share, (unsigned long long)e0.leaders,
	       (unsigned long long)e0.replicas);

	double base = decision(&b, &cfg, out);

	v = view_of(&b);
	pl_plan_info info;
	uint32_t ticks = 0;
	unsigned long a0 = bench_allocs();
	uint64_t t0 = bench_now();
	int n = pl_broker_dry_run(v, &cfg, out, room, &info, &ticks, NULL);
	double ms = bench_ms_since(t0);
	unsigned long allocs = bench_allocs() - a0;
	if (n < 0) {
		fprintf(stderr, "bench: pl_broker_dry_run: %s\n", pl_strerror(n));
		exit(1);
	}
	uint32_t copies = copies_in(out, (uint32_t)n), leaders = kind_in(out, (uint32_t)n, PL_ACTION_MOVE_LEADER),
		 replicas = kind_in(out, (uint32_t)n, PL_ACTION_MOVE_REPLICA);
	if (info.status == PL_STATUS_FULL) {
		fprintf(stderr, "bench: the dry run wrote more than %u actions\n", room);
		exit(1);
	}
	printf("the whole dry run (pl_broker_dry_run, max_moves 256):\n");
	printf("  %d actions (%u leader moves, %u replica moves, %u other), %u ticks, %u copies; allocs %lu; %s\n", n,
	       leaders, replicas, (uint32_t)n - leaders - replicas, ticks, copies, allocs, pl_status_name(info.status));
	double rate = (double)n / (ms / 1e3), per_tick = ticks ? ms / ticks : 0.0;
	printf("  %.0f ms = %.0fx base (target %.0fx: %s); %.0f actions/s, %.1f ms per tick = %.2fx base per tick\n", ms,
	       ms / base, DRY_TARGET, ms / base <= DRY_TARGET ? "ok" : "over", rate, per_tick, per_tick / base);
	excess e1 = count_excess(v, &b, per);
	printf("  lower bounds: %llu copies, %llu leadership changes; left over the ceilings: %llu leaders, %llu\n"
	       "  replicas; totals %u to %u\n",
	       (unsigned long long)e0.replicas, (unsigned long long)e0.leaders, (unsigned long long)e1.leaders,
	       (unsigned long long)e1.replicas, e1.total_min, e1.total_max);
	free(out);
	bench_big_drop(&b);
}
