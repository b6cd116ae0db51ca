/* check_keyfeed.c - the sort's first level fed one key at a time by
 * validation's pass (keyfeed.c): by words where a key has the first key's
 * length, by windows otherwise, the same words, tags and counts either way,
 * and a feed stopped short that the sort does not use. */
#include "order_util.h"

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
		pl__keyfeed_start(&f, &q, N, scratch, 0);
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
	pl__keyfeed_start(f, q, n, scratch, 0);
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

/* Every count of varying bytes the feed by words reads in place (1 to 15:
 * the window's bytes before the last, which one length keeps constant) and
 * every count of radix digits (1 to 4), in one or two pairs of loads: keys
 * "key-000/" and 1 to 15 letters a..f (six values a byte, so even 15 pack
 * in 40 bits). The feed by words and by windows end alike; a key with a
 * letter past f ends both. */
START_TEST(every_count_of_varying_bytes)
{
	enum { N = 4096 };
	uint64_t rng = tl_seed(0xabcdefu);
	int digits_seen[5] = {0};
	for (uint32_t nvar = 1; nvar <= 15; nvar++) {
		for (int bad = 0; bad < 2; bad++) {
			key *k = calloc(N, sizeof *k);
			for (uint32_t i = 0; i < N; i++) {
				char *b = malloc(8 + nvar);
				memcpy(b, "key-000/", 8);
				for (uint32_t j = 0; j < nvar; j++)
					b[8 + j] = (char)('a' + tl_below(&rng, 6));
				k[i] = (key){{b, 8 + (uint64_t)nvar}, i};
			}
			if (bad)
				((char *)(uintptr_t)k[N / 2].b.ptr)[8 + nvar - 1] = 'z';
			pl__byteseq q = {(const char *)k, sizeof *k, offsetof(key, b), offsetof(key, tag)};
			pl__keyfeed fw, fx;
			void *sw = feed_all(&q, k, N, 0, &fw), *sx = feed_all(&q, k, N, 1, &fx);
			ck_assert_msg(fw.flen == 8 + nvar && fw.fnv == (int)nvar, "%u letters: flen %llu, fnv %d", nvar,
				      (unsigned long long)fw.flen, (int)fw.fnv);
			ck_assert_uint_eq(fw.fwords, 8 + nvar <= 16 ? 2 : 4);
			ck_assert_uint_eq(fw.live, !bad);
			ck_assert_uint_eq(fx.live, !bad);
			if (!bad) {
				digits_seen[fw.np]++;
				ck_assert(memcmp(fw.w, fx.w, N * sizeof *fw.w) == 0);
				ck_assert(memcmp(fw.counts, fx.counts, (size_t)fw.np * sizeof fw.counts[0]) == 0);
			}
			free(sw);
			free(sx);
			/* The same keys through validation's own feed (inline there). */
			pl_shard *sh = calloc(N, sizeof *sh);
			for (uint32_t i = 0; i < N; i++) {
				sh[i].key = k[i].b;
				sh[i].stream = sh[i].leader = sh[i].moving_to = PL_NONE;
			}
			pl_snapshot snap = PL_SNAPSHOT_INIT;
			snap.shards = sh;
			snap.n_shards = N;
			size_t need = pl_snapshot_work_size(&snap);
			void *work = malloc(need);
			pl_diag d;
			int rc = pl_snapshot_validate(&snap, work, need, &d);
			ck_assert(rc == 0 || rc == PL_E_DUP_SHARD); /* six letters repeat */
			free(work);
			free(sh);
			sorts_as_qsort(k, N, "letters a..f", nvar);
			for (uint32_t i = 0; i < N; i++)
				free((void *)(uintptr_t)k[i].b.ptr);
			free(k);
		}
	}
	for (int d = 1; d <= 4; d++)
		ck_assert_msg(digits_seen[d] > 0, "no key set sorted in %d radix digits", d);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("keyfeed");
	TCase *c = tcase_create("feed");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, fed_keys_sort_as_read_ones);
	tcase_add_test(c, words_and_windows_feed_the_same);
	tcase_add_test(c, every_count_of_varying_bytes);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
