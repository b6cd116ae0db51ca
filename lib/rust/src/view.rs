//! The view: what one tick derives from a snapshot, in memory the crate
//! allocates (`pl_view_size_opt()` bytes, 8-byte aligned), holding the
//! snapshot for its whole life; and the [`Ticker`], which keeps the last
//! tick's view as the next one's hint.

use crate::action::Action;
use crate::error::{ElementKind, Error, VIEW_OPTION_FIELDS};
use crate::kind::{ActionKind, Reason};
use crate::parts::Origin;
use crate::snapshot::Snapshot;
use crate::sys;
use crate::sys::safe::{self, RawView};

/// A scorer id (`PL_SCORER_*`). Ids never change meaning; a new scorer is a
/// new id, so this is a number, not a closed enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scorer(pub u32);

impl Scorer {
    /// XXH3-64 hashes of id and key, mixed by `pl_score()` (the default).
    pub const XXH3: Scorer = Scorer(sys::PL_SCORER_XXH3);
    /// The seeds' FNV-1a over `"<key> <member id>"`, for fleets already on it.
    pub const LEGACY_FNV1A: Scorer = Scorer(sys::PL_SCORER_LEGACY_FNV1A);
}

/// How to build a view; `Default` is `pl_view_options_init()`.
///
/// ```
/// use placement::{Scorer, ViewOptions};
/// assert_eq!(ViewOptions::default().scorer, Scorer::XXH3);
/// let legacy = ViewOptions::default().scorer(Scorer::LEGACY_FNV1A);
/// # let _ = legacy;
/// let small = ViewOptions::default().max_replicas(3); // RF 3: a smaller view
/// assert_eq!(small.max_replicas, 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewOptions {
    /// The scorer the view ranks members with.
    pub scorer: Scorer,
    /// The most replicas any shard may reach in the view, 1..=8, or 0 (the
    /// default) for 8; the snapshot's largest replica count raises it. Each
    /// shard's state has room for that many, so a smaller room is a smaller
    /// view; adding a replica past it fails with `E_REPLICA_ROOM`, and so
    /// does a broker or region plan whose replication factor passes it.
    pub max_replicas: u32,
    version: u32,
}

impl Default for ViewOptions {
    fn default() -> ViewOptions {
        let o = safe::view_options_init();
        ViewOptions {
            scorer: Scorer(o.scorer),
            max_replicas: o.max_replicas,
            version: o.version,
        }
    }
}

impl ViewOptions {
    /// Sets the scorer.
    pub fn scorer(mut self, scorer: Scorer) -> ViewOptions {
        self.scorer = scorer;
        self
    }
    /// Sets the replica room (`pl_view_options.max_replicas`).
    pub fn max_replicas(mut self, n: u32) -> ViewOptions {
        self.max_replicas = n;
        self
    }
    fn to_c(self) -> sys::pl_view_options {
        sys::pl_view_options {
            version: self.version,
            scorer: self.scorer.0,
            reuse: std::ptr::null(),
            max_replicas: self.max_replicas,
            reserved: 0,
        }
    }
}

/// Counts of a view (`pl_view_counts`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Members in the snapshot.
    pub members: u32,
    /// Not down.
    pub live: u32,
    /// Not down and not draining.
    pub eligible: u32,
    /// Streams.
    pub streams: u32,
    /// Shards.
    pub shards: u32,
    /// Overrides the view holds now.
    pub overrides: u32,
    /// Shards with a move in flight.
    pub moving: u32,
    /// Shards with no leader, or a leader that is not live.
    pub leaderless: u32,
    /// The scorer the view scores with.
    pub scorer: Scorer,
    /// ceil(shards / eligible members), 0 when none.
    pub share: u32,
    /// The sum of eligible members' weights.
    pub weight: u64,
    /// Replica copies in flight in the snapshot (their shards count as
    /// moving).
    pub copies: u32,
}

/// A member's counts, in total or in one stream, and its bounds
/// (`pl_tally`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    /// Shards it leads (moves in flight counted as finished).
    pub leaders: u32,
    /// Shards it holds a replica of.
    pub replicas: u32,
    /// Its floor; 0 when not eligible.
    pub floor: u32,
    /// Its ceiling (in total: the cluster share).
    pub ceiling: u32,
    /// Shards counted: all, or the stream's.
    pub shards: u32,
}

