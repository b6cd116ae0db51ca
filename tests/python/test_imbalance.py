"""View.imbalance(): pl_view_imbalance() under each measure, on layouts
counted by hand (as tests/view/check_imbalance.c counts them), and the
refusal of an unknown measure."""

import pytest

import placement as pl


def members(n):
    return [pl.Member("b%d" % i, zone="z%d" % i) for i in range(n)]


def test_balanced_is_zero():
    shards = [pl.Shard("s/%d" % k, stream="s", replicas=["b%d" % k, "b%d" % ((k + 1) % 3)], leader="b%d" % k)
              for k in range(3)]
    v = pl.View(pl.Snapshot(members(3), shards))
    for m in ("broker", "leaders", "replicas"):
        assert v.imbalance(m) == pl.Imbalance(0, 0, 0)


def test_members_not_eligible():
    # b2 draining and b3 down lead one shard each: their leaders count; the
    # draining member's replica counts, the down member's does not
    ms = members(4)
    ms[2] = pl.Member("b2", zone="z2", draining=True)
    ms[3] = pl.Member("b3", zone="z3", down=True)
    shards = [pl.Shard("s/0", stream="s", replicas=["b2", "b0"], leader="b2"),
              pl.Shard("s/1", stream="s", replicas=["b3", "b1"], leader="b3")]
    v = pl.View(pl.Snapshot(ms, shards))
    assert v.imbalance("leaders") == (8, 4, 4)
    assert v.imbalance() == (10, 5, 5)
    assert v.imbalance("replicas") == (0, 0, 0)


def test_owned_and_applied_actions():
    shards = [pl.Shard("k%d" % k) for k in range(4)]
    v = pl.View(pl.Snapshot(members(2), shards, overrides=[pl.Override("k%d" % k, "b0") for k in range(4)]))
    assert v.imbalance("owned") == pl.Imbalance(total=4, totals=4, streams=0)
    # a view counts the actions applied to it
    shards = [pl.Shard("s/%d" % k, stream="s", replicas=["b0", "b1"], leader="b0") for k in range(4)]
    snap = pl.Snapshot(members(3), shards)
    v = pl.View(snap)
    assert v.imbalance() == (16, 8, 8)
    for a in pl.broker_dry_run(snap).actions:
        v.apply(a)
    assert v.imbalance().total < 16


def test_unknown_measure():
    v = pl.View(pl.Snapshot(members(1), []))
    with pytest.raises(ValueError, match="measure"):
        v.imbalance("cluster")
    with pytest.raises(ValueError):
        v.imbalance(1)
