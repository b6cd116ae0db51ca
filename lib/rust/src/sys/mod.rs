//! The raw C declarations of libplacement, one to one with
//! `include/placement/*.h`.
//!
//! Everything here mirrors the C headers: `#[repr(C)]` structs with the same
//! fields in the same order, the `PL_*` constants, and the `extern "C"`
//! functions. A test (`tests/layout.rs`) compiles a C program against the
//! headers and checks every struct's size, every field's offset and every
//! constant against these declarations.
//!
//! Calling these functions is `unsafe`: they take raw pointers and rely on the
//! rules the headers state (a view's snapshot outlives it, arrays are as long
//! as their counts). The safe API of the crate is built on them; the only
//! `unsafe` code of the crate is in this module (`sys::safe`, private to the
//! crate, wraps each call it needs once, with the reason it is sound).
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int};

mod raw_view;
pub(crate) mod safe;
mod structs;

pub use structs::*;

// ---- version.h -------------------------------------------------------------

/// `PL_VERSION_MAJOR` of the headers this crate was written against.
pub const PL_VERSION_MAJOR: u32 = 0;
/// `PL_VERSION_MINOR`.
pub const PL_VERSION_MINOR: u32 = 1;
/// `PL_VERSION_PATCH`.
pub const PL_VERSION_PATCH: u32 = 0;
/// `PL_VERSION_STRING`: "MAJOR.MINOR.PATCH".
pub const PL_VERSION_STRING: &str = "0.1.0";
/// `PL_VERSION_NUMBER`: MAJOR * 10000 + MINOR * 100 + PATCH.
pub const PL_VERSION_NUMBER: c_int = 100;

// ---- error.h ---------------------------------------------------------------
// Only the codes the crate itself produces or tests are named here; every
// code's name comes from pl_error_name().

/// `PL_OK`.
pub const PL_OK: c_int = 0;
/// `PL_E_INVAL`: invalid argument.
pub const PL_E_INVAL: c_int = -1;
/// `PL_E_NULL`: NULL array with a non-zero count.
pub const PL_E_NULL: c_int = -2;
/// `PL_E_LIMIT`: count past a documented limit.
pub const PL_E_LIMIT: c_int = -3;
/// `PL_E_LENGTH`: byte string longer than `PL_MAX_ID_LEN`.
pub const PL_E_LENGTH: c_int = -4;
/// `PL_E_STREAM_RANGE`: stream index out of range.
pub const PL_E_STREAM_RANGE: c_int = -9;
/// `PL_E_MEMBER_RANGE`: member index out of range.
pub const PL_E_MEMBER_RANGE: c_int = -10;
/// `PL_E_OVERRIDE_SHARD`: override names an unknown shard.
pub const PL_E_OVERRIDE_SHARD: c_int = -14;
/// `PL_E_OVERRIDE_MEMBER`: override names an unknown member.
pub const PL_E_OVERRIDE_MEMBER: c_int = -15;
/// `PL_E_NOSPACE`: output buffer too small.
pub const PL_E_NOSPACE: c_int = -24;
/// `PL_E_VERSION`: unknown struct version (a snapshot's or an options or
/// config struct's).
pub const PL_E_VERSION: c_int = -25;
/// `PL_E_NOT_FOUND`: no such member, stream or shard.
pub const PL_E_NOT_FOUND: c_int = -28;
/// `PL_E_ACTION`: action does not apply to this view.
pub const PL_E_ACTION: c_int = -33;
/// `PL_E_SHARD_RANGE`: shard index out of range.
pub const PL_E_SHARD_RANGE: c_int = -35;
/// `PL_E_REPLICA_ROOM`: replica set at the view's max_replicas.
pub const PL_E_REPLICA_ROOM: c_int = -36;
/// `PL_E_BYTES`: shard size, member capacity or their sum past `PL_MAX_BYTES`.
pub const PL_E_BYTES: c_int = -37;
/// `PL_E_CAPACITY`: member capacity of 0 bytes.
pub const PL_E_CAPACITY: c_int = -38;
/// `PL_E_TOLERANCE`: stream tolerance past `PL_MAX_TOLERANCE` (the diag names
/// `PL_ELEM_STREAM` and its index).
pub const PL_E_TOLERANCE: c_int = -40;
/// `PL_E_ZONE_RULE`: unknown stream zone rule (`PL_ELEM_STREAM`).
pub const PL_E_ZONE_RULE: c_int = -41;
/// `PL_E_STREAM_FLAGS`: unknown stream flags, a bit outside
/// `PL_STREAM_FLAGS_ALL` (`PL_ELEM_STREAM`).
pub const PL_E_STREAM_FLAGS: c_int = -42;
/// `PL_E_COPY_SHARD`: copy in flight names an unknown shard.
pub const PL_E_COPY_SHARD: c_int = -70;
/// `PL_E_COPY_TO`: copy in flight onto an unknown member.
pub const PL_E_COPY_TO: c_int = -71;
/// `PL_E_COPY_FROM`: copy in flight replaces an unknown member.
pub const PL_E_COPY_FROM: c_int = -72;
/// `PL_E_NO_ELIGIBLE`: no eligible member (every member down or draining).
pub const PL_E_NO_ELIGIBLE: c_int = -20;

