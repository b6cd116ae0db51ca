"""Config structs from keywords, with the C library's *_init() as the one
source of defaults."""

import ctypes

from . import _ffi
from ._errors import PlacementError

# Fields no keyword sets: the struct's version, reserved words, and fields a
# call fills from its own arguments.
_HIDDEN = ("version", "reserved")

# The init function of each config, and the layout version it is asked to
# fill (the structs here are that version's: PL_BROKER_CONFIG_VERSION 4).
_POLICIES = {
    "broker": (_ffi.PlBrokerConfig, "pl_broker_config_init_version", _ffi.PL_BROKER_CONFIG_VERSION),
    "fleet": (_ffi.PlFleetConfig, "pl_fleet_config_init"),
    "region": (_ffi.PlRegionConfig, "pl_region_config_init"),
    "route": (_ffi.PlRouteRequest, "pl_route_request_init"),
    "view": (_ffi.PlViewOptions, "pl_view_options_init"),
}

_NEVER_FIELDS = {"fleet": ("last_move", "return_home_age")}

# Fields a call sets from its own arguments (fleet_decide()'s member).
_CALL_FIELDS = {"fleet": ("self",)}


def fresh(policy):
    """The policy's config struct as its *_init() leaves it."""
    cls, init = _POLICIES[policy][:2]
    cfg = cls()
    rc = getattr(_ffi.lib, init)(ctypes.byref(cfg), *_POLICIES[policy][2:])
    assert rc == 0
    return cfg


def fields(policy, hidden=()):
    cls = _POLICIES[policy][0]
    hidden = tuple(hidden) + _CALL_FIELDS.get(policy, ())
    return [n for n, _ in cls._fields_ if n not in _HIDDEN and n not in hidden]


def defaults(policy):
    """{field: default} of a policy's config, read from the C library's own
    *_init(): policy is "broker", "fleet", "region" or "route". Fleet times
    that never come (PL_FLEET_NEVER) read as None."""
    cfg = fresh(policy)
    out = {}
    for n in fields(policy):
        v = getattr(cfg, n)
        if n in _NEVER_FIELDS.get(policy, ()) and v == _ffi.PL_FLEET_NEVER:
            v = None
        out[n] = v
    return out


def build(policy, kwargs, hidden=()):
    """The config struct: *_init(), then each keyword. An unknown keyword is
    a TypeError; a value that is not an int (or bool) is a TypeError; a value
    no C field of its type can hold is PlacementError E_CONFIG naming the
    field. Values the field can hold are left to the library's validator."""
    cls = _POLICIES[policy][0]
    cfg = fresh(policy)
    names = [n for n, _ in cls._fields_]
    allowed = fields(policy, hidden)
    for k, v in kwargs.items():
        if k not in allowed:
            raise TypeError("%s: unknown keyword %r (one of: %s)" % (policy, k, ", ".join(allowed)))
        if v is None and k in _NEVER_FIELDS.get(policy, ()):
            v = _ffi.PL_FLEET_NEVER
        if not isinstance(v, int):
            raise TypeError("%s: %s must be an int or bool, not %s" % (policy, k, type(v).__name__))
        ctype = dict(cls._fields_)[k]
        limit = (1 << (8 * ctypes.sizeof(ctype))) - 1
        if not 0 <= v <= limit:
            raise PlacementError(_ffi.lib_code("E_CONFIG"), "config", names.index(k), k,
                                 detail="%d does not fit its C field (0..%d)" % (v, limit))
        setattr(cfg, k, int(v))
    return cfg
