//! broker_tick.rs - a broker control plane's tick loop, in Rust.
//!
//! The same loop as examples/broker_tick.c. The controller keeps its own
//! model of the cluster (brokers with their rack, partitions with their
//! replica list and leader) and, every tick:
//!  1. builds a `Snapshot` from the model;
//!  2. builds the tick's `View` of it. In C the previous tick's view is
//!     handed in as a hint (`pl_view_options.reuse`); the crate has
//!     `View::reusing(&snap, &opts, &prev)`, but a `View<'s>` borrows its
//!     snapshot, so last tick's snapshot and view cannot be carried into the
//!     next iteration of a loop (that would be a struct borrowing itself).
//!     Reusing last tick's view from a Rust loop is not offered yet: this
//!     builds a fresh view every tick (the answers are the same, only the
//!     build is slower), and shows `View::reusing` once, at the end;
//!  3. asks `broker_plan` for at most MAX_MOVES moves;
//!  4. carries out each action on its model (each copy done before the next
//!     tick);
//!  5. once a tick is quiet (balanced, nothing emitted), marks b6 draining,
//!     and goes on until a tick is quiet again and b6 holds nothing.
//!
//! Checks (exit 1 otherwise): b6 ends holding and leading nothing, the last
//! status is balanced, every broker leads within its bounds, and a view of
//! the final model built with the last tick's view as the hint plans the
//! same (nothing) as one built without.
//!
//! In lib/rust, with the library built (`make` at the root), `cargo run
//! --offline --example broker_tick`; `-- -v` prints every action, not only
//! each tick's first.

use placement::{Action, BrokerConfig, Error, Member, Shard, Snapshot, View, ViewOptions};
use std::process::exit;

const RACKS: [(&str, &str); 7] = [
    ("b0", "a"),
    ("b1", "a"),
    ("b2", "b"),
    ("b3", "b"),
    ("b4", "c"),
    ("b5", "c"),
    ("b6", "d"),
];
const TOPICS: [(&str, usize); 3] = [("orders", 24), ("clicks", 16), ("audit", 8)];
const MAX_MOVES: u32 = 6;
const MAX_TICKS: usize = 40;
const DRAINED: &str = "b6"; // alone in rack d: the broker being decommissioned

struct Partition {
    key: String,
    topic: &'static str,
    replicas: Vec<String>,
    leader: String,
}

/// An uneven start: orders led from rack a, b0 holding 32 replicas, b1 16.
fn initial_model() -> Vec<Partition> {
    let mut parts = Vec::new();
    for (topic, count) in TOPICS {
        for k in 0..count {
            let n = parts.len();
            let reps = [
                if n % 3 != 0 { "b0" } else { "b1" },
                if n % 2 != 0 { "b2" } else { "b3" },
                ["b4", "b6", "b6", "b5"][n % 4],
            ];
            let leader = if topic == "orders" {
                reps[0]
            } else {
                reps[n % 3]
            };
            let replicas = reps.iter().map(|r| r.to_string()).collect();
            parts.push(Partition {
                key: format!("{}/{:02}", topic, k),
                topic,
                replicas,
                leader: leader.to_string(),
            });
        }
    }
    parts
}

fn snapshot(parts: &[Partition], draining: bool) -> Result<Snapshot, Error> {
    let members = RACKS
        .iter()
        .map(|&(b, rack)| Member {
            draining: draining && b == DRAINED,
            ..Member::new(b).zone(rack)
        })
        .collect();
    let shards = parts
        .iter()
        .map(|p| {
            Shard::new(&p.key)
                .stream(p.topic)
                .replicas(&p.replicas)
                .leader(&p.leader)
        })
        .collect();
    Snapshot::new(members, shards)
}

/// Carries out one action on the model, as `pl_view_apply()` does to a view.
fn carry_out(parts: &mut [Partition], a: &Action) -> bool {
    let p = match parts.iter_mut().find(|p| p.key == a.shard) {
        Some(p) => p,
        None => return false,
    };
    let (from, to) = (
        a.from_member.clone().unwrap_or_default(),
        a.to_member.clone().unwrap_or_default(),
    );
    let holds_to = p.replicas.contains(&to);
    let ok = match a.kind {
        "set-leader" => holds_to, // placing or failover: `to` already holds a replica
        "move-leader" => p.leader == from && holds_to != a.stage_first, // stage_first: `to` copies the old leader's
        "add-replica" => !holds_to && !to.is_empty(), // a new partition's, or a failover with no live follower
        "move-replica" => {
            !holds_to && p.replicas.contains(&from) && (p.leader == from) == a.carries_leader
        }
        _ => false, // set-override, drop-override are the fleet's, never the broker's
    };
    if !ok {
        return false;
    }
    if a.kind == "add-replica" {
        p.replicas.push(to);
        return true;
    }
    if a.kind == "move-replica" || (a.kind == "move-leader" && a.stage_first) {
        for r in p.replicas.iter_mut().filter(|r| **r == from) {
            *r = to.clone();
        }
    }
    if a.kind != "move-replica" || a.carries_leader {
        p.leader = to;
    }
    true
}

