#!/usr/bin/env python3
"""svg_check.py - a picture of placement(1) says what the JSON says.

  svg_check.py PICTURE.svg JSON-OF-THE-SAME-COMMAND [JSON-OF-PLAN]

The picture must be well-formed XML; every member's row, in every panel
(the cluster, each stream) and every state (stats and plan: before and
after the plan; simulate: at the start and the final state), must carry the
numbers the command's --json output gives (the measure, the other count,
the floor and the ceiling), and simulate's line of each member must carry
its count tick by tick. A stats picture's after state is the plan's: its
numbers, and the plan's status, blocked or not and count of actions, are
checked against JSON-OF-PLAN, `placement --json plan` of the same file
(required for a stats picture). Prints what differs and exits 1 if anything
does.
"""
import json
import sys
import xml.dom.minidom


def esc(name):
    """A member or stream id as placement(1) writes it in a picture."""
    out = []
    for b in name.encode("utf-8", "surrogateescape"):
        c = chr(b)
        if b < 0x21 or b > 0x7E or c in "%#,=":
            out.append("%%%02X" % b)
        else:
            out.append(c)
    return "".join(out)


def rows(doc):
    got = {}
    for g in doc.getElementsByTagName("g"):
        if g.hasAttribute("data-member"):
            key = (g.getAttribute("data-scope"), g.getAttribute("data-state"), g.getAttribute("data-member"))
            got[key] = {k: g.getAttribute("data-" + k) for k in ("value", "other", "floor", "ceiling")}
    return got


def expect_state(got, st, state, errors):
    policy = st["policy"]
    for m in st["cluster"]:
        key = ("cluster", state, esc(m["member"]))
        other = m["leaders"] if policy == "region" else m["replicas"]
        want = {"value": m["measure"]["value"], "floor": m["measure"]["floor"],
                "ceiling": m["measure"]["ceiling"]}
        if policy != "fleet":
            want["other"] = other
        check(got, key, want, errors)
    members = [esc(m["member"]) for m in st["cluster"]]
    for s in st["streams"]:
        scope = "stream:" + esc(s["stream"])
        seen = set()
        for c in s["members"]:
            name = esc(c["member"])
            seen.add(name)
            count = c["owned"] if "owned" in c else c["leaders"]
            check(got, (scope, state, name), {"value": count, "other": c["replicas"], "floor": c["floor"],
                                              "ceiling": c["ceiling"]}, errors)
        for name in members:
            if name not in seen:
                check(got, (scope, state, name), {"value": 0}, errors)


def check(got, key, want, errors):
    row = got.get(key)
    if row is None:
        errors.append("no row for %s" % (key,))
        return
    for k, v in want.items():
        if row[k] != str(v):
            errors.append("%s: %s is %s in the picture, %s in the JSON" % (key, k, row[k], v))


def expect_end(doc, plan, errors):
    """The line under the title says how the plan ended, as plan's JSON does."""
    ends = [t for t in doc.getElementsByTagName("text") if t.hasAttribute("data-status")]
    if len(ends) != 1:
        errors.append("%d lines of how the plan ended, want 1" % len(ends))
        return
    t = ends[0]
    want = {"status": plan["status"], "blocked": "true" if plan["blocked"] else "false",
            "actions": str(plan["count"])}
    for k, v in want.items():
        if t.getAttribute("data-" + k) != v:
            errors.append("the plan's end: %s is %s in the picture, %s in the JSON" %
                          (k, t.getAttribute("data-" + k), v))
    words = "".join(n.data for n in t.childNodes if n.nodeType == n.TEXT_NODE)
    if plan["status"] not in words or (plan["blocked"] and "blocked" not in words):
        errors.append("the plan's end does not say %s%s: %r" %
                      (plan["status"], ", blocked" if plan["blocked"] else "", words))


def main():
    if len(sys.argv) not in (3, 4):
        print("usage: svg_check.py PICTURE.svg JSON [PLAN-JSON]", file=sys.stderr)
        return 2
    svg, js = sys.argv[1:3]
    doc = xml.dom.minidom.parse(svg)
    with open(js, encoding="utf-8") as f:
        data = json.load(f)
    plan = None
    if len(sys.argv) == 4:
        with open(sys.argv[3], encoding="utf-8") as f:
            plan = json.load(f)
    got = rows(doc)
    errors = []
    if "cluster" in data:  # stats: the file's state, and where the plan ends
        expect_state(got, data, "before", errors)
        if plan is None:
            errors.append("a stats picture draws the plan's end: give the JSON of plan of the same file")
        else:
            expect_state(got, plan["before"], "before", errors)
            expect_state(got, plan["after"], "after the plan", errors)
            expect_end(doc, plan, errors)
    elif "before" in data:  # plan
        expect_state(got, data["before"], "before", errors)
        expect_state(got, data["after"], "after the plan", errors)
        expect_end(doc, data, errors)
    else:  # simulate
        expect_state(got, data["final"], "after tick %d" % data["ran"], errors)
        lines = {p.getAttribute("data-member"): p.getAttribute("data-values").split()
                 for p in doc.getElementsByTagName("polyline")}
        for t in data["ticks"]:
            for name, v in t["measure"].items():
                vals = lines.get(esc(name))
                if vals is None or len(vals) <= t["tick"] or vals[t["tick"]] != str(v):
                    errors.append("tick %d: %s is %s in the chart, %s in the JSON" %
                                  (t["tick"], name, vals[t["tick"]] if vals and len(vals) > t["tick"] else None, v))
    if not got:
        errors.append("no member row at all")
    for e in errors[:20]:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
