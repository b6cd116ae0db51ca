//! The tolerances and the zone rule (snapshot version 5, broker config
//! version 4): a stream's `tolerance` and `zones` fill the snapshot's
//! arrays only when a listed stream sets one, `BrokerConfig::tolerance` and
//! `stream_tolerance` widen the bounds (a layout within them moves
//! nothing), and each refusal names its element or field.

use placement::*;

/// 3 members, one stream of 12 shards (RF 1) led 5/4/3: the stream's floor
/// and ceiling, and the totals', are 4 on every member, so b0 and b2 are
/// each one shard off without a tolerance.
fn skewed(stream: Stream) -> Snapshot {
    let mut shards = Vec::new();
    for (m, n) in [("b0", 5), ("b1", 4), ("b2", 3)] {
        for i in 0..n {
            shards.push(Shard::new(format!("s/{}{}", m, i)).stream("s").replicas(&[m]).leader(m));
        }
    }
    let members = vec![Member::new("b0"), Member::new("b1"), Member::new("b2")];
    Snapshot::builder(members, shards).streams(vec![stream]).build().unwrap()
}

fn rf1() -> BrokerConfig {
    BrokerConfig::default().replication_factor(1)
}

fn moves(p: &Plan) -> Vec<(String, Option<String>, Option<String>)> {
    p.actions
        .iter()
        .map(|a| (a.kind.name().to_owned(), a.kind.from_member().map(str::to_owned), a.kind.to_member().map(str::to_owned)))
        .collect()
}

fn rules(s: &Snapshot) -> (Option<Vec<u32>>, Option<Vec<u32>>) {
    let r = s.as_raw();
    let n = r.n_streams as usize;
    // SAFETY: each array, when not null, has n_streams entries while `s` lives.
    unsafe {
        (
            (!r.stream_tolerance.is_null()).then(|| std::slice::from_raw_parts(r.stream_tolerance, n).to_vec()),
            (!r.stream_zone_rule.is_null()).then(|| std::slice::from_raw_parts(r.stream_zone_rule, n).to_vec()),
        )
    }
}

#[test]
fn versions_and_defaults() {
    assert_eq!(sys::PL_SNAPSHOT_VERSION, 5);
    assert_eq!(sys::PL_BROKER_CONFIG_VERSION, 4);
    assert_eq!(BrokerConfig::default().to_raw().version, 4);
    let c = BrokerConfig::default();
    assert_eq!((c.tolerance, c.stream_tolerance), (0, 0));
    let c = c.tolerance(3).stream_tolerance(4).to_raw();
    assert_eq!((c.tolerance, c.stream_tolerance), (3, 4));
    assert_eq!(Stream::new("s"), Stream { id: "s".into(), tolerance: None, zones: ZoneRule::Span, keep: false });
    assert_eq!(ZoneRule::default(), ZoneRule::Span);
    assert_eq!((ZoneRule::Span.to_c(), ZoneRule::Majority.to_c()), (sys::PL_ZONES_SPAN, sys::PL_ZONES_MAJORITY));
    assert_eq!((ZoneRule::Span.name(), ZoneRule::Majority.name()), ("span", "majority"));
}

#[test]
fn arrays_only_when_a_listed_stream_sets_a_rule_and_then_for_every_stream() {
    let m = || vec![Member::new("a")];
    let k = || vec![Shard::new("k").stream("named").replicas(&["a"]).leader("a")];
    let none = Snapshot::builder(m(), k()).streams(vec![Stream::new("s")]).build().unwrap();
    assert_eq!(rules(&none), (None, None));
    let some = Snapshot::builder(m(), k())
        .streams(vec![Stream::new("s"), Stream::new("t").tolerance(3), Stream::new("u").zones(ZoneRule::Majority)])
        .build()
        .unwrap();
    assert_eq!(some.stream_ids(), ["s", "t", "u", "named"]);
    let d = sys::PL_TOLERANCE_DEFAULT;
    assert_eq!(
        rules(&some),
        (Some(vec![d, 3, d, d]), Some(vec![sys::PL_ZONES_SPAN, sys::PL_ZONES_SPAN, sys::PL_ZONES_MAJORITY, sys::PL_ZONES_SPAN]))
    );
}

#[test]
fn without_a_tolerance_the_broker_moves() {
    let p = broker_dry_run(&skewed(Stream::new("s")), &rf1()).unwrap();
    assert_eq!(moves(&p), [("move-leader".to_owned(), Some("b0".to_owned()), Some("b2".to_owned()))]);
    assert_eq!(p.status, Status::Balanced);
}