fn tally(parts: &[Partition], b: &str) -> (usize, usize) {
    let leads = parts.iter().filter(|p| p.leader == b).count();
    (
        leads,
        parts
            .iter()
            .filter(|p| p.replicas.iter().any(|r| r == b))
            .count(),
    )
}

/// A check that did not hold: say which, and exit 1.
fn fail(msg: String) -> ! {
    eprintln!("FAIL: {}", msg);
    exit(1)
}

fn main() -> Result<(), Error> {
    let verbose = std::env::args().any(|a| a == "-v");
    let cfg = BrokerConfig::default().max_moves(MAX_MOVES);
    let (mut parts, mut draining, mut total) = (initial_model(), false, 0);
    let mut last = None; // the last tick's snapshot and status
    let head = "7 brokers in racks a a b b c c d, 48 partitions of 3 topics, RF 3, max_moves";
    println!("{} {}", head, MAX_MOVES);
    println!("each tick: actions, status, then leaders/replicas per broker (* draining)");
    for tick in 1..=MAX_TICKS {
        let snap = snapshot(&parts, draining)?;
        let plan = snap.view()?.broker_plan(&cfg)?; // a fresh view: see the top of the file
        for a in &plan.actions {
            if !carry_out(&mut parts, a) {
                fail(format!("tick {}: {} does not fit the model", tick, a));
            }
        }
        let n = plan.actions.len();
        let mut line = format!(
            "tick {:2}: {} action{} {:<10}",
            tick,
            n,
            if n == 1 { ", " } else { "s," },
            plan.status.name()
        );
        for &(b, _) in RACKS.iter() {
            let (l, r) = tally(&parts, b);
            line += &format!(
                " {}{} {}/{}",
                b,
                if draining && b == DRAINED { "*" } else { "" },
                l,
                r
            );
        }
        println!("{}", line);
        for a in plan.actions.iter().take(if verbose { n } else { 1 }) {
            println!("    {}{}", a, if n > 1 && !verbose { " ..." } else { "" });
        }
        total += n;
        let quiet = n == 0 && plan.status == "balanced";
        last = Some((snap, plan.status));
        if quiet && draining && tally(&parts, DRAINED) == (0, 0) {
            println!("{} actions in {} ticks", total, tick);
            break;
        } else if quiet && !draining {
            println!("-- balanced; decommissioning b6: marked draining");
            draining = true;
        } else if tick == MAX_TICKS {
            fail(format!("not balanced after {} ticks", MAX_TICKS));
        }
    }

    let (last_snap, last_status) = last.unwrap_or_else(|| fail("no tick".into()));
    if tally(&parts, DRAINED) != (0, 0) || last_status != "balanced" {
        let (l, r) = tally(&parts, DRAINED);
        fail(format!(
            "b6 leads {}, holds {}; last status {}",
            l, r, last_status
        ));
    }
    // The final model, viewed with a view of the last tick's snapshot as the hint, and without.
    let final_snap = snapshot(&parts, draining)?;
    let hint = last_snap.view()?;
    let mut reused = View::reusing(&final_snap, &ViewOptions::default(), &hint)?;
    let mut fresh = final_snap.view()?;
    for &(b, _) in RACKS.iter().filter(|&&(b, _)| b != DRAINED) {
        let t = reused.member_tally(b)?;
        if t.leaders < t.floor || t.leaders > t.ceiling {
            fail(format!(
                "{} leads {}, bounds [{}, {}]",
                b, t.leaders, t.floor, t.ceiling
            ));
        }
    }
    let (p1, p2) = (reused.broker_plan(&cfg)?, fresh.broker_plan(&cfg)?);
    if !p1.actions.is_empty() || p1 != p2 || p1.status != "balanced" {
        fail(format!(
            "final plan: reused {} actions ({}), fresh {} ({})",
            p1.actions.len(),
            p1.status,
            p2.actions.len(),
            p2.status
        ));
    }
    println!(
        "ok: b6 holds nothing; every broker leads within its bounds; a fresh view plans the same"
    );
    Ok(())
}
