"""Members, streams, shards, overrides and copies described by id, and the
Snapshot that turns them into the C library's pl_snapshot.

The Snapshot does the index mapping (ids to indices into its own arrays),
owns every byte buffer and ctypes array the C structs point into, and keeps
them alive for as long as it lives; every View built on it holds a reference
to it. A reference to an id the snapshot does not hold is given to the C
library as an index past the end of its array, so the library's own
validation names the element (E_MEMBER_RANGE, E_STREAM_RANGE,
E_OVERRIDE_SHARD, ...), and the error says which id was unknown.
"""

import ctypes
import itertools
import struct

from . import _ffi
from ._errors import PlacementError, check

_ORIGIN_CODES = {v: k for k, v in _ffi.ORIGINS.items()}
_U32 = (1 << 32) - 1
_U64 = (1 << 64) - 1


def id_list(value, where, ids=True):
    """A sequence of ids (ids=True) or of elements as a tuple, refusing a str
    or bytes: those would be iterated as characters ("b0,b1" as 'b', '0',
    ',', ...). where names the argument in the TypeError."""
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        hint = ""
        if ids and isinstance(value, (str, bytes)):
            hint = ": write [%s]" % ", ".join(repr(x) for x in value.split("," if isinstance(value, str) else b","))
        raise TypeError("%s must be a list, not %s %r%s" % (where, type(value).__name__, value, hint))
    try:
        return tuple(value)
    except TypeError:
        raise TypeError("%s must be a list, not %s" % (where, type(value).__name__)) from None


def encode_id(value, what="id"):
    """An id as bytes: str is encoded as UTF-8, bytes-like is taken as is."""
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError("%s must be str or bytes, not %s" % (what, type(value).__name__))


class Member:
    """A member: a process that can own shards (broker, instance, node).

    Args:
        id: unique, non-empty (str, encoded as UTF-8, or bytes).
        zone: failure domain (str or bytes); None or empty is a zone of its own.
            A path ("rack/host", "region/rack/host") names levels of domains,
            the top first: the broker policy spreads a shard over the top
            level first, then the next.
        weight: relative capacity, 1..65536 (0 reads as 1).
        max_shards: most replicas it may hold; 0 is no cap.
        down: not live: owns, leads and receives nothing.
        draining: live, but takes nothing new; the broker policy hands off all
            it has, the region policy leaves its peers where they are.
        lagging: live, but behind: never the destination of a fleet or region
            move (the broker policy does not read it).
        load: the caller's measure of its load; None is unmeasured (never
            wins a load comparison on missing data), not zero.
        joined_at: the caller's clock when it joined; greater is newer.
        map_version: the version of the shard map it has installed.
        capacity: the bytes it can hold (1..PL_MAX_BYTES, 2^62); None (the
            default) is unknown, not zero. A capacity of 0 is refused
            (E_CAPACITY naming the member): a member that can hold nothing
            is down. The broker's full ratio and bytes band read it
            (placement/snapshot.h, version 3).
    """

    __slots__ = ("id", "zone", "weight", "max_shards", "down", "draining", "lagging", "load", "joined_at",
                 "map_version", "capacity")

    def __init__(self, id, zone=None, weight=1, max_shards=0, down=False, draining=False, lagging=False,
                 load=None, joined_at=0, map_version=0, capacity=None):
        self.id = id
        self.zone = zone
        self.weight = weight
        self.max_shards = max_shards
        self.down = down
        self.draining = draining
        self.lagging = lagging
        self.load = load
        self.joined_at = joined_at
        self.map_version = map_version
        self.capacity = capacity

    def _key(self):
        return tuple(getattr(self, f) for f in self.__slots__)

    def __eq__(self, other):
        return isinstance(other, Member) and self._key() == other._key()

    def __repr__(self):
        extra = "".join(", %s=%r" % (f, getattr(self, f)) for f, d in zip(self.__slots__[1:], _MEMBER_DEFAULTS)
                        if getattr(self, f) != d)
        return "Member(%r%s)" % (self.id, extra)


_MEMBER_DEFAULTS = (None, 1, 0, False, False, False, None, 0, 0, None)


