/* check_copies.c - replica copies in flight (snapshot.copies): validation,
 * one test per code, nothing written on error; the view counting a copy as
 * finished in every tally and marking its shard moving; the region and
 * broker policies treating it as a move in flight. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define NC 4

/* Four members, one stream; s0 on {b0, b1} led by b0, s1 on {b1} led by b1,
 * s2 new, s3 a full set of PL_MAX_REPLICAS on members m0..m7. */
typedef struct fx {
	tl *t;
	pl_copy c[NC];
	uint32_t s0, s1, s2, s3;
} fx;

static fx *fx_new(void)
{
	fx *f = calloc(1, sizeof *f);
	f->t = tl_new();
	tl *t = f->t;
	for (int i = 0; i < 8; i++)
		tl_member(t, tl_str(t, "b%d", i), i % 2 ? "z2" : "z1");
	tl_stream(t, "orders");
	f->s0 = tl_shard(t, "orders/00", 0, 0, 2, 0u, 1u);
	f->s1 = tl_shard(t, "orders/01", 0, 1, 1, 1u);
	f->s2 = tl_shard(t, "orders/02", 0, PL_NONE, 0);
	f->s3 = tl_shard(t, "orders/03", 0, 0, 8, 0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u);
	return f;
}

static void fx_free(fx *f)
{
	tl_free(f->t);
	free(f);
}

/* The snapshot with copies c[0 .. n). */
static const pl_snapshot *with(fx *f, uint32_t n)
{
	const pl_snapshot *s = tl_snap(f->t);
	f->t->snap.copies = n ? f->c : NULL;
	f->t->snap.n_copies = n;
	return s;
}

static pl_copy copy(uint32_t shard, uint32_t to, uint32_t from)
{
	pl_copy c = {shard, to, from, 0};
	return c;
}

/* Validate through pl_snapshot_validate and pl_view_init: the code, the
 * element, and nothing written. */
static void expect(const pl_snapshot *s, int code, uint32_t kind, uint32_t index, uint32_t other)
{
	size_t ws = pl_snapshot_work_size(s);
	void *w = malloc(ws ? ws : 8);
	pl_diag d;
	memset(&d, 0x5a, sizeof d);
	int rc = pl_snapshot_validate(s, w, ws, &d);
	ck_assert_msg(rc == code, "validate: got %s, want %s", pl_error_name(rc), pl_error_name(code));
	if (code) {
		ck_assert_int_eq(d.code, code);
		ck_assert_uint_eq(d.kind, kind);
		ck_assert_uint_eq(d.index, index);
		ck_assert_uint_eq(d.other, other);
	}
	free(w);
	pl_view *sentinel = (pl_view *)(uintptr_t)0x1234, *v = sentinel;
	size_t size = pl_view_size(s);
	void *mem = malloc(size);
	rc = pl_view_init(&v, mem, size, s, NULL, &d);
	ck_assert_msg(rc == code, "view: got %s, want %s", pl_error_name(rc), pl_error_name(code));
	if (code) {
		ck_assert_ptr_eq(v, sentinel);
		ck_assert_uint_eq(d.kind, kind);
		ck_assert_uint_eq(d.index, index);
	}
	free(mem);
}

START_TEST(valid_copies)
{
	fx *f = fx_new();
	f->c[0] = copy(f->s0, 2, PL_NONE); /* a peer added */
	f->c[1] = copy(f->s1, 3, 1);       /* a replica moved */
	expect(with(f, 2), 0, 0, 0, 0);
	/* a leader move in flight onto a member that holds a replica already:
	 * the replicas stay as listed, so b0's may be the copy's source */
	f->t->k[f->s0].moving_to = 1;
	f->c[0] = copy(f->s0, 2, 0);
	expect(with(f, 1), 0, 0, 0, 0);
	fx_free(f);
}
END_TEST

START_TEST(copies_null_and_limit)
{
	fx *f = fx_new();
	const pl_snapshot *s = with(f, 0);
	f->t->snap.n_copies = 1; /* NULL with a count */
	expect(s, PL_E_NULL, PL_ELEM_SNAPSHOT, 4, PL_NONE);
	f->t->snap.copies = f->c;
	f->t->snap.n_copies = PL_MAX_COPIES + 1;
	expect(s, PL_E_LIMIT, PL_ELEM_SNAPSHOT, 4, PL_NONE);
	fx_free(f);
}
END_TEST

