//! What a policy does and says, by the library's names: action kinds,
//! reasons, statuses and the scopes of an action's counts.

use crate::error::{ElementKind, Error};
use crate::sys;
use crate::sys::safe;
use std::fmt;
use std::str::FromStr;

/// Where an action's counts were taken (`PL_SCOPE_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Scope {
    /// No counts (`PL_SCOPE_NONE`).
    None,
    /// Leaders of the action's stream.
    Stream,
    /// Leaders in total.
    Cluster,
    /// Shards owned (fleet).
    Owned,
    /// Replicas held.
    Replicas,
    /// Primaries (leaders) held.
    Primaries,
    /// Peers of the shard (to_count = peers before, total = target RF).
    Peers,
    /// Replicas of the action's stream (`PL_SCOPE_STREAM_REPLICAS`).
    StreamReplicas,
    /// Zones the shard spans (`PL_SCOPE_ZONES`): from_count before,
    /// to_count after, total the zones it could span.
    Zones,
    /// Bytes held (`PL_SCOPE_BYTES`): [`Action::from_bytes`](crate::Action::from_bytes),
    /// [`Action::to_bytes`](crate::Action::to_bytes) and
    /// [`Action::bytes_limit`](crate::Action::bytes_limit) say what decided it.
    Bytes,
    /// A scope this crate does not know yet.
    Other(u32),
}

impl Scope {
    pub(crate) fn from_c(v: u32) -> Scope {
        match v {
            sys::PL_SCOPE_NONE => Scope::None,
            sys::PL_SCOPE_STREAM => Scope::Stream,
            sys::PL_SCOPE_CLUSTER => Scope::Cluster,
            sys::PL_SCOPE_OWNED => Scope::Owned,
            sys::PL_SCOPE_REPLICAS => Scope::Replicas,
            sys::PL_SCOPE_PRIMARIES => Scope::Primaries,
            sys::PL_SCOPE_PEERS => Scope::Peers,
            sys::PL_SCOPE_STREAM_REPLICAS => Scope::StreamReplicas,
            sys::PL_SCOPE_ZONES => Scope::Zones,
            sys::PL_SCOPE_BYTES => Scope::Bytes,
            other => Scope::Other(other),
        }
    }
}

/// What an action asks for (`PL_ACTION_*`), with the members that kind
/// always names as plain fields. `Display` and [`ActionKind::name`] give the
/// library's name (`pl_action_kind_name()`), e.g. "move-leader".
///
/// What each kind does to the shard's replica set is what
/// `pl_view_apply()` does to a view (`placement/view.h`), and what
/// [`Action::apply_to`](crate::Action::apply_to) does to a list of [`Shard`](crate::Shard)s:
///
/// ```
/// use placement::{ActionKind, BrokerConfig, Member, Shard, Snapshot};
/// # fn main() -> Result<(), placement::Error> {
/// let members = vec![Member::new("b0"), Member::new("b1")];
/// let shards = vec![Shard::new("s/0").replicas(&["b0"]).leader("b0"),
///                   Shard::new("s/1").replicas(&["b0"]).leader("b0")];
/// let cfg = BrokerConfig::default().replication_factor(1);
/// let plan = placement::broker_plan(&Snapshot::new(members, shards)?, &cfg)?;
/// match &plan.actions[0].kind {
///     ActionKind::MoveLeader { from, to } => assert_eq!((from.as_str(), to.as_str()), ("b0", "b1")),
///     other => panic!("{}", other),
/// }
/// assert_eq!(plan.actions[0].kind.to_string(), "move-leader");
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ActionKind {
    /// "set-leader": `to`, which already holds a replica, leads the shard;
    /// `from` is the leader it replaces, `None` when it had none (a new
    /// shard gets [`ActionKind::AddReplica`]s first). The replica set is
    /// unchanged; nothing is copied.
    SetLeader {
        /// The leader before, if any.
        from: Option<String>,
        /// The new leader.
        to: String,
    },
    /// "move-leader": the leadership moves from the leader `from` to `to`.
    /// When `to` holds no replica
    /// ([`Action::stage_first`](crate::Action::stage_first)), it copies the
    /// old leader's data first and, on commit, **takes the old leader's
    /// place in the replica set**: `from` no longer holds a replica. When
    /// `to` holds one already, it is a hand-off and the set is unchanged.
    MoveLeader {
        /// The leader before.
        from: String,
        /// The new leader.
        to: String,
    },
    /// "add-replica": `to` gains a replica (copied; it joins the set at its
    /// end).
    AddReplica {
        /// The member gaining it.
        to: String,
    },
    /// "move-replica": `from`'s replica moves to `to` (copied to `to`
    /// first; `to` takes `from`'s place in the set). When `from` led, the
    /// leadership goes with it
    /// ([`Action::carries_leader`](crate::Action::carries_leader)): `to`
    /// leads.
    MoveReplica {
        /// The member giving it up.
        from: String,
        /// The member receiving it.
        to: String,
    },
    /// "set-override" (fleet): the shard is owned by `to`, with the
    /// action's [`Action::origin`](crate::Action::origin), since
    /// [`Action::at`](crate::Action::at); `from` is the owner it takes the
    /// shard from, when there is one.
    SetOverride {
        /// The owner before, if named.
        from: Option<String>,
        /// The new owner.
        to: String,
    },
    /// "drop-override" (fleet): the shard's override (on `from`, when
    /// named) is removed; the shard goes home to `to`, its ring home, when
    /// it has one.
    DropOverride {
        /// The override's member, if named.
        from: Option<String>,
        /// The ring home it goes back to, if any.
        to: Option<String>,
    },
}

