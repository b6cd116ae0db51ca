//! A control plane's tick loop from Rust: views kept from one tick to the
//! next (`Ticker`, `View::reusing`), actions carried out on the caller's own
//! shard list (`Action::apply_to`), and the answers a loop logs rather than
//! aborts on (a cluster with no eligible member is a `stalled` plan).

mod common;

use common::*;
use placement::*;

/// A random cluster: members in zones, some draining or down; shards in
/// streams, some new, some with out-of-sync followers.
fn cluster(rng: &mut Rng) -> (Vec<Member>, Vec<Shard>) {
    let nm = 2 + rng.below(6) as usize;
    let members: Vec<Member> = (0..nm)
        .map(|i| {
            let m = Member::new(format!("m{}", i)).zone(format!("z{}", rng.below(3)));
            match rng.below(10) {
                0 => m.draining(),
                1 => m.down(),
                _ => m,
            }
        })
        .collect();
    let nk = rng.below(30) as usize;
    let shards = (0..nk)
        .map(|i| {
            let k = Shard::new(format!("s{}/{:02}", i % 3, i)).stream(format!("s{}", i % 3));
            if rng.below(8) == 0 {
                return k; // new
            }
            let fav = rng.below(nm as u64) as usize;
            let rf = 1 + rng.below(3.min(nm as u64)) as usize;
            let mut reps: Vec<String> = Vec::new();
            for j in 0..rf {
                let m = if j == 0 && rng.below(2) == 0 { fav } else { rng.below(nm as u64) as usize };
                let id = format!("m{}", m);
                if !reps.contains(&id) {
                    reps.push(id);
                }
            }
            let leader = reps[rng.below(reps.len() as u64) as usize].clone();
            let k = k.replicas(&reps).leader(leader.clone());
            match reps.iter().find(|r| **r != leader) {
                Some(f) if rng.below(5) == 0 => k.out_of_sync([f]),
                _ => k,
            }
        })
        .collect();
    (members, shards)
}

fn snap(members: &[Member], shards: &[Shard]) -> Snapshot {
    Snapshot::new(members.to_vec(), shards.to_vec()).unwrap()
}

/// The shard list as a view has it now: (key, leader, replicas) in order.
fn states(view: &View, shards: &[Shard]) -> Vec<(String, Option<String>, Vec<String>)> {
    shards
        .iter()
        .map(|k| {
            let st = view.shard_state(&k.key).unwrap();
            (k.key.clone(), st.leader, st.replicas)
        })
        .collect()
}

fn listed(shards: &[Shard]) -> Vec<(String, Option<String>, Vec<String>)> {
    shards.iter().map(|k| (k.key.clone(), k.leader.clone(), k.replicas.clone())).collect()
}

/// A dry run's actions carried out on the shard list give the layout the
/// dry run's view ends with, and a fresh plan of it has nothing to do; the
/// first tick's actions carried out give a layout whose dry run is the rest
/// of the first dry run, action for action.
#[test]
fn a_dry_run_carried_out_on_the_shard_list_is_its_own_continuation() {
    let cfg = BrokerConfig::default().max_moves(256).replication_factor(2);
    let (mut runs, mut applied, mut continued) = (0, 0, 0);
    let seed = seed(2800);
    for s in seed..seed + 150 {
        let mut rng = Rng(s);
        let (members, shards) = cluster(&mut rng);
        let first = snap(&members, &shards);
        let mut view = first.view().unwrap();
        let all = view.broker_dry_run(&cfg).unwrap();
        let mut after = shards.clone();
        for a in &all.actions {
            a.apply_to(&mut after).unwrap_or_else(|e| panic!("seed {}: {}: {}", s, a, e));
        }
        assert_eq!(listed(&after), states(&view, &shards), "seed {}", s);
        let again = broker_dry_run(&snap(&members, &after), &cfg).unwrap();
        assert!(again.actions.is_empty(), "seed {}: {:?}", s, again.actions.first().map(|a| a.to_string()));
        assert_eq!(again.status, all.status, "seed {}", s);
        runs += 1;
        applied += all.actions.len();

        // One tick carried out, then a fresh dry run: the rest of the first.
        let tick = broker_plan(&first, &cfg).unwrap();
        let mut one = shards.clone();
        for a in &tick.actions {
            a.apply_to(&mut one).unwrap();
        }
        let rest = broker_dry_run(&snap(&members, &one), &cfg).unwrap();
        assert_eq!(rest.actions, all.actions[tick.actions.len()..], "seed {}", s);
        assert_eq!(rest.status, all.status, "seed {}", s);
        if !tick.actions.is_empty() && !rest.actions.is_empty() {
            continued += 1;
        }
    }
    eprintln!("{} dry runs, {} actions carried out, {} continued past a first tick", runs, applied, continued);
    assert!(applied > 300 && continued > 10, "{} actions, {} continued", applied, continued);
}

