/*
 * broker_int.h - what the broker policy's sources share. See
 * placement/broker.h for the rules.
 *
 * The call graph goes one way, top to bottom; no source calls a layer above
 * its own:
 *  1. entry points (broker.c): configuration, argument checks, one tick, the
 *     dry run, the drain stall entries;
 *  2. passes: placing, failover and leader drains (broker_place.c), replica
 *     drains and zone repair (broker_drain.c), leader balance
 *     (broker_balance.c) with its hand-off chains, staging and relays
 *     (broker_handoff.c), replica balance (broker_replica.c);
 *  3. scope: scopes, keys, ranking and destination lists (broker_scope.c);
 *     the offers, the move they choose and a search's outcome
 *     (broker_offer.c); the sources in rank order, the ladder of
 *     fallbacks and the drivers both rebalancing passes run on
 *     (broker_search.c); the tier function (broker_tier.c);
 *  4. shared helpers (broker_common.c): zones, limits, the potential rule,
 *     writing actions.
 */
#ifndef PLACEMENT_BROKER_INT_H
#define PLACEMENT_BROKER_INT_H

#include "view/view_int.h"

/* The leader targets' flow (broker_flow.c) runs on views of at most this
 * many members and streams, within this many relaxation steps. */
#define PL__BK_FLOW 64u
#define PL__BK_FLOW_WORK (UINT64_C(1) << 17)

/* The longest chain of leadership hand-offs a leader search looks for. */
#define PL__BK_CHAIN 8u

/* The band the bytes passes keep each eligible member's bytes in
 * (pl__bk_band_init()): on when the snapshot gives sizes and bytes_balance
 * is set. A member's share is total * its weight / weights. */
typedef struct pl__band {
	uint32_t on;
	uint32_t cap;     /* shares by capacity (every eligible member's is known); else by weight */
	uint64_t total;   /* known bytes on eligible members */
	uint64_t weights; /* sum of eligible members' capacities (or weights) */
} pl__band;

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
	uint32_t block_handoff;           /* scopes only a copy would move (handoff_only) */
	uint32_t block_bounds, bounds_scope; /* scopes out of bounds with no move the rules allow; the first */
	uint32_t block_scope;             /* the first blocked scope (stream or PL_NONE) */
	uint32_t blocked;                 /* shards stalled + scopes blocked */
	uint32_t drain_stalled, drain_shard; /* draining members' replicas with nowhere to go */
	uint32_t rep_hold;                /* a replica drain or zone repair moved or waits */
	uint32_t zone_level;              /* PL__BK_NEW_ZONE: members new at this level or a higher one
					   * (pl__zone_new_level()) */
	uint32_t rep_total;               /* replicas in the view, on every member */
	uint32_t lead_elig;               /* leaders on eligible members */
	uint32_t rep_elig;                /* replicas on eligible members (leader passes) */
	uint32_t rep_settled;             /* and no replica on any other member */
	uint32_t projected;               /* pl__bk_project() has run in this call */
	uint32_t tgt_on;                  /* tgt holds the leader targets (pl__bk_targets()) */
	/* Bytes (snapshot sizes). */
	uint32_t block_full, full_member; /* a member past its full ratio with no move to shed by */
	uint32_t bytes_moved;             /* the bytes passes made a move in this call */
	uint64_t bytes_flight;            /* bytes of the copies in flight (counted when a bytes limit is set) */
	pl__band band;                    /* as of the last pl__bk_band_init() */
	uint32_t maj_few;                 /* PL__BK_FEW_ZONE: its candidates' zones hold this many of the shard */
	uint32_t domains_shared;          /* two members share a domain (pl__bk_domains_shared()) */
	/* Last, so start() clears only what comes before. */
	uint32_t fl_from[PL_BROKER_MAX_MOVES];
	uint32_t fl_to[PL_BROKER_MAX_MOVES];
	uint64_t fl_bytes[PL_BROKER_MAX_MOVES];
	uint64_t tgt[PL__BK_FLOW]; /* per stream: the members whose target is its ceiling */
} pl__bk;

/* Candidate sets of the tier function. */
#define PL__BK_ALL 0u       /* every eligible member */
#define PL__BK_FOLLOWERS 1u /* the shard's eligible replicas other than its leader */
#define PL__BK_KEEP_ZONES 2u /* eligible members whose taking `from`'s place keeps the zone count */
#define PL__BK_NEW_ZONE 3u   /* eligible members in a domain none of the shard's replicas is in, at
			      * level b->zone_level or a higher one (the whole zone: zone_levels - 1) */
