//! Actions and plans: what a policy asks the caller to do, and why.

use crate::error::{ElementKind, Error};
use crate::parts::{Origin, Shard};
use crate::snapshot::Snapshot;
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
    /// A scope this crate does not know yet.
    Other(u32),
}

impl Scope {
    fn from_c(v: u32) -> Scope {
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
/// [`Action::apply_to`] does to a list of [`Shard`](crate::Shard)s:
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
    /// When `to` holds no replica ([`Action::stage_first`]), it copies the
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
    /// leadership goes with it ([`Action::carries_leader`]): `to` leads.
    MoveReplica {
        /// The member giving it up.
        from: String,
        /// The member receiving it.
        to: String,
    },
    /// "set-override" (fleet): the shard is owned by `to`, with the
    /// action's [`Action::origin`], since [`Action::at`]; `from` is the
    /// owner it takes the shard from, when there is one.
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
    fn from_c(code: u32, from: Option<String>, to: Option<String>) -> Option<ActionKind> {
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
    /// A `PL_REASON_*` value this crate does not know yet.
    Other(u32),
}

impl Reason {
    /// Every value the crate knows, in the order of the C list.
    pub const ALL: &'static [Reason] = &[Reason::New, Reason::Failover, Reason::Drain, Reason::StreamSkew, Reason::ClusterSkew, Reason::Count, Reason::Spread, Reason::Lag, Reason::ReturnHome, Reason::VoidOverride, Reason::RedundantOverride, Reason::UnderRf, Reason::IdleMember, Reason::NewestPeer, Reason::Load, Reason::NoPrimary, Reason::PrimarySkew, Reason::ZoneRepair, Reason::ReplicaDrain, Reason::ReplicaStreamSkew, Reason::ReplicaClusterSkew];

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

/// One action, in ids: its kind (with the members it moves something
/// between), its reason, the shard, and the numbers that decided it.
/// `Display` is the library's sentence (`pl_action_explain()`), e.g. "move
/// leader of orders/07 from b2 to b0: stream orders leads 10 on b2, 1 on b0,
/// floor 4, ceiling 4".
///
/// Numbers a kind does not use are 0, and `origin` is `Origin::Lag`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    /// What to do, and to which members: `match` on it.
    pub kind: ActionKind,
    /// Why.
    pub reason: Reason,
    /// The shard's key.
    pub shard: String,
    /// The shard's stream.
    pub stream: Option<String>,
    /// It copies data: stage on the receiving member first, then commit
    /// (a move-leader to a member that holds no replica, an add-replica, a
    /// move-replica).
    pub stage_first: bool,
    /// A `move-replica` of the leader's replica that takes the leadership
    /// with it: the receiving member leads the shard after it
    /// (`PL_ACTION_CARRIES_LEADER`).
    pub carries_leader: bool,
    /// Override actions: the origin written or dropped.
    pub origin: Origin,
    /// Where the counts below were taken.
    pub scope: Scope,
    /// The placement tier (1..5) that chose the receiving member, or the
    /// fleet's pick (1..5, `PL_FLEET_PICK_*`; 5 = keep); 0 otherwise.
    pub tier: u32,
    /// The giving member's count, before the action.
    pub from_count: u32,
    /// The receiving member's count, before the action.
    pub to_count: u32,
    /// The floor that applied to the receiver.
    pub floor: u32,
    /// The ceiling that applied to the receiver.
    pub ceiling: u32,
    /// The cluster share (or fair share) that applied.
    pub share: u32,
    /// How many were counted in scope (shards, or target RF).
    pub total: u32,
    /// Override actions: the caller's `now`; for drops, the override's age.
    pub at: u64,
    /// Lag and load moves: the load that decided it.
    pub load: u64,
    explanation: String,
    raw: sys::pl_action,
}

fn id_of(ids: &[String], i: u32, kind: ElementKind) -> Result<Option<String>, Error> {
    if i == sys::PL_NONE {
        return Ok(None);
    }
    match ids.get(i as usize) {
        Some(s) => Ok(Some(s.clone())),
        None => Err(Error::code(sys::PL_E_ACTION).at(kind, Some(i))),
    }
}

impl Action {
    /// The action for a `pl_action` whose indices refer to `snap`;
    /// `E_ACTION` for a kind the library does not have or a member the kind
    /// needs that is `PL_NONE`.
    pub fn from_raw(snap: &Snapshot, a: &sys::pl_action) -> Result<Action, Error> {
        let shard = id_of(snap.shard_keys(), a.shard, ElementKind::Shard)?
            .ok_or_else(|| Error::code(sys::PL_E_ACTION).at(ElementKind::Shard, None))?;
        let from = id_of(snap.member_ids(), a.from, ElementKind::Member)?;
        let to = id_of(snap.member_ids(), a.to, ElementKind::Member)?;
        let kind = ActionKind::from_c(a.kind, from, to).ok_or_else(|| {
            Error::code(sys::PL_E_ACTION)
                .at(ElementKind::Shard, Some(a.shard))
                .with_id(Some(shard.clone()))
        })?;
        let explanation = snap.raw().explain(a).map_err(Error::code)?;
        Ok(Action {
            kind,
            reason: Reason::from_code(a.reason),
            shard,
            stream: id_of(snap.stream_ids(), a.stream, ElementKind::Stream)?,
            stage_first: a.flags & sys::PL_ACTION_STAGE_FIRST != 0,
            carries_leader: a.flags & sys::PL_ACTION_CARRIES_LEADER != 0,
            origin: Origin::from_c(a.origin).unwrap_or(Origin::Lag),
            scope: Scope::from_c(a.scope),
            tier: a.tier,
            from_count: a.from_count,
            to_count: a.to_count,
            floor: a.floor,
            ceiling: a.ceiling,
            share: a.share,
            total: a.total,
            at: a.at,
            load: a.load,
            explanation,
            raw: *a,
        })
    }

    /// The member giving up the leader, replica or ownership, if the action
    /// names one ([`ActionKind::from_member`]).
    pub fn from_member(&self) -> Option<&str> {
        self.kind.from_member()
    }

    /// The member receiving it, if the action names one
    /// ([`ActionKind::to_member`]).
    pub fn to_member(&self) -> Option<&str> {
        self.kind.to_member()
    }

    /// Carries the action out on the caller's own description of the
    /// cluster, a list of [`Shard`]s, as its commit would change the shard
    /// and as `pl_view_apply()` changes a view (`placement/view.h`):
    ///
    /// - `set-leader`: `to`, already a replica, leads.
    /// - `move-leader`: `to` leads; when it held no replica (a copy,
    ///   [`Action::stage_first`]) it takes the old leader's place in
    ///   `replicas`, so `from` no longer holds one.
    /// - `add-replica`: `to` is appended to `replicas`.
    /// - `move-replica`: `to` takes `from`'s place in `replicas`; when
    ///   `from` led, `to` leads ([`Action::carries_leader`]).
    /// - `set-override`, `drop-override`: a fleet's overrides are not part
    ///   of a shard; the list is unchanged (update your
    ///   [`Override`](crate::Override)s).
    ///
    /// A member that leaves `replicas` leaves `out_of_sync` too; a replica
    /// or leader action advances `epoch` by one, as its commit would. A
    /// move in flight ([`Shard::moving_to`]) is left as it is: what the
    /// caller carries out is committed.
    ///
    /// The action must fit the shard as the library's view checks it:
    /// `E_NOT_FOUND` naming the shard when no shard has its key, and
    /// `E_ACTION` naming the shard when it does not fit (`from` is not the
    /// leader, `to` already holds a replica it would gain, eight replicas
    /// already, ...). On an error the list is unchanged.
    ///
    /// ```
    /// use placement::{BrokerConfig, Member, Shard, Snapshot};
    /// # fn main() -> Result<(), placement::Error> {
    /// let members = vec![Member::new("b0"), Member::new("b1"), Member::new("b2")];
    /// let mut shards: Vec<Shard> = (0..6)
    ///     .map(|i| Shard::new(format!("s/{}", i)).replicas(&["b0"]).leader("b0"))
    ///     .collect();
    /// let cfg = BrokerConfig::default().replication_factor(1);
    /// let plan = placement::broker_dry_run(&Snapshot::new(members.clone(), shards.clone())?, &cfg)?;
    /// for a in &plan.actions {
    ///     a.apply_to(&mut shards)?; // move-leader with a copy: the new leader replaces b0
    /// }
    /// assert_eq!(shards.iter().filter(|s| s.replicas == ["b0"]).count(), 2);
    /// let again = placement::broker_dry_run(&Snapshot::new(members, shards)?, &cfg)?;
    /// assert!(again.actions.is_empty());
    /// # Ok(())
    /// # }
    /// ```
    pub fn apply_to(&self, shards: &mut [Shard]) -> Result<(), Error> {
        let (i, shard) = match shards.iter_mut().enumerate().find(|(_, k)| k.key == self.shard) {
            Some(x) => x,
            None => {
                return Err(Error::code(sys::PL_E_NOT_FOUND)
                    .at(ElementKind::Shard, None)
                    .with_id(Some(self.shard.clone())))
            }
        };
        let misfit = || {
            Error::code(sys::PL_E_ACTION)
                .at(ElementKind::Shard, Some(i as u32))
                .with_id(Some(self.shard.clone()))
        };
        let holds = |k: &Shard, m: &str| k.replicas.iter().position(|r| r == m);
        let leads = |k: &Shard, m: Option<&str>| k.leader.as_deref() == m;
        // Where `to` goes in the replica list (Some(j): in place of j; None: appended),
        // and who leads after.
        let (slot, leader): (Option<Option<usize>>, Option<&str>) = match &self.kind {
            ActionKind::SetLeader { from, to } => {
                if holds(shard, to).is_none() || !leads(shard, from.as_deref()) || leads(shard, Some(to)) {
                    return Err(misfit());
                }
                (None, Some(to))
            }
            ActionKind::MoveLeader { from, to } => {
                if !leads(shard, Some(from)) || from == to {
                    return Err(misfit());
                }
                match holds(shard, to) {
                    Some(_) => (None, Some(to)),
                    None => (Some(Some(holds(shard, from).ok_or_else(misfit)?)), Some(to)),
                }
            }
            ActionKind::AddReplica { to } => {
                if holds(shard, to).is_some() || shard.replicas.len() >= sys::PL_MAX_REPLICAS as usize {
                    return Err(misfit());
                }
                (Some(None), shard.leader.as_deref())
            }
            ActionKind::MoveReplica { from, to } => {
                let j = holds(shard, from).ok_or_else(misfit)?;
                if holds(shard, to).is_some() {
                    return Err(misfit());
                }
                let after = if leads(shard, Some(from)) { Some(to.as_str()) } else { shard.leader.as_deref() };
                (Some(Some(j)), after)
            }
            ActionKind::SetOverride { .. } | ActionKind::DropOverride { .. } => return Ok(()),
        };
        let leader = leader.map(str::to_owned);
        let to = self.kind.to_member().unwrap_or_default().to_owned();
        match slot {
            Some(Some(j)) => {
                let gone = std::mem::replace(&mut shard.replicas[j], to);
                shard.out_of_sync.retain(|m| *m != gone);
            }
            Some(None) => shard.replicas.push(to),
            None => {}
        }
        shard.leader = leader;
        shard.epoch = shard.epoch.wrapping_add(1);
        Ok(())
    }

    /// The C action, with indices into the snapshot it was made for.
    pub fn raw(&self) -> &sys::pl_action {
        &self.raw
    }

    /// The sentence `pl_action_explain()` wrote (what `Display` prints).
    pub fn explain(&self) -> &str {
        &self.explanation
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.explanation)
    }
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
    /// "returning-home" (`PL_STATUS_RETURNING_HOME`): fleet: lag overrides wait to go home.
    ReturningHome,
    /// "lagging" (`PL_STATUS_LAGGING`): fleet: an eligible member lags.
    Lagging,
    /// "moving" (`PL_STATUS_MOVING`): fleet: count, spread or keep moves are wanted.
    Moving,
    /// "uneven" (`PL_STATUS_UNEVEN`): fleet: out of bounds, and no rule on moves it.
    Uneven,
    /// A `PL_STATUS_*` value this crate does not know yet.
    Other(u32),
}

impl Status {
    /// Every value the crate knows, in the order of the C list.
    pub const ALL: &'static [Status] = &[Status::Balanced, Status::Paused, Status::MoveLimit, Status::BlockedZones, Status::BlockedCaps, Status::Full, Status::Cooldown, Status::Waiting, Status::NotLive, Status::ProposalsOff, Status::Stalled, Status::ActionCap, Status::InFlight, Status::DrainStalled, Status::BlockedHandoff, Status::ReturningHome, Status::Lagging, Status::Moving, Status::Uneven];

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
            Status::ReturningHome => sys::PL_STATUS_RETURNING_HOME,
            Status::Lagging => sys::PL_STATUS_LAGGING,
            Status::Moving => sys::PL_STATUS_MOVING,
            Status::Uneven => sys::PL_STATUS_UNEVEN,
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
            sys::PL_STATUS_RETURNING_HOME => Status::ReturningHome,
            sys::PL_STATUS_LAGGING => Status::Lagging,
            sys::PL_STATUS_MOVING => Status::Moving,
            sys::PL_STATUS_UNEVEN => Status::Uneven,
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

/// A region the region policy wanted to act on and could not
/// (`pl_region_stall`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stall {
    /// The region's key.
    pub shard: String,
    /// The reason's name, from `pl_region_stall_name()`: "not-ready", ...
    pub reason: &'static str,
    /// 1 (a primary or a peer wanted) or 2 (an idle member could take it).
    pub step: u32,
    /// The member it concerns (not-ready: the best candidate; step 2: the
    /// idle member).
    pub member: Option<String>,
    /// What the region waited for.
    pub wanted: Wanted,
}

/// What a stalled region waited for (`pl_region_stall.wanted`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Wanted {
    /// A live primary: it has none (`PL_REGION_WANT_PRIMARY`).
    Primary,
    /// A peer, added or moved onto an idle member (`PL_REGION_WANT_PEER`).
    Peer,
    /// A `PL_REGION_WANT_*` value this crate does not know yet.
    Other(u32),
}

