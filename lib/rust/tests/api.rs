//! The rest of the surface: views and copies, apply and settle, the
//! override document, tallies and states, ids with odd bytes, dry runs that
//! fill a buffer, Send, and the binding against sys called directly.

mod common;

use common::*;
use placement::*;

fn assert_send<T: Send>() {}

#[test]
fn snapshots_and_views_are_send() {
    assert_send::<Snapshot>();
    assert_send::<View>();
    assert_send::<Action>();
    assert_send::<Error>();
    let snap = Snapshot::new(brokers(3), stream("s", &[3, 0, 0], 3)).unwrap();
    std::thread::scope(|sc| {
        for _ in 0..2 {
            sc.spawn(|| {
                let mut v = snap.view().unwrap();
                assert_eq!(v.broker_dry_run(&BrokerConfig::default()).unwrap().actions.len(), 2);
            });
        }
    });
}

#[test]
fn ids_with_nul_bytes_and_unicode_round_trip() {
    let odd = "b\0one";
    let members = vec![Member::new(odd), Member::new("été"), Member::new("b")];
    let shards = vec![Shard::new("k\0ey").replicas(&[odd, "été"]).leader(odd)];
    let snap = Snapshot::new(members, shards).unwrap();
    let view = snap.view().unwrap();
    assert_eq!(view.find_member(odd), Some(0));
    assert_eq!(view.find_member("b"), Some(2));
    assert_eq!(view.ordered_members(), ["b", odd, "été"]);
    let st = view.shard_state("k\0ey").unwrap();
    assert_eq!(st.leader.as_deref(), Some(odd));
    assert_eq!(st.replicas, [odd, "été"]);
    let doc = {
        let o = Snapshot::builder(
            vec![Member::new(odd), Member::new("été")],
            vec![Shard::new("k\0ey"), Shard::new("x")],
        )
        .overrides(vec![Override::new("k\0ey", "été").origin(Origin::Count).since(9)])
        .build()
        .unwrap();
        let v = o.view().unwrap();
        let doc = v.format_overrides().unwrap();
        let back = v.read_overrides(&doc).unwrap();
        assert_eq!(back.overrides, [Override::new("k\0ey", "été").origin(Origin::Count).since(9)]);
        doc
    };
    assert!(doc.starts_with("placement-overrides 1"), "{}", doc);
    assert!(doc.contains("k%00ey"), "{}", doc);
}

#[test]
fn tallies_counts_and_states() {
    let snap = Snapshot::new(brokers(3), stream("s", &[6, 0, 0], 2)).unwrap();
    let mut view = snap.view().unwrap();
    let c = view.counts();
    assert_eq!((c.members, c.live, c.eligible, c.streams, c.shards, c.share), (3, 3, 3, 1, 6, 2));
    assert_eq!(c.scorer, Scorer::XXH3);
    let t = view.stream_tally("s", "b0").unwrap();
    assert_eq!((t.leaders, t.replicas, t.floor, t.ceiling, t.shards), (6, 6, 2, 2, 6));
    let plan = view.broker_plan(&BrokerConfig::default().max_moves(2)).unwrap();
    assert_eq!(plan.actions.len(), 2);
    assert_eq!(plan.status, Status::MoveLimit);
    assert_eq!(plan.wanted, 3);
    let moved = &plan.actions[0];
    let st = view.shard_state(&moved.shard).unwrap();
    assert!(st.moving);
    assert_eq!(st.leader.as_deref(), moved.to_member());
    assert_eq!(view.counts().moving, 2);
    assert_eq!(view.settle().unwrap(), 2);
    assert_eq!(view.counts().moving, 0);
    assert_eq!(view.stream_tally("s", "b0").unwrap().leaders, 4);
}

#[test]
fn copies_apply_and_explain() {
    let snap = Snapshot::new(brokers(3), stream("s", &[4, 0, 0], 1)).unwrap();
    let view = snap.view().unwrap();
    let mut a = view.try_clone().unwrap();
    let mut b = view.try_clone().unwrap();
    let plan = a.broker_plan(&BrokerConfig::default()).unwrap();
    assert_eq!(plan.actions.len(), 1);
    let act = &plan.actions[0];
    assert!(act.stage_first, "b1/b2 hold no replica: the move copies");
    // An action planned on one view applies to another of the same snapshot.
    b.apply(act).unwrap();
    assert_eq!(b.shard_state(&act.shard).unwrap(), a.shard_state(&act.shard).unwrap());
    assert_eq!(view.shard_state(&act.shard).unwrap().leader.as_deref(), Some("b0"));
    // ... and twice is refused.
    assert_eq!(b.apply(act).unwrap_err().name(), "E_ACTION");
    // A caller-made action, explained by the library.
    let mine = view.make_action(ActionKind::SetOverride { from: Some("b0".into()), to: "b2".into() }, Reason::Count, &act.shard).unwrap();
    assert!(mine.to_string().contains(&act.shard), "{}", mine);
}

