/*
 * view_layout.c - where each array of a view lies in the caller's memory,
 * and so how much memory a view needs: pl_view_size() and
 * pl_view_size_opt() for a snapshot, pl__view_bytes() for a built view.
 * One formula (pl__view_layout()) serves the sizes and the build alike, so
 * they cannot disagree.
 *
 * How it works. The arrays are laid out one after the other, each aligned
 * to 8, in the order of the TAKE() lines; what validation does not write
 * (from k_rank to the end of the states) doubles as the sorts' scratch
 * while it runs, so that room is the larger of the two. Counts past their
 * limits are clamped: validation refuses them, and the size asked for
 * them is that of an empty view.
 */
#include "view/view_build.h"

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)

/* Elements init's sorts and duplicate checks take scratch for. */
static uint32_t scratch_count(uint32_t nm, uint32_t ns, uint32_t nk, uint32_t no, uint32_t nc)
{
	uint32_t mx = nm;
	mx = ns > mx ? ns : mx;
	mx = nk > mx ? nk : mx;
	mx = no > mx ? no : mx;
	return nc > mx ? nc : mx;
}

/* Lay the view out after `base` (or just measure it when v is NULL). */
size_t pl__view_layout(pl_view *v, char *base, uint32_t nm, uint32_t ns, uint32_t nk, uint32_t no, uint32_t nc,
		       uint32_t room)
{
	size_t off = ALIGN8(sizeof(pl_view));
#define TAKE(field, type, count)                                 \
	do {                                                     \
		if (v)                                           \
			v->field = (type *)(void *)(base + off); \
		off = ALIGN8(off + (size_t)(count) * sizeof(type)); \
	} while (0)
	TAKE(m_hash, uint64_t, nm);
	TAKE(m_bytes, uint64_t, nm);
	TAKE(elig_hash, uint64_t, nm);
	TAKE(m_weight, uint32_t, nm);
	TAKE(m_order, uint32_t, nm);
	TAKE(m_rank, uint32_t, nm);
	TAKE(m_zone, uint32_t, nm);
	TAKE(m_leaders, uint32_t, nm);
	TAKE(m_replicas, uint32_t, nm);
	TAKE(m_owned, uint32_t, nm);
	TAKE(m_lagged, uint32_t, nm);
	TAKE(m_scratch, int64_t, nm);
	TAKE(elig, uint32_t, nm);
	TAKE(lc_count, uint32_t, nm);
	TAKE(rc_count, uint32_t, nm);
	TAKE(rc_list, uint32_t, nm);
	TAKE(rc_mat, uint32_t, pl__rc_entries(nm, ns, nk));
	TAKE(s_order, uint32_t, ns);
	TAKE(s_rank, uint32_t, ns);
	TAKE(s_shards, uint32_t, ns);
	TAKE(s_first, uint32_t, (size_t)ns + 1);
	TAKE(s_cell_first, uint32_t, (size_t)ns + 1);
	TAKE(s_cell_count, uint32_t, ns);
	TAKE(k_order, uint32_t, nk);
	TAKE(k_home, uint32_t, nk);
	TAKE(k_moved, uint64_t, PL__MOVED_WORDS(nk));
	TAKE(k_changed, uint64_t, PL__CHANGED_WORDS(nk));
	TAKE(k_hash, uint64_t, nk); /* validation writes it (pl__reuse) */
	/* What validation does not write, side by side from k_rank to the end
	 * of the states: the sorts' scratch while it runs (pl_view_init()),
	 * so the room is the larger of the two. The rest takes at least 38
	 * bytes a shard (4 + 4 + a 6-byte cell + a 24-byte state), more than
	 * PL__SORT_SCRATCH's 36 a key: the scratch sets the size only when
	 * members, overrides or copies outnumber the shards. */
	size_t first = off;
	TAKE(k_rank, uint32_t, nk);
	TAKE(by_stream, uint32_t, nk);
	TAKE(cells, pl__cell, nk);
	if (v) {
		v->st = base + off;
		v->st_size = (uint32_t)PL__STATE_SIZE(room);
		v->room = room;
	}
	off = ALIGN8(off + (size_t)nk * PL__STATE_SIZE(room));
	size_t scratch = PL__SORT_SCRATCH(scratch_count(nm, ns, nk, no, nc));
	if (off - first < scratch)
		off = first + scratch;
#undef TAKE
	return off;
}

/* The replica room the options ask for: max_replicas (version 3), 0 or
 * past the limit read as PL_MAX_REPLICAS. */
uint32_t pl__options_room(const pl_view_options *opt)
{
	uint32_t room = opt != NULL && opt->version == PL_VIEW_OPTIONS_VERSION ? opt->max_replicas : 0;
	return room == 0 || room >= PL_MAX_REPLICAS ? PL_MAX_REPLICAS : room;
}

/* The replica room of each shard's state: the options' room, raised to the
 * snapshot's largest count, one more where a copy in flight adds a replica;
 * at most PL_MAX_REPLICAS (validation refuses more). The arrays are checked
 * before they are read. pl_view_init() finds the same in validation's pass
 * (pl__reuse.max_count) instead of a pass of its own. */
static uint32_t replica_room(const pl_snapshot *s, const pl_view_options *opt)
{
	uint32_t room = pl__options_room(opt);
	if (room == PL_MAX_REPLICAS || pl__check_arrays(s, NULL) != 0)
		return PL_MAX_REPLICAS;
	for (uint32_t i = 0; i < s->n_shards && room < PL_MAX_REPLICAS; i++)
		room = s->shards[i].replica_count > room ? s->shards[i].replica_count : room;
	for (uint32_t c = 0; c < s->n_copies && room < PL_MAX_REPLICAS; c++) {
		const pl_copy *cp = &s->copies[c];
		if (cp->from == PL_NONE && cp->shard < s->n_shards && s->shards[cp->shard].replica_count >= room)
			room = s->shards[cp->shard].replica_count + 1;
	}
	return room < PL_MAX_REPLICAS ? room : PL_MAX_REPLICAS;
}

size_t pl_view_size_opt(const pl_snapshot *s, const pl_view_options *opt)
{
	if (!pl__snapshot_known(s) || pl__past_limit(s) != PL_NONE)
		return pl__view_layout(NULL, NULL, 0, 0, 0, 0, 0, PL_MAX_REPLICAS);
	return pl__view_layout(NULL, NULL, pl__clampc(s->n_members, PL_MAX_MEMBERS), pl__clampc(s->n_streams, PL_MAX_STREAMS),
		      pl__clampc(s->n_shards, PL_MAX_SHARDS), pl__clampc(s->n_overrides, PL_MAX_SHARDS),
		      pl__clampc(s->n_copies, PL_MAX_COPIES), replica_room(s, opt));
}

size_t pl_view_size(const pl_snapshot *s)
{
	return pl_view_size_opt(s, NULL);
}

/* The bytes a built view spans. */
size_t pl__view_bytes(const pl_view *v)
{
	const pl_snapshot *s = &v->snap;
	return pl__view_layout(NULL, NULL, v->nm, v->ns, v->nk, pl__clampc(s->n_overrides, PL_MAX_SHARDS),
		      pl__clampc(s->n_copies, PL_MAX_COPIES), v->room);
}
