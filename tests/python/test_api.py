"""The rest of the surface: defaults from the C *_init() calls, keywords,
views and their queries, the override document, hash vectors, actions as
values, and the package's version."""

import os

import pytest

import placement as pl
from placement import _ffi


def three(**kw):
    return pl.Snapshot([pl.Member("b0"), pl.Member("b1"), pl.Member("b2")],
                       [pl.Shard("s/%02d" % i, stream="s", replicas=["b0", "b1", "b2"], leader="b2") for i in range(6)],
                       **kw)


def test_version_is_the_library_version(root):
    head = open(os.path.join(root, "include", "placement", "version.h")).read()
    want = ".".join(head.split("#define PL_VERSION_%s " % p)[1].split()[0] for p in ("MAJOR", "MINOR", "PATCH"))
    assert pl.__version__ == want == _ffi.lib.pl_version().decode()


def test_defaults_come_from_the_c_init_calls():
    assert pl.defaults("broker") == {"max_moves": 1, "max_moves_in": 0, "max_moves_out": 0, "paused": 0,
                                     "replication_factor": 3, "stream_balance": 1, "replica_balance": 1,
                                     "handoff_only": 0, "bytes_balance": 1, "bytes_first": 0, "full_ratio": 90,
                                     "bytes_tolerance": 10, "max_bytes_in_flight": 0, "max_bytes_in": 0,
                                     "max_bytes_out": 0, "tolerance": 0, "stream_tolerance": 0}
    assert pl.defaults("fleet") == {"now": 0, "last_move": None, "cooldown": 5, "moves_per_decision": 1,
                                    "spread": 1, "return_home_age": 300, "count_balance": 1}
    assert pl.defaults("region") == {"replication_factor": 3, "add_peer_proposals": 1, "load_balance": 0,
                                     "load_threshold": 25, "max_actions": 16}
    assert pl.defaults("route")["data_plane"] == 1


@pytest.mark.parametrize("fn,kw", [
    (pl.broker_plan, {"max_moves": 0}), (pl.broker_plan, {"paused": 2}), (pl.broker_plan, {"replication_factor": 9}),
    (pl.broker_dry_run, {"max_moves": 257}), (pl.region_plan, {"load_threshold": 100}),
    (pl.region_plan, {"max_actions": 0}), (lambda s, **k: pl.fleet_decide(s, "b0", **k), {"spread": 2}),
    (lambda s, **k: pl.fleet_decide(s, "b0", **k), {"moves_per_decision": 0}),
])
def test_a_value_the_c_validator_refuses(fn, kw):
    with pytest.raises(pl.PlacementError) as e:
        fn(three(), **kw)
    (field,) = kw
    assert (e.value.name, e.value.kind, e.value.id) == ("E_CONFIG", "config", field)


@pytest.mark.parametrize("fn", [pl.broker_plan, pl.broker_dry_run, pl.region_plan, pl.region_effective_rf,
                                lambda s, **k: pl.fleet_decide(s, "b0", **k)])
def test_unknown_keyword_is_a_type_error(fn):
    with pytest.raises(TypeError):
        fn(three(), no_such_field=1)
    with pytest.raises(TypeError):
        fn(three(), version=1)


def test_paused_starts_no_move_and_keywords_reach_the_call():
    plan = pl.broker_plan(three(), paused=True)
    assert plan.actions == [] and plan.status == "paused" and plan.wanted == 1
    plan = pl.broker_plan(three(), max_moves=2)
    assert len(plan.actions) == 2 and plan.status == "move-limit"


