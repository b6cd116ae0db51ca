/*
 * view_reuse.c - building a view with an earlier one as a hint.
 *
 * How it works. A control plane builds a view every tick from a snapshot that
 * differs little from the last one. pl_view_init() with opt->reuse takes what
 * still holds from the earlier view, after checking it, and computes the rest:
 *
 *  1. Sameness (pl__reuse_plan, and validation's pass over the shards)
 *     compares every member id and zone, stream id, and shard key and stream
 *     with the earlier snapshot's at the same index (a range at the same address is the same
 *     bytes: a view's snapshot does not change while the view lives). When
 *     all ids of an array match, its canonical order is the earlier one, so
 *     validation copies it instead of sorting, and finds no duplicate (the
 *     earlier view was validated with the same ids); when all shards match,
 *     so do the shards of each stream and, under the same scorer, the key
 *     hashes. A shard equal to the earlier one in every field the shard
 *     rules read, under the same member count, passed those rules when the
 *     earlier view was built: validation does not apply them again.
 *  1b. Matching by key (pl__rekey, below; validation's pass from the first
 *     shard that is not the earlier one at its index, under the same
 *     scorer). Each shard is looked up among the earlier ones: the one
 *     after the last matched (or before it: an array in the other order),
 *     else a binary search of the earlier key order for the first
 *     PL__REKEY_SEARCHES, else, after the pass, a table of the earlier key
 *     hashes (1.5 to 3 slots of 8 bytes a shard, open addressing, each
 *     candidate's key compared byte for byte; its slots and shards fetched
 *     ahead). A shard matched keeps the earlier key hash and needs no
 *     hashing; the earlier shard's map entry says where it went. The shards
 *     matching none are sorted alone (pl__sort_bytes) and each placed in
 *     the earlier key order by a binary search; the key order is then a
 *     merge: the earlier order without the shards gone, with the new ones
 *     at their places. Everything lives in the sorts' scratch (the view's
 *     room from k_rank to the end of the states, written after
 *     validation), so pl_view_size() is unchanged: the map (4 bytes an
 *     earlier shard), the new ones' list and their sort (72 bytes each)
 *     below the cells' room, where the states and each shard's stream by
 *     index are written in the same pass as in a direct feed (so the
 *     tallies are counted in one pass over the states); the table, when
 *     needed, takes the cells' and the states' room, and the states are
 *     written after validation then. Past an eighth of the shards to look
 *     up in the table (most of the order changed: the sort of every key
 *     costs less than as many random lookups), two shards of one key (the
 *     sort names the duplicate as without a hint), or no room, validation
 *     sorts as without a hint. The earlier tallies hold when every earlier
 *     shard is matched with its stream and replicas, in any order, the
 *     streams are the same and the members the same or more (joined at the
 *     end: tallies are by member index), and no action was applied to the
 *     earlier view. With the shards matched by index, up to a quarter of
 *     them may differ in leader or replicas, or have had an action applied
 *     in the earlier view (its k_changed bits; its tallies count its
 *     states): they are listed (pl__reuse.delta) and each taken off the
 *     copied tallies and cells as the earlier view held it and added as it
 *     is.
 *  2. Ring homes (pl__reuse_homes), when the earlier view had them. Members
 *     are matched by id (a merge of the two id orders) and shards by key (the
 *     identity when all matched, else a merge of the two key orders). A
 *     member is unchanged when it is eligible in both views with the same
 *     weight; the others that are eligible now are the joiners. For a shard
 *     whose earlier home h is unchanged, the new home is h or the best
 *     joiner: among unchanged members the pairwise order of draws is the
 *     same in both views (equal weights compare by score in both, unequal
 *     ones by the same weighted draws), so h, best of a superset before, is
 *     still best among them. A shard whose home is not unchanged, or whose
 *     key is new, is scored against every eligible member. The cost is what
 *     changed: one score per shard per joiner, a rescan of a leaver's shards.
 *
 * Everything else (eligibility, zones when they changed, tallies, leader
 * cells, states and overrides) is built as without a hint, so every answer
 * is the one a fresh build gives.
 */
#include "view/view_build.h"

