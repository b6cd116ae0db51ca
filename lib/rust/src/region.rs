//! Regions: replica sets that grow onto joining members, and primaries
//! that follow (`placement/region.h`).

use crate::action::{Plan, Policy, Stall, Wanted};
use crate::error::{ElementKind, Error, REGION_FIELDS};
use crate::snapshot::Snapshot;
use crate::sys;
use crate::sys::safe;
use crate::view::View;

/// How the region policy runs; `Default` is `pl_region_config_init()` (RF 3,
/// add-peer proposals on, load balance off at 25%, 16 actions a call).
///
/// ```
/// use placement::RegionConfig;
/// let cfg = RegionConfig::default().replication_factor(2);
/// assert_eq!(cfg.max_actions, 16);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegionConfig {
    /// Peers wanted per region, 1..=8.
    pub replication_factor: u32,
    /// Add peers (off during a rolling upgrade).
    pub add_peer_proposals: bool,
    /// Step 4: primaries toward clearly less load.
    pub load_balance: bool,
    /// Percent, 1..=99, by which a peer's load must be less.
    pub load_threshold: u32,
    /// Most actions one call emits, >= 1.
    pub max_actions: u32,
    version: u32,
}

impl Default for RegionConfig {
    fn default() -> RegionConfig {
        let c = safe::region_config_init();
        RegionConfig {
            replication_factor: c.replication_factor,
            add_peer_proposals: c.add_peer_proposals != 0,
            load_balance: c.load_balance != 0,
            load_threshold: c.load_threshold,
            max_actions: c.max_actions,
            version: c.version,
        }
    }
}

impl RegionConfig {
    /// Sets `replication_factor`.
    pub fn replication_factor(mut self, n: u32) -> RegionConfig {
        self.replication_factor = n;
        self
    }
    /// Sets `add_peer_proposals`.
    pub fn add_peer_proposals(mut self, on: bool) -> RegionConfig {
        self.add_peer_proposals = on;
        self
    }
    /// Sets `load_balance`.
    pub fn load_balance(mut self, on: bool) -> RegionConfig {
        self.load_balance = on;
        self
    }
    /// Sets `load_threshold`.
    pub fn load_threshold(mut self, pct: u32) -> RegionConfig {
        self.load_threshold = pct;
        self
    }
    /// Sets `max_actions`.
    pub fn max_actions(mut self, n: u32) -> RegionConfig {
        self.max_actions = n;
        self
    }
    /// The C struct.
    pub fn to_raw(&self) -> sys::pl_region_config {
        sys::pl_region_config {
            version: self.version,
            replication_factor: self.replication_factor,
            add_peer_proposals: self.add_peer_proposals as u32,
            load_balance: self.load_balance as u32,
            load_threshold: self.load_threshold,
            max_actions: self.max_actions,
        }
    }
}

impl View {
    /// The effective replication factor, min(configured RF, live members)
    /// (`pl_region_effective_rf()`).
    pub fn region_effective_rf(&self, cfg: &RegionConfig) -> Result<u32, Error> {
        let mut d = sys::pl_diag::default();
        let rc = self.raw.region_effective_rf(&cfg.to_raw(), &mut d);
        if rc < 0 {
            return Err(Error::from_diag(rc, &d).in_config(REGION_FIELDS));
        }
        Ok(rc as u32)
    }

    /// May `member` be added as a peer of `region`, proposed against
    /// `expected_epoch`? (`pl_region_check_add_peer()`): `Ok(())`, or the
    /// refusal (`E_EPOCH_STALE`, `E_PEER_DUPLICATE`, `E_TRANSFER_DEBT`,
    /// `E_MOVE_IN_FLIGHT` for a region whose copy is in flight, ...) naming
    /// the region or the member.
    pub fn check_add_peer(
        &self,
        region: &str,
        member: &str,
        expected_epoch: u64,
    ) -> Result<(), Error> {
        let k = self.shard_index(region)?;
        let m = self.member_index(member)?;
        let mut d = sys::pl_diag::default();
        let rc = self.raw.region_check_add_peer(k, m, expected_epoch, &mut d);
        if rc < 0 {
            return Err(self.snapshot().error_from_diag(rc, &d));
        }
        Ok(())
    }

    /// One tick of the region policy (`pl_region_plan()`): grow and claim,
    /// fill an idle member, primaries to the newest peer, load, primaries
    /// even within the peer sets. Every action
    /// is applied to the view; [`Plan::stalls`] names the regions it could
    /// not act on.
    pub fn region_plan(&mut self, cfg: &RegionConfig) -> Result<Plan, Error> {
        let c = cfg.to_raw();
        let snap = self.snapshot().clone();
        let n = snap.raw_shards().len();
        // At most one action per region per call, and max_actions.
        let cap = n.min(cfg.max_actions as usize).saturating_add(1).min(1 << 26);
        let mut out = vec![sys::pl_action::default(); cap];
        let mut stalls = vec![sys::pl_region_stall::default(); (n * 2 + 16).min(1 << 27)];
        let mut info = sys::pl_plan_info::default();
        let mut d = sys::pl_diag::default();
        let rc = self
            .raw
            .region_plan(&c, &mut out, &mut info, &mut stalls, &mut d);
        if rc == sys::PL_E_NO_ELIGIBLE {
            return Plan::no_eligible(&snap, Policy::Region, &[], 0);
        }
        if rc < 0 {
            return Err(snap.error_from_diag(rc, &d).in_config(REGION_FIELDS));
        }
        out.truncate((rc as usize).min(cap));
        let mut plan = Plan::build(Policy::Region, &snap, &out, &info, (rc > 0) as u32)?;
        let met = (info.blocked as usize).min(stalls.len());
        for s in stalls.iter().take(met) {
            let shard = snap.shard_key(s.shard).ok_or_else(|| {
                Error::code(sys::PL_E_SHARD_RANGE).at(ElementKind::Shard, Some(s.shard))
            })?;
            plan.stalls.push(Stall {
                shard: shard.to_owned(),
                reason: safe::region_stall_name(s.reason),
                step: s.step,
                member: if s.member == sys::PL_NONE {
                    None
                } else {
                    Some(self.member_id(s.member)?.to_owned())
                },
                wanted: Wanted::from_c(s.wanted),
            });
        }
        Ok(plan)
    }
}

/// [`View::region_plan`] on a fresh view of `snap` (default options).
pub fn region_plan(snap: &Snapshot, cfg: &RegionConfig) -> Result<Plan, Error> {
    snap.view()?.region_plan(cfg)
}
