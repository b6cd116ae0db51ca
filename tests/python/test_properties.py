"""Properties of the binding on random layouts (Hypothesis; a failure prints
the layout and the @reproduce_failure blob that replays it):

 - results do not depend on the order of the input lists;
 - the binding's broker dry run equals `placement plan --json`, the tool
   `make` builds, on the same layout written as a placement(5) file;
 - an invalid layout raises PlacementError naming the offending id.
"""

import json
import os
import subprocess
import tempfile

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import placement as pl
from layouts import layouts, to_text


def _steps(plan):
    return [(a.kind, a.reason, a.shard, a.stream, a.from_member, a.to_member, a.stage_first) for a in plan.actions]


def _shuffled(draw_perm, members, streams, shards, ovs, replicas=False):
    members, streams, shards, ovs = (draw_perm(x) for x in (members, streams, shards, ovs))
    if replicas:
        shards = [pl.Shard(s.key, stream=s.stream, replicas=draw_perm(list(s.replicas)), leader=s.leader)
                  for s in shards]
    return members, streams, shards, ovs


broker_config = st.fixed_dictionaries({
    "max_moves": st.sampled_from([1, 1, 2, 5]),
    "replication_factor": st.integers(1, 3),
    "stream_balance": st.booleans(),
    "replica_balance": st.booleans(),
    "handoff_only": st.sampled_from([False, False, True]),
})


@given(layout=layouts(overrides=True), data=st.data(), config=broker_config)
@settings(max_examples=80)
def test_results_do_not_depend_on_the_order_of_the_lists(layout, data, config):
    members, streams, shards, ovs = layout
    perm = lambda xs: data.draw(st.permutations(xs))  # noqa: E731
    other = _shuffled(perm, members, streams, shards, ovs, replicas=True)
    a = pl.Snapshot(members, shards, streams, ovs)
    b = pl.Snapshot(other[0], other[2], other[1], other[3])
    assert _steps(pl.broker_dry_run(a, **config)) == _steps(pl.broker_dry_run(b, **config))
    assert pl.fleet_owners(a) == pl.fleet_owners(b)
    va, vb = pl.View(a), pl.View(b)
    for m in members:
        assert va.member_tally(m.id) == vb.member_tally(m.id)
    assert va.order("member") == vb.order("member")
    assert va.order("shard") == vb.order("shard")
    for m in members:
        fa, fb = pl.fleet_decide(va.copy(), m.id, now=100), pl.fleet_decide(vb.copy(), m.id, now=100)
        assert _steps(fa) == _steps(fb) and fa.status == fb.status
    ra, rb = pl.region_plan(a, max_actions=64), pl.region_plan(b, max_actions=64)
    assert _steps(ra) == _steps(rb) and ra.status == rb.status
    assert [(s.shard, s.reason) for s in ra.stalls] == [(s.shard, s.reason) for s in rb.stalls]


@given(layout=layouts(), config=broker_config)
@settings(max_examples=60)
def test_dry_run_equals_the_placement_tool(tool, layout, config):
    members, streams, shards, _ = layout
    snap = pl.Snapshot(members, shards, streams)
    plan = pl.broker_dry_run(snap, **config)
    settings_ = {"policy": "broker", "max-moves": config["max_moves"], "rf": config["replication_factor"],
                 "stream-balance": "on" if config["stream_balance"] else "off",
                 "replica-balance": "on" if config["replica_balance"] else "off",
                 "handoff-only": "on" if config["handoff_only"] else "off"}
    text = to_text(members, streams, shards, settings_)
    note(text)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
        f.write(text)
    try:
        out = subprocess.run([tool, "--json", "plan", f.name], capture_output=True, text=True, encoding="utf-8")
    finally:
        os.unlink(f.name)
    # placement(1) exits 3 when the plan ends blocked or stalled (its EXIT STATUS)
    assert out.returncode in (0, 3), out.stderr
    doc = json.loads(out.stdout)
    assert (out.returncode == 3) == doc["blocked"]
    theirs = [(a["kind"], a["shard"], a["from"], a["to"]) for a in doc["actions"]]
    ours = [(a.kind, a.shard, a.from_member, a.to_member) for a in plan.actions]
    assert ours == theirs
    assert [a["explain"] for a in doc["actions"]] == [a.explain() for a in plan.actions]
    assert doc["status"] == plan.status
    assert doc["ticks"] == plan.ticks


# One fault in a valid layout: (name, expected error, how to inject it).
def _fault_dup_member(m, s, k, o, d):
    i = d.draw(st.integers(0, len(m) - 1))
    return m + [pl.Member(m[i].id)], s, k, o, ("E_DUP_MEMBER", "member", m[i].id)


def _fault_empty_member(m, s, k, o, d):
    return m + [pl.Member("")], s, k, o, ("E_EMPTY_ID", "member", "")


