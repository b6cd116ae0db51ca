"""Routing one request: who owns a key now, and the one-hop forwarding
decision (placement/route.h)."""

import ctypes
from collections import namedtuple

from . import _config, _ffi
from ._snapshot import encode_id, new_diag
from ._view import _config_namer, as_view

RouteOwner = namedtuple("RouteOwner", "owner home shard is_self")
RouteOwner.__doc__ = """Who owns a key's shard now (pl_route_owner): the owner's and the ring
home's member ids, the shard's key (None for a key the snapshot lacks) and
whether the owner is the asking member."""

Verdict = namedtuple("Verdict", "verdict rule status retry_after mark send_body")
Verdict.__doc__ = """What to do with a request (pl_route_verdict): verdict is "serve",
"forward", "relay", "replay" or "failed"; rule is pl_route_rule_name() of the
row that decided; status the HTTP status to answer (409, 503, or 0: the
handler's or the owner's own); retry_after seconds with a 503; mark True
with a forward; send_body "stream", "frames" or None."""

_WORDS = {"answer": _ffi.ROUTE_ANSWERS, "body": _ffi.ROUTE_BODIES, "outcome": _ffi.ROUTE_OUTCOMES}


def route_lookup(target, key, member=None):
    """Who owns the shard with this key now, and whether `member` is it
    (pl_route_lookup()). A key the snapshot does not hold is owned by its
    ring home.

    Args:
        target: a View or a Snapshot.
        key: the shard key (str or bytes).
        member: the asking member's id, or None for a router that is not one.

    Raises:
        PlacementError: E_LENGTH (a key past 1024 bytes), E_NOT_FOUND (no
            member with that id), E_NO_ELIGIBLE.
    """
    view, _ = as_view(target)
    b = encode_id(key, "key")
    self_ = _ffi.PL_NONE if member is None else view._index("member", member)
    out = _ffi.PlRouteOwner()
    diag = new_diag()
    rc = _ffi.lib.pl_route_lookup(view._v, b, len(b), self_, ctypes.byref(out), ctypes.byref(diag))
    snap = view.snapshot
    snap.raise_for(rc, diag)
    return RouteOwner(snap.member_ids[out.owner], snap.member_ids[out.home], snap.shard_key(out.shard),
                      bool(out.is_self))


def route_decide(**request):
    """The one-hop forwarding decision for one request (pl_route_decide()), a
    pure table over the request's state.

    Keywords (defaults from pl_route_request_init(): a data-plane request
    the handler served):
        data_plane: True for a data-plane route.
        answer: "served" (anything but a 409 naming the owner) or "not-owner".
        owner_known: True when the trusted peer table holds the owner's address.
        forwarded: True when the request is already marked forwarded.
        body: "unread", "whole" (within 64 KiB), "past-limit" or "partial".
        outcome: on the second call, None, "answered", "refused" or "failed".
    Each also takes the C value as an int.

    Returns:
        a Verdict.

    Raises:
        TypeError: an unknown keyword.
        PlacementError: E_ROUTE_VALUE (a field that is not one of its
            values, kind "config", id the field), E_ROUTE_OUTCOME (an outcome
            for a request the table would not forward).
    """
    mapped = {}
    for k, v in request.items():
        words = _WORDS.get(k)
        if words is not None and (v is None or isinstance(v, str)):
            v = words.get(v, _ffi.PL_NONE)
        mapped[k] = v
    req = _config.build("route", mapped)
    out = _ffi.PlRouteVerdict()
    diag = new_diag()
    rc = _ffi.lib.pl_route_decide(ctypes.byref(req), ctypes.byref(out), ctypes.byref(diag))
    from ._errors import check
    check(rc, diag, _config_namer(_ffi.PlRouteRequest, None))
    return Verdict(_ffi.ROUTE_VERDICTS.get(out.verdict, "unknown"), _ffi.name_of(_ffi.lib.pl_route_rule_name, out.rule),
                   out.status, out.retry_after, bool(out.mark), _ffi.ROUTE_SENDS.get(out.send_body, "unknown"))
