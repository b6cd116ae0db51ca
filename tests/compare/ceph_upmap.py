#!/usr/bin/python3
"""ceph_upmap.py - the helper of ceph_upmap.sh (standard library only).

Subcommands:

  crush N [--weights equal|mixed] [--per-host K] [--hosts-only H] [--racks R]
      A CRUSH map in crushtool's text form: N OSDs in hosts h0, h1, ... of
      K (default 4) OSDs, straw2 everywhere, and rule 0 "replicated_rule"
      (take default, chooseleaf firstn 0 type host, emit), so the replicas
      of a PG go to different hosts.  --hosts-only H keeps only the first H
      hosts (the map before a host is added; the devices of the others are
      declared but in no bucket).  Mixed weights: OSD j of host h weighs
      1 + (h + j) % 3, so hosts weigh 7, 8 or 9 and OSDs 1, 2 or 3.
      --racks R puts the hosts in rack buckets r0 .. r(R-1) (type 2 rack,
      between host and root): host h is in rack h * R // hosts, consecutive
      hosts together (6 hosts in 3 racks: r0 = h0 h1, r1 = h2 h3, r2 = h4
      h5).  The rule stays chooseleaf firstn 0 type host.

  snapshot DUMP CRUSH [--max-moves N] [--hosts-only-zones]
      A placement(5) file from `osdmaptool --test-map-pgs-dump` output: a
      member oN per OSD of the CRUSH map with zone=its host and weight=its
      CRUSH weight (16.16 fixed point, divided by the gcd of all), a stream
      per pool, a shard per PG with replicas = its up set and leader = its
      primary.  When a rack bucket holds the host, zone=rack/host (a path of
      levels); --hosts-only-zones strips the rack part (zone=host).

  report DIR
      One line of the table, from what ceph_upmap.sh left in DIR (see there).
"""

import json
import math
import os
import re
import statistics
import sys
from functools import reduce


# --- CRUSH map --------------------------------------------------------------

def osd_weight(h, j, mode):
    return 1.0 if mode == "equal" else float(1 + (h + j) % 3)


def rack_of(h, hosts, racks):
    """The rack of host h: consecutive hosts share a rack (h * racks // hosts),
    so 6 hosts in 3 racks are r0 = h0 h1, r1 = h2 h3, r2 = h4 h5."""
    return h * racks // hosts


def crush_text(n, per_host, mode, hosts_only=None, racks=0):
    hosts = n // per_host
    if hosts * per_host != n:
        sys.exit("ceph_upmap.py: %d OSDs are not a whole number of hosts of %d" % (n, per_host))
    keep = hosts if hosts_only is None else hosts_only
    out = [
        "tunable choose_local_tries 0",
        "tunable choose_local_fallback_tries 0",
        "tunable choose_total_tries 50",
        "tunable chooseleaf_descend_once 1",
        "tunable chooseleaf_vary_r 1",
        "tunable chooseleaf_stable 1",
        "tunable straw_calc_version 1",
        "tunable allowed_bucket_algs 54",
        "",
    ]
    out += ["device %d osd.%d" % (i, i) for i in range(n)]
    if racks < 0 or racks > hosts:
        sys.exit("ceph_upmap.py: %d racks for %d hosts" % (racks, hosts))
    out += ["", "type 0 osd", "type 1 host"] + (["type 2 rack"] if racks else []) + ["type 11 root", ""]
    roots = []
    for h in range(keep):
        ws = [osd_weight(h, j, mode) for j in range(per_host)]
        roots.append((h, sum(ws)))
        out.append("host h%d {" % h)
        out.append("\tid %d" % (-2 - h))
        out.append("\talg straw2")
        out.append("\thash 0")
        for j, w in enumerate(ws):
            out.append("\titem osd.%d weight %.5f" % (h * per_host + j, w))
        out.append("}")
    if racks:  # rack buckets between the hosts and the root
        hosts_w = roots
        roots = []
        for r in range(racks):
            mine = [(h, w) for h, w in hosts_w if rack_of(h, hosts, racks) == r]
            if not mine:
                continue
            roots.append(("r%d" % r, sum(w for _, w in mine)))
            out.append("rack r%d {" % r)
            out.append("\tid %d" % (-2 - hosts - r))
            out.append("\talg straw2")
            out.append("\thash 0")
            for h, w in mine:
                out.append("\titem h%d weight %.5f" % (h, w))
            out.append("}")
    else:
        roots = [("h%d" % h, w) for h, w in roots]
    out.append("root default {")
    out.append("\tid -1")
    out.append("\talg straw2")
    out.append("\thash 0")
    for b, w in roots:
        out.append("\titem %s weight %.5f" % (b, w))
    out.append("}")
    out += [
        "",
        "rule replicated_rule {",
        "\tid 0",
        "\ttype replicated",
        "\tmin_size 1",
        "\tmax_size 10",
        "\tstep take default",
        "\tstep chooseleaf firstn 0 type host",
        "\tstep emit",
        "}",
    ]
    return "\n".join(out) + "\n"


