//! Actions and plans: what a policy asks the caller to do, and why.

use crate::error::{ElementKind, Error};
use crate::parts::Origin;
use crate::snapshot::Snapshot;
use crate::sys;
use crate::sys::safe;
use std::fmt;

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

/// One action, in ids: kind, reason, the shard, the members it moves
/// something between, and the numbers that decided it. `Display` is the
/// library's sentence (`pl_action_explain()`), e.g. "move leader of
/// orders/07 from b2 to b0: stream orders leads 10 on b2, 1 on b0, floor 4,
/// ceiling 4".
///
/// Fields a kind does not use are 0 (numbers), `None` (ids) or
/// `Origin::Lag` (origin).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    /// The kind's name, from `pl_action_kind_name()`: "move-leader", ...
    pub kind: &'static str,
    /// The reason's name, from `pl_reason_name()`: "stream-skew", ...
    pub reason: &'static str,
    /// The shard's key.
    pub shard: String,
    /// The shard's stream.
    pub stream: Option<String>,
    /// The member giving up the leader, replica or ownership.
    pub from_member: Option<String>,
    /// The member receiving it.
    pub to_member: Option<String>,
    /// It copies data: stage on `to_member` first, then commit.
    pub stage_first: bool,
    /// A `move-replica` of the leader's replica that takes the leadership
    /// with it: `to_member` leads the shard after it
    /// (`PL_ACTION_CARRIES_LEADER`).
    pub carries_leader: bool,
    /// Override actions: the origin written or dropped.
    pub origin: Origin,
    /// Where the counts below were taken.
    pub scope: Scope,
    /// The placement tier (1..5) that chose `to_member`, or the fleet's
    /// pick (1..5, `PL_FLEET_PICK_*`; 5 = keep); 0 otherwise.
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
    /// The action for a `pl_action` whose indices refer to `snap`.
    pub fn from_raw(snap: &Snapshot, a: &sys::pl_action) -> Result<Action, Error> {
        let shard = id_of(snap.shard_keys(), a.shard, ElementKind::Shard)?
            .ok_or_else(|| Error::code(sys::PL_E_ACTION).at(ElementKind::Shard, None))?;
        let explanation = snap.raw().explain(a).map_err(Error::code)?;
        Ok(Action {
            kind: safe::action_kind_name(a.kind),
            reason: safe::reason_name(a.reason),
            shard,
            stream: id_of(snap.stream_ids(), a.stream, ElementKind::Stream)?,
            from_member: id_of(snap.member_ids(), a.from, ElementKind::Member)?,
            to_member: id_of(snap.member_ids(), a.to, ElementKind::Member)?,
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

/// Why a policy call stopped emitting: the status name from
/// `pl_status_name()` ("balanced", "move-limit", ...). `Display` prints it,
/// and it compares equal to its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Status {
    code: u32,
    name: &'static str,
}

impl Status {
    pub(crate) fn from_c(code: u32) -> Status {
        Status {
            code,
            name: safe::status_name(code),
        }
    }
    /// The status name.
    pub fn name(&self) -> &'static str {
        self.name
    }
    /// The `PL_STATUS_*` value.
    pub fn code(&self) -> u32 {
        self.code
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl PartialEq<str> for Status {
    fn eq(&self, other: &str) -> bool {
        self.name == other
    }
}

impl PartialEq<&str> for Status {
    fn eq(&self, other: &&str) -> bool {
        self.name == *other
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
    /// The status-specific index (a blocked shard or stream, a member at
    /// its move limit), as `pl_plan_info.detail`.
    pub detail: Option<u32>,
    /// How many shards or scopes were blocked or stalled.
    pub blocked: u32,
    /// Dry runs: how many ticks emitted something. Otherwise 1 when
    /// anything was emitted, else 0.
    pub ticks: u32,
    /// The region policy: the regions it could not act on, in the order met.
    pub stalls: Vec<Stall>,
}

impl Plan {
    pub(crate) fn build(
        snap: &Snapshot,
        raw: &[sys::pl_action],
        info: &sys::pl_plan_info,
        ticks: u32,
    ) -> Result<Plan, Error> {
        let mut actions = Vec::with_capacity(raw.len());
        for a in raw {
            actions.push(Action::from_raw(snap, a)?);
        }
        Ok(Plan {
            actions,
            status: Status::from_c(info.status),
            wanted: info.wanted.max(raw.len() as u32),
            detail: if info.detail == sys::PL_NONE {
                None
            } else {
                Some(info.detail)
            },
            blocked: info.blocked,
            ticks,
            stalls: Vec::new(),
        })
    }
}
