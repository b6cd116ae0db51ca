"""The raw layer: the shared library, its structs mirrored with ctypes, and
the prototypes of every public C function.

Nothing here knows about ids; the modules above translate ids to indices.
Each ``ctypes.Structure`` below mirrors one struct of include/placement/*.h
field for field; tests/python/test_layout.py compiles a C program against
the headers and checks every size and every field offset against them.

The constants mirrored here (flags, kinds, scopes, origins, route values)
are checked against the headers by the same test. Names of action kinds,
reasons, statuses, stall reasons, route rules and error codes are never
mirrored: they are read from the library's own name functions.
"""

import ctypes
import os
import struct

#: The major version this package speaks to: it loads libplacement.so.MAJOR.
SONAME_MAJOR = 0

u32 = ctypes.c_uint32
u64 = ctypes.c_uint64
i32 = ctypes.c_int32
i64 = ctypes.c_int64

# ---- constants of the headers (checked by test_layout.py) -------------------

PL_NONE = 0xFFFFFFFF
PL_MAX_MEMBERS = 1 << 20
PL_MAX_STREAMS = 1 << 24
PL_MAX_SHARDS = 1 << 26
PL_MAX_ID_LEN = 1024
PL_MAX_REPLICAS = 8
PL_MAX_WEIGHT = 65536
PL_MAX_COPIES = PL_MAX_SHARDS
#: pl_snapshot.version, its first field: 3 added shard sizes and member
#: capacities, 5 the streams' rules (stream_tolerance, stream_zone_rule,
#: stream_flags); 1 and 3 are read too, any other is refused with E_VERSION.
PL_SNAPSHOT_VERSION = 5
#: pl_broker_config.version the package fills: 4 added tolerance and
#: stream_tolerance.
PL_BROKER_CONFIG_VERSION = 4
#: Most a member's capacity may be, in bytes (2^62); the known sizes of all
#: shards together may be at most PL_MAX_BYTES // PL_MAX_REPLICAS.
PL_MAX_BYTES = 1 << 62
#: A size or capacity the caller does not know (not zero): UINT64_MAX.
PL_BYTES_UNKNOWN = 0xFFFFFFFFFFFFFFFF
#: Most a broker config's bytes_tolerance may be, in percent.
PL_BROKER_MAX_TOLERANCE = 1000
#: snapshot.stream_tolerance: the stream takes the config's stream_tolerance.
PL_TOLERANCE_DEFAULT = 0xFFFFFFFF
#: Most a tolerance may be, in shards (a stream's, or a config's): 2^26.
PL_MAX_TOLERANCE = PL_MAX_SHARDS
#: snapshot.stream_zone_rule: span as many zones as it can (the default).
PL_ZONES_SPAN = 0
#: snapshot.stream_zone_rule: that, and at most (replicas - 1) // 2 of a
#: shard's replicas in one zone (no zone holds a majority's worth).
PL_ZONES_MAJORITY = 1
PL_ZONES_RULE_MAX = 1
#: The words of the zone rules (Stream(zones=...), placement(5)'s zones=).
ZONE_RULES = {"span": PL_ZONES_SPAN, "majority": PL_ZONES_MAJORITY}
#: snapshot.stream_flags: the stream is excluded from balancing (Stream(keep=True),
#: placement(5)'s keep): no balance move takes one of its shards; they still
#: count in the totals, and failover, drains, zone repair and placing move them.
PL_STREAM_KEEP = 0x1
PL_STREAM_FLAGS_ALL = PL_STREAM_KEEP
PL_VIEW_ALIGN = 8

PL_MEMBER_DOWN = 0x1
PL_MEMBER_DRAINING = 0x2
PL_MEMBER_LAGGING = 0x4
PL_MEMBER_UNMEASURED = 0x8
PL_SHARD_NOT_IDEMPOTENT = 0x1
PL_SHARD_TRANSFER_DEBT = 0x2
PL_SHARD_OUT_OF_SYNC_0 = 0x100  # PL_SHARD_OUT_OF_SYNC(j) is this shifted left by j
PL_ACTION_STAGE_FIRST = 0x1
PL_ACTION_CARRIES_LEADER = 0x2
PL_ACTION_PAIRED = 0x4
PL_ACTION_FOR_HANDOFF = 0x8
PL_ACTION_EXCHANGE = 0x10

PL_SCORER_XXH3 = 1
PL_SCORER_LEGACY_FNV1A = 2

PL_FLEET_NEVER = 0xFFFFFFFFFFFFFFFF