START_TEST(copy_shard_range)
{
	fx *f = fx_new();
	f->c[0] = copy(f->s0, 2, PL_NONE);
	f->c[1] = copy(99, 2, PL_NONE);
	expect(with(f, 2), PL_E_COPY_SHARD, PL_ELEM_COPY, 1, PL_NONE);
	fx_free(f);
}
END_TEST

START_TEST(copy_to_range)
{
	fx *f = fx_new();
	f->c[0] = copy(f->s0, 8, PL_NONE);
	expect(with(f, 1), PL_E_COPY_TO, PL_ELEM_COPY, 0, PL_NONE);
	f->c[0] = copy(f->s0, PL_NONE, PL_NONE);
	expect(with(f, 1), PL_E_COPY_TO, PL_ELEM_COPY, 0, PL_NONE);
	fx_free(f);
}
END_TEST

START_TEST(copy_from_range)
{
	fx *f = fx_new();
	f->c[0] = copy(f->s0, 2, 8);
	expect(with(f, 1), PL_E_COPY_FROM, PL_ELEM_COPY, 0, PL_NONE);
	fx_free(f);
}
END_TEST

START_TEST(copy_reserved)
{
	fx *f = fx_new();
	f->c[0] = copy(f->s0, 2, PL_NONE);
	f->c[0].reserved = 1;
	expect(with(f, 1), PL_E_COPY_RESERVED, PL_ELEM_COPY, 0, PL_NONE);
	fx_free(f);
}
END_TEST

START_TEST(copy_target_holds_a_replica)
{
	fx *f = fx_new();
	f->c[0] = copy(f->s0, 1, PL_NONE);
	expect(with(f, 1), PL_E_COPY_TARGET, PL_ELEM_COPY, 0, PL_NONE);
	f->c[0] = copy(f->s0, 0, 1); /* onto the other replica */
	expect(with(f, 1), PL_E_COPY_TARGET, PL_ELEM_COPY, 0, PL_NONE);
	/* With a leader move in flight onto b3 (which held no replica), b3
	 * holds b0's replica as the view counts it. */
	f->t->k[f->s0].moving_to = 3;
	f->c[0] = copy(f->s0, 3, PL_NONE);
	expect(with(f, 1), PL_E_COPY_TARGET, PL_ELEM_COPY, 0, PL_NONE);
	fx_free(f);
}
END_TEST

START_TEST(copy_source_holds_none)
{
	fx *f = fx_new();
	f->c[0] = copy(f->s1, 3, 2);
	expect(with(f, 1), PL_E_COPY_SOURCE, PL_ELEM_COPY, 0, PL_NONE);
	/* b0 led s0 and gave its replica to the move in flight onto b3. */
	f->t->k[f->s0].moving_to = 3;
	f->c[0] = copy(f->s0, 2, 0);
	expect(with(f, 1), PL_E_COPY_SOURCE, PL_ELEM_COPY, 0, PL_NONE);
	f->c[0] = copy(f->s0, 2, 3); /* b3 holds it now: valid */
	expect(with(f, 1), 0, 0, 0, 0);
	fx_free(f);
}
END_TEST

/* s0 {b0, b1} led by b0, a leader move in flight onto b3, which held no
 * replica: the view counts b3 leading and holding b0's replica, b0 holding
 * none. A copy back onto b0, from b3, is what the view describes: valid, and
 * counted as a replica move of the leader. */