def test_view_queries():
    s = three()
    v = pl.View(s)
    c = v.counts()
    assert (c.members, c.live, c.eligible, c.streams, c.shards, c.scorer, c.share) == (3, 3, 3, 1, 6, "xxh3", 2)
    assert c.copies == 0 and c.moving == 0
    assert v.member_tally("b2") == pl.Tally(6, 6, 2, 2, 6)
    assert v.stream_tally("s", "b0") == pl.Tally(0, 6, 2, 2, 6)
    assert v.find("member", "b1") == 1 and v.find("shard", "nope") is None
    assert v.order("member") == ["b0", "b1", "b2"] and v.at("shard", 5) == "s/05"
    top = v.top("any key", 3)
    assert sorted(top) == ["b0", "b1", "b2"]
    assert v.top("s/00", 1) == [v.home("s/00")]
    st = v.shard_state("s/00")
    assert st == pl.ShardState("b2", ("b0", "b1", "b2"), False, None, 0)
    assert pl.View(s, scorer="legacy").counts().scorer == "legacy"
    with pytest.raises(TypeError):
        v.home(0)  # by id, not by index


def test_view_max_replicas_sizes_the_view_and_keeps_the_answers():
    s = three()  # RF 3
    full, small = pl.View(s), pl.View(s, max_replicas=3)
    assert small._size < full._size
    assert pl.View(s, max_replicas=1)._size == small._size  # the snapshot's 3 replicas raise it
    assert pl.broker_plan(small).actions == pl.broker_plan(full).actions
    assert small.shard_state("s/00") == full.shard_state("s/00")
    assert small.copy()._size == small._size
    with pytest.raises(pl.PlacementError) as e:
        pl.broker_plan(pl.View(s, max_replicas=3), replication_factor=4)
    assert (e.value.name, e.value.kind, e.value.id) == ("E_REPLICA_ROOM", "config", "replication_factor")
    with pytest.raises(pl.PlacementError) as e:
        pl.View(s, max_replicas=9)
    assert (e.value.name, e.value.kind, e.value.id) == ("E_CONFIG", "config", "max_replicas")
    with pytest.raises(TypeError):
        pl.View(s, max_replicas="3")


def test_plan_apply_settle_and_actions_as_values():
    s = three()
    v = pl.View(s)
    plan = pl.broker_plan(v)
    (a,) = plan.actions
    assert a.kind == "move-leader" and a.reason == "stream-skew" and a.from_member == "b2" and a.stream == "s"
    assert (a.scope, a.from_count, a.to_count, a.floor, a.ceiling, a.total) == ("stream", 6, 0, 2, 2, 6)
    assert a.origin is None and a.stage_first is False
    assert v.shard_state(a.shard).moving and v.settle() == 1
    assert repr(a).startswith("Action('move-leader', 'stream-skew'")
    # the same action on a fresh view of another snapshot with the same content, by ids
    other = pl.View(three())
    other.apply(a)
    assert other.shard_state(a.shard).leader == a.to_member
    assert a == pl.broker_plan(pl.View(three())).actions[0]
    with pytest.raises(pl.PlacementError) as e:
        other.apply(a)
    assert e.value.name == "E_ACTION"


def test_dry_run_with_a_cap_stops_full_and_without_one_grows():
    s = pl.Snapshot([pl.Member("m%d" % i) for i in range(4)], [pl.Shard("k%04d" % i) for i in range(600)])
    plan = pl.broker_dry_run(s, cap=10)
    assert plan.status == "full" and len(plan.actions) == 8  # a new shard's 4 actions: all or none
    whole = pl.broker_dry_run(s)  # 600 new shards, 4 actions each: past the first 1,024 of room
    # placing counts leaders, so the first tick leaves replicas a little
    # uneven; replica balance (on by default) evens them in the later ticks
    placing = [(a.kind, a.reason) for a in whole.actions[:2400]]
    assert placing.count(("add-replica", "new")) == 1800 and placing.count(("set-leader", "new")) == 600
    rest = whole.actions[2400:]
    assert rest and all(a.kind == "move-replica" and a.reason.startswith("replica-") and a.stage_first for a in rest)
    assert whole.status == "balanced"
    assert list(whole.actions)[:8] == list(plan.actions)
    v = pl.View(s)
    assert list(pl.broker_dry_run(v).actions) == list(whole.actions)
    assert sum(v.leaders().values()) == 600
    assert [v.member_tally(m).replicas for m in v.order("member")] == [450] * 4
    leaders_only = pl.broker_dry_run(s, replica_balance=False)
    assert leaders_only.status == "balanced" and list(leaders_only.actions) == list(whole.actions)[:2400]
    assert len(pl.broker_plan(pl.View(s)).actions) == 2400  # one tick places every new shard


