"""Every error code the library defines either surfaces through the binding
with its name, kind, index and id (each is made to happen here), or is one
the binding cannot reach by construction (listed, with why). And a view can
never dangle: it keeps its snapshot, and so every C array, alive."""

import gc
import weakref

import pytest

import placement as pl

M = pl.Member


def snap(members=("a", "b", "c"), shards=(), **kw):
    return pl.Snapshot([m if isinstance(m, pl.Member) else M(m) for m in members], list(shards), **kw)


def region_view(**member_kw):
    members = [M("a", zone="z1"), M("b", zone="z2", **member_kw)]
    shards = [pl.Shard("r", replicas=["a"], leader="a", epoch=3)]
    return pl.View(pl.Snapshot(members, shards))


def _limit():
    # the count check comes first: one Member object listed past PL_MAX_MEMBERS
    m = M("m")
    snap([m] * (pl._ffi.PL_MAX_MEMBERS + 1))


def _action():
    v = pl.View(snap(shards=[pl.Shard("k/%d" % i, replicas=["a", "b"], leader="a") for i in range(4)]))
    a = pl.broker_plan(v.copy()).actions[0]
    assert a.kind == "move-leader" and a.from_member == "a"
    v.apply(a)
    v.apply(a)  # a no longer leads it: does not apply


def _full_set():
    ids = ["m%d" % i for i in range(9)]
    v = pl.View(pl.Snapshot([M(i, down=i != "m8") for i in ids],
                            [pl.Shard("r", replicas=ids[:8], leader="m0")]))
    pl.region_check_add_peer(v, "r", "m8", 0)


def _copies(*copies, replicas=("a",)):
    # copies in flight against one shard k led by a; an error names the copy by its shard
    return snap(shards=[pl.Shard("k", replicas=list(replicas), leader="a")], copies=list(copies))


def _full_copy():
    ids = ["m%d" % i for i in range(9)]
    snap(ids, [pl.Shard("k", replicas=ids[:8], leader="m0")], copies=[pl.Copy("k", "m8")])


