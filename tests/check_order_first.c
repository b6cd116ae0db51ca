/* check_order_first.c - the sort's first level (order_first.c): keys packed
 * into integers from the bytes that vary, the plan a sample of keys gives
 * and the keys that break it, and keys fed by validation's pass. */
#include "order_util.h"

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
		keyset ks = keyset_new(n, 48);
		key *k = ks.k;
		uint32_t spread = 1 + tl_below(&rng, 100000);
		for (uint32_t i = 0; i < n; i++) {
			char *p = keyset_at(&ks, i);
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
		keyset_sorts_as_qsort(&ks, n, what, seed + it);
	}
}
END_TEST

/* Runs of equal packed keys are sorted in place in the room past the tags,
 * 16 bytes a key: a run of up to two thirds of the keys fits, one more key
 * sends the sort to the byte levels. At both sides of that bound, for an
 * even and an odd n (the tags' padding), in a scratch of exactly
 * PL__SORT_SCRATCH(n) bytes: the order of qsort, nothing written past it. */
START_TEST(a_run_at_the_bound_of_the_run_room)
{
	for (uint32_t n = 3000; n <= 3001; n++) {
		for (uint32_t more = 0; more <= 1; more++) {
			uint32_t m = 16 * n / 24 + more; /* keys in the run, 24 bytes each */
			keyset ks = keyset_new(n, 24);
			key *k = ks.k;
			uint64_t rng = tl_seed(0x7b0u) + n + more;
			for (uint32_t i = 0; i < n; i++) {
				/* The run: 15 bytes past the shared "K" alike, then
				 * bytes left; the rest: "K" and a number. */
				char *p = keyset_at(&ks, i);
				int len = i < m ? snprintf(p, 24, "Kzzzzzzzzzzzzzzz%05u", tl_below(&rng, 100000))
					       : snprintf(p, 24, "K%04u", i - m);
				k[i] = (key){{p, (uint64_t)len}, i};
			}
			for (uint32_t i = n; i > 1; i--) { /* the run spread among the rest */
				uint32_t j = tl_below(&rng, i);
				key t = k[i - 1];
				k[i - 1] = k[j];
				k[j] = t;
			}
			char what[32];
			snprintf(what, sizeof what, "a run of %u in %u", m, n);
			keyset_sorts_as_qsort(&ks, n, what, tl_seed(0x7b0u));
		}
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

/* Feed every key of k to a feed started on q, by words where the key has
 * the first key's length (or, with `windows`, never), each key in its own
 * scratch of PL__SORT_SCRATCH(n). */
static void *feed_all(const pl__byteseq *q, const key *k, uint32_t n, int windows, pl__keyfeed *f)
{
	void *scratch = malloc(PL__SORT_SCRATCH(n));
	pl__keyfeed_start(f, q, n, scratch);
	if (windows)
		f->flen = UINT64_MAX;
	for (uint32_t i = 0; i < n; i++)
		pl__keyfeed_add(f, k[i].b, k[i].tag);
	return scratch;
}

/* Keys of one length behind prefixes of 0 to 24 bytes (so the bytes the
 * first level reads end at 8 to 39: two loads, four, or windows), each in
 * an allocation of exactly its bytes (a load past a key is an error under
 * the sanitizer), some with a key that breaks the sample's plan (a prefix
 * byte, a constant byte, a value of another class, another length), some
 * shorter than a load: the feed by words and the feed by windows end the
 * same (live or not) with the same words, tags and digit counts, and the
 * sort with the feed gives the comparison order. The seed is printed on
 * failure. */
START_TEST(words_and_windows_feed_the_same)
{
	static const char *pre[] = {"", "t-", "topic-0", "orders/eu-", "tenant-42/stream-", "a-very-long-prefix/x-"};
	uint64_t seed = tl_seed(0xf00d5u);
	uint32_t iters = tl_iters(48), by_words = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t rng = seed + it;
		uint32_t n = 4096 + tl_below(&rng, 6000), np = sizeof pre / sizeof pre[0];
		const char *p0 = pre[tl_below(&rng, np)];
		uint32_t digits = 1 + tl_below(&rng, 14), hex = tl_below(&rng, 3) == 0, plen = (uint32_t)strlen(p0);
		uint32_t spread = 1 + tl_below(&rng, 1 + (uint32_t)(tl_rand(&rng) % 2000000u));
		uint32_t breaks = tl_below(&rng, 6); /* 0..3: one key breaks the plan that way */
		uint32_t sep = tl_below(&rng, 2);
		key *k = calloc(n, sizeof *k);
		for (uint32_t i = 0; i < n; i++) {
			char buf[64];
			uint64_t v = tl_below(&rng, spread);
			int len = hex ? snprintf(buf, sizeof buf, "%s%0*llx", p0, (int)digits, (unsigned long long)v)
				      : snprintf(buf, sizeof buf, "%s%0*llu", p0, (int)digits, (unsigned long long)v);
			if (sep) /* a constant byte after the varying ones, then two digits */
				len += snprintf(buf + len, sizeof buf - (size_t)len, "/%02u", (unsigned)(v % 97));
			char *b = malloc((size_t)len);
			memcpy(b, buf, (size_t)len);
			k[i] = (key){{b, (uint64_t)len}, (uint32_t)tl_rand(&rng)};
		}
		if (breaks < 4) {
			uint32_t at = 1 + tl_below(&rng, n - 1);
			char *b = (char *)(uintptr_t)k[at].b.ptr;
			uint64_t len = k[at].b.len;
			if (breaks == 0 && plen > 0)
				b[tl_below(&rng, plen)] ^= 0x20; /* a prefix byte */
			else if (breaks == 1 && sep)
				b[len - 3] = '.'; /* the separator, constant */
			else if (breaks == 1)
				b[plen] = 'z'; /* the leading digit, constant in most sets */
			else if (breaks == 2)
				b[len - 1] = '~'; /* a value of no class the sample saw */
			else
				k[at].b.len = len - 1 - tl_below(&rng, (uint32_t)len); /* shorter */
		}
		pl__byteseq q = {(const char *)k, sizeof *k, offsetof(key, b), offsetof(key, tag)};
		pl__keyfeed fw, fx;
		void *sw = feed_all(&q, k, n, 0, &fw), *sx = feed_all(&q, k, n, 1, &fx);
		by_words += fw.flen != UINT64_MAX;
		ck_assert_msg(fw.live == fx.live, "seed %llu: live %u by words, %u by windows", (unsigned long long)(seed + it),
			      fw.live, fx.live);
		if (fw.live) {
			ck_assert_uint_eq(fw.next, n);
			ck_assert_uint_eq(fx.next, n);
			ck_assert_msg(memcmp(fw.w, fx.w, n * sizeof *fw.w) == 0 && memcmp(fw.tags, fx.tags, n * sizeof *fw.tags) == 0 &&
					      memcmp(fw.counts, fx.counts, (size_t)fw.np * sizeof fw.counts[0]) == 0,
				      "seed %llu: the feeds differ", (unsigned long long)(seed + it));
		}
		free(sw);
		free(sx);
		sorts_as_qsort(k, n, "one length", seed + it);
		for (uint32_t i = 0; i < n; i++)
			free((void *)(uintptr_t)k[i].b.ptr);
		free(k);
	}
	ck_assert_msg(by_words >= iters / 3, "%u of %u key sets fed by words", by_words, iters);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("order_first");
	TCase *c = tcase_create("first level");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, an_odd_key_among_a_shared_prefix);
	tcase_add_test(c, id_shapes_match_comparison_order);
	tcase_add_test(c, a_run_at_the_bound_of_the_run_room);
	tcase_add_test(c, keys_all_equal);
	tcase_add_test(c, fed_keys_sort_as_read_ones);
	tcase_add_test(c, words_and_windows_feed_the_same);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
