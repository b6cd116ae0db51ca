/* check_broker_search_lists.c - the lists a search of broker_search.c
 * starts from: the sources in rank order (the most over first, ties on the
 * count per weight, then the smaller id; the first as many as asked) and the destination
 * list (empty, at most max members, the best per zone with per_zone),
 * against a model of the ranking on fixed and random layouts. */
#include <stdlib.h>

#include "broker_util.h"
#include "broker_search_util.h"

/* ---- sources in rank order, destination lists: a model ------------------------ */

static int id_before(const tl *t, uint32_t a, uint32_t b)
{
	const pl_bytes *x = &t->m[a].id, *y = &t->m[b].id;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->ptr, y->ptr, n);
	return c ? c < 0 : x->len < y->len;
}

/* What a scope breaks ties on: leaders in total (the cluster of leaders),
 * the projected totals (a stream of leaders, after pl__bk_project()),
 * replicas in total (a scope of replicas). */
static uint64_t tie_count(const pl_view *v, const pl__scope *sc, uint32_t m)
{
	if (sc->rep)
		return tl_member_tally(v, m).replicas;
	if (sc->s != PL_NONE)
		return (uint64_t)(v->m_scratch[m] & (PL__BK_MARK - 1));
	return tl_member_tally(v, m).leaders;
}

/* Does member a (key ka) rank before b (key kb): the larger key, then
 * (sources) the most or (destinations) the fewest of tie_count() per
 * weight, then the smaller id? */
static int ranks_before(const tl *t, const pl_view *v, const pl__scope *sc, int source, uint32_t ka, uint32_t a,
			uint32_t kb, uint32_t b)
{
	if (ka != kb)
		return ka > kb;
	uint32_t wa = t->m[a].weight ? t->m[a].weight : 1, wb = t->m[b].weight ? t->m[b].weight : 1;
	uint64_t l = tie_count(v, sc, a) * wb, r = tie_count(v, sc, b) * wa;
	if (l != r)
		return source ? l > r : l < r;
	return id_before(t, a, b);
}

/* The members with their keys, sorted by rank (insertion sort). */
static uint32_t ranked(const tl *t, const pl_view *v, const pl__scope *sc, int source, uint32_t *m, uint32_t *key)
{
	uint32_t n = 0;
	for (uint32_t x = 0; x < t->nm; x++) {
		uint32_t k;
		if (!bu_eligible(t, x))
			continue;
		if (!(source ? pl__bk_source_key(v, sc, x, &k) : pl__bk_dest_key(v, sc, x, &k)))
			continue;
		uint32_t i = n++;
		while (i > 0 && ranks_before(t, v, sc, source, k, x, key[i - 1], m[i - 1])) {
			m[i] = m[i - 1];
			key[i] = key[i - 1];
			i--;
		}
		m[i] = x;
		key[i] = k;
	}
	return n;
}

/* One of the four scopes: a stream's or the cluster's, of leaders or of
 * replicas, at a level. */
static pl__scope some_scope(pl__bk *b, const tl *t, uint64_t *rng)
{
	pl__scope sc;
	uint32_t rep = tl_below(rng, 2), s = t->ns ? tl_below(rng, t->ns + 1) : 0;
	if (s == t->ns || t->ns == 0) {
		if (rep)
			pl__bk_rscope_cluster(b, &sc);
		else
			pl__bk_scope_cluster(b, &sc);
	} else if (rep) {
		pl__bk_rscope_stream(b, s, &sc);
	} else {
		pl__bk_project(b);
		pl__bk_scope_stream(b, s, &sc);
	}
	sc.level = (int)tl_below(rng, rep ? 4 : 3);
	return sc;
}