# code name -> (what makes it happen, expected kind, expected id)
TRIGGERS = {
    "E_INVAL": (lambda: pl.View(snap()).find("planet", "a"), None, None),
    "E_LIMIT": (_limit, "snapshot", "members"),
    "E_LENGTH": (lambda: pl.View(snap()).top("k" * 1025, 1), None, None),
    "E_EMPTY_ID": (lambda: snap(["a", ""]), "member", ""),
    "E_DUP_MEMBER": (lambda: snap(["a", "b", "a"]), "member", "a"),
    "E_DUP_STREAM": (lambda: snap(streams=["s", "s"]), "stream", "s"),
    "E_DUP_SHARD": (lambda: snap(shards=[pl.Shard("k"), pl.Shard("k")]), "shard", "k"),
    "E_STREAM_RANGE": (lambda: snap(shards=[pl.Shard("k", stream="s")], streams=[]), "shard", "k"),
    "E_MEMBER_RANGE": (lambda: snap(shards=[pl.Shard("k", replicas=["zz"])]), "shard", "k"),
    "E_LEADER_NOT_REPLICA": (lambda: snap(shards=[pl.Shard("k", replicas=["a"], leader="b")]), "shard", "k"),
    "E_DUP_REPLICA": (lambda: snap(shards=[pl.Shard("k", replicas=["a", "a"])]), "shard", "k"),
    "E_REPLICAS": (lambda: snap(["m%d" % i for i in range(9)],
                                [pl.Shard("k", replicas=["m%d" % i for i in range(9)])]), "shard", "k"),
    "E_OVERRIDE_SHARD": (lambda: snap(overrides=[pl.Override("gone", "a")]), "override", "gone"),
    "E_OVERRIDE_MEMBER": (lambda: snap(shards=[pl.Shard("k")], overrides=[pl.Override("k", "zz")]), "override", "k"),
    "E_DUP_OVERRIDE": (lambda: snap(shards=[pl.Shard("k")], overrides=[pl.Override("k", "a"), pl.Override("k", "b")]),
                       "override", "k"),
    "E_ORIGIN": (lambda: snap(shards=[pl.Shard("k")], overrides=[pl.Override("k", "a", origin="whim")]),
                 "override", "k"),
    "E_WEIGHT": (lambda: snap([M("a", weight=70000)]), "member", "a"),
    "E_NO_ELIGIBLE": (lambda: pl.fleet_owner(snap([M("a", down=True)], [pl.Shard("k")]), "k"), None, None),
    "E_MOVE_TARGET": (lambda: snap(shards=[pl.Shard("k", replicas=["a"], leader="a", moving_to="a")]), "shard", "k"),
    "E_CONFIG": (lambda: pl.broker_plan(snap(), max_moves=0), "config", "max_moves"),
    "E_SCORER": (lambda: pl.View(snap(), scorer="sha1"), "config", "scorer"),
    "E_NOT_FOUND": (lambda: pl.View(snap(shards=[pl.Shard("k")])).home("nope"), "shard", "nope"),
    "E_PEER_DUPLICATE": (lambda: pl.region_check_add_peer(region_view(), "r", "a", 3), "member", "a"),
    "E_EPOCH_STALE": (lambda: pl.region_check_add_peer(region_view(), "r", "b", 2), "shard", "r"),
    "E_TRANSFER_DEBT": (lambda: pl.region_check_add_peer(
        pl.View(snap(shards=[pl.Shard("r", transfer_debt=True)])), "r", "a", 0), "shard", "r"),
    "E_NOT_IDEMPOTENT": (lambda: pl.region_check_add_peer(
        pl.View(snap(shards=[pl.Shard("r", not_idempotent=True)])), "r", "a", 0), "shard", "r"),
    "E_ACTION": (_action, None, None),
    "E_NOT_READY": (lambda: pl.region_check_add_peer(region_view(map_version=2), "r", "b", 3), "member", "b"),
    "E_SHARD_RANGE": (lambda: pl.View(snap()).at("shard", 0), None, None),
    "E_ROUTE_VALUE": (lambda: pl.route_decide(body="in-a-bottle"), "config", "body"),
    "E_ROUTE_OUTCOME": (lambda: pl.route_decide(outcome="failed"), "config", "outcome"),
    "E_DOC_SYNTAX": (lambda: pl.fleet_doc_read(snap(), "no header\n"), "argument", None),
    "E_DOC_VERSION": (lambda: pl.fleet_doc_read(snap(), "placement-overrides 9\n"), "argument", None),
    "E_MEMBER_UNAVAILABLE": (lambda: pl.region_check_add_peer(region_view(lagging=True), "r", "b", 3),
                             "member", "b"),
    "E_MEMBER_FULL": (lambda: pl.region_check_add_peer(pl.View(pl.Snapshot(
        [M("a"), M("b", max_shards=1)], [pl.Shard("r", replicas=["a"]), pl.Shard("q", replicas=["b"])])),
        "r", "b", 0), "member", "b"),
    "E_REPLICA_SET_FULL": (_full_set, "shard", "r"),
    "E_MOVE_IN_FLIGHT": (lambda: pl.region_check_add_peer(_copies(pl.Copy("k", "b")), "k", "c", 0), "shard", "k"),
    "E_COPY_SHARD": (lambda: _copies(pl.Copy("gone", "b")), "copy", "gone"),
    "E_COPY_TO": (lambda: _copies(pl.Copy("k", "zz")), "copy", "k"),
    "E_COPY_FROM": (lambda: _copies(pl.Copy("k", "b", from_member="zz")), "copy", "k"),
    "E_COPY_TARGET": (lambda: _copies(pl.Copy("k", "a")), "copy", "k"),
    "E_COPY_SOURCE": (lambda: _copies(pl.Copy("k", "b", from_member="c")), "copy", "k"),
    "E_COPY_FULL": (_full_copy, "copy", "k"),
    "E_DUP_COPY": (lambda: _copies(pl.Copy("k", "b"), pl.Copy("k", "c")), "copy", "k"),
    "E_CAPACITY": (lambda: snap(["a", M("b", capacity=0)]), "member", "b"),
    "E_BYTES": (lambda: snap(shards=[pl.Shard("k", size=1 << 58), pl.Shard("q", size=1 << 58),
                                     pl.Shard("z", size=1)]), "shard", "z"),
    "E_REPLICA_ROOM": (lambda: pl.broker_plan(pl.View(snap(shards=[pl.Shard("k", replicas=["a"], leader="a")]),
                                                      max_replicas=1)), "config", "replication_factor"),
    "E_TOLERANCE": (lambda: snap(streams=["s", pl.Stream("t", tolerance=pl._ffi.PL_MAX_TOLERANCE + 1)]),
                    "stream", "t"),
    "E_ZONE_RULE": (lambda: snap(streams=[pl.Stream("s", zones="most")]), "stream", "s"),
}