// ---- snapshot.h ------------------------------------------------------------

/// `PL_NONE`: "no index".
pub const PL_NONE: u32 = 0xFFFF_FFFF;
/// `PL_MAX_MEMBERS`: members in one snapshot.
pub const PL_MAX_MEMBERS: u32 = 1 << 20;
/// `PL_MAX_STREAMS`: streams in one snapshot.
pub const PL_MAX_STREAMS: u32 = 1 << 24;
/// `PL_MAX_SHARDS`: shards (and overrides) in one snapshot.
pub const PL_MAX_SHARDS: u32 = 1 << 26;
/// `PL_MAX_ID_LEN`: bytes in an id, zone or key.
pub const PL_MAX_ID_LEN: u32 = 1024;
/// `PL_MAX_REPLICAS`: replicas of one shard.
pub const PL_MAX_REPLICAS: u32 = 8;
/// `PL_MAX_WEIGHT`: a member's relative weight.
pub const PL_MAX_WEIGHT: u32 = 65536;
/// `PL_MAX_COPIES`: copies in flight, at most one per shard.
pub const PL_MAX_COPIES: u32 = PL_MAX_SHARDS;
/// `PL_SNAPSHOT_VERSION`: the layout of `pl_snapshot` this crate fills (its
/// `version`, the first field; 3 added `shard_bytes` and `member_capacity`,
/// 5 `stream_tolerance`, `stream_zone_rule` and `stream_flags`; 1 and 3 are read too; any
/// other is refused with `PL_E_VERSION`).
pub const PL_SNAPSHOT_VERSION: u32 = 5;
/// `PL_ZONES_SPAN`: a stream's shards span as many zones as they can (the
/// default zone rule, `pl_snapshot.stream_zone_rule`).
pub const PL_ZONES_SPAN: u32 = 0;
/// `PL_ZONES_MAJORITY`: that, and no zone holds a majority's worth: at most
/// (replicas - 1) / 2 of a shard's replicas in one zone.
pub const PL_ZONES_MAJORITY: u32 = 1;
/// `PL_ZONES_RULE_MAX`: the last zone rule.
pub const PL_ZONES_RULE_MAX: u32 = 1;
/// `PL_STREAM_KEEP`: in `pl_snapshot.stream_flags`, the stream is excluded
/// from balancing (the broker policy): no balance move (leaders, replicas or
/// bytes, of the stream or of the totals) takes one of its shards; they
/// still count in every member's totals, and failover, drains, zone repair
/// and new shards' placement still move them.
pub const PL_STREAM_KEEP: u32 = 0x1;
/// `PL_STREAM_FLAGS_ALL`: every stream flag the library knows.
pub const PL_STREAM_FLAGS_ALL: u32 = 0x1;
/// `PL_TOLERANCE_DEFAULT`: in `pl_snapshot.stream_tolerance`, the stream
/// takes the config's `stream_tolerance`.
pub const PL_TOLERANCE_DEFAULT: u32 = u32::MAX;
/// `PL_MAX_TOLERANCE`: most a tolerance may be, in shards (a stream's, or a
/// config's).
pub const PL_MAX_TOLERANCE: u32 = PL_MAX_SHARDS;
/// `PL_MAX_BYTES`: most a member's capacity may be, in bytes (2^62); the
/// known sizes of all shards together may be at most
/// `PL_MAX_BYTES / PL_MAX_REPLICAS`.
pub const PL_MAX_BYTES: u64 = 1 << 62;
/// `PL_BYTES_UNKNOWN`: a size or capacity the caller does not know (not zero).
pub const PL_BYTES_UNKNOWN: u64 = u64::MAX;

/// `PL_MEMBER_DOWN`: not live.
pub const PL_MEMBER_DOWN: u32 = 0x1;
/// `PL_MEMBER_DRAINING`: live, hands off what it has, takes nothing new.
pub const PL_MEMBER_DRAINING: u32 = 0x2;
/// `PL_MEMBER_LAGGING`: live, but never the destination of a move.
pub const PL_MEMBER_LAGGING: u32 = 0x4;
/// `PL_MEMBER_UNMEASURED`: its load is unknown.
pub const PL_MEMBER_UNMEASURED: u32 = 0x8;
/// `PL_MEMBER_FLAGS_ALL`.
pub const PL_MEMBER_FLAGS_ALL: u32 = 0xF;

