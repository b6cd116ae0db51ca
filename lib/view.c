/*
 * view.c - building a view in caller memory (view_read.c reads it).
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

static void init_members(pl_view *v)
{
	const pl_member *m = v->snap.members;
	uint32_t first_w = 0;
	v->n_live = v->n_elig = 0;
	v->weight_elig = 0;
	v->weighted = 0;
	for (uint32_t r = 0; r < v->nm; r++) {
		uint32_t i = v->m_order[r];
		v->m_rank[i] = r;
		v->m_weight[i] = m[i].weight ? m[i].weight : 1;
		v->m_hash[i] = pl_hash(m[i].id.ptr, (size_t)m[i].id.len);
		v->m_leaders[i] = v->m_replicas[i] = v->m_owned[i] = v->m_lagged[i] = 0;
		if (pl__live(v, i))
			v->n_live++;
		if (pl__eligible(v, i)) {
			if (v->n_elig == 0)
				first_w = v->m_weight[i];
			else if (v->m_weight[i] != first_w)
				v->weighted = 1;
			v->elig[v->n_elig] = i;
			v->elig_hash[v->n_elig] = v->m_hash[i] ^ PL__MIX_M;
			v->n_elig++;
			v->weight_elig += v->m_weight[i];
		}
	}
}

/* Zone ids: equal non-empty zone bytes share an id; an empty zone is its own.
 * `sorted` is room for nm indices. */
static void init_zones(pl_view *v, uint32_t *sorted, void *scratch)
{
	pl__byteseq q = {(const char *)v->snap.members, sizeof(pl_member), offsetof(pl_member, zone), PL__NO_TAG};
	pl__sort_bytes(&q, v->nm, sorted, NULL, scratch, NULL);
	uint32_t id = 0;
	for (uint32_t j = 0; j < v->nm; j++) {
		pl_bytes b = pl__seq_at(&q, sorted[j]);
		if (j > 0) {
			pl_bytes p = pl__seq_at(&q, sorted[j - 1]);
			if (b.len == 0 || pl__bytes_cmp(p.ptr, p.len, b.ptr, b.len) != 0)
				id++;
		}
		v->m_zone[sorted[j]] = id;
	}
}

/* The shards of each stream, in key order: a stable counting sort of the key
 * order by stream. k_stream[r] is the stream of the shard at rank r, written
 * by validation, so every read here is sequential. */
static void init_by_stream(pl_view *v, const uint32_t *k_stream)
{
	for (uint32_t s = 0; s < v->ns; s++)
		v->s_shards[s] = 0;
	for (uint32_t r = 0; r < v->nk; r++)
		if (k_stream[r] != PL_NONE)
			v->s_shards[k_stream[r]]++;
	uint32_t sum = 0;
	for (uint32_t s = 0; s < v->ns; s++) {
		v->s_first[s] = sum;
		sum += v->s_shards[s];
	}
	v->s_first[v->ns] = sum;
	uint32_t *next = v->s_cell_count; /* borrowed as cursors, reset by init_cells */
	for (uint32_t s = 0; s < v->ns; s++)
		next[s] = v->s_first[s];
	for (uint32_t r = 0; r < v->nk; r++)
		if (k_stream[r] != PL_NONE)
			v->by_stream[next[k_stream[r]]++] = v->k_order[r];
}

/* Sort n member indices (a heap sort: no allocation, no recursion). */
static void sift(uint32_t *c, uint32_t i, uint32_t n)
{
	for (;;) {
		uint32_t l = 2 * i + 1, big = i;
		if (l < n && c[l] > c[big])
			big = l;
		if (l + 1 < n && c[l + 1] > c[big])
			big = l + 1;
		if (big == i)
			return;
		uint32_t t = c[i];
		c[i] = c[big];
		c[big] = t;
		i = big;
	}
}