impl ActionKind {
    /// The `PL_ACTION_*` value.
    pub fn code(&self) -> u32 {
        match self {
            ActionKind::SetLeader { .. } => sys::PL_ACTION_SET_LEADER,
            ActionKind::MoveLeader { .. } => sys::PL_ACTION_MOVE_LEADER,
            ActionKind::AddReplica { .. } => sys::PL_ACTION_ADD_REPLICA,
            ActionKind::MoveReplica { .. } => sys::PL_ACTION_MOVE_REPLICA,
            ActionKind::SetOverride { .. } => sys::PL_ACTION_SET_OVERRIDE,
            ActionKind::DropOverride { .. } => sys::PL_ACTION_DROP_OVERRIDE,
        }
    }

    /// The library's name (`pl_action_kind_name()`): "set-leader", ...
    pub fn name(&self) -> &'static str {
        safe::action_kind_name(self.code())
    }

    /// The member giving up the leader, replica or ownership, when the kind
    /// names one.
    pub fn from_member(&self) -> Option<&str> {
        match self {
            ActionKind::MoveLeader { from, .. } | ActionKind::MoveReplica { from, .. } => Some(from),
            ActionKind::SetLeader { from, .. }
            | ActionKind::SetOverride { from, .. }
            | ActionKind::DropOverride { from, .. } => from.as_deref(),
            ActionKind::AddReplica { .. } => None,
        }
    }

    /// The member receiving it, when the kind names one (every kind but
    /// [`ActionKind::DropOverride`] always does).
    pub fn to_member(&self) -> Option<&str> {
        match self {
            ActionKind::SetLeader { to, .. }
            | ActionKind::MoveLeader { to, .. }
            | ActionKind::AddReplica { to }
            | ActionKind::MoveReplica { to, .. }
            | ActionKind::SetOverride { to, .. } => Some(to),
            ActionKind::DropOverride { to, .. } => to.as_deref(),
        }
    }

    /// The kind for a code and the members a C action names; `None` when the
    /// code is not a kind or a member the kind needs is missing.
    pub(crate) fn from_c(code: u32, from: Option<String>, to: Option<String>) -> Option<ActionKind> {
        Some(match code {
            sys::PL_ACTION_SET_LEADER => ActionKind::SetLeader { from, to: to? },
            sys::PL_ACTION_MOVE_LEADER => ActionKind::MoveLeader { from: from?, to: to? },
            sys::PL_ACTION_ADD_REPLICA => ActionKind::AddReplica { to: to? },
            sys::PL_ACTION_MOVE_REPLICA => ActionKind::MoveReplica { from: from?, to: to? },
            sys::PL_ACTION_SET_OVERRIDE => ActionKind::SetOverride { from, to: to? },
            sys::PL_ACTION_DROP_OVERRIDE => ActionKind::DropOverride { from, to },
            _ => return None,
        })
    }
}

