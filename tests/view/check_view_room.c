/* check_view_room.c - replica slots sized by the caller (pl_view_options
 * max_replicas): the size, the room the snapshot raises, the refusals past
 * it, and the same answers as a view with the default room. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "view/view_build.h"
#include "testutil.h"

static pl_view_options room_opt(uint32_t max_replicas)
{
	pl_view_options o = PL_VIEW_OPTIONS_INIT;
	o.max_replicas = max_replicas;
	return o;
}

/* A view of t built with o, in memory of its own (*mem to free). */
static pl_view *view_opt(tl *t, const pl_view_options *o, void **mem)
{
	size_t size = pl_view_size_opt(tl_snap(t), o);
	*mem = malloc(size);
	pl_view *v = NULL;
	pl_diag d;
	ck_assert_int_eq(pl_view_init(&v, *mem, size, tl_snap(t), o, &d), 0);
	return v;
}

/* A view of t with a room of `room` replicas (room_opt()), in memory of its
 * own (*mem to free). */
static pl_view *room_view(tl *t, uint32_t room, void **mem)
{
	pl_view_options o = room_opt(room);
	return view_opt(t, &o, mem);
}

/* Forty shards "x00" .. "x39" of stream 0, led by member i % nm, of rf
 * replicas (1 or 2: the leader, then the next member): enough shards that
 * the states, not the sorts' scratch, set the size. */
static void states_set_the_size(tl *t, uint32_t nm, uint32_t rf)
{
	for (uint32_t i = 0; i < 40; i++)
		tl_shard(t, tl_str(t, "x%02u", i), 0, i % nm, rf, i % nm, (i + 1) % nm);
}

/* Five members, one stream, shards of 1, 2 and 3 replicas, then 40 of 2. */
static tl *small(void)
{
	tl *t = tl_new();
	tl_member(t, "a", NULL);
	tl_member(t, "b", NULL);
	tl_member(t, "c", NULL);
	tl_member(t, "d", NULL);
	tl_member(t, "e", NULL);
	tl_stream(t, "s");
	tl_shard(t, "k1", 0, 0, 1, 0u);
	tl_shard(t, "k2", 0, 0, 2, 0u, 1u);
	tl_shard(t, "k3", 0, 0, 3, 0u, 1u, 2u);
	states_set_the_size(t, 5, 2);
	return t;
}

START_TEST(size_follows_the_room)
{
	tl *t = tl_new();
	for (uint32_t m = 0; m < 10; m++)
		tl_member(t, tl_str(t, "m%u", m), NULL);
	for (uint32_t s = 0; s < 100; s++)
		tl_stream(t, tl_str(t, "s%u", s));
	for (uint32_t k = 0; k < 10000; k++)
		tl_shard(t, tl_str(t, "s%u/%u", k % 100, k), k % 100, k % 10, 3, k % 10, (k + 1) % 10, (k + 2) % 10);
	pl_view_options o3 = room_opt(3), o0 = room_opt(0), o8 = room_opt(PL_MAX_REPLICAS), o2 = room_opt(2);
	size_t s3 = pl_view_size_opt(tl_snap(t), &o3), s8 = pl_view_size(tl_snap(t));
	ck_assert_uint_eq(pl_view_size_opt(tl_snap(t), NULL), s8);
	ck_assert_uint_eq(pl_view_size_opt(tl_snap(t), &o0), s8);
	ck_assert_uint_eq(pl_view_size_opt(tl_snap(t), &o8), s8);
	/* The snapshot's 3 replicas raise a room of 2. */
	ck_assert_uint_eq(pl_view_size_opt(tl_snap(t), &o2), s3);
	/* Two slot words of 8 bytes fewer a shard (3 replicas to a word). */
	ck_assert_uint_eq(s8 - s3, (PL__STATE_SIZE(PL_MAX_REPLICAS) - PL__STATE_SIZE(3)) * t->nk);
	ck_assert_uint_eq(PL__STATE_SIZE(PL_MAX_REPLICAS) - PL__STATE_SIZE(3), 16);
	ck_assert_msg(s3 <= (size_t)70 * t->nk, "%zu bytes a shard", s3 / t->nk);
	/* Version 2 options have no max_replicas: the default room. */
	o3.version = 2;
	ck_assert_uint_eq(pl_view_size_opt(tl_snap(t), &o3), s8);
	void *mem;
	pl_view *v = view_opt(t, &o2, &mem);
	ck_assert_uint_eq(v->room, 3);
	/* A copy of it takes its own size. */
	void *cm = malloc(s3);
	pl_view *c = NULL;
	ck_assert_int_eq(pl_view_copy(&c, cm, s3 - 1, v), PL_E_WORKSPACE);
	ck_assert_int_eq(pl_view_copy(&c, cm, s3, v), 0);
	pl_shard_state a, b;
	for (uint32_t k = 0; k < t->nk; k += 997) {
		pl_view_shard_state(v, k, &a);
		pl_view_shard_state(c, k, &b);
		ck_assert_mem_eq(&a, &b, sizeof a);
	}
	free(cm);
	free(mem);
	tl_free(t);
}
END_TEST

