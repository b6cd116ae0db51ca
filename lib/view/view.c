/*
 * view.c - building a view in caller memory (view_build.c holds the steps
 * after validation, view_read.c reads it).
 *
 * How it works. pl_view_size() lays the view out for the snapshot's counts
 * (layout() below is the one formula, used by size and init alike), so the
 * caller can hand in the memory. pl_view_init() validates the snapshot with
 * its own arrays as the workspace (the canonical orders it needs are the
 * by-product of the duplicate checks), then fills, in this order: member
 * hashes, weights and eligibility; zone ids (members sorted by zone bytes);
 * stream ranks; the shards of each stream in key order (a counting sort over
 * the key order, so linear); shard hashes and states, with in-flight moves
 * and copies applied as if finished, their tallies and the leader of each
 * in its stream's place (a scatter by stream in index order, so the states
 * are read in sequence); then the per-stream leader cells, from those.
 * Without a hint, when the keys' packed range is dense, validation's key
 * feed is direct (a table of the range, 12 bytes a shard of the scratch):
 * validation then writes the states in its one pass over the snapshot, and
 * the tallies are counted from them and the streams it left by index.
 * Replicas per stream are counted when asked (tally.c), one stream at a
 * time, so they take no room per shard; a small view (streams x members at
 * most a quarter of its shards) counts them all with the tallies instead,
 * a row of members a stream. The replica room is found in validation's
 * pass; a snapshot needing more than the options' room is validated once
 * more with the view laid out for it.
 *
 * Per-stream leader counts are sparse: stream s has room for min(shards of s,
 * members) cells, each (member, leaders), sorted by member index, and only
 * members leading some of s have one. A stream can never need more cells than
 * that, since each cell holds at least one of its leaders. Memory is linear in
 * members + streams + shards.
 */
#include "internal.h"
#include "view_build.h"

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)

static uint32_t clampc(uint32_t n, uint32_t lim)
{
	return n > lim ? lim : n;
}

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
static size_t layout(pl_view *v, char *base, uint32_t nm, uint32_t ns, uint32_t nk, uint32_t no, uint32_t nc,
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
static uint32_t options_room(const pl_view_options *opt)
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
	uint32_t room = options_room(opt);
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
	if (s == NULL || pl__past_limit(s) != PL_NONE)
		return layout(NULL, NULL, 0, 0, 0, 0, 0, PL_MAX_REPLICAS);
	return layout(NULL, NULL, clampc(s->n_members, PL_MAX_MEMBERS), clampc(s->n_streams, PL_MAX_STREAMS),
		      clampc(s->n_shards, PL_MAX_SHARDS), clampc(s->n_overrides, PL_MAX_SHARDS),
		      clampc(s->n_copies, PL_MAX_COPIES), replica_room(s, opt));
}

size_t pl_view_size(const pl_snapshot *s)
{
	return pl_view_size_opt(s, NULL);
}

/* The bytes a built view spans. */
size_t pl__view_bytes(const pl_view *v)
{
	const pl_snapshot *s = &v->snap;
	return layout(NULL, NULL, v->nm, v->ns, v->nk, clampc(s->n_overrides, PL_MAX_SHARDS),
		      clampc(s->n_copies, PL_MAX_COPIES), v->room);
}

int pl_view_options_init(pl_view_options *opt)
{
	const pl_view_options def = PL_VIEW_OPTIONS_INIT;
	return pl__init_from(opt, &def, sizeof def);
}

