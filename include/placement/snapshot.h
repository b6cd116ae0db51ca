/*
 * placement/snapshot.h - what the caller knows, one tick at a time.
 *
 * A snapshot is plain data the caller fills and owns: members, streams,
 * shards and overrides. Strings are (pointer, length) byte ranges that need
 * not be NUL-terminated. There are no callbacks, unions or bit-fields and
 * every number is a fixed-width integer, so any language's FFI can fill it.
 * The library never writes to a snapshot and keeps no pointer into it past a
 * call, except that a pl_view (placement/view.h) reads the snapshot it was
 * built from for as long as the view is used.
 *
 * Cross references are indices into the snapshot's own arrays. PL_NONE (all
 * ones) means "none" wherever an index is optional.
 *
 * Nothing depends on the order of the arrays: every result is computed in a
 * canonical order (members by id bytes, shards by key bytes, streams by id
 * bytes), so two control planes that list the same content in different
 * orders get the same answer, up to the indices that name it.
 *
 * The struct layout rule. pl_snapshot opens with a version, like the
 * options and config structs: start from PL_SNAPSHOT_INIT (or set .version
 * = PL_SNAPSHOT_VERSION), then set the fields. A new field goes at the end
 * of its struct, and a versioned struct's version goes up when it grows;
 * the library reads only the fields of the version the caller set. Every
 * function that reads a caller's pl_snapshot refuses any other version with
 * PL_E_VERSION before it reads another byte of it, so a caller built against
 * an older layout is refused, never misread: the layout before the version
 * began with a pointer, whose low 32 bits (aligned, or NULL) are even, while
 * PL_SNAPSHOT_VERSION is odd; a zeroed struct (version 0) is refused too.
 * A positional initializer written for that layout puts a pointer into the
 * version: an error in C++ and under -Werror in C.
 */
#ifndef PLACEMENT_SNAPSHOT_H
#define PLACEMENT_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** "No index": an unset leader, stream, move destination or override. */
#define PL_NONE UINT32_C(0xFFFFFFFF)

/* Documented limits. pl_snapshot_validate() refuses anything past them. */
#define PL_MAX_MEMBERS (UINT32_C(1) << 20)  /**< members in one snapshot */
#define PL_MAX_STREAMS (UINT32_C(1) << 24)  /**< streams in one snapshot */
#define PL_MAX_SHARDS (UINT32_C(1) << 26)   /**< shards (and overrides) in one snapshot */
#define PL_MAX_ID_LEN 1024u                 /**< bytes in an id, zone or key */
#define PL_MAX_REPLICAS 8u                  /**< replicas of one shard */
#define PL_MAX_WEIGHT 65536u                /**< a member's relative weight */
#define PL_MAX_COPIES PL_MAX_SHARDS         /**< copies in flight: at most one per shard */
/** Most a member's capacity may be, in bytes (2^62); the known sizes of all
 * shards together may be at most PL_MAX_BYTES / PL_MAX_REPLICAS (2^59, 512
 * PiB), so no member's bytes can pass it. */
#define PL_MAX_BYTES (UINT64_C(1) << 62)
/** A size or capacity the caller does not know: not zero (the seed's
 * "unmeasured is not empty"). */
#define PL_BYTES_UNKNOWN UINT64_MAX

/** A byte range. It need not be NUL-terminated; len 0 means empty. */
typedef struct pl_bytes {
	const char *ptr;
	uint64_t len;
} pl_bytes;

/* pl_member.flags */
#define PL_MEMBER_DOWN 0x1u       /**< not live: owns, leads and receives nothing */
#define PL_MEMBER_DRAINING 0x2u   /**< live, but takes nothing new; the broker policy hands off all it has, the region policy leaves its peers */
#define PL_MEMBER_LAGGING 0x4u    /**< live, but behind: never a destination of a fleet or region move (the broker policy does not read it) */
#define PL_MEMBER_UNMEASURED 0x8u /**< its load is unknown: load is ignored */
#define PL_MEMBER_FLAGS_ALL 0xFu