# Codes the binding never makes the library return, by construction.
UNREACHABLE = {
    "E_NULL": "every array and byte range the binding passes has a pointer when its count or length is not 0",
    "E_FLAGS": "member and shard flags are built from named booleans: no unknown bit can be set",
    "E_STREAM_FLAGS": "a stream's flags are built from its keep boolean: no unknown bit can be set "
                      "(test_keep.py has the library refuse one through the raw layer)",
    "E_WORKSPACE": "every workspace is sized by pl_snapshot_work_size() or pl_view_size()",
    "E_ALIGN": "every workspace is an array of uint64_t, aligned to 8",
    "E_OVERLAP": "every view, workspace and output array is memory the binding allocated for that call alone",
    "E_NOSPACE": "every output array is sized from the snapshot (fleet owners, document lines)",
    "E_VERSION": "every options struct comes from its own *_init() and the snapshot is filled with "
                 "PL_SNAPSHOT_VERSION; no keyword sets a version",
    "E_COPY_RESERVED": "a Copy has no reserved field: the binding writes pl_copy.reserved as 0",
}


def test_every_code_is_classified():
    """A code added to the library must get a trigger here (or a reason it
    cannot be reached): this fails until it does."""
    codes = pl.error_codes()
    missing = sorted(set(codes) - set(TRIGGERS) - set(UNREACHABLE))
    assert not missing, "error codes with no trigger in tests/python/test_errors.py: %s" % missing
    assert set(TRIGGERS) | set(UNREACHABLE) <= set(codes)


@pytest.mark.parametrize("name", sorted(TRIGGERS))
def test_code_surfaces_with_its_name(name):
    fn, kind, ident = TRIGGERS[name]
    with pytest.raises(pl.PlacementError) as e:
        fn()
    err = e.value
    assert err.name == name, str(err)
    assert err.code == pl.error_codes()[name] and err.code < 0
    assert err.message == pl.strerror(err.code) and err.message in str(err)
    assert name in str(err)
    if kind is not None:
        assert err.kind == kind, str(err)
    if ident is not None:
        assert err.id == ident, str(err)


def test_error_names_come_from_the_library():
    for name, code in pl.error_codes().items():
        assert pl.error_name(code) == name
        assert pl.PlacementError(code).name == name
    assert pl.error_name(-9999) == "E_UNKNOWN"


def test_a_number_no_c_field_holds_is_refused_before_the_call():
    with pytest.raises(pl.PlacementError) as e:
        snap([M("a", weight=-1)])
    assert (e.value.name, e.value.kind, e.value.id) == ("E_INVAL", "member", "a")
    with pytest.raises(pl.PlacementError) as e:
        snap(shards=[pl.Shard("k", load=1 << 64)])
    assert (e.value.name, e.value.kind, e.value.id) == ("E_INVAL", "shard", "k")
    with pytest.raises(pl.PlacementError) as e:
        pl.broker_plan(snap(), max_moves=1 << 32)
    assert (e.value.name, e.value.kind, e.value.id) == ("E_CONFIG", "config", "max_moves")
    with pytest.raises(TypeError):
        pl.broker_plan(snap(), max_moves="1")
    with pytest.raises(TypeError):
        pl.broker_plan(snap(), max_move=1)
    with pytest.raises(TypeError):
        snap([M(3)])


