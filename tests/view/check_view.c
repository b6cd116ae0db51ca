/* check_view.c - building a view: its tallies, eligibility, memory and copies
 * (check_view_read.c reads one). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/view_build.h"
#include "testutil.h"
#include "view_util.h"

START_TEST(tallies_count_leaders_and_replicas)
{
	tl *t = vu_layout();
	pl_view *v = tl_view(t, 0);
	ck_assert_uint_eq(tl_member_tally(v, 0).leaders, 3);
	ck_assert_uint_eq(tl_member_tally(v, 1).leaders, 1);
	ck_assert_uint_eq(tl_member_tally(v, 2).leaders, 1);
	ck_assert_uint_eq(tl_member_tally(v, 0).replicas, 4);
	ck_assert_uint_eq(tl_member_tally(v, 1).replicas, 2);
	ck_assert_uint_eq(tl_member_tally(v, 2).replicas, 3);
	ck_assert_uint_eq(tl_stream_tally(v, 0, 0).leaders, 2);
	ck_assert_uint_eq(tl_stream_tally(v, 0, 1).leaders, 1);
	ck_assert_uint_eq(tl_stream_tally(v, 0, 2).leaders, 1);
	ck_assert_uint_eq(tl_stream_tally(v, 1, 0).leaders, 1);
	ck_assert_uint_eq(tl_stream_tally(v, 1, 2).leaders, 0);
	ck_assert_uint_eq(tl_stream_tally(v, 0, 2).replicas, 3);
	ck_assert_uint_eq(tl_stream_tally(v, 1, 2).replicas, 0);
	/* 4 shards of orders over 3 eligible: floor 1, ceiling 2. */
	pl_tally st = tl_stream_tally(v, 0, 1);
	ck_assert_uint_eq(st.floor, 1);
	ck_assert_uint_eq(st.ceiling, 2);
	ck_assert_uint_eq(st.shards, 4);
	/* 6 shards in the cluster over 3: share 2. */
	ck_assert_uint_eq(tl_member_tally(v, 1).ceiling, 2);
	ck_assert_uint_eq(tl_member_tally(v, 1).floor, 2);
	pl_view_counts c;
	ck_assert_int_eq(pl_view_stats(v, &c), 0);
	ck_assert_uint_eq(c.members, 3);
	ck_assert_uint_eq(c.eligible, 3);
	ck_assert_uint_eq(c.shards, 6);
	ck_assert_uint_eq(c.leaderless, 1);
	ck_assert_uint_eq(c.share, 2);
	tl_free(t);
}
END_TEST

START_TEST(inflight_moves_count_as_finished)
{
	tl *t = vu_layout();
	t->k[0].moving_to = 2; /* b1 holds no replica of orders/00: takes b2's */
	t->k[1].moving_to = 2; /* b1 already a follower of orders/01 */
	pl_view *v = tl_view(t, 0);
	ck_assert_uint_eq(tl_stream_tally(v, 0, 0).leaders, 0);
	ck_assert_uint_eq(tl_stream_tally(v, 0, 2).leaders, 3);
	ck_assert_uint_eq(tl_member_tally(v, 0).replicas, 3);
	ck_assert_uint_eq(tl_member_tally(v, 2).replicas, 4);
	pl_shard_state s;
	ck_assert_int_eq(pl_view_shard_state(v, 0, &s), 0);
	ck_assert_uint_eq(s.leader, 2);
	ck_assert_uint_eq(s.moving, 1);
	ck_assert_uint_eq(s.replica_count, 2);
	ck_assert(s.replicas[0] == 2 || s.replicas[1] == 2);
	ck_assert(s.replicas[0] != 0 && s.replicas[1] != 0);
	pl_view_counts c;
	pl_view_stats(v, &c);
	ck_assert_uint_eq(c.moving, 2);
	ck_assert_int_eq(pl_view_settle(v), 2);
	pl_view_stats(v, &c);
	ck_assert_uint_eq(c.moving, 0);
	tl_free(t);
}
END_TEST

