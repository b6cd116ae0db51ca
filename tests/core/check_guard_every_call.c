/*
 * check_guard_every_call.c - the overlap rule of view.h, for every public
 * call that writes: each of its outputs, the diag among them, placed over
 * each of its inputs (a view's memory, its snapshot's struct and arrays, a
 * configuration, a key, a text, a request, an action, the options and a
 * hint) and over each of its other outputs, is refused with PL_E_OVERLAP
 * and nothing is written: not to the inputs, not to the outputs, not to the
 * diag when it is the one misplaced (the diag names the argument otherwise).
 *
 * How it works. One arena holds every input and a place of its own for
 * every output, far apart. A call is one line of the table below: its
 * arguments by slot (position, input or output) and a function that makes
 * the call with the arena's pointers. Each case restores the arena, moves
 * one output to the start of another argument's place, makes the call, and
 * compares the whole arena with what it was. A call added to the library is
 * covered by adding its line.
 */
#include <check.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"
#include "testutil.h"

enum {
	/* inputs */
	S_SNAP, S_MEMBERS, S_STREAMS, S_SHARDS, S_OVERRIDES, S_COPIES, S_VIEW, S_HINT, S_OPT,
	S_BCFG, S_FCFG, S_RCFG, S_REQ, S_KEY, S_TEXT, S_ACTION,
	/* outputs, each in a place of its own */
	S_DIAG, S_OUT, S_INFO, S_TICKS, S_BSTALLS, S_TOTAL, S_OWNERS, S_OVR, S_SKIPPED, S_RSTALLS, S_BUF,
	S_VERDICT, S_ROWNER, S_WORK, S_VOUT, S_MEM, S_COUNTS, S_TALLY, S_STATE, S_TOP, S_IMB,
	N_SLOTS
};

#define CAP 8u        /* entries of every output array */
#define SLACK 4096u   /* bytes between two places: an output moved onto a place stays off the next */

static struct {
	char *arena, *pristine;
	size_t size, off[N_SLOTS], len[N_SLOTS];
	tl *t;
	size_t view_size, work_size;
	uint32_t text_len;
} A;

#define P(slot) ((void *)(A.arena + A.off[slot]))

/* ---- the calls ------------------------------------------------------------- */

/* p[slot]: where each argument is for this case. */
typedef void *const *ptrs;

