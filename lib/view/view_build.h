/*
 * view/view_build.h - the view's insides: validation (snapshot.c), what a
 * hint offers a new build (view_reuse.c), and the steps of the build after
 * validation (view_build.c), called by pl_view_init() (view.c) in this
 * order. Each is described where it is defined. Only the view's own sources
 * include this header; a policy sees the view through view_int.h.
 */
#ifndef PLACEMENT_VIEW_BUILD_H
#define PLACEMENT_VIEW_BUILD_H

#include "core/keyfeed.h"
#include "view/view_int.h"

struct pl__reuse;

/* Validation core shared by pl_snapshot_validate() and pl_view_init(), which
 * first check the arrays with pl__check_arrays() (step 1). Writes
 * the canonical orders of members, streams and shards, and (when k_stream is
 * not NULL) the stream of each shard in key order; scratch holds
 * PL__SORT_SCRATCH(max(n)) bytes. */
int pl__validate(const pl_snapshot *s, uint32_t *m_order, uint32_t *s_order, uint32_t *k_order,
		 uint32_t *k_stream, void *scratch, struct pl__reuse *reuse, pl_diag *diag);

/* Step 4 of pl__validate() (snapshot_shards.c): the one pass over the
 * shards, which checks each, feeds its key to the sort, hashes it and
 * writes its state, matching them to a hint's when reuse is set, then
 * writes their canonical order (k_order, and k_stream). 0, or the first
 * error (diag set); *max_count: the most replicas a shard has. */
int pl__validate_shards(const pl_snapshot *s, uint32_t *k_order, uint32_t *k_stream, void *scratch,
			struct pl__reuse *reuse, pl_diag *diag, uint32_t *max_count);

/* A byte range: NULL with a length, empty where not allowed, too long. */
static inline int pl__check_bytes(pl_bytes b, int may_be_empty)
{
	if (b.ptr == NULL && b.len != 0)
		return PL_E_NULL;
	if (b.len == 0 && !may_be_empty)
		return PL_E_EMPTY_ID;
	if (b.len > PL_MAX_ID_LEN)
		return PL_E_LENGTH;
	return 0;
}

/* What an earlier view offers a new build (view_reuse.c). With `members`,
 * `streams` or `shards` set, every id of that array is the same bytes at the
 * same index as in old's snapshot (shards: and the same stream), so old's
 * canonical order of it holds; `zones`: member zones too; `hashes`: the
 * shards and the scorer, so old's key hashes hold. pl__validate() copies the
 * orders it is told hold instead of sorting (k_stream is then not written:
 * the caller copies the shards of each stream too). pl__reuse_plan() decides
 * members, zones and streams, and that the shards may match; validation's
 * pass over the shards decides `shards` and `hashes`. */
#define PL__REUSED_ORDERS 1u /* the shard order (and so the shards of each stream) */
#define PL__REUSED_HOMES 2u  /* the ring homes */
#define PL__REUSED_TALLIES 4u /* the leader and replica tallies and cells */
#define PL__REUSED_KEYED 8u  /* the shard order, merged from the hint's by key (pl__rekey) */
/* `tallies`: neither snapshot has copies in flight, the members are the
 * same or more and (validation's pass) every shard's leader, move and
 * replica list is old's, except the shards listed in `delta`, which also
 * lists every shard an action changed in old (old's tallies count its
 * states): so old's tallies and cells hold once the listed shards are
 * counted again (or, `keyed`, those of the shard each matched by key, all
 * of old's matched, the streams the same, no action applied to old).
 * With `st` set, validation writes each shard's state there
 * (pl__state_from_shard()) while the shards match old's, at their index or
 * by key without a table (pl__rekey), and `states` says it wrote them all
 * (`moving` of them with a leader move): the sort that would reuse that
 * memory is not needed then. */