class Stream:
    """A stream: a set of shards whose spread matters together.

    Args:
        id: unique, non-empty (str or bytes).
        tolerance: shards by which a member's count of this stream (leaders,
            replicas) may stray past its floor and ceiling before the broker
            moves anything, 0..PL_MAX_TOLERANCE (2^26); None (the default)
            takes the config's stream_tolerance (broker_plan(...,
            stream_tolerance=N)). Past the limit the snapshot is refused
            (E_TOLERANCE naming the stream).
        zones: how its shards' replicas spread over zones, for the broker
            policy: "span" (the default: as many zones as it can) or
            "majority" (that, and at most (replicas - 1) // 2 of a shard's
            replicas in one zone, so losing a zone leaves a majority).
            Another word is refused (E_ZONE_RULE naming the stream).
        keep: excluded from balancing, for the broker policy
            (PL_STREAM_KEEP, Cruise Control's excluded topics): no balance
            move (leaders, replicas or bytes, of the stream or of the
            totals) takes one of its shards. They still count in every
            member's totals, and failover, drains, zone repair and new
            shards' placement still move them. False by default; read as
            a boolean.

    The other policies read none of them (placement/snapshot.h, version 5).

    A kept stream whose leaders all sit on one member stays there; the
    broker balances the other streams around it::

        snap = Snapshot([Member("b0"), Member("b1"), Member("b2")],
                        [Shard("k%d" % i, stream="kept", replicas=["b0"], leader="b0") for i in range(6)],
                        streams=[Stream("kept", keep=True)])
        assert broker_dry_run(snap, replication_factor=1).actions == []
    """

    __slots__ = ("id", "tolerance", "zones", "keep")

    def __init__(self, id, tolerance=None, zones="span", keep=False):
        self.id = id
        self.tolerance = tolerance
        self.zones = zones
        self.keep = keep

    def _key(self):
        return (self.id, self.tolerance, self.zones, bool(self.keep))

    def __eq__(self, other):
        return isinstance(other, Stream) and self._key() == other._key()

    def __hash__(self):
        return hash(self.id)

    def __repr__(self):
        extra = "".join(", %s=%r" % (f, getattr(self, f))
                        for f, d in (("tolerance", None), ("zones", "span"), ("keep", False))
                        if getattr(self, f) != d)
        return "Stream(%r%s)" % (self.id, extra)


class Shard:
    """A shard: the unit that is placed (a region, for the region policy).

    Args:
        key: unique, non-empty (str or bytes).
        stream: the id of its stream (or a Stream), or None.
        replicas: ids of the members holding a copy (at most 8), each once.
        leader: id of its leader (a region's primary), one of the replicas, or None.
        moving_to: id of the member a leader move in flight goes to, or None;
            needs a leader. The view counts it finished: moving_to leads,
            and takes the old leader's replica when it held none; the
            shard is in flight (no policy moves it again, and it counts
            against the broker's max_moves) until a snapshot without it.
            A move that copies data is better described as a Copy.
        epoch: the shard map's epoch for this shard (regions).
        load: the caller's measure of its load (fleet lag moves).
        not_idempotent: its destination is not idempotent (a rollup): never placed.
        transfer_debt: it carries transfer debt: no peer is added or moved.
        out_of_sync: ids of replicas that are not in sync (Kafka's ISR,
            Redpanda's healthy replicas): they hold data, but no leadership
            goes to them (PL_SHARD_OUT_OF_SYNC). Never the leader.
        size: its data on one replica, in bytes; None (the default) is
            unknown, not zero (0 is a shard that holds nothing). The known
            sizes of all shards together may be at most PL_MAX_BYTES /
            PL_MAX_REPLICAS (2^59); past it the snapshot is refused
            (E_BYTES naming the shard where the sum passes it). A copy of
            the shard reports it as Action.bytes.

    A shard with no replicas and no leader is new.
    """

    __slots__ = ("key", "stream", "replicas", "leader", "moving_to", "epoch", "load", "not_idempotent",
                 "transfer_debt", "out_of_sync", "size")

    def __init__(self, key, stream=None, replicas=(), leader=None, moving_to=None, epoch=0, load=0,
                 not_idempotent=False, transfer_debt=False, out_of_sync=(), size=None):
        self.key = key
        self.stream = stream
        self.replicas = id_list(replicas, "Shard(replicas=...)")
        self.leader = leader
        self.moving_to = moving_to
        self.epoch = epoch
        self.load = load
        self.not_idempotent = not_idempotent
        self.transfer_debt = transfer_debt
        self.out_of_sync = id_list(out_of_sync, "Shard(out_of_sync=...)")
        self.size = size

    def _key(self):
        return tuple(getattr(self, f) for f in self.__slots__)

    def __eq__(self, other):
        return isinstance(other, Shard) and self._key() == other._key()

    def __repr__(self):
        extra = "".join(", %s=%r" % (f, getattr(self, f)) for f, d in zip(self.__slots__[1:], _SHARD_DEFAULTS)
                        if getattr(self, f) != d)
        return "Shard(%r%s)" % (self.key, extra)


