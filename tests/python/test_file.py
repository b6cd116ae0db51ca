"""placement.load() and dump(): the cluster files placement(1) reads and
writes (placement(5) text and the tool's JSON), checked against the tool
itself on every file of its own test corpus."""

import glob
import io
import json
import os
import pathlib
import re
import subprocess

import pytest

import placement as pl

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
GOLDEN = sorted(glob.glob(os.path.join(ROOT, "tests", "placement", "golden", "*.txt")))
ERRORS = sorted(glob.glob(os.path.join(ROOT, "tests", "placement", "errors", "*.txt")))


def run(tool, *args, data=None):
    out = subprocess.run([tool] + list(args), input=data, capture_output=True)
    return out.returncode, out.stdout, out.stderr


def test_the_corpus_is_there():
    assert len(GOLDEN) >= 20 and len(ERRORS) >= 100


@pytest.mark.parametrize("path", GOLDEN, ids=os.path.basename)
def test_golden_file_round_trip(path, tool):
    c = pl.load(path)
    assert c.members and isinstance(c.members[0], pl.Member)
    # load(dump(x)) == x, text and JSON
    assert pl.loads(pl.dumps(c)) == c
    # the tool reads what dump writes as the same snapshot it read from the file
    rc, want, err = run(tool, "--json", "format", path)
    assert rc == 0, err
    rc, got, err = run(tool, "--json", "format", "-", data=pl.dumps(c).encode("ascii"))
    assert rc == 0, err
    assert json.loads(got) == json.loads(want)
    # the tool's JSON loads to the same cluster, and dumps as the tool writes it
    j = pl.loads(want)
    assert json.loads(pl.dumps(j, json=True)) == json.loads(want)
    assert json.loads(pl.dumps(c, json=True)) == json.loads(want)
    assert pl.loads(pl.dumps(j)) == j


def _sorted(c):
    """The cluster in the tool's JSON order; an empty zone as JSON writes it
    (no zone and an empty one are both a zone of its own); streams without
    their rules (the tool's JSON lists streams by id only)."""
    key = lambda x: x.encode("utf-8") if isinstance(x, str) else x  # noqa: E731
    for m in c.members:
        m.zone = m.zone or None
    c.streams = [pl.Stream(s.id) for s in c.streams]
    return (sorted(c.members, key=lambda m: key(m.id)), sorted(c.streams, key=lambda s: key(s.id)),
            sorted(c.shards, key=lambda k: key(k.key)), sorted(c.overrides, key=lambda o: key(o.shard)),
            sorted(c.copies, key=lambda cp: key(cp.shard)), c.settings, c.last_move)


@pytest.mark.parametrize("path", GOLDEN, ids=os.path.basename)
def test_json_and_text_load_alike(path, tool):
    c = pl.load(path)
    rc, doc, _ = run(tool, "--json", "format", path)
    j = pl.loads(doc)
    assert (j.members, j.streams, j.shards, j.overrides, j.copies, j.settings, j.last_move) == _sorted(c)


@pytest.mark.parametrize("path", [p for p in GOLDEN if pl.load(p).policy == "broker"], ids=os.path.basename)
def test_plan_of_a_loaded_file_is_the_tools(path, tool):
    rc, out, err = run(tool, "--json", "plan", path)
    assert rc in (0, 3), err
    doc = json.loads(out)
    plan = pl.load(path).plan()
    assert [(a.kind, a.reason, a.shard, a.from_member, a.to_member, a.stage_first) for a in plan.actions] == [
        (a["kind"], a["reason"], a["shard"], a["from"], a["to"], a["stage_first"]) for a in doc["actions"]]
    assert (plan.status, plan.ticks) == (doc["status"], doc["ticks"])
    assert [a.explain() for a in plan.actions] == [a["explain"] for a in doc["actions"]]


@pytest.mark.parametrize("path", ERRORS, ids=os.path.basename)
def test_every_bad_file_is_refused_by_its_line(path):
    with open(path, "rb") as f:
        m = re.search(rb"# expect: line (\d+)", f.read())
    with pytest.raises(pl.FormatError) as e:
        pl.load(path)
    assert e.value.path == path
    assert e.value.line == (int(m.group(1)) if m else None), str(e.value)
    assert str(e.value).startswith("%s:%s" % (path, e.value.line if e.value.line else ""))


