/* check_tally.c - applying actions keeps every tally equal to a recount. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "view/view_build.h"
#include "testutil.h"

/* Rebuild a snapshot from the view's shard states and compare its fresh
 * tallies with the view's running ones. */
static void expect_recount(tl *t, pl_view *v, uint64_t seed)
{
	tl *c = tl_new();
	for (uint32_t m = 0; m < t->nm; m++) {
		tl_member(c, tl_str(c, "%.*s", (int)t->m[m].id.len, t->m[m].id.ptr), NULL);
		c->m[m] = t->m[m];
	}
	for (uint32_t s = 0; s < t->ns; s++)
		tl_stream(c, tl_str(c, "%.*s", (int)t->s[s].id.len, t->s[s].id.ptr));
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state st;
		ck_assert_int_eq(pl_view_shard_state(v, k, &st), 0);
		uint32_t i = tl_shard(c, tl_str(c, "%.*s", (int)t->k[k].key.len, t->k[k].key.ptr),
				      t->k[k].stream, st.leader, 0);
		c->k[i].replica_count = st.replica_count;
		memcpy(c->k[i].replicas, st.replicas, sizeof st.replicas);
		if (st.override_member != PL_NONE)
			tl_override(c, i, st.override_member, st.override_origin, st.override_since);
	}
	pl_view *w = tl_view(c, 0);
	for (uint32_t m = 0; m < t->nm; m++) {
		pl_tally a, b;
		pl_view_member_tally(v, m, &a);
		pl_view_member_tally(w, m, &b);
		ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "seed %llu: member %u totals drifted",
			      (unsigned long long)seed, m);
		for (uint32_t s = 0; s < t->ns; s++) {
			pl_view_stream_tally(v, s, m, &a);
			pl_view_stream_tally(w, s, m, &b);
			ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "seed %llu: stream %u member %u drifted",
				      (unsigned long long)seed, s, m);
		}
	}
	pl_view_counts x, y;
	pl_view_stats(v, &x);
	pl_view_stats(w, &y);
	ck_assert_uint_eq(x.overrides, y.overrides);
	tl_free(c);
}

/* An action on a shard with no stream; the reason is only for show. */
/* A layout of members a, b and c (no zones) and stream s, no shard yet. */
static tl *abc_s(void)
{
	tl *t = tl_new();
	tl_member(t, "a", NULL);
	tl_member(t, "b", NULL);
	tl_member(t, "c", NULL);
	tl_stream(t, "s");
	return t;
}

static pl_action action(uint32_t kind, uint32_t shard, uint32_t from, uint32_t to)
{
	return tl_action(kind, PL_REASON_STREAM_SKEW, shard, PL_NONE, from, to);
}

/* Random actions on random layouts; with probe, a stream's replica tally
 * is asked between actions (the counts of the stream asked last are kept
 * in step by the actions, the others counted again when asked) and the
 * whole view is recounted every 50 steps. */
static void random_actions(uint64_t seed, uint32_t iters, int probe)
{
	uint32_t rows = 0, cached = 0; /* views keeping every stream's replica counts, and not */
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t rng = seed + it;
		uint32_t nm = 2 + tl_below(&rng, 8);
		tl *t = tl_random(&rng, nm, 1 + tl_below(&rng, 4), 1 + tl_below(&rng, 80), 1 + tl_below(&rng, 3), 0);
		pl_view *v = tl_view(t, 0);
		rows += v->rc_rows != 0;
		cached += v->rc_rows == 0;
		uint32_t applied = 0;
		for (int step = 0; step < 300; step++) {
			uint32_t k = tl_below(&rng, t->nk), m = tl_below(&rng, nm);
			pl_shard_state st;
			pl_view_shard_state(v, k, &st);
			pl_action a;
			switch (tl_below(&rng, 6)) {
			case 0:
				a = action(PL_ACTION_MOVE_LEADER, k, st.leader, m);
				break;
			case 1:
				a = action(PL_ACTION_SET_LEADER, k, st.leader, st.replicas[tl_below(&rng, st.replica_count)]);
				break;
			case 2:
				a = action(PL_ACTION_ADD_REPLICA, k, PL_NONE, m);
				break;
			case 3:
				a = action(PL_ACTION_MOVE_REPLICA, k, st.replicas[tl_below(&rng, st.replica_count)], m);
				break;
			case 4:
				a = action(PL_ACTION_SET_OVERRIDE, k, PL_NONE, m);
				a.origin = (uint32_t)tl_below(&rng, 2);
				break;
			default:
				a = action(PL_ACTION_DROP_OVERRIDE, k, st.override_member, PL_NONE);
				break;
			}
			if (pl_view_apply(v, &a) == 0)
				applied++;
			if (tl_below(&rng, 10) == 0)
				pl_view_settle(v);
			if (probe) {
				pl_tally x;
				uint32_t s = t->k[k].stream != PL_NONE && tl_below(&rng, 2) ? t->k[k].stream
											   : tl_below(&rng, t->ns);
				ck_assert_int_eq(pl_view_stream_tally(v, s, m, &x), 0);
				if (step % 50 == 49)
					expect_recount(t, v, seed + it);
			}
		}
		ck_assert_uint_gt(applied, 0);
		expect_recount(t, v, seed + it);
		tl_free(t);
	}
	if (iters >= 10) { /* both ways of counting a stream's replicas met */
		ck_assert_uint_gt(rows, 0);
		ck_assert_uint_gt(cached, 0);
	}
}

