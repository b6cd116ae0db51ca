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


def check_chart(g, ticks, errors):
    """Axes with more than two values (as many ticks as there are, up to
    five), and every event's label above the plot, clear of the others."""
    kind = g.getAttribute("data-chart")
    top = int(g.getAttribute("data-top"))
    ys = [t for t in g.getElementsByTagName("text") if t.getAttribute("data-axis") == "y"]
    xs = [t for t in g.getElementsByTagName("text") if t.getAttribute("data-axis") == "x"]
    if len(ys) < 3:
        errors.append("%s chart: %d values on its axis, want more than 2" % (kind, len(ys)))
    if len(xs) < min(3, ticks + 1):
        errors.append("%s chart: %d ticks on its axis, want %d" % (kind, len(xs), min(3, ticks + 1)))
    for ln in g.getElementsByTagName("line"):
        if ln.hasAttribute("data-event-line") and int(ln.getAttribute("y1")) < top:
            errors.append("%s chart: the line of the event at tick %s leaves the plot" %
                          (kind, ln.getAttribute("data-event-line")))
    labels = []
    for t in g.getElementsByTagName("text"):
        if not t.hasAttribute("data-event"):
            continue
        x, y = int(t.getAttribute("x")), int(t.getAttribute("y"))
        text = "".join(n.data for n in t.childNodes if n.nodeType == n.TEXT_NODE)
        if y >= top:
            errors.append("%s chart: the label %r is on the plot (y %d, the plot from %d)" % (kind, text, y, top))
        for (x2, y2, w2, t2) in labels:
            if y2 == y and x < x2 + w2 and x2 < x + 6 * len(text):
                errors.append("%s chart: the labels %r and %r overlap" % (kind, t2, text))
        labels.append((x, y, 6 * len(text), text))


def expect_alone(doc, st, state, errors):
    """A member alone in its zone among the eligible, holding a replica of
    every shard and more than an even share of the replicas, is marked so in
    the cluster panel's last state; no other is."""
    elig = [m for m in st["cluster"] if "down" not in m["state"] and "draining" not in m["state"]]
    want = set()
    if st["policy"] != "fleet" and st["shards"]:
        for m in elig:
            share = -(-st["live_replicas"] // st["eligible"]) if st["eligible"] else 0
            if m["replicas"] == st["shards"] and m["replicas"] > share and m["zone"] and \
                    not any(o["zone"] == m["zone"] and o["member"] != m["member"] for o in elig):
                want.add(esc(m["member"]))
    got = set()
    for g in doc.getElementsByTagName("g"):
        if g.getAttribute("data-scope") == "cluster" and g.getAttribute("data-state") == state:
            for t in g.getElementsByTagName("tspan"):
                if t.getAttribute("data-held") == "zone":
                    got.add(g.getAttribute("data-member"))
    if got != want:
        errors.append("members held by their zone %s in the picture, the JSON says %s" % (sorted(got), sorted(want)))


def expect_held(doc, plan, state, errors):
    """A member the blocked plan's blockers name is marked held in the
    cluster panel's last state, with the status; no other member is."""
    want = {}
    for b in plan["blockers"] if plan["blocked"] else []:
        for m in b["members"]:
            want.setdefault(esc(m), b["status"])
    got = {}
    for g in doc.getElementsByTagName("g"):
        if g.getAttribute("data-scope") == "cluster" and g.getAttribute("data-state") == state:
            for t in g.getElementsByTagName("tspan"):
                if t.hasAttribute("data-held") and t.getAttribute("data-held") != "zone":
                    got[g.getAttribute("data-member")] = t.getAttribute("data-held")
    if got != want:
        errors.append("held members %s in the picture, the plan's blockers name %s" % (got, want))


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
            expect_held(doc, plan, "after the plan", errors)
            expect_alone(doc, plan["after"], "after the plan", errors)
    elif "before" in data:  # plan
        expect_state(got, data["before"], "before", errors)
        expect_state(got, data["after"], "after the plan", errors)
        expect_end(doc, data, errors)
        expect_held(doc, data, "after the plan", errors)
        expect_alone(doc, data["after"], "after the plan", errors)
    else:  # simulate
        expect_state(got, data["final"], "after tick %d" % data["ran"], errors)
        expect_alone(doc, data["final"], "after tick %d" % data["ran"], errors)
        charts = {g.getAttribute("data-chart"): g for g in doc.getElementsByTagName("g")
                  if g.hasAttribute("data-chart")}
        want_charts = {"measure"} if data["policy"] == "fleet" else {"measure", "other"}
        if set(charts) != want_charts:
            errors.append("charts %s, want %s" % (sorted(charts), sorted(want_charts)))
        other = "leaders" if data["policy"] == "region" else "replicas"
        for kind, field in (("measure", "measure"), ("other", other)):
            if kind not in charts:
                continue
            lines = {p.getAttribute("data-member"): p.getAttribute("data-values").split()
                     for p in charts[kind].getElementsByTagName("polyline")}
            for t in data["ticks"]:
                for name, v in t[field].items():
                    vals = lines.get(esc(name))
                    if vals is None or len(vals) <= t["tick"] or vals[t["tick"]] != str(v):
                        errors.append("tick %d: %s's %s is %s in the chart, %s in the JSON" %
                                      (t["tick"], name, field,
                                       vals[t["tick"]] if vals and len(vals) > t["tick"] else None, v))
            check_chart(charts[kind], data["ran"], errors)
    if not got:
        errors.append("no member row at all")
    for e in errors[:20]:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