#: PL_ELEM_*: the element kinds of a pl_diag, as words.
ELEM_KINDS = {
    0: "none",  # PL_ELEM_NONE
    1: "snapshot",  # PL_ELEM_SNAPSHOT
    2: "member",  # PL_ELEM_MEMBER
    3: "stream",  # PL_ELEM_STREAM
    4: "shard",  # PL_ELEM_SHARD
    5: "override",  # PL_ELEM_OVERRIDE
    6: "config",  # PL_ELEM_CONFIG
    7: "argument",  # PL_ELEM_ARGUMENT
    8: "copy",  # PL_ELEM_COPY
}
ELEM_CODES = {v: k for k, v in ELEM_KINDS.items()}

#: PL_ORIGIN_*: the library has no name function for origins; these are the
#: words of its override document (placement/fleet.h).
ORIGINS = {0: "lag", 1: "count"}

#: PL_SCOPE_*: the library has no name function for scopes.
SCOPES = {
    0: "none",
    1: "stream",
    2: "cluster",
    3: "owned",
    4: "replicas",
    5: "primaries",
    6: "peers",
    7: "stream-replicas",
    8: "zones",
    9: "bytes",
}

#: PL_BROKER_STALL_*: why a draining member's replica cannot leave it
#: (pl_broker_drain_stalls()); the library has no name function for them.
BROKER_STALLS = {1: "held", 2: "zones", 3: "caps"}

#: PL_REGION_WANT_*: what a stalled region waited for (pl_region_stall.wanted).
REGION_WANTS = {1: "primary", 2: "peer"}

#: Scorer words (PL_SCORER_*), as placement(5) spells them.
SCORERS = {"xxh3": PL_SCORER_XXH3, "legacy": PL_SCORER_LEGACY_FNV1A}

# placement/route.h
ROUTE_ANSWERS = {"served": 0, "not-owner": 1}
ROUTE_BODIES = {"unread": 0, "whole": 1, "past-limit": 2, "partial": 3}
ROUTE_OUTCOMES = {None: 0, "answered": 1, "refused": 2, "failed": 3}
ROUTE_VERDICTS = {1: "serve", 2: "forward", 3: "relay", 4: "replay", 5: "failed"}
ROUTE_SENDS = {0: None, 1: "stream", 2: "frames"}
PL_ROUTE_BODY_LIMIT = 65536


# ---- structs ----------------------------------------------------------------


class PlBytes(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p), ("len", u64)]


class PlMember(ctypes.Structure):
    _fields_ = [
        ("id", PlBytes),
        ("zone", PlBytes),
        ("joined_at", u64),
        ("load", u64),
        ("map_version", u64),
        ("weight", u32),
        ("max_shards", u32),
        ("flags", u32),
    ]


class PlStream(ctypes.Structure):
    _fields_ = [("id", PlBytes)]


class PlShard(ctypes.Structure):
    _fields_ = [
        ("key", PlBytes),
        ("epoch", u64),
        ("load", u64),
        ("stream", u32),
        ("leader", u32),
        ("moving_to", u32),
        ("flags", u32),
        ("replica_count", u32),
        ("replicas", u32 * PL_MAX_REPLICAS),
    ]


class PlOverride(ctypes.Structure):
    _fields_ = [("since", u64), ("shard", u32), ("member", u32), ("origin", u32)]


class PlCopy(ctypes.Structure):
    _fields_ = [("shard", u32), ("to", u32), ("from_", u32), ("reserved", u32)]


class PlSnapshot(ctypes.Structure):
    _fields_ = [
        ("version", u32),
        ("members", ctypes.c_void_p),
        ("streams", ctypes.c_void_p),
        ("shards", ctypes.c_void_p),
        ("overrides", ctypes.c_void_p),
        ("copies", ctypes.c_void_p),
        ("n_members", u32),
        ("n_streams", u32),
        ("n_shards", u32),
        ("n_overrides", u32),
        ("n_copies", u32),
        ("shard_bytes", ctypes.c_void_p),
        ("member_capacity", ctypes.c_void_p),
        # version 5: each stream's rules, parallel to streams (NULL = defaults)
        ("stream_tolerance", ctypes.c_void_p),
        ("stream_zone_rule", ctypes.c_void_p),
        ("stream_flags", ctypes.c_void_p),
    ]


class PlDiag(ctypes.Structure):
    _fields_ = [("code", i32), ("kind", u32), ("index", u32), ("other", u32)]