/// `PL_SHARD_NOT_IDEMPOTENT`: its destination is not idempotent (a rollup).
pub const PL_SHARD_NOT_IDEMPOTENT: u32 = 0x1;
/// `PL_SHARD_TRANSFER_DEBT`: carries transfer debt.
pub const PL_SHARD_TRANSFER_DEBT: u32 = 0x2;
/// `PL_SHARD_OUT_OF_SYNC(0)`: `replicas[0]` is not in sync; replica j's bit is
/// this shifted left by j.
pub const PL_SHARD_OUT_OF_SYNC_0: u32 = 0x100;
/// `PL_SHARD_FLAGS_ALL`.
pub const PL_SHARD_FLAGS_ALL: u32 = 0x3;

/// `PL_ORIGIN_LAG`: an override placed for lag.
pub const PL_ORIGIN_LAG: u32 = 0;
/// `PL_ORIGIN_COUNT`: an override placed by count balance.
pub const PL_ORIGIN_COUNT: u32 = 1;

/// `PL_IMBALANCE_LEADERS`: the broker's leaders, in total and per stream.
pub const PL_IMBALANCE_LEADERS: u32 = 0;
/// `PL_IMBALANCE_BROKER`: the broker's leaders and replicas, in total and per stream.
pub const PL_IMBALANCE_BROKER: u32 = 1;
/// `PL_IMBALANCE_OWNED`: a fleet's shards owned, in total.
pub const PL_IMBALANCE_OWNED: u32 = 2;
/// `PL_IMBALANCE_REPLICAS`: the region policy's replicas against the fair share.
pub const PL_IMBALANCE_REPLICAS: u32 = 3;

/// `PL_ELEM_NONE`.
pub const PL_ELEM_NONE: u32 = 0;
/// `PL_ELEM_SNAPSHOT`: an array of the snapshot (index 0..4: members,
/// streams, shards, overrides, copies).
pub const PL_ELEM_SNAPSHOT: u32 = 1;
/// `PL_ELEM_MEMBER`.
pub const PL_ELEM_MEMBER: u32 = 2;
/// `PL_ELEM_STREAM`.
pub const PL_ELEM_STREAM: u32 = 3;
/// `PL_ELEM_SHARD`.
pub const PL_ELEM_SHARD: u32 = 4;
/// `PL_ELEM_OVERRIDE`.
pub const PL_ELEM_OVERRIDE: u32 = 5;
/// `PL_ELEM_CONFIG`: a field of an options or config struct.
pub const PL_ELEM_CONFIG: u32 = 6;
/// `PL_ELEM_ARGUMENT`: a function argument (from 1).
pub const PL_ELEM_ARGUMENT: u32 = 7;
/// `PL_ELEM_COPY`: a copy in flight (`snapshot.copies`).
pub const PL_ELEM_COPY: u32 = 8;

// ---- hash.h ----------------------------------------------------------------

/// `PL_SCORER_XXH3`: XXH3-64 hashes mixed by `pl_score()`.
pub const PL_SCORER_XXH3: u32 = 1;
/// `PL_SCORER_LEGACY_FNV1A`: FNV-1a 64 over `"<key> <member id>"`.
pub const PL_SCORER_LEGACY_FNV1A: u32 = 2;

// ---- plan.h ----------------------------------------------------------------

