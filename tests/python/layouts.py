"""Random layouts for the property tests (Hypothesis strategies), and their
placement(5) text form."""

from hypothesis import strategies as st

import placement as pl

# Mostly plain ids; some need escapes in a placement(5) file, some are UTF-8.
_ID_CHARS = "abcdefgh0123456789/-_."
ids = st.one_of(
    st.text(alphabet=_ID_CHARS, min_size=1, max_size=5),
    st.text(alphabet=_ID_CHARS + " ,=#%é", min_size=1, max_size=4),
)


@st.composite
def layouts(draw, max_members=7, max_streams=4, max_shards=24, overrides=False):
    """A valid broker or fleet layout: (members, streams, shards, overrides),
    with at least one eligible member."""
    m_ids = draw(st.lists(ids, min_size=1, max_size=max_members, unique_by=lambda s: s.encode()))
    members = []
    for i, m in enumerate(m_ids):
        state = draw(st.sampled_from(["ok"] * 6 + ["down", "draining"])) if i else "ok"
        members.append(pl.Member(
            m, zone=draw(st.sampled_from([None, "za", "zb", "zc"])), weight=draw(st.sampled_from([1, 1, 1, 2, 3])),
            max_shards=draw(st.sampled_from([0, 0, 0, 0, 3, 8])), down=state == "down", draining=state == "draining"))
    s_ids = draw(st.lists(ids, max_size=max_streams, unique_by=lambda s: s.encode()))
    keys = draw(st.lists(ids, max_size=max_shards, unique_by=lambda s: s.encode()))
    shards = []
    for k in keys:
        stream = draw(st.sampled_from([None] + s_ids)) if s_ids else None
        reps = draw(st.lists(st.sampled_from(m_ids), max_size=min(4, len(m_ids)), unique=True))
        leader = draw(st.sampled_from([None] + reps + reps + reps)) if reps else None
        shards.append(pl.Shard(k, stream=stream, replicas=reps, leader=leader))
    ovs = []
    if overrides and keys:
        for k in draw(st.lists(st.sampled_from(keys), max_size=len(keys) // 2, unique=True)):
            ovs.append(pl.Override(k, draw(st.sampled_from(m_ids)), origin=draw(st.sampled_from(["lag", "count"])),
                                   since=draw(st.integers(0, 10))))
    return members, [pl.Stream(s) for s in s_ids], shards, ovs


def escape(ident):
    """An id as placement(5) writes it: %XX for every byte outside '!'..'~'
    and for '%', '#', ',' and '='."""
    out = []
    for b in ident.encode("utf-8"):
        c = chr(b)
        out.append("%%%02X" % b if b < 0x21 or b > 0x7E or c in "%#,=" else c)
    return "".join(out)


def to_text(members, streams, shards, settings):
    lines = ["set " + " ".join("%s=%s" % kv for kv in settings.items())]
    for m in members:
        words = ["member", escape(m.id)]
        if m.zone is not None:
            words.append("zone=" + escape(m.zone))
        if m.weight != 1:
            words.append("weight=%d" % m.weight)
        if m.max_shards:
            words.append("cap=%d" % m.max_shards)
        words += [f for f in ("down", "draining", "lagging") if getattr(m, f)]
        lines.append(" ".join(words))
    for s in streams:
        lines.append("stream " + escape(s.id))
    for s in shards:
        words = ["shard", escape(s.key)]
        if s.stream is not None:
            words.append("stream=" + escape(s.stream))
        if s.replicas:
            words.append("replicas=" + ",".join(escape(r) for r in s.replicas))
        if s.leader is not None:
            words.append("leader=" + escape(s.leader))
        lines.append(" ".join(words))
    return "\n".join(lines) + "\n"