void pl__reuse_plan(pl__reuse *r, const pl_view *old, const pl_snapshot *s, uint32_t scorer)
{
	memset(r, 0, sizeof *r);
	r->old = old;
	r->scorer = scorer;
	if (old == NULL)
		return;
	const pl_snapshot *o = &old->snap;
	r->members = r->zones = s->n_members == o->n_members;
	for (uint32_t i = 0; i < s->n_members && r->members; i++) {
		r->members = pl__same_bytes(s->members[i].id, o->members[i].id);
		r->zones = r->zones && pl__same_bytes(s->members[i].zone, o->members[i].zone);
	}
	r->zones = r->zones && r->members;
	r->streams = s->n_streams == o->n_streams;
	for (uint32_t i = 0; i < s->n_streams && r->streams; i++)
		r->streams = pl__same_bytes(s->streams[i].id, o->streams[i].id);
	/* The shards are compared in validation's pass over them. */
	r->shards = r->streams && s->n_shards == o->n_shards;
	/* Tallies are by member index: members joined at the end hold
	 * nothing of old's (validation's pass finds whether the shards are
	 * old's); per-stream rows are taken only from a hint that has them. */
	r->tallies = o->n_copies == 0 && s->n_copies == 0 && s->n_members >= o->n_members &&
		     (pl__rc_entries(s->n_members, s->n_streams, s->n_shards) == 0 || old->rc_rows);
}

/* For each element of the earlier snapshot, its index in the new one, by a
 * merge of the two canonical orders; PL_NONE where it is gone. */
static void match_by_order(const pl__byteseq *qa, const uint32_t *order_a, uint32_t na, const pl__byteseq *qb,
			   const uint32_t *order_b, uint32_t nb, uint32_t *map_a)
{
	uint32_t i = 0, j = 0;
	for (uint32_t x = 0; x < na; x++)
		map_a[x] = PL_NONE;
	while (i < na && j < nb) {
		pl_bytes a = pl__seq_at(qa, order_a[i]), b = pl__seq_at(qb, order_b[j]);
		int c = a.ptr == b.ptr && a.len == b.len ? 0 : pl__bytes_cmp(a.ptr, a.len, b.ptr, b.len);
		if (c == 0)
			map_a[order_a[i]] = order_b[j];
		i += c <= 0;
		j += c >= 0;
	}
}

int pl__reuse_homes(pl_view *v, const pl__reuse *r)
{
	const pl_view *old = r->old;
	if (old == NULL || !old->homes_ready || old->scorer != v->scorer)
		return 0;
	/* Earlier member -> new member, in m_scratch (room for 2 * nm). */
	uint32_t *mmap = (uint32_t *)(void *)v->m_scratch;
	if (!r->members) {
		if (old->nm > 2 * (uint64_t)v->nm)
			return 0; /* the fleet more than halved: homes are filled as without a hint */
		pl__byteseq qo = {(const char *)old->snap.members, sizeof(pl_member), offsetof(pl_member, id), PL__NO_TAG};
		pl__byteseq qn = {(const char *)v->snap.members, sizeof(pl_member), offsetof(pl_member, id), PL__NO_TAG};
		match_by_order(&qo, old->m_order, old->nm, &qn, v->m_order, v->nm, mmap);
	}
	/* unchanged[new] in m_lagged, the joiners' list in m_owned: both are
	 * counted again below. */
	uint32_t *unchanged = v->m_lagged, *join = v->m_owned, nj = 0, nu = 0;
	for (uint32_t i = 0; i < v->nm; i++)
		unchanged[i] = 0;
	for (uint32_t i = 0; i < old->nm; i++) {
		uint32_t n = r->members ? i : mmap[i];
		if (n != PL_NONE && pl__eligible(old, i) && pl__eligible(v, n) && old->m_weight[i] == v->m_weight[n]) {
			unchanged[n] = 1;
			nu++;
		}
	}
	for (uint32_t e = 0; e < v->n_elig; e++)
		if (!unchanged[v->elig[e]])
			join[nj++] = v->elig[e];
	if (r->members && r->shards && nj == 0 && nu == old->n_elig) {
		/* The same eligible members at the same places with the same
		 * weights, the same keys and hashes: every home is the earlier
		 * one (a shard with none had no eligible member then, nor now). */
		memcpy(v->k_home, old->k_home, (size_t)v->nk * sizeof *v->k_home);
		pl__view_owned(v);
		return 1;
	}
	/* New shard -> earlier shard, in k_home until each home replaces it. */
	if (!r->shards) {
		pl__byteseq qo = {(const char *)old->snap.shards, sizeof(pl_shard), offsetof(pl_shard, key), PL__NO_TAG};
		pl__byteseq qn = {(const char *)v->snap.shards, sizeof(pl_shard), offsetof(pl_shard, key), PL__NO_TAG};
		match_by_order(&qn, v->k_order, v->nk, &qo, old->k_order, old->nk, v->k_home);
	}
	for (uint32_t k = 0; k < v->nk; k++) {
		uint32_t o = r->shards ? k : v->k_home[k];
		uint32_t h = o == PL_NONE ? PL_NONE : old->k_home[o];
		if (h != PL_NONE && !r->members)
			h = mmap[h];
		if (h == PL_NONE || !unchanged[h]) {
			v->k_home[k] = pl__view_top1(v, v->k_hash[k]);
			continue;
		}
		if (nj == 0) {
			v->k_home[k] = h;
			continue;
		}
		uint64_t kh = v->k_hash[k];
		pl__draw best = pl__view_draw(v, kh, h);
		for (uint32_t j = 0; j < nj; j++) {
			pl__draw d = pl__view_draw(v, kh, join[j]);
			if (pl__draw_gt(d, best)) {
				best = d;
				h = join[j];
			}
		}
		v->k_home[k] = h;
	}
	pl__view_owned(v);
	return 1;
}