START_TEST(draining_and_down_are_not_eligible)
{
	tl *t = vu_layout();
	t->m[0].flags = PL_MEMBER_DRAINING;
	t->m[2].flags = PL_MEMBER_DOWN;
	pl_view *v = tl_view(t, 0);
	pl_view_counts c;
	pl_view_stats(v, &c);
	ck_assert_uint_eq(c.live, 2);
	ck_assert_uint_eq(c.eligible, 1);
	ck_assert_uint_eq(c.leaderless, 2); /* "free" and orders/03 led by the down b1 */
	ck_assert_uint_eq(tl_stream_tally(v, 0, 1).floor, 4);
	ck_assert_uint_eq(tl_stream_tally(v, 0, 0).ceiling, 0);
	for (uint32_t k = 0; k < t->nk; k++)
		ck_assert_int_eq(pl_view_home(v, k), 1);
	t->m[1].flags = PL_MEMBER_DOWN;
	v = tl_view(t, 0);
	ck_assert_int_eq(pl_view_home(v, 0), PL_E_NO_ELIGIBLE);
	tl_free(t);
}
END_TEST

/* A policy may scribble on the per-member scratch: it lies inside the view's
 * memory, aligned, one entry per member, and no tally reads it. */
START_TEST(member_scratch_is_the_policies_own)
{
	tl *t = vu_layout();
	pl_view *v = tl_view(t, 0);
	pl_tally before[3], after;
	for (uint32_t m = 0; m < 3; m++)
		before[m] = tl_member_tally(v, m);
	const char *lo = (const char *)t->mem, *hi = lo + pl_view_size(tl_snap(t));
	ck_assert((const char *)v->m_scratch >= lo && (const char *)(v->m_scratch + v->nm) <= hi);
	ck_assert_uint_eq((uintptr_t)v->m_scratch % 8, 0);
	for (uint32_t m = 0; m < v->nm; m++)
		v->m_scratch[m] = -1;
	for (uint32_t m = 0; m < 3; m++) {
		after = tl_member_tally(v, m);
		ck_assert(memcmp(&before[m], &after, sizeof after) == 0);
	}
	ck_assert_uint_eq(tl_stream_tally(v, 0, 0).leaders, 2);
	tl_free(t);
}
END_TEST

START_TEST(weighted_bounds_are_proportional)
{
	tl *t = tl_new();
	tl_member(t, "a", NULL);
	tl_member(t, "b", NULL);
	tl_member(t, "c", NULL);
	t->m[1].weight = 2;
	t->m[2].weight = 0; /* reads as 1 */
	tl_stream(t, "s");
	for (int i = 0; i < 10; i++)
		tl_shard(t, tl_str(t, "k%d", i), 0, PL_NONE, 0);
	pl_view *v = tl_view(t, 0);
	/* 10 shards over weights 1:2:1 -> 2.5, 5, 2.5 */
	pl_tally a = tl_stream_tally(v, 0, 0), b = tl_stream_tally(v, 0, 1), c = tl_stream_tally(v, 0, 2);
	ck_assert_uint_eq(a.floor, 2);
	ck_assert_uint_eq(a.ceiling, 3);
	ck_assert_uint_eq(b.floor, 5);
	ck_assert_uint_eq(b.ceiling, 5);
	ck_assert_uint_eq(c.floor, 2);
	ck_assert_uint_eq(c.ceiling, 3);
	pl_view_counts n;
	pl_view_stats(v, &n);
	ck_assert_uint_eq(n.weight, 4);
	tl_free(t);
}
END_TEST

START_TEST(init_refuses_bad_memory_and_options)
{
	tl *t = vu_layout();
	const pl_snapshot *s = tl_snap(t);
	size_t size = pl_view_size(s);
	char *mem = malloc(size + 16);
	memset(mem, 0xa5, size + 16); /* bytes that are no view, read below */
	pl_view *v = NULL;
	pl_diag d;
	ck_assert_int_eq(pl_view_init(&v, mem, size - 1, s, NULL, &d), PL_E_WORKSPACE);
	ck_assert_int_eq(pl_view_init(&v, mem + 4, size, s, NULL, &d), PL_E_ALIGN);
	ck_assert_int_eq(pl_view_init(NULL, mem, size, s, NULL, &d), PL_E_INVAL);
	ck_assert_int_eq(pl_view_init(&v, NULL, size, s, NULL, &d), PL_E_INVAL);
	ck_assert_int_eq(pl_view_init(&v, mem, size, NULL, NULL, &d), PL_E_INVAL);
	pl_view_options o = PL_VIEW_OPTIONS_INIT;
	o.version = PL_VIEW_OPTIONS_VERSION + 1; /* past the versions this library knows */
	ck_assert_int_eq(pl_view_init(&v, mem, size, s, &o, &d), PL_E_VERSION);
	ck_assert_uint_eq(d.kind, PL_ELEM_CONFIG);
	o.version = PL_VIEW_OPTIONS_VERSION;
	o.scorer = 0;
	ck_assert_int_eq(pl_view_init(&v, mem, size, s, &o, &d), PL_E_SCORER);
	ck_assert_ptr_null(v);
	/* Memory that never held a view is refused. */
	ck_assert_int_eq(pl_view_stats((pl_view *)(void *)mem, &(pl_view_counts){0}), PL_E_INVAL);
	ck_assert_int_eq(pl_view_init(&v, mem, size, s, NULL, NULL), 0);
	ck_assert_ptr_eq(v, (void *)mem);
	/* A snapshot refused by validation over a view leaves nothing a later
	 * call would accept. */
	pl_snapshot bad = *s;
	bad.n_members = 0; /* the shards' replicas now name no member */
	ck_assert_int_lt(pl_view_init(&v, mem, size, &bad, NULL, &d), 0);
	ck_assert_uint_eq(d.kind, PL_ELEM_SHARD);
	ck_assert_int_eq(pl_view_stats((pl_view *)(void *)mem, &(pl_view_counts){0}), PL_E_INVAL);
	free(mem);
	tl_free(t);
}
END_TEST

