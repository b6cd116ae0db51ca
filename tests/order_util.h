/* order_util.h - the order suites' reference: a key set sorted by
 * pl__sort_bytes() and by qsort over pl__bytes_cmp(), compared place by
 * place, tag by tag, and by the first duplicate; and the key sets the
 * suites build for it. */
#ifndef ORDER_UTIL_H
#define ORDER_UTIL_H
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/view_build.h"
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

/* Sort n keys in exactly PL__SORT_SCRATCH(n) bytes and compare with qsort: every place and its tag, and the first
 * duplicate (the smallest index repeating an earlier key, and the earliest
 * key it repeats: in the sorted order, the second of a run of equal keys,
 * and the run's first). `what` and `seed` name the key set on failure. */
static void sorts_as_qsort(const key *k, uint32_t n, const char *what, uint64_t seed)
{
	uint32_t *got = malloc((n + 1) * sizeof *got), *want = malloc((n + 1) * sizeof *want);
	uint32_t *tags = malloc((n + 1) * sizeof *tags);
	size_t room = PL__SORT_SCRATCH(n);
	void *scratch = malloc(room > 0 ? room : 1); /* exactly: a byte past it is an overrun */
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

/* A key set in the making: room for n keys (and one more, so that n may be
 * 0), each with `room` bytes of its own in one pool. */
typedef struct keyset {
	key *k;
	char *pool;
	size_t room;
} keyset;

static inline keyset keyset_new(uint32_t n, size_t room)
{
	keyset s = {calloc((size_t)n + 1, sizeof(key)), malloc(((size_t)n + 1) * room), room};
	return s;
}

/* Key i's bytes. */
static inline char *keyset_at(const keyset *s, uint32_t i)
{
	return s->pool + (size_t)i * s->room;
}

/* The first n keys sort as qsort sorts them (sorts_as_qsort()); the set is
 * freed. */
static inline void keyset_sorts_as_qsort(keyset *s, uint32_t n, const char *what, uint64_t seed)
{
	sorts_as_qsort(s->k, n, what, seed);
	free(s->k);
	free(s->pool);
}

#endif
