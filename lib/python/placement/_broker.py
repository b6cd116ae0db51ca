"""The broker policy: leaders and replicas per stream (placement/broker.h)."""

import ctypes

from . import _config, _ffi
from ._actions import ActionList, DrainStall, Plan
from ._snapshot import new_diag
from ._view import View, _config_namer, as_view

_ACTION = ctypes.sizeof(_ffi.PlAction)
_FULL = None
_NO_ELIGIBLE = _ffi.lib_code("E_NO_ELIGIBLE")


def _full():
    global _FULL
    if _FULL is None:
        _FULL = {v: k for k, v in _ffi.STATUSES.items()}["full"]
    return _FULL


def broker_plan(target, scorer="xxh3", **config):
    """One tick of the broker policy (pl_broker_plan()): place what has no
    live leader, hand off what draining members lead and hold, repair zones,
    then start rebalance moves (leaders, then replicas) up to the limits. Every action is applied to the view as it is
    emitted.

    Args:
        target: a View (changed by the actions) or a Snapshot (a new View of
            it is built, with `scorer`).
        scorer: for a Snapshot target: "xxh3" or "legacy".
        **config: fields of pl_broker_config, defaults from
            pl_broker_config_init(): max_moves, max_moves_in, max_moves_out,
            paused, replication_factor, stream_balance, replica_balance
            (True, the default: replicas per stream and in total are kept
            even too; False: leaders only, drains and zone repair still move
            replicas), handoff_only (False, the default; True: leaderships
            move by hand-offs to in-sync followers only and nothing is
            copied; a bound only a copy would meet ends the plan
            "blocked-handoff"), and the bytes settings, which act only on
            a Snapshot that gives sizes (Shard(size=...),
            Member(capacity=...)): bytes_balance (True, the default: each
            member's bytes kept within bytes_tolerance of its share),
            bytes_first (False, the default: the counts before the bytes
            band), full_ratio (percent of a member's capacity no copy fills
            it past, 0..100, 0 none; default 90; a plan held by it ends
            "blocked-full"), bytes_tolerance (percent, 0..1000, default 10),
            max_bytes_in_flight, max_bytes_in, max_bytes_out (bytes of
            copies in flight in all, into one member, out of one member; 0,
            the default, is no limit), and the tolerances (config version
            4): tolerance (shards by which a member's total leaders or
            replicas may stray past its floor and ceiling before a move is
            made, 0..PL_MAX_TOLERANCE, default 0) and stream_tolerance (the
            same for each stream's counts where its Stream(tolerance=...)
            is None; default 0). A Stream(keep=True) is left out of the
            rebalance moves (none takes one of its shards); the other steps
            still move its shards.

    Returns:
        a Plan: its actions, in the order to carry them out, and its status.
        When the output array fills, the binding calls again with more room,
        going on from there as one call with a larger array would.

    Raises:
        TypeError: an unknown keyword.
        PlacementError: E_CONFIG naming the field (kind "config", id the
            field's name), or an error of the snapshot. A layout with shards
            and no eligible member (every member down or draining; the C
            call's E_NO_ELIGIBLE) is no error: its Plan has status
            "stalled", no actions, and note Plan.NO_ELIGIBLE.
    """
    view, _ = as_view(target, scorer)
    cfg = _config.build("broker", config)
    snap = view.snapshot
    namer = _config_namer(_ffi.PlBrokerConfig, snap)
    cap = 1024
    arr = (_ffi.PlAction * cap)()
    total = 0
    info = _ffi.PlPlanInfo()
    while True:
        diag = new_diag()
        rc = _ffi.lib.pl_broker_plan(view._v, ctypes.byref(cfg), ctypes.addressof(arr) + total * _ACTION,
                                     cap - total, ctypes.byref(info), ctypes.byref(diag))
        if rc == _NO_ELIGIBLE:
            return Plan.no_eligible("broker", snap)
        snap.raise_for(rc, diag, namer)
        total += rc
        if info.status != _full():
            break
        cap *= 4
        bigger = (_ffi.PlAction * cap)()
        ctypes.memmove(bigger, arr, total * _ACTION)
        arr = bigger
    wanted = total - rc + info.wanted
    return Plan("broker", ActionList(arr, total, snap), info, snap, written=total, wanted=wanted)