#[test]
fn a_layout_within_the_widened_bounds_moves_nothing() {
    let max = sys::PL_MAX_TOLERANCE;
    for (stream, cfg) in [
        (Stream::new("s"), rf1().tolerance(1).stream_tolerance(1)), // the config's for every stream
        (Stream::new("s").tolerance(1), rf1().tolerance(1)),       // the stream's own
        (Stream::new("s").tolerance(max), rf1().tolerance(max)),   // the limits themselves
    ] {
        let snap = skewed(stream.clone());
        let p = broker_dry_run(&snap, &cfg).unwrap();
        assert!(p.actions.is_empty(), "{:?}: {:?}", stream, moves(&p));
        assert_eq!(p.status, Status::Balanced);
        assert_eq!(broker_plan(&snap, &cfg).unwrap().status, Status::Balanced);
    }
}

#[test]
fn a_bound_not_widened_still_moves() {
    for (stream, cfg) in [
        (Stream::new("s"), rf1().tolerance(1)),                          // the stream's bounds are not widened
        (Stream::new("s"), rf1().stream_tolerance(1)),                   // nor the totals'
        (Stream::new("s").tolerance(0), rf1().tolerance(1).stream_tolerance(1)), // the stream's over the config's
    ] {
        let p = broker_dry_run(&skewed(stream.clone()), &cfg).unwrap();
        assert_eq!(moves(&p), [("move-leader".to_owned(), Some("b0".to_owned()), Some("b2".to_owned()))], "{:?}", stream);
    }
}

#[test]
fn the_majority_rule_is_carried_and_planned() {
    // what the policy does with it is the library's: here, that it is carried
    let snap = skewed(Stream::new("s").zones(ZoneRule::Majority));
    assert_eq!(rules(&snap), (None, Some(vec![sys::PL_ZONES_MAJORITY])));
    assert_eq!(broker_dry_run(&snap, &rf1()).unwrap().status, Status::Balanced);
}

#[test]
fn a_config_tolerance_past_its_limit_names_field_17_or_18() {
    let snap = skewed(Stream::new("s"));
    let past = sys::PL_MAX_TOLERANCE + 1;
    for (cfg, index, field) in [(rf1().tolerance(past), 17, "tolerance"), (rf1().stream_tolerance(past), 18, "stream_tolerance")] {
        let e = broker_plan(&snap, &cfg).unwrap_err();
        assert_eq!((e.name(), e.kind(), e.index(), e.field()), ("E_CONFIG", ElementKind::Config, Some(index), Some(field)), "{}", e);
        assert!(e.to_string().ends_with(&format!("(config '{}')", field)), "{}", e);
        let e = broker_dry_run(&snap, &cfg).unwrap_err();
        assert_eq!(e.field(), Some(field));
    }
}

#[test]
fn a_stream_tolerance_past_its_limit_names_the_stream() {
    let e = Snapshot::builder(vec![Member::new("a")], vec![])
        .streams(vec![Stream::new("s"), Stream::new("t").tolerance(sys::PL_MAX_TOLERANCE + 1)])
        .build()
        .unwrap_err();
    assert_eq!((e.name(), e.kind(), e.index(), e.id()), ("E_TOLERANCE", ElementKind::Stream, Some(1), Some("t")));
    // PL_TOLERANCE_DEFAULT is the default, not a tolerance past the limit
    Snapshot::builder(vec![Member::new("a")], vec![])
        .streams(vec![Stream::new("s").tolerance(sys::PL_TOLERANCE_DEFAULT)])
        .build()
        .unwrap();
}

/// A zone rule past `PL_ZONES_RULE_MAX` cannot be built with [`ZoneRule`]:
/// the library refuses one given through `sys`.
#[test]
fn an_unknown_zone_rule_is_refused_through_sys() {
    let snap = Snapshot::builder(vec![Member::new("a")], vec![])
        .streams(vec![Stream::new("s"), Stream::new("t")])
        .build()
        .unwrap();
    let rules = [sys::PL_ZONES_SPAN, sys::PL_ZONES_RULE_MAX + 1];
    let mut c = *snap.as_raw();
    c.stream_zone_rule = rules.as_ptr();
    let mut d = sys::pl_diag::default();
    // SAFETY: c's arrays are snap's and `rules`, alive; n_streams is 2;
    // the workspace is sized by pl_snapshot_work_size().
    let rc = unsafe {
        let size = sys::pl_snapshot_work_size(&c);
        let mut work = vec![0u64; (size + 7) / 8 + 1];
        sys::pl_snapshot_validate(&c, work.as_mut_ptr() as *mut std::ffi::c_void, size, &mut d)
    };
    assert_eq!(rc, sys::PL_E_ZONE_RULE);
    assert_eq!((d.kind, d.index), (sys::PL_ELEM_STREAM, 1));
    assert_eq!(error_name(rc), "E_ZONE_RULE");
}
