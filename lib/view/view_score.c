/*
 * view_score.c - rendezvous scoring inside a view: the key hash under the
 * view's scorer, one member's draw for a key, the best of some candidates,
 * the top-1 over the eligible members (the vector paths of score_simd.c)
 * and the top k with zones spread first.
 *
 * How it works. The pair scores are core/hash.c's (pl__mix() of the two
 * XXH3 hashes, or the legacy FNV-1a over "<shard> <member>"); weighted
 * members draw by straw2 (pl_score_weighted()). A draw is compared by
 * pl__draw_gt(): the higher draw, then the higher raw score, then the lower
 * canonical rank, so every tie breaks the same way whatever the array order.
 */
#include "view/view_int.h"

uint64_t pl__key_hash(const pl_view *v, const char *key, uint64_t len)
{
	return pl__scorer_key_hash(v->scorer, key, len);
}

static uint64_t raw_score(const pl_view *v, uint64_t kh, uint32_t m)
{
	if (v->scorer == PL_SCORER_LEGACY_FNV1A) {
		pl_bytes id = v->snap.members[m].id;
		return pl__fnv(kh, id.ptr, id.len);
	}
	return pl__mix(kh, v->m_hash[m]);
}

pl__draw pl__view_draw(const pl_view *v, uint64_t kh, uint32_t m)
{
	pl__draw d;
	d.score = raw_score(v, kh, m);
	d.draw = v->weighted ? pl_score_weighted(d.score, v->m_weight[m]) : 0;
	d.rank = v->m_rank[m];
	return d;
}

uint32_t pl__view_best(const pl_view *v, uint64_t kh, const uint32_t *cand, uint32_t n)
{
	if (n == 0)
		return PL_NONE;
	uint32_t best = cand[0];
	pl__draw bd = pl__view_draw(v, kh, best);
	for (uint32_t i = 1; i < n; i++) {
		pl__draw d = pl__view_draw(v, kh, cand[i]);
		if (pl__draw_gt(d, bd)) {
			bd = d;
			best = cand[i];
		}
	}
	return best;
}

uint32_t pl__view_spread_next(const pl_view *v, uint64_t kh, const uint32_t *pick, uint32_t n, uint32_t room_for)
{
	uint32_t best_new = PL_NONE, best_any = PL_NONE;
	pl__draw dn = {0, 0, 0}, da = {0, 0, 0};
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e], taken = 0, zone_used = 0;
		for (uint32_t j = 0; j < n; j++) {
			taken |= pick[j] == m;
			zone_used |= v->m_zone[pick[j]] == v->m_zone[m];
		}
		if (taken || (room_for != PL_NONE && !pl__room(v, m, room_for)))
			continue;
		pl__draw d = pl__view_draw(v, kh, m);
		if (best_any == PL_NONE || pl__draw_gt(d, da)) {
			best_any = m;
			da = d;
		}
		if (!zone_used && (best_new == PL_NONE || pl__draw_gt(d, dn))) {
			best_new = m;
			dn = d;
		}
	}
	return best_new != PL_NONE ? best_new : best_any;
}

uint32_t pl__view_top1(const pl_view *v, uint64_t kh)
{
	uint32_t n = v->n_elig;
	if (n == 0)
		return PL_NONE;
	/* The hot loop (score_simd.c): members are in id order, ties keep the
	 * smaller id. */
	if (v->scorer == PL_SCORER_XXH3 && !v->weighted)
		return v->elig[pl__top1_hashes(v->elig_hash, n, kh ^ PL__MIX_K, v->simd)];
	return pl__view_best(v, kh, v->elig, n);
}

/*
 * One-pass top-k with zones spread first. The rule (pl_view_top) picks the
 * best member, then repeatedly the best member of a zone not yet used, then,
 * once every zone is used, the best remaining members. Its first picks are
 * therefore the best member of each zone, zones ordered by that best; the
 * rest are the best members overall that are not the best of their zone.
 * One pass keeps two short lists sorted by draw: `zb`, the best member of up
 * to k zones (a zone's entry is replaced by a better member of it; a new zone
 * enters by evicting the worst entry when full), and `all`, the k best
 * members. The zone list is exact: an evicted zone's later members enter only
 * by beating the list's worst, which never falls, so by beating the evicted
 * best. The answer is zb, then the members of `all` not in zb, up to k.
 */