START_TEST(copy_onto_the_old_leader_of_a_move_in_flight)
{
	fx *f = fx_new();
	f->t->k[f->s0].moving_to = 3;
	f->c[0] = copy(f->s0, 0, 3);
	expect(with(f, 1), 0, 0, 0, 0);
	pl_view *v = tl_view(f->t, PL_SCORER_XXH3);
	pl_shard_state st;
	ck_assert_int_eq(pl_view_shard_state(v, f->s0, &st), 0);
	ck_assert_uint_eq(st.replica_count, 2);
	uint32_t held = 0;
	for (uint32_t r = 0; r < st.replica_count; r++)
		held |= 1u << st.replicas[r];
	ck_assert_uint_eq(held, (1u << 0) | (1u << 1)); /* b0 again, and b1; not b3 */
	ck_assert_uint_eq(st.leader, 0);                /* the leader's replica came back with its leadership */
	f->c[0] = copy(f->s0, 2, 3); /* or onto a member that never held one */
	expect(with(f, 1), 0, 0, 0, 0);
	fx_free(f);
}
END_TEST

START_TEST(copy_onto_a_full_set)
{
	fx *f = fx_new();
	tl_member(f->t, "b8", NULL);
	f->c[0] = copy(f->s3, 8, PL_NONE);
	expect(with(f, 1), PL_E_COPY_FULL, PL_ELEM_COPY, 0, PL_NONE);
	f->c[0] = copy(f->s3, 8, 7); /* a move keeps the count: valid */
	expect(with(f, 1), 0, 0, 0, 0);
	fx_free(f);
}
END_TEST

START_TEST(two_copies_of_one_shard)
{
	fx *f = fx_new();
	f->c[0] = copy(f->s1, 2, PL_NONE);
	f->c[1] = copy(f->s0, 2, PL_NONE);
	f->c[2] = copy(f->s1, 3, PL_NONE); /* another member: still one per shard */
	f->c[3] = copy(f->s1, 2, PL_NONE);
	expect(with(f, 4), PL_E_DUP_COPY, PL_ELEM_COPY, 2, 0);
	fx_free(f);
}
END_TEST

/* Each code has its own name and message. */
START_TEST(copy_codes_are_named)
{
	int codes[] = {PL_E_COPY_SHARD, PL_E_COPY_TO,     PL_E_COPY_FROM, PL_E_COPY_RESERVED,
		       PL_E_COPY_TARGET, PL_E_COPY_SOURCE, PL_E_COPY_FULL, PL_E_DUP_COPY};
	for (size_t i = 0; i < sizeof codes / sizeof *codes; i++) {
		ck_assert_str_ne(pl_error_name(codes[i]), "E_UNKNOWN");
		ck_assert_str_ne(pl_strerror(codes[i]), "unknown error");
		for (size_t j = 0; j < i; j++)
			ck_assert_int_ne(codes[i], codes[j]);
	}
}
END_TEST

/* Workspace sizes grow with the copies, and a view's memory still serves
 * validation. */
START_TEST(sizes_count_the_copies)
{
	fx *f = fx_new();
	static pl_copy many[4096];
	for (uint32_t i = 0; i < 4096; i++)
		many[i] = copy(i % 3, 2, PL_NONE);
	const pl_snapshot *s = with(f, 0);
	size_t w0 = pl_snapshot_work_size(s), v0 = pl_view_size(s);
	f->t->snap.copies = many;
	f->t->snap.n_copies = 4096;
	ck_assert_uint_gt(pl_snapshot_work_size(s), w0);
	ck_assert_uint_ge(pl_view_size(s), pl_snapshot_work_size(s));
	ck_assert_uint_ge(pl_view_size(s), v0);
	expect(s, PL_E_DUP_COPY, PL_ELEM_COPY, 3, 0);
	fx_free(f);
}
END_TEST

/* ---- the view ------------------------------------------------------------------ */

