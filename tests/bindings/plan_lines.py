#!/usr/bin/env python3
"""The tool's `plan --json` as the shared plan lines every binding compares with.

One line per action, `KIND SHARD FROM TO REASON` (`-` for an absent member),
then `status STATUS`. Reads the JSON on standard input.
"""
import json
import sys


def main():
    plan = json.load(sys.stdin)
    for a in plan["actions"]:
        print(a["kind"], a["shard"] or "-", a["from"] or "-", a["to"] or "-", a["reason"])
    print("status", plan["status"])


if __name__ == "__main__":
    main()
