/*
 * check_guard.c - what every entry point refuses before it writes anything:
 * an output or workspace that shares a byte with an input or with the view
 * (PL_E_OVERLAP, the argument named), for the policy calls, the other
 * outputs over a view, and the view's memory and workspaces. The counts past
 * the documented limits and the readers' other refusals are
 * check_guard_refusals.c.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"
#include "guard_util.h"

/* ---- policy calls ---------------------------------------------------------- */

START_TEST(broker_out_over_the_snapshot)
{
	/* The case: the caller's const shards as the action array. */
	fx *f = fx_new();
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	pl_diag d;
	fx_keep(f);
	uint32_t cap = (uint32_t)(f->t->nk * sizeof(pl_shard) / sizeof(pl_action));
	expect_overlap(pl_broker_plan(f->v, &cfg, (pl_action *)(void *)f->t->k, cap, NULL, &d), &d, 3);
	expect_overlap(pl_broker_plan(f->v, &cfg, (pl_action *)(void *)f->t->m, 1, NULL, &d), &d, 3);
	fx_unchanged(f);
	/* The same call with an array of its own moves a leader. */
	pl_action out[8];
	ck_assert_int_gt(pl_broker_plan(f->v, &cfg, out, 8, NULL, &d), 0);
	fx_free(f);
}
END_TEST

START_TEST(broker_out_in_the_view)
{
	fx *f = fx_new();
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	pl_diag d;
	fx_keep(f);
	expect_overlap(pl_broker_plan(f->v, &cfg, in_view(f, 64), 4, NULL, &d), &d, 3);
	expect_overlap(pl_broker_dry_run(f->v, &cfg, in_view(f, 64), 4, NULL, NULL, &d), &d, 3);
	fx_unchanged(f);
	fx_free(f);
}
END_TEST

START_TEST(broker_out_over_the_config)
{
	fx *f = fx_new();
	pl_action buf[4];
	pl_broker_config *cfg = (pl_broker_config *)(void *)buf;
	pl_broker_config_init(cfg);
	pl_diag d;
	expect_overlap(pl_broker_plan(f->v, cfg, buf, 4, NULL, &d), &d, 3);
	fx_free(f);
}
END_TEST

START_TEST(broker_info_in_the_view_or_the_out)
{
	fx *f = fx_new();
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	pl_action out[8];
	pl_diag d;
	fx_keep(f);
	expect_overlap(pl_broker_plan(f->v, &cfg, out, 8, in_view(f, 128), &d), &d, 5);
	memset(out, 0xAB, sizeof out);
	expect_overlap(pl_broker_plan(f->v, &cfg, out, 8, (pl_plan_info *)(void *)&out[7], &d), &d, 5);
	for (size_t i = 0; i < sizeof out; i++)
		ck_assert_uint_eq(((unsigned char *)out)[i], 0xAB);
	fx_unchanged(f);
	fx_free(f);
}
END_TEST

START_TEST(broker_dry_run_ticks_in_the_view)
{
	fx *f = fx_new();
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	pl_action out[8];
	pl_diag d;
	fx_keep(f);
	expect_overlap(pl_broker_dry_run(f->v, &cfg, out, 8, NULL, in_view(f, 8), &d), &d, 6);
	expect_overlap(pl_broker_dry_run(f->v, &cfg, out, 8, NULL, (uint32_t *)(void *)&out[3], &d), &d, 6);
	fx_unchanged(f);
	fx_free(f);
}
END_TEST

START_TEST(fleet_decide_out_and_info)
{
	fx *f = fx_new();
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	pl_action out[8];
	pl_diag d;
	fx_keep(f);
	expect_overlap(pl_fleet_decide(f->v, &cfg, (pl_action *)(void *)f->t->k, 2, NULL, &d), &d, 3);
	expect_overlap(pl_fleet_decide(f->v, &cfg, in_view(f, 32), 2, NULL, &d), &d, 3);
	expect_overlap(pl_fleet_decide(f->v, &cfg, out, 8, in_view(f, 32), &d), &d, 5);
	fx_unchanged(f);
	fx_free(f);
}
END_TEST

START_TEST(region_plan_out_and_stalls)
{
	fx *f = fx_new();
	pl_region_config cfg;
	pl_region_config_init(&cfg);
	pl_action out[8];
	pl_region_stall stalls[4];
	pl_diag d;
	fx_keep(f);
	expect_overlap(pl_region_plan(f->v, &cfg, in_view(f, 16), 4, NULL, stalls, 4, &d), &d, 3);
	expect_overlap(pl_region_plan(f->v, &cfg, out, 8, in_view(f, 16), stalls, 4, &d), &d, 5);
	expect_overlap(pl_region_plan(f->v, &cfg, out, 8, NULL, in_view(f, 16), 4, &d), &d, 6);
	expect_overlap(pl_region_plan(f->v, &cfg, out, 8, NULL, (pl_region_stall *)(void *)&out[7], 4, &d), &d,
		       6);
	fx_unchanged(f);
	fx_free(f);
}
END_TEST