/// Dry runs longer than the first buffer: continued calls give exactly
/// what one C call with room for everything gives.
#[test]
fn long_dry_run_equals_one_c_call() {
    let shards: Vec<Shard> = (0..300).map(|i| Shard::new(format!("n/{:03}", i)).stream("n")).collect();
    let snap = Snapshot::new(brokers(5), shards).unwrap();
    let plan = broker_dry_run(&snap, &BrokerConfig::default()).unwrap();
    // ADD_REPLICA x3 and SET_LEADER per new shard; the followers are placed
    // by the replica tiers, so replica balance (on by default) finds nothing
    // to move after them.
    let (placing, rest) = plan.actions.split_at(1200);
    assert_eq!(placing.iter().filter(|a| matches!(a.kind, ActionKind::AddReplica { .. }) && a.reason == Reason::New).count(), 900);
    assert_eq!(placing.iter().filter(|a| matches!(a.kind, ActionKind::SetLeader { .. }) && a.reason == Reason::New).count(), 300);
    assert!(rest.is_empty(), "{} actions after placing", rest.len());
    assert_eq!(plan.status, Status::Balanced);
    let mut view = snap.view().unwrap();
    view.broker_dry_run(&BrokerConfig::default()).unwrap();
    for m in snap.member_ids() {
        assert_eq!(view.member_tally(m).unwrap().replicas, 180, "{}", m);
    }
    // Leaders only: the placing, and nothing after it.
    let leaders = broker_dry_run(&snap, &BrokerConfig::default().replica_balance(false)).unwrap();
    assert_eq!(leaders.actions, placing);
    assert_eq!(leaders.status, Status::Balanced);
    // The same call made directly through sys, with room for all of it.
    let raw = snap.as_raw();
    let mut mem = vec![0u64; (unsafe { sys::pl_view_size(raw) } + 7) / 8];
    let mut v: *mut sys::pl_view = std::ptr::null_mut();
    let mut out = vec![sys::pl_action::default(); 4096];
    let mut info = sys::pl_plan_info::default();
    let mut ticks = 0u32;
    let cfg = BrokerConfig::default().to_raw();
    // SAFETY: the buffers are as long as said; snap outlives the view.
    let n = unsafe {
        assert_eq!(sys::pl_view_init(&mut v, mem.as_mut_ptr().cast(), mem.len() * 8, raw, std::ptr::null(), std::ptr::null_mut()), 0);
        sys::pl_broker_dry_run(v, &cfg, out.as_mut_ptr(), out.len() as u32, &mut info, &mut ticks, std::ptr::null_mut())
    };
    assert_eq!(n as usize, plan.actions.len());
    for (a, b) in plan.actions.iter().zip(&out) {
        assert_eq!(a.raw(), b);
    }
    assert_eq!(plan.ticks, ticks);
    assert_eq!(plan.status.code(), info.status);
}

#[test]
fn fleet_owners_and_decide_free_function() {
    let snap = Snapshot::new((0..3).map(|i| Member::new(format!("f{}", i))).collect(), (0..30).map(|k| Shard::new(format!("{:02}", k))).collect()).unwrap();
    let mut v = snap.view().unwrap();
    let owners = v.fleet_owners().unwrap();
    assert_eq!(owners.len(), 30);
    for (k, o) in snap.shard_keys().iter().zip(&owners) {
        assert_eq!(v.fleet_owner(k).unwrap(), *o);
        assert_eq!(v.home(k).unwrap(), *o);
    }
    let p = fleet_decide(&snap, "f0", &FleetConfig::default()).unwrap();
    assert!(p.actions.iter().all(|a| a.from_member() == Some("f0")));
    let p = region_plan(&snap, &RegionConfig::default()).unwrap();
    assert_eq!(p.actions.len(), 16, "max_actions");
    assert_eq!(p.status, Status::ActionCap);
}

#[test]
fn region_stalls_name_regions_and_members() {
    let snap = Snapshot::new(
        vec![Member::new("a"), Member::new("b").down()],
        vec![Shard::new("r").replicas(&["b"]).leader("b")],
    )
    .unwrap();
    let plan = snap.view().unwrap().region_plan(&RegionConfig::default()).unwrap();
    assert_eq!(plan.status, Status::Stalled);
    assert_eq!(plan.stalls.len(), 1);
    assert_eq!((plan.stalls[0].shard.as_str(), plan.stalls[0].reason), ("r", "no-source"));
}