def read_crush(path):
    """[(osd, zone, weight16)] of the OSDs in a host bucket, in OSD order; the
    zone is the host, or "rack/host" when a rack bucket holds the host."""
    osds = []
    racks = {}
    host = rack = None
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*(host|rack)\s+(\S+)\s*\{", line)
            if m:
                if m.group(1) == "host":
                    host = m.group(2)
                else:
                    rack = m.group(2)
                continue
            if line.strip() == "}":
                host = rack = None
                continue
            m = re.match(r"\s*item\s+osd\.(\d+)\s+weight\s+([0-9.]+)", line)
            if m and host is not None:
                osds.append((int(m.group(1)), host, int(round(float(m.group(2)) * 0x10000))))
                continue
            m = re.match(r"\s*item\s+(\S+)\s+weight", line)
            if m and rack is not None:
                racks[m.group(1)] = rack
    osds.sort()
    return [(o, racks[h] + "/" + h if h in racks else h, w) for o, h, w in osds]


def zone_top(zone):
    """The top level of a zone path: the rack of "rack/host"."""
    return zone.split("/")[0]


def member_weights(osds):
    g = reduce(math.gcd, (w for _, _, w in osds))
    ws = {o: w // g for o, _, w in osds}
    if max(ws.values()) > 65536:
        sys.exit("ceph_upmap.py: a weight past placement's 65536 after scaling")
    return ws


# --- osdmaptool output ------------------------------------------------------

def read_dump(path):
    """{pgid: [up set]} from `osdmaptool --test-map-pgs-dump`, and the pools."""
    pgs = {}
    pools = []
    with open(path) as f:
        for line in f:
            m = re.match(r"pool (\d+) pg_num (\d+)", line)
            if m:
                pools.append(m.group(1))
                continue
            m = re.match(r"(\d+\.[0-9a-f]+)\t\[([0-9,]*)\]\t(-?\d+)", line)
            if m:
                up = [int(x) for x in m.group(2).split(",") if x]
                if up and int(m.group(3)) != up[0]:
                    sys.exit("ceph_upmap.py: %s: primary %s is not the first of %s" % (path, m.group(3), up))
                pgs[m.group(1)] = up
    return pgs, pools


def pg_key(pgid):
    pool, seed = pgid.split(".")
    return (int(pool), int(seed, 16))


def read_upmap_cmds(path):
    """The commands of `osdmaptool --upmap`, in order: (pgid, [(from, to)]);
    an rm-pg-upmap-items is (pgid, [])."""
    cmds = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if "pg-upmap-items" in line and "rm-pg-upmap-items" not in line:
                i = w.index("pg-upmap-items")
                nums = [int(x) for x in w[i + 2:]]
                cmds.append((w[i + 1], list(zip(nums[0::2], nums[1::2]))))
            elif "rm-pg-upmap-items" in line:
                cmds.append((w[w.index("rm-pg-upmap-items") + 1], []))
            elif line.strip():
                sys.exit("ceph_upmap.py: %s: a command this script does not count: %s" % (path, line.strip()))
    return cmds


def apply_items(raw, items):
    """OSDMap::_apply_upmap for pg_upmap_items (every OSD is in here)."""
    up = list(raw)
    for frm, to in items:
        if to in up:
            continue
        if frm in up:
            up[up.index(frm)] = to
    return up


def replay_ceph(raw, cmds):
    """Every round's commands applied in order to the raw CRUSH mapping: the
    replicas copied (each OSD that enters an up set) and the final mapping."""
    items = {}
    cur = {pg: list(up) for pg, up in raw.items()}
    copies = 0
    for pg, its in cmds:
        items[pg] = its
        new = apply_items(raw[pg], its)
        copies += len(set(new) - set(cur[pg]))
        cur[pg] = new
    return copies, cur


# --- spreads ----------------------------------------------------------------

def spread(counts, weights):
    """max - min and the standard deviation of count - weighted share."""
    ids = sorted(weights)
    total = sum(counts.get(i, 0) for i in ids)
    wsum = sum(weights[i] for i in ids)
    dev = [counts.get(i, 0) - total * weights[i] / wsum for i in ids]
    return max(dev) - min(dev), statistics.pstdev(dev)


def tally(mapping):
    reps, leads = {}, {}
    for up in mapping.values():
        for o in up:
            reps[o] = reps.get(o, 0) + 1
        if up:
            leads[up[0]] = leads.get(up[0], 0) + 1
    return reps, leads


def num(x):
    return "%d" % round(x) if abs(x - round(x)) < 0.05 else "%.1f" % x


# --- snapshot ---------------------------------------------------------------

def cmd_snapshot(dump, crush, max_moves, hosts_only_zones=False):
    osds = read_crush(crush)
    if hosts_only_zones:  # the rack part stripped: zone = host
        osds = [(o, z.split("/")[-1], w) for o, z, w in osds]
    ws = member_weights(osds)
    pgs, pools = read_dump(dump)
    known = set(ws)
    out = ["# written by tests/compare/ceph_upmap.py from %s and %s%s" % (os.path.basename(dump), os.path.basename(crush),
                                                                      " (zone = host only)" if hosts_only_zones else ""),
           "set policy=broker rf=3 max-moves=%d" % max_moves]
    for o, host, _ in osds:
        out.append("member o%d zone=%s weight=%d" % (o, host, ws[o]))
    for p in pools:
        out.append("stream pool%s" % p)
    for pg in sorted(pgs, key=pg_key):
        up = pgs[pg]
        if not set(up) <= known:
            sys.exit("ceph_upmap.py: PG %s maps to an OSD outside the CRUSH map: %s" % (pg, up))
        out.append("shard %s stream=pool%s replicas=%s leader=o%d"
                   % (pg, pg.split(".")[0], ",".join("o%d" % o for o in up), up[0]))
    sys.stdout.write("\n".join(out) + "\n")


# --- placement's plan -------------------------------------------------------

def read_snapshot(path):
    shards = {}
    weights = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            attrs = dict(x.split("=", 1) for x in w[2:] if "=" in x)
            if w[0] == "member":
                weights[w[1]] = int(attrs.get("weight", "1"))
            elif w[0] == "shard":
                shards[w[1]] = [attrs["replicas"].split(","), attrs["leader"]]
    return shards, weights


def replay_plan(shards, actions):
    """The plan's actions applied to the snapshot, as placement(7) says:
    a move-replica replaces from by to (carrying the leadership when from
    leads); a move-leader hands the leadership to to, and when it stages a
    copy, to takes from's replica."""
    copies = handoffs = 0
    for a in actions:
        reps, leader = shards[a["shard"]]
        kind, frm, to = a["kind"], a["from"], a["to"]
        if kind == "move-replica":
            assert a["stage_first"], a
            assert frm in reps and to not in reps, a
            reps[reps.index(frm)] = to
            if leader == frm:
                shards[a["shard"]][1] = to
            copies += 1
        elif kind == "move-leader":
            assert leader == frm, a
            if a["stage_first"]:
                assert to not in reps, a
                reps[reps.index(frm)] = to
                copies += 1
            else:
                assert to in reps, a
                handoffs += 1
            shards[a["shard"]][1] = to
        elif kind == "add-replica":
            assert to not in reps, a
            reps.append(to)
            copies += 1
        else:
            sys.exit("ceph_upmap.py: an action this script does not count: %s" % a["kind"])
    return copies, handoffs


# --- racks ------------------------------------------------------------------

def rack_changes(start, final, rack):
    """PGs spanning fewer racks at the end than at the start, and more.
    start and final map a PG to its OSDs (ints or "oN" members alike)."""
    def span(up):
        return len({rack[int(str(o).lstrip("o"))] for o in up})
    fewer = sum(1 for pg in start if span(final[pg]) < span(start[pg]))
    more = sum(1 for pg in start if span(final[pg]) > span(start[pg]))
    return fewer, more


def rack_full(mapping, rack):
    """PGs spanning as many racks as they can (min(size, racks))."""
    nr = len(set(rack.values()))
    return sum(1 for up in mapping.values()
               if len({rack[int(str(o).lstrip("o"))] for o in up}) == min(len(up), nr))


def replay_hosts_plan(d, rack, start):
    """placement's plan of the snapshot with zone = host only (snapshot_hosts.txt,
    plan_hosts.json): copies, hand-offs, replica spread and the rack changes."""
    plan = json.load(open(os.path.join(d, "plan_hosts.json")))
    shards, pws = read_snapshot(os.path.join(d, "snapshot_hosts.txt"))
    copies, handoffs = replay_plan(shards, plan["actions"])
    reps = {}
    for rl, _ in shards.values():
        for m in rl:
            reps[m] = reps.get(m, 0) + 1
    for m in plan["after"]["cluster"]:
        if reps.get(m["member"], 0) != m["replicas"]:
            sys.exit("ceph_upmap.py: %s: replaying plan_hosts.json gives %s %d replicas, the tool %d"
                     % (d, m["member"], reps.get(m["member"], 0), m["replicas"]))
    rs, rsd = spread(reps, pws)
    final = {pg: shards[pg][0] for pg in start}
    fewer, more = rack_changes(start, final, rack)
    return {"copies": copies, "handoffs": handoffs, "rep_spread": rs, "rep_sd": rsd,
            "blocked": plan["blocked"], "racks_fewer": fewer, "racks_more": more,
            "racks_full": rack_full(final, rack)}


# --- report -----------------------------------------------------------------

def cmd_report(d):
    meta = json.load(open(os.path.join(d, "shape.json")))
    osds = read_crush(os.path.join(d, "crush.txt"))
    ws = member_weights(osds)
    start, _ = read_dump(os.path.join(d, "map0.txt"))
    res = {"shape": meta["name"], "osds": len(ws), "pgs": len(start)}
    # with rack buckets, each OSD's rack (the top level of its zone path)
    rack = {o: zone_top(z) for o, z, _ in osds} if any("/" in z for _, z, _ in osds) else None

    r0, l0 = tally(start)
    res["start_rep_spread"], _ = spread(r0, ws)
    res["start_lead_spread"], _ = spread(l0, ws)
    # a plan that ends with every OSD within floor and ceil of its share
    # copies at least what is over the ceilings, and what is under the floors
    total = sum(r0.values())
    wsum = sum(ws.values())
    over = sum(max(0, r0.get(o, 0) - math.ceil(total * w / wsum)) for o, w in ws.items())
    under = sum(max(0, total * w // wsum - r0.get(o, 0)) for o, w in ws.items())
    res["min_copies"] = max(over, under)

    # Ceph: the CRUSH remap when a host was added, then the balancer's rounds.
    raw, _ = read_dump(os.path.join(d, "map_crush.txt"))
    crush_copies = sum(len(set(raw[pg]) - set(start[pg])) for pg in start)
    trials = []
    t = 1
    while os.path.exists(os.path.join(d, "ceph%d.upmap" % t)):
        cmds = read_upmap_cmds(os.path.join(d, "ceph%d.upmap" % t))
        copies, final = replay_ceph(raw, cmds)
        dumped, _ = read_dump(os.path.join(d, "ceph%d.final.txt" % t))
        if final != dumped:
            bad = [pg for pg in final if final[pg] != dumped.get(pg)][:3]
            sys.exit("ceph_upmap.py: %s: replaying ceph%d.upmap does not give osdmaptool's map (%s)" % (d, t, bad))
        outside = [pg for pg, up in final.items() if not set(up) <= set(ws)]
        if outside:
            sys.exit("ceph_upmap.py: %s: ceph%d maps PG %s outside the CRUSH map" % (d, t, outside[0]))
        net = sum(len(set(final[pg]) - set(start[pg])) for pg in start)
        reps, leads = tally(final)
        rs, rsd = spread(reps, ws)
        ls, _ = spread(leads, ws)
        trial = {"copies": crush_copies + copies, "net": net, "pairs": sum(len(i) for _, i in cmds),
                 "rep_spread": rs, "rep_sd": rsd, "lead_spread": ls}
        if rack:
            trial["racks_fewer"], trial["racks_more"] = rack_changes(start, final, rack)
            trial["racks_full"] = rack_full(final, rack)
        trials.append(trial)
        t += 1
    if not trials:
        sys.exit("ceph_upmap.py: %s: no Ceph run" % d)
    trials.sort(key=lambda x: x["copies"])
    med = trials[(len(trials) - 1) // 2]  # the median run (the lower one of an even count)
    res["ceph"] = med
    res["ceph_trials"] = [x["copies"] for x in trials]
    res["ceph_crush_copies"] = crush_copies

    # placement
    plan = json.load(open(os.path.join(d, "plan.json")))
    shards, pws = read_snapshot(os.path.join(d, "snapshot.txt"))
    copies, handoffs = replay_plan(shards, plan["actions"])
    reps, leads = {}, {}
    for rl, leader in shards.values():
        for m in rl:
            reps[m] = reps.get(m, 0) + 1
        leads[leader] = leads.get(leader, 0) + 1
    for m in plan["after"]["cluster"]:  # the tool's own counts must agree with the replay
        if (reps.get(m["member"], 0), leads.get(m["member"], 0)) != (m["replicas"], m["leaders"]):
            sys.exit("ceph_upmap.py: %s: replaying the plan gives %s %d/%d, the tool %d/%d"
                     % (d, m["member"], reps.get(m["member"], 0), leads.get(m["member"], 0),
                        m["replicas"], m["leaders"]))
    start_shards, _ = read_snapshot(os.path.join(d, "snapshot.txt"))
    net = sum(len(set(shards[k][0]) - set(start_shards[k][0])) for k in shards)
    rs, rsd = spread(reps, pws)
    ls, lsd = spread(leads, pws)
    res["placement"] = {"copies": copies, "net": net, "handoffs": handoffs, "actions": plan["count"],
                        "ticks": plan["ticks"], "status": plan["status"], "blocked": plan["blocked"],
                        "rep_spread": rs, "rep_sd": rsd, "lead_spread": ls, "lead_sd": lsd}
    if rack:
        res["placement"]["racks_fewer"], res["placement"]["racks_more"] = \
            rack_changes(start, {pg: shards[pg][0] for pg in start}, rack)
        res["placement"]["racks_full"] = rack_full({pg: shards[pg][0] for pg in start}, rack)
        res["start_racks_full"] = rack_full(start, rack)
        res["placement_hosts"] = replay_hosts_plan(d, rack, start)
        res["ceph_trials_racks_fewer"] = sorted(x["racks_fewer"] for x in trials)
    json.dump(res, open(os.path.join(d, "result.json"), "w"), indent=1)

    c, p = res["ceph"], res["placement"]
    ratio = "%.2f" % (p["copies"] / c["copies"]) if c["copies"] else "-"
    cells = [meta["name"], str(res["osds"]), str(res["pgs"]),
             "%s/%s" % (num(res["start_rep_spread"]), num(res["start_lead_spread"])), str(res["min_copies"]),
             str(c["copies"]), "%d-%d" % (trials[0]["copies"], trials[-1]["copies"]),
             "%s (sd %.2f)" % (num(c["rep_spread"]), c["rep_sd"]), num(c["lead_spread"]),
             str(p["copies"]), str(p["handoffs"]),
             "%s (sd %.2f)" % (num(p["rep_spread"]), p["rep_sd"]), num(p["lead_spread"]),
             ratio + ("" if not p["blocked"] else " BLOCKED")]
    notes = []
    if meta["newhost"]:
        notes.append("ceph: crush remap %d + balancer %d" % (crush_copies, c["copies"] - crush_copies))
    if c["net"] != c["copies"]:
        notes.append("ceph net %d" % c["net"])
    if p["net"] != p["copies"]:
        notes.append("placement net %d" % p["net"])
    if rack:
        # PGs spanning fewer (more) racks at the end than at the start
        h = res["placement_hosts"]
        rf = res["ceph_trials_racks_fewer"]
        # Ceph's runs often tie on copies, so the median run by copies is an
        # arbitrary one: the median of each count over the runs instead
        rm = sorted(x["racks_more"] for x in trials)
        rfull = sorted(x["racks_full"] for x in trials)
        notes.append("PGs on fewer/more racks: ceph %d/%d (fewer %d-%d), pl %d/%d, pl zone=host %d/%d"
                     % (rf[(len(rf) - 1) // 2], rm[(len(rm) - 1) // 2], rf[0], rf[-1],
                        p["racks_fewer"], p["racks_more"], h["racks_fewer"], h["racks_more"]))
        notes.append("PGs on all the racks they can: start %d, ceph %d, pl %d, pl zone=host %d"
                     % (res["start_racks_full"], rfull[(len(rfull) - 1) // 2], p["racks_full"], h["racks_full"]))
        notes.append("pl zone=host: copies %d, handoffs %d, rep spread %s (sd %.2f)%s"
                     % (h["copies"], h["handoffs"], num(h["rep_spread"]), h["rep_sd"],
                        " BLOCKED" if h["blocked"] else ""))
    cells.append("; ".join(notes) or "-")
    print("\t".join(cells))


HEADER = ["shape", "osds", "pgs", "start r/l", "min", "ceph copies", "ceph range",
          "ceph rep spread", "ceph lead", "pl copies", "pl handoffs", "pl rep spread", "pl lead", "pl/ceph", "notes"]


def main():
    a = sys.argv[1:]
    if not a:
        sys.exit(__doc__)
    if a[0] == "crush":
        mode, per, hosts_only, racks = "equal", 4, None, 0
        i = 2
        while i < len(a):
            if a[i] == "--weights":
                mode = a[i + 1]
            elif a[i] == "--per-host":
                per = int(a[i + 1])
            elif a[i] == "--hosts-only":
                hosts_only = int(a[i + 1])
            elif a[i] == "--racks":
                racks = int(a[i + 1])
            else:
                sys.exit("ceph_upmap.py crush: unknown option %s" % a[i])
            i += 2
        sys.stdout.write(crush_text(int(a[1]), per, mode, hosts_only, racks))
    elif a[0] == "snapshot":
        mm = int(a[a.index("--max-moves") + 1]) if "--max-moves" in a else 256
        cmd_snapshot(a[1], a[2], mm, "--hosts-only-zones" in a)
    elif a[0] == "report":
        cmd_report(a[1])
    elif a[0] == "header":
        print("\t".join(HEADER))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
