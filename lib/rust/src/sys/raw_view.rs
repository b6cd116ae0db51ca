//! [`RawView`]: a view in memory the crate owns; every C call that takes a
//! view, wrapped once (see `safe.rs` for the invariants).
#![allow(unsafe_code)]

use super::safe::{cap32, RawSnap};
use super::*;
use std::ffi::c_void;
use std::ptr::{self, NonNull};
use std::sync::Arc;

/// A view in memory the crate owns, sharing its snapshot through an `Arc`:
/// the snapshot lives, unchanged, as long as the view does.
pub(crate) struct RawView {
    mem: Vec<u64>,
    ptr: NonNull<pl_view>,
    snap: Arc<RawSnap>,
}

// SAFETY: the view's memory is owned by this value and its snapshot is only
// read; view.h: "A view is used by one thread at a time; different views
// share nothing". Moving it to another thread is fine. It is not Sync (the
// NonNull makes it !Sync): two threads must not call into one view at once.
unsafe impl Send for RawView {}

impl RawView {
    /// `pl_view_init()` in `mem`, grown to `pl_view_size_opt()` bytes when
    /// it is smaller (an earlier view's memory, from [`RawView::into_mem`],
    /// or an empty vector). `opt.reuse`, when set, must not point into
    /// `mem`: it cannot, since `mem` is owned here and a live view owns its
    /// own.
    pub(crate) fn new_in(
        snap: &Arc<RawSnap>,
        opt: &pl_view_options,
        diag: &mut pl_diag,
        mut mem: Vec<u64>,
    ) -> Result<RawView, c_int> {
        // SAFETY: the snapshot is valid, and the view keeps it alive (an
        // Arc of it) and never changes it; the memory is 8-aligned, at
        // least the size asked, and owned by the result.
        unsafe {
            let size = pl_view_size_opt(snap.snapshot(), opt);
            let words = (size + 7) / 8;
            if mem.len() < words {
                mem.resize(words, 0);
            }
            let mut out: *mut pl_view = ptr::null_mut();
            let rc = pl_view_init(
                &mut out,
                mem.as_mut_ptr() as *mut c_void,
                mem.len() * 8,
                snap.snapshot(),
                opt,
                diag,
            );
            if rc < 0 {
                return Err(rc);
            }
            match NonNull::new(out) {
                Some(ptr) => Ok(RawView {
                    mem,
                    ptr,
                    snap: Arc::clone(snap),
                }),
                None => Err(PL_E_INVAL),
            }
        }
    }

    /// The view's memory, for a later view to be built in.
    pub(crate) fn into_mem(self) -> Vec<u64> {
        self.mem
    }

    /// The view, for `pl_view_options.reuse` of a later build.
    pub(crate) fn as_ptr(&self) -> *const pl_view {
        self.ptr.as_ptr()
    }

    /// `pl_view_copy()` into fresh memory.
    pub(crate) fn try_clone(&self) -> Result<RawView, c_int> {
        // SAFETY: the source is a live view; the new memory is 8-aligned,
        // as large as the source's (pl_view_size_opt of the same build) and
        // does not overlap it.
        unsafe {
            let mut mem = vec![0u64; self.mem.len()];
            let mut out: *mut pl_view = ptr::null_mut();
            let rc = pl_view_copy(
                &mut out,
                mem.as_mut_ptr() as *mut c_void,
                mem.len() * 8,
                self.ptr.as_ptr(),
            );
            if rc < 0 {
                return Err(rc);
            }
            match NonNull::new(out) {
                Some(ptr) => Ok(RawView {
                    mem,
                    ptr,
                    snap: Arc::clone(&self.snap),
                }),
                None => Err(PL_E_INVAL),
            }
        }
    }

    fn v(&self) -> *const pl_view {
        self.ptr.as_ptr()
    }

    fn vm(&mut self) -> *mut pl_view {
        self.ptr.as_ptr()
    }

    pub(crate) fn stats(&self) -> pl_view_counts {
        let mut st = pl_view_counts::default();
        // SAFETY: a live view and a valid out pointer.
        unsafe { pl_view_stats(self.v(), &mut st) };
        st
    }

