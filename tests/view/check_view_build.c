/* check_view_build.c - a fresh build whose key feed is direct (the keys of
 * a dense range go straight to a table of it, and validation writes the
 * shard states in its own pass) answers every call as a build that is not:
 * the same snapshot built with a hint that matches nothing, which takes
 * the words, the sort and the state pass. Dense grids of stream and
 * partition numbers large enough for the table's room, with replicas,
 * leaders, moves and overrides drawn at random; and each way the feed
 * leaves the table midway (a duplicate, keys alike in the 15 bytes packed,
 * a key outside the plan, a shard past the replica room), the refusals
 * and answers the same. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/view_build.h"
#include "testutil.h"
#include "view_answers.h"

enum { NM = 24, NS = 100, NP = 100, NK = NS * NP };

enum shape { PLAIN, DUPLICATE, ALIKE, OUTSIDE, PAST_ROOM, SHAPES };

/* A grid of NK shards "t-SS/PP" over NM members (every value of the four
 * digits: a range of one a key), shuffled; the shape's change at a random
 * place past the first half. ALIKE keys are longer, and every 500th takes
 * the stream and partition of the one before it, then differs past the 15
 * bytes the level packs. */
static tl *grid(enum shape shape, uint64_t *rng)
{
	tl *t = tl_new();
	for (uint32_t m = 0; m < NM; m++)
		tl_member(t, tl_str(t, "m%02u", m), tl_str(t, "z%u", m % 3));
	for (uint32_t s = 0; s < NS; s++)
		tl_stream(t, tl_str(t, "t-%02u", s));
	uint32_t at = NK / 2 + tl_below(rng, NK / 2);
	for (uint32_t i = 0; i < NK; i++) {
		uint32_t s = i / NP, p = i % NP;
		const char *key = tl_str(t, "t-%02u/%02u", s, p);
		if (shape == ALIKE)
			key = i % 500 == 8 ? tl_str(t, "t-%02u/%02u-aaaaaaaaaaaaaab", s, p - 1)
					   : tl_str(t, "t-%02u/%02u-aaaaaaaaaaaaaaa", s, p);
		if (shape == OUTSIDE && i == at)
			key = tl_str(t, "t-%02u/x%02u", s, p); /* a letter where the plan has digits */
		uint32_t nrep = tl_below(rng, 4), k = tl_shard(t, key, tl_below(rng, 10) ? s : PL_NONE, PL_NONE, 0);
		tl_add_replicas(t, k, nrep, rng);
		if (nrep > 0 && tl_below(rng, 5))
			t->k[k].leader = t->k[k].replicas[tl_below(rng, nrep)];
		if (t->k[k].leader != PL_NONE && tl_below(rng, 20) == 0)
			t->k[k].moving_to = (t->k[k].leader + 1 + tl_below(rng, NM - 1)) % NM;
		if (tl_below(rng, 50) == 0)
			tl_override(t, k, tl_below(rng, NM), tl_below(rng, 2), 100 + i);
	}
	if (shape == PAST_ROOM) /* five replicas where the options' room is three */
		tl_add_replicas(t, at, 5, rng);
	if (shape == DUPLICATE) {
		uint32_t other = tl_below(rng, at);
		t->k[at].key = t->k[other].key;
	}
	tl *sh = tl_shuffled(t, rng);
	tl_free(t);
	return sh;
}

/* A view of t's snapshot, the options' replica room 3 (memory for the
 * default room, which a shard of more replicas may need). */
static pl_view *build(tl *t, const pl_view *hint, void **mem, int *rc, pl_diag *d)
{
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	opt.max_replicas = 3;
	opt.reuse = hint;
	const pl_snapshot *s = tl_snap(t);
	size_t size = pl_view_size(s);
	*mem = calloc(1, size);
	pl_view *v = NULL;
	*rc = pl_view_init(&v, *mem, size, s, &opt, d);
	return v;
}

