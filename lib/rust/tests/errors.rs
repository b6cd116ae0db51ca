//! Every error code the binding can reach surfaces with its name
//! (`pl_error_name()`), its element kind, index and id.
//!
//! Codes the safe API cannot reach, by construction:
//!  - E_NULL, E_WORKSPACE, E_ALIGN, E_NOSPACE, E_OVERLAP: the crate sizes,
//!    aligns and
//!    passes every buffer itself, each its own allocation;
//!  - E_VERSION: configs' versions come from the C `*_init()`, the
//!    snapshot's is `PL_SNAPSHOT_VERSION`, and none is settable;
//!  - E_FLAGS, E_STREAM_FLAGS, E_ROUTE_VALUE, E_ZONE_RULE: flags are bools
//!    (a stream's `keep` too), route fields and a stream's zone rule are
//!    enums (tests/tolerance.rs has the library refuse an unknown rule
//!    through `sys`, tests/keep.rs an unknown stream flag);
//!  - E_STREAM_RANGE: a snapshot lists every stream its shards name;
//!  - E_COPY_RESERVED: a `CopyInFlight` has no reserved field; the crate writes 0;
//!  - E_SHARD_RANGE: every shard is named by key, resolved by the crate
//!    (E_NOT_FOUND for a key the snapshot does not hold; a copy's unknown
//!    shard is E_COPY_SHARD).
//! E_ORIGIN is reached through the override document.

use placement::*;
use std::collections::BTreeSet;

fn members(n: usize) -> Vec<Member> {
    (0..n).map(|i| Member::new(format!("m{}", i))).collect()
}

fn snap(m: Vec<Member>, k: Vec<Shard>) -> Result<Snapshot, Error> {
    Snapshot::new(m, k)
}

