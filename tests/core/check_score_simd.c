/* check_score_simd.c - the vector paths of the scorer and the one-pass top-k:
 * every path this CPU can run gives the scalar path's bits, and the one-pass
 * top-k gives the greedy zone-spread rule's members in its order. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/view_build.h"
#include "testutil.h"

/* The plain loop the paths must agree with: highest score, ties to the
 * smaller place. */
static uint32_t plain_top1(const uint64_t *h, uint32_t n, uint64_t a)
{
	uint32_t best = 0;
	uint64_t bs = pl__fold_mul(a, h[0]);
	for (uint32_t i = 1; i < n; i++) {
		uint64_t s = pl__fold_mul(a, h[i]);
		if (s > bs) {
			bs = s;
			best = i;
		}
	}
	return best;
}

START_TEST(detect_within_build_cap)
{
	uint32_t d = pl__simd_detect();
	ck_assert_uint_le(d, PL__SIMD_AVX512);
#ifdef PL_SIMD_MAX
	ck_assert_uint_le(d, PL_SIMD_MAX);
#endif
	printf("score: this CPU and build score on path %u (0 scalar, 1 AVX2, 2 AVX-512)\n", d);
}
END_TEST

/* Random hash arrays of every length up to 80 and a few long ones, with few
 * distinct values so that ties are common (the lane merge must keep the
 * smaller place), on every path up to the detected one. */
START_TEST(every_path_matches_plain_loop)
{
	uint64_t seed = tl_seed(0x5c0e1u), rng = seed;
	uint32_t top = pl__simd_detect();
	static const uint32_t longs[] = {127, 128, 129, 255, 1000, 1024, 1031};
	uint64_t *h = malloc(1031 * sizeof *h), *sc = malloc(1031 * sizeof *sc);
	for (uint32_t t = 0; t < 80 + 7; t++) {
		uint32_t n = t < 80 ? t + 1 : longs[t - 80];
		for (int trial = 0; trial < 60; trial++) {
			uint64_t vals[4] = {tl_rand(&rng), tl_rand(&rng), tl_rand(&rng), tl_rand(&rng)};
			int distinct = trial % 5; /* 0: all random */
			for (uint32_t i = 0; i < n; i++)
				h[i] = distinct ? vals[tl_below(&rng, (uint32_t)distinct)] : tl_rand(&rng);
			uint64_t a = trial == 1 ? 0 : tl_rand(&rng);
			if (trial == 2) /* extreme words: carries through every partial product */
				for (uint32_t i = 0; i < n; i++)
					h[i] = UINT64_MAX - (i & 1), a = UINT64_MAX;
			uint32_t want = plain_top1(h, n, a);
			for (uint32_t p = 0; p <= top; p++) {
				ck_assert_msg(pl__top1_hashes(h, n, a, p) == want, "seed %" PRIu64 ": path %u n %u trial %d",
					      seed, p, n, trial);
				pl__scores_hashes(h, n, a, p, sc);
				for (uint32_t i = 0; i < n; i++)
					ck_assert_msg(sc[i] == pl__fold_mul(a, h[i]), "seed %" PRIu64 ": path %u score %u",
						      seed, p, i);
			}
		}
	}
	free(h);
	free(sc);
}
END_TEST

/* The rule pl_view_top documents, written as its definition: the greedy
 * zone-spread pick, k times. */
static uint32_t greedy_top(const pl_view *v, uint64_t kh, uint32_t *out, uint32_t k)
{
	uint32_t n = 0;
	while (n < k && n < v->n_elig) {
		out[n] = pl__view_spread_next(v, kh, out, n, PL_NONE);
		n++;
	}
	return n;
}

/* Random members (some in shared zones, some in zones of their own, some
 * down or draining, weighted or not), both scorers, every k. */
START_TEST(one_pass_topk_equals_greedy_rule)
{
	uint64_t seed = tl_seed(0x70bbu), rng = seed;
	uint32_t iters = tl_iters(300);
	for (uint32_t it = 0; it < iters; it++) {
		tl *t = tl_new();
		uint32_t nm = 1 + tl_below(&rng, it % 7 == 0 ? 300 : 40), zones = 1 + tl_below(&rng, 9);
		int weighted = tl_below(&rng, 3) == 0;
		for (uint32_t i = 0; i < nm; i++) {
			uint32_t z = tl_below(&rng, zones + 1);
			uint32_t m = tl_member(t, tl_str(t, "m%03u", i), z == zones ? NULL : tl_str(t, "z%u", z));
			if (weighted)
				t->m[m].weight = 1 + tl_below(&rng, 5);
			uint32_t f = tl_below(&rng, 10);
			t->m[m].flags = f == 0 ? PL_MEMBER_DOWN : f == 1 ? PL_MEMBER_DRAINING : 0;
		}
		uint32_t scorer = tl_below(&rng, 2) ? PL_SCORER_XXH3 : PL_SCORER_LEGACY_FNV1A;
		pl_view *v = tl_view(t, scorer);
		for (int key = 0; key < 20; key++) {
			char kb[32];
			int kl = snprintf(kb, sizeof kb, "key-%" PRIu64, tl_rand(&rng) % 100000);
			uint64_t kh = pl__key_hash(v, kb, (uint64_t)kl);
			for (uint32_t k = 0; k <= PL_MAX_REPLICAS; k++) {
				uint32_t a[PL_MAX_REPLICAS], b[PL_MAX_REPLICAS];
				uint32_t na = pl__view_topk(v, kh, a, k), nb = greedy_top(v, kh, b, k);
				ck_assert_msg(na == nb, "seed %" PRIu64 " iter %u: k %u gives %u members, rule %u", seed, it,
					      k, na, nb);
				for (uint32_t j = 0; j < na; j++)
					ck_assert_msg(a[j] == b[j], "seed %" PRIu64 " iter %u key %s k %u: pick %u is %u, rule %u",
						      seed, it, kb, k, j, a[j], b[j]);
				/* and through the public call */
				if (k > 0) {
					uint32_t c[PL_MAX_REPLICAS];
					ck_assert_int_eq(pl_view_top(v, kb, (size_t)kl, c, k), (int)nb);
					ck_assert(memcmp(c, b, nb * sizeof *c) == 0);
				}
			}
		}
		tl_free(t);
	}
}
END_TEST

/* pl_view_top(k = 1) is the ring home: the same member pl_view_home gives. */
START_TEST(top1_from_bytes_is_home)
{
	tl *t = tl_new();
	for (uint32_t i = 0; i < 50; i++)
		tl_member(t, tl_str(t, "b%02u", i), tl_str(t, "z%u", i % 3));
	for (uint32_t i = 0; i < 200; i++)
		tl_shard(t, tl_str(t, "s/%03u", i), PL_NONE, PL_NONE, 0);
	pl_view *v = tl_view(t, 0);
	for (uint32_t k = 0; k < 200; k++) {
		uint32_t out = PL_NONE;
		ck_assert_int_eq(pl_view_top(v, t->k[k].key.ptr, (size_t)t->k[k].key.len, &out, 1), 1);
		ck_assert_int_eq((int)out, pl_view_home(v, k));
	}
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("score_simd");
	TCase *c = tcase_create("vector-paths");
	tcase_set_timeout(c, 60);
	tcase_add_test(c, detect_within_build_cap);
	tcase_add_test(c, every_path_matches_plain_loop);
	suite_add_tcase(s, c);
	c = tcase_create("top-k");
	tcase_set_timeout(c, 60);
	tcase_add_test(c, one_pass_topk_equals_greedy_rule);
	tcase_add_test(c, top1_from_bytes_is_home);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
