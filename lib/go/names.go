// The library's codes, kinds, reasons and statuses as typed constants. The
// values are the C library's own (cgo reads them from the headers); the
// tests check every name against the headers' lists and the C name
// functions.

package placement

// #include <placement.h>
import "C"

// The library's error codes (PL_E_*), each an error value: a returned
// *Error matches its code with errors.Is. String gives pl_error_name()
// ("E_DUP_MEMBER"), Error the name and pl_strerror()'s message.
const (
	// ErrInval is PL_E_INVAL: invalid argument.
	ErrInval Code = C.PL_E_INVAL
	// ErrNull is PL_E_NULL: NULL array with a non-zero count.
	ErrNull Code = C.PL_E_NULL
	// ErrLimit is PL_E_LIMIT: count past a documented limit.
	ErrLimit Code = C.PL_E_LIMIT
	// ErrLength is PL_E_LENGTH: byte string longer than PL_MAX_ID_LEN.
	ErrLength Code = C.PL_E_LENGTH
	// ErrEmptyID is PL_E_EMPTY_ID: empty id or key.
	ErrEmptyID Code = C.PL_E_EMPTY_ID
	// ErrDupMember is PL_E_DUP_MEMBER: duplicate member id.
	ErrDupMember Code = C.PL_E_DUP_MEMBER
	// ErrDupStream is PL_E_DUP_STREAM: duplicate stream id.
	ErrDupStream Code = C.PL_E_DUP_STREAM
	// ErrDupShard is PL_E_DUP_SHARD: duplicate shard key.
	ErrDupShard Code = C.PL_E_DUP_SHARD
	// ErrStreamRange is PL_E_STREAM_RANGE: stream index out of range.
	ErrStreamRange Code = C.PL_E_STREAM_RANGE
	// ErrMemberRange is PL_E_MEMBER_RANGE: member index out of range.
	ErrMemberRange Code = C.PL_E_MEMBER_RANGE
	// ErrLeaderNotReplica is PL_E_LEADER_NOT_REPLICA: leader is not among the shard's replicas.
	ErrLeaderNotReplica Code = C.PL_E_LEADER_NOT_REPLICA
	// ErrDupReplica is PL_E_DUP_REPLICA: a member is listed twice among a shard's replicas.
	ErrDupReplica Code = C.PL_E_DUP_REPLICA
	// ErrReplicas is PL_E_REPLICAS: replica count past PL_MAX_REPLICAS.
	ErrReplicas Code = C.PL_E_REPLICAS
	// ErrOverrideShard is PL_E_OVERRIDE_SHARD: override names an unknown shard.
	ErrOverrideShard Code = C.PL_E_OVERRIDE_SHARD
	// ErrOverrideMember is PL_E_OVERRIDE_MEMBER: override names an unknown member.
	ErrOverrideMember Code = C.PL_E_OVERRIDE_MEMBER
	// ErrDupOverride is PL_E_DUP_OVERRIDE: two overrides name the same shard.
	ErrDupOverride Code = C.PL_E_DUP_OVERRIDE
	// ErrOrigin is PL_E_ORIGIN: unknown override origin.
	ErrOrigin Code = C.PL_E_ORIGIN
	// ErrFlags is PL_E_FLAGS: unknown flag bits.
	ErrFlags Code = C.PL_E_FLAGS
	// ErrWeight is PL_E_WEIGHT: member weight past PL_MAX_WEIGHT.
	ErrWeight Code = C.PL_E_WEIGHT
	// ErrNoEligible is PL_E_NO_ELIGIBLE: no eligible member.
	ErrNoEligible Code = C.PL_E_NO_ELIGIBLE
	// ErrMoveTarget is PL_E_MOVE_TARGET: in-flight move without a leader or onto its own leader.
	ErrMoveTarget Code = C.PL_E_MOVE_TARGET
	// ErrWorkspace is PL_E_WORKSPACE: workspace too small.
	ErrWorkspace Code = C.PL_E_WORKSPACE
	// ErrAlign is PL_E_ALIGN: workspace misaligned.
	ErrAlign Code = C.PL_E_ALIGN
	// ErrNospace is PL_E_NOSPACE: output buffer too small.
	ErrNospace Code = C.PL_E_NOSPACE
	// ErrVersion is PL_E_VERSION: unknown struct version.
	ErrVersion Code = C.PL_E_VERSION
	// ErrConfig is PL_E_CONFIG: configuration value out of range.
	ErrConfig Code = C.PL_E_CONFIG
	// ErrScorer is PL_E_SCORER: unknown scorer id.
	ErrScorer Code = C.PL_E_SCORER
	// ErrNotFound is PL_E_NOT_FOUND: no such member, stream or shard.
	ErrNotFound Code = C.PL_E_NOT_FOUND
	// ErrPeerDuplicate is PL_E_PEER_DUPLICATE: member is already a peer of the region.
	ErrPeerDuplicate Code = C.PL_E_PEER_DUPLICATE
	// ErrEpochStale is PL_E_EPOCH_STALE: stale epoch.
	ErrEpochStale Code = C.PL_E_EPOCH_STALE
	// ErrTransferDebt is PL_E_TRANSFER_DEBT: region carries transfer debt.
	ErrTransferDebt Code = C.PL_E_TRANSFER_DEBT
	// ErrNotIdempotent is PL_E_NOT_IDEMPOTENT: region's destination is not idempotent.
	ErrNotIdempotent Code = C.PL_E_NOT_IDEMPOTENT
	// ErrAction is PL_E_ACTION: action does not apply to this view.
	ErrAction Code = C.PL_E_ACTION
	// ErrNotReady is PL_E_NOT_READY: member's shard map is behind the region's epoch.
	ErrNotReady Code = C.PL_E_NOT_READY
	// ErrShardRange is PL_E_SHARD_RANGE: shard index out of range.
	ErrShardRange Code = C.PL_E_SHARD_RANGE
	// ErrOverlap is PL_E_OVERLAP: output or workspace overlaps an input or the view.
	ErrOverlap Code = C.PL_E_OVERLAP
	// ErrRouteValue is PL_E_ROUTE_VALUE: route request field is not one of its values.
	ErrRouteValue Code = C.PL_E_ROUTE_VALUE
	// ErrRouteOutcome is PL_E_ROUTE_OUTCOME: forward outcome for a request that was not forwarded.
	ErrRouteOutcome Code = C.PL_E_ROUTE_OUTCOME
	// ErrDocSyntax is PL_E_DOC_SYNTAX: malformed override document line.
	ErrDocSyntax Code = C.PL_E_DOC_SYNTAX
	// ErrDocVersion is PL_E_DOC_VERSION: unknown override document version.
	ErrDocVersion Code = C.PL_E_DOC_VERSION
	// ErrMemberUnavailable is PL_E_MEMBER_UNAVAILABLE: member is down, draining or lagging: it takes no new peer.
	ErrMemberUnavailable Code = C.PL_E_MEMBER_UNAVAILABLE
	// ErrMemberFull is PL_E_MEMBER_FULL: member holds its max_shards replicas.
	ErrMemberFull Code = C.PL_E_MEMBER_FULL
	// ErrReplicaSetFull is PL_E_REPLICA_SET_FULL: region already lists PL_MAX_REPLICAS peers.
	ErrReplicaSetFull Code = C.PL_E_REPLICA_SET_FULL
	// ErrCopyShard is PL_E_COPY_SHARD: copy in flight names an unknown shard.
	ErrCopyShard Code = C.PL_E_COPY_SHARD
	// ErrCopyTo is PL_E_COPY_TO: copy in flight onto an unknown member.
	ErrCopyTo Code = C.PL_E_COPY_TO
	// ErrCopyFrom is PL_E_COPY_FROM: copy in flight replaces an unknown member.
	ErrCopyFrom Code = C.PL_E_COPY_FROM
	// ErrCopyReserved is PL_E_COPY_RESERVED: copy in flight with its reserved field set.
	ErrCopyReserved Code = C.PL_E_COPY_RESERVED
	// ErrCopyTarget is PL_E_COPY_TARGET: copy in flight onto a member that already holds a replica.
	ErrCopyTarget Code = C.PL_E_COPY_TARGET
	// ErrCopySource is PL_E_COPY_SOURCE: copy in flight replaces a member that holds no replica.
	ErrCopySource Code = C.PL_E_COPY_SOURCE
	// ErrCopyFull is PL_E_COPY_FULL: copy in flight adds a replica to a full replica set.
	ErrCopyFull Code = C.PL_E_COPY_FULL
	// ErrDupCopy is PL_E_DUP_COPY: two copies in flight for one shard.
	ErrDupCopy Code = C.PL_E_DUP_COPY
	// ErrReplicaRoom is PL_E_REPLICA_ROOM: replica set at the view's max_replicas.
	ErrReplicaRoom Code = C.PL_E_REPLICA_ROOM
	// ErrBytes is PL_E_BYTES: shard size, member capacity or their sum past PL_MAX_BYTES.
	ErrBytes Code = C.PL_E_BYTES
	// ErrCapacity is PL_E_CAPACITY: member capacity of 0 bytes.
	ErrCapacity Code = C.PL_E_CAPACITY
	// ErrTolerance is PL_E_TOLERANCE: stream tolerance past PL_MAX_TOLERANCE
	// (MaxShardTolerance); it names the stream.
	ErrTolerance Code = C.PL_E_TOLERANCE
	// ErrZoneRule is PL_E_ZONE_RULE: unknown stream zone rule; it names the stream.
	ErrZoneRule Code = C.PL_E_ZONE_RULE
	// ErrStreamFlags is PL_E_STREAM_FLAGS: unknown stream flags (a bit
	// outside StreamFlagsAll); it names the stream.
	ErrStreamFlags Code = C.PL_E_STREAM_FLAGS
	// ErrMoveInFlight is PL_E_MOVE_IN_FLIGHT: region has a move in flight: a copy staged and not committed, or a primary move.
	ErrMoveInFlight Code = C.PL_E_MOVE_IN_FLIGHT
)

