#!/usr/bin/env python3
"""whatif_check.py - the JSON of a what-if against plan's own JSON.

Usage: whatif_check.py WHATIF.json PLAN.json [STATS.json ...]
       whatif_check.py --stats STATS.json ...

  * the plan "as it is" is plan's plan of the same file: the same count,
    status and ticks, and the same spread before and after;
  * the plan "with the change" starts from the file's spread with every
    change made: a joiner holds nothing, a drained or downed member is so;
  * a plan that ends blocked names its blockers (as plan names them), and
    one that does not names none;
  * the counts add up: copies + hand-offs + other = count = the kinds' sum,
    and the difference is the two counts' difference;
  * every spread's imbalance is the one placement(1) defines, recomputed
    here from the members' and streams' counts and bounds (also in each
    STATS.json given: a stats --json output).
Prints what differs and exits 1, or exits 0.
"""
import json
import sys

bad = []


def d(v, fl, ce):
    return fl - v if v < fl else v - ce if v > ce else 0


def eligible(m):
    return "down" not in m["state"] and "draining" not in m["state"]


def shares(cluster, L):
    """Each eligible member's (floor, ceiling) of L, by weight."""
    w = sum(m["weight"] for m in cluster if eligible(m))
    return {m["member"]: (L * m["weight"] // w, -(-L * m["weight"] // w)) if eligible(m) and w else (0, 0)
            for m in cluster}


def imbalance(st):
    """placement(1), IMBALANCE: from a stats JSON object."""
    total = 0
    for m in st["cluster"]:
        held = ("down" not in m["state"]) if st["policy"] == "region" else eligible(m)
        v, fl, ce = m["measure"]["value"], m["measure"]["floor"], m["measure"]["ceiling"]
        if held:
            total += d(v, fl, ce)
        elif st["policy"] != "region":
            total += v
    streams = 0
    if st["policy"] == "broker":
        state = {m["member"]: m for m in st["cluster"]}
        for s in st["streams"]:
            for c in s["members"]:
                v = c["leaders"]
                streams += d(v, c["floor"], c["ceiling"]) if eligible(state[c["member"]]) else v
            # eligible members with no row hold none of it: their floor
            rows = {c["member"] for c in s["members"]}
            b = shares(st["cluster"], s["shards"])
            streams += sum(b[m["member"]][0] for m in st["cluster"] if m["member"] not in rows and eligible(m))
    if st["imbalance"]["measure"] == "leaders and replicas":
        # replicas: the bounds share what eligible members hold; a draining
        # member's count, a down member's not
        def part(counts):
            b = shares(st["cluster"], sum(x for m, x in counts.items() if eligible(state[m])))
            out = 0
            for m in st["cluster"]:
                x = counts.get(m["member"], 0)
                out += d(x, *b[m["member"]]) if eligible(m) else x if "down" not in m["state"] else 0
            return out
        total += part({m["member"]: m["replicas"] for m in st["cluster"]})
        for s in st["streams"]:
            streams += part({c["member"]: c["replicas"] for c in s["members"]})
    return total + streams, total, streams


def check_stats(where, st):
    want, tot, strm = imbalance(st)
    got = st["imbalance"]
    if (got["total"], got["totals"], got["streams"]) != (want, tot, strm):
        bad.append("%s: imbalance %s, the definition gives total %d, totals %d, streams %d" % (where, got, want, tot, strm))


def main():
    if sys.argv[1] == "--stats":
        for f in sys.argv[2:]:
            check_stats(f, json.load(open(f)))
        for b in bad:
            print(b)
        return 1 if bad else 0
    w = json.load(open(sys.argv[1]))["what_if"]
    p = json.load(open(sys.argv[2]))
    a, c = w["as_is"], w["changed"]
    for k in ("count", "status", "blocked", "blockers", "stopped"):
        if a[k] != p[k]:
            bad.append("as_is.%s %r, plan's %r" % (k, a[k], p[k]))
    if a["ticks"] != p["ticks"]:
        bad.append("as_is.ticks %r, plan's %r" % (a["ticks"], p["ticks"]))
    for k in ("before", "after"):
        if a[k] != p[k]:
            bad.append("as_is.%s is not plan's %s" % (k, k))
    # the change's start: the file's spread with the changes made
    start = {m["member"]: m for m in c["before"]["cluster"]}
    file_members = {m["member"]: m for m in p["before"]["cluster"]}
    for ch in w["changes"]:
        m = start.get(ch["member"])
        if m is None:
            bad.append("changed.before has no member %s" % ch["member"])
            continue
        if ch["change"] == "join":
            if ch["member"] in file_members or m["leaders"] or m["replicas"] or m["zone"] != ch["zone"]:
                bad.append("joiner %s: %r" % (ch["member"], m))
        elif {"drain": "draining", "down": "down"}[ch["change"]] not in m["state"]:
            bad.append("%s %s: its state is %r" % (ch["change"], ch["member"], m["state"]))
    for name, x in (("as_is", a), ("changed", c)):
        if x["blocked"] != bool(x["blockers"]):
            bad.append("%s: blocked %r, but blockers %r" % (name, x["blocked"], x["blockers"]))
        if x["copies"] + x["handoffs"] + x["other"] != x["count"] or sum(x["kinds"].values()) != x["count"]:
            bad.append("%s: copies, hand-offs and other do not add up to %d" % (name, x["count"]))
        if x["imbalance_before"] != x["before"]["imbalance"]["total"] or \
                x["imbalance_after"] != x["after"]["imbalance"]["total"]:
            bad.append("%s: imbalance_before/after are not the spreads'" % name)
        check_stats(name + ".before", x["before"])
        check_stats(name + ".after", x["after"])
    d = w["difference"]
    for k in ("count", "copies", "handoffs"):
        if d[k] != c[k] - a[k]:
            bad.append("difference.%s %d, not %d" % (k, d[k], c[k] - a[k]))
    for f in sys.argv[3:]:
        check_stats(f, json.load(open(f)))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