/// `PL_ACTION_STAGE_FIRST`: copies data; stage on `to` first, then commit.
pub const PL_ACTION_STAGE_FIRST: u32 = 0x1;
/// `PL_ACTION_CARRIES_LEADER`: a MOVE_REPLICA of the leader's replica; `to`
/// leads after it.
pub const PL_ACTION_CARRIES_LEADER: u32 = 0x2;
/// `PL_ACTION_PAIRED`: one step of two actions, carried out together.
pub const PL_ACTION_PAIRED: u32 = 0x4;
/// `PL_ACTION_FOR_HANDOFF`: a follower's replica copied so that the leader
/// can hand `to` the leadership after it.
pub const PL_ACTION_FOR_HANDOFF: u32 = 0x8;
/// `PL_ACTION_EXCHANGE`: one of the two replica moves of a bytes exchange.
pub const PL_ACTION_EXCHANGE: u32 = 0x10;
/// `PL_STATUS_BALANCED`: nothing more is wanted.
pub const PL_STATUS_BALANCED: u32 = 0;
/// `PL_STATUS_FULL`: the output array filled first.
pub const PL_STATUS_FULL: u32 = 5;
/// `PL_ACTION_SET_LEADER` ("set-leader"): shard gets leader `to` (from = old or NONE).
pub const PL_ACTION_SET_LEADER: u32 = 1;
/// `PL_ACTION_MOVE_LEADER` ("move-leader"): leadership from -> to; copies when to held none.
pub const PL_ACTION_MOVE_LEADER: u32 = 2;
/// `PL_ACTION_ADD_REPLICA` ("add-replica"): `to` gains a replica.
pub const PL_ACTION_ADD_REPLICA: u32 = 3;
/// `PL_ACTION_MOVE_REPLICA` ("move-replica"): from's replica moves to `to`.
pub const PL_ACTION_MOVE_REPLICA: u32 = 4;
/// `PL_ACTION_SET_OVERRIDE` ("set-override"): fleet: shard owned by `to`, origin `origin`.
pub const PL_ACTION_SET_OVERRIDE: u32 = 5;
/// `PL_ACTION_DROP_OVERRIDE` ("drop-override"): fleet: override on `from` removed; goes home to `to`.
pub const PL_ACTION_DROP_OVERRIDE: u32 = 6;
/// `PL_REASON_NEW` ("new"): a new shard is placed.
pub const PL_REASON_NEW: u32 = 1;
/// `PL_REASON_FAILOVER` ("failover"): its leader is down.
pub const PL_REASON_FAILOVER: u32 = 2;
/// `PL_REASON_DRAIN` ("drain"): its leader is draining.
pub const PL_REASON_DRAIN: u32 = 3;
/// `PL_REASON_STREAM_SKEW` ("stream-skew"): a stream leads uneven.
pub const PL_REASON_STREAM_SKEW: u32 = 4;
/// `PL_REASON_CLUSTER_SKEW` ("cluster-skew"): the totals are uneven.
pub const PL_REASON_CLUSTER_SKEW: u32 = 5;
/// `PL_REASON_COUNT` ("count"): fleet member over the share.
pub const PL_REASON_COUNT: u32 = 6;
/// `PL_REASON_SPREAD` ("spread"): fleet member below the floor.
pub const PL_REASON_SPREAD: u32 = 7;
/// `PL_REASON_LAG` ("lag"): fleet member lagging.
pub const PL_REASON_LAG: u32 = 8;
/// `PL_REASON_RETURN_HOME` ("return-home"): lag override aged out.
pub const PL_REASON_RETURN_HOME: u32 = 9;
/// `PL_REASON_VOID_OVERRIDE` ("void-override"): override's member is down.
pub const PL_REASON_VOID_OVERRIDE: u32 = 10;
/// `PL_REASON_REDUNDANT_OVERRIDE` ("redundant-override"): override names the ring home.
pub const PL_REASON_REDUNDANT_OVERRIDE: u32 = 11;
/// `PL_REASON_UNDER_RF` ("under-rf"): region below its replication factor.
pub const PL_REASON_UNDER_RF: u32 = 12;
/// `PL_REASON_IDLE_MEMBER` ("idle-member"): a member below its fair share of replicas.
pub const PL_REASON_IDLE_MEMBER: u32 = 13;
/// `PL_REASON_NEWEST_PEER` ("newest-peer"): primary follows the newest peer.
pub const PL_REASON_NEWEST_PEER: u32 = 14;
/// `PL_REASON_LOAD` ("load"): primary toward clearly less load.
pub const PL_REASON_LOAD: u32 = 15;
/// `PL_REASON_NO_PRIMARY` ("no-primary"): region has no live primary.
pub const PL_REASON_NO_PRIMARY: u32 = 25;
/// `PL_REASON_PRIMARY_SKEW` ("primary-skew"): region: primaries uneven within the peer sets.
pub const PL_REASON_PRIMARY_SKEW: u32 = 26;
/// `PL_REASON_ZONE_REPAIR` ("zone-repair"): broker: replicas span fewer zones than they could.
pub const PL_REASON_ZONE_REPAIR: u32 = 16;
/// `PL_REASON_REPLICA_DRAIN` ("replica-drain"): broker: a replica on a draining member.
pub const PL_REASON_REPLICA_DRAIN: u32 = 17;
/// `PL_REASON_REPLICA_STREAM_SKEW` ("replica-stream-skew"): broker: a stream's replicas uneven.
pub const PL_REASON_REPLICA_STREAM_SKEW: u32 = 18;
/// `PL_REASON_REPLICA_CLUSTER_SKEW` ("replica-cluster-skew"): broker: replicas in total uneven.
pub const PL_REASON_REPLICA_CLUSTER_SKEW: u32 = 19;
/// `PL_REASON_FULL_RATIO` ("full-ratio"): broker: a member past its full ratio sheds bytes.
pub const PL_REASON_FULL_RATIO: u32 = 30;
/// `PL_REASON_BYTES_SKEW` ("bytes-skew"): broker: a member's bytes outside its tolerance.
pub const PL_REASON_BYTES_SKEW: u32 = 31;
/// `PL_STATUS_PAUSED` ("paused"): the policy is paused.
pub const PL_STATUS_PAUSED: u32 = 1;
/// `PL_STATUS_MOVE_LIMIT` ("move-limit"): concurrent or per-member move limit.
pub const PL_STATUS_MOVE_LIMIT: u32 = 2;
/// `PL_STATUS_BLOCKED_ZONES` ("blocked-zones"): wanted moves would lose a zone.
pub const PL_STATUS_BLOCKED_ZONES: u32 = 3;
/// `PL_STATUS_BLOCKED_CAPS` ("blocked-caps"): wanted moves would pass max_shards.
pub const PL_STATUS_BLOCKED_CAPS: u32 = 4;
/// `PL_STATUS_COOLDOWN` ("cooldown"): the member's move cooldown runs.
pub const PL_STATUS_COOLDOWN: u32 = 6;
/// `PL_STATUS_WAITING` ("waiting"): ranked past the last place this tick.
pub const PL_STATUS_WAITING: u32 = 7;
/// `PL_STATUS_NOT_LIVE` ("not-live"): the deciding member is down or draining.
pub const PL_STATUS_NOT_LIVE: u32 = 8;
/// `PL_STATUS_PROPOSALS_OFF` ("proposals-off"): add-peer proposals are switched off.
pub const PL_STATUS_PROPOSALS_OFF: u32 = 9;
/// `PL_STATUS_STALLED` ("stalled"): no ready candidate for some shard.
pub const PL_STATUS_STALLED: u32 = 10;
/// `PL_STATUS_ACTION_CAP` ("action-cap"): the configured actions per call reached.
pub const PL_STATUS_ACTION_CAP: u32 = 11;
/// `PL_STATUS_IN_FLIGHT` ("in-flight"): broker: wanted moves wait on moves in flight.
pub const PL_STATUS_IN_FLIGHT: u32 = 12;
/// `PL_STATUS_DRAIN_STALLED` ("drain-stalled"): broker: a draining member's replica has nowhere to go.
pub const PL_STATUS_DRAIN_STALLED: u32 = 13;
/// `PL_STATUS_BLOCKED_HANDOFF` ("blocked-handoff"): broker, hand-offs only: a bound only a copy would meet.
pub const PL_STATUS_BLOCKED_HANDOFF: u32 = 14;
/// `PL_STATUS_BLOCKED_FULL` ("blocked-full"): broker: wanted moves would pass a full ratio.
pub const PL_STATUS_BLOCKED_FULL: u32 = 15;
/// `PL_STATUS_RETURNING_HOME` ("returning-home"): fleet: lag overrides wait to go home.
pub const PL_STATUS_RETURNING_HOME: u32 = 16;
/// `PL_STATUS_LAGGING` ("lagging"): fleet: an eligible member lags.
pub const PL_STATUS_LAGGING: u32 = 17;
/// `PL_STATUS_MOVING` ("moving"): fleet: count, spread or keep moves are wanted.
pub const PL_STATUS_MOVING: u32 = 18;
/// `PL_STATUS_UNEVEN` ("uneven"): fleet: out of bounds, and no rule on moves it.
pub const PL_STATUS_UNEVEN: u32 = 19;
/// `PL_STATUS_BLOCKED_BOUNDS` ("blocked-bounds"): broker: out of bounds, and no move the rules allow brings it in.
pub const PL_STATUS_BLOCKED_BOUNDS: u32 = 20;
/// `PL_SCOPE_NONE`.
pub const PL_SCOPE_NONE: u32 = 0;
/// `PL_SCOPE_STREAM`: leaders of the action's stream.
pub const PL_SCOPE_STREAM: u32 = 1;
/// `PL_SCOPE_CLUSTER`: leaders in total.
pub const PL_SCOPE_CLUSTER: u32 = 2;
/// `PL_SCOPE_OWNED`: shards owned (fleet).
pub const PL_SCOPE_OWNED: u32 = 3;
/// `PL_SCOPE_REPLICAS`: replicas held.
pub const PL_SCOPE_REPLICAS: u32 = 4;
/// `PL_SCOPE_PRIMARIES`: primaries held.
pub const PL_SCOPE_PRIMARIES: u32 = 5;
/// `PL_SCOPE_PEERS`: peers of the shard.
pub const PL_SCOPE_PEERS: u32 = 6;
/// `PL_SCOPE_STREAM_REPLICAS`: replicas of the action's stream.
pub const PL_SCOPE_STREAM_REPLICAS: u32 = 7;
/// `PL_SCOPE_ZONES`: zones the shard spans (from_count before, to_count
/// after, total it could span).
pub const PL_SCOPE_ZONES: u32 = 8;
/// `PL_SCOPE_BYTES`: bytes held (`from_bytes`, `to_bytes` and `bytes_limit`
/// say what decided it).
pub const PL_SCOPE_BYTES: u32 = 9;

