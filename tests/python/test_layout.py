"""Every struct mirrored in placement/_ffi.py has the size, field offsets and
field sizes the C compiler gives, and every mirrored constant the value the
headers give: a small C program built against include/ prints them."""

import ctypes
import os
import shutil
import subprocess

import pytest

from placement import _ffi


def _cc():
    for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cc and shutil.which(cc):
            return cc
    return None


def _constants():
    """(C expression, the Python value) for every mirrored constant."""
    out = [("PL_VERSION_MAJOR", _ffi.SONAME_MAJOR)]
    for name in ("PL_NONE", "PL_MAX_MEMBERS", "PL_MAX_STREAMS", "PL_MAX_SHARDS", "PL_MAX_ID_LEN", "PL_MAX_REPLICAS",
                 "PL_MAX_WEIGHT", "PL_MAX_COPIES", "PL_SNAPSHOT_VERSION", "PL_VIEW_ALIGN", "PL_MEMBER_DOWN",
                 "PL_MEMBER_DRAINING", "PL_MEMBER_LAGGING",
                 "PL_MEMBER_UNMEASURED", "PL_SHARD_NOT_IDEMPOTENT", "PL_SHARD_TRANSFER_DEBT",
                 "PL_ACTION_STAGE_FIRST", "PL_ACTION_CARRIES_LEADER", "PL_MAX_BYTES", "PL_BYTES_UNKNOWN",
                 "PL_BROKER_MAX_TOLERANCE", "PL_SCORER_XXH3", "PL_SCORER_LEGACY_FNV1A", "PL_FLEET_NEVER",
                 "PL_ROUTE_BODY_LIMIT", "PL_BROKER_CONFIG_VERSION", "PL_TOLERANCE_DEFAULT", "PL_MAX_TOLERANCE",
                 "PL_ZONES_SPAN", "PL_ZONES_MAJORITY", "PL_ZONES_RULE_MAX", "PL_STREAM_KEEP",
                 "PL_STREAM_FLAGS_ALL"):
        out.append((name, getattr(_ffi, name)))
    out.append(("PL_MEMBER_FLAGS_ALL", _ffi.PL_MEMBER_DOWN | _ffi.PL_MEMBER_DRAINING | _ffi.PL_MEMBER_LAGGING
                 | _ffi.PL_MEMBER_UNMEASURED))
    out.append(("PL_SHARD_FLAGS_ALL", _ffi.PL_SHARD_NOT_IDEMPOTENT | _ffi.PL_SHARD_TRANSFER_DEBT))
    out.append(("PL_SHARD_OUT_OF_SYNC(0)", _ffi.PL_SHARD_OUT_OF_SYNC_0))
    up = lambda w: w.upper().replace("-", "_")  # noqa: E731
    out += [("PL_ELEM_" + up(w), v) for v, w in _ffi.ELEM_KINDS.items()]
    out += [("PL_ORIGIN_" + up(w), v) for v, w in _ffi.ORIGINS.items()]
    out += [("PL_SCOPE_" + up(w), v) for v, w in _ffi.SCOPES.items()]
    out += [("PL_BROKER_STALL_" + up(w), v) for v, w in _ffi.BROKER_STALLS.items()]
    out += [("PL_REGION_WANT_" + up(w), v) for v, w in _ffi.REGION_WANTS.items()]
    out += [("PL_IMBALANCE_" + up(w), v) for w, v in _ffi.IMBALANCE_MEASURES.items()]
    out += [("PL_ZONES_" + up(w), v) for w, v in _ffi.ZONE_RULES.items()]
    out += [("PL_SCORER_XXH3", _ffi.SCORERS["xxh3"]), ("PL_SCORER_LEGACY_FNV1A", _ffi.SCORERS["legacy"])]
    out += [("PL_ROUTE_ANSWER_" + up(w), v) for w, v in _ffi.ROUTE_ANSWERS.items()]
    out += [("PL_ROUTE_BODY_" + up(w), v) for w, v in _ffi.ROUTE_BODIES.items()]
    out += [("PL_ROUTE_OUTCOME_" + up(w or "none"), v) for w, v in _ffi.ROUTE_OUTCOMES.items()]
    out += [("PL_ROUTE_" + up(w), v) for v, w in _ffi.ROUTE_VERDICTS.items()]
    out += [("PL_ROUTE_SEND_" + up(w or "none"), v) for v, w in _ffi.ROUTE_SENDS.items()]
    return out


def _fields(cls):
    for name, ft in cls._fields_:
        yield _ffi.C_FIELD_NAMES.get(name, name), getattr(cls, name), ft