START_TEST(options_init_matches_macro)
{
	pl_view_options a, b = PL_VIEW_OPTIONS_INIT;
	memset(&a, 0xff, sizeof a);
	ck_assert_int_eq(pl_view_options_init(&a), 0);
	ck_assert_mem_eq(&a, &b, sizeof a);
	ck_assert_int_eq(pl_view_options_init(NULL), PL_E_INVAL);
}
END_TEST

/* Shuffling the snapshot's arrays gives the same tallies, homes and orders,
 * compared by id. */
START_TEST(shuffle_gives_same_tallies)
{
	uint64_t seed = tl_seed(0x5eed0001u);
	uint32_t iters = tl_iters(60);
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t rng = seed + it, rs = rng;
		uint32_t nm = 1 + tl_below(&rng, 12), ns = 1 + tl_below(&rng, 5), nk = tl_below(&rng, 120);
		tl *a = tl_random(&rng, nm, ns, nk, 1 + tl_below(&rng, 3), (int)tl_below(&rng, 2));
		for (uint32_t k = 0; k < a->nk; k++)
			if (a->k[k].leader != PL_NONE && tl_below(&rng, 8) == 0)
				a->k[k].moving_to = (a->k[k].leader + 1) % nm == a->k[k].leader
							    ? PL_NONE : (a->k[k].leader + 1) % nm;
		for (uint32_t m = 0; m < nm; m++)
			if (tl_below(&rng, 6) == 0)
				a->m[m].flags = PL_MEMBER_DRAINING;
		tl *b = tl_shuffled(a, &rng);
		pl_view *va = tl_view(a, 0), *vb = tl_view(b, 0);
		for (uint32_t m = 0; m < nm; m++) {
			uint32_t mb = b->perm_m[m];
			pl_tally x = tl_member_tally(va, m), y = tl_member_tally(vb, mb);
			ck_assert_msg(memcmp(&x, &y, sizeof x) == 0, "seed %llu: member %u totals differ",
				      (unsigned long long)rs, m);
			for (uint32_t s = 0; s < ns; s++) {
				x = tl_stream_tally(va, s, m);
				y = tl_stream_tally(vb, b->perm_s[s], mb);
				ck_assert_msg(memcmp(&x, &y, sizeof x) == 0, "seed %llu: stream tally differs",
					      (unsigned long long)rs);
			}
			ck_assert_uint_eq(b->perm_m[(uint32_t)pl_view_at(va, PL_ELEM_MEMBER, m)],
					  (uint32_t)pl_view_at(vb, PL_ELEM_MEMBER, m));
		}
		for (uint32_t k = 0; k < a->nk; k++) {
			int ha = pl_view_home(va, k), hb = pl_view_home(vb, b->perm_k[k]);
			ck_assert_msg(ha < 0 ? hb == ha : hb >= 0 && b->perm_m[ha] == (uint32_t)hb,
				      "seed %llu: home of %u differs",
				      (unsigned long long)rs, k);
			ck_assert_uint_eq(b->perm_k[(uint32_t)pl_view_at(va, PL_ELEM_SHARD, k)],
					  (uint32_t)pl_view_at(vb, PL_ELEM_SHARD, k));
		}
		tl_free(a);
		tl_free(b);
	}
}
END_TEST