// ---- view.h ----------------------------------------------------------------

/// `PL_VIEW_ALIGN`: alignment of a view's memory.
pub const PL_VIEW_ALIGN: u32 = 8;
/// `PL_VIEW_OPTIONS_VERSION`.
pub const PL_VIEW_OPTIONS_VERSION: u32 = 3;

// ---- broker.h --------------------------------------------------------------

/// `PL_BROKER_CONFIG_VERSION`: 4 added `tolerance` and `stream_tolerance`.
pub const PL_BROKER_CONFIG_VERSION: u32 = 4;
/// `PL_BROKER_MAX_MOVES`.
pub const PL_BROKER_MAX_MOVES: u32 = 256;
/// `PL_BROKER_MAX_TOLERANCE`: most a config's `bytes_tolerance` may be, in percent.
pub const PL_BROKER_MAX_TOLERANCE: u32 = 1000;
/// `PL_BROKER_STALL_HELD`: every eligible member holds a replica of the shard.
pub const PL_BROKER_STALL_HELD: u32 = 1;
/// `PL_BROKER_STALL_ZONES`: every other eligible member would lower the
/// shard's zone count.
pub const PL_BROKER_STALL_ZONES: u32 = 2;
/// `PL_BROKER_STALL_CAPS`: every member that keeps the zone count is at its
/// `max_shards`.
pub const PL_BROKER_STALL_CAPS: u32 = 3;