def test_fleet_decide_owner_and_the_override_document():
    members = [pl.Member("m%d" % i) for i in range(3)]
    keys = ["k%02d" % i for i in range(30)]
    snap = pl.Snapshot(members, [pl.Shard(k) for k in keys])
    v = pl.View(snap)
    owners = pl.fleet_owners(v)
    assert set(owners) == set(keys) and all(pl.fleet_owner(v, k) == owners[k] == v.home(k) for k in keys)
    counts = {m.id: list(owners.values()).count(m.id) for m in members}
    over = max(counts, key=counts.get)
    plan = pl.fleet_decide(v, over, now=100)
    if counts[over] > 10:
        (a,) = plan.actions
        assert (a.kind, a.reason, a.from_member, a.origin, a.at) == ("set-override", "count", over, "count", 100)
        doc = pl.fleet_doc_format(v)
        assert doc.startswith("placement-overrides 1\n") and ("%s %s 100 count" % (a.shard, a.to_member)) in doc
        ovs, skipped = pl.fleet_doc_read(snap, doc + "gone m0 5 lag\n")
        assert ovs == [pl.Override(a.shard, a.to_member, "count", 100)] and skipped == 1
        snap2 = pl.Snapshot(members, [pl.Shard(k) for k in keys], overrides=ovs)
        assert pl.fleet_owner(snap2, a.shard) == a.to_member
    assert pl.fleet_decide(v, over, now=101, last_move=100).status == "cooldown"
    with pytest.raises(pl.PlacementError) as e:
        pl.fleet_decide(v, "nobody")
    assert (e.value.name, e.value.id) == ("E_NOT_FOUND", "nobody")


def test_bytes_ids_and_utf8():
    s = pl.Snapshot([pl.Member(b"\xff\x00m"), pl.Member("été")],
                    [pl.Shard(b"k\x00", replicas=[b"\xff\x00m"], leader=b"\xff\x00m")])
    v = pl.View(s)
    assert v.home(b"k\x00") in (b"\xff\x00m", "été")
    assert v.find("member", "été".encode()) == 1  # str and its UTF-8 bytes are the same id
    with pytest.raises(pl.PlacementError) as e:
        pl.Snapshot([pl.Member("a"), pl.Member(b"a")], [])
    assert e.value.name == "E_DUP_MEMBER"


def test_members_flags_and_unmeasured_load():
    s = pl.Snapshot([pl.Member("a", down=True), pl.Member("b", draining=True), pl.Member("c", lagging=True),
                     pl.Member("d", load=5)], [])
    m = s._members
    assert [m[i].flags for i in range(4)] == [_ffi.PL_MEMBER_DOWN | _ffi.PL_MEMBER_UNMEASURED,
                                              _ffi.PL_MEMBER_DRAINING | _ffi.PL_MEMBER_UNMEASURED,
                                              _ffi.PL_MEMBER_LAGGING | _ffi.PL_MEMBER_UNMEASURED, 0]
    assert m[3].load == 5
    c = pl.View(s).counts()
    assert (c.live, c.eligible) == (3, 2)


def test_copies_are_passed_to_the_library():
    s = pl.Snapshot([pl.Member("a"), pl.Member("b")], [pl.Shard("k", replicas=["a"], leader="a")],
                    copies=[pl.Copy("k", "b")])
    c = s._copies[0]
    assert (c.shard, c.to, c.from_, c.reserved) == (0, 1, _ffi.PL_NONE, 0)
    assert s._c.n_copies == 1


