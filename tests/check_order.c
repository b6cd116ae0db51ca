/* check_order.c - the canonical byte order: radix sort against a plain
 * comparison sort on random keys built to stress it (shared prefixes longer
 * than a radix level, embedded zero bytes, keys that extend each other). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"

typedef struct key {
	pl_bytes b;
	uint32_t tag;
} key;

static const key *cmp_base;

static int ref_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int c = pl__bytes_cmp(cmp_base[a].b.ptr, cmp_base[a].b.len, cmp_base[b].b.ptr, cmp_base[b].b.len);
	return c ? c : (a > b) - (a < b);
}

/* Sort n keys and compare with qsort: every place and its tag, and the first
 * duplicate (the smallest index repeating an earlier key, and the earliest
 * key it repeats: in the sorted order, the second of a run of equal keys,
 * and the run's first). `what` and `seed` name the key set on failure. */
static void sorts_as_qsort(const key *k, uint32_t n, const char *what, uint64_t seed)
{
	uint32_t *got = malloc((n + 1) * sizeof *got), *want = malloc((n + 1) * sizeof *want);
	uint32_t *tags = malloc((n + 1) * sizeof *tags);
	void *scratch = malloc(PL__SORT_SCRATCH(n + 1));
	pl__byteseq q = {(const char *)k, sizeof *k, offsetof(key, b), offsetof(key, tag)};
	uint32_t other, dup = pl__sort_bytes(&q, n, got, tags, scratch, &other);
	for (uint32_t i = 0; i < n; i++)
		want[i] = i;
	cmp_base = k;
	qsort(want, n, sizeof *want, ref_cmp);
	uint32_t brute = PL_NONE, brute_other = PL_NONE;
	for (uint32_t i = 0; i < n; i++) {
		ck_assert_msg(got[i] == want[i] && tags[i] == k[want[i]].tag,
			      "seed %llu (%s, %u keys): place %u has %u, want %u", (unsigned long long)seed, what, n, i,
			      got[i], want[i]);
		const key *a = &k[want[i]];
		if (i > 0 && pl__bytes_cmp(a->b.ptr, a->b.len, k[want[i - 1]].b.ptr, k[want[i - 1]].b.len) == 0 &&
		    want[i] < brute) {
			uint32_t j = i - 1;
			while (j > 0 && pl__bytes_cmp(k[want[j - 1]].b.ptr, k[want[j - 1]].b.len, a->b.ptr, a->b.len) == 0)
				j--;
			brute = want[i];
			brute_other = want[j];
		}
	}
	ck_assert_msg(dup == brute, "seed %llu (%s): duplicate %u, want %u", (unsigned long long)seed, what, dup, brute);
	if (dup != PL_NONE)
		ck_assert_uint_eq(other, brute_other);
	free(got);
	free(want);
	free(tags);
	free(scratch);
}

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

/* Keys that share a prefix are sorted past it; a key in the middle that does
 * not have it (shorter, different, a zero byte after it) must still sort by
 * its own bytes. */
START_TEST(an_odd_key_among_a_shared_prefix)
{
	static const char *odd[] = {"str", "stream-", "stream-05", "stre@m-050", "stream-\x00", "a", "zzz"};
	for (uint32_t o = 0; o < sizeof odd / sizeof odd[0]; o++) {
		enum { N = 200 };
		char pool[N][16];
		key k[N];
		for (uint32_t i = 0; i < N; i++) {
			int n = snprintf(pool[i], sizeof pool[i], "stream-%03u", i);
			k[i].b.ptr = pool[i];
			k[i].b.len = (uint64_t)n;
		}
		k[N / 2].b.ptr = odd[o];
		k[N / 2].b.len = strlen(odd[o]) + (o == 4); /* "stream-" then a zero byte */
		uint32_t got[N], want[N], other;
		void *scratch = malloc(PL__SORT_SCRATCH(N));
		pl__byteseq q = {(const char *)k, sizeof *k, offsetof(key, b), PL__NO_TAG};
		ck_assert_uint_eq(pl__sort_bytes(&q, N, got, NULL, scratch, &other), PL_NONE);
		free(scratch);
		for (uint32_t i = 0; i < N; i++)
			want[i] = i;
		cmp_base = k;
		qsort(want, N, sizeof *want, ref_cmp);
		for (uint32_t i = 0; i < N; i++)
			ck_assert_msg(got[i] == want[i], "odd key %u: place %u has %u, want %u", o, i, got[i], want[i]);
	}
}
END_TEST

/* Ids as control planes write them, past the 16 keys an insertion sort
 * takes: decimal and hex numbers, behind prefixes shorter and longer than a
 * level, with duplicates, each key set in a random order. Decimal bytes fit
 * the packed first level by their ranges, hex ones by the values present;
 * keys 16 bytes past the prefix that agree on 15 of them go on to a second
 * level; a byte that a sample of the keys sees constant varies in a few,
 * or takes a value of a class the sample did not see; upper-case hex and
 * bytes past 'z'. All must give the comparison order. */
