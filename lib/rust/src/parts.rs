//! The parts of a snapshot, described by id: [`Member`], [`Stream`],
//! [`Shard`], [`Override`] (with its [`Origin`]) and [`CopyInFlight`].

use crate::sys;

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
    /// Failure domain; empty (the default) is a zone of its own. A path
    /// ("rack/host", "region/rack/host") names levels of domains, the top
    /// first: the broker policy spreads a shard over the top level first.
    pub zone: String,
    /// Relative capacity, 1..=65536; 0 reads as 1 (the default).
    pub weight: u32,
    /// Most replicas it may hold; 0 (the default) is no cap.
    pub max_shards: u32,
    /// Not live: owns, leads and receives nothing.
    pub down: bool,
    /// Live, but takes nothing new; the broker policy hands off all it has,
    /// the region policy leaves its peers where they are.
    pub draining: bool,
    /// Live, but behind: never the destination of a fleet or region move
    /// (the broker policy does not read it).
    pub lagging: bool,
    /// The caller's measure of its load; `None` is unmeasured, which is not
    /// the same as zero (`PL_MEMBER_UNMEASURED`).
    pub load: Option<u64>,
    /// The caller's clock when it joined; greater is newer.
    pub joined_at: u64,
    /// The version of the shard map it has installed.
    pub map_version: u64,
    /// The bytes it can hold, 1..=`PL_MAX_BYTES` (2^62); `None` (the
    /// default) is unknown, which is not zero. `Some(0)` is refused
    /// (`E_CAPACITY` naming the member): a member that can hold nothing is
    /// down. The broker's full ratio and bytes band read it.
    pub capacity: Option<u64>,
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
            capacity: None,
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
    /// Sets the bytes it can hold (`None`: unknown).
    ///
    /// ```
    /// use placement::Member;
    /// let m = Member::new("b0").capacity(Some(10 << 30));
    /// assert_eq!(m.capacity, Some(10 << 30));
    /// assert_eq!(Member::new("b1").capacity, None);
    /// ```
    pub fn capacity(mut self, bytes: Option<u64>) -> Member {
        self.capacity = bytes;
        self
    }

    pub(crate) fn flags(&self) -> u32 {
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
/// A [`Snapshot`](crate::Snapshot) lists the streams its shards name by itself; list one
/// explicitly ([`SnapshotBuilder::streams`](crate::SnapshotBuilder::streams)) to fix the order or to have a
/// stream with no shard.
///
/// A stream may carry rules for the broker policy (snapshot version 5): its
/// own [`tolerance`](Stream::tolerance), its [`ZoneRule`], and whether it is
/// [kept](Stream::keep) out of balancing. A stream the shards name without
/// listing it has the defaults.
///
/// ```
/// use placement::{Stream, ZoneRule};
/// let s = Stream::new("orders").tolerance(2).zones(ZoneRule::Majority);
/// assert_eq!((s.tolerance, s.zones), (Some(2), ZoneRule::Majority));
/// assert_eq!(Stream::new("logs").tolerance, None);
/// assert_eq!(Stream::new("logs").zones, ZoneRule::Span);
/// assert!(Stream::new("audit").keep().keep && !Stream::new("logs").keep);
/// ```
///
/// A kept stream whose leaders all sit on one member stays there; the broker
/// balances around it:
///
/// ```
/// use placement::{broker_dry_run, BrokerConfig, Member, Shard, Snapshot, Stream};
/// let members = vec![Member::new("b0"), Member::new("b1"), Member::new("b2")];
/// let shards = (0..6).map(|i| Shard::new(format!("audit/{}", i)).stream("audit").replicas(&["b0"]).leader("b0"));
/// let snap = Snapshot::builder(members, shards.collect())
///     .streams(vec![Stream::new("audit").keep()])
///     .build()
///     .unwrap();
/// let plan = broker_dry_run(&snap, &BrokerConfig::default().replication_factor(1)).unwrap();
/// assert!(plan.actions.is_empty());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Stream {
    /// Unique, non-empty.
    pub id: String,
    /// Shards by which a member's count of this stream (leaders, replicas)
    /// may stray past its floor and ceiling before the broker moves
    /// anything, 0..=`PL_MAX_TOLERANCE` (2^26); past it the snapshot is
    /// refused (`E_TOLERANCE` naming the stream). `None` (the default)
    /// takes the config's [`BrokerConfig::stream_tolerance`](crate::BrokerConfig::stream_tolerance).
    pub tolerance: Option<u32>,
    /// How its shards' replicas spread over zones (the broker policy);
    /// [`ZoneRule::Span`] by default.
    pub zones: ZoneRule,
    /// Excluded from balancing (`PL_STREAM_KEEP`, the broker policy;
    /// Cruise Control's excluded topics): no balance move (leaders, replicas
    /// or bytes, of the stream or of the totals) takes one of its shards.
    /// They still count in every member's totals, and failover, drains,
    /// zone repair and new shards' placement still move them. `false` by
    /// default.
    pub keep: bool,
}

impl Stream {
    /// A stream with this id and the default rules.
    pub fn new(id: impl Into<String>) -> Stream {
        Stream {
            id: id.into(),
            tolerance: None,
            zones: ZoneRule::Span,
            keep: false,
        }
    }
    /// Sets its own `tolerance`, in shards (over the config's
    /// `stream_tolerance`).
    pub fn tolerance(mut self, shards: u32) -> Stream {
        self.tolerance = Some(shards);
        self
    }
    /// Sets its zone rule.
    pub fn zones(mut self, rule: ZoneRule) -> Stream {
        self.zones = rule;
        self
    }
    /// Keeps it out of balancing ([`keep`](Stream::keep)).
    pub fn keep(mut self) -> Stream {
        self.keep = true;
        self
    }
}