/* Random layouts, some weights, caps, a draining or a down member. */
static tl *weighted_layout(uint64_t *rng)
{
	uint32_t nm = 2 + tl_below(rng, 9);
	tl *t = tl_random(rng, nm, tl_below(rng, 4), tl_below(rng, 60), 1 + tl_below(rng, 3), tl_below(rng, 2));
	for (uint32_t m = 0; m < nm; m++) {
		if (tl_below(rng, 3) == 0)
			t->m[m].weight = 1 + tl_below(rng, 4);
		if (tl_below(rng, 4) == 0)
			t->m[m].max_shards = tl_below(rng, 12);
	}
	if (nm > 2 && tl_below(rng, 3) == 0)
		t->m[tl_below(rng, nm)].flags = tl_below(rng, 2) ? PL_MEMBER_DRAINING : PL_MEMBER_DOWN;
	return t;
}

static pl__bk bk_of(pl_view *v, const pl_broker_config *cfg)
{
	pl__bk b = bk_call(v, cfg, cfg->max_moves);
	for (uint32_t e = 0; e < v->n_elig; e++)
		if (v->m_weight[v->elig[e]] > b.w_max)
			b.w_max = v->m_weight[v->elig[e]];
	for (uint32_t m = 0; m < v->nm; m++)
		b.rep_total += v->m_replicas[m];
	return b;
}

START_TEST(sources_come_the_most_over_first_ties_to_the_most_per_weight_then_the_smaller_id)
{
	/* The cluster of leaders: 17 on 5 members, floor 3, ceiling 4. b1 and
	 * b3 lead 6 (2 over), b4 5, b0 and b2 0: b1, b3, b4, then none. */
	tl *t = bu_new(5, NULL);
	static const uint32_t c[] = {0, 6, 0, 6, 5};
	bu_stream(t, "a", c, 5, 1);
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl__bk b = bk_of(v, &cfg);
	pl__scope sc;
	pl__bk_scope_cluster(&b, &sc);
	uint32_t m[PL_BROKER_SEARCH], k[PL_BROKER_SEARCH];
	ck_assert_uint_eq(pl__bk_sources(v, &sc, PL_BROKER_SEARCH, m, k, NULL), 3);
	ck_assert_uint_eq(m[0], 1);
	ck_assert_uint_eq(k[0], 2);
	ck_assert_uint_eq(m[1], 3);
	ck_assert_uint_eq(k[1], 2);
	ck_assert_uint_eq(m[2], 4);
	ck_assert_uint_eq(k[2], 1);
	/* Two asked: the first two. */
	ck_assert_uint_eq(pl__bk_sources(v, &sc, 2, m, k, NULL), 2);
	ck_assert_uint_eq(m[0], 1);
	ck_assert_uint_eq(m[1], 3);
	tl_free(t);
	/* Weighted: 20 on weights 1, 2, 1, 1; b1 and b3 both 2 over their
	 * ceilings (b1 10 over 8, b3 6 over 4): b1 leads fewer per weight (5
	 * to 6) and comes second. */
	t = bu_new(4, NULL);
	t->m[1].weight = 2;
	static const uint32_t w[] = {2, 10, 2, 6};
	bu_stream(t, "a", w, 4, 1);
	v = tl_view(t, 0);
	b = bk_of(v, &cfg);
	pl__bk_scope_cluster(&b, &sc);
	uint32_t fl, ce;
	pl__bk_bounds(v, &sc, 1, &fl, &ce);
	ck_assert_uint_eq(ce, 8);
	pl__bk_bounds(v, &sc, 3, &fl, &ce);
	ck_assert_uint_eq(ce, 4);
	ck_assert_uint_ge(pl__bk_sources(v, &sc, PL_BROKER_SEARCH, m, k, NULL), 2);
	ck_assert_uint_eq(m[0], 3);
	ck_assert_uint_eq(m[1], 1);
	tl_free(t);
}
END_TEST

