"""placement.apply(), Action.apply() and Cluster.apply(): the caller's own
description of the cluster after a plan's actions, as the C library
documents each kind (pl_view_apply(3)) and as placement(1)'s `plan --out`
writes it."""

import glob
import os
import subprocess

import pytest

import placement as pl

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FILES = [p for p in sorted(glob.glob(os.path.join(ROOT, "tests", "placement", "golden", "*.txt")) +
                           glob.glob(os.path.join(ROOT, "tests", "bindings", "*.txt")))
         if pl.load(p).policy == "broker"]
_MOVES = ("set-leader", "move-leader", "add-replica", "move-replica")


def by_key(shards):
    return {s.key: s for s in shards}


@pytest.mark.parametrize("path", FILES, ids=os.path.basename)
def test_a_dry_run_applied_is_what_the_tool_writes(path, tool, tmp_path):
    c = pl.load(path)
    plan = c.plan()
    out = tmp_path / "out.txt"
    rc = subprocess.run([tool, "plan", "--out", str(out), path], capture_output=True).returncode
    assert rc in (0, 3)
    want = pl.load(out)
    after = c.apply(plan.actions)
    assert after.copies == [] and all(s.moving_to is None for s in after.shards)
    assert after.overrides == want.overrides
    got, exp = by_key(after.shards), by_key(want.shards)
    assert got.keys() == exp.keys()
    before = by_key(c.shards)
    for k, s in got.items():
        e = exp[k]
        assert (s.replicas, s.leader, s.out_of_sync, s.stream) == (e.replicas, e.leader, e.out_of_sync, e.stream), k
        # the epoch advances by one a replica or leader action, as its commit would
        assert s.epoch == before[k].epoch + sum(1 for a in plan.actions if a.shard == k and a.kind in _MOVES)
    # the same through placement.apply() on the shards and copies alone
    assert pl.apply(plan.actions, c.shards, c.copies) == after.shards
    # the caller's objects are not changed
    assert c == pl.load(path)
    # the layout the actions leave plans nothing more, and ends as the plan did
    again = pl.Cluster(c.members, after.shards, c.streams, after.overrides, settings=c.settings).plan()
    assert len(again.actions) == 0
    assert again.status == plan.status


def test_a_balanced_plan_applied_is_balanced():
    members = [pl.Member("b%d" % i, zone="z%d" % i) for i in range(3)]
    shards = [pl.Shard("s/%d" % i, stream="s", replicas=["b0", "b1", "b2"], leader="b0") for i in range(6)]
    plan = pl.broker_dry_run(pl.Snapshot(members, shards), max_moves=2)
    assert plan.status == "balanced" and len(plan.actions) == 4
    after = pl.apply(plan.actions, shards)
    leads = [s.leader for s in after]
    assert sorted(leads.count(m) for m in ("b0", "b1", "b2")) == [2, 2, 2]
    assert pl.broker_plan(pl.Snapshot(members, after)).status == "balanced"
    assert len(pl.broker_plan(pl.Snapshot(members, after)).actions) == 0
    # step by step with Action.apply is the same
    step = shards
    for a in plan.actions:
        step = a.apply(step)
    assert step == after


def test_move_leader_with_a_copy_takes_the_old_leaders_replica():
    c = pl.load(os.path.join(ROOT, "tests", "placement", "golden", "broker-drain-all.txt"))
    plan = c.plan()
    a = plan.actions[0]
    assert (a.kind, a.stage_first, a.shard, a.from_member, a.to_member) == ("move-leader", True, "s/0", "b0", "b2")
    before = by_key(c.shards)["s/0"]
    assert "b2" not in before.replicas and "b0" in before.replicas
    s = by_key(a.apply(c.shards))["s/0"]
    assert s.leader == "b2" and "b0" not in s.replicas and "b2" in s.replicas
    assert len(s.replicas) == len(before.replicas)
    # a hand-off to a follower (no copy) keeps the replica set
    h = plan.actions[2]
    assert (h.kind, h.stage_first) == ("move-leader", False)
    hs = by_key(h.apply(c.shards))[h.shard]
    assert hs.leader == h.to_member and hs.replicas == by_key(c.shards)[h.shard].replicas


