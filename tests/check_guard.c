/*
 * check_guard.c - what every entry point refuses before it writes anything:
 * an output or workspace that shares a byte with an input or with the view
 * (PL_E_OVERLAP, the argument named), and a snapshot whose counts pass the
 * documented limits (PL_E_LIMIT at no cost: the size calls answer small);
 * and the refusals of the view's readers, pl_fleet_owners(),
 * pl_action_explain() and pl_view_apply() that no other suite reaches.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"
#include "testutil.h"

/* A layout the broker wants to change: six shards of one stream, all led by
 * b0, on three members; a fleet override and an in-flight-free region set. */
typedef struct fx {
	tl *t;
	const pl_snapshot *s;
	char *mem;
	size_t size;
	pl_view *v;
	char *keep_view, *keep_members, *keep_shards;
} fx;

static fx *fx_new(void)
{
	fx *f = calloc(1, sizeof *f);
	f->t = tl_new();
	tl_member(f->t, "b0", "z0");
	tl_member(f->t, "b1", "z1");
	tl_member(f->t, "b2", "z2");
	tl_stream(f->t, "orders");
	for (uint32_t k = 0; k < 6; k++)
		tl_shard(f->t, tl_str(f->t, "orders/%02u", k), 0, 0, 2, 0u, 1u + k % 2);
	tl_override(f->t, 0, 1, PL_ORIGIN_COUNT, 3);
	f->s = tl_snap(f->t);
	f->size = pl_view_size(f->s);
	f->mem = calloc(1, f->size);
	pl_diag d;
	ck_assert_int_eq(pl_view_init(&f->v, f->mem, f->size, f->s, NULL, &d), 0);
	return f;
}

/* Remember the bytes of the view and of the snapshot's arrays. */
static void fx_keep(fx *f)
{
	free(f->keep_view);
	free(f->keep_members);
	free(f->keep_shards);
	f->keep_view = malloc(f->size);
	memcpy(f->keep_view, f->mem, f->size);
	f->keep_members = malloc(f->t->nm * sizeof(pl_member));
	memcpy(f->keep_members, f->t->m, f->t->nm * sizeof(pl_member));
	f->keep_shards = malloc(f->t->nk * sizeof(pl_shard));
	memcpy(f->keep_shards, f->t->k, f->t->nk * sizeof(pl_shard));
}

/* ... and check that nothing of them was written. */
static void fx_unchanged(const fx *f)
{
	ck_assert_mem_eq(f->mem, f->keep_view, f->size);
	ck_assert_mem_eq(f->t->m, f->keep_members, f->t->nm * sizeof(pl_member));
	ck_assert_mem_eq(f->t->k, f->keep_shards, f->t->nk * sizeof(pl_shard));
}

static void fx_free(fx *f)
{
	free(f->keep_view);
	free(f->keep_members);
	free(f->keep_shards);
	free(f->mem);
	tl_free(f->t);
	free(f);
}

/* Memory inside the view: `off` bytes past its start (8-aligned). */
static void *in_view(const fx *f, size_t off)
{
	ck_assert_uint_lt(off + 256, f->size);
	return f->mem + off;
}

static void expect_overlap(int rc, const pl_diag *d, uint32_t arg)
{
	ck_assert_int_eq(rc, PL_E_OVERLAP);
	ck_assert_int_eq(d->code, PL_E_OVERLAP);
	ck_assert_uint_eq(d->kind, PL_ELEM_ARGUMENT);
	ck_assert_uint_eq(d->index, arg);
}

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
	pl_snapshot s = {(const void *)never, (const void *)never, (const void *)never, (const void *)never,
			 (const void *)never, 0, 0, 0, 0, 0};
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
	pl_snapshot s;
	memset(&s, 0, sizeof s);
	s.n_overrides = PL_MAX_SHARDS;
	s.overrides = (const void *)&s;
	ck_assert_uint_gt(pl_view_size(&s), pl_view_size(NULL));
	ck_assert_uint_gt(pl_snapshot_work_size(&s), 0);
}
END_TEST

START_TEST(copies_array_checked)
{
	pl_snapshot s;
	memset(&s, 0, sizeof s);
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
	c = tcase_create("limits before sizes");
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