/// (code name, the error, the kind and id it must name)
fn reached() -> Vec<(&'static str, Error, Option<ElementKind>, Option<String>)> {
    let mut acc = Vec::new();
    let mut push = |name, r: Result<(), Error>, kind: Option<ElementKind>, id: Option<&str>| {
        acc.push((name, r.expect_err(name), kind, id.map(str::to_owned)));
    };
    let ok = |r: Result<Snapshot, Error>| r.map(|_| ());
    push("E_EMPTY_ID", ok(snap(vec![Member::new("")], vec![])), Some(ElementKind::Member), None);
    push("E_LENGTH", ok(snap(vec![Member::new("x".repeat(1025))], vec![])), Some(ElementKind::Member), Some(&"x".repeat(1025)));
    push("E_LENGTH", ok(snap(vec![Member::new("a").zone("z".repeat(1025))], vec![])), Some(ElementKind::Member), Some("a"));
    push("E_DUP_MEMBER", ok(snap(vec![Member::new("a"), Member::new("a")], vec![])), Some(ElementKind::Member), Some("a"));
    push(
        "E_DUP_STREAM",
        ok(Snapshot::builder(members(1), vec![]).streams(vec![Stream::new("s"), Stream::new("s")]).build()),
        Some(ElementKind::Stream),
        Some("s"),
    );
    push("E_DUP_SHARD", ok(snap(members(1), vec![Shard::new("k"), Shard::new("k")])), Some(ElementKind::Shard), Some("k"));
    push("E_MEMBER_RANGE", ok(snap(members(1), vec![Shard::new("k").replicas(&["ghost"])])), Some(ElementKind::Shard), Some("k"));
    push("E_MEMBER_RANGE", ok(snap(members(1), vec![Shard::new("k").replicas(&["m0"]).leader("ghost")])), Some(ElementKind::Shard), Some("k"));
    push(
        "E_LEADER_NOT_REPLICA",
        ok(snap(members(2), vec![Shard::new("k").replicas(&["m0"]).leader("m1")])),
        Some(ElementKind::Shard),
        Some("k"),
    );
    push("E_DUP_REPLICA", ok(snap(members(1), vec![Shard::new("k").replicas(&["m0", "m0"])])), Some(ElementKind::Shard), Some("k"));
    let nine: Vec<String> = (0..9).map(|i| format!("m{}", i)).collect();
    push("E_REPLICAS", ok(snap(members(9), vec![Shard::new("k").replicas(&nine)])), Some(ElementKind::Shard), Some("k"));
    push("E_WEIGHT", ok(snap(vec![Member::new("a").weight(65537)], vec![])), Some(ElementKind::Member), Some("a"));
    push(
        "E_CAPACITY",
        ok(snap(vec![Member::new("a"), Member::new("b").capacity(Some(0))], vec![])),
        Some(ElementKind::Member),
        Some("b"),
    );
    push(
        "E_BYTES",
        ok(snap(members(1), vec![Shard::new("x").size(Some(1 << 59)), Shard::new("y").size(Some(1))])),
        Some(ElementKind::Shard),
        Some("y"),
    );
    push(
        "E_MOVE_TARGET",
        ok(snap(members(2), vec![Shard::new("k").replicas(&["m0"]).moving_to("m1")])),
        Some(ElementKind::Shard),
        Some("k"),
    );
    push(
        "E_MOVE_TARGET",
        ok(snap(members(2), vec![Shard::new("k").replicas(&["m0"]).leader("m0").moving_to("m0")])),
        Some(ElementKind::Shard),
        Some("k"),
    );
    push(
        "E_OVERRIDE_SHARD",
        ok(Snapshot::builder(members(1), vec![]).overrides(vec![Override::new("nope", "m0")]).build()),
        Some(ElementKind::Override),
        Some("nope"),
    );
    push(
        "E_OVERRIDE_MEMBER",
        ok(Snapshot::builder(members(1), vec![Shard::new("k")]).overrides(vec![Override::new("k", "ghost")]).build()),
        Some(ElementKind::Override),
        Some("k"),
    );
    push(
        "E_DUP_OVERRIDE",
        ok(Snapshot::builder(members(2), vec![Shard::new("k")])
            .overrides(vec![Override::new("k", "m0"), Override::new("k", "m1")])
            .build()),
        Some(ElementKind::Override),
        Some("k"),
    );
    // Copies in flight: named by kind Copy and their shard's key. Unknown
    // ids are refused by the crate with the library's codes for them.
    let copies = |c: Vec<CopyInFlight>| {
        ok(Snapshot::builder(members(3), vec![Shard::new("k").replicas(&["m0"]).leader("m0")]).copies(c).build())
    };
    push("E_COPY_SHARD", copies(vec![CopyInFlight::new("nope", "m1")]), Some(ElementKind::Copy), Some("nope"));
    push("E_COPY_TO", copies(vec![CopyInFlight::new("k", "ghost")]), Some(ElementKind::Copy), Some("k"));
    push("E_COPY_FROM", copies(vec![CopyInFlight::new("k", "m1").from("ghost")]), Some(ElementKind::Copy), Some("k"));
    push("E_COPY_TARGET", copies(vec![CopyInFlight::new("k", "m0")]), Some(ElementKind::Copy), Some("k"));
    push("E_COPY_SOURCE", copies(vec![CopyInFlight::new("k", "m1").from("m2")]), Some(ElementKind::Copy), Some("k"));
    push("E_DUP_COPY", copies(vec![CopyInFlight::new("k", "m1"), CopyInFlight::new("k", "m2")]), Some(ElementKind::Copy), Some("k"));
    push(
        "E_COPY_FULL",
        ok(Snapshot::builder(members(9), vec![Shard::new("k").replicas(&nine[..8]).leader("m0")])
            .copies(vec![CopyInFlight::new("k", "m8")])
            .build()),
        Some(ElementKind::Copy),
        Some("k"),
    );
    let big = (0..(1u32 << 20) + 1).map(|i| Member::new(i.to_string())).collect();
    push("E_LIMIT", ok(snap(big, vec![])), Some(ElementKind::Snapshot), None);

    // Views and policies.
    let s = snap(members(3), vec![Shard::new("k").replicas(&["m0"]).leader("m0")]).unwrap();
    push("E_SCORER", s.view_with(&ViewOptions::default().scorer(Scorer(99))).map(|_| ()), Some(ElementKind::Config), None);
    let v = s.view().unwrap();
    push("E_NOT_FOUND", v.home("nope").map(|_| ()), Some(ElementKind::Shard), Some("nope"));
    push("E_NOT_FOUND", v.member_tally("ghost").map(|_| ()), Some(ElementKind::Member), Some("ghost"));
    push("E_INVAL", v.top("k", 9).map(|_| ()), Some(ElementKind::Argument), Some("k"));
    push("E_LENGTH", v.top(&"k".repeat(1025), 1).map(|_| ()), Some(ElementKind::Argument), None);
    push("E_INVAL", "no-such-reason".parse::<Reason>().map(|_| ()), Some(ElementKind::Argument), Some("no-such-reason"));
    push("E_INVAL", "no-such-status".parse::<Status>().map(|_| ()), Some(ElementKind::Argument), Some("no-such-status"));
    let mut w = s.view().unwrap();
    push("E_CONFIG", w.broker_plan(&BrokerConfig::default().max_moves(0)).map(|_| ()), Some(ElementKind::Config), None);
    push("E_CONFIG", s.view_with(&ViewOptions::default().max_replicas(9)).map(|_| ()), Some(ElementKind::Config), None);
    // A view with room for one replica a shard: a factor of 3 would pass it.
    let mut one = s.view_with(&ViewOptions::default().max_replicas(1)).unwrap();
    push("E_REPLICA_ROOM", one.broker_plan(&BrokerConfig::default()).map(|_| ()), Some(ElementKind::Config), None);
    push("E_CONFIG", w.fleet_decide("m0", &FleetConfig::default().moves_per_decision(0)).map(|_| ()), Some(ElementKind::Config), None);
    push("E_CONFIG", w.region_plan(&RegionConfig::default().load_threshold(0)).map(|_| ()), Some(ElementKind::Config), None);
    push("E_CONFIG", w.region_effective_rf(&RegionConfig::default().replication_factor(0)).map(|_| ()), Some(ElementKind::Config), None);
    push("E_NOT_FOUND", w.fleet_decide("ghost", &FleetConfig::default()).map(|_| ()), Some(ElementKind::Member), Some("ghost"));
    let a = w.make_action(ActionKind::MoveLeader { from: "m1".into(), to: "m2".into() }, Reason::StreamSkew, "k").unwrap();
    push("E_ACTION", w.apply(&a), None, Some("k"));
    let down = snap(vec![Member::new("a").down()], vec![Shard::new("k")]).unwrap();
    push("E_NO_ELIGIBLE", down.view().unwrap().home("k").map(|_| ()), Some(ElementKind::Shard), Some("k"));
    push("E_NO_ELIGIBLE", down.view().unwrap().fleet_owners().map(|_| ()), None, None);

    // The override document.
    push("E_DOC_SYNTAX", v.read_overrides("k m0 1\n").map(|_| ()), Some(ElementKind::Argument), None);
    push("E_DOC_VERSION", v.read_overrides("placement-overrides 9\n").map(|_| ()), Some(ElementKind::Argument), None);
    push("E_ORIGIN", v.read_overrides("placement-overrides 1\nk m0 1 bogus\n").map(|_| ()), Some(ElementKind::Argument), None);

    // Regions' add-peer check.
    let r = Snapshot::new(
        vec![
            Member::new("a"),
            Member::new("b").map_version(1),
            Member::new("c").lagging(),
            Member::new("d").max_shards(1).map_version(9),
            Member::new("e").map_version(9),
        ],
        vec![
            Shard::new("r/0").replicas(&["a"]).leader("a").epoch(2),
            Shard::new("r/1").replicas(&["a"]).transfer_debt(),
            Shard::new("r/2").replicas(&["a"]).not_idempotent(),
            Shard::new("r/3").replicas(&["d"]).leader("d"),
        ],
    )
    .unwrap();
    let rv = r.view().unwrap();
    push("E_EPOCH_STALE", rv.check_add_peer("r/0", "b", 1), Some(ElementKind::Shard), Some("r/0"));
    push("E_PEER_DUPLICATE", rv.check_add_peer("r/0", "a", 2), None, None);
    push("E_NOT_READY", rv.check_add_peer("r/0", "b", 2), Some(ElementKind::Member), Some("b"));
    push("E_MEMBER_UNAVAILABLE", rv.check_add_peer("r/0", "c", 2), Some(ElementKind::Member), Some("c"));
    push("E_MEMBER_FULL", rv.check_add_peer("r/0", "d", 2), Some(ElementKind::Member), Some("d"));
    push("E_TRANSFER_DEBT", rv.check_add_peer("r/1", "e", 0), Some(ElementKind::Shard), Some("r/1"));
    push("E_NOT_IDEMPOTENT", rv.check_add_peer("r/2", "e", 0), Some(ElementKind::Shard), Some("r/2"));
    let eight: Vec<String> = (0..8).map(|i| format!("m{}", i)).collect();
    let full = Snapshot::new(members(9), vec![Shard::new("r").replicas(&eight)]).unwrap();
    push("E_REPLICA_SET_FULL", full.view().unwrap().check_add_peer("r", "m8", 0), Some(ElementKind::Shard), Some("r"));
    // A region whose copy is in flight takes no second one, onto any member.
    let inflight = Snapshot::builder(members(3), vec![Shard::new("k").replicas(&["m0"]).leader("m0")])
        .copies(vec![CopyInFlight::new("k", "m1")])
        .build()
        .unwrap();
    push("E_MOVE_IN_FLIGHT", inflight.view().unwrap().check_add_peer("k", "m2", 0), Some(ElementKind::Shard), Some("k"));

    // A stream's tolerance past PL_MAX_TOLERANCE.
    push(
        "E_TOLERANCE",
        ok(Snapshot::builder(members(1), vec![])
            .streams(vec![Stream::new("s"), Stream::new("t").tolerance(sys::PL_MAX_TOLERANCE + 1)])
            .build()),
        Some(ElementKind::Stream),
        Some("t"),
    );

    // Routing.
    push(
        "E_ROUTE_OUTCOME",
        route_decide(&RouteRequest::default().outcome(Outcome::Failed)).map(|_| ()),
        Some(ElementKind::Config),
        None,
    );
    acc
}

