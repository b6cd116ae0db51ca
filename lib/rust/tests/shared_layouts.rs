//! The bindings and the placement tool give the same plan on the same
//! layout: every tests/bindings/NAME.txt (a placement(5) layout, in the
//! subset below) planned with the crate's broker dry run must give
//! tests/bindings/NAME.plan, the tool's dry run: one line per action, `KIND
//! SHARD FROM TO REASON` (`-` for an absent member), then `status STATUS`;
//! then the layout's imbalance and that of a view with every action applied,
//! `imbalance before|after TOTAL TOTALS STREAMS`, which must be the tool's.
//!
//! The subset read here: `set policy=broker rf=N [max-moves=K]
//! [max-moves-in=K] [max-moves-out=K] [paused=on|off] [stream-balance=on|off]
//! [replica-balance=on|off] [handoff-only=on|off] [tolerance=N]
//! [stream-tolerance=N]`, `member ID [zone=Z]
//! [weight=W] [cap=N] [draining] [down]`, `stream ID [tolerance=N]
//! [zones=span|majority] [keep]`, `shard ID [stream=S]
//! [replicas=a,b] [leader=a] [out-of-sync=a,b] [moving-to=M]`, `copy KEY to=M
//! [from=M]`, `#` comments and blank
//! lines. Anything else fails the test, naming the file and line.

mod common;

use placement::{
    BrokerConfig, CopyInFlight, Imbalance, Measure, Member, Plan, Shard, Snapshot, Stream, View, ViewOptions, ZoneRule,
};
use std::path::Path;

struct Layout {
    cfg: BrokerConfig,
    members: Vec<Member>,
    streams: Vec<Stream>,
    shards: Vec<Shard>,
    copies: Vec<CopyInFlight>,
}

fn on_off(v: &str, at: &str) -> bool {
    match v {
        "on" => true,
        "off" => false,
        _ => panic!("{}: {:?} is not on or off", at, v),
    }
}

fn number(v: &str, at: &str) -> u32 {
    v.parse().unwrap_or_else(|_| panic!("{}: {:?} is not a number", at, v))
}