/* The bench's proportions (a thousand shards a member, a hundred a
 * stream, RF 3) at a tenth of its size: at most 56 bytes a shard with a
 * room of 3 (24-byte states, 6-byte leader cells, the sort's 36 bytes of
 * scratch a key inside the region they share). */
START_TEST(bytes_a_shard_at_rf_3)
{
	pl_snapshot s = PL_SNAPSHOT_INIT;
	s.n_members = 100;
	s.n_streams = 1000;
	s.n_shards = 100000;
	pl_member *m = calloc(s.n_members, sizeof *m);
	pl_stream *st = calloc(s.n_streams, sizeof *st);
	pl_shard *k = calloc(s.n_shards, sizeof *k);
	for (uint32_t i = 0; i < s.n_shards; i++)
		k[i].replica_count = 3;
	s.members = m;
	s.streams = st;
	s.shards = k;
	pl_view_options o = room_opt(3);
	size_t size = pl_view_size_opt(&s, &o);
	ck_assert_msg(size <= (size_t)56 * s.n_shards, "%.1f bytes a shard", (double)size / s.n_shards);
	ck_assert_uint_ge(size, (size_t)(4 + 4 + 8 + 4 + 4 + 6 + PL__STATE_SIZE(3)) * s.n_shards);
	free(m);
	free(st);
	free(k);
}
END_TEST

START_TEST(an_add_past_the_room_is_refused)
{
	tl *t = small();
	void *mem;
	pl_view *v = room_view(t, 3, &mem);
	ck_assert_uint_eq(v->room, 3);
	pl_action a = tl_action(PL_ACTION_ADD_REPLICA, PL_REASON_FAILOVER, 2, 0, PL_NONE, 3);
	ck_assert_int_eq(pl_view_apply(v, &a), PL_E_REPLICA_ROOM);
	ck_assert_str_eq(pl_error_name(PL_E_REPLICA_ROOM), "E_REPLICA_ROOM");
	pl_shard_state st;
	pl_view_shard_state(v, 2, &st);
	ck_assert_uint_eq(st.replica_count, 3);
	ck_assert_uint_eq(st.replicas[3], PL_NONE);
	pl_tally x = tl_member_tally(v, 3);
	ck_assert_uint_eq(x.replicas, 16); /* of the 40 shards only */
	/* Another rule broken comes first: the member holds one already. */
	a.to = 0;
	ck_assert_int_eq(pl_view_apply(v, &a), PL_E_ACTION);
	/* Below the room, adds go on to it. */
	a = tl_action(PL_ACTION_ADD_REPLICA, PL_REASON_FAILOVER, 0, 0, PL_NONE, 3);
	ck_assert_int_eq(pl_view_apply(v, &a), 0);
	a.to = 4;
	ck_assert_int_eq(pl_view_apply(v, &a), 0);
	a.to = 1;
	ck_assert_int_eq(pl_view_apply(v, &a), PL_E_REPLICA_ROOM);
	pl_view_shard_state(v, 0, &st);
	ck_assert_uint_eq(st.replica_count, 3);
	ck_assert_uint_eq(st.replicas[2], 4);
	free(mem);
	tl_free(t);
}
END_TEST

