//! The crate's only `unsafe` code: each C call the safe API needs, wrapped
//! once over memory Rust owns, with the reason it is sound.
//!
//! Two types carry the invariants:
//!  - [`RawSnap`] owns a snapshot's arrays and the strings its byte ranges
//!    point into. Nothing in it is ever mutated after construction, so every
//!    pointer in its `pl_snapshot` stays valid for as long as it lives (moving
//!    a `Vec` or `String` moves its header, never its heap buffer).
//!  - [`RawView`] (in `raw_view.rs`) owns a view's memory (a `Vec<u64>`, so 8-byte aligned, as
//!    `PL_VIEW_ALIGN` asks) and holds an `Arc` of the `RawSnap` it was built
//!    from: the snapshot lives, unchanged, while the view exists, which is
//!    the one rule of `pl_view_init()`. The memory is
//!    never resized, so the `pl_view` pointer into it stays valid when the
//!    `RawView` moves. Calls that change the view take `&mut self`.
//!
//! Every length handed to C is the length of the Rust slice it describes
//! (clamped to `u32::MAX` where C takes a `uint32_t`, which only shortens
//! what C may write), and every count read back is checked before it is used
//! as an index. No Rust code runs inside a C call (there are no callbacks),
//! so a panic can never unwind through C.
#![allow(unsafe_code)]

use super::*;
use std::ffi::{c_void, CStr};
use std::ptr;

pub(crate) use super::raw_view::RawView;

pub(crate) fn cap32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A static string returned by one of the library's name functions.
fn static_str(p: *const c_char) -> &'static str {
    if p.is_null() {
        return "unknown";
    }
    // SAFETY: the name functions return NUL-terminated static strings
    // (error.h, plan.h, region.h, route.h: "a static string").
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str().unwrap_or("unknown")
}

pub(crate) fn version() -> &'static str {
    // SAFETY: no arguments; returns a static string.
    static_str(unsafe { pl_version() })
}

pub(crate) fn version_number() -> i32 {
    // SAFETY: no arguments.
    unsafe { pl_version_number() }
}

pub(crate) fn error_name(code: c_int) -> &'static str {
    // SAFETY: any int is accepted; returns a static string.
    static_str(unsafe { pl_error_name(code) })
}

pub(crate) fn strerror(code: c_int) -> &'static str {
    // SAFETY: any int is accepted; returns a static string.
    static_str(unsafe { pl_strerror(code) })
}

pub(crate) fn action_kind_name(kind: u32) -> &'static str {
    // SAFETY: any value is accepted; returns a static string.
    static_str(unsafe { pl_action_kind_name(kind) })
}

pub(crate) fn reason_name(reason: u32) -> &'static str {
    // SAFETY: as above.
    static_str(unsafe { pl_reason_name(reason) })
}

pub(crate) fn status_name(status: u32) -> &'static str {
    // SAFETY: as above.
    static_str(unsafe { pl_status_name(status) })
}

pub(crate) fn region_stall_name(reason: u32) -> &'static str {
    // SAFETY: as above.
    static_str(unsafe { pl_region_stall_name(reason) })
}

pub(crate) fn route_rule_name(rule: u32) -> &'static str {
    // SAFETY: as above.
    static_str(unsafe { pl_route_rule_name(rule) })
}

pub(crate) fn hash(data: &[u8]) -> u64 {
    // SAFETY: the pointer and length describe `data`.
    unsafe { pl_hash(data.as_ptr() as *const c_void, data.len()) }
}

pub(crate) fn score(key_hash: u64, member_hash: u64) -> u64 {
    // SAFETY: plain integers.
    unsafe { pl_score(key_hash, member_hash) }
}

pub(crate) fn score_legacy(key: &[u8], member: &[u8]) -> u64 {
    // SAFETY: each pointer and length describe a slice.
    unsafe {
        pl_score_legacy(
            key.as_ptr() as *const c_void,
            key.len(),
            member.as_ptr() as *const c_void,
            member.len(),
        )
    }
}

pub(crate) fn score_weighted(score: u64, weight: u32) -> i64 {
    // SAFETY: plain integers.
    unsafe { pl_score_weighted(score, weight) }
}

pub(crate) fn view_options_init() -> pl_view_options {
    let mut o = pl_view_options::default();
    // SAFETY: a valid pointer to a struct of the right type.
    unsafe { pl_view_options_init(&mut o) };
    o
}

pub(crate) fn broker_config_init() -> pl_broker_config {
    let mut c = pl_broker_config::default();
    // SAFETY: as above.
    unsafe { pl_broker_config_init_version(&mut c, PL_BROKER_CONFIG_VERSION) };
    c
}

pub(crate) fn fleet_config_init() -> pl_fleet_config {
    let mut c = pl_fleet_config::default();
    // SAFETY: as above.
    unsafe { pl_fleet_config_init(&mut c) };
    c
}

