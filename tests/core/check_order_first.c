/* check_order_first.c - the sort's first level (order_first.c): keys packed
 * into integers from the bytes that vary, the plan a sample of keys gives
 * and the keys that break it (the keys fed by validation's pass:
 * check_keyfeed.c). */
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

/* Keys whose varying bytes pass what the packed first level holds (the
 * values present, multiplied out, past 40 bits) are packed by their leading
 * bytes alone: random UUIDs, a stream's hash in hex and a partition, hex
 * digits of every length with NUL bytes among them (a shorter key's window
 * is padded with zeros: "ab" and "ab\0" agree in the bytes packed), and a
 * few long shared heads with any bytes after them, so that runs of equal
 * packed keys are common and some of their keys end before the bytes
 * packed do. Each in a random order, with duplicates: the order of qsort. */
START_TEST(truncated_plans_match_comparison_order)
{
	uint64_t seed = tl_seed(0x7c0dau);
	static const char hex[] = "0123456789abcdef";
	for (uint32_t it = 0; it < 48; it++) {
		uint64_t rng = seed + it;
		uint32_t f = it % 4, n = 17 + tl_below(&rng, it % 8 < 4 ? 6000 : 400);
		/* In some, half the keys share one head and the rest take
		 * random ones: a run of about half the keys, past what the
		 * passes' spare buffer holds, with the leading bytes varying. */
		int half = it % 8 == 3 || it % 8 == 5;
		uint32_t heads = 1 + tl_below(&rng, 40);
		keyset ks = keyset_new(n, 48);
		key *k = ks.k;
		for (uint32_t i = 0; i < n; i++) {
			char *p = keyset_at(&ks, i);
			int len = 0;
			if (f == 0) { /* 8-4-4-4-12 */
				for (int j = 0; j < 36; j++)
					p[j] = j == 8 || j == 13 || j == 18 || j == 23 ? '-' : hex[tl_below(&rng, 16)];
				len = 36;
			} else if (f == 1) { /* a hash of one of `heads` streams, a partition */
				uint64_t h = (half ? (i & 1 ? tl_rand(&rng) : 0) : tl_below(&rng, heads) + 1) *
					     UINT64_C(0x9e3779b97f4a7c15);
				len = snprintf(p, 48, "%016llx-%04u", (unsigned long long)(h ^ h >> 29), tl_below(&rng, 1000));
			} else if (f == 2) { /* 1 to 24 hex digits, a NUL now and then */
				len = 1 + (int)tl_below(&rng, 24);
				for (int j = 0; j < len; j++)
					p[j] = tl_below(&rng, 20) == 0 ? '\0' : hex[tl_below(&rng, 16)];
			} else { /* one of `heads` heads of 8 to 13 hex digits, then 0 to 5 bytes of any value */
				uint64_t hr = half ? (i & 1 ? tl_rand(&rng) : tl_seed(0x4eadu)) : tl_seed(0x4eadu) + tl_below(&rng, heads);
				int hl = 8 + (int)tl_below(&hr, 6);
				for (int j = 0; j < hl; j++)
					p[j] = hex[tl_below(&hr, 16)];
				len = hl + (int)tl_below(&rng, 6);
				for (int j = hl; j < len; j++)
					p[j] = (char)tl_below(&rng, 256);
			}
			if (i > 0 && tl_below(&rng, 50) == 0) { /* a duplicate */
				uint32_t o = tl_below(&rng, i);
				memcpy(p, k[o].b.ptr, (size_t)k[o].b.len);
				len = (int)k[o].b.len;
			}
			k[i].b = (pl_bytes){p, (uint64_t)len};
			k[i].tag = i * 5u;
		}
		char what[32];
		snprintf(what, sizeof what, "truncated shape %u", f);
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

/* Keys whose packed range is at most two a key (decimal ids that take
 * every value of their digits, or most of them) are placed by a table of
 * the range, in the copy's room past the words: no radix pass. Grids of
 * stream and partition numbers, through the feed (4,096 keys and more: the
 * keys go straight to the table) and through the windows (fewer), in a
 * random order: the order of qsort, and the table left in the scratch (slot
 * k the index of the key of packed key k), which the radix passes would not
 * leave. A key met twice (a
 * duplicate, or long keys alike in the 15 bytes a level packs) sends the
 * sort to the passes: the order, the tags and the first duplicate stay
 * those of qsort. */
START_TEST(a_dense_range_is_placed_by_a_table)
{
	uint64_t seed = tl_seed(0xde45eu);
	for (uint32_t it = 0; it < 32; it++) {
		uint64_t rng = seed + it;
		uint32_t kind = it % 4, streams = it / 4 % 2 ? 100 : 10, parts = it / 8 % 2 ? 100 : 10;
		if (it >= 16)
			streams = 100, parts = 100; /* the feed's side of 4,096 */
		const char *tail = kind == 3 ? "-xxxxxxxxxxxxxxxxxx" : "";
		keyset ks = keyset_new(streams * parts + streams * parts / 97 + 1, 48);
		key *k = ks.k;
		uint32_t n = 0;
		for (uint32_t i = 0; i < streams * parts; i++) {
			if (kind == 1 && tl_below(&rng, 4) == 0)
				continue; /* a quarter dropped: gaps in the range */
			char *p = keyset_at(&ks, n);
			int len = snprintf(p, 48, "topic-%03u/%02u%s", i / parts, i % parts, tail);
			k[n] = (key){{p, (uint64_t)len}, n * 3u};
			n++;
			if (kind == 3 && i % 97 == 11) { /* alike in the 15 bytes packed, then not */
				p = keyset_at(&ks, n);
				len = snprintf(p, 48, "topic-%03u/%02u%sy", i / parts, i % parts, tail);
				k[n] = (key){{p, (uint64_t)len}, n * 3u};
				n++;
			}
		}
		if (kind == 2) { /* a duplicate */
			uint32_t a = tl_below(&rng, n), b = (a + 1 + tl_below(&rng, n - 1)) % n;
			memcpy(keyset_at(&ks, b), k[a].b.ptr, (size_t)k[a].b.len);
			k[b].b.len = k[a].b.len;
		}
		for (uint32_t i = n; i > 1; i--) {
			uint32_t j = tl_below(&rng, i);
			key t = k[i - 1];
			k[i - 1] = k[j];
			k[j] = t;
		}
		char what[48];
		snprintf(what, sizeof what, "dense kind %u, %u keys", kind, n);
		if (kind <= 1) { /* distinct: the table is what sorted them */
			uint32_t *got = malloc(n * sizeof *got), *tags = malloc(n * sizeof *tags), other;
			void *scratch = malloc(PL__SORT_SCRATCH(n));
			pl__byteseq q = {(const char *)k, sizeof *k, offsetof(key, b), offsetof(key, tag)};
			ck_assert_uint_eq(pl__sort_bytes(&q, n, got, tags, scratch, &other), PL_NONE);
			/* The table: at the scratch's start when fed directly (4,096
			 * keys and more), else past the words. */
			const uint32_t *slot = (const uint32_t *)scratch + (n >= 4096 ? 0 : 2 * (size_t)n);
			for (uint32_t r = 0, x = 0; r < n; x++) {
				ck_assert_msg(x < 2 * n, "seed %llu (%s): no table", (unsigned long long)seed, what);
				if (slot[x] == PL_NONE)
					continue;
				ck_assert_msg(slot[x] == got[r], "seed %llu (%s): slot %u holds %u, place %u has %u",
					      (unsigned long long)seed, what, x, slot[x], r, got[r]);
				r++;
			}
			free(got);
			free(tags);
			free(scratch);
		}
		keyset_sorts_as_qsort(&ks, n, what, seed + it);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("order_first");
	TCase *c = tcase_create("first level");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, an_odd_key_among_a_shared_prefix);
	tcase_add_test(c, id_shapes_match_comparison_order);
	tcase_add_test(c, truncated_plans_match_comparison_order);
	tcase_add_test(c, a_run_at_the_bound_of_the_run_room);
	tcase_add_test(c, keys_all_equal);
	tcase_add_test(c, a_dense_range_is_placed_by_a_table);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
