/*
 * view_build.c - the parts of a view pl_view_init() (view.c) fills after
 * validation: members and zones, the shards of each stream, the shard
 * states and their tallies, the per-stream leader cells. view.c says in
 * which order and from what.
 */
#include "view/view_build.h"

void pl__view_init_members(pl_view *v)
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
void pl__view_init_zones(pl_view *v, uint32_t *sorted, void *scratch)
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
	pl__view_zone_levels(v);
}

void pl__view_zone_levels(pl_view *v)
{
	v->zone_levels = 1;
	for (uint32_t m = 0; m < v->nm && v->zone_levels < PL__ZONE_LEVELS; m++) {
		pl_bytes z = v->snap.members[m].zone;
		uint32_t lv = 1;
		for (uint64_t i = 0; i < z.len && lv < PL__ZONE_LEVELS; i++)
			lv += z.ptr[i] == '/';
		v->zone_levels = lv > v->zone_levels ? lv : v->zone_levels;
	}
}

/* The shards of each stream, in key order: a stable counting sort of the key
 * order by stream. k_stream[r] is the stream of the shard at rank r, written
 * by validation, so every read here is sequential. */
void pl__view_init_by_stream(pl_view *v, const uint32_t *k_stream)
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
	uint32_t *next = v->s_cell_count; /* borrowed as cursors, reset by pl__view_init_cells */
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

/* Stream s's room of leader cells: a cell per member that may lead some of
 * it, at most its shards and the members. */
static inline uint32_t cell_room(const pl_view *v, uint32_t s)
{
	return v->s_shards[s] < v->nm ? v->s_shards[s] : v->nm;
}

/* Leader cells, from the shard states (in-flight moves and copies already
 * counted), stream by stream: k_lead holds the leaders of stream s's shards
 * at s_first[s] onwards (pl__view_init_shards()), read in order. Each leader met is
 * counted in m_scratch (zeroed as it is read back) and marked in a bitmap;
 * the first time, it is also listed over the leaders read (k_lead is not
 * read again). The leaders met are then put in member order: a read of the
 * bitmap's words when that is cheaper than sorting them (many met), else a
 * heap sort of the list, so O(min(d log d, members / 64 + d)) per stream.
 * The bitmap borrows m_owned (counted later). */
void pl__view_init_cells(pl_view *v, uint32_t *k_lead)
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
		uint32_t lroom = cell_room(v, s);
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
			       uint32_t *next, uint32_t *k_lead, uint32_t d)
{
	if (l != PL_NONE)
		v->m_leaders[l] += d;
	if (stream != PL_NONE && k_lead)
		k_lead[next[stream]++] = l;
	uint32_t j = 0;
	if (n >= 3) { /* the usual count, without a loop */
		v->m_replicas[rep[0]] += d;
		v->m_replicas[rep[1]] += d;
		v->m_replicas[rep[2]] += d;
		j = 3;
	}
	for (; j < n; j++)
		v->m_replicas[rep[j]] += d;
	if (v->rc_rows && stream != PL_NONE) {
		uint32_t *row = v->rc_mat + (size_t)stream * v->nm;
		for (j = 0; j < n; j++)
			row[rep[j]] += d;
	}
}

/* count_shard() of a shard's state, d (1, or UINT32_MAX to take it off)
 * to each count. */
static inline void count_state(pl_view *v, const pl__shard_state *st, uint32_t stream, uint32_t *next,
			       uint32_t *k_lead, uint32_t d)
{
	uint32_t rep[PL_MAX_REPLICAS], n = pl__reps(st, rep);
	count_shard(v, rep, n, st->lead < n ? rep[st->lead] : PL_NONE, stream, next, k_lead, d);
}

/* Shard hashes, states and totals, in index order (sequential reads); the
 * ranks from the key order (validation hashed the keys). What the hint r
 * offers is taken: the ranks and hashes when the orders and keys held, the states when validation wrote
 * them, the totals when the tallies held; when they did not, k_lead (room
 * for nk) gets the leaders of each stream's shards from s_first on, for
 * pl__view_init_cells(): in index order within a stream when the states are fresh
 * and no copy is in flight, else in key order (a walk by stream). */