// ---- fleet.h ---------------------------------------------------------------

/// `PL_FLEET_CONFIG_VERSION`.
pub const PL_FLEET_CONFIG_VERSION: u32 = 1;
/// `PL_FLEET_NEVER`: a time that never comes.
pub const PL_FLEET_NEVER: u64 = 0xFFFF_FFFF_FFFF_FFFF;
/// `PL_FLEET_DOC_VERSION`.
pub const PL_FLEET_DOC_VERSION: u32 = 1;
/// `PL_FLEET_PICK_HOME`: the shard's ring home is the target.
pub const PL_FLEET_PICK_HOME: u32 = 1;
/// `PL_FLEET_PICK_NEXT`: the target is its next rendezvous choice.
pub const PL_FLEET_PICK_NEXT: u32 = 2;
/// `PL_FLEET_PICK_OVERRIDE`: one of self's count overrides.
pub const PL_FLEET_PICK_OVERRIDE: u32 = 3;
/// `PL_FLEET_PICK_ANY`: key order.
pub const PL_FLEET_PICK_ANY: u32 = 4;
/// `PL_FLEET_PICK_KEEP`: self's shard the target holds through a lag
/// override after the lag; the target keeps it, by count.
pub const PL_FLEET_PICK_KEEP: u32 = 5;

// ---- region.h --------------------------------------------------------------

/// `PL_REGION_CONFIG_VERSION`.
pub const PL_REGION_CONFIG_VERSION: u32 = 1;
/// `PL_REGION_WANT_PRIMARY`: the stalled region wanted a live primary.
pub const PL_REGION_WANT_PRIMARY: u32 = 1;
/// `PL_REGION_WANT_PEER`: the stalled region wanted a peer.
pub const PL_REGION_WANT_PEER: u32 = 2;

// ---- route.h ---------------------------------------------------------------

/// `PL_ROUTE_BODY_LIMIT`.
pub const PL_ROUTE_BODY_LIMIT: u32 = 65536;
/// `PL_ROUTE_ANSWER_SERVED`.
pub const PL_ROUTE_ANSWER_SERVED: u32 = 0;
/// `PL_ROUTE_ANSWER_NOT_OWNER`.
pub const PL_ROUTE_ANSWER_NOT_OWNER: u32 = 1;
/// `PL_ROUTE_BODY_UNREAD`.
pub const PL_ROUTE_BODY_UNREAD: u32 = 0;
/// `PL_ROUTE_BODY_WHOLE`.
pub const PL_ROUTE_BODY_WHOLE: u32 = 1;
/// `PL_ROUTE_BODY_PAST_LIMIT`.
pub const PL_ROUTE_BODY_PAST_LIMIT: u32 = 2;
/// `PL_ROUTE_BODY_PARTIAL`.
pub const PL_ROUTE_BODY_PARTIAL: u32 = 3;
/// `PL_ROUTE_OUTCOME_NONE`.
pub const PL_ROUTE_OUTCOME_NONE: u32 = 0;
/// `PL_ROUTE_OUTCOME_ANSWERED`.
pub const PL_ROUTE_OUTCOME_ANSWERED: u32 = 1;
/// `PL_ROUTE_OUTCOME_REFUSED`.
pub const PL_ROUTE_OUTCOME_REFUSED: u32 = 2;
/// `PL_ROUTE_OUTCOME_FAILED`.
pub const PL_ROUTE_OUTCOME_FAILED: u32 = 3;
/// `PL_ROUTE_REQUEST_VERSION`.
pub const PL_ROUTE_REQUEST_VERSION: u32 = 1;
/// `PL_ROUTE_SERVE`.
pub const PL_ROUTE_SERVE: u32 = 1;
/// `PL_ROUTE_FORWARD`.
pub const PL_ROUTE_FORWARD: u32 = 2;
/// `PL_ROUTE_RELAY`.
pub const PL_ROUTE_RELAY: u32 = 3;
/// `PL_ROUTE_REPLAY`.
pub const PL_ROUTE_REPLAY: u32 = 4;
/// `PL_ROUTE_FAILED`.
pub const PL_ROUTE_FAILED: u32 = 5;
/// `PL_ROUTE_SEND_NONE`.
pub const PL_ROUTE_SEND_NONE: u32 = 0;
/// `PL_ROUTE_SEND_STREAM`.
pub const PL_ROUTE_SEND_STREAM: u32 = 1;
/// `PL_ROUTE_SEND_FRAMES`.
pub const PL_ROUTE_SEND_FRAMES: u32 = 2;

