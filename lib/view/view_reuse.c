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
	r->tallies = !old->moved && o->n_copies == 0 && s->n_copies == 0 && s->n_members == o->n_members;
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
		int c = pl__bytes_cmp(a.ptr, a.len, b.ptr, b.len);
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