static int c_broker_plan(ptrs p)
{
	return pl_broker_plan(p[S_VIEW], p[S_BCFG], p[S_OUT], CAP, p[S_INFO], p[S_DIAG]);
}
static int c_broker_dry_run(ptrs p)
{
	return pl_broker_dry_run(p[S_VIEW], p[S_BCFG], p[S_OUT], CAP, p[S_INFO], p[S_TICKS], p[S_DIAG]);
}
static int c_broker_drain_stalls(ptrs p)
{
	return pl_broker_drain_stalls(p[S_VIEW], p[S_BSTALLS], CAP, p[S_TOTAL], p[S_DIAG]);
}
static int c_fleet_owners(ptrs p)
{
	return pl_fleet_owners(p[S_VIEW], p[S_OWNERS], CAP, p[S_DIAG]);
}
static int c_fleet_decide(ptrs p)
{
	return pl_fleet_decide(p[S_VIEW], p[S_FCFG], p[S_OUT], CAP, p[S_INFO], p[S_DIAG]);
}
static int c_fleet_doc_read(ptrs p)
{
	return pl_fleet_doc_read(p[S_VIEW], p[S_TEXT], A.text_len, p[S_OVR], CAP, p[S_SKIPPED], p[S_DIAG]);
}
static int c_fleet_doc_format(ptrs p)
{
	return pl_fleet_doc_format(p[S_VIEW], p[S_BUF], 256);
}
static int c_region_effective_rf(ptrs p)
{
	return pl_region_effective_rf(p[S_VIEW], p[S_RCFG], p[S_DIAG]);
}
static int c_region_check_add_peer(ptrs p)
{
	return pl_region_check_add_peer(p[S_VIEW], 1, 2, 0, p[S_DIAG]);
}
static int c_region_plan(ptrs p)
{
	return pl_region_plan(p[S_VIEW], p[S_RCFG], p[S_OUT], CAP, p[S_INFO], p[S_RSTALLS], CAP, p[S_DIAG]);
}
static int c_route_decide(ptrs p)
{
	return pl_route_decide(p[S_REQ], p[S_VERDICT], p[S_DIAG]);
}
static int c_route_lookup(ptrs p)
{
	return pl_route_lookup(p[S_VIEW], p[S_KEY], 9, 0, p[S_ROWNER], p[S_DIAG]);
}
static int c_snapshot_validate(ptrs p)
{
	return pl_snapshot_validate(p[S_SNAP], p[S_WORK], A.work_size, p[S_DIAG]);
}
static int c_view_init(ptrs p)
{
	return pl_view_init(p[S_VOUT], p[S_MEM], A.view_size, p[S_SNAP], p[S_OPT], p[S_DIAG]);
}
static int c_view_copy(ptrs p)
{
	return pl_view_copy(p[S_VOUT], p[S_MEM], A.view_size, p[S_VIEW]);
}
static int c_view_stats(ptrs p)
{
	return pl_view_stats(p[S_VIEW], p[S_COUNTS]);
}
static int c_view_member_tally(ptrs p)
{
	return pl_view_member_tally(p[S_VIEW], 0, p[S_TALLY]);
}
static int c_view_stream_tally(ptrs p)
{
	return pl_view_stream_tally(p[S_VIEW], 0, 0, p[S_TALLY]);
}
static int c_view_imbalance(ptrs p)
{
	return pl_view_imbalance(p[S_VIEW], PL_IMBALANCE_BROKER, p[S_IMB]);
}
static int c_view_shard_state(ptrs p)
{
	return pl_view_shard_state(p[S_VIEW], 0, p[S_STATE]);
}
static int c_view_top(ptrs p)
{
	return pl_view_top(p[S_VIEW], p[S_KEY], 9, p[S_TOP], 3);
}
static int c_action_explain(ptrs p)
{
	return pl_action_explain(p[S_SNAP], p[S_ACTION], p[S_BUF], 256);
}

/* An argument: its slot, its position in the call, and whether it is written. */
typedef struct arg {
	int slot;
	uint32_t pos;
	int out;
} arg;

#define IN(s, p) {s, p, 0}
#define OUT(s, p) {s, p, 1}
#define DIAG(p) OUT(S_DIAG, p)

/* A snapshot's arrays, read by a view or a call, as argument p. */
#define ARRAYS_OF(p) IN(S_MEMBERS, p), IN(S_STREAMS, p), IN(S_SHARDS, p), IN(S_OVERRIDES, p), IN(S_COPIES, p)
/* A snapshot argument at position p: its struct and its arrays. */
#define SNAP_OF(p) IN(S_SNAP, p), ARRAYS_OF(p)
/* A view as argument 1: its memory and the arrays of its snapshot (the
 * view keeps its own copy of the snapshot struct). */
#define VIEW IN(S_VIEW, 1), ARRAYS_OF(1)

typedef struct call {
	const char *name;
	int (*run)(ptrs p);
	arg a[16];
} call;

#define END {-1, 0, 0}

