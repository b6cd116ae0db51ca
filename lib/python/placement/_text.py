"""placement(5) text: read into a Cluster (with every check placement(1)
makes, named by line) and written back as the tool writes it.
"""

from . import _ffi
from ._broker import broker_plan
from ._cluster import (_CONFIG, _MAX_TICK, _SETTING, _U32, _U64, SETTINGS, Cluster, Event, FormatError, _escape,
                       _id_out, _ref_id, _validate, format_size, parse_size)
from ._errors import PlacementError
from ._fleet import fleet_decide
from ._region import region_plan
from ._snapshot import Copy, Member, Override, Shard, Snapshot, Stream, encode_id

_MAX_LINE = 65536
_KEYWORDS = ("member", "stream", "shard", "override", "copy", "set", "at")
_EVENTS = ("join", "drain", "down", "lag", "up")

_MEMBER_ATTRS = ("zone", "weight", "cap", "joined", "load", "map", "last-move", "down", "draining", "lagging",
                 "unmeasured", "capacity")
_SHARD_ATTRS = ("stream", "replicas", "leader", "moving-to", "epoch", "load", "not-idempotent", "transfer-debt",
                "out-of-sync", "size")
_STREAM_ATTRS = ("tolerance", "zones", "keep")


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

    def size(self, line, v, name, top):
        """A size (placement(5), SIZES): decimal bytes with an optional K,
        M, G, T or P (powers of 1024), at most top."""
        try:
            n = parse_size(v)
        except ValueError:
            self.fail(line, "bad size '%s' for %s=: write a decimal number of bytes, with K, M, G, T or P for "
                            "powers of 1024 (512M, 10G, 1536)" % (self.show(v), name))
        if n > top:
            self.fail(line, "size %s for %s= is past the limit of %s (%d bytes)" % (
                v.decode("ascii"), name, format_size(top), top))
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
        if "capacity" in a:
            m.capacity = self.size(line, a["capacity"], "capacity", _ffi.PL_MAX_BYTES)
            if m.capacity == 0:
                self.fail(line, "capacity=0: a member that can hold nothing is down (leave capacity= out when "
                                "it is unknown)")
        m.down, m.draining, m.lagging = "down" in a, "draining" in a, "lagging" in a
        last = self.number(line, a["last-move"], "last-move", _U64) if "last-move" in a else None
        return m, last


    def stream(self, line, sid, words):
        """A Stream and its rules (the broker policy's): tolerance=N
        (0..PL_MAX_TOLERANCE), zones=span|majority, keep (a bare word:
        excluded from balancing)."""
        for w in words:
            if w.partition(b"=")[0] not in (b"tolerance", b"zones", b"keep"):
                self.fail(line, "stream takes an id and tolerance=, zones= or keep, not '%s'" % self.show(w))
        a = self.attrs(line, words, _STREAM_ATTRS, "stream")
        for n, v in a.items():
            if n == "keep":
                if v is not None:
                    self.fail(line, "keep is a flag and takes no value")
            elif v is None:
                self.fail(line, "%s needs a value (%s=...)" % (n, n))
        s = Stream(_id_out(sid), keep="keep" in a)
        if "tolerance" in a:
            s.tolerance = self.number(line, a["tolerance"], "tolerance=", _ffi.PL_MAX_TOLERANCE)
        if "zones" in a:
            z = a["zones"].decode("latin-1")
            if z not in _ffi.ZONE_RULES:
                self.fail(line, "zones= is span or majority, not '%s'" % self.show(a["zones"]))
            s.zones = z
        return s


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
            streams.append(rd.stream(no, sid, words[2:]))
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
            if "size" in a:
                # one shard at most what all of them together may be (the
                # library checks the sum)
                s.size = rd.size(no, a["size"], "size", _ffi.PL_MAX_BYTES // _ffi.PL_MAX_REPLICAS)
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
    known_s = {encode_id(s.id) for s in streams}
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
    if kind == "size":
        return rd.size(no, val, n, top)
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


# ---- writing placement(5) ------------------------------------------------------------

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
    if m.capacity is not None:
        out.append("capacity=" + format_size(m.capacity))
    if last_move is not None:
        out.append("last-move=%d" % last_move)
    out += [w for w in ("down", "draining", "lagging") if getattr(m, w)]
    if m.load is None:
        out.append("unmeasured")
    return out


def _setting_text(n, v):
    kind = _SETTING[n][0]
    if kind == "bool":
        return "on" if v else "off"
    if kind == "member":
        return _escape(v)
    if kind == "size":
        return format_size(v)
    return str(v)


def _dump_text(c):
    """The placement(5) text of a Cluster (dumps())."""
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
        w = ["stream", _escape(_ref_id(s, Stream, "id"))]
        if isinstance(s, Stream):
            if s.tolerance is not None and s.tolerance != _ffi.PL_TOLERANCE_DEFAULT:
                w.append("tolerance=%d" % s.tolerance)
            if s.zones != "span":
                w.append("zones=%s" % s.zones)
            if s.keep:
                w.append("keep")
        out.append(" ".join(w))
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
        if k.size is not None:
            w.append("size=" + format_size(k.size))
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
                                      j.joined_at or 0, j.map_version, j.capacity), ev.last_move)
            if j.joined_at == 0:
                w.append("joined=0")
        out.append(" ".join(w))
    return "\n".join(out) + "\n"