/**
 * A member: a process that can own shards (broker, instance, node).
 *
 * A member is live unless PL_MEMBER_DOWN is set, and eligible (may receive
 * leaders and new shards) when it is live and not draining.
 */
typedef struct pl_member {
	pl_bytes id;          /**< unique, non-empty; ties break on these bytes */
	pl_bytes zone;        /**< failure domain; empty = a zone of its own */
	uint64_t joined_at;   /**< caller's clock when it joined; greater = newer */
	uint64_t load;        /**< caller's measure of load; see PL_MEMBER_UNMEASURED */
	uint64_t map_version; /**< version of the shard map it has installed */
	uint32_t weight;      /**< relative capacity, 1..PL_MAX_WEIGHT; 0 reads as 1 */
	uint32_t max_shards;  /**< most replicas it may hold; 0 = no cap */
	uint32_t flags;       /**< PL_MEMBER_* */
} pl_member;

/** A stream: a set of shards whose spread matters together. */
typedef struct pl_stream {
	pl_bytes id; /**< unique, non-empty */
} pl_stream;

/* pl_shard.flags */
#define PL_SHARD_NOT_IDEMPOTENT 0x1u /**< its destination is not idempotent (a rollup): never placed */
#define PL_SHARD_TRANSFER_DEBT 0x2u  /**< carries transfer debt: no peer is added or moved */
#define PL_SHARD_FLAGS_ALL 0x3u
/**
 * replicas[j] is not in sync (Kafka's ISR, Redpanda's healthy replicas): it
 * holds data and counts as a replica, but may not take the leadership. No
 * hand-off or failover goes to it, and a shard with no live in-sync replica
 * is offline: reported (PL_STATUS_STALLED), never given a copy. Bits j past
 * replica_count, or the leader's own bit, are refused (PL_E_FLAGS). Zero,
 * the default: every replica is in sync.
 */
#define PL_SHARD_OUT_OF_SYNC(j) (0x100u << (j))
#define PL_SHARD_OUT_OF_SYNC_ALL 0xFF00u

/**
 * A shard: the unit that is placed.
 *
 * replicas[0 .. replica_count) are the members holding a copy; the leader,
 * when set, is one of them. A shard with no replicas and no leader is new.
 * moving_to, when set, is a leader move in flight: the view counts it as if
 * finished (moving_to leads; if it held no replica it takes the old leader's).
 */
typedef struct pl_shard {
	pl_bytes key;        /**< unique, non-empty */
	uint64_t epoch;      /**< the shard map's epoch for this shard (regions) */
	uint64_t load;       /**< caller's measure of the shard's load (fleet lag moves) */
	uint32_t stream;     /**< index into streams, or PL_NONE */
	uint32_t leader;     /**< index into members, or PL_NONE */
	uint32_t moving_to;  /**< index into members, or PL_NONE */
	uint32_t flags;      /**< PL_SHARD_*, PL_SHARD_OUT_OF_SYNC(j) */
	uint32_t replica_count;
	uint32_t replicas[PL_MAX_REPLICAS];
} pl_shard;

/* pl_override.origin */
#define PL_ORIGIN_LAG 0u   /**< placed off its home for lag (the zero value) */
#define PL_ORIGIN_COUNT 1u /**< placed off its home by count balance */

/** A fleet's record that a shard lives off its ring home. */
typedef struct pl_override {
	uint64_t since;  /**< caller's clock when it was written */
	uint32_t shard;  /**< index into shards; at most one override per shard */
	uint32_t member; /**< index into members: the shard's owner */
	uint32_t origin; /**< PL_ORIGIN_* */
} pl_override;