impl Tally {
    fn from_c(t: sys::pl_tally) -> Tally {
        Tally {
            leaders: t.leaders,
            replicas: t.replicas,
            floor: t.floor,
            ceiling: t.ceiling,
            shards: t.shards,
        }
    }
}

/// Which policy's counts [`View::imbalance`] measures (`PL_IMBALANCE_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Measure {
    /// The broker policy with its replica balance on (the default):
    /// leaders and replicas, in total and per stream.
    Broker,
    /// The broker policy with `replica_balance` off: leaders only, in total
    /// and per stream.
    Leaders,
    /// A fleet: shards owned (override, else ring home), in total.
    Owned,
    /// The region policy: replicas against the fair share of live members.
    Replicas,
}

impl Measure {
    fn to_c(self) -> u32 {
        match self {
            Measure::Broker => sys::PL_IMBALANCE_BROKER,
            Measure::Leaders => sys::PL_IMBALANCE_LEADERS,
            Measure::Owned => sys::PL_IMBALANCE_OWNED,
            Measure::Replicas => sys::PL_IMBALANCE_REPLICAS,
        }
    }
}

/// How far a view is from balanced (`pl_imbalance`): 0 when every member is
/// within its bounds, else the count past them. The definition is
/// `pl_view_imbalance(3)`'s, the number `placement(1)` prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Imbalance {
    /// `totals + streams`.
    pub total: u64,
    /// The part in the members' totals.
    pub totals: u64,
    /// The part in the streams (the broker's measures; 0 for the others).
    pub streams: u64,
}

/// A shard as the view has it now: the snapshot plus the actions applied
/// since (`pl_shard_state`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardState {
    /// Its leader.
    pub leader: Option<String>,
    /// Its replicas.
    pub replicas: Vec<String>,
    /// A move is in flight.
    pub moving: bool,
    /// The fleet override in force: its member, origin and since.
    pub override_: Option<(String, Origin, u64)>,
    /// The shard's epoch: the snapshot's, advanced by one by every replica
    /// or leader action applied to the view, as its commit would.
    pub epoch: u64,
}

/// A view of a [`Snapshot`]: canonical orders, ring homes, tallies, and
/// every action applied since it was built.
///
/// It holds its snapshot (a cheap clone of it, shared through an `Arc`), so
/// the snapshot lives, unchanged, as long as the view does, which is the
/// one rule of `pl_view_init()`. A view is therefore a plain value: it can
/// outlive the `Snapshot` it was built from, be kept in a struct, and be the
/// hint of the next tick's build ([`View::reusing`]); a [`Ticker`] does that
/// for a tick loop.
///
/// ```
/// use placement::{Member, Snapshot, View, ViewOptions};
/// let last: View = {
///     let snap = Snapshot::new(vec![Member::new("b0")], vec![]).unwrap();
///     snap.view().unwrap()
/// }; // the Snapshot value is gone; the view still holds the snapshot
/// assert_eq!(last.counts().members, 1);
/// let next = Snapshot::new(vec![Member::new("b0"), Member::new("b1")], vec![]).unwrap();
/// let view = View::reusing(&next, &ViewOptions::default(), &last).unwrap();
/// assert_eq!(view.counts().members, 2);
/// ```
///
/// A view is `Send` (it owns its memory and only reads the snapshot, which
/// is `Sync`) but not `Sync`: the C library says a view is used by one
/// thread at a time, and calls that read it (`pl_view_top()`, lookups) are
/// not promised to be safe against a concurrent policy call on the same
/// view. To look at one tick from several threads, give each its own
/// [`View::try_clone`].
///
/// ```compile_fail,E0277
/// fn shared<T: Sync>() {}
/// shared::<placement::View>(); // error: View is not Sync
/// ```
pub struct View {
    snap: Snapshot,
    pub(crate) raw: RawView,
}

impl std::fmt::Debug for View {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("View").field("counts", &self.counts()).finish()
    }
}

fn not_found(kind: ElementKind, id: &str) -> Error {
    Error::code(sys::PL_E_NOT_FOUND)
        .at(kind, None)
        .with_id(Some(id.to_owned()))
}

