//! The `#[repr(C)]` structs of `include/placement/*.h`, field for field
//! (re-exported by [`crate::sys`]).
#![allow(non_camel_case_types)]

use std::os::raw::c_char;

/// A byte range; need not be NUL-terminated.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pl_bytes {
    /// The first byte; may be NULL when `len` is 0.
    pub ptr: *const c_char,
    /// The length in bytes.
    pub len: u64,
}

/// A member: a process that can own shards.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pl_member {
    /// Unique, non-empty.
    pub id: pl_bytes,
    /// Failure domain; empty = a zone of its own.
    pub zone: pl_bytes,
    /// Caller's clock when it joined; greater = newer.
    pub joined_at: u64,
    /// Caller's measure of load.
    pub load: u64,
    /// Version of the shard map it has installed.
    pub map_version: u64,
    /// Relative capacity, 1..`PL_MAX_WEIGHT`; 0 reads as 1.
    pub weight: u32,
    /// Most replicas it may hold; 0 = no cap.
    pub max_shards: u32,
    /// `PL_MEMBER_*`.
    pub flags: u32,
}

/// A stream: a set of shards whose spread matters together.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pl_stream {
    /// Unique, non-empty.
    pub id: pl_bytes,
}

/// A shard: the unit that is placed.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pl_shard {
    /// Unique, non-empty.
    pub key: pl_bytes,
    /// The shard map's epoch for this shard (regions).
    pub epoch: u64,
    /// Caller's measure of the shard's load.
    pub load: u64,
    /// Index into streams, or `PL_NONE`.
    pub stream: u32,
    /// Index into members, or `PL_NONE`.
    pub leader: u32,
    /// Index into members, or `PL_NONE`: a leader move in flight.
    pub moving_to: u32,
    /// `PL_SHARD_*`.
    pub flags: u32,
    /// How many of `replicas` are used.
    pub replica_count: u32,
    /// Member indices holding a copy.
    pub replicas: [u32; 8],
}

/// A fleet's record that a shard lives off its ring home.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct pl_override {
    /// Caller's clock when it was written.
    pub since: u64,
    /// Index into shards.
    pub shard: u32,
    /// Index into members: the shard's owner.
    pub member: u32,
    /// `PL_ORIGIN_*`.
    pub origin: u32,
}

/// A replica copy in flight: staged on `to`, not yet committed.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct pl_copy {
    /// Index into shards.
    pub shard: u32,
    /// Index into members: where the copy is staged.
    pub to: u32,
    /// Index into members: the replica it replaces on commit, or `PL_NONE`.
    pub from: u32,
    /// Must be 0.
    pub reserved: u32,
}

/// Everything one tick knows.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pl_snapshot {
    /// `PL_SNAPSHOT_VERSION`: first, so a caller of another layout is refused.
    pub version: u32,
    /// `n_members` members.
    pub members: *const pl_member,
    /// `n_streams` streams.
    pub streams: *const pl_stream,
    /// `n_shards` shards.
    pub shards: *const pl_shard,
    /// `n_overrides` overrides.
    pub overrides: *const pl_override,
    /// `n_copies` replica copies in flight.
    pub copies: *const pl_copy,
    /// Members.
    pub n_members: u32,
    /// Streams.
    pub n_streams: u32,
    /// Shards.
    pub n_shards: u32,
    /// Overrides.
    pub n_overrides: u32,
    /// Copies.
    pub n_copies: u32,
    /// Version 3: `n_shards` sizes in bytes (`PL_BYTES_UNKNOWN` for one not
    /// known), or null: all unknown.
    pub shard_bytes: *const u64,
    /// Version 3: `n_members` capacities in bytes (`PL_BYTES_UNKNOWN` for one
    /// not known), or null: all unknown.
    pub member_capacity: *const u64,
    /// Version 5: `n_streams` tolerances in shards, at most
    /// `PL_MAX_TOLERANCE` (`PL_TOLERANCE_DEFAULT`: the config's
    /// `stream_tolerance`), or null: every stream's default.
    pub stream_tolerance: *const u32,
    /// Version 5: `n_streams` zone rules (`PL_ZONES_SPAN`,
    /// `PL_ZONES_MAJORITY`), or null: every stream's default (span).
    pub stream_zone_rule: *const u32,
    /// Version 5: `n_streams` flags (`PL_STREAM_KEEP`, within
    /// `PL_STREAM_FLAGS_ALL`), or null: no stream has one.
    pub stream_flags: *const u32,
}

