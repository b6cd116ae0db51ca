"""Cluster descriptions as the package holds them: Cluster, Event and
FormatError, the settings of placement(5), ids as placement(1) writes them,
and the library's check of a description. The readers and writers of the
text (_text.py) and of the tool's JSON (_jsonfile.py) build on it.
"""

from ._broker import broker_dry_run
from ._errors import PlacementError
from ._snapshot import Snapshot, Stream, encode_id, id_list
from ._view import View

_MAX_TICK = 1000000
_U32 = (1 << 32) - 1
_U64 = (1 << 64) - 1

# placement(5)'s settings, in the order the tool writes them: (name, type,
# largest value). Types: num, bool, policy, scorer, member, size (bytes,
# written with a K, M, G, T or P suffix: parse_size()).
SETTINGS = (
    ("policy", "policy", 0), ("scorer", "scorer", 0), ("now", "num", _U64), ("tick", "num", _U64),
    ("ticks", "num", _MAX_TICK), ("self", "member", 0), ("rf", "num", _U32), ("max-moves", "num", _U32),
    ("max-moves-in", "num", _U32), ("max-moves-out", "num", _U32), ("paused", "bool", 1),
    ("stream-balance", "bool", 1), ("replica-balance", "bool", 1), ("handoff-only", "bool", 1),
    ("cooldown", "num", _U64), ("moves-per-decision", "num", _U32), ("spread", "bool", 1),
    ("return-home-age", "num", _U64), ("count-balance", "bool", 1), ("add-peer-proposals", "bool", 1),
    ("load-balance", "bool", 1), ("load-threshold", "num", _U32), ("max-actions", "num", _U32),
    ("bytes-balance", "bool", 1), ("bytes-first", "bool", 1), ("full-ratio", "num", _U32),
    ("bytes-tolerance", "num", _U32), ("max-bytes-in-flight", "size", _U64), ("max-bytes-in", "size", _U64),
    ("max-bytes-out", "size", _U64), ("tolerance", "num", _U32), ("stream-tolerance", "num", _U32),
)
_SETTING = {n: (t, m) for n, t, m in SETTINGS}

# The settings of each policy, by the name of the C config field they set.
_CONFIG = {
    "broker": {"rf": "replication_factor", "max-moves": "max_moves", "max-moves-in": "max_moves_in",
               "max-moves-out": "max_moves_out", "paused": "paused", "stream-balance": "stream_balance",
               "replica-balance": "replica_balance", "handoff-only": "handoff_only",
               "bytes-balance": "bytes_balance", "bytes-first": "bytes_first", "full-ratio": "full_ratio",
               "bytes-tolerance": "bytes_tolerance", "max-bytes-in-flight": "max_bytes_in_flight",
               "max-bytes-in": "max_bytes_in", "max-bytes-out": "max_bytes_out", "tolerance": "tolerance",
               "stream-tolerance": "stream_tolerance"},
    "fleet": {"now": "now", "cooldown": "cooldown", "moves-per-decision": "moves_per_decision",
              "spread": "spread", "return-home-age": "return_home_age", "count-balance": "count_balance"},
    "region": {"rf": "replication_factor", "add-peer-proposals": "add_peer_proposals",
               "load-balance": "load_balance", "load-threshold": "load_threshold", "max-actions": "max_actions"},
}


_SUFFIXES = "KMGTP"


def parse_size(text):
    """A size as placement(5) writes it (SIZES): a decimal number of bytes
    with an optional K, M, G, T or P, powers of 1024 ("10G" is 10 * 2^30,
    "1536" is 1536 bytes). Returns the int; ValueError for anything else
    (a sign, a space, a fraction, a lower-case suffix, no digit). The
    caller checks its limit."""
    if isinstance(text, bytes):
        text = text.decode("latin-1")
    shift = 0
    if text and text[-1] in _SUFFIXES:
        shift = 10 * (_SUFFIXES.index(text[-1]) + 1)
        text = text[:-1]
    if not text or not text.isascii() or not text.isdigit():
        raise ValueError("not a size: write a decimal number of bytes, with K, M, G, T or P for powers of 1024 "
                         "(512M, 10G, 1536)")
    return int(text) << shift


def format_size(n):
    """A size as placement(5) writes it: with the largest suffix that is
    exact (10737418240 is "10G", 2048 is "2K"), else as plain bytes (1536
    is "1536"); 0 is "0"."""
    k = 0
    while k < len(_SUFFIXES) and n and n % 1024 == 0:
        n //= 1024
        k += 1
    return "%d%s" % (n, _SUFFIXES[k - 1] if k else "")


class FormatError(ValueError):
    """A cluster file placement(5) (or the tool's JSON) does not allow.

    Attributes:
        path: the file's name ("<string>" for text given as a string).
        line: the line it names (1 is the first), or None (JSON).
        reason: what is wrong, in the words placement(1) uses.
        error: the PlacementError behind it when the library refused the
            snapshot (a duplicate id, a leader not among the replicas,
            ...), else None.
    """

    def __init__(self, path, line, reason, error=None):
        self.path = path
        self.line = line
        self.reason = reason
        self.error = error
        super().__init__("%s:%s %s" % (path, "%d:" % line if line is not None else "", reason))


