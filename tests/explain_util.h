/*
 * explain_util.h - what the suites of pl_action_explain()'s sentences share
 * (check_explain_broker.c, check_explain_fleet.c, check_explain_region.c):
 * a snapshot with names to render, the sentence of an action checked against
 * the documented cut-to-fit contract at every buffer size, and the check that
 * a policy's own action reads as its own sentence, naming what it moves.
 * Header-only: every function is static inline.
 */
#ifndef PL_EXPLAIN_UTIL_H
#define PL_EXPLAIN_UTIL_H

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

#define EU_MAX 1024

/* Members b0 (za), b1 (za), b2 (zb), b3 (zc); stream orders; shard 0
 * "orders/07" of orders, led by b0 with replicas b0, b1, b2. */
static inline tl *eu_names(void)
{
	tl *t = tl_new();
	tl_member(t, "b0", "za");
	tl_member(t, "b1", "za");
	tl_member(t, "b2", "zb");
	tl_member(t, "b3", "zc");
	tl_stream(t, "orders");
	tl_shard(t, "orders/07", 0, 0, 3, 0u, 1u, 2u);
	return t;
}

/* An action on orders/07 (shard 0, stream 0). */
static inline pl_action eu_act(uint32_t kind, uint32_t reason, uint32_t from, uint32_t to)
{
	return tl_action(kind, reason, 0, 0, from, to);
}

/* The sentence of a, into a buffer the suite owns (the next call reuses
 * it). Every smaller buffer gets the same return (the whole length, as
 * snprintf) and holds the sentence's first cap - 1 bytes, NUL-terminated;
 * cap 0 writes nothing. */
static inline const char *eu_say(tl *t, const pl_action *a)
{
	static char full[EU_MAX];
	char cut[EU_MAX + 1];
	const pl_snapshot *s = tl_snap(t);
	int n = pl_action_explain(s, a, full, sizeof full);
	ck_assert_int_gt(n, 0);
	ck_assert_int_lt(n, EU_MAX);
	ck_assert_uint_eq(strlen(full), (size_t)n);
	ck_assert_int_eq(pl_action_explain(s, a, NULL, 0), n);
	for (size_t cap = 0; cap <= (size_t)n + 1; cap++) {
		memset(cut, '#', sizeof cut);
		ck_assert_int_eq(pl_action_explain(s, a, cut, cap), n);
		if (cap == 0) {
			ck_assert_int_eq(cut[0], '#');
			continue;
		}
		size_t kept = cap - 1 < (size_t)n ? cap - 1 : (size_t)n;
		ck_assert_msg(memcmp(cut, full, kept) == 0 && cut[kept] == '\0', "cap %zu: \"%s\"", cap, cut);
		ck_assert_int_eq(cut[cap], '#'); /* nothing past cap */
	}
	return full;
}

/* Does the sentence hold the bytes b? */
static inline int eu_has(const char *s, pl_bytes b)
{
	char w[256];
	snprintf(w, sizeof w, "%.*s", (int)b.len, b.len ? b.ptr : "");
	return strstr(s, w) != NULL;
}

/* Reasons seen, indexed by reason & 31 (every reason is below 32). */
#define EU_REASONS 32

/* An action a policy emitted reads as its own sentence: not the fallback
 * "<kind> of <shard> from <from> to <to>: <reason>" of an action no family
 * knows, and it names the shard and every member it names. Its reason is
 * marked in seen[EU_REASONS]. */
static inline void eu_own_sentence(tl *t, const pl_action *a, uint64_t seed, uint8_t *seen)
{
	seen[a->reason % EU_REASONS] = 1;
	const char *s = eu_say(t, a);
	char fallback[64];
	snprintf(fallback, sizeof fallback, "%s of ", pl_action_kind_name(a->kind));
	ck_assert_msg(strncmp(s, fallback, strlen(fallback)) != 0, "seed %llu: %s/%s has no sentence: %s",
		      (unsigned long long)seed, pl_action_kind_name(a->kind), pl_reason_name(a->reason), s);
	ck_assert_msg(eu_has(s, t->k[a->shard].key), "seed %llu: no shard: %s", (unsigned long long)seed, s);
	if (a->from != PL_NONE)
		ck_assert_msg(eu_has(s, t->m[a->from].id), "seed %llu: no from: %s", (unsigned long long)seed, s);
	if (a->to != PL_NONE)
		ck_assert_msg(eu_has(s, t->m[a->to].id), "seed %llu: no to: %s", (unsigned long long)seed, s);
}

/* Every reason of want[n] was seen in the `iters` layouts (`what`) from
 * seed0: the property reached each sentence it is meant to check. A short
 * run (PL_TEST_ITERS under EU_MIN_ITERS) checks only what it met. */
#define EU_MIN_ITERS 10
static inline void eu_saw_every(const uint8_t *seen, const uint32_t *want, uint32_t n, const char *what,
				uint32_t iters, uint64_t seed0)
{
	for (uint32_t i = 0; i < n && iters >= EU_MIN_ITERS; i++)
		ck_assert_msg(seen[want[i] % EU_REASONS], "no %s action in %u %s from seed %llu", pl_reason_name(want[i]),
			      iters, what, (unsigned long long)seed0);
}

#endif
