//! Actions and plans: what a policy asks the caller to do, and why.

use crate::error::{ElementKind, Error};
use crate::kind::{ActionKind, Reason, Scope, Status};
use crate::parts::{Origin, Shard};
use crate::snapshot::Snapshot;
use crate::sys;
use std::fmt;

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
    /// One step of two actions (`PL_ACTION_PAIRED`): a `move-replica` that
    /// carries its leadership, then the hand-off by which its destination
    /// gives one shard of the stream back; carry them out together.
    pub paired: bool,
    /// A `move-replica` of a follower's replica made so that the shard's
    /// leader can hand the receiving member the leadership once the copy is
    /// in (`PL_ACTION_FOR_HANDOFF`): no leadership moves twice.
    pub for_handoff: bool,
    /// Each of the two `move-replica`s of an exchange the bytes band makes:
    /// shards of one stream and the same role swap members, so every count
    /// stays as it was (`PL_ACTION_EXCHANGE`).
    pub exchange: bool,
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
    /// The bytes it copies: the shard's size when it copies
    /// ([`Action::stage_first`]), `None` when that size is unknown
    /// (`PL_BYTES_UNKNOWN`); `Some(0)` when it copies nothing (a hand-off,
    /// an override).
    pub bytes: Option<u64>,
    /// A broker copy's giving member's known bytes before it (0 otherwise,
    /// and for a member whose shards' sizes are unknown).
    pub from_bytes: u64,
    /// A broker copy's receiving member's known bytes before it.
    pub to_bytes: u64,
    /// [`Scope::Bytes`] (reasons `full-ratio`, `bytes-skew`): the bound that
    /// decided it (the giving member's full bytes, or the band's edge); else 0.
    pub bytes_limit: u64,
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
            paired: a.flags & sys::PL_ACTION_PAIRED != 0,
            for_handoff: a.flags & sys::PL_ACTION_FOR_HANDOFF != 0,
            exchange: a.flags & sys::PL_ACTION_EXCHANGE != 0,
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
            bytes: if a.bytes == sys::PL_BYTES_UNKNOWN { None } else { Some(a.bytes) },
            from_bytes: a.from_bytes,
            to_bytes: a.to_bytes,
            bytes_limit: a.bytes_limit,
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
    /// `blocked-zones`, `blocked-handoff` and `blocked-bounds` the first such stream (`None`:
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
        | (Policy::Broker, Status::BlockedHandoff)
        | (Policy::Broker, Status::BlockedBounds) => snap.stream_id(i),
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
