/* check_view_read.c - reading a built view (view_read.c): finding ids and the
 * canonical orders, ring homes and top-k, and the readers' argument checks. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/view_build.h"
#include "testutil.h"
#include "view_util.h"

START_TEST(find_and_canonical_order)
{
	tl *t = vu_layout();
	pl_view *v = tl_view(t, 0);
	ck_assert_int_eq(pl_view_find(v, PL_ELEM_MEMBER, "b0", 2), 1);
	ck_assert_int_eq(pl_view_find(v, PL_ELEM_MEMBER, "b3", 2), PL_E_NOT_FOUND);
	ck_assert_int_eq(pl_view_find(v, PL_ELEM_MEMBER, "b", 1), PL_E_NOT_FOUND);
	ck_assert_int_eq(pl_view_find(v, PL_ELEM_STREAM, "cache", 5), 1);
	ck_assert_int_eq(pl_view_find(v, PL_ELEM_SHARD, "orders/02", 9), 2);
	ck_assert_int_eq(pl_view_find(v, 99, "x", 1), PL_E_INVAL);
	ck_assert_int_eq(pl_view_find(v, PL_ELEM_SHARD, NULL, 3), PL_E_INVAL);
	ck_assert_int_eq(pl_view_at(v, PL_ELEM_MEMBER, 0), 1);
	ck_assert_int_eq(pl_view_at(v, PL_ELEM_MEMBER, 1), 2);
	ck_assert_int_eq(pl_view_at(v, PL_ELEM_MEMBER, 2), 0);
	ck_assert_int_eq(pl_view_at(v, PL_ELEM_MEMBER, 3), PL_E_MEMBER_RANGE);
	ck_assert_int_eq(pl_view_at(v, PL_ELEM_STREAM, 0), 1);
	ck_assert_int_eq(pl_view_at(v, PL_ELEM_STREAM, 2), PL_E_STREAM_RANGE);
	ck_assert_int_eq(pl_view_at(v, PL_ELEM_SHARD, 0), 4); /* cache/00 */
	ck_assert_int_eq(pl_view_at(v, PL_ELEM_SHARD, 1), 5); /* free */
	ck_assert_int_eq(pl_view_at(v, PL_ELEM_SHARD, 6), PL_E_SHARD_RANGE);
	tl_free(t);
}
END_TEST

START_TEST(top_spreads_zones_first)
{
	tl *t = tl_new();
	for (int i = 0; i < 9; i++)
		tl_member(t, tl_str(t, "n%d", i), tl_str(t, "zone-%d", i % 3));
	pl_view *v = tl_view(t, 0);
	for (int k = 0; k < 200; k++) {
		char key[16];
		int len = snprintf(key, sizeof key, "key-%d", k);
		uint32_t out[5];
		ck_assert_int_eq(pl_view_top(v, key, (size_t)len, out, 5), 5);
		int zones[3] = {0, 0, 0};
		for (int j = 0; j < 3; j++)
			zones[(out[j]) % 3]++;
		ck_assert_msg(zones[0] == 1 && zones[1] == 1 && zones[2] == 1, "first three span the zones");
		for (int j = 0; j < 5; j++)
			for (int q = 0; q < j; q++)
				ck_assert_uint_ne(out[j], out[q]);
		/* out[0] is the ring home: the best score of all. */
		uint64_t kh = pl_hash(key, (size_t)len), best = 0;
		uint32_t bi = 0;
		for (uint32_t m = 0; m < t->nm; m++) {
			uint64_t sc = pl_score(kh, pl_hash(t->m[m].id.ptr, t->m[m].id.len));
			if (m == 0 || sc > best) {
				best = sc;
				bi = m;
			}
		}
		ck_assert_uint_eq(out[0], bi);
	}
	uint32_t out[9];
	ck_assert_int_eq(pl_view_top(v, "x", 1, out, 0), 0);
	ck_assert_int_eq(pl_view_top(v, "x", 1, out, PL_MAX_REPLICAS + 1), PL_E_INVAL);
	tl_free(t);
}
END_TEST

/* The top-1 loop (several trackers, merged) against a plain loop, with
 * member hashes made equal on purpose so scores tie: the smaller id wins. */
