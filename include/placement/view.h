/*
 * placement/view.h - what one tick derives from a snapshot.
 *
 * A view is built in memory the caller hands in: ask pl_view_size(), hand in
 * that many bytes aligned to PL_VIEW_ALIGN, call pl_view_init(). Nothing is
 * allocated, ever. The view validates the snapshot (the same checks as
 * pl_snapshot_validate()), then holds:
 *  - the member and key hashes of the chosen scorer, computed once;
 *  - the canonical orders: members, streams and shards sorted by their id
 *    bytes, so results never depend on the order of the snapshot's arrays;
 *  - the tallies: leaders and replicas per member, in total and per stream,
 *    with in-flight moves counted as if finished; per stream its floor and
 *    ceiling, and the cluster share, over eligible members and in proportion
 *    to their weights (equal weights give floor(s/n) and ceil(s/n)).
 * Per-stream tallies are kept as sparse cells per stream (members that lead
 * some of it), never as a members x streams matrix: memory grows with
 * members + streams + shards.
 *
 * A member is live unless it is down, and eligible when it is live and not
 * draining. Shares, floors, ceilings and rendezvous homes count eligible
 * members only.
 *
 * Policies (placement/broker.h, fleet.h, region.h) take a view, decide, and
 * apply each action they emit to it at once; pl_view_apply() does the same for
 * an action the caller made, and pl_view_settle() marks every in-flight move
 * finished, which is how a dry run steps from one tick to the next.
 *
 * The view reads the snapshot's arrays (not copies) until it is dropped; the
 * snapshot must stay unchanged that long. A view is used by one thread at a
 * time; different views share nothing. To drop a view, free its memory.
 *
 * No output or workspace may share a byte with an input or with another
 * output. Before it writes anything, every call compares each range it
 * would write (an output array, a struct, a workspace, the view pointer, the
 * diag) with each of its inputs: a view (its memory and its snapshot's
 * arrays; a view keeps its own copy of the snapshot struct), a snapshot (its
 * struct and arrays), a configuration, a key, a text, a request, an action,
 * the options and a hint; and with its other outputs. An overlap is refused
 * with PL_E_OVERLAP and nothing is written; where the call takes a pl_diag,
 * it names the output (PL_ELEM_ARGUMENT, its position; of two outputs that
 * overlap each other, the one its page says it compares second: the later
 * argument, but for a view's pointer out, compared after the view's
 * memory). The diag is an output like the others,
 * checked first: a diag that shares a byte with an input or an output is
 * not written at all, whatever else is wrong (the return value alone says
 * PL_E_OVERLAP). The bytes the snapshot's ids and keys point to are not
 * checked (that would cost a pass over every element).
 */
#ifndef PLACEMENT_VIEW_H
#define PLACEMENT_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "plan.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Alignment pl_view_init() requires of its memory (malloc's is enough). */
#define PL_VIEW_ALIGN 8u

/** An opaque view, living inside the caller's memory. */
typedef struct pl_view pl_view;

#define PL_VIEW_OPTIONS_VERSION 3u

/**
 * How to build a view. Start from PL_VIEW_OPTIONS_INIT or
 * pl_view_options_init(). Versions 1 (the first two fields) and 2 (the first
 * three) are still taken; the fields past their end are never read.
 */
typedef struct pl_view_options {
	uint32_t version;      /**< 0: PL_VIEW_OPTIONS_VERSION (3), 2 or 1 */
	uint32_t scorer;       /**< 1: PL_SCORER_XXH3 (default) or PL_SCORER_LEGACY_FNV1A */
	const pl_view *reuse;  /**< 2: version 2: an earlier view, still valid, whose work
				 *  may be reused (see pl_view_init()); NULL (default) for none */
	uint32_t max_replicas; /**< 3: version 3: the most replicas any shard may reach in this
				 *  view, 1..PL_MAX_REPLICAS; 0 (default): PL_MAX_REPLICAS. The
				 *  snapshot's largest replica count (one more for a shard with a
				 *  copy in flight that adds one) raises it. Each shard's state
				 *  has room for that many: see pl_view_size_opt() */
	uint32_t reserved;     /**< 4: version 3: must be 0 */
} pl_view_options;

