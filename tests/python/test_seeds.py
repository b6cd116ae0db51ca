"""The seeds' cases through the binding: the broker's 1/1/10 stream, the
fleet's legacy ring over streams-1..4, a one-member cluster's regions that
grow with the cluster, and the whole one-hop forwarding table."""

import itertools

import pytest

import placement as pl
from helpers import Fleet, benchmark_layout, spread


# ---- broker: the benchmark layout ---------------------------------------------------------------

def test_stream_led_1_1_10_ends_4_4_4_with_everything_within_one():
    snap = benchmark_layout()
    v = pl.View(snap)
    assert v.leaders() == {"b0": 21, "b1": 21, "b2": 19}
    assert v.leaders("perf-quorum") == {"b0": 1, "b1": 1, "b2": 10}
    plan = pl.broker_dry_run(v)
    assert plan.status == "balanced"
    assert plan.ticks == len(plan.actions)  # one move at a time
    assert len(plan.actions) >= 8  # perf-quorum 6, orders and events one each
    assert v.leaders("perf-quorum") == {"b0": 4, "b1": 4, "b2": 4}
    for s in snap.stream_ids:
        assert spread(v.leaders(s)) <= 1, s
    assert spread(v.leaders()) <= 1
    moved = [a.shard for a in plan.actions]
    assert len(moved) == len(set(moved))  # no shard moves twice
    for a in plan.actions:
        assert a.kind == "move-leader" and a.reason in ("stream-skew", "cluster-skew")
        assert "from %s to %s" % (a.from_member, a.to_member) in a.explain()


def test_red_first_totals_only_leave_the_stream_lopsided():
    v = pl.View(benchmark_layout())
    plan = pl.broker_dry_run(v, stream_balance=False)
    assert len(plan.actions) <= 1 and plan.status == "balanced"
    assert v.leaders("perf-quorum")["b2"] >= 9


def test_the_readme_example():
    members = [pl.Member("b0"), pl.Member("b1"), pl.Member("b2")]
    lead = ["b0", "b1"] + ["b2"] * 10
    shards = [pl.Shard(f"perf/{i:02}", stream="perf", replicas=["b0", "b1", "b2"], leader=lead[i])
              for i in range(12)]
    snap = pl.Snapshot(members, shards)
    plan = pl.broker_dry_run(snap, max_moves=1)
    assert plan.status == "balanced"
    assert len(plan.actions) == 6
    for a in plan.actions:
        assert (a.kind, a.from_member, a.stage_first) == ("move-leader", "b2", False)
        assert a.explain().startswith("move leader of %s from b2 to %s: stream perf leads" % (a.shard, a.to_member))
        assert str(a) == a.explain()


# ---- fleet: the legacy ring over streams-1..4 ----------------------------------------------------

def seed_fleet(n, **config):
    return Fleet([pl.Member("streams-%d" % (i + 1)) for i in range(n)], ["%02x" % k for k in range(64)], **config)


def test_legacy_ring_homes_are_the_ones_the_c_tests_pin():
    f = seed_fleet(4)
    assert f.owned() == {"streams-1": 17, "streams-2": 8, "streams-3": 7, "streams-4": 32}
    v = f.view()
    # the seed's ring: FNV-1a over "<shard> streams-<n>", highest wins
    def fnv(s):
        h = 0xCBF29CE484222325
        for b in s.encode():
            h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        return h
    for k in f.keys:
        assert v.home(k) == max(f.last, key=lambda m: fnv("%s %s" % (k, m)))


@pytest.mark.parametrize("spread_on", [False, True])
def test_independent_deciders_even_out_four_members(spread_on):
    f = seed_fleet(4, spread=spread_on)
    f.run()
    assert f.owned() == {"streams-%d" % i: 16 for i in range(1, 5)}
    assert f.moves == 17 and f.lag_moves + f.returns == 0
    assert f.ticks >= 75  # streams-4 moves once per cooldown: 16 moves


def test_independent_deciders_even_out_eight_members():
    f = seed_fleet(8)
    assert max(f.owned().values()) >= 28  # the skew the seed measured
    f.run()
    assert set(f.owned().values()) == {8}


def test_count_pass_off_stays_over_the_share():
    f = seed_fleet(4, count_balance=False)
    for _ in range(100):
        f.tick()
    assert f.owned()["streams-4"] == 32 and f.moves == 0


# ---- region: one member, then three -------------------------------------------------------------

def region_tick(snap, **config):
    """One region tick, carried out: the next snapshot holds the view's peers
    and primaries."""
    v = pl.View(snap)
    plan = pl.region_plan(v, **config)
    shards = []
    for s in snap.shards:
        st = v.shard_state(s.key)
        shards.append(pl.Shard(s.key, replicas=st.replicas, leader=st.leader, epoch=s.epoch))
    return plan, pl.Snapshot(snap.members, shards)