START_TEST(the_snapshot_raises_the_room)
{
	tl *t = small();
	t->snap.n_copies = 0;
	pl_view_options o = room_opt(1);
	void *mem;
	pl_view *v = view_opt(t, &o, &mem);
	ck_assert_uint_eq(v->room, 3);
	free(mem);
	/* A copy in flight that adds a replica to the largest set: one more. */
	pl_copy cp;
	memset(&cp, 0, sizeof cp);
	cp.shard = 2;
	cp.from = PL_NONE;
	cp.to = 4;
	t->snap.copies = &cp;
	t->snap.n_copies = 1;
	v = view_opt(t, &o, &mem);
	ck_assert_uint_eq(v->room, 4);
	pl_shard_state st;
	pl_view_shard_state(v, 2, &st);
	ck_assert_uint_eq(st.replica_count, 4);
	ck_assert_uint_eq(st.replicas[3], 4);
	free(mem);
	/* One that replaces a replica adds none. */
	cp.from = 0;
	v = view_opt(t, &o, &mem);
	ck_assert_uint_eq(v->room, 3);
	free(mem);
	t->snap.n_copies = 0;
	tl_free(t);
}
END_TEST

/* The init finds the raised room in validation's own pass (no pass of its
 * own): memory for the options' room is refused with PL_E_WORKSPACE when a
 * shard (or a copy in flight) needs more, writing nothing to *out; a
 * snapshot that is also invalid reports its error first; a hint whose
 * states validation writes meets the shard past the room too. */
START_TEST(the_init_finds_the_raised_room)
{
	tl *t = small();
	t->snap.n_copies = 0;
	pl_view_options o = room_opt(3);
	size_t s3 = pl_view_size_opt(tl_snap(t), &o); /* k3 a set of 3: a room of 3 */
	t->k[2].replicas[3] = 3;
	t->k[2].replica_count = 4; /* now of 4: a slot word more */
	size_t s4 = pl_view_size_opt(tl_snap(t), &o);
	ck_assert_uint_lt(s3, s4);
	void *mem = malloc(s4);
	pl_view *v = NULL;
	pl_diag d;
	memset(&d, 0, sizeof d);
	ck_assert_int_eq(pl_view_init(&v, mem, s3, tl_snap(t), &o, &d), PL_E_WORKSPACE);
	ck_assert_ptr_null(v);
	ck_assert_uint_eq(d.kind, PL_ELEM_ARGUMENT);
	ck_assert_uint_eq(d.index, 3);
	/* Invalid as well: its error first (found by the pass that finds the room). */
	t->k[5].leader = 99;
	ck_assert_int_eq(pl_view_init(&v, mem, s3, tl_snap(t), &o, &d), PL_E_MEMBER_RANGE);
	ck_assert_uint_eq(d.kind, PL_ELEM_SHARD);
	ck_assert_uint_eq(d.index, 5);
	ck_assert_ptr_null(v);
	t->k[5].leader = t->k[5].replicas[0];
	/* Enough memory: the room of 4, the set whole. */
	ck_assert_int_eq(pl_view_init(&v, mem, s4, tl_snap(t), &o, &d), 0);
	ck_assert_uint_eq(v->room, 4);
	pl_shard_state st;
	pl_view_shard_state(v, 2, &st);
	ck_assert_uint_eq(st.replica_count, 4);
	ck_assert_uint_eq(st.replicas[3], 3);
	/* A hint of the snapshot with k3 as a set of 3, the next tick with 4:
	 * validation stops writing states at k3 and the view is built again
	 * with the room of 4; the answers are a fresh build's. */
	t->k[2].replica_count = 3;
	void *hm = malloc(s3);
	pl_view *h = NULL;
	ck_assert_int_eq(pl_view_init(&h, hm, s3, tl_snap(t), &o, &d), 0);
	ck_assert_uint_eq(h->room, 3);
	t->k[2].replica_count = 4;
	pl_view_options ro = o;
	ro.reuse = h;
	pl_view *w = NULL;
	void *wm = malloc(s4);
	ck_assert_int_eq(pl_view_init(&w, wm, s4, tl_snap(t), &ro, &d), 0);
	ck_assert_uint_eq(w->room, 4);
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state a, b;
		pl_view_shard_state(v, k, &a);
		pl_view_shard_state(w, k, &b);
		ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
	}
	free(wm);
	free(hm);
	free(mem);
	tl_free(t);
}
END_TEST

