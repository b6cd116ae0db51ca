#!/usr/bin/env python3
"""kafka_apply.py - the Kafka round trip of placement(1), run by run.sh.

  kafka_apply.py IMPORTED.txt REASSIGNMENT.json ELECTION.json AFTER.txt [UNCLEAN.json [ROLLBACK.json]]

Does to the imported layout what Kafka would: every partition of the
reassignment file gets its replica list (its leader stays while it is still
a replica, else the first replica leads), then a preferred-leader election
makes the first replica lead every partition of the election file (and an
unclean election, every partition of UNCLEAN.json: those that had no leader,
none of whose replicas is known to be in the ISR). Then compares the result with AFTER.txt (placement plan
--out) shard by shard: the same leader and the same set of replicas. A
partition of the unclean file the plan left without a leader (it elects none
from replicas out of sync: the operator's call) is compared by its replicas
only. A partition at risk or in flight in the import (a replica out-of-sync=,
no leader, a copy in flight) must be in neither the reassignment nor the
preferred election: it keeps what it has, and is not compared. The rollback
file names exactly the partitions of the reassignment, each with the
imported replica list, in order. Prints the differences and exits 1 if there
are any.
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


def held(path):
    """The partitions a plan leaves out of Kafka's files."""
    out = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if len(words) > 1 and words[0] == "copy":
                out.add(words[1])
            if len(words) > 1 and words[0] == "shard":
                attrs = dict(w.split("=", 1) for w in words[2:] if "=" in w)
                if "out-of-sync" in attrs or "leader" not in attrs or "moving-to" in attrs:
                    out.add(words[1])
    return out


def main():
    imported, reassign, elect, after = sys.argv[1:5]
    unclean = {"partitions": []}
    if len(sys.argv) > 5:
        with open(sys.argv[5], encoding="utf-8") as f:
            unclean = json.load(f)
    layout = shards(imported)
    original = {k: list(v[1]) for k, v in layout.items()}
    at_risk = held(imported)
    with open(reassign, encoding="utf-8") as f:
        r = json.load(f)
    with open(elect, encoding="utf-8") as f:
        e = json.load(f)
    assert r["version"] == 1, "the reassignment file has version 1"
    bad = 0
    for p in r["partitions"] + e["partitions"]:
        key = "%s/%d" % (p["topic"], p["partition"])
        if key in at_risk and key not in {"%s/%d" % (u["topic"], u["partition"]) for u in unclean["partitions"]}:
            print("%s: at risk or in flight in the import, and in a reassignment or preferred election" % key)
            bad = 1
    if len(sys.argv) > 6:
        with open(sys.argv[6], encoding="utf-8") as f:
            rb = json.load(f)
        assert rb["version"] == 1, "the rollback file has version 1"
        want = ["%s/%d" % (p["topic"], p["partition"]) for p in r["partitions"]]
        got = ["%s/%d" % (p["topic"], p["partition"]) for p in rb["partitions"]]
        if want != got:
            print("the rollback names %s, the reassignment %s" % (got, want))
            bad = 1
        for p in rb["partitions"]:
            key = "%s/%d" % (p["topic"], p["partition"])
            if [str(b) for b in p["replicas"]] != original.get(key):
                print("%s: the rollback gives %s, the import %s" % (key, p["replicas"], original.get(key)))
                bad = 1
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
    for key in sorted(set(layout) | set(want)):
        if key in at_risk and key not in operator:
            continue  # left as it is: Kafka is not asked to move it
        a, b = layout.get(key), want.get(key)
        same_leader = a is not None and b is not None and (a[0] == b[0] or (key in operator and b[0] is None))
        if a is None or b is None or not same_leader or sorted(a[1]) != sorted(b[1]):
            print("%s: Kafka's files give %s, plan --out %s" % (key, a, b))
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
