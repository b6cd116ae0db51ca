"""placement.apply() and Cluster.apply(): a plan's actions carried out on
the caller's description, as the library's pl_view_apply() carries them
out.
"""

from ._actions import Action
from ._cluster import Cluster
from ._errors import PlacementError
from ._snapshot import Copy, Member, Shard, Snapshot, encode_id, id_list
from ._view import View


def _applied(snap, actions, scorer="xxh3"):
    """The shards and overrides of snap after actions, as the library's own
    pl_view_apply() carries them out: a View of snap, each action applied
    by its ids, then read back shard by shard."""
    view = View(snap, scorer=scorer)
    for i, a in enumerate(actions):
        if not isinstance(a, Action):
            raise TypeError("apply(actions=...)[%d] must be an Action, not %s" % (i, type(a).__name__))
        try:
            view.apply(a)
        except PlacementError as e:
            raise PlacementError(e.code, "shard", snap.shard_index(a.shard), a.shard,
                                 detail="action %d (%s) does not fit the shard as the actions before left it"
                                 % (i, a.kind)) from None
    shards, overrides = [], []
    for k in snap.shards:
        st = view.shard_state(k.key)
        oos = tuple(r for r in k.out_of_sync if r in st.replicas and r != st.leader)
        shards.append(Shard(k.key, stream=k.stream, replicas=st.replicas, leader=st.leader, moving_to=None,
                            epoch=st.epoch, load=k.load, not_idempotent=k.not_idempotent,
                            transfer_debt=k.transfer_debt, out_of_sync=oos, size=k.size))
        if st.override is not None:
            overrides.append(st.override)
    return shards, overrides


def apply(actions, shards, copies=()):
    """The caller's shards after the actions are carried out and committed
    (the library's pl_view_apply(), then every move finished), as new Shard
    objects in the same order; the shards given are not changed.

    What each action kind does to a shard (placement/view.h):
      - "set-leader": to_member leads; it holds a replica already.
      - "move-leader": to_member leads. When it held no replica
        (stage_first: a copy is staged on it first), it takes the old
        leader's replica: from_member no longer holds one, and the replica
        set keeps its size.
      - "add-replica": to_member gains a replica.
      - "move-replica": from_member's replica moves to to_member; when
        from_member led (carries_leader), to_member leads.
      - "set-override", "drop-override": change a fleet's override
        document, no shard (see Cluster.apply()).
    Moves in flight in the shards (moving_to) and the copies in flight
    given are counted finished first, as every policy counts them. A
    replica that was out of sync stays so while it holds its replica and
    does not lead; a replica a copy put in place is in sync.

    Args:
        actions: Actions of a plan (of any snapshot: applied by their ids),
            in the order the plan gives them.
        shards: the caller's Shards before the actions.
        copies: the Copy objects in flight among them.

    Returns:
        a list of Shard, moving_to None, its epoch advanced by one for each
        replica or leader action on it, as its commit would advance it
        (pl_shard_state.epoch; `placement plan --out` keeps the file's).

    Raises:
        PlacementError: E_ACTION naming the shard when an action does not
            fit it (a leader move from a member that does not lead it, a
            replica added to a member that holds one), or an error of the
            shards as a Snapshot would raise it.
    """
    actions = id_list(actions, "apply(actions=...)", False)
    shards = list(id_list(shards, "apply(shards=...)", False))
    copies = list(id_list(copies, "apply(copies=...)", False))
    ids, seen = [], set()

    def note(x):
        if x is not None:
            x = x.id if isinstance(x, Member) else x
            b = encode_id(x, "member id")
            if b not in seen:
                seen.add(b)
                ids.append(x)
    for k in shards:
        if isinstance(k, Shard):
            for r in k.replicas:
                note(r)
            note(k.leader)
            note(k.moving_to)
    for c in copies:
        if isinstance(c, Copy):
            note(c.to)
            note(c.from_member)
    for a in actions:
        note(getattr(a, "from_member", None))
        note(getattr(a, "to_member", None))
    snap = Snapshot([Member(m) for m in ids], shards, copies=copies)
    return _applied(snap, actions)[0]


def _cluster_apply(self, actions):
    """A new Cluster after the actions are carried out and committed: its
    shards as placement.apply() leaves them, no copy or move in flight, and
    the override document as the set-override and drop-override actions
    leave it (what `placement plan --out` writes after a plan)."""
    actions = id_list(actions, "apply(actions=...)", False)
    shards, overrides = _applied(self.snapshot(), actions, self.scorer)
    return Cluster(self.members, shards, self.streams, overrides, (), self.settings, self.last_move, self.events)


def _action_apply(self, shards, copies=()):
    """The caller's shards after this one action is carried out and
    committed: placement.apply([action], shards, copies)."""
    return apply([self], shards, copies)


# Offered here, by the module that knows files and shards as the caller has
# them, so that _actions.py needs nothing of this one: modules import one way.
Cluster.apply = _cluster_apply
Action.apply = _action_apply
