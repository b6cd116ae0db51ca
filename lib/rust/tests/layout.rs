//! Every #[repr(C)] struct of `sys` against the C compiler: sizes, field
//! offsets and the constants, printed by a C program built with `cc` from
//! PATH against ../../include. (No `offset_of!` on rustc 1.63: offsets are
//! taken with MaybeUninit and addr_of!.)

mod common;

use placement::sys;
use std::collections::BTreeMap;
use std::mem::{size_of, MaybeUninit};
use std::process::Command;

macro_rules! offset {
    ($t:ty, $f:ident) => {{
        let u = MaybeUninit::<$t>::uninit();
        let base = u.as_ptr();
        // SAFETY: addr_of! takes a field's address without reading it.
        let field = unsafe { std::ptr::addr_of!((*base).$f) };
        (field as usize) - (base as usize)
    }};
}

macro_rules! layouts {
    ($( $t:ident { $($f:ident),* } )*) => {
        fn rust_layout() -> Vec<(String, u64)> {
            let mut v = Vec::new();
            $(
                v.push((format!("size {}", stringify!($t)), size_of::<sys::$t>() as u64));
                v.push((format!("align {}", stringify!($t)), std::mem::align_of::<sys::$t>() as u64));
                $( v.push((format!("offset {} {}", stringify!($t), stringify!($f).trim_end_matches('_')),
                           offset!(sys::$t, $f) as u64)); )*
            )*
            v
        }
        fn c_layout_source() -> String {
            let mut s = String::new();
            $(
                s += &format!("\tprintf(\"size {0} %zu\\n\", sizeof({0}));\n", stringify!($t));
                s += &format!("\tprintf(\"align {0} %zu\\n\", _Alignof({0}));\n", stringify!($t));
                $( s += &format!("\tprintf(\"offset {0} {1} %zu\\n\", offsetof({0}, {1}));\n",
                                 stringify!($t), stringify!($f).trim_end_matches('_')); )*
            )*
            s
        }
    };
}

layouts! {
    pl_bytes { ptr, len }
    pl_member { id, zone, joined_at, load, map_version, weight, max_shards, flags }
    pl_stream { id }
    pl_shard { key, epoch, load, stream, leader, moving_to, flags, replica_count, replicas }
    pl_override { since, shard, member, origin }
    pl_copy { shard, to, from, reserved }
    pl_snapshot { version, members, streams, shards, overrides, copies, n_members, n_streams, n_shards, n_overrides,
                  n_copies, shard_bytes, member_capacity, stream_tolerance, stream_zone_rule, stream_flags }
    pl_diag { code, kind, index, other }
    pl_action { kind, reason, shard, stream, from, to, flags, origin, scope, tier, from_count, to_count,
                floor, ceiling, share, total, at, load, bytes, from_bytes, to_bytes, bytes_limit }
    pl_plan_info { written, wanted, status, detail, blocked }
    pl_view_options { version, scorer, reuse, max_replicas, reserved }
    pl_view_counts { members, live, eligible, streams, shards, overrides, moving, leaderless, scorer, share, weight,
                     copies }
    pl_tally { leaders, replicas, floor, ceiling, shards }
    pl_imbalance { total, totals, streams }
    pl_shard_state { leader, replica_count, replicas, moving, override_member, override_origin, override_since,
                     epoch }
    pl_broker_config { version, max_moves, max_moves_in, max_moves_out, paused, replication_factor, stream_balance,
                       replica_balance, handoff_only, bytes_balance, bytes_first, full_ratio, bytes_tolerance,
                       reserved, max_bytes_in_flight, max_bytes_in, max_bytes_out, tolerance, stream_tolerance }
    pl_broker_stall { shard, member, reason, reserved }
    pl_fleet_config { version, self_, now, last_move, cooldown, moves_per_decision, spread, return_home_age,
                      count_balance, reserved }
    pl_region_config { version, replication_factor, add_peer_proposals, load_balance, load_threshold, max_actions }
    pl_region_stall { shard, reason, step, member, wanted }
    pl_route_request { version, data_plane, answer, owner_known, forwarded, body, outcome, reserved }
    pl_route_verdict { verdict, rule, status, retry_after, mark, send_body }
    pl_route_owner { owner, home, shard, is_self }
}

macro_rules! constants {
    ($($c:ident),* $(,)?) => {
        fn rust_constants() -> Vec<(String, u64)> {
            vec![$((format!("const {}", stringify!($c)), sys::$c as u64)),*]
        }
        fn c_constants_source() -> String {
            let mut s = String::new();
            $( s += &format!("\tprintf(\"const {0} %llu\\n\", (unsigned long long)({0}));\n", stringify!($c)); )*
            s
        }
    };
}

