"""Cluster descriptions as placement(1) reads and writes them: the text
format of placement(5) and the tool's JSON (`placement --json format`,
`placement --json import kafka`), loaded into the package's own types and
written back.

A what-if script starts from a file the tool wrote:

    cluster = placement.load("cluster.txt")     # or the tool's JSON
    cluster.members[0].draining = True
    plan = cluster.plan()                       # the file's policy and settings
    placement.dump(cluster, "after.txt")
"""

import json as _json
import os

from . import _ffi
from ._actions import Action
from ._broker import broker_dry_run, broker_plan
from ._errors import PlacementError
from ._fleet import fleet_decide
from ._region import region_plan
from ._snapshot import Copy, Member, Override, Shard, Snapshot, Stream, encode_id, id_list
from ._view import View

_MAX_LINE = 65536
_MAX_TICK = 1000000
_U32 = (1 << 32) - 1
_U64 = (1 << 64) - 1
_KEYWORDS = ("member", "stream", "shard", "override", "copy", "set", "at")
_EVENTS = ("join", "drain", "down", "lag", "up")

# placement(5)'s settings, in the order the tool writes them: (name, type,
# largest value). Types: num, bool, policy, scorer, member.
SETTINGS = (
    ("policy", "policy", 0), ("scorer", "scorer", 0), ("now", "num", _U64), ("tick", "num", _U64),
    ("ticks", "num", _MAX_TICK), ("self", "member", 0), ("rf", "num", _U32), ("max-moves", "num", _U32),
    ("max-moves-in", "num", _U32), ("max-moves-out", "num", _U32), ("paused", "bool", 1),
    ("stream-balance", "bool", 1), ("replica-balance", "bool", 1), ("handoff-only", "bool", 1),
    ("cooldown", "num", _U64), ("moves-per-decision", "num", _U32), ("spread", "bool", 1),
    ("return-home-age", "num", _U64), ("count-balance", "bool", 1), ("add-peer-proposals", "bool", 1),
    ("load-balance", "bool", 1), ("load-threshold", "num", _U32), ("max-actions", "num", _U32),
)
_SETTING = {n: (t, m) for n, t, m in SETTINGS}

# The settings of each policy, by the name of the C config field they set.
_CONFIG = {
    "broker": {"rf": "replication_factor", "max-moves": "max_moves", "max-moves-in": "max_moves_in",
               "max-moves-out": "max_moves_out", "paused": "paused", "stream-balance": "stream_balance",
               "replica-balance": "replica_balance", "handoff-only": "handoff_only"},
    "fleet": {"now": "now", "cooldown": "cooldown", "moves-per-decision": "moves_per_decision",
              "spread": "spread", "return-home-age": "return_home_age", "count-balance": "count_balance"},
    "region": {"rf": "replication_factor", "add-peer-proposals": "add_peer_proposals",
               "load-balance": "load_balance", "load-threshold": "load_threshold", "max-actions": "max_actions"},
}

_MEMBER_ATTRS = ("zone", "weight", "cap", "joined", "load", "map", "last-move", "down", "draining", "lagging",
                 "unmeasured")
