/*
 * check_imbalance.c - pl_view_imbalance(): hand-computed layouts under each
 * measure (balanced ones give 0; members down, draining and weighted), the
 * sum of distances against the public tallies on random layouts, and the
 * refusals (nothing written).
 */
#include <check.h>
#include <string.h>

#include "testutil.h"

static pl_imbalance imb(const pl_view *v, uint32_t measure)
{
	pl_imbalance r;
	ck_assert_int_eq(pl_view_imbalance(v, measure, &r), 0);
	ck_assert_uint_eq(r.total, r.totals + r.streams);
	return r;
}

#define CK_IMB(v, measure, tot, str)                                                                           \
	do {                                                                                                  \
		pl_imbalance r_ = imb((v), (measure));                                                        \
		ck_assert_msg(r_.totals == (tot) && r_.streams == (str), "measure %u: totals %llu streams %llu, " \
			      "want %llu %llu", (unsigned)(measure), (unsigned long long)r_.totals,            \
			      (unsigned long long)r_.streams, (unsigned long long)(tot), (unsigned long long)(str)); \
	} while (0)

/* b0 b1 b2, one stream of three shards, each member leading one and
 * holding two replicas: every measure but the fleet's (ring homes) is 0. */
START_TEST(balanced_is_zero)
{
	tl *t = tl_new();
	for (int i = 0; i < 3; i++)
		tl_member(t, tl_str(t, "b%d", i), tl_str(t, "z%d", i));
	tl_stream(t, "s");
	for (uint32_t k = 0; k < 3; k++)
		tl_shard(t, tl_str(t, "s/%u", k), 0, k, 2, k, (k + 1) % 3);
	pl_view *v = tl_view(t, 0);
	CK_IMB(v, PL_IMBALANCE_LEADERS, 0, 0);
	CK_IMB(v, PL_IMBALANCE_BROKER, 0, 0);
	CK_IMB(v, PL_IMBALANCE_REPLICAS, 0, 0);
	tl_free(t);
}
END_TEST

/* Four shards of one stream, all led by b0, replicas on b0 and b1: leaders
 * 4/0/0 against [1, 2] (2 + 1 + 1, in total and in the stream), replicas
 * 4/4/0 against [2, 3] of 8 (1 + 1 + 2, the same twice). */
START_TEST(one_member_leads_all)
{
	tl *t = tl_new();
	for (int i = 0; i < 3; i++)
		tl_member(t, tl_str(t, "b%d", i), tl_str(t, "z%d", i));
	tl_stream(t, "s");
	for (uint32_t k = 0; k < 4; k++)
		tl_shard(t, tl_str(t, "s/%u", k), 0, 0, 2, 0u, 1u);
	pl_view *v = tl_view(t, 0);
	CK_IMB(v, PL_IMBALANCE_LEADERS, 4, 4);
	CK_IMB(v, PL_IMBALANCE_BROKER, 8, 8);
	CK_IMB(v, PL_IMBALANCE_REPLICAS, 4, 0); /* 8 replicas over 3 live: [2, 3] */
	/* b0 hands s/0 to b1, a follower of it */
	pl_action a = tl_action(PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW, 0, 0, 0, 1);
	tl_apply(v, &a, 1);
	/* leaders 3/1/0: 1 + 0 + 1 twice; replicas unchanged */
	CK_IMB(v, PL_IMBALANCE_LEADERS, 2, 2);
	CK_IMB(v, PL_IMBALANCE_BROKER, 6, 6);
	tl_free(t);
}
END_TEST

/* b2 draining and b3 down each lead one of two shards: held to 0, their
 * leaders count (2 + the eligible b0 and b1 under their floor of 1: 4, in
 * total and in the stream). Replicas: the eligible hold 1 each of 2, within
 * [1, 1]; the draining b2's one counts, the down b3's does not. The region
 * share: 3 replicas on 3 live members, 1 each: 0, b3 not counted. */
START_TEST(members_not_eligible)
{
	tl *t = tl_new();
	for (int i = 0; i < 4; i++)
		tl_member(t, tl_str(t, "b%d", i), tl_str(t, "z%d", i));
	t->m[2].flags = PL_MEMBER_DRAINING;
	t->m[3].flags = PL_MEMBER_DOWN;
	tl_stream(t, "s");
	tl_shard(t, "s/0", 0, 2, 2, 2u, 0u);
	tl_shard(t, "s/1", 0, 3, 2, 3u, 1u);
	pl_view *v = tl_view(t, 0);
	CK_IMB(v, PL_IMBALANCE_LEADERS, 4, 4);
	CK_IMB(v, PL_IMBALANCE_BROKER, 5, 5);
	CK_IMB(v, PL_IMBALANCE_REPLICAS, 0, 0);
	tl_free(t);
}
END_TEST

/* Weights 2 and 1, three shards led and held by b0 alone: b0's bounds are
 * [2, 2] and b1's [1, 1]: 1 + 1 for leaders and for replicas, in total and
 * in the stream (b1, with no cell, counts its floor). */
START_TEST(weighted)
{
	tl *t = tl_new();
	tl_member(t, "b0", "z0");
	tl_member(t, "b1", "z1");
	t->m[0].weight = 2;
	tl_stream(t, "s");
	for (uint32_t k = 0; k < 3; k++)
		tl_shard(t, tl_str(t, "s/%u", k), 0, 0, 1, 0u);
	pl_view *v = tl_view(t, 0);
	CK_IMB(v, PL_IMBALANCE_LEADERS, 2, 2);
	CK_IMB(v, PL_IMBALANCE_BROKER, 4, 4);
	tl_free(t);
}
END_TEST