class PlAction(ctypes.Structure):
    _fields_ = [
        ("kind", u32),
        ("reason", u32),
        ("shard", u32),
        ("stream", u32),
        ("from_", u32),
        ("to", u32),
        ("flags", u32),
        ("origin", u32),
        ("scope", u32),
        ("tier", u32),
        ("from_count", u32),
        ("to_count", u32),
        ("floor", u32),
        ("ceiling", u32),
        ("share", u32),
        ("total", u32),
        ("at", u64),
        ("load", u64),
        ("bytes", u64),
        ("from_bytes", u64),
        ("to_bytes", u64),
        ("bytes_limit", u64),
    ]


class PlPlanInfo(ctypes.Structure):
    _fields_ = [("written", u32), ("wanted", u32), ("status", u32), ("detail", u32), ("blocked", u32)]


class PlViewOptions(ctypes.Structure):
    _fields_ = [("version", u32), ("scorer", u32), ("reuse", ctypes.c_void_p), ("max_replicas", u32), ("reserved", u32)]


class PlViewCounts(ctypes.Structure):
    _fields_ = [
        ("members", u32),
        ("live", u32),
        ("eligible", u32),
        ("streams", u32),
        ("shards", u32),
        ("overrides", u32),
        ("moving", u32),
        ("leaderless", u32),
        ("scorer", u32),
        ("share", u32),
        ("weight", u64),
        ("copies", u32),
    ]


class PlTally(ctypes.Structure):
    _fields_ = [("leaders", u32), ("replicas", u32), ("floor", u32), ("ceiling", u32), ("shards", u32)]


class PlImbalance(ctypes.Structure):
    _fields_ = [("total", ctypes.c_uint64), ("totals", ctypes.c_uint64), ("streams", ctypes.c_uint64)]


# pl_view_imbalance()'s measures (PL_IMBALANCE_*), by the names the package takes
IMBALANCE_MEASURES = {"leaders": 0, "broker": 1, "owned": 2, "replicas": 3}


class PlShardState(ctypes.Structure):
    _fields_ = [
        ("leader", u32),
        ("replica_count", u32),
        ("replicas", u32 * PL_MAX_REPLICAS),
        ("moving", u32),
        ("override_member", u32),
        ("override_origin", u32),
        ("override_since", u64),
        ("epoch", u64),
    ]


class PlBrokerConfig(ctypes.Structure):
    _fields_ = [
        ("version", u32),
        ("max_moves", u32),
        ("max_moves_in", u32),
        ("max_moves_out", u32),
        ("paused", u32),
        ("replication_factor", u32),
        ("stream_balance", u32),
        ("replica_balance", u32),
        ("handoff_only", u32),
        ("bytes_balance", u32),
        ("bytes_first", u32),
        ("full_ratio", u32),
        ("bytes_tolerance", u32),
        ("reserved", u32),
        ("max_bytes_in_flight", u64),
        ("max_bytes_in", u64),
        ("max_bytes_out", u64),
        # version 4
        ("tolerance", u32),
        ("stream_tolerance", u32),
    ]


class PlFleetConfig(ctypes.Structure):
    _fields_ = [
        ("version", u32),
        ("self", u32),
        ("now", u64),
        ("last_move", u64),
        ("cooldown", u64),
        ("moves_per_decision", u32),
        ("spread", u32),
        ("return_home_age", u64),
        ("count_balance", u32),
        ("reserved", u32),
    ]


class PlRegionConfig(ctypes.Structure):
    _fields_ = [
        ("version", u32),
        ("replication_factor", u32),
        ("add_peer_proposals", u32),
        ("load_balance", u32),
        ("load_threshold", u32),
        ("max_actions", u32),
    ]


class PlRegionStall(ctypes.Structure):
    _fields_ = [("shard", u32), ("reason", u32), ("step", u32), ("member", u32), ("wanted", u32)]


class PlBrokerStall(ctypes.Structure):
    _fields_ = [("shard", u32), ("member", u32), ("reason", u32), ("reserved", u32)]


class PlRouteRequest(ctypes.Structure):
    _fields_ = [
        ("version", u32),
        ("data_plane", u32),
        ("answer", u32),
        ("owner_known", u32),
        ("forwarded", u32),
        ("body", u32),
        ("outcome", u32),
        ("reserved", u32),
    ]


class PlRouteVerdict(ctypes.Structure):
    _fields_ = [
        ("verdict", u32),
        ("rule", u32),
        ("status", u32),
        ("retry_after", u32),
        ("mark", u32),
        ("send_body", u32),
    ]


class PlRouteOwner(ctypes.Structure):
    _fields_ = [("owner", u32), ("home", u32), ("shard", u32), ("is_self", u32)]