#define PL__BK_FEW_ZONE 4u   /* eligible members in a zone holding b->maj_few of the shard's replicas */
#define PL__BK_SET 0xfu      /* the set, of the bits above */
#define PL__BK_REPLICA 0x10u /* or'ed in: a replica's choice, counted on replicas; holders skipped */
#define PL__BK_NEW 0x20u     /* or'ed in: a new shard's leader; ties within a tier go to the fewest
			      * replicas of its stream per weight, before the draw */

/* What the tier function chose, with the numbers that decided it. */
typedef struct pl__pick {
	uint32_t member;  /* PL_NONE when no candidate */
	uint32_t tier;    /* 1..5 */
	uint32_t count;   /* its leaders (replicas) of the shard's stream */
	uint32_t floor, ceiling; /* the stream's bounds for it (over the stream's shards, or replicas) */
	uint32_t total;   /* its leaders (replicas) in total */
	uint32_t share;   /* its cluster share (over all shards, or all replicas) */
	uint32_t stream_total; /* what the stream's bounds were counted over */
} pl__pick;

/* ---- 4. shared helpers (broker_common.c) --------------------------------- */

/* x_a / w_a compared with x_b / w_b: -1, 0 or 1. */
static inline int pl__bk_cmp_w(const pl_view *v, uint64_t xa, uint32_t a, uint64_t xb, uint32_t b)
{
	uint64_t l = xa * v->m_weight[b], r = xb * v->m_weight[a];
	return (l > r) - (l < r);
}

/* Does `to` taking `from`'s place among shard k's replicas keep the number of
 * zones they span, and, for a shard of a majority stream, keep its majority
 * potential (pl__bk_majority_ok())? (Always, when `to` already holds one.) */
int pl__bk_zones_ok(const pl_view *v, uint32_t k, uint32_t from, uint32_t to);

/* Is shard k's stream's zone rule PL_ZONES_MAJORITY (snapshot version 5)? */
static inline int pl__bk_majority(const pl_view *v, uint32_t k)
{
	uint32_t s = v->snap.shards[k].stream;
	return v->snap.stream_zone_rule != NULL && s != PL_NONE && v->snap.stream_zone_rule[s] == PL_ZONES_MAJORITY;
}

/* The most of a majority shard's n replicas one zone may hold when the
 * zones allow it: (n - 1) / 2, at least 1 (RF 1 and 2: one a zone). */
static inline uint32_t pl__bk_maj_base(uint32_t n)
{
	return n >= 5 ? (n - 1) / 2 : 1;
}

/* Replicas of shard st in zone z. */
uint32_t pl__bk_zone_held(const pl_view *v, const pl__shard_state *st, uint32_t z);

/* The majority rule's part of pl__bk_zones_ok(): for a shard of a majority
 * stream with n replicas and base L = pl__bk_maj_base(n), does `to` (which
 * holds none) taking `from`'s place keep the sum over zones of
 * max(0, held - L)^2 from rising? With a the replicas in from's zone and c
 * those in to's (before): always when they share a zone, else exactly when
 * c < max(L, a). That sum does not depend on which members have room, so no
 * other shard's move can raise it; and whatever the limit the zones allow
 * (L or more), a move it allows raises no zone's excess over that limit. */
int pl__bk_majority_ok(const pl_view *v, uint32_t k, uint32_t from, uint32_t to);

/* Member m's full bytes: full_ratio percent of its capacity, UINT64_MAX when
 * either is not set. */
uint64_t pl__bk_full(const pl__bk *b, uint32_t m);
/* May shard k be copied from `from` (PL_NONE: added) to `to`: zones kept
 * (pl__bk_zones_ok()), `to` not filled past its full bytes (a shard of
 * unknown size only onto a member below them), the bytes limits in flight
 * kept, and with bytes_first the bytes band's distance not rising. Always,
 * when `to` holds a replica of k already (nothing is copied). */
