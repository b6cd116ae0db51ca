"""The tolerances and the zone rule (snapshot version 5, broker config
version 4): Stream(tolerance=, zones=) fill the snapshot's arrays only when
a stream sets one, broker_plan(tolerance=, stream_tolerance=) widen the
bounds, each refusal surfaces with its name and element, and placement(5)'s
`set tolerance=`, `set stream-tolerance=` and `stream ID tolerance=N
zones=...` are read and written back as the tool does."""

import ctypes
import json
import os
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import placement as pl
from placement import _config, _ffi

M, K, S = pl.Member, pl.Shard, pl.Stream


def skewed(stream=None):
    """3 members, one stream of 12 shards (rf 1) led 5/4/3: its floor and
    ceiling, and the totals', are 4 on every member, so each is one shard
    off without a tolerance."""
    counts = {"b0": 5, "b1": 4, "b2": 3}
    shards = [K("s/%s%d" % (m, i), stream="s", replicas=[m], leader=m) for m, n in counts.items() for i in range(n)]
    return pl.Snapshot([M(m) for m in counts], shards, streams=[stream if stream is not None else "s"])


def rules(snap):
    n = len(snap.streams)
    tol = zones = None
    if snap._c.stream_tolerance:
        tol = list(ctypes.cast(snap._c.stream_tolerance, ctypes.POINTER(ctypes.c_uint32))[:n])
    if snap._c.stream_zone_rule:
        zones = list(ctypes.cast(snap._c.stream_zone_rule, ctypes.POINTER(ctypes.c_uint32))[:n])
    return tol, zones


def test_versions_and_defaults():
    assert pl.Snapshot([M("a")], [])._c.version == _ffi.PL_SNAPSHOT_VERSION == 5
    assert _config.fresh("broker").version == _ffi.PL_BROKER_CONFIG_VERSION == 4
    d = pl.defaults("broker")
    assert (d["tolerance"], d["stream_tolerance"]) == (0, 0)
    assert S("s") == S("s", tolerance=None, zones="span") and repr(S("s")) == "Stream('s')"
    assert S("s", tolerance=0) != S("s") and S("s", zones="majority") != S("s")
    assert repr(S("s", tolerance=2, zones="majority")) == "Stream('s', tolerance=2, zones='majority')"


def test_arrays_only_when_a_stream_sets_a_rule_and_then_in_full():
    snap = pl.Snapshot([M("a")], [], streams=["s", S("t")])
    assert rules(snap) == (None, None)
    snap = pl.Snapshot([M("a")], [], streams=["s", S("t", tolerance=3), S("u", zones="majority")])
    assert rules(snap) == ([_ffi.PL_TOLERANCE_DEFAULT, 3, _ffi.PL_TOLERANCE_DEFAULT],
                           [_ffi.PL_ZONES_SPAN, _ffi.PL_ZONES_SPAN, _ffi.PL_ZONES_MAJORITY])
    assert snap.streams[1] == S("t", tolerance=3) and snap.stream_ids == ("s", "t", "u")
    # streams taken from the shards keep the rules of a Stream given there
    snap = pl.Snapshot([M("a")], [K("k", stream=S("t", tolerance=0), replicas=["a"], leader="a")])
    assert snap.streams == (S("t", tolerance=0),) and rules(snap) == ([0], None)


def test_without_tolerance_the_broker_moves():
    plan = pl.broker_dry_run(skewed(), replication_factor=1)
    assert plan.actions and plan.status == "balanced"
    assert [(a.kind, a.from_member, a.to_member) for a in plan.actions] == [("move-leader", "b0", "b2")]


@pytest.mark.parametrize("stream,config", [
    (None, dict(tolerance=1, stream_tolerance=1)),                  # the config's for every stream
    (S("s", tolerance=1), dict(tolerance=1)),                        # the stream's own
    (S("s", tolerance=1), dict(tolerance=1, stream_tolerance=0)),
    (S("s", tolerance=pl._ffi.PL_MAX_TOLERANCE), dict(tolerance=pl._ffi.PL_MAX_TOLERANCE)),
])
def test_a_layout_within_the_widened_bounds_moves_nothing(stream, config):
    plan = pl.broker_dry_run(skewed(stream), replication_factor=1, **config)
    assert list(plan.actions) == [] and plan.status == "balanced"
    assert pl.broker_plan(skewed(stream), replication_factor=1, **config).status == "balanced"


