/*
 * check_guard_refusals.c - what the entry points refuse before they write
 * anything, beside overlaps (check_guard.c): a snapshot whose counts pass
 * the documented limits (PL_E_LIMIT at no cost: the size calls answer
 * small), and the refusals of the view's readers, pl_fleet_owners(),
 * pl_action_explain() and pl_view_apply() that no other suite reaches.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"
#include "guard_util.h"

/* ---- limits before sizes ---------------------------------------------------------- */

static const uint32_t limits[5] = {PL_MAX_MEMBERS, PL_MAX_STREAMS, PL_MAX_SHARDS, PL_MAX_SHARDS, PL_MAX_SHARDS};

static void set_count(pl_snapshot *s, uint32_t a, uint32_t n)
{
	uint32_t *c[5] = {&s->n_members, &s->n_streams, &s->n_shards, &s->n_overrides, &s->n_copies};
	*c[a] = n;
}

START_TEST(count_past_limit_costs_nothing)
{
	/* Arrays that are never read: the counts are refused first. */
	static const char never[8] __attribute__((aligned(8)));
	pl_snapshot s = {.version = PL_SNAPSHOT_VERSION, .members = (const void *)never,
			.streams = (const void *)never, .shards = (const void *)never,
			.overrides = (const void *)never, .copies = (const void *)never};
	size_t empty = pl_view_size(NULL);
	for (uint32_t a = 0; a < 5; a++) {
		const uint32_t counts[2] = {limits[a] + 1, UINT32_MAX};
		for (int c = 0; c < 2; c++) {
			pl_snapshot x = s;
			set_count(&x, a, counts[c]);
			ck_assert_uint_eq(pl_view_size(&x), empty);
			ck_assert_uint_eq(pl_snapshot_work_size(&x), 0);
			size_t size = pl_view_size(&x);
			void *mem = malloc(size);
			pl_view *v = NULL;
			pl_diag d = {0, 0, 0, 0};
			ck_assert_int_eq(pl_view_init(&v, mem, size, &x, NULL, &d), PL_E_LIMIT);
			ck_assert_uint_eq(d.kind, PL_ELEM_SNAPSHOT);
			ck_assert_uint_eq(d.index, a);
			ck_assert_ptr_null(v);
			ck_assert_int_eq(pl_snapshot_validate(&x, NULL, 0, &d), PL_E_LIMIT);
			ck_assert_uint_eq(d.index, a);
			free(mem);
		}
	}
	/* Every count at UINT32_MAX: the first array is named. */
	pl_snapshot all = s;
	for (uint32_t a = 0; a < 5; a++)
		set_count(&all, a, UINT32_MAX);
	ck_assert_uint_eq(pl_view_size(&all), empty);
	pl_diag d;
	ck_assert_int_eq(pl_snapshot_validate(&all, NULL, 0, &d), PL_E_LIMIT);
	ck_assert_uint_eq(d.index, 0);
}
END_TEST

START_TEST(count_at_limit_is_sized)
{
	pl_snapshot s = PL_SNAPSHOT_INIT;
	s.n_overrides = PL_MAX_SHARDS;
	s.overrides = (const void *)&s;
	ck_assert_uint_gt(pl_view_size(&s), pl_view_size(NULL));
	ck_assert_uint_gt(pl_snapshot_work_size(&s), 0);
}
END_TEST

START_TEST(copies_array_checked)
{
	pl_snapshot s = PL_SNAPSHOT_INIT;
	s.n_copies = 1;
	pl_diag d;
	ck_assert_int_eq(pl_snapshot_validate(&s, NULL, 0, &d), PL_E_NULL);
	ck_assert_uint_eq(d.kind, PL_ELEM_SNAPSHOT);
	ck_assert_uint_eq(d.index, 4);
	char mem[4096] __attribute__((aligned(8)));
	pl_view *v;
	ck_assert_int_eq(pl_view_init(&v, mem, sizeof mem, &s, NULL, &d), PL_E_NULL);
	ck_assert_uint_eq(d.index, 4);
}
END_TEST

