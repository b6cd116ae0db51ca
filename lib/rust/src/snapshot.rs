//! [`Snapshot`]: the parts (`parts.rs`) mapped to the C arrays by id, with
//! the bytes they point into.

use crate::error::{ElementKind, Error};
use crate::parts::{CopyInFlight, Member, Override, Shard, Stream, ZoneRule};
use crate::sys;
use crate::sys::safe::{RawSnap, SnapParts};
use std::collections::HashMap;
use std::sync::Arc;

/// One tick's snapshot: the C arrays, built from ids, with the bytes they
/// point into. Immutable once built; a view shares it ([`Snapshot::view`]):
/// each [`View`](crate::View) holds the snapshot it was built from, so a
/// view may outlive the `Snapshot` value it came from, be kept in a struct
/// and be handed to the next tick's build ([`View::reusing`](crate::View::reusing),
/// [`Ticker`](crate::Ticker)).
///
/// `Clone` is cheap: the clones share one set of arrays (an `Arc`).
///
/// Indices (in [`crate::Error::index`], and in `sys`) are places in the
/// vectors given to [`Snapshot::new`] or the builder; streams not listed
/// explicitly follow in the order the shards first name them.
///
/// `Snapshot` is `Send` and `Sync`: the library only ever reads a snapshot,
/// so threads may each build their own views of one snapshot at once.
#[derive(Clone)]
pub struct Snapshot {
    raw: Arc<RawSnap>,
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("members", &self.raw.member_ids().len())
            .field("streams", &self.raw.stream_ids().len())
            .field("shards", &self.raw.shard_keys().len())
            .field("overrides", &self.raw.overrides().len())
            .field("copies", &self.raw.copies().len())
            .finish()
    }
}

/// Builds a [`Snapshot`] with streams, overrides or copies
/// ([`Snapshot::builder`]).
///
/// ```
/// use placement::{Member, Override, Shard, Snapshot, Stream};
/// let snap = Snapshot::builder(vec![Member::new("a"), Member::new("b")], vec![Shard::new("k")])
///     .streams(vec![Stream::new("empty")])
///     .overrides(vec![Override::new("k", "b")])
///     .build()?;
/// assert_eq!(snap.stream_ids(), ["empty"]);
/// # Ok::<(), placement::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SnapshotBuilder {
    members: Vec<Member>,
    streams: Vec<Stream>,
    shards: Vec<Shard>,
    overrides: Vec<Override>,
    copies: Vec<CopyInFlight>,
}

impl SnapshotBuilder {
    /// Lists streams explicitly (before those the shards name).
    pub fn streams(mut self, streams: Vec<Stream>) -> SnapshotBuilder {
        self.streams = streams;
        self
    }
    /// Sets the fleet's overrides.
    pub fn overrides(mut self, overrides: Vec<Override>) -> SnapshotBuilder {
        self.overrides = overrides;
        self
    }
    /// Sets the replica copies in flight.
    pub fn copies(mut self, copies: Vec<CopyInFlight>) -> SnapshotBuilder {
        self.copies = copies;
        self
    }
    /// Resolves every id and validates the snapshot
    /// (`pl_snapshot_validate()`); see [`Snapshot::new`].
    pub fn build(self) -> Result<Snapshot, Error> {
        Snapshot::build(self)
    }
}

/// A count C cannot be told (past u32) is past its limit; below that, the
/// library's own check (`PL_E_LIMIT`) decides.
fn limit(len: usize, array: u32) -> Result<(), Error> {
    if u32::try_from(len).is_err() {
        return Err(Error::code(sys::PL_E_LIMIT).at(ElementKind::Snapshot, Some(array)));
    }
    Ok(())
}

fn index_of(map: &HashMap<&str, u32>, id: &str) -> Option<u32> {
    map.get(id).copied()
}

impl Snapshot {
    /// A snapshot of these members and shards; its streams are those the
    /// shards name, in the order first named.
    ///
    /// Every id a shard names is resolved first: an unknown member is
    /// `E_MEMBER_RANGE` naming the shard (its index and key) and the unknown
    /// id ([`Error::reference`]). Then the library validates the whole
    /// snapshot and its first error names the element: a duplicate id
    /// (`E_DUP_MEMBER`, ...), a leader that is not a replica, an id past 1024
    /// bytes, and so on.
    pub fn new(members: Vec<Member>, shards: Vec<Shard>) -> Result<Snapshot, Error> {
        Snapshot::builder(members, shards).build()
    }

    /// A builder, for streams, overrides or copies as well.
    pub fn builder(members: Vec<Member>, shards: Vec<Shard>) -> SnapshotBuilder {
        SnapshotBuilder {
            members,
            streams: Vec::new(),
            shards,
            overrides: Vec::new(),
            copies: Vec::new(),
        }
    }

