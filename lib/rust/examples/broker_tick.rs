//! broker_tick.rs - a broker control plane's tick loop, in Rust.
//!
//! The same loop as examples/broker_tick.c. The controller keeps its own
//! model of the cluster (brokers with their rack; partitions as the crate's
//! `Shard`s, with their replica list and leader) and, every tick:
//!  1. builds a `Snapshot` from the model;
//!  2. builds the tick's `View` of it with a `Ticker`, which hands the
//!     previous tick's view in as the hint (`pl_view_options.reuse`, as the
//!     C loop does) and keeps this one for the next tick;
//!  3. asks `broker_plan` for at most MAX_MOVES moves;
//!  4. carries out each action on its model (`Action::apply_to`: each copy
//!     done before the next tick), matching on the action's kind to log the
//!     copies it starts;
//!  5. once a tick is quiet (balanced, nothing emitted), marks b6 draining,
//!     and goes on until a tick is quiet again and b6 holds nothing.
//!
//! Checks (exit 1 otherwise): every tick's plan on the ticker's view equals
//! the plan on a fresh view of the same snapshot; b6 ends holding and
//! leading nothing; the last status is balanced; every broker leads within
//! its bounds.
//!
//! In lib/rust, with the library built (`make` at the root), `cargo run
//! --offline --example broker_tick`; `-- -v` prints every action, not only
//! each tick's first.

use placement::{ActionKind, BrokerConfig, Error, Member, Shard, Snapshot, Status, Ticker, ViewOptions};
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

/// An uneven start: orders led from rack a, b0 holding 32 replicas, b1 16.
fn initial_model() -> Vec<Shard> {
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
            parts.push(
                Shard::new(format!("{}/{:02}", topic, k))
                    .stream(topic)
                    .replicas(reps)
                    .leader(leader),
            );
        }
    }
    parts
}

fn snapshot(parts: &[Shard], draining: bool) -> Result<Snapshot, Error> {
    let members = RACKS
        .iter()
        .map(|&(b, rack)| Member {
            draining: draining && b == DRAINED,
            ..Member::new(b).zone(rack)
        })
        .collect();
    Snapshot::new(members, parts.to_vec())
}

fn tally(parts: &[Shard], b: &str) -> (usize, usize) {
    let leads = parts.iter().filter(|p| p.leader.as_deref() == Some(b)).count();
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
    let (mut parts, mut draining, mut total, mut copies) = (initial_model(), false, 0, 0);
    let mut ticker = Ticker::new(ViewOptions::default());
    let mut last_status = None;
    let head = "7 brokers in racks a a b b c c d, 48 partitions of 3 topics, RF 3, max_moves";
    println!("{} {}", head, MAX_MOVES);
    println!("each tick: actions, status, then leaders/replicas per broker (* draining)");
    for tick in 1..=MAX_TICKS {
        let snap = snapshot(&parts, draining)?;
        let plan = ticker.tick(&snap)?.broker_plan(&cfg)?; // last tick's view is the hint
        if plan != snap.view()?.broker_plan(&cfg)? {
            fail(format!("tick {}: the ticker's view plans otherwise than a fresh one", tick));
        }
        for a in &plan.actions {
            if let Err(e) = a.apply_to(&mut parts) {
                fail(format!("tick {}: {} does not fit the model: {}", tick, a, e));
            }
            // What the controller starts: a copy for these, a hand-off otherwise.
            match &a.kind {
                ActionKind::AddReplica { .. } | ActionKind::MoveReplica { .. } => copies += 1,
                ActionKind::MoveLeader { .. } if a.stage_first => copies += 1,
                _ => {}
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
        let quiet = n == 0 && plan.status == Status::Balanced;
        last_status = Some(plan.status);
        if quiet && draining && tally(&parts, DRAINED) == (0, 0) {
            println!("{} actions ({} of them copies) in {} ticks", total, copies, tick);
            break;
        } else if quiet && !draining {
            println!("-- balanced; decommissioning b6: marked draining");
            draining = true;
        } else if tick == MAX_TICKS {
            fail(format!("not balanced after {} ticks", MAX_TICKS));
        }
    }

    if tally(&parts, DRAINED) != (0, 0) || last_status != Some(Status::Balanced) {
        let (l, r) = tally(&parts, DRAINED);
        fail(format!("b6 leads {}, holds {}; last status {:?}", l, r, last_status));
    }
    let view = ticker.view().unwrap_or_else(|| fail("no tick".into()));
    for &(b, _) in RACKS.iter().filter(|&&(b, _)| b != DRAINED) {
        let t = view.member_tally(b)?;
        if t.leaders < t.floor || t.leaders > t.ceiling {
            fail(format!(
                "{} leads {}, bounds [{}, {}]",
                b, t.leaders, t.floor, t.ceiling
            ));
        }
    }
    println!("ok: b6 holds nothing; every broker leads within its bounds; each tick's view planned as a fresh one");
    Ok(())
}