@pytest.mark.parametrize("stream,config", [
    (None, dict(tolerance=1)),                                        # the stream's bounds are not widened
    (None, dict(stream_tolerance=1)),                                 # nor the totals'
    (S("s", tolerance=0), dict(tolerance=1, stream_tolerance=1)),     # the stream's tolerance over the config's
])
def test_a_bound_not_widened_still_moves(stream, config):
    plan = pl.broker_dry_run(skewed(stream), replication_factor=1, **config)
    assert [(a.kind, a.from_member, a.to_member) for a in plan.actions] == [("move-leader", "b0", "b2")]


def test_the_majority_rule_is_carried_and_planned():
    # the policy's reading of it is the library's: here only that a snapshot
    # carrying it plans
    snap = skewed(S("s", zones="majority"))
    assert rules(snap) == (None, [_ffi.PL_ZONES_MAJORITY])
    assert pl.broker_dry_run(snap, replication_factor=1).status == "balanced"


@pytest.mark.parametrize("field,index,value", [
    ("tolerance", 17, _ffi.PL_MAX_TOLERANCE + 1),
    ("stream_tolerance", 18, _ffi.PL_MAX_TOLERANCE + 1),
    ("tolerance", 17, 1 << 32),        # no uint32_t holds it: refused before the call
    ("stream_tolerance", 18, 1 << 32),
])
def test_a_config_tolerance_past_its_limit_is_refused_naming_the_field(field, index, value):
    with pytest.raises(pl.PlacementError) as e:
        pl.broker_plan(skewed(), **{field: value})
    assert (e.value.name, e.value.kind, e.value.index, e.value.id) == ("E_CONFIG", "config", index, field)


def test_stream_rule_refusals_name_the_stream():
    with pytest.raises(pl.PlacementError) as e:
        pl.Snapshot([M("a")], [], streams=["s", S("t", tolerance=_ffi.PL_MAX_TOLERANCE + 1)])
    assert (e.value.name, e.value.kind, e.value.index, e.value.id) == ("E_TOLERANCE", "stream", 1, "t")
    with pytest.raises(pl.PlacementError) as e:
        pl.Snapshot([M("a")], [], streams=[S("s", zones="most")])
    assert (e.value.name, e.value.kind, e.value.index, e.value.id) == ("E_ZONE_RULE", "stream", 0, "s")
    assert "zones='most'" in str(e.value)
    with pytest.raises(pl.PlacementError) as e:
        pl.Snapshot([M("a")], [], streams=[S("s", tolerance=-1)])
    assert (e.value.name, e.value.kind, e.value.id) == ("E_INVAL", "stream", "s")
    with pytest.raises(TypeError):
        pl.Snapshot([M("a")], [], streams=[S("s", tolerance="2")])
    # PL_TOLERANCE_DEFAULT is the default, not a tolerance past the limit
    pl.Snapshot([M("a")], [], streams=[S("s", tolerance=_ffi.PL_TOLERANCE_DEFAULT)])


TEXT = """set policy=broker rf=1 tolerance=1 stream-tolerance=2
member b0
member b1
stream s tolerance=3 zones=majority
stream t zones=span
stream u
shard k stream=s replicas=b0 leader=b0
"""


def test_file_settings_and_stream_attributes_round_trip(tool):
    c = pl.loads(TEXT)
    assert c.settings["tolerance"] == 1 and c.settings["stream-tolerance"] == 2
    assert c.config() == {"replication_factor": 1, "tolerance": 1, "stream_tolerance": 2}
    assert c.streams == [S("s", tolerance=3, zones="majority"), S("t"), S("u")]
    text = pl.dumps(c)
    assert "set tolerance=1\nset stream-tolerance=2\n" in text
    assert "\nstream s tolerance=3 zones=majority\nstream t\nstream u\n" in text
    assert pl.loads(text) == c
    assert rules(c.snapshot()) == ([3, _ffi.PL_TOLERANCE_DEFAULT, _ffi.PL_TOLERANCE_DEFAULT],
                                   [_ffi.PL_ZONES_MAJORITY, _ffi.PL_ZONES_SPAN, _ffi.PL_ZONES_SPAN])
    # the tool writes the same file back from the text as from ours
    fmt = lambda data: subprocess.run([tool, "format", "-"], input=data.encode("ascii"),  # noqa: E731
                                      capture_output=True, check=True).stdout
    assert fmt(text) == fmt(TEXT)
    # a Snapshot dumps with its streams' rules
    assert "stream s tolerance=3 zones=majority" in pl.dumps(c.snapshot())


