//! The broker policy: leaders and replicas per stream and in total
//! (`placement/broker.h`).

use crate::action::{Plan, Policy};
use crate::error::{Error, BROKER_FIELDS};
use crate::snapshot::Snapshot;
use crate::sys;
use crate::sys::safe;
use crate::view::View;

/// The broker policy's configuration; `Default` is `pl_broker_config_init()`
/// (one move at a time, RF 3, per-stream balance and replica balance on;
/// bytes balance on, within 10%, and a full ratio of 90%).
///
/// The bytes fields act only on a snapshot that gives sizes
/// ([`Shard::size`](crate::Shard::size),
/// [`Member::capacity`](crate::Member::capacity)); a value the library
/// refuses is `E_CONFIG` naming the field ([`Error::id`](crate::Error::id)).
///
/// The tolerances (`tolerance`, `stream_tolerance`, config version 4) widen
/// the bounds a member's counts are kept within: a layout within them is
/// balanced as it is.
///
/// ```
/// use placement::BrokerConfig;
/// let cfg = BrokerConfig::default().max_moves(4).replication_factor(2);
/// assert_eq!(cfg.max_moves, 4);
/// assert!(cfg.stream_balance && cfg.replica_balance);
/// assert!(!cfg.replica_balance(false).replica_balance);
/// assert_eq!((cfg.full_ratio, cfg.bytes_tolerance, cfg.max_bytes_in_flight), (90, 10, 0));
/// assert_eq!((cfg.tolerance, cfg.stream_tolerance), (0, 0));
/// assert_eq!(cfg.tolerance(1).stream_tolerance(2).stream_tolerance, 2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BrokerConfig {
    /// Concurrent moves, counting those in flight; 1..=256.
    pub max_moves: u32,
    /// Moves in flight into one member; 0 = no limit.
    pub max_moves_in: u32,
    /// Moves in flight out of one member; 0 = no limit.
    pub max_moves_out: u32,
    /// Start no move (placing still runs).
    pub paused: bool,
    /// Replicas of a new shard, 1..=8, capped at the eligible members.
    pub replication_factor: u32,
    /// Per-stream tiers and stream pass; off = cluster totals only.
    pub stream_balance: bool,
    /// Keep replicas even per stream and in total, not only leaders; off =
    /// leaders only (drains and zone repair still move replicas).
    pub replica_balance: bool,
    /// Move leaderships by hand-offs to in-sync followers only, copying
    /// nothing (Kafka's preferred elections, Redpanda's leader balancer); a
    /// bound only a copy would meet ends the plan `blocked-handoff`.
    pub handoff_only: bool,
    /// Keep each member's bytes within `bytes_tolerance` of its
    /// capacity-proportional share (default on).
    pub bytes_balance: bool,
    /// Even the bytes before the counts (default off: counts first).
    pub bytes_first: bool,
    /// Percent of a member's capacity no copy may fill it past, and past
    /// which it sheds first; 1..=100, 0 = none (default 90). A plan held by
    /// it ends `blocked-full`.
    pub full_ratio: u32,
    /// Percent of its share a member's bytes may stray from it,
    /// 0..=`PL_BROKER_MAX_TOLERANCE` (1000; default 10).
    pub bytes_tolerance: u32,
    /// Bytes of copies in flight, counting those listed; 0 = no limit.
    pub max_bytes_in_flight: u64,
    /// Bytes of copies in flight into one member; 0 = no limit.
    pub max_bytes_in: u64,
    /// Bytes of copies in flight out of one member; 0 = no limit.
    pub max_bytes_out: u64,
    /// Shards by which a member's total leaders or replicas may stray past
    /// its floor and ceiling before a move is made (config field 17);
    /// 0..=`PL_MAX_TOLERANCE` (2^26; default 0: moves even a member one
    /// shard off).
    pub tolerance: u32,
    /// The same for each stream's counts, where the stream sets none
    /// ([`Stream::tolerance`](crate::Stream::tolerance); field 18);
    /// 0..=`PL_MAX_TOLERANCE` (default 0).
    pub stream_tolerance: u32,
    version: u32,
}