START_TEST(view_counts_a_copy_finished)
{
	fx *f = fx_new();
	f->c[0] = copy(f->s0, 2, 0);       /* the leader's replica moves: b2 leads */
	f->c[1] = copy(f->s2, 3, PL_NONE); /* a new shard's first replica */
	const pl_snapshot *s = with(f, 2);
	pl_view *v;
	size_t size = pl_view_size(s);
	void *mem = malloc(size);
	ck_assert_int_eq(pl_view_init(&v, mem, size, s, NULL, NULL), 0);
	pl_shard_state st;
	ck_assert_int_eq(pl_view_shard_state(v, f->s0, &st), 0);
	ck_assert_uint_eq(st.replica_count, 2);
	ck_assert(st.replicas[0] == 2 || st.replicas[1] == 2);
	ck_assert(st.replicas[0] != 0 && st.replicas[1] != 0);
	ck_assert_uint_eq(st.leader, 2);
	ck_assert_uint_eq(st.moving, 1);
	ck_assert_int_eq(pl_view_shard_state(v, f->s2, &st), 0);
	ck_assert_uint_eq(st.replica_count, 1);
	ck_assert_uint_eq(st.replicas[0], 3);
	ck_assert_uint_eq(st.moving, 1);
	ck_assert_int_eq(pl_view_shard_state(v, f->s1, &st), 0);
	ck_assert_uint_eq(st.moving, 0);
	/* Member tallies: b0 lost a replica and a leader, b2 gained both. */
	pl_tally b0 = tl_member_tally(v, 0), b2 = tl_member_tally(v, 2), b3 = tl_member_tally(v, 3);
	ck_assert_uint_eq(b0.replicas, 1); /* s3 only */
	ck_assert_uint_eq(b0.leaders, 1);  /* s3 */
	ck_assert_uint_eq(b2.replicas, 2); /* s0, s3 */
	ck_assert_uint_eq(b2.leaders, 1);  /* s0 */
	ck_assert_uint_eq(b3.replicas, 2); /* s2, s3 */
	/* Per stream the same. */
	pl_tally o0 = tl_stream_tally(v, 0, 0), o2 = tl_stream_tally(v, 0, 2);
	ck_assert_uint_eq(o0.leaders, 1);
	ck_assert_uint_eq(o0.replicas, 1);
	ck_assert_uint_eq(o2.leaders, 1);
	ck_assert_uint_eq(o2.replicas, 2);
	pl_view_counts vc;
	ck_assert_int_eq(pl_view_stats(v, &vc), 0);
	ck_assert_uint_eq(vc.moving, 2);
	ck_assert_uint_eq(vc.copies, 2);
	/* A copy of the view keeps them; settling ends the moves, not the tallies. */
	void *mem2 = malloc(size);
	pl_view *c;
	ck_assert_int_eq(pl_view_copy(&c, mem2, size, v), 0);
	ck_assert_int_eq(pl_view_settle(c), 2);
	ck_assert_uint_eq(tl_member_tally(c, 2).leaders, 1);
	free(mem2);
	free(mem);
	fx_free(f);
}
END_TEST

/* ---- the policies ---------------------------------------------------------------- */

/* A region with a copy in flight is busy: staged on no member again, and
 * no other step acts on it; the next region is served. */
START_TEST(region_never_staged_again)
{
	tl *t = tl_new();
	uint32_t a = tl_member(t, "a", NULL), b = tl_member(t, "b", NULL), j = tl_member(t, "j", NULL);
	t->m[j].joined_at = 9;
	uint32_t r0 = tl_shard(t, "r/0", PL_NONE, a, 1, a), r1 = tl_shard(t, "r/1", PL_NONE, a, 1, a);
	pl_copy cp = {r0, j, PL_NONE, 0};
	const pl_snapshot *s = tl_snap(t);
	t->snap.copies = &cp;
	t->snap.n_copies = 1;
	pl_view *v;
	size_t size = pl_view_size(s);
	void *mem = malloc(size);
	ck_assert_int_eq(pl_view_init(&v, mem, size, s, NULL, NULL), 0);
	pl_region_config cfg = PL_REGION_CONFIG_INIT;
	cfg.replication_factor = 2;
	pl_action out[8];
	int n = pl_region_plan(v, &cfg, out, 8, NULL, NULL, 0, NULL);
	ck_assert_int_gt(n, 0);
	for (int i = 0; i < n; i++)
		ck_assert_uint_ne(out[i].shard, r0);
	ck_assert_uint_eq(out[0].shard, r1);
	/* The check refuses a second copy onto the member. */
	ck_assert_int_eq(pl_region_check_add_peer(v, r0, j, 0, NULL), PL_E_PEER_DUPLICATE);
	(void)b;
	free(mem);
	tl_free(t);
}
END_TEST

