"""A what-if from an imported Kafka cluster: load the placement(5) file
`placement import kafka` wrote, drain one broker, plan, carry the plan out
on the cluster, check it, and write the result back as placement(5) text.

Run from the repository's root after `make`:

    PYTHONPATH=lib/python python3 lib/python/examples/what_if.py [FILE [BROKER]]

FILE defaults to tests/placement/golden/kafka-old.txt (kafka-topics.sh
--describe output through `placement import kafka`), BROKER to the first.
Exits 1 when what it shows does not hold.
"""

import sys

import placement


def main(path="tests/placement/golden/kafka-old.txt", broker=None):
    cluster = placement.load(path)
    broker = broker or cluster.members[0].id
    print("%s: %d brokers, %d partitions; draining %s" % (path, len(cluster.members), len(cluster.shards), broker))
    for m in cluster.members:
        if m.id == broker:
            m.draining = True
    plan = cluster.plan()
    for a in plan.actions:
        print("  ", a.explain())
    print("%d actions in %d ticks, then %s" % (len(plan.actions), plan.ticks, plan.status))

    after = cluster.apply(plan.actions)
    left = [s.key for s in after.shards if broker in s.replicas]
    led = [s.key for s in after.shards if s.leader == broker]
    print("after: %s leads %d and holds %d replicas" % (broker, len(led), len(left)))
    # what it still holds is exactly what no drain can move, and it leads nothing
    stuck = sorted(s.shard for s in placement.broker_drain_stalls(after.snapshot()) if s.member == broker)
    if led or sorted(left) != stuck:
        print("FAIL: %s still leads %s, holds %s (stalled: %s)" % (broker, led, left, stuck))
        return 1
    again = after.plan()
    if len(again.actions) != 0:
        print("FAIL: the layout after the plan plans %d more actions" % len(again.actions))
        return 1
    text = placement.dumps(after)
    if placement.loads(text) != after:
        print("FAIL: the written layout does not read back the same")
        return 1
    print("the layout after it, as placement(5) (%d lines), reads back the same:" % text.count("\n"))
    print("".join("  " + line + "\n" for line in text.splitlines()[:6]) + "  ...")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