/* The fleet's owned: overrides put all four shards on b0 (bounds [2, 2]):
 * 2 + 2; an override on a draining member is void (the shard goes home). */
START_TEST(owned)
{
	tl *t = tl_new();
	tl_member(t, "b0", "z0");
	tl_member(t, "b1", "z1");
	for (uint32_t k = 0; k < 4; k++) {
		tl_shard(t, tl_str(t, "k%u", k), PL_NONE, PL_NONE, 0);
		tl_override(t, k, 0, PL_ORIGIN_COUNT, 1);
	}
	pl_view *v = tl_view(t, 0);
	CK_IMB(v, PL_IMBALANCE_OWNED, 4, 0);
	t->m[0].flags = PL_MEMBER_DRAINING; /* b1 owns all four: [4, 4] */
	v = tl_view(t, 0);
	CK_IMB(v, PL_IMBALANCE_OWNED, 0, 0);
	tl_free(t);
}
END_TEST

static uint32_t d(uint32_t x, uint32_t fl, uint32_t ce)
{
	return x < fl ? fl - x : x > ce ? x - ce : 0;
}

/* The leaders' measure from the public tallies: the definition, spelled out. */
START_TEST(leaders_match_tallies)
{
	uint64_t seed = tl_seed(0x1ba1u), rng = seed;
	for (uint32_t it = 0; it < tl_iters(200); it++) {
		tl *t = tl_random(&rng, 2 + tl_below(&rng, 9), 1 + tl_below(&rng, 4), tl_below(&rng, 60), 2, 1);
		for (uint32_t m = 0; m < t->nm; m++) {
			uint32_t r = tl_below(&rng, 8);
			t->m[m].flags = r == 0 ? PL_MEMBER_DOWN : r == 1 ? PL_MEMBER_DRAINING : 0;
			t->m[m].weight = 1 + tl_below(&rng, 3);
		}
		if (tl_view_rc(t, 0, NULL) != 0) {
			tl_free(t);
			continue;
		}
		pl_view *v = t->view;
		uint64_t tot = 0, str = 0;
		for (uint32_t m = 0; m < t->nm; m++) {
			pl_tally a = tl_member_tally(v, m);
			int el = !(t->m[m].flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING));
			tot += el ? d(a.leaders, a.floor, a.ceiling) : a.leaders;
			for (uint32_t s = 0; s < t->ns; s++) {
				pl_tally b = tl_stream_tally(v, s, m);
				str += el ? d(b.leaders, b.floor, b.ceiling) : b.leaders;
			}
		}
		pl_imbalance r = imb(v, PL_IMBALANCE_LEADERS);
		ck_assert_msg(r.totals == tot && r.streams == str, "seed %llu iteration %u: %llu/%llu, want %llu/%llu",
			      (unsigned long long)seed, it, (unsigned long long)r.totals, (unsigned long long)r.streams,
			      (unsigned long long)tot, (unsigned long long)str);
		tl_free(t);
	}
}
END_TEST

START_TEST(refusals)
{
	tl *t = tl_new();
	tl_member(t, "b0", "z0");
	tl_stream(t, "s");
	tl_shard(t, "s/0", 0, 0, 1, 0u);
	pl_view *v = tl_view(t, 0);
	pl_imbalance r, was;
	memset(&r, 0xa5, sizeof r);
	was = r;
	ck_assert_int_eq(pl_view_imbalance(NULL, PL_IMBALANCE_BROKER, &r), PL_E_INVAL);
	ck_assert_int_eq(pl_view_imbalance(v, PL_IMBALANCE_BROKER, NULL), PL_E_INVAL);
	ck_assert_int_eq(pl_view_imbalance(v, PL_IMBALANCE_REPLICAS + 1, &r), PL_E_INVAL);
	ck_assert_int_eq(pl_view_imbalance(v, UINT32_MAX, &r), PL_E_INVAL);
	ck_assert_int_eq(pl_view_imbalance((const pl_view *)(const void *)t->k, PL_IMBALANCE_BROKER, &r), PL_E_INVAL);
	ck_assert_mem_eq(&r, &was, sizeof r);
	/* out over the view's own memory: refused before a byte is written */
	char *mem = (char *)t->mem;
	char keep[sizeof(pl_imbalance)];
	memcpy(keep, mem + 64, sizeof keep);
	ck_assert_int_eq(pl_view_imbalance(v, PL_IMBALANCE_BROKER, (pl_imbalance *)(void *)(mem + 64)), PL_E_OVERLAP);
	ck_assert_mem_eq(mem + 64, keep, sizeof keep);
	ck_assert_int_eq(pl_view_imbalance(v, PL_IMBALANCE_BROKER, &r), 0);
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("imbalance");
	TCase *c = tcase_create("hand-computed");
	tcase_add_test(c, balanced_is_zero);
	tcase_add_test(c, one_member_leads_all);
	tcase_add_test(c, members_not_eligible);
	tcase_add_test(c, weighted);
	tcase_add_test(c, owned);
	tcase_add_test(c, leaders_match_tallies);
	suite_add_tcase(s, c);
	c = tcase_create("arguments");
	tcase_add_test(c, refusals);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