START_TEST(a_direct_build_answers_as_one_that_is_not)
{
	uint64_t seed = tl_seed(0xd17ec7u);
	uint32_t iters = tl_iters(10);
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t rng = seed + it;
		enum shape shape = (enum shape)(it % SHAPES);
		tl *t = grid(shape, &rng);
		/* The hint: the same counts, the first key another. */
		tl *h = grid(PLAIN, &rng);
		h->k[0].key = (pl_bytes){"~", 1};
		void *hmem, *amem, *bmem;
		int rc;
		pl_diag da, db;
		pl_view *hint = build(h, NULL, &hmem, &rc, &da);
		ck_assert_int_eq(rc, 0);
		ck_assert_uint_eq(hint->direct, 0); /* the odd key is outside the plan */
		pl_view *a = build(t, NULL, &amem, &rc, &da);
		int rb;
		pl_view *b = build(t, hint, &bmem, &rb, &db);
		ck_assert_msg(rc == rb, "seed %" PRIu64 " shape %d: %d against %d", seed, shape, rc, rb);
		if (rc != 0) { /* refused alike, nothing written to the view pointer */
			ck_assert_int_eq(shape, DUPLICATE);
			ck_assert_int_eq(rc, PL_E_DUP_SHARD);
			ck_assert_ptr_null(a);
			ck_assert_uint_eq(da.index, db.index);
			ck_assert_uint_eq(da.other, db.other);
		} else {
			/* A plain grid keeps the feed direct to the end, and so
			 * does the build again with a larger room. */
			ck_assert_msg(a->direct == (shape == PLAIN || shape == PAST_ROOM), "seed %" PRIu64 " shape %d: direct %u",
				      seed, shape, a->direct);
			ck_assert_uint_eq(b->direct, 0);
			same_answers(a, b, t, seed, (uint32_t)shape);
		}
		free(hmem);
		free(amem);
		free(bmem);
		tl_free(h);
		tl_free(t);
	}
}
END_TEST

/* Copies in flight, or many members for the shards (the zones' sort would
 * reach the streams the feed keeps): not direct, and the copy counts. */
START_TEST(many_members_or_copies_are_not_direct)
{
	uint64_t rng = tl_seed(0xd17ec8u);
	tl *t = grid(PLAIN, &rng);
	void *mem;
	int rc;
	pl_diag d;
	pl_view *v = build(t, NULL, &mem, &rc, &d);
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(v->direct, 1);
	/* A peer being added to a shard of fewer than three replicas: the
	 * tallies count it finished, after the states, so not direct. */
	uint32_t k = 0;
	while (t->k[k].replica_count >= 3 || t->k[k].moving_to != PL_NONE)
		k++;
	uint32_t to = 0;
	while (to == t->k[k].replicas[0] || to == t->k[k].replicas[1])
		to++;
	pl_tally before = tl_member_tally(v, to);
	pl_copy cp = {k, to, PL_NONE, 0};
	pl_snapshot s = *tl_snap(t);
	s.copies = &cp;
	s.n_copies = 1;
	size_t size = pl_view_size(&s);
	void *cmem = calloc(1, size);
	pl_view *c = NULL;
	ck_assert_int_eq(pl_view_init(&c, cmem, size, &s, NULL, &d), 0);
	ck_assert_uint_eq(c->direct, 0);
	pl_tally after = tl_member_tally(c, to);
	ck_assert_uint_eq(after.replicas, before.replicas + 1);
	free(cmem);
	free(mem);
	for (uint32_t m = NM; m < NK / 4; m++)
		tl_member(t, tl_str(t, "x%05u", m), NULL);
	v = build(t, NULL, &mem, &rc, &d);
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(v->direct, 0);
	free(mem);
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("view_build");
	TCase *c = tcase_create("direct feed");
	tcase_set_timeout(c, 300);
	tcase_add_test(c, a_direct_build_answers_as_one_that_is_not);
	tcase_add_test(c, many_members_or_copies_are_not_direct);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