    pub(crate) fn find(&self, kind: u32, id: &[u8]) -> c_int {
        // SAFETY: a live view; the pointer and length describe `id`.
        unsafe { pl_view_find(self.v(), kind, id.as_ptr() as *const c_char, id.len()) }
    }

    pub(crate) fn at(&self, kind: u32, rank: u32) -> c_int {
        // SAFETY: a live view; C checks kind and rank.
        unsafe { pl_view_at(self.v(), kind, rank) }
    }

    pub(crate) fn member_tally(&self, member: u32) -> Result<pl_tally, c_int> {
        let mut t = pl_tally::default();
        // SAFETY: a live view and a valid out pointer; C checks the index.
        let rc = unsafe { pl_view_member_tally(self.v(), member, &mut t) };
        if rc < 0 {
            Err(rc)
        } else {
            Ok(t)
        }
    }

    pub(crate) fn stream_tally(&self, stream: u32, member: u32) -> Result<pl_tally, c_int> {
        let mut t = pl_tally::default();
        // SAFETY: as above.
        let rc = unsafe { pl_view_stream_tally(self.v(), stream, member, &mut t) };
        if rc < 0 {
            Err(rc)
        } else {
            Ok(t)
        }
    }

    pub(crate) fn imbalance(&self, measure: u32) -> Result<pl_imbalance, c_int> {
        let mut out = pl_imbalance::default();
        // SAFETY: a live view and a valid out pointer; C checks the measure.
        let rc = unsafe { pl_view_imbalance(self.v(), measure, &mut out) };
        if rc < 0 {
            Err(rc)
        } else {
            Ok(out)
        }
    }

    pub(crate) fn shard_state(&self, shard: u32) -> Result<pl_shard_state, c_int> {
        let mut st = pl_shard_state::default();
        // SAFETY: as above.
        let rc = unsafe { pl_view_shard_state(self.v(), shard, &mut st) };
        if rc < 0 {
            Err(rc)
        } else {
            Ok(st)
        }
    }

    pub(crate) fn home(&self, shard: u32) -> c_int {
        // SAFETY: a live view; C checks the index.
        unsafe { pl_view_home(self.v(), shard) }
    }

    /// `pl_view_top()`; `k` past `out`'s length is refused here as C would.
    pub(crate) fn top(&self, key: &[u8], out: &mut [u32], k: u32) -> c_int {
        if k as usize > out.len() {
            return PL_E_INVAL;
        }
        // SAFETY: a live view; key describes a slice; out holds at least k.
        unsafe {
            pl_view_top(
                self.v(),
                key.as_ptr() as *const c_char,
                key.len(),
                out.as_mut_ptr(),
                k,
            )
        }
    }

    pub(crate) fn apply(&mut self, a: &pl_action) -> c_int {
        // SAFETY: a live view, changed through &mut self; C checks the action.
        unsafe { pl_view_apply(self.vm(), a) }
    }

    pub(crate) fn settle(&mut self) -> c_int {
        // SAFETY: as above.
        unsafe { pl_view_settle(self.vm()) }
    }

    pub(crate) fn broker_plan(
        &mut self,
        cfg: &pl_broker_config,
        out: &mut [pl_action],
        info: &mut pl_plan_info,
        diag: &mut pl_diag,
    ) -> c_int {
        // SAFETY: a live view; out holds at least the cap passed.
        unsafe {
            pl_broker_plan(
                self.vm(),
                cfg,
                out.as_mut_ptr(),
                cap32(out.len()),
                info,
                diag,
            )
        }
    }

    pub(crate) fn broker_dry_run(
        &mut self,
        cfg: &pl_broker_config,
        out: &mut [pl_action],
        info: &mut pl_plan_info,
        ticks: &mut u32,
        diag: &mut pl_diag,
    ) -> c_int {
        // SAFETY: as above.
        unsafe {
            pl_broker_dry_run(
                self.vm(),
                cfg,
                out.as_mut_ptr(),
                cap32(out.len()),
                info,
                ticks,
                diag,
            )
        }
    }