typedef struct pl__reuse {
	const pl_view *old;
	uint32_t members, zones, streams, shards, hashes;
	uint32_t scorer; /* the new view's */
	uint32_t tallies, states, moving;
	char *st;          /* the states, st_size bytes apart, with room slots */
	size_t st_size;
	uint32_t room;
	/* With k_hash set (room for every shard), validation writes each
	 * key's hash under `scorer` there, unless the hint's hold (`hashes`). */
	uint64_t *k_hash;
	/* Validation's finding: the most replicas a shard of the snapshot
	 * has, one more for a shard whose copy in flight adds one. States are
	 * written to st only while it stays within room. */
	uint32_t max_count;
	/* Without a hint: the scratch's first direct_room bytes are free of
	 * the states (0: none may be written). When the keys' feed is direct
	 * in that room (pl__keyfeed_start()), validation writes the
	 * states too (`states`), and `tags` gets each shard's stream in index
	 * order, in the scratch: valid until the cells are counted. */
	size_t direct_room;
	const uint32_t *tags;
	/* With a hint: the scratch's bytes, for matching the shards by key
	 * (pl__rekey) when they are not the same at the same index; `keyed`
	 * says the key order was so merged from the hint's. */
	size_t scratch_room;
	uint32_t keyed;
	/* With ktags (from `keep` bytes into the scratch on: the cells'
	 * room), a keyed build writes the states as it matches, and each
	 * shard's stream by index to ktags, while the match needs no room
	 * past keep: `states` then, and `tags` is ktags. */
	uint32_t *ktags;
	size_t keep;
	/* With delta set (room for delta_cap), a shard that matches the
	 * hint's at its index in all but its leader, leader move or replicas
	 * goes on the list instead of clearing `tallies`, while the list has
	 * room: the hint's tallies and cells then hold once each listed
	 * shard's old state is taken off them and its new one added
	 * (n_delta of them; only with `shards`). */
	uint32_t *delta;
	uint32_t n_delta, delta_cap;
} pl__reuse;
/* The hint's tallies are taken with a list of changed shards up to this
 * share of the shards (1/PL__DELTA_SHARE): past it, counting every state
 * costs less than two per listed shard and their cells. */
#define PL__DELTA_SHARE 4u

/* The same bytes: the same range, or equal contents. */
static inline int pl__same_bytes(pl_bytes a, pl_bytes b)
{
	if (a.len != b.len)
		return 0;
	if (a.ptr == b.ptr || a.len == 0)
		return 1;
	if (a.ptr == NULL || b.ptr == NULL)
		return 0; /* not read: validation refuses the new one (PL_E_NULL) */
	return memcmp(a.ptr, b.ptr, (size_t)a.len) == 0;
}
/* The same leader, leader move and replica list. */
static inline int pl__same_tallies(const pl_shard *a, const pl_shard *b)
{
	if (a->leader != b->leader || a->moving_to != b->moving_to || a->replica_count != b->replica_count)
		return 0;
	if (memcmp(a->replicas, b->replicas, sizeof a->replicas) == 0)
		return 1; /* every slot the same: a fixed-size compare, no loop */
	for (uint32_t r = 0; r < a->replica_count; r++)
		if (a->replicas[r] != b->replicas[r])
			return 0;
	return 1;
}
/* The state of shard i in a hint's st. */
static inline pl__shard_state *pl__reuse_st(const pl__reuse *r, uint32_t i)
{
	return (pl__shard_state *)(void *)(r->st + (size_t)i * r->st_size);
}

void pl__reuse_plan(pl__reuse *r, const pl_view *old, const pl_snapshot *s, uint32_t scorer);

/* The shards matched to a hint's by key (view_reuse.c), for validation's
 * pass when they are not all the same at the same index: each new shard is
 * looked up among the hint's (the one after the last matched first, in
 * validation's pass; then those that were not it by a binary search of the
 * hint's key order when they are few, else in a table of the hint's key
 * hashes), the ones matching none are sorted
 * alone and merged into the hint's key order, the hint's that match none
 * drop out. All in the sort's scratch: `map` (the hint's shard -> the new
 * one), the list of new ones, the table. `failed`: a duplicate or no room;
 * the order is then sorted as without a hint. */
typedef struct pl__rekey {
	const pl_view *old;
	const pl_shard *was; /* the hint's shards */
	uint32_t no, n;      /* the hint's shards, the new ones */
	uint32_t *map;       /* [no]: the new index of each of the hint's, or PL_NONE */
	uint32_t *fresh, nu, nu_max; /* new shards matching none, in index order */
	uint64_t *table;     /* 1 << bits slots (hash >> 32 << 32 | index), or NULL before it is built */
	uint32_t bits, searches;
	/* Where the table and the new ones' sort go: spread (the list may
	 * take nu_spread), or low (the list and the sort below keep: nu_max
	 * smaller, what the caller keeps from keep on lasts while `low`
	 * holds; the table goes there and ends it, and so does a list that
	 * outgrows it, becoming spread). */
	char *spread_at, *low_at, *keep_at;
	size_t spread_room, low_room, keep_room;
	uint32_t nu_spread, low;
	uint32_t prev;       /* the hint's shard matched last, or PL_NONE */
	uint32_t matched, failed;
} pl__rekey;