// Action kinds (PL_ACTION_*); String gives pl_action_kind_name().
const (
	// KindSetLeader is "set-leader": shard gets leader `to` (from = old or NONE).
	KindSetLeader Kind = C.PL_ACTION_SET_LEADER
	// KindMoveLeader is "move-leader": leadership from -> to; copies when to held none.
	KindMoveLeader Kind = C.PL_ACTION_MOVE_LEADER
	// KindAddReplica is "add-replica": `to` gains a replica.
	KindAddReplica Kind = C.PL_ACTION_ADD_REPLICA
	// KindMoveReplica is "move-replica": from's replica moves to `to`.
	KindMoveReplica Kind = C.PL_ACTION_MOVE_REPLICA
	// KindSetOverride is "set-override": fleet: shard owned by `to`, origin `origin`.
	KindSetOverride Kind = C.PL_ACTION_SET_OVERRIDE
	// KindDropOverride is "drop-override": fleet: override on `from` removed; goes home to `to`.
	KindDropOverride Kind = C.PL_ACTION_DROP_OVERRIDE
)

// Why an action was emitted (PL_REASON_*); String gives pl_reason_name().
const (
	// ReasonNew is "new": a new shard is placed.
	ReasonNew Reason = C.PL_REASON_NEW
	// ReasonFailover is "failover": its leader is down.
	ReasonFailover Reason = C.PL_REASON_FAILOVER
	// ReasonDrain is "drain": its leader is draining.
	ReasonDrain Reason = C.PL_REASON_DRAIN
	// ReasonStreamSkew is "stream-skew": a stream leads uneven.
	ReasonStreamSkew Reason = C.PL_REASON_STREAM_SKEW
	// ReasonClusterSkew is "cluster-skew": the totals are uneven.
	ReasonClusterSkew Reason = C.PL_REASON_CLUSTER_SKEW
	// ReasonCount is "count": fleet member over the share.
	ReasonCount Reason = C.PL_REASON_COUNT
	// ReasonSpread is "spread": fleet member below the floor.
	ReasonSpread Reason = C.PL_REASON_SPREAD
	// ReasonLag is "lag": fleet member lagging.
	ReasonLag Reason = C.PL_REASON_LAG
	// ReasonReturnHome is "return-home": lag override aged out.
	ReasonReturnHome Reason = C.PL_REASON_RETURN_HOME
	// ReasonVoidOverride is "void-override": override's member is down.
	ReasonVoidOverride Reason = C.PL_REASON_VOID_OVERRIDE
	// ReasonRedundantOverride is "redundant-override": override names the ring home.
	ReasonRedundantOverride Reason = C.PL_REASON_REDUNDANT_OVERRIDE
	// ReasonUnderRf is "under-rf": region below its replication factor.
	ReasonUnderRf Reason = C.PL_REASON_UNDER_RF
	// ReasonIdleMember is "idle-member": a member below its fair share of replicas.
	ReasonIdleMember Reason = C.PL_REASON_IDLE_MEMBER
	// ReasonNewestPeer is "newest-peer": primary follows the newest peer.
	ReasonNewestPeer Reason = C.PL_REASON_NEWEST_PEER
	// ReasonLoad is "load": primary toward clearly less load.
	ReasonLoad Reason = C.PL_REASON_LOAD
	// ReasonNoPrimary is "no-primary": region has no live primary.
	ReasonNoPrimary Reason = C.PL_REASON_NO_PRIMARY
	// ReasonPrimarySkew is "primary-skew": region: primaries uneven within the peer sets.
	ReasonPrimarySkew Reason = C.PL_REASON_PRIMARY_SKEW
	// ReasonZoneRepair is "zone-repair": broker: replicas span fewer zones than they could.
	ReasonZoneRepair Reason = C.PL_REASON_ZONE_REPAIR
	// ReasonReplicaDrain is "replica-drain": broker: a replica on a draining member.
	ReasonReplicaDrain Reason = C.PL_REASON_REPLICA_DRAIN
	// ReasonReplicaStreamSkew is "replica-stream-skew": broker: a stream's replicas uneven.
	ReasonReplicaStreamSkew Reason = C.PL_REASON_REPLICA_STREAM_SKEW
	// ReasonReplicaClusterSkew is "replica-cluster-skew": broker: replicas in total uneven.
	ReasonReplicaClusterSkew Reason = C.PL_REASON_REPLICA_CLUSTER_SKEW
	// ReasonFullRatio is "full-ratio": broker: a member past its full ratio sheds bytes.
	ReasonFullRatio Reason = C.PL_REASON_FULL_RATIO
	// ReasonBytesSkew is "bytes-skew": broker: a member's bytes outside its tolerance.
	ReasonBytesSkew Reason = C.PL_REASON_BYTES_SKEW
)