    pub(crate) fn broker_drain_stalls(
        &self,
        out: &mut [pl_broker_stall],
        total: &mut u32,
        diag: &mut pl_diag,
    ) -> c_int {
        // SAFETY: a live view, only read; out holds at least the cap passed.
        unsafe { pl_broker_drain_stalls(self.v(), out.as_mut_ptr(), cap32(out.len()), total, diag) }
    }

    pub(crate) fn fleet_owner(&self, shard: u32) -> c_int {
        // SAFETY: a live view; C checks the index.
        unsafe { pl_fleet_owner(self.v(), shard) }
    }

    pub(crate) fn fleet_owners(&mut self, out: &mut [u32], diag: &mut pl_diag) -> c_int {
        // SAFETY: a live view; out holds at least the cap passed.
        unsafe { pl_fleet_owners(self.vm(), out.as_mut_ptr(), cap32(out.len()), diag) }
    }

    pub(crate) fn fleet_decide(
        &mut self,
        cfg: &pl_fleet_config,
        out: &mut [pl_action],
        info: &mut pl_plan_info,
        diag: &mut pl_diag,
    ) -> c_int {
        // SAFETY: as above.
        unsafe {
            pl_fleet_decide(
                self.vm(),
                cfg,
                out.as_mut_ptr(),
                cap32(out.len()),
                info,
                diag,
            )
        }
    }

    pub(crate) fn doc_read(
        &self,
        text: &[u8],
        out: &mut [pl_override],
        skipped: &mut u32,
        diag: &mut pl_diag,
    ) -> c_int {
        // SAFETY: a live view; text and out describe slices.
        unsafe {
            pl_fleet_doc_read(
                self.v(),
                text.as_ptr() as *const c_char,
                text.len(),
                out.as_mut_ptr(),
                cap32(out.len()),
                skipped,
                diag,
            )
        }
    }

    pub(crate) fn doc_format(&self) -> Result<String, c_int> {
        // SAFETY: a live view; first call sizes (NULL, 0 is allowed), the
        // second writes into a buffer of that size plus the NUL.
        unsafe {
            let n = pl_fleet_doc_format(self.v(), ptr::null_mut(), 0);
            if n < 0 {
                return Err(n);
            }
            let mut buf = vec![0u8; n as usize + 1];
            let m = pl_fleet_doc_format(self.v(), buf.as_mut_ptr() as *mut c_char, buf.len());
            if m < 0 {
                return Err(m);
            }
            buf.truncate((m as usize).min(n as usize));
            Ok(String::from_utf8_lossy(&buf).into_owned())
        }
    }

    pub(crate) fn region_effective_rf(&self, cfg: &pl_region_config, diag: &mut pl_diag) -> c_int {
        // SAFETY: valid pointers.
        unsafe { pl_region_effective_rf(self.v(), cfg, diag) }
    }

    pub(crate) fn region_check_add_peer(
        &self,
        region: u32,
        member: u32,
        epoch: u64,
        diag: &mut pl_diag,
    ) -> c_int {
        // SAFETY: a live view; C checks the indices.
        unsafe { pl_region_check_add_peer(self.v(), region, member, epoch, diag) }
    }

    pub(crate) fn region_plan(
        &mut self,
        cfg: &pl_region_config,
        out: &mut [pl_action],
        info: &mut pl_plan_info,
        stalls: &mut [pl_region_stall],
        diag: &mut pl_diag,
    ) -> c_int {
        // SAFETY: a live view; out and stalls hold at least the caps passed.
        unsafe {
            pl_region_plan(
                self.vm(),
                cfg,
                out.as_mut_ptr(),
                cap32(out.len()),
                info,
                stalls.as_mut_ptr(),
                cap32(stalls.len()),
                diag,
            )
        }
    }

    pub(crate) fn route_lookup(
        &self,
        key: &[u8],
        self_: u32,
        diag: &mut pl_diag,
    ) -> Result<pl_route_owner, c_int> {
        let mut o = pl_route_owner::default();
        // SAFETY: a live view; key describes a slice; valid out pointers.
        let rc = unsafe {
            pl_route_lookup(
                self.v(),
                key.as_ptr() as *const c_char,
                key.len(),
                self_,
                &mut o,
                diag,
            )
        };
        if rc < 0 {
            Err(rc)
        } else {
            Ok(o)
        }
    }
}