    fn build(b: SnapshotBuilder) -> Result<Snapshot, Error> {
        limit(b.members.len(), 0)?;
        limit(b.streams.len(), 1)?;
        limit(b.shards.len(), 2)?;
        limit(b.overrides.len(), 3)?;
        limit(b.copies.len(), 4)?;
        let mut member_index: HashMap<&str, u32> = HashMap::with_capacity(b.members.len());
        for (i, m) in b.members.iter().enumerate() {
            member_index.entry(m.id.as_str()).or_insert(i as u32);
        }
        let mut stream_ids: Vec<String> = Vec::with_capacity(b.streams.len());
        let mut stream_index: HashMap<&str, u32> = HashMap::new();
        for s in &b.streams {
            let i = stream_ids.len() as u32;
            stream_index.entry(s.id.as_str()).or_insert(i);
            stream_ids.push(s.id.clone());
        }
        for k in &b.shards {
            if let Some(s) = &k.stream {
                if !stream_index.contains_key(s.as_str()) {
                    stream_index.insert(s.as_str(), stream_ids.len() as u32);
                    stream_ids.push(s.clone());
                }
            }
        }
        limit(stream_ids.len(), 1)?;
        let mut shard_index: HashMap<&str, u32> = HashMap::new();
        if !b.overrides.is_empty() || !b.copies.is_empty() {
            for (i, k) in b.shards.iter().enumerate() {
                shard_index.entry(k.key.as_str()).or_insert(i as u32);
            }
        }

        let mut members = Vec::with_capacity(b.members.len());
        for m in &b.members {
            let mut c = sys::pl_member::blank();
            c.joined_at = m.joined_at;
            c.load = m.load.unwrap_or(0);
            c.map_version = m.map_version;
            c.weight = m.weight;
            c.max_shards = m.max_shards;
            c.flags = m.flags();
            members.push(c);
        }

        let mut shards = Vec::with_capacity(b.shards.len());
        for (i, k) in b.shards.iter().enumerate() {
            let unknown = |id: &str| {
                Error::code(sys::PL_E_MEMBER_RANGE)
                    .at(ElementKind::Shard, Some(i as u32))
                    .with_id(Some(k.key.clone()))
                    .with_reference(id)
            };
            let mut c = sys::pl_shard::blank();
            c.epoch = k.epoch;
            c.load = k.load;
            c.stream = match &k.stream {
                Some(s) => index_of(&stream_index, s).unwrap_or(sys::PL_NONE),
                None => sys::PL_NONE,
            };
            for (r, id) in k.replicas.iter().enumerate() {
                let m = index_of(&member_index, id).ok_or_else(|| unknown(id))?;
                if let Some(slot) = c.replicas.get_mut(r) {
                    *slot = m;
                }
            }
            c.replica_count = u32::try_from(k.replicas.len()).unwrap_or(u32::MAX);
            if let Some(l) = &k.leader {
                c.leader = index_of(&member_index, l).ok_or_else(|| unknown(l))?;
            }
            if let Some(t) = &k.moving_to {
                c.moving_to = index_of(&member_index, t).ok_or_else(|| unknown(t))?;
            }
            if k.not_idempotent {
                c.flags |= sys::PL_SHARD_NOT_IDEMPOTENT;
            }
            if k.transfer_debt {
                c.flags |= sys::PL_SHARD_TRANSFER_DEBT;
            }
            for o in &k.out_of_sync {
                let j = k.replicas.iter().position(|r| r == o).ok_or_else(|| unknown(o))?;
                c.flags |= sys::PL_SHARD_OUT_OF_SYNC_0 << j;
            }
            shards.push(c);
        }

        let mut overrides = Vec::with_capacity(b.overrides.len());
        for (i, o) in b.overrides.iter().enumerate() {
            let at = |code: i32, r: &str| {
                Error::code(code)
                    .at(ElementKind::Override, Some(i as u32))
                    .with_id(Some(o.shard.clone()))
                    .with_reference(r)
            };
            let shard = index_of(&shard_index, &o.shard)
                .ok_or_else(|| at(sys::PL_E_OVERRIDE_SHARD, &o.shard))?;
            let member = index_of(&member_index, &o.member)
                .ok_or_else(|| at(sys::PL_E_OVERRIDE_MEMBER, &o.member))?;
            overrides.push(sys::pl_override {
                since: o.since,
                shard,
                member,
                origin: o.origin.to_c(),
            });
        }

        let mut copies = Vec::with_capacity(b.copies.len());
        for (i, c) in b.copies.iter().enumerate() {
            let at = |code: i32, r: &str| {
                Error::code(code)
                    .at(ElementKind::Copy, Some(i as u32))
                    .with_id(Some(c.shard.clone()))
                    .with_reference(r)
            };
            let shard = index_of(&shard_index, &c.shard)
                .ok_or_else(|| at(sys::PL_E_COPY_SHARD, &c.shard))?;
            let to = index_of(&member_index, &c.to)
                .ok_or_else(|| at(sys::PL_E_COPY_TO, &c.to))?;
            let from = match &c.from {
                Some(f) => {
                    index_of(&member_index, f).ok_or_else(|| at(sys::PL_E_COPY_FROM, f))?
                }
                None => sys::PL_NONE,
            };
            copies.push(sys::pl_copy {
                shard,
                to,
                from,
                reserved: 0,
            });
        }

        // sizes and capacities: an array only when one is known
        let shard_bytes = if b.shards.iter().any(|k| k.size.is_some()) {
            Some(b.shards.iter().map(|k| k.size.unwrap_or(sys::PL_BYTES_UNKNOWN)).collect())
        } else {
            None
        };
        let member_capacity = if b.members.iter().any(|m| m.capacity.is_some()) {
            Some(b.members.iter().map(|m| m.capacity.unwrap_or(sys::PL_BYTES_UNKNOWN)).collect())
        } else {
            None
        };
        // each stream's rules: an array only when a listed stream sets one
        // (a stream only the shards name has the defaults)
        let stream_tolerance = if b.streams.iter().any(|s| s.tolerance.is_some()) {
            Some(b.streams.iter().map(|s| s.tolerance.unwrap_or(sys::PL_TOLERANCE_DEFAULT)).collect())
        } else {
            None
        };
        let stream_zone_rule = if b.streams.iter().any(|s| s.zones != ZoneRule::Span) {
            Some(b.streams.iter().map(|s| s.zones.to_c()).collect())
        } else {
            None
        };
        let stream_flags = if b.streams.iter().any(|s| s.keep) {
            Some(b.streams.iter().map(|s| if s.keep { sys::PL_STREAM_KEEP } else { 0 }).collect())
        } else {
            None
        };
        let parts = SnapParts {
            member_ids: b.members.iter().map(|m| m.id.clone()).collect(),
            zones: b.members.iter().map(|m| m.zone.clone()).collect(),
            members,
            stream_ids,
            shard_keys: b.shards.iter().map(|k| k.key.clone()).collect(),
            shards,
            overrides,
            copies,
            shard_bytes,
            member_capacity,
            stream_tolerance,
            stream_zone_rule,
            stream_flags,
        };
        drop(member_index);
        drop(stream_index);
        drop(shard_index);
        let snap = Snapshot {
            raw: Arc::new(RawSnap::new(parts)),
        };
        let mut d = sys::pl_diag::default();
        let rc = snap.raw.validate(&mut d);
        if rc < 0 {
            return Err(snap.error_from_diag(rc, &d));
        }
        Ok(snap)
    }

