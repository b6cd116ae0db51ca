#!/usr/bin/env python3
"""kudu.py - placement beside Kudu's rebalancer on Kudu's own location tests.

Usage: tests/compare/kudu.py PLACEMENT [--update]

Every tests/compare/kudu/*.txt is one configuration of Kudu's unit tests,
ported to placement(5) (tests/compare/README.md says how). Each file's
"# Kudu expects:" line gives the moves Kudu's test asserts and how many of
them cross locations. The script plans each file with `placement --json
plan`, counts the copies (actions that stage a copy first), those that cross
a location (zone), the hand-offs (leader moves that copy nothing), the end
status, and the shards left with more than half their replicas in one
location, and writes the table to tests/compare/kudu/TABLE.md. Without
--update it compares the table with the committed one, line by line, and
prints a summary line in Check's style: a changed plan on these cases is a
failure to review (rerun with --update and read the diff).

Python 3 standard library only.
"""
import collections
import glob
import json
import os
import subprocess
import sys

HEAD = [
    "| case | Kudu moves | Kudu across | copies | across | hand-offs | end | majority left |",
    "|---|---|---|---|---|---|---|---|",
]


def expects(path):
    for line in open(path):
        if line.startswith("# Kudu expects:"):
            w = line.split(":", 1)[1].replace(",", " ").replace(";", " ").split()
            return int(w[0]), int(w[2])
    raise SystemExit("%s: no '# Kudu expects:' line" % path)


def zones_of(path):
    zone = {}
    for line in open(path):
        w = line.split()
        if w and w[0] == "member":
            z = [x[5:] for x in w[2:] if x.startswith("zone=")]
            zone[w[1]] = z[0] if z else w[1]
    return zone


def majority_left(after, zone):
    left = []
    for line in open(after):
        w = line.split()
        if not w or w[0] != "shard":
            continue
        at = dict(x.split("=", 1) for x in w[2:] if "=" in x)
        reps = at["replicas"].split(",") if at.get("replicas") else []
        held = collections.Counter(zone[m] for m in reps)
        if len(reps) > 1 and max(held.values()) * 2 > len(reps):
            left.append(w[1])
    return left


def row(tool, path, tmp):
    name = os.path.basename(path)[:-4]
    kmoves, kacross = expects(path)
    zone = zones_of(path)
    after = os.path.join(tmp, name + ".after")
    r = subprocess.run([tool, "--json", "plan", "--out", after, path], capture_output=True, text=True)
    if r.returncode not in (0, 3):
        return "| %s | %d | %d | error %d | | | | |" % (name, kmoves, kacross, r.returncode)
    plan = json.loads(r.stdout)
    copies = [a for a in plan["actions"] if a.get("stage_first")]
    across = sum(1 for a in copies if zone[a["from"]] != zone[a["to"]])
    handoffs = sum(1 for a in plan["actions"] if a["kind"] == "move-leader" and not a.get("stage_first"))
    left = majority_left(after, zone)
    return "| %s | %d | %d | %d | %d | %d | %s | %s |" % (name, kmoves, kacross, len(copies), across, handoffs,
                                                         plan["status"], " ".join(left) or "-")


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().split("\n")[2], file=sys.stderr)
        return 2
    tool = os.path.abspath(sys.argv[1])
    here = os.path.dirname(os.path.abspath(__file__))
    table = os.path.join(here, "kudu", "TABLE.md")
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        rows = [row(tool, p, tmp) for p in sorted(glob.glob(os.path.join(here, "kudu", "*.txt")))]
    lines = HEAD + rows
    if "--update" in sys.argv[2:]:
        with open(table, "w") as f:
            f.write("\n".join(lines) + "\n")
        print("kudu: wrote %s (%d cases)" % (table, len(rows)))
        return 0
    want = open(table).read().split("\n")[:-1] if os.path.exists(table) else []
    bad = 0
    for i, line in enumerate(rows):
        j = i + len(HEAD)
        if j >= len(want) or want[j] != line:
            bad += 1
            print("FAIL: kudu: expected %s" % (want[j] if j < len(want) else "(no row)"))
            print("            got      %s" % line)
    if len(want) != len(lines):
        bad += 1
        print("FAIL: kudu: TABLE.md has %d rows, the cases make %d" % (len(want) - len(HEAD), len(rows)))
    n = len(rows) + 1
    print("kudu: %d%%: Checks: %d, Failures: %d, Errors: 0" % (100 * (n - bad) // n, n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