class Event:
    """An event `placement simulate` applies at the start of a tick (the
    `at` lines of placement(5)); the package keeps them to write back.

    Attributes:
        tick: 1 to 1000000.
        event: "join", "drain", "down", "lag" or "up".
        member: the member's id.
        joiner: for "join", the Member that joins (its joined_at None when
            the file gives none: the clock at that tick); else None.
        last_move: for "join", the joiner's last-move=, or None.
    """

    __slots__ = ("tick", "event", "member", "joiner", "last_move")

    def __init__(self, tick, event, member, joiner=None, last_move=None):
        self.tick = tick
        self.event = event
        self.member = member
        self.joiner = joiner
        self.last_move = last_move

    def _key(self):
        return (self.tick, self.event, self.member, self.joiner, self.last_move)

    def __eq__(self, other):
        return isinstance(other, Event) and self._key() == other._key()

    def __repr__(self):
        return "Event(%r, %r, %r%s)" % (self.tick, self.event, self.member,
                                        "" if self.joiner is None else ", joiner=%r" % (self.joiner,))


class Cluster:
    """One cluster description: what a placement(5) file holds.

    Attributes:
        members, streams, shards, overrides, copies: lists of Member, Stream,
            Shard, Override and Copy, in the file's order.
        settings: {name: value} of the file's `set` lines, by placement(5)'s
            names ("max-moves": 2, "policy": "broker", "spread": True).
        last_move: {member id: clock} of the members' last-move= (fleet).
        events: the `at` lines, a list of Event.

    Build a Snapshot with snapshot(), a policy's keywords with config(), the
    tool's dry run with plan().
    """

    def __init__(self, members=(), shards=(), streams=None, overrides=(), copies=(), settings=None,
                 last_move=None, events=()):
        self.members = list(id_list(members, "Cluster(members=...)", False))
        self.shards = list(id_list(shards, "Cluster(shards=...)", False))
        if streams is not None:
            streams = id_list(streams, "Cluster(streams=...)")
        if streams is None:
            seen, ids = [], set()
            for s in self.shards:
                sid = s.stream.id if isinstance(s.stream, Stream) else s.stream
                if sid is not None and sid not in ids:
                    ids.add(sid)
                    seen.append(s.stream)  # a Stream keeps its rules
            streams = seen
        self.streams = [s if isinstance(s, Stream) else Stream(s) for s in streams]
        self.overrides = list(id_list(overrides, "Cluster(overrides=...)", False))
        self.copies = list(id_list(copies, "Cluster(copies=...)", False))
        self.settings = dict(settings or {})
        self.last_move = dict(last_move or {})
        self.events = list(id_list(events, "Cluster(events=...)", False))

    def _key(self):
        return (self.members, self.streams, self.shards, self.overrides, self.copies, self.settings,
                self.last_move, self.events)

    def __eq__(self, other):
        return isinstance(other, Cluster) and self._key() == other._key()

    def __repr__(self):
        return "Cluster(%d members, %d streams, %d shards, %d overrides, %d copies, settings=%r)" % (
            len(self.members), len(self.streams), len(self.shards), len(self.overrides), len(self.copies),
            self.settings)

    @property
    def policy(self):
        """The file's `set policy`, else "broker" (placement(1)'s default)."""
        return self.settings.get("policy", "broker")

    @property
    def scorer(self):
        """The file's `set scorer`, else "xxh3"."""
        return self.settings.get("scorer", "xxh3")

    def snapshot(self):
        """A Snapshot of the members, streams, shards, overrides and copies."""
        return Snapshot(self.members, self.shards, streams=self.streams, overrides=self.overrides,
                        copies=self.copies)

    def view(self):
        """A View of snapshot() with the file's scorer."""
        return View(self.snapshot(), scorer=self.scorer)

    def config(self, policy=None):
        """{keyword: value} of the file's settings for a policy's call
        (broker_plan(), fleet_decide(), region_plan()): placement(5)'s names
        as the C fields' (rf is replication_factor, max-moves max_moves,
        ...); a setting left out keeps the library's default. policy: None
        for the file's."""
        policy = policy or self.policy
        if policy not in _CONFIG:
            raise ValueError("policy must be broker, fleet or region, not %r" % (policy,))
        return {field: int(self.settings[name]) for name, field in _CONFIG[policy].items() if name in self.settings}

    def plan(self, **config):
        """The broker dry run placement(1)'s `plan` prints for this file:
        broker_dry_run() of snapshot() with the file's scorer and settings
        (keywords override them). Only the broker policy has a dry run in
        the library: a file whose `set policy` is fleet or region is a
        ValueError; call fleet_decide() or region_plan() with config()."""
        if self.policy != "broker":
            raise ValueError("plan() runs the broker dry run, and the file's policy is %s: call %s with "
                             "config()" % (self.policy, "fleet_decide()" if self.policy == "fleet"
                                           else "region_plan()"))
        kw = self.config("broker")
        kw.update(config)
        return broker_dry_run(self.view(), **kw)


# ---- ids ------------------------------------------------------------------------

def _id_out(b):
    """Bytes of an id as the package gives ids: str when UTF-8, else bytes."""
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b


_SAFE = frozenset(range(0x21, 0x7F)) - frozenset(b"%#,=")


def _escape(ident):
    """An id as placement(1) writes it: every byte outside '!'..'~', and
    '%', '#', ',' and '=', as %XX."""
    b = encode_id(ident, "id")
    return "".join(chr(c) if c in _SAFE else "%%%02X" % c for c in b)


def _ref_id(x, cls, attr):
    return getattr(x, attr) if isinstance(x, cls) else x


def _validate(cluster, path, lines=None):
    """The library's own check of the snapshot (pl_snapshot_validate()); an
    error names the line of the element it names."""
    try:
        cluster.snapshot()
    except PlacementError as e:
        line = None
        if lines is not None and e.kind in lines and e.index is not None and e.index < len(lines[e.kind]):
            line = lines[e.kind][e.index]
        raise FormatError(path, line, str(e), e) from None
