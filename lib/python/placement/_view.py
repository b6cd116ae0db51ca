"""View: what one tick derives from a Snapshot, in memory the View owns."""

import ctypes
from collections import namedtuple

from . import _ffi
from ._actions import Action
from ._errors import PlacementError, check
from ._snapshot import Member, Override, Snapshot, Stream, Shard, encode_id, new_diag, _ref

_KINDS = {"member": 2, "stream": 3, "shard": 4}

Tally = namedtuple("Tally", "leaders replicas floor ceiling shards")
Tally.__doc__ = """A member's counts, in total or in one stream (pl_tally): leaders and
replicas (in-flight moves counted as finished), the floor and ceiling that
apply to it, and how many shards were counted."""

Counts = namedtuple("Counts",
                    "members live eligible streams shards overrides moving leaderless scorer share weight copies")
Counts.__doc__ = """Counts of a view (pl_view_counts); scorer is "xxh3" or "legacy"; copies
is how many replica copies in flight the snapshot lists (their shards count
as moving)."""

ShardState = namedtuple("ShardState", "leader replicas moving override epoch")
Imbalance = namedtuple("Imbalance", "total totals streams")
Imbalance.__doc__ = """How far a view is from balanced (pl_imbalance): 0 when every member is
within its bounds, else the count past them; total = totals + streams, the
parts in the members' totals and in the streams (the broker's measures)."""
ShardState.__doc__ = """A shard as the view has it now (pl_shard_state): the leader's id or
None, the replicas' ids, whether a move is in flight, the fleet override in
force as an Override, or None, and the shard's epoch: the snapshot's,
advanced by one by every replica or leader action applied to the view, as
its commit would."""

_SCORER_NAMES = {v: k for k, v in _ffi.SCORERS.items()}