/* ---- other outputs over a view ---------------------------------------------- */

START_TEST(fleet_owners_out)
{
	fx *f = fx_new();
	pl_diag d;
	fx_keep(f);
	expect_overlap(pl_fleet_owners(f->v, in_view(f, 40), 6, &d), &d, 2);
	expect_overlap(pl_fleet_owners(f->v, (uint32_t *)(void *)f->t->k, 6, &d), &d, 2);
	fx_unchanged(f);
	fx_free(f);
}
END_TEST

START_TEST(fleet_doc_read_out_and_skipped)
{
	fx *f = fx_new();
	pl_override buf[8];
	const char doc[] = "placement-overrides 1\norders/01 b2 7 lag\n";
	char *text = (char *)buf;
	memcpy(text, doc, sizeof doc);
	pl_override out[4];
	uint32_t skipped;
	pl_diag d;
	fx_keep(f);
	expect_overlap(pl_fleet_doc_read(f->v, text, sizeof doc - 1, buf, 4, NULL, &d), &d, 4);
	expect_overlap(pl_fleet_doc_read(f->v, text, sizeof doc - 1, in_view(f, 16), 4, NULL, &d), &d, 4);
	expect_overlap(pl_fleet_doc_read(f->v, text, sizeof doc - 1, out, 4, in_view(f, 16), &d), &d, 6);
	expect_overlap(pl_fleet_doc_read(f->v, text, sizeof doc - 1, out, 4, (uint32_t *)(void *)&out[1], &d), &d,
		       6);
	ck_assert_mem_eq(text, doc, sizeof doc);
	fx_unchanged(f);
	ck_assert_int_ge(pl_fleet_doc_read(f->v, text, sizeof doc - 1, out, 4, &skipped, &d), 0);
	fx_free(f);
}
END_TEST

START_TEST(fleet_doc_format_buf)
{
	fx *f = fx_new();
	fx_keep(f);
	ck_assert_int_eq(pl_fleet_doc_format(f->v, in_view(f, 0), 200), PL_E_OVERLAP);
	ck_assert_int_eq(pl_fleet_doc_format(f->v, (char *)f->t->k, 200), PL_E_OVERLAP);
	fx_unchanged(f);
	char buf[256];
	ck_assert_int_gt(pl_fleet_doc_format(f->v, buf, sizeof buf), 0);
	fx_free(f);
}
END_TEST

START_TEST(action_explain_buf)
{
	fx *f = fx_new();
	pl_action a[2];
	a[0] = tl_action(PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW, 1, 0, 0, 1);
	pl_action keep = a[0];
	fx_keep(f);
	ck_assert_int_eq(pl_action_explain(f->s, &a[0], (char *)f->t->m, 64), PL_E_OVERLAP);
	ck_assert_int_eq(pl_action_explain(f->s, &a[0], (char *)&f->t->snap, 8), PL_E_OVERLAP);
	ck_assert_int_eq(pl_action_explain(f->s, &a[0], (char *)&a[0] + 8, 100), PL_E_OVERLAP);
	ck_assert_mem_eq(&a[0], &keep, sizeof keep);
	fx_unchanged(f);
	char buf[160];
	ck_assert_int_gt(pl_action_explain(f->s, &a[0], buf, sizeof buf), 0);
	fx_free(f);
}
END_TEST

START_TEST(route_outputs)
{
	fx *f = fx_new();
	pl_diag d;
	fx_keep(f);
	expect_overlap(pl_route_lookup(f->v, "orders/01", 9, 0, in_view(f, 16), &d), &d, 5);
	pl_route_owner o[2];
	memcpy(o, "orders/01", 9);
	expect_overlap(pl_route_lookup(f->v, (const char *)o, 9, 0, o, &d), &d, 5);
	fx_unchanged(f);
	pl_route_request req[2];
	pl_route_request_init(&req[0]);
	expect_overlap(pl_route_decide(&req[0], (pl_route_verdict *)(void *)&req[0], &d), &d, 2);
	fx_free(f);
}
END_TEST

