"""Actions and plans as values, by id, with the library's own names."""

import ctypes
from collections.abc import Sequence

from . import _ffi
from ._errors import check

_NONE = _ffi.PL_NONE
_OVERRIDE_KINDS = ("set-override", "drop-override")


class Action:
    """One action a policy asks the caller to carry out, and why.

    Attributes:
        kind: the action kind's name (pl_action_kind_name), e.g. "move-leader".
        reason: the reason's name (pl_reason_name), e.g. "stream-skew".
        shard: the shard's key.
        stream: the shard's stream id, or None.
        from_member: the id of the member giving up the leader, replica or
            ownership, or None.
        to_member: the id of the member receiving it, or None.
        stage_first: True when it copies data: stage on to_member, then commit.
        carries_leader: True for a MOVE_REPLICA of the leader's replica
            (PL_ACTION_CARRIES_LEADER): to_member leads the shard after it.
        paired: True for the two actions of one step (PL_ACTION_PAIRED): a
            MOVE_REPLICA that carries its leadership and the hand-off back
            after it; carry them out together.
        for_handoff: True for a MOVE_REPLICA of a follower's replica that the
            leader passes make so that the shard's leader can hand to_member
            the leadership once the copy is in (PL_ACTION_FOR_HANDOFF).
        exchange: True for each of the two MOVE_REPLICAs of an exchange the
            bytes band makes: shards of one stream and the same role swap
            members, so every count stays as it was (PL_ACTION_EXCHANGE).
        origin: override actions: "lag" or "count"; None for other kinds.
        scope: where the counts were counted ("stream", "cluster", "owned",
            "replicas", "primaries", "peers", "stream-replicas", "zones",
            "bytes", "none").
        tier, from_count, to_count, floor, ceiling, share, total, at, load:
            the numbers that decided it (see placement/plan.h).
        bytes: the bytes it copies: the shard's size when it copies
            (stage_first), None when that size is unknown (PL_BYTES_UNKNOWN);
            0 when it copies nothing (a hand-off, an override).
        from_bytes, to_bytes: a broker copy's from_member's and to_member's
            known bytes before it (0 otherwise, and for a member whose
            shards' sizes are unknown).
        bytes_limit: scope "bytes" (reasons "full-ratio", "bytes-skew"): the
            bound that decided it (from_member's full bytes, or the band's
            edge); else 0.
        flags: the raw PL_ACTION_* flags.

    str(action) and action.explain() give pl_action_explain()'s sentence.

    What each kind asks of the caller, and what it leaves (placement/plan.h,
    pl_view_apply(3); placement.apply() carries actions out on the caller's
    own Shards):

      "set-leader": to_member, which holds a replica, leads (from_member is
          the old leader, or None).
      "move-leader": the leadership goes from from_member to to_member. With
          stage_first (to_member held no replica) it copies: stage a copy of
          the shard on to_member, then commit, and to_member takes
          from_member's replica: from_member holds none after it, and the
          replica set keeps its size. Without, it is a hand-off to a
          follower in sync.
      "add-replica": to_member gains a replica (a copy staged, then
          committed).
      "move-replica": from_member's replica moves to to_member (stage a copy,
          commit, drop from_member's); with carries_leader, from_member led
          and to_member leads after it.
      "set-override" / "drop-override": a fleet's override document gains or
          loses the shard's entry; no replica changes.

    A move the caller has started and not finished is described in the next
    tick's Snapshot, and every policy counts it as done and the shard as in
    flight (not moved again, and counted against the broker's move limits):
    a leader move with no copy as Shard(moving_to=to_member), the replicas
    as they are; a copy (a stage_first "move-leader", an "add-replica" or a
    "move-replica") as Copy(shard, to_member, from_member) with from_member
    None for an added replica, the replicas as they are until it commits.
    """

    __slots__ = ("kind", "reason", "shard", "stream", "from_member", "to_member", "stage_first", "carries_leader",
                 "paired", "for_handoff", "exchange", "origin", "scope",
                 "tier", "from_count", "to_count", "floor", "ceiling", "share", "total", "at", "load", "bytes",
                 "from_bytes", "to_bytes", "bytes_limit", "flags",
                 "_raw", "_snap")

    def __init__(self, raw, snapshot):
        s = snapshot
        self._raw = raw
        self._snap = s
        self.kind = _ffi.ACTION_KINDS.get(raw.kind, "unknown")
        self.reason = _ffi.REASONS.get(raw.reason, "unknown")
        self.shard = s.shard_key(raw.shard)
        self.stream = s.stream_id(raw.stream)
        self.from_member = s.member_id(raw.from_)
        self.to_member = s.member_id(raw.to)
        self.flags = raw.flags
        self.stage_first = bool(raw.flags & _ffi.PL_ACTION_STAGE_FIRST)
        self.carries_leader = bool(raw.flags & _ffi.PL_ACTION_CARRIES_LEADER)
        self.paired = bool(raw.flags & _ffi.PL_ACTION_PAIRED)
        self.for_handoff = bool(raw.flags & _ffi.PL_ACTION_FOR_HANDOFF)
        self.exchange = bool(raw.flags & _ffi.PL_ACTION_EXCHANGE)
        self.origin = _ffi.ORIGINS.get(raw.origin, "unknown") if self.kind in _OVERRIDE_KINDS else None
        self.scope = _ffi.SCOPES.get(raw.scope, "unknown")
        self.tier = raw.tier
        self.from_count = raw.from_count
        self.to_count = raw.to_count
        self.floor = raw.floor
        self.ceiling = raw.ceiling
        self.share = raw.share
        self.total = raw.total
        self.at = raw.at
        self.load = raw.load
        self.bytes = None if raw.bytes == _ffi.PL_BYTES_UNKNOWN else raw.bytes
        self.from_bytes = raw.from_bytes
        self.to_bytes = raw.to_bytes
        self.bytes_limit = raw.bytes_limit

    def explain(self):
        """One English sentence that says what the action does and which
        numbers decided it (pl_action_explain()), e.g. "move leader of
        orders/07 from b2 to b0: stream orders leads 10 on b2, 1 on b0, floor
        4, ceiling 4". Raises PlacementError (E_INVAL) when the library
        refuses the action."""
        snap = ctypes.byref(self._snap._c)
        n = check(_ffi.lib.pl_action_explain(snap, ctypes.byref(self._raw), None, 0))
        buf = ctypes.create_string_buffer(n + 1)
        check(_ffi.lib.pl_action_explain(snap, ctypes.byref(self._raw), buf, n + 1))
        return buf.value.decode("utf-8", "backslashreplace")

    def fields(self):
        """The action's public fields as a dict."""
        return {f: getattr(self, f) for f in self.__slots__[:-2]}

    def __eq__(self, other):
        return isinstance(other, Action) and self.fields() == other.fields()

    def __repr__(self):
        return "Action(%r, %r, shard=%r, from_member=%r, to_member=%r%s%s)" % (
            self.kind, self.reason, self.shard, self.from_member, self.to_member,
            ", stage_first=True" if self.stage_first else "", ", carries_leader=True" if self.carries_leader else "")

    def __str__(self):
        return self.explain()