/**
 * A replica copy in flight: staged on `to`, not yet committed. The view counts
 * it as finished (`to` holds a replica; `from`, when set, no longer does, and
 * when `from` led the shard `to` leads it), and marks the shard moving, as a
 * leader move in flight does: a move in flight against the broker's limits,
 * and a shard no policy acts on (no region is staged again, onto `to` or any
 * other member) while it is listed. At most one copy per shard is in flight:
 * each commit changes the shard's epoch, so a second would fail its
 * compare-and-set. Listed against the snapshot's replicas, after a leader
 * move in flight (moving_to) of the same shard is counted finished.
 */
typedef struct pl_copy {
	uint32_t shard;    /**< index into shards */
	uint32_t to;       /**< index into members: where the copy is staged; not already a replica */
	uint32_t from;     /**< index into members: the replica it replaces on commit, or PL_NONE (a peer added) */
	uint32_t reserved; /**< must be 0 */
} pl_copy;

/** The layout of pl_snapshot a caller fills: odd, as every version of it
 * will be. 3 added shard_bytes and member_capacity at the end, 5 the
 * streams' rules (stream_tolerance, stream_zone_rule, stream_flags); an older snapshot
 * (which ends before them) is read as it was, with every size and capacity
 * unknown and every stream's rules the defaults. */
#define PL_SNAPSHOT_VERSION 5u

/* snapshot.stream_zone_rule: how a stream's shards spread over zones (the
 * broker policy). */
