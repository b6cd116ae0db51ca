//! The fleet: ownership with overrides, count balance, lag moves, return
//! home, and the override document (`placement/fleet.h`).

use crate::action::{Plan, Policy};
use crate::error::{ElementKind, Error, FLEET_FIELDS};
use crate::parts::{Origin, Override};
use crate::snapshot::Snapshot;
use crate::sys;
use crate::sys::safe;
use crate::view::View;

/// One member's fleet decision settings; `Default` is
/// `pl_fleet_config_init()` (cooldown 5, one move a decision, spread and
/// count balance on, return home after 300). Times are in the caller's units.
///
/// ```
/// use placement::FleetConfig;
/// let cfg = FleetConfig::default().now(1000).cooldown(0);
/// assert_eq!(cfg.last_move, None);
/// assert_eq!(cfg.return_home_age, Some(300));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FleetConfig {
    /// The caller's clock.
    pub now: u64,
    /// The deciding member's last move; `None`: it never moved.
    pub last_move: Option<u64>,
    /// Time between two moves of one member.
    pub cooldown: u64,
    /// Moves per decision, >= 1.
    pub moves_per_decision: u32,
    /// Close the spread below the floor once nobody is over the share.
    pub spread: bool,
    /// Age of a lag override before it may go home; `None`: never.
    pub return_home_age: Option<u64>,
    /// Count balance (off: lag moves only).
    pub count_balance: bool,
    version: u32,
}

fn never(v: u64) -> Option<u64> {
    if v == sys::PL_FLEET_NEVER {
        None
    } else {
        Some(v)
    }
}

impl Default for FleetConfig {
    fn default() -> FleetConfig {
        let c = safe::fleet_config_init();
        FleetConfig {
            now: c.now,
            last_move: never(c.last_move),
            cooldown: c.cooldown,
            moves_per_decision: c.moves_per_decision,
            spread: c.spread != 0,
            return_home_age: never(c.return_home_age),
            count_balance: c.count_balance != 0,
            version: c.version,
        }
    }
}

impl FleetConfig {
    /// Sets `now`.
    pub fn now(mut self, t: u64) -> FleetConfig {
        self.now = t;
        self
    }
    /// Sets `last_move`.
    pub fn last_move(mut self, t: Option<u64>) -> FleetConfig {
        self.last_move = t;
        self
    }
    /// Sets `cooldown`.
    pub fn cooldown(mut self, t: u64) -> FleetConfig {
        self.cooldown = t;
        self
    }
    /// Sets `moves_per_decision`.
    pub fn moves_per_decision(mut self, n: u32) -> FleetConfig {
        self.moves_per_decision = n;
        self
    }
    /// Sets `spread`.
    pub fn spread(mut self, on: bool) -> FleetConfig {
        self.spread = on;
        self
    }
    /// Sets `return_home_age`.
    pub fn return_home_age(mut self, t: Option<u64>) -> FleetConfig {
        self.return_home_age = t;
        self
    }
    /// Sets `count_balance`.
    pub fn count_balance(mut self, on: bool) -> FleetConfig {
        self.count_balance = on;
        self
    }
    /// The C struct, for the member at index `self_index`.
    pub fn to_raw(&self, self_index: u32) -> sys::pl_fleet_config {
        sys::pl_fleet_config {
            version: self.version,
            self_: self_index,
            now: self.now,
            last_move: self.last_move.unwrap_or(sys::PL_FLEET_NEVER),
            cooldown: self.cooldown,
            moves_per_decision: self.moves_per_decision,
            spread: self.spread as u32,
            return_home_age: self.return_home_age.unwrap_or(sys::PL_FLEET_NEVER),
            count_balance: self.count_balance as u32,
            reserved: 0,
        }
    }
}

/// What [`View::read_overrides`] found in an override document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverrideDoc {
    /// The overrides, in line order.
    pub overrides: Vec<Override>,
    /// Lines naming a shard or member the view does not know (skipped).
    pub skipped: u32,
}

impl View {
    /// The member that owns a shard now: its override's member when that
    /// one is eligible, else its ring home (`pl_fleet_owner()`).
    pub fn fleet_owner(&self, shard: &str) -> Result<&str, Error> {
        let k = self.shard_index(shard)?;
        let rc = self.raw.fleet_owner(k);
        if rc < 0 {
            return Err(Error::code(rc)
                .at(ElementKind::Shard, Some(k))
                .with_id(Some(shard.to_owned())));
        }
        self.member_id(rc as u32)
    }