/// Which element of the input was bad.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pl_diag {
    /// The `PL_E*` code the call returned.
    pub code: i32,
    /// `PL_ELEM_*`.
    pub kind: u32,
    /// Index of the element in its array.
    pub index: u32,
    /// An earlier element it clashes with, else `PL_NONE`.
    pub other: u32,
}

/// One action of a policy.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pl_action {
    /// `PL_ACTION_*` kind.
    pub kind: u32,
    /// `PL_REASON_*`.
    pub reason: u32,
    /// Index into shards.
    pub shard: u32,
    /// The shard's stream, or `PL_NONE`.
    pub stream: u32,
    /// Member giving something up, or `PL_NONE`.
    pub from: u32,
    /// Member receiving it, or `PL_NONE`.
    pub to: u32,
    /// `PL_ACTION_*` flags.
    pub flags: u32,
    /// Override actions: `PL_ORIGIN_*`.
    pub origin: u32,
    /// `PL_SCOPE_*`.
    pub scope: u32,
    /// Placement tier 1..5 that chose `to`; 0 otherwise.
    pub tier: u32,
    /// From's count.
    pub from_count: u32,
    /// To's count.
    pub to_count: u32,
    /// The floor that applied to `to`.
    pub floor: u32,
    /// The ceiling that applied to `to`.
    pub ceiling: u32,
    /// The cluster share (or fair share) that applied.
    pub share: u32,
    /// How many were counted in scope.
    pub total: u32,
    /// Override actions: the caller's `now`; override age for drops.
    pub at: u64,
    /// Lag and load moves: the load that decided it.
    pub load: u64,
    /// Bytes the action copies (`PL_BYTES_UNKNOWN` when the size is unknown; 0 when it copies nothing).
    pub bytes: u64,
    /// From's known bytes before the action (broker copies).
    pub from_bytes: u64,
    /// To's known bytes before the action (broker copies).
    pub to_bytes: u64,
    /// `PL_SCOPE_BYTES`: the bound that decided it.
    pub bytes_limit: u64,
}

/// What a policy call did, and why it stopped.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pl_plan_info {
    /// Actions written to out.
    pub written: u32,
    /// At least written.
    pub wanted: u32,
    /// `PL_STATUS_*`.
    pub status: u32,
    /// Status-specific index, or `PL_NONE`.
    pub detail: u32,
    /// How many shards were blocked or stalled.
    pub blocked: u32,
}

/// An opaque view, living inside the caller's memory.
#[repr(C)]
pub struct pl_view {
    _private: [u8; 0],
}

/// How to build a view.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct pl_view_options {
    /// `PL_VIEW_OPTIONS_VERSION`.
    pub version: u32,
    /// `PL_SCORER_*`.
    pub scorer: u32,
    /// Version 2: an earlier view whose work may be reused, or null.
    pub reuse: *const pl_view,
    /// Version 3: the most replicas any shard may reach in the view, 0 for
    /// `PL_MAX_REPLICAS`; the snapshot's largest count raises it.
    pub max_replicas: u32,
    /// Version 3: must be 0.
    pub reserved: u32,
}

impl Default for pl_view_options {
    fn default() -> pl_view_options {
        pl_view_options {
            version: 0,
            scorer: 0,
            reuse: std::ptr::null(),
            max_replicas: 0,
            reserved: 0,
        }
    }
}