def test_known_answer_vectors(root):
    n = 0
    for line in open(os.path.join(root, "tests", "vectors.txt")):
        w = line.split()
        if not w or w[0] == "#":
            continue
        unesc = lambda x: "" if x == "-" else x  # noqa: E731
        if w[0] == "hash":
            assert pl.hash(unesc(w[1])) == int(w[2], 16), line
        elif w[0] == "score":
            assert pl.score(pl.hash(w[1]), pl.hash(w[2])) == int(w[3], 16), line
        elif w[0] == "legacy":
            assert pl.score_legacy(w[1], w[2]) == int(w[3], 16), line
        elif w[0] == "weight":
            assert pl.score_weighted(int(w[1], 16), int(w[2])) == int(w[3]), line
        n += 1
    assert n > 100


def test_names_come_from_the_library():
    assert _ffi.ACTION_KINDS[2] == "move-leader" and _ffi.REASONS[4] == "stream-skew"
    assert _ffi.STATUSES[0] == "balanced"
    for table, fn in ((_ffi.ACTION_KINDS, _ffi.lib.pl_action_kind_name), (_ffi.REASONS, _ffi.lib.pl_reason_name),
                      (_ffi.STATUSES, _ffi.lib.pl_status_name), (_ffi.STALLS, _ffi.lib.pl_region_stall_name),
                      (_ffi.ROUTE_RULES, _ffi.lib.pl_route_rule_name)):
        for v, name in table.items():
            assert fn(v).decode() == name


def test_every_public_name_has_a_docstring():
    for name in pl.__all__ + ["hash"]:
        obj = getattr(pl, name)
        assert obj.__doc__ and len(obj.__doc__) > 20, name
        for attr, member in vars(obj).items() if isinstance(obj, type) else ():
            if callable(member) and not attr.startswith("_"):
                assert member.__doc__, "%s.%s" % (name, attr)


def test_a_view_built_with_the_previous_one_answers_as_a_fresh_one():
    keys = ["k%03d" % i for i in range(200)]
    one = pl.Snapshot([pl.Member("m%d" % i) for i in range(5)], [pl.Shard(k) for k in keys])
    prev = pl.View(one)
    pl.fleet_decide(prev, "m0", now=10)  # fills its ring homes
    # a member joined, one drains, and the shards come in another order
    members = [pl.Member("m%d" % i, draining=(i == 2)) for i in range(6)]
    two = pl.Snapshot(members, [pl.Shard(k) for k in reversed(keys)])
    fresh, reused = pl.View(two), pl.View(two, reuse=prev)
    assert [reused.home(k) for k in keys] == [fresh.home(k) for k in keys]
    moves = [(a.kind, a.shard, a.from_member, a.to_member) for a in pl.fleet_decide(fresh, "m1", now=20).actions]
    assert moves == [(a.kind, a.shard, a.from_member, a.to_member)
                     for a in pl.fleet_decide(reused, "m1", now=20).actions]
    with pytest.raises(TypeError):
        pl.View(two, reuse="not a view")


# ---- replicas, drains, copies in flight, epochs ------------------------------------------

