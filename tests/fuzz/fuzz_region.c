/*
 * fuzz_region.c - libFuzzer harness for the region policy: any bytes become a
 * small cluster of regions (members with every flag, zones, join times, map
 * versions, loads and caps; regions with epochs, flags, peers and primaries)
 * and a configuration, sometimes out of range. When the snapshot is valid,
 * the add-peer check is asked about random pairs, then pl_region_plan() is
 * called tick after tick, each tick's actions carried out, until a tick
 * emits nothing. A crash, a sanitizer report or a broken invariant (abort())
 * is a bug:
 *  - a bad configuration is refused and nothing is written;
 *  - a call on valid input never fails, writes no more than cap and
 *    max_actions, and counts what it wrote;
 *  - every action it writes applies to a copy of the view taken before the
 *    call, explains, and, when it adds a peer, passes the add-peer check;
 *  - no emitted action takes a region below min(RF, live) live peers once
 *    it had them, and every stall names a known reason;
 *  - repeated calls reach a tick that emits nothing within the bound stated
 *    in placement/region.h.
 *
 *   make fuzz FUZZ_TIME=60     build with clang -fsanitize=fuzzer and run
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../region_bound.h"
#include "fuzz_input.h"
#include "placement.h"

#define MAXM 9
#define MAXK 32

static char names[MAXM][8], zones[4][4], keys[MAXK][8];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	in s = {data, size};
	pl_member m[MAXM];
	pl_shard k[MAXK];
	memset(m, 0, sizeof m);
	memset(k, 0, sizeof k);
	uint32_t nm = take(&s, MAXM + 1), nk = take(&s, MAXK + 1);
	for (int z = 0; z < 4; z++)
		snprintf(zones[z], sizeof zones[z], "z%d", z);
	for (uint32_t i = 0; i < nm; i++) {
		m[i].id = read_member_id(&s, names[i]);
		uint32_t z = take(&s, 5);
		if (z < 4)
			m[i].zone = (pl_bytes){zones[z], 2};
		m[i].flags = take(&s, 32) & PL_MEMBER_FLAGS_ALL;
		m[i].joined_at = take(&s, 6);
		m[i].map_version = take(&s, 4);
		m[i].load = take(&s, 0);
		m[i].max_shards = take(&s, 4) == 0 ? take(&s, 8) : 0;
		m[i].weight = take(&s, 4) == 0 ? 2 : 1;
	}
	for (uint32_t i = 0; i < nk; i++) {
		int n = snprintf(keys[i], sizeof keys[i], "r%02x", i);
		k[i].key = (pl_bytes){keys[i], (uint64_t)n};
		k[i].stream = k[i].moving_to = PL_NONE;
		k[i].epoch = take(&s, 4);
		k[i].flags = take(&s, 8) & PL_SHARD_FLAGS_ALL;
		uint32_t want = take(&s, PL_MAX_REPLICAS + 1);
		for (uint32_t j = 0; j < want && nm; j++) {
			uint32_t c = take(&s, nm), dup = 0;
			for (uint32_t q = 0; q < k[i].replica_count; q++)
				dup |= k[i].replicas[q] == c;
			if (!dup)
				k[i].replicas[k[i].replica_count++] = c;
		}
		k[i].leader = k[i].replica_count && take(&s, 4) ? k[i].replicas[take(&s, k[i].replica_count)] : PL_NONE;
	}
	pl_snapshot snap = {.version = PL_SNAPSHOT_VERSION, .members = m, .shards = k, .n_members = nm,
			.n_shards = nk};
	pl_region_config cfg = PL_REGION_CONFIG_INIT;
	cfg.replication_factor = take(&s, PL_MAX_REPLICAS + 2);
	cfg.add_peer_proposals = take(&s, 5) ? 1 : take(&s, 3);
	cfg.load_balance = take(&s, 3);
	cfg.load_threshold = take(&s, 101);
	cfg.max_actions = take(&s, 12);
	int valid_cfg = cfg.replication_factor >= 1 && cfg.replication_factor <= PL_MAX_REPLICAS &&
			cfg.add_peer_proposals <= 1 && cfg.load_balance <= 1 && cfg.load_threshold >= 1 &&
			cfg.load_threshold <= 99 && cfg.max_actions >= 1;
	size_t vs = pl_view_size(&snap);
	void *mem = malloc(vs), *copy = malloc(vs);
	pl_view *v, *c;
	int init = pl_view_init(&v, mem, vs, &snap, NULL, NULL);
	count_valid("fuzz_region", init == 0);
	if (init != 0)
		goto out;
	(void)pl_region_effective_rf(v, &cfg, NULL);
	for (int q = 0; q < 4; q++)
		(void)pl_region_check_add_peer(v, take(&s, nk + 1), take(&s, nm + 1), take(&s, 5), NULL);
	pl_view_counts vc;
	pl_view_stats(v, &vc);
	uint64_t B = valid_cfg ? region_bound(v, &snap, &cfg) : 0;
	uint32_t R = cfg.replication_factor < vc.live ? cfg.replication_factor : vc.live;
	uint8_t had[MAXK];
	for (uint32_t i = 0; i < nk; i++) {
		pl_shard_state st;
		pl_view_shard_state(v, i, &st);
		had[i] = region_live_peers(m, &st) >= R;
	}
	for (uint64_t calls = 0;; calls++) {
		pl_action a[64];
		pl_region_stall st[8];
		pl_plan_info info, before;
		memset(&info, 0xab, sizeof info);
		before = info;
		uint32_t cap = take(&s, 4) ? 64 : take(&s, 8);
		if (pl_view_copy(&c, copy, vs, v) != 0)
			abort();
		int got = pl_region_plan(v, &cfg, a, cap, &info, st, 8, NULL);
		if (!valid_cfg || (nk > 0 && vc.eligible == 0)) {
			if (got >= 0 || memcmp(&info, &before, sizeof info) != 0)
				abort();
			break;
		}
		if (got < 0 || (uint32_t)got > cap || (uint32_t)got > cfg.max_actions || info.written != (uint32_t)got)
			abort();
		for (uint32_t i = 0; i < info.blocked && i < 8; i++)
			if (strcmp(pl_region_stall_name(st[i].reason), "unknown") == 0 || st[i].shard >= nk)
				abort();
		char line[512];
		for (int j = 0; j < got; j++) {
			/* the epoch the view has now: earlier actions of the call
			 * on the same region advanced it, as their commits would */
			pl_shard_state now;
			pl_view_shard_state(c, a[j].shard, &now);
			if (a[j].kind == PL_ACTION_ADD_REPLICA &&
			    pl_region_check_add_peer(c, a[j].shard, a[j].to, now.epoch, NULL) != 0)
				abort();
			if (pl_view_apply(c, &a[j]) != 0 || pl_action_explain(&snap, &a[j], line, sizeof line) < 0)
				abort();
			pl_shard_state x;
			pl_view_shard_state(c, a[j].shard, &x);
			uint32_t lp = region_live_peers(m, &x);
			if (had[a[j].shard] && lp < R)
				abort();
			had[a[j].shard] |= lp >= R;
		}
		if (got == 0)
			break;
		if (calls > B)
			abort(); /* no quiet tick within the bound */
		pl_view_settle(v);
	}
out:
	free(mem);
	free(copy);
	return 0;
}