START_TEST(empty_view)
{
	pl_snapshot s = PL_SNAPSHOT_INIT;
	size_t size = pl_view_size(&s);
	ck_assert_uint_eq(size, pl_view_size(NULL));
	void *mem = malloc(size);
	pl_view *v;
	ck_assert_int_eq(pl_view_init(&v, mem, size, &s, NULL, NULL), 0);
	pl_view_counts c;
	ck_assert_int_eq(pl_view_stats(v, &c), 0);
	ck_assert_uint_eq(c.members + c.shards + c.share, 0);
	uint32_t out[1];
	ck_assert_int_eq(pl_view_top(v, "k", 1, out, 1), 0);
	free(mem);
}
END_TEST

/* A copy answers like the original and changes independently of it. */
START_TEST(copy_is_independent)
{
	tl *t = vu_layout();
	tl_override(t, 0, 1, PL_ORIGIN_COUNT, 7);
	pl_view *v = tl_view(t, 0);
	size_t size = pl_view_size(tl_snap(t));
	char *mem = malloc(size + 8);
	pl_view *c = NULL;
	ck_assert_int_eq(pl_view_copy(&c, mem, size - 1, v), PL_E_WORKSPACE);
	ck_assert_int_eq(pl_view_copy(&c, mem + 4, size, v), PL_E_ALIGN);
	ck_assert_int_eq(pl_view_copy(NULL, mem, size, v), PL_E_INVAL);
	ck_assert_int_eq(pl_view_copy(&c, NULL, size, v), PL_E_INVAL);
	ck_assert_int_eq(pl_view_copy(&c, mem, size, NULL), PL_E_INVAL);
	ck_assert_int_eq(pl_view_copy(&c, (void *)v, size, v), PL_E_OVERLAP);
	ck_assert_ptr_null(c);
	ck_assert_int_eq(pl_view_copy(&c, mem, size, v), 0);
	ck_assert_ptr_eq(c, (void *)mem);
	for (uint32_t m = 0; m < t->nm; m++) {
		pl_tally a = tl_member_tally(v, m), b = tl_member_tally(c, m);
		ck_assert_mem_eq(&a, &b, sizeof a);
	}
	for (uint32_t k = 0; k < t->nk; k++)
		ck_assert_int_eq(pl_view_home(v, k), pl_view_home(c, k));
	/* Change the copy: the original does not see it, and the reverse. */
	pl_action a = tl_action(PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW, 0, 0, 0, 2);
	ck_assert_int_eq(pl_view_apply(c, &a), 0);
	ck_assert_uint_eq(tl_stream_tally(c, 0, 2).leaders, 2);
	ck_assert_uint_eq(tl_stream_tally(v, 0, 2).leaders, 1);
	a.kind = PL_ACTION_DROP_OVERRIDE;
	a.from = 1;
	a.to = PL_NONE;
	ck_assert_int_eq(pl_view_apply(v, &a), 0);
	pl_shard_state sa, sb;
	pl_view_shard_state(v, 0, &sa);
	pl_view_shard_state(c, 0, &sb);
	ck_assert_uint_eq(sa.override_member, PL_NONE);
	ck_assert_uint_eq(sb.override_member, 1);
	ck_assert_uint_eq(sb.leader, 2);
	ck_assert_uint_eq(sa.leader, 0);
	free(mem);
	tl_free(t);
}
END_TEST

/* A copy answers as its source at every address it can go to (the states
 * sit on a 64-byte boundary of the memory, so their place in the block
 * depends on where the block is). */
START_TEST(copy_at_any_alignment)
{
	uint64_t rng = 7;
	tl *t = tl_random(&rng, 7, 3, 300, 3, 1);
	tl_override(t, 5, 1, PL_ORIGIN_LAG, 9);
	pl_view *v = tl_view(t, 0);
	size_t size = pl_view_size(tl_snap(t));
	char *mem = malloc(size + 64);
	for (size_t shift = 0; shift < 64; shift += 8) {
		pl_view *c = NULL;
		ck_assert_int_eq(pl_view_copy(&c, mem + shift, size, v), 0);
		for (uint32_t k = 0; k < t->nk; k++) {
			pl_shard_state a, b;
			memset(&a, 0, sizeof a);
			memset(&b, 0, sizeof b);
			ck_assert_int_eq(pl_view_shard_state(v, k, &a), 0);
			ck_assert_int_eq(pl_view_shard_state(c, k, &b), 0);
			ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "shift %zu: state of shard %u", shift, k);
		}
		for (uint32_t m = 0; m < t->nm; m++)
			for (uint32_t s = 0; s < t->ns; s++) {
				pl_tally x = tl_stream_tally(v, s, m), y = tl_stream_tally(c, s, m);
				ck_assert_mem_eq(&x, &y, sizeof x);
			}
	}
	free(mem);
	tl_free(t);
}
END_TEST