@pytest.fixture(scope="module")
def c_says(root, tmp_path_factory):
    cc = _cc()
    if cc is None:
        pytest.skip("no C compiler (cc, gcc or clang) to read the struct layouts from")
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <placement.h>", "int main(void) {"]
    for cname, cls in _ffi.STRUCTS.items():
        lines.append('printf("size %s %%zu\\n", sizeof(%s));' % (cname, cname))
        for fname, _, _ in _fields(cls):
            lines.append('printf("field %s.%s %%zu %%zu\\n", offsetof(%s, %s), sizeof(((%s *)0)->%s));'
                         % (cname, fname, cname, fname, cname, fname))
    for expr, _ in _constants():
        lines.append('printf("const %s %%llu\\n", (unsigned long long)(%s));' % (expr, expr))
    lines.append("return 0; }")
    d = tmp_path_factory.mktemp("layout")
    src, exe = d / "layout.c", d / "layout"
    src.write_text("\n".join(lines) + "\n")
    subprocess.run([cc, "-std=c11", "-I", os.path.join(root, "include"), "-o", str(exe), str(src)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    said = {}
    for line in out.splitlines():
        what, name, *vals = line.split()
        said[(what, name)] = tuple(int(v) for v in vals)
    return said


@pytest.mark.parametrize("cname", sorted(_ffi.STRUCTS))
def test_struct_layout_matches_c(c_says, cname):
    cls = _ffi.STRUCTS[cname]
    assert ctypes.sizeof(cls) == c_says[("size", cname)][0], "sizeof(%s)" % cname
    for fname, desc, ft in _fields(cls):
        off, size = c_says[("field", "%s.%s" % (cname, fname))]
        assert desc.offset == off, "offsetof(%s, %s)" % (cname, fname)
        assert ctypes.sizeof(ft) == size, "sizeof %s.%s" % (cname, fname)


def test_every_public_struct_is_mirrored(root):
    """A struct a header defines and the package does not mirror fails here."""
    import re
    found = set()
    for h in os.listdir(os.path.join(root, "include", "placement")):
        text = open(os.path.join(root, "include", "placement", h)).read()
        found |= set(re.findall(r"typedef struct (pl_[a-z_]+) \{", text))
    assert found - set(_ffi.STRUCTS) == set()


_FAMILIES = {"PL_ELEM_": "ELEM_KINDS", "PL_ORIGIN_": "ORIGINS", "PL_SCOPE_": "SCOPES",
             "PL_BROKER_STALL_": "BROKER_STALLS", "PL_REGION_WANT_": "REGION_WANTS"}
# families mirrored as {name: value}
_FAMILIES_BY_NAME = {"PL_IMBALANCE_": "IMBALANCE_MEASURES"}


def test_every_constant_of_a_mirrored_family_is_mirrored(root):
    """A PL_SCOPE_*, PL_ELEM_*, ... a header adds and the package does not
    mirror fails here (the values are checked by test_constant_matches_header)."""
    import re
    up = lambda w: w.upper().replace("-", "_")  # noqa: E731
    for h in os.listdir(os.path.join(root, "include", "placement")):
        text = open(os.path.join(root, "include", "placement", h)).read()
        for prefix, table in _FAMILIES.items():
            mirrored = {prefix + up(w) for w in getattr(_ffi, table).values()}
            found = set(re.findall(r"#define (%s[A-Z_]+) " % prefix, text))
            assert found - mirrored == set(), "%s: %s" % (h, table)
        for prefix, table in _FAMILIES_BY_NAME.items():
            mirrored = {prefix + up(w) for w in getattr(_ffi, table)}
            found = set(re.findall(r"#define (%s[A-Z_]+) " % prefix, text))
            assert found - mirrored == set(), "%s: %s" % (h, table)


@pytest.mark.parametrize("expr,value", _constants())
def test_constant_matches_header(c_says, expr, value):
    assert c_says[("const", expr)][0] == value


def test_packer_agrees_with_ctypes():
    """The struct.Struct records the Snapshot packs read back field for field."""
    pk = _ffi.packer(_ffi.PlShard)
    buf = bytearray(pk.size)
    pk.pack_into(buf, 0, 0x1000, 3, 7, 8, 1, 2, 3, 1, 2, 9, 8, 7, 6, 5, 4, 3, 2)
    s = _ffi.PlShard.from_buffer(buf)
    assert (s.key.ptr, s.key.len, s.epoch, s.load, s.stream, s.leader, s.moving_to, s.flags, s.replica_count) == (
        0x1000, 3, 7, 8, 1, 2, 3, 1, 2)
    assert list(s.replicas) == [9, 8, 7, 6, 5, 4, 3, 2]


def test_snapshot_carries_its_version():
    """The package fills pl_snapshot.version, its first field; the library
    refuses the same struct with any other version (E_VERSION), reading
    nothing else of it."""
    import placement as pl
    snap = pl.Snapshot([pl.Member("a")], [pl.Shard("k", replicas=["a"], leader="a")])
    assert _ffi.PlSnapshot.version.offset == 0
    assert snap._c.version == _ffi.PL_SNAPSHOT_VERSION
    e_version = {v: k for k, v in _ffi.ERROR_CODES.items()}["E_VERSION"]
    for bad in (0, _ffi.PL_SNAPSHOT_VERSION + 1):
        c = _ffi.PlSnapshot.from_buffer_copy(snap._c)
        c.version = bad
        assert _ffi.lib.pl_snapshot_work_size(ctypes.byref(c)) == 0
        assert _ffi.lib.pl_snapshot_validate(ctypes.byref(c), None, 0, None) == e_version
