//! Helpers shared by the integration tests: a seeded generator, spreads,
//! and the project's paths.
#![allow(dead_code)]

use placement::{Member, Shard, Snapshot, View};
use std::path::PathBuf;

/// splitmix64: a small seeded generator; tests print the seed on failure.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }
}

/// The seed to use: PL_SEED from the environment, else `default`.
pub fn seed(default: u64) -> u64 {
    std::env::var("PL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The project's root (lib/rust/../..).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("..")
}

/// Max minus min leaders of a stream (None: in total) over eligible members.
pub fn spread(view: &View, stream: Option<&str>, eligible: &[&str]) -> u32 {
    let mut lo = u32::MAX;
    let mut hi = 0;
    for m in eligible {
        let t = match stream {
            Some(s) => view.stream_tally(s, m).unwrap(),
            None => view.member_tally(m).unwrap(),
        };
        lo = lo.min(t.leaders);
        hi = hi.max(t.leaders);
    }
    hi.saturating_sub(lo)
}

/// Members b0 .. b(n-1).
pub fn brokers(n: usize) -> Vec<Member> {
    (0..n).map(|i| Member::new(format!("b{}", i))).collect()
}

/// A stream whose shards "<name>/NN" are led counts[m] on b<m>, in key
/// order, each with rf replicas: the leader, then the next members.
pub fn stream(name: &str, counts: &[usize], rf: usize) -> Vec<Shard> {
    let nm = counts.len();
    let mut out = Vec::new();
    let mut i = 0;
    for (m, &c) in counts.iter().enumerate() {
        for _ in 0..c {
            let reps: Vec<String> = (0..rf.min(nm)).map(|r| format!("b{}", (m + r) % nm)).collect();
            out.push(
                Shard::new(format!("{}/{:02}", name, i))
                    .stream(name)
                    .replicas(&reps)
                    .leader(format!("b{}", m)),
            );
            i += 1;
        }
    }
    out
}

/// The layout after a view's actions, as a new snapshot's shards: each
/// shard's replicas and leader as the view has them now.
pub fn shards_after(snap: &Snapshot, view: &View) -> Vec<Shard> {
    snap.shard_keys()
        .iter()
        .zip(snap.raw_shards())
        .map(|(key, raw)| {
            let st = view.shard_state(key).unwrap();
            let mut s = Shard::new(key.clone()).replicas(&st.replicas);
            s.leader = st.leader.clone();
            s.stream = if raw.stream == placement::sys::PL_NONE {
                None
            } else {
                snap.stream_id(raw.stream).map(str::to_owned)
            };
            s.epoch = raw.epoch;
            s.load = raw.load;
            s
        })
        .collect()
}