impl Snapshot {
    /// A view with the default options.
    pub fn view(&self) -> Result<View, Error> {
        View::new(self, &ViewOptions::default())
    }

    /// A view with these options.
    pub fn view_with(&self, opts: &ViewOptions) -> Result<View, Error> {
        View::new(self, opts)
    }
}

impl View {
    fn build(snap: &Snapshot, opts: &ViewOptions, prev: Option<&View>, mem: Vec<u64>) -> Result<View, Error> {
        let mut d = sys::pl_diag::default();
        let mut c = opts.to_c();
        if let Some(p) = prev {
            c.reuse = p.raw.as_ptr();
        }
        match RawView::new_in(snap.raw(), &c, &mut d, mem) {
            Ok(raw) => Ok(View {
                snap: snap.clone(),
                raw,
            }),
            Err(rc) => Err(snap.error_from_diag(rc, &d).in_config(VIEW_OPTION_FIELDS)),
        }
    }

    /// Builds a view of `snap` (`pl_view_init()`): validation, hashes,
    /// canonical orders, tallies. The view holds a clone of `snap` (an
    /// `Arc`, not a copy of the arrays).
    pub fn new(snap: &Snapshot, opts: &ViewOptions) -> Result<View, Error> {
        View::build(snap, opts, None, Vec::new())
    }

    /// Builds a view of `snap` with an earlier view as a hint
    /// (`pl_view_options.reuse`): typically the previous tick's view. What
    /// still holds (the canonical orders when the ids are the same at the
    /// same places, the ring homes when `prev` had them) is checked and
    /// reused; the answers are those of [`View::new`], only sooner. `prev`
    /// is read during the call only. A [`Ticker`] keeps the previous view
    /// for you.
    ///
    /// ```
    /// use placement::{Member, Shard, Snapshot, View, ViewOptions};
    /// let members = vec![Member::new("a"), Member::new("b")];
    /// let shards = vec![Shard::new("s/0"), Shard::new("s/1")];
    /// let first = Snapshot::new(members.clone(), shards.clone()).unwrap();
    /// let prev = View::new(&first, &ViewOptions::default()).unwrap();
    /// let next = Snapshot::new(members, shards).unwrap();
    /// let view = View::reusing(&next, &ViewOptions::default(), &prev).unwrap();
    /// assert_eq!(view.home("s/0").unwrap(), prev.home("s/0").unwrap());
    /// ```
    pub fn reusing(snap: &Snapshot, opts: &ViewOptions, prev: &View) -> Result<View, Error> {
        View::build(snap, opts, Some(prev), Vec::new())
    }

