/*
 * hash.c - rendezvous scoring: XXH3 hashes mixed per pair, the legacy FNV-1a
 * scorer, and weighted (straw2) draws in integer fixed point.
 *
 * How it works. Under PL_SCORER_XXH3 each member id and each shard key is
 * hashed once (XXH3-64, seed 0); a pair's score is pl__mix() of the two
 * hashes: each is xored with a fixed constant, the two are multiplied into
 * 128 bits and the halves folded by xor, the mixing step of wyhash. Unlike a
 * mix of (key ^ member), the product does not make pairs with equal xor
 * score alike. The top-1 loop over a view's eligible members reads one
 * 8-byte (pre-xored) hash per member and does one multiply, so it runs near
 * the speed of a plain sum over the same array.
 *
 * Weighted members: straw2 draws log2(u) / w for u = the score as a fraction
 * in (0, 1]. With exact logarithms, member i wins with probability
 * w_i / sum(w); the winner among the others never changes when one weight
 * changes, because their draws do not. log2 here is fixed point: the integer
 * part is the position of the top bit, the fraction a 257-entry table of
 * log2(1 + i/256) * 2^32 with linear interpolation over the next 32 bits. The
 * result is monotone in u, so equal weights order pairs exactly as their raw
 * scores do; the table is integers, so every platform draws the same.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "internal.h"

/* XXH3-64 of len bytes at data (none when NULL): inline in the key hash,
 * which a call to the exported pl_hash() would not be. */
static inline uint64_t xxh3(const void *data, size_t len)
{
	if (data == NULL)
		len = 0;
	return XXH3_64bits(data, len);
}

uint64_t pl_hash(const void *data, size_t len)
{
	return xxh3(data, len);
}

uint64_t pl_score(uint64_t key_hash, uint64_t member_hash)
{
	return pl__mix(key_hash, member_hash);
}

uint64_t pl_score_legacy(const void *key, size_t key_len, const void *member_id, size_t member_id_len)
{
	uint64_t h = PL__FNV_OFFSET;
	if (key)
		h = pl__fnv(h, key, key_len);
	h = pl__fnv(h, " ", 1);
	if (member_id)
		h = pl__fnv(h, member_id, member_id_len);
	return h;
}