impl Default for BrokerConfig {
    fn default() -> BrokerConfig {
        let c = safe::broker_config_init();
        BrokerConfig {
            max_moves: c.max_moves,
            max_moves_in: c.max_moves_in,
            max_moves_out: c.max_moves_out,
            paused: c.paused != 0,
            replication_factor: c.replication_factor,
            stream_balance: c.stream_balance != 0,
            replica_balance: c.replica_balance != 0,
            handoff_only: c.handoff_only != 0,
            bytes_balance: c.bytes_balance != 0,
            bytes_first: c.bytes_first != 0,
            full_ratio: c.full_ratio,
            bytes_tolerance: c.bytes_tolerance,
            max_bytes_in_flight: c.max_bytes_in_flight,
            max_bytes_in: c.max_bytes_in,
            max_bytes_out: c.max_bytes_out,
            tolerance: c.tolerance,
            stream_tolerance: c.stream_tolerance,
            version: c.version,
        }
    }
}

impl BrokerConfig {
    /// Sets `max_moves`.
    pub fn max_moves(mut self, n: u32) -> BrokerConfig {
        self.max_moves = n;
        self
    }
    /// Sets `max_moves_in`.
    pub fn max_moves_in(mut self, n: u32) -> BrokerConfig {
        self.max_moves_in = n;
        self
    }
    /// Sets `max_moves_out`.
    pub fn max_moves_out(mut self, n: u32) -> BrokerConfig {
        self.max_moves_out = n;
        self
    }
    /// Sets `paused`.
    pub fn paused(mut self, on: bool) -> BrokerConfig {
        self.paused = on;
        self
    }
    /// Sets `replication_factor`.
    pub fn replication_factor(mut self, n: u32) -> BrokerConfig {
        self.replication_factor = n;
        self
    }
    /// Sets `stream_balance`.
    pub fn stream_balance(mut self, on: bool) -> BrokerConfig {
        self.stream_balance = on;
        self
    }
    /// Sets `replica_balance`.
    pub fn replica_balance(mut self, on: bool) -> BrokerConfig {
        self.replica_balance = on;
        self
    }
    /// Sets `handoff_only`.
    pub fn handoff_only(mut self, on: bool) -> BrokerConfig {
        self.handoff_only = on;
        self
    }
    /// Sets `bytes_balance`.
    pub fn bytes_balance(mut self, on: bool) -> BrokerConfig {
        self.bytes_balance = on;
        self
    }
    /// Sets `bytes_first`.
    pub fn bytes_first(mut self, on: bool) -> BrokerConfig {
        self.bytes_first = on;
        self
    }
    /// Sets `full_ratio` (percent; 0 = none).
    pub fn full_ratio(mut self, percent: u32) -> BrokerConfig {
        self.full_ratio = percent;
        self
    }
    /// Sets `bytes_tolerance` (percent).
    pub fn bytes_tolerance(mut self, percent: u32) -> BrokerConfig {
        self.bytes_tolerance = percent;
        self
    }
    /// Sets `max_bytes_in_flight` (0 = no limit).
    pub fn max_bytes_in_flight(mut self, bytes: u64) -> BrokerConfig {
        self.max_bytes_in_flight = bytes;
        self
    }
    /// Sets `max_bytes_in` (0 = no limit).
    pub fn max_bytes_in(mut self, bytes: u64) -> BrokerConfig {
        self.max_bytes_in = bytes;
        self
    }
    /// Sets `max_bytes_out` (0 = no limit).
    pub fn max_bytes_out(mut self, bytes: u64) -> BrokerConfig {
        self.max_bytes_out = bytes;
        self
    }
    /// Sets `tolerance` (shards; the totals').
    pub fn tolerance(mut self, shards: u32) -> BrokerConfig {
        self.tolerance = shards;
        self
    }
    /// Sets `stream_tolerance` (shards; every stream's that sets none).
    pub fn stream_tolerance(mut self, shards: u32) -> BrokerConfig {
        self.stream_tolerance = shards;
        self
    }
    /// The C struct.
    pub fn to_raw(&self) -> sys::pl_broker_config {
        sys::pl_broker_config {
            version: self.version,
            max_moves: self.max_moves,
            max_moves_in: self.max_moves_in,
            max_moves_out: self.max_moves_out,
            paused: self.paused as u32,
            replication_factor: self.replication_factor,
            stream_balance: self.stream_balance as u32,
            replica_balance: self.replica_balance as u32,
            handoff_only: self.handoff_only as u32,
            bytes_balance: self.bytes_balance as u32,
            bytes_first: self.bytes_first as u32,
            full_ratio: self.full_ratio,
            bytes_tolerance: self.bytes_tolerance,
            reserved: 0,
            max_bytes_in_flight: self.max_bytes_in_flight,
            max_bytes_in: self.max_bytes_in,
            max_bytes_out: self.max_bytes_out,
            tolerance: self.tolerance,
            stream_tolerance: self.stream_tolerance,
        }
    }
}