START_TEST(view_readers_and_apply)
{
	fx *f = fx_new();
	fx_keep(f);
	ck_assert_int_eq(pl_view_stats(f->v, in_view(f, 8)), PL_E_OVERLAP);
	ck_assert_int_eq(pl_view_member_tally(f->v, 0, in_view(f, 8)), PL_E_OVERLAP);
	ck_assert_int_eq(pl_view_stream_tally(f->v, 0, 0, in_view(f, 8)), PL_E_OVERLAP);
	ck_assert_int_eq(pl_view_shard_state(f->v, 0, in_view(f, 8)), PL_E_OVERLAP);
	ck_assert_int_eq(pl_view_top(f->v, "k", 1, in_view(f, 8), 2), PL_E_OVERLAP);
	ck_assert_int_eq(pl_view_top(f->v, "k", 1, (uint32_t *)(void *)f->t->k, 2), PL_E_OVERLAP);
	/* An action that lies in the view would change as it is applied. */
	pl_action a = tl_action(PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW, 1, 0, 0, 1);
	pl_action *inside = in_view(f, 64);
	memcpy(inside, &a, sizeof a);
	fx_keep(f);
	ck_assert_int_eq(pl_view_apply(f->v, inside), PL_E_OVERLAP);
	fx_unchanged(f);
	ck_assert_int_eq(pl_view_init(&f->v, f->mem, f->size, f->s, NULL, NULL), 0); /* the memcpy spoilt it */
	ck_assert_int_eq(pl_view_apply(f->v, &a), 0);
	fx_free(f);
}
END_TEST

/* An output over the snapshot's members or overrides (the caller's const
 * arrays the view reads) is refused, and neither array is written. */
START_TEST(view_readers_over_members_and_overrides)
{
	fx *f = fx_new();
	fx_keep(f);
	pl_override keep_o = f->t->o[0];
	ck_assert_int_eq(pl_view_stats(f->v, (pl_view_counts *)(void *)f->t->m), PL_E_OVERLAP);
	ck_assert_int_eq(pl_view_member_tally(f->v, 0, (pl_tally *)(void *)f->t->m), PL_E_OVERLAP);
	ck_assert_int_eq(pl_view_member_tally(f->v, 0, (pl_tally *)(void *)f->t->o), PL_E_OVERLAP);
	ck_assert_int_eq(pl_view_top(f->v, "k", 1, (uint32_t *)(void *)f->t->o, 1), PL_E_OVERLAP);
	fx_unchanged(f);
	ck_assert_mem_eq(&f->t->o[0], &keep_o, sizeof keep_o);
	/* The same calls with outputs of their own answer. */
	pl_tally tally;
	uint32_t top;
	ck_assert_int_eq(pl_view_member_tally(f->v, 0, &tally), 0);
	ck_assert_int_eq(pl_view_top(f->v, "k", 1, &top, 1), 1);
	fx_free(f);
}
END_TEST

/* ---- the view's memory and workspaces ------------------------------------------- */

START_TEST(view_memory_holding_the_snapshot)
{
	/* The case: memory that holds the snapshot's own arrays. */
	fx *f = fx_new();
	size_t nbytes = f->t->nm * sizeof(pl_member);
	size_t off = (f->size - nbytes) & ~(size_t)7;
	char *mem = calloc(1, f->size);
	memcpy(mem + off, f->t->m, nbytes);
	pl_snapshot s = *f->s;
	s.members = (const pl_member *)(void *)(mem + off);
	pl_view *v = NULL;
	pl_diag d;
	expect_overlap(pl_view_init(&v, mem, f->size, &s, NULL, &d), &d, 2);
	ck_assert_mem_eq(mem + off, f->t->m, nbytes);
	ck_assert_ptr_null(v);
	/* The shards, the overrides, the snapshot struct, the options. */
	s = *f->s;
	memcpy(mem, f->t->k, f->t->nk * sizeof(pl_shard));
	s.shards = (const pl_shard *)(void *)mem;
	expect_overlap(pl_view_init(&v, mem, f->size, &s, NULL, &d), &d, 2);
	ck_assert_mem_eq(mem, f->t->k, f->t->nk * sizeof(pl_shard));
	s = *f->s;
	s.overrides = (const pl_override *)(void *)(mem + off);
	expect_overlap(pl_view_init(&v, mem, f->size, &s, NULL, &d), &d, 2);
	memcpy(mem + off, f->s, sizeof *f->s);
	expect_overlap(pl_view_init(&v, mem, f->size, (const pl_snapshot *)(void *)(mem + off), NULL, &d), &d, 2);
	pl_view_options *opt = (pl_view_options *)(void *)(mem + off);
	pl_view_options_init(opt);
	expect_overlap(pl_view_init(&v, mem, f->size, f->s, opt, &d), &d, 2);
	/* The out pointer inside the memory. */
	expect_overlap(pl_view_init((pl_view **)(void *)(mem + off), mem, f->size, f->s, NULL, &d), &d, 1);
	ck_assert_ptr_null(v);
	/* Memory past the part the view uses may hold anything. */
	char *big = calloc(1, f->size + sizeof *f->s);
	memcpy(big + f->size, f->s, sizeof *f->s);
	ck_assert_int_eq(pl_view_init(&v, big, f->size, (const pl_snapshot *)(void *)(big + f->size), NULL, &d), 0);
	free(big);
	free(mem);
	fx_free(f);
}
END_TEST

