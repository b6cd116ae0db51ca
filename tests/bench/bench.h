/*
 * bench.h - the benchmark program (make bench). Each section is one file;
 * main.c runs them in order. Figures are printed, never asserted: the targets
 * are read off the output and reported as ratios against baselines measured
 * in the same run.
 */
#ifndef PL_BENCH_H
#define PL_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "placement.h"

/* Monotonic nanoseconds. */
uint64_t bench_now(void);
/* Peak resident set size of the process so far, in KiB. */
long bench_peak_kib(void);
/* Keep a value alive so the compiler cannot drop the work that made it. */
void bench_keep(uint64_t x);

/* Milliseconds since t0 (a bench_now() value). */
static inline double bench_ms_since(uint64_t t0)
{
	return (double)(bench_now() - t0) / 1e6;
}

/* Run body reps times; var gets the fastest run in ns per unit (`per`
 * units of work in one run). */
#define BENCH_BEST_OF(var, reps, per, body)                                   \
	do {                                                                  \
		var = 1e30;                                                   \
		for (int rep_ = 0; rep_ < (reps); rep_++) {                   \
			uint64_t t0_ = bench_now();                           \
			body;                                                 \
			double ns_ = (double)(bench_now() - t0_) / (double)(per); \
			var = ns_ < var ? ns_ : var;                          \
		}                                                             \
	} while (0)

/* ---- the broker sections' cluster (broker.c) ----------------------------- */

/* Allocations made through malloc, calloc and realloc so far in the process
 * (broker.c wraps them); a difference across a library call counts the
 * call's. */
unsigned long bench_allocs(void);

/* nm members of weight 1 (broker-0000 ...), ns streams (stream-00000 ...) of
 * `per` shards each: stream i's shard j (index i * per + j) is led by member
 * (7i + j) mod nm and replicated on it and the next rf - 1 members. Leaders
 * are even per stream and in total; replicas are not (a stream's rf copies
 * land on per + rf - 1 consecutive members). mem holds size bytes for a view
 * of snap. */
typedef struct bench_big {
	uint32_t nm, ns, nk;
	char (*mid)[16], (*sid)[16], (*key)[20];
	pl_member *m;
	pl_stream *s;
	pl_shard *k;
	pl_snapshot snap;
	void *mem;
	size_t size;
	uint32_t stride; /* a shard's replicas: its leader, then every stride-th member */
} bench_big;

/* nm members, ns streams of per shards, RF rf, balanced in every count:
 * stream i's shard j led by member 7i + j (mod nm), its other replicas on
 * the members per and 2 * per after (mod nm), so a stream's replicas sit
 * on rf * per consecutive members, one each where rf * per <= nm. */
void bench_big_build(bench_big *b, uint32_t nm, uint32_t ns, uint32_t per, uint32_t rf);
/* Shard x led by m, its replicas where bench_big_build puts m's (a layout
 * edit, not a move). */
void bench_big_lead(bench_big *b, uint32_t x, uint32_t m);
void bench_big_drop(bench_big *b);
/* The baseline: one plain pass that reads every shard's leader, stream and
 * replicas (time it, and pass the result to bench_keep). */
uint64_t bench_big_pass(const bench_big *b);

/* Sections. */
void bench_hash(void);
void bench_view(void);
void bench_fleet(void);
void bench_broker(void);
void bench_broker_replica(void);
void bench_broker_dry(void);
void bench_broker_tick(void);
void bench_region(void);
void bench_reuse(void);
void bench_reuse_keys(void);
void bench_tool(void);

#endif
