"""Bytes: shard sizes and member capacities in a Snapshot (version 3 of
pl_snapshot), the broker config's bytes settings, what an action says it
copies, and size=/capacity= in placement(5) text and the tool's JSON."""

import ctypes
import json

import pytest

import placement as pl
from placement import _ffi

M, K = pl.Member, pl.Shard
G = 1 << 30


def drain_layout(sizes=True):
    """Four members; b0 drains. Shards of 1G..6G, two replicas each, and one
    of 7G on all four."""
    members = [M("b0", draining=True, capacity=100 * G), M("b1", capacity=100 * G), M("b2", capacity=100 * G),
               M("b3")]
    pairs = [("b0", "b1"), ("b0", "b2"), ("b1", "b0"), ("b2", "b0"), ("b1", "b2"), ("b0", "b3")]
    shards = [K("s/%d" % i, stream="s", replicas=list(p), leader=p[0], size=(i + 1) * G if sizes else None)
              for i, p in enumerate(pairs)]
    # on every member: the drain can only hand its leadership off
    shards.append(K("h", stream="s", replicas=["b0", "b1", "b2", "b3"], leader="b0", size=7 * G if sizes else None))
    return pl.Snapshot(members, shards)


def test_no_size_gives_no_array_and_one_size_gives_both_in_full():
    s = pl.Snapshot([M("a"), M("b")], [K("k", replicas=["a"], leader="a")])
    assert s._c.version == _ffi.PL_SNAPSHOT_VERSION and not s._c.shard_bytes and not s._c.member_capacity
    s = pl.Snapshot([M("a"), M("b", capacity=5)], [K("k", replicas=["a"], leader="a"), K("q", size=0)])
    caps = ctypes.cast(s._c.member_capacity, ctypes.POINTER(ctypes.c_uint64))
    sizes = ctypes.cast(s._c.shard_bytes, ctypes.POINTER(ctypes.c_uint64))
    assert (caps[0], caps[1]) == (_ffi.PL_BYTES_UNKNOWN, 5)
    assert (sizes[0], sizes[1]) == (_ffi.PL_BYTES_UNKNOWN, 0)
    assert pl.View(s).counts().shards == 2
    assert M("a", capacity=5) != M("a") and "capacity=5" in repr(M("a", capacity=5))
    assert "size=0" in repr(K("q", size=0)) and "size" not in repr(K("q"))


@pytest.mark.parametrize("members,shards,name,kind,ident", [
    ([M("a"), M("b", capacity=0)], [], "E_CAPACITY", "member", "b"),
    ([M("a", capacity=(1 << 62) + 1)], [], "E_BYTES", "member", "a"),
    ([M("a", capacity=1 << 62)], [K("x", size=1 << 59), K("y", size=1)], "E_BYTES", "shard", "y"),
    ([M("a")], [K("x", size=_ffi.PL_BYTES_UNKNOWN - 1)], "E_BYTES", "shard", "x"),
    ([M("a")], [K("x", size=-1)], "E_INVAL", "shard", "x"),
    ([M("a", capacity=1 << 64)], [], "E_INVAL", "member", "a"),
])
def test_sizes_the_library_refuses_name_their_element(members, shards, name, kind, ident):
    with pytest.raises(pl.PlacementError) as e:
        pl.Snapshot(members, shards)
    assert (e.value.name, e.value.kind, e.value.id) == (name, kind, ident)


def test_sizes_at_their_limits_and_unknown_ones_are_taken():
    pl.Snapshot([M("a", capacity=1 << 62)], [K("x", size=1 << 58), K("y", size=1 << 58), K("z", size=None)])
    with pytest.raises(TypeError, match="size must be an int"):
        pl.Snapshot([M("a")], [K("x", size="10G")])


@pytest.mark.parametrize("field,bad", [
    ("bytes_balance", 2), ("bytes_first", 2), ("full_ratio", 101), ("bytes_tolerance", 1001),
    ("max_bytes_in_flight", -1), ("max_bytes_in", 1 << 64), ("max_bytes_out", -5),
])
def test_each_bytes_setting_is_checked_by_name(field, bad):
    with pytest.raises(pl.PlacementError) as e:
        pl.broker_plan(drain_layout(), **{field: bad})
    assert (e.value.name, e.value.kind, e.value.id) == ("E_CONFIG", "config", field)