int pl__bk_copy_ok(const pl__bk *b, uint32_t k, uint32_t from, uint32_t to);
/* pl__bk_copy_ok() but the zones. */
int pl__bk_room_bytes(const pl__bk *b, uint32_t k, uint32_t from, uint32_t to);
/* Why not (pl__bk_copy_ok()): */
#define PL__BK_COPY_OK 0
#define PL__BK_COPY_ZONES 1 /* it would lose a zone */
#define PL__BK_COPY_FULL 2  /* past a full ratio, or (bytes first) further from the band */
#define PL__BK_COPY_LIMIT 3 /* past a bytes limit in flight: it waits */
int pl__bk_copy_why(const pl__bk *b, uint32_t k, uint32_t from, uint32_t to);
/* The bytes in flight limits alone, for a copy of k from `from` to `to`. */
int pl__bk_bytes_ok(const pl__bk *b, uint32_t k, uint32_t from, uint32_t to);
/* a * b < c * d, in 128 bits. */
int pl__bk_mul_lt(uint64_t a, uint64_t b, uint64_t c, uint64_t d);
/* floor(a * b / c) for c > 0, UINT64_MAX when it does not fit. */
uint64_t pl__bk_muldiv(uint64_t a, uint64_t b, uint64_t c);
/* Count the band over the eligible members' bytes now. */
void pl__bk_band_init(pl__bk *b);
/* Member m's band [lo, hi] (0, UINT64_MAX when it is off). */
void pl__bk_band_of(const pl__bk *b, uint32_t m, uint64_t *lo, uint64_t *hi);
/* How far member m's bytes would be outside its band with `bytes` (bytes
 * passes' band: bytes_tolerance percent around its share); 0 inside, and
 * always 0 when the band is off. */
uint64_t pl__bk_band_out(const pl__bk *b, uint32_t m, uint64_t bytes);

/* Moves in flight into / out of m (only kept when per-member limits are set). */
uint32_t pl__bk_in(const pl__bk *b, uint32_t m);
uint32_t pl__bk_out(const pl__bk *b, uint32_t m);
/* May a move into m start (max_moves_in)? out of m (max_moves_out)? */
static inline int pl__bk_in_ok(const pl__bk *b, uint32_t m)
{
	return b->cfg->max_moves_in == 0 || pl__bk_in(b, m) < b->cfg->max_moves_in;
}
static inline int pl__bk_out_ok(const pl__bk *b, uint32_t m)
{
	return b->cfg->max_moves_out == 0 || pl__bk_out(b, m) < b->cfg->max_moves_out;
}

/* Write and apply one action; 0, or 1 when out is full (nothing done). */
int pl__bk_emit(pl__bk *b, const pl_action *a);
/* Write and apply a move (MOVE_LEADER), spending the budget. */
int pl__bk_emit_move(pl__bk *b, const pl_action *a);

/* ---- 2. bytes (broker_bytes.c) ------------------------------------------- */

/* A member past its full bytes sheds: replicas move off it (FULL_RATIO). */
void pl__bk_shed(pl__bk *b);
/* The bytes band: moves and exchanges that bring members' bytes within it
 * (BYTES_SKEW). */
void pl__bk_bbalance(pl__bk *b);
/* Is an eligible member outside its band (the band may want a move)? */
int pl__bk_bytes_wanted(const pl__bk *b);

/* Note why a wanted move waits. */
void pl__bk_wait_limit(pl__bk *b, uint32_t member);

/* Does a move of one from a (count ca) to d (count cd), in a scope whose
 * bounds are counted over `total` and widened by its tolerance tol (the
 * bounds that scope's own pass moves toward), keep a at or above its floor
 * and d at or below its ceiling, and the scope's potential (distance to the
 * bounds, then the sum of count^2/weight) from rising? */
int pl__bk_keeps(const pl_view *v, uint32_t total, uint32_t tol, uint32_t a, uint32_t ca, uint32_t d, uint32_t cd);
/* The potential alone: does that move keep it from rising? */
int pl__bk_no_rise(const pl_view *v, uint32_t total, uint32_t tol, uint32_t a, uint32_t ca, uint32_t d, uint32_t cd);
/* Does that move lower the scope's distance to its bounds? */
int pl__bk_drops(const pl_view *v, uint32_t total, uint32_t tol, uint32_t a, uint32_t ca, uint32_t d, uint32_t cd);

/* Would a copy of shard k to d (which holds none of it now) bring a replica
 * back to a member it left since the view was built: did d hold one in the
 * snapshot? (Asked only of a shard a move was applied to.) */
static inline int pl__bk_returns(const pl_view *v, uint32_t k, uint32_t d)
{
	const pl_shard *s = &v->snap.shards[k];
	for (uint32_t j = 0; j < s->replica_count; j++)
		if (s->replicas[j] == d)
			return 1;
	return 0;
}

