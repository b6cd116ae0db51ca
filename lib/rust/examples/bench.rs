//! The binding's overhead, measured in one run (`make bench`, built with
//! --release): a broker dry run on a 100,000-shard layout through the safe
//! API (view, dry run, actions in ids with their sentences) against the
//! same C calls made directly through `sys` on arrays built beforehand
//! (view, dry run, raw actions). Building the snapshot from ids is reported
//! separately. Best of several runs, the two alternating.
//!
//! Layout: 100 members, 1,000 streams of 100 shards, RF 3, every stream
//! led within its bounds except ten, each with five extra leaders on one
//! member: a dry run of a few dozen moves after a full scan per tick.
use placement::{sys, BrokerConfig, Member, Shard, Snapshot};
use std::time::{Duration, Instant};

const MEMBERS: usize = 100;
const STREAMS: usize = 1000;
const PER: usize = 100;
const RF: usize = 3;

fn leader_of(s: usize, j: usize) -> usize {
    if s % 100 == 99 && j < 5 {
        0
    } else {
        (s * 7 + j) % MEMBERS
    }
}

fn layout() -> (Vec<Member>, Vec<Shard>) {
    let members = (0..MEMBERS).map(|i| Member::new(format!("broker-{:04}", i))).collect();
    let mut shards = Vec::with_capacity(STREAMS * PER);
    for s in 0..STREAMS {
        let stream = format!("stream-{:05}", s);
        for j in 0..PER {
            let l = leader_of(s, j);
            let reps: Vec<String> = (0..RF).map(|r| format!("broker-{:04}", (l + r) % MEMBERS)).collect();
            shards.push(
                Shard::new(format!("stream-{:05}/{:03}", s, j))
                    .stream(stream.clone())
                    .replicas(&reps)
                    .leader(reps[0].clone()),
            );
        }
    }
    (members, shards)
}

/// The same layout as C arrays, built the way a C caller would.
struct CLayout {
    _ids: Vec<String>,
    _sids: Vec<String>,
    _keys: Vec<String>,
    members: Vec<sys::pl_member>,
    streams: Vec<sys::pl_stream>,
    shards: Vec<sys::pl_shard>,
}

fn bytes(s: &str) -> sys::pl_bytes {
    sys::pl_bytes {
        ptr: s.as_ptr().cast(),
        len: s.len() as u64,
    }
}

fn c_layout() -> CLayout {
    let ids: Vec<String> = (0..MEMBERS).map(|i| format!("broker-{:04}", i)).collect();
    let sids: Vec<String> = (0..STREAMS).map(|s| format!("stream-{:05}", s)).collect();
    let mut keys = Vec::with_capacity(STREAMS * PER);
    for s in 0..STREAMS {
        for j in 0..PER {
            keys.push(format!("stream-{:05}/{:03}", s, j));
        }
    }
    let no = sys::pl_bytes {
        ptr: std::ptr::null(),
        len: 0,
    };
    let members = ids
        .iter()
        .map(|id| sys::pl_member {
            id: bytes(id),
            zone: no,
            joined_at: 0,
            load: 0,
            map_version: 0,
            weight: 0,
            max_shards: 0,
            flags: 0,
        })
        .collect();
    let streams = sids.iter().map(|id| sys::pl_stream { id: bytes(id) }).collect();
    let mut shards = Vec::with_capacity(keys.len());
    for s in 0..STREAMS {
        for j in 0..PER {
            let l = leader_of(s, j);
            let mut replicas = [0u32; 8];
            for (r, slot) in replicas.iter_mut().enumerate().take(RF) {
                *slot = ((l + r) % MEMBERS) as u32;
            }
            shards.push(sys::pl_shard {
                key: bytes(&keys[s * PER + j]),
                epoch: 0,
                load: 0,
                stream: s as u32,
                leader: l as u32,
                moving_to: sys::PL_NONE,
                flags: 0,
                replica_count: RF as u32,
                replicas,
            });
        }
    }
    CLayout {
        _ids: ids,
        _sids: sids,
        _keys: keys,
        members,
        streams,
        shards,
    }
}