constants! {
    PL_VERSION_MAJOR, PL_VERSION_MINOR, PL_VERSION_PATCH, PL_VERSION_NUMBER,
    PL_OK, PL_E_INVAL, PL_E_NULL, PL_E_LIMIT, PL_E_LENGTH, PL_E_STREAM_RANGE, PL_E_MEMBER_RANGE,
    PL_E_OVERRIDE_SHARD, PL_E_OVERRIDE_MEMBER, PL_E_NOSPACE, PL_E_VERSION, PL_E_NOT_FOUND, PL_E_ACTION,
    PL_E_SHARD_RANGE, PL_E_BYTES, PL_E_CAPACITY, PL_E_COPY_SHARD, PL_E_COPY_TO, PL_E_COPY_FROM, PL_E_NO_ELIGIBLE,
    PL_NONE, PL_MAX_MEMBERS, PL_MAX_STREAMS, PL_MAX_SHARDS, PL_MAX_ID_LEN, PL_MAX_REPLICAS, PL_MAX_WEIGHT, PL_MAX_COPIES,
    PL_SNAPSHOT_VERSION, PL_MAX_BYTES, PL_BYTES_UNKNOWN, PL_E_TOLERANCE, PL_E_ZONE_RULE, PL_E_STREAM_FLAGS,
    PL_ZONES_SPAN, PL_ZONES_MAJORITY, PL_ZONES_RULE_MAX, PL_TOLERANCE_DEFAULT, PL_MAX_TOLERANCE,
    PL_STREAM_KEEP, PL_STREAM_FLAGS_ALL,
    PL_MEMBER_DOWN, PL_MEMBER_DRAINING, PL_MEMBER_LAGGING, PL_MEMBER_UNMEASURED, PL_MEMBER_FLAGS_ALL,
    PL_SHARD_NOT_IDEMPOTENT, PL_SHARD_TRANSFER_DEBT, PL_SHARD_FLAGS_ALL, PL_ORIGIN_LAG, PL_ORIGIN_COUNT,
    PL_IMBALANCE_LEADERS, PL_IMBALANCE_BROKER, PL_IMBALANCE_OWNED, PL_IMBALANCE_REPLICAS,
    PL_ELEM_NONE, PL_ELEM_SNAPSHOT, PL_ELEM_MEMBER, PL_ELEM_STREAM, PL_ELEM_SHARD, PL_ELEM_OVERRIDE,
    PL_ELEM_CONFIG, PL_ELEM_ARGUMENT, PL_ELEM_COPY, PL_SCORER_XXH3, PL_SCORER_LEGACY_FNV1A,
    PL_ACTION_STAGE_FIRST, PL_ACTION_CARRIES_LEADER, PL_STATUS_BALANCED, PL_STATUS_FULL,
    PL_SCOPE_NONE, PL_SCOPE_STREAM, PL_SCOPE_CLUSTER, PL_SCOPE_OWNED, PL_SCOPE_REPLICAS, PL_SCOPE_PRIMARIES,
    PL_SCOPE_PEERS, PL_SCOPE_STREAM_REPLICAS, PL_SCOPE_ZONES, PL_SCOPE_BYTES, PL_VIEW_ALIGN, PL_VIEW_OPTIONS_VERSION, PL_BROKER_CONFIG_VERSION, PL_BROKER_MAX_MOVES, PL_BROKER_MAX_TOLERANCE,
    PL_BROKER_STALL_HELD, PL_BROKER_STALL_ZONES, PL_BROKER_STALL_CAPS, PL_REGION_WANT_PRIMARY, PL_REGION_WANT_PEER,
    PL_FLEET_CONFIG_VERSION, PL_FLEET_NEVER, PL_FLEET_DOC_VERSION,
    PL_FLEET_PICK_HOME, PL_FLEET_PICK_NEXT, PL_FLEET_PICK_OVERRIDE, PL_FLEET_PICK_ANY, PL_FLEET_PICK_KEEP, PL_REGION_CONFIG_VERSION,
    PL_ROUTE_BODY_LIMIT, PL_ROUTE_ANSWER_SERVED, PL_ROUTE_ANSWER_NOT_OWNER, PL_ROUTE_BODY_UNREAD,
    PL_ROUTE_BODY_WHOLE, PL_ROUTE_BODY_PAST_LIMIT, PL_ROUTE_BODY_PARTIAL, PL_ROUTE_OUTCOME_NONE,
    PL_ROUTE_OUTCOME_ANSWERED, PL_ROUTE_OUTCOME_REFUSED, PL_ROUTE_OUTCOME_FAILED, PL_ROUTE_REQUEST_VERSION,
    PL_ROUTE_SERVE, PL_ROUTE_FORWARD, PL_ROUTE_RELAY, PL_ROUTE_REPLAY, PL_ROUTE_FAILED,
    PL_ROUTE_SEND_NONE, PL_ROUTE_SEND_STREAM, PL_ROUTE_SEND_FRAMES,
    PL_ACTION_SET_LEADER, PL_ACTION_MOVE_LEADER, PL_ACTION_ADD_REPLICA, PL_ACTION_MOVE_REPLICA, PL_ACTION_SET_OVERRIDE, PL_ACTION_DROP_OVERRIDE,
    PL_REASON_NEW, PL_REASON_FAILOVER, PL_REASON_DRAIN, PL_REASON_STREAM_SKEW, PL_REASON_CLUSTER_SKEW, PL_REASON_COUNT,
    PL_REASON_SPREAD, PL_REASON_LAG, PL_REASON_RETURN_HOME, PL_REASON_VOID_OVERRIDE, PL_REASON_REDUNDANT_OVERRIDE, PL_REASON_UNDER_RF,
    PL_REASON_IDLE_MEMBER, PL_REASON_NEWEST_PEER, PL_REASON_LOAD, PL_REASON_NO_PRIMARY, PL_REASON_PRIMARY_SKEW, PL_REASON_ZONE_REPAIR,
    PL_REASON_REPLICA_DRAIN, PL_REASON_REPLICA_STREAM_SKEW, PL_REASON_REPLICA_CLUSTER_SKEW, PL_REASON_FULL_RATIO, PL_REASON_BYTES_SKEW, PL_STATUS_PAUSED, PL_STATUS_MOVE_LIMIT, PL_STATUS_BLOCKED_ZONES,
    PL_STATUS_BLOCKED_CAPS, PL_STATUS_COOLDOWN, PL_STATUS_WAITING, PL_STATUS_NOT_LIVE, PL_STATUS_PROPOSALS_OFF, PL_STATUS_STALLED,
    PL_STATUS_ACTION_CAP, PL_STATUS_IN_FLIGHT, PL_STATUS_DRAIN_STALLED, PL_STATUS_BLOCKED_HANDOFF, PL_STATUS_BLOCKED_FULL, PL_STATUS_RETURNING_HOME, PL_STATUS_LAGGING,
    PL_STATUS_MOVING, PL_STATUS_UNEVEN, PL_STATUS_BLOCKED_BOUNDS,
}