impl fmt::Display for ActionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why an action was emitted (`PL_REASON_*`). `Display` and [`Reason::name`]
/// give the library's name (`pl_reason_name()`), e.g. "stream-skew";
/// [`str::parse`] reads it back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Reason {
    /// "new" (`PL_REASON_NEW`): a new shard is placed.
    New,
    /// "failover" (`PL_REASON_FAILOVER`): its leader is down.
    Failover,
    /// "drain" (`PL_REASON_DRAIN`): its leader is draining.
    Drain,
    /// "stream-skew" (`PL_REASON_STREAM_SKEW`): a stream leads uneven.
    StreamSkew,
    /// "cluster-skew" (`PL_REASON_CLUSTER_SKEW`): the totals are uneven.
    ClusterSkew,
    /// "count" (`PL_REASON_COUNT`): fleet member over the share.
    Count,
    /// "spread" (`PL_REASON_SPREAD`): fleet member below the floor.
    Spread,
    /// "lag" (`PL_REASON_LAG`): fleet member lagging.
    Lag,
    /// "return-home" (`PL_REASON_RETURN_HOME`): lag override aged out.
    ReturnHome,
    /// "void-override" (`PL_REASON_VOID_OVERRIDE`): override's member is down.
    VoidOverride,
    /// "redundant-override" (`PL_REASON_REDUNDANT_OVERRIDE`): override names the ring home.
    RedundantOverride,
    /// "under-rf" (`PL_REASON_UNDER_RF`): region below its replication factor.
    UnderRf,
    /// "idle-member" (`PL_REASON_IDLE_MEMBER`): a member below its fair share of replicas.
    IdleMember,
    /// "newest-peer" (`PL_REASON_NEWEST_PEER`): primary follows the newest peer.
    NewestPeer,
    /// "load" (`PL_REASON_LOAD`): primary toward clearly less load.
    Load,
    /// "no-primary" (`PL_REASON_NO_PRIMARY`): region has no live primary.
    NoPrimary,
    /// "primary-skew" (`PL_REASON_PRIMARY_SKEW`): region: primaries uneven within the peer sets.
    PrimarySkew,
    /// "zone-repair" (`PL_REASON_ZONE_REPAIR`): broker: replicas span fewer zones than they could.
    ZoneRepair,
    /// "replica-drain" (`PL_REASON_REPLICA_DRAIN`): broker: a replica on a draining member.
    ReplicaDrain,
    /// "replica-stream-skew" (`PL_REASON_REPLICA_STREAM_SKEW`): broker: a stream's replicas uneven.
    ReplicaStreamSkew,
    /// "replica-cluster-skew" (`PL_REASON_REPLICA_CLUSTER_SKEW`): broker: replicas in total uneven.
    ReplicaClusterSkew,
    /// "full-ratio" (`PL_REASON_FULL_RATIO`): broker: a member past its full ratio sheds bytes.
    FullRatio,
    /// "bytes-skew" (`PL_REASON_BYTES_SKEW`): broker: a member's bytes outside its tolerance.
    BytesSkew,
    /// A `PL_REASON_*` value this crate does not know yet.
    Other(u32),
}

impl Reason {
    /// Every value the crate knows, in the order of the C list.
    pub const ALL: &'static [Reason] = &[Reason::New, Reason::Failover, Reason::Drain, Reason::StreamSkew, Reason::ClusterSkew, Reason::Count, Reason::Spread, Reason::Lag, Reason::ReturnHome, Reason::VoidOverride, Reason::RedundantOverride, Reason::UnderRf, Reason::IdleMember, Reason::NewestPeer, Reason::Load, Reason::NoPrimary, Reason::PrimarySkew, Reason::ZoneRepair, Reason::ReplicaDrain, Reason::ReplicaStreamSkew, Reason::ReplicaClusterSkew, Reason::FullRatio, Reason::BytesSkew];