/// View and dry run, straight through sys: what a C caller pays.
fn c_run(c: &CLayout, cfg: &sys::pl_broker_config) -> (Duration, usize) {
    let snap = sys::pl_snapshot {
        version: sys::PL_SNAPSHOT_VERSION,
        members: c.members.as_ptr(),
        streams: c.streams.as_ptr(),
        shards: c.shards.as_ptr(),
        overrides: std::ptr::null(),
        copies: std::ptr::null(),
        n_members: c.members.len() as u32,
        n_streams: c.streams.len() as u32,
        n_shards: c.shards.len() as u32,
        n_overrides: 0,
        n_copies: 0,
        shard_bytes: std::ptr::null(),
        member_capacity: std::ptr::null(),
        stream_tolerance: std::ptr::null(),
        stream_zone_rule: std::ptr::null(),
        stream_flags: std::ptr::null(),
    };
    let t0 = Instant::now();
    // SAFETY: the arrays outlive the view; the buffers are as long as said.
    let n = unsafe {
        let size = sys::pl_view_size(&snap);
        let mut mem = vec![0u64; (size + 7) / 8];
        let mut v: *mut sys::pl_view = std::ptr::null_mut();
        let rc = sys::pl_view_init(&mut v, mem.as_mut_ptr().cast(), mem.len() * 8, &snap, std::ptr::null(), std::ptr::null_mut());
        assert_eq!(rc, 0, "view: {}", placement::error_name(rc));
        let mut out = vec![sys::pl_action::default(); c.shards.len() + 64];
        let mut info = sys::pl_plan_info::default();
        let mut ticks = 0u32;
        let n = sys::pl_broker_dry_run(v, cfg, out.as_mut_ptr(), out.len() as u32, &mut info, &mut ticks, std::ptr::null_mut());
        assert!(n >= 0);
        assert!(n == 0 || out[0].kind != 0);
        n as usize
    };
    (t0.elapsed(), n)
}

/// The same through the safe API: view, dry run, actions in ids.
fn rust_run(snap: &Snapshot, cfg: &BrokerConfig) -> (Duration, usize) {
    let t0 = Instant::now();
    let mut view = snap.view().unwrap();
    let plan = view.broker_dry_run(cfg).unwrap();
    let n = plan.actions.len();
    assert!(n == 0 || !plan.actions[0].explain().is_empty());
    // Freed inside the timing, as the C run frees its buffers.
    drop(plan);
    drop(view);
    (t0.elapsed(), n)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let runs = std::env::var("PL_BENCH_RUNS").ok().and_then(|s| s.parse().ok()).unwrap_or(7);
    let cfg = BrokerConfig::default();
    let craw = cfg.to_raw();
    let c = c_layout();
    let (members, shards) = layout();
    let mut build = Duration::MAX;
    let mut snap = None;
    for _ in 0..runs.min(3) {
        let (m, k) = (members.clone(), shards.clone());
        let t0 = Instant::now();
        let s = Snapshot::new(m, k).unwrap();
        build = build.min(t0.elapsed());
        snap = Some(s);
    }
    let snap = snap.unwrap();
    let (mut best_c, mut best_r) = (Duration::MAX, Duration::MAX);
    let (mut nc, mut nr) = (0, 0);
    for i in 0..runs {
        if i % 2 == 0 {
            let (t, n) = c_run(&c, &craw);
            best_c = best_c.min(t);
            nc = n;
            let (t, n) = rust_run(&snap, &cfg);
            best_r = best_r.min(t);
            nr = n;
        } else {
            let (t, n) = rust_run(&snap, &cfg);
            best_r = best_r.min(t);
            nr = n;
            let (t, n) = c_run(&c, &craw);
            best_c = best_c.min(t);
            nc = n;
        }
    }
    assert_eq!(nc, nr, "the two runs planned different actions");
    let ratio = ms(best_r) / ms(best_c);
    println!(
        "100,000 shards, 100 members, 1,000 streams, RF 3; {} actions; best of {}: C through sys {:.1} ms, safe API {:.1} ms",
        nc, runs, ms(best_c), ms(best_r)
    );
    println!(
        "rust broker dry run (safe API / C through sys): {:.2}x (target 1.10x) {}",
        ratio,
        if ratio <= 1.10 { "ok" } else { "MISSED" }
    );
    println!(
        "rust snapshot build from ids (reported apart): {:.1} ms = {:.2}x the C call (target none) ok",
        ms(build),
        ms(build) / ms(best_c)
    );
}