#define PL_VIEW_OPTIONS_INIT {PL_VIEW_OPTIONS_VERSION, PL_SCORER_XXH3, NULL, 0, 0}

/**
 * pl_view_options_init - set options to their defaults, the same bytes as
 * PL_VIEW_OPTIONS_INIT.
 * @return 0, or PL_E_INVAL for NULL.
 */
PL_API int pl_view_options_init(pl_view_options *opt);

/**
 * pl_view_size - bytes a view of this snapshot needs.
 *
 * @return the size for the snapshot's counts. NULL, a snapshot whose version
 *         is not PL_SNAPSHOT_VERSION (nothing else of it is read) and a
 *         snapshot with a count past its documented limit give the size of
 *         an empty view: pl_view_init() refuses the latter two with
 *         PL_E_VERSION and PL_E_LIMIT whatever the size, so an unknown layout
 *         or a corrupt count costs no memory. Cannot fail.
 */
PL_API size_t pl_view_size(const pl_snapshot *snap);

/**
 * pl_view_size_opt - bytes a view of this snapshot needs when built with
 * these options (NULL: the defaults, the same as pl_view_size()).
 *
 * The size grows with the counts of the snapshot and with the replica room
 * of each shard: opt->max_replicas (version 3) raised to the snapshot's
 * largest replica count, one more for a shard with a copy in flight that
 * adds one (a pass over the shards and copies when it is less than
 * PL_MAX_REPLICAS). A max_replicas past PL_MAX_REPLICAS, an options
 * version pl_view_init() refuses, a NULL array with a non-zero count and a
 * count past its limit give the size of the defaults or of an empty view,
 * and so does a snapshot whose version is not PL_SNAPSHOT_VERSION (nothing
 * else of it is read): the init refuses them whatever the size. Cannot
 * fail.
 */
PL_API size_t pl_view_size_opt(const pl_snapshot *snap, const pl_view_options *opt);

/**
 * pl_view_init - validate a snapshot and build its view in caller memory.
 *
 * @param out   receives the view (a pointer into mem) on success.
 * @param mem   at least pl_view_size_opt(snap, opt) bytes aligned to PL_VIEW_ALIGN.
 * @param size  the size of mem.
 * @param snap  the snapshot; it must outlive the view unchanged.
 * @param opt   NULL for the defaults.
 * @param diag  optional; on failure names the bad element.
 * @return 0, or: PL_E_INVAL (NULL out, mem or snap), PL_E_VERSION (snap's
 *         version is not PL_SNAPSHOT_VERSION: PL_ELEM_ARGUMENT, index 4,
 *         before anything else of it is read and the options are checked),
 *         PL_E_VERSION or PL_E_SCORER (options, PL_ELEM_CONFIG), PL_E_CONFIG
 *         (max_replicas past PL_MAX_REPLICAS: PL_ELEM_CONFIG, index 3;
 *         reserved not 0: index 4), PL_E_NULL or PL_E_LIMIT
 *         (an array, PL_ELEM_SNAPSHOT; before the size), PL_E_WORKSPACE (size
 *         too small), PL_E_ALIGN, PL_E_OVERLAP (the memory the view uses
 *         shares a byte with snap, its arrays, opt or the hint: argument 2;
 *         out shares a byte with any of them or points into the memory:
 *         argument 1; a diag in any of them is not written; opt is compared
 *         as long as its version is, and a snapshot of another version by
 *         its version alone; nothing written), or any error of
 *         pl_snapshot_validate(). On failure *out is untouched and mem
 *         holds nothing usable.
 *
 * The view keeps pointers into mem: it cannot be copied or moved elsewhere.
 *
 * Cost: O(n log n) in the members and streams, linear in the shards (keys
 * are radix-sorted), plus one hash per id and key.
 *
 * Reuse across ticks (opt->version 2, opt->reuse set): reuse names an
 * earlier view, typically of the previous tick's snapshot, that is still
 * valid (its snapshot alive and unchanged since it was built; actions
 * applied to it do not matter) and whose memory does not overlap mem. What
 * still holds is reused after it is checked, never on trust; the new view
 * answers every call byte for byte as a view built without it would:
 *  - the canonical orders and key hashes, when every member id, stream id
 *    and shard key (with its stream) is the same bytes at the same index as
 *    in reuse's snapshot: one sequential comparison instead of the sorts
 *    (ids kept in the same buffers compare by address), which writes each
 *    shard's state as it goes;
 *  - the leader and replica tallies, in total and per stream, when besides
 *    every shard has the same leader, leader move and replicas, the members
 *    are the same or more (joined at the end) and neither snapshot has
 *    copies in flight; with the shards at the same index, up to a quarter
 *    of them may differ or have had a leader or replica action applied to
 *    reuse (each is taken off as reuse held it and added as it is);
 *  - the ring homes, when reuse had them (a fleet decision or
 *    pl_route_lookup() filled them) and the scorer is the same: a shard whose
 *    home is still eligible with the same weight keeps it unless a member
 *    that joined (or became eligible, or changed weight) draws higher, one
 *    score per joiner; a shard whose home left, drained, went down or
 *    changed weight, and a key reuse did not have, is scored against every
 *    eligible member. Members are matched by id, shards by key, so arrays
 *    may be reordered or grow and shrink between ticks.
 * Errors of its own: PL_E_INVAL (PL_ELEM_CONFIG, index 2) when reuse is not
 * a view, PL_E_OVERLAP (argument 2) when its memory or its snapshot's arrays
 * overlap mem.
 */