static const call calls[] = {
	{"pl_broker_plan", c_broker_plan, {VIEW, IN(S_BCFG, 2), OUT(S_OUT, 3), OUT(S_INFO, 5), DIAG(6), END}},
	{"pl_broker_dry_run", c_broker_dry_run,
	 {VIEW, IN(S_BCFG, 2), OUT(S_OUT, 3), OUT(S_INFO, 5), OUT(S_TICKS, 6), DIAG(7), END}},
	{"pl_broker_drain_stalls", c_broker_drain_stalls,
	 {VIEW, OUT(S_BSTALLS, 2), OUT(S_TOTAL, 4), DIAG(5), END}},
	{"pl_fleet_owners", c_fleet_owners, {VIEW, OUT(S_OWNERS, 2), DIAG(4), END}},
	{"pl_fleet_decide", c_fleet_decide, {VIEW, IN(S_FCFG, 2), OUT(S_OUT, 3), OUT(S_INFO, 5), DIAG(6), END}},
	{"pl_fleet_doc_read", c_fleet_doc_read,
	 {VIEW, IN(S_TEXT, 2), OUT(S_OVR, 4), OUT(S_SKIPPED, 6), DIAG(7), END}},
	{"pl_fleet_doc_format", c_fleet_doc_format, {VIEW, OUT(S_BUF, 2), END}},
	{"pl_region_effective_rf", c_region_effective_rf, {VIEW, IN(S_RCFG, 2), DIAG(3), END}},
	{"pl_region_check_add_peer", c_region_check_add_peer, {VIEW, DIAG(5), END}},
	{"pl_region_plan", c_region_plan,
	 {VIEW, IN(S_RCFG, 2), OUT(S_OUT, 3), OUT(S_INFO, 5), OUT(S_RSTALLS, 6), DIAG(8), END}},
	{"pl_route_decide", c_route_decide, {IN(S_REQ, 1), OUT(S_VERDICT, 2), DIAG(3), END}},
	{"pl_route_lookup", c_route_lookup, {VIEW, IN(S_KEY, 2), OUT(S_ROWNER, 5), DIAG(6), END}},
	{"pl_snapshot_validate", c_snapshot_validate, {SNAP_OF(1), OUT(S_WORK, 2), DIAG(4), END}},
	{"pl_view_init", c_view_init,
	 {SNAP_OF(4), IN(S_OPT, 5), IN(S_HINT, 5), OUT(S_VOUT, 1), OUT(S_MEM, 2), DIAG(6), END}},
	{"pl_view_copy", c_view_copy, {IN(S_VIEW, 4), ARRAYS_OF(4), OUT(S_VOUT, 1), OUT(S_MEM, 2), END}},
	{"pl_view_stats", c_view_stats, {VIEW, OUT(S_COUNTS, 2), END}},
	{"pl_view_member_tally", c_view_member_tally, {VIEW, OUT(S_TALLY, 3), END}},
	{"pl_view_stream_tally", c_view_stream_tally, {VIEW, OUT(S_TALLY, 4), END}},
	{"pl_view_imbalance", c_view_imbalance, {VIEW, OUT(S_IMB, 3), END}},
	{"pl_view_shard_state", c_view_shard_state, {VIEW, OUT(S_STATE, 3), END}},
	{"pl_view_top", c_view_top, {VIEW, IN(S_KEY, 2), OUT(S_TOP, 4), END}},
	{"pl_action_explain", c_action_explain, {SNAP_OF(1), IN(S_ACTION, 2), OUT(S_BUF, 3), END}},
};

/* ---- the arena ----------------------------------------------------------------- */

static void place(int slot, size_t len)
{
	static size_t at;
	if (slot == 0)
		at = 0;
	A.off[slot] = at;
	A.len[slot] = len;
	at = (at + len + SLACK + 63) & ~(size_t)63;
	A.size = at + 65536; /* an output moved onto the last place stays inside */
}

/* Every input built in the arena: a snapshot (its struct and five arrays)
 * and its view, a second view as a hint, the configurations, a request, a
 * key, an override document and an action. */