typedef struct topk_list {
	pl__draw d[PL_MAX_REPLICAS];
	uint32_t m[PL_MAX_REPLICAS];
	uint32_t n;
} topk_list;

/* Put (d, m) at place j of a list holding n entries, shifting the worse
 * ones down and dropping the last when it would pass cap. */
static void topk_insert(topk_list *l, uint32_t cap, pl__draw d, uint32_t m)
{
	uint32_t j = l->n < cap ? l->n++ : cap - 1;
	while (j > 0 && pl__draw_gt(d, l->d[j - 1])) {
		l->d[j] = l->d[j - 1];
		l->m[j] = l->m[j - 1];
		j--;
	}
	l->d[j] = d;
	l->m[j] = m;
}

static void topk_offer(const pl_view *v, topk_list *all, topk_list *zb, uint32_t k, pl__draw d, uint32_t m)
{
	if (all->n < k || pl__draw_gt(d, all->d[all->n - 1]))
		topk_insert(all, k, d, m);
	uint32_t z = v->m_zone[m], j = 0;
	while (j < zb->n && v->m_zone[zb->m[j]] != z)
		j++;
	if (j < zb->n) {
		if (!pl__draw_gt(d, zb->d[j]))
			return;
		/* a better member of a listed zone: it moves up from place j */
		while (j > 0 && pl__draw_gt(d, zb->d[j - 1])) {
			zb->d[j] = zb->d[j - 1];
			zb->m[j] = zb->m[j - 1];
			j--;
		}
		zb->d[j] = d;
		zb->m[j] = m;
	} else if (zb->n < k || pl__draw_gt(d, zb->d[zb->n - 1])) {
		topk_insert(zb, k, d, m);
	}
}

uint32_t pl__view_topk(const pl_view *v, uint64_t kh, uint32_t *out, uint32_t k)
{
	uint32_t n = v->n_elig;
	if (k > n)
		k = n;
	if (k == 0)
		return 0;
	if (k == 1) {
		out[0] = pl__view_top1(v, kh);
		return 1;
	}
	topk_list all = {.n = 0}, zb = {.n = 0};
	if (v->scorer == PL_SCORER_XXH3 && !v->weighted) {
		/* Scores a block at a time on the vector path; the lists see
		 * only the few that beat their worst. */
		uint64_t sc[256], a = kh ^ PL__MIX_K, thr = 0;
		for (uint32_t e0 = 0; e0 < n; e0 += 256) {
			uint32_t len = n - e0 < 256 ? n - e0 : 256;
			pl__scores_hashes(v->elig_hash + e0, len, a, v->simd, sc);
			/* Unweighted draws are 0, so draws order by score, then
			 * rank: a score below both lists' worst cannot enter. */
			for (uint32_t i = 0; i < len; i++) {
				if (sc[i] < thr)
					continue;
				uint32_t m = v->elig[e0 + i];
				pl__draw d = {0, sc[i], v->m_rank[m]};
				topk_offer(v, &all, &zb, k, d, m);
				if (all.n == k && zb.n == k)
					thr = all.d[k - 1].score < zb.d[k - 1].score ? all.d[k - 1].score : zb.d[k - 1].score;
			}
		}
	} else {
		for (uint32_t e = 0; e < n; e++) {
			uint32_t m = v->elig[e];
			topk_offer(v, &all, &zb, k, pl__view_draw(v, kh, m), m);
		}
	}
	uint32_t c = 0;
	for (uint32_t j = 0; j < zb.n; j++)
		out[c++] = zb.m[j];
	for (uint32_t j = 0; j < all.n && c < k; j++) {
		uint32_t m = all.m[j], dup = 0;
		for (uint32_t i = 0; i < zb.n; i++)
			dup |= zb.m[i] == m;
		if (!dup)
			out[c++] = m;
	}
	return c;
}