/// What each kind does to the replica set, as the C header says.
#[test]
fn each_kind_changes_the_replica_set_as_the_library_does() {
    let base = || vec![Shard::new("k").replicas(["a", "b"]).leader("a").out_of_sync(["b"]).epoch(7)];
    let members = vec![Member::new("a"), Member::new("b"), Member::new("c")];
    let s = snap(&members, &base());
    let make = |kind| s.view().unwrap().make_action(kind, Reason::Drain, "k").unwrap();
    let run = |kind: ActionKind| {
        let a = make(kind);
        let mut list = base();
        a.apply_to(&mut list).map(|_| list.remove(0))
    };
    // move-leader to a member holding no replica: it takes the old leader's place
    let k = run(ActionKind::MoveLeader { from: "a".into(), to: "c".into() }).unwrap();
    assert_eq!((k.leader.as_deref(), k.replicas, k.epoch), (Some("c"), vec!["c".to_owned(), "b".to_owned()], 8));
    // ... to a follower: a hand-off, the set unchanged
    let k = run(ActionKind::MoveLeader { from: "a".into(), to: "b".into() }).unwrap();
    assert_eq!((k.leader.as_deref(), k.replicas), (Some("b"), vec!["a".to_owned(), "b".to_owned()]));
    // move-replica of a follower: the leader stays; the out-of-sync mark leaves with it
    let k = run(ActionKind::MoveReplica { from: "b".into(), to: "c".into() }).unwrap();
    assert_eq!((k.leader.as_deref(), &k.replicas[..], k.out_of_sync.len()), (Some("a"), &["a".to_owned(), "c".to_owned()][..], 0));
    // ... of the leader: the leadership goes with it
    let k = run(ActionKind::MoveReplica { from: "a".into(), to: "c".into() }).unwrap();
    assert_eq!((k.leader.as_deref(), &k.replicas[..]), (Some("c"), &["c".to_owned(), "b".to_owned()][..]));
    let k = run(ActionKind::AddReplica { to: "c".into() }).unwrap();
    assert_eq!(k.replicas, ["a", "b", "c"]);
    let k = run(ActionKind::SetLeader { from: Some("a".into()), to: "b".into() }).unwrap();
    assert_eq!((k.leader.as_deref(), k.replicas.len()), (Some("b"), 2));
    let k = run(ActionKind::SetOverride { from: None, to: "c".into() }).unwrap();
    assert_eq!(k, base().remove(0), "overrides are not part of a shard");

    // What does not fit is refused, naming the shard, and changes nothing.
    for kind in [
        ActionKind::MoveLeader { from: "b".into(), to: "c".into() }, // b does not lead
        ActionKind::AddReplica { to: "b".into() },                   // b holds one
        ActionKind::MoveReplica { from: "c".into(), to: "b".into() }, // c holds none
        ActionKind::SetLeader { from: Some("a".into()), to: "c".into() }, // c holds none
    ] {
        let a = make(kind.clone());
        let mut list = base();
        let e = a.apply_to(&mut list).unwrap_err();
        assert_eq!((e.name(), e.kind(), e.id()), ("E_ACTION", ElementKind::Shard, Some("k")), "{}", kind);
        assert_eq!(list, base());
        // the library's view refuses the same
        assert_eq!(s.view().unwrap().apply(&a).unwrap_err().name(), "E_ACTION", "{}", kind);
    }
    let a = make(ActionKind::AddReplica { to: "c".into() });
    let e = a.apply_to(&mut [Shard::new("other")]).unwrap_err();
    assert_eq!((e.name(), e.id()), ("E_NOT_FOUND", Some("k")));
}