/* ---- shards matched by key (validation's pass, pl__validate()) ----------- */

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)

int pl__rekey_start(pl__rekey *kt, const pl_view *old, uint32_t n, uint32_t j, void *scratch, size_t room,
		    size_t keep)
{
	memset(kt, 0, sizeof *kt);
	uint32_t no = old->nk;
	size_t map_bytes = ALIGN8((size_t)no * sizeof(uint32_t));
	if (map_bytes >= room)
		return 0;
	size_t avail = room - map_bytes;
	/* The table: a power of two at least 1.5 slots a shard, or at least
	 * 1.125 when that does not fit. */
	uint32_t bits = 4;
	while (bits < 32 && ((uint64_t)1 << bits) < (uint64_t)no + no / 2)
		bits++;
	if (((size_t)8 << bits) > avail && ((uint64_t)1 << (bits - 1)) >= (uint64_t)no + no / 8 && bits > 4)
		bits--;
	size_t tbytes = (size_t)8 << bits;
	if (tbytes > avail)
		return 0;
	/* Spread: the new ones' list, then the table; after the pass the
	 * table's room holds the new ones' sort (68 bytes each). */
	size_t nu_max = avail / 72;
	nu_max = nu_max < (avail - tbytes) / 4 ? nu_max : (avail - tbytes) / 4;
	nu_max = nu_max < n ? nu_max : n;
	kt->nu_spread = (uint32_t)nu_max;
	kt->spread_at = (char *)scratch + map_bytes + ALIGN8(nu_max * sizeof(uint32_t));
	kt->spread_room = avail - ALIGN8(nu_max * sizeof(uint32_t));
	/* Low: the list and the sort below `keep`, the table (if any) from
	 * it on, so that what the caller keeps there lasts while no table
	 * is built. */
	kt->low = keep >= map_bytes + 32 && room >= keep + tbytes;
	if (kt->low) {
		size_t nu_low = (keep - map_bytes - 32) / 72;
		nu_max = nu_low < n ? nu_low : n;
		kt->low_at = (char *)scratch + map_bytes + ALIGN8(nu_max * sizeof(uint32_t));
		kt->low_room = keep - map_bytes - ALIGN8(nu_max * sizeof(uint32_t));
		kt->keep_at = (char *)scratch + keep;
		kt->keep_room = room - keep;
	}
	kt->old = old;
	kt->was = old->snap.shards;
	kt->no = no;
	kt->n = n;
	kt->map = scratch;
	kt->fresh = (uint32_t *)(void *)((char *)scratch + map_bytes);
	kt->nu_max = (uint32_t)nu_max;
	kt->bits = bits;
	for (uint32_t x = 0; x < no; x++)
		kt->map[x] = x < j ? x : PL_NONE;
	kt->matched = j;
	kt->prev = j ? j - 1 : PL_NONE;
	return 1;
}