    /// The owner of every shard, by shard index (`pl_fleet_owners()`); fills
    /// the view's ring homes once for later fleet calls.
    pub fn fleet_owners(&mut self) -> Result<Vec<String>, Error> {
        let n = self.snapshot().shard_keys().len();
        let mut out = vec![0u32; n];
        let mut d = sys::pl_diag::default();
        let rc = self.raw.fleet_owners(&mut out, &mut d);
        if rc < 0 {
            return Err(self.snapshot().error_from_diag(rc, &d));
        }
        let mut ids = Vec::with_capacity(n);
        for &m in out.iter().take(rc as usize) {
            ids.push(self.member_id(m)?.to_owned());
        }
        Ok(ids)
    }

    /// One member's decision for this tick (`pl_fleet_decide()`): clean-up,
    /// then lag moves, count balance or return home for `member`. Every
    /// action is applied to the view.
    pub fn fleet_decide(&mut self, member: &str, cfg: &FleetConfig) -> Result<Plan, Error> {
        let m = self.member_index(member)?;
        let c = cfg.to_raw(m);
        let snap = self.snapshot().clone();
        // Clean-up drops at most every override; moves at most
        // moves_per_decision; one action per shard otherwise.
        let cap = (snap.raw_shards().len() * 2 + cfg.moves_per_decision as usize + 64)
            .min(1 << 26);
        let mut out = vec![sys::pl_action::default(); cap];
        let mut info = sys::pl_plan_info::default();
        let mut d = sys::pl_diag::default();
        let rc = self.raw.fleet_decide(&c, &mut out, &mut info, &mut d);
        if rc == sys::PL_E_NO_ELIGIBLE {
            return Plan::no_eligible(&snap, Policy::Fleet, &[], 0);
        }
        if rc < 0 {
            return Err(snap.error_from_diag(rc, &d).in_config(FLEET_FIELDS));
        }
        out.truncate((rc as usize).min(cap));
        Plan::build(Policy::Fleet, &snap, &out, &info, (rc > 0) as u32)
    }

    /// Reads an override document (version 1) into overrides for this
    /// view's snapshot (`pl_fleet_doc_read()`); lines naming unknown shards
    /// or members are skipped and counted.
    pub fn read_overrides(&self, text: &str) -> Result<OverrideDoc, Error> {
        let lines = text.bytes().filter(|&b| b == b'\n').count() + 1;
        let mut out = vec![
            sys::pl_override {
                since: 0,
                shard: 0,
                member: 0,
                origin: 0
            };
            lines.min(1 << 26)
        ];
        let mut skipped = 0u32;
        let mut d = sys::pl_diag::default();
        let rc = self
            .raw
            .doc_read(text.as_bytes(), &mut out, &mut skipped, &mut d);
        if rc < 0 {
            // kind Argument, index 2 (the text), other() = the 1-based line.
            return Err(Error::from_diag(rc, &d));
        }
        let snap = self.snapshot();
        let mut overrides = Vec::with_capacity(rc as usize);
        for o in out.iter().take(rc as usize) {
            let shard = snap.shard_key(o.shard);
            let member = self.member_id(o.member).ok();
            if let (Some(shard), Some(member)) = (shard, member) {
                overrides.push(Override {
                    shard: shard.to_owned(),
                    member: member.to_owned(),
                    origin: Origin::from_c(o.origin).unwrap_or(Origin::Lag),
                    since: o.since,
                });
            }
        }
        Ok(OverrideDoc { overrides, skipped })
    }

    /// The overrides in force in this view (the snapshot's, with every
    /// action applied since) as an override document
    /// (`pl_fleet_doc_format()`).
    pub fn format_overrides(&self) -> Result<String, Error> {
        self.raw.doc_format().map_err(Error::code)
    }
}

/// [`View::fleet_decide`] on a fresh view of `snap` (default options).
pub fn fleet_decide(snap: &Snapshot, member: &str, cfg: &FleetConfig) -> Result<Plan, Error> {
    snap.view()?.fleet_decide(member, cfg)
}
