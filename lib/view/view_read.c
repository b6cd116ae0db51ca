/*
 * view_read.c - reading a built view: its snapshot and counts, finding an id
 * and walking the canonical orders, tallies per member and per stream, a
 * shard's state, ring homes and top-k. Every call only reads the view and
 * checks its arguments before it writes to an output.
 */
#include "view/view_int.h"

const pl_snapshot *pl_view_snapshot(const pl_view *v)
{
	return pl__view_ok(v) ? &v->snap : NULL;
}

int pl_view_stats(const pl_view *v, pl_view_counts *st)
{
	if (!pl__view_ok(v) || st == NULL)
		return PL_E_INVAL;
	if (pl__overlaps_view(v, st, sizeof *st))
		return PL_E_OVERLAP;
	memset(st, 0, sizeof *st);
	st->members = v->nm;
	st->live = v->n_live;
	st->eligible = v->n_elig;
	st->streams = v->ns;
	st->shards = v->nk;
	st->overrides = v->n_overrides;
	st->moving = v->n_moving;
	st->copies = v->snap.n_copies;
	for (uint32_t k = 0; k < v->nk; k++) {
		uint32_t l = pl__leader(pl__st(v, k));
		if (l == PL_NONE || !pl__live(v, l))
			st->leaderless++;
	}
	st->scorer = v->scorer;
	st->share = v->n_elig ? (v->nk + v->n_elig - 1) / v->n_elig : 0;
	st->weight = v->weight_elig;
	return 0;
}

static int kind_seq(const pl_view *v, uint32_t kind, pl__byteseq *q, const uint32_t **order, uint32_t *n)
{
	switch (kind) {
	case PL_ELEM_MEMBER:
		*q = (pl__byteseq){(const char *)v->snap.members, sizeof(pl_member), offsetof(pl_member, id), PL__NO_TAG};
		*order = v->m_order;
		*n = v->nm;
		return 0;
	case PL_ELEM_STREAM:
		*q = (pl__byteseq){(const char *)v->snap.streams, sizeof(pl_stream), offsetof(pl_stream, id), PL__NO_TAG};
		*order = v->s_order;
		*n = v->ns;
		return 0;
	case PL_ELEM_SHARD:
		*q = (pl__byteseq){(const char *)v->snap.shards, sizeof(pl_shard), offsetof(pl_shard, key), PL__NO_TAG};
		*order = v->k_order;
		*n = v->nk;
		return 0;
	default:
		return PL_E_INVAL;
	}
}

int pl_view_find(const pl_view *v, uint32_t kind, const char *id, size_t len)
{
	pl__byteseq q;
	const uint32_t *order;
	uint32_t n;
	if (!pl__view_ok(v) || (id == NULL && len != 0) || kind_seq(v, kind, &q, &order, &n))
		return PL_E_INVAL;
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		pl_bytes b = pl__seq_at(&q, order[mid]);
		int c = pl__bytes_cmp(b.ptr, b.len, id, len);
		if (c == 0)
			return (int)order[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return PL_E_NOT_FOUND;
}

int pl_view_at(const pl_view *v, uint32_t kind, uint32_t rank)
{
	pl__byteseq q;
	const uint32_t *order;
	uint32_t n;
	if (!pl__view_ok(v) || kind_seq(v, kind, &q, &order, &n))
		return PL_E_INVAL;
	if (rank >= n)
		return kind == PL_ELEM_MEMBER ? PL_E_MEMBER_RANGE
		       : kind == PL_ELEM_STREAM ? PL_E_STREAM_RANGE
						: PL_E_SHARD_RANGE;
	return (int)order[rank];
}

int pl_view_member_tally(const pl_view *v, uint32_t member, pl_tally *t)
{
	if (!pl__view_ok(v) || t == NULL)
		return PL_E_INVAL;
	if (pl__overlaps_view(v, t, sizeof *t))
		return PL_E_OVERLAP;
	if (member >= v->nm)
		return PL_E_MEMBER_RANGE;
	t->leaders = v->m_leaders[member];
	t->replicas = v->m_replicas[member];
	t->shards = v->nk;
	pl__bounds(v, v->nk, member, &t->floor, &t->ceiling);
	return 0;
}

int pl_view_stream_tally(const pl_view *v, uint32_t stream, uint32_t member, pl_tally *t)
{
	if (!pl__view_ok(v) || t == NULL)
		return PL_E_INVAL;
	if (pl__overlaps_view(v, t, sizeof *t))
		return PL_E_OVERLAP;
	if (stream >= v->ns)
		return PL_E_STREAM_RANGE;
	if (member >= v->nm)
		return PL_E_MEMBER_RANGE;
	t->leaders = pl__cell_get(v, stream, member);
	t->replicas = pl__rcell_get(v, stream, member);
	t->shards = v->s_shards[stream];
	pl__bounds(v, t->shards, member, &t->floor, &t->ceiling);
	return 0;
}

int pl_view_shard_state(const pl_view *v, uint32_t shard, pl_shard_state *out)
{
	if (!pl__view_ok(v) || out == NULL)
		return PL_E_INVAL;
	if (pl__overlaps_view(v, out, sizeof *out))
		return PL_E_OVERLAP;
	if (shard >= v->nk)
		return PL_E_SHARD_RANGE;
	const pl__shard_state *st = pl__st(v, shard);
	memset(out, 0, sizeof *out);
	out->leader = pl__leader(st);
	out->replica_count = st->nrep;
	for (uint32_t r = 0; r < PL_MAX_REPLICAS; r++)
		out->replicas[r] = r < st->nrep ? pl__rep(st, r) : PL_NONE;
	out->moving = st->moving;
	out->override_member = pl__ov(st);
	out->override_origin = pl__ov(st) == PL_NONE ? 0 : st->ov_origin;
	out->override_since = pl__ov(st) == PL_NONE ? 0 : pl__since(st);
	out->epoch = pl__epoch(v, shard);
	return 0;
}

int pl_view_home(const pl_view *v, uint32_t shard)
{
	if (!pl__view_ok(v))
		return PL_E_INVAL;
	if (shard >= v->nk)
		return PL_E_SHARD_RANGE;
	uint32_t h = v->homes_ready ? v->k_home[shard] : pl__view_top1(v, v->k_hash[shard]);
	return h == PL_NONE ? PL_E_NO_ELIGIBLE : (int)h;
}

int pl_view_top(const pl_view *v, const char *key, size_t len, uint32_t *out, uint32_t k)
{
	if (!pl__view_ok(v) || out == NULL || (key == NULL && len != 0) || k > PL_MAX_REPLICAS)
		return PL_E_INVAL;
	if (len > PL_MAX_ID_LEN)
		return PL_E_LENGTH;
	const pl__arg a[2] = {PL__IN(key, len, 2), PL__OUT(out, (size_t)k * sizeof *out, 4)};
	if (pl__check_args(v, NULL, a, 2, NULL)) /* the key's bytes too, as pl_route_lookup() */
		return PL_E_OVERLAP;
	uint32_t pick[PL_MAX_REPLICAS];
	uint32_t n = pl__view_topk(v, pl__key_hash(v, key, len), pick, k);
	memcpy(out, pick, n * sizeof *out);
	return (int)n;
}
