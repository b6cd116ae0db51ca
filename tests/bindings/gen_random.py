#!/usr/bin/env python3
"""Writes the random layouts of the shared set (random-N.txt), seed N.

Members in zones with weights, caps, draining and down members, streams
of skewed leaders and replicas, replicas out of sync. Run it only to
change the set; the files are committed.
"""
import random
import sys


def layout(seed):
    r = random.Random(seed)
    nm = r.randint(3, 9)
    rf = r.randint(1, 3)
    zones = r.randint(0, 4)
    out = ["# a random layout of the shared set, seed %d (tests/bindings/gen_random.py)" % seed]
    sets = ["policy=broker", "rf=%d" % rf]
    if r.random() < 0.5:
        sets.append("max-moves=%d" % r.randint(1, 6))
    if r.random() < 0.2:
        sets.append("replica-balance=off")
    if r.random() < 0.15:
        sets.append("handoff-only=on")
    out.append("set " + " ".join(sets))
    members = ["b%d" % i for i in range(nm)]
    for i, m in enumerate(members):
        words = ["member", m]
        if zones:
            words.append("zone=z%d" % r.randrange(zones))
        if r.random() < 0.3:
            words.append("weight=%d" % r.randint(1, 4))
        if r.random() < 0.1:
            words.append("cap=%d" % r.randint(4, 12))
        if i > 0 and r.random() < 0.1:
            words.append("draining")
        elif i > 0 and r.random() < 0.08:
            words.append("down")
        out.append(" ".join(words))
    ns = r.randint(1, 4)
    for s in range(ns):
        out.append("stream t%d" % s)
    for s in range(ns):
        hot = members[: r.randint(1, nm)]
        for p in range(r.randint(2, 14)):
            k = min(r.randint(1, rf), nm)
            reps = r.sample(hot, min(k, len(hot)))
            words = ["shard", "t%d/%02d" % (s, p), "stream=t%d" % s,
                     "replicas=" + ",".join(reps), "leader=" + reps[0]]
            oos = [x for x in reps[1:] if r.random() < 0.1]
            if oos:
                words.append("out-of-sync=" + ",".join(oos))
            out.append(" ".join(words))
    return "\n".join(out) + "\n"


def main():
    for seed in range(1, int(sys.argv[1]) + 1 if len(sys.argv) > 1 else 13):
        with open("random-%d.txt" % seed, "w") as f:
            f.write(layout(seed))


if __name__ == "__main__":
    main()