/// Room for the first call of a plan: every shard once, and some.
pub(crate) fn first_cap(snap: &Snapshot) -> usize {
    (snap.shard_keys().len() + 64).min(1 << 20)
}

impl View {
    /// One tick of the broker policy (`pl_broker_plan()`): place what has no
    /// live leader, hand off what draining members lead and hold, repair
    /// zones, start moves (leaders, then replicas) up to the limits. Every
    /// action is applied to the view.
    pub fn broker_plan(&mut self, cfg: &BrokerConfig) -> Result<Plan, Error> {
        self.broker_run(cfg, false)
    }

    /// Every action from here to a balanced layout (`pl_broker_dry_run()`):
    /// ticks of [`View::broker_plan`] with every move settled in between
    /// (moves in flight in the snapshot are settled first), until a tick on
    /// a settled view emits nothing. The view ends holding the layout after
    /// them. Its status is never `move-limit` or `in-flight`; it may be
    /// `drain-stalled` (see [`View::broker_drain_stalls`]).
    pub fn broker_dry_run(&mut self, cfg: &BrokerConfig) -> Result<Plan, Error> {
        self.broker_run(cfg, true)
    }

    fn broker_run(&mut self, cfg: &BrokerConfig, dry: bool) -> Result<Plan, Error> {
        let c = cfg.to_raw();
        let mut all: Vec<sys::pl_action> = Vec::new();
        let mut cap = first_cap(self.snapshot());
        let mut ticks_total = 0u32;
        let mut continued = false;
        loop {
            let mut out = vec![sys::pl_action::default(); cap];
            let mut info = sys::pl_plan_info::default();
            let mut d = sys::pl_diag::default();
            let mut ticks = 0u32;
            let rc = if dry {
                self.raw
                    .broker_dry_run(&c, &mut out, &mut info, &mut ticks, &mut d)
            } else {
                self.raw.broker_plan(&c, &mut out, &mut info, &mut d)
            };
            if rc == sys::PL_E_NO_ELIGIBLE {
                return Plan::no_eligible(self.snapshot(), Policy::Broker, &all, ticks_total);
            }
            if rc < 0 {
                return Err(self.snapshot().error_from_diag(rc, &d).in_config(BROKER_FIELDS));
            }
            let n = (rc as usize).min(out.len());
            out.truncate(n);
            all.extend_from_slice(&out);
            if dry {
                // A call that stopped full inside a tick is continued by the
                // next call's first tick: count that tick once.
                ticks_total += if continued && ticks > 0 { ticks - 1 } else { ticks };
            }
            if info.status == sys::PL_STATUS_FULL && n > 0 {
                continued = true;
                cap = cap.saturating_mul(2).min(1 << 24);
                continue;
            }
            info.wanted = (all.len() as u32).saturating_add(info.wanted.saturating_sub(info.written));
            info.written = all.len() as u32;
            if !dry {
                ticks_total = (!all.is_empty()) as u32;
            }
            return Plan::build(Policy::Broker, self.snapshot(), &all, &info, ticks_total);
        }
    }
}

/// A replica on a draining member that a drain cannot move, and why
/// (`pl_broker_stall`, from [`View::broker_drain_stalls`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DrainStall {
    /// The shard's key.
    pub shard: String,
    /// The id of the draining member that holds the replica.
    pub member: String,
    /// Why it cannot leave.
    pub reason: DrainStallReason,
}

