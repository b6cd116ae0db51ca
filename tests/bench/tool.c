/*
 * tool.c - placement(1) on a 1,000,000-shard file: `plan --summary` beside
 * parsing the file alone (`check`), time and peak memory as ratios of the
 * two, each measured in its own child process in the same run.
 *
 * The layout: 66 brokers in 4 zones, two of them new and empty, 1,000
 * streams of 1,000 shards, three replicas each with a random leader, and
 * max-moves 256, so the plan moves leaders for some 60 ticks. The tool is
 * the one make built (PLACEMENT_BIN); without it the section says so.
 */
#define _DEFAULT_SOURCE /* wait4() */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define MEMBERS 64u
#define STREAMS 1000u
#define SHARDS 1000000u

/* A small deterministic generator, so every run plans the same file. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int write_layout(const char *path)
{
	FILE *f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fprintf(f, "# %u shards for make bench\nset policy=broker max-moves=256 rf=3\n", SHARDS);
	for (uint32_t m = 0; m < MEMBERS + 2; m++)
		fprintf(f, "member b%02u zone=z%u\n", m, m % 4);
	for (uint32_t s = 0; s < STREAMS; s++)
		fprintf(f, "stream s%03u\n", s);
	uint64_t seed = 0x9E3779B97F4A7C15u;
	for (uint32_t k = 0; k < SHARDS; k++) {
		uint32_t s = k % STREAMS, a = (uint32_t)(next(&seed) % MEMBERS);
		uint32_t b = (a + 1 + (uint32_t)(next(&seed) % (MEMBERS - 1))) % MEMBERS, c = (b + 1) % MEMBERS;
		if (c == a)
			c = (c + 1) % MEMBERS;
		fprintf(f, "shard s%03u/%u stream=s%03u replicas=b%02u,b%02u,b%02u leader=b%02u\n", s, k / STREAMS, s, a,
			b, c, a);
	}
	return fclose(f) == 0 ? 0 : -1;
}

/* Run the tool with args, output to /dev/null; wall seconds and peak KiB. */
static int run_tool(const char *bin, const char *cmd, const char *opt, const char *file, double *sec, long *kib,
		    int *status)
{
	fflush(stdout); /* or the child's freopen writes what the parent has buffered */
	uint64_t t0 = bench_now();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (freopen("/dev/null", "w", stdout) == NULL)
			_exit(127);
		if (opt)
			execl(bin, bin, cmd, opt, file, (char *)NULL);
		else
			execl(bin, bin, cmd, file, (char *)NULL);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) != pid)
		return -1;
	*sec = (double)(bench_now() - t0) / 1e9;
	*kib = ru.ru_maxrss;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	return 0;
}

void bench_tool(void)
{
	printf("\n== placement(1): plan --summary on %u shards (%u members, %u streams), beside parsing alone\n",
	       SHARDS, MEMBERS + 2, STREAMS);
	const char *bin = getenv("PLACEMENT_BIN");
	if (bin == NULL || access(bin, X_OK) != 0) {
		printf("  skipped: set PLACEMENT_BIN to the placement tool (make bench does)\n");
		return;
	}
	const char *dir = getenv("TMPDIR");
	char path[512];
	snprintf(path, sizeof path, "%s/pl-bench-%ld.txt", dir && *dir ? dir : "/tmp", (long)getpid());
	uint64_t t0 = bench_now();
	if (write_layout(path) != 0) {
		printf("  skipped: cannot write %s\n", path);
		remove(path);
		return;
	}
	printf("  the file: written in %.2f s\n", bench_ms_since(t0) / 1e3);
	double ps = 0, qs = 0;
	long pk = 0, qk = 0;
	int prc = 0, qrc = 0;
	if (run_tool(bin, "check", NULL, path, &ps, &pk, &prc) != 0 ||
	    run_tool(bin, "plan", "--summary", path, &qs, &qk, &qrc) != 0) {
		printf("  failed to run %s\n", bin);
		remove(path);
		return;
	}
	remove(path);
	printf("  parse alone (check)     %7.2f s, peak %7.1f MiB (exit %d)\n", ps, (double)pk / 1024, prc);
	printf("  plan --summary          %7.2f s, peak %7.1f MiB (exit %d)\n", qs, (double)qk / 1024, qrc);
	printf("  plan --summary time: %.1fx the parse alone\n", qs / (ps > 0 ? ps : 1e-9));
	printf("  plan --summary peak memory: %.2fx the parse alone\n", (double)qk / (double)(pk > 0 ? pk : 1));
}