START_TEST(random_actions_keep_tallies)
{
	random_actions(tl_seed(0x7a11e5u), tl_iters(40), 0);
}
END_TEST

START_TEST(stream_tallies_asked_between_actions)
{
	random_actions(tl_seed(0x5ca1edu), tl_iters(40), 1);
}
END_TEST

/* The epoch is the snapshot's plus the actions applied since the build,
 * that count kept in 24 bits: a shard at its last count takes no more
 * shard-map action (overrides still), and its epoch reads exactly. */
START_TEST(epoch_advance_is_exact_to_its_limit)
{
	tl *t = tl_new();
	tl_member(t, "a", NULL);
	tl_member(t, "b", NULL);
	tl_stream(t, "s");
	tl_shard(t, "k0", 0, 0, 2, 0u, 1u);
	t->k[0].epoch = UINT64_C(1) << 40;
	pl_view *v = tl_view(t, 0);
	pl__st(v, 0)->ep = PL__EP_MAX - 1;
	pl_action a = action(PL_ACTION_SET_LEADER, 0, 0, 1);
	ck_assert_int_eq(pl_view_apply(v, &a), 0);
	pl_shard_state st;
	pl_view_shard_state(v, 0, &st);
	ck_assert_uint_eq(st.epoch, (UINT64_C(1) << 40) + PL__EP_MAX);
	a = action(PL_ACTION_SET_LEADER, 0, 1, 0);
	ck_assert_int_eq(pl_view_apply(v, &a), PL_E_ACTION);
	a = action(PL_ACTION_SET_OVERRIDE, 0, PL_NONE, 1);
	a.at = UINT64_C(0x123456789);
	ck_assert_int_eq(pl_view_apply(v, &a), 0);
	pl_view_shard_state(v, 0, &st);
	ck_assert_uint_eq(st.leader, 1);
	ck_assert_uint_eq(st.override_since, UINT64_C(0x123456789));
	tl_free(t);
}
END_TEST

/* The replica counts of the stream asked last follow the actions: a member
 * whose count falls to zero and rises again is listed once, so a walk of
 * the list (the broker's stream sums) counts it once. */
