/*
 * placement/plan.h - actions: what a policy asks the caller to do, and why.
 *
 * A policy call writes actions into a caller array (out, cap) and returns how
 * many it wrote. Each action names its kind, its reason, the shard, the
 * members it moves something between, and the numbers that decided it, so
 * pl_action_explain() can render one sentence an operator can check.
 *
 * The policy applies each action it emits to the view at once (placement/
 * view.h), so a later decision in the same call sees it. A full output array
 * is not an error: the call stops deciding, reports PL_STATUS_FULL in its
 * pl_plan_info, and the view holds exactly the actions that were written.
 */
#ifndef PLACEMENT_PLAN_H
#define PLACEMENT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values in these lists are fixed forever. New values go in the owning
 * concern's range: kinds 1-6 shared, broker 7-8, fleet 9-10, region 11-12;
 * reasons 1-15 shared, broker 16-19 and 30-34, fleet 20-24, region 25-29;
 * statuses 0-11 shared, broker 12-15, fleet 16-19, region 20-23; scopes 0-6 shared,
 * broker 7-9, fleet 10-12, region 13-15. */

/* X(NAME, value, name string) — action kinds. */
#define PL_ACTION_KIND_LIST(X)                                                          \
	X(SET_LEADER, 1, "set-leader")     /* shard gets leader `to` (from = old or NONE) */ \
	X(MOVE_LEADER, 2, "move-leader")   /* leadership from -> to; copies when to held none */ \
	X(ADD_REPLICA, 3, "add-replica")   /* `to` gains a replica */                      \
	X(MOVE_REPLICA, 4, "move-replica") /* from's replica moves to `to` */              \
	X(SET_OVERRIDE, 5, "set-override") /* fleet: shard owned by `to`, origin `origin` */ \
	X(DROP_OVERRIDE, 6, "drop-override") /* fleet: override on `from` removed; goes home to `to` */

/* X(NAME, value, name string) — why an action was emitted. */
#define PL_REASON_LIST(X)                                                               \
	X(NEW, 1, "new")                   /* a new shard is placed */                     \
	X(FAILOVER, 2, "failover")         /* its leader is down */                        \
	X(DRAIN, 3, "drain")               /* its leader is draining */                    \
	X(STREAM_SKEW, 4, "stream-skew")   /* a stream leads uneven */                     \
	X(CLUSTER_SKEW, 5, "cluster-skew") /* the totals are uneven */                     \
	X(COUNT, 6, "count")               /* fleet member over the share */               \
	X(SPREAD, 7, "spread")             /* fleet member below the floor */              \
	X(LAG, 8, "lag")                   /* fleet member lagging */                      \
	X(RETURN_HOME, 9, "return-home")   /* lag override aged out */                     \
	X(VOID_OVERRIDE, 10, "void-override") /* override's member is down */              \
	X(REDUNDANT_OVERRIDE, 11, "redundant-override") /* override names the ring home */ \
	X(UNDER_RF, 12, "under-rf")        /* region below its replication factor */       \
	X(IDLE_MEMBER, 13, "idle-member")  /* a member below its fair share of replicas */ \
	X(NEWEST_PEER, 14, "newest-peer")  /* primary follows the newest peer */           \
	X(LOAD, 15, "load")                /* primary toward clearly less load */          \
	X(NO_PRIMARY, 25, "no-primary")    /* region has no live primary */                \
	X(PRIMARY_SKEW, 26, "primary-skew") /* region: primaries uneven within the peer sets */ \
	X(ZONE_REPAIR, 16, "zone-repair")  /* broker: replicas span fewer zones than they could */ \
	X(REPLICA_DRAIN, 17, "replica-drain") /* broker: a replica on a draining member */  \
	X(REPLICA_STREAM_SKEW, 18, "replica-stream-skew") /* broker: a stream's replicas uneven */ \
	X(REPLICA_CLUSTER_SKEW, 19, "replica-cluster-skew") /* broker: replicas in total uneven */ \
	X(FULL_RATIO, 30, "full-ratio")    /* broker: a member past its full ratio sheds bytes */ \
	X(BYTES_SKEW, 31, "bytes-skew")    /* broker: a member's bytes outside its tolerance */