def _fault_weight(m, s, k, o, d):
    i = d.draw(st.integers(0, len(m) - 1))
    m = list(m)
    m[i] = pl.Member(m[i].id, weight=d.draw(st.integers(pl._ffi.PL_MAX_WEIGHT + 1, 2 ** 32 - 1)))
    return m, s, k, o, ("E_WEIGHT", "member", m[i].id)


def _fault_long_id(m, s, k, o, d):
    bad = "x" * (pl._ffi.PL_MAX_ID_LEN + 1)
    return m + [pl.Member(bad)], s, k, o, ("E_LENGTH", "member", bad)


def _fault_dup_stream(m, s, k, o, d):
    return m, s + [pl.Stream(s[0].id)], k, o, ("E_DUP_STREAM", "stream", s[0].id)


def _fault_dup_shard(m, s, k, o, d):
    i = d.draw(st.integers(0, len(k) - 1))
    return m, s, k + [pl.Shard(k[i].key)], o, ("E_DUP_SHARD", "shard", k[i].key)


def _fault_unknown_replica(m, s, k, o, d):
    key = "\x00new"
    return m, s, k + [pl.Shard(key, replicas=[m[0].id, "\x00nobody"])], o, ("E_MEMBER_RANGE", "shard", key)


def _fault_unknown_stream(m, s, k, o, d):
    key = "\x00new"
    return m, s, k + [pl.Shard(key, stream="\x00nostream")], o, ("E_STREAM_RANGE", "shard", key)


def _fault_leader(m, s, k, o, d):
    key = "\x00new"
    return m, s, k + [pl.Shard(key, replicas=[], leader=m[0].id)], o, ("E_LEADER_NOT_REPLICA", "shard", key)


def _fault_dup_replica(m, s, k, o, d):
    key = "\x00new"
    return m, s, k + [pl.Shard(key, replicas=[m[0].id, m[0].id])], o, ("E_DUP_REPLICA", "shard", key)


def _fault_move_target(m, s, k, o, d):
    key = "\x00new"
    return m, s, k + [pl.Shard(key, replicas=[m[0].id], moving_to=m[0].id)], o, ("E_MOVE_TARGET", "shard", key)


def _fault_override_shard(m, s, k, o, d):
    return m, s, k, o + [pl.Override("\x00gone", m[0].id)], ("E_OVERRIDE_SHARD", "override", "\x00gone")


def _fault_override_member(m, s, k, o, d):
    return m, s, k, o + [pl.Override(k[0].key, "\x00gone")], ("E_OVERRIDE_MEMBER", "override", k[0].key)


FAULTS = [_fault_dup_member, _fault_empty_member, _fault_weight, _fault_long_id, _fault_dup_stream, _fault_dup_shard,
          _fault_unknown_replica, _fault_unknown_stream, _fault_leader, _fault_dup_replica, _fault_move_target,
          _fault_override_shard, _fault_override_member]


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.__name__[7:])
@given(layout=layouts(), data=st.data())
@settings(max_examples=25)
def test_invalid_layouts_name_the_offending_id(fault, layout, data):
    members, streams, shards, _ = layout
    if fault in (_fault_dup_stream,) and not streams:
        streams = [pl.Stream("s")]
    if fault in (_fault_dup_shard, _fault_override_member) and not shards:
        shards = [pl.Shard("k")]
    m, s, k, o, (name, kind, ident) = fault(members, streams, shards, [], data)
    with pytest.raises(pl.PlacementError) as e:
        pl.Snapshot(m, k, s, o)
    err = e.value
    assert (err.name, err.kind, err.id) == (name, kind, ident), str(err)
    assert err.code == pl.error_codes()[name]
    assert err.message == pl.strerror(err.code)
    assert pl._errors._show(ident) in str(err) or kind == "member" and ident == ""


# ---- anything at all: nothing crashes across the FFI --------------------------------------------

_any_id = st.one_of(st.sampled_from(["a", "b", "c", "s", "k", ""]), st.binary(max_size=3))
_u32 = st.one_of(st.integers(0, 5), st.just(2 ** 32 - 1), st.integers(0, 2 ** 32 - 1))


