//! Bytes: shard sizes and member capacities in a snapshot (version 3 of
//! `pl_snapshot`), the broker config's bytes settings, and what an action
//! says it copies.

use placement::*;
use std::collections::HashMap;

const G: u64 = 1 << 30;

/// Four members; b0 drains. Shards of 1G..6G with two replicas each, and
/// one of 7G on all four (its leadership can only be handed off).
fn drain_layout(sizes: bool) -> Snapshot {
    let members = vec![
        Member::new("b0").draining().capacity(Some(100 * G)),
        Member::new("b1").capacity(Some(100 * G)),
        Member::new("b2").capacity(Some(100 * G)),
        Member::new("b3"),
    ];
    let pairs = [("b0", "b1"), ("b0", "b2"), ("b1", "b0"), ("b2", "b0"), ("b1", "b2"), ("b0", "b3")];
    let mut shards: Vec<Shard> = pairs
        .iter()
        .enumerate()
        .map(|(i, &(a, b))| {
            Shard::new(format!("s/{}", i))
                .stream("s")
                .replicas(&[a, b])
                .leader(a)
                .size(if sizes { Some((i as u64 + 1) * G) } else { None })
        })
        .collect();
    shards.push(
        Shard::new("h")
            .stream("s")
            .replicas(&["b0", "b1", "b2", "b3"])
            .leader("b0")
            .size(if sizes { Some(7 * G) } else { None }),
    );
    Snapshot::new(members, shards).unwrap()
}

#[test]
fn arrays_only_when_a_size_or_capacity_is_known() {
    let raw_of = |s: &Snapshot| {
        let r = s.as_raw();
        (r.version, r.shard_bytes.is_null(), r.member_capacity.is_null())
    };
    let none = Snapshot::new(vec![Member::new("a")], vec![Shard::new("k").replicas(&["a"]).leader("a")]).unwrap();
    assert_eq!(raw_of(&none), (sys::PL_SNAPSHOT_VERSION, true, true));
    assert_eq!(sys::PL_SNAPSHOT_VERSION, 5);
    let one = Snapshot::new(
        vec![Member::new("a"), Member::new("b").capacity(Some(5))],
        vec![Shard::new("k").replicas(&["a"]).leader("a"), Shard::new("q").size(Some(0))],
    )
    .unwrap();
    assert_eq!(raw_of(&one), (sys::PL_SNAPSHOT_VERSION, false, false));
    let r = one.as_raw();
    // SAFETY: both arrays are as long as their elements while `one` lives.
    let (caps, sizes) = unsafe {
        (std::slice::from_raw_parts(r.member_capacity, 2).to_vec(), std::slice::from_raw_parts(r.shard_bytes, 2).to_vec())
    };
    assert_eq!(caps, [sys::PL_BYTES_UNKNOWN, 5]);
    assert_eq!(sizes, [sys::PL_BYTES_UNKNOWN, 0]);
    assert_eq!(one.view().unwrap().counts().shards, 2);
    let sized_only = Snapshot::new(vec![Member::new("a")], vec![Shard::new("k").size(Some(1))]).unwrap();
    assert_eq!(raw_of(&sized_only), (sys::PL_SNAPSHOT_VERSION, false, true));
}

#[test]
fn sizes_the_library_refuses_name_their_element() {
    let cases: Vec<(Vec<Member>, Vec<Shard>, &str, ElementKind, u32, &str)> = vec![
        (vec![Member::new("a"), Member::new("b").capacity(Some(0))], vec![], "E_CAPACITY", ElementKind::Member, 1, "b"),
        (vec![Member::new("a").capacity(Some(sys::PL_MAX_BYTES + 1))], vec![], "E_BYTES", ElementKind::Member, 0, "a"),
        (
            vec![Member::new("a").capacity(Some(sys::PL_MAX_BYTES))],
            vec![Shard::new("x").size(Some(1 << 59)), Shard::new("u"), Shard::new("y").size(Some(1))],
            "E_BYTES",
            ElementKind::Shard,
            2,
            "y",
        ),
        (vec![Member::new("a")], vec![Shard::new("x").size(Some(u64::MAX - 1))], "E_BYTES", ElementKind::Shard, 0, "x"),
    ];
    for (m, k, name, kind, index, id) in cases {
        let e = Snapshot::new(m, k).unwrap_err();
        assert_eq!((e.name(), e.kind(), e.index(), e.id()), (name, kind, Some(index), Some(id)), "{}", e);
    }
    // at the limits, and unknown ones, are taken
    Snapshot::new(
        vec![Member::new("a").capacity(Some(sys::PL_MAX_BYTES))],
        vec![Shard::new("x").size(Some(1 << 58)), Shard::new("y").size(Some(1 << 58)), Shard::new("z").size(None)],
    )
    .unwrap();
}

