#!/usr/bin/env python3
"""The tool's `plan --json` as the shared plan lines every binding compares with.

One line per action, `KIND SHARD FROM TO REASON` (`-` for an absent member),
then `status STATUS`, then `imbalance before TOTAL TOTALS STREAMS` and
`imbalance after ...`: the layout's imbalance (pl_view_imbalance(3), the
broker's measure: leaders and replicas, or leaders with replica-balance=off
or handoff-only=on)
and the imbalance once every action is applied. Reads the JSON on standard
input.
"""
import json
import sys


def main():
    plan = json.load(sys.stdin)
    for a in plan["actions"]:
        print(a["kind"], a["shard"] or "-", a["from"] or "-", a["to"] or "-", a["reason"])
    print("status", plan["status"])
    for when in ("before", "after"):
        i = plan[when]["imbalance"]
        print("imbalance", when, i["total"], i["totals"], i["streams"])


if __name__ == "__main__":
    main()