/* X(NAME, value, name string) — why a call stopped emitting. */
#define PL_STATUS_LIST(X)                                                               \
	X(BALANCED, 0, "balanced")           /* nothing more is wanted */                  \
	X(PAUSED, 1, "paused")               /* the policy is paused */                    \
	X(MOVE_LIMIT, 2, "move-limit")       /* concurrent or per-member move limit */     \
	X(BLOCKED_ZONES, 3, "blocked-zones") /* wanted moves would lose a zone */          \
	X(BLOCKED_CAPS, 4, "blocked-caps")   /* wanted moves would pass max_shards */      \
	X(FULL, 5, "full")                   /* the output array filled first */           \
	X(COOLDOWN, 6, "cooldown")           /* the member's move cooldown runs */         \
	X(WAITING, 7, "waiting")             /* ranked past the last place this tick */    \
	X(NOT_LIVE, 8, "not-live")           /* the deciding member is down or draining */ \
	X(PROPOSALS_OFF, 9, "proposals-off") /* add-peer proposals are switched off */     \
	X(STALLED, 10, "stalled")            /* no ready candidate for some shard */       \
	X(ACTION_CAP, 11, "action-cap")      /* the configured actions per call reached */ \
	X(IN_FLIGHT, 12, "in-flight")        /* broker: wanted moves wait on moves in flight */ \
	X(DRAIN_STALLED, 13, "drain-stalled") /* broker: a draining member's replica has nowhere to go */ \
	X(BLOCKED_HANDOFF, 14, "blocked-handoff") /* broker, hand-offs only: a bound only a copy would meet */ \
	X(BLOCKED_FULL, 15, "blocked-full")  /* broker: wanted moves would pass a full ratio */ \
	X(RETURNING_HOME, 16, "returning-home") /* fleet: lag overrides wait to go home */  \
	X(LAGGING, 17, "lagging")            /* fleet: an eligible member lags */          \
	X(MOVING, 18, "moving")              /* fleet: count, spread or keep moves are wanted */ \
	X(UNEVEN, 19, "uneven")              /* fleet: out of bounds, and no rule on moves it */ \
	X(BLOCKED_BOUNDS, 20, "blocked-bounds") /* broker: out of bounds, and no move the rules allow brings it in */

enum pl_action_kind {
#define PL__ENUM(name, value, str) PL_ACTION_##name = value,
	PL_ACTION_KIND_LIST(PL__ENUM)
#undef PL__ENUM
	PL__ACTION_KIND_END
};

enum pl_reason {
#define PL__ENUM(name, value, str) PL_REASON_##name = value,
	PL_REASON_LIST(PL__ENUM)
#undef PL__ENUM
	PL__REASON_END
};

enum pl_status {
#define PL__ENUM(name, value, str) PL_STATUS_##name = value,
	PL_STATUS_LIST(PL__ENUM)
#undef PL__ENUM
	PL__STATUS_END
};

/* pl_action.flags */
#define PL_ACTION_STAGE_FIRST 0x1u /**< copies data: stage on `to` first, then commit */
#define PL_ACTION_CARRIES_LEADER 0x2u /**< MOVE_REPLICA of the leader's replica: `to` leads after it */
/** One step of two actions: a MOVE_REPLICA that carries its leadership, then
 * a MOVE_LEADER (no copy) by which its destination hands a shard of the same
 * stream to its source; together they leave every leader count as it was.
 * Both carry the flag; carry them out together. */
#define PL_ACTION_PAIRED 0x4u
/** A MOVE_REPLICA of a follower's replica made by the leader passes, to a
 * member the leaders' bounds want to lead a shard that zones keep from
 * taking the leader's own replica: once the copy is in, the leader hands
 * `to` the leadership (a later MOVE_LEADER, no copy), so no leadership
 * moves twice. The copy also evens the replicas. */
#define PL_ACTION_FOR_HANDOFF 0x8u
/** One of the two MOVE_REPLICAs of an exchange the bytes band makes: a
 * larger shard from a to d, then a smaller one from d to a, of the same
 * role on both members (both led by the member they leave, or neither), so
 * the totals stay as they were and neither shard's stream's counts move
 * further from even (with one stream, every count stays). Both carry the
 * flag; carry them out together. The two count as one move against
 * max_moves (each member sends one copy and takes one). */
#define PL_ACTION_EXCHANGE 0x10u

/* pl_action.scope: where from_count/to_count/floor/ceiling were counted. */
#define PL_SCOPE_NONE 0u
#define PL_SCOPE_STREAM 1u  /**< leaders of the action's stream */
#define PL_SCOPE_CLUSTER 2u /**< leaders in total */
#define PL_SCOPE_OWNED 3u   /**< shards owned (fleet) */
#define PL_SCOPE_REPLICAS 4u /**< replicas held */
#define PL_SCOPE_PRIMARIES 5u /**< primaries (leaders) held */
#define PL_SCOPE_PEERS 6u   /**< peers of the shard (to_count = peers before, total = target RF) */
#define PL_SCOPE_STREAM_REPLICAS 7u /**< replicas of the action's stream */
#define PL_SCOPE_ZONES 8u   /**< zones the shard spans: from_count before, to_count after, total it could span */
#define PL_SCOPE_BYTES 9u   /**< bytes held: from_bytes, to_bytes and bytes_limit say what decided it */

