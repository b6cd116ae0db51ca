//! The broker policy: leaders per stream and in total (`placement/broker.h`).

use crate::action::Plan;
use crate::error::Error;
use crate::snapshot::Snapshot;
use crate::sys;
use crate::sys::safe;
use crate::view::View;

/// The broker policy's configuration; `Default` is `pl_broker_config_init()`
/// (one move at a time, RF 3, per-stream balance on).
///
/// ```
/// use placement::BrokerConfig;
/// let cfg = BrokerConfig::default().max_moves(4).replication_factor(2);
/// assert_eq!(cfg.max_moves, 4);
/// assert!(cfg.stream_balance);
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
        }
    }
}

/// Room for the first call of a plan: every shard once, and some.
pub(crate) fn first_cap(snap: &Snapshot) -> usize {
    (snap.shard_keys().len() + 64).min(1 << 20)
}

impl<'s> View<'s> {
    /// One tick of the broker policy (`pl_broker_plan()`): place what has no
    /// live leader, hand off what draining members lead, start moves up to
    /// the limits. Every action is applied to the view.
    pub fn broker_plan(&mut self, cfg: &BrokerConfig) -> Result<Plan, Error> {
        self.broker_run(cfg, false)
    }

    /// Every action from here to a balanced layout (`pl_broker_dry_run()`):
    /// ticks of [`View::broker_plan`] with every move settled in between.
    /// The view ends holding the layout after them.
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
            if rc < 0 {
                return Err(self.snapshot().error_from_diag(rc, &d));
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
            return Plan::build(self.snapshot(), &all, &info, ticks_total);
        }
    }
}

/// [`View::broker_plan`] on a fresh view of `snap` (default options).
pub fn broker_plan(snap: &Snapshot, cfg: &BrokerConfig) -> Result<Plan, Error> {
    snap.view()?.broker_plan(cfg)
}

/// [`View::broker_dry_run`] on a fresh view of `snap` (default options).
pub fn broker_dry_run(snap: &Snapshot, cfg: &BrokerConfig) -> Result<Plan, Error> {
    snap.view()?.broker_dry_run(cfg)
}