// Why a policy call stopped emitting (PL_STATUS_*); String gives
// pl_status_name().
const (
	// StatusBalanced is "balanced": nothing more is wanted.
	StatusBalanced Status = C.PL_STATUS_BALANCED
	// StatusPaused is "paused": the policy is paused.
	StatusPaused Status = C.PL_STATUS_PAUSED
	// StatusMoveLimit is "move-limit": concurrent or per-member move limit.
	StatusMoveLimit Status = C.PL_STATUS_MOVE_LIMIT
	// StatusBlockedZones is "blocked-zones": wanted moves would lose a zone.
	StatusBlockedZones Status = C.PL_STATUS_BLOCKED_ZONES
	// StatusBlockedCaps is "blocked-caps": wanted moves would pass max_shards.
	StatusBlockedCaps Status = C.PL_STATUS_BLOCKED_CAPS
	// StatusFull is "full": the output array filled first.
	StatusFull Status = C.PL_STATUS_FULL
	// StatusCooldown is "cooldown": the member's move cooldown runs.
	StatusCooldown Status = C.PL_STATUS_COOLDOWN
	// StatusWaiting is "waiting": ranked past the last place this tick.
	StatusWaiting Status = C.PL_STATUS_WAITING
	// StatusNotLive is "not-live": the deciding member is down or draining.
	StatusNotLive Status = C.PL_STATUS_NOT_LIVE
	// StatusProposalsOff is "proposals-off": add-peer proposals are switched off.
	StatusProposalsOff Status = C.PL_STATUS_PROPOSALS_OFF
	// StatusStalled is "stalled": no ready candidate for some shard.
	StatusStalled Status = C.PL_STATUS_STALLED
	// StatusActionCap is "action-cap": the configured actions per call reached.
	StatusActionCap Status = C.PL_STATUS_ACTION_CAP
	// StatusInFlight is "in-flight": broker: wanted moves wait on moves in flight.
	StatusInFlight Status = C.PL_STATUS_IN_FLIGHT
	// StatusDrainStalled is "drain-stalled": broker: a draining member's replica has nowhere to go.
	StatusDrainStalled Status = C.PL_STATUS_DRAIN_STALLED
	// StatusBlockedHandoff is "blocked-handoff": broker, hand-offs only: a bound only a copy would meet.
	StatusBlockedHandoff Status = C.PL_STATUS_BLOCKED_HANDOFF
	// StatusBlockedFull is "blocked-full": broker: wanted moves would pass a full ratio.
	StatusBlockedFull Status = C.PL_STATUS_BLOCKED_FULL
	// StatusReturningHome is "returning-home": fleet: lag overrides wait to go home.
	StatusReturningHome Status = C.PL_STATUS_RETURNING_HOME
	// StatusLagging is "lagging": fleet: an eligible member lags.
	StatusLagging Status = C.PL_STATUS_LAGGING
	// StatusMoving is "moving": fleet: count, spread or keep moves are wanted.
	StatusMoving Status = C.PL_STATUS_MOVING
	// StatusUneven is "uneven": fleet: out of bounds, and no rule on moves it.
	StatusUneven Status = C.PL_STATUS_UNEVEN
	// StatusBlockedBounds is "blocked-bounds": broker: out of bounds, and no move the rules allow brings it in.
	StatusBlockedBounds Status = C.PL_STATUS_BLOCKED_BOUNDS
)
