/* check_order.c - the canonical byte order: radix sort against a plain
 * comparison sort on random keys built to stress it (shared prefixes longer
 * than a radix level, embedded zero bytes, keys that extend each other). */
#include "order_util.h"

START_TEST(radix_order_matches_comparison_order)
{
	uint64_t seed = tl_seed(0x0bde7u);
	uint32_t iters = tl_iters(200);
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t rng = seed + it;
		uint32_t n = tl_below(&rng, 3000);
		key *k = calloc(n + 1, sizeof *k);
		char *pool = malloc((size_t)(n + 1) * 64);
		uint32_t plen = tl_below(&rng, 20); /* shared prefix, often past 7 bytes */
		/* Three kinds of key set: few values a byte (the packed first
		 * level), any byte value (too many for 32 packed bits: the plain
		 * level), and most keys agreeing for 20 bytes past the prefix
		 * (long runs of equal first-level keys). */
		uint32_t style = it % 3, same = tl_below(&rng, 8);
		for (uint32_t i = 0; i < n; i++) {
			char *p = pool + (size_t)i * 64; /* room for the longest key, 50 bytes */
			uint32_t len = plen + tl_below(&rng, 12) + (style == 2 ? 20 : 0);
			for (uint32_t j = 0; j < len; j++) {
				if (j < plen)
					p[j] = 'p';
				else if (style == 1)
					p[j] = (char)tl_below(&rng, 256);
				else if (style == 2 && j < plen + 20 && tl_below(&rng, 8) != 0)
					p[j] = (char)('a' + (j + same) % 5);
				else
					p[j] = (char)(tl_below(&rng, 4) == 0 ? 0 : 'a' + tl_below(&rng, 3));
			}
			if (i > 0 && tl_below(&rng, 6) == 0) { /* a duplicate or a prefix of an earlier key */
				uint32_t o = tl_below(&rng, i);
				len = (uint32_t)k[o].b.len - tl_below(&rng, 2);
				if (len > k[o].b.len)
					len = (uint32_t)k[o].b.len;
				memcpy(p, k[o].b.ptr, len);
			}
			k[i].b.ptr = p;
			k[i].b.len = len;
			k[i].tag = (uint32_t)tl_rand(&rng);
		}
		char what[16];
		snprintf(what, sizeof what, "style %u", style);
		sorts_as_qsort(k, n, what, seed + it);
		free(k);
		free(pool);
	}
}
END_TEST

START_TEST(radix_u64_sorts)
{
	uint64_t rng = tl_seed(99);
	for (int it = 0; it < 50; it++) {
		uint64_t a[500], t[500];
		uint32_t n = tl_below(&rng, 500), count[50] = {0};
		for (uint32_t i = 0; i < n; i++) {
			uint32_t x = tl_below(&rng, 50);
			count[x]++;
			/* high and low digits both vary; some digits all share */
			a[i] = (uint64_t)x << 40 | (uint64_t)tl_below(&rng, 3) << 8 | x;
		}
		pl__radix_sort_u64(a, t, n);
		for (uint32_t i = 1; i < n; i++)
			ck_assert_uint_le(a[i - 1], a[i]);
		for (uint32_t i = 0; i < n; i++) /* a permutation: nothing lost */
			count[a[i] >> 40]--;
		for (uint32_t x = 0; x < 50; x++)
			ck_assert_uint_eq(count[x], 0);
	}
}
END_TEST

START_TEST(bytes_compare)
{
	ck_assert_int_lt(pl__bytes_cmp("ab", 2, "abc", 3), 0);
	ck_assert_int_gt(pl__bytes_cmp("b", 1, "abc", 3), 0);
	ck_assert_int_eq(pl__bytes_cmp("a\0b", 3, "a\0b", 3), 0);
	ck_assert_int_lt(pl__bytes_cmp("a\0", 2, "a\1", 2), 0);
	ck_assert_int_eq(pl__bytes_cmp(NULL, 0, NULL, 0), 0);
	ck_assert_int_lt(pl__bytes_cmp(NULL, 0, "a", 1), 0);
	ck_assert_int_gt(pl__bytes_cmp("\xff", 1, "\x01", 1), 0); /* unsigned bytes */
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("order");
	TCase *c = tcase_create("sort");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, radix_order_matches_comparison_order);
	tcase_add_test(c, radix_u64_sorts);
	tcase_add_test(c, bytes_compare);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
