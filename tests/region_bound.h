/*
 * region_bound.h - B, the bound of placement/region.h on the actions
 * repeated region calls emit (B + 1 calls reach one that emits nothing),
 * for a view's current state, read through the public API only. The region
 * property suite (check_region_prop.c) and the region fuzz harness check
 * repeated calls against it, so they share this one copy.
 * Header-only and free of Check, so the fuzz harness can include it.
 */
#ifndef PL_REGION_BOUND_H
#define PL_REGION_BOUND_H

#include <stdint.h>

#include "placement.h"

/* Peers of a region on members that are not down. */
static inline uint32_t region_live_peers(const pl_member *m, const pl_shard_state *st)
{
	uint32_t n = 0;
	for (uint32_t j = 0; j < st->replica_count; j++)
		n += !(m[st->replicas[j]].flags & PL_MEMBER_DOWN);
	return n;
}

/* With n live members, R = min(RF, n), N regions, A0 the peers missing below
 * R on placeable regions, F the floor of live peers per live member and D0
 * the replicas live members lack below F: M = D0 + (A0 ? A0 + n - 1 : 0),
 * Q = (N^2 + (N + M)(2N + 1)) / 2 (load moves and chains of hand-offs, each
 * lowering the sum of squared primaries by 2 or more) and
 * B = 2N + 2 A0 + 2M + 2 max(1, n - 1) Q (a chain has at most n - 1
 * hand-offs). */
static inline uint64_t region_bound(const pl_view *v, const pl_snapshot *snap, const pl_region_config *cfg)
{
	uint64_t N = snap->n_shards, n = 0, A0 = 0, T = 0, D0 = 0;
	for (uint32_t i = 0; i < snap->n_members; i++)
		n += !(snap->members[i].flags & PL_MEMBER_DOWN);
	uint64_t R = cfg->replication_factor < n ? cfg->replication_factor : n;
	for (uint32_t k = 0; k < snap->n_shards; k++) {
		pl_shard_state st;
		pl_view_shard_state(v, k, &st);
		uint32_t lp = region_live_peers(snap->members, &st);
		T += lp;
		if (!(snap->shards[k].flags & (PL_SHARD_NOT_IDEMPOTENT | PL_SHARD_TRANSFER_DEBT)) && lp < R)
			A0 += R - lp;
	}
	uint64_t F = n ? T / n : 0;
	for (uint32_t i = 0; i < snap->n_members; i++) {
		pl_tally t;
		pl_view_member_tally(v, i, &t);
		if (!(snap->members[i].flags & PL_MEMBER_DOWN) && t.replicas < F)
			D0 += F - t.replicas;
	}
	uint64_t M = D0 + (A0 ? A0 + n - 1 : 0), Q = (N * N + (N + M) * (2 * N + 1)) / 2;
	return 2 * N + 2 * A0 + 2 * M + 2 * (n > 2 ? n - 1 : 1) * Q;
}

#endif
