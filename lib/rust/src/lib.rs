//! # placement
//!
//! Rust bindings to libplacement, the C library that decides where shards
//! live: which member of a fleet or cluster owns, leads or replicates each
//! shard, and which move to make next when the layout is uneven.
//!
//! You describe members, streams, shards, overrides and copies **by id**;
//! a [`Snapshot`] maps them to the library's arrays and owns the bytes; a
//! [`View`] holds the snapshot and what one tick derives from it; the
//! policies ([`View::broker_plan`], [`View::fleet_decide`],
//! [`View::region_plan`]) return a [`Plan`] of [`Action`]s, in ids, each with
//! the library's sentence that says why. An action's [`ActionKind`] names the
//! members it moves something between; [`Action::apply_to`] carries it out
//! on your own list of [`Shard`]s; a [`Ticker`] builds each tick's view with
//! the last one as its hint.
//!
//! ```
//! use placement::{ActionKind, BrokerConfig, Member, Shard, Snapshot, Status};
//!
//! # fn main() -> Result<(), placement::Error> {
//! let members = vec![Member::new("b0"), Member::new("b1"), Member::new("b2")];
//! let shards: Vec<Shard> = (0..12)
//!     .map(|i| Shard::new(format!("perf/{:02}", i)).stream("perf").replicas(&["b0", "b1", "b2"]).leader("b2"))
//!     .collect();
//! let snap = Snapshot::new(members, shards)?;
//! let plan = placement::broker_dry_run(&snap, &BrokerConfig::default())?;
//! assert_eq!(plan.actions.len(), 8); // 12/0/0 -> 4/4/4
//! assert!(matches!(&plan.actions[0].kind, ActionKind::MoveLeader { from, .. } if from == "b2"));
//! assert_eq!(plan.actions[0].kind.to_string(), "move-leader");
//! assert_eq!(plan.status, Status::Balanced);
//! # Ok(())
//! # }
//! ```
//!
//! Every rule, default and name comes from the C library: configs'
//! `Default` calls the C `*_init()`, kinds, reasons and statuses
//! ([`ActionKind`], [`Reason`], [`Status`]) display as the strings of the C
//! name functions, errors carry `pl_error_name()` and a config error the
//! field's name ([`Error::field`]). A cluster with no eligible member is a
//! plan with status [`Status::Stalled`], not an error. The raw
//! declarations are in [`sys`], the only module with `unsafe` code.
//!
//! The crate's version is the library's ([`VERSION`]); [`version()`] is the
//! linked library's.
#![deny(unsafe_code)]
#![deny(missing_docs)]

pub mod sys;

mod action;
mod broker;
mod error;
mod fleet;
mod kind;
mod parts;
mod region;
mod route;
mod snapshot;
mod view;

pub use action::{Action, Plan, Stall, Wanted};
pub use broker::{broker_drain_stalls, broker_dry_run, broker_plan, BrokerConfig, DrainStall, DrainStallReason};
pub use error::{ElementKind, Error};
pub use fleet::{fleet_decide, FleetConfig, OverrideDoc};
pub use kind::{ActionKind, Reason, Scope, Status};
pub use region::{region_plan, RegionConfig};
pub use route::{
    route_decide, Answer, Body, Outcome, RouteOwner, RouteRequest, SendBody, Verdict, VerdictKind,
};
pub use parts::{CopyInFlight, Member, Origin, Override, Shard, Stream, ZoneRule};
pub use snapshot::{Snapshot, SnapshotBuilder};
pub use view::{Counts, Imbalance, Measure, Scorer, ShardState, Tally, Ticker, View, ViewOptions};

use sys::safe;

/// The crate's version, which is the version of the C library it binds
/// (`PL_VERSION_STRING` of its headers).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The linked library's version, `pl_version()`: "MAJOR.MINOR.PATCH".
pub fn version() -> &'static str {
    safe::version()
}

/// The linked library's `PL_VERSION_NUMBER` (`pl_version_number()`).
pub fn version_number() -> i32 {
    safe::version_number()
}

/// XXH3-64 (seed 0) of a byte range: the hash of a member id or shard key
/// under the default scorer (`pl_hash()`).
pub fn hash(data: &[u8]) -> u64 {
    safe::hash(data)
}

/// The default scorer's score of a (shard, member) pair from their hashes
/// (`pl_score()`); higher wins.
pub fn score(key_hash: u64, member_hash: u64) -> u64 {
    safe::score(key_hash, member_hash)
}

/// The legacy scorer's score: FNV-1a 64 over `"<key> <member id>"`
/// (`pl_score_legacy()`).
pub fn score_legacy(key: &[u8], member_id: &[u8]) -> u64 {
    safe::score_legacy(key, member_id)
}

/// The straw2 draw of a score for a member of this weight
/// (`pl_score_weighted()`); always <= 0, higher wins.
pub fn score_weighted(score: u64, weight: u32) -> i64 {
    safe::score_weighted(score, weight)
}

/// The name of an error code, as `pl_error_name()` gives it ("E_DUP_MEMBER").
pub fn error_name(code: i32) -> &'static str {
    safe::error_name(code)
}