#[test]
fn every_reachable_code_surfaces_with_its_name() {
    let mut names = BTreeSet::new();
    for (name, e, kind, id) in reached() {
        assert_eq!(e.name(), name, "{}", e);
        assert_eq!(e.name(), error_name(e.raw_code()));
        assert!(e.raw_code() < 0);
        assert!(e.to_string().starts_with(&format!("{}: {}", name, e.message())), "{}", e);
        if let Some(k) = kind {
            assert_eq!(e.kind(), k, "{}", e);
        }
        if id.is_some() {
            assert_eq!(e.id().map(str::to_owned), id, "{}", e);
        }
        // std::error::Error
        let dyn_err: &dyn std::error::Error = &e;
        assert!(!dyn_err.to_string().is_empty());
        names.insert(name);
    }
    let unreachable: BTreeSet<&str> =
        ["E_NULL", "E_WORKSPACE", "E_ALIGN", "E_NOSPACE", "E_OVERLAP", "E_VERSION", "E_FLAGS", "E_STREAM_FLAGS", "E_ROUTE_VALUE", "E_ZONE_RULE", "E_STREAM_RANGE",
         "E_COPY_RESERVED", "E_SHARD_RANGE"]
            .into_iter()
            .collect();
    // Every code of the C list, by its name: reached, or unreachable by
    // construction. A code added to the library later is reported here.
    let mut unclassified = Vec::new();
    for code in -200..0 {
        let n = error_name(code);
        if n == "E_UNKNOWN" {
            continue;
        }
        if !names.contains(n) && !unreachable.contains(n) {
            unclassified.push(n);
        }
    }
    assert!(unclassified.is_empty(), "codes neither reached here nor unreachable: {:?}", unclassified);
    assert!(names.len() >= 40, "{} codes reached", names.len());
    assert!(names.is_disjoint(&unreachable));
}