/**
 * One action. Indices name elements of the snapshot the view was built from.
 * Fields a kind does not use are 0 (numbers) or PL_NONE (indices).
 */
typedef struct pl_action {
	uint32_t kind;       /**< PL_ACTION_* */
	uint32_t reason;     /**< PL_REASON_* */
	uint32_t shard;      /**< index into shards */
	uint32_t stream;     /**< the shard's stream, or PL_NONE */
	uint32_t from;       /**< member giving up the leader, replica or ownership; or PL_NONE */
	uint32_t to;         /**< member receiving it; or PL_NONE */
	uint32_t flags;      /**< PL_ACTION_* flags */
	uint32_t origin;     /**< override actions: PL_ORIGIN_* written or dropped */
	/* The numbers that decided it, counted in `scope` before the action. */
	uint32_t scope;      /**< PL_SCOPE_* */
	uint32_t tier;       /**< placement tier 1..5 that chose `to`; 0 otherwise */
	uint32_t from_count; /**< from's count */
	uint32_t to_count;   /**< to's count */
	uint32_t floor;      /**< the floor that applied to `to` */
	uint32_t ceiling;    /**< the ceiling that applied to `to` */
	uint32_t share;      /**< the cluster share (or fair share) that applied */
	uint32_t total;      /**< how many were counted in scope (shards, or target RF) */
	uint64_t at;         /**< override actions: the caller's `now`; override age for drops; a
			      *  broker ZONE_REPAIR: the level repaired (zones' paths' first `at`
			      *  parts), 0 for whole zones */
	uint64_t load;       /**< lag and load moves: the load that decided it */
	/* Bytes (snapshot version 3 sizes). */
	uint64_t bytes;       /**< bytes the action copies: the shard's size when it copies
			       *  (PL_ACTION_STAGE_FIRST), PL_BYTES_UNKNOWN when that size is
			       *  unknown; 0 when it copies nothing */
	uint64_t from_bytes;  /**< from's known bytes before the action (broker copies; else 0) */
	uint64_t to_bytes;    /**< to's known bytes before the action (broker copies; else 0) */
	uint64_t bytes_limit; /**< PL_SCOPE_BYTES: the bound that decided it (FULL_RATIO: from's
			       *  full bytes; BYTES_SKEW: the top of from's bytes band; 0 on an
			       *  exchange's return half); else 0 */
} pl_action;

/** What a policy call did, and why it stopped. */
typedef struct pl_plan_info {
	uint32_t written; /**< actions written to out */
	uint32_t wanted;  /**< at least written; written + 1 when the output filled first */
	uint32_t status;  /**< PL_STATUS_*: why no further action was emitted */
	uint32_t detail;  /**< status-specific index (e.g. a blocked shard), or PL_NONE */
	uint32_t blocked; /**< how many shards were blocked or stalled */
} pl_plan_info;

/**
 * pl_action_explain - one English sentence that says what an action does and
 * which numbers decided it, e.g.
 * "move leader of orders/07 from b2 to b0: stream orders leads 10 on b2,
 * 1 on b0, floor 4, ceiling 4".
 *
 * @param snap  the snapshot the action's indices refer to (for the names).
 * @param a     the action.
 * @param buf   where to write, NUL-terminated; may be NULL when cap is 0.
 * @param cap   size of buf.
 * @return the length of the whole sentence (without the NUL), as snprintf
 *         does, even when it was cut to fit; PL_E_INVAL for a NULL snap or
 *         a, an unknown kind or reason, or an index that does not fit the
 *         snapshot; PL_E_VERSION when snap's version is not
 *         PL_SNAPSHOT_VERSION (nothing else of it is read). On error buf is
 *         untouched.
 */
PL_API int pl_action_explain(const pl_snapshot *snap, const pl_action *a, char *buf, size_t cap);

/** Name of an action kind ("move-leader"), "unknown" otherwise. */
PL_API const char *pl_action_kind_name(uint32_t kind);
/** Name of a reason ("stream-skew"), "unknown" otherwise. */
PL_API const char *pl_reason_name(uint32_t reason);
/** Name of a status ("balanced"), "unknown" otherwise. */
PL_API const char *pl_status_name(uint32_t status);

#ifdef __cplusplus
}
#endif

#endif /* PLACEMENT_PLAN_H */