#define PL_ZONES_SPAN 0u     /**< span as many zones as it can (the default) */
#define PL_ZONES_MAJORITY 1u /**< that, and no zone holds a majority's worth: at most (replicas - 1) / 2
			      *  of a shard's replicas in one zone, so losing any zone leaves a majority
			      *  (Kudu's placement rule); where the zones cannot, as few in one as they allow */
#define PL_ZONES_RULE_MAX 1u
/* snapshot.stream_flags (the broker policy). */
#define PL_STREAM_KEEP 0x1u /**< excluded from balancing: no balance move (leaders, replicas or bytes, of the
			     *  stream or of the totals) takes one of its shards; they still count in every
			     *  member's totals, and failover, drains, zone repair and new shards' placement
			     *  still move them (Cruise Control's excluded topics) */
#define PL_STREAM_FLAGS_ALL 0x1u
/** snapshot.stream_tolerance: the stream takes the config's stream_tolerance. */
#define PL_TOLERANCE_DEFAULT UINT32_MAX
/** Most a tolerance may be, in shards (a stream's, or a config's). */
#define PL_MAX_TOLERANCE PL_MAX_SHARDS

/**
 * Everything one tick knows. Arrays may be NULL only when their count is 0.
 *
 * version comes first and must be 1, 3 or PL_SNAPSHOT_VERSION (5): start from
 * PL_SNAPSHOT_INIT, then set the fields. Fields are only ever added at the
 * end, with a new version, and a function reads only the fields of the
 * version its caller set. Any other version is refused with PL_E_VERSION
 * before anything else of the struct is read: 0 (a zeroed struct), and the
 * layout before the version, whose first member (members, a pointer) has
 * even low 32 bits, aligned or NULL, where every version is odd.
 */
typedef struct pl_snapshot {
	uint32_t version; /**< PL_SNAPSHOT_VERSION */
	const pl_member *members;
	const pl_stream *streams;
	const pl_shard *shards;
	const pl_override *overrides;
	const pl_copy *copies; /**< replica copies in flight */
	uint32_t n_members;
	uint32_t n_streams;
	uint32_t n_shards;
	uint32_t n_overrides;
	uint32_t n_copies;
	/* Version 3. Sizes in bytes, parallel to the arrays they describe, so
	 * pl_shard and pl_member keep their layout; NULL = all unknown. */
	const uint64_t *shard_bytes;     /**< n_shards sizes: each shard's data on one replica, or PL_BYTES_UNKNOWN */
	const uint64_t *member_capacity; /**< n_members capacities: bytes a member can hold, or PL_BYTES_UNKNOWN */
	/* Version 5. Each stream's rules, parallel to streams; NULL = every
	 * stream's default. The broker policy reads them (placement/broker.h,
	 * "Rules"); the other policies do not. */
	const uint32_t *stream_tolerance; /**< n_streams: shards by which a member's count of the stream may
					   *  stray past its floor and ceiling before a move is made, at most
					   *  PL_MAX_TOLERANCE; PL_TOLERANCE_DEFAULT = the config's */
	const uint32_t *stream_zone_rule; /**< n_streams: PL_ZONES_SPAN (0) or PL_ZONES_MAJORITY */
	const uint32_t *stream_flags;     /**< n_streams: PL_STREAM_* (PL_STREAM_KEEP) */
} pl_snapshot;

/** A snapshot with its version set, no arrays and zero counts: start from
 * it, then set the fields. Positional, so C and C++ both take it, and every
 * field is named, so -Wextra (missing-field-initializers) takes it too. */
#define PL_SNAPSHOT_INIT {PL_SNAPSHOT_VERSION, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL}

/* pl_diag.kind: which array the bad element is in. */
#define PL_ELEM_NONE 0u
#define PL_ELEM_SNAPSHOT 1u /**< an array of the snapshot: index 0..4 = members, streams, shards,
			     *  overrides, copies */
#define PL_ELEM_MEMBER 2u
#define PL_ELEM_STREAM 3u
#define PL_ELEM_SHARD 4u
#define PL_ELEM_OVERRIDE 5u
#define PL_ELEM_CONFIG 6u   /**< a field of an options or config struct (index = its place, 0 = version) */
#define PL_ELEM_ARGUMENT 7u /**< a function argument (index = its position, from 1) */
#define PL_ELEM_COPY 8u     /**< a copy in flight (snapshot.copies) */

/**
 * Which element of the input was bad. Filled only when a call fails; a call
 * that succeeds leaves it untouched.
 */
typedef struct pl_diag {
	int32_t code;   /**< the PL_E* code the call returned */
	uint32_t kind;  /**< PL_ELEM_* */
	uint32_t index; /**< index of the element in its array */
	uint32_t other; /**< an earlier element it clashes with (duplicates), else PL_NONE */
} pl_diag;

/**
 * pl_snapshot_work_size - bytes of workspace pl_snapshot_validate() needs.
 *
 * @param snap  the snapshot; NULL gives 0.
 * @return the size for the snapshot's counts; 0 when a count is past its
 *         limit, or the version is not PL_SNAPSHOT_VERSION (nothing else of
 *         it is read): validation refuses both before it looks at the
 *         workspace, so a corrupt count or an unknown layout costs nothing.
 *         Cannot fail. pl_view_size() of the same snapshot is always at
 *         least as large, so a view's memory serves.
 */
PL_API size_t pl_snapshot_work_size(const pl_snapshot *snap);

/**
 * pl_snapshot_validate - check a snapshot against every rule the library needs.
 *
 * Checks, in this order, and stops at the first failure:
 *  0. the version: not 1, 3 or PL_SNAPSHOT_VERSION is PL_E_VERSION (PL_ELEM_ARGUMENT,
 *     index 1), before anything else of the snapshot is read;
 *  1. the arrays: NULL with a non-zero count (PL_E_NULL, PL_ELEM_SNAPSHOT,
 *     index 0..4 for members, streams, shards, overrides, copies); a count
 *     past its limit (PL_E_LIMIT, same indices; copies to PL_MAX_COPIES);
 *     both before the workspace arguments are looked at;
 *  2. each member: id empty (PL_E_EMPTY_ID) or past PL_MAX_ID_LEN, zone past
 *     it (PL_E_LENGTH), a byte range with a NULL pointer and a non-zero
 *     length (PL_E_NULL, for every id, zone and key), unknown flags
 *     (PL_E_FLAGS), weight past
 *     PL_MAX_WEIGHT (PL_E_WEIGHT); then ids unique (PL_E_DUP_MEMBER);
 *  3. each stream: id empty or too long; then ids unique (PL_E_DUP_STREAM);
 *  4. each shard: key empty or too long; stream index (PL_E_STREAM_RANGE);
 *     replica_count (PL_E_REPLICAS); replica, leader and moving_to indices
 *     (PL_E_MEMBER_RANGE); a replica listed twice (PL_E_DUP_REPLICA); leader
 *     not among the replicas (PL_E_LEADER_NOT_REPLICA); moving_to without a
 *     leader or equal to it (PL_E_MOVE_TARGET); unknown flags (PL_E_FLAGS);
 *     then keys unique (PL_E_DUP_SHARD);
 *  5. each override: shard index (PL_E_OVERRIDE_SHARD), member index
 *     (PL_E_OVERRIDE_MEMBER), origin (PL_E_ORIGIN); two on one shard
 *     (PL_E_DUP_OVERRIDE);
 *  6. sizes (version 3 and later): a member_capacity of 0 (PL_E_CAPACITY,
 *     PL_ELEM_MEMBER; a member that holds nothing is PL_MEMBER_DOWN), a
 *     capacity past PL_MAX_BYTES (PL_E_BYTES, PL_ELEM_MEMBER), and the
 *     first shard at which the running sum of the known sizes passes
 *     PL_MAX_BYTES / PL_MAX_REPLICAS (PL_E_BYTES, PL_ELEM_SHARD);
 *     PL_BYTES_UNKNOWN is never past a limit; then (version 5) each
 *     stream's rules (PL_ELEM_STREAM): a stream_tolerance past
 *     PL_MAX_TOLERANCE that is not PL_TOLERANCE_DEFAULT (PL_E_TOLERANCE), a
 *     stream_zone_rule past PL_ZONES_RULE_MAX (PL_E_ZONE_RULE), a
 *     stream_flags bit outside PL_STREAM_FLAGS_ALL (PL_E_STREAM_FLAGS);
 *  7. each copy in flight (PL_ELEM_COPY): shard index (PL_E_COPY_SHARD), `to`
 *     index (PL_E_COPY_TO), `from` index or PL_NONE (PL_E_COPY_FROM),
 *     reserved not 0 (PL_E_COPY_RESERVED); `to` already holds a replica
 *     (PL_E_COPY_TARGET), `from` holds none (PL_E_COPY_SOURCE), both read
 *     with the shard's leader move in flight counted finished; an added
 *     replica (from PL_NONE) with the set at PL_MAX_REPLICAS (PL_E_COPY_FULL);
 *     then two on one shard (PL_E_DUP_COPY).
 * For a duplicate, diag->index is the smallest index whose id an earlier
 * element already has, and diag->other that earlier element.
 *
 * @param snap       the snapshot; NULL is PL_E_INVAL, a version other than
 *                   PL_SNAPSHOT_VERSION PL_E_VERSION (argument 1).
 * @param work       scratch of at least pl_snapshot_work_size(snap) bytes,
 *                   aligned to 8; may be NULL only when that size is 0
 *                   (else PL_E_INVAL).
 * @param work_size  its size; too small is PL_E_WORKSPACE, misaligned PL_E_ALIGN;
 *                   work sharing a byte with snap or its arrays PL_E_OVERLAP.
 * @param diag       optional; on failure names the first bad element. A diag
 *                   sharing a byte with snap, its arrays or work is not
 *                   written (PL_E_OVERLAP): view.h's overlap rule. Of a
 *                   snapshot of another version only the version is read,
 *                   and compared.
 * @return 0 when the snapshot is valid, else the first error found.
 *
 * Zero members is valid here; a policy that needs an eligible member returns
 * PL_E_NO_ELIGIBLE itself. The call allocates nothing and runs in
 * O(n log n) of the largest array. pl_view_init() runs the same checks, so a
 * caller that builds a view need not call this first.
 */
PL_API int pl_snapshot_validate(const pl_snapshot *snap, void *work, size_t work_size,
				pl_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* PLACEMENT_SNAPSHOT_H */