/* Start matching n new shards to old's, where the first j are old's first j
 * at the same index; 0 when the scratch (room bytes) cannot hold it. With
 * keep, the bytes of the scratch from keep on are left as they are while
 * kt->low holds (pl__rekey). */
int pl__rekey_start(pl__rekey *kt, const pl_view *old, uint32_t n, uint32_t j, void *scratch, size_t room,
		    size_t keep);
/* Match the new shards look[0..nl) (their keys checked, kh their hashes
 * under the hint's scorer) to the hint's, each noted with its match or as
 * new; *tallies becomes 0 unless each matched one with its stream and
 * replicas (pl__same_tallies()). */
void pl__rekey_lookup(pl__rekey *kt, const pl_snapshot *s, const uint64_t *kh, const uint32_t *look, uint32_t nl,
		      uint32_t *tallies);
/* The guess: the hint's shard after the last matched, or before it (an
 * array in the other order), when it has this key (validated or not: a
 * range of the hint's length compares). */
static inline uint32_t pl__rekey_guess(const pl__rekey *kt, pl_bytes key)
{
	uint32_t g = kt->prev + 1; /* PL_NONE + 1 is 0 */
	if (g < kt->no && pl__same_bytes(key, kt->was[g].key))
		return g;
	g = kt->prev - 1;
	return g + 2 > 1 && g < kt->no && pl__same_bytes(key, kt->was[g].key) ? g : PL_NONE;
}
/* Binary searches of the hint's key order validation's pass makes, for
 * shards that are not the guess; those after them are looked up in the
 * table after the pass (pl__rekey_lookup()). */
#define PL__REKEY_SEARCHES 64u
/* The hint's shard with this key (checked) by a binary search, or PL_NONE;
 * PL_NONE without a search after PL__REKEY_SEARCHES of them (counted in
 * searches, to one past it). */
uint32_t pl__rekey_search(pl__rekey *kt, pl_bytes key);
/* Note new shard j as matching the hint's shard o (from the guess). */
void pl__rekey_note(pl__rekey *kt, uint32_t j, uint32_t o);
/* The key order of s's shards (and the stream at each rank in k_stream,
 * from tags, each shard's stream by index, when not NULL) from the
 * matches; 0, or 1 when it failed (a duplicate, no room). */
int pl__rekey_order(pl__rekey *kt, const pl_snapshot *s, const uint32_t *tags, uint32_t *k_order, uint32_t *k_stream);
/* Ring homes from old's, for a view built up to its shard states; fills the
 * owned counts and returns 1, or returns 0 (nothing written) when old has no
 * homes to offer. */
int pl__reuse_homes(pl_view *v, const pl__reuse *r);

/* ---- the layout (view_layout.c) ------------------------------------------ */

static inline uint32_t pl__clampc(uint32_t n, uint32_t lim)
{
	return n > lim ? lim : n;
}
/* Lay a view of these counts out after `base` (or just measure it when v is
 * NULL); the bytes it spans. */
size_t pl__view_layout(pl_view *v, char *base, uint32_t nm, uint32_t ns, uint32_t nk, uint32_t no, uint32_t nc,
		       uint32_t room);
/* The replica room the options ask for: max_replicas (version 3), 0 or
 * past the limit read as PL_MAX_REPLICAS. */
uint32_t pl__options_room(const pl_view_options *opt);

/* ---- the steps after validation (view_build.c) ---------------------------- */

/* Zone ids, in `scratch` (PL__SORT_SCRATCH(nm) bytes); `sorted` is room
 * for nm indices. Before pl__view_init_members(). */
void pl__view_init_zones(pl_view *v, uint32_t *sorted, void *scratch);
/* v->zone_levels from the zones' paths (pl__view_init_zones() calls it). */
void pl__view_zone_levels(pl_view *v);
/* Member hashes, weights and eligibility; the member tallies zeroed. */
void pl__view_init_members(pl_view *v);
/* The shards of each stream in key order, from k_stream (the stream at
 * each rank). */
void pl__view_init_by_stream(pl_view *v, const uint32_t *k_stream);
/* Ranks, hashes, states, totals; the leaders of each stream's shards to
 * k_lead (room for nk) unless the hint's tallies hold. */
void pl__view_init_shards(pl_view *v, const pl__reuse *r, uint32_t *k_lead);
/* The per-stream leader cells from k_lead (read, and written over). */
void pl__view_init_cells(pl_view *v, uint32_t *k_lead);
/* The cells of a hint whose tallies hold. */
void pl__view_copy_cells(pl_view *v, const pl_view *old);

#endif /* PLACEMENT_VIEW_BUILD_H */
