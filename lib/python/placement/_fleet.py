"""The fleet policy: ownership with overrides, count balance, lag moves and
return home; the override document (placement/fleet.h)."""

import ctypes

from . import _config, _ffi
from ._actions import ActionList, Plan
from ._errors import PlacementError, check
from ._snapshot import Override, encode_id, new_diag
from ._view import _config_namer, as_view


def fleet_decide(target, member, cap=None, **config):
    """One member's decision for this tick (pl_fleet_decide()): clean-up of
    void and redundant overrides, then lag moves (a lagging member) or count
    balance and return home. Every action is applied to the view.

    Args:
        target: a View (changed by the actions) or a Snapshot.
        member: the id of the deciding member (pl_fleet_config.self).
        cap: room for actions; None (the default) is enough for every
            action the call can emit (the overrides, plus the moves).
        **config: fields of pl_fleet_config, defaults from
            pl_fleet_config_init(): now, last_move (None: never moved),
            cooldown, moves_per_decision, spread, return_home_age (None:
            never), count_balance.

    Returns:
        a Plan; status one of "balanced", "full", "cooldown", "waiting",
        "not-live", "stalled".

    Raises:
        TypeError: an unknown keyword.
        PlacementError: E_NOT_FOUND (no member with that id), E_CONFIG
            naming the field. Shards and no eligible member to own them
            (the C call's E_NO_ELIGIBLE) is no error: the Plan has status
            "stalled", no actions, note Plan.NO_ELIGIBLE.
    """
    if "self" in config:
        raise TypeError("fleet_decide: the deciding member is the second argument, not self=")
    view, _ = as_view(target, config.pop("scorer", "xxh3"))
    cfg = _config.build("fleet", config)
    cfg.self = view._index("member", member)
    snap = view.snapshot
    if cap is None:
        cap = view.counts().overrides + min(cfg.moves_per_decision, len(snap.shards)) + 8
    arr = (_ffi.PlAction * max(cap, 1))()
    info = _ffi.PlPlanInfo()
    diag = new_diag()
    rc = _ffi.lib.pl_fleet_decide(view._v, ctypes.byref(cfg), arr, cap, ctypes.byref(info), ctypes.byref(diag))
    if rc == _ffi.lib_code("E_NO_ELIGIBLE"):
        return Plan.no_eligible("fleet", snap)
    snap.raise_for(rc, diag, _config_namer(_ffi.PlFleetConfig, snap))
    return Plan("fleet", ActionList(arr, rc, snap), info, snap)


def fleet_owner(target, shard):
    """The id of the member that owns a shard now: its override's member when
    that member is eligible, else its ring home (pl_fleet_owner()). Raises
    PlacementError: E_NOT_FOUND, E_NO_ELIGIBLE."""
    view, _ = as_view(target)
    return view.snapshot.member_ids[check(_ffi.lib.pl_fleet_owner(view._v, view._index("shard", shard)))]


def fleet_owners(target):
    """{shard key: owner id} for every shard (pl_fleet_owners()). Raises
    PlacementError: E_NO_ELIGIBLE."""
    view, _ = as_view(target)
    snap = view.snapshot
    n = len(snap.shards)
    out = (ctypes.c_uint32 * max(n, 1))()
    diag = new_diag()
    snap.raise_for(_ffi.lib.pl_fleet_owners(view._v, out, n, ctypes.byref(diag)), diag)
    ids = snap.member_ids
    return {snap.shard_keys[k]: ids[out[k]] for k in range(n)}


def fleet_doc_read(target, text):
    """Read an override document (version 1, see placement/fleet.h) into
    Override objects for the view's snapshot (pl_fleet_doc_read()).

    Args:
        target: a View or a Snapshot with the members and shards.
        text: the document, str (UTF-8) or bytes.

    Returns:
        (overrides, skipped): the Overrides in line order, by id, and how
        many lines named a shard or member the snapshot does not hold.

    Raises:
        PlacementError: E_DOC_VERSION, E_DOC_SYNTAX, E_ORIGIN, E_LENGTH; its
            `line` attribute is the 1-based line number.
    """
    view, _ = as_view(target)
    snap = view.snapshot
    b = encode_id(text, "document")
    cap = b.count(b"\n") + 2
    out = (_ffi.PlOverride * cap)()
    skipped = ctypes.c_uint32(0)
    diag = new_diag()
    rc = _ffi.lib.pl_fleet_doc_read(view._v, b, len(b), out, cap, ctypes.byref(skipped), ctypes.byref(diag))
    if rc < 0:
        line = diag.other if diag.other != _ffi.PL_NONE else None
        e = PlacementError(rc, _ffi.ELEM_KINDS.get(diag.kind, "unknown"), diag.index,
                           detail=None if line is None else "line %d" % line)
        e.line = line
        raise e
    ovs = [Override(snap.shard_keys[o.shard], snap.member_ids[o.member], _ffi.ORIGINS.get(o.origin, "unknown"),
                    o.since) for o in out[:rc]]
    return ovs, skipped.value


def fleet_doc_format(target):
    """The overrides in force in a view (the snapshot's, with every action
    applied since) as an override document, one line per shard in key order,
    with its origin (pl_fleet_doc_format()). Returns str (the document is
    ASCII: other bytes are written as %XX)."""
    view, _ = as_view(target)
    n = check(_ffi.lib.pl_fleet_doc_format(view._v, None, 0))
    buf = ctypes.create_string_buffer(n + 1)
    check(_ffi.lib.pl_fleet_doc_format(view._v, buf, n + 1))
    return buf.raw[:n].decode("ascii")