class ActionList(Sequence):
    """The actions of a plan, in the order to carry them out: a read-only
    sequence over the C array the call wrote, each Action made when first
    read."""

    def __init__(self, array, count, snapshot):
        self._array = array
        self._n = count
        self._snap = snapshot
        self._made = [None] * count

    def __len__(self):
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("action index out of range")
        a = self._made[i]
        if a is None:
            raw = _ffi.PlAction.from_buffer_copy(self._array[i])
            a = self._made[i] = Action(raw, self._snap)
        return a

    def __eq__(self, other):
        if isinstance(other, (ActionList, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __repr__(self):
        return repr(list(self))


class Stall:
    """A region the region policy wanted to act on and could not.

    Attributes:
        shard: the region's key.
        reason: pl_region_stall_name() of the reason, e.g. "not-ready".
        step: 1 (a primary or a peer wanted) or 2 (an idle member could take it).
        member: the member's id (the best candidate for "not-ready"; in step
            2 the idle member), or None.
        wanted: what the region waited for (pl_region_stall.wanted):
            "primary" (PL_REGION_WANT_PRIMARY: it has no live primary) or
            "peer" (PL_REGION_WANT_PEER: a peer added, or moved onto an idle
            member).
    """

    __slots__ = ("shard", "reason", "step", "member", "wanted")

    def __init__(self, raw, snapshot):
        self.shard = snapshot.shard_key(raw.shard)
        self.reason = _ffi.STALLS.get(raw.reason, "unknown")
        self.step = raw.step
        self.member = snapshot.member_id(raw.member)
        self.wanted = _ffi.REGION_WANTS.get(raw.wanted, "unknown")

    def __repr__(self):
        return "Stall(%r, %r, step=%d, member=%r, wanted=%r)" % (self.shard, self.reason, self.step, self.member,
                                                                 self.wanted)


class DrainStall:
    """A replica a draining broker member holds that a drain cannot move
    (pl_broker_stall, from pl_broker_drain_stalls()).

    Attributes:
        shard: the shard's key.
        member: the id of the draining member that holds the replica.
        reason: why it cannot leave (PL_BROKER_STALL_*): "held" (every
            eligible member holds a replica of the shard already), "zones"
            (every other eligible member would lower the shard's zone
            count) or "caps" (every member that keeps the zone count is at
            its max_shards).
    """

    __slots__ = ("shard", "member", "reason")

    def __init__(self, shard, member, reason):
        self.shard = shard
        self.member = member
        self.reason = reason

    @classmethod
    def _from_c(cls, raw, snapshot):
        return cls(snapshot.shard_key(raw.shard), snapshot.member_id(raw.member),
                   _ffi.BROKER_STALLS.get(raw.reason, "unknown"))

    def __eq__(self, other):
        return isinstance(other, DrainStall) and (self.shard, self.member, self.reason) == (
            other.shard, other.member, other.reason)

    def __repr__(self):
        return "DrainStall(%r, %r, reason=%r)" % (self.shard, self.member, self.reason)


# What plan_info.detail names, by policy and status name; other statuses
# leave it as the raw index (detail_index).
_DETAIL = {
    "broker": {"stalled": "shard", "drain-stalled": "shard", "move-limit": "member", "blocked-caps": "stream", "blocked-zones": "stream",
               "blocked-handoff": "stream", "blocked-bounds": "stream"},
    "region": {"stalled": "shard", "proposals-off": "shard", "action-cap": "shard", "full": "shard"},
}


class Plan:
    """What a policy call did, and why it stopped.

    Attributes:
        actions: the actions written (an ActionList of Action).
        status: pl_status_name() of why no further action was emitted
            ("balanced", "move-limit", "full", ...).
        written: how many actions were written.
        wanted: at least written; written + 1 when more was wanted.
        detail: the status's element as an id (a shard key, member or
            stream id, as the status says), or None when the status names
            none (the raw index stays in detail_index).
        detail_index: plan_info.detail as the library wrote it (None for PL_NONE).
        blocked: how many shards were blocked or stalled.
        ticks: pl_broker_dry_run(): how many ticks emitted something; else None.
        stalls: pl_region_plan(): the Stall list; else ().
        note: None, or why the plan ends without the policy having
            decided: "no eligible member: every member is down or
            draining" (status "stalled", no actions, wanted 1), where the
            C call answers PL_E_NO_ELIGIBLE: a layout a control plane logs
            and waits out, not bad input, as placement(1)'s plan reports it
            (status stalled, exit 3).
    """

    #: Plan.note of a layout with shards and no eligible member.
    NO_ELIGIBLE = "no eligible member: every member is down or draining"

    def __init__(self, policy, actions, info, snapshot, ticks=None, stalls=(), written=None, wanted=None,
                 note=None):
        self.policy = policy
        self.note = note
        self.actions = actions
        self.status = _ffi.STATUSES.get(info.status, "unknown")
        self.written = len(actions) if written is None else written
        self.wanted = info.wanted if wanted is None else wanted
        self.blocked = info.blocked
        self.detail_index = None if info.detail == _NONE else info.detail
        self.ticks = ticks
        self.stalls = stalls
        self.detail = None
        if self.detail_index is not None:
            kind = _DETAIL.get(policy, {}).get(self.status)
            ids = {"shard": snapshot.shard_keys, "member": snapshot.member_ids, "stream": snapshot.stream_ids}
            seq = ids.get(kind)
            if seq is not None and self.detail_index < len(seq):
                self.detail = seq[self.detail_index]

    @classmethod
    def no_eligible(cls, policy, snapshot, ticks=None):
        """The plan of a layout with shards and no eligible member (the C
        call's PL_E_NO_ELIGIBLE): status "stalled", no actions, note
        Plan.NO_ELIGIBLE."""
        info = _ffi.PlPlanInfo()
        info.status = {v: k for k, v in _ffi.STATUSES.items()}["stalled"]
        info.wanted = 1
        info.detail = _NONE
        return cls(policy, ActionList((), 0, snapshot), info, snapshot, ticks=ticks, note=cls.NO_ELIGIBLE)

    def __iter__(self):
        return iter(self.actions)

    def __len__(self):
        return len(self.actions)

    def __repr__(self):
        extra = "" if self.ticks is None else ", ticks=%d" % self.ticks
        if self.note:
            extra += ", note=%r" % self.note
        return "Plan(%s: %d actions, status=%r, blocked=%d%s)" % (self.policy, len(self.actions), self.status,
                                                                   self.blocked, extra)