int pl_view_init(pl_view **out, void *mem, size_t size, const pl_snapshot *snap, const pl_view_options *opt,
		 pl_diag *diag)
{
	if (out == NULL)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 1, PL_NONE);
	if (mem == NULL)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 2, PL_NONE);
	if (snap == NULL)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 4, PL_NONE);
	pl_view_options def = PL_VIEW_OPTIONS_INIT;
	if (opt == NULL)
		opt = &def;
	if (opt->version < 1 || opt->version > PL_VIEW_OPTIONS_VERSION)
		return pl__fail(diag, PL_E_VERSION, PL_ELEM_CONFIG, 0, PL_NONE);
	if (opt->scorer != PL_SCORER_XXH3 && opt->scorer != PL_SCORER_LEGACY_FNV1A)
		return pl__fail(diag, PL_E_SCORER, PL_ELEM_CONFIG, 1, PL_NONE);
	/* Version 1 options end before `reuse`: it is not read. */
	const pl_view *old = opt->version >= 2 ? opt->reuse : NULL;
	if (old != NULL && !pl__view_ok(old))
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_CONFIG, 2, PL_NONE);
	/* Version 1 and 2 options end before `max_replicas`: it is not read. */
	if (opt->version >= 3 && opt->max_replicas > PL_MAX_REPLICAS)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 3, PL_NONE);
	if (opt->version >= 3 && opt->reserved != 0)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 4, PL_NONE);
	int rc = pl__check_arrays(snap, diag);
	if (rc)
		return rc;
	/* The room the options ask for; validation's pass finds whether the
	 * snapshot needs more (r.max_count), and then the view is laid out and
	 * validated once more with that (the workspace checked against it). */
	uint32_t room = options_room(opt);
	uint32_t nm = clampc(snap->n_members, PL_MAX_MEMBERS), ns = clampc(snap->n_streams, PL_MAX_STREAMS);
	uint32_t nk = clampc(snap->n_shards, PL_MAX_SHARDS), no = clampc(snap->n_overrides, PL_MAX_SHARDS);
	uint32_t nc = clampc(snap->n_copies, PL_MAX_COPIES);
	pl_view *v = mem;
	pl__reuse r;
	void *zscratch;
	for (;;) {
		size_t need = layout(NULL, NULL, nm, ns, nk, no, nc, room);
		if (size < need)
			return pl__fail(diag, PL_E_WORKSPACE, PL_ELEM_ARGUMENT, 3, PL_NONE);
		if ((uintptr_t)mem % PL_VIEW_ALIGN != 0)
			return pl__fail(diag, PL_E_ALIGN, PL_ELEM_ARGUMENT, 2, PL_NONE);
		if ((rc = pl__check_view_mem(mem, need, out, snap, opt, diag)))
			return rc;
		if (old != NULL && pl__overlap(mem, need, old, pl__view_bytes(old)))
			return pl__fail(diag, PL_E_OVERLAP, PL_ELEM_CONFIG, 2, PL_NONE);
		memset(v, 0, sizeof *v);
		layout(v, mem, nm, ns, nk, no, nc, room);
		v->rc_rows = pl__rc_entries(nm, ns, nk) > 0;
		/* The sorts' scratch is the room from k_rank to the end of the
		 * states (validation writes none of it). k_home holds the stream
		 * of each shard in key order until the end. */
		size_t cells_room = (size_t)nk * sizeof *v->cells;
		void *scratch = v->k_rank;
		pl__reuse_plan(&r, old, snap, opt->scorer);
		/* Validation writes the shard states while the shards match the
		 * hint's (no sort of them follows then), unless the zones are to
		 * be sorted after it in the scratch: they go to the cells' room
		 * when it is large enough. */
		zscratch = scratch;
		if (!r.zones && PL__SORT_SCRATCH(nm) <= cells_room)
			zscratch = v->cells;
		r.st = r.zones || zscratch != scratch ? v->st : NULL;
		/* Without a hint or copies, the keys' feed may leave the states
		 * free (direct): validation writes them, and the streams by
		 * index (r.tags) in the scratch's 8 to 12 bytes a shard, which
		 * the zones' sort at its start stays below. */
		if (old == NULL && nc == 0 && PL__SORT_SCRATCH(nm) <= (size_t)8 * nk) {
			r.direct_room = (size_t)((char *)v->st - (char *)scratch);
			zscratch = scratch;
			r.st = v->st;
		}
		r.st_size = v->st_size;
		r.room = v->room;
		r.k_hash = v->k_hash; /* hashed in validation's pass, the key in cache */
		rc = pl__validate(snap, v->m_order, v->s_order, v->k_order, v->k_home, scratch, &r, diag);
		if (rc) {
			v->magic = 0;
			return rc;
		}
		if (r.max_count <= room)
			break;
		room = r.max_count; /* validation refused a count past PL_MAX_REPLICAS */
	}
	v->snap = *snap;
	v->scorer = opt->scorer;
	v->nm = nm;
	v->ns = ns;
	v->nk = nk;
	if (r.zones)
		memcpy(v->m_zone, old->m_zone, (size_t)nm * sizeof *v->m_zone);
	else
		pl__view_init_zones(v, v->m_leaders, zscratch); /* m_leaders is zeroed by init_members */
	pl__view_init_members(v);
	if (r.shards) {
		memcpy(v->s_shards, old->s_shards, (size_t)ns * sizeof *v->s_shards);
		memcpy(v->s_first, old->s_first, ((size_t)ns + 1) * sizeof *v->s_first);
		memcpy(v->by_stream, old->by_stream, (size_t)nk * sizeof *v->by_stream);
	} else {
		pl__view_init_by_stream(v, v->k_home);
	}
	pl__view_init_shards(v, &r, v->k_home); /* k_home is free until the homes */
	if (r.tallies) {
		pl__view_copy_cells(v, old);
	} else {
		pl__view_init_cells(v, v->k_home); /* after every replica the view counts is in the states */
		for (uint32_t i = 0; i < nm; i++)
			v->m_owned[i] = 0; /* pl__view_init_cells() borrowed it */
	}
	v->rc_stream = PL_NONE;
	v->rc_n = v->rc_rows ? nm : 0;
	for (uint32_t i = 0; i < nm; i++) {
		v->rc_count[i] = 0;
		v->rc_list[i] = i; /* the rows list every member */
	}
	v->homes_ready = 0;
	v->reused = (r.shards ? PL__REUSED_ORDERS : 0) | (r.tallies ? PL__REUSED_TALLIES : 0);
	v->direct = r.tags != NULL;
	if (pl__reuse_homes(v, &r))
		v->reused |= PL__REUSED_HOMES;
	else
		for (uint32_t i = 0; i < nk; i++)
			v->k_home[i] = PL_NONE;
	v->simd = pl__simd_detect();
	v->magic = PL_VIEW_MAGIC;
	*out = v;
	return 0;
}

int pl_view_copy(pl_view **out, void *mem, size_t size, const pl_view *src)
{
	if (out == NULL || mem == NULL || !pl__view_ok(src))
		return PL_E_INVAL;
	const pl_snapshot *s = &src->snap;
	uint32_t no = clampc(s->n_overrides, PL_MAX_SHARDS), nc = clampc(s->n_copies, PL_MAX_COPIES);
	size_t need = pl__view_bytes(src);
	if (size < need)
		return PL_E_WORKSPACE;
	if ((uintptr_t)mem % PL_VIEW_ALIGN != 0)
		return PL_E_ALIGN;
	if (pl__check_view_mem(mem, need, out, NULL, NULL, NULL) || pl__overlaps_view(src, mem, need))
		return PL_E_OVERLAP;
	/* Every array lives in [src, src + need): copy the block, then point the
	 * copy's arrays into its own memory with the one layout formula. */
	memcpy(mem, src, need);
	pl_view *v = mem;
	layout(v, mem, v->nm, v->ns, v->nk, no, nc, v->room);
	if (v->rc_rows && v->rc_stream != PL_NONE)
		v->rc_count = v->rc_mat + (size_t)v->rc_stream * v->nm; /* the row asked last */
	*out = v;
	return 0;
}
