//! Kept streams (snapshot version 5, `stream_flags`, `PL_STREAM_KEEP`): a
//! stream's `keep` fills the snapshot's flags array only when a listed
//! stream keeps, the broker's balancing moves none of a kept stream's shards
//! (failover still does), and the library refuses an unknown flag with
//! `E_STREAM_FLAGS` naming the stream.

use placement::*;

/// 3 members, RF 3 (every member holds every replica): stream t's six
/// leaders and stream k's six all on b0; k is listed second (index 1).
fn layout(keep: bool, b0_down: bool) -> Snapshot {
    let mut shards = Vec::new();
    for s in ["t", "k"] {
        for i in 0..6 {
            shards.push(Shard::new(format!("{}/{}", s, i)).stream(s).replicas(&["b0", "b1", "b2"]).leader("b0"));
        }
    }
    let b0 = if b0_down { Member::new("b0").down() } else { Member::new("b0") };
    let k = if keep { Stream::new("k").keep() } else { Stream::new("k") };
    Snapshot::builder(vec![b0, Member::new("b1"), Member::new("b2")], shards)
        .streams(vec![Stream::new("t"), k])
        .build()
        .unwrap()
}

fn rf3() -> BrokerConfig {
    BrokerConfig::default().replication_factor(3)
}

fn flags(s: &Snapshot) -> Option<Vec<u32>> {
    let r = s.as_raw();
    // SAFETY: the array, when not null, has n_streams entries while `s` lives.
    (!r.stream_flags.is_null()).then(|| unsafe { std::slice::from_raw_parts(r.stream_flags, r.n_streams as usize) }.to_vec())
}

/// The shards an action names: its own, and its stream's by name.
fn names_kept(a: &Action) -> bool {
    a.shard.starts_with("k/") || a.stream.as_deref() == Some("k")
}

#[test]
fn defaults_and_the_array_only_when_a_listed_stream_keeps() {
    assert_eq!((sys::PL_STREAM_KEEP, sys::PL_STREAM_FLAGS_ALL, sys::PL_E_STREAM_FLAGS), (1, 1, -42));
    assert!(!Stream::new("s").keep && Stream::new("s").keep().keep);
    assert_ne!(Stream::new("s").keep(), Stream::new("s"));
    let m = || vec![Member::new("a")];
    let k = || vec![Shard::new("x").stream("named").replicas(&["a"]).leader("a")];
    let none = Snapshot::builder(m(), k())
        .streams(vec![Stream::new("s").tolerance(1).zones(ZoneRule::Majority)])
        .build()
        .unwrap();
    assert_eq!(flags(&none), None);
    let some = Snapshot::builder(m(), k()).streams(vec![Stream::new("s"), Stream::new("t").keep()]).build().unwrap();
    assert_eq!(some.stream_ids(), ["s", "t", "named"]);
    assert_eq!(flags(&some), Some(vec![0, sys::PL_STREAM_KEEP, 0]));
}

#[test]
fn no_balance_move_takes_a_kept_streams_shard() {
    let free = broker_dry_run(&layout(false, false), &rf3()).unwrap();
    assert!(free.actions.iter().any(names_kept), "without keep, k's leaders are balanced too");
    let snap = layout(true, false);
    let dry = broker_dry_run(&snap, &rf3()).unwrap();
    for p in [&dry, &broker_plan(&snap, &rf3()).unwrap()] {
        assert!(!p.actions.is_empty(), "stream t is still balanced");
        let kept: Vec<_> = p.actions.iter().filter(|a| names_kept(a)).collect();
        assert!(kept.is_empty(), "{:?}", kept);
        assert!(p.actions.iter().all(|a| a.reason == Reason::StreamSkew), "{:?}", p.actions);
    }
    // b0 still leads k's shards and the totals cannot even around them: named
    assert_eq!(dry.status, Status::BlockedBounds);
    assert_eq!(dry.detail, None);
}

#[test]
fn failover_still_moves_a_kept_streams_shards() {
    let p = broker_dry_run(&layout(true, true), &rf3()).unwrap();
    for i in 0..6 {
        let key = format!("k/{}", i);
        assert!(
            p.actions.iter().any(|a| a.shard == key && a.reason == Reason::Failover),
            "{} not failed over: {:?}",
            key,
            p.actions
        );
    }
}

/// `keep` is a bool, so the crate sets no other bit: the library refuses
/// one given through `sys`, and the crate names the stream.
#[test]
fn an_unknown_stream_flag_is_refused_naming_the_stream() {
    let snap = layout(false, false);
    let bad = [0, 0x2];
    let mut c = *snap.as_raw();
    c.stream_flags = bad.as_ptr();
    let mut d = sys::pl_diag::default();
    // SAFETY: c's arrays are snap's and `bad`, alive; n_streams is 2; the
    // workspace is sized by pl_snapshot_work_size().
    let rc = unsafe {
        let size = sys::pl_snapshot_work_size(&c);
        let mut work = vec![0u64; (size + 7) / 8 + 1];
        sys::pl_snapshot_validate(&c, work.as_mut_ptr() as *mut std::ffi::c_void, size, &mut d)
    };
    assert_eq!(rc, sys::PL_E_STREAM_FLAGS);
    assert_eq!((d.kind, d.index), (sys::PL_ELEM_STREAM, 1));
    assert_eq!(error_name(rc), "E_STREAM_FLAGS");
    assert_eq!(snap.stream_id(d.index), Some("k"));
}