#: Every mirrored struct with its C name (the layout test walks this).
STRUCTS = {
    "pl_bytes": PlBytes,
    "pl_member": PlMember,
    "pl_stream": PlStream,
    "pl_shard": PlShard,
    "pl_override": PlOverride,
    "pl_copy": PlCopy,
    "pl_snapshot": PlSnapshot,
    "pl_diag": PlDiag,
    "pl_action": PlAction,
    "pl_plan_info": PlPlanInfo,
    "pl_view_options": PlViewOptions,
    "pl_view_counts": PlViewCounts,
    "pl_tally": PlTally,
    "pl_imbalance": PlImbalance,
    "pl_shard_state": PlShardState,
    "pl_broker_config": PlBrokerConfig,
    "pl_fleet_config": PlFleetConfig,
    "pl_region_config": PlRegionConfig,
    "pl_region_stall": PlRegionStall,
    "pl_broker_stall": PlBrokerStall,
    "pl_route_request": PlRouteRequest,
    "pl_route_verdict": PlRouteVerdict,
    "pl_route_owner": PlRouteOwner,
}

#: Python field names that differ from the C ones (a C keyword or builtin).
C_FIELD_NAMES = {"from_": "from"}


def packer(cls):
    """A struct.Struct that packs one record of cls, flattened: nested
    pl_bytes as (ptr, len), arrays as their elements, padding as in C. Built
    from the ctypes layout, so the two cannot disagree."""
    fmt = ["="]
    pos = 0

    def walk(t, base):
        nonlocal pos
        for name, ft in t._fields_:
            off = base + getattr(t, name).offset
            if off > pos:
                fmt.append("%dx" % (off - pos))
                pos = off
            if isinstance(ft, type) and issubclass(ft, ctypes.Structure):
                walk(ft, off)
                continue
            n = 1
            if isinstance(ft, type) and issubclass(ft, ctypes.Array):
                n, ft = ft._length_, ft._type_
            code = {u32: "I", u64: "Q", i32: "i", i64: "q", ctypes.c_void_p: "Q"}[ft]
            fmt.append("%d%s" % (n, code) if n > 1 else code)
            pos += n * ctypes.sizeof(ft)

    walk(cls, 0)
    if ctypes.sizeof(cls) > pos:
        fmt.append("%dx" % (ctypes.sizeof(cls) - pos))
    s = struct.Struct("".join(fmt))
    assert s.size == ctypes.sizeof(cls), cls
    return s


# ---- the library --------------------------------------------------------------


def _candidates():
    soname = "libplacement.so.%d" % SONAME_MAJOR
    env = os.environ.get("PLACEMENT_LIB")
    if env:
        return [env], True
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, "..", "..", ".."))
    tree = os.path.join(root, "build", soname)
    if os.path.exists(os.path.join(root, "include", "placement.h")) and os.path.exists(tree):
        return [tree], True
    bundled = os.path.join(here, soname)
    if os.path.exists(bundled):  # installed by pip: the wheel carries the library
        return [bundled], True
    return [soname], False


def _load():
    names, exact = _candidates()
    errors = []
    for name in names:
        try:
            return ctypes.CDLL(name), name
        except OSError as e:
            errors.append(str(e))
    hint = "" if exact else " (set PLACEMENT_LIB to the library's path, or run `make` in the source tree)"
    raise ImportError("placement: cannot load %s: %s%s" % (names[0], "; ".join(errors), hint))


lib, LIB_PATH = _load()

P = ctypes.POINTER
vp = ctypes.c_void_p
cp = ctypes.c_char_p
sz = ctypes.c_size_t
ci = ctypes.c_int

