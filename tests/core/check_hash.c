/* check_hash.c - scorers: known answers, weights, and what moves when
 * membership changes. */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/view_build.h"
#include "testutil.h"

static FILE *open_vectors(void)
{
	const char *dir = getenv("PL_TEST_DIR");
	char path[512];
	snprintf(path, sizeof path, "%s/vectors.txt", dir && *dir ? dir : "tests");
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s (set PL_TEST_DIR)", path);
	return f;
}

START_TEST(known_answer_vectors)
{
	FILE *f = open_vectors();
	char line[512], a[128], b[128];
	uint64_t x, y;
	int64_t d;
	uint32_t w, n = 0;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#')
			continue;
		if (sscanf(line, "hash %127s %" SCNx64, a, &x) == 2) {
			size_t len = strcmp(a, "-") == 0 ? 0 : strlen(a);
			ck_assert_msg(pl_hash(a, len) == x, "hash %s", a);
		} else if (sscanf(line, "score %127s %127s %" SCNx64, a, b, &x) == 3) {
			ck_assert_msg(pl_score(pl_hash(a, strlen(a)), pl_hash(b, strlen(b))) == x, "score %s %s", a, b);
		} else if (sscanf(line, "legacy %127s %127s %" SCNx64, a, b, &x) == 3) {
			ck_assert_msg(pl_score_legacy(a, strlen(a), b, strlen(b)) == x, "legacy %s %s", a, b);
		} else if (sscanf(line, "weight %" SCNx64 " %" SCNu32 " %" SCNd64, &y, &w, &d) == 3) {
			ck_assert_msg(pl_score_weighted(y, w) == d, "weight %" PRIx64 " %u", y, w);
		} else {
			ck_abort_msg("unreadable vector line: %s", line);
		}
		n++;
	}
	fclose(f);
	ck_assert_uint_gt(n, 150);
}
END_TEST

START_TEST(legacy_is_fnv1a_over_key_space_member)
{
	const char *s = "0a streams-3";
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	for (const char *p = s; *p; p++) {
		h ^= (unsigned char)*p;
		h *= UINT64_C(0x100000001b3);
	}
	ck_assert_uint_eq(pl_score_legacy("0a", 2, "streams-3", 9), h);
	ck_assert_uint_eq(pl_score_legacy(NULL, 5, NULL, 3), pl_score_legacy("", 0, "", 0));
	ck_assert_uint_eq(pl_hash(NULL, 4), pl_hash("", 0));
}
END_TEST

/* The weighted draw follows log2 closely and never decreases with the score. */
START_TEST(weighted_draw_is_monotone_log2)
{
	uint64_t rng = tl_seed(11);
	int64_t prev = INT64_MIN;
	for (uint64_t x = 0; x < (UINT64_C(1) << 20); x += 7) {
		int64_t dr = pl_score_weighted(x << 44, 1);
		ck_assert_int_ge(dr, prev);
		prev = dr;
	}
	for (int i = 0; i < 100000; i++) {
		uint64_t s = tl_rand(&rng);
		double u = (double)((s >> 16) + 1) / 281474976710656.0;
		double want = log2(u) * 4294967296.0;
		double got = (double)pl_score_weighted(s, 1);
		ck_assert_msg(fabs(got - want) < 4294967296.0 * 1e-5, "log2 off at %" PRIx64, s);
		ck_assert_int_le(pl_score_weighted(s, 1), 0);
		ck_assert_int_eq(pl_score_weighted(s, 0), pl_score_weighted(s, 1));
	}
}
END_TEST

START_TEST(draw_order_breaks_ties_on_score_then_id)
{
	pl__draw a = {-5, 10, 3}, b = {-5, 10, 4}, c = {-5, 11, 9}, e = {-4, 0, 9};
	ck_assert(pl__draw_gt(a, b));
	ck_assert(!pl__draw_gt(b, a));
	ck_assert(pl__draw_gt(c, a));
	ck_assert(pl__draw_gt(e, c));
	ck_assert(!pl__draw_gt(a, a));
}
END_TEST

static tl *members(uint32_t n, const uint32_t *weights)
{
	tl *t = tl_new();
	for (uint32_t i = 0; i < n; i++) {
		tl_member(t, tl_str(t, "node-%u", i), NULL);
		t->m[i].weight = weights ? weights[i] : 1;
	}
	return t;
}

static void homes(pl_view *v, uint32_t nkeys, uint32_t *out)
{
	char key[32];
	for (uint32_t k = 0; k < nkeys; k++) {
		int len = snprintf(key, sizeof key, "key-%u", k);
		uint32_t h;
		ck_assert_int_eq(pl_view_top(v, key, (size_t)len, &h, 1), 1);
		out[k] = h;
	}
}