_SHARD_DEFAULTS = (None, (), None, None, 0, 0, False, False, (), None)


class Override:
    """A fleet's record that a shard lives on a member off its ring home.

    Args:
        shard: the shard's key.
        member: the id of the member that owns it.
        origin: "lag" (the default) or "count": the pass that wrote it.
        since: the caller's clock when it was written.
    """

    __slots__ = ("shard", "member", "origin", "since")

    def __init__(self, shard, member, origin="lag", since=0):
        self.shard = shard
        self.member = member
        self.origin = origin
        self.since = since

    def __eq__(self, other):
        return isinstance(other, Override) and (self.shard, self.member, self.origin, self.since) == (
            other.shard, other.member, other.origin, other.since)

    def __repr__(self):
        return "Override(%r, %r, origin=%r, since=%r)" % (self.shard, self.member, self.origin, self.since)


class Copy:
    """A replica copy in flight (pl_copy): staged on `to`, not yet committed.

    How a caller describes a replica move it has started: the shard's
    replicas (and leader) stay as they are until the commit, and a Copy
    names the member staging the copy and the replica it replaces. The view
    counts it finished (`to` holds a replica; `from_member`, when set, no
    longer does, and when from_member led, `to` leads) and the shard in
    flight: no policy acts on it while it is listed, and it counts against
    the broker's move limits. At most one copy per shard. Once committed,
    describe the shard as it is now and drop the Copy.

    Args:
        shard: the shard's key.
        to: the id of the member the copy is staged on (not already a replica).
        from_member: the id of the replica it replaces on commit, or None
            (a peer added).
    """

    __slots__ = ("shard", "to", "from_member")

    def __init__(self, shard, to, from_member=None):
        self.shard = shard
        self.to = to
        self.from_member = from_member

    def __eq__(self, other):
        return isinstance(other, Copy) and (self.shard, self.to, self.from_member) == (
            other.shard, other.to, other.from_member)

    def __repr__(self):
        return "Copy(%r, %r, from_member=%r)" % (self.shard, self.to, self.from_member)


def _ref(x, cls, attr):
    return getattr(x, attr) if isinstance(x, cls) else x


_SNAPSHOT_ARRAYS = ("members", "streams", "shards", "overrides", "copies")