def test_a_leaders_replica_carries_the_leadership():
    m = [pl.Member("m0"), pl.Member("m1")]
    lay = [("s/0", ["m0"], "m0"), ("s/1", ["m0"], "m0"), ("s/2", ["m1", "m0"], "m1"), ("s/3", ["m1", "m0"], "m1"),
           ("s/4", ["m0", "m1"], "m0")]
    s = pl.Snapshot(m, [pl.Shard(k, stream="s", replicas=r, leader=lead) for k, r, lead in lay])
    (a,) = pl.broker_plan(s).actions
    assert (a.kind, a.reason, a.scope, a.shard, a.from_member, a.to_member) == (
        "move-replica", "replica-stream-skew", "stream-replicas", "s/0", "m0", "m1")
    assert a.carries_leader and a.stage_first and a.flags == _ffi.PL_ACTION_STAGE_FIRST | _ffi.PL_ACTION_CARRIES_LEADER
    assert "carries_leader=True" in repr(a) and "the leadership moves with it" in a.explain()
    v = pl.View(s)
    pl.broker_plan(v)
    assert v.shard_state("s/0").leader == "m1"
    # leaders only: replica balance off, and the leaders are even already
    assert pl.broker_plan(s, replica_balance=False).status == "balanced"
    assert not any(a.carries_leader for a in pl.broker_dry_run(s).actions if a.kind != "move-replica")


def test_a_drain_that_cannot_finish_names_its_replicas():
    M = pl.Member

    def drain(members, shards):
        s = pl.Snapshot(members, shards)
        return pl.broker_plan(s), pl.broker_drain_stalls(s)

    orders = pl.Shard("orders/0", stream="orders", replicas=["b1", "b0"], leader="b1")
    base = [M("b0", zone="za", draining=True), M("b1", zone="zb"), M("b2", zone="zb")]
    plan, stalls = drain(base, [orders])
    assert (plan.status, plan.detail, plan.blocked, len(plan.actions)) == ("drain-stalled", "orders/0", 1, 0)
    assert stalls == [pl.DrainStall("orders/0", "b0", "zones")]
    assert (stalls[0].shard, stalls[0].member, stalls[0].reason) == ("orders/0", "b0", "zones")
    # a member in za with room takes it
    plan, stalls = drain(base + [M("b3", zone="za")], [orders])
    assert [(a.kind, a.reason, a.to_member) for a in plan.actions] == [("move-replica", "replica-drain", "b3")]
    assert stalls == []
    # ... at its cap it cannot
    plan, stalls = drain(base + [M("b3", zone="za", max_shards=1)], [orders, pl.Shard("other/0", replicas=["b3"])])
    assert plan.status == "drain-stalled" and stalls == [pl.DrainStall("orders/0", "b0", "caps")]
    # every eligible member holds it already
    plan, stalls = drain(base, [pl.Shard("orders/0", stream="orders", replicas=["b1", "b0", "b2"], leader="b1")])
    assert [s.reason for s in stalls] == ["held"]
    # read-only: the view is as it was
    v = pl.View(pl.Snapshot(base, [orders]))
    assert len(pl.broker_drain_stalls(v)) == 1 and v.shard_state("orders/0").replicas == ("b1", "b0")


def test_a_region_stall_says_what_was_wanted():
    M = pl.Member
    members = [M("a", down=True, joined_at=1), M("b", lagging=True, joined_at=2, map_version=7),
               M("j", joined_at=3, map_version=6)]
    plan = pl.region_plan(pl.Snapshot(members, [pl.Shard("r/0", replicas=["a", "b"], leader="a", epoch=7)]))
    (st,) = plan.stalls
    assert (st.shard, st.reason, st.step, st.member, st.wanted) == ("r/0", "not-ready", 1, "j", "primary")
    members = [M("a", map_version=4, joined_at=2), M("b", map_version=4, joined_at=1),
               M("j", map_version=3, joined_at=3)]
    plan = pl.region_plan(pl.Snapshot(members, [pl.Shard("r/grow", replicas=["a", "b"], leader="a", epoch=4)]))
    assert [(s.shard, s.reason, s.wanted) for s in plan.stalls] == [("r/grow", "not-ready", "peer")]
    assert "wanted='peer'" in repr(plan.stalls[0])