fn ids(v: &str) -> Vec<String> {
    v.split(',').filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

fn read(path: &Path) -> Layout {
    let text = std::fs::read_to_string(path).unwrap();
    let mut l = Layout {
        cfg: BrokerConfig::default(),
        members: Vec::new(),
        streams: Vec::new(),
        shards: Vec::new(),
        copies: Vec::new(),
    };
    for (n, line) in text.lines().enumerate() {
        let at = format!("{}:{}", path.display(), n + 1);
        let line = line.split('#').next().unwrap_or("");
        let mut words = line.split_whitespace();
        let (head, name) = match words.next() {
            Some(h) => (h, words.next()),
            None => continue,
        };
        let attrs = name.into_iter().chain(words);
        match head {
            "set" => {
                for w in attrs {
                    let (k, v) = w.split_once('=').unwrap_or_else(|| panic!("{}: {:?} is not name=value", at, w));
                    let c = l.cfg;
                    l.cfg = match k {
                        "policy" if v == "broker" => c,
                        "rf" => c.replication_factor(number(v, &at)),
                        "max-moves" => c.max_moves(number(v, &at)),
                        "max-moves-in" => c.max_moves_in(number(v, &at)),
                        "max-moves-out" => c.max_moves_out(number(v, &at)),
                        "paused" => c.paused(on_off(v, &at)),
                        "stream-balance" => c.stream_balance(on_off(v, &at)),
                        "replica-balance" => c.replica_balance(on_off(v, &at)),
                        "handoff-only" => c.handoff_only(on_off(v, &at)),
                        "tolerance" => c.tolerance(number(v, &at)),
                        "stream-tolerance" => c.stream_tolerance(number(v, &at)),
                        _ => panic!("{}: setting {:?} is not read here", at, w),
                    };
                }
            }
            "member" => {
                let mut m = Member::new(name.unwrap_or_else(|| panic!("{}: a member needs an id", at)));
                for w in attrs.skip(1) {
                    m = match w.split_once('=') {
                        Some(("zone", v)) => m.zone(v),
                        Some(("weight", v)) => m.weight(number(v, &at)),
                        Some(("cap", v)) => m.max_shards(number(v, &at)),
                        None if w == "draining" => m.draining(),
                        None if w == "down" => m.down(),
                        _ => panic!("{}: member attribute {:?} is not read here", at, w),
                    };
                }
                l.members.push(m);
            }
            "stream" => {
                let mut s = Stream::new(name.unwrap_or_else(|| panic!("{}: a stream needs an id", at)));
                for w in attrs.skip(1) {
                    s = match w.split_once('=') {
                        Some(("tolerance", v)) => s.tolerance(number(v, &at)),
                        Some(("zones", "span")) => s.zones(ZoneRule::Span),
                        Some(("zones", "majority")) => s.zones(ZoneRule::Majority),
                        None if w == "keep" => s.keep(),
                        _ => panic!("{}: stream attribute {:?} is not read here", at, w),
                    };
                }
                l.streams.push(s);
            }
            "shard" => {
                let mut k = Shard::new(name.unwrap_or_else(|| panic!("{}: a shard needs a key", at)));
                for w in attrs.skip(1) {
                    k = match w.split_once('=') {
                        Some(("stream", v)) => k.stream(v),
                        Some(("replicas", v)) => k.replicas(ids(v)),
                        Some(("leader", v)) => k.leader(v),
                        Some(("out-of-sync", v)) => k.out_of_sync(ids(v)),
                        Some(("moving-to", v)) => k.moving_to(v),
                        _ => panic!("{}: shard attribute {:?} is not read here", at, w),
                    };
                }
                l.shards.push(k);
            }
            "copy" => {
                let key = name.unwrap_or_else(|| panic!("{}: a copy needs a shard", at));
                let (mut to, mut from) = (None, None);
                for w in attrs.skip(1) {
                    match w.split_once('=') {
                        Some(("to", v)) => to = Some(v),
                        Some(("from", v)) => from = Some(v),
                        _ => panic!("{}: copy attribute {:?} is not read here", at, w),
                    }
                }
                let mut c = CopyInFlight::new(key, to.unwrap_or_else(|| panic!("{}: a copy needs to=", at)));
                if let Some(f) = from {
                    c = c.from(f);
                }
                l.copies.push(c);
            }
            _ => panic!("{}: {:?} lines are not read here", at, head),
        }
    }
    l
}

fn imbalance_line(when: &str, i: Imbalance) -> String {
    format!("imbalance {} {} {} {}\n", when, i.total, i.totals, i.streams)
}

/// The plan in the .plan format, with the imbalance before and after.
fn lines(plan: &Plan, snap: &Snapshot, cfg: &BrokerConfig) -> String {
    // handoff-only copies nothing: the tool counts leaders only then too
    let measure = if cfg.replica_balance && !cfg.handoff_only { Measure::Broker } else { Measure::Leaders };
    let mut view = View::new(snap, &ViewOptions::default()).unwrap();
    let before = view.imbalance(measure).unwrap();
    for a in &plan.actions {
        view.apply(a).unwrap();
    }
    let after = view.imbalance(measure).unwrap();
    let mut out = String::new();
    for a in &plan.actions {
        out += &format!(
            "{} {} {} {} {}\n",
            a.kind,
            a.shard,
            a.from_member().unwrap_or("-"),
            a.to_member().unwrap_or("-"),
            a.reason
        );
    }
    out + &format!("status {}\n", plan.status) + &imbalance_line("before", before) + &imbalance_line("after", after)
}

#[test]
fn every_shared_layout_plans_as_the_tool() {
    let dir = common::root().join("tests").join("bindings");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {}", dir.display(), e))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().map_or(false, |x| x == "txt"))
        .collect();
    files.sort();
    let (mut compared, mut actions) = (0, 0);
    for txt in &files {
        let l = read(txt);
        let snap = Snapshot::builder(l.members, l.shards)
            .streams(l.streams)
            .copies(l.copies)
            .build()
            .unwrap_or_else(|e| panic!("{}: {}", txt.display(), e));
        let plan = placement::broker_dry_run(&snap, &l.cfg).unwrap_or_else(|e| panic!("{}: {}", txt.display(), e));
        let want_path = txt.with_extension("plan");
        let want = std::fs::read_to_string(&want_path).unwrap_or_else(|e| panic!("{}: {}", want_path.display(), e));
        let got = lines(&plan, &snap, &l.cfg);
        for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
            assert_eq!(g, w, "{} line {}", want_path.display(), i + 1);
        }
        assert_eq!(got.lines().count(), want.lines().count(), "{}: lines", want_path.display());
        compared += 1;
        actions += plan.actions.len();
    }
    eprintln!("{} shared layouts, {} actions, the same as the tool's", compared, actions);
    assert!(compared >= 3 && actions >= 10, "{} layouts, {} actions", compared, actions);
}

/// A follower's copy staged for a hand-off says so (`for_handoff`), and the
/// hand-off of the same shard to the same member follows it; a paired step
/// flags both of its actions.
#[test]
fn staged_and_paired_actions_are_flagged() {
    let dir = common::root().join("tests").join("bindings");
    let l = read(&dir.join("staged-handoff.txt"));
    let snap = Snapshot::builder(l.members, l.shards).streams(l.streams).build().unwrap();
    let plan = placement::broker_dry_run(&snap, &l.cfg).unwrap();
    let staged: Vec<usize> = (0..plan.actions.len()).filter(|&i| plan.actions[i].for_handoff).collect();
    assert_eq!(staged.len(), 10);
    for &i in &staged {
        let a = &plan.actions[i];
        assert!(a.stage_first && !a.carries_leader && !a.paired, "{}", a);
        let next = plan.actions[i + 1..]
            .iter()
            .find(|b| b.shard == a.shard && matches!(b.kind, placement::ActionKind::MoveLeader { .. }))
            .unwrap_or_else(|| panic!("no hand-off after {}", a));
        assert_eq!(next.to_member(), a.to_member());
        assert!(!next.stage_first);
    }
    let l = read(&dir.join("replicas-3-4-5.txt"));
    let snap = Snapshot::builder(l.members, l.shards).streams(l.streams).build().unwrap();
    let plan = placement::broker_dry_run(&snap, &l.cfg).unwrap();
    let flags: Vec<(bool, bool)> = plan.actions.iter().map(|a| (a.paired, a.carries_leader)).collect();
    assert_eq!(flags, vec![(true, true), (true, false)]);
}
