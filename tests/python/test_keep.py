"""Kept streams (snapshot version 5, stream_flags, PL_STREAM_KEEP):
Stream(keep=True) fills the snapshot's flags array only when a stream keeps,
the broker's balancing moves none of a kept stream's shards (failover still
does), an unknown flag is refused with E_STREAM_FLAGS naming the stream, and
placement(5)'s bare word `keep` on a stream line is read and written back."""

import ctypes

import pytest

import placement as pl
from placement import _ffi
from placement._snapshot import new_diag

M, K, S = pl.Member, pl.Shard, pl.Stream


def layout(keep=True, b0_down=False):
    """3 members, RF 3 (every member holds every replica): stream t's six
    leaders and kept stream k's six all on b0. k is listed second (index 1)."""
    shards = [K("%s/%d" % (s, i), stream=s, replicas=["b0", "b1", "b2"], leader="b0")
              for s in ("t", "k") for i in range(6)]
    return pl.Snapshot([M("b0", down=b0_down), M("b1"), M("b2")], shards, streams=[S("t"), S("k", keep=keep)])


def flags(snap):
    if not snap._c.stream_flags:
        return None
    return list(ctypes.cast(snap._c.stream_flags, ctypes.POINTER(ctypes.c_uint32))[:len(snap.streams)])


def test_defaults_and_the_array_only_when_a_stream_keeps():
    assert _ffi.PL_STREAM_KEEP == _ffi.PL_STREAM_FLAGS_ALL == 1
    assert S("s") == S("s", keep=False) and S("s", keep=True) != S("s")
    assert repr(S("s", keep=True)) == "Stream('s', keep=True)" and repr(S("s")) == "Stream('s')"
    assert flags(pl.Snapshot([M("a")], [], streams=["s", S("t", tolerance=1, zones="majority")])) is None
    snap = pl.Snapshot([M("a")], [], streams=["s", S("t", keep=True), S("u")])
    assert flags(snap) == [0, _ffi.PL_STREAM_KEEP, 0]
    assert snap.streams[1] == S("t", keep=True)
    # streams taken from the shards keep the flag of a Stream given there
    snap = pl.Snapshot([M("a")], [K("k", stream=S("t", keep=True), replicas=["a"], leader="a")])
    assert flags(snap) == [_ffi.PL_STREAM_KEEP]


def test_no_balance_move_takes_a_kept_streams_shard():
    moved = {a.shard for a in pl.broker_dry_run(layout(keep=False), replication_factor=3).actions}
    assert any(k.startswith("k/") for k in moved)  # without keep, k's leaders are balanced too
    dry = pl.broker_dry_run(layout(), replication_factor=3)
    for plan in (dry, pl.broker_plan(layout(), replication_factor=3)):
        assert plan.actions, "stream t is still balanced"
        assert [a.shard for a in plan.actions if a.shard.startswith("k/") or a.stream == "k"] == []
        assert {a.reason for a in plan.actions} == {"stream-skew"}
    # b0 still leads k's six and the totals cannot even around them: named
    assert dry.status == "blocked-bounds" and dry.detail is None


def test_failover_still_moves_a_kept_streams_shards():
    plan = pl.broker_dry_run(layout(b0_down=True), replication_factor=3)
    led = {a.shard for a in plan.actions if a.reason == "failover"}
    assert {"k/%d" % i for i in range(6)} <= led


def test_an_unknown_flag_is_refused_naming_the_stream():
    # keep is read as a boolean, so the package sets no other bit: the
    # library's refusal is reached through the raw layer
    snap = layout(keep=False)
    bad = (ctypes.c_uint32 * 2)(0, 0x2)
    c = _ffi.PlSnapshot.from_buffer_copy(snap._c)
    c.stream_flags = ctypes.addressof(bad)
    size = _ffi.lib.pl_snapshot_work_size(ctypes.byref(c))
    work = (ctypes.c_uint64 * max((size + 7) // 8, 1))()
    diag = new_diag()
    rc = _ffi.lib.pl_snapshot_validate(ctypes.byref(c), work, size, ctypes.byref(diag))
    assert rc == pl.error_codes()["E_STREAM_FLAGS"] == -42
    assert (diag.kind, diag.index) == (_ffi.ELEM_CODES["stream"], 1)
    with pytest.raises(pl.PlacementError) as e:
        snap.raise_for(rc, diag)
    assert (e.value.name, e.value.kind, e.value.index, e.value.id) == ("E_STREAM_FLAGS", "stream", 1, "k")
    assert "unknown stream flags" in str(e.value)


TEXT = """set policy=broker rf=1
member b0
member b1
stream s tolerance=2 zones=majority keep
stream t keep
stream u
shard k stream=s replicas=b0 leader=b0
"""


def test_keep_is_read_and_written_back():
    c = pl.loads(TEXT)
    assert c.streams == [S("s", tolerance=2, zones="majority", keep=True), S("t", keep=True), S("u")]
    text = pl.dumps(c)
    assert "\nstream s tolerance=2 zones=majority keep\nstream t keep\nstream u\n" in text
    assert pl.loads(text) == c
    assert flags(c.snapshot()) == [_ffi.PL_STREAM_KEEP, _ffi.PL_STREAM_KEEP, 0]
    assert "stream t keep" in pl.dumps(c.snapshot())


@pytest.mark.parametrize("text,words", [
    ("member a\nstream s keep=1\n", "keep is a flag and takes no value"),
    ("member a\nstream s keep keep\n", "given twice"),
    ("member a\nstream s kept\n", "stream takes an id and tolerance=, zones= or keep, not 'kept'"),
])
def test_a_bad_keep_is_refused_by_line(text, words):
    with pytest.raises(pl.FormatError) as e:
        pl.loads(text)
    assert e.value.line == 2 and words in str(e.value), str(e.value)
