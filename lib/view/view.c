/*
 * view.c - building a view in caller memory (view_build.c holds the steps
 * after validation, view_read.c reads it).
 *
 * How it works. pl_view_size() lays the view out for the snapshot's counts
 * (pl__view_layout() in view_layout.c is the one formula, used by size and
 * init alike), so the caller can hand in the memory. pl_view_init() validates the snapshot with
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
 * With a hint, validation does the same while the shards match the hint's,
 * at their index or by key (view_reuse.c), and the zones' sort, when one
 * follows, stays below the cells' room where it leaves the streams.
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
#include "view/view_build.h"

int pl_view_options_init(pl_view_options *opt)
{
	const pl_view_options def = PL_VIEW_OPTIONS_INIT;
	return pl__init_from(opt, &def, sizeof def);
}

/* The bytes of the options a caller of their version filled: fields past
 * a version's end are never read, so never compared either. */
static size_t options_bytes(const pl_view_options *opt)
{
	if (opt == NULL)
		return 0;
	switch (opt->version) {
	case 1:
		return offsetof(pl_view_options, reuse);
	case 2:
		return offsetof(pl_view_options, max_replicas);
	case PL_VIEW_OPTIONS_VERSION:
		return sizeof *opt;
	default:
		return sizeof opt->version; /* refused: only the version is read */
	}
}

/* The bytes of mem a view of snap takes at the options' replica room (the
 * snapshot may raise the room: pl_view_init() checks the larger size then). */
static size_t room_need(const pl_snapshot *snap, const pl_view_options *opt)
{
	if (!pl__snapshot_known(snap) || pl__past_limit(snap) != PL_NONE)
		return 0;
	pl_view_options def = PL_VIEW_OPTIONS_INIT;
	uint32_t room = pl__options_room(opt != NULL && opt->version == PL_VIEW_OPTIONS_VERSION ? opt : &def);
	return pl__view_layout(NULL, NULL, snap->n_members, snap->n_streams, snap->n_shards, snap->n_overrides,
			       snap->n_copies, room);
}

/* The overlap rule of pl_view_init(): the diag, then the view's memory (the
 * need bytes of it the view takes, at most size) and the pointer out
 * against the snapshot, the options and the hint (opt->reuse, versions 2
 * and 3). mem is listed before out: out inside it is named (argument 1). */
static int check_args(pl_view *const *out, const void *mem, size_t size, const pl_snapshot *snap,
		      const pl_view_options *opt, size_t need, pl_diag *diag)
{
	const pl_view *hint = opt != NULL && opt->version >= 2 && opt->version <= PL_VIEW_OPTIONS_VERSION
				      ? opt->reuse
				      : NULL;
	const pl__arg a[3] = {PL__IN(opt, options_bytes(opt), 5), PL__OUT(mem, need < size ? need : size, 2),
			      PL__OUT(out, sizeof *out, 1)};
	return pl__check_args(hint, snap, a, 3, diag);
}