static uint32_t slot_of(uint64_t h, uint32_t bits)
{
	return (uint32_t)((h * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - bits));
}

/* The table of the hint's key hashes, each slot the hash's high half and
 * the shard's index (linear probing). */
static void rekey_table(pl__rekey *kt)
{
	uint32_t mask = ((uint32_t)1 << kt->bits) - 1;
	/* low: from keep on (what is kept is lost); else after the list */
	uint64_t *t = (uint64_t *)(void *)(kt->low ? kt->keep_at : kt->spread_at);
	kt->low = 0;
	const uint64_t *kh = kt->old->k_hash;
	for (uint32_t x = 0; x <= mask; x++)
		t[x] = UINT64_MAX;
	for (uint32_t o = 0; o < kt->no; o++) {
		uint32_t i = slot_of(kh[o], kt->bits);
		while (t[i] != UINT64_MAX)
			i = (i + 1) & mask;
		t[i] = (kh[o] >> 32) << 32 | o;
	}
	kt->table = t;
}

/* The first rank from lo on whose key in the hint's order is not below key. */
static uint32_t rank_of(const pl__rekey *kt, pl_bytes key, uint32_t lo)
{
	const uint32_t *order = kt->old->k_order;
	uint32_t hi = kt->no;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		pl_bytes b = kt->was[order[mid]].key;
		if (pl__bytes_cmp(b.ptr, b.len, key.ptr, key.len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint32_t pl__rekey_search(pl__rekey *kt, pl_bytes key)
{
	if (kt->searches == PL__REKEY_SEARCHES + 1)
		return PL_NONE;
	kt->searches++;
	if (kt->searches > PL__REKEY_SEARCHES)
		return PL_NONE;
	uint32_t x = rank_of(kt, key, 0);
	if (x == kt->no || !pl__same_bytes(kt->was[kt->old->k_order[x]].key, key))
		return PL_NONE;
	return kt->old->k_order[x];
}

void pl__rekey_note(pl__rekey *kt, uint32_t j, uint32_t o)
{
	if (o == PL_NONE) {
		if (kt->nu == kt->nu_max && kt->low && kt->nu_spread > kt->nu_max) {
			kt->low = 0; /* the list grows past keep */
			kt->nu_max = kt->nu_spread;
		}
		if (kt->nu == kt->nu_max)
			kt->failed = 1; /* no room for more new ones */
		else
			kt->fresh[kt->nu++] = j;
		return;
	}
	if (kt->map[o] != PL_NONE)
		kt->failed = 1; /* two new shards of one key: sorted as without a hint, which names them */
	kt->map[o] = j;
	kt->prev = o;
	kt->matched++;
}

/* The hint's shard with key (checked; h its hash) in the table, or PL_NONE. */
static uint32_t rekey_find(const pl__rekey *kt, pl_bytes key, uint64_t h)
{
	uint32_t mask = ((uint32_t)1 << kt->bits) - 1;
	for (uint32_t i = slot_of(h, kt->bits); kt->table[i] != UINT64_MAX; i = (i + 1) & mask) {
		uint64_t e = kt->table[i];
		if (e >> 32 == h >> 32 && pl__same_bytes(key, kt->was[(uint32_t)e].key))
			return (uint32_t)e;
	}
	return PL_NONE;
}

void pl__rekey_lookup(pl__rekey *kt, const pl_snapshot *s, const uint64_t *kh, const uint32_t *look, uint32_t nl,
		      uint32_t *tallies)
{
	/* The table, its slots and the hint's shards fetched ahead (the walk
	 * is random in both). */
	if (nl == 0)
		return;
	rekey_table(kt);
	for (uint32_t x = 0; x < nl && !kt->failed; x++) {
#if defined(__GNUC__)
		if (x + 16 < nl)
			__builtin_prefetch(&kt->table[slot_of(kh[look[x + 16]], kt->bits)]);
		if (x + 8 < nl) {
			uint64_t e = kt->table[slot_of(kh[look[x + 8]], kt->bits)];
			if (e != UINT64_MAX)
				__builtin_prefetch(&kt->was[(uint32_t)e]);
		}
#endif
		uint32_t j = look[x];
		const pl_shard *k = &s->shards[j];
		uint32_t o = rekey_find(kt, k->key, kh[j]);
		pl__rekey_note(kt, j, o);
		*tallies = *tallies && o != PL_NONE && k->stream == kt->was[o].stream && pl__same_tallies(k, &kt->was[o]);
	}
}

/* A new shard's entry for the sort of the new ones. */
typedef struct rekey_ent {
	pl_bytes key;
	uint32_t index, pad;
} rekey_ent;

int pl__rekey_order(pl__rekey *kt, const pl_snapshot *s, const uint32_t *tags, uint32_t *k_order, uint32_t *k_stream)
{
	if (kt->failed || kt->matched + kt->nu != s->n_shards)
		return 1;
	uint32_t nu = kt->nu, *sorted = NULL, *pos = NULL;
	if (nu > 0) {
		/* The new ones alone: entries, their order, their indices in it,
		 * the sort's scratch, in the table's room (68 bytes each). */
		/* low and no table: below keep; else where the table is or
		 * would be (low: from keep on, losing what is kept) */
		char *at = kt->low ? kt->low_at : kt->table ? (char *)kt->table : kt->spread_at;
		size_t at_room = kt->low		     ? kt->low_room
				 : at == kt->spread_at ? kt->spread_room
						       : kt->keep_room;
		rekey_ent *e = (rekey_ent *)(void *)at;
		pos = (uint32_t *)(void *)(e + nu);
		sorted = pos + nu;
		void *scratch = at + ALIGN8((size_t)((char *)(sorted + nu) - at));
		if ((size_t)((char *)scratch - at) + PL__SORT_SCRATCH(nu) > at_room)
			return 1;
		for (uint32_t u = 0; u < nu; u++) {
			e[u].key = s->shards[kt->fresh[u]].key;
			e[u].index = kt->fresh[u];
			e[u].pad = 0;
		}
		pl__byteseq q = {(const char *)e, sizeof *e, offsetof(rekey_ent, key), offsetof(rekey_ent, index)};
		uint32_t other;
		if (pl__sort_bytes(&q, nu, pos, sorted, scratch, &other) != PL_NONE)
			return 1;
		/* Each one's place in the hint's key order: the first of the
		 * hint's keys after it (the new ones ascending, so from the last
		 * place on). */
		for (uint32_t u = 0, lo = 0; u < nu; u++)
			lo = pos[u] = rank_of(kt, s->shards[sorted[u]].key, lo);
	}
	/* The merge: the hint's order without the ones gone, the new ones at
	 * their places. */
	uint32_t rank = 0, u = 0;
	for (uint32_t x = 0; x <= kt->no; x++) {
		for (; u < nu && pos[u] == x; u++) {
			k_order[rank] = sorted[u];
			if (k_stream)
				k_stream[rank] = s->shards[sorted[u]].stream;
			rank++;
		}
		if (x == kt->no)
			break;
#if defined(__GNUC__)
		if (x + 32 < kt->no)
			__builtin_prefetch(&kt->map[kt->old->k_order[x + 32]]);
		if (!tags && x + 16 < kt->no && kt->map[kt->old->k_order[x + 16]] != PL_NONE)
			__builtin_prefetch(&s->shards[kt->map[kt->old->k_order[x + 16]]]);
#endif
		uint32_t j = kt->map[kt->old->k_order[x]];
		if (j == PL_NONE)
			continue;
		k_order[rank] = j;
		if (k_stream)
			k_stream[rank] = tags ? tags[j] : s->shards[j].stream;
		rank++;
	}
	PL_ASSERT(rank == s->n_shards);
	return 0;
}
