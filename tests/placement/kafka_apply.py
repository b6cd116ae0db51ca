#!/usr/bin/env python3
"""kafka_apply.py - the Kafka round trip of placement(1), run by run.sh.

  kafka_apply.py IMPORTED.txt REASSIGNMENT.json ELECTION.json AFTER.txt [UNCLEAN.json]

Does to the imported layout what Kafka would: every partition of the
reassignment file gets its replica list (its leader stays while it is still
a replica, else the first replica leads), then a preferred-leader election
makes the first replica lead every partition of the election file (and an
unclean election, every partition of UNCLEAN.json: those that had no leader,
none of whose replicas is known to be in the ISR). Then compares the result with AFTER.txt (placement plan
--out) shard by shard: the same leader and the same set of replicas. A
partition of the unclean file the plan left without a leader (it elects none
from replicas out of sync: the operator's call) is compared by its replicas
only. Prints the differences and exits 1 if there are any.
"""
import json
import sys


def shards(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if not words or words[0] != "shard":
                continue
            attrs = dict(w.split("=", 1) for w in words[2:] if "=" in w)
            reps = attrs.get("replicas", "")
            out[words[1]] = [attrs.get("leader"), reps.split(",") if reps else []]
    return out


def main():
    imported, reassign, elect, after = sys.argv[1:5]
    unclean = {"partitions": []}
    if len(sys.argv) > 5:
        with open(sys.argv[5], encoding="utf-8") as f:
            unclean = json.load(f)
    layout = shards(imported)
    with open(reassign, encoding="utf-8") as f:
        r = json.load(f)
    with open(elect, encoding="utf-8") as f:
        e = json.load(f)
    assert r["version"] == 1, "the reassignment file has version 1"
    for p in r["partitions"]:
        key = "%s/%d" % (p["topic"], p["partition"])
        assert key in layout, "reassigns an unknown partition %s" % key
        reps = [str(b) for b in p["replicas"]]
        # a reassignment keeps the leader while it stays a replica
        leader = layout[key][0] if layout[key][0] in reps else reps[0]
        layout[key] = [leader, reps]
    for p in e["partitions"] + unclean["partitions"]:
        key = "%s/%d" % (p["topic"], p["partition"])
        assert key in layout, "elects an unknown partition %s" % key
        assert p not in e["partitions"] or layout[key][0] is not None, \
            "a preferred election of %s, which has no leader: none of its replicas is known to be in the ISR" % key
        layout[key][0] = layout[key][1][0]
    want = shards(after)
    operator = {"%s/%d" % (p["topic"], p["partition"]) for p in unclean["partitions"]}
    bad = 0
    for key in sorted(set(layout) | set(want)):
        a, b = layout.get(key), want.get(key)
        same_leader = a is not None and b is not None and (a[0] == b[0] or (key in operator and b[0] is None))
        if a is None or b is None or not same_leader or sorted(a[1]) != sorted(b[1]):
            print("%s: Kafka's files give %s, plan --out %s" % (key, a, b))
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