START_TEST(bad_options_write_nothing)
{
	tl *t = small();
	size_t size = pl_view_size(tl_snap(t));
	void *mem = malloc(size);
	pl_view *out = (pl_view *)(void *)&size; /* a marker: left as it is */
	pl_view *const mark = out;
	pl_diag d;
	pl_view_options o = room_opt(PL_MAX_REPLICAS + 1);
	ck_assert_int_eq(pl_view_init(&out, mem, size, tl_snap(t), &o, &d), PL_E_CONFIG);
	ck_assert_uint_eq(d.kind, PL_ELEM_CONFIG);
	ck_assert_uint_eq(d.index, 3);
	ck_assert_ptr_eq(out, mark);
	/* The size function cannot fail: the defaults' size. */
	ck_assert_uint_eq(pl_view_size_opt(tl_snap(t), &o), size);
	o = room_opt(3);
	o.reserved = 1;
	ck_assert_int_eq(pl_view_init(&out, mem, size, tl_snap(t), &o, &d), PL_E_CONFIG);
	ck_assert_uint_eq(d.index, 4);
	ck_assert_ptr_eq(out, mark);
	o.version = 4;
	ck_assert_int_eq(pl_view_init(&out, mem, size, tl_snap(t), &o, &d), PL_E_VERSION);
	ck_assert_ptr_eq(out, mark);
	/* Too small for the default room is enough for a room of 3. */
	o = room_opt(3);
	size_t s3 = pl_view_size_opt(tl_snap(t), &o);
	ck_assert_uint_lt(s3, size);
	ck_assert_int_eq(pl_view_init(&out, mem, s3 - 1, tl_snap(t), &o, &d), PL_E_WORKSPACE);
	ck_assert_ptr_eq(out, mark);
	ck_assert_int_eq(pl_view_init(&out, mem, s3, tl_snap(t), &o, &d), 0);
	ck_assert_ptr_eq(out, mem);
	/* A NULL array with a count: the init refuses it whatever the size. */
	pl_snapshot s = *tl_snap(t);
	s.shards = NULL;
	ck_assert_uint_eq(pl_view_size_opt(&s, &o), pl_view_size(&s));
	free(mem);
	tl_free(t);
}
END_TEST

/* The room the snapshot raises stops at PL_MAX_REPLICAS, whether a shard's
 * count or a copy in flight takes it there; a copy of a shard past the
 * array, or one adding to a set below the room, raises nothing. */