START_TEST(view_copy_memory)
{
	fx *f = fx_new();
	pl_view *c = NULL;
	char *mem = calloc(1, f->size);
	fx_keep(f);
	ck_assert_int_eq(pl_view_copy(&c, f->mem, f->size, f->v), PL_E_OVERLAP);
	ck_assert_int_eq(pl_view_copy(&c, f->mem + 8, f->size, f->v), PL_E_OVERLAP);
	ck_assert_int_eq(pl_view_copy((pl_view **)(void *)(mem + 16), mem, f->size, f->v), PL_E_OVERLAP);
	fx_unchanged(f);
	/* A copy over the snapshot's arrays would overwrite them. */
	char *over = calloc(1, f->size + f->t->nk * sizeof(pl_shard));
	pl_shard *shards = (pl_shard *)(void *)(over + 64);
	memcpy(shards, f->t->k, f->t->nk * sizeof(pl_shard));
	pl_snapshot s = *f->s;
	s.shards = shards;
	pl_view *v = NULL;
	pl_diag d;
	char *vmem = calloc(1, f->size);
	ck_assert_int_eq(pl_view_init(&v, vmem, f->size, &s, NULL, &d), 0);
	ck_assert_int_eq(pl_view_copy(&c, over, f->size, v), PL_E_OVERLAP);
	ck_assert_mem_eq(shards, f->t->k, f->t->nk * sizeof(pl_shard));
	ck_assert_ptr_null(c);
	ck_assert_int_eq(pl_view_copy(&c, mem, f->size, f->v), 0);
	free(vmem);
	free(over);
	free(mem);
	fx_free(f);
}
END_TEST

START_TEST(validate_workspace)
{
	fx *f = fx_new();
	size_t ws = pl_snapshot_work_size(f->s);
	char *work = calloc(1, ws + f->t->nk * sizeof(pl_shard));
	memcpy(work + ws / 2 / 8 * 8, f->t->k, f->t->nk * sizeof(pl_shard));
	pl_snapshot s = *f->s;
	s.shards = (const pl_shard *)(void *)(work + ws / 2 / 8 * 8);
	pl_diag d;
	expect_overlap(pl_snapshot_validate(&s, work, ws, &d), &d, 2);
	ck_assert_mem_eq(work + ws / 2 / 8 * 8, f->t->k, f->t->nk * sizeof(pl_shard));
	memcpy(work, f->s, sizeof *f->s);
	expect_overlap(pl_snapshot_validate((const pl_snapshot *)(void *)work, work, ws, &d), &d, 2);
	ck_assert_int_eq(pl_snapshot_validate(f->s, work, ws, &d), 0);
	free(work);
	fx_free(f);
}
END_TEST


static Suite *suite(void)
{
	Suite *s = suite_create("guard");
	TCase *c = tcase_create("policy outputs");
	tcase_add_test(c, broker_out_over_the_snapshot);
	tcase_add_test(c, broker_out_in_the_view);
	tcase_add_test(c, broker_out_over_the_config);
	tcase_add_test(c, broker_info_in_the_view_or_the_out);
	tcase_add_test(c, broker_dry_run_ticks_in_the_view);
	tcase_add_test(c, fleet_decide_out_and_info);
	tcase_add_test(c, view_readers_over_members_and_overrides);
	tcase_add_test(c, region_plan_out_and_stalls);
	suite_add_tcase(s, c);
	c = tcase_create("other outputs");
	tcase_add_test(c, fleet_owners_out);
	tcase_add_test(c, fleet_doc_read_out_and_skipped);
	tcase_add_test(c, fleet_doc_format_buf);
	tcase_add_test(c, action_explain_buf);
	tcase_add_test(c, route_outputs);
	tcase_add_test(c, view_readers_and_apply);
	suite_add_tcase(s, c);
	c = tcase_create("view memory and workspaces");
	tcase_add_test(c, view_memory_holding_the_snapshot);
	tcase_add_test(c, view_copy_memory);
	tcase_add_test(c, validate_workspace);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