def broker_dry_run(target, scorer="xxh3", cap=None, **config):
    """The whole sequence of actions from this layout to a balanced one
    (pl_broker_dry_run()): pl_broker_plan(), then pl_view_settle(), repeated
    until a tick on a settled view emits nothing (moves in flight in the
    snapshot are settled first). What an operator reviews before turning the
    balancer on.

    Args:
        target: a View (it ends holding the layout after the actions) or a
            Snapshot (a new View of it is built, with `scorer`).
        scorer: for a Snapshot target: "xxh3" or "legacy".
        cap: None (the default) for the whole sequence: when the C call's
            output array fills, the binding runs it again, from the same
            starting layout, with four times the room. An int stops the
            sequence after that many actions (status "full"), as the C call
            does.
        **config: as broker_plan(); max_moves applies per tick.

    Returns:
        a Plan with the sequence, its status (why the last tick emitted
        nothing: "balanced", a block, "stalled", "drain-stalled", ...;
        never "move-limit" or "in-flight") and ticks (how many
        ticks emitted something).

    Raises:
        as broker_plan().
    """
    view, fresh = as_view(target, scorer)
    cfg = _config.build("broker", config)
    snap = view.snapshot
    namer = _config_namer(_ffi.PlBrokerConfig, snap)
    grow = cap is None
    if not grow and (not isinstance(cap, int) or not 0 <= cap <= 0xFFFFFFFF):
        raise TypeError("cap must be None or an int in 0..2^32-1")
    size = 1024 if grow else cap
    backup = None if fresh or not grow else view.copy()
    while True:
        arr = (_ffi.PlAction * max(size, 1))()
        info = _ffi.PlPlanInfo()
        ticks = ctypes.c_uint32(0)
        diag = new_diag()
        rc = _ffi.lib.pl_broker_dry_run(view._v, ctypes.byref(cfg), arr, size, ctypes.byref(info),
                                        ctypes.byref(ticks), ctypes.byref(diag))
        if rc == _NO_ELIGIBLE:
            return Plan.no_eligible("broker", snap, ticks=0)
        snap.raise_for(rc, diag, namer)
        if not grow or info.status != _full():
            break
        if fresh:
            view = View(snap, scorer=scorer)
        else:
            view._restore(backup)
        size *= 4
    return Plan("broker", ActionList(arr, rc, snap), info, snap, ticks=ticks.value)


def broker_drain_stalls(target):
    """Every replica a draining member holds that a drain cannot move, and
    why (pl_broker_drain_stalls()): the entries behind a plan's status
    "drain-stalled". Read-only: the view is not changed.

    Args:
        target: a View (as it is now, after the actions applied to it) or a
            Snapshot (a new View of it is built).

    Returns:
        a list of DrainStall (shard, member, reason: "held", "zones" or
        "caps"), shards in key order, a shard's members in id order; empty
        when every replica on a draining member has somewhere to go.
    """
    view, _ = as_view(target)
    total = ctypes.c_uint32(0)
    diag = new_diag()
    rc = _ffi.lib.pl_broker_drain_stalls(view._v, None, 0, ctypes.byref(total), ctypes.byref(diag))
    view.snapshot.raise_for(rc, diag)
    n = total.value
    arr = (_ffi.PlBrokerStall * max(n, 1))()
    rc = _ffi.lib.pl_broker_drain_stalls(view._v, arr, n, ctypes.byref(total), ctypes.byref(diag))
    view.snapshot.raise_for(rc, diag)
    return [DrainStall._from_c(arr[i], view.snapshot) for i in range(rc)]
