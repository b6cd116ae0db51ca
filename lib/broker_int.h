/*
 * broker_int.h - what the broker policy's sources share (broker.c,
 * broker_place.c, broker_balance.c). See placement/broker.h for the rules.
 */
#ifndef PLACEMENT_BROKER_INT_H
#define PLACEMENT_BROKER_INT_H

#include "internal.h"

/* One call's state: the output, the move budget, and why it stopped. */
typedef struct pl__bk {
	pl_view *v;
	const pl_broker_config *cfg;
	pl_action *out;
	uint32_t cap, n;    /* room in out, actions written */
	uint32_t full;      /* an action did not fit */
	uint32_t budget;    /* moves that may still start in this call */
	uint32_t limits;    /* max_moves_in or max_moves_out is set */
	uint32_t w_max;     /* the largest eligible weight */
	uint32_t n_flight;  /* moves in flight, listed when limits is set */
	/* Why no further action: the first of each, and counts. */
	uint32_t stalled, stalled_shard;  /* shards that need a leader and have none */
	uint32_t want_paused;             /* a move is wanted while paused */
	uint32_t want_limit, limit_member; /* a move waits on a limit (member or PL_NONE) */
	uint32_t want_flight;             /* a move waits on shards in flight */
	uint32_t block_caps, block_zones; /* scopes whose wanted moves are blocked */
	uint32_t block_scope;             /* the first blocked scope (stream or PL_NONE) */
	uint32_t blocked;                 /* shards stalled + scopes blocked */
	/* Last, so start() clears only what comes before. */
	uint32_t fl_from[PL_BROKER_MAX_MOVES];
	uint32_t fl_to[PL_BROKER_MAX_MOVES];
} pl__bk;

/* Candidate sets of the tier function. */
#define PL__BK_ALL 0u       /* every eligible member */
#define PL__BK_FOLLOWERS 1u /* the shard's eligible replicas other than its leader */
#define PL__BK_KEEP_ZONES 2u /* eligible members whose taking `from`'s place keeps the zone count */

/* What the tier function chose, with the numbers that decided it. */
typedef struct pl__pick {
	uint32_t member;  /* PL_NONE when no candidate */
	uint32_t tier;    /* 1..5 */
	uint32_t count;   /* its leaders of the shard's stream */
	uint32_t floor, ceiling; /* the stream's bounds for it (over the stream's shards) */
	uint32_t total;   /* its leaders in total */
	uint32_t share;   /* its cluster share (over all shards) */
} pl__pick;

/* ---- shared helpers (broker.c) ------------------------------------------ */

/* x_a / w_a compared with x_b / w_b: -1, 0 or 1. */
static inline int pl__bk_cmp_w(const pl_view *v, uint64_t xa, uint32_t a, uint64_t xb, uint32_t b)
{
	uint64_t l = xa * v->m_weight[b], r = xb * v->m_weight[a];
	return (l > r) - (l < r);
}

/* Does `to` taking `from`'s place among shard k's replicas keep the number of
 * zones they span? (Always, when `to` already holds one.) */
int pl__bk_zones_ok(const pl_view *v, uint32_t k, uint32_t from, uint32_t to);

/* Moves in flight into / out of m (only kept when per-member limits are set). */
uint32_t pl__bk_in(const pl__bk *b, uint32_t m);
uint32_t pl__bk_out(const pl__bk *b, uint32_t m);
/* May a move into m start (max_moves_in)? out of m (max_moves_out)? */
int pl__bk_in_ok(const pl__bk *b, uint32_t m);
int pl__bk_out_ok(const pl__bk *b, uint32_t m);

/* Write and apply one action; 0, or 1 when out is full (nothing done). */
int pl__bk_emit(pl__bk *b, const pl_action *a);
/* Write and apply a move (MOVE_LEADER), spending the budget. */
int pl__bk_emit_move(pl__bk *b, const pl_action *a);

/* Note why a wanted move waits. */
void pl__bk_wait_limit(pl__bk *b, uint32_t member);

/* ---- placing (broker_place.c) ------------------------------------------- */

/* The tier choice for shard k among the candidate set `set` (PL__BK_*);
 * `from` is the member whose place is taken (KEEP_ZONES), `limit_in` skips
 * members at their max_moves_in. */
void pl__bk_tier(const pl__bk *b, uint32_t k, uint32_t set, uint32_t from, int limit_in, pl__pick *p);

/* The placing pass: new shards, failovers, drains, in key order. */
void pl__bk_place(pl__bk *b);

/* ---- rebalancing (broker_balance.c) -------------------------------------- */

/* The stream pass, then the cluster pass when no stream wants a move. */
void pl__bk_balance(pl__bk *b);

/* Does any scope want a move (used when no move may start, for the status)? */
int pl__bk_any_wanted(const pl__bk *b);

#endif /* PLACEMENT_BROKER_INT_H */
