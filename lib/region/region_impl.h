/*
 * region_impl.h - what the region policy's sources share: the rules of
 * placement/region.h as small predicates, and the state of one call.
 * Calls go one way: region.c (entry points, step 1) -> region_balance.c
 * (steps 2 to 5) -> region_common.c (shared rules and output).
 */
#ifndef PLACEMENT_REGION_IMPL_H
#define PLACEMENT_REGION_IMPL_H

#include "view/view_int.h"

/* The state of one pl_region_plan() call; nothing outlives it. */
typedef struct pl__region_ctx {
	pl_view *v;
	const pl_region_config *cfg;
	pl_action *out;
	pl_region_stall *stalls;
	uint32_t cap, stalls_cap;
	uint32_t written;
	uint32_t rf;          /* effective replication factor */
	uint32_t pending;     /* regions under rf and busy after step 1 */
	uint32_t blocked;     /* stalls met */
	uint32_t first_stall; /* first region stalled, or PL_NONE */
	uint32_t first_held;  /* first region held back by proposals off, or PL_NONE */
	uint32_t stopped;     /* an action did not fit: decide nothing more */
	uint32_t stop_status; /* PL_STATUS_ACTION_CAP or PL_STATUS_FULL */
	uint32_t stop_detail; /* the region of the action that did not fit */
	uint32_t newest_at;   /* written when step 3's rule last held for no idle region */
} pl__region_ctx;

/* Never placed, grown, moved or handed a primary. */
static inline int pl__region_placeable(const pl_view *v, uint32_t k)
{
	return !(v->snap.shards[k].flags & (PL_SHARD_NOT_IDEMPOTENT | PL_SHARD_TRANSFER_DEBT));
}

/* A move in flight, or acted on since the view was built or settled. */
static inline int pl__region_busy(const pl__shard_state *st)
{
	return st->moving || st->touched;
}

/* Live, not draining, not lagging: may take a peer or a primary. */
static inline int pl__region_may_receive(const pl_view *v, uint32_t m)
{
	return !(v->snap.members[m].flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING | PL_MEMBER_LAGGING));
}

/* Its shard map is not behind the region's epoch (ahead is fine). */
static inline int pl__region_ready(const pl_view *v, uint32_t m, uint32_t k)
{
	return v->snap.members[m].map_version >= v->snap.shards[k].epoch;
}

/* Below its max_shards (0 = no cap): may take one more copy. */
static inline int pl__region_room(const pl_view *v, uint32_t m)
{
	uint32_t cap = v->snap.members[m].max_shards;
	return cap == 0 || v->m_replicas[m] < cap;
}

static inline int pl__region_measured(const pl_view *v, uint32_t m)
{
	return !(v->snap.members[m].flags & PL_MEMBER_UNMEASURED);
}

/* Is a newer than b: greater joined_at, then the smaller id. */
static inline int pl__region_newer(const pl_view *v, uint32_t a, uint32_t b)
{
	uint64_t ja = v->snap.members[a].joined_at, jb = v->snap.members[b].joined_at;
	return ja != jb ? ja > jb : v->m_rank[a] < v->m_rank[b];
}

/* region_common.c */
uint32_t pl__region_live_peers(const pl_view *v, const pl__shard_state *st);
/* Does a live peer other than `except` sit in `zone`? */
int pl__region_zone_held(const pl_view *v, const pl__shard_state *st, uint32_t zone, uint32_t except);

/* A zeroed action with the common fields set (STAGE_FIRST for copies). */
void pl__region_action(pl_action *a, uint32_t kind, uint32_t reason, const pl_view *v, uint32_t k,
		       uint32_t from, uint32_t to, uint32_t scope);
/* Apply and write an action; 0 (and the call stops) when it does not fit. */
int pl__region_emit(pl__region_ctx *c, const pl_action *a);
/* Do n more actions fit (under max_actions and in the caller's array)? 0,
 * and the call stops as at an action that does not fit (region k), when
 * not: a chain of hand-offs is written whole or not at all. */
int pl__region_fits(pl__region_ctx *c, uint32_t n, uint32_t k);
void pl__region_stall(pl__region_ctx *c, uint32_t k, uint32_t reason, uint32_t step, uint32_t member,
		      uint32_t wanted);

/* Steps 2 to 5 (region_balance.c). */
void pl__region_step_idle(pl__region_ctx *c);
void pl__region_step_newest(pl__region_ctx *c);
void pl__region_step_load(pl__region_ctx *c);
void pl__region_step_even(pl__region_ctx *c);

#endif /* PLACEMENT_REGION_IMPL_H */