PL_API int pl_view_init(pl_view **out, void *mem, size_t size, const pl_snapshot *snap,
			const pl_view_options *opt, pl_diag *diag);

/**
 * pl_view_copy - copy a view, with every action applied to it so far, into
 * other memory. The copy and the original then change independently; both
 * read the same snapshot. This is how a dry run asks what each member of a
 * fleet would decide on one tick's snapshot, each on its own copy, without
 * building the view (and its ring homes) again.
 *
 * @param out   receives the copy (a pointer into mem) on success.
 * @param mem   at least pl_view_size_opt() of the view's snapshot and options, aligned to
 *              PL_VIEW_ALIGN, sharing no byte with src or its snapshot's arrays.
 * @param size  the size of mem.
 * @param src   the view to copy.
 * @return 0, or PL_E_INVAL (NULL out or mem, src not a view), PL_E_WORKSPACE
 *         (size too small), PL_E_ALIGN or PL_E_OVERLAP (memory shared with src
 *         or its snapshot's arrays, or out pointing into either). On error *out
 *         and mem are untouched. Cost: one memcpy of the view.
 */
PL_API int pl_view_copy(pl_view **out, void *mem, size_t size, const pl_view *src);

/** Counts of a view. */
typedef struct pl_view_counts {
	uint32_t members;    /**< members in the snapshot */
	uint32_t live;       /**< not down */
	uint32_t eligible;   /**< not down and not draining */
	uint32_t streams;
	uint32_t shards;
	uint32_t overrides;  /**< overrides the view holds now (including any on a down member) */
	uint32_t moving;     /**< shards with a move in flight */
	uint32_t leaderless; /**< shards with no leader, or a leader that is not live */
	uint32_t scorer;     /**< PL_SCORER_* the view scores with */
	uint32_t share;      /**< ceil(shards / eligible members), 0 when none; per-member weighted shares: pl_view_member_tally() */
	uint64_t weight;     /**< sum of eligible members' weights */
	uint32_t copies;     /**< replica copies in flight in the snapshot (their shards are moving) */
} pl_view_counts;

/** pl_view_stats - fill st. @return 0 or PL_E_INVAL. */
PL_API int pl_view_stats(const pl_view *v, pl_view_counts *st);

/** pl_view_snapshot - the view's copy of the snapshot struct it was built
 * from (the arrays are the caller's). NULL for NULL. */
PL_API const pl_snapshot *pl_view_snapshot(const pl_view *v);

/**
 * pl_view_find - the index of the member, stream or shard with these id bytes.
 *
 * @param kind  PL_ELEM_MEMBER, PL_ELEM_STREAM or PL_ELEM_SHARD.
 * @return the index, PL_E_NOT_FOUND, or PL_E_INVAL (NULL view, bad kind,
 *         NULL id with a non-zero length). O(log n).
 */