static void sort_members(uint32_t *c, uint32_t n)
{
	for (uint32_t i = n / 2; i-- > 0;)
		sift(c, i, n);
	for (uint32_t e = n; e-- > 1;) {
		uint32_t t = c[0];
		c[0] = c[e];
		c[e] = t;
		sift(c, 0, e);
	}
}

/* Leader cells, from the shard states (in-flight moves and copies already
 * counted), stream by stream: k_lead holds the leaders of stream s's shards
 * at s_first[s] onwards (init_shards()), read in order. Each leader met is
 * counted in m_scratch (zeroed as it is read back) and marked in a bitmap;
 * the first time, it is also listed over the leaders read (k_lead is not
 * read again). The leaders met are then put in member order: a read of the
 * bitmap's words when that is cheaper than sorting them (many met), else a
 * heap sort of the list, so O(min(d log d, members / 64 + d)) per stream.
 * The bitmap borrows m_owned (counted later). */
static void init_cells(pl_view *v, uint32_t *k_lead)
{
	int64_t *acc = v->m_scratch;
	uint64_t *bits = (uint64_t *)(void *)v->m_owned;
	uint32_t words = (v->nm + 63) / 64;
	for (uint32_t m = 0; m < v->nm; m++)
		acc[m] = 0;
	for (uint32_t w = 0; w < words; w++)
		bits[w] = 0;
	uint32_t lsum = 0;
	for (uint32_t s = 0; s < v->ns; s++) {
		uint32_t lroom = v->s_shards[s] < v->nm ? v->s_shards[s] : v->nm;
		pl__cell *lc = v->cells + lsum;
		uint32_t d = 0, *met = k_lead + v->s_first[s];
		v->s_cell_first[s] = lsum;
		for (uint32_t j = v->s_first[s]; j < v->s_first[s + 1]; j++) {
			uint32_t l = k_lead[j];
			if (l != PL_NONE && acc[l]++ == 0) {
				met[d++] = l; /* behind the read */
				bits[l >> 6] |= UINT64_C(1) << (l & 63);
			}
		}
		if ((uint64_t)words <= 4 * (uint64_t)d) {
			/* Many met: read the bitmap in member order. */
			uint32_t nl = 0;
			for (uint32_t w = 0; nl < d; w++) {
				uint64_t x = bits[w];
				bits[w] = 0;
				while (x) {
#if defined(__GNUC__)
					uint32_t m = 64 * w + (uint32_t)__builtin_ctzll(x);
#else
					uint32_t b = 0;
					while (!((x >> b) & 1))
						b++;
					uint32_t m = 64 * w + b;
#endif
					x &= x - 1;
					pl__cell_set(lc, nl++, m, (uint32_t)acc[m]);
					acc[m] = 0;
				}
			}
		} else {
			sort_members(met, d);
			for (uint32_t i = 0; i < d; i++) {
				uint32_t m = met[i];
				pl__cell_set(lc, i, m, (uint32_t)acc[m]);
				acc[m] = 0;
				bits[m >> 6] = 0;
			}
		}
		v->s_cell_count[s] = d;
		lsum += lroom;
	}
	v->s_cell_first[v->ns] = lsum;
}

/* Copies in flight, counted finished: `to` holds a replica, `from` (when
 * set) no longer does, and leads no more when it led. The shard is moving.
 * Validation checked each against the state it finds here. The cells are
 * counted afterwards, from the states. */
static void apply_copies(pl_view *v)
{
	const pl_snapshot *s = &v->snap;
	for (uint32_t c = 0; c < s->n_copies; c++) {
		const pl_copy *cp = &s->copies[c];
		pl__shard_state *st = pl__st(v, cp->shard);
		if (cp->from == PL_NONE) {
			pl__set_rep(st, st->nrep, cp->to);
			st->nrep++;
		} else {
			/* The leader's place, when it led: `to` leads. */
			for (uint32_t j = 0; j < st->nrep; j++)
				if (pl__rep(st, j) == cp->from)
					pl__set_rep(st, j, cp->to);
		}
		if (!st->moving) {
			st->moving = 1;
			v->n_moving++;
		}
	}
}