def test_copy_errors_name_the_copy():
    """A bad copy in flight is named by kind "copy", its index in copies and
    its shard's key; a duplicate names the earlier copy; an unknown id says
    which."""
    with pytest.raises(pl.PlacementError) as e:
        _copies(pl.Copy("k", "b"), pl.Copy("k", "c", from_member="a"), pl.Copy("k", "c"))
    assert (e.value.name, e.value.kind, e.value.index, e.value.id, e.value.other) == ("E_DUP_COPY", "copy", 1, "k", "k")
    with pytest.raises(pl.PlacementError) as e:
        _copies(pl.Copy("k", "b"), pl.Copy("nowhere", "b"))
    assert (e.value.name, e.value.kind, e.value.index) == ("E_COPY_SHARD", "copy", 1)
    assert "nowhere" in str(e.value)
    with pytest.raises(pl.PlacementError) as e:
        _copies(pl.Copy("k", "ghost"))
    assert "ghost" in str(e.value)


def test_doc_errors_name_the_line():
    with pytest.raises(pl.PlacementError) as e:
        pl.fleet_doc_read(snap(shards=[pl.Shard("k")]), "# c\nplacement-overrides 1\nk a notanumber\n")
    assert e.value.name == "E_DOC_SYNTAX" and e.value.line == 3


# ---- a view never dangles --------------------------------------------------------------

def test_the_view_keeps_its_snapshot_alive():
    members = [M("b0"), M("b1"), M("b2")]
    shards = [pl.Shard("k/%02d" % i, stream="s", replicas=["b0", "b1", "b2"], leader="b2") for i in range(12)]
    s = pl.Snapshot(members, shards)
    ref = weakref.ref(s)
    v = pl.View(s)
    home = {sh.key: v.home(sh.key) for sh in shards}
    del members, shards, s
    gc.collect()
    assert ref() is not None  # held by the view
    # junk the allocator may hand out where the lists were
    junk = [bytearray(b"\xff" * 4096) for _ in range(256)]
    assert {k: v.home(k) for k in home} == home
    assert v.leaders("s") == {"b0": 0, "b1": 0, "b2": 12}
    plan = pl.broker_dry_run(v)
    assert plan.status == "balanced" and v.leaders("s") == {"b0": 4, "b1": 4, "b2": 4}
    texts = [a.explain() for a in plan.actions]  # actions keep the snapshot too
    del v, junk
    gc.collect()
    assert ref() is not None  # the plan's actions still hold it
    assert [a.explain() for a in plan.actions] == texts
    del plan
    gc.collect()
    assert ref() is None


def test_copies_are_independent():
    v = pl.View(snap(shards=[pl.Shard("k/%d" % i, replicas=["a", "b"], leader="a") for i in range(6)]))
    c = v.copy()
    pl.broker_dry_run(c)
    assert v.leaders()["a"] == 6 and c.leaders()["a"] < 6
    del v
    gc.collect()
    assert sum(c.leaders().values()) == 6


def test_errors_pickle():
    import pickle
    with pytest.raises(pl.PlacementError) as e:
        snap(["a", "a"])
    back = pickle.loads(pickle.dumps(e.value))
    assert (back.name, back.kind, back.index, back.id, str(back)) == (
        e.value.name, e.value.kind, e.value.index, e.value.id, str(e.value))


def test_a_long_id_is_cut_in_the_message():
    # E_LENGTH names a 1025-byte member id: the message shows its first bytes
    # and its length, the attribute keeps the whole id
    long_id = "x" * 1025
    with pytest.raises(pl.PlacementError) as ei:
        snap([long_id])
    e = ei.value
    assert e.name == "E_LENGTH" and e.id == long_id
    assert len(str(e)) < 200, str(e)
    assert "(member 'xxxxxxxx" in str(e) and "... (1025 bytes)" in str(e), str(e)
    # a duplicate of a long (valid) id: both names cut
    dup = "é" * 300  # 600 bytes in UTF-8, past 48 characters
    with pytest.raises(pl.PlacementError) as ei:
        snap([dup, dup])
    assert ei.value.name == "E_DUP_MEMBER" and ei.value.id == dup
    assert len(str(ei.value)) < 300 and str(ei.value).count("... (600 bytes)") == 2, str(ei.value)
    # a short id is shown whole, as before
    with pytest.raises(pl.PlacementError) as ei:
        snap(["a", "a"])
    assert str(ei.value) == "E_DUP_MEMBER: duplicate member id (member 'a'), clashes with 'a'"