    /// The snapshot it was built from.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snap
    }

    /// An independent copy with every action applied so far
    /// (`pl_view_copy()`): how each member of a fleet decides on its own
    /// copy of one tick's view.
    pub fn try_clone(&self) -> Result<View, Error> {
        let raw = self.raw.try_clone().map_err(Error::code)?;
        Ok(View {
            snap: self.snap.clone(),
            raw,
        })
    }

    /// The view's counts.
    pub fn counts(&self) -> Counts {
        let c = self.raw.stats();
        Counts {
            members: c.members,
            live: c.live,
            eligible: c.eligible,
            streams: c.streams,
            shards: c.shards,
            overrides: c.overrides,
            moving: c.moving,
            leaderless: c.leaderless,
            scorer: Scorer(c.scorer),
            share: c.share,
            weight: c.weight,
            copies: c.copies,
        }
    }

    fn find(&self, kind: u32, ek: ElementKind, id: &str) -> Result<u32, Error> {
        let rc = self.raw.find(kind, id.as_bytes());
        if rc >= 0 {
            Ok(rc as u32)
        } else if rc == sys::PL_E_NOT_FOUND {
            Err(not_found(ek, id))
        } else {
            Err(Error::code(rc).at(ek, None).with_id(Some(id.to_owned())))
        }
    }

    pub(crate) fn member_index(&self, id: &str) -> Result<u32, Error> {
        self.find(sys::PL_ELEM_MEMBER, ElementKind::Member, id)
    }

    pub(crate) fn stream_index(&self, id: &str) -> Result<u32, Error> {
        self.find(sys::PL_ELEM_STREAM, ElementKind::Stream, id)
    }

    pub(crate) fn shard_index(&self, key: &str) -> Result<u32, Error> {
        self.find(sys::PL_ELEM_SHARD, ElementKind::Shard, key)
    }

    /// The member's index in the snapshot (`pl_view_find()`), if it has one.
    pub fn find_member(&self, id: &str) -> Option<u32> {
        self.member_index(id).ok()
    }

    /// The stream's index in the snapshot, if it has one.
    pub fn find_stream(&self, id: &str) -> Option<u32> {
        self.stream_index(id).ok()
    }

    /// The shard's index in the snapshot, if it has one.
    pub fn find_shard(&self, key: &str) -> Option<u32> {
        self.shard_index(key).ok()
    }

    pub(crate) fn member_id(&self, i: u32) -> Result<&str, Error> {
        self.snap
            .member_id(i)
            .ok_or_else(|| Error::code(sys::PL_E_MEMBER_RANGE).at(ElementKind::Member, Some(i)))
    }

    fn ordered<'a>(&self, kind: u32, n: u32, ids: &'a [String]) -> Vec<&'a str> {
        let mut out = Vec::with_capacity(n as usize);
        for rank in 0..n {
            let i = self.raw.at(kind, rank);
            if let Some(s) = usize::try_from(i).ok().and_then(|i| ids.get(i)) {
                out.push(s.as_str());
            }
        }
        out
    }

    /// Member ids in the canonical order (`pl_view_at()`: id bytes
    /// ascending).
    pub fn ordered_members(&self) -> Vec<&str> {
        let n = self.counts().members;
        self.ordered(sys::PL_ELEM_MEMBER, n, self.snap.member_ids())
    }

    /// Stream ids in the canonical order.
    pub fn ordered_streams(&self) -> Vec<&str> {
        let n = self.counts().streams;
        self.ordered(sys::PL_ELEM_STREAM, n, self.snap.stream_ids())
    }

    /// Shard keys in the canonical order.
    pub fn ordered_shards(&self) -> Vec<&str> {
        let n = self.counts().shards;
        self.ordered(sys::PL_ELEM_SHARD, n, self.snap.shard_keys())
    }

    /// A member's leaders and replicas in total, with the cluster floor and
    /// share that apply to it (`pl_view_member_tally()`).
    pub fn member_tally(&self, member: &str) -> Result<Tally, Error> {
        let m = self.member_index(member)?;
        self.raw.member_tally(m).map(Tally::from_c).map_err(Error::code)
    }

    /// A member's leaders and replicas in one stream, with that stream's
    /// floor and ceiling for it (`pl_view_stream_tally()`).
    pub fn stream_tally(&self, stream: &str, member: &str) -> Result<Tally, Error> {
        let s = self.stream_index(stream)?;
        let m = self.member_index(member)?;
        self.raw
            .stream_tally(s, m)
            .map(Tally::from_c)
            .map_err(Error::code)
    }

    /// How far the view, as it is now, is from balanced under a policy's
    /// measure (`pl_view_imbalance()`): the sum over every member of the
    /// distance of its count to its floor and ceiling (every count on a
    /// member that is not held to them), in total and, for the broker, in
    /// each stream.
    ///
    /// ```
    /// use placement::{Measure, Member, Shard, Snapshot, View, ViewOptions};
    /// # fn main() -> Result<(), placement::Error> {
    /// let members = vec![Member::new("b0"), Member::new("b1")];
    /// let shards = (0..2)
    ///     .map(|i| Shard::new(format!("s/{}", i)).stream("s").replicas(&["b0"]).leader("b0"))
    ///     .collect();
    /// let view = View::new(&Snapshot::new(members, shards)?, &ViewOptions::default())?;
    /// // b0 leads and holds 2, b1 none, against bounds of 1 each: 2 in total,
    /// // 2 in the stream, for leaders and again for replicas.
    /// let imb = view.imbalance(Measure::Broker)?;
    /// assert_eq!((imb.total, imb.totals, imb.streams), (8, 4, 4));
    /// assert_eq!(view.imbalance(Measure::Leaders)?.total, 4);
    /// # Ok(())
    /// # }
    /// ```
    pub fn imbalance(&self, measure: Measure) -> Result<Imbalance, Error> {
        let r = self.raw.imbalance(measure.to_c()).map_err(Error::code)?;
        Ok(Imbalance {
            total: r.total,
            totals: r.totals,
            streams: r.streams,
        })
    }

    /// A shard as the view has it now (`pl_view_shard_state()`).
    pub fn shard_state(&self, shard: &str) -> Result<ShardState, Error> {
        let k = self.shard_index(shard)?;
        let st = self.raw.shard_state(k).map_err(Error::code)?;
        let mut replicas = Vec::new();
        for &r in st.replicas.iter().take(st.replica_count as usize) {
            replicas.push(self.member_id(r)?.to_owned());
        }
        let leader = if st.leader == sys::PL_NONE {
            None
        } else {
            Some(self.member_id(st.leader)?.to_owned())
        };
        let override_ = if st.override_member == sys::PL_NONE {
            None
        } else {
            Some((
                self.member_id(st.override_member)?.to_owned(),
                Origin::from_c(st.override_origin).unwrap_or(Origin::Lag),
                st.override_since,
            ))
        };
        Ok(ShardState {
            leader,
            replicas,
            moving: st.moving != 0,
            override_,
            epoch: st.epoch,
        })
    }

    /// A shard's ring home: the eligible member with the highest rendezvous
    /// score (`pl_view_home()`).
    pub fn home(&self, shard: &str) -> Result<&str, Error> {
        let k = self.shard_index(shard)?;
        let rc = self.raw.home(k);
        if rc < 0 {
            return Err(Error::code(rc)
                .at(ElementKind::Shard, Some(k))
                .with_id(Some(shard.to_owned())));
        }
        self.member_id(rc as u32)
    }

    /// The `k` best eligible members for any key, zones spread first; the
    /// first is the ring home (`pl_view_top()`). `k` is at most 8.
    pub fn top(&self, key: &str, k: u32) -> Result<Vec<&str>, Error> {
        let mut out = [0u32; sys::PL_MAX_REPLICAS as usize];
        let rc = self.raw.top(key.as_bytes(), &mut out, k);
        if rc < 0 {
            return Err(Error::code(rc)
                .at(ElementKind::Argument, None)
                .with_id(Some(key.to_owned())));
        }
        let mut ids = Vec::with_capacity(rc as usize);
        for &m in out.iter().take(rc as usize) {
            ids.push(self.member_id(m)?);
        }
        Ok(ids)
    }

    /// The C action for an [`Action`], its ids looked up in this view.
    fn raw_action(&self, a: &Action) -> Result<sys::pl_action, Error> {
        let mut r = *a.raw();
        r.shard = self.shard_index(&a.shard)?;
        r.stream = match &a.stream {
            Some(s) => self.stream_index(s)?,
            None => sys::PL_NONE,
        };
        r.from = match a.from_member() {
            Some(m) => self.member_index(m)?,
            None => sys::PL_NONE,
        };
        r.to = match a.to_member() {
            Some(m) => self.member_index(m)?,
            None => sys::PL_NONE,
        };
        Ok(r)
    }

    /// Applies an action to the view's shard states and tallies, as the
    /// policies do with theirs (`pl_view_apply()`); its ids are looked up
    /// in this view, so an action planned on another view of the same
    /// content applies here.
    pub fn apply(&mut self, a: &Action) -> Result<(), Error> {
        let r = self.raw_action(a)?;
        let rc = self.raw.apply(&r);
        if rc < 0 {
            return Err(Error::code(rc).with_id(Some(a.shard.clone())));
        }
        Ok(())
    }

    /// Marks every move in flight finished, as the next tick's snapshot
    /// would show it (`pl_view_settle()`); returns how many were settled.
    pub fn settle(&mut self) -> Result<u32, Error> {
        let rc = self.raw.settle();
        if rc < 0 {
            return Err(Error::code(rc));
        }
        Ok(rc as u32)
    }

    /// An action of the caller's own making, for [`View::apply`]: the kind
    /// with its members by id, the reason, the shard by key. The numbers
    /// are 0.
    ///
    /// ```
    /// use placement::{ActionKind, Member, Reason, Shard, Snapshot};
    /// let snap = Snapshot::new(vec![Member::new("a"), Member::new("b")],
    ///                          vec![Shard::new("k").replicas(&["a", "b"]).leader("a")])?;
    /// let mut view = snap.view()?;
    /// let to = "b".to_string();
    /// let a = view.make_action(ActionKind::SetLeader { from: Some("a".into()), to }, Reason::Failover, "k")?;
    /// view.apply(&a)?;
    /// assert_eq!(view.shard_state("k")?.leader.as_deref(), Some("b"));
    /// # Ok::<(), placement::Error>(())
    /// ```
    pub fn make_action(&self, kind: ActionKind, reason: Reason, shard: &str) -> Result<Action, Error> {
        let mut r = sys::pl_action {
            kind: kind.code(),
            reason: reason.code(),
            shard: self.shard_index(shard)?,
            from: sys::PL_NONE,
            to: sys::PL_NONE,
            ..sys::pl_action::default()
        };
        r.stream = self
            .snap
            .raw_shards()
            .get(r.shard as usize)
            .map(|k| k.stream)
            .unwrap_or(sys::PL_NONE);
        if let Some(m) = kind.from_member() {
            r.from = self.member_index(m)?;
        }
        if let Some(m) = kind.to_member() {
            r.to = self.member_index(m)?;
        }
        Action::from_raw(&self.snap, &r)
    }
}