impl Wanted {
    pub(crate) fn from_c(v: u32) -> Wanted {
        match v {
            sys::PL_REGION_WANT_PRIMARY => Wanted::Primary,
            sys::PL_REGION_WANT_PEER => Wanted::Peer,
            other => Wanted::Other(other),
        }
    }
}

/// What a policy call did: the actions, in the order to carry them out,
/// and why it stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The actions.
    pub actions: Vec<Action>,
    /// Why no further action was emitted.
    pub status: Status,
    /// At least `actions.len()`; one more when a further action was wanted
    /// (a full buffer, a limit, a move in flight).
    pub wanted: u32,
    /// The element the status names, by id: the broker's `stalled` and
    /// `drain-stalled` name the first such shard, `move-limit` the member
    /// at its `max_moves_in`/`max_moves_out`, `blocked-caps`,
    /// `blocked-zones` and `blocked-handoff` the first such stream (`None`:
    /// the cluster); the region policy's `stalled`, `proposals-off`,
    /// `action-cap` and `full` name a region (shard). `None` otherwise.
    pub detail: Option<String>,
    /// `pl_plan_info.detail` as the library wrote it: the index of
    /// [`Plan::detail`] in the snapshot's members, streams or shards.
    pub detail_index: Option<u32>,
    /// How many shards or scopes were blocked or stalled.
    pub blocked: u32,
    /// Dry runs: how many ticks emitted something. Otherwise 1 when
    /// anything was emitted, else 0.
    pub ticks: u32,
    /// The region policy: the regions it could not act on, in the order met.
    pub stalls: Vec<Stall>,
}

