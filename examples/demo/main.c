/*
 * main.c - `make demo`: the simulator on its built-in scenarios.
 *
 *   demo            every scenario
 *   demo NAME ...   only those (hash, broker, fleet, region)
 */
#include <stdio.h>
#include <string.h>

#include "demo.h"

static const struct {
	const char *name;
	int (*run)(void);
} scenarios[] = {
	{"hash", demo_hash},
	{"fleet", demo_fleet},
	{"broker", demo_broker},
	{"region", demo_region},
};

int main(int argc, char **argv)
{
	int rc = 0;
	size_t n = sizeof scenarios / sizeof scenarios[0];
	printf("libplacement %s demo\n", pl_version());
	for (size_t i = 0; i < n; i++) {
		int wanted = argc < 2;
		for (int a = 1; a < argc; a++)
			wanted |= strcmp(argv[a], scenarios[i].name) == 0;
		if (wanted)
			rc |= scenarios[i].run();
	}
	printf("\nTry it on your own layout: build against the library with\n"
	       "  cc my.c $(pkg-config --cflags --libs libplacement)\n"
	       "and read libplacement(3) for the model.\n");
	return rc;
}