#[test]
fn configs_default_from_c() {
    let b = BrokerConfig::default();
    assert_eq!((b.max_moves, b.max_moves_in, b.max_moves_out, b.paused, b.replication_factor, b.stream_balance), (1, 0, 0, false, 3, true));
    assert_eq!(b.to_raw(), {
        let mut c = sys::pl_broker_config::default();
        // SAFETY: a valid pointer.
        unsafe { sys::pl_broker_config_init_version(&mut c, sys::PL_BROKER_CONFIG_VERSION) };
        c
    });
    assert!(!b.handoff_only && b.to_raw().version == 4);
    // The version 3 init: nothing past max_bytes_out (the tolerances stay as they were).
    let mut v3 = sys::pl_broker_config { tolerance: 5, stream_tolerance: 6, ..Default::default() };
    // SAFETY: a valid pointer.
    unsafe { sys::pl_broker_config_init_version(&mut v3, 3) };
    assert_eq!((v3.version, v3.full_ratio, v3.tolerance, v3.stream_tolerance), (3, 90, 5, 6));
    // The version 2 init: nothing past handoff_only.
    let mut v2 = sys::pl_broker_config { full_ratio: 7, max_bytes_out: 9, ..Default::default() };
    // SAFETY: a valid pointer.
    unsafe { sys::pl_broker_config_init_version(&mut v2, 2) };
    assert_eq!((v2.version, v2.handoff_only, v2.full_ratio, v2.max_bytes_out), (2, 0, 7, 9));
    // The version 1 init: version 1, and nothing past its eight fields.
    let mut v1 = sys::pl_broker_config { handoff_only: 7, ..Default::default() };
    // SAFETY: a valid pointer.
    unsafe { sys::pl_broker_config_init(&mut v1) };
    assert_eq!((v1.version, v1.max_moves, v1.handoff_only), (1, 1, 7));
    let f = FleetConfig::default();
    assert_eq!((f.cooldown, f.moves_per_decision, f.spread, f.return_home_age, f.count_balance, f.last_move), (5, 1, true, Some(300), true, None));
    let r = RegionConfig::default();
    assert_eq!((r.replication_factor, r.add_peer_proposals, r.load_balance, r.load_threshold, r.max_actions), (3, true, false, 25, 16));
    let q = RouteRequest::default();
    assert!(q.data_plane && !q.forwarded && q.answer == Answer::Served);
    assert_eq!(ViewOptions::default().scorer, Scorer::XXH3);
}

#[test]
fn a_lagging_member_hands_its_busiest_shard_to_the_least_loaded() {
    let members = vec![
        Member::new("a").lagging().load(Some(90)),
        Member::new("b").load(Some(50)),
        Member::new("c").load(Some(10)),
        Member::new("d").unmeasured(),
    ];
    let snap = Snapshot::new(members.clone(), (0..40).map(|k| Shard::new(format!("{:02}", k)).load(k)).collect()).unwrap();
    let mut v = snap.view().unwrap();
    let owners = v.fleet_owners().unwrap();
    let busiest = snap
        .shard_keys()
        .iter()
        .zip(&owners)
        .filter(|(_, o)| **o == "a")
        .map(|(k, _)| k.clone())
        .max_by_key(|k| k.parse::<u64>().unwrap())
        .unwrap();
    let plan = v.fleet_decide("a", &FleetConfig::default().now(10)).unwrap();
    let a = &plan.actions[0];
    assert_eq!((a.kind.name(), a.reason.name()), ("set-override", "lag"));
    assert_eq!(a.shard, busiest);
    assert_eq!(a.to_member(), Some("c"), "the least loaded measured member");
    assert_eq!(a.origin, Origin::Lag);
    assert_eq!(v.fleet_owner(&busiest).unwrap(), "c");
    let doc = v.format_overrides().unwrap();
    assert!(doc.contains(&format!("{} c 10 lag", busiest)), "{}", doc);
}

