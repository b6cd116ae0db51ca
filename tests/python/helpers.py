"""Layouts and loops the binding's tests share, written with the package's
own types (the Python twins of tests/broker_util.h and tests/fleetsim.h)."""

import placement as pl


def broker_stream(name, counts, members, rf=3):
    """Shards "<name>/NN" led counts[m] on member m, in key order, each with
    rf replicas: the leader, then the next members in order."""
    out, i, nm = [], 0, len(members)
    for m, c in enumerate(counts):
        for _ in range(c):
            reps = [members[(m + r) % nm] for r in range(min(rf, nm))]
            out.append(pl.Shard("%s/%02d" % (name, i), stream=name, replicas=reps, leader=members[m]))
            i += 1
    return out


def benchmark_layout():
    """The broker seed's benchmark: three members, RF 3, four streams and a
    cache; perf-quorum's 12 shards led 1/1/10, totals 21/21/19."""
    ids = ["b0", "b1", "b2"]
    shards = []
    for name, counts in (("perf-quorum", (1, 1, 10)), ("orders", (5, 5, 2)), ("events", (5, 5, 2)),
                         ("metrics", (4, 4, 4)), ("cache", (6, 6, 1))):
        shards += broker_stream(name, counts, ids)
    return pl.Snapshot([pl.Member(m) for m in ids], shards)


def spread(counts):
    vals = list(counts.values())
    return max(vals) - min(vals) if vals else 0


class Fleet:
    """A fleet simulated tick by tick: every member decides for itself on
    its own copy of the tick's view, with its own cooldown; the union of
    their actions is applied and becomes the next tick's override document."""

    def __init__(self, members, keys, scorer="legacy", cooldown=5, now=1000, **config):
        self.members = list(members)
        self.keys = list(keys)
        self.scorer = scorer
        self.config = dict(config, cooldown=cooldown)
        self.cooldown = cooldown
        self.now = now
        self.last = {m.id: None for m in self.members}
        self.overrides = []
        self.ticks = self.moves = self.lag_moves = self.returns = 0

    def view(self):
        snap = pl.Snapshot(self.members, [pl.Shard(k) for k in self.keys], overrides=self.overrides)
        return pl.View(snap, scorer=self.scorer)

    def owned(self):
        owners = pl.fleet_owners(self.view())
        out = {m.id: 0 for m in self.members}
        for m in owners.values():
            out[m] += 1
        return out

    def tick(self):
        v = self.view()
        acts = []
        for m in self.members:
            plan = pl.fleet_decide(v.copy(), m.id, now=self.now, last_move=self.last[m.id], **self.config)
            assert plan.status != "full"
            if any(a.reason not in ("void-override", "redundant-override") for a in plan.actions):
                self.last[m.id] = self.now
            acts += list(plan.actions)
        seen = set()
        for a in acts:
            assert a.shard not in seen, "shard %s acted on twice in one tick" % a.shard
            seen.add(a.shard)
            v.apply(a)
            if a.reason in ("count", "spread"):
                self.moves += 1
            elif a.reason == "lag":
                self.lag_moves += 1
            elif a.reason == "return-home":
                self.returns += 1
        self.overrides = [st.override for st in (v.shard_state(k) for k in self.keys) if st.override]
        self.now += 1
        self.ticks += 1
        return len(acts)

    def run(self, max_ticks=2000):
        quiet, need = 0, self.cooldown + 2
        while quiet < need:
            assert self.ticks < max_ticks, "the fleet did not go quiet"
            quiet = 0 if self.tick() else quiet + 1