def test_the_tools_tolerance_golden_plans_alike(root, tool):
    path = os.path.join(root, "tests", "placement", "golden", "tolerance.txt")
    c = pl.load(path)
    assert c.settings["tolerance"] == 1 and c.streams[0] == S("s", tolerance=2)
    plan = c.plan()
    assert [(a.kind, a.shard, a.from_member, a.to_member) for a in plan.actions] == [
        ("move-leader", "s/a6", "b0", "b2"), ("move-leader", "s/a5", "b0", "b2")]
    # the totals' tolerance set to 0 as the tool's --set does: the tool's plan, and more moves
    out = subprocess.run([tool, "--json", "plan", "--set", "tolerance=0", path], capture_output=True).stdout
    want = [(a["kind"], a["shard"], a["from"], a["to"]) for a in json.loads(out)["actions"]]
    got = [(a.kind, a.shard, a.from_member, a.to_member) for a in c.plan(tolerance=0).actions]
    assert got == want and len(got) > len(plan.actions)


@pytest.mark.parametrize("text,line,words", [
    ("member a\nstream s zones=most\n", 2, "zones= is span or majority, not 'most'"),
    ("member a\nstream s tolerance=67108865\n", 2, "past the limit of 67108864"),
    ("member a\nstream s tolerance=x\n", 2, "bad number"),
    ("member a\nstream s x=1\n", 2, "stream takes an id and tolerance=, zones= or keep, not 'x=1'"),
    ("member a\nstream s tolerance=1 tolerance=2\n", 2, "given twice"),
    ("member a\nstream s zones\n", 2, "zones needs a value"),
    ("set tolerance=67108865\nmember a\n", 1, "E_CONFIG"),
    ("set stream-tolerance=67108865\nmember a\n", 1, "E_CONFIG"),
])
def test_bad_stream_attributes_and_settings_are_refused_by_line(text, line, words):
    with pytest.raises(pl.FormatError) as e:
        pl.loads(text)
    assert e.value.line == line and words in str(e.value), str(e.value)


_RULES = st.tuples(st.one_of(st.none(), st.integers(0, _ffi.PL_MAX_TOLERANCE)), st.sampled_from(["span", "majority"]))


@settings(max_examples=50, deadline=None)
@given(st.lists(_RULES, min_size=1, max_size=5), st.integers(0, _ffi.PL_MAX_TOLERANCE),
       st.integers(0, _ffi.PL_MAX_TOLERANCE))
def test_any_rules_round_trip_through_the_text(rules_, tol, stol):
    streams = [S("s%d" % i, tolerance=t, zones=z) for i, (t, z) in enumerate(rules_)]
    c = pl.Cluster([M("a")], [K("k", stream="s0", replicas=["a"], leader="a")], streams,
                   settings={"tolerance": tol, "stream-tolerance": stol})
    back = pl.loads(pl.dumps(c))
    assert back == c
    tols, zones = rules(back.snapshot())
    want_t = [_ffi.PL_TOLERANCE_DEFAULT if t is None else t for t, _ in rules_]
    assert tols == (want_t if any(t is not None for t, _ in rules_) else None)
    want_z = [_ffi.ZONE_RULES[z] for _, z in rules_]
    assert zones == (want_z if any(z != "span" for _, z in rules_) else None)
    assert back.plan().status == "balanced"


def test_a_cluster_takes_its_streams_with_their_rules_from_the_shards():
    c = pl.Cluster([M("a")], [K("k", stream=S("s", tolerance=1), replicas=["a"], leader="a")])
    assert c.streams == [S("s", tolerance=1)] and rules(c.snapshot()) == ([1], None)