/* Note a scope whose wanted moves are all blocked (rc: PL__BK_BLOCK_*). */
void pl__bk_block(pl__bk *b, int rc, uint32_t scope_id);

/* Note a draining member's replica of shard k with nowhere to go. */
void pl__bk_drain_stall(pl__bk *b, uint32_t k);

/* ---- 3. the tier function (broker_tier.c) -------------------------------- */

/* The tier choice for shard k among the candidate set `set` (PL__BK_*);
 * `from` is the member whose place is taken (KEEP_ZONES), `limit_in` skips
 * members at their max_moves_in. */
void pl__bk_tier(const pl__bk *b, uint32_t k, uint32_t set, uint32_t from, int limit_in, pl__pick *p);

/* A follower for new shard k, whose replicas so far are pick[0..n): the
 * tier choice counted on replicas (of its stream, st_total of them once the
 * shard is placed, and in total) among the eligible members with room in a
 * zone none of pick is in; else among every eligible member with room not
 * in pick (for a shard of a majority stream, those in a zone holding the
 * fewest of pick); PL_NONE when none has room. */
uint32_t pl__bk_tier_follower(const pl__bk *b, uint32_t k, const uint32_t *pick, uint32_t n, uint32_t st_total);

/* The tier choice among the members that keep the zone count when one of
 * them has room; else among every eligible member when one of those has
 * room; else (all at their caps) the zone keepers' tier 5 when there are
 * any. No member passes its cap while a candidate of the widened set has
 * room. */
void pl__bk_tier_widened(const pl__bk *b, uint32_t k, uint32_t from, int limit_in, pl__pick *p);

/* ---- 3. scopes, ranking (broker_scope.c) and offers (broker_offer.c) ---- */

#include "broker/broker_scope.h"

/* ---- 3. the leader targets (broker_flow.c) ------------------------------- */

/* For every stream, the members that end it at their ceiling (b->tgt, with
 * b->tgt_on), chosen by one min-cost flow over every stream and the totals'
 * bounds: the fewest leader moves. Left off (tgt_on 0) past PL__BK_FLOW
 * members or streams, or PL__BK_FLOW_WORK steps. */
void pl__bk_targets(pl__bk *b);

/* ---- 3. searches and drivers (broker_search.c) --------------------------- */

/* A pass's search of a scope (PL__BK_* outcome), and how it fills a scope
 * (of stream s, or of the cluster for PL_NONE). */
typedef int (*pl__bk_search_fn)(pl__bk *b, const pl__scope *sc);
typedef void (*pl__bk_fill_fn)(const pl__bk *b, uint32_t s, pl__scope *sc);

/* An empty destination list of at most max members (per_zone: see
 * pl__bk_dlist), filled with the scope's destinations with room. */
void pl__bk_dlist_fill(const pl__bk *b, const pl__scope *sc, pl__dlist *l, uint32_t max, uint32_t per_zone,
		       pl__seen *w);

/* The scope's first sources in rank order (pl__bk_source_before(), a strict
 * order of the view as it stands), at most max (PL_BROKER_SEARCH): into
 * m[] with their keys in key[]; returns how many, and in *seen (unless
 * NULL) how many the scope has. One pass over the eligible members. */
uint32_t pl__bk_sources(const pl_view *v, const pl__scope *sc, uint32_t max, uint32_t *m, uint32_t *key,
			uint32_t *seen);

/* The scope's sources one at a time, for a search that tries them in rank
 * order and applies nothing between them: source t (from 0; PL_NONE past
 * the last), its key in *key. The first two are found by one pass over the
 * eligible members (most searches stop there, or the scope has no more);
 * when a later one is asked, one more pass lists the first
 * PL_BROKER_SEARCH (pl__bk_sources()) and the rest come from the list. */
typedef struct pl__srcs {
	uint32_t n, all; /* listed; all listed: no more to find */
	uint32_t m[PL_BROKER_SEARCH], key[PL_BROKER_SEARCH];
} pl__srcs;
uint32_t pl__bk_source_next(const pl_view *v, const pl__scope *sc, pl__srcs *it, uint32_t t, uint32_t *key);

/* Search a scope: the first search; when it finds only blocks (zones, caps
 * or the streams' bounds), the wide fallback (members both over and under),
 * the spread fallback (some member over), with even the even fallback (the
 * replica passes: any pair whose move keeps the distance and lowers the sum
 * of count^2/weight), then relay when not NULL. A layout that allows a
 * first-choice move never sees a fallback. */
