//! The snapshot: members, streams, shards, overrides and copies, described
//! by id; [`Snapshot`] maps them to the C arrays and owns the bytes.

use crate::error::{ElementKind, Error};
use crate::sys;
use crate::sys::safe::{RawSnap, SnapParts};
use std::collections::HashMap;

/// A member: a process that can own, lead or replicate shards.
///
/// Built with [`Member::new`] and builder methods; every field is public.
///
/// ```
/// use placement::Member;
/// let m = Member::new("b0").zone("a").weight(2).max_shards(100).joined_at(5);
/// assert_eq!(m.zone, "a");
/// assert_eq!(m.load, Some(0));
/// assert_eq!(m.unmeasured().load, None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Member {
    /// Unique, non-empty; ties break on these bytes.
    pub id: String,
    /// Failure domain; empty (the default) is a zone of its own.
    pub zone: String,
    /// Relative capacity, 1..=65536; 0 reads as 1 (the default).
    pub weight: u32,
    /// Most replicas it may hold; 0 (the default) is no cap.
    pub max_shards: u32,
    /// Not live: owns, leads and receives nothing.
    pub down: bool,
    /// Live, but hands off what it has and takes nothing new.
    pub draining: bool,
    /// Live, but behind: never the destination of a move.
    pub lagging: bool,
    /// The caller's measure of its load; `None` is unmeasured, which is not
    /// the same as zero (`PL_MEMBER_UNMEASURED`).
    pub load: Option<u64>,
    /// The caller's clock when it joined; greater is newer.
    pub joined_at: u64,
    /// The version of the shard map it has installed.
    pub map_version: u64,
}

impl Member {
    /// A live member with this id and every other field at its default.
    pub fn new(id: impl Into<String>) -> Member {
        Member {
            id: id.into(),
            zone: String::new(),
            weight: 0,
            max_shards: 0,
            down: false,
            draining: false,
            lagging: false,
            load: Some(0),
            joined_at: 0,
            map_version: 0,
        }
    }
    /// Sets the zone.
    pub fn zone(mut self, zone: impl Into<String>) -> Member {
        self.zone = zone.into();
        self
    }
    /// Sets the weight.
    pub fn weight(mut self, weight: u32) -> Member {
        self.weight = weight;
        self
    }
    /// Sets the cap on replicas held (0 = none).
    pub fn max_shards(mut self, max_shards: u32) -> Member {
        self.max_shards = max_shards;
        self
    }
    /// Marks it down.
    pub fn down(mut self) -> Member {
        self.down = true;
        self
    }
    /// Marks it draining.
    pub fn draining(mut self) -> Member {
        self.draining = true;
        self
    }
    /// Marks it lagging.
    pub fn lagging(mut self) -> Member {
        self.lagging = true;
        self
    }
    /// Sets its load; `None` is unmeasured.
    pub fn load(mut self, load: Option<u64>) -> Member {
        self.load = load;
        self
    }
    /// Marks its load unmeasured (`load(None)`).
    pub fn unmeasured(mut self) -> Member {
        self.load = None;
        self
    }
    /// Sets when it joined.
    pub fn joined_at(mut self, t: u64) -> Member {
        self.joined_at = t;
        self
    }
    /// Sets the shard map version it has installed.
    pub fn map_version(mut self, v: u64) -> Member {
        self.map_version = v;
        self
    }

    fn flags(&self) -> u32 {
        let mut f = 0;
        if self.down {
            f |= sys::PL_MEMBER_DOWN;
        }
        if self.draining {
            f |= sys::PL_MEMBER_DRAINING;
        }
        if self.lagging {
            f |= sys::PL_MEMBER_LAGGING;
        }
        if self.load.is_none() {
            f |= sys::PL_MEMBER_UNMEASURED;
        }
        f
    }
}

/// A stream: a set of shards whose spread matters together.
///
/// A [`Snapshot`] lists the streams its shards name by itself; list one
/// explicitly ([`SnapshotBuilder::streams`]) to fix the order or to have a
/// stream with no shard.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Stream {
    /// Unique, non-empty.
    pub id: String,
}

impl Stream {
    /// A stream with this id.
    pub fn new(id: impl Into<String>) -> Stream {
        Stream { id: id.into() }
    }
}

/// A shard: the unit that is placed. A shard with no replicas and no leader
/// is new.
///
/// ```
/// use placement::Shard;
/// let s = Shard::new("orders/00").stream("orders").replicas(&["b0", "b1"]).leader("b0");
/// assert_eq!(s.replicas, vec!["b0".to_string(), "b1".to_string()]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    /// Unique, non-empty.
    pub key: String,
    /// The stream it belongs to, if any.
    pub stream: Option<String>,
    /// The members holding a copy, at most 8, each once.
    pub replicas: Vec<String>,
    /// Its leader (a region's primary): one of the replicas.
    pub leader: Option<String>,
    /// A leader move in flight to this member (needs a leader); counted as
    /// finished.
    pub moving_to: Option<String>,
    /// The shard map's epoch for it (regions).
    pub epoch: u64,
    /// The caller's measure of its load (a fleet's lag moves take the busiest).
    pub load: u64,
    /// Its destination is not idempotent (a rollup): never placed.
    pub not_idempotent: bool,
    /// It carries transfer debt: no peer is added or moved.
    pub transfer_debt: bool,
}