_PROTOTYPES = {
    "pl_version": (cp, []),
    "pl_version_number": (ci, []),
    "pl_strerror": (cp, [ci]),
    "pl_error_name": (cp, [ci]),
    "pl_hash": (u64, [vp, sz]),
    "pl_score": (u64, [u64, u64]),
    "pl_score_legacy": (u64, [vp, sz, vp, sz]),
    "pl_score_weighted": (i64, [u64, u32]),
    "pl_snapshot_work_size": (sz, [P(PlSnapshot)]),
    "pl_snapshot_validate": (ci, [P(PlSnapshot), vp, sz, P(PlDiag)]),
    "pl_action_explain": (ci, [P(PlSnapshot), P(PlAction), vp, sz]),
    "pl_action_kind_name": (cp, [u32]),
    "pl_reason_name": (cp, [u32]),
    "pl_status_name": (cp, [u32]),
    "pl_view_options_init": (ci, [P(PlViewOptions)]),
    "pl_view_size": (sz, [P(PlSnapshot)]),
    "pl_view_size_opt": (sz, [P(PlSnapshot), P(PlViewOptions)]),
    "pl_view_init": (ci, [P(vp), vp, sz, P(PlSnapshot), P(PlViewOptions), P(PlDiag)]),
    "pl_view_copy": (ci, [P(vp), vp, sz, vp]),
    "pl_view_stats": (ci, [vp, P(PlViewCounts)]),
    "pl_view_snapshot": (P(PlSnapshot), [vp]),
    "pl_view_find": (ci, [vp, u32, vp, sz]),
    "pl_view_at": (ci, [vp, u32, u32]),
    "pl_view_member_tally": (ci, [vp, u32, P(PlTally)]),
    "pl_view_stream_tally": (ci, [vp, u32, u32, P(PlTally)]),
    "pl_view_imbalance": (ci, [vp, u32, P(PlImbalance)]),
    "pl_view_shard_state": (ci, [vp, u32, P(PlShardState)]),
    "pl_view_home": (ci, [vp, u32]),
    "pl_view_top": (ci, [vp, vp, sz, P(u32), u32]),
    "pl_view_apply": (ci, [vp, P(PlAction)]),
    "pl_view_settle": (ci, [vp]),
    "pl_broker_config_init": (ci, [P(PlBrokerConfig)]),
    "pl_broker_config_init_version": (ci, [P(PlBrokerConfig), u32]),
    "pl_broker_plan": (ci, [vp, P(PlBrokerConfig), vp, u32, P(PlPlanInfo), P(PlDiag)]),
    "pl_broker_dry_run": (ci, [vp, P(PlBrokerConfig), vp, u32, P(PlPlanInfo), P(u32), P(PlDiag)]),
    "pl_broker_drain_stalls": (ci, [vp, vp, u32, P(u32), P(PlDiag)]),
    "pl_fleet_config_init": (ci, [P(PlFleetConfig)]),
    "pl_fleet_owner": (ci, [vp, u32]),
    "pl_fleet_owners": (ci, [vp, P(u32), u32, P(PlDiag)]),
    "pl_fleet_decide": (ci, [vp, P(PlFleetConfig), vp, u32, P(PlPlanInfo), P(PlDiag)]),
    "pl_fleet_doc_read": (ci, [vp, vp, sz, vp, u32, P(u32), P(PlDiag)]),
    "pl_fleet_doc_format": (ci, [vp, vp, sz]),
    "pl_region_config_init": (ci, [P(PlRegionConfig)]),
    "pl_region_stall_name": (cp, [u32]),
    "pl_region_effective_rf": (ci, [vp, P(PlRegionConfig), P(PlDiag)]),
    "pl_region_check_add_peer": (ci, [vp, u32, u32, u64, P(PlDiag)]),
    "pl_region_plan": (ci, [vp, P(PlRegionConfig), vp, u32, P(PlPlanInfo), vp, u32, P(PlDiag)]),
    "pl_route_request_init": (ci, [P(PlRouteRequest)]),
    "pl_route_decide": (ci, [P(PlRouteRequest), P(PlRouteVerdict), P(PlDiag)]),
    "pl_route_rule_name": (cp, [u32]),
    "pl_route_lookup": (ci, [vp, vp, sz, u32, P(PlRouteOwner), P(PlDiag)]),
}

for _name, (_res, _args) in _PROTOTYPES.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args
del _name, _res, _args, _f


def name_of(fn, value):
    """A name function's answer as str ("unknown" for a value it does not know)."""
    return fn(value).decode("ascii")


def names(fn, limit=256):
    """Every value 0..limit that fn names, as {value: name}, from the library."""
    out = {}
    for v in range(limit):
        n = fn(v).decode("ascii")
        if n != "unknown":
            out[v] = n
    return out


# Read once from the library: the names its policies use, and their values.
ACTION_KINDS = names(lib.pl_action_kind_name)
REASONS = names(lib.pl_reason_name)
STATUSES = names(lib.pl_status_name)
STALLS = names(lib.pl_region_stall_name)
ROUTE_RULES = names(lib.pl_route_rule_name)
ACTION_KIND_CODES = {v: k for k, v in ACTION_KINDS.items()}
REASON_CODES = {v: k for k, v in REASONS.items()}


def error_codes(lo=-1024):
    """Every error code the library names, {code: name}, OK excluded."""
    out = {}
    for c in range(lo, 0):
        n = lib.pl_error_name(c).decode("ascii")
        if n != "E_UNKNOWN":
            out[c] = n
    return out


ERROR_CODES = error_codes()

_CODE_OF = {v: k for k, v in ERROR_CODES.items()}


def lib_code(name):
    """The value of the error code the library names `name` ("E_INVAL")."""
    return _CODE_OF[name]