class Snapshot:
    """Everything one tick knows, by id; validated when it is built.

    Args:
        members: Member objects.
        shards: Shard objects.
        streams: Stream objects or stream ids; None (the default) takes the
            streams the shards name, in the order they are first named
            (a Shard's stream given as a Stream carries its rules).
        overrides: Override objects (a fleet's override document).
        copies: Copy objects (replica copies in flight).

    Raises:
        PlacementError: the first element pl_snapshot_validate() refuses,
            with its kind, index and id (e.g. E_DUP_MEMBER naming the second
            member with an id, E_MEMBER_RANGE naming a shard that lists an
            unknown member). A number that does not fit its C field (a
            negative weight, a load past 2^64) is E_INVAL naming the element.
        TypeError: an id that is not str or bytes, a number that is not an int.

    The Snapshot keeps the C arrays and the id bytes alive as long as it or
    any View built on it lives. Changing the Member or Shard objects after
    building it changes nothing in it: build a new Snapshot for a new tick.
    """

    def __init__(self, members, shards, streams=None, overrides=(), copies=()):
        members = list(id_list(members, "Snapshot(members=...)", False))
        shards = list(id_list(shards, "Snapshot(shards=...)", False))
        overrides = list(id_list(overrides, "Snapshot(overrides=...)", False))
        copies = list(id_list(copies, "Snapshot(copies=...)", False))
        if streams is not None:
            streams = id_list(streams, "Snapshot(streams=...)")
        for what, seq, cls in (("members", members, Member), ("shards", shards, Shard),
                               ("overrides", overrides, Override), ("copies", copies, Copy)):
            for i, x in enumerate(seq):
                if not isinstance(x, cls):
                    raise TypeError("Snapshot(%s=...)[%d] must be a %s, not %s %r" % (
                        what, i, cls.__name__, type(x).__name__, x))
        for s in shards:
            if type(s.replicas) is not tuple:
                s.replicas = id_list(s.replicas, "Shard(replicas=...) of %r" % (s.key,))
            if type(s.out_of_sync) is not tuple:
                s.out_of_sync = id_list(s.out_of_sync, "Shard(out_of_sync=...) of %r" % (s.key,))
        self.members = tuple(members)
        self.shards = tuple(shards)
        self.overrides = tuple(overrides)
        self.copies = tuple(copies)
        self._unknown = {}

        # ids, first: every byte string goes into one buffer
        m_ids = [encode_id(m.id, "member id") for m in members]
        m_zone = [b"" if m.zone is None else encode_id(m.zone, "zone") for m in members]
        if streams is None:
            seen = {}
            for s in shards:
                sid = _ref(s.stream, Stream, "id")
                if sid is not None:
                    seen.setdefault(encode_id(sid, "stream id"), s.stream)
            streams = list(seen.values())
        s_objs = [s if isinstance(s, Stream) else Stream(s) for s in streams]
        s_given = [s.id for s in s_objs]
        s_ids = [encode_id(s, "stream id") for s in s_given]
        k_ids = [encode_id(s.key, "shard key") for s in shards]
        self.member_ids = tuple(m.id for m in members)
        self.stream_ids = tuple(s_given)
        self.shard_keys = tuple(s.key for s in shards)
        self.streams = tuple(s_objs)

        member_at = {}
        for i, b in enumerate(m_ids):
            member_at.setdefault(b, i)
        stream_at = {}
        for i, b in enumerate(s_ids):
            stream_at.setdefault(b, i)
        shard_at = {}
        for i, b in enumerate(k_ids):
            shard_at.setdefault(b, i)
        self._member_at, self._stream_at, self._shard_at = member_at, stream_at, shard_at

        chunks = m_ids + m_zone + s_ids + k_ids
        offs = [0] + list(itertools.accumulate(len(b) for b in chunks))
        a, z, b_ = len(m_ids), 2 * len(m_ids), 2 * len(m_ids) + len(s_ids)
        off_mid, off_zone, off_sid, off_key = offs[:a], offs[a:z], offs[z:b_], offs[b_:len(chunks)]
        blob = b"".join(chunks)
        self._blob = ctypes.create_string_buffer(blob, max(len(blob), 1))
        base = ctypes.addressof(self._blob)

        def rng(off, b):
            return (base + off if b else 0), len(b)

        nm, ns, nk = len(members), len(s_ids), len(shards)

        # ids as given (str or bytes) and as bytes, to their index: most
        # references are the very objects the members were given with
        fast = {}
        for i, m in enumerate(members):
            if type(m.id) in (str, bytes):
                fast.setdefault(m.id, i)
        for b, i in member_at.items():
            fast.setdefault(b, i)
        sfast = {}
        for i, sid in enumerate(s_given):
            if type(sid) in (str, bytes):
                sfast.setdefault(sid, i)
        for b, i in stream_at.items():
            sfast.setdefault(b, i)
        none = _ffi.PL_NONE

        def member_ref(x, kind, index, what):
            if x is None:
                return none
            if type(x) in (str, bytes):
                i = fast.get(x)
                if i is not None:
                    return i
            b = encode_id(_ref(x, Member, "id"), what)
            i = member_at.get(b)
            if i is None:
                self._unknown.setdefault((kind, index), "names unknown member %r" % (_ref(x, Member, "id"),))
                return nm
            return i

        # members
        pk = _ffi.packer(_ffi.PlMember)
        buf = bytearray(pk.size * nm)
        f_down, f_drain, f_lag, f_unm = (_ffi.PL_MEMBER_DOWN, _ffi.PL_MEMBER_DRAINING, _ffi.PL_MEMBER_LAGGING,
                                         _ffi.PL_MEMBER_UNMEASURED)
        pack_into, size = pk.pack_into, pk.size
        for i, m in enumerate(members):
            load = m.load
            flags = ((f_down if m.down else 0) | (f_drain if m.draining else 0) | (f_lag if m.lagging else 0) |
                     (f_unm if load is None else 0))
            b, z = m_ids[i], m_zone[i]
            vals = (base + off_mid[i] if b else 0, len(b), base + off_zone[i] if z else 0, len(z), m.joined_at,
                    0 if load is None else load, m.map_version, m.weight, m.max_shards, flags)
            try:
                pack_into(buf, i * size, *vals)
            except struct.error:
                self._pack(pk, buf, i, vals, "member", m.id,
                           ("joined_at", "load", "map_version", "weight", "max_shards"), m)
        self._members = (_ffi.PlMember * max(nm, 1)).from_buffer(buf) if nm else None
        self._mbuf = buf

        # streams
        pk = _ffi.packer(_ffi.PlStream)
        buf = bytearray(pk.size * ns)
        for i in range(ns):
            pk.pack_into(buf, i * pk.size, *rng(off_sid[i], s_ids[i]))
        self._streams = (_ffi.PlStream * ns).from_buffer(buf) if ns else None
        self._sbuf = buf

        # shards
        pk = _ffi.packer(_ffi.PlShard)
        buf = bytearray(pk.size * nk)
        nrep = _ffi.PL_MAX_REPLICAS
        pad = (0,) * nrep
        f_ni, f_td = _ffi.PL_SHARD_NOT_IDEMPOTENT, _ffi.PL_SHARD_TRANSFER_DEBT
        pack_into, size = pk.pack_into, pk.size
        for i, s in enumerate(shards):
            sid = s.stream
            st = sfast.get(sid, -1) if type(sid) in (str, bytes) else -1
            if sid is None:
                st = none
            elif st < 0:
                sid = _ref(sid, Stream, "id")
                st = stream_at.get(encode_id(sid, "stream id"))
                if st is None:
                    self._unknown.setdefault(("shard", i), "names unknown stream %r" % (sid,))
                    st = ns
            try:
                reps = tuple([fast[r] for r in s.replicas])
            except (KeyError, TypeError):
                reps = tuple([member_ref(r, "shard", i, "replica") for r in s.replicas])
            rc = len(reps)
            if rc != nrep:
                reps = (reps + pad)[:nrep]
            flags = (f_ni if s.not_idempotent else 0) | (f_td if s.transfer_debt else 0)
            if s.out_of_sync:
                for o in s.out_of_sync:
                    j = [r for r in s.replicas].index(o) if o in s.replicas else -1
                    if j < 0:
                        self._unknown.setdefault(("shard", i), "names %r out of sync, not among its replicas" % (o,))
                    else:
                        flags |= _ffi.PL_SHARD_OUT_OF_SYNC_0 << j
            b = k_ids[i]
            vals = (base + off_key[i] if b else 0, len(b), s.epoch, s.load, st,
                    member_ref(s.leader, "shard", i, "leader"), member_ref(s.moving_to, "shard", i, "moving_to"),
                    flags, rc) + reps
            try:
                pack_into(buf, i * size, *vals)
            except struct.error:
                self._pack(pk, buf, i, vals, "shard", s.key, ("epoch", "load"), s)
        self._shards = (_ffi.PlShard * nk).from_buffer(buf) if nk else None
        self._kbuf = buf

        # overrides
        pk = _ffi.packer(_ffi.PlOverride)
        buf = bytearray(pk.size * len(overrides))
        for i, o in enumerate(overrides):
            kb = encode_id(_ref(o.shard, Shard, "key"), "override shard")
            k = shard_at.get(kb)
            if k is None:
                self._unknown.setdefault(("override", i), "names unknown shard %r" % (o.shard,))
                k = nk
            origin = _ORIGIN_CODES.get(o.origin, _ffi.PL_NONE) if isinstance(o.origin, str) else o.origin
            vals = (o.since, k, member_ref(o.member, "override", i, "override member"), origin)
            self._pack(pk, buf, i, vals, "override", o.shard, ("since", "origin"), o)
        self._overrides = (_ffi.PlOverride * len(overrides)).from_buffer(buf) if overrides else None
        self._obuf = buf

        # copies
        pk = _ffi.packer(_ffi.PlCopy)
        buf = bytearray(pk.size * len(copies))
        for i, c in enumerate(copies):
            k = shard_at.get(encode_id(_ref(c.shard, Shard, "key"), "copy shard"))
            if k is None:
                self._unknown.setdefault(("copy", i), "names unknown shard %r" % (c.shard,))
                k = nk
            pk.pack_into(buf, i * pk.size, k, member_ref(c.to, "copy", i, "copy to"),
                         member_ref(c.from_member, "copy", i, "copy from"), 0)
        self._copies = (_ffi.PlCopy * len(copies)).from_buffer(buf) if copies else None
        self._cbuf = buf

        c = _ffi.PlSnapshot()
        c.version = _ffi.PL_SNAPSHOT_VERSION
        c.members = ctypes.addressof(self._members) if nm else None
        c.streams = ctypes.addressof(self._streams) if ns else None
        c.shards = ctypes.addressof(self._shards) if nk else None
        c.overrides = ctypes.addressof(self._overrides) if overrides else None
        c.copies = ctypes.addressof(self._copies) if copies else None
        c.n_members, c.n_streams, c.n_shards = nm, ns, nk
        c.n_overrides, c.n_copies = len(overrides), len(copies)
        # sizes and capacities (version 3): arrays only when one is known
        self._sizes = _bytes_array(shards, "size", "shard", lambda s: s.key)
        self._caps = _bytes_array(members, "capacity", "member", lambda m: m.id)
        c.shard_bytes = ctypes.addressof(self._sizes) if self._sizes is not None else None
        c.member_capacity = ctypes.addressof(self._caps) if self._caps is not None else None
        # each stream's rules (version 5): arrays only when one is not the default
        self._tolerance, self._zone_rule, self._flags = self._stream_rules(s_objs)
        c.stream_tolerance = ctypes.addressof(self._tolerance) if self._tolerance is not None else None
        c.stream_zone_rule = ctypes.addressof(self._zone_rule) if self._zone_rule is not None else None
        c.stream_flags = ctypes.addressof(self._flags) if self._flags is not None else None
        self._c = c

        size = _ffi.lib.pl_snapshot_work_size(ctypes.byref(c))
        work = (ctypes.c_uint64 * max((size + 7) // 8, 1))()
        diag = new_diag()
        rc = _ffi.lib.pl_snapshot_validate(ctypes.byref(c), work, size, ctypes.byref(diag))
        self.raise_for(rc, diag)

    def _stream_rules(self, streams):
        """The uint32_t arrays of the streams' tolerances, zone rules and
        flags (PL_STREAM_KEEP from keep), each None when every stream has
        the default. A tolerance no uint32_t holds is E_INVAL naming the
        stream; one past PL_MAX_TOLERANCE, and a zone word that is not a
        rule, are left to the library (E_TOLERANCE, E_ZONE_RULE)."""
        tol = zones = flags = None
        if any(s.tolerance is not None for s in streams):
            tol = (ctypes.c_uint32 * len(streams))()
            for i, s in enumerate(streams):
                v = s.tolerance
                if v is None:
                    v = _ffi.PL_TOLERANCE_DEFAULT
                elif not isinstance(v, int):
                    raise TypeError("stream %r: tolerance must be an int or None, not %s" % (
                        s.id, type(v).__name__))
                elif not 0 <= v <= _U32:
                    raise PlacementError(_ffi.lib_code("E_INVAL"), "stream", i, s.id,
                                         detail="tolerance=%d does not fit its C field (0..%d)" % (v, _U32))
                tol[i] = v
        if any(s.zones != "span" for s in streams):
            zones = (ctypes.c_uint32 * len(streams))()
            for i, s in enumerate(streams):
                v = _ffi.ZONE_RULES.get(s.zones) if isinstance(s.zones, str) else None
                if v is None:
                    self._unknown.setdefault(("stream", i), "zones=%r is not one of: %s" % (
                        s.zones, ", ".join(_ffi.ZONE_RULES)))
                    v = _ffi.PL_NONE
                zones[i] = v
        if any(s.keep for s in streams):
            flags = (ctypes.c_uint32 * len(streams))()
            for i, s in enumerate(streams):
                flags[i] = _ffi.PL_STREAM_KEEP if s.keep else 0
        return tol, zones, flags

    def _pack(self, pk, buf, i, vals, kind, ident, numeric, obj):
        try:
            pk.pack_into(buf, i * pk.size, *vals)
        except struct.error:
            for f in numeric:
                v = getattr(obj, f)
                if v is None and f == "load":
                    continue
                if isinstance(v, str) and f == "origin":
                    continue
                if not isinstance(v, int):
                    raise TypeError("%s %r: %s must be an int, not %s" % (kind, ident, f, type(v).__name__))
                limit = _U32 if f in ("weight", "max_shards", "origin") else _U64
                if not 0 <= v <= limit:
                    raise PlacementError(_ffi.lib_code("E_INVAL"), kind, i, ident,
                                         detail="%s=%d does not fit its C field (0..%d)" % (f, v, limit))
            raise

    # ---- ids and indices -------------------------------------------------------

    def namer(self, kind, index):
        """The id of the element a pl_diag names (see PlacementError.id)."""
        try:
            if kind == "member":
                return self.member_ids[index]
            if kind == "stream":
                return self.stream_ids[index]
            if kind == "shard":
                return self.shard_keys[index]
            if kind == "override":
                return _ref(self.overrides[index].shard, Shard, "key")
            if kind == "copy":
                return _ref(self.copies[index].shard, Shard, "key")
            if kind == "snapshot":
                return _SNAPSHOT_ARRAYS[index]
        except IndexError:
            return None
        return None

    def raise_for(self, rc, diag, namer=None):
        """Raise the PlacementError for a failed call on this snapshot."""
        if rc >= 0:
            return rc
        try:
            check(rc, diag, namer or self.namer)
        except PlacementError as e:
            key = (e.kind, e.index)
            if key in self._unknown and e.detail is None:
                e = PlacementError(e.code, e.kind, e.index, e.id, e.other, self._unknown[key])
            raise e from None

    def member_index(self, ident):
        """The index of the member with this id, or None."""
        return self._member_at.get(encode_id(_ref(ident, Member, "id"), "member id"))

    def stream_index(self, ident):
        """The index of the stream with this id, or None."""
        return self._stream_at.get(encode_id(_ref(ident, Stream, "id"), "stream id"))

    def shard_index(self, key):
        """The index of the shard with this key, or None."""
        return self._shard_at.get(encode_id(_ref(key, Shard, "key"), "shard key"))

    def member_id(self, index):
        """The id of member `index` as given, None for PL_NONE."""
        return None if index == _ffi.PL_NONE else self.member_ids[index]

    def stream_id(self, index):
        """The id of stream `index` as given, None for PL_NONE."""
        return None if index == _ffi.PL_NONE else self.stream_ids[index]

    def shard_key(self, index):
        """The key of shard `index` as given, None for PL_NONE."""
        return None if index == _ffi.PL_NONE else self.shard_keys[index]

    def __repr__(self):
        return "Snapshot(%d members, %d streams, %d shards, %d overrides, %d copies)" % (
            len(self.members), len(self.streams), len(self.shards), len(self.overrides), len(self.copies))


def _bytes_array(items, attr, kind, ident):
    """A uint64_t array of each item's size or capacity (None is
    PL_BYTES_UNKNOWN), or None when none is known: the snapshot then gives
    the library no array (all unknown)."""
    vals = [getattr(x, attr) for x in items]
    if all(v is None for v in vals):
        return None
    arr = (ctypes.c_uint64 * len(vals))()
    for i, v in enumerate(vals):
        if v is None:
            v = _ffi.PL_BYTES_UNKNOWN
        elif not isinstance(v, int):
            raise TypeError("%s %r: %s must be an int or None, not %s" % (kind, ident(items[i]), attr,
                                                                           type(v).__name__))
        elif not 0 <= v <= _U64:
            raise PlacementError(_ffi.lib_code("E_INVAL"), kind, i, ident(items[i]),
                                 detail="%s=%d does not fit its C field (0..%d)" % (attr, v, _U64))
        arr[i] = v
    return arr


def new_diag():
    d = _ffi.PlDiag()
    d.code = 0
    d.kind = 0
    d.index = _ffi.PL_NONE
    d.other = _ffi.PL_NONE
    return d
