"""The answers the package gives where the tool and the other bindings give
the same: a plan's detail by id, a config error naming its field, a layout
with no eligible member as a plan status, a str refused where a list of ids
is wanted."""

import subprocess

import pytest

import placement as pl

M = pl.Member


def test_config_error_names_the_field():
    with pytest.raises(pl.PlacementError) as e:
        pl.broker_plan(pl.Snapshot([M("b0")], []), max_moves=0)
    assert (e.value.name, e.value.kind, e.value.id) == ("E_CONFIG", "config", "max_moves")
    assert "(config 'max_moves')" in str(e.value), str(e.value)
    with pytest.raises(pl.PlacementError) as e:
        pl.region_plan(pl.Snapshot([M("n0")], []), max_actions=0)
    assert "(config 'max_actions')" in str(e.value), str(e.value)


def test_detail_is_an_id():
    # drain-stalled names a shard, move-limit on max_moves_in a member
    snap = pl.Snapshot([M("b0", zone="a", draining=True), M("b1", zone="b", draining=True), M("b2", zone="c")],
                       [pl.Shard("s/0", stream="s", replicas=["b0", "b1"], leader="b0")])
    plan = pl.broker_dry_run(snap, replication_factor=2)
    assert plan.status == "drain-stalled"
    assert plan.detail == "s/0" and plan.detail_index == 0
    members = [M("b%d" % i) for i in range(3)]
    shards = [pl.Shard("s/%d" % i, stream="s", replicas=["b0", "b1", "b2"], leader="b0") for i in range(6)]
    plan = pl.broker_plan(pl.Snapshot(members, shards), max_moves=4, max_moves_out=1)
    assert plan.status == "move-limit" and plan.detail == "b0", plan


def test_detail_is_never_a_raw_index():
    # a status whose element the binding does not name has detail None
    snap = pl.Snapshot([M("b0"), M("b1")], [pl.Shard("k/%d" % i, replicas=["b0", "b1"], leader="b0")
                                            for i in range(4)])
    plan = pl.broker_plan(snap, max_moves=1)
    assert plan.status == "move-limit" and plan.detail is None and plan.detail_index is None
    plan = pl.broker_dry_run(snap, cap=1)
    assert plan.status == "full" and not isinstance(plan.detail, int)


@pytest.mark.parametrize("members", [
    [M("b0", down=True), M("b1", down=True)],
    [M("b0", draining=True), M("b1", down=True)],
])
def test_no_eligible_member_is_a_status(members):
    shards = [pl.Shard("s/0", stream="s", replicas=["b0"], leader="b0")]
    snap = pl.Snapshot(members, shards)
    for plan in (pl.broker_plan(snap), pl.broker_dry_run(snap), pl.region_plan(snap),
                 pl.fleet_decide(snap, "b0")):
        assert plan.status == "stalled", plan
        assert plan.note == pl.Plan.NO_ELIGIBLE
        assert len(plan.actions) == 0 and plan.written == 0 and plan.wanted == 1
        assert plan.detail is None
        assert "note=" in repr(plan)
    assert pl.broker_dry_run(snap).ticks == 0


def test_no_eligible_matches_the_tool(tool, tmp_path):
    f = tmp_path / "down.txt"
    f.write_text("member b0 down\nmember b1 draining\nshard s/0 replicas=b0 leader=b0\n")
    out = subprocess.run([tool, "--json", "plan", str(f)], capture_output=True, text=True)
    assert out.returncode == 3
    import json
    doc = json.loads(out.stdout)
    plan = pl.broker_dry_run(pl.load(str(f)).snapshot())
    assert (plan.status, plan.note, len(plan.actions)) == (doc["status"], doc["note"], doc["count"])


def test_a_layout_with_an_eligible_member_still_plans():
    snap = pl.Snapshot([M("b0", down=True), M("b1")], [pl.Shard("s/0", replicas=["b0", "b1"], leader="b0")])
    plan = pl.broker_plan(snap)
    assert plan.note is None and plan.status != "stalled" and len(plan.actions) == 1


@pytest.mark.parametrize("make, named", [
    (lambda: pl.Shard("k", replicas="b0,b1"), r"Shard\(replicas=\.\.\.\) must be a list, not str 'b0,b1'"),
    (lambda: pl.Shard("k", replicas=b"b0"), r"Shard\(replicas=\.\.\.\) must be a list, not bytes"),
    (lambda: pl.Shard("k", replicas=["b0"], out_of_sync="b0"), r"Shard\(out_of_sync=\.\.\.\) must be a list"),
    (lambda: pl.Snapshot("b0", []), r"Snapshot\(members=\.\.\.\) must be a list, not str"),
    (lambda: pl.Snapshot([], "k"), r"Snapshot\(shards=\.\.\.\) must be a list, not str"),
    (lambda: pl.Snapshot([], [], streams="s"), r"Snapshot\(streams=\.\.\.\) must be a list, not str"),
    (lambda: pl.Snapshot([], [], overrides="k"), r"Snapshot\(overrides=\.\.\.\) must be a list"),
    (lambda: pl.Snapshot([], [], copies="k"), r"Snapshot\(copies=\.\.\.\) must be a list"),
    (lambda: pl.Snapshot(["b0"], []), r"Snapshot\(members=\.\.\.\)\[0\] must be a Member, not str 'b0'"),
    (lambda: pl.Snapshot([], ["k"]), r"Snapshot\(shards=\.\.\.\)\[0\] must be a Shard, not str"),
])
def test_a_str_is_no_list_of_ids(make, named):
    with pytest.raises(TypeError, match=named):
        make()


def test_a_str_set_on_a_shard_later_is_refused_too():
    s = pl.Shard("k", replicas=["b0"], leader="b0")
    s.replicas = "b0"
    with pytest.raises(TypeError, match=r"Shard\(replicas=\.\.\.\) of 'k' must be a list, not str"):
        pl.Snapshot([M("b0")], [s])


def test_a_list_or_tuple_or_generator_of_ids_is_taken():
    for reps in (["b0", "b1"], ("b0", "b1"), (m for m in ("b0", "b1"))):
        s = pl.Shard("k", replicas=reps, leader="b0")
        assert s.replicas == ("b0", "b1")