static void arena_new(void)
{
	tl *t = A.t = tl_new();
	tl_member(t, "b0", "z0");
	tl_member(t, "b1", "z1");
	tl_member(t, "b2", "z2");
	tl_stream(t, "orders");
	for (uint32_t k = 0; k < 6; k++)
		tl_shard(t, tl_str(t, "orders/%02u", k), 0, 0, 2, 0u, 1u + k % 2);
	tl_override(t, 0, 1, PL_ORIGIN_COUNT, 3);
	const pl_snapshot *s0 = tl_snap(t);
	const pl_copy copy = {1, 1, PL_NONE, 0}; /* orders/01 (on b0, b2) gains a copy on b1 */
	pl_snapshot s1 = *s0;
	s1.copies = &copy;
	s1.n_copies = 1;
	A.view_size = pl_view_size(&s1);
	A.work_size = pl_snapshot_work_size(&s1);

	place(S_SNAP, sizeof(pl_snapshot));
	place(S_MEMBERS, t->nm * sizeof(pl_member));
	place(S_STREAMS, t->ns * sizeof(pl_stream));
	place(S_SHARDS, t->nk * sizeof(pl_shard));
	place(S_OVERRIDES, t->no * sizeof(pl_override));
	place(S_COPIES, sizeof(pl_copy));
	place(S_VIEW, A.view_size);
	place(S_HINT, A.view_size);
	place(S_OPT, sizeof(pl_view_options));
	place(S_BCFG, sizeof(pl_broker_config));
	place(S_FCFG, sizeof(pl_fleet_config));
	place(S_RCFG, sizeof(pl_region_config));
	place(S_REQ, sizeof(pl_route_request));
	place(S_KEY, 16);
	place(S_TEXT, 256);
	place(S_ACTION, sizeof(pl_action));
	place(S_DIAG, sizeof(pl_diag));
	place(S_OUT, CAP * sizeof(pl_action));
	place(S_INFO, sizeof(pl_plan_info));
	place(S_TICKS, sizeof(uint32_t));
	place(S_BSTALLS, CAP * sizeof(pl_broker_stall));
	place(S_TOTAL, sizeof(uint32_t));
	place(S_OWNERS, CAP * sizeof(uint32_t));
	place(S_OVR, CAP * sizeof(pl_override));
	place(S_SKIPPED, sizeof(uint32_t));
	place(S_RSTALLS, CAP * sizeof(pl_region_stall));
	place(S_BUF, 256);
	place(S_VERDICT, sizeof(pl_route_verdict));
	place(S_ROWNER, sizeof(pl_route_owner));
	place(S_WORK, A.work_size);
	place(S_VOUT, sizeof(pl_view *));
	place(S_MEM, A.view_size);
	place(S_COUNTS, sizeof(pl_view_counts));
	place(S_TALLY, sizeof(pl_tally));
	place(S_IMB, sizeof(pl_imbalance));
	place(S_STATE, sizeof(pl_shard_state));
	place(S_TOP, 3 * sizeof(uint32_t));
	A.arena = calloc(1, A.size);
	A.pristine = malloc(A.size);

	pl_snapshot *s = P(S_SNAP);
	memcpy(P(S_MEMBERS), t->m, A.len[S_MEMBERS]);
	memcpy(P(S_STREAMS), t->s, A.len[S_STREAMS]);
	memcpy(P(S_SHARDS), t->k, A.len[S_SHARDS]);
	memcpy(P(S_OVERRIDES), t->o, A.len[S_OVERRIDES]);
	memcpy(P(S_COPIES), &copy, sizeof copy);
	*s = s1;
	s->members = P(S_MEMBERS);
	s->streams = P(S_STREAMS);
	s->shards = P(S_SHARDS);
	s->overrides = P(S_OVERRIDES);
	s->copies = P(S_COPIES);
	pl_view *v, *h;
	ck_assert_int_eq(pl_view_init(&v, P(S_VIEW), A.view_size, s, NULL, NULL), 0);
	ck_assert_int_eq(pl_view_init(&h, P(S_HINT), A.view_size, s, NULL, NULL), 0);
	pl_view_options *opt = P(S_OPT);
	pl_view_options_init(opt);
	opt->reuse = h;
	pl_broker_config_init(P(S_BCFG));
	pl_fleet_config_init(P(S_FCFG));
	((pl_fleet_config *)P(S_FCFG))->self = 1;
	pl_region_config_init(P(S_RCFG));
	pl_route_request_init(P(S_REQ));
	memcpy(P(S_KEY), "orders/03", 9);
	int n = pl_fleet_doc_format(v, P(S_TEXT), 256);
	ck_assert_int_gt(n, 0);
	A.text_len = (uint32_t)n;
	pl_action *a = P(S_ACTION);
	memset(a, 0, sizeof *a);
	a->kind = PL_ACTION_MOVE_LEADER;
	a->reason = PL_REASON_STREAM_SKEW;
	a->shard = 2;
	a->stream = 0;
	a->from = 0;
	a->to = 2;
	memcpy(A.pristine, A.arena, A.size);
}