#[test]
fn each_bytes_setting_is_checked_by_name() {
    let d = BrokerConfig::default();
    assert!(d.bytes_balance && !d.bytes_first);
    assert_eq!((d.full_ratio, d.bytes_tolerance), (90, 10));
    assert_eq!((d.max_bytes_in_flight, d.max_bytes_in, d.max_bytes_out), (0, 0, 0));
    let raw = d.to_raw();
    assert_eq!((raw.version, raw.reserved), (sys::PL_BROKER_CONFIG_VERSION, 0));
    let snap = drain_layout(true);
    for (cfg, field) in [
        (d.full_ratio(101), "full_ratio"),
        (d.bytes_tolerance(sys::PL_BROKER_MAX_TOLERANCE + 1), "bytes_tolerance"),
    ] {
        let e = snap.view().unwrap().broker_plan(&cfg).unwrap_err();
        assert_eq!((e.name(), e.kind(), e.field()), ("E_CONFIG", ElementKind::Config, Some(field)), "{}", e);
    }
    // bools and u64 limits cannot hold a value the library refuses
    let ok = d
        .bytes_balance(false)
        .bytes_first(true)
        .full_ratio(100)
        .bytes_tolerance(sys::PL_BROKER_MAX_TOLERANCE)
        .max_bytes_in_flight(u64::MAX)
        .max_bytes_in(G)
        .max_bytes_out(1);
    let raw = ok.to_raw();
    assert_eq!((raw.bytes_balance, raw.bytes_first, raw.max_bytes_in_flight, raw.max_bytes_in), (0, 1, u64::MAX, G));
    snap.view().unwrap().broker_plan(&ok).unwrap();
    snap.view().unwrap().broker_plan(&d.full_ratio(0).bytes_tolerance(0)).unwrap();
}

#[test]
fn a_drain_reports_the_bytes_each_copy_moves() {
    let snap = drain_layout(true);
    let size: HashMap<String, u64> = snap.shard_keys().iter().cloned().zip([1, 2, 3, 4, 5, 6, 7].iter().map(|n| n * G)).collect();
    let plan = snap.view().unwrap().broker_dry_run(&BrokerConfig::default()).unwrap();
    let moves: Vec<&Action> = plan.actions.iter().filter(|a| matches!(a.kind, ActionKind::MoveReplica { .. })).collect();
    let handoffs: Vec<&Action> =
        plan.actions.iter().filter(|a| matches!(a.kind, ActionKind::MoveLeader { .. }) && !a.stage_first).collect();
    assert!(!moves.is_empty() && !handoffs.is_empty(), "{:?}", plan.actions);
    assert!(moves.iter().any(|a| a.reason == Reason::ReplicaDrain));
    for a in &moves {
        assert!(a.stage_first);
        assert_eq!((a.bytes, a.bytes_limit), (Some(size[&a.shard]), 0), "{}", a);
    }
    for a in &handoffs {
        assert_eq!((a.bytes, a.from_bytes, a.to_bytes), (Some(0), 0, 0), "{}", a);
    }
    // each copy says what its members held before it
    let mut held: HashMap<String, u64> = HashMap::new();
    for k in snap.shard_keys() {
        let st = snap.view().unwrap().shard_state(k).unwrap();
        for r in st.replicas {
            *held.entry(r).or_insert(0) += size[k];
        }
    }
    for a in plan.actions.iter().filter(|a| a.stage_first) {
        let (from, to) = (a.from_member().unwrap().to_owned(), a.to_member().unwrap().to_owned());
        assert_eq!((a.bytes, a.from_bytes, a.to_bytes), (Some(size[&a.shard]), held[&from], held[&to]), "{}", a);
        *held.get_mut(&from).unwrap() -= size[&a.shard];
        *held.entry(to).or_insert(0) += size[&a.shard];
    }
    assert_eq!(held["b0"], 7 * G);
    // the sizes go along when the caller applies the plan
    let mut shards: Vec<Shard> = snap
        .shard_keys()
        .iter()
        .map(|k| Shard::new(k.clone()).size(Some(size[k])))
        .collect();
    for (s, k) in shards.iter_mut().zip(snap.shard_keys()) {
        let st = snap.view().unwrap().shard_state(k).unwrap();
        *s = s.clone().replicas(&st.replicas).leader(st.leader.unwrap());
    }
    for a in &plan.actions {
        a.apply_to(&mut shards).unwrap();
    }
    assert!(shards.iter().all(|s| s.size == Some(size[&s.key])));
}

