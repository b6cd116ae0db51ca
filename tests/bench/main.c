/* main.c - the benchmark program: `bench` runs every section, `bench NAME`
 * only the named ones (hash, view, broker, broker-replica, broker-dry, broker-tick, fleet,
 * region, reuse, reuse-keys, tool). */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"

static volatile uint64_t sink;

uint64_t bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

long bench_peak_kib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

void bench_keep(uint64_t x)
{
	sink ^= x;
}

static const struct {
	const char *name;
	void (*run)(void);
} sections[] = {
	{"hash", bench_hash},
	{"view", bench_view},
	{"fleet", bench_fleet},
	{"broker", bench_broker},
	{"broker-replica", bench_broker_replica},
	{"broker-dry", bench_broker_dry},
	{"broker-tick", bench_broker_tick},
	{"region", bench_region},
	{"reuse", bench_reuse},
	{"reuse-keys", bench_reuse_keys},
	{"tool", bench_tool},
};

int main(int argc, char **argv)
{
	printf("libplacement %s benchmark\n", pl_version());
	for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
		int wanted = argc < 2;
		for (int a = 1; a < argc; a++)
			wanted |= strcmp(argv[a], sections[i].name) == 0;
		if (wanted)
			sections[i].run();
	}
	return 0;
}