def test_a_refusal_by_the_library_carries_its_error():
    with pytest.raises(pl.FormatError) as e:
        pl.loads("member b0\nmember b1\nmember b0\n")
    assert e.value.line == 3 and isinstance(e.value.error, pl.PlacementError)
    assert e.value.error.name == "E_DUP_MEMBER" and "E_DUP_MEMBER" in str(e.value)
    with pytest.raises(pl.FormatError) as e:
        pl.loads("set max-moves=0\nmember a\n")
    assert e.value.line == 1 and e.value.error.id == "max_moves"
    assert "the broker policy refuses it" in str(e.value)
    with pytest.raises(pl.FormatError, match="not a cluster description"):
        pl.loads('{"policy": "broker", "actions": []}')
    with pytest.raises(pl.FormatError, match="not JSON"):
        pl.loads("{nope")


def test_kafka_import_text_and_json_load_alike(root):
    g = os.path.join(root, "tests", "placement", "golden")
    text = pl.load(os.path.join(g, "kafka-old.txt"))
    js = pl.load(os.path.join(g, "kafka-old.import.json"))
    assert (js.members, js.shards, js.settings) == _sorted(text)[0:1] + _sorted(text)[2:3] + (text.settings,)
    assert len(text.members) >= 3 and len(text.shards) > 5


def test_escapes_bytes_ids_and_file_objects(tmp_path):
    c = pl.Cluster([pl.Member("zürich", zone="a b"), pl.Member(b"\xff\x00m"), pl.Member("x,=#%")],
                   [pl.Shard("k 1", stream="café", replicas=["zürich", b"\xff\x00m"], leader=b"\xff\x00m",
                             out_of_sync=["zürich"])],
                   settings={"policy": "broker", "max-moves": 2, "paused": False})
    text = pl.dumps(c)
    assert text.isascii()
    assert "member z%C3%BCrich zone=a%20b" in text and "member %FF%00m" in text and "member x%2C%3D%23%25" in text
    assert "set max-moves=2" in text and "set paused=off" in text
    assert pl.loads(text) == c
    p = tmp_path / "c.txt"
    pl.dump(c, str(p))
    assert pl.load(p) == c and pl.load(str(p)) == c
    with open(p, "rb") as f:
        assert pl.load(f) == c
    assert pl.load(io.StringIO(text)) == c
    with pytest.raises(ValueError, match="bytes id"):
        pl.dumps(c, json=True)


def test_defaults_the_file_and_the_package_agree_on():
    c = pl.loads("member a\nmember b unmeasured zone=\nshard k replicas=a leader=a\n")
    a, b = c.members
    assert (a.weight, a.load, a.zone, b.load, b.zone) == (1, 0, None, None, "")
    assert c.streams == [] and c.shards[0].stream is None
    assert pl.loads(pl.dumps(c)) == c


def test_config_names_the_c_fields():
    c = pl.loads("set policy=region rf=2 max-actions=4 max-moves=3 cooldown=9\nmember a\n")
    assert c.config() == {"replication_factor": 2, "max_actions": 4}
    assert c.config("broker") == {"replication_factor": 2, "max_moves": 3}
    assert c.config("fleet") == {"cooldown": 9}
    assert pl.region_plan(c.snapshot(), **c.config()).status == "balanced"
    with pytest.raises(ValueError):
        c.config("mesh")


def test_plan_is_the_broker_dry_run_only():
    c = pl.loads("set policy=fleet\nmember a\n")
    with pytest.raises(ValueError, match="the file's policy is fleet: call fleet_decide"):
        c.plan()
    with pytest.raises(TypeError, match=r"Cluster\(members=\.\.\.\) must be a list, not str"):
        pl.Cluster("ab")


def test_a_what_if_starts_from_a_file(root):
    c = pl.load(os.path.join(root, "tests", "placement", "golden", "broker-six-zones.txt"))
    before = c.plan()
    assert before.status == "balanced"
    c.members[0].draining = True
    after = c.plan()
    assert any(a.from_member == c.members[0].id for a in after.actions)
    assert [a.shard for a in after.actions] != [a.shard for a in before.actions]


def test_a_snapshot_dumps_too():
    snap = pl.Snapshot([pl.Member("b0"), pl.Member("b1")], [pl.Shard("k", replicas=["b0"], leader="b0")])
    c = pl.loads(pl.dumps(snap))
    assert [m.id for m in c.members] == ["b0", "b1"] and c.shards[0].replicas == ("b0",)
    assert pl.load(pathlib.Path(os.path.join(ROOT, "tests", "placement", "golden", "felix.txt"))).members