static void arena_free(void)
{
	free(A.arena);
	free(A.pristine);
	tl_free(A.t);
	memset(&A, 0, sizeof A);
}

/* The bytes that differ from the pristine arena, outside [skip, skip + n). */
static size_t changed_outside(size_t skip, size_t n)
{
	for (size_t i = 0; i < A.size; i++)
		if (A.arena[i] != A.pristine[i] && (i < skip || i >= skip + n))
			return i + 1;
	return 0;
}

static const char *slot_name(int slot)
{
	static const char *const names[N_SLOTS] = {
		"the snapshot struct", "members", "streams", "shards", "overrides", "copies", "the view",
		"the hint view", "the options", "the broker config", "the fleet config", "the region config",
		"the request", "the key", "the text", "the action", "the diag", "out", "info", "ticks",
		"broker stalls", "total", "owners", "overrides out", "skipped", "region stalls", "buf",
		"verdict", "route owner", "work", "the view pointer", "mem", "counts", "tally", "state", "top"};
	return names[slot];
}

/* ---- the tests ------------------------------------------------------------------- */

/* Every call, with every argument in its own place, is not refused for an
 * overlap: what the cases refuse is the overlap they make. */
START_TEST(each_call_takes_its_arguments_apart)
{
	arena_new();
	for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
		void *p[N_SLOTS];
		memcpy(A.arena, A.pristine, A.size);
		for (int s = 0; s < N_SLOTS; s++)
			p[s] = P(s);
		int rc = calls[c].run(p);
		ck_assert_msg(rc != PL_E_OVERLAP, "%s refused its arguments in places of their own", calls[c].name);
	}
	arena_free();
}
END_TEST

/* Each output of each call over each input and each other output. */
START_TEST(each_output_over_each_argument_is_refused)
{
	arena_new();
	uint32_t cases = 0;
	for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
		const call *cl = &calls[c];
		int has_diag = 0;
		for (const arg *o = cl->a; o->slot >= 0; o++)
			has_diag |= o->slot == S_DIAG;
		for (const arg *o = cl->a; o->slot >= 0; o++) {
			if (!o->out)
				continue;
			for (const arg *g = cl->a; g->slot >= 0; g++) {
				if (g == o || A.len[g->slot] == 0)
					continue;
				void *p[N_SLOTS];
				memcpy(A.arena, A.pristine, A.size);
				for (int s = 0; s < N_SLOTS; s++)
					p[s] = P(s);
				p[o->slot] = P(g->slot);
				int rc = cl->run(p);
				cases++;
				ck_assert_msg(rc == PL_E_OVERLAP, "%s: %s over %s: %d, not PL_E_OVERLAP", cl->name,
					      slot_name(o->slot), slot_name(g->slot), rc);
				int diag_out = o->slot == S_DIAG || g->slot == S_DIAG || !has_diag;
				size_t at = diag_out ? changed_outside(0, 0) : changed_outside(A.off[S_DIAG], sizeof(pl_diag));
				ck_assert_msg(at == 0, "%s: %s over %s: a byte written at %s + %zu", cl->name,
					      slot_name(o->slot), slot_name(g->slot), "the arena", at - 1);
				if (diag_out)
					continue;
				const pl_diag *d = P(S_DIAG);
				int named = d->kind == PL_ELEM_ARGUMENT && (d->index == o->pos || (g->out && d->index == g->pos));
				ck_assert_msg(d->code == PL_E_OVERLAP && named, "%s: %s over %s: the diag names kind %u index %u",
					      cl->name, slot_name(o->slot), slot_name(g->slot), d->kind, d->index);
			}
		}
	}
	ck_assert_uint_gt(cases, 200);
	arena_free();
}
END_TEST