def test_move_replica_carrying_the_leader():
    m = [pl.Member("m0"), pl.Member("m1")]
    lay = [("s/0", ["m0"], "m0"), ("s/1", ["m0"], "m0"), ("s/2", ["m1", "m0"], "m1"), ("s/3", ["m1", "m0"], "m1"),
           ("s/4", ["m0", "m1"], "m0")]
    shards = [pl.Shard(k, stream="s", replicas=r, leader=lead) for k, r, lead in lay]
    (a,) = pl.broker_plan(pl.Snapshot(m, shards)).actions
    assert (a.kind, a.shard, a.from_member, a.to_member, a.carries_leader) == ("move-replica", "s/0", "m0", "m1", True)
    s = a.apply(shards)[0]
    assert s.replicas == ("m1",) and s.leader == "m1"
    # a follower's replica moving leaves the leader where it is
    f = pl.Shard("f", replicas=["m0", "m1"], leader="m0")
    ms = [pl.Member("m0"), pl.Member("m1"), pl.Member("m2", draining=True)]
    g = pl.Shard("g", replicas=["m0", "m2"], leader="m0")
    moves = [x for x in pl.broker_dry_run(pl.Snapshot(ms, [f, g]), replication_factor=2).actions
             if x.kind == "move-replica"]
    assert moves and not moves[0].carries_leader
    after = pl.apply(moves, [f, g])[1]
    assert after.leader == "m0" and "m2" not in after.replicas and len(after.replicas) == 2


def test_moves_in_flight_count_finished_first():
    shards = [pl.Shard("k", replicas=["b0", "b1"], leader="b0", moving_to="b2"),
              pl.Shard("j", replicas=["b0", "b1"], leader="b1")]
    copies = [pl.Copy("j", "b2", from_member="b0")]
    after = pl.apply([], shards, copies)
    k, j = after
    assert k.leader == "b2" and "b0" not in k.replicas and "b2" in k.replicas and k.moving_to is None
    assert j.leader == "b1" and set(j.replicas) == {"b1", "b2"}
    added = pl.apply([], [pl.Shard("r", replicas=["n0"], leader="n0")], [pl.Copy("r", "n1")])[0]
    assert added.replicas == ("n0", "n1")


def test_an_action_that_does_not_fit_is_refused_naming_the_shard():
    members = [pl.Member("b%d" % i) for i in range(3)]
    shards = [pl.Shard("s/%d" % i, stream="s", replicas=["b0", "b1", "b2"], leader="b0") for i in range(3)]
    plan = pl.broker_plan(pl.Snapshot(members, shards))
    a = plan.actions[0]
    with pytest.raises(pl.PlacementError) as e:
        pl.apply([a, a], shards)
    assert (e.value.name, e.value.kind, e.value.id) == ("E_ACTION", "shard", a.shard)
    assert "action 1 (move-leader)" in str(e.value)
    with pytest.raises(TypeError, match=r"apply\(actions=\.\.\.\)\[0\] must be an Action"):
        pl.apply(["move-leader"], shards)
    with pytest.raises(TypeError, match=r"apply\(shards=\.\.\.\) must be a list"):
        pl.apply([], "s/0")


def test_out_of_sync_replicas_stay_so_where_they_still_are():
    members = [pl.Member("b0", zone="a", down=True), pl.Member("b1", zone="b"), pl.Member("b2", zone="c"),
               pl.Member("b3", zone="d")]
    shards = [pl.Shard("k", replicas=["b0", "b1", "b2"], leader="b0", out_of_sync=["b2"])]
    plan = pl.broker_dry_run(pl.Snapshot(members, shards))
    after = pl.apply(plan.actions, shards)[0]
    assert after.leader == "b1"
    assert after.out_of_sync == (("b2",) if "b2" in after.replicas else ())