START_TEST(property_sources_come_in_rank_order_cut_at_the_most_asked)
{
	uint64_t seed0 = tl_seed(0x5ea4c4u);
	uint32_t iters = tl_iters(400), walked = 0, cut = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		tl *t = weighted_layout(&rng);
		pl_view *v = tl_view(t, 0);
		pl_broker_config cfg = bu_cfg();
		pl__bk b = bk_of(v, &cfg);
		pl__scope sc = some_scope(&b, t, &rng);
		uint32_t want[64], wkey[64];
		uint32_t n = ranked(t, v, &sc, 1, want, wkey);
		static const uint32_t asked[] = {1, 2, 5, PL_BROKER_SEARCH};
		for (size_t a = 0; a < sizeof asked / sizeof asked[0]; a++) {
			uint32_t m[PL_BROKER_SEARCH], k[PL_BROKER_SEARCH];
			uint32_t seen, got = pl__bk_sources(v, &sc, asked[a], m, k, &seen), expect = n < asked[a] ? n : asked[a];
			ck_assert_msg(got == expect, "seed %llu (PL_TEST_SEED=%llu PL_TEST_ITERS=1): %u sources of %u asked, want %u",
				      (unsigned long long)seed, (unsigned long long)seed, got, asked[a], expect);
			for (uint32_t i = 0; i < got; i++)
				ck_assert_msg(m[i] == want[i] && k[i] == wkey[i],
					      "seed %llu (PL_TEST_SEED=%llu PL_TEST_ITERS=1): source %u is m%02u key %u, want m%02u key %u",
					      (unsigned long long)seed, (unsigned long long)seed, i, m[i], k[i], want[i], wkey[i]);
			ck_assert_uint_eq(seen, n);
			cut += n > asked[a];
		}
		/* One at a time, as a search tries them (pl__bk_source_next()). */
		pl__srcs one;
		uint32_t tried = 0;
		for (; tried < PL_BROKER_SEARCH; tried++) {
			uint32_t k = 0xdead, m = pl__bk_source_next(v, &sc, &one, tried, &k);
			if (m == PL_NONE)
				break;
			ck_assert_msg(tried < n && m == want[tried] && k == wkey[tried],
				      "seed %llu (PL_TEST_SEED=%llu PL_TEST_ITERS=1): source %u one at a time is m%02u",
				      (unsigned long long)seed, (unsigned long long)seed, tried, m);
		}
		ck_assert_uint_eq(tried, n < PL_BROKER_SEARCH ? n : PL_BROKER_SEARCH);
		walked += n;
		tl_free(t);
	}
	ck_assert_uint_gt(walked, iters); /* the layouts have sources to walk */
	ck_assert_uint_gt(cut, iters / 4); /* and lists longer than asked */
}
END_TEST

START_TEST(a_destination_list_is_filled_afresh_in_rank_order_within_its_limits)
{
	/* Leaders: b0 9, b1..b6 hold 0, 1, 1, 2, 0, 3 (16 on 7: floor 2,
	 * ceiling 3); zones za: b1 b2, zb: b3 b4, zc: b5 b6, b0 alone. b5 is
	 * at its cap. Destinations under the floor: b1, b5 (0: b1 first, the
	 * smaller id; b5 has no room), b2, b3 (1), b4 (2 is not under). */
	static const char *const zones[] = {"zx", "za", "za", "zb", "zb", "zc", "zc"};
	tl *t = bu_new(7, zones);
	static const uint32_t c[] = {9, 0, 1, 1, 2, 0, 3};
	bu_stream(t, "a", c, 7, 1);
	t->m[5].max_shards = 1;
	tl_shard(t, "pad", PL_NONE, 5, 1, 5u);
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl__bk b = bk_of(v, &cfg);
	pl__scope sc;
	pl__bk_scope_cluster(&b, &sc);
	pl__dlist l;
	memset(&l, 0xff, sizeof l); /* filled afresh, whatever it held */
	pl__seen w = {0, 0, 0, 0, PL_NONE, 0, 0, 0};
	pl__bk_dlist_fill(&b, &sc, &l, PL_BROKER_SEARCH, 0, &w);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_uint_eq(l.m[0], 1);
	ck_assert_uint_eq(l.m[1], 2);
	ck_assert_uint_eq(l.m[2], 3);
	ck_assert_uint_eq(l.key[0], 2);
	ck_assert_uint_eq(l.key[1], 1);
	ck_assert_int_eq(w.caps, 1); /* b5, passed over for its cap */
	/* At most max: the best two. */
	memset(&w, 0, sizeof w);
	pl__bk_dlist_fill(&b, &sc, &l, 2, 0, &w);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_uint_eq(l.m[0], 1);
	ck_assert_uint_eq(l.m[1], 2);
	/* Per zone: b1 for za, b3 for zb; zc's only destination has no room. */
	pl__bk_dlist_fill(&b, &sc, &l, PL_MAX_REPLICAS, 1, &w);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_uint_eq(l.m[0], 1);
	ck_assert_uint_eq(l.m[1], 3);
	pl__bk_dlist_fill(&b, &sc, &l, 1, 1, &w);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_uint_eq(l.m[0], 1);
	tl_free(t);
}
END_TEST