START_TEST(id_shapes_match_comparison_order)
{
	uint64_t seed = tl_seed(0x1d5a9e5u);
	for (uint32_t it = 0; it < 60; it++) {
		uint64_t rng = seed + it;
		uint32_t f = it % 10;
		uint32_t n = 17 + tl_below(&rng, it % 4 == 0 || f == 7 || f == 9 ? 20000 : 400);
		key *k = calloc(n, sizeof *k);
		char *pool = malloc((size_t)n * 48);
		uint32_t spread = 1 + tl_below(&rng, 100000);
		for (uint32_t i = 0; i < n; i++) {
			char *p = pool + (size_t)i * 48;
			uint32_t a = tl_below(&rng, spread), b = (uint32_t)tl_rand(&rng);
			if (f == 0)
				b %= 10000;
			int len = f == 0   ? snprintf(p, 48, "topic-%05u/%04u", a, b)
				  : f == 1 ? snprintf(p, 48, "%08x", b)
				  : f == 2 ? snprintf(p, 48, "/cluster/prod/streams/orders-%u-%u", a, b % 64)
				  : f == 3 ? snprintf(p, 48, "%u.%u", a, b % 1000)
				  : f == 4 ? snprintf(p, 48, "shard-%x:%x", a, b)
				  : f == 5 ? snprintf(p, 48, "k%u", a)
				  : f == 6 ? snprintf(p, 48, "%c00000000000000%c", 'a' + a % 3, 'a' + b % 26)
				  : f == 7 ? snprintf(p, 48, "item-%06u%c", a, i % 997 == 5 ? 'b' : 'a')
				  : f == 8 ? snprintf(p, 48, "%08X~%c", b, "{AQz\x80"[a % 5])
					   : snprintf(p, 48, "id-%06u", a);
			if (f == 9 && i % 1009 == 3)
				p[5] = 'x'; /* a letter where the sample saw digits */
			if (i > 0 && tl_below(&rng, 50) == 0) { /* a duplicate */
				uint32_t o = tl_below(&rng, i);
				memcpy(p, k[o].b.ptr, (size_t)k[o].b.len);
				len = (int)k[o].b.len;
			}
			k[i].b = (pl_bytes){p, (uint64_t)len};
			k[i].tag = i * 7u;
		}
		char what[16];
		snprintf(what, sizeof what, "format %u", f);
		sorts_as_qsort(k, n, what, seed + it);
		free(k);
		free(pool);
	}
}
END_TEST

/* Keys all equal: one run, the second key the first duplicate. */
START_TEST(keys_all_equal)
{
	key k[20];
	for (uint32_t i = 0; i < 20; i++)
		k[i] = (key){{"same", 4}, i};
	uint32_t got[20], tags[20], other;
	void *scratch = malloc(PL__SORT_SCRATCH(20));
	pl__byteseq q = {(const char *)k, sizeof *k, offsetof(key, b), offsetof(key, tag)};
	ck_assert_uint_eq(pl__sort_bytes(&q, 20, got, tags, scratch, &other), 1);
	ck_assert_uint_eq(other, 0);
	for (uint32_t i = 0; i < 20; i++)
		ck_assert(got[i] == i && tags[i] == i);
	free(scratch);
}
END_TEST

/* The first level fed one key at a time (as validation does): all keys, or
 * a feed stopped short of them (which the sort does not use), give the
 * order of the sort that reads the keys itself. */
START_TEST(fed_keys_sort_as_read_ones)
{
	enum { N = 9000 };
	key *k = calloc(N, sizeof *k);
	char (*pool)[24] = malloc(N * sizeof *pool);
	uint64_t rng = tl_seed(0xfeedu);
	for (uint32_t i = 0; i < N; i++) {
		int len = snprintf(pool[i], sizeof pool[i], "orders/%05u", (uint32_t)tl_below(&rng, 50000));
		k[i] = (key){{pool[i], (uint64_t)len}, (uint32_t)tl_rand(&rng)};
	}
	uint32_t *want = malloc(N * sizeof *want), *wtag = malloc(N * sizeof *wtag);
	uint32_t *got = malloc(N * sizeof *got), *gtag = malloc(N * sizeof *gtag);
	void *scratch = malloc(PL__SORT_SCRATCH(N));
	pl__byteseq q = {(const char *)k, sizeof *k, offsetof(key, b), offsetof(key, tag)};
	uint32_t wother = 0, wdup = pl__sort_bytes(&q, N, want, wtag, scratch, &wother);
	for (uint32_t stop = 0; stop < 3; stop++) {
		uint32_t fed = stop == 0 ? N : stop == 1 ? N / 2 : 0;
		pl__keyfeed f;
		pl__keyfeed_start(&f, &q, N, scratch);
		ck_assert_uint_eq(f.live, 1);
		for (uint32_t i = 0; i < fed; i++)
			pl__keyfeed_add(&f, k[i].b, k[i].tag);
		uint32_t other = 0, dup = pl__sort_fed(&q, N, &f, got, gtag, scratch, &other);
		ck_assert_uint_eq(dup, wdup);
		ck_assert_uint_eq(other, wother);
		ck_assert(memcmp(got, want, N * sizeof *got) == 0 && memcmp(gtag, wtag, N * sizeof *gtag) == 0);
	}
	free(k);
	free(pool);
	free(want);
	free(wtag);
	free(got);
	free(gtag);
	free(scratch);
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
	tcase_add_test(c, an_odd_key_among_a_shared_prefix);
	tcase_add_test(c, id_shapes_match_comparison_order);
	tcase_add_test(c, keys_all_equal);
	tcase_add_test(c, fed_keys_sort_as_read_ones);
	tcase_add_test(c, radix_u64_sorts);
	tcase_add_test(c, bytes_compare);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
