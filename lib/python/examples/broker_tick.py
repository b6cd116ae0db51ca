"""broker_tick.py - a broker control plane's tick loop, in Python.

The same loop as examples/broker_tick.c. The controller keeps its own model
of the cluster (brokers with their rack, partitions with their replica list
and leader) and, every tick:
  1. builds a placement.Snapshot from the model;
  2. builds the tick's View with last tick's View as the hint
     (View(snap, reuse=prev)): what still holds is checked and reused. The hint
     must stay valid while it is used, its snapshot alive and unchanged; a View
     holds a reference to its Snapshot and a Snapshot owns its arrays, so
     keeping `prev` is all it takes (no double buffering as in C);
  3. asks placement.broker_plan() for at most MAX_MOVES moves;
  4. carries out each action on its model (each copy done before the next tick);
  5. once a tick is quiet (balanced, nothing emitted), marks b6 draining, and
     goes on until a tick is quiet again and b6 holds nothing.
Checks (exit 1 otherwise): b6 ends holding and leading nothing, the last status
is balanced, every broker leads within its bounds, and a View of the final
model built without a hint plans the same (nothing) as one with it; every tick
also compares the plan with a fresh View's (a self-check, not a controller's).

Run from the repository's root, after `make`:
    PLACEMENT_LIB=$PWD/build/libplacement.so.0 PYTHONPATH=lib/python python3 lib/python/examples/broker_tick.py [-v]
(-v prints every action, not only each tick's first.)
"""

import sys

import placement

RACKS = {"b0": "a", "b1": "a", "b2": "b", "b3": "b", "b4": "c", "b5": "c", "b6": "d"}
TOPICS = [("orders", 24), ("clicks", 16), ("audit", 8)]
MAX_MOVES = 6
MAX_TICKS = 40
DRAINED = "b6"  # alone in rack d: the broker being decommissioned


class Partition:
    def __init__(self, key, topic, replicas, leader):
        self.key, self.topic, self.replicas, self.leader = key, topic, replicas, leader


def initial_model():
    """An uneven start: orders led from rack a, b0 holding 32 replicas, b1 16."""
    parts, n = {}, 0
    for topic, count in TOPICS:
        for k in range(count):
            reps = ["b0" if n % 3 else "b1", "b2" if n % 2 else "b3", ["b4", "b6", "b6", "b5"][n % 4]]
            key = "%s/%02d" % (topic, k)
            parts[key] = Partition(key, topic, reps, reps[0] if topic == "orders" else reps[n % 3])
            n += 1
    return parts


def snapshot(parts, draining):
    members = [placement.Member(b, zone=rack, draining=b in draining) for b, rack in RACKS.items()]
    shards = [placement.Shard(p.key, stream=p.topic, replicas=p.replicas, leader=p.leader) for p in parts.values()]
    return placement.Snapshot(members, shards)


def carry_out(parts, a):
    """Carry out one action on the model, as pl_view_apply() does to a view."""
    p = parts[a.shard]
    if a.kind == "set-leader":  # placing or failover: to_member already holds a replica
        ok = a.to_member in p.replicas
    elif a.kind == "move-leader":  # stage_first: to_member copies the old leader's replica, which goes
        ok = p.leader == a.from_member and (a.to_member not in p.replicas) == a.stage_first
        if ok and a.stage_first:
            p.replicas = [a.to_member if r == a.from_member else r for r in p.replicas]
    elif a.kind == "add-replica":  # a new partition's replicas, or a failover with no live follower
        ok = a.to_member not in p.replicas
        p.replicas = p.replicas + [a.to_member]
        return ok
    elif a.kind == "move-replica":  # always a copy; carries_leader: from_member led, to_member leads after
        ok = a.to_member not in p.replicas and a.from_member in p.replicas
        ok = ok and (p.leader == a.from_member) == a.carries_leader
        p.replicas = [a.to_member if r == a.from_member else r for r in p.replicas]
        if not a.carries_leader:
            return ok
    else:  # set-override, drop-override are the fleet's, never the broker's
        return False
    p.leader = a.to_member
    return ok


def tally(parts, b):
    return sum(p.leader == b for p in parts.values()), sum(b in p.replicas for p in parts.values())


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    verbose = "-v" in sys.argv[1:]
    parts, draining, prev, total, plan = initial_model(), set(), None, 0, None
    print("7 brokers in racks a a b b c c d, 48 partitions of 3 topics, RF 3, max_moves %d" % MAX_MOVES)
    print("each tick: actions, status, then leaders/replicas per broker (* draining)")
    for tick in range(1, MAX_TICKS + 1):
        snap = snapshot(parts, draining)
        view = placement.View(snap, reuse=prev)
        plan = placement.broker_plan(view, max_moves=MAX_MOVES)
        fresh = placement.broker_plan(snap, max_moves=MAX_MOVES)  # a new View, no hint
        if list(fresh.actions) != list(plan.actions) or fresh.status != plan.status:
            fail("tick %d: the reused view planned otherwise than a fresh one" % tick)
        for a in plan.actions:
            if not carry_out(parts, a):
                fail("tick %d: %r does not fit the model" % (tick, a))
        counts = " ".join("%s%s %d/%d" % ((b, "*" if b in draining else "") + tally(parts, b)) for b in RACKS)
        n = len(plan.actions)
        print("tick %2d: %d action%s %-10s %s" % (tick, n, ", " if n == 1 else "s,", plan.status, counts))
        for a in plan.actions if verbose else plan.actions[:1]:
            print("    %s%s" % (a.explain(), " ..." if n > 1 and not verbose else ""))
        total += n
        prev = view  # holds its Snapshot: the hint stays valid for the next tick
        if n == 0 and plan.status == "balanced":
            if DRAINED in draining and tally(parts, DRAINED) == (0, 0):
                break
            if DRAINED not in draining:
                print("-- balanced; decommissioning b6: marked draining")
            draining.add(DRAINED)
    else:
        fail("not balanced after %d ticks" % MAX_TICKS)
    print("%d actions in %d ticks" % (total, tick))

    if tally(parts, DRAINED) != (0, 0) or plan.status != "balanced":
        fail("b6 leads and holds %s; last status %s" % (tally(parts, DRAINED), plan.status))
    snap = snapshot(parts, draining)
    reused, fresh = placement.View(snap, reuse=prev), placement.View(snap)
    for b in RACKS:
        t = reused.member_tally(b)
        if b != DRAINED and not t.floor <= t.leaders <= t.ceiling:
            fail("%s leads %d, bounds [%d, %d]" % (b, t.leaders, t.floor, t.ceiling))
    p1, p2 = placement.broker_plan(reused, max_moves=MAX_MOVES), placement.broker_plan(fresh, max_moves=MAX_MOVES)
    if p1.actions or p2.actions or p1.status != "balanced" or p2.status != "balanced":
        fail("final plan: reused %d actions (%s), fresh %d (%s)" % (len(p1.actions), p1.status, len(p2.actions),
                                                                    p2.status))
    print("ok: b6 holds nothing; every broker leads within its bounds; a fresh view plans the same")


if __name__ == "__main__":
    main()