/// Counts of a view.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pl_view_counts {
    /// Members in the snapshot.
    pub members: u32,
    /// Not down.
    pub live: u32,
    /// Not down and not draining.
    pub eligible: u32,
    /// Streams.
    pub streams: u32,
    /// Shards.
    pub shards: u32,
    /// Overrides the view holds now.
    pub overrides: u32,
    /// Shards with a move in flight.
    pub moving: u32,
    /// Shards with no live leader.
    pub leaderless: u32,
    /// `PL_SCORER_*` the view scores with.
    pub scorer: u32,
    /// ceil(shards / eligible members).
    pub share: u32,
    /// Sum of eligible members' weights.
    pub weight: u64,
    /// Replica copies in flight in the snapshot (their shards are moving).
    pub copies: u32,
}

/// A member's counts, in total or in one stream.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pl_tally {
    /// Shards it leads.
    pub leaders: u32,
    /// Shards it holds a replica of.
    pub replicas: u32,
    /// Its floor.
    pub floor: u32,
    /// Its ceiling.
    pub ceiling: u32,
    /// Shards counted.
    pub shards: u32,
}

/// How far a view is from balanced (`pl_view_imbalance(3)`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pl_imbalance {
    /// totals + streams.
    pub total: u64,
    /// The part in the members' totals.
    pub totals: u64,
    /// The part in the streams.
    pub streams: u64,
}

/// A shard as the view has it now.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pl_shard_state {
    /// Member index, or `PL_NONE`.
    pub leader: u32,
    /// How many of `replicas` are used.
    pub replica_count: u32,
    /// Member indices.
    pub replicas: [u32; 8],
    /// 1 when a move is in flight.
    pub moving: u32,
    /// Fleet override's member, or `PL_NONE`.
    pub override_member: u32,
    /// `PL_ORIGIN_*` when `override_member` is set.
    pub override_origin: u32,
    /// When the override was written.
    pub override_since: u64,
    /// The shard's epoch, advanced by one by every replica or leader action
    /// applied to the view.
    pub epoch: u64,
}

/// The broker policy's configuration.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pl_broker_config {
    /// `PL_BROKER_CONFIG_VERSION`.
    pub version: u32,
    /// Concurrent moves, counting those in flight.
    pub max_moves: u32,
    /// Moves in flight into one member; 0 = no limit.
    pub max_moves_in: u32,
    /// Moves in flight out of one member; 0 = no limit.
    pub max_moves_out: u32,
    /// 1 = start no move.
    pub paused: u32,
    /// Replicas of a new shard.
    pub replication_factor: u32,
    /// 1 = per-stream tiers and stream pass.
    pub stream_balance: u32,
    /// 1 = balance replicas per stream and in total; 0 = leaders only.
    pub replica_balance: u32,
    /// 1 = leaderships move by hand-offs to in-sync followers only; nothing
    /// is copied (version 2).
    pub handoff_only: u32,
    /// Version 3: 1 = even each member's bytes within `bytes_tolerance`.
    pub bytes_balance: u32,
    /// Version 3: 1 = the bytes band before the counts.
    pub bytes_first: u32,
    /// Version 3: percent of a member's capacity no copy may fill it past;
    /// 0 = none.
    pub full_ratio: u32,
    /// Version 3: percent a member's bytes may stray from its share,
    /// 0..=`PL_BROKER_MAX_TOLERANCE`.
    pub bytes_tolerance: u32,
    /// Version 3: must be 0.
    pub reserved: u32,
    /// Version 3: bytes of copies in flight; 0 = no limit.
    pub max_bytes_in_flight: u64,
    /// Version 3: bytes of copies in flight into one member; 0 = no limit.
    pub max_bytes_in: u64,
    /// Version 3: bytes of copies in flight out of one member; 0 = no limit.
    pub max_bytes_out: u64,
    /// Version 4 (field 17): shards by which a member's total leaders or
    /// replicas may stray past its floor and ceiling before a move is made;
    /// 0..=`PL_MAX_TOLERANCE`.
    pub tolerance: u32,
    /// Version 4 (field 18): the same for each stream's counts, where the
    /// snapshot's `stream_tolerance` does not set it; 0..=`PL_MAX_TOLERANCE`.
    pub stream_tolerance: u32,
}