@st.composite
def anything(draw):
    """Layouts that are mostly valid, with any fault the generator can make:
    duplicate and empty ids, unknown references, too many replicas, weights
    and caps at their extremes, leaders off their replicas, bad origins."""
    pick = lambda xs: draw(st.sampled_from(xs))  # noqa: E731
    m_ids = draw(st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=draw(st.sampled_from([0, 1, 1, 1])),
                          max_size=5, unique=True))
    if draw(st.integers(0, 9)) == 0:
        m_ids.append(draw(_any_id))
    members = [pl.Member(m, zone=pick([None, "z", b"", "y"]), weight=pick([1] * 8 + [2, 0, 2 ** 32 - 1]),
                         max_shards=pick([0, 0, 1, 3, 2 ** 32 - 1]), down=draw(st.integers(0, 5)) == 0,
                         draining=draw(st.integers(0, 5)) == 0, lagging=draw(st.integers(0, 5)) == 0,
                         load=pick([None, 0, 7, 2 ** 64 - 1]), map_version=draw(st.integers(0, 3)))
               for m in m_ids]
    def rare(common, odd):
        """common, or once in 12 draws, odd."""
        return st.integers(0, 11).flatmap(lambda i: odd if i == 0 else common)
    mref = rare(st.sampled_from(m_ids or ["a"]), _any_id)
    s_ids = draw(st.lists(st.sampled_from(["s", "t", "u"]), max_size=3, unique=True))
    sref = rare(st.sampled_from([None] + s_ids), _any_id)
    keys = draw(st.lists(st.sampled_from(["k%d" % i for i in range(12)]), max_size=10, unique=True))
    if draw(st.integers(0, 9)) == 0:
        keys.append(draw(_any_id))
    shards = []
    for k in keys:
        reps = draw(st.lists(mref, max_size=pick([2, 3, 9]) if m_ids else 0, unique=draw(st.integers(0, 5)) > 0))
        lead = draw(rare(st.sampled_from([None] + reps * 3), mref))
        shards.append(pl.Shard(k, stream=draw(sref), replicas=reps, leader=lead,
                               moving_to=draw(rare(st.none(), mref)),
                               epoch=draw(st.integers(0, 3)), load=draw(st.integers(0, 9)),
                               not_idempotent=draw(st.integers(0, 5)) == 0, transfer_debt=draw(st.integers(0, 5)) == 0))
    streams = draw(rare(st.sampled_from([None, s_ids]), st.lists(_any_id, max_size=3)))
    kref = rare(st.sampled_from(keys or ["k0"]), _any_id)
    ovs = [pl.Override(draw(kref), draw(mref), origin=pick(["lag", "count"] * 5 + ["x", 5]),
                       since=draw(st.integers(0, 9))) for _ in range(draw(st.integers(0, 3)) if keys else 0)]
    copies = [pl.Copy(draw(kref), draw(mref), draw(st.one_of(st.none(), mref))) for _ in range(draw(st.integers(0, 2)))]
    return members, shards, streams, ovs, copies


@given(data=anything(), cfg=st.data())
@settings(max_examples=200)
def test_any_input_raises_placement_error_or_works(data, cfg):
    members, shards, streams, ovs, copies = data
    try:
        snap = pl.Snapshot(members, shards, streams, ovs, copies)
    except pl.PlacementError as e:
        assert e.name.startswith("E_") and e.code < 0
        return
    try:
        v = pl.View(snap, scorer=cfg.draw(st.sampled_from(["xxh3", "legacy", "nope"])))
    except pl.PlacementError as e:
        assert e.name == "E_SCORER"
        v = pl.View(snap)
    note("valid")
    calls = [
        lambda: pl.broker_dry_run(v.copy(), max_moves=cfg.draw(st.integers(0, 300)),
                                  replication_factor=cfg.draw(st.integers(0, 9)),
                                  max_moves_in=cfg.draw(_u32), paused=cfg.draw(st.integers(0, 2))),
        lambda: pl.broker_plan(v.copy()),
        lambda: pl.fleet_decide(v.copy(), cfg.draw(st.sampled_from(members)).id if members else "a",
                                now=cfg.draw(st.integers(0, 2 ** 64 - 1)), moves_per_decision=cfg.draw(_u32),
                                cooldown=cfg.draw(st.integers(0, 9)), return_home_age=cfg.draw(st.integers(0, 9))),
        lambda: pl.region_plan(v.copy(), replication_factor=cfg.draw(st.integers(0, 9)),
                               max_actions=cfg.draw(_u32), load_balance=cfg.draw(st.integers(0, 2)),
                               load_threshold=cfg.draw(st.integers(0, 100))),
        lambda: pl.fleet_owners(v),
        lambda: [v.home(s.key) for s in shards],
        lambda: v.top(cfg.draw(_any_id), cfg.draw(st.integers(0, 10))),
        lambda: pl.route_lookup(v, cfg.draw(_any_id)),
        lambda: pl.fleet_doc_read(v, cfg.draw(st.binary(max_size=40))),
        lambda: pl.fleet_doc_read(v, pl.fleet_doc_format(v)),
        lambda: [pl.region_check_add_peer(v, s.key, m.id, cfg.draw(st.integers(0, 3)))
                 for s in shards for m in members],
        lambda: [v.shard_state(s.key) for s in shards] + [v.member_tally(m.id) for m in members],
    ]
    for call in calls:
        try:
            out = call()
        except pl.PlacementError as e:
            assert e.name.startswith("E_") and e.code < 0
            continue
        if isinstance(out, pl.Plan):
            for a in out.actions:
                assert a.explain()