/* The diag pointed into an input or an output of a call that fails for
 * another reason (a configuration it refuses) is not written either. */
START_TEST(a_diag_in_an_input_is_not_written_on_another_error)
{
	arena_new();
	pl_broker_config *cfg = P(S_BCFG);
	cfg->max_moves = 0; /* PL_E_CONFIG */
	memcpy(A.pristine, A.arena, A.size);
	void *p[N_SLOTS];
	for (int s = 0; s < N_SLOTS; s++)
		p[s] = P(s);
	ck_assert_int_eq(c_broker_plan(p), PL_E_CONFIG);
	memcpy(A.arena, A.pristine, A.size);
	p[S_DIAG] = P(S_SHARDS);
	ck_assert_int_eq(c_broker_plan(p), PL_E_OVERLAP);
	ck_assert_uint_eq(changed_outside(0, 0), 0);
	p[S_DIAG] = (char *)P(S_VIEW) + 64;
	ck_assert_int_eq(c_broker_plan(p), PL_E_OVERLAP);
	ck_assert_uint_eq(changed_outside(0, 0), 0);
	/* A diag inside the memory a view is to be built in, with options of
	 * an unknown version (PL_E_VERSION otherwise). */
	pl_view_options *opt = P(S_OPT);
	opt->version = 99;
	memcpy(A.pristine, A.arena, A.size);
	p[S_DIAG] = P(S_DIAG);
	ck_assert_int_eq(c_view_init(p), PL_E_VERSION);
	memcpy(A.arena, A.pristine, A.size);
	p[S_DIAG] = (char *)P(S_MEM) + 64;
	ck_assert_int_eq(c_view_init(p), PL_E_OVERLAP);
	ck_assert_uint_eq(changed_outside(0, 0), 0);
	/* A diag inside validation's workspace, too small (PL_E_WORKSPACE otherwise). */
	p[S_DIAG] = (char *)P(S_WORK) + 8;
	ck_assert_int_eq(pl_snapshot_validate(P(S_SNAP), P(S_WORK), A.work_size - 8, p[S_DIAG]), PL_E_OVERLAP);
	ck_assert_uint_eq(changed_outside(0, 0), 0);
	arena_free();
}
END_TEST

/* Options of an older version are compared as long as that version is:
 * the fields past its end are never read. */
START_TEST(options_are_compared_as_long_as_their_version)
{
	arena_new();
	struct {
		pl_view_options opt;
		pl_view *out;
	} v1 = {{.version = 1, .scorer = PL_SCORER_XXH3}, NULL};
	pl_view **out = (pl_view **)(void *)((char *)&v1 + offsetof(pl_view_options, reuse)); /* just past version 1 */
	pl_diag d;
	ck_assert_int_eq(pl_view_init(out, P(S_MEM), A.view_size, P(S_SNAP), &v1.opt, &d), 0);
	ck_assert_ptr_eq(*out, P(S_MEM));
	/* The same place inside version 3 options is refused. */
	pl_view_options v3 = PL_VIEW_OPTIONS_INIT;
	out = (pl_view **)(void *)&v3.reuse;
	ck_assert_int_eq(pl_view_init(out, P(S_MEM), A.view_size, P(S_SNAP), &v3, &d), PL_E_OVERLAP);
	ck_assert_uint_eq(d.index, 1);
	arena_free();
}
END_TEST

static Suite *guard_every_call_suite(void)
{
	Suite *s = suite_create("guard_every_call");
	TCase *c = tcase_create("overlaps");
	tcase_add_test(c, each_call_takes_its_arguments_apart);
	tcase_add_test(c, each_output_over_each_argument_is_refused);
	tcase_add_test(c, a_diag_in_an_input_is_not_written_on_another_error);
	tcase_add_test(c, options_are_compared_as_long_as_their_version);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(guard_every_call_suite());
}