@pytest.mark.parametrize("rf", [1, 3, 5])
def test_one_member_cluster_regions_have_peers_self(rf):
    solo = pl.Member("solo", zone="z1", joined_at=1)
    shards = [pl.Shard("new/%d" % i) for i in range(6)] + [
        pl.Shard("own/%d" % i, replicas=["solo"], leader="solo") for i in range(4)]
    snap = pl.Snapshot([solo], shards)
    assert pl.region_effective_rf(snap, replication_factor=rf) == 1
    plan, snap = region_tick(snap, replication_factor=rf)
    assert [(a.kind, a.to_member, a.total, a.stage_first) for a in plan.actions] == [
        ("add-replica", "solo", 1, True)] * 6
    assert plan.status == "balanced" and plan.blocked == 0
    plan, snap = region_tick(snap, replication_factor=rf)
    assert [(a.kind, a.reason, a.from_member, a.to_member) for a in plan.actions] == [
        ("set-leader", "no-primary", None, "solo")] * 6
    plan, snap = region_tick(snap, replication_factor=rf)
    assert len(plan.actions) == 0 and plan.status == "balanced"
    for s in snap.shards:
        assert s.replicas == ("solo",) and s.leader == "solo"

    # growth to three members adds peers, up to min(rf, 3) each, then primaries follow
    members = [solo, pl.Member("two", zone="z2", joined_at=2), pl.Member("three", zone="z3", joined_at=3)]
    snap = pl.Snapshot(members, snap.shards)
    want = min(rf, 3)
    assert pl.region_effective_rf(snap, replication_factor=rf) == want
    added = 0
    for _ in range(50):
        plan, snap = region_tick(snap, replication_factor=rf)
        added += sum(a.kind == "add-replica" for a in plan.actions)
        if not plan.actions:
            break
    assert plan.status == "balanced"
    assert added == 10 * (want - 1)
    for s in snap.shards:
        assert len(s.replicas) == want and s.leader in s.replicas
    if want > 1:  # primaries followed the newest peer
        assert sum(s.leader == "three" for s in snap.shards) > 0


# ---- route: the one-hop forwarding table ---------------------------------------------------------

ROWS = [
    # (request, verdict, rule, status, mark, send_body)
    (dict(data_plane=False, answer="not-owner", owner_known=True), "serve", "not-data-plane", 0, False, None),
    (dict(answer="served", owner_known=True), "serve", "served", 0, False, None),
    (dict(answer="not-owner", owner_known=True), "forward", "forward", 0, True, "stream"),
    (dict(answer="not-owner", owner_known=True, body="whole"), "forward", "forward", 0, True, "frames"),
    (dict(answer="not-owner", owner_known=True, forwarded=True), "replay", "already-forwarded", 409, False, None),
    (dict(answer="not-owner", owner_known=False), "replay", "owner-unknown", 409, False, None),
    (dict(answer="not-owner", owner_known=True, body="past-limit"), "replay", "body-past-limit", 409, False, None),
    (dict(answer="not-owner", owner_known=True, body="partial"), "replay", "body-partial", 409, False, None),
    (dict(answer="not-owner", owner_known=True, outcome="refused"), "replay", "refused", 409, False, None),
    (dict(answer="not-owner", owner_known=True, body="whole", outcome="failed"), "failed", "failed-after-send", 503,
     False, None),
    (dict(answer="not-owner", owner_known=True, outcome="answered"), "relay", "owner-answered", 0, False, None),
]


@pytest.mark.parametrize("req,verdict,rule,status,mark,send", ROWS)
def test_forwarding_table_row(req, verdict, rule, status, mark, send):
    v = pl.route_decide(**req)
    assert (v.verdict, v.rule, v.status, v.mark, v.send_body) == (verdict, rule, status, mark, send)
    assert v.retry_after == (1 if verdict == "failed" else 0)


def test_forwarding_table_every_combination():
    forwards = combos = 0
    for dp, an, ok, fw, body, oc in itertools.product(
            (False, True), ("served", "not-owner"), (False, True), (False, True),
            ("unread", "whole", "past-limit", "partial"), (None, "answered", "refused", "failed")):
        combos += 1
        forwardable = dp and an == "not-owner" and ok and not fw and body in ("unread", "whole")
        kw = dict(data_plane=dp, answer=an, owner_known=ok, forwarded=fw, body=body, outcome=oc)
        if oc is not None and not forwardable:
            with pytest.raises(pl.PlacementError) as e:
                pl.route_decide(**kw)
            assert (e.value.name, e.value.kind, e.value.index, e.value.id) == (
                "E_ROUTE_OUTCOME", "config", 6, "outcome")
            continue
        v = pl.route_decide(**kw)
        if fw:
            assert v.verdict != "forward"
        assert (v.verdict == "forward") == (forwardable and oc is None)
        assert v.mark == (v.verdict == "forward")
        assert (v.verdict == "failed") == (oc == "failed")
        assert (v.status == 409) == (v.verdict == "replay")
        if not dp or an != "not-owner":
            assert v.verdict == "serve"
        forwards += v.verdict == "forward"
    assert (combos, forwards) == (256, 2)


def test_route_lookup_owner_home_and_self():
    f = seed_fleet(4)
    v = f.view()
    for k in f.keys[:8]:
        home = v.home(k)
        o = pl.route_lookup(v, k, member=home)
        assert (o.owner, o.home, o.shard, o.is_self) == (home, home, k, True)
    o = pl.route_lookup(v, "not-a-shard")
    assert o.shard is None and o.owner == o.home and not o.is_self