pub(crate) fn region_config_init() -> pl_region_config {
    let mut c = pl_region_config::default();
    // SAFETY: as above.
    unsafe { pl_region_config_init(&mut c) };
    c
}

pub(crate) fn route_request_init() -> pl_route_request {
    let mut r = pl_route_request::default();
    // SAFETY: as above.
    unsafe { pl_route_request_init(&mut r) };
    r
}

pub(crate) fn route_decide(
    req: &pl_route_request,
    diag: &mut pl_diag,
) -> Result<pl_route_verdict, c_int> {
    let mut out = pl_route_verdict::default();
    // SAFETY: three valid pointers to structs of the right types.
    let rc = unsafe { pl_route_decide(req, &mut out, diag) };
    if rc < 0 {
        Err(rc)
    } else {
        Ok(out)
    }
}

/// A byte range over a string that outlives every use of the range.
fn bytes_of(s: &str) -> pl_bytes {
    pl_bytes {
        ptr: s.as_ptr() as *const c_char,
        len: s.len() as u64,
    }
}

const NO_BYTES: pl_bytes = pl_bytes {
    ptr: ptr::null(),
    len: 0,
};

/// What a snapshot is made of, with indices already resolved; the byte
/// ranges of `members`, `shards` are filled by [`RawSnap::new`].
pub(crate) struct SnapParts {
    pub member_ids: Vec<String>,
    pub zones: Vec<String>,
    pub members: Vec<pl_member>,
    pub stream_ids: Vec<String>,
    pub shard_keys: Vec<String>,
    pub shards: Vec<pl_shard>,
    pub overrides: Vec<pl_override>,
    pub copies: Vec<pl_copy>,
    /// One size per shard, or `None`: no size known (NULL to C).
    pub shard_bytes: Option<Vec<u64>>,
    /// One capacity per member, or `None`: no capacity known (NULL to C).
    pub member_capacity: Option<Vec<u64>>,
    /// One tolerance per stream, or `None`: every stream's default (NULL to C).
    pub stream_tolerance: Option<Vec<u32>>,
    /// One zone rule per stream, or `None`: every stream's default (NULL to C).
    pub stream_zone_rule: Option<Vec<u32>>,
    /// One set of flags per stream, or `None`: no stream has one (NULL to C).
    pub stream_flags: Option<Vec<u32>>,
}

/// The pointer C is given for an optional parallel array: NULL for none.
fn ptr_or_null<T>(v: &Option<Vec<T>>) -> *const T {
    match v {
        Some(v) => v.as_ptr(),
        None => ptr::null(),
    }
}

impl pl_member {
    /// A member with every field zero and no id (filled by `RawSnap::new`).
    pub(crate) fn blank() -> pl_member {
        pl_member {
            id: NO_BYTES,
            zone: NO_BYTES,
            joined_at: 0,
            load: 0,
            map_version: 0,
            weight: 0,
            max_shards: 0,
            flags: 0,
        }
    }
}

impl pl_shard {
    /// A shard with no key (filled by `RawSnap::new`), no stream, leader,
    /// move or replicas.
    pub(crate) fn blank() -> pl_shard {
        pl_shard {
            key: NO_BYTES,
            epoch: 0,
            load: 0,
            stream: PL_NONE,
            leader: PL_NONE,
            moving_to: PL_NONE,
            flags: 0,
            replica_count: 0,
            replicas: [0; 8],
        }
    }
}

/// A snapshot's arrays and the strings they point into; immutable.
pub(crate) struct RawSnap {
    member_ids: Vec<String>,
    zones: Vec<String>,
    members: Vec<pl_member>,
    stream_ids: Vec<String>,
    #[allow(dead_code)] // read by C only, through snap.streams
    streams: Vec<pl_stream>,
    shard_keys: Vec<String>,
    shards: Vec<pl_shard>,
    overrides: Vec<pl_override>,
    copies: Vec<pl_copy>,
    #[allow(dead_code)] // read by C only, through snap.shard_bytes
    shard_bytes: Option<Vec<u64>>,
    #[allow(dead_code)] // read by C only, through snap.member_capacity
    member_capacity: Option<Vec<u64>>,
    #[allow(dead_code)] // read by C only, through snap.stream_tolerance
    stream_tolerance: Option<Vec<u32>>,
    #[allow(dead_code)] // read by C only, through snap.stream_zone_rule
    stream_zone_rule: Option<Vec<u32>>,
    #[allow(dead_code)] // read by C only, through snap.stream_flags
    stream_flags: Option<Vec<u32>>,
    snap: pl_snapshot,
}

// SAFETY: a RawSnap owns everything its pointers point to and never changes
// it; the library only reads a snapshot (snapshot.h: "The library never
// writes to a snapshot"). Sending it, or sharing it between threads that each
// build their own views, is as safe as sharing a `Vec<u8>`.
unsafe impl Send for RawSnap {}
// SAFETY: see above; no interior mutability.
unsafe impl Sync for RawSnap {}