    /// The `PL_REASON_*` value.
    pub fn code(self) -> u32 {
        match self {
            Reason::New => sys::PL_REASON_NEW,
            Reason::Failover => sys::PL_REASON_FAILOVER,
            Reason::Drain => sys::PL_REASON_DRAIN,
            Reason::StreamSkew => sys::PL_REASON_STREAM_SKEW,
            Reason::ClusterSkew => sys::PL_REASON_CLUSTER_SKEW,
            Reason::Count => sys::PL_REASON_COUNT,
            Reason::Spread => sys::PL_REASON_SPREAD,
            Reason::Lag => sys::PL_REASON_LAG,
            Reason::ReturnHome => sys::PL_REASON_RETURN_HOME,
            Reason::VoidOverride => sys::PL_REASON_VOID_OVERRIDE,
            Reason::RedundantOverride => sys::PL_REASON_REDUNDANT_OVERRIDE,
            Reason::UnderRf => sys::PL_REASON_UNDER_RF,
            Reason::IdleMember => sys::PL_REASON_IDLE_MEMBER,
            Reason::NewestPeer => sys::PL_REASON_NEWEST_PEER,
            Reason::Load => sys::PL_REASON_LOAD,
            Reason::NoPrimary => sys::PL_REASON_NO_PRIMARY,
            Reason::PrimarySkew => sys::PL_REASON_PRIMARY_SKEW,
            Reason::ZoneRepair => sys::PL_REASON_ZONE_REPAIR,
            Reason::ReplicaDrain => sys::PL_REASON_REPLICA_DRAIN,
            Reason::ReplicaStreamSkew => sys::PL_REASON_REPLICA_STREAM_SKEW,
            Reason::ReplicaClusterSkew => sys::PL_REASON_REPLICA_CLUSTER_SKEW,
            Reason::FullRatio => sys::PL_REASON_FULL_RATIO,
            Reason::BytesSkew => sys::PL_REASON_BYTES_SKEW,
            Reason::Other(c) => c,
        }
    }

    /// The value for a `PL_REASON_*` code.
    pub fn from_code(code: u32) -> Reason {
        match code {
            sys::PL_REASON_NEW => Reason::New,
            sys::PL_REASON_FAILOVER => Reason::Failover,
            sys::PL_REASON_DRAIN => Reason::Drain,
            sys::PL_REASON_STREAM_SKEW => Reason::StreamSkew,
            sys::PL_REASON_CLUSTER_SKEW => Reason::ClusterSkew,
            sys::PL_REASON_COUNT => Reason::Count,
            sys::PL_REASON_SPREAD => Reason::Spread,
            sys::PL_REASON_LAG => Reason::Lag,
            sys::PL_REASON_RETURN_HOME => Reason::ReturnHome,
            sys::PL_REASON_VOID_OVERRIDE => Reason::VoidOverride,
            sys::PL_REASON_REDUNDANT_OVERRIDE => Reason::RedundantOverride,
            sys::PL_REASON_UNDER_RF => Reason::UnderRf,
            sys::PL_REASON_IDLE_MEMBER => Reason::IdleMember,
            sys::PL_REASON_NEWEST_PEER => Reason::NewestPeer,
            sys::PL_REASON_LOAD => Reason::Load,
            sys::PL_REASON_NO_PRIMARY => Reason::NoPrimary,
            sys::PL_REASON_PRIMARY_SKEW => Reason::PrimarySkew,
            sys::PL_REASON_ZONE_REPAIR => Reason::ZoneRepair,
            sys::PL_REASON_REPLICA_DRAIN => Reason::ReplicaDrain,
            sys::PL_REASON_REPLICA_STREAM_SKEW => Reason::ReplicaStreamSkew,
            sys::PL_REASON_REPLICA_CLUSTER_SKEW => Reason::ReplicaClusterSkew,
            sys::PL_REASON_FULL_RATIO => Reason::FullRatio,
            sys::PL_REASON_BYTES_SKEW => Reason::BytesSkew,
            other => Reason::Other(other),
        }
    }
}