START_TEST(the_raised_room_stops_at_the_limit)
{
	tl *t = tl_new();
	for (uint32_t m = 0; m < PL_MAX_REPLICAS + 1; m++)
		tl_member(t, tl_str(t, "m%u", m), NULL);
	tl_stream(t, "s");
	tl_shard(t, "full", 0, 0, PL_MAX_REPLICAS, 0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u);
	tl_shard(t, "two", 0, 1, 2, 1u, 2u);
	tl_shard(t, "one", 0, 2, 1, 2u);
	states_set_the_size(t, 8, 1);
	size_t def = pl_view_size(tl_snap(t));
	pl_view_options o = room_opt(2);
	ck_assert_uint_eq(pl_view_size_opt(tl_snap(t), &o), def);
	void *mem;
	pl_view *v = view_opt(t, &o, &mem);
	ck_assert_uint_eq(v->room, PL_MAX_REPLICAS);
	free(mem);
	/* Two short of the limit (a slot word fewer), then a copy adding one
	 * (the third word again). */
	t->k[0].replica_count = PL_MAX_REPLICAS - 2;
	ck_assert_uint_lt(pl_view_size_opt(tl_snap(t), &o), def);
	pl_copy cp[3];
	memset(cp, 0, sizeof cp);
	cp[0].shard = 1; /* a set of 2, below the room of 6: nothing */
	cp[0].from = PL_NONE;
	cp[0].to = 5;
	cp[1].shard = 1000; /* past the array: nothing (the init refuses it) */
	cp[1].from = PL_NONE;
	cp[1].to = 5;
	t->snap.copies = cp;
	t->snap.n_copies = 2;
	size_t s6 = pl_view_size_opt(tl_snap(t), &o);
	ck_assert_uint_lt(s6, def);
	cp[2].shard = 0; /* the set of 6: 7, the slots of the limit */
	cp[2].from = PL_NONE;
	cp[2].to = 8;
	cp[0] = cp[2];
	t->snap.n_copies = 3;
	ck_assert_uint_eq(pl_view_size_opt(tl_snap(t), &o), def);
	pl_diag d;
	mem = malloc(def);
	pl_view *out = NULL;
	ck_assert_int_ne(pl_view_init(&out, mem, def, tl_snap(t), &o, &d), 0);
	ck_assert_ptr_null(out);
	free(mem);
	/* A set at the limit: the copies are not read (the room is the limit). */
	t->k[0].replica_count = PL_MAX_REPLICAS;
	ck_assert_uint_eq(pl_view_size_opt(tl_snap(t), &o), def);
	t->snap.n_copies = 0;
	t->snap.copies = NULL;
	tl_free(t);
}
END_TEST

/* Options of version 0 are refused like those of a version to come. */
START_TEST(options_version_zero_is_refused)
{
	tl *t = small();
	size_t size = pl_view_size(tl_snap(t));
	void *mem = malloc(size);
	pl_view *out = NULL;
	pl_diag d;
	pl_view_options o = room_opt(3);
	o.version = 0;
	ck_assert_int_eq(pl_view_init(&out, mem, size, tl_snap(t), &o, &d), PL_E_VERSION);
	ck_assert_uint_eq(d.kind, PL_ELEM_CONFIG);
	ck_assert_uint_eq(d.index, 0);
	ck_assert_ptr_null(out);
	free(mem);
	tl_free(t);
}
END_TEST

/* Policies that would add past the room are refused before they write. */
START_TEST(policies_refuse_a_factor_past_the_room)
{
	tl *t = small();
	void *mem;
	pl_view *v = room_view(t, 3, &mem);
	pl_action out[4];
	memset(out, 0xab, sizeof out);
	pl_plan_info info;
	memset(&info, 0xab, sizeof info);
	pl_diag d;
	pl_broker_config bc = PL_BROKER_CONFIG_INIT;
	bc.replication_factor = 4;
	ck_assert_int_eq(pl_broker_plan(v, &bc, out, 4, &info, &d), PL_E_REPLICA_ROOM);
	ck_assert_uint_eq(d.kind, PL_ELEM_CONFIG);
	ck_assert_uint_eq(d.index, 5);
	bc.replication_factor = 3;
	ck_assert_int_ge(pl_broker_plan(v, &bc, out, 4, NULL, &d), 0);
	pl_region_config rc = PL_REGION_CONFIG_INIT;
	rc.replication_factor = 4;
	pl_action before[4];
	memcpy(before, out, sizeof out);
	ck_assert_int_eq(pl_region_plan(v, &rc, out, 4, &info, NULL, 0, &d), PL_E_REPLICA_ROOM);
	ck_assert_uint_eq(d.kind, PL_ELEM_CONFIG);
	ck_assert_uint_eq(d.index, 1);
	ck_assert_mem_eq(out, before, sizeof out);
	unsigned char ab[sizeof info];
	memset(ab, 0xab, sizeof ab);
	ck_assert_mem_eq(&info, ab, sizeof info);
	/* A region at the room takes no peer: its own code. */
	ck_assert_int_eq(pl_region_check_add_peer(v, 2, 3, pl__epoch(v, 2), &d), PL_E_REPLICA_ROOM);
	ck_assert_uint_eq(d.kind, PL_ELEM_SHARD);
	ck_assert_uint_eq(d.index, 2);
	ck_assert_int_eq(pl_region_check_add_peer(v, 1, 3, pl__epoch(v, 1), &d), 0);
	free(mem);
	tl_free(t);
}
END_TEST