/// Builds and runs the C program in its own directory `tag` (tests run in
/// parallel).
fn c_output(tag: &str) -> BTreeMap<String, String> {
    let include = std::env::var_os("PLACEMENT_INCLUDE_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| common::root().join("include"));
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(tag);
    std::fs::create_dir_all(&dir).unwrap();
    let src = format!(
        "#include <placement.h>\n#include <stddef.h>\n#include <stdio.h>\n\nint main(void)\n{{\n{}{}\
         \tprintf(\"string PL_VERSION_STRING %s\\n\", PL_VERSION_STRING);\n\treturn 0;\n}}\n",
        c_layout_source(),
        c_constants_source()
    );
    let c = dir.join("layout.c");
    let exe = dir.join(tag);
    std::fs::write(&c, src).unwrap();
    let out = Command::new("cc")
        .arg("-std=c11")
        .arg("-I")
        .arg(&include)
        .arg("-o")
        .arg(&exe)
        .arg(&c)
        .output()
        .expect("cc from PATH");
    assert!(out.status.success(), "cc failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&exe).output().unwrap();
    assert!(run.status.success());
    String::from_utf8(run.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (k, v) = l.rsplit_once(' ').unwrap();
            (k.to_owned(), v.to_owned())
        })
        .collect()
}

#[test]
fn structs_constants_and_version_match_the_c_headers() {
    let c = c_output("layout");
    let mut checked = 0;
    for (k, v) in rust_layout().into_iter().chain(rust_constants()) {
        let cv = c.get(&k).unwrap_or_else(|| panic!("C printed no {}", k));
        assert_eq!(cv, &v.to_string(), "{}: C says {}, Rust {}", k, cv, v);
        checked += 1;
    }
    assert_eq!(c["string PL_VERSION_STRING"], sys::PL_VERSION_STRING);
    assert!(checked > 200, "{} checks", checked);
}

/// The crate's version is the library's: the headers' and the linked one's.
#[test]
fn crate_version_is_the_library_version() {
    assert_eq!(placement::VERSION, sys::PL_VERSION_STRING);
    assert_eq!(placement::version(), placement::VERSION);
    assert_eq!(placement::version_number(), sys::PL_VERSION_NUMBER);
    let c = c_output("version");
    assert_eq!(c["string PL_VERSION_STRING"], placement::VERSION);
}

/// The crate fills `pl_snapshot.version`, its first field; the library
/// refuses the same struct with any other version, reading nothing else.
#[test]
fn snapshot_carries_its_version() {
    let snap = placement::Snapshot::new(
        vec![placement::Member::new("a")],
        vec![placement::Shard::new("k").replicas(&["a"]).leader("a")],
    )
    .unwrap();
    let raw = snap.as_raw();
    assert_eq!(offset!(sys::pl_snapshot, version), 0);
    assert_eq!(raw.version, sys::PL_SNAPSHOT_VERSION);
    for bad in [0, sys::PL_SNAPSHOT_VERSION + 1] {
        let mut c = *raw;
        c.version = bad;
        // SAFETY: c is a whole pl_snapshot whose arrays are snap's, alive;
        // no workspace and no diag are passed.
        let (size, rc) = unsafe {
            let rc = sys::pl_snapshot_validate(&c, std::ptr::null_mut(), 0, std::ptr::null_mut());
            (sys::pl_snapshot_work_size(&c), rc)
        };
        assert_eq!(size, 0);
        assert_eq!(rc, sys::PL_E_VERSION);
    }
}
