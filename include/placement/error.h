/*
 * placement/error.h - error codes.
 *
 * Every function that can fail returns an int: 0 or a count on success, one
 * of the negative PL_E* codes below on failure. The values are fixed forever:
 * a code is never renumbered or reused, new codes are appended. One X-macro
 * list, PL_ERROR_LIST, generates the enum, pl_strerror() and pl_error_name(),
 * so the three cannot drift apart.
 *
 * There is no thread-local "last error". Where the caller needs to know which
 * element of a snapshot was bad, the call takes an optional pl_diag (see
 * placement/snapshot.h) that names the element's kind and index.
 */
#ifndef PLACEMENT_ERROR_H
#define PLACEMENT_ERROR_H

#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(NAME, value, message). Codes -1 .. -39 belong to the foundation; the
 * policies append theirs in their own ranges: broker -40 .. -49, fleet and
 * route -50 .. -59, region -60 .. -69; replica copies in flight (the
 * snapshot's copies array) -70 .. -79. */
#define PL_ERROR_LIST(X)                                                                  \
	X(OK, 0, "success")                                                               \
	X(E_INVAL, -1, "invalid argument")                                                \
	X(E_NULL, -2, "NULL array with a non-zero count")                                 \
	X(E_LIMIT, -3, "count past a documented limit")                                   \
	X(E_LENGTH, -4, "byte string longer than PL_MAX_ID_LEN")                          \
	X(E_EMPTY_ID, -5, "empty id or key")                                              \
	X(E_DUP_MEMBER, -6, "duplicate member id")                                        \
	X(E_DUP_STREAM, -7, "duplicate stream id")                                        \
	X(E_DUP_SHARD, -8, "duplicate shard key")                                         \
	X(E_STREAM_RANGE, -9, "stream index out of range")                                \
	X(E_MEMBER_RANGE, -10, "member index out of range")                               \
	X(E_LEADER_NOT_REPLICA, -11, "leader is not among the shard's replicas")          \
	X(E_DUP_REPLICA, -12, "a member is listed twice among a shard's replicas")        \
	X(E_REPLICAS, -13, "replica count past PL_MAX_REPLICAS")                          \
	X(E_OVERRIDE_SHARD, -14, "override names an unknown shard")                       \
	X(E_OVERRIDE_MEMBER, -15, "override names an unknown member")                     \
	X(E_DUP_OVERRIDE, -16, "two overrides name the same shard")                       \
	X(E_ORIGIN, -17, "unknown override origin")                                       \
	X(E_FLAGS, -18, "unknown flag bits")                                              \
	X(E_WEIGHT, -19, "member weight past PL_MAX_WEIGHT")                              \
	X(E_NO_ELIGIBLE, -20, "no eligible member")                                       \
	X(E_MOVE_TARGET, -21, "in-flight move without a leader or onto its own leader")   \
	X(E_WORKSPACE, -22, "workspace too small")                                        \
	X(E_ALIGN, -23, "workspace misaligned")                                           \
	X(E_NOSPACE, -24, "output buffer too small")                                      \
	X(E_VERSION, -25, "unknown struct version")                                       \
	X(E_CONFIG, -26, "configuration value out of range")                              \
	X(E_SCORER, -27, "unknown scorer id")                                             \
	X(E_NOT_FOUND, -28, "no such member, stream or shard")                            \
	X(E_PEER_DUPLICATE, -29, "member is already a peer of the region")                \
	X(E_EPOCH_STALE, -30, "stale epoch")                                              \
	X(E_TRANSFER_DEBT, -31, "region carries transfer debt")                           \
	X(E_NOT_IDEMPOTENT, -32, "region's destination is not idempotent")                \
	X(E_ACTION, -33, "action does not apply to this view")                            \
	X(E_NOT_READY, -34, "member's shard map is behind the region's epoch")            \
	X(E_SHARD_RANGE, -35, "shard index out of range")                                 \
	X(E_OVERLAP, -39, "output or workspace overlaps an input or the view")            \
	X(E_TOLERANCE, -40, "stream tolerance past PL_MAX_TOLERANCE")                    \
	X(E_ZONE_RULE, -41, "unknown stream zone rule")                                   \
	X(E_STREAM_FLAGS, -42, "unknown stream flags")                                    \
	X(E_ROUTE_VALUE, -50, "route request field is not one of its values")             \
	X(E_ROUTE_OUTCOME, -51, "forward outcome for a request that was not forwarded")   \
	X(E_DOC_SYNTAX, -52, "malformed override document line")                          \
	X(E_DOC_VERSION, -53, "unknown override document version")                       \
	X(E_MEMBER_UNAVAILABLE, -60, "member is down, draining or lagging: it takes no new peer") \
	X(E_MEMBER_FULL, -61, "member holds its max_shards replicas")                     \
	X(E_REPLICA_SET_FULL, -62, "region already lists PL_MAX_REPLICAS peers")          \
	X(E_COPY_SHARD, -70, "copy in flight names an unknown shard")                     \
	X(E_COPY_TO, -71, "copy in flight onto an unknown member")                        \
	X(E_COPY_FROM, -72, "copy in flight replaces an unknown member")                  \
	X(E_COPY_RESERVED, -73, "copy in flight with its reserved field set")             \
	X(E_COPY_TARGET, -74, "copy in flight onto a member that already holds a replica") \
	X(E_COPY_SOURCE, -75, "copy in flight replaces a member that holds no replica")   \
	X(E_COPY_FULL, -76, "copy in flight adds a replica to a full replica set")        \
	X(E_DUP_COPY, -77, "two copies in flight for one shard")                          \
	X(E_REPLICA_ROOM, -36, "replica set at the view's max_replicas")                 \
	X(E_BYTES, -37, "shard size, member capacity or their sum past PL_MAX_BYTES")     \
	X(E_CAPACITY, -38, "member capacity of 0 bytes")                                  \
	X(E_MOVE_IN_FLIGHT, -63, "region has a move in flight: a copy staged and not committed, or a primary move")

/** Error codes. Values are fixed; see PL_ERROR_LIST for the messages. */
typedef enum pl_error {
#define PL__ERROR_ENUM(name, value, msg) PL_##name = value,
	PL_ERROR_LIST(PL__ERROR_ENUM)
#undef PL__ERROR_ENUM
	PL__ERROR_END_ = 1
} pl_error;

/**
 * pl_strerror - a one-line English message for an error code.
 *
 * @return a static string; "unknown error" for a value that is not a code.
 *         Positive values (counts) read as "success".
 */
PL_API const char *pl_strerror(int code);

/**
 * pl_error_name - the code's name without the PL_ prefix, e.g. "E_DUP_MEMBER".
 *
 * @return a static string; "E_UNKNOWN" for a value that is not a code.
 *         Positive values (counts) read as "OK".
 */
PL_API const char *pl_error_name(int code);

#ifdef __cplusplus
}
#endif

#endif /* PLACEMENT_ERROR_H */