impl Shard {
    /// A new shard with this key: no stream, replicas or leader.
    pub fn new(key: impl Into<String>) -> Shard {
        Shard {
            key: key.into(),
            stream: None,
            replicas: Vec::new(),
            leader: None,
            moving_to: None,
            epoch: 0,
            load: 0,
            not_idempotent: false,
            transfer_debt: false,
        }
    }
    /// Sets its stream.
    pub fn stream(mut self, stream: impl Into<String>) -> Shard {
        self.stream = Some(stream.into());
        self
    }
    /// Sets its replicas, by member id.
    pub fn replicas<I, S>(mut self, ids: I) -> Shard
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.replicas = ids.into_iter().map(|s| s.as_ref().to_owned()).collect();
        self
    }
    /// Sets its leader, by member id.
    pub fn leader(mut self, id: impl Into<String>) -> Shard {
        self.leader = Some(id.into());
        self
    }
    /// Sets a leader move in flight, by member id.
    pub fn moving_to(mut self, id: impl Into<String>) -> Shard {
        self.moving_to = Some(id.into());
        self
    }
    /// Sets its epoch.
    pub fn epoch(mut self, epoch: u64) -> Shard {
        self.epoch = epoch;
        self
    }
    /// Sets its load.
    pub fn load(mut self, load: u64) -> Shard {
        self.load = load;
        self
    }
    /// Marks it not idempotent (a rollup region).
    pub fn not_idempotent(mut self) -> Shard {
        self.not_idempotent = true;
        self
    }
    /// Marks it as carrying transfer debt.
    pub fn transfer_debt(mut self) -> Shard {
        self.transfer_debt = true;
        self
    }
}

/// Which pass wrote a fleet override (`PL_ORIGIN_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Origin {
    /// Placed off its home for lag (the zero value, and the default).
    #[default]
    Lag,
    /// Placed off its home by count balance.
    Count,
}

impl Origin {
    pub(crate) fn to_c(self) -> u32 {
        match self {
            Origin::Lag => sys::PL_ORIGIN_LAG,
            Origin::Count => sys::PL_ORIGIN_COUNT,
        }
    }
    pub(crate) fn from_c(v: u32) -> Option<Origin> {
        match v {
            sys::PL_ORIGIN_LAG => Some(Origin::Lag),
            sys::PL_ORIGIN_COUNT => Some(Origin::Count),
            _ => None,
        }
    }
}

/// A fleet's record that a shard lives on a member off its ring home.
///
/// ```
/// use placement::{Origin, Override};
/// let o = Override::new("00", "streams-2").origin(Origin::Count).since(7);
/// assert_eq!(o.member, "streams-2");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Override {
    /// The shard's key.
    pub shard: String,
    /// The member that owns it.
    pub member: String,
    /// Which pass wrote it.
    pub origin: Origin,
    /// The caller's clock when it was written.
    pub since: u64,
}

impl Override {
    /// An override of origin lag, since 0.
    pub fn new(shard: impl Into<String>, member: impl Into<String>) -> Override {
        Override {
            shard: shard.into(),
            member: member.into(),
            origin: Origin::Lag,
            since: 0,
        }
    }
    /// Sets its origin.
    pub fn origin(mut self, origin: Origin) -> Override {
        self.origin = origin;
        self
    }
    /// Sets when it was written.
    pub fn since(mut self, since: u64) -> Override {
        self.since = since;
        self
    }
}

/// A replica copy in flight (`pl_copy`): staged on `to`, not yet committed;
/// on commit it replaces the replica on `from`, or adds a peer when `from`
/// is `None`. The view counts it as finished.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Copy {
    /// The shard's key.
    pub shard: String,
    /// The member the copy is staged on.
    pub to: String,
    /// The replica it replaces on commit, if any.
    pub from: Option<String>,
}

impl Copy {
    /// A copy of `shard` staged on `to`, adding a peer.
    pub fn new(shard: impl Into<String>, to: impl Into<String>) -> Copy {
        Copy {
            shard: shard.into(),
            to: to.into(),
            from: None,
        }
    }
    /// Sets the replica it replaces.
    pub fn from(mut self, member: impl Into<String>) -> Copy {
        self.from = Some(member.into());
        self
    }
}

/// One tick's snapshot: the C arrays, built from ids, with the bytes they
/// point into. Immutable once built; views borrow it
/// ([`Snapshot::view`]).
///
/// Indices (in [`crate::Error::index`], and in `sys`) are places in the
/// vectors given to [`Snapshot::new`] or the builder; streams not listed
/// explicitly follow in the order the shards first name them.
///
/// `Snapshot` is `Send` and `Sync`: the library only ever reads a snapshot,
/// so threads may each build their own views of one snapshot at once.
pub struct Snapshot {
    raw: RawSnap,
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
    copies: Vec<Copy>,
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
    pub fn copies(mut self, copies: Vec<Copy>) -> SnapshotBuilder {
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
                .ok_or_else(|| at(sys::PL_E_SHARD_RANGE, &c.shard))?;
            let to = index_of(&member_index, &c.to)
                .ok_or_else(|| at(sys::PL_E_MEMBER_RANGE, &c.to))?;
            let from = match &c.from {
                Some(f) => {
                    index_of(&member_index, f).ok_or_else(|| at(sys::PL_E_MEMBER_RANGE, f))?
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

        let parts = SnapParts {
            member_ids: b.members.iter().map(|m| m.id.clone()).collect(),
            zones: b.members.iter().map(|m| m.zone.clone()).collect(),
            members,
            stream_ids,
            shard_keys: b.shards.iter().map(|k| k.key.clone()).collect(),
            shards,
            overrides,
            copies,
        };
        drop(member_index);
        drop(stream_index);
        drop(shard_index);
        let snap = Snapshot {
            raw: RawSnap::new(parts),
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
            _ => None,
        };
        e.with_id(id.map(str::to_owned))
    }

    pub(crate) fn raw(&self) -> &RawSnap {
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