START_TEST(replica_cache_lists_a_member_once)
{
	tl *t = abc_s();
	tl_stream(t, "t");
	tl_shard(t, "s/0", 0, 0, 2, 0u, 1u);
	tl_shard(t, "t/0", 1, 0, 1, 0u);
	pl_view *v = tl_view(t, 0);
	ck_assert_uint_eq(tl_stream_tally(v, 0, 1).replicas, 1); /* s counted */
	pl_action a = action(PL_ACTION_MOVE_REPLICA, 0, 1, 2);
	ck_assert_int_eq(pl_view_apply(v, &a), 0);
	ck_assert_uint_eq(tl_stream_tally(v, 0, 1).replicas, 0);
	a = action(PL_ACTION_MOVE_REPLICA, 0, 2, 1);
	ck_assert_int_eq(pl_view_apply(v, &a), 0);
	ck_assert_uint_eq(tl_stream_tally(v, 0, 1).replicas, 1);
	const uint32_t *list;
	uint32_t n = pl__rcell_members(v, 0, &list), sum = 0;
	for (uint32_t i = 0; i < n; i++)
		sum += pl__rcell_get(v, 0, list[i]);
	ck_assert_uint_eq(sum, 2);
	ck_assert_uint_le(n, 3);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < i; j++)
			ck_assert_uint_ne(list[i], list[j]);
	/* Another stream asked, then this one again: counted afresh. */
	ck_assert_uint_eq(tl_stream_tally(v, 1, 0).replicas, 1);
	ck_assert_uint_eq(tl_stream_tally(v, 0, 2).replicas, 0);
	ck_assert_uint_eq(tl_stream_tally(v, 0, 0).replicas, 1);
	tl_free(t);
}
END_TEST

/* A small view keeps every stream's replica counts (a row of members a
 * stream); its copy reads its own rows, the one asked last included. */
START_TEST(replica_rows_follow_a_copy)
{
	tl *t = abc_s();
	for (uint32_t k = 0; k < 16; k++)
		tl_shard(t, tl_str(t, "s/%u", k), 0, 0, 2, 0u, 1u);
	pl_view *v = tl_view(t, 0);
	ck_assert_uint_ne(v->rc_rows, 0); /* 1 stream x 3 members <= 16 / 4 */
	ck_assert_uint_eq(tl_stream_tally(v, 0, 2).replicas, 0); /* the row asked */
	size_t size = pl_view_size(tl_snap(t));
	void *mem = malloc(size);
	pl_view *w = NULL;
	ck_assert_int_eq(pl_view_copy(&w, mem, size, v), 0);
	pl_action a = action(PL_ACTION_ADD_REPLICA, 3, PL_NONE, 2);
	a.stream = 0;
	ck_assert_int_eq(pl_view_apply(w, &a), 0);
	ck_assert_uint_eq(tl_stream_tally(w, 0, 2).replicas, 1);
	ck_assert_uint_eq(tl_stream_tally(v, 0, 2).replicas, 0);
	const uint32_t *list;
	ck_assert_uint_eq(pl__rcell_members(w, 0, &list), 3); /* every member listed */
	free(mem);
	tl_free(t);
}
END_TEST

/* The view's memory at the bench's size (1M shards, 1k members, 10k
 * streams): replicas per stream take no room per shard. */
START_TEST(view_size_per_shard)
{
	pl_snapshot s = PL_SNAPSHOT_INIT;
	s.n_members = 1000;
	s.n_streams = 10000;
	s.n_shards = 1000000;
	size_t size = pl_view_size(&s);
	ck_assert_msg(size <= (size_t)100 * s.n_shards, "%zu bytes per shard", size / s.n_shards);
}
END_TEST