PL_API int pl_view_find(const pl_view *v, uint32_t kind, const char *id, size_t len);

/**
 * pl_view_at - the element at a place in the canonical order (ids ascending
 * as bytes, a shorter id before its extensions).
 *
 * @param kind  PL_ELEM_MEMBER, PL_ELEM_STREAM or PL_ELEM_SHARD.
 * @param rank  0-based place.
 * @return the element's index in the snapshot; PL_E_MEMBER_RANGE,
 *         PL_E_STREAM_RANGE or PL_E_SHARD_RANGE when rank is past the end;
 *         PL_E_INVAL for a NULL view or a bad kind.
 */
PL_API int pl_view_at(const pl_view *v, uint32_t kind, uint32_t rank);

/** A member's counts, in total or in one stream, and the bounds that apply to it. */
typedef struct pl_tally {
	uint32_t leaders;  /**< shards it leads (in-flight moves counted as finished) */
	uint32_t replicas; /**< shards it holds a replica of */
	uint32_t floor;    /**< floor(shards * weight / eligible weight); 0 when not eligible */
	uint32_t ceiling;  /**< the same rounded up: in total, the cluster share */
	uint32_t shards;   /**< shards counted: all, or the stream's */
} pl_tally;

/**
 * pl_view_member_tally - a member's leaders and replicas in total, with the
 * cluster floor and share (ceiling) that apply to it.
 * @return 0, PL_E_INVAL (NULL) or PL_E_MEMBER_RANGE.
 */
PL_API int pl_view_member_tally(const pl_view *v, uint32_t member, pl_tally *t);

/**
 * pl_view_stream_tally - a member's leaders and replicas in one stream, with
 * that stream's floor and ceiling for it. Leaders are looked up in O(log n)
 * (sparse per-stream cells, kept current by every action); replicas are
 * counted over the stream's shards when another stream was asked last
 * (O(replicas of the stream)), else read in O(1); a small view (streams x
 * members at most a quarter of its shards) keeps every stream's: O(1).
 * @return 0, PL_E_INVAL (NULL), PL_E_STREAM_RANGE or PL_E_MEMBER_RANGE.
 */
PL_API int pl_view_stream_tally(const pl_view *v, uint32_t stream, uint32_t member, pl_tally *t);

/* What pl_view_imbalance() counts: the measure each policy balances. */
#define PL_IMBALANCE_LEADERS 0u  /**< broker with replica_balance 0 (or handoff_only 1): leaders, in total and per stream */
#define PL_IMBALANCE_BROKER 1u   /**< broker (default): leaders and replicas, in total and per stream */
#define PL_IMBALANCE_OWNED 2u    /**< fleet: shards owned, in total */
#define PL_IMBALANCE_REPLICAS 3u /**< region: replicas, in total, against the fair share of live members */

/** How far a layout is from balanced: 0 when every member is within its bounds. */
typedef struct pl_imbalance {
	uint64_t total;   /**< totals + streams */
	uint64_t totals;  /**< the part in the members' totals */
	uint64_t streams; /**< the part in the streams (the broker's measures; 0 for the others) */
} pl_imbalance;

/**
 * pl_view_imbalance - one number for how balanced the view is under a
 * policy's measure: the sum, over every member, of the distance of its count
 * to [floor, ceiling] (every count when it is not held to them), in total and
 * (broker) in each stream; 0 when balanced. The definition is
 * pl_view_imbalance(3)'s. Integers only; O(shards + streams x eligible
 * members) at most, and for PL_IMBALANCE_OWNED the ring homes once
 * (O(shards x eligible), kept in the view as a fleet decision keeps them).
 *
 * @param measure  PL_IMBALANCE_*.
 * @return 0; PL_E_INVAL (NULL view or out, an unknown measure) or
 *         PL_E_OVERLAP (out in the view's memory or its snapshot's arrays).
 *         On error out is untouched.
 */
PL_API int pl_view_imbalance(const pl_view *v, uint32_t measure, pl_imbalance *out);