/* The broker counts a copy as a move in flight against max_moves. */
START_TEST(broker_counts_a_copy_in_flight)
{
	tl *t = tl_new();
	for (int i = 0; i < 3; i++)
		tl_member(t, tl_str(t, "b%d", i), NULL);
	tl_stream(t, "s");
	for (int i = 0; i < 6; i++)
		tl_shard(t, tl_str(t, "s/%d", i), 0, 0, 1, 0u);
	pl_copy cp = {5, 1, PL_NONE, 0};
	const pl_snapshot *s = tl_snap(t);
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	cfg.max_moves = 1;
	pl_action out[8];
	pl_plan_info info;
	pl_view *v = tl_view(t, 0);
	ck_assert_int_gt(pl_broker_plan(v, &cfg, out, 8, &info, NULL), 0);
	t->snap.copies = &cp;
	t->snap.n_copies = 1;
	size_t size = pl_view_size(s);
	void *mem = malloc(size);
	ck_assert_int_eq(pl_view_init(&v, mem, size, s, NULL, NULL), 0);
	ck_assert_int_eq(pl_broker_plan(v, &cfg, out, 8, &info, NULL), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	free(mem);
	tl_free(t);
}
END_TEST

/* A replica copy in flight (no leader moved) counts against the per-member
 * limits: its destination is at a limit of one move in, so this tick's
 * moves go elsewhere; without it, that member takes one. */
START_TEST(broker_limits_count_a_replica_copy_in_flight)
{
	tl *t = tl_new();
	for (int i = 0; i < 3; i++)
		tl_member(t, tl_str(t, "b%d", i), NULL);
	tl_stream(t, "s");
	for (int i = 0; i < 5; i++)
		tl_shard(t, tl_str(t, "s/%d", i), 0, 0, 1, 0u);
	tl_shard(t, "s/5", 0, 0, 2, 0u, 2u);
	pl_copy cp = {5, 1, 2, 0}; /* b2's replica of s/5 moving to b1 */
	const pl_snapshot *s = tl_snap(t);
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	cfg.max_moves = 4;
	cfg.max_moves_in = 1;
	pl_action out[8];
	pl_plan_info info;
	pl_view *v = tl_view(t, 0);
	int n = pl_broker_plan(v, &cfg, out, 8, &info, NULL);
	int to_b1 = 0;
	for (int i = 0; i < n; i++)
		to_b1 += out[i].to == 1;
	ck_assert_int_gt(to_b1, 0);
	t->snap.copies = &cp;
	t->snap.n_copies = 1;
	size_t size = pl_view_size(s);
	void *mem = malloc(size);
	ck_assert_int_eq(pl_view_init(&v, mem, size, s, NULL, NULL), 0);
	n = pl_broker_plan(v, &cfg, out, 8, &info, NULL);
	ck_assert_int_gt(n, 0);
	for (int i = 0; i < n; i++)
		ck_assert_msg(out[i].to != 1, "a move into b1 past its limit: %s", pl_action_kind_name(out[i].kind));
	free(mem);
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("copies");
	TCase *c = tcase_create("validate");
	tcase_add_test(c, valid_copies);
	tcase_add_test(c, copies_null_and_limit);
	tcase_add_test(c, copy_shard_range);
	tcase_add_test(c, copy_to_range);
	tcase_add_test(c, copy_from_range);
	tcase_add_test(c, copy_reserved);
	tcase_add_test(c, copy_target_holds_a_replica);
	tcase_add_test(c, copy_source_holds_none);
	tcase_add_test(c, copy_onto_the_old_leader_of_a_move_in_flight);
	tcase_add_test(c, copy_onto_a_full_set);
	tcase_add_test(c, two_copies_of_one_shard);
	tcase_add_test(c, copy_codes_are_named);
	tcase_add_test(c, sizes_count_the_copies);
	suite_add_tcase(s, c);
	c = tcase_create("view");
	tcase_add_test(c, view_counts_a_copy_finished);
	suite_add_tcase(s, c);
	c = tcase_create("policies");
	tcase_add_test(c, region_never_staged_again);
	tcase_add_test(c, broker_counts_a_copy_in_flight);
	tcase_add_test(c, broker_limits_count_a_replica_copy_in_flight);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