/// A tick loop's views: each tick's view is built with the last tick's as
/// its hint ([`View::reusing`]), in the memory of the view before that, so a
/// loop holds two view buffers and allocates none once they are large
/// enough. This is the "every tick, at scale" path of `pl_view_init()`.
///
/// The answers are those of a fresh view of the same snapshot; only the
/// build is sooner (the canonical orders and ring homes are reused when the
/// ids have not changed).
///
/// ```
/// use placement::{BrokerConfig, Member, Shard, Snapshot, Ticker, ViewOptions};
/// # fn main() -> Result<(), placement::Error> {
/// let members = vec![Member::new("b0"), Member::new("b1")];
/// let mut shards: Vec<Shard> = (0..4)
///     .map(|i| Shard::new(format!("s/{}", i)).replicas(&["b0", "b1"]).leader("b0"))
///     .collect();
/// let cfg = BrokerConfig::default().replication_factor(2);
/// let mut ticker = Ticker::new(ViewOptions::default());
/// for tick in 0..3 {
///     let snap = Snapshot::new(members.clone(), shards.clone())?;
///     let view = ticker.tick(&snap)?; // last tick's view is the hint
///     assert_eq!(view.broker_plan(&cfg)?, snap.view()?.broker_plan(&cfg)?);
///     shards[tick].leader = Some("b1".into()); // the cluster changes
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Default)]
pub struct Ticker {
    opts: ViewOptions,
    last: Option<View>,
    spare: Vec<u64>,
}

