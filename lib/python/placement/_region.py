"""The region policy: replica sets that grow onto joining members, and
primaries that follow (placement/region.h)."""

import ctypes

from . import _config, _ffi
from ._actions import ActionList, Plan, Stall
from ._snapshot import new_diag
from ._view import _config_namer, as_view


def region_plan(target, **config):
    """One tick of the region policy (pl_region_plan()): grow regions below
    the effective replication factor and claim primaries, fill idle
    members, hand primaries to the newest peer, (when on) primaries toward
    less load, then even primaries out within the peer sets. Every action
    is applied to the view.

    Args:
        target: a View (changed by the actions) or a Snapshot.
        **config: fields of pl_region_config, defaults from
            pl_region_config_init(): replication_factor, add_peer_proposals,
            load_balance, load_threshold, max_actions.

    Returns:
        a Plan whose stalls list the regions the call wanted to act on and
        could not (Stall: shard, reason, step, member); status
        "action-cap", "full", "stalled", "proposals-off" or "balanced".

    Raises:
        TypeError: an unknown keyword.
        PlacementError: E_CONFIG naming the field. Regions and no live,
            non-draining member (the C call's E_NO_ELIGIBLE) is no error:
            the Plan has status "stalled", no actions, note Plan.NO_ELIGIBLE.
    """
    view, _ = as_view(target, config.pop("scorer", "xxh3"))
    cfg = _config.build("region", config)
    snap = view.snapshot
    # at most one action per region per call, and max_actions in all
    cap = max(1, min(cfg.max_actions, len(snap.shards) + 1))
    scap = len(snap.shards) + len(snap.members) + 16
    arr = (_ffi.PlAction * cap)()
    stalls = (_ffi.PlRegionStall * scap)()
    info = _ffi.PlPlanInfo()
    diag = new_diag()
    rc = _ffi.lib.pl_region_plan(view._v, ctypes.byref(cfg), arr, cap, ctypes.byref(info), stalls, scap,
                                 ctypes.byref(diag))
    if rc == _ffi.lib_code("E_NO_ELIGIBLE"):
        return Plan.no_eligible("region", snap)
    snap.raise_for(rc, diag, _config_namer(_ffi.PlRegionConfig, snap))
    st = [Stall(stalls[i], snap) for i in range(min(info.blocked, scap))]
    return Plan("region", ActionList(arr, rc, snap), info, snap, stalls=st)


def region_effective_rf(target, **config):
    """The effective replication factor, min(replication_factor, live
    members) (pl_region_effective_rf()); 0 when no member is live. Takes the
    region config's keywords. Raises PlacementError: E_CONFIG."""
    view, _ = as_view(target)
    cfg = _config.build("region", config)
    diag = new_diag()
    rc = _ffi.lib.pl_region_effective_rf(view._v, ctypes.byref(cfg), ctypes.byref(diag))
    return view.snapshot.raise_for(rc, diag, _config_namer(_ffi.PlRegionConfig, view.snapshot))


def region_check_add_peer(target, region, member, expected_epoch):
    """May `member` be added as a peer of `region`, proposed against
    `expected_epoch`? The rules every add-peer the policy emits passes
    (pl_region_check_add_peer()). Returns None when the add may go ahead.

    Raises:
        PlacementError, the first that fails: E_NOT_IDEMPOTENT,
        E_TRANSFER_DEBT, E_EPOCH_STALE, E_PEER_DUPLICATE,
        E_MEMBER_UNAVAILABLE, E_NOT_READY, E_MEMBER_FULL,
        E_REPLICA_SET_FULL, E_REPLICA_ROOM, E_MOVE_IN_FLIGHT (a copy or a
        primary move in flight), naming the region (kind "shard") or the member;
        E_NOT_FOUND for an id the snapshot does not hold.
    """
    view, _ = as_view(target)
    if not isinstance(expected_epoch, int) or not 0 <= expected_epoch < (1 << 64):
        raise TypeError("expected_epoch must be an int in 0..2^64-1")
    k = view._index("shard", region)
    m = view._index("member", member)
    diag = new_diag()
    rc = _ffi.lib.pl_region_check_add_peer(view._v, k, m, expected_epoch, ctypes.byref(diag))
    view.snapshot.raise_for(rc, diag)