def test_bytes_settings_at_their_limits_are_taken():
    ok = dict(bytes_balance=False, bytes_first=True, full_ratio=100, bytes_tolerance=1000,
              max_bytes_in_flight=(1 << 64) - 1, max_bytes_in=G, max_bytes_out=1)
    pl.broker_plan(drain_layout(), **ok)
    pl.broker_plan(drain_layout(), full_ratio=0, bytes_tolerance=0)
    with pytest.raises(TypeError):
        pl.broker_plan(drain_layout(), reserved=0)


def test_a_drain_reports_the_bytes_each_copy_moves():
    snap = drain_layout()
    size = {k.key: k.size for k in snap.shards}
    plan = pl.broker_dry_run(snap)
    moves = [a for a in plan.actions if a.kind == "move-replica"]
    handoffs = [a for a in plan.actions if a.kind == "move-leader" and not a.stage_first]
    assert moves and handoffs, plan.actions
    assert any(a.reason == "replica-drain" for a in moves)
    for a in moves:
        assert a.stage_first and a.bytes == size[a.shard], a
        assert a.bytes_limit == 0
    for a in handoffs:
        assert (a.bytes, a.from_bytes, a.to_bytes) == (0, 0, 0), a
    # each copy out of b0 says what b0 held before it: all it held at the
    # start, less what the copies before it took away
    held = {m.id: sum(k.size for k in snap.shards if m.id in k.replicas) for m in snap.members}
    for a in plan.actions:
        if a.stage_first:
            assert (a.bytes, a.from_bytes, a.to_bytes) == (size[a.shard], held[a.from_member], held[a.to_member]), a
            held[a.from_member] -= a.bytes
            held[a.to_member] += a.bytes
    assert held["b0"] == 7 * G


def test_an_unknown_size_is_not_zero_bytes():
    plan = pl.broker_dry_run(drain_layout(sizes=False))
    moves = [a for a in plan.actions if a.kind == "move-replica"]
    assert moves and all(a.bytes is None and a.from_bytes == 0 and a.to_bytes == 0 for a in moves)
    assert _ffi.SCOPES[9] == "bytes"
    assert {"full-ratio", "bytes-skew"} <= set(_ffi.REASONS.values())
    assert "blocked-full" in _ffi.STATUSES.values()


def test_sizes_survive_apply():
    snap = drain_layout()
    plan = pl.broker_dry_run(snap)
    after = pl.apply(plan.actions, snap.shards)
    assert [k.size for k in after] == [k.size for k in snap.shards]


@pytest.mark.parametrize("text,value", [("0", 0), ("1536", 1536), ("1K", 1024), ("10G", 10 * G),
                                        ("3T", 3 << 40), ("2P", 2 << 50), ("007M", 7 << 20)])
def test_sizes_read(text, value):
    assert pl.parse_size(text) == value
    assert pl.parse_size(pl.format_size(value)) == value


@pytest.mark.parametrize("text", ["", "G", "1g", "1.5G", "-1", "+1", "1 G", "1GB", "1E", "١"])
def test_sizes_refused(text):
    with pytest.raises(ValueError):
        pl.parse_size(text)


@pytest.mark.parametrize("value,text", [(0, "0"), (1536, "1536"), (2048, "2K"), (10 * G, "10G"),
                                        (G + 1, "1073741825"), (1 << 62, "4096P"), (3 << 40, "3T")])
def test_sizes_written_with_the_largest_exact_suffix(value, text):
    assert pl.format_size(value) == text


TEXT = """set max-bytes-in-flight=20G full-ratio=85 bytes-balance=off bytes-first=on bytes-tolerance=15
set max-bytes-in=1536 max-bytes-out=0
member b0 capacity=100G
member b1 capacity=1099511627776
member b2
shard k0 replicas=b0,b1 leader=b0 size=512M
shard k1 replicas=b1 leader=b1 size=1536
shard k2 replicas=b2 leader=b2
shard k3 replicas=b2 leader=b2 size=0
at 3 join b3 capacity=2T
"""


def test_text_round_trip():
    c = pl.loads(TEXT)
    assert [m.capacity for m in c.members] == [100 * G, 1 << 40, None]
    assert [k.size for k in c.shards] == [512 << 20, 1536, None, 0]
    assert c.events[0].joiner.capacity == 2 << 40
    assert c.settings["max-bytes-in-flight"] == 20 * G and c.settings["full-ratio"] == 85
    assert c.config() == {"max_bytes_in_flight": 20 * G, "full_ratio": 85, "bytes_balance": 0, "bytes_first": 1,
                          "bytes_tolerance": 15, "max_bytes_in": 1536, "max_bytes_out": 0}
    out = pl.dumps(c)
    for w in ("member b0 capacity=100G", "member b1 capacity=1T", "size=512M", "size=1536", "size=0",
              "set max-bytes-in-flight=20G", "set max-bytes-in=1536", "set bytes-balance=off",
              "at 3 join b3 capacity=2T"):
        assert w in out, out
    assert "member b2\n" in out and "shard k2 replicas=b2 leader=b2\n" in out
    assert pl.loads(out) == c
    assert c.plan().status == "balanced"