/// Every tick's view built by a Ticker (the last view the hint, its memory
/// reused) answers as a fresh view of the same snapshot, while members
/// join, drain and leave and shards are added.
#[test]
fn a_ticker_answers_as_fresh_views() {
    let cfg = BrokerConfig::default().max_moves(3);
    let mut members = brokers(4);
    let mut shards = stream("orders", &[9, 3, 0, 0], 3);
    let mut ticker = Ticker::new(ViewOptions::default());
    assert!(ticker.view().is_none());
    let mut moved = 0;
    for tick in 0..24 {
        match tick {
            5 => members.push(Member::new("b4")),
            9 => members[0].draining = true,
            13 => shards.push(Shard::new("orders/new").stream("orders")),
            17 => {
                members.remove(0); // b0 gone: its replicas must be listed nowhere
            }
            _ => {}
        }
        if tick == 17 {
            for k in &mut shards {
                k.replicas.retain(|r| r != "b0");
                if k.leader.as_deref() == Some("b0") {
                    k.leader = k.replicas.first().cloned();
                }
            }
        }
        let s = snap(&members, &shards);
        let mut fresh = s.view().unwrap();
        let view = ticker.tick(&s).unwrap();
        assert_eq!(view.counts(), fresh.counts(), "tick {}", tick);
        assert_eq!(view.ordered_members(), fresh.ordered_members(), "tick {}", tick);
        for k in &shards {
            assert_eq!(view.home(&k.key).ok(), fresh.home(&k.key).ok(), "tick {} {}", tick, k.key);
        }
        let plan = view.broker_plan(&cfg).unwrap();
        assert_eq!(plan, fresh.broker_plan(&cfg).unwrap(), "tick {}", tick);
        for a in &plan.actions {
            a.apply_to(&mut shards).unwrap();
        }
        moved += plan.actions.len();
    }
    assert!(moved > 10, "{} actions", moved);
    assert_eq!(ticker.view().map(|v| v.counts().members), Some(4));
    let last = broker_dry_run(&snap(&members, &shards), &cfg).unwrap();
    assert!(last.actions.is_empty() && last.status == Status::Balanced, "{:?}", last.status);
}

/// The last tick's view kept in the caller's own struct: it holds its
/// snapshot, so nothing else needs to be kept.
#[test]
fn a_view_kept_in_a_struct_is_the_next_ticks_hint() {
    struct Controller {
        last: Option<View>,
    }
    impl Controller {
        fn tick(&mut self, members: Vec<Member>, shards: Vec<Shard>) -> Plan {
            let s = Snapshot::new(members, shards).unwrap(); // dropped at the end of the tick
            let mut view = match &self.last {
                Some(prev) => View::reusing(&s, &ViewOptions::default(), prev).unwrap(),
                None => s.view().unwrap(),
            };
            let plan = view.broker_plan(&BrokerConfig::default()).unwrap();
            assert_eq!(plan, broker_plan(&s, &BrokerConfig::default()).unwrap());
            self.last = Some(view);
            plan
        }
    }
    let mut c = Controller { last: None };
    let mut shards = stream("s", &[6, 0, 0], 3);
    for _ in 0..10 {
        let plan = c.tick(brokers(3), shards.clone());
        for a in &plan.actions {
            a.apply_to(&mut shards).unwrap();
        }
    }
    let kept = c.last.as_ref().unwrap();
    assert_eq!(kept.snapshot().shard_keys().len(), 6);
    for m in ["b0", "b1", "b2"] {
        assert_eq!(kept.member_tally(m).unwrap().leaders, 2, "{}", m);
    }
}

/// Every member down or draining: the broker, region and fleet policies
/// answer a plan with status stalled and no action (the placement tool's
/// answer), not an error.
#[test]
fn no_eligible_member_is_a_stalled_plan() {
    let members = vec![Member::new("a").down(), Member::new("b").draining()];
    let s = snap(&members, &[Shard::new("k").replicas(["b"]).leader("b"), Shard::new("new")]);
    for plan in [
        broker_plan(&s, &BrokerConfig::default()).unwrap(),
        broker_dry_run(&s, &BrokerConfig::default()).unwrap(),
        s.view().unwrap().region_plan(&RegionConfig::default()).unwrap(),
    ] {
        assert_eq!((plan.status, plan.actions.len(), plan.detail), (Status::Stalled, 0, None));
        assert_eq!(plan.status.to_string(), "stalled");
    }
    let down = snap(&[Member::new("a").down()], &[Shard::new("k")]);
    let plan = down.view().unwrap().fleet_decide("a", &FleetConfig::default()).unwrap();
    assert_eq!((plan.status, plan.actions.len()), (Status::Stalled, 0));
    // A cluster with an eligible member plans as before.
    let up = snap(&[Member::new("a")], &[Shard::new("k")]);
    assert_eq!(broker_dry_run(&up, &BrokerConfig::default().replication_factor(1)).unwrap().actions.len(), 2);
}