#[test]
fn a_view_built_with_the_previous_one_answers_as_a_fresh_one() {
    let keys: Vec<String> = (0..200).map(|i| format!("k{:03}", i)).collect();
    let members = |n: usize| -> Vec<Member> {
        (0..n)
            .map(|i| {
                let m = Member::new(format!("m{}", i));
                if n == 6 && i == 2 {
                    m.draining()
                } else {
                    m
                }
            })
            .collect()
    };
    let one = Snapshot::new(members(5), keys.iter().map(|k| Shard::new(k.as_str())).collect()).unwrap();
    let mut prev = View::new(&one, &ViewOptions::default()).unwrap();
    prev.fleet_decide("m0", &FleetConfig::default()).unwrap(); // fills its ring homes
    // a member joined, one drains, and the shards come in another order
    let two = Snapshot::new(members(6), keys.iter().rev().map(|k| Shard::new(k.as_str())).collect()).unwrap();
    let mut fresh = View::new(&two, &ViewOptions::default()).unwrap();
    let mut reused = View::reusing(&two, &ViewOptions::default(), &prev).unwrap();
    for k in &keys {
        assert_eq!(reused.home(k).unwrap(), fresh.home(k).unwrap(), "home of {}", k);
    }
    let a = fresh.fleet_decide("m1", &FleetConfig::default()).unwrap();
    let b = reused.fleet_decide("m1", &FleetConfig::default()).unwrap();
    assert_eq!(a.actions, b.actions);
}

#[test]
fn hand_offs_only_and_replicas_out_of_sync() {
    // a and b hold every shard, a leads all 6; c holds none: hand-offs only
    // bring b up to a, and the plan names the stream c cannot get a share of.
    let shards = (0..6).map(|i| Shard::new(format!("s/{}", i)).stream("s").replicas(&["a", "b"]).leader("a")).collect();
    let snap = Snapshot::new(vec![Member::new("a"), Member::new("b"), Member::new("c")], shards).unwrap();
    let plan = snap.view().unwrap().broker_dry_run(&BrokerConfig::default().handoff_only(true)).unwrap();
    assert_eq!(plan.status, Status::BlockedHandoff);
    assert!(plan.actions.iter().all(|a| matches!(a.kind, ActionKind::MoveLeader { .. }) && !a.stage_first && a.to_member() == Some("b")));
    // b0 leads k and is down, b1 is out of sync: b2 takes over.
    let snap = Snapshot::new(
        vec![Member::new("b0").down(), Member::new("b1"), Member::new("b2")],
        vec![Shard::new("k").replicas(&["b0", "b1", "b2"]).leader("b0").out_of_sync(&["b1"])],
    )
    .unwrap();
    let plan = snap.view().unwrap().broker_plan(&BrokerConfig::default()).unwrap();
    assert_eq!(plan.actions[0].to_member(), Some("b2"));
}

/// `View::imbalance` under each measure, on layouts counted by hand (as
/// tests/view/check_imbalance.c counts them): balanced is 0; a draining and
/// a down member hold leaders; a fleet's overrides.
#[test]
fn imbalance_under_each_measure() {
    let members = |n: usize| (0..n).map(|i| Member::new(format!("b{}", i)).zone(format!("z{}", i))).collect::<Vec<_>>();
    let three: Vec<Shard> = (0..3)
        .map(|k| {
            let (a, b) = (format!("b{}", k), format!("b{}", (k + 1) % 3));
            Shard::new(format!("s/{}", k)).stream("s").replicas(&[a.as_str(), b.as_str()]).leader(a.as_str())
        })
        .collect();
    let v = View::new(&Snapshot::new(members(3), three).unwrap(), &ViewOptions::default()).unwrap();
    for m in [Measure::Broker, Measure::Leaders, Measure::Replicas] {
        assert_eq!(v.imbalance(m).unwrap(), Imbalance::default(), "{:?}", m);
    }

    let mut ms = members(4);
    ms[2] = ms[2].clone().draining();
    ms[3] = ms[3].clone().down();
    let shards = vec![
        Shard::new("s/0").stream("s").replicas(&["b2", "b0"]).leader("b2"),
        Shard::new("s/1").stream("s").replicas(&["b3", "b1"]).leader("b3"),
    ];
    let v = View::new(&Snapshot::new(ms, shards).unwrap(), &ViewOptions::default()).unwrap();
    let got = |m| {
        let i = v.imbalance(m).unwrap();
        (i.total, i.totals, i.streams)
    };
    assert_eq!(got(Measure::Leaders), (8, 4, 4));
    assert_eq!(got(Measure::Broker), (10, 5, 5));
    assert_eq!(got(Measure::Replicas), (0, 0, 0));

    let shards: Vec<Shard> = (0..4).map(|k| Shard::new(format!("k{}", k))).collect();
    let ovs = (0..4).map(|k| Override::new(format!("k{}", k), "b0")).collect();
    let snap = Snapshot::builder(members(2), shards).overrides(ovs).build().unwrap();
    let v = View::new(&snap, &ViewOptions::default()).unwrap();
    assert_eq!(v.imbalance(Measure::Owned).unwrap(), Imbalance { total: 4, totals: 4, streams: 0 });
}
