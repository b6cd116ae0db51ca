"""The tool's JSON of a cluster description (`placement --json format`,
`placement --json import kafka`): read into a Cluster and written back.

Sizes are integers of bytes: a shard's "size" and a member's "capacity",
absent or null when unknown. The writer writes them as the tool does: for
every shard and member (null when unknown) when the cluster gives any
size or capacity, else not at all.
"""

import json as _json

from ._cluster import _SETTING, SETTINGS, Cluster, Event, FormatError, _ref_id, _validate
from ._snapshot import Copy, Member, Override, Shard, Stream, encode_id


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
                   lagging="lagging" in state, capacity=o.get("capacity"))
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
                                out_of_sync=o.get("out_of_sync", ()), size=o.get("size")))
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
    for e in events:
        if e.joiner is not None and e.joiner.capacity == 0:
            raise FormatError(path, None, "a join of %r has capacity 0: a member holds some bytes (leave capacity "
                                          "out when it is not known)" % (e.member,))
    cluster = Cluster(members, shards, streams, overrides, copies, settings, last_move, events)
    _validate(cluster, path)
    return cluster


def _sorted(items, key):
    return sorted(items, key=lambda x: encode_id(key(x)))


def _dump_json(c):
    joiners = [e.joiner for e in c.events if e.event == "join" and e.joiner is not None]
    sized = any(m.capacity is not None for m in list(c.members) + joiners) or any(
        k.size is not None for k in c.shards)

    def member(m, lm):
        d = {"id": m.id, "zone": "" if m.zone is None else m.zone, "weight": m.weight or 1,
             "cap": m.max_shards, "joined": m.joined_at or 0, "load": m.load, "map": m.map_version,
             "state": [w for w in ("down", "draining", "lagging") if getattr(m, w)], "last_move": lm}
        if sized:
            d["capacity"] = m.capacity
        return d

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
        if sized:
            d["size"] = k.size
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