START_TEST(weights_share_keys_in_proportion)
{
	const uint32_t w[3] = {1, 2, 4}, nkeys = 1000000;
	tl *t = members(3, w);
	pl_view *v = tl_view(t, 0);
	uint32_t *h = malloc(nkeys * sizeof *h), count[3] = {0, 0, 0};
	homes(v, nkeys, h);
	for (uint32_t k = 0; k < nkeys; k++)
		count[h[k]]++;
	for (int i = 0; i < 3; i++) {
		double want = (double)nkeys * w[i] / 7.0;
		ck_assert_msg(fabs(count[i] - want) <= 0.02 * want, "weight %u won %u keys, want %.0f within 2%%", w[i],
			      count[i], want);
	}
	free(h);
	tl_free(t);
}
END_TEST

START_TEST(changing_one_weight_moves_only_its_keys)
{
	uint32_t w[8] = {3, 1, 2, 5, 1, 1, 4, 2};
	const uint32_t nkeys = 50000;
	tl *t = members(8, w);
	uint32_t *before = malloc(nkeys * sizeof *before), *after = malloc(nkeys * sizeof *after);
	homes(tl_view(t, 0), nkeys, before);
	t->m[3].weight = 9;
	homes(tl_view(t, 0), nkeys, after);
	uint32_t moved = 0;
	for (uint32_t k = 0; k < nkeys; k++)
		if (before[k] != after[k]) {
			ck_assert_uint_eq(after[k], 3); /* raised: keys only go to it */
			moved++;
		}
	ck_assert_uint_gt(moved, 0);
	t->m[3].weight = 1;
	homes(tl_view(t, 0), nkeys, after);
	for (uint32_t k = 0; k < nkeys; k++)
		if (before[k] != after[k])
			ck_assert_uint_eq(before[k], 3); /* lowered: keys only leave it */
	free(before);
	free(after);
	tl_free(t);
}
END_TEST

START_TEST(join_and_leave_move_only_what_they_must)
{
	const uint32_t nkeys = 20000;
	uint32_t *before = malloc(nkeys * sizeof *before), *after = malloc(nkeys * sizeof *after);
	for (int weighted = 0; weighted < 2; weighted++)
		for (uint32_t scorer = PL_SCORER_XXH3; scorer <= PL_SCORER_LEGACY_FNV1A; scorer++) {
			uint32_t w[17] = {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2};
			tl *t = members(17, weighted ? w : NULL);
			t->m[16].flags = PL_MEMBER_DOWN;
			homes(tl_view(t, scorer), nkeys, before);
			t->m[16].flags = 0; /* joins */
			homes(tl_view(t, scorer), nkeys, after);
			uint32_t moved = 0;
			for (uint32_t k = 0; k < nkeys; k++)
				if (before[k] != after[k]) {
					ck_assert_uint_eq(after[k], 16);
					moved++;
				}
			/* The legacy scorer's correlated scores can starve a weighted
			 * joiner; only the "moves only to it" half holds for it. */
			if (!(weighted && scorer == PL_SCORER_LEGACY_FNV1A))
				ck_assert_msg(moved > nkeys / 40, "weighted %d scorer %u moved %u", weighted, scorer,
					      moved);
			t->m[5].flags = PL_MEMBER_DOWN; /* leaves */
			homes(tl_view(t, scorer), nkeys, before);
			for (uint32_t k = 0; k < nkeys; k++)
				if (before[k] != after[k])
					ck_assert_uint_eq(after[k], 5);
			tl_free(t);
		}
	free(before);
	free(after);
}
END_TEST

/* 4096 shards over 64 members: each count is Binomial(4096, 1/64), mean 64,
 * sd 7.9. The largest of 64 stays within mean + 5 sd, and the chi-square
 * statistic (63 degrees of freedom, mean 63, sd 11.2) within mean + 5 sd. */
START_TEST(spread_is_balls_into_bins)
{
	tl *t = members(64, NULL);
	for (uint32_t k = 0; k < 4096; k++)
		tl_shard(t, tl_str(t, "%03x", k), PL_NONE, PL_NONE, 0);
	pl_view *v = tl_view(t, 0);
	uint32_t count[64] = {0}, max = 0, min = UINT32_MAX;
	for (uint32_t k = 0; k < 4096; k++)
		count[pl_view_home(v, k)]++;
	double chi = 0;
	for (int i = 0; i < 64; i++) {
		max = count[i] > max ? count[i] : max;
		min = count[i] < min ? count[i] : min;
		chi += (count[i] - 64.0) * (count[i] - 64.0) / 64.0;
	}
	ck_assert_msg(max <= 104 && min >= 24, "spread %u..%u", min, max);
	ck_assert_msg(chi < 63 + 5 * 11.2, "chi-square %.1f", chi);
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hash");
	TCase *c = tcase_create("known-answers");
	tcase_add_test(c, known_answer_vectors);
	tcase_add_test(c, legacy_is_fnv1a_over_key_space_member);
	tcase_add_test(c, weighted_draw_is_monotone_log2);
	tcase_add_test(c, draw_order_breaks_ties_on_score_then_id);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, weights_share_keys_in_proportion);
	tcase_add_test(c, changing_one_weight_moves_only_its_keys);
	tcase_add_test(c, join_and_leave_move_only_what_they_must);
	tcase_add_test(c, spread_is_balls_into_bins);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