/// Which policy made a plan: what its `detail` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Policy {
    Broker,
    Fleet,
    Region,
}

/// The id of the element a plan's status names (`pl_plan_info.detail`).
fn detail_id(policy: Policy, status: Status, snap: &Snapshot, i: u32) -> Option<String> {
    let id = match (policy, status) {
        (Policy::Broker, Status::Stalled) | (Policy::Broker, Status::DrainStalled) => snap.shard_key(i),
        (Policy::Broker, Status::MoveLimit) => snap.member_id(i),
        (Policy::Broker, Status::BlockedCaps)
        | (Policy::Broker, Status::BlockedZones)
        | (Policy::Broker, Status::BlockedHandoff) => snap.stream_id(i),
        (Policy::Region, Status::Stalled)
        | (Policy::Region, Status::ProposalsOff)
        | (Policy::Region, Status::ActionCap)
        | (Policy::Region, Status::Full) => snap.shard_key(i),
        _ => None,
    };
    id.map(str::to_owned)
}

impl Plan {
    /// The answer of a policy call that found no eligible member
    /// (`PL_E_NO_ELIGIBLE`: every member down or draining): not an error of
    /// the input but a tick that can do nothing, status `stalled`, as the
    /// placement tool reports it.
    pub(crate) fn no_eligible(snap: &Snapshot, policy: Policy, raw: &[sys::pl_action], ticks: u32) -> Result<Plan, Error> {
        let info = sys::pl_plan_info {
            written: raw.len() as u32,
            wanted: raw.len() as u32,
            status: sys::PL_STATUS_STALLED,
            detail: sys::PL_NONE,
            blocked: 0,
        };
        Plan::build(policy, snap, raw, &info, ticks)
    }

    pub(crate) fn build(
        policy: Policy,
        snap: &Snapshot,
        raw: &[sys::pl_action],
        info: &sys::pl_plan_info,
        ticks: u32,
    ) -> Result<Plan, Error> {
        let mut actions = Vec::with_capacity(raw.len());
        for a in raw {
            actions.push(Action::from_raw(snap, a)?);
        }
        let status = Status::from_code(info.status);
        let detail_index = if info.detail == sys::PL_NONE {
            None
        } else {
            Some(info.detail)
        };
        Ok(Plan {
            actions,
            status,
            wanted: info.wanted.max(raw.len() as u32),
            detail: detail_index.and_then(|i| detail_id(policy, status, snap, i)),
            detail_index,
            blocked: info.blocked,
            ticks,
            stalls: Vec::new(),
        })
    }
}