START_TEST(apply_refuses_what_does_not_fit)
{
	tl *t = abc_s();
	tl_shard(t, "k0", 0, 0, 2, 0u, 1u);
	tl_shard(t, "k1", 0, PL_NONE, 0);
	pl_view *v = tl_view(t, 0);
	pl_action a = action(PL_ACTION_MOVE_LEADER, 0, 1, 2); /* from is not the leader */
	ck_assert_int_eq(pl_view_apply(v, &a), PL_E_ACTION);
	a = action(PL_ACTION_SET_LEADER, 0, 0, 2); /* c holds no replica */
	ck_assert_int_eq(pl_view_apply(v, &a), PL_E_ACTION);
	a = action(PL_ACTION_ADD_REPLICA, 0, PL_NONE, 1); /* b already holds one */
	ck_assert_int_eq(pl_view_apply(v, &a), PL_E_ACTION);
	a = action(PL_ACTION_MOVE_REPLICA, 1, 0, 1); /* k1 has no replica on a */
	ck_assert_int_eq(pl_view_apply(v, &a), PL_E_ACTION);
	a = action(PL_ACTION_DROP_OVERRIDE, 1, PL_NONE, PL_NONE); /* no override */
	ck_assert_int_eq(pl_view_apply(v, &a), PL_E_ACTION);
	a = action(PL_ACTION_MOVE_LEADER, 2, 0, 1); /* no such shard */
	ck_assert_int_eq(pl_view_apply(v, &a), PL_E_ACTION);
	a = action(99, 0, 0, 1);
	ck_assert_int_eq(pl_view_apply(v, &a), PL_E_ACTION);
	ck_assert_int_eq(pl_view_apply(v, NULL), PL_E_INVAL);
	ck_assert_int_eq(pl_view_apply(NULL, &a), PL_E_INVAL);
	/* Refused actions changed nothing. */
	pl_tally x;
	pl_view_member_tally(v, 0, &x);
	ck_assert_uint_eq(x.leaders, 1);
	pl_view_stream_tally(v, 0, 2, &x);
	ck_assert_uint_eq(x.leaders, 0);
	/* And a good one is applied and stays in flight until settled. */
	a = action(PL_ACTION_MOVE_LEADER, 0, 0, 2);
	ck_assert_int_eq(pl_view_apply(v, &a), 0);
	pl_view_stream_tally(v, 0, 2, &x);
	ck_assert_uint_eq(x.leaders, 1);
	ck_assert_uint_eq(x.replicas, 1);
	pl_view_member_tally(v, 0, &x);
	ck_assert_uint_eq(x.replicas, 0);
	pl_shard_state st;
	pl_view_shard_state(v, 0, &st);
	ck_assert_uint_eq(st.moving, 1);
	ck_assert_int_eq(pl_view_settle(v), 1);
	tl_free(t);
}
END_TEST

/* Fleet ownership: an override on a down or draining member is void (the
 * ring home owns the shard); lag overrides off the home are tallied. */
START_TEST(owner_skips_void_overrides)
{
	tl *t = tl_new();
	tl_member(t, "a", NULL);
	tl_member(t, "b", NULL);
	tl_member(t, "c", NULL);
	for (int i = 0; i < 30; i++)
		tl_shard(t, tl_str(t, "k%02d", i), PL_NONE, PL_NONE, 0);
	pl_view *v = tl_view(t, 0);
	uint32_t k0 = 0, h0 = (uint32_t)pl_view_home(v, 0), other = (h0 + 1) % 3, third = (h0 + 2) % 3;
	tl_override(t, k0, other, PL_ORIGIN_LAG, 1);
	/* a second shard with a lag override naming its own ring home */
	uint32_t h1 = (uint32_t)pl_view_home(v, 1);
	tl_override(t, 1, h1, PL_ORIGIN_LAG, 1);
	for (int state = 0; state < 3; state++) {
		t->m[other].flags = state == 0 ? 0u : state == 1 ? PL_MEMBER_DRAINING : PL_MEMBER_DOWN;
		v = tl_view(t, 0);
		pl__view_homes(v);
		uint32_t want = state == 0 ? other : v->k_home[k0];
		ck_assert_uint_eq(pl__owner(v, k0), want);
		ck_assert_uint_eq(pl__lag_holder(v, k0), state == 0 ? other : PL_NONE);
		ck_assert_uint_eq(pl__lag_holder(v, 1), PL_NONE);
		uint32_t owned = 0, lagged = 0;
		for (uint32_t m = 0; m < 3; m++) {
			owned += v->m_owned[m];
			lagged += v->m_lagged[m];
		}
		ck_assert_uint_eq(owned, 30);
		ck_assert_uint_eq(lagged, state == 0 ? 1 : 0);
		/* Applying a drop, then a count override, keeps both tallies. */
		if (state == 0) {
			pl_action a = action(PL_ACTION_SET_OVERRIDE, k0, PL_NONE, third);
			a.origin = PL_ORIGIN_COUNT;
			ck_assert_int_eq(pl_view_apply(v, &a), 0);
			ck_assert_uint_eq(v->m_lagged[other], 0);
			a.origin = PL_ORIGIN_LAG;
			ck_assert_int_eq(pl_view_apply(v, &a), 0);
			ck_assert_uint_eq(v->m_lagged[third], 1);
			a = action(PL_ACTION_DROP_OVERRIDE, k0, third, PL_NONE);
			ck_assert_int_eq(pl_view_apply(v, &a), 0);
			ck_assert_uint_eq(v->m_lagged[third], 0);
			ck_assert_uint_eq(pl__owner(v, k0), h0);
		}
	}
	tl_free(t);
}
END_TEST