impl Reason {
    /// The library's name (`pl_reason_name()`): "stream-skew", ...
    pub fn name(self) -> &'static str {
        safe::reason_name(self.code())
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Reason {
    type Err = Error;
    /// The reason of this library name; `E_INVAL` naming the text otherwise.
    fn from_str(s: &str) -> Result<Reason, Error> {
        Reason::ALL.iter().copied().find(|r| r.name() == s).ok_or_else(|| unknown_name(s))
    }
}

fn unknown_name(s: &str) -> Error {
    Error::code(sys::PL_E_INVAL)
        .at(ElementKind::Argument, Some(1))
        .with_id(Some(s.to_owned()))
}

/// Why a policy call stopped emitting (`PL_STATUS_*`). `Display` and
/// [`Status::name`] give the library's name (`pl_status_name()`), e.g.
/// "balanced"; [`str::parse`] reads it back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Status {
    /// "balanced" (`PL_STATUS_BALANCED`): nothing more is wanted.
    Balanced,
    /// "paused" (`PL_STATUS_PAUSED`): the policy is paused.
    Paused,
    /// "move-limit" (`PL_STATUS_MOVE_LIMIT`): concurrent or per-member move limit.
    MoveLimit,
    /// "blocked-zones" (`PL_STATUS_BLOCKED_ZONES`): wanted moves would lose a zone.
    BlockedZones,
    /// "blocked-caps" (`PL_STATUS_BLOCKED_CAPS`): wanted moves would pass max_shards.
    BlockedCaps,
    /// "full" (`PL_STATUS_FULL`): the output array filled first.
    Full,
    /// "cooldown" (`PL_STATUS_COOLDOWN`): the member's move cooldown runs.
    Cooldown,
    /// "waiting" (`PL_STATUS_WAITING`): ranked past the last place this tick.
    Waiting,
    /// "not-live" (`PL_STATUS_NOT_LIVE`): the deciding member is down or draining.
    NotLive,
    /// "proposals-off" (`PL_STATUS_PROPOSALS_OFF`): add-peer proposals are switched off.
    ProposalsOff,
    /// "stalled" (`PL_STATUS_STALLED`): no ready candidate for some shard.
    Stalled,
    /// "action-cap" (`PL_STATUS_ACTION_CAP`): the configured actions per call reached.
    ActionCap,
    /// "in-flight" (`PL_STATUS_IN_FLIGHT`): broker: wanted moves wait on moves in flight.
    InFlight,
    /// "drain-stalled" (`PL_STATUS_DRAIN_STALLED`): broker: a draining member's replica has nowhere to go.
    DrainStalled,
    /// "blocked-handoff" (`PL_STATUS_BLOCKED_HANDOFF`): broker, hand-offs only: a bound only a copy would meet.
    BlockedHandoff,
    /// "blocked-full" (`PL_STATUS_BLOCKED_FULL`): broker: wanted moves would pass a full ratio.
    BlockedFull,
    /// "returning-home" (`PL_STATUS_RETURNING_HOME`): fleet: lag overrides wait to go home.
    ReturningHome,
    /// "lagging" (`PL_STATUS_LAGGING`): fleet: an eligible member lags.
    Lagging,
    /// "moving" (`PL_STATUS_MOVING`): fleet: count, spread or keep moves are wanted.
    Moving,
    /// "uneven" (`PL_STATUS_UNEVEN`): fleet: out of bounds, and no rule on moves it.
    Uneven,
    /// "blocked-bounds" (`PL_STATUS_BLOCKED_BOUNDS`): broker: out of bounds, and no move the rules allow brings it in.
    BlockedBounds,
    /// A `PL_STATUS_*` value this crate does not know yet.
    Other(u32),
}

impl Status {
    /// Every value the crate knows, in the order of the C list.
    pub const ALL: &'static [Status] = &[Status::Balanced, Status::Paused, Status::MoveLimit, Status::BlockedZones, Status::BlockedCaps, Status::Full, Status::Cooldown, Status::Waiting, Status::NotLive, Status::ProposalsOff, Status::Stalled, Status::ActionCap, Status::InFlight, Status::DrainStalled, Status::BlockedHandoff, Status::BlockedFull, Status::ReturningHome, Status::Lagging, Status::Moving, Status::Uneven, Status::BlockedBounds];