impl RawSnap {
    pub(crate) fn new(p: SnapParts) -> RawSnap {
        let SnapParts {
            member_ids,
            zones,
            mut members,
            stream_ids,
            shard_keys,
            mut shards,
            overrides,
            copies,
            mut shard_bytes,
            mut member_capacity,
            mut stream_tolerance,
            mut stream_zone_rule,
            mut stream_flags,
        } = p;
        for ((m, id), zone) in members.iter_mut().zip(&member_ids).zip(&zones) {
            m.id = bytes_of(id);
            m.zone = bytes_of(zone);
        }
        members.truncate(member_ids.len().min(zones.len()));
        let streams: Vec<pl_stream> = stream_ids
            .iter()
            .map(|s| pl_stream { id: bytes_of(s) })
            .collect();
        for (k, key) in shards.iter_mut().zip(&shard_keys) {
            k.key = bytes_of(key);
        }
        shards.truncate(shard_keys.len());
        // a parallel array as long as its elements, so C reads no further
        if let Some(b) = &mut shard_bytes {
            b.resize(shards.len(), PL_BYTES_UNKNOWN);
        }
        if let Some(c) = &mut member_capacity {
            c.resize(members.len(), PL_BYTES_UNKNOWN);
        }
        if let Some(t) = &mut stream_tolerance {
            t.resize(streams.len(), PL_TOLERANCE_DEFAULT);
        }
        if let Some(z) = &mut stream_zone_rule {
            z.resize(streams.len(), PL_ZONES_SPAN);
        }
        if let Some(f) = &mut stream_flags {
            f.resize(streams.len(), 0);
        }
        let snap = pl_snapshot {
            version: PL_SNAPSHOT_VERSION,
            members: members.as_ptr(),
            streams: streams.as_ptr(),
            shards: shards.as_ptr(),
            overrides: overrides.as_ptr(),
            copies: copies.as_ptr(),
            n_members: cap32(members.len()),
            n_streams: cap32(streams.len()),
            n_shards: cap32(shards.len()),
            n_overrides: cap32(overrides.len()),
            n_copies: cap32(copies.len()),
            shard_bytes: ptr_or_null(&shard_bytes),
            member_capacity: ptr_or_null(&member_capacity),
            stream_tolerance: ptr_or_null(&stream_tolerance),
            stream_zone_rule: ptr_or_null(&stream_zone_rule),
            stream_flags: ptr_or_null(&stream_flags),
        };
        RawSnap {
            member_ids,
            zones,
            members,
            stream_ids,
            streams,
            shard_keys,
            shards,
            overrides,
            copies,
            shard_bytes,
            member_capacity,
            stream_tolerance,
            stream_zone_rule,
            stream_flags,
            snap,
        }
    }

    /// The C struct, for callers that need it by value (tests, the bench).
    pub(crate) fn snapshot(&self) -> &pl_snapshot {
        &self.snap
    }

    pub(crate) fn member_ids(&self) -> &[String] {
        &self.member_ids
    }
    pub(crate) fn zones(&self) -> &[String] {
        &self.zones
    }
    pub(crate) fn members(&self) -> &[pl_member] {
        &self.members
    }
    pub(crate) fn stream_ids(&self) -> &[String] {
        &self.stream_ids
    }
    pub(crate) fn shard_keys(&self) -> &[String] {
        &self.shard_keys
    }
    pub(crate) fn shards(&self) -> &[pl_shard] {
        &self.shards
    }
    pub(crate) fn overrides(&self) -> &[pl_override] {
        &self.overrides
    }
    pub(crate) fn copies(&self) -> &[pl_copy] {
        &self.copies
    }

    /// `pl_snapshot_validate()`: 0 or the first error, named in `diag`.
    pub(crate) fn validate(&self, diag: &mut pl_diag) -> c_int {
        // SAFETY: the snapshot's pointers are valid (see the type); the
        // work buffer is 8-byte aligned and as long as asked.
        unsafe {
            let size = pl_snapshot_work_size(&self.snap);
            let mut work = vec![0u64; (size + 7) / 8];
            pl_snapshot_validate(
                &self.snap,
                work.as_mut_ptr() as *mut c_void,
                work.len() * 8,
                diag,
            )
        }
    }

    /// `pl_action_explain()`, the whole sentence.
    pub(crate) fn explain(&self, a: &pl_action) -> Result<String, c_int> {
        // SAFETY: valid snapshot and action; first call with cap 0 and a
        // NULL buffer (allowed), second with a buffer of the size it asked.
        unsafe {
            let n = pl_action_explain(&self.snap, a, ptr::null_mut(), 0);
            if n < 0 {
                return Err(n);
            }
            let mut buf = vec![0u8; n as usize + 1];
            let m = pl_action_explain(&self.snap, a, buf.as_mut_ptr() as *mut c_char, buf.len());
            if m < 0 {
                return Err(m);
            }
            buf.truncate((m as usize).min(n as usize));
            Ok(String::from_utf8_lossy(&buf).into_owned())
        }
    }
}