impl Ticker {
    /// A ticker whose views are built with these options; it holds no view
    /// yet.
    pub fn new(opts: ViewOptions) -> Ticker {
        Ticker {
            opts,
            last: None,
            spare: Vec::new(),
        }
    }

    /// Builds this tick's view of `snap`, with the last tick's view as the
    /// hint, and keeps it as the hint of the next: the view returned is the
    /// ticker's until the next call. On an error the last view stays the
    /// hint.
    pub fn tick(&mut self, snap: &Snapshot) -> Result<&mut View, Error> {
        let mem = std::mem::take(&mut self.spare);
        let view = View::build(snap, &self.opts, self.last.as_ref(), mem)?;
        if let Some(old) = self.last.replace(view) {
            self.spare = old.raw.into_mem();
        }
        match self.last.as_mut() {
            Some(v) => Ok(v),
            None => Err(Error::code(sys::PL_E_INVAL)),
        }
    }

    /// The last tick's view, if a tick was built.
    pub fn view(&self) -> Option<&View> {
        self.last.as_ref()
    }

    /// The last tick's view, to plan on or apply to.
    pub fn view_mut(&mut self) -> Option<&mut View> {
        self.last.as_mut()
    }

    /// Takes the last tick's view out; the next tick is built without a hint.
    pub fn take(&mut self) -> Option<View> {
        self.last.take()
    }
}
