"""python_bench.py - the Python binding's speed, run by `make bench` after the
C benchmark program.

A broker dry run on a 100,000-shard layout (100 members, 1,000 streams of
100 shards, RF 3, leaders even but for a few streams piled on one member)
through the binding, placement.broker_dry_run(snapshot), which builds the
view, runs the C dry run and wraps its plan, against the same two C calls
(pl_view_init() and pl_broker_dry_run()) made directly through ctypes on
prebuilt arrays and memory, in the same run. Best of 5 each, interleaved.
Building the Snapshot from Python objects is the caller's cost and is
reported on its own line, as is reading every Action of the plan.

Lines read NAME: VALUE (target T) ok|MISSED.
"""

import ctypes
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib", "python"))

import placement as pl  # noqa: E402
from placement import _ffi  # noqa: E402

MEMBERS, STREAMS, PER_STREAM, RF, SKEWED, PILED = 100, 1000, 100, 3, 4, 6
TARGET = 3.0
RUNS = 5


def layout():
    mids = ["broker-%03d" % i for i in range(MEMBERS)]
    members = [pl.Member(m) for m in mids]
    shards = []
    for s in range(STREAMS):
        sid = "stream-%04d" % s
        for j in range(PER_STREAM):
            lead = (s + j) % MEMBERS
            if s < SKEWED and j < PILED:
                lead = 0  # a few streams lead 7 on broker-000, 1 elsewhere
            shards.append(pl.Shard("%s/%03d" % (sid, j), stream=sid,
                                   replicas=[mids[(lead + r) % MEMBERS] for r in range(RF)], leader=mids[lead]))
    return members, shards


def best(fn):
    t = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        r = fn()
        t.append(time.perf_counter() - t0)
    return min(t), r


def main():
    print("\n== python: the binding against the C calls (best of %d)" % RUNS)
    members, shards = layout()
    t0 = time.perf_counter()
    snap = pl.Snapshot(members, shards)
    build_s = time.perf_counter() - t0

    # the C calls, on memory and arrays made once
    lib = _ffi.lib
    size = lib.pl_view_size(ctypes.byref(snap._c))
    mem = (ctypes.c_uint64 * ((size + 7) // 8))()
    cap = 1024
    out = (_ffi.PlAction * cap)()
    cfg = _ffi.PlBrokerConfig()
    lib.pl_broker_config_init(ctypes.byref(cfg))
    info = _ffi.PlPlanInfo()
    ticks = ctypes.c_uint32()
    ptr = ctypes.c_void_p()
    c_snap = ctypes.byref(snap._c)

    def c_call():
        rc = lib.pl_view_init(ctypes.byref(ptr), mem, size, c_snap, None, None)
        assert rc == 0, rc
        n = lib.pl_broker_dry_run(ptr, ctypes.byref(cfg), out, cap, ctypes.byref(info), ctypes.byref(ticks), None)
        assert n >= 0, n
        return n

    def py_call():
        return pl.broker_dry_run(snap)

    c_times, py_times = [], []
    n_c = plan = None
    for _ in range(RUNS):
        t, n_c = best_once(c_call)
        c_times.append(t)
        t, plan = best_once(py_call)
        py_times.append(t)
    c_s, py_s = min(c_times), min(py_times)
    assert len(plan.actions) == n_c and plan.status == _ffi.STATUSES[info.status], (plan, n_c)
    read_s, _ = best(lambda: [a.to_member for a in pl.broker_dry_run(snap).actions])
    ratio = py_s / c_s
    print("layout: %d shards, %d members, %d streams, RF %d; the dry run: %d actions in %d ticks, %s"
          % (len(shards), MEMBERS, STREAMS, RF, n_c, plan.ticks, plan.status))
    print("C calls (pl_view_init + pl_broker_dry_run): %.1f ms" % (c_s * 1e3))
    print("python broker_dry_run(snapshot): %.1f ms" % (py_s * 1e3))
    print("python dry run, every Action read: %.1f ms" % (read_s * 1e3))
    print("python snapshot build (the caller's cost, not in the ratio): %.0f ms, %.2f us a shard"
          % (build_s * 1e3, build_s * 1e6 / len(shards)))
    print("python dry run / C call: %.2fx (target %.1fx) %s" % (ratio, TARGET, "ok" if ratio <= TARGET else "MISSED"))


def best_once(fn):
    t0 = time.perf_counter()
    r = fn()
    return time.perf_counter() - t0, r


if __name__ == "__main__":
    main()