def test_json_round_trip():
    c = pl.loads(TEXT)
    doc = json.loads(pl.dumps(c, json=True))
    assert [m.get("capacity") for m in doc["members"]] == [100 * G, 1 << 40, None]
    assert [k.get("size") for k in doc["shards"]] == [512 << 20, 1536, None, 0]
    # as the tool writes them: every shard and member, null when unknown
    assert doc["shards"][2]["size"] is None and doc["members"][2]["capacity"] is None
    assert doc["events"][0]["joiner"]["capacity"] == 2 << 40
    plain = json.loads(pl.dumps(pl.loads("member a\nshard k replicas=a leader=a\n"), json=True))
    assert "capacity" not in plain["members"][0] and "size" not in plain["shards"][0]
    assert doc["settings"]["max-bytes-in-flight"] == 20 * G
    j = pl.loads(json.dumps(doc))
    assert [m.capacity for m in j.members] == [m.capacity for m in c.members]
    assert [k.size for k in j.shards] == [k.size for k in c.shards]
    doc["shards"][2]["size"] = None
    assert pl.loads(json.dumps(doc)).shards[2].size is None
    doc["members"][0]["capacity"] = 0
    with pytest.raises(pl.FormatError) as e:
        pl.loads(json.dumps(doc))
    assert e.value.error.name == "E_CAPACITY"


@pytest.mark.parametrize("text,line,match", [
    ("member a capacity=0\n", 1, "capacity=0"),
    ("member a\nshard k size=10g\n", 2, "bad size '10g' for size="),
    ("member a\nshard k size=\n", 2, "needs a value"),
    ("member a\nshard k size=4097P\n", 2, "past the limit"),
    ("member a\nshard k size=513P\n", 2, "past the limit of 512P"),
    ("member a capacity=99999999999999999999999\n", 1, "past the limit"),
    ("member a capacity=1.5T\n", 1, "bad size"),
    ("set max-bytes-in=1X\nmember a\n", 1, "bad size"),
    ("set full-ratio=101\nmember a\n", 1, "full-ratio=101"),
    ("set bytes-tolerance=1001\nmember a\n", 1, "bytes-tolerance"),
    ("set bytes-balance=2\nmember a\n", 1, "on or off"),
    ("member a\nat 2 join b capacity=0\n", 2, "capacity=0"),
    ("member a\nshard k size=1P\nshard q size=511P\nshard z size=1\n", 4, "E_BYTES"),
    ("member a capacity=4096P\nmember b capacity=4097P\n", 2, "past the limit of 4096P"),
])
def test_bad_sizes_are_refused_by_their_line(text, line, match):
    with pytest.raises(pl.FormatError, match=match) as e:
        pl.loads(text)
    assert e.value.line == line, str(e.value)


def test_a_stream_lopsided_by_size_is_evened_by_exchanges():
    """Twelve leaders (RF 1) 4/4/4 by count, 120G/80G/40G by bytes: two
    exchanges of a 30G and a 10G shard between b0 and b2 even the bytes and
    keep the leaders 4/4/4."""
    members = [M("b%d" % i) for i in range(3)]
    owner = [0] * 4 + [1] * 4 + [2] * 4
    shards = [K("q/%02d" % i, stream="q", replicas=["b%d" % owner[i]], leader="b%d" % owner[i],
                size=(30 if i < 6 else 10) * G) for i in range(12)]
    plan = pl.broker_dry_run(pl.Snapshot(members, shards), max_moves=2)
    assert plan.status == "balanced"
    assert [a.reason for a in plan.actions] == ["bytes-skew"] * 4
    assert all(a.exchange and a.carries_leader and a.scope == "bytes" for a in plan.actions)
    assert [a.bytes for a in plan.actions] == [30 * G, 10 * G, 30 * G, 10 * G]
    held = {"b0": 120 * G, "b1": 80 * G, "b2": 40 * G}
    for a in plan.actions:
        held[a.from_member] -= a.bytes
        held[a.to_member] += a.bytes
    assert held == {"b0": 80 * G, "b1": 80 * G, "b2": 80 * G}