    /// The `PL_STATUS_*` value.
    pub fn code(self) -> u32 {
        match self {
            Status::Balanced => sys::PL_STATUS_BALANCED,
            Status::Paused => sys::PL_STATUS_PAUSED,
            Status::MoveLimit => sys::PL_STATUS_MOVE_LIMIT,
            Status::BlockedZones => sys::PL_STATUS_BLOCKED_ZONES,
            Status::BlockedCaps => sys::PL_STATUS_BLOCKED_CAPS,
            Status::Full => sys::PL_STATUS_FULL,
            Status::Cooldown => sys::PL_STATUS_COOLDOWN,
            Status::Waiting => sys::PL_STATUS_WAITING,
            Status::NotLive => sys::PL_STATUS_NOT_LIVE,
            Status::ProposalsOff => sys::PL_STATUS_PROPOSALS_OFF,
            Status::Stalled => sys::PL_STATUS_STALLED,
            Status::ActionCap => sys::PL_STATUS_ACTION_CAP,
            Status::InFlight => sys::PL_STATUS_IN_FLIGHT,
            Status::DrainStalled => sys::PL_STATUS_DRAIN_STALLED,
            Status::BlockedHandoff => sys::PL_STATUS_BLOCKED_HANDOFF,
            Status::BlockedFull => sys::PL_STATUS_BLOCKED_FULL,
            Status::ReturningHome => sys::PL_STATUS_RETURNING_HOME,
            Status::Lagging => sys::PL_STATUS_LAGGING,
            Status::Moving => sys::PL_STATUS_MOVING,
            Status::Uneven => sys::PL_STATUS_UNEVEN,
            Status::BlockedBounds => sys::PL_STATUS_BLOCKED_BOUNDS,
            Status::Other(c) => c,
        }
    }

    /// The value for a `PL_STATUS_*` code.
    pub fn from_code(code: u32) -> Status {
        match code {
            sys::PL_STATUS_BALANCED => Status::Balanced,
            sys::PL_STATUS_PAUSED => Status::Paused,
            sys::PL_STATUS_MOVE_LIMIT => Status::MoveLimit,
            sys::PL_STATUS_BLOCKED_ZONES => Status::BlockedZones,
            sys::PL_STATUS_BLOCKED_CAPS => Status::BlockedCaps,
            sys::PL_STATUS_FULL => Status::Full,
            sys::PL_STATUS_COOLDOWN => Status::Cooldown,
            sys::PL_STATUS_WAITING => Status::Waiting,
            sys::PL_STATUS_NOT_LIVE => Status::NotLive,
            sys::PL_STATUS_PROPOSALS_OFF => Status::ProposalsOff,
            sys::PL_STATUS_STALLED => Status::Stalled,
            sys::PL_STATUS_ACTION_CAP => Status::ActionCap,
            sys::PL_STATUS_IN_FLIGHT => Status::InFlight,
            sys::PL_STATUS_DRAIN_STALLED => Status::DrainStalled,
            sys::PL_STATUS_BLOCKED_HANDOFF => Status::BlockedHandoff,
            sys::PL_STATUS_BLOCKED_FULL => Status::BlockedFull,
            sys::PL_STATUS_RETURNING_HOME => Status::ReturningHome,
            sys::PL_STATUS_LAGGING => Status::Lagging,
            sys::PL_STATUS_MOVING => Status::Moving,
            sys::PL_STATUS_UNEVEN => Status::Uneven,
            sys::PL_STATUS_BLOCKED_BOUNDS => Status::BlockedBounds,
            other => Status::Other(other),
        }
    }
}

impl Status {
    /// The library's name (`pl_status_name()`): "balanced", ...
    pub fn name(self) -> &'static str {
        safe::status_name(self.code())
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Status {
    type Err = Error;
    /// The status of this library name; `E_INVAL` naming the text otherwise.
    fn from_str(s: &str) -> Result<Status, Error> {
        Status::ALL.iter().copied().find(|r| r.name() == s).ok_or_else(|| unknown_name(s))
    }
}