/** A shard as the view has it now: the snapshot plus the actions applied since. */
typedef struct pl_shard_state {
	uint32_t leader;        /**< member index, or PL_NONE */
	uint32_t replica_count;
	uint32_t replicas[PL_MAX_REPLICAS];
	uint32_t moving;        /**< 1 when a move is in flight */
	uint32_t override_member; /**< fleet override's member, or PL_NONE */
	uint32_t override_origin; /**< PL_ORIGIN_* when override_member is set */
	uint64_t override_since;
	uint64_t epoch;           /**< the shard's epoch, advanced by one by every replica or
				   *  leader action applied to the view, as its commit would */
} pl_shard_state;

/** pl_view_shard_state - fill st. @return 0, PL_E_INVAL (NULL) or PL_E_SHARD_RANGE. */
PL_API int pl_view_shard_state(const pl_view *v, uint32_t shard, pl_shard_state *st);

/**
 * pl_view_home - a shard's ring home: the eligible member with the highest
 * rendezvous score (ties on the member id). O(eligible members).
 * @return the member index; PL_E_NO_ELIGIBLE; PL_E_INVAL (NULL view) or
 *         PL_E_SHARD_RANGE.
 */
PL_API int pl_view_home(const pl_view *v, uint32_t shard);

/**
 * pl_view_top - the k best eligible members for any key, zones spread first:
 * the best-scoring member, then repeatedly the best-scoring member of a zone
 * not yet used, and once every zone is used, the best-scoring remaining
 * members. out[0] is the ring home. One pass over the eligible members
 * (k = 1 is the ring home's own loop), O(eligible members x k) at worst.
 *
 * @param key, len  the key bytes (the shard key for a shard).
 * @param out       receives up to k member indices.
 * @param k         how many are wanted, at most PL_MAX_REPLICAS.
 * @return how many were written, min(k, eligible members); PL_E_INVAL (NULL
 *         view or out, NULL key with a non-zero length, k past
 *         PL_MAX_REPLICAS), PL_E_LENGTH (len past PL_MAX_ID_LEN). On error
 *         out is untouched.
 */
PL_API int pl_view_top(const pl_view *v, const char *key, size_t len, uint32_t *out, uint32_t k);

/**
 * pl_view_apply - apply an action to the view's shard states and tallies, as
 * every policy does with the actions it emits. What each kind needs and does:
 *  - SET_LEADER: `from` is the current leader (or PL_NONE), `to` already holds
 *    a replica (a new shard gets ADD_REPLICA first); `to` leads.
 *  - MOVE_LEADER: `from` is the current leader; `to` leads, taking the old
 *    leader's replica when it held none.
 *  - ADD_REPLICA: `to` holds no replica and the set has fewer than
 *    PL_MAX_REPLICAS; `to` gains one. A set at the view's replica room
 *    (max_replicas, see pl_view_options) below that is refused with
 *    PL_E_REPLICA_ROOM.
 *  - MOVE_REPLICA: `from` holds a replica, `to` none; the replica moves, and
 *    the leadership with it when `from` led.
 *  - SET_OVERRIDE: the shard is owned by `to` with `origin`, since `at`.
 *  - DROP_OVERRIDE: the shard has an override (on `from`, unless PL_NONE).
 * MOVE_LEADER, ADD_REPLICA and MOVE_REPLICA copy data, so the shard stays in
 * flight (not moved again) until pl_view_settle().
 *
 * @return 0; PL_E_INVAL for NULL; PL_E_ACTION when the action does not fit
 *         the view as above, or an index is out of range; PL_E_REPLICA_ROOM
 *         as above. On error the view is unchanged.
 */
PL_API int pl_view_apply(pl_view *v, const pl_action *a);

/**
 * pl_view_settle - mark every in-flight move finished, as the next tick's
 * snapshot would show it. Tallies do not change (they already count moves
 * as finished); moving shards become movable again, and the view forgets
 * which shards moved: a policy run on it next decides as on a view built
 * afresh from that snapshot, so a dry run is what a tick loop does.
 * @return how many moves were settled, or PL_E_INVAL.
 */
PL_API int pl_view_settle(pl_view *v);

#ifdef __cplusplus
}
#endif

#endif /* PLACEMENT_VIEW_H */
