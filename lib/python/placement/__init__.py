"""placement: the Python binding of libplacement, which decides where shards
live and which move to make next.

Data flows one way: Snapshot -> View -> policy -> Plan of Actions. Members,
streams, shards, overrides and copies are described by id (str or bytes),
and actions come back in ids. Every rule, default and error name is the C
library's own: this package calls libplacement.so through ctypes and adds no
rule of its own.

    import placement
    members = [placement.Member("b0"), placement.Member("b1"), placement.Member("b2")]
    lead = ["b0", "b1"] + ["b2"] * 10
    shards = [placement.Shard(f"perf/{i:02}", stream="perf", replicas=["b0", "b1", "b2"],
                              leader=lead[i]) for i in range(12)]
    snap = placement.Snapshot(members, shards)
    plan = placement.broker_dry_run(snap, max_moves=1)
    for a in plan.actions:
        print(a.kind, a.shard, a.from_member, "->", a.to_member, "|", a.explain())
    print(plan.status)  # balanced

A what-if starts from a file placement(1) wrote (placement(5) text or its
JSON): placement.load(path) gives a Cluster, cluster.plan() the tool's dry
run of it, placement.apply(plan.actions, shards) the caller's shards after
the actions, placement.dump(cluster, path) the file back.

The library is loaded from PLACEMENT_LIB when set, else from the source
tree's build/ when the package runs from the tree, else the copy a pip
install put next to the package, else libplacement.so.MAJOR from the
system's library path. Its version must have the package's MAJOR.MINOR
(ImportError otherwise).
"""

from . import _ffi
from ._actions import Action, ActionList, DrainStall, Plan, Stall
from ._broker import broker_drain_stalls, broker_dry_run, broker_plan
from ._cluster import format_size, parse_size
from ._config import defaults
from ._errors import PlacementError
from ._file import Cluster, Event, FormatError, apply, dump, dumps, load, loads
from ._fleet import fleet_decide, fleet_doc_format, fleet_doc_read, fleet_owner, fleet_owners
from ._region import region_check_add_peer, region_effective_rf, region_plan
from ._route import RouteOwner, Verdict, route_decide, route_lookup
from ._snapshot import Copy, Member, Override, Shard, Snapshot, Stream
from ._view import Counts, Imbalance, ShardState, Tally, View

from ._version import __version__

#: The loaded library's version, pl_version(): the same MAJOR.MINOR as
#: __version__, the package's, or the import fails.
library_version = _ffi.lib.pl_version().decode("ascii")

if library_version.split(".")[:2] != __version__.split(".")[:2]:
    raise ImportError("placement %s needs libplacement %s.x, and %s is version %s: install the package and the "
                      "library of one release (pip install the package built with it, or set PLACEMENT_LIB)"
                      % (__version__, ".".join(__version__.split(".")[:2]), _ffi.LIB_PATH, library_version))

#: Where the shared library was loaded from.
library_path = _ffi.LIB_PATH


def error_codes():
    """{name: code} of every error code the library defines (pl_error_name()
    over the negative codes), "OK" excluded."""
    return {n: c for c, n in sorted(_ffi.ERROR_CODES.items(), reverse=True)}


def error_name(code):
    """pl_error_name(code), e.g. "E_DUP_MEMBER"."""
    return _ffi.lib.pl_error_name(code).decode("ascii")


def strerror(code):
    """pl_strerror(code): the one-line English message of an error code."""
    return _ffi.lib.pl_strerror(code).decode("ascii")


def hash(data):
    """XXH3-64 (seed 0) of a byte string (pl_hash()): the hash of a member
    id or a shard key under the default scorer; the same on every platform."""
    from ._snapshot import encode_id
    b = encode_id(data, "data")
    return _ffi.lib.pl_hash(b, len(b))


def score(key_hash, member_hash):
    """The default scorer's score of a (shard, member) pair from their
    hash() values (pl_score()); higher wins."""
    return _ffi.lib.pl_score(key_hash, member_hash)


def score_legacy(key, member_id):
    """The legacy scorer's score: 64-bit FNV-1a over "<key> <member id>"
    (pl_score_legacy()); higher wins."""
    from ._snapshot import encode_id
    k, m = encode_id(key, "key"), encode_id(member_id, "member id")
    return _ffi.lib.pl_score_legacy(k, len(k), m, len(m))


def score_weighted(score, weight):
    """The straw2 draw of a score for a member of this weight, in integer
    fixed point (pl_score_weighted()); always <= 0, higher wins."""
    if not 0 <= score < (1 << 64) or not 0 <= weight < (1 << 32):
        raise ValueError("score must fit 64 bits and weight 32 bits")
    return _ffi.lib.pl_score_weighted(score, weight)


# hash() is left out of __all__ so that a star import does not shadow the builtin.
__all__ = [
    "Action", "ActionList", "Cluster", "Copy", "Counts", "Event", "FormatError", "DrainStall", "Imbalance", "Member", "Override", "PlacementError", "Plan", "RouteOwner",
    "Shard", "ShardState", "Snapshot", "Stall", "Stream", "Tally", "Verdict", "View", "broker_drain_stalls",
    "apply", "broker_dry_run", "broker_plan", "defaults", "error_codes", "error_name", "fleet_decide", "fleet_doc_format", "fleet_doc_read",
    "fleet_owner", "fleet_owners", "format_size", "dump", "dumps", "load", "loads", "parse_size", "region_check_add_peer", "region_effective_rf", "region_plan",
    "route_decide", "route_lookup", "score", "score_legacy", "score_weighted", "strerror",
]
