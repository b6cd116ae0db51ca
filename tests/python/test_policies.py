"""The policies through the binding beyond the seeds: drains and failovers,
lag moves with unmeasured loads, region stalls and the add-peer check, and
plan details named by id."""

import pytest

import placement as pl


def test_drain_and_failover_hand_leadership_on():
    members = [pl.Member("b0", draining=True), pl.Member("b1"), pl.Member("b2", down=True)]
    shards = [pl.Shard("d", replicas=["b0", "b1"], leader="b0"), pl.Shard("f", replicas=["b2", "b1"], leader="b2")]
    plan = pl.broker_plan(pl.Snapshot(members, shards), max_moves=2)
    got = {a.shard: (a.kind, a.reason, a.from_member, a.to_member) for a in plan.actions}
    assert got["d"] == ("move-leader", "drain", "b0", "b1")
    assert got["f"][1:] == ("failover", "b2", "b1")


def test_a_stalled_shard_is_named_by_its_key():
    members = [pl.Member("b0", down=True), pl.Member("b1")]
    plan = pl.broker_plan(pl.Snapshot(members, [pl.Shard("lost", replicas=["b0"], leader="b0")]))
    assert (plan.status, plan.detail, plan.detail_index, plan.blocked) == ("stalled", "lost", 0, 1)


def test_move_limit_names_no_member_or_the_member():
    s = pl.Snapshot([pl.Member("b0"), pl.Member("b1")],
                    [pl.Shard("k%d" % i, replicas=["b0", "b1"], leader="b0") for i in range(8)])
    plan = pl.broker_plan(s)
    assert plan.status == "move-limit" and plan.detail is None and plan.wanted == plan.written + 1


def test_lag_move_takes_the_busiest_shard_to_the_least_loaded():
    members = [pl.Member("a", lagging=True, load=90), pl.Member("b", load=None), pl.Member("c", load=10),
               pl.Member("d", load=40)]
    keys = ["k%02d" % i for i in range(24)]
    snap = pl.Snapshot(members, [pl.Shard(k, load=i) for i, k in enumerate(keys)])
    v = pl.View(snap)
    owned = [k for k in keys if pl.fleet_owner(v, k) == "a"]
    plan = pl.fleet_decide(v, "a", now=50)
    (a,) = plan.actions
    assert (a.kind, a.reason, a.from_member, a.to_member, a.origin) == ("set-override", "lag", "a", "c", "lag")
    assert a.shard == max(owned, key=lambda k: keys.index(k))  # the busiest of a's
    assert pl.fleet_owner(v, a.shard) == "c"
    assert v.shard_state(a.shard).override == pl.Override(a.shard, "c", "lag", 50)


def test_region_member_behind_its_map_is_a_stall_by_id():
    members = [pl.Member("a", zone="z1", map_version=5), pl.Member("b", zone="z2", map_version=1)]
    snap = pl.Snapshot(members, [pl.Shard("r", replicas=["a"], leader="a", epoch=5)])
    plan = pl.region_plan(snap, replication_factor=2)
    assert plan.actions == [] and plan.status == "stalled" and plan.detail == "r"
    (st,) = plan.stalls
    assert (st.shard, st.reason, st.step, st.member) == ("r", "not-ready", 1, "b")
    with pytest.raises(pl.PlacementError) as e:
        pl.region_check_add_peer(snap, "r", "b", 5)
    assert (e.value.name, e.value.kind, e.value.id) == ("E_NOT_READY", "member", "b")
    members[1].map_version = 5  # a new snapshot sees it: the objects were copied
    assert pl.region_plan(snap, replication_factor=2).status == "stalled"
    snap = pl.Snapshot(members, snap.shards)
    assert pl.region_check_add_peer(snap, "r", "b", 5) is None
    (a,) = pl.region_plan(snap, replication_factor=2).actions
    assert (a.kind, a.reason, a.to_member, a.stage_first, a.scope) == ("add-replica", "under-rf", "b", True, "peers")


def test_region_max_actions_and_proposals_off():
    members = [pl.Member("a", zone="z1"), pl.Member("b", zone="z2", joined_at=9)]
    snap = pl.Snapshot(members, [pl.Shard("r%d" % i, replicas=["a"], leader="a") for i in range(5)])
    plan = pl.region_plan(snap, replication_factor=2, max_actions=2)
    assert len(plan.actions) == 2 and plan.status == "action-cap" and plan.detail == "r2"
    plan = pl.region_plan(snap, replication_factor=2, add_peer_proposals=False)
    assert plan.status == "proposals-off" and all(a.kind != "add-replica" for a in plan.actions)


def test_a_lag_episode_then_return_home():
    from helpers import Fleet
    members = [pl.Member("m%d" % i, load=10 * i) for i in range(4)]
    f = Fleet(members, ["%02x" % k for k in range(32)], scorer="xxh3", cooldown=1, return_home_age=10)
    f.run()
    even = f.owned()
    members[3].lagging = True
    for _ in range(8):
        f.tick()
    assert f.lag_moves >= 4
    assert f.owned()["m3"] < even["m3"]
    members[3].lagging = False
    f.run()
    assert f.returns > 0
    assert max(f.owned().values()) - min(f.owned().values()) <= 2
