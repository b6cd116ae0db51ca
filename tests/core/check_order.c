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
		keyset ks = keyset_new(n, 64);
		key *k = ks.k;
		uint32_t plen = tl_below(&rng, 20); /* shared prefix, often past 7 bytes */
		/* Three kinds of key set: few values a byte (the packed first
		 * level), any byte value (too many for 32 packed bits: the plain
		 * level), and most keys agreeing for 20 bytes past the prefix
		 * (long runs of equal first-level keys). */
		uint32_t style = it % 3, same = tl_below(&rng, 8);
		for (uint32_t i = 0; i < n; i++) {
			char *p = keyset_at(&ks, i); /* room for the longest key, 50 bytes */
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
		keyset_sorts_as_qsort(&ks, n, what, seed + it);
	}
}
END_TEST

/* A key set's shape, and what its keys draw from: the prefix all share
 * (shape 1), the distinct values (3), the groups (4), the bound of the
 * numbers (6), and a variant of the shape. */
enum { KEY_ROOM = 160, SHAPES = 8 };
static const char *const shape_name[SHAPES] = {"random bytes",	   "long shared prefix", "prefixes of others",
					       "many duplicates",  "deep equal windows", "UUID-like",
					       "decimal ids",	   "mixed"};
typedef struct shape_param {
	uint32_t plen, values, groups, spread, variant;
} shape_param;

/* One key of the given shape into p (room for KEY_ROOM bytes); its length.
 * The keys before it, k[0..i), are there to repeat or cut short. */
static uint32_t shape_key(uint64_t *rng, uint32_t shape, const shape_param *sp, char *p, const key *k, uint32_t i)
{
	static const char hex[] = "0123456789abcdef0123456789ABCDEF";
	uint32_t len = 0;
	if (shape == 7) /* each key a shape of its own */
		shape = tl_below(rng, 7);
	switch (shape) {
	case 0: /* any byte value, short to past a level */
		len = tl_below(rng, 25);
		for (uint32_t j = 0; j < len; j++)
			p[j] = (char)tl_below(rng, 256);
		break;
	case 1: /* plen bytes all keys share, then few values a byte */
		len = sp->plen + tl_below(rng, 21);
		for (uint32_t j = 0; j < len; j++)
			p[j] = j < sp->plen ? (char)('p' + j % 3) : (char)(tl_below(rng, 4) == 0 ? 0 : 'a' + tl_below(rng, 3));
		break;
	case 2: /* three letters; half the keys cut from an earlier one */
		if (i > 0 && tl_below(rng, 2) == 0) {
			const key *o = &k[tl_below(rng, i)];
			len = tl_below(rng, (uint32_t)o->b.len + 1);
			memcpy(p, o->b.ptr, len);
		} else {
			len = tl_below(rng, 41);
			for (uint32_t j = 0; j < len; j++)
				p[j] = (char)('a' + tl_below(rng, 3));
		}
		break;
	case 3: /* one of `values` numbers behind a prefix */
		len = (uint32_t)snprintf(p, KEY_ROOM, "%.*sv%u", (int)(sp->variant % 17), "group/sub-group/",
					 tl_below(rng, sp->values));
		break;
	case 4: { /* one of `groups` runs of equal windows, 15 to 90 bytes
		   * and some more long, then a short tail; in one variant three
		   * keys in four in the first group (a run longer than the
		   * first level's room for runs) */
		uint32_t g = sp->variant & 2 && tl_below(rng, 4) != 0 ? 0 : tl_below(rng, sp->groups), glen = 15 * (1 + (g * 7 + sp->variant) % 6) + g % 15;
		for (uint32_t j = 0; j < glen; j++)
			p[j] = (char)('A' + (g + j / 15) % 5);
		len = glen + tl_below(rng, 4);
		for (uint32_t j = glen; j < len; j++)
			p[j] = (char)('a' + tl_below(rng, 2));
		break;
	}
	case 5: { /* 8-4-4-4-12 hex digits, lower or upper case */
		uint32_t up = sp->variant & 1 ? 16 : 0;
		for (uint32_t j = 0; j < 36; j++)
			p[j] = j == 8 || j == 13 || j == 18 || j == 23 ? '-' : hex[up + tl_below(rng, 16)];
		len = 36;
		break;
	}
	default: { /* numbers below `spread`, zero-padded or not, behind a prefix */
		static const char *const pre[] = {"", "shard-", "/cluster/prod/streams/orders/"};
		uint32_t x = tl_below(rng, sp->spread);
		int pad = sp->variant & 1 ? 10 : 1;
		len = (uint32_t)snprintf(p, KEY_ROOM, "%s%0*u", pre[sp->variant % 3], pad, x);
		break;
	}
	}
	if (i > 0 && tl_below(rng, 50) == 0) { /* a duplicate of an earlier key */
		const key *o = &k[tl_below(rng, i)];
		len = (uint32_t)o->b.len;
		memcpy(p, o->b.ptr, len);
	}
	return len;
}

/* Key sets of many shapes and sizes (0 to 100,000 keys), each sorted in
 * exactly PL__SORT_SCRATCH(n) bytes (sorts_as_qsort(): under the sanitizer
 * a byte past them is an error) as qsort sorts them. The shape and the size
 * come from the seed printed on failure: PL_TEST_SEED=<seed> PL_TEST_ITERS=1
 * replays that key set alone. */
START_TEST(key_sets_of_every_shape_sort_in_their_scratch)
{
	uint64_t seed = tl_seed(0x5c7a7c4u);
	uint32_t iters = tl_iters(240);
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t rng = seed + it;
		uint32_t shape = tl_below(&rng, SHAPES), size = tl_below(&rng, 100);
		uint32_t n = size < 10	 ? tl_below(&rng, 18)
			     : size < 55 ? tl_below(&rng, 2000)
			     : size < 92 ? tl_below(&rng, 20000)
					 : tl_below(&rng, 100001);
		shape_param sp;
		sp.plen = tl_below(&rng, 100);
		sp.values = 1 + tl_below(&rng, 1 + n / 4);
		sp.groups = 1 + tl_below(&rng, 6);
		sp.spread = 1 + tl_below(&rng, 1 + (uint32_t)(tl_rand(&rng) % 1000000000u));
		sp.variant = tl_below(&rng, 64);
		keyset ks = keyset_new(n, KEY_ROOM);
		key *k = ks.k;
		for (uint32_t i = 0; i < n; i++) {
			char *p = keyset_at(&ks, i);
			k[i].b = (pl_bytes){p, shape_key(&rng, shape, &sp, p, k, i)};
			k[i].tag = (uint32_t)tl_rand(&rng);
		}
		keyset_sorts_as_qsort(&ks, n, shape_name[shape], seed + it);
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
	c = tcase_create("property");
	tcase_set_timeout(c, 300);
	tcase_add_test(c, key_sets_of_every_shape_sort_in_their_scratch);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