def test_epochs_advance_and_copies_in_flight_count():
    s = pl.Snapshot([pl.Member("a"), pl.Member("b"), pl.Member("c")],
                    [pl.Shard("k", replicas=["a"], leader="a", epoch=5), pl.Shard("q", replicas=["b"], leader="b")],
                    copies=[pl.Copy("k", "c", from_member="a")])
    v = pl.View(s)
    c = v.counts()
    assert (c.copies, c.moving) == (1, 1)
    # the copy counts as finished: c holds k, and leads it since a did
    assert v.shard_state("k") == pl.ShardState("c", ("c",), True, None, 5)
    assert v.shard_state("q").epoch == 0
    plan = pl.region_plan(v, replication_factor=1)
    for a in plan.actions:
        assert a.shard != "k"  # a shard with a copy in flight is not acted on
    w = pl.View(pl.Snapshot(s.members, [pl.Shard("k", replicas=["a"], leader="a", epoch=5),
                                        pl.Shard("q", replicas=["a"], leader="a")]))
    assert w.counts().copies == 0
    (x,) = pl.broker_plan(w, replication_factor=1).actions
    assert w.shard_state(x.shard).epoch == {"k": 5, "q": 0}[x.shard] + 1
    assert w.shard_state(({"k", "q"} - {x.shard}).pop()).epoch == {"k": 5, "q": 0}[({"k", "q"} - {x.shard}).pop()]


def test_hand_offs_only_copy_nothing_and_name_the_bound():
    # a and b hold every shard, a leads all 6; c holds none: hand-offs alone
    # never give c a leadership, and the plan says so.
    s = pl.Snapshot([pl.Member("a"), pl.Member("b"), pl.Member("c")],
                    [pl.Shard("s/%d" % i, stream="s", replicas=["a", "b"], leader="a") for i in range(6)],
                    streams=[pl.Stream("s")])
    plan = pl.broker_dry_run(s, handoff_only=True)
    assert plan.status == "blocked-handoff" and plan.detail == "s"
    assert all(a.kind == "move-leader" and not a.stage_first and a.to_member == "b" for a in plan.actions)
    assert pl.broker_dry_run(s).status == "balanced"


def test_a_replica_out_of_sync_never_takes_the_leadership():
    # b0 leads k and is down; b1 is out of sync: b2 takes over.
    s = pl.Snapshot([pl.Member("b0", down=True), pl.Member("b1"), pl.Member("b2")],
                    [pl.Shard("k", replicas=["b0", "b1", "b2"], leader="b0", out_of_sync=["b1"]),
                     pl.Shard("t", replicas=["b2"], leader="b2")])
    plan = pl.broker_plan(s)
    assert [(a.kind, a.shard, a.to_member) for a in plan.actions][:1] == [("set-leader", "k", "b2")]
    with pytest.raises(pl.PlacementError) as e:  # the leader itself: refused
        pl.broker_plan(pl.Snapshot([pl.Member("b0"), pl.Member("b1")],
                                   [pl.Shard("k", replicas=["b0", "b1"], leader="b0", out_of_sync=["b0"])]))
    assert e.value.name == "E_FLAGS"


def test_totals_a_kept_stream_holds_are_named_not_balanced():
    # "kept" leads 9 on a and may not move; "s" is even: the totals end
    # outside their bounds, and the status says so, naming the totals.
    def snap(keep):
        return pl.Snapshot([pl.Member("a"), pl.Member("b"), pl.Member("c")],
                           [pl.Shard("kept/%d" % i, stream="kept", replicas=["a"], leader="a") for i in range(9)] +
                           [pl.Shard("s/%d" % i, stream="s", replicas=[m], leader=m) for i, m in enumerate("abc")],
                           streams=[pl.Stream("kept", keep=keep), pl.Stream("s")])
    plan = pl.broker_dry_run(snap(True), replication_factor=1)
    assert plan.status == "blocked-bounds" and plan.detail is None
    assert all(not a.shard.startswith("kept/") for a in plan.actions)
    assert pl.broker_dry_run(snap(False), replication_factor=1).status == "balanced"