#[test]
fn an_unknown_size_is_not_zero_bytes() {
    let plan = drain_layout(false).view().unwrap().broker_dry_run(&BrokerConfig::default()).unwrap();
    let moves: Vec<&Action> = plan.actions.iter().filter(|a| a.stage_first).collect();
    assert!(!moves.is_empty());
    for a in moves {
        assert_eq!((a.bytes, a.from_bytes, a.to_bytes), (None, 0, 0), "{}", a);
    }
}

#[test]
fn the_bytes_names_are_the_librarys() {
    assert_eq!(Reason::FullRatio.name(), "full-ratio");
    assert_eq!(Reason::BytesSkew.name(), "bytes-skew");
    assert_eq!(Status::BlockedFull.name(), "blocked-full");
    assert_eq!("blocked-full".parse::<Status>().unwrap(), Status::BlockedFull);
    assert_eq!(Reason::from_code(sys::PL_REASON_FULL_RATIO), Reason::FullRatio);
    assert_eq!(sys::PL_SCOPE_BYTES, 9);
}

/// Twelve leaders (RF 1) 4/4/4 by count, 120G/80G/40G by bytes: two
/// exchanges of a 30G and a 10G shard between b0 and b2 even the bytes and
/// keep the leaders as they were.
#[test]
fn a_stream_lopsided_by_size_is_evened_by_exchanges() {
    let members = vec![Member::new("b0"), Member::new("b1"), Member::new("b2")];
    let shards: Vec<Shard> = (0..12u64)
        .map(|i| {
            let m = format!("b{}", i / 4);
            Shard::new(format!("q/{:02}", i))
                .stream("q")
                .replicas(&[m.as_str()])
                .leader(m.as_str())
                .size(Some(if i < 6 { 30 * G } else { 10 * G }))
        })
        .collect();
    let snap = Snapshot::new(members, shards).unwrap();
    let mut cfg = BrokerConfig::default();
    cfg.max_moves = 2;
    let plan = snap.view().unwrap().broker_dry_run(&cfg).unwrap();
    assert_eq!(plan.actions.len(), 4);
    let mut held: HashMap<String, u64> =
        [("b0", 120 * G), ("b1", 80 * G), ("b2", 40 * G)].iter().map(|&(m, b)| (m.to_string(), b)).collect();
    for a in &plan.actions {
        assert!(a.exchange && a.carries_leader, "{:?}", a);
        let bytes = a.bytes.unwrap();
        if let ActionKind::MoveReplica { from, to } = &a.kind {
            *held.get_mut(from.as_str()).unwrap() -= bytes;
            *held.get_mut(to.as_str()).unwrap() += bytes;
        } else {
            panic!("not a replica move: {:?}", a);
        }
    }
    assert!(held.values().all(|&b| b == 80 * G), "{:?}", held);
}