/// A replica on a draining member with no member it may go to.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pl_broker_stall {
    /// Index into shards.
    pub shard: u32,
    /// The draining member that holds it.
    pub member: u32,
    /// `PL_BROKER_STALL_*`.
    pub reason: u32,
    /// 0.
    pub reserved: u32,
}

/// One member's fleet decision settings.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pl_fleet_config {
    /// `PL_FLEET_CONFIG_VERSION`.
    pub version: u32,
    /// The deciding member's index (`self` in C).
    pub self_: u32,
    /// The caller's clock.
    pub now: u64,
    /// Self's last move, or `PL_FLEET_NEVER`.
    pub last_move: u64,
    /// Time between two moves of self.
    pub cooldown: u64,
    /// Moves per decision, >= 1.
    pub moves_per_decision: u32,
    /// 1: close the spread.
    pub spread: u32,
    /// Age of a lag override before it may go home.
    pub return_home_age: u64,
    /// 1: count balance.
    pub count_balance: u32,
    /// Must be 0.
    pub reserved: u32,
}

/// How the region policy runs.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pl_region_config {
    /// `PL_REGION_CONFIG_VERSION`.
    pub version: u32,
    /// Peers wanted per region.
    pub replication_factor: u32,
    /// 1: add peers.
    pub add_peer_proposals: u32,
    /// 1: primaries toward less load.
    pub load_balance: u32,
    /// Percent, 1..99.
    pub load_threshold: u32,
    /// Most actions one call emits.
    pub max_actions: u32,
}

/// A region the call wanted to act on and could not.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pl_region_stall {
    /// The region's index.
    pub shard: u32,
    /// `PL_REGION_STALL_*`.
    pub reason: u32,
    /// 1 or 2.
    pub step: u32,
    /// The member it concerns, or `PL_NONE`.
    pub member: u32,
    /// `PL_REGION_WANT_PRIMARY` or `PL_REGION_WANT_PEER`.
    pub wanted: u32,
}

/// The state of one request.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pl_route_request {
    /// `PL_ROUTE_REQUEST_VERSION`.
    pub version: u32,
    /// 1: a data-plane route.
    pub data_plane: u32,
    /// `PL_ROUTE_ANSWER_*`.
    pub answer: u32,
    /// 1: the peer table holds the owner's address.
    pub owner_known: u32,
    /// 1: already marked forwarded.
    pub forwarded: u32,
    /// `PL_ROUTE_BODY_*`.
    pub body: u32,
    /// `PL_ROUTE_OUTCOME_*`.
    pub outcome: u32,
    /// Must be 0.
    pub reserved: u32,
}

/// What to do with the request.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pl_route_verdict {
    /// `PL_ROUTE_SERVE` .. `PL_ROUTE_FAILED`.
    pub verdict: u32,
    /// `PL_ROUTE_RULE_*`: the row that decided.
    pub rule: u32,
    /// The HTTP status to answer, or 0.
    pub status: u32,
    /// Seconds of Retry-After with a 503.
    pub retry_after: u32,
    /// 1 with a forward: mark the request forwarded.
    pub mark: u32,
    /// `PL_ROUTE_SEND_*`.
    pub send_body: u32,
}

/// Who owns a key's shard now.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pl_route_owner {
    /// Member index of the owner.
    pub owner: u32,
    /// Member index of the key's ring home.
    pub home: u32,
    /// The shard's index, or `PL_NONE`.
    pub shard: u32,
    /// 1 when the owner is self.
    pub is_self: u32,
}