/// How a stream's shards spread over zones (`pl_snapshot.stream_zone_rule`,
/// `PL_ZONES_*`), for the broker policy; the other policies do not read it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ZoneRule {
    /// Span as many zones as it can (`PL_ZONES_SPAN`, the default).
    #[default]
    Span,
    /// That, and no zone holds a majority's worth: at most
    /// (replicas - 1) / 2 of a shard's replicas in one zone, so losing any
    /// zone leaves a majority (`PL_ZONES_MAJORITY`, Kudu's placement rule).
    Majority,
}

impl ZoneRule {
    /// The `PL_ZONES_*` value.
    pub fn to_c(self) -> u32 {
        match self {
            ZoneRule::Span => sys::PL_ZONES_SPAN,
            ZoneRule::Majority => sys::PL_ZONES_MAJORITY,
        }
    }
    /// The word placement(5) writes (`zones=span`, `zones=majority`).
    pub fn name(self) -> &'static str {
        match self {
            ZoneRule::Span => "span",
            ZoneRule::Majority => "majority",
        }
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
    /// A leader move in flight to this member (needs a leader), counted as
    /// finished: this member leads, and when it held no replica it takes
    /// the leader's place in `replicas` (what a `move-leader` with a copy,
    /// [`Action::stage_first`](crate::Action::stage_first), does on
    /// commit). The shard is not moved again while it is set. A replica
    /// copy in flight is a [`CopyInFlight`] instead.
    pub moving_to: Option<String>,
    /// The shard map's epoch for it (regions).
    pub epoch: u64,
    /// The caller's measure of its load (a fleet's lag moves take the busiest).
    pub load: u64,
    /// Its destination is not idempotent (a rollup): never placed.
    pub not_idempotent: bool,
    /// It carries transfer debt: no peer is added or moved.
    pub transfer_debt: bool,
    /// Replicas (member ids) that are not in sync: they hold data, but no
    /// leadership goes to them (`PL_SHARD_OUT_OF_SYNC`). Never the leader.
    pub out_of_sync: Vec<String>,
    /// Its data on one replica, in bytes; `None` (the default) is unknown,
    /// which is not zero (`Some(0)` holds nothing). The known sizes of all
    /// shards together may be at most `PL_MAX_BYTES / PL_MAX_REPLICAS`
    /// (2^59): past it the snapshot is refused (`E_BYTES` naming the shard
    /// where the sum passes it). A copy of the shard reports it as
    /// [`Action::bytes`](crate::Action::bytes).
    pub size: Option<u64>,
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
            out_of_sync: Vec::new(),
            size: None,
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
    /// Marks replicas (by member id) as not in sync (Kafka's ISR, Redpanda's
    /// healthy replicas): no leadership goes to them.
    pub fn out_of_sync<I, S>(mut self, ids: I) -> Shard
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.out_of_sync = ids.into_iter().map(|s| s.as_ref().to_owned()).collect();
        self
    }
    /// Sets its size in bytes (`None`: unknown).
    ///
    /// ```
    /// use placement::Shard;
    /// let k = Shard::new("k").size(Some(512 << 20));
    /// assert_eq!(k.size, Some(512 << 20));
    /// assert_eq!(Shard::new("q").size, None);
    /// ```
    pub fn size(mut self, bytes: Option<u64>) -> Shard {
        self.size = bytes;
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
/// is `None`. This is how to describe a `move-replica` or `add-replica` (or
/// a failover's copy) the caller has started and not finished: list the
/// shard as it is now (`to` not among its replicas) and the copy here
/// ([`SnapshotBuilder::copies`](crate::SnapshotBuilder::copies)).
///
/// The view counts it as finished: `to` holds a replica, `from` (when set)
/// no longer does, and when `from` led the shard `to` leads it; the shard
/// is moving (a move in flight against the broker's limits, and no policy
/// acts on it while it is listed). At most one copy per shard; it is read
/// after a leader move in flight ([`Shard::moving_to`]) of the same shard
/// is counted finished. Its name is not `Copy`, so `use placement::*`
/// leaves the standard `Copy` trait alone.
///
/// ```
/// use placement::{CopyInFlight, Member, Shard, Snapshot};
/// let members = vec![Member::new("a"), Member::new("b"), Member::new("c")];
/// // a's replica is being copied to c (a move-replica of the leader's replica)
/// let snap = Snapshot::builder(members, vec![Shard::new("k").replicas(&["a", "b"]).leader("a")])
///     .copies(vec![CopyInFlight::new("k", "c").from("a")])
///     .build()?;
/// let st = snap.view()?.shard_state("k")?;
/// assert_eq!((st.leader.as_deref(), st.replicas, st.moving), (Some("c"), vec!["c".to_string(), "b".to_string()], true));
/// # Ok::<(), placement::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CopyInFlight {
    /// The shard's key.
    pub shard: String,
    /// The member the copy is staged on.
    pub to: String,
    /// The replica it replaces on commit, if any.
    pub from: Option<String>,
}

impl CopyInFlight {
    /// A copy of `shard` staged on `to`, adding a peer.
    pub fn new(shard: impl Into<String>, to: impl Into<String>) -> CopyInFlight {
        CopyInFlight {
            shard: shard.into(),
            to: to.into(),
            from: None,
        }
    }
    /// Sets the replica it replaces.
    pub fn from(mut self, member: impl Into<String>) -> CopyInFlight {
        self.from = Some(member.into());
        self
    }
}