_SHARD_ATTRS = ("stream", "replicas", "leader", "moving-to", "epoch", "load", "not-idempotent", "transfer-debt",
                "out-of-sync")


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
            seen = []
            for s in self.shards:
                sid = s.stream.id if isinstance(s.stream, Stream) else s.stream
                if sid is not None and sid not in seen:
                    seen.append(sid)
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
        return Snapshot(self.members, self.shards, streams=[s.id for s in self.streams], overrides=self.overrides,
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


# ---- reading placement(5) -------------------------------------------------------------

class _Reader:
    def __init__(self, path):
        self.path = path

    def fail(self, line, reason):
        raise FormatError(self.path, line, reason)

    @staticmethod
    def show(b):
        s = "".join(chr(c) if 0x20 <= c < 0x7F else "%%%02X" % c for c in b[:60])
        return s + ("..." if len(b) > 60 else "")

    def decode(self, line, w, what):
        out = bytearray()
        i = 0
        while i < len(w):
            c = w[i]
            if c != 0x25:
                out.append(c)
                i += 1
                continue
            h = w[i + 1:i + 3]
            try:
                if len(h) != 2 or not all(x in b"0123456789abcdefABCDEF" for x in h):
                    raise ValueError
                out.append(int(h, 16))
            except ValueError:
                self.fail(line, "bad %%XX escape in %s '%s': a '%%' must be followed by two hex digits"
                          % (what, self.show(w)))
            i += 3
        return bytes(out)

    def ident(self, line, w, kind):
        if b"=" in w:
            self.fail(line, "%s id '%s' contains '=': the id comes first (write an '=' in an id as %%3D)"
                      % (kind, self.show(w)))
        b = self.decode(line, w, kind)
        if not b:
            self.fail(line, "%s id is empty" % kind)
        if len(b) > _ffi.PL_MAX_ID_LEN:
            self.fail(line, "%s id is %d bytes, past the limit of %d" % (kind, len(b), _ffi.PL_MAX_ID_LEN))
        return b

    def number(self, line, v, name, top):
        if not v.isdigit() or not v.isascii():
            self.fail(line, "bad number '%s' for %s: write a decimal number from 0 to %d" % (self.show(v), name, top))
        n = int(v)
        if n > top:
            self.fail(line, "number %s for %s is past the limit of %d" % (v.decode("ascii"), name, top))
        return n

    def attrs(self, line, words, allowed, kind):
        """{name: value or None (a bare word)}; each once, each known."""
        out = {}
        for w in words:
            name, eq, val = w.partition(b"=")
            if eq and not name:
                self.fail(line, "'%s' has no name before '='" % self.show(w))
            n = name.decode("latin-1")
            if n not in allowed:
                self.fail(line, "unknown %s attribute '%s'" % (kind, self.show(name)))
            if n in out:
                self.fail(line, "%s given twice on one line" % n)
            if eq and not val and n != "zone":
                self.fail(line, "%s= needs a value (leave it out for its default)" % n)
            if eq and b"=" in val:
                self.fail(line, "the value of %s holds a '='" % n)
            out[n] = val if eq else None
        return out

    def listed(self, line, v, name):
        items = v.split(b",")
        if any(not x for x in items):
            self.fail(line, "%s= holds an empty item" % name)
        return [self.ident(line, x, "member") for x in items]

    def member(self, line, mid, a, kind="member"):
        m = Member(_id_out(mid), zone=None, weight=1, load=0)
        flags = ("down", "draining", "lagging", "unmeasured")
        for n, v in a.items():
            if n in flags:
                if v is not None:
                    self.fail(line, "%s is a flag: it takes no value" % n)
                continue
            if v is None:
                self.fail(line, "%s needs a value (%s=...)" % (n, n))
        if "zone" in a:
            m.zone = _id_out(self.decode(line, a["zone"], "zone"))
        if "weight" in a:
            m.weight = self.number(line, a["weight"], "weight", _ffi.PL_MAX_WEIGHT)
        if "cap" in a:
            m.max_shards = self.number(line, a["cap"], "cap", _U32)
        if "joined" in a:
            m.joined_at = self.number(line, a["joined"], "joined", _U64)
        if "load" in a:
            if "unmeasured" in a:
                self.fail(line, "load= and unmeasured contradict each other")
            m.load = self.number(line, a["load"], "load", _U64)
        if "unmeasured" in a:
            m.load = None
        if "map" in a:
            m.map_version = self.number(line, a["map"], "map", _U64)
        m.down, m.draining, m.lagging = "down" in a, "draining" in a, "lagging" in a
        last = self.number(line, a["last-move"], "last-move", _U64) if "last-move" in a else None
        return m, last


def _lines(data, path):
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    no = 0
    for raw in data.split(b"\n"):
        no += 1
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if len(raw) > _MAX_LINE:
            raise FormatError(path, no, "line is longer than %d bytes" % _MAX_LINE)
        body = raw.split(b"#", 1)[0]
        for c in body:
            if (c < 0x20 and c != 0x09) or c == 0x7F:
                raise FormatError(path, no, "control byte 0x%02X outside a comment" % c)
        words = body.replace(b"\t", b" ").split(b" ")
        words = [w for w in words if w]
        if words:
            yield no, words


def _parse_text(data, path):
    rd = _Reader(path)
    members, m_line, last_move = [], [], {}
    streams, st_line = [], []
    shards, k_line, k_refs = [], [], []
    overrides, o_line = [], []
    copies, c_line = [], []
    settings, set_line, events, ev_refs = {}, {}, [], []
    for no, words in _lines(data, path):
        kw = words[0].decode("latin-1")
        if kw not in _KEYWORDS:
            rd.fail(no, "unknown keyword '%s' (one of: %s)" % (rd.show(words[0]), ", ".join(_KEYWORDS)))
        if kw == "set":
            if len(words) == 1:
                rd.fail(no, "set needs name=value")
            for w in words[1:]:
                name, eq, val = w.partition(b"=")
                n = name.decode("latin-1")
                if n not in _SETTING:
                    rd.fail(no, "unknown setting '%s'" % rd.show(name))
                if not eq or not val:
                    rd.fail(no, "set %s needs a value (set %s=...)" % (n, n))
                if n in settings:
                    rd.fail(no, "setting %s given twice" % n)
                settings[n] = _setting(rd, no, n, val)
                set_line[n] = no
            continue
        if kw == "at":
            if len(words) < 2:
                rd.fail(no, "at needs a tick")
            tick = rd.number(no, words[1], "at", _MAX_TICK)
            if tick == 0:
                rd.fail(no, "tick 0: events start at tick 1")
            if len(words) < 3:
                rd.fail(no, "at %d needs an event (%s)" % (tick, ", ".join(_EVENTS)))
            ev = words[2].decode("latin-1")
            if ev not in _EVENTS:
                rd.fail(no, "unknown event '%s' (one of: %s)" % (rd.show(words[2]), ", ".join(_EVENTS)))
            if len(words) < 4:
                rd.fail(no, "at %d %s needs a member id" % (tick, ev))
            mid = rd.ident(no, words[3], "member")
            if ev == "join":
                a = rd.attrs(no, words[4:], _MEMBER_ATTRS, "member")
                joiner, lm = rd.member(no, mid, a)
                if "joined" not in a:
                    joiner.joined_at = None
                events.append(Event(tick, ev, _id_out(mid), joiner, lm))
            else:
                if len(words) > 4:
                    rd.fail(no, "at %d %s takes no attribute ('%s')" % (tick, ev, rd.show(words[4])))
                events.append(Event(tick, ev, _id_out(mid)))
            ev_refs.append(no)
            continue
        if len(words) < 2:
            rd.fail(no, "%s needs an id" % kw)
        if kw == "member":
            mid = rd.ident(no, words[1], "member")
            m, lm = rd.member(no, mid, rd.attrs(no, words[2:], _MEMBER_ATTRS, "member"))
            members.append(m)
            m_line.append(no)
            if lm is not None:
                last_move[m.id] = lm
        elif kw == "stream":
            sid = rd.ident(no, words[1], "stream")
            if len(words) > 2:
                rd.fail(no, "stream takes no attribute ('%s')" % rd.show(words[2]))
            streams.append(_id_out(sid))
            st_line.append(no)
        elif kw == "shard":
            key = rd.ident(no, words[1], "shard")
            a = rd.attrs(no, words[2:], _SHARD_ATTRS, "shard")
            for n, v in a.items():
                if n in ("not-idempotent", "transfer-debt"):
                    if v is not None:
                        rd.fail(no, "%s is a flag: it takes no value" % n)
                elif v is None:
                    rd.fail(no, "%s needs a value (%s=...)" % (n, n))
            s = Shard(_id_out(key))
            refs = []
            if "stream" in a:
                s.stream = _id_out(rd.ident(no, a["stream"], "stream"))
            if "replicas" in a:
                reps = rd.listed(no, a["replicas"], "replicas")
                if len(reps) > _ffi.PL_MAX_REPLICAS:
                    rd.fail(no, "replicas= lists %d members, past the limit of %d" % (len(reps),
                                                                                      _ffi.PL_MAX_REPLICAS))
                s.replicas = tuple(_id_out(r) for r in reps)
                refs += [("replicas", r) for r in s.replicas]
            if "leader" in a:
                s.leader = _id_out(rd.ident(no, a["leader"], "member"))
                refs.append(("leader", s.leader))
            if "moving-to" in a:
                s.moving_to = _id_out(rd.ident(no, a["moving-to"], "member"))
                refs.append(("moving-to", s.moving_to))
            if "epoch" in a:
                s.epoch = rd.number(no, a["epoch"], "epoch", _U64)
            if "load" in a:
                s.load = rd.number(no, a["load"], "load", _U64)
            s.not_idempotent = "not-idempotent" in a
            s.transfer_debt = "transfer-debt" in a
            if "out-of-sync" in a:
                oos = tuple(_id_out(r) for r in rd.listed(no, a["out-of-sync"], "out-of-sync"))
                for o in oos:
                    if o not in s.replicas:
                        rd.fail(no, "out-of-sync= names '%s', not one of replicas=" % rd.show(encode_id(o)))
                s.out_of_sync = oos
            shards.append(s)
            k_line.append(no)
            k_refs.append(refs)
        elif kw == "override":
            key = _id_out(rd.ident(no, words[1], "shard"))
            a = rd.attrs(no, words[2:], ("member", "origin", "since"), "override")
            for n, v in a.items():
                if v is None:
                    rd.fail(no, "%s needs a value (%s=...)" % (n, n))
            if "member" not in a:
                rd.fail(no, "override needs member=")
            o = Override(key, _id_out(rd.ident(no, a["member"], "member")))
            if "origin" in a:
                if a["origin"] not in (b"lag", b"count"):
                    rd.fail(no, "origin must be lag or count, not '%s'" % rd.show(a["origin"]))
                o.origin = a["origin"].decode("ascii")
            if "since" in a:
                o.since = rd.number(no, a["since"], "since", _U64)
            overrides.append(o)
            o_line.append(no)
        else:  # copy
            key = _id_out(rd.ident(no, words[1], "shard"))
            a = rd.attrs(no, words[2:], ("to", "from"), "copy")
            for n, v in a.items():
                if v is None:
                    rd.fail(no, "%s needs a value (%s=...)" % (n, n))
            if "to" not in a:
                rd.fail(no, "copy needs to=")
            c = Copy(key, _id_out(rd.ident(no, a["to"], "member")),
                     _id_out(rd.ident(no, a["from"], "member")) if "from" in a else None)
            copies.append(c)
            c_line.append(no)

    # references, after the whole file: statements come in any order
    known_m = {encode_id(m.id) for m in members}
    known_s = {encode_id(s) for s in streams}
    known_k = {encode_id(s.key) for s in shards}
    for s, no, refs in zip(shards, k_line, k_refs):
        if s.stream is not None and encode_id(s.stream) not in known_s:
            rd.fail(no, "unknown stream '%s' in stream= (declare it: stream %s)"
                    % (rd.show(encode_id(s.stream)), _escape(s.stream)))
        for what, r in refs:
            if encode_id(r) not in known_m:
                rd.fail(no, "unknown member '%s' in %s= (declare it: member %s ...)"
                        % (rd.show(encode_id(r)), what, _escape(r)))
    for lst, lines, kind in ((overrides, o_line, "override"), (copies, c_line, "copy")):
        for x, no in zip(lst, lines):
            if encode_id(x.shard) not in known_k:
                rd.fail(no, "%s names unknown shard '%s'" % (kind, rd.show(encode_id(x.shard))))
            for what in (("member",) if kind == "override" else ("to", "from_member")):
                r = getattr(x, what)
                if r is not None and encode_id(r) not in known_m:
                    rd.fail(no, "unknown member '%s' in %s= of %s" % (
                        rd.show(encode_id(r)), "from" if what == "from_member" else what, kind))
    joined = set(known_m)
    for ev, no in sorted(zip(events, ev_refs), key=lambda e: (e[0].tick, e[1])):
        b = encode_id(ev.member)
        if ev.event == "join":
            if b in joined:
                rd.fail(no, "member '%s' joins but is already declared" % rd.show(b))
            joined.add(b)
        elif b not in joined:
            rd.fail(no, "unknown member '%s' in at %d %s" % (rd.show(b), ev.tick, ev.event))
    if "self" in settings and encode_id(settings["self"]) not in known_m:
        rd.fail(set_line["self"], "unknown member '%s' in self= (declare it: member %s ...)"
                % (rd.show(encode_id(settings["self"])), _escape(settings["self"])))

    cluster = Cluster(members, shards, streams, overrides, copies, settings, last_move, events)
    lines = {"member": m_line, "stream": st_line, "shard": k_line, "override": o_line, "copy": c_line}
    _validate(cluster, path, lines)
    _check_settings(cluster, path, set_line)
    return cluster


def _check_settings(cluster, path, set_line):
    """What placement(1) refuses in a file's settings before it runs: ticks
    0, a fleet's tick 0, self= outside the fleet policy, and a value the
    file's policy refuses (the library's own check, E_CONFIG)."""
    st = cluster.settings
    policy = cluster.policy
    line = set_line.get
    if st.get("ticks") == 0:
        raise FormatError(path, line("ticks"), "set ticks=0: simulate runs 1 to 1000000 ticks (leave ticks= out to "
                                               "run until nothing more is done)")
    if policy == "fleet" and st.get("tick") == 0:
        raise FormatError(path, line("tick"), "set tick=0: a fleet's clock must move each tick")
    if "self" in st and policy != "fleet":
        raise FormatError(path, line("self"), "set self= names the member that decides, which only the fleet "
                                              "policy has (the policy is %s)" % policy)
    try:
        _config_check(policy, cluster.config(policy))
    except PlacementError as e:
        names = {field: name for name, field in _CONFIG[policy].items()}
        name = names.get(e.id)
        where = "set %s=%s: " % (name, _setting_text(name, st[name])) if name in st else ""
        raise FormatError(path, line(name), "%sthe %s policy refuses it: %s" % (where, policy, e), e) from None


def _config_check(policy, config):
    """Run the policy once on a snapshot of one member and no shard: the
    library checks its configuration first (PlacementError E_CONFIG naming
    the field)."""
    snap = Snapshot([Member("x")], [])
    if policy == "broker":
        broker_plan(snap, **config)
    elif policy == "fleet":
        fleet_decide(snap, "x", **config)
    else:
        region_plan(snap, **config)


def _setting(rd, no, n, val):
    kind, top = _SETTING[n]
    if kind == "num":
        return rd.number(no, val, n, top)
    if kind == "bool":
        if val not in (b"on", b"off"):
            rd.fail(no, "set %s must be on or off, not '%s'" % (n, rd.show(val)))
        return val == b"on"
    if kind == "policy":
        if val not in (b"broker", b"fleet", b"region"):
            rd.fail(no, "unknown policy '%s' (broker, fleet or region)" % rd.show(val))
        return val.decode("ascii")
    if kind == "scorer":
        if val not in (b"xxh3", b"legacy"):
            rd.fail(no, "unknown scorer '%s' (xxh3 or legacy)" % rd.show(val))
        return val.decode("ascii")
    return _id_out(rd.ident(no, val, "member"))


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


# ---- the tool's JSON -------------------------------------------------------------------

def _parse_json(text, path):
    try:
        doc = _json.loads(text)
    except ValueError as e:
        raise FormatError(path, getattr(e, "lineno", None), "not JSON: %s" % e) from None
    if not isinstance(doc, dict) or doc.get("format") != 1:
        raise FormatError(path, None, "not a cluster description of placement(1) (no \"format\": 1): "
                          "write one with placement --json format FILE")

    def need(obj, key, where):
        if not isinstance(obj, dict) or key not in obj:
            raise FormatError(path, None, "%s has no %r" % (where, key))
        return obj[key]

    def member(o, where):
        state = need(o, "state", where)
        m = Member(need(o, "id", where), zone=need(o, "zone", where) or None, weight=need(o, "weight", where),
                   max_shards=need(o, "cap", where), load=need(o, "load", where), joined_at=need(o, "joined", where),
                   map_version=need(o, "map", where), down="down" in state, draining="draining" in state,
                   lagging="lagging" in state)
        return m, o.get("last_move")

    try:
        settings = dict(need(doc, "settings", "the file"))
        for n, v in settings.items():
            if n not in _SETTING:
                raise FormatError(path, None, "unknown setting %r" % n)
        members, last_move = [], {}
        for i, o in enumerate(need(doc, "members", "the file")):
            m, lm = member(o, "member #%d" % i)
            members.append(m)
            if lm is not None:
                last_move[m.id] = lm
        streams = list(need(doc, "streams", "the file"))
        shards = []
        for i, o in enumerate(need(doc, "shards", "the file")):
            w = "shard #%d" % i
            flags = need(o, "flags", w)
            shards.append(Shard(need(o, "key", w), stream=need(o, "stream", w), replicas=need(o, "replicas", w),
                                leader=need(o, "leader", w), moving_to=need(o, "moving_to", w),
                                epoch=need(o, "epoch", w), load=need(o, "load", w),
                                not_idempotent="not-idempotent" in flags, transfer_debt="transfer-debt" in flags,
                                out_of_sync=o.get("out_of_sync", ())))
        overrides = [Override(need(o, "shard", "override"), need(o, "member", "override"),
                              origin=need(o, "origin", "override"), since=need(o, "since", "override"))
                     for o in doc.get("overrides", [])]
        copies = [Copy(need(o, "shard", "copy"), need(o, "to", "copy"), need(o, "from", "copy"))
                  for o in doc.get("copies", [])]
        events = []
        for o in doc.get("events", []):
            joiner = lm = None
            if o.get("event") == "join":
                joiner, lm = member(need(o, "joiner", "a join"), "a join")
            events.append(Event(need(o, "tick", "an event"), need(o, "event", "an event"),
                                need(o, "member", "an event"), joiner, lm))
    except TypeError as e:
        raise FormatError(path, None, "a field of the wrong type: %s" % e) from None
    cluster = Cluster(members, shards, streams, overrides, copies, settings, last_move, events)
    _validate(cluster, path)
    return cluster


# ---- load and dump ---------------------------------------------------------------------

def loads(data, path="<string>"):
    """A Cluster from the text of a placement(5) file or of the tool's JSON
    (str or bytes; JSON when its first non-blank character is '{')."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if data.lstrip(b" \t\r\n\xef\xbb\xbf").startswith(b"{"):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise FormatError(path, None, "JSON that is not UTF-8: %s" % e) from None
        return _parse_json(text, path)
    return _parse_text(data, path)


def load(file):
    """Load a cluster description placement(1) reads or writes: a
    placement(5) file (`placement import kafka` output, `plan --out`, a
    file written by hand) or the tool's JSON of one (`placement --json
    format FILE`, `placement --json import kafka ...`).

    Args:
        file: a path (str or os.PathLike), or a binary or text file object.

    Returns:
        a Cluster: members, streams, shards, overrides and copies in the
        package's types, the settings, last-move clocks and events.

    Raises:
        FormatError: the first line placement(1) would refuse, with its
            number and the tool's words; a snapshot the library refuses (a
            duplicate id, a leader not among the replicas, ...) names the
            line of the element, and carries the PlacementError as .error.
        OSError: the file cannot be read.
    """
    if hasattr(file, "read"):
        return loads(file.read(), getattr(file, "name", "<file>"))
    with open(file, "rb") as f:
        return loads(f.read(), os.fspath(file))


def _member_attrs(m, last_move):
    out = []
    if m.zone is not None:
        z = encode_id(m.zone, "zone")
        out.append("zone=" + _escape(z) if z else "zone=")
    if m.weight != 1:
        out.append("weight=%d" % m.weight)
    if m.max_shards:
        out.append("cap=%d" % m.max_shards)
    if m.joined_at:
        out.append("joined=%d" % m.joined_at)
    if m.load:
        out.append("load=%d" % m.load)
    if m.map_version:
        out.append("map=%d" % m.map_version)
    if last_move is not None:
        out.append("last-move=%d" % last_move)
    out += [w for w in ("down", "draining", "lagging") if getattr(m, w)]
    if m.load is None:
        out.append("unmeasured")
    return out


def _ref_id(x, cls, attr):
    return getattr(x, attr) if isinstance(x, cls) else x


def _setting_text(n, v):
    kind = _SETTING[n][0]
    if kind == "bool":
        return "on" if v else "off"
    if kind == "member":
        return _escape(v)
    return str(v)


def dumps(cluster, json=False):
    """The text of a placement(5) file for a Cluster (or a Snapshot), in its
    own order: settings, members, streams, shards, overrides, copies,
    events; ids escaped as placement(1) writes them (plain ASCII). json=True:
    the tool's JSON (`placement --json format`), members, streams, shards,
    overrides and copies sorted by id bytes as the tool sorts them."""
    if isinstance(cluster, Snapshot):
        cluster = Cluster(cluster.members, cluster.shards, cluster.stream_ids, cluster.overrides, cluster.copies)
    if json:
        return _dump_json(cluster)
    c = cluster
    out = ["# placement(5) snapshot: %d members, %d streams, %d shards, %d overrides%s" % (
        len(c.members), len(c.streams), len(c.shards), len(c.overrides),
        ", %d cop%s in flight" % (len(c.copies), "y" if len(c.copies) == 1 else "ies") if c.copies else "")]
    for n, _, _ in SETTINGS:
        if n in c.settings:
            out.append("set %s=%s" % (n, _setting_text(n, c.settings[n])))
    for n in c.settings:
        if n not in _SETTING:
            raise ValueError("unknown setting %r" % (n,))
    for m in c.members:
        out.append(" ".join(["member", _escape(m.id)] + _member_attrs(m, c.last_move.get(m.id))))
    for s in c.streams:
        out.append("stream " + _escape(_ref_id(s, Stream, "id")))
    for k in c.shards:
        w = ["shard", _escape(k.key)]
        if k.stream is not None:
            w.append("stream=" + _escape(_ref_id(k.stream, Stream, "id")))
        if k.replicas:
            w.append("replicas=" + ",".join(_escape(_ref_id(r, Member, "id")) for r in k.replicas))
        if k.leader is not None:
            w.append("leader=" + _escape(_ref_id(k.leader, Member, "id")))
        if k.moving_to is not None:
            w.append("moving-to=" + _escape(_ref_id(k.moving_to, Member, "id")))
        if k.epoch:
            w.append("epoch=%d" % k.epoch)
        if k.load:
            w.append("load=%d" % k.load)
        if k.not_idempotent:
            w.append("not-idempotent")
        if k.transfer_debt:
            w.append("transfer-debt")
        if k.out_of_sync:
            w.append("out-of-sync=" + ",".join(_escape(_ref_id(r, Member, "id")) for r in k.out_of_sync))
        out.append(" ".join(w))
    for o in c.overrides:
        w = ["override", _escape(_ref_id(o.shard, Shard, "key")), "member=" + _escape(_ref_id(o.member, Member, "id")),
             "origin=%s" % o.origin]
        if o.since:
            w.append("since=%d" % o.since)
        out.append(" ".join(w))
    for cp in c.copies:
        w = ["copy", _escape(_ref_id(cp.shard, Shard, "key")), "to=" + _escape(_ref_id(cp.to, Member, "id"))]
        if cp.from_member is not None:
            w.append("from=" + _escape(_ref_id(cp.from_member, Member, "id")))
        out.append(" ".join(w))
    for ev in c.events:
        w = ["at", str(ev.tick), ev.event, _escape(ev.member)]
        if ev.event == "join" and ev.joiner is not None:
            j = ev.joiner
            w += _member_attrs(Member(j.id, j.zone, j.weight, j.max_shards, j.down, j.draining, j.lagging, j.load,
                                      j.joined_at or 0, j.map_version), ev.last_move)
            if j.joined_at == 0:
                w.append("joined=0")
        out.append(" ".join(w))
    return "\n".join(out) + "\n"


def _sorted(items, key):
    return sorted(items, key=lambda x: encode_id(key(x)))


def _dump_json(c):
    def member(m, lm):
        return {"id": m.id, "zone": "" if m.zone is None else m.zone, "weight": m.weight or 1,
                "cap": m.max_shards, "joined": m.joined_at or 0, "load": m.load, "map": m.map_version,
                "state": [w for w in ("down", "draining", "lagging") if getattr(m, w)], "last_move": lm}

    for x in [m.id for m in c.members] + [s.id for s in c.streams] + [k.key for k in c.shards]:
        if not isinstance(x, str):
            raise ValueError("JSON holds ids that are text: write a bytes id %r as placement(5) text" % (x,))
    doc = {"format": 1, "settings": {n: c.settings[n] for n, _, _ in SETTINGS if n in c.settings}}
    doc["members"] = [member(m, c.last_move.get(m.id)) for m in _sorted(c.members, lambda m: m.id)]
    doc["streams"] = [s.id for s in _sorted(c.streams, lambda s: s.id)]
    shards = []
    for k in _sorted(c.shards, lambda k: k.key):
        d = {"key": k.key, "stream": _ref_id(k.stream, Stream, "id"), "replicas": list(k.replicas),
             "leader": k.leader, "moving_to": k.moving_to, "epoch": k.epoch, "load": k.load,
             "flags": [f for f, on in (("not-idempotent", k.not_idempotent), ("transfer-debt", k.transfer_debt))
                       if on]}
        if k.out_of_sync:
            d["out_of_sync"] = [r for r in k.replicas if r in k.out_of_sync]
        shards.append(d)
    doc["shards"] = shards
    doc["overrides"] = [{"shard": o.shard, "member": o.member, "origin": o.origin, "since": o.since}
                        for o in _sorted(c.overrides, lambda o: o.shard)]
    doc["copies"] = [{"shard": cp.shard, "to": cp.to, "from": cp.from_member}
                     for cp in _sorted(c.copies, lambda cp: cp.shard)]
    doc["events"] = [dict({"tick": e.tick, "event": e.event, "member": e.member},
                          **({"joiner": member(e.joiner, e.last_move)} if e.event == "join" else {}))
                     for e in c.events]
    return _json.dumps(doc, ensure_ascii=False) + "\n"


def dump(cluster, file=None, json=False):
    """Write a Cluster (or a Snapshot) as placement(5) text (or, json=True,
    the tool's JSON) to a path or a text file object; file=None returns the
    text (as dumps()). load(dump(...)) gives back an equal Cluster."""
    text = dumps(cluster, json=json)
    if file is None:
        return text
    if hasattr(file, "write"):
        file.write(text)
    else:
        with open(file, "w", encoding="ascii" if not json else "utf-8", newline="\n") as f:
            f.write(text)
    return None


# ---- carrying actions out on the caller's description -------------------------------

def _applied(snap, actions, scorer="xxh3"):
    """The shards and overrides of snap after actions, as the library's own
    pl_view_apply() carries them out: a View of snap, each action applied
    by its ids, then read back shard by shard."""
    view = View(snap, scorer=scorer)
    for i, a in enumerate(actions):
        if not isinstance(a, Action):
            raise TypeError("apply(actions=...)[%d] must be an Action, not %s" % (i, type(a).__name__))
        try:
            view.apply(a)
        except PlacementError as e:
            raise PlacementError(e.code, "shard", snap.shard_index(a.shard), a.shard,
                                 detail="action %d (%s) does not fit the shard as the actions before left it"
                                 % (i, a.kind)) from None
    shards, overrides = [], []
    for k in snap.shards:
        st = view.shard_state(k.key)
        oos = tuple(r for r in k.out_of_sync if r in st.replicas and r != st.leader)
        shards.append(Shard(k.key, stream=k.stream, replicas=st.replicas, leader=st.leader, moving_to=None,
                            epoch=st.epoch, load=k.load, not_idempotent=k.not_idempotent,
                            transfer_debt=k.transfer_debt, out_of_sync=oos))
        if st.override is not None:
            overrides.append(st.override)
    return shards, overrides


def apply(actions, shards, copies=()):
    """The caller's shards after the actions are carried out and committed
    (the library's pl_view_apply(), then every move finished), as new Shard
    objects in the same order; the shards given are not changed.

    What each action kind does to a shard (placement/view.h):
      - "set-leader": to_member leads; it holds a replica already.
      - "move-leader": to_member leads. When it held no replica
        (stage_first: a copy is staged on it first), it takes the old
        leader's replica: from_member no longer holds one, and the replica
        set keeps its size.
      - "add-replica": to_member gains a replica.
      - "move-replica": from_member's replica moves to to_member; when
        from_member led (carries_leader), to_member leads.
      - "set-override", "drop-override": change a fleet's override
        document, no shard (see Cluster.apply()).
    Moves in flight in the shards (moving_to) and the copies in flight
    given are counted finished first, as every policy counts them. A
    replica that was out of sync stays so while it holds its replica and
    does not lead; a replica a copy put in place is in sync.

    Args:
        actions: Actions of a plan (of any snapshot: applied by their ids),
            in the order the plan gives them.
        shards: the caller's Shards before the actions.
        copies: the Copy objects in flight among them.

    Returns:
        a list of Shard, moving_to None, its epoch advanced by one for each
        replica or leader action on it, as its commit would advance it
        (pl_shard_state.epoch; `placement plan --out` keeps the file's).

    Raises:
        PlacementError: E_ACTION naming the shard when an action does not
            fit it (a leader move from a member that does not lead it, a
            replica added to a member that holds one), or an error of the
            shards as a Snapshot would raise it.
    """
    actions = id_list(actions, "apply(actions=...)", False)
    shards = list(id_list(shards, "apply(shards=...)", False))
    copies = list(id_list(copies, "apply(copies=...)", False))
    ids, seen = [], set()

    def note(x):
        if x is not None:
            x = x.id if isinstance(x, Member) else x
            b = encode_id(x, "member id")
            if b not in seen:
                seen.add(b)
                ids.append(x)
    for k in shards:
        if isinstance(k, Shard):
            for r in k.replicas:
                note(r)
            note(k.leader)
            note(k.moving_to)
    for c in copies:
        if isinstance(c, Copy):
            note(c.to)
            note(c.from_member)
    for a in actions:
        note(getattr(a, "from_member", None))
        note(getattr(a, "to_member", None))
    snap = Snapshot([Member(m) for m in ids], shards, copies=copies)
    return _applied(snap, actions)[0]


def _cluster_apply(self, actions):
    """A new Cluster after the actions are carried out and committed: its
    shards as placement.apply() leaves them, no copy or move in flight, and
    the override document as the set-override and drop-override actions
    leave it (what `placement plan --out` writes after a plan)."""
    actions = id_list(actions, "apply(actions=...)", False)
    shards, overrides = _applied(self.snapshot(), actions, self.scorer)
    return Cluster(self.members, shards, self.streams, overrides, (), self.settings, self.last_move, self.events)


def _action_apply(self, shards, copies=()):
    """The caller's shards after this one action is carried out and
    committed: placement.apply([action], shards, copies)."""
    return apply([self], shards, copies)


# Offered here, by the module that knows files and shards as the caller has
# them, so that _actions.py needs nothing of this one: modules import one way.
Cluster.apply = _cluster_apply
Action.apply = _action_apply