START_TEST(property_a_destination_list_holds_the_best_with_room_per_zone_within_max)
{
	uint64_t seed0 = tl_seed(0xd1157u);
	uint32_t iters = tl_iters(400), listed = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		tl *t = weighted_layout(&rng);
		pl_view *v = tl_view(t, 0);
		pl_broker_config cfg = bu_cfg();
		pl__bk b = bk_of(v, &cfg);
		pl__scope sc = some_scope(&b, t, &rng);
		uint32_t max = 1 + tl_below(&rng, tl_below(&rng, 2) ? PL_MAX_REPLICAS : PL_BROKER_SEARCH);
		uint32_t per_zone = tl_below(&rng, 2);
		uint32_t all[64], akey[64], want[64], wkey[64], n = 0;
		uint32_t na = ranked(t, v, &sc, 0, all, akey);
		int caps = 0;
		for (uint32_t i = 0; i < na; i++) {
			uint32_t m = all[i], cap = t->m[m].max_shards;
			if (cap && tl_member_tally(v, m).replicas >= cap) {
				caps = 1;
				continue;
			}
			int dup = 0;
			for (uint32_t j = 0; j < n && per_zone; j++)
				dup |= bu_same_zone(t, want[j], m);
			if (dup || n == max)
				continue;
			want[n] = m;
			wkey[n++] = akey[i];
		}
		pl__dlist l;
		memset(&l, 0xa5, sizeof l);
		pl__seen w = {0, 0, 0, 0, PL_NONE, 0, 0, 0};
		pl__bk_dlist_fill(&b, &sc, &l, max, per_zone, &w);
		ck_assert_msg(l.n == n, "seed %llu (PL_TEST_SEED=%llu PL_TEST_ITERS=1): %u listed, want %u (max %u, per zone %u)",
			      (unsigned long long)seed, (unsigned long long)seed, l.n, n, max, per_zone);
		for (uint32_t i = 0; i < n; i++)
			ck_assert_msg(l.m[i] == want[i] && l.key[i] == wkey[i], "seed %llu: place %u holds m%02u, want m%02u",
				      (unsigned long long)seed, i, l.m[i], want[i]);
		ck_assert_msg(l.max == max && l.per_zone == per_zone, "seed %llu: limits not kept", (unsigned long long)seed);
		ck_assert_msg(w.caps == caps, "seed %llu: caps seen %d, want %d", (unsigned long long)seed, w.caps, caps);
		listed += n;
		tl_free(t);
	}
	ck_assert_uint_gt(listed, iters);
}
END_TEST

Suite *suite(void);
Suite *suite(void)
{
	Suite *s = suite_create("broker_search_lists");
	TCase *c = tcase_create("lists");
	tcase_add_test(c, sources_come_the_most_over_first_ties_to_the_most_per_weight_then_the_smaller_id);
	tcase_add_test(c, a_destination_list_is_filled_afresh_in_rank_order_within_its_limits);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 60);
	tcase_add_test(c, property_sources_come_in_rank_order_cut_at_the_most_asked);
	tcase_add_test(c, property_a_destination_list_holds_the_best_with_room_per_zone_within_max);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