void pl__view_init_shards(pl_view *v, const pl__reuse *r, uint32_t *k_lead)
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
	memset(v->k_changed, 0, PL__CHANGED_WORDS(v->nk) * sizeof *v->k_changed);
	/* Validation hashed every key unless the hint's hashes hold. */
	if (r->hashes)
		memcpy(v->k_hash, old->k_hash, (size_t)v->nk * sizeof *v->k_hash);
	/* A fresh build without copies in flight counts each state as it
	 * writes it (still in cache), or, when validation wrote them, in one
	 * pass over them and the streams it left by index: the tallies, and
	 * its leader in its stream's place in k_lead, so no pass reads the
	 * states again and none reads the snapshot twice. */
	int fused = (!r->states || r->tags) && !r->tallies && s->n_copies == 0;
	uint32_t *next = v->s_cell_count; /* cursors, reset by pl__view_init_cells() */
	if (fused)
		for (uint32_t x = 0; x < v->ns; x++)
			next[x] = v->s_first[x];
	if (r->states) {
		v->n_moving = r->moving;
		if (fused) /* validation's states, with r->tags */
			for (uint32_t i = 0; i < v->nk; i++)
				count_state(v, pl__st(v, i), r->tags[i], next, k_lead, 1);
	} else {
		v->n_moving = 0;
		for (uint32_t i = 0; i < v->nk; i++) {
			const pl_shard *k = &s->shards[i];
			pl__shard_state *st = pl__st(v, i);
			pl__state_from_shard(st, k, v->room);
			v->n_moving += k->moving_to != PL_NONE;
			if (fused && k->moving_to == PL_NONE) /* the snapshot's replicas and leader */
				count_shard(v, k->replicas, k->replica_count, k->leader, k->stream, next, k_lead, 1);
			else if (fused)
				count_state(v, st, k->stream, next, k_lead, 1);
		}
	}
	apply_copies(v);
	if (r->tallies) {
		/* The members past old's (joined at the end) hold nothing:
		 * init_members zeroed them. */
		memcpy(v->m_leaders, old->m_leaders, (size_t)old->nm * sizeof *v->m_leaders);
		memcpy(v->m_replicas, old->m_replicas, (size_t)old->nm * sizeof *v->m_replicas);
		if (v->rc_rows && v->nm == old->nm) /* the same members and streams: the same rows */
			memcpy(v->rc_mat, old->rc_mat, (size_t)v->ns * v->nm * sizeof *v->rc_mat);
		else if (v->rc_rows) /* old's rows (pl__reuse_plan()), each longer */
			for (uint32_t x = 0; x < v->ns; x++) {
				uint32_t *row = v->rc_mat + (size_t)x * v->nm;
				memcpy(row, old->rc_mat + (size_t)x * old->nm, (size_t)old->nm * sizeof *row);
				memset(row + old->nm, 0, (size_t)(v->nm - old->nm) * sizeof *row);
			}
		for (uint32_t x = 0; x < r->n_delta; x++) { /* the shards that changed: out as they were, in as they are */
			uint32_t i = r->delta[x], stream = s->shards[i].stream;
			count_state(v, pl__st(old, i), stream, NULL, NULL, UINT32_MAX);
			count_state(v, pl__st(v, i), stream, NULL, NULL, 1);
		}
	} else if (!fused) {
		for (uint32_t i = 0; i < v->nk; i++)
			count_state(v, pl__st(v, i), s->shards[i].stream, next, NULL, 1);
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

/* The cells of a hint whose tallies hold (r->tallies): the same shards per
 * stream, so with the same members the same rooms and offsets; with
 * members joined, rooms as large or larger (cell_room()). Only the live
 * cells are copied. */
void pl__view_copy_cells(pl_view *v, const pl_view *old)
{
	size_t n1 = ((size_t)v->ns + 1) * sizeof(uint32_t), n = (size_t)v->ns * sizeof(uint32_t);
	if (v->nm == old->nm) {
		memcpy(v->s_cell_first, old->s_cell_first, n1);
	} else {
		uint32_t lsum = 0;
		for (uint32_t s = 0; s < v->ns; s++) {
			v->s_cell_first[s] = lsum;
			lsum += cell_room(v, s);
		}
		v->s_cell_first[v->ns] = lsum;
	}
	memcpy(v->s_cell_count, old->s_cell_count, n);
	for (uint32_t s = 0; s < v->ns; s++) {
		memcpy(v->cells + v->s_cell_first[s], old->cells + old->s_cell_first[s],
		       (size_t)old->s_cell_count[s] * sizeof *v->cells);
	}
}