/* log2(1 + i / 256) * 2^32, rounded; i = 0 .. 256. */
static const uint64_t log2_table[257] = {
	UINT64_C(0), UINT64_C(24157255), UINT64_C(48220695), UINT64_C(72191046),
	UINT64_C(96069025), UINT64_C(119855343), UINT64_C(143550699), UINT64_C(167155786),
	UINT64_C(190671291), UINT64_C(214097890), UINT64_C(237436253), UINT64_C(260687042),
	UINT64_C(283850912), UINT64_C(306928510), UINT64_C(329920477), UINT64_C(352827446),
	UINT64_C(375650043), UINT64_C(398388887), UINT64_C(421044590), UINT64_C(443617759),
	UINT64_C(466108993), UINT64_C(488518883), UINT64_C(510848017), UINT64_C(533096975),
	UINT64_C(555266330), UINT64_C(577356649), UINT64_C(599368495), UINT64_C(621302422),
	UINT64_C(643158981), UINT64_C(664938715), UINT64_C(686642163), UINT64_C(708269857),
	UINT64_C(729822324), UINT64_C(751300086), UINT64_C(772703658), UINT64_C(794033552),
	UINT64_C(815290272), UINT64_C(836474320), UINT64_C(857586191), UINT64_C(878626374),
	UINT64_C(899595355), UINT64_C(920493615), UINT64_C(941321628), UINT64_C(962079865),
	UINT64_C(982768792), UINT64_C(1003388871), UINT64_C(1023940559), UINT64_C(1044424306),
	UINT64_C(1064840562), UINT64_C(1085189769), UINT64_C(1105472367), UINT64_C(1125688789),
	UINT64_C(1145839467), UINT64_C(1165924827), UINT64_C(1185945290), UINT64_C(1205901275),
	UINT64_C(1225793196), UINT64_C(1245621463), UINT64_C(1265386481), UINT64_C(1285088654),
	UINT64_C(1304728379), UINT64_C(1324306051), UINT64_C(1343822060), UINT64_C(1363276795),
	UINT64_C(1382670639), UINT64_C(1402003972), UINT64_C(1421277169), UINT64_C(1440490605),
	UINT64_C(1459644648), UINT64_C(1478739665), UINT64_C(1497776018), UINT64_C(1516754066),
	UINT64_C(1535674166), UINT64_C(1554536671), UINT64_C(1573341930), UINT64_C(1592090289),
	UINT64_C(1610782092), UINT64_C(1629417679), UINT64_C(1647997388), UINT64_C(1666521551),
	UINT64_C(1684990500), UINT64_C(1703404565), UINT64_C(1721764068), UINT64_C(1740069334),
	UINT64_C(1758320682), UINT64_C(1776518428), UINT64_C(1794662886), UINT64_C(1812754368),
	UINT64_C(1830793181), UINT64_C(1848779632), UINT64_C(1866714024), UINT64_C(1884596657),
	UINT64_C(1902427829), UINT64_C(1920207835), UINT64_C(1937936969), UINT64_C(1955615520),
	UINT64_C(1973243777), UINT64_C(1990822024), UINT64_C(2008350545), UINT64_C(2025829620),
	UINT64_C(2043259528), UINT64_C(2060640543), UINT64_C(2077972941), UINT64_C(2095256991),
	UINT64_C(2112492963), UINT64_C(2129681124), UINT64_C(2146821738), UINT64_C(2163915068),
	UINT64_C(2180961373), UINT64_C(2197960912), UINT64_C(2214913940), UINT64_C(2231820712),
	UINT64_C(2248681479), UINT64_C(2265496490), UINT64_C(2282265995), UINT64_C(2298990237),
	UINT64_C(2315669461), UINT64_C(2332303909), UINT64_C(2348893820), UINT64_C(2365439432),
	UINT64_C(2381940981), UINT64_C(2398398701), UINT64_C(2414812824), UINT64_C(2431183582),
	UINT64_C(2447511201), UINT64_C(2463795910), UINT64_C(2480037932), UINT64_C(2496237492),
	UINT64_C(2512394810), UINT64_C(2528510107), UINT64_C(2544583599), UINT64_C(2560615505),
	UINT64_C(2576606038), UINT64_C(2592555411), UINT64_C(2608463835), UINT64_C(2624331521),
	UINT64_C(2640158677), UINT64_C(2655945509), UINT64_C(2671692221), UINT64_C(2687399018),
	UINT64_C(2703066101), UINT64_C(2718693670), UINT64_C(2734281925), UINT64_C(2749831063),
	UINT64_C(2765341278), UINT64_C(2780812767), UINT64_C(2796245722), UINT64_C(2811640333),
	UINT64_C(2826996792), UINT64_C(2842315287), UINT64_C(2857596005), UINT64_C(2872839132),
	UINT64_C(2888044853), UINT64_C(2903213350), UINT64_C(2918344806), UINT64_C(2933439400),
	UINT64_C(2948497313), UINT64_C(2963518722), UINT64_C(2978503803), UINT64_C(2993452732),
	UINT64_C(3008365682), UINT64_C(3023242827), UINT64_C(3038084339), UINT64_C(3052890387),
	UINT64_C(3067661140), UINT64_C(3082396766), UINT64_C(3097097433), UINT64_C(3111763305),
	UINT64_C(3126394546), UINT64_C(3140991321), UINT64_C(3155553791), UINT64_C(3170082117),
	UINT64_C(3184576458), UINT64_C(3199036973), UINT64_C(3213463820), UINT64_C(3227857155),
	UINT64_C(3242217134), UINT64_C(3256543910), UINT64_C(3270837638), UINT64_C(3285098468),
	UINT64_C(3299326552), UINT64_C(3313522041), UINT64_C(3327685082), UINT64_C(3341815825),
	UINT64_C(3355914416), UINT64_C(3369981001), UINT64_C(3384015725), UINT64_C(3398018732),
	UINT64_C(3411990165), UINT64_C(3425930167), UINT64_C(3439838878), UINT64_C(3453716438),
	UINT64_C(3467562987), UINT64_C(3481378662), UINT64_C(3495163602), UINT64_C(3508917943),
	UINT64_C(3522641820), UINT64_C(3536335369), UINT64_C(3549998721), UINT64_C(3563632012),
	UINT64_C(3577235372), UINT64_C(3590808933), UINT64_C(3604352825), UINT64_C(3617867177),
	UINT64_C(3631352118), UINT64_C(3644807776), UINT64_C(3658234277), UINT64_C(3671631748),
	UINT64_C(3685000315), UINT64_C(3698340100), UINT64_C(3711651229), UINT64_C(3724933824),
	UINT64_C(3738188006), UINT64_C(3751413898), UINT64_C(3764611620), UINT64_C(3777781291),
	UINT64_C(3790923031), UINT64_C(3804036958), UINT64_C(3817123189), UINT64_C(3830181840),
	UINT64_C(3843213029), UINT64_C(3856216870), UINT64_C(3869193478), UINT64_C(3882142967),
	UINT64_C(3895065449), UINT64_C(3907961038), UINT64_C(3920829844), UINT64_C(3933671979),
	UINT64_C(3946487554), UINT64_C(3959276677), UINT64_C(3972039458), UINT64_C(3984776005),
	UINT64_C(3997486426), UINT64_C(4010170828), UINT64_C(4022829316), UINT64_C(4035461997),
	UINT64_C(4048068976), UINT64_C(4060650357), UINT64_C(4073206244), UINT64_C(4085736740),
	UINT64_C(4098241947), UINT64_C(4110721967), UINT64_C(4123176902), UINT64_C(4135606852),
	UINT64_C(4148011918), UINT64_C(4160392197), UINT64_C(4172747791), UINT64_C(4185078796),
	UINT64_C(4197385310), UINT64_C(4209667431), UINT64_C(4221925255), UINT64_C(4234158878),
	UINT64_C(4246368396), UINT64_C(4258553902), UINT64_C(4270715492), UINT64_C(4282853259),
	UINT64_C(4294967296),};

