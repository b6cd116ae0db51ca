#!/usr/bin/env python3
"""red_region.py - mutation (red) runs for the region policy.

Each entry breaks one rule of placement/region.h in a scratch copy of the
tree (build/red/tree; the working tree is never touched), rebuilds the region
suites the entries name (tests/region/check_region*.c) and checks that every test
named for the rule fails.

    python3 tests/red_region.py          all mutations
    python3 tests/red_region.py 3 17     only those (by index)
    SHOW=1 python3 tests/red_region.py   also print each failure message
"""
import os, shutil, subprocess, sys
SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(SRC, 'build', 'red', 'tree')
M = [
 ("effective RF = min(RF, live)", "lib/region/region.c",
  "return cfg->replication_factor < v->n_live ? cfg->replication_factor : v->n_live;",
  "return cfg->replication_factor;", ["check_region_grow:one_member_owns_every_region", "check_region:effective_rf_is_capped_by_live_members"]),
 ("check: stale epoch refused", "lib/region/region.c",
  "if (expected_epoch != pl__epoch(v, region))", "if (0)", ["check_region:check_add_peer_refuses_each_case"]),
 ("check: rollup refused", "lib/region/region.c",
  "if (k->flags & PL_SHARD_NOT_IDEMPOTENT)\n\t\treturn pl__fail(diag, PL_E_NOT_IDEMPOTENT", "if (0)\n\t\treturn pl__fail(diag, PL_E_NOT_IDEMPOTENT", ["check_region:check_add_peer_refuses_each_case"]),
 ("check: transfer debt refused", "lib/region/region.c",
  "if (k->flags & PL_SHARD_TRANSFER_DEBT)", "if (0)", ["check_region:check_add_peer_refuses_each_case"]),
 ("check: duplicate peer refused", "lib/region/region.c",
  "if (pl__holds(pl__st(v, k), m))\n\t\treturn PL_E_PEER_DUPLICATE;", "", ["check_region:check_add_peer_refuses_each_case"]),
 ("check: a region whose copy is in flight refused (no second copy, onto any member)", "lib/region/region.c",
  "if (pl__st(v, region)->moving)", "if (0)", ["check_region:check_add_peer_refuses_a_region_in_flight"]),
 ("regions not idempotent / in debt never placed", "lib/region/region_impl.h",
  "return !(v->snap.shards[k].flags & (PL_SHARD_NOT_IDEMPOTENT | PL_SHARD_TRANSFER_DEBT));", "return 1;",
  ["check_region_grow:rollup_and_debt_regions_are_never_placed", "check_region_prop:random_clusters_quiesce_within_the_bound"]),
 ("member behind its map is not ready", "lib/region/region_impl.h",
  "return v->snap.members[m].map_version >= v->snap.shards[k].epoch;", "return 1;",
  ["check_region_grow:member_behind_is_skipped_for_the_next", "check_region_balance:newest_peer_must_be_ready", "check_region_prop:random_clusters_quiesce_within_the_bound"]),
 ("zones spread first", "lib/region/region.c",
  "if (a->zone_new != b->zone_new)", "if (0)", ["check_region_grow:grow_prefers_new_zone_then_fewest_replicas"]),
 ("fewest replicas next", "lib/region/region.c",
  "if (a->count != b->count)", "if (0)", ["check_region_grow:grow_sees_earlier_adds_in_the_same_call"]),
 ("each step sees earlier actions (apply deferred to the end of the call)", "lib/region/region_common.c",
  "int rc = pl__view_apply(c->v, a);", "int rc = 0; pl__st(c->v, a->shard)->touched = 1;",
  ["check_region_grow:grow_sees_earlier_adds_in_the_same_call", "check_region_balance:one_to_two_peers_then_primaries", "check_region_balance:three_to_four_moves_then_primaries"]),
 ("stalls are reported", "lib/region/region_common.c",
  "	if (reason == PL_REGION_STALL_PROPOSALS_OFF) {\n		if (c->first_held == PL_NONE)", "	return;\n	if (reason == PL_REGION_STALL_PROPOSALS_OFF) {\n		if (c->first_held == PL_NONE)",
  ["check_region_grow:member_behind_is_skipped_for_the_next", "check_region_prop:random_clusters_quiesce_within_the_bound"]),
 ("add-peer proposals switch", "lib/region/region.c",
  "else if (!c->cfg->add_peer_proposals)", "else if (0)", ["check_region_grow:proposals_off_emits_no_add", "check_region_prop:random_clusters_quiesce_within_the_bound"]),
 ("held-back regions hold step 2 up", "lib/region/region.c",
  "c->pending += stall == PL_REGION_STALL_PROPOSALS_OFF;", "", ["check_region_grow:proposals_off_emits_no_add"]),
 ("claim a primary for regions without one", "lib/region/region.c",
  "if (lp > 0 && no_primary) {", "if (0) {",
  ["check_region_grow:one_member_owns_every_region", "check_region_grow:claims_and_sources", "check_region_prop:random_clusters_quiesce_within_the_bound"]),
 ("no copy from nowhere (all peers down)", "lib/region/region.c",
  "if (st->nrep > 0 && lp == 0)\n\t\t\tstall = PL_REGION_STALL_NO_SOURCE;\n\t\telse ", "",
  ["check_region_grow:claims_and_sources", "check_region_prop:random_clusters_quiesce_within_the_bound"]),
 ("a region without a live primary wants a primary, even with no live peer", "lib/region/region.c",
  "no_primary ? PL_REGION_WANT_PRIMARY : PL_REGION_WANT_PEER", "claim_stall ? PL_REGION_WANT_PRIMARY : PL_REGION_WANT_PEER",
  ["check_region_stall:no_live_primary_wants_a_primary_whatever_blocks_it"]),
 ("stage first on copies", "lib/region/region_common.c",
  "a->flags = PL_ACTION_STAGE_FIRST;", "a->flags = 0;", ["check_region_grow:one_member_owns_every_region", "check_region_balance:one_to_two_peers_then_primaries"]),
 ("max_actions cap", "lib/region/region_common.c",
  "if (c->written >= c->cfg->max_actions || c->written >= c->cap) {", "if (c->written >= c->cap) {", ["check_region:caps_stop_and_the_view_holds_exactly_the_written"]),
 ("nothing written on error", "lib/region/region.c",
  "	rc = check_config(cfg, diag);\n	if (rc)\n		return rc;\n	if (cfg->replication_factor > v->room)",
  "	if (info)\n		info->written = 0;\n	rc = check_config(cfg, diag);\n	if (rc)\n		return rc;\n	if (cfg->replication_factor > v->room)",
  ["check_region:plan_refuses_bad_config"]),
 ("idle moves keep zones", "lib/region/region_balance.c",
  "continue; /* the region would lose p's zone */", "(void)0;", ["check_region_balance:idle_moves_keep_zones", "check_region_prop:random_clusters_quiesce_within_the_bound"]),
 ("idle member: newest first", "lib/region/region_balance.c",
  "if (best == PL_NONE || pl__region_newer(v, m, best))\n\t\t\tbest = m;\n\t}\n\treturn best;\n}\n\nvoid pl__region_step_idle",
  "if (best == PL_NONE || pl__region_newer(v, best, m))\n\t\t\tbest = m;\n\t}\n\treturn best;\n}\n\nvoid pl__region_step_idle",
  ["check_region_balance:idle_newest_first_and_zone_gain"]),
 ("idle giver must be above the fair share (no swap thrash)", "lib/region/region_balance.c",
  "if (!pl__live(v, p) || v->m_replicas[p] <= F)", "if (!pl__live(v, p) || v->m_replicas[p] < F)",
  ["check_region_prop:random_clusters_quiesce_within_the_bound"]),
 ("idle: fair share rounded down", "lib/region/region_balance.c",
  "uint32_t F = (uint32_t)(total / v->n_live);", "uint32_t F = (uint32_t)((total + v->n_live - 1) / v->n_live);",
  ["check_region_balance:one_to_two_with_rf_one_moves_regions"]),
 ("primaries: strictly fewer (count guard)", "lib/region/region_balance.c",
  "if (n == PL_NONE || n == p || v->m_leaders[n] >= v->m_leaders[p])\n\t\t\t\tcontinue;\n\t\t\tif (newest_better",
  "if (n == PL_NONE || n == p)\n\t\t\t\tcontinue;\n\t\t\tif (newest_better",
  ["check_region_balance:one_to_two_peers_then_primaries", "check_region_balance:three_to_four_moves_then_primaries", "check_region_prop:random_clusters_quiesce_within_the_bound"]),
 ("primaries: equal counts do not move", "lib/region/region_balance.c",
  "if (n == PL_NONE || n == p || v->m_leaders[n] >= v->m_leaders[p])\n\t\t\t\tcontinue;\n\t\t\tif (newest_better",
  "if (n == PL_NONE || n == p || v->m_leaders[n] > v->m_leaders[p])\n\t\t\t\tcontinue;\n\t\t\tif (newest_better",
  ["check_region_balance:three_to_four_moves_then_primaries", "check_region_prop:random_clusters_quiesce_within_the_bound"]),
 ("primaries: the member leading the most gives first", "lib/region/region_balance.c",
  "	if (v->m_leaders[p] != v->m_leaders[bp])\n		return v->m_leaders[p] > v->m_leaders[bp];\n	return v->m_leaders[n] < v->m_leaders[bn];",
  "	(void)p; (void)n; (void)bp; (void)bn;\n	return 0;",
  ["check_region_balance:one_two_four_with_a_small_cap"]),
 ("load: unmeasured never wins", "lib/region/region_balance.c",
  "if (x == p || !pl__region_may_receive(v, x) || !pl__region_ready(v, x, k) ||\n\t\t\t    !pl__region_measured(v, x))",
  "if (x == p || !pl__region_may_receive(v, x) || !pl__region_ready(v, x, k))",
  ["check_region_balance:unmeasured_peer_never_takes_a_primary", "check_region_prop:random_clusters_quiesce_within_the_bound"]),
 ("load: count rule", "lib/region/region_balance.c",
  "if (lx + 2 > lp || !clearly_less", "if (!clearly_less", ["check_region_balance:unmeasured_peer_never_takes_a_primary", "check_region_prop:random_clusters_quiesce_within_the_bound"]),
 ("load: runs after step 3", "lib/region/region.c",
  "	if (!c.stopped)\n		pl__region_step_newest(&c);\n	if (!c.stopped && cfg->load_balance)\n		pl__region_step_load(&c);",
  "	if (!c.stopped && cfg->load_balance)\n		pl__region_step_load(&c);\n	if (!c.stopped)\n		pl__region_step_newest(&c);",
  ["check_region_balance:load_never_takes_what_newest_peer_wants"]),
 ("canonical order (rank, not index) breaks ties", "lib/region/region_impl.h",
  "return ja != jb ? ja > jb : v->m_rank[a] < v->m_rank[b];", "return ja != jb ? ja > jb : a < b;",
  ["check_region_prop:shuffled_input_gives_the_same_actions"]),
 ("load: equal loads go to the peer leading fewer primaries", "lib/region/region_balance.c",
  "(lx < v->m_leaders[q] || (lx == v->m_leaders[q] && v->m_rank[x] < v->m_rank[q]))",
  "(lx > v->m_leaders[q] || (lx == v->m_leaders[q] && v->m_rank[x] < v->m_rank[q]))",
  ["check_region_balance:load_ties_go_to_fewer_primaries"]),
 ("primaries even: step 5 runs", "lib/region/region.c",
  "	if (!c.stopped)\n		pl__region_step_even(&c);", "",
  ["check_region_balance:primaries_end_two_two_two_not_zero_two_four", "check_region_balance:every_start_of_the_six_regions_ends_even_and_still", "check_region_prop:random_clusters_quiesce_within_the_bound"]),
 ("primaries even: chains, not only single hand-offs", "lib/region/region_balance.c",
  "for (uint32_t layer = 1; layer <= most; layer++) {", "for (uint32_t layer = 1; layer <= most && layer <= 1; layer++) {",
  ["check_region_balance:a_chain_of_hand_offs_where_no_single_one_helps", "check_region_prop:random_clusters_quiesce_within_the_bound"]),
 ("primaries even: the taker leads two or more fewer (no swap thrash)", "lib/region/region_balance.c",
  "if (lw + 2 <= h) {", "if (lw + 1 <= h && lw != h) {",
  ["check_region_balance:a_chain_of_hand_offs_where_no_single_one_helps", "check_region_prop:random_clusters_quiesce_within_the_bound"]),
 ("primaries even: step 3's rule first, again after each chain", "lib/region/region_balance.c",
  "pl__region_step_newest(c); /* step 3's rule first, after every action since */", "(void)0;",
  ["check_region_balance:a_joiner_takes_its_primaries_first", "check_region_prop:random_clusters_quiesce_within_the_bound"]),
 ("primaries even: a chain is written whole or not at all", "lib/region/region_balance.c",
  "if (!pl__region_fits(c, len, first))\n\t\t\treturn;", "",
  ["check_region_balance:a_chain_of_hand_offs_where_no_single_one_helps"]),
 ("primaries even: every level is searched, not only the most primaries", "lib/region/region_balance.c",
  "		h = next;\n", "		h = 0;\n",
  ["check_region_prop:random_clusters_quiesce_within_the_bound"]),
 ("down members never receive (live peers never drop)", "lib/region/region_impl.h",
  "return !(v->snap.members[m].flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING | PL_MEMBER_LAGGING));",
  "return !(v->snap.members[m].flags & (PL_MEMBER_DRAINING | PL_MEMBER_LAGGING));",
  ["check_region:check_add_peer_refuses_each_case", "check_region_prop:random_clusters_quiesce_within_the_bound"]),
]
# Every suite an entry names, built for every mutation.
TARGETS = " ".join(sorted({"build/tests/region/" + t.split(':')[0] for e in M for t in e[4]}))
def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, shell=True, capture_output=True, text=True)
only = sys.argv[1:]
bad = 0
for i, (name, path, old, new, tests) in enumerate(M):
    if only and str(i) not in only:
        continue
    if os.path.exists(WORK):
        shutil.rmtree(WORK)
    shutil.copytree(SRC, WORK, ignore=shutil.ignore_patterns('build', 'build-*', '.git'))
    f = os.path.join(WORK, path)
    s = open(f).read()
    if s.count(old) != 1:
        print(f"[{i}] {name}: PATTERN NOT FOUND ONCE ({s.count(old)})"); bad += 1; continue
    open(f, 'w').write(s.replace(old, new))
    r = run("make -j2 CFLAGS=\"-Wno-unused-parameter -Wno-unused-variable -Wno-unused-function -Wno-unused-but-set-variable\" " + TARGETS, WORK)
    if r.returncode:
        print(f"[{i}] {name}: BUILD FAILED\n{r.stderr[-800:]}"); bad += 1; continue
    res = []
    for t in tests:
        binary, test = t.split(':')
        r = run(f"CK_FORK=yes PL_TEST_ITERS=300 ./build/tests/region/{binary} 2>&1", WORK)
        failed = f":{test}:" in r.stdout
        res.append(f"{test}={'RED' if failed else 'green!'}")
        if os.environ.get("SHOW") and failed: print("   ", [l for l in r.stdout.splitlines() if f":{test}:" in l][0][:220])
        bad += not failed
    print(f"[{i}] {name}: " + ", ".join(res))
print("all red" if not bad else f"{bad} problems")
sys.exit(1 if bad else 0)
