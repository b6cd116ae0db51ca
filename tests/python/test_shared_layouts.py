"""The layouts every binding and the tool must plan alike: for each
tests/bindings/NAME.txt (a placement(5) file), the broker dry run with the
file's settings gives NAME.plan, the tool's dry run written one action a
line, `KIND SHARD FROM TO REASON` (`-` for no member, ids escaped as
placement(5) writes them), then `status STATUS`; then the layout's
imbalance and that of a view with every action applied, `imbalance
before|after TOTAL TOTALS STREAMS` (View.imbalance(), the tool's)."""

import glob
import os

import pytest

import placement as pl

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LAYOUTS = sorted(glob.glob(os.path.join(ROOT, "tests", "bindings", "*.txt")))
_SAFE = frozenset(range(0x21, 0x7F)) - frozenset(b"%#,=")


def word(ident):
    if ident is None:
        return "-"
    b = ident.encode("utf-8") if isinstance(ident, str) else bytes(ident)
    return "".join(chr(c) if c in _SAFE else "%%%02X" % c for c in b)


def plan_lines(plan):
    return ["%s %s %s %s %s" % (a.kind, word(a.shard), word(a.from_member), word(a.to_member), a.reason)
            for a in plan.actions] + ["status %s" % plan.status]


def imbalance_lines(cluster, plan):
    # handoff-only copies nothing: the tool counts leaders only then too
    cfg = cluster.config()
    measure = "broker" if cfg.get("replica_balance", 1) and not cfg.get("handoff_only", 0) else "leaders"
    view = cluster.view()
    before = view.imbalance(measure)
    for a in plan.actions:
        view.apply(a)
    return ["imbalance %s %d %d %d" % ((when,) + tuple(i)) for when, i in
            (("before", before), ("after", view.imbalance(measure)))]


def test_there_are_shared_layouts():
    assert len(LAYOUTS) >= 3
    for path in LAYOUTS:
        assert os.path.exists(path[:-4] + ".plan"), "%s has no .plan" % path


@pytest.mark.parametrize("path", LAYOUTS, ids=os.path.basename)
def test_shared_layout_plans_as_the_tool(path):
    with open(path[:-4] + ".plan", encoding="ascii") as f:
        want = [line.rstrip("\n") for line in f if line.strip()]
    assert want and want[-3].startswith("status ")
    cluster = pl.load(path)
    plan = cluster.plan()
    got = plan_lines(plan) + imbalance_lines(cluster, plan)
    assert got == want


def test_the_comparison_can_fail():
    # a plan that differs by one member, or by its status, is told apart
    path = LAYOUTS[0]
    cluster = pl.load(path)
    plan = cluster.plan()
    lines = plan_lines(plan)
    imb = imbalance_lines(cluster, plan)
    with open(path[:-4] + ".plan", encoding="ascii") as f:
        want = [line.rstrip("\n") for line in f if line.strip()]
    assert lines + imb == want
    assert lines[:-1] + ["status balanced" if plan.status != "balanced" else "status stalled"] + imb != want
    assert lines + imb[:1] + ["imbalance after 1 0 1"] != want
    assert word("a b,c") == "a%20b%2Cc" and word(None) == "-"


def test_a_copy_staged_for_a_hand_off_is_flagged_and_followed_by_it():
    plan = pl.load(os.path.join(ROOT, "tests", "bindings", "staged-handoff.txt")).plan()
    staged = [i for i, a in enumerate(plan.actions) if a.for_handoff]
    assert len(staged) == 10
    for i in staged:
        a = plan.actions[i]
        assert a.kind == "move-replica" and a.stage_first and not a.carries_leader and not a.paired
        after = [b for b in plan.actions[i + 1:] if b.kind == "move-leader" and b.shard == a.shard]
        assert after and after[0].to_member == a.to_member and not after[0].stage_first
    assert not any(a.for_handoff for a in plan.actions if a.kind != "move-replica")


def test_a_paired_step_is_flagged_on_both_actions():
    plan = pl.load(os.path.join(ROOT, "tests", "bindings", "replicas-3-4-5.txt")).plan()
    assert [(a.kind, a.paired, a.carries_leader) for a in plan.actions] == [
        ("move-replica", True, True), ("move-leader", True, False)]