/* One shard's replicas rep[0..n) and leader l (or PL_NONE) in the tallies
 * (and its stream's row of replica counts, when the view keeps them); its
 * leader to its stream's next place in k_lead unless k_lead is NULL or
 * stream PL_NONE. */
static inline void count_shard(pl_view *v, const uint32_t *rep, uint32_t n, uint32_t l, uint32_t stream,
			       uint32_t *next, uint32_t *k_lead)
{
	if (l != PL_NONE)
		v->m_leaders[l]++;
	if (stream != PL_NONE && k_lead)
		k_lead[next[stream]++] = l;
	uint32_t j = 0;
	if (n >= 3) { /* the usual count, without a loop */
		v->m_replicas[rep[0]]++;
		v->m_replicas[rep[1]]++;
		v->m_replicas[rep[2]]++;
		j = 3;
	}
	for (; j < n; j++)
		v->m_replicas[rep[j]]++;
	if (v->rc_rows && stream != PL_NONE) {
		uint32_t *row = v->rc_mat + (size_t)stream * v->nm;
		for (j = 0; j < n; j++)
			row[rep[j]]++;
	}
}

/* count_shard() of a shard's state. */
static inline void count_state(pl_view *v, const pl__shard_state *st, uint32_t stream, uint32_t *next,
			       uint32_t *k_lead)
{
	uint32_t rep[PL_MAX_REPLICAS], n = pl__reps(st, rep);
	count_shard(v, rep, n, st->lead < n ? rep[st->lead] : PL_NONE, stream, next, k_lead);
}

/* Shard hashes, states and totals, in index order (sequential reads); the
 * ranks from the key order (validation hashed the keys). What the hint r
 * offers is taken: the ranks and hashes when the orders and keys held, the states when validation wrote
 * them, the totals when the tallies held; when they did not, k_lead (room
 * for nk) gets the leaders of each stream's shards from s_first on, for
 * init_cells(): in index order within a stream when the states are fresh
 * and no copy is in flight, else in key order (a walk by stream). */