int pl_view_init(pl_view **out, void *mem, size_t size, const pl_snapshot *snap, const pl_view_options *opt,
		 pl_diag *diag)
{
	/* The overlap rule first: the diag, the memory the view will use (as
	 * the options' room lays it out; checked again below if the snapshot
	 * needs more) and the pointer out, against the snapshot, the options
	 * and the hint (its memory and its snapshot's arrays). */
	int rc = check_args(out, mem, size, snap, opt, room_need(snap, opt), diag);
	if (rc)
		return rc;
	if (out == NULL)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 1, PL_NONE);
	if (mem == NULL)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 2, PL_NONE);
	if (snap == NULL)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 4, PL_NONE);
	if (!pl__snapshot_known(snap)) /* before anything else of it is read */
		return pl__fail(diag, PL_E_VERSION, PL_ELEM_ARGUMENT, 4, PL_NONE);
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
	if ((rc = pl__check_arrays(snap, diag)))
		return rc;
	/* The room the options ask for; validation's pass finds whether the
	 * snapshot needs more (r.max_count), and then the view is laid out and
	 * validated once more with that (the workspace checked against it). */
	uint32_t room = pl__options_room(opt);
	uint32_t nm = pl__clampc(snap->n_members, PL_MAX_MEMBERS), ns = pl__clampc(snap->n_streams, PL_MAX_STREAMS);
	uint32_t nk = pl__clampc(snap->n_shards, PL_MAX_SHARDS), no = pl__clampc(snap->n_overrides, PL_MAX_SHARDS);
	uint32_t nc = pl__clampc(snap->n_copies, PL_MAX_COPIES);
	pl_view *v = mem;
	pl__reuse r;
	void *zscratch;
	for (;;) {
		size_t need = pl__view_layout(NULL, NULL, nm, ns, nk, no, nc, room);
		if (size < need)
			return pl__fail(diag, PL_E_WORKSPACE, PL_ELEM_ARGUMENT, 3, PL_NONE);
		if ((uintptr_t)mem % PL_VIEW_ALIGN != 0)
			return pl__fail(diag, PL_E_ALIGN, PL_ELEM_ARGUMENT, 2, PL_NONE);
		if ((rc = check_args(out, mem, size, snap, opt, need, diag)))
			return rc;
		memset(v, 0, sizeof *v);
		pl__view_layout(v, mem, nm, ns, nk, no, nc, room);
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
		/* With a hint, the same room: a build that matches the shards
		 * by key (pl__rekey) writes the states and the streams by index
		 * as it matches, while its match stays below the cells. */
		if (old != NULL && (r.zones || PL__SORT_SCRATCH(nm) <= (size_t)8 * nk)) {
			zscratch = scratch;
			r.st = v->st;
			r.ktags = (uint32_t *)(void *)v->cells;
			r.keep = (size_t)((char *)v->cells - (char *)scratch);
		}
		r.st_size = v->st_size;
		r.room = v->room;
		r.k_hash = v->k_hash; /* hashed in validation's pass, the key in cache */
		/* The shards whose tallies changed, when few, in k_home (free
		 * until the homes; validation writes it only when it sorts). */
		r.delta = v->k_home;
		r.delta_cap = nk / PL__DELTA_SHARE;
		r.scratch_room = need - (size_t)((char *)scratch - (char *)mem);
		rc = pl__validate(snap, v->m_order, v->s_order, v->k_order, v->k_home, scratch, &r, diag);
		if (rc) {
			v->magic = 0;
			return rc;
		}
		if (r.max_count <= room)
			break;
		room = r.max_count; /* validation refused a count past PL_MAX_REPLICAS */
	}
	pl__snapshot_read(snap, &v->snap);
	v->scorer = opt->scorer;
	v->nm = nm;
	v->ns = ns;
	v->nk = nk;
	if (r.zones) {
		memcpy(v->m_zone, old->m_zone, (size_t)nm * sizeof *v->m_zone);
		v->zone_levels = old->zone_levels;
	} else
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
		pl__cells_delta(v, old, r.delta, r.n_delta);
	} else {
		pl__view_init_cells(v, v->k_home); /* after every replica the view counts is in the states */
		for (uint32_t i = 0; i < nm; i++)
			v->m_owned[i] = 0; /* pl__view_init_cells() borrowed it */
	}
	v->ls_stream = PL_NONE;
	v->lc_stream = PL_NONE;
	v->rc_stream = PL_NONE;
	v->rc_n = v->rc_rows ? nm : 0;
	for (uint32_t i = 0; i < nm; i++) {
		v->lc_count[i] = 0;
		v->rc_count[i] = 0;
		v->rc_list[i] = i; /* the rows list every member */
	}
	pl__view_count_bytes(v);
	v->homes_ready = 0;
	v->reused = (r.shards ? PL__REUSED_ORDERS : 0) | (r.keyed ? PL__REUSED_KEYED : 0) |
		    (r.tallies ? PL__REUSED_TALLIES : 0);
	v->direct = r.tags != NULL && !r.keyed;
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
	uint32_t no = pl__clampc(s->n_overrides, PL_MAX_SHARDS), nc = pl__clampc(s->n_copies, PL_MAX_COPIES);
	size_t need = pl__view_bytes(src);
	if (size < need)
		return PL_E_WORKSPACE;
	if ((uintptr_t)mem % PL_VIEW_ALIGN != 0)
		return PL_E_ALIGN;
	const pl__arg a[2] = {PL__OUT(mem, need, 2), PL__OUT(out, sizeof *out, 1)};
	if (pl__check_args(src, NULL, a, 2, NULL))
		return PL_E_OVERLAP;
	/* Every array lives in [src, src + need): copy the block, then point the
	 * copy's arrays into its own memory with the one layout formula. */
	memcpy(mem, src, need);
	pl_view *v = mem;
	pl__view_layout(v, mem, v->nm, v->ns, v->nk, no, nc, v->room);
	if (v->rc_rows && v->rc_stream != PL_NONE)
		v->rc_count = v->rc_mat + (size_t)v->rc_stream * v->nm; /* the row asked last */
	*out = v;
	return 0;
}