/// Why a draining member's replica cannot leave it (`PL_BROKER_STALL_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DrainStallReason {
    /// Every eligible member holds a replica of the shard already
    /// (`PL_BROKER_STALL_HELD`).
    Held,
    /// Every other eligible member would lower the shard's zone count
    /// (`PL_BROKER_STALL_ZONES`).
    Zones,
    /// Every member that keeps the zone count is at its `max_shards`
    /// (`PL_BROKER_STALL_CAPS`).
    Caps,
    /// A `PL_BROKER_STALL_*` value this crate does not know yet.
    Other(u32),
}

impl DrainStallReason {
    fn from_c(r: u32) -> DrainStallReason {
        match r {
            sys::PL_BROKER_STALL_HELD => DrainStallReason::Held,
            sys::PL_BROKER_STALL_ZONES => DrainStallReason::Zones,
            sys::PL_BROKER_STALL_CAPS => DrainStallReason::Caps,
            other => DrainStallReason::Other(other),
        }
    }
}

impl View {
    /// Every replica a draining member holds that a drain cannot move, and
    /// why (`pl_broker_drain_stalls()`): the entries behind a plan's status
    /// `drain-stalled`, as the view is now. Shards in key order, a shard's
    /// members in id order; empty when every such replica has somewhere to
    /// go. Read-only: the view is not changed.
    ///
    /// ```
    /// use placement::{DrainStallReason, Member, Shard, Snapshot};
    /// // b0 drains; b1 and b2 share zone zb: the shard would span one zone
    /// let members = vec![Member::new("b0").zone("za").draining(), Member::new("b1").zone("zb"),
    ///                    Member::new("b2").zone("zb")];
    /// let snap = Snapshot::new(members, vec![Shard::new("k").replicas(&["b1", "b0"]).leader("b1")])?;
    /// let stalls = snap.view()?.broker_drain_stalls()?;
    /// assert_eq!(stalls.len(), 1);
    /// assert_eq!((stalls[0].shard.as_str(), stalls[0].member.as_str()), ("k", "b0"));
    /// assert_eq!(stalls[0].reason, DrainStallReason::Zones);
    /// # Ok::<(), placement::Error>(())
    /// ```
    pub fn broker_drain_stalls(&self) -> Result<Vec<DrainStall>, Error> {
        let mut total = 0u32;
        let mut d = sys::pl_diag::default();
        let rc = self.raw.broker_drain_stalls(&mut [], &mut total, &mut d);
        if rc < 0 {
            return Err(self.snapshot().error_from_diag(rc, &d));
        }
        let mut out = vec![sys::pl_broker_stall::default(); total as usize];
        let rc = self.raw.broker_drain_stalls(&mut out, &mut total, &mut d);
        if rc < 0 {
            return Err(self.snapshot().error_from_diag(rc, &d));
        }
        out.truncate(rc as usize);
        let snap = self.snapshot();
        Ok(out
            .iter()
            .map(|e| DrainStall {
                shard: snap.shard_key(e.shard).unwrap_or_default().to_owned(),
                member: snap.member_id(e.member).unwrap_or_default().to_owned(),
                reason: DrainStallReason::from_c(e.reason),
            })
            .collect())
    }
}

/// [`View::broker_drain_stalls`] on a fresh view of `snap` (default options).
pub fn broker_drain_stalls(snap: &Snapshot) -> Result<Vec<DrainStall>, Error> {
    snap.view()?.broker_drain_stalls()
}

/// [`View::broker_plan`] on a fresh view of `snap` (default options).
pub fn broker_plan(snap: &Snapshot, cfg: &BrokerConfig) -> Result<Plan, Error> {
    snap.view()?.broker_plan(cfg)
}

/// [`View::broker_dry_run`] on a fresh view of `snap` (default options).
pub fn broker_dry_run(snap: &Snapshot, cfg: &BrokerConfig) -> Result<Plan, Error> {
    snap.view()?.broker_dry_run(cfg)
}
