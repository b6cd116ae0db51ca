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

/* Sections. */
void bench_hash(void);
void bench_view(void);
void bench_fleet(void);
void bench_broker(void);
void bench_region(void);

#endif