    /// An Error for a diag, with the id of the element it names.
    pub(crate) fn error_from_diag(&self, rc: i32, d: &sys::pl_diag) -> Error {
        let e = Error::from_diag(rc, d);
        let id = match (e.kind(), e.index()) {
            (ElementKind::Member, Some(i)) => self.member_id(i),
            (ElementKind::Stream, Some(i)) => self.stream_id(i),
            (ElementKind::Shard, Some(i)) => self.shard_key(i),
            (ElementKind::Override, Some(i)) => self
                .raw
                .overrides()
                .get(i as usize)
                .and_then(|o| self.shard_key(o.shard)),
            (ElementKind::Copy, Some(i)) => self
                .raw
                .copies()
                .get(i as usize)
                .and_then(|c| self.shard_key(c.shard)),
            _ => None,
        };
        e.with_id(id.map(str::to_owned))
    }

    pub(crate) fn raw(&self) -> &Arc<RawSnap> {
        &self.raw
    }

    /// The member ids, by index.
    pub fn member_ids(&self) -> &[String] {
        self.raw.member_ids()
    }

    /// The stream ids, by index: those listed, then those the shards name.
    pub fn stream_ids(&self) -> &[String] {
        self.raw.stream_ids()
    }

    /// The shard keys, by index.
    pub fn shard_keys(&self) -> &[String] {
        self.raw.shard_keys()
    }

    /// The id of member `i`, if there is one.
    pub fn member_id(&self, i: u32) -> Option<&str> {
        self.raw.member_ids().get(i as usize).map(String::as_str)
    }

    /// The zone of member `i`, if there is one.
    pub fn member_zone(&self, i: u32) -> Option<&str> {
        self.raw.zones().get(i as usize).map(String::as_str)
    }

    /// The id of stream `i`.
    pub fn stream_id(&self, i: u32) -> Option<&str> {
        self.raw.stream_ids().get(i as usize).map(String::as_str)
    }

    /// The key of shard `i`.
    pub fn shard_key(&self, i: u32) -> Option<&str> {
        self.raw.shard_keys().get(i as usize).map(String::as_str)
    }

    /// The C struct with its arrays, for use with [`crate::sys`]. Its
    /// pointers are valid while `self` is.
    pub fn as_raw(&self) -> &sys::pl_snapshot {
        self.raw.snapshot()
    }

    /// The member array as C sees it.
    pub fn raw_members(&self) -> &[sys::pl_member] {
        self.raw.members()
    }

    /// The shard array as C sees it.
    pub fn raw_shards(&self) -> &[sys::pl_shard] {
        self.raw.shards()
    }
}