int pl__bk_search_all(pl__bk *b, const pl__scope *sc, pl__bk_search_fn search, int even, pl__bk_search_fn relay);

/* Make scope s's moves (move: a search, fill: its scope, filled again after
 * every move) until it wants none: *held set when a move was made or one
 * waits; a scope whose moves are all blocked is noted (pl__bk_block()).
 * 1 when the pass must stop (no budget left, or out full), else 0. */
int pl__bk_drive(pl__bk *b, uint32_t s, pl__bk_fill_fn fill, pl__bk_search_fn move, int *held);

/* The cluster scope after the streams: with held (a stream moved or waits)
 * it waits for them (PL_STATUS_IN_FLIGHT when it wants a move); else its
 * moves as pl__bk_drive(). 1 when a move was made, one waits, or the pass
 * stopped; else 0. */
int pl__bk_drive_cluster(pl__bk *b, int held, pl__bk_fill_fn fill, pl__bk_search_fn move);

/* ---- 2. passes: placing (broker_place.c) --------------------------------- */

/* The placing pass: new shards, failovers, drains, in key order. */
void pl__bk_place(pl__bk *b);

/* ---- 2. passes: leader balance (broker_balance.c) ------------------------ */

/* The stream pass, then the cluster pass when no stream wants a move.
 * 1 when a leader moved or a wanted move waits (the replica passes wait
 * for the next tick), else 0. */
int pl__bk_balance(pl__bk *b);

/* Does any scope want a move (used when no move may start, for the status)? */
int pl__bk_any_wanted(const pl__bk *b);

/* ---- 2. passes: hand-offs, staging, relays (broker_handoff.c) ----------- */

/* The first hop of the shortest chain of hand-offs from a source to a destination, in x: 1 when there is one. */
int pl__bk_handoff(pl__bk *b, const pl__scope *sc, pl__best *x);

/* Staging: a destination gets a follower's replica of a source's shard, to lead it later with no copy; -1: none. */
int pl__bk_stage(pl__bk *b, const pl__scope *sc);

/* The last fallback: a source's shard to a member that can pass one of the scope on to the best destination. */
int pl__bk_relay(pl__bk *b, const pl__scope *sc);

/* ---- 2. passes: replica drains and zone repair (broker_drain.c) -------- */

/* Every replica a draining member holds as a follower moves (MOVE_REPLICA,
 * STAGE_FIRST) to the tier choice counted on replicas among the members
 * that keep the zone count, with room; else it stalls (DRAIN_STALLED). */
void pl__bk_drain_replicas(pl__bk *b);

/* Why member d's replica of shard k cannot be drained (PL_BROKER_STALL_*),
 * or 0 when some eligible member may take it. */
uint32_t pl__bk_stall_reason(const pl_view *v, uint32_t k, uint32_t d);

/* Shards spanning fewer zones than they could get a replica moved into a
 * zone they do not span; shards of a majority stream (PL_ZONES_MAJORITY)
 * that span all they can and hold more than their limit in a zone get one
 * moved from the zone holding the most to a zone holding the fewest. */
void pl__bk_zone_repair(pl__bk *b);

/* Zones shard k's replicas span, and (when could is not NULL) how many
 * they could span: min(replicas, zones of its replicas and of eligible
 * members with room). room_zone: PL__BK_MARK set on m_scratch[z] for each
 * zone z with an eligible member with room (pl__bk_room_zones()). */
uint32_t pl__bk_zones(const pl_view *v, uint32_t k, uint32_t room_zones, uint32_t *could);
/* Mark the zones with an eligible member with room; how many there are. */
uint32_t pl__bk_room_zones(const pl_view *v);
/* Do two members share a failure domain at some level (a zone, or a path's
 * prefix)? When none does, every shard spans all the zones it can and
 * every copy crosses as many domains as any other (b->domains_shared). */
int pl__bk_domains_shared(const pl_view *v);

/* ---- 2. passes: replica balance (broker_replica.c) ----------------------- */

/* The replica stream pass, then the replica cluster pass. */
void pl__bk_rbalance(pl__bk *b);

/* Does a replica scope want a move (for the status, when none may start)? */
int pl__bk_replicas_wanted(const pl__bk *b);

#endif /* PLACEMENT_BROKER_INT_H */