extern "C" {
    /// `pl_version(3)`.
    pub fn pl_version() -> *const c_char;
    /// `pl_version_number(3)`.
    pub fn pl_version_number() -> c_int;
    /// `pl_strerror(3)`.
    pub fn pl_strerror(code: c_int) -> *const c_char;
    /// `pl_error_name(3)`.
    pub fn pl_error_name(code: c_int) -> *const c_char;

    /// `pl_snapshot_work_size(3)`.
    pub fn pl_snapshot_work_size(snap: *const pl_snapshot) -> usize;
    /// `pl_snapshot_validate(3)`.
    pub fn pl_snapshot_validate(
        snap: *const pl_snapshot,
        work: *mut std::ffi::c_void,
        work_size: usize,
        diag: *mut pl_diag,
    ) -> c_int;

    /// `pl_hash(3)`.
    pub fn pl_hash(data: *const std::ffi::c_void, len: usize) -> u64;
    /// `pl_score(3)`.
    pub fn pl_score(key_hash: u64, member_hash: u64) -> u64;
    /// `pl_score_legacy(3)`.
    pub fn pl_score_legacy(
        key: *const std::ffi::c_void,
        key_len: usize,
        member_id: *const std::ffi::c_void,
        member_id_len: usize,
    ) -> u64;
    /// `pl_score_weighted(3)`.
    pub fn pl_score_weighted(score: u64, weight: u32) -> i64;

    /// `pl_action_explain(3)`.
    pub fn pl_action_explain(
        snap: *const pl_snapshot,
        a: *const pl_action,
        buf: *mut c_char,
        cap: usize,
    ) -> c_int;
    /// `pl_action_kind_name(3)`.
    pub fn pl_action_kind_name(kind: u32) -> *const c_char;
    /// `pl_reason_name(3)`.
    pub fn pl_reason_name(reason: u32) -> *const c_char;
    /// `pl_status_name(3)`.
    pub fn pl_status_name(status: u32) -> *const c_char;

    /// `pl_view_options_init(3)`.
    pub fn pl_view_options_init(opt: *mut pl_view_options) -> c_int;
    /// `pl_view_size(3)`.
    pub fn pl_view_size(snap: *const pl_snapshot) -> usize;
    /// `pl_view_size_opt(3)`.
    pub fn pl_view_size_opt(snap: *const pl_snapshot, opt: *const pl_view_options) -> usize;
    /// `pl_view_init(3)`.
    pub fn pl_view_init(
        out: *mut *mut pl_view,
        mem: *mut std::ffi::c_void,
        size: usize,
        snap: *const pl_snapshot,
        opt: *const pl_view_options,
        diag: *mut pl_diag,
    ) -> c_int;
    /// `pl_view_copy(3)`.
    pub fn pl_view_copy(
        out: *mut *mut pl_view,
        mem: *mut std::ffi::c_void,
        size: usize,
        src: *const pl_view,
    ) -> c_int;
    /// `pl_view_stats(3)`.
    pub fn pl_view_stats(v: *const pl_view, st: *mut pl_view_counts) -> c_int;
    /// `pl_view_snapshot(3)`.
    pub fn pl_view_snapshot(v: *const pl_view) -> *const pl_snapshot;
    /// `pl_view_find(3)`.
    pub fn pl_view_find(v: *const pl_view, kind: u32, id: *const c_char, len: usize) -> c_int;
    /// `pl_view_at(3)`.
    pub fn pl_view_at(v: *const pl_view, kind: u32, rank: u32) -> c_int;
    /// `pl_view_member_tally(3)`.
    pub fn pl_view_member_tally(v: *const pl_view, member: u32, t: *mut pl_tally) -> c_int;
    /// `pl_view_stream_tally(3)`.
    pub fn pl_view_stream_tally(
        v: *const pl_view,
        stream: u32,
        member: u32,
        t: *mut pl_tally,
    ) -> c_int;
    /// `pl_view_imbalance(3)`.
    pub fn pl_view_imbalance(v: *const pl_view, measure: u32, out: *mut pl_imbalance) -> c_int;
    /// `pl_view_shard_state(3)`.
    pub fn pl_view_shard_state(v: *const pl_view, shard: u32, st: *mut pl_shard_state) -> c_int;
    /// `pl_view_home(3)`.
    pub fn pl_view_home(v: *const pl_view, shard: u32) -> c_int;
    /// `pl_view_top(3)`.
    pub fn pl_view_top(
        v: *const pl_view,
        key: *const c_char,
        len: usize,
        out: *mut u32,
        k: u32,
    ) -> c_int;
    /// `pl_view_apply(3)`.
    pub fn pl_view_apply(v: *mut pl_view, a: *const pl_action) -> c_int;
    /// `pl_view_settle(3)`.
    pub fn pl_view_settle(v: *mut pl_view) -> c_int;

    /// `pl_broker_config_init(3)`: the version 1 layout.
    pub fn pl_broker_config_init(cfg: *mut pl_broker_config) -> c_int;
    /// `pl_broker_config_init_version(3)`.
    pub fn pl_broker_config_init_version(cfg: *mut pl_broker_config, version: u32) -> c_int;
    /// `pl_broker_plan(3)`.
    pub fn pl_broker_plan(
        v: *mut pl_view,
        cfg: *const pl_broker_config,
        out: *mut pl_action,
        cap: u32,
        info: *mut pl_plan_info,
        diag: *mut pl_diag,
    ) -> c_int;
    /// `pl_broker_drain_stalls(3)`.
    pub fn pl_broker_drain_stalls(
        v: *const pl_view,
        out: *mut pl_broker_stall,
        cap: u32,
        total: *mut u32,
        diag: *mut pl_diag,
    ) -> c_int;
    /// `pl_broker_dry_run(3)`.
    pub fn pl_broker_dry_run(
        v: *mut pl_view,
        cfg: *const pl_broker_config,
        out: *mut pl_action,
        cap: u32,
        info: *mut pl_plan_info,
        ticks: *mut u32,
        diag: *mut pl_diag,
    ) -> c_int;

    /// `pl_fleet_config_init(3)`.
    pub fn pl_fleet_config_init(cfg: *mut pl_fleet_config) -> c_int;
    /// `pl_fleet_owner(3)`.
    pub fn pl_fleet_owner(v: *const pl_view, shard: u32) -> c_int;
    /// `pl_fleet_owners(3)`.
    pub fn pl_fleet_owners(v: *mut pl_view, out: *mut u32, cap: u32, diag: *mut pl_diag)
        -> c_int;
    /// `pl_fleet_decide(3)`.
    pub fn pl_fleet_decide(
        v: *mut pl_view,
        cfg: *const pl_fleet_config,
        out: *mut pl_action,
        cap: u32,
        info: *mut pl_plan_info,
        diag: *mut pl_diag,
    ) -> c_int;
    /// `pl_fleet_doc_read(3)`.
    pub fn pl_fleet_doc_read(
        v: *const pl_view,
        text: *const c_char,
        len: usize,
        out: *mut pl_override,
        cap: u32,
        skipped: *mut u32,
        diag: *mut pl_diag,
    ) -> c_int;
    /// `pl_fleet_doc_format(3)`.
    pub fn pl_fleet_doc_format(v: *const pl_view, buf: *mut c_char, cap: usize) -> c_int;

    /// `pl_region_config_init(3)`.
    pub fn pl_region_config_init(cfg: *mut pl_region_config) -> c_int;
    /// `pl_region_stall_name(3)`.
    pub fn pl_region_stall_name(reason: u32) -> *const c_char;
    /// `pl_region_effective_rf(3)`.
    pub fn pl_region_effective_rf(
        v: *const pl_view,
        cfg: *const pl_region_config,
        diag: *mut pl_diag,
    ) -> c_int;
    /// `pl_region_check_add_peer(3)`.
    pub fn pl_region_check_add_peer(
        v: *const pl_view,
        region: u32,
        member: u32,
        expected_epoch: u64,
        diag: *mut pl_diag,
    ) -> c_int;
    /// `pl_region_plan(3)`.
    pub fn pl_region_plan(
        v: *mut pl_view,
        cfg: *const pl_region_config,
        out: *mut pl_action,
        cap: u32,
        info: *mut pl_plan_info,
        stalls: *mut pl_region_stall,
        stalls_cap: u32,
        diag: *mut pl_diag,
    ) -> c_int;

    /// `pl_route_request_init(3)`.
    pub fn pl_route_request_init(req: *mut pl_route_request) -> c_int;
    /// `pl_route_decide(3)`.
    pub fn pl_route_decide(
        req: *const pl_route_request,
        out: *mut pl_route_verdict,
        diag: *mut pl_diag,
    ) -> c_int;
    /// `pl_route_rule_name(3)`.
    pub fn pl_route_rule_name(rule: u32) -> *const c_char;
    /// `pl_route_lookup(3)`.
    pub fn pl_route_lookup(
        v: *const pl_view,
        key: *const c_char,
        len: usize,
        self_: u32,
        out: *mut pl_route_owner,
        diag: *mut pl_diag,
    ) -> c_int;
}
