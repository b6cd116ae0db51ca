#!/usr/bin/env python3
"""Writes a large broker layout (placement(5)) for timing `placement plan`:
PARTITIONS partitions in topics of 200, on BROKERS brokers in 3 racks, RF 3,
the leaders skewed (a third of them on the first three brokers) and a new
broker that holds nothing, so a plan has thousands of moves to make.

Usage: gen_kafka_layout.py [PARTITIONS [BROKERS [SEED]]] > layout.txt
(defaults 20000, 30, 1). Time a plan with, e.g.
  time placement plan --summary --set max-moves=1 layout.txt
"""
import random
import sys


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    nb = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    r = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    out = ["# %d partitions on %d brokers (tests/bench/gen_kafka_layout.py)" % (n, nb + 1),
           "set policy=broker rf=3"]
    for b in range(nb + 1):
        out.append("member b%d zone=r%d" % (b, b % 3))
    per = 200
    for t in range((n + per - 1) // per):
        out.append("stream t%d" % t)
    for p in range(n):
        t = p // per
        lead = r.randrange(3) if r.random() < 0.33 else r.randrange(nb)
        reps = [lead]
        while len(reps) < 3:
            # one replica per rack, the leader's rack first
            rack = (lead + len(reps)) % 3
            c = r.randrange(nb // 3) * 3 + rack
            if c < nb and c not in reps:
                reps.append(c)
        out.append("shard t%d/%d stream=t%d replicas=%s leader=b%d"
                   % (t, p % per, t, ",".join("b%d" % x for x in reps), lead))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
