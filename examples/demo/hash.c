/*
 * hash.c - why the library exists: the legacy scorer's skew beside the
 * default scorer's spread, for 64 and 4096 shards over 4 and 8 members named
 * streams-1 ... streams-N, keys 00, 01, ... in lowercase hex.
 */
#include <stdio.h>
#include <stdlib.h>

#include "demo.h"

static int spread(uint32_t members, uint32_t shards, uint32_t scorer)
{
	char (*ids)[16] = calloc(members, sizeof *ids);
	char (*keys)[16] = calloc(shards, sizeof *keys);
	pl_member *m = calloc(members, sizeof *m);
	pl_shard *k = calloc(shards, sizeof *k);
	uint32_t *count = calloc(members, sizeof *count);
	void *mem = NULL;
	if (!ids || !keys || !m || !k || !count)
		return 1;
	for (uint32_t i = 0; i < members; i++) {
		int n = snprintf(ids[i], sizeof ids[i], "streams-%u", i + 1);
		m[i].id = (pl_bytes){ids[i], (uint64_t)n};
	}
	int width = shards <= 256 ? 2 : 3;
	for (uint32_t i = 0; i < shards; i++) {
		int n = snprintf(keys[i], sizeof keys[i], "%0*x", width, i);
		k[i].key = (pl_bytes){keys[i], (uint64_t)n};
		k[i].stream = k[i].leader = k[i].moving_to = PL_NONE;
	}
	pl_snapshot snap = {.version = PL_SNAPSHOT_VERSION, .members = m, .shards = k, .n_members = members,
			.n_shards = shards};
	pl_view *v = demo_view(&snap, scorer, &mem);
	uint32_t max = 0;
	for (uint32_t i = 0; i < shards; i++) {
		int h = pl_view_home(v, i);
		if (h < 0)
			return 1;
		count[h]++;
	}
	for (uint32_t i = 0; i < members; i++)
		max = count[i] > max ? count[i] : max;
	uint32_t share = (shards + members - 1) / members;
	printf("%u shards over %u members, %s scorer (fair share %u, marked |):\n", shards, members,
	       scorer == PL_SCORER_XXH3 ? "default XXH3" : "legacy FNV-1a", share);
	for (uint32_t i = 0; i < members; i++)
		demo_bar(ids[i], count[i], share, max > share ? max : share);
	printf("  busiest member holds %u, %.2fx its share\n\n", max, (double)max / share);
	free(ids);
	free(keys);
	free(m);
	free(k);
	free(count);
	free(mem);
	return 0;
}

int demo_hash(void)
{
	int rc = 0;
	demo_title("Rendezvous scoring: the legacy FNV-1a ring beside the default");
	printf("Member names that differ in one digit score in step under FNV-1a over\n"
	       "\"<shard> <member>\", so one member takes far more than its share. XXH3\n"
	       "hashes mixed per pair stay near the balls-into-bins spread. The members\n"
	       "are the seed fleet's instances, streams-1 ... (names, not streams).\n\n");
	static const uint32_t members[] = {4, 8}, shards[] = {64, 4096};
	for (int s = 0; s < 2; s++)
		for (int mi = 0; mi < 2; mi++) {
			rc |= spread(members[mi], shards[s], PL_SCORER_LEGACY_FNV1A);
			rc |= spread(members[mi], shards[s], PL_SCORER_XXH3);
		}
	return rc;
}