/// A plan's detail is the id of what its status names.
#[test]
fn a_plans_detail_is_an_id() {
    // max_moves_out 1 on b0: the second move waits on b0's limit
    let s = snap(&brokers(3), &stream("s", &[6, 0, 0], 3));
    let plan = broker_plan(&s, &BrokerConfig::default().max_moves(4).max_moves_out(1)).unwrap();
    assert_eq!((plan.status, plan.detail.as_deref(), plan.detail_index), (Status::MoveLimit, Some("b0"), Some(0)));
    // hand-offs only, and the leaders' followers out of sync: stream s is blocked
    let shards: Vec<Shard> = stream("t", &[6, 0, 0], 2).into_iter().map(|k| k.out_of_sync(["b1"])).collect();
    let plan = broker_plan(&snap(&brokers(3), &shards), &BrokerConfig::default().handoff_only(true).replica_balance(false))
        .unwrap();
    assert_eq!((plan.status, plan.detail.as_deref()), (Status::BlockedHandoff, Some("t")));
}

/// Config errors name the field by its name.
#[test]
fn a_config_error_names_the_field() {
    let s = snap(&brokers(2), &stream("s", &[2, 0], 2));
    let mut v = s.view().unwrap();
    let cases: Vec<(Error, &str)> = vec![
        (v.broker_plan(&BrokerConfig::default().max_moves(0)).unwrap_err(), "max_moves"),
        (v.broker_dry_run(&BrokerConfig::default().replication_factor(9)).unwrap_err(), "replication_factor"),
        (v.region_plan(&RegionConfig::default().load_threshold(0)).unwrap_err(), "load_threshold"),
        (v.fleet_decide("b0", &FleetConfig::default().moves_per_decision(0)).unwrap_err(), "moves_per_decision"),
        (s.view_with(&ViewOptions::default().max_replicas(9)).unwrap_err(), "max_replicas"),
    ];
    for (e, field) in cases {
        assert_eq!((e.kind(), e.field()), (ElementKind::Config, Some(field)), "{}", e);
        assert!(e.to_string().ends_with(&format!("(config '{}')", field)), "{}", e);
    }
}

/// The enums cover every name the C library has, and read their names back.
#[test]
fn kinds_reasons_and_statuses_are_the_librarys() {
    let unknown = Status::Other(9999).name();
    for code in 0..64 {
        let s = Status::from_code(code);
        assert_eq!(matches!(s, Status::Other(_)), s.name() == unknown, "status {} {}", code, s);
        assert_eq!(s.code(), code);
        if !matches!(s, Status::Other(_)) {
            assert_eq!(s.name().parse::<Status>().unwrap(), s);
        }
        let r = Reason::from_code(code);
        assert_eq!(matches!(r, Reason::Other(_)), r.name() == Reason::Other(9999).name(), "reason {} {}", code, r);
        if !matches!(r, Reason::Other(_)) {
            assert_eq!(r.to_string().parse::<Reason>().unwrap(), r);
        }
    }
    assert_eq!(Status::ALL.len(), 21);
    assert_eq!(Reason::ALL.len(), 23);
    assert_eq!(Reason::StreamSkew.to_string(), "stream-skew");
    assert_eq!(Status::DrainStalled.to_string(), "drain-stalled");
    assert_eq!(ActionKind::AddReplica { to: "b".into() }.to_string(), "add-replica");
}

/// `use placement::*` no longer shadows the standard `Copy` trait.
#[test]
fn the_glob_import_leaves_the_copy_trait_alone() {
    fn twice<T: Copy>(t: T) -> (T, T) {
        (t, t)
    }
    assert_eq!(twice(Status::Balanced), (Status::Balanced, Status::Balanced));
    let c = CopyInFlight::new("k", "b").from("a");
    assert_eq!((c.to.as_str(), c.from.as_deref()), ("b", Some("a")));
}
