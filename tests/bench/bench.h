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

/* Sections. */
void bench_hash(void);
void bench_view(void);
void bench_fleet(void);
void bench_broker(void);
void bench_broker_replica(void);
void bench_region(void);
void bench_reuse(void);
void bench_tool(void);

#endif
