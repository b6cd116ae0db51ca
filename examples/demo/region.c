/*
 * region.c - replica sets that grow onto joining members, and primaries that
 * follow: a cluster of 12 regions, owned by its one member, grows 1 -> 2 -> 4 members with RF 3, tick
 * by tick. Each tick runs pl_region_plan() once (at most 6 actions), prints
 * each action's sentence and the regions and primaries per member, and
 * carries the actions out by rebuilding the snapshot from the view's shard
 * states, as a control plane would after committing them.
 *
 * The fourth member joins with a shard map one epoch behind: it is passed
 * over for the third (the next candidate) until it catches up a tick later.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"

#define NREGIONS 12
#define NMEMBERS 4

typedef struct cluster {
	char ids[NMEMBERS][16], zones[NMEMBERS][16], keys[NREGIONS][16];
	pl_member m[NMEMBERS];
	pl_shard k[NREGIONS];
	uint32_t nm;
	void *mem;
	uint32_t tick;
} cluster;

static void join(cluster *c, uint64_t map_version)
{
	uint32_t i = c->nm++;
	int n = snprintf(c->ids[i], sizeof c->ids[i], "node-%u", i + 1);
	int z = snprintf(c->zones[i], sizeof c->zones[i], "zone-%c", 'a' + (int)i);
	memset(&c->m[i], 0, sizeof c->m[i]);
	c->m[i].id = (pl_bytes){c->ids[i], (uint64_t)n};
	c->m[i].zone = (pl_bytes){c->zones[i], (uint64_t)z};
	c->m[i].joined_at = 1000 + i; /* seconds since some epoch: greater = newer */
	c->m[i].map_version = map_version;
	c->m[i].weight = 1;
	printf("%s joins (zone %s, shard map version %llu)\n\n", c->ids[i], c->zones[i],
	       (unsigned long long)map_version);
}

static void show(const cluster *c, const pl_view *v)
{
	uint32_t max = 0;
	pl_tally t[NMEMBERS];
	for (uint32_t i = 0; i < c->nm; i++) {
		pl_view_member_tally(v, i, &t[i]);
		max = t[i].replicas > max ? t[i].replicas : max;
	}
	uint32_t peers = 0, prims = 0;
	for (uint32_t i = 0; i < c->nm; i++) {
		peers += t[i].replicas;
		prims += t[i].leaders;
	}
	printf("\n  regions held (fair share %u of %u peers, marked |) and primaries led:\n", peers / c->nm, peers);
	for (uint32_t i = 0; i < c->nm; i++) {
		char label[24];
		snprintf(label, sizeof label, "%s", c->ids[i]);
		demo_bar(label, t[i].replicas, peers / c->nm, max);
	}
	for (uint32_t i = 0; i < c->nm; i++) {
		char label[24];
		snprintf(label, sizeof label, "%s lead", c->ids[i]);
		demo_bar(label, t[i].leaders, (prims + c->nm - 1) / c->nm, max);
	}
	printf("\n");
}

/* Ticks until one emits nothing; returns 1 on an error. */
static int run(cluster *c, const pl_region_config *cfg)
{
	for (int guard = 0; guard < 30; guard++) {
		pl_snapshot snap = {.version = PL_SNAPSHOT_VERSION, .members = c->m, .shards = c->k,
				.n_members = c->nm, .n_shards = NREGIONS};
		pl_view *v = demo_view(&snap, PL_SCORER_XXH3, &c->mem);
		pl_action out[8];
		pl_region_stall stalls[NREGIONS];
		pl_plan_info info;
		pl_diag d;
		int n = pl_region_plan(v, cfg, out, 8, &info, stalls, NREGIONS, &d);
		if (n < 0) {
			fprintf(stderr, "demo: pl_region_plan: %s\n", pl_strerror(n));
			return 1;
		}
		c->tick++;
		printf("tick %u: %d action%s, %s", c->tick, n, n == 1 ? "" : "s", pl_status_name(info.status));
		if (info.blocked)
			printf(" (%u stalled)", info.blocked);
		printf("\n");
		for (int i = 0; i < n; i++)
			demo_explain(&snap, &out[i], (uint32_t)i + 1);
		for (uint32_t i = 0; i < info.blocked && i < NREGIONS; i++)
			printf("       stalled: %.*s, %s, member %s\n", (int)c->k[stalls[i].shard].key.len,
			       c->k[stalls[i].shard].key.ptr, pl_region_stall_name(stalls[i].reason),
			       stalls[i].member == PL_NONE ? "-" : c->ids[stalls[i].member]);
		if (n == 0) {
			show(c, v);
			return 0;
		}
		/* Carry the actions out: the next tick's snapshot is the view's state. */
		for (uint32_t k = 0; k < NREGIONS; k++) {
			pl_shard_state s;
			pl_view_shard_state(v, k, &s);
			c->k[k].leader = s.leader;
			c->k[k].replica_count = s.replica_count;
			for (uint32_t j = 0; j < s.replica_count; j++)
				c->k[k].replicas[j] = s.replicas[j];
		}
		if (c->nm == NMEMBERS && c->m[NMEMBERS - 1].map_version == 0) {
			c->m[NMEMBERS - 1].map_version = 1;
			printf("  (%s installs the current shard map)\n", c->ids[NMEMBERS - 1]);
		}
	}
	fprintf(stderr, "demo: no quiet tick after 30\n");
	return 1;
}

int demo_region(void)
{
	demo_title("Regions: replica sets grow onto joining members, primaries follow");
	printf("12 regions, replication factor 3, at most 6 actions per tick. The\n"
	       "effective RF is min(3, live members): node-1, alone, owns every region\n"
	       "(one peer, itself, the primary) until others join.\n\n");
	cluster *c = calloc(1, sizeof *c);
	if (c == NULL)
		return 1;
	for (uint32_t i = 0; i < NREGIONS; i++) {
		int n = snprintf(c->keys[i], sizeof c->keys[i], "cpu/%02u", i);
		c->k[i].key = (pl_bytes){c->keys[i], (uint64_t)n};
		c->k[i].stream = c->k[i].leader = c->k[i].moving_to = PL_NONE;
		c->k[i].epoch = 1;
	}
	pl_region_config cfg;
	pl_region_config_init(&cfg);
	cfg.max_actions = 6;
	int rc = 0;
	join(c, 1);
	for (uint32_t i = 0; i < NREGIONS; i++) { /* a one-member cluster's regions: peers = [node-1] */
		c->k[i].replicas[0] = 0;
		c->k[i].replica_count = 1;
		c->k[i].leader = 0;
	}
	rc |= run(c, &cfg);
	join(c, 1);
	rc |= run(c, &cfg);
	join(c, 1);
	join(c, 0);
	rc |= run(c, &cfg);
	free(c->mem);
	free(c);
	return rc;
}