/* The rest of pl_view_apply()'s rules, each refused with PL_E_ACTION and
 * the view's bytes left as they were. */
START_TEST(apply_refuses_every_rule_and_writes_nothing)
{
	tl *t = tl_new();
	for (uint32_t m = 0; m < 10; m++)
		tl_member(t, tl_str(t, "m%u", m), NULL);
	tl_shard(t, "k0", PL_NONE, 0, 2, 0u, 1u);
	tl_shard(t, "full", PL_NONE, 0, 8, 0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u);
	tl_shard(t, "k2", PL_NONE, PL_NONE, 0);
	tl_override(t, 0, 1, PL_ORIGIN_COUNT, 5);
	/* in zeroed memory, so that the bytes the view never writes compare */
	size_t size = pl_view_size(tl_snap(t));
	void *mem = calloc(1, size), *before = malloc(size);
	pl_view *v = NULL;
	ck_assert_int_eq(pl_view_init(&v, mem, size, tl_snap(t), NULL, NULL), 0);
	memcpy(before, v, size);
	const pl_action bad[] = {
		action(PL_ACTION_SET_LEADER, 0, 0, 0),        /* onto the leader itself */
		action(PL_ACTION_SET_LEADER, 0, 1, 1),        /* from is not the leader */
		action(PL_ACTION_SET_LEADER, 0, 0, 10),       /* no such member */
		action(PL_ACTION_MOVE_LEADER, 0, 0, 0),       /* to is from */
		action(PL_ACTION_MOVE_LEADER, 0, 10, 2),      /* from out of range */
		action(PL_ACTION_MOVE_LEADER, 0, 0, 10),      /* to out of range */
		action(PL_ACTION_ADD_REPLICA, 1, PL_NONE, 8), /* a full set of 8 */
		action(PL_ACTION_ADD_REPLICA, 0, PL_NONE, 10),
		action(PL_ACTION_MOVE_REPLICA, 0, 0, 1),      /* b already holds one */
		action(PL_ACTION_MOVE_REPLICA, 0, 10, 2),     /* from out of range */
		action(PL_ACTION_MOVE_REPLICA, 0, 0, 10),     /* to out of range */
		action(PL_ACTION_MOVE_REPLICA, 0, 3, 2),      /* from holds none */
		action(PL_ACTION_SET_OVERRIDE, 2, PL_NONE, 10),
		action(PL_ACTION_DROP_OVERRIDE, 0, 2, PL_NONE), /* the override is on m1 */
		action(PL_ACTION_DROP_OVERRIDE, 2, PL_NONE, PL_NONE),
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_msg(pl_view_apply(v, &bad[i]) == PL_E_ACTION, "action %zu applied", i);
		ck_assert_msg(memcmp(before, v, size) == 0, "action %zu changed the view", i);
	}
	pl_action o = action(PL_ACTION_SET_OVERRIDE, 2, PL_NONE, 3);
	o.origin = PL_ORIGIN_COUNT + 1; /* no such origin */
	ck_assert_int_eq(pl_view_apply(v, &o), PL_E_ACTION);
	ck_assert_int_eq(memcmp(before, v, size), 0);
	/* A drop that names no member, or the right one, is taken. */
	pl_action d = action(PL_ACTION_DROP_OVERRIDE, 0, PL_NONE, PL_NONE);
	ck_assert_int_eq(pl_view_apply(v, &d), 0);
	pl_shard_state st;
	pl_view_shard_state(v, 0, &st);
	ck_assert_uint_eq(st.override_member, PL_NONE);
	free(before);
	free(mem);
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tally");
	TCase *c = tcase_create("apply");
	tcase_add_test(c, apply_refuses_what_does_not_fit);
	tcase_add_test(c, apply_refuses_every_rule_and_writes_nothing);
	tcase_add_test(c, owner_skips_void_overrides);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, random_actions_keep_tallies);
	tcase_add_test(c, stream_tallies_asked_between_actions);
	tcase_add_test(c, view_size_per_shard);
	tcase_add_test(c, epoch_advance_is_exact_to_its_limit);
	tcase_add_test(c, replica_cache_lists_a_member_once);
	tcase_add_test(c, replica_rows_follow_a_copy);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