static int top_bit(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
	return 63 - __builtin_clzll(x);
#else
	int n = 0;
	while (x >>= 1)
		n++;
	return n;
#endif
}

/* log2(x) * 2^32 for x >= 1, fixed point. */
static uint64_t log2_fixed(uint64_t x)
{
	int n = top_bit(x);
	uint64_t m = x << (63 - n);          /* 1.fff... with the leading one at bit 63 */
	uint32_t idx = (uint32_t)(m >> 55) & 0xffu;
	uint64_t frac = (m >> 23) & UINT64_C(0xffffffff);
	uint64_t t0 = log2_table[idx], t1 = log2_table[idx + 1];
	return ((uint64_t)n << 32) + t0 + (((t1 - t0) * frac) >> 32);
}

int64_t pl_score_weighted(uint64_t score, uint32_t weight)
{
	uint64_t x = (score >> 16) + 1; /* 1 .. 2^48 */
	int64_t l = (int64_t)log2_fixed(x) - ((int64_t)48 << 32);
	if (weight == 0)
		weight = 1;
	return l / (int64_t)weight;
}

/* ---- scoring inside a view ---------------------------------------------- */

uint64_t pl__scorer_key_hash(uint32_t scorer, const char *key, uint64_t len)
{
	if (scorer == PL_SCORER_LEGACY_FNV1A)
		return pl__fnv(pl__fnv(PL__FNV_OFFSET, key, len), " ", 1);
	return xxh3(key, (size_t)len);
}

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