static void init_shards(pl_view *v, const pl__reuse *r, uint32_t *k_lead)
{
	const pl_snapshot *s = &v->snap;
	const pl_view *old = r->old;
	if (r->streams)
		memcpy(v->s_rank, old->s_rank, (size_t)v->ns * sizeof *v->s_rank);
	else
		for (uint32_t x = 0; x < v->ns; x++)
			v->s_rank[v->s_order[x]] = x;
	if (r->shards)
		memcpy(v->k_rank, old->k_rank, (size_t)v->nk * sizeof *v->k_rank);
	else
		for (uint32_t x = 0; x < v->nk; x++)
			v->k_rank[v->k_order[x]] = x;
	if (v->rc_rows && !r->tallies)
		memset(v->rc_mat, 0, (size_t)v->ns * v->nm * sizeof *v->rc_mat);
	/* Nothing has moved in this view's plans yet (a hint's bits are its own). */
	memset(v->k_moved, 0, PL__MOVED_WORDS(v->nk) * sizeof *v->k_moved);
	/* Validation hashed every key unless the hint's hashes hold. */
	if (r->hashes)
		memcpy(v->k_hash, old->k_hash, (size_t)v->nk * sizeof *v->k_hash);
	/* A fresh build without copies in flight counts each state as it
	 * writes it (still in cache): the tallies, and its leader in its
	 * stream's place in k_lead, so no pass reads the states again. */
	int fused = (!r->states || r->tags) && !r->tallies && s->n_copies == 0;
	uint32_t *next = v->s_cell_count; /* cursors, reset by init_cells() */
	if (fused)
		for (uint32_t x = 0; x < v->ns; x++)
			next[x] = v->s_first[x];
	if (r->states) {
		v->n_moving = r->moving;
		/* Written by validation with the streams by index beside them:
		 * counted in one pass over both, the snapshot not read. */
		for (uint32_t i = 0; i < v->nk && fused; i++)
			count_state(v, pl__st(v, i), r->tags[i], next, k_lead);
	} else {
		v->n_moving = 0;
		for (uint32_t i = 0; i < v->nk; i++) {
			const pl_shard *k = &s->shards[i];
			pl__shard_state *st = pl__st(v, i);
			pl__state_from_shard(st, k, v->room);
			v->n_moving += k->moving_to != PL_NONE;
			if (fused && k->moving_to == PL_NONE) /* the snapshot's replicas and leader */
				count_shard(v, k->replicas, k->replica_count, k->leader, k->stream, next, k_lead);
			else if (fused)
				count_state(v, st, k->stream, next, k_lead);
		}
	}
	apply_copies(v);
	if (r->tallies) {
		memcpy(v->m_leaders, old->m_leaders, (size_t)v->nm * sizeof *v->m_leaders);
		memcpy(v->m_replicas, old->m_replicas, (size_t)v->nm * sizeof *v->m_replicas);
		if (v->rc_rows) /* the same members and streams: the same rows */
			memcpy(v->rc_mat, old->rc_mat, (size_t)v->ns * v->nm * sizeof *v->rc_mat);
	} else if (!fused) {
		for (uint32_t i = 0; i < v->nk; i++)
			count_state(v, pl__st(v, i), s->shards[i].stream, next, NULL);
		for (uint32_t j = 0; j < v->s_first[v->ns]; j++) {
#if defined(__GNUC__)
			if (j + 16 < v->nk)
				__builtin_prefetch(pl__st(v, v->by_stream[j + 16])); /* the walk is random in index order */
#endif
			k_lead[j] = pl__leader(pl__st(v, v->by_stream[j]));
		}
	}
	v->n_overrides = s->n_overrides;
	v->n_lag = 0;
	for (uint32_t o = 0; o < s->n_overrides; o++) {
		pl__shard_state *st = pl__st(v, s->overrides[o].shard);
		v->n_lag += s->overrides[o].origin == PL_ORIGIN_LAG;
		pl__set_ov(st, s->overrides[o].member);
		st->ov_origin = (uint8_t)s->overrides[o].origin;
		pl__set_since(st, s->overrides[o].since);
	}
}

/* The cells of a hint whose tallies hold (r->tallies): the same rooms (the
 * same shards per stream and members), so the offsets are the same; only
 * the live cells are copied. */
static void copy_cells(pl_view *v, const pl_view *old)
{
	size_t n1 = ((size_t)v->ns + 1) * sizeof(uint32_t), n = (size_t)v->ns * sizeof(uint32_t);
	memcpy(v->s_cell_first, old->s_cell_first, n1);
	memcpy(v->s_cell_count, old->s_cell_count, n);
	for (uint32_t s = 0; s < v->ns; s++) {
		memcpy(v->cells + v->s_cell_first[s], old->cells + old->s_cell_first[s],
		       (size_t)old->s_cell_count[s] * sizeof *v->cells);
	}
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
		init_zones(v, v->m_leaders, zscratch); /* m_leaders is zeroed by init_members */
	init_members(v);
	if (r.shards) {
		memcpy(v->s_shards, old->s_shards, (size_t)ns * sizeof *v->s_shards);
		memcpy(v->s_first, old->s_first, ((size_t)ns + 1) * sizeof *v->s_first);
		memcpy(v->by_stream, old->by_stream, (size_t)nk * sizeof *v->by_stream);
	} else {
		init_by_stream(v, v->k_home);
	}
	init_shards(v, &r, v->k_home); /* k_home is free until the homes */
	if (r.tallies) {
		copy_cells(v, old);
	} else {
		init_cells(v, v->k_home); /* after every replica the view counts is in the states */
		for (uint32_t i = 0; i < nm; i++)
			v->m_owned[i] = 0; /* init_cells() borrowed it */
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