#[test]
fn errors_name_index_and_clash() {
    let e = Snapshot::new(vec![Member::new("a"), Member::new("b"), Member::new("a")], vec![]).unwrap_err();
    assert_eq!((e.name(), e.kind(), e.index(), e.other(), e.id()), ("E_DUP_MEMBER", ElementKind::Member, Some(2), Some(0), Some("a")));
    let e = Snapshot::new(vec![Member::new("a")], vec![Shard::new("k").replicas(&["a", "zz"])]).unwrap_err();
    assert_eq!(e.reference(), Some("zz"));
    assert!(e.to_string().contains("\"zz\""), "{}", e);
    let e = Snapshot::new(vec![Member::new("a")], vec![]).unwrap().view().unwrap().read_overrides("placement-overrides 1\nk\n").unwrap_err();
    assert_eq!((e.name(), e.other()), ("E_DOC_SYNTAX", Some(2)));
    // A duplicate copy names the later one by index, the earlier as other.
    let e = Snapshot::builder(vec![Member::new("a"), Member::new("b"), Member::new("c")], vec![Shard::new("k").replicas(&["a"])])
        .copies(vec![CopyInFlight::new("k", "b"), CopyInFlight::new("k", "c")])
        .build()
        .unwrap_err();
    assert_eq!((e.name(), e.kind(), e.index(), e.other(), e.id()), ("E_DUP_COPY", ElementKind::Copy, Some(1), Some(0), Some("k")));
    let e = Snapshot::builder(vec![Member::new("a")], vec![Shard::new("k").replicas(&["a"])])
        .copies(vec![CopyInFlight::new("k", "zz")])
        .build()
        .unwrap_err();
    assert_eq!((e.name(), e.reference()), ("E_COPY_TO", Some("zz")));
}

#[test]
fn a_long_id_is_cut_in_the_message() {
    // E_LENGTH on a 1025-byte member id: the message shows its first
    // characters and its length; id() keeps the whole id.
    let long = "x".repeat(1025);
    let e = Snapshot::new(vec![Member::new(long.clone())], vec![]).unwrap_err();
    assert_eq!((e.name(), e.id()), ("E_LENGTH", Some(long.as_str())));
    let text = e.to_string();
    assert!(text.len() < 200, "{}", text);
    assert!(text.contains("\"xxxxxxxx") && text.contains("... (1025 bytes)"), "{}", text);
    // an unknown long replica reference: cut the same way
    let far = "é".repeat(300);
    let e = Snapshot::new(vec![Member::new("a")], vec![Shard::new("k").replicas(&["a", far.as_str()])]).unwrap_err();
    assert_eq!(e.reference(), Some(far.as_str()));
    assert!(e.to_string().len() < 200 && e.to_string().contains("... (600 bytes)"), "{}", e);
    // a short id is shown whole
    let e = Snapshot::new(vec![Member::new("a"), Member::new("a")], vec![]).unwrap_err();
    assert!(e.to_string().contains("\"a\""), "{}", e);
}