/* Random layouts: a view with the smallest room the snapshot allows and
 * one with the default answer a broker and a region plan alike, action for
 * action, and every shard state after them. */
START_TEST(same_answers_as_the_default_room)
{
	uint64_t seed = tl_seed(0x900du);
	uint32_t iters = tl_iters(30);
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t rng = seed + it;
		uint32_t nm = 3 + tl_below(&rng, 8), rf = 1 + tl_below(&rng, 3);
		tl *t = tl_random(&rng, nm, 1 + tl_below(&rng, 4), 1 + tl_below(&rng, 60), rf, (int)tl_below(&rng, 2));
		pl_view_options o = room_opt(1);
		void *m1, *m2;
		pl_view *a = view_opt(t, &o, &m1), *b = view_opt(t, NULL, &m2);
		ck_assert_uint_le(a->room, rf);
		pl_broker_config bc = PL_BROKER_CONFIG_INIT;
		bc.replication_factor = a->room;
		pl_action x[64], y[64];
		memset(x, 0, sizeof x);
		memset(y, 0, sizeof y);
		int na = pl_broker_plan(a, &bc, x, 64, NULL, NULL), nb = pl_broker_plan(b, &bc, y, 64, NULL, NULL);
		ck_assert_msg(na == nb && (na <= 0 || memcmp(x, y, (size_t)na * sizeof *x) == 0),
			      "seed %llu: broker plans differ", (unsigned long long)(seed + it));
		pl_view_settle(a);
		pl_view_settle(b);
		pl_region_config rc = PL_REGION_CONFIG_INIT;
		rc.replication_factor = a->room;
		na = pl_region_plan(a, &rc, x, 64, NULL, NULL, 0, NULL);
		nb = pl_region_plan(b, &rc, y, 64, NULL, NULL, 0, NULL);
		ck_assert_msg(na == nb && (na <= 0 || memcmp(x, y, (size_t)na * sizeof *x) == 0),
			      "seed %llu: region plans differ", (unsigned long long)(seed + it));
		for (uint32_t k = 0; k < t->nk; k++) {
			pl_shard_state p, q;
			pl_view_shard_state(a, k, &p);
			pl_view_shard_state(b, k, &q);
			ck_assert_msg(memcmp(&p, &q, sizeof p) == 0, "seed %llu: shard %u differs",
				      (unsigned long long)(seed + it), k);
		}
		free(m1);
		free(m2);
		tl_free(t);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("view_room");
	TCase *c = tcase_create("room");
	tcase_add_test(c, size_follows_the_room);
	tcase_add_test(c, bytes_a_shard_at_rf_3);
	tcase_add_test(c, an_add_past_the_room_is_refused);
	tcase_add_test(c, the_snapshot_raises_the_room);
	tcase_add_test(c, the_init_finds_the_raised_room);
	tcase_add_test(c, bad_options_write_nothing);
	tcase_add_test(c, the_raised_room_stops_at_the_limit);
	tcase_add_test(c, options_version_zero_is_refused);
	tcase_add_test(c, policies_refuse_a_factor_past_the_room);
	suite_add_tcase(s, c);
	TCase *p = tcase_create("properties");
	tcase_set_timeout(p, 60);
	tcase_add_test(p, same_answers_as_the_default_room);
	suite_add_tcase(s, p);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