START_TEST(top1_matches_plain_loop_with_ties)
{
	uint64_t rng = tl_seed(0x70b1u);
	for (uint32_t n = 1; n <= 23; n++) {
		tl *t = tl_new();
		for (uint32_t i = 0; i < n; i++)
			tl_member(t, tl_str(t, "m%02u", i), NULL);
		pl_view *v = tl_view(t, 0);
		for (int trial = 0; trial < 200; trial++) {
			/* a few distinct hash values, so equal scores are common */
			uint64_t vals[3] = {tl_rand(&rng), tl_rand(&rng), tl_rand(&rng)};
			for (uint32_t e = 0; e < v->n_elig; e++)
				v->elig_hash[e] = vals[tl_below(&rng, trial % 3 + 1)];
			uint64_t kh = tl_rand(&rng), best = 0;
			uint32_t want = PL_NONE;
			for (uint32_t e = 0; e < v->n_elig; e++) {
				uint64_t sc = pl__fold_mul(kh ^ PL__MIX_K, v->elig_hash[e]);
				if (want == PL_NONE || sc > best) {
					best = sc;
					want = v->elig[e];
				}
			}
			ck_assert_msg(pl__view_top1(v, kh) == want, "n %u trial %d", n, trial);
		}
		tl_free(t);
	}
}
END_TEST

START_TEST(legacy_view_matches_legacy_score)
{
	tl *t = tl_new();
	for (int i = 1; i <= 4; i++)
		tl_member(t, tl_str(t, "streams-%d", i), NULL);
	for (int k = 0; k < 64; k++)
		tl_shard(t, tl_str(t, "%02x", k), PL_NONE, PL_NONE, 0);
	pl_view *v = tl_view(t, PL_SCORER_LEGACY_FNV1A);
	uint32_t count[4] = {0, 0, 0, 0};
	for (uint32_t k = 0; k < 64; k++)
		count[pl_view_home(v, k)]++;
	/* The seed fleet's skew, as its notes measured from the hash. */
	ck_assert_uint_eq(count[0], 17);
	ck_assert_uint_eq(count[1], 8);
	ck_assert_uint_eq(count[2], 7);
	ck_assert_uint_eq(count[3], 32);
	tl_free(t);
}
END_TEST

START_TEST(null_and_range_arguments)
{
	tl *t = vu_layout();
	pl_view *v = tl_view(t, 0);
	pl_tally x;
	pl_shard_state s;
	ck_assert_int_eq(pl_view_member_tally(NULL, 0, &x), PL_E_INVAL);
	ck_assert_int_eq(pl_view_member_tally(v, 0, NULL), PL_E_INVAL);
	ck_assert_int_eq(pl_view_member_tally(v, 3, &x), PL_E_MEMBER_RANGE);
	ck_assert_int_eq(pl_view_stream_tally(v, 2, 0, &x), PL_E_STREAM_RANGE);
	ck_assert_int_eq(pl_view_stream_tally(v, 0, 3, &x), PL_E_MEMBER_RANGE);
	ck_assert_int_eq(pl_view_shard_state(v, 6, &s), PL_E_SHARD_RANGE);
	ck_assert_int_eq(pl_view_shard_state(NULL, 0, &s), PL_E_INVAL);
	ck_assert_int_eq(pl_view_home(v, 6), PL_E_SHARD_RANGE);
	ck_assert_int_eq(pl_view_home(NULL, 0), PL_E_INVAL);
	ck_assert_int_eq(pl_view_stats(NULL, NULL), PL_E_INVAL);
	ck_assert_ptr_null(pl_view_snapshot(NULL));
	/* the view's own copy of the struct, pointing at the caller's arrays */
	ck_assert_ptr_ne(pl_view_snapshot(v), &t->snap);
	ck_assert_ptr_eq(pl_view_snapshot(v)->shards, t->k);
	ck_assert_uint_eq(pl_view_snapshot(v)->n_shards, 6);
	ck_assert_int_eq(pl_view_settle(NULL), PL_E_INVAL);
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("view_read");
	TCase *c = tcase_create("orders");
	tcase_add_test(c, find_and_canonical_order);
	tcase_add_test(c, top_spreads_zones_first);
	tcase_add_test(c, legacy_view_matches_legacy_score);
	tcase_add_test(c, top1_matches_plain_loop_with_ties);
	suite_add_tcase(s, c);
	c = tcase_create("arguments");
	tcase_add_test(c, null_and_range_arguments);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