/* A stream whose replicas meet few of many members (its cells are sorted,
 * not read back by a scan of every member): each member's replica count in
 * it is a recount's, whatever order the replicas are listed in. Six members
 * met of 2,048: more words of the bitmap than four per member met. */
enum { NM = 2048 };
START_TEST(few_members_met_by_a_stream_count_right)
{
	tl *t = tl_new();
	for (uint32_t m = 0; m < NM; m++)
		tl_member(t, tl_str(t, "m%04u", m), NULL);
	uint32_t s = tl_stream(t, "s");
	tl_shard(t, "s/0", s, 37, 3, 37u, 5u, 20u);
	tl_shard(t, "s/1", s, 2, 3, 2u, 41u, 11u);
	tl_shard(t, "s/2", s, 11, 2, 11u, 37u);
	pl_view *v = tl_view(t, 0);
	uint32_t want[NM] = {0}, leads[NM] = {0};
	for (uint32_t k = 0; k < t->nk; k++) {
		leads[t->k[k].leader]++;
		for (uint32_t r = 0; r < t->k[k].replica_count; r++)
			want[t->k[k].replicas[r]]++;
	}
	for (uint32_t m = 0; m < NM; m++) {
		pl_tally x = tl_stream_tally(v, s, m);
		ck_assert_msg(x.replicas == want[m], "member %u: %u replicas in the stream, want %u", m, x.replicas, want[m]);
		ck_assert_msg(x.leaders == leads[m], "member %u: leads %u of the stream, want %u", m, x.leaders, leads[m]);
	}
	tl_free(t);
}
END_TEST

/* Many members, few leaders a stream (the leaders met are sorted, not read
 * off a bitmap): every order of three leaders gives each its count. */
START_TEST(few_leaders_among_many_members_counted_in_any_order)
{
	static const uint32_t lead[3] = {900, 5, 500}, perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
								     {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
	tl *t = tl_new();
	for (uint32_t m = 0; m < 1000; m++)
		tl_member(t, tl_str(t, "m%04u", m), NULL);
	for (uint32_t s = 0; s < 6; s++) {
		tl_stream(t, tl_str(t, "s%u", s));
		/* leaders in the stream's order: once, twice and three times */
		for (uint32_t i = 0; i < 3; i++)
			for (uint32_t c = 0; c <= i; c++) {
				uint32_t m = lead[perm[s][i]];
				tl_shard(t, tl_str(t, "s%u/%u.%u", s, i, c), s, m, 1, m);
			}
	}
	pl_view *v = tl_view(t, 0);
	for (uint32_t s = 0; s < 6; s++) {
		for (uint32_t i = 0; i < 3; i++)
			ck_assert_uint_eq(tl_stream_tally(v, s, lead[perm[s][i]]).leaders, i + 1);
		ck_assert_uint_eq(tl_stream_tally(v, s, 0).leaders, 0);
		ck_assert_uint_eq(tl_stream_tally(v, s, 501).leaders, 0);
	}
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("view");
	TCase *c = tcase_create("tallies");
	tcase_add_test(c, tallies_count_leaders_and_replicas);
	tcase_add_test(c, few_leaders_among_many_members_counted_in_any_order);
	tcase_add_test(c, inflight_moves_count_as_finished);
	tcase_add_test(c, draining_and_down_are_not_eligible);
	tcase_add_test(c, weighted_bounds_are_proportional);
	tcase_add_test(c, member_scratch_is_the_policies_own);
	tcase_add_test(c, few_members_met_by_a_stream_count_right);
	suite_add_tcase(s, c);
	c = tcase_create("arguments");
	tcase_add_test(c, init_refuses_bad_memory_and_options);
	tcase_add_test(c, options_init_matches_macro);
	tcase_add_test(c, empty_view);
	tcase_add_test(c, copy_is_independent);
	tcase_add_test(c, copy_at_any_alignment);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, shuffle_gives_same_tallies);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