START_TEST(limit_before_workspace)
{
	/* A corrupt count with a workspace too small for the real counts: the
	 * count is named, not the workspace. */
	fx *f = fx_new();
	pl_snapshot s = *f->s;
	s.n_streams = PL_MAX_STREAMS + 1;
	char mem[64] __attribute__((aligned(8)));
	pl_view *v;
	pl_diag d;
	ck_assert_int_eq(pl_view_init(&v, mem, sizeof mem, &s, NULL, &d), PL_E_LIMIT);
	ck_assert_uint_eq(d.index, 1);
	ck_assert_int_eq(pl_snapshot_validate(&s, mem, sizeof mem, &d), PL_E_LIMIT);
	ck_assert_uint_eq(d.index, 1);
	fx_free(f);
}
END_TEST

/* ---- refusals of the readers and of pl_view_apply() ------------------------------ */

START_TEST(view_readers_refuse_bad_arguments)
{
	fx *f = fx_new();
	pl_tally t;
	uint32_t out[PL_MAX_REPLICAS];
	ck_assert_int_eq(pl_view_find(NULL, PL_ELEM_MEMBER, "b0", 2), PL_E_INVAL);
	ck_assert_int_eq(pl_view_find(f->v, PL_ELEM_OVERRIDE, "b0", 2), PL_E_INVAL);
	ck_assert_int_eq(pl_view_find(f->v, PL_ELEM_STREAM, "orders", 6), 0);
	ck_assert_int_eq(pl_view_find(f->v, PL_ELEM_STREAM, "zz", 2), PL_E_NOT_FOUND);
	ck_assert_int_eq(pl_view_at(NULL, PL_ELEM_MEMBER, 0), PL_E_INVAL);
	ck_assert_int_eq(pl_view_at(f->v, 99, 0), PL_E_INVAL);
	ck_assert_int_eq(pl_view_at(f->v, PL_ELEM_MEMBER, 3), PL_E_MEMBER_RANGE);
	ck_assert_int_eq(pl_view_at(f->v, PL_ELEM_STREAM, 1), PL_E_STREAM_RANGE);
	ck_assert_int_eq(pl_view_at(f->v, PL_ELEM_SHARD, 6), PL_E_SHARD_RANGE);
	ck_assert_int_eq(pl_view_stream_tally(NULL, 0, 0, &t), PL_E_INVAL);
	ck_assert_int_eq(pl_view_stream_tally(f->v, 0, 0, NULL), PL_E_INVAL);
	ck_assert_int_eq(pl_view_stream_tally(f->v, 1, 0, &t), PL_E_STREAM_RANGE);
	ck_assert_int_eq(pl_view_stream_tally(f->v, 0, 3, &t), PL_E_MEMBER_RANGE);
	ck_assert_int_eq(pl_view_top(NULL, "k", 1, out, 1), PL_E_INVAL);
	ck_assert_int_eq(pl_view_top(f->v, "k", 1, NULL, 1), PL_E_INVAL);
	ck_assert_int_eq(pl_view_top(f->v, NULL, 1, out, 1), PL_E_INVAL);
	ck_assert_int_eq(pl_view_top(f->v, "k", PL_MAX_ID_LEN + 1, out, 1), PL_E_LENGTH);
	ck_assert_int_eq(pl_view_top(f->v, "k", 1, out, PL_MAX_REPLICAS + 1), PL_E_INVAL);
	ck_assert_int_eq(pl_view_top(f->v, NULL, 0, out, 1), 1); /* the empty key has a home too */
	ck_assert_int_eq(pl_view_find(f->v, PL_ELEM_MEMBER, NULL, 0), PL_E_NOT_FOUND);
	ck_assert_int_eq(pl_view_stats(f->v, NULL), PL_E_INVAL);
	ck_assert_int_eq(pl_view_shard_state(f->v, 0, NULL), PL_E_INVAL);
	pl_route_owner ro;
	pl_diag d;
	ck_assert_int_eq(pl_route_lookup(f->v, NULL, 1, 0, &ro, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.index, 2);
	ck_assert_int_eq(pl_route_lookup(f->v, NULL, 0, 0, &ro, &d), 0);
	fx_free(f);
}
END_TEST

/* A snapshot with members and no shards: every policy and reader answers
 * with nothing to do and no output needed, even with no member eligible
 * (PL_E_NO_ELIGIBLE is for shards that need one). */
START_TEST(no_shards_need_no_output)
{
	tl *t = tl_new();
	tl_member(t, "b0", NULL);
	tl_member(t, "b1", NULL);
	for (int down = 0; down < 2; down++) {
		t->m[0].flags = t->m[1].flags = down ? PL_MEMBER_DOWN : 0;
		pl_view *v = tl_view(t, 0);
		pl_plan_info info;
		pl_broker_config bc = PL_BROKER_CONFIG_INIT;
		pl_fleet_config fc = PL_FLEET_CONFIG_INIT;
		pl_region_config rc = PL_REGION_CONFIG_INIT;
		ck_assert_int_eq(pl_broker_plan(v, &bc, NULL, 0, &info, NULL), 0);
		ck_assert_uint_eq(info.wanted, 0);
		ck_assert_int_eq(pl_broker_dry_run(v, &bc, NULL, 0, &info, NULL, NULL), 0);
		ck_assert_int_eq(pl_broker_drain_stalls(v, NULL, 0, NULL, NULL), 0);
		ck_assert_int_eq(pl_fleet_decide(v, &fc, NULL, 0, &info, NULL), 0);
		ck_assert_int_eq(pl_fleet_owners(v, NULL, 0, NULL), 0);
		ck_assert_int_eq(pl_region_plan(v, &rc, NULL, 0, &info, NULL, 0, NULL), 0);
		ck_assert_int_eq(pl_fleet_doc_format(v, NULL, 0), (int)strlen("placement-overrides 1\n"));
	}
	tl_free(t);
}
END_TEST

START_TEST(fleet_owners_refusals)
{
	fx *f = fx_new();
	uint32_t out[6];
	pl_diag d;
	ck_assert_int_eq(pl_fleet_owners(NULL, out, 6, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.index, 1);
	ck_assert_int_eq(pl_fleet_owners(f->v, NULL, 6, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.index, 2);
	ck_assert_int_eq(pl_fleet_owners(f->v, out, 5, &d), PL_E_NOSPACE);
	ck_assert_uint_eq(d.index, 3);
	ck_assert_int_eq(pl_fleet_owners(f->v, out, 6, &d), 6);
	for (uint32_t m = 0; m < 3; m++)
		f->t->m[m].flags = PL_MEMBER_DOWN;
	pl_view *v = tl_view(f->t, 0);
	ck_assert_int_eq(pl_fleet_owners(v, out, 6, &d), PL_E_NO_ELIGIBLE);
	fx_free(f);
}
END_TEST

START_TEST(action_explain_refusals)
{
	fx *f = fx_new();
	pl_action a = tl_action(PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW, 1, 0, 0, 1);
	char buf[64];
	pl_snapshot s = *f->s;
	ck_assert_int_eq(pl_action_explain(NULL, &a, buf, sizeof buf), PL_E_INVAL);
	ck_assert_int_eq(pl_action_explain(&s, NULL, buf, sizeof buf), PL_E_INVAL);
	ck_assert_int_eq(pl_action_explain(&s, &a, NULL, sizeof buf), PL_E_INVAL);
	s.members = NULL;
	ck_assert_int_eq(pl_action_explain(&s, &a, buf, sizeof buf), PL_E_INVAL);
	s = *f->s;
	s.streams = NULL;
	ck_assert_int_eq(pl_action_explain(&s, &a, buf, sizeof buf), PL_E_INVAL);
	s = *f->s;
	s.shards = NULL;
	ck_assert_int_eq(pl_action_explain(&s, &a, buf, sizeof buf), PL_E_INVAL);
	pl_action bad = a;
	bad.kind = 99;
	ck_assert_int_eq(pl_action_explain(f->s, &bad, buf, sizeof buf), PL_E_INVAL);
	bad = a;
	bad.reason = 999;
	ck_assert_int_eq(pl_action_explain(f->s, &bad, buf, sizeof buf), PL_E_INVAL);
	bad = a;
	bad.stream = 1;
	ck_assert_int_eq(pl_action_explain(f->s, &bad, buf, sizeof buf), PL_E_INVAL);
	bad = a;
	bad.to = 3;
	ck_assert_int_eq(pl_action_explain(f->s, &bad, buf, sizeof buf), PL_E_INVAL);
	/* The whole length, whatever the buffer. */
	int n = pl_action_explain(f->s, &a, NULL, 0);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(pl_action_explain(f->s, &a, buf, 4), n);
	ck_assert_str_eq(buf, "mov");
	fx_free(f);
}
END_TEST

/* Every way an action can fail to fit the view: refused, the view's bytes
 * unchanged. Shard 1 is led by member 0 and held by 0 and 2; shard 0 has an
 * override on member 1. */
START_TEST(view_apply_refusals)
{
	fx *f = fx_new();
	const pl_action bad[] = {
		tl_action(PL_ACTION_SET_LEADER, PL_REASON_FAILOVER, 1, 0, 2, 2),   /* from is not the leader */
		tl_action(PL_ACTION_SET_LEADER, PL_REASON_FAILOVER, 1, 0, 0, 1),   /* to holds no replica */
		tl_action(PL_ACTION_SET_LEADER, PL_REASON_FAILOVER, 1, 0, 0, 0),   /* to already leads */
		tl_action(PL_ACTION_SET_LEADER, PL_REASON_FAILOVER, 1, 0, 0, 3),   /* to out of range */
		tl_action(PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW, 1, 0, 1, 2), /* wrong from */
		tl_action(PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW, 1, 0, 0, 0), /* onto itself */
		tl_action(PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW, 1, 0, 3, 1), /* from out of range */
		tl_action(PL_ACTION_ADD_REPLICA, PL_REASON_NEW, 1, 0, PL_NONE, 2),   /* replica already held */
		tl_action(PL_ACTION_ADD_REPLICA, PL_REASON_NEW, 1, 0, PL_NONE, 3),   /* to out of range */
		tl_action(PL_ACTION_MOVE_REPLICA, PL_REASON_DRAIN, 1, 0, 1, 2),      /* from holds none */
		tl_action(PL_ACTION_MOVE_REPLICA, PL_REASON_DRAIN, 1, 0, 0, 2),      /* to holds one */
		tl_action(PL_ACTION_SET_OVERRIDE, PL_REASON_COUNT, 1, 0, 0, 3),      /* to out of range */
		tl_action(PL_ACTION_DROP_OVERRIDE, PL_REASON_RETURN_HOME, 0, 0, 2, PL_NONE), /* on another member */
		tl_action(PL_ACTION_DROP_OVERRIDE, PL_REASON_RETURN_HOME, 1, 0, PL_NONE, PL_NONE), /* no override */
		tl_action(99, PL_REASON_NEW, 1, 0, 0, 1),                            /* unknown kind */
		tl_action(PL_ACTION_SET_LEADER, PL_REASON_NEW, 6, 0, 0, 1),          /* shard out of range */
	};
	fx_keep(f);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ck_assert_msg(pl_view_apply(f->v, &bad[i]) == PL_E_ACTION, "action %zu applied", i);
		fx_unchanged(f);
	}
	pl_action origin = tl_action(PL_ACTION_SET_OVERRIDE, PL_REASON_COUNT, 1, 0, 0, 2);
	origin.origin = 2; /* an unknown origin */
	ck_assert_int_eq(pl_view_apply(f->v, &origin), PL_E_ACTION);
	/* A full replica set takes no more. */
	tl *t = tl_new();
	for (uint32_t m = 0; m < PL_MAX_REPLICAS + 1; m++)
		tl_member(t, tl_str(t, "b%u", m), NULL);
	tl_shard(t, "k", PL_NONE, 0, 8, 0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u);
	pl_view *v = tl_view(t, 0);
	pl_action add = tl_action(PL_ACTION_ADD_REPLICA, PL_REASON_UNDER_RF, 0, PL_NONE, PL_NONE, 8);
	ck_assert_int_eq(pl_view_apply(v, &add), PL_E_ACTION);
	tl_free(t);
	fx_free(f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("guard_refusals");
	TCase *c = tcase_create("limits before sizes");
	tcase_add_test(c, count_past_limit_costs_nothing);
	tcase_add_test(c, count_at_limit_is_sized);
	tcase_add_test(c, copies_array_checked);
	tcase_add_test(c, limit_before_workspace);
	suite_add_tcase(s, c);
	c = tcase_create("refusals");
	tcase_add_test(c, view_readers_refuse_bad_arguments);
	tcase_add_test(c, fleet_owners_refusals);
	tcase_add_test(c, no_shards_need_no_output);
	tcase_add_test(c, action_explain_refusals);
	tcase_add_test(c, view_apply_refusals);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
