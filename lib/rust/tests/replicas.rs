//! What the library gained since the first crate: replica moves that carry
//! the leadership, drains that cannot finish and why, what a stalled region
//! waited for, copies in flight in the counts, and shard epochs.

use placement::*;

fn m(id: &str) -> Member {
    Member::new(id)
}

#[test]
fn a_leaders_replica_carries_the_leadership() {
    let lay: [(&str, &[&str], &str); 5] = [
        ("s/0", &["m0"], "m0"),
        ("s/1", &["m0"], "m0"),
        ("s/2", &["m1", "m0"], "m1"),
        ("s/3", &["m1", "m0"], "m1"),
        ("s/4", &["m0", "m1"], "m0"),
    ];
    let shards = lay.iter().map(|(k, r, l)| Shard::new(*k).stream("s").replicas(*r).leader(*l)).collect();
    let snap = Snapshot::new(vec![m("m0"), m("m1")], shards).unwrap();
    let mut v = snap.view().unwrap();
    let plan = v.broker_plan(&BrokerConfig::default()).unwrap();
    assert_eq!(plan.actions.len(), 1);
    let a = &plan.actions[0];
    assert_eq!((a.kind.name(), a.reason.name(), a.scope), ("move-replica", "replica-stream-skew", Scope::StreamReplicas));
    assert_eq!((a.shard.as_str(), a.from_member(), a.to_member()), ("s/0", Some("m0"), Some("m1")));
    assert!(a.carries_leader && a.stage_first);
    assert_eq!(a.raw().flags, sys::PL_ACTION_STAGE_FIRST | sys::PL_ACTION_CARRIES_LEADER);
    assert!(a.to_string().contains("the leadership moves with it"), "{}", a);
    assert_eq!(v.shard_state("s/0").unwrap().leader.as_deref(), Some("m1"));
    // Leaders only: they are even already.
    let leaders = broker_plan(&snap, &BrokerConfig::default().replica_balance(false)).unwrap();
    assert!(leaders.actions.is_empty());
    assert_eq!(leaders.status, Status::Balanced);
    assert_eq!(BrokerConfig::default().replica_balance(false).to_raw().replica_balance, 0);
    assert_eq!(BrokerConfig::default().to_raw().replica_balance, 1);
}

#[test]
fn a_drain_that_cannot_finish_names_its_replicas() {
    let base = || vec![m("b0").zone("za").draining(), m("b1").zone("zb"), m("b2").zone("zb")];
    let orders = || Shard::new("orders/0").stream("orders").replicas(&["b1", "b0"]).leader("b1");
    let stalls = |members: Vec<Member>, shards: Vec<Shard>| {
        let snap = Snapshot::new(members, shards).unwrap();
        let plan = broker_plan(&snap, &BrokerConfig::default()).unwrap();
        let st = broker_drain_stalls(&snap).unwrap();
        (plan.status, plan.detail, plan.actions.len(), st)
    };
    let want = |reason| vec![DrainStall { shard: "orders/0".into(), member: "b0".into(), reason }];
    // b2 taking b0's place would leave the shard in one zone
    assert_eq!(stalls(base(), vec![orders()]), (Status::DrainStalled, Some("orders/0".to_owned()), 0, want(DrainStallReason::Zones)));
    // a member in za with room takes it
    let mut more = base();
    more.push(m("b3").zone("za"));
    let (status, _, n, st) = stalls(more, vec![orders()]);
    assert_ne!(status, Status::DrainStalled);
    assert_eq!((n, st), (1, vec![]));
    // ... at its cap it cannot
    let mut capped = base();
    capped.push(m("b3").zone("za").max_shards(1));
    let (status, _, _, st) = stalls(capped, vec![orders(), Shard::new("other/0").replicas(&["b3"]).leader("b3")]);
    assert_eq!((status, st), (Status::DrainStalled, want(DrainStallReason::Caps)));
    // every eligible member holds it already
    let held = Shard::new("orders/0").stream("orders").replicas(&["b1", "b0", "b2"]).leader("b1");
    assert_eq!(stalls(base(), vec![held]).3, want(DrainStallReason::Held));
    // read-only
    let snap = Snapshot::new(base(), vec![orders()]).unwrap();
    let v = snap.view().unwrap();
    let before = v.shard_state("orders/0").unwrap();
    assert_eq!(v.broker_drain_stalls().unwrap().len(), 1);
    assert_eq!(v.shard_state("orders/0").unwrap(), before);
}

#[test]
fn a_region_stall_says_what_was_wanted() {
    let members = vec![m("a").down().joined_at(1), m("b").lagging().joined_at(2).map_version(7), m("j").joined_at(3).map_version(6)];
    let snap = Snapshot::new(members, vec![Shard::new("r/0").replicas(&["a", "b"]).leader("a").epoch(7)]).unwrap();
    let plan = region_plan(&snap, &RegionConfig::default()).unwrap();
    assert_eq!(plan.stalls.len(), 1);
    let st = &plan.stalls[0];
    assert_eq!((st.shard.as_str(), st.reason, st.step, st.member.as_deref(), st.wanted), ("r/0", "not-ready", 1, Some("j"), Wanted::Primary));
    let members = vec![m("a").map_version(4).joined_at(2), m("b").map_version(4).joined_at(1), m("j").map_version(3).joined_at(3)];
    let snap = Snapshot::new(members, vec![Shard::new("r/grow").replicas(&["a", "b"]).leader("a").epoch(4)]).unwrap();
    let plan = region_plan(&snap, &RegionConfig::default()).unwrap();
    assert_eq!(plan.stalls.iter().map(|s| (s.reason, s.wanted)).collect::<Vec<_>>(), vec![("not-ready", Wanted::Peer)]);
}

#[test]
fn epochs_advance_and_copies_in_flight_count() {
    let members = || vec![m("a"), m("b"), m("c")];
    let snap = Snapshot::builder(members(), vec![Shard::new("k").replicas(&["a"]).leader("a").epoch(5), Shard::new("q").replicas(&["b"]).leader("b")])
        .copies(vec![CopyInFlight::new("k", "c").from("a")])
        .build()
        .unwrap();
    let v = snap.view().unwrap();
    let c = v.counts();
    assert_eq!((c.copies, c.moving), (1, 1));
    // the copy counts as finished: c holds k, and leads it since a did
    let k = v.shard_state("k").unwrap();
    assert_eq!((k.leader.as_deref(), k.replicas.clone(), k.moving, k.epoch), (Some("c"), vec!["c".to_owned()], true, 5));
    assert_eq!(v.shard_state("q").unwrap().epoch, 0);

    let snap = Snapshot::new(members(), vec![Shard::new("k").replicas(&["a"]).leader("a").epoch(5), Shard::new("q").replicas(&["a"]).leader("a")]).unwrap();
    let mut w = snap.view().unwrap();
    assert_eq!(w.counts().copies, 0);
    let plan = w.broker_plan(&BrokerConfig::default().replication_factor(1)).unwrap();
    assert_eq!(plan.actions.len(), 1);
    let moved = plan.actions[0].shard.clone();
    let start = |s: &str| if s == "k" { 5 } else { 0 };
    assert_eq!(w.shard_state(&moved).unwrap().epoch, start(&moved) + 1);
    let other = if moved == "k" { "q" } else { "k" };
    assert_eq!(w.shard_state(other).unwrap().epoch, start(other));
}