def _aligned(size):
    """Zeroed memory of at least size bytes, aligned to 8 (PL_VIEW_ALIGN)."""
    return (ctypes.c_uint64 * max((size + 7) // 8, 1))()


class View:
    """A validated view of a Snapshot (pl_view_init()): hashes, canonical
    orders and tallies, built once, in an 8-byte aligned buffer of
    pl_view_size_opt() bytes that the View owns.

    Args:
        snapshot: the Snapshot; the View keeps a reference to it, so its
            arrays live as long as the View.
        scorer: "xxh3" (the default) or "legacy" (FNV-1a over "<key> <member>").
        reuse: an earlier View (typically the previous tick's), or None. What
            still holds is checked and reused (pl_view_options.reuse): the
            canonical orders when the ids are the same at the same places,
            the ring homes when it had them. The answers are those of a View
            built without it; it is read during the build only.
        max_replicas: the most replicas any shard may reach in this view,
            1..8, or 0 (the default) for 8 (pl_view_options.max_replicas);
            the snapshot's largest replica count raises it. Each shard's
            state has room for that many, so a smaller room is a smaller
            view; an action adding a replica past it fails with
            E_REPLICA_ROOM, and so does a broker or region plan whose
            replication factor passes it.

    Raises:
        PlacementError: E_SCORER for an unknown scorer (kind "config", id
            "scorer"), E_CONFIG for max_replicas past 8 (id "max_replicas"),
            or anything pl_snapshot_validate() refuses.

    Policies (broker_plan(), fleet_decide(), region_plan()) apply the actions
    they emit to the view they are given; copy() first to keep it. A view is
    used by one thread at a time (the C calls release the GIL); different
    views share nothing and may be used at once.
    """

    def __init__(self, snapshot, scorer="xxh3", reuse=None, max_replicas=0):
        if not isinstance(snapshot, Snapshot):
            raise TypeError("View needs a Snapshot, not %s" % type(snapshot).__name__)
        if reuse is not None and not isinstance(reuse, View):
            raise TypeError("reuse must be a View or None, not %s" % type(reuse).__name__)
        self.snapshot = snapshot
        opt = _ffi.PlViewOptions()
        _ffi.lib.pl_view_options_init(ctypes.byref(opt))
        if isinstance(scorer, str):
            opt.scorer = _ffi.SCORERS.get(scorer, 0)
        elif isinstance(scorer, int) and 0 <= scorer <= 0xFFFFFFFF:
            opt.scorer = scorer
        else:
            raise TypeError("scorer must be 'xxh3' or 'legacy'")
        if reuse is not None:
            opt.reuse = reuse._v
        if not isinstance(max_replicas, int) or isinstance(max_replicas, bool) or not 0 <= max_replicas <= 0xFFFFFFFF:
            raise TypeError("max_replicas must be an int from 0 to 8")
        opt.max_replicas = max_replicas
        size = _ffi.lib.pl_view_size_opt(ctypes.byref(snapshot._c), ctypes.byref(opt))
        self._size = size
        self._mem = _aligned(size)
        ptr = ctypes.c_void_p()
        diag = new_diag()
        rc = _ffi.lib.pl_view_init(ctypes.byref(ptr), self._mem, size, ctypes.byref(snapshot._c), ctypes.byref(opt),
                                   ctypes.byref(diag))
        snapshot.raise_for(rc, diag, _config_namer(_ffi.PlViewOptions, snapshot))
        self._v = ptr

    @classmethod
    def _empty_like(cls, other):
        v = cls.__new__(cls)
        v.snapshot = other.snapshot
        v._size = other._size
        v._mem = _aligned(other._size)
        v._v = None
        return v

    def copy(self):
        """A copy of the view with every action applied so far (pl_view_copy());
        the two then change independently."""
        c = View._empty_like(self)
        ptr = ctypes.c_void_p()
        check(_ffi.lib.pl_view_copy(ctypes.byref(ptr), c._mem, c._size, self._v))
        c._v = ptr
        return c

    def _restore(self, other):
        """Make this view hold what `other` (a copy of it) holds."""
        ptr = ctypes.c_void_p()
        check(_ffi.lib.pl_view_copy(ctypes.byref(ptr), self._mem, self._size, other._v))
        self._v = ptr

    # ---- ids -------------------------------------------------------------------------

    def find(self, kind, ident):
        """The index in the snapshot of the member, stream or shard (kind) with
        this id (pl_view_find()), or None when there is none. Raises
        PlacementError (E_INVAL) for a kind other than "member", "stream",
        "shard"."""
        b = encode_id(_ref(_ref(_ref(ident, Member, "id"), Stream, "id"), Shard, "key"))
        rc = _ffi.lib.pl_view_find(self._v, _KINDS.get(kind, 0), b, len(b))
        if rc == _ffi.lib_code("E_NOT_FOUND"):
            return None
        return check(rc)

    def _index(self, kind, ident):
        if isinstance(ident, int) and not isinstance(ident, bool):
            raise TypeError("%s must be given by id (str or bytes), not by index" % kind)
        i = self.find(kind, ident)
        if i is None:
            raise PlacementError(_ffi.lib_code("E_NOT_FOUND"), kind, None, ident)
        return i

    def at(self, kind, rank):
        """The id of the element at place `rank` of the canonical order (ids
        ascending as bytes) (pl_view_at()). Raises PlacementError:
        E_MEMBER_RANGE, E_STREAM_RANGE or E_SHARD_RANGE past the end."""
        if not isinstance(rank, int) or rank < 0:
            raise TypeError("rank must be an int >= 0")
        r = check(_ffi.lib.pl_view_at(self._v, _KINDS.get(kind, 0), min(rank, 0xFFFFFFFF)))
        return {"member": self.snapshot.member_ids, "stream": self.snapshot.stream_ids,
                "shard": self.snapshot.shard_keys}[kind][r]

    def order(self, kind):
        """Every id of a kind in the canonical order (ids ascending as bytes)."""
        n = {"member": len(self.snapshot.members), "stream": len(self.snapshot.streams),
             "shard": len(self.snapshot.shards)}[kind]
        return [self.at(kind, r) for r in range(n)]

    # ---- queries ---------------------------------------------------------------------

    def counts(self):
        """The view's Counts (pl_view_stats())."""
        c = _ffi.PlViewCounts()
        check(_ffi.lib.pl_view_stats(self._v, ctypes.byref(c)))
        return Counts(c.members, c.live, c.eligible, c.streams, c.shards, c.overrides, c.moving, c.leaderless,
                      _SCORER_NAMES.get(c.scorer, c.scorer), c.share, c.weight, c.copies)

    stats = counts

    def home(self, shard):
        """The id of a shard's ring home: the eligible member with the highest
        rendezvous score (pl_view_home()). Raises PlacementError:
        E_NOT_FOUND (no such shard), E_NO_ELIGIBLE."""
        return self.snapshot.member_ids[check(_ffi.lib.pl_view_home(self._v, self._index("shard", shard)))]

    def top(self, key, k):
        """The ids of the k best eligible members for any key, zones spread
        first; the first is the ring home (pl_view_top()). Raises
        PlacementError: E_INVAL (k past 8), E_LENGTH (a key past 1024 bytes)."""
        b = encode_id(_ref(key, Shard, "key"), "key")
        if not isinstance(k, int) or k < 0:
            raise TypeError("k must be an int >= 0")
        out = (ctypes.c_uint32 * _ffi.PL_MAX_REPLICAS)()
        n = check(_ffi.lib.pl_view_top(self._v, b, len(b), out, min(k, 0xFFFFFFFF)))
        return [self.snapshot.member_ids[out[i]] for i in range(n)]

    def member_tally(self, member):
        """A member's leaders and replicas in total, with the cluster floor and
        share (ceiling) that apply to it (pl_view_member_tally())."""
        t = _ffi.PlTally()
        check(_ffi.lib.pl_view_member_tally(self._v, self._index("member", member), ctypes.byref(t)))
        return Tally(t.leaders, t.replicas, t.floor, t.ceiling, t.shards)

    def stream_tally(self, stream, member):
        """A member's leaders and replicas in one stream, with that stream's
        floor and ceiling for it (pl_view_stream_tally())."""
        t = _ffi.PlTally()
        check(_ffi.lib.pl_view_stream_tally(self._v, self._index("stream", stream), self._index("member", member),
                                            ctypes.byref(t)))
        return Tally(t.leaders, t.replicas, t.floor, t.ceiling, t.shards)

    def imbalance(self, measure="broker"):
        """How far the view, as it is now, is from balanced under a policy's
        measure (pl_view_imbalance()): the sum over every member of the
        distance of its count to its floor and ceiling (every count on a
        member not held to them), in total and, for the broker, in each
        stream. The number placement(1) prints as the imbalance.

        measure: "broker" (leaders and replicas, the broker's default),
        "leaders" (the broker with replica_balance=0), "owned" (a fleet's
        shards owned) or "replicas" (the region policy's fair share).
        Returns an Imbalance(total, totals, streams). Raises ValueError for
        another measure.

        >>> import placement as pl
        >>> v = pl.View(pl.Snapshot([pl.Member("b0"), pl.Member("b1")],
        ...     [pl.Shard("s/%d" % k, stream="s", replicas=["b0"], leader="b0") for k in range(2)]))
        >>> v.imbalance()
        Imbalance(total=8, totals=4, streams=4)
        >>> v.imbalance("leaders").total
        4
        """
        if measure not in _ffi.IMBALANCE_MEASURES:
            raise ValueError("measure must be one of %s, not %r" % (", ".join(sorted(_ffi.IMBALANCE_MEASURES)), measure))
        out = _ffi.PlImbalance()
        check(_ffi.lib.pl_view_imbalance(self._v, _ffi.IMBALANCE_MEASURES[measure], ctypes.byref(out)))
        return Imbalance(out.total, out.totals, out.streams)

    def leaders(self, stream=None):
        """{member id: leaders} in total, or in one stream."""
        ids = self.snapshot.member_ids
        if stream is None:
            return {m: self.member_tally(m).leaders for m in ids}
        return {m: self.stream_tally(stream, m).leaders for m in ids}

    def shard_state(self, shard):
        """A shard as the view has it now: the snapshot plus the actions
        applied since (pl_view_shard_state())."""
        st = _ffi.PlShardState()
        k = self._index("shard", shard)
        check(_ffi.lib.pl_view_shard_state(self._v, k, ctypes.byref(st)))
        s = self.snapshot
        reps = tuple(s.member_ids[st.replicas[i]] for i in range(min(st.replica_count, _ffi.PL_MAX_REPLICAS)))
        ov = None
        if st.override_member != _ffi.PL_NONE:
            ov = Override(s.shard_keys[k], s.member_ids[st.override_member],
                          _ffi.ORIGINS.get(st.override_origin, "unknown"), st.override_since)
        return ShardState(s.member_id(st.leader), reps, bool(st.moving), ov, st.epoch)

    # ---- changes ---------------------------------------------------------------------

    def apply(self, action):
        """Apply an action to the view's shard states and tallies, as every
        policy does with the actions it emits (pl_view_apply()). An action
        from a view of another snapshot is applied by its ids. Raises
        PlacementError: E_ACTION when it does not fit the view."""
        if not isinstance(action, Action):
            raise TypeError("apply() takes an Action")
        raw = action._raw
        if action._snap is not self.snapshot:
            raw = _ffi.PlAction.from_buffer_copy(raw)
            raw.shard = self._index("shard", action.shard)
            raw.stream = _ffi.PL_NONE if action.stream is None else self._index("stream", action.stream)
            raw.from_ = _ffi.PL_NONE if action.from_member is None else self._index("member", action.from_member)
            raw.to = _ffi.PL_NONE if action.to_member is None else self._index("member", action.to_member)
        check(_ffi.lib.pl_view_apply(self._v, ctypes.byref(raw)))

    def settle(self):
        """Mark every in-flight move finished, as the next tick's snapshot would
        show it (pl_view_settle()). Returns how many moves were settled."""
        return check(_ffi.lib.pl_view_settle(self._v))

    def __repr__(self):
        c = self.counts()
        return "View(%d members, %d streams, %d shards, scorer=%r)" % (c.members, c.streams, c.shards, c.scorer)


def _config_namer(cls, snapshot):
    """A namer for errors of a call taking a config struct: config fields by
    their C name, the rest by the snapshot."""
    fields = [_ffi.C_FIELD_NAMES.get(n, n) for n, _ in cls._fields_]

    def namer(kind, index):
        if kind == "config":
            return fields[index] if index < len(fields) else None
        return snapshot.namer(kind, index) if snapshot is not None else None
    return namer


def as_view(target, scorer="xxh3"):
    """(view, fresh): the View given, or a new one of the Snapshot given."""
    if isinstance(target, View):
        return target, False
    if isinstance(target, Snapshot):
        return View(target, scorer=scorer), True
    raise TypeError("expected a View or a Snapshot, not %s" % type(target).__name__)


def _snapshot_view(self, scorer="xxh3"):
    """A new View of this snapshot (see View)."""
    return View(self, scorer=scorer)


# Snapshot.view() is offered here, by the module that knows views, so that
# _snapshot.py needs nothing of _view.py: the modules import one way.
Snapshot.view = _snapshot_view
