/* check_broker.c - the broker policy's entry points: configuration, bad
 * input, status, the dry run and the actions' sentences. The seed's
 * scenarios end to end are in check_broker_seed.c. */
#include "broker_util.h"

/* ---- configuration ---------------------------------------------------------- */

START_TEST(config_init_matches_macro)
{
	pl_broker_config a = PL_BROKER_CONFIG_INIT, b;
	memset(&b, 0xa5, sizeof b);
	ck_assert_int_eq(pl_broker_config_init(&b), 0);
	ck_assert(memcmp(&a, &b, sizeof a) == 0);
	ck_assert_uint_eq(a.version, PL_BROKER_CONFIG_VERSION);
	ck_assert_uint_eq(a.max_moves, 1);
	ck_assert_uint_eq(a.replication_factor, 3);
	ck_assert_uint_eq(a.stream_balance, 1);
	ck_assert_uint_eq(a.replica_balance, 1);
	ck_assert_uint_eq(a.paused | a.max_moves_in | a.max_moves_out, 0);
	ck_assert_int_eq(pl_broker_config_init(NULL), PL_E_INVAL);
}
END_TEST

/* ---- bad input: each code, with its diag, and nothing written --------------- */

typedef struct guard {
	tl *t;
	void *copy;
	size_t size;
	pl_action out[8];
	pl_plan_info info;
	uint32_t ticks;
} guard;

/* (Re)build the view in zeroed memory, and keep a copy of its bytes: every
 * byte is compared by expect_error(), and a view need not write its padding. */
static void guard_view(guard *g)
{
	g->size = pl_view_size(tl_snap(g->t));
	free(g->t->mem);
	g->t->mem = calloc(1, g->size);
	ck_assert_int_eq(pl_view_init(&g->t->view, g->t->mem, g->size, tl_snap(g->t), NULL, NULL), 0);
	free(g->copy);
	g->copy = malloc(g->size);
	memcpy(g->copy, g->t->mem, g->size);
}

static void guard_start(guard *g)
{
	g->t = tl_new();
	bu_members(g->t, 3, NULL);
	static const uint32_t c[] = {0, 0, 6};
	bu_stream(g->t, "orders", c, 3, 3);
	bu_new_stream(g->t, "fresh", 2);
	g->copy = NULL;
	guard_view(g);
	memset(g->out, 0x5a, sizeof g->out);
	memset(&g->info, 0x5a, sizeof g->info);
	memset(&g->ticks, 0x5a, sizeof g->ticks);
}

/* Call both entry points; both must fail with `code`, naming (kind, index),
 * and leave out, info, ticks and the view as they were. */
static void expect_error(guard *g, pl_view *v, const pl_broker_config *cfg, pl_action *out, uint32_t cap, int code,
			 uint32_t kind, uint32_t index)
{
	for (int dry = 0; dry < 2; dry++) {
		pl_diag d = {0, 0, 0, 0};
		int rc = dry ? pl_broker_dry_run(v, cfg, out, cap, &g->info, &g->ticks, &d)
			     : pl_broker_plan(v, cfg, out, cap, &g->info, &d);
		ck_assert_msg(rc == code, "%s: %s, want %s", dry ? "dry run" : "plan", pl_error_name(rc),
			      pl_error_name(code));
		ck_assert_int_eq(d.code, code);
		ck_assert_uint_eq(d.kind, kind);
		ck_assert_uint_eq(d.index, index);
		/* The same without a diag. */
		rc = dry ? pl_broker_dry_run(v, cfg, out, cap, NULL, NULL, NULL) : pl_broker_plan(v, cfg, out, cap, NULL, NULL);
		ck_assert_int_eq(rc, code);
		unsigned char pat[sizeof g->out];
		memset(pat, 0x5a, sizeof pat);
		ck_assert(memcmp(g->out, pat, sizeof g->out) == 0);
		ck_assert(memcmp(&g->info, pat, sizeof g->info) == 0);
		ck_assert(memcmp(&g->ticks, pat, sizeof g->ticks) == 0);
		ck_assert(memcmp(g->t->mem, g->copy, g->size) == 0);
	}
}

static void guard_end(guard *g)
{
	free(g->copy);
	tl_free(g->t);
}

START_TEST(bad_input_null_arguments)
{
	guard g;
	guard_start(&g);
	pl_broker_config cfg = bu_cfg();
	expect_error(&g, NULL, &cfg, g.out, 8, PL_E_INVAL, PL_ELEM_ARGUMENT, 1);
	expect_error(&g, g.t->view, NULL, g.out, 8, PL_E_INVAL, PL_ELEM_ARGUMENT, 2);
	expect_error(&g, g.t->view, &cfg, NULL, 8, PL_E_INVAL, PL_ELEM_ARGUMENT, 3);
	/* A view whose memory no longer holds one (a failed init wipes it). */
	char junk[sizeof(void *) * 64];
	memset(junk, 0, sizeof junk);
	expect_error(&g, (pl_view *)(void *)junk, &cfg, g.out, 8, PL_E_INVAL, PL_ELEM_ARGUMENT, 1);
	/* NULL out with cap 0 is fine: it writes nothing, and says so. */
	pl_plan_info info;
	ck_assert_int_eq(pl_broker_plan(g.t->view, &cfg, NULL, 0, &info, NULL), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_FULL);
	ck_assert_uint_eq(info.wanted, 1);
	guard_end(&g);
}
END_TEST

START_TEST(bad_input_version)
{
	guard g;
	guard_start(&g);
	pl_broker_config cfg = bu_cfg();
	cfg.version = 0;
	expect_error(&g, g.t->view, &cfg, g.out, 8, PL_E_VERSION, PL_ELEM_CONFIG, 0);
	cfg.version = PL_BROKER_CONFIG_VERSION + 1;
	expect_error(&g, g.t->view, &cfg, g.out, 8, PL_E_VERSION, PL_ELEM_CONFIG, 0);
	guard_end(&g);
}
END_TEST

START_TEST(bad_input_config_values)
{
	guard g;
	guard_start(&g);
	static const struct {
		size_t field;
		uint32_t value, index;
	} bad[] = {
		{offsetof(pl_broker_config, max_moves), 0, 1},
		{offsetof(pl_broker_config, max_moves), PL_BROKER_MAX_MOVES + 1, 1},
		{offsetof(pl_broker_config, max_moves_in), PL_BROKER_MAX_MOVES + 1, 2},
		{offsetof(pl_broker_config, max_moves_out), PL_BROKER_MAX_MOVES + 1, 3},
		{offsetof(pl_broker_config, paused), 2, 4},
		{offsetof(pl_broker_config, replication_factor), 0, 5},
		{offsetof(pl_broker_config, replication_factor), PL_MAX_REPLICAS + 1, 5},
		{offsetof(pl_broker_config, stream_balance), 2, 6},
		{offsetof(pl_broker_config, replica_balance), 2, 7},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		pl_broker_config cfg = bu_cfg();
		memcpy((char *)&cfg + bad[i].field, &bad[i].value, sizeof(uint32_t));
		expect_error(&g, g.t->view, &cfg, g.out, 8, PL_E_CONFIG, PL_ELEM_CONFIG, bad[i].index);
	}
	/* The field index is the field's place in the struct. */
	ck_assert_uint_eq(offsetof(pl_broker_config, stream_balance) / sizeof(uint32_t), 6);
	ck_assert_uint_eq(offsetof(pl_broker_config, replica_balance) / sizeof(uint32_t), 7);
	guard_end(&g);
}
END_TEST

START_TEST(bad_input_no_eligible_member)
{
	guard g;
	guard_start(&g);
	pl_broker_config cfg = bu_cfg();
	for (uint32_t m = 0; m < 3; m++)
		g.t->m[m].flags = m == 0 ? PL_MEMBER_DOWN : PL_MEMBER_DRAINING;
	guard_view(&g);
	expect_error(&g, g.t->view, &cfg, g.out, 8, PL_E_NO_ELIGIBLE, PL_ELEM_ARGUMENT, 1);
	guard_end(&g);
	/* With no shards there is nothing to place: balanced, not an error. */
	tl *t = tl_new();
	tl_member(t, "b0", NULL);
	t->m[0].flags = PL_MEMBER_DOWN;
	pl_plan_info info;
	ck_assert_int_eq(pl_broker_plan(tl_view(t, 0), &cfg, NULL, 0, &info, NULL), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	tl_free(t);
}
END_TEST

/* ---- statuses: why nothing (more) was emitted ------------------------------- */

/* 3 members, RF 3; stream "orders" led 0/0/6 (two moves to b0 and b1 wanted). */
static tl *skewed(void)
{
	tl *t = bu_new(3, NULL);
	static const uint32_t c[] = {0, 0, 6};
	bu_stream(t, "orders", c, 3, 3);
	return t;
}

static int plan(tl *t, const pl_broker_config *cfg, pl_action *out, uint32_t cap, pl_plan_info *info)
{
	pl_diag d;
	int n = pl_broker_plan(t->view, cfg, out, cap, info, &d);
	ck_assert_msg(n >= 0, "plan: %s", pl_error_name(n));
	ck_assert_uint_eq(info->written, (uint32_t)n);
	return n;
}

/* t planned on a fresh view with the default config but max_moves, into
 * out (room for 16 actions). */
static int plan_up_to(tl *t, uint32_t max_moves, pl_action *out, pl_plan_info *info)
{
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = max_moves;
	return plan(t, &cfg, out, 16, info);
}

START_TEST(status_full_writes_whole_shards_only)
{
	tl *t = bu_new(3, NULL);
	uint32_t s = bu_new_stream(t, "fresh", 4);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_action out[6];
	pl_plan_info info;
	/* A new shard is 3 ADD_REPLICA + 1 SET_LEADER: the second does not fit. */
	int n = plan(t, &cfg, out, 6, &info);
	ck_assert_int_eq(n, 4);
	ck_assert_uint_eq(info.status, PL_STATUS_FULL);
	ck_assert_uint_eq(info.wanted, 5);
	/* The view holds exactly the written actions: one shard placed, the next
	 * untouched. */
	pl_view_counts c;
	pl_view_stats(t->view, &c);
	ck_assert_uint_eq(c.leaderless, 3);
	uint32_t placed = 0;
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state st;
		pl_view_shard_state(t->view, k, &st);
		ck_assert(st.replica_count == 0 || st.replica_count == 3);
		placed += st.replica_count == 3;
	}
	ck_assert_uint_eq(placed, 1);
	/* The next call goes on where this one stopped. */
	n = plan(t, &cfg, out, 6, &info);
	ck_assert_int_eq(n, 4);
	pl_view_stats(t->view, &c);
	ck_assert_uint_eq(c.leaderless, 2);
	(void)s;
	tl_free(t);
}
END_TEST

START_TEST(status_paused_starts_no_move_but_places)
{
	tl *t = skewed();
	bu_new_stream(t, "fresh", 1);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.paused = 1;
	pl_action out[16];
	pl_plan_info info;
	int n = plan(t, &cfg, out, 16, &info);
	ck_assert_int_eq(n, 4); /* the new shard only */
	for (int i = 0; i < n; i++)
		ck_assert_uint_eq(out[i].reason, PL_REASON_NEW);
	ck_assert_uint_eq(info.status, PL_STATUS_PAUSED);
	ck_assert_uint_eq(info.wanted, (uint32_t)n + 1);
	ck_assert_uint_eq(bu_lead(t->view, 0, 2), 6);
	tl_free(t);
}
END_TEST

START_TEST(status_move_limit_counts_moves_in_flight)
{
	tl *t = skewed();
	static const uint32_t c[] = {1, 1, 0};
	bu_stream(t, "other", c, 3, 3);
	t->k[6].moving_to = 2; /* other/00: b0 -> b2, in flight */
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_action out[16];
	pl_plan_info info;
	ck_assert_int_eq(plan(t, &cfg, out, 16, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	ck_assert_uint_eq(info.detail, PL_NONE);
	ck_assert_uint_eq(info.wanted, 1);
	/* Two at once: one is in flight, so one more starts. */
	cfg.max_moves = 2;
	ck_assert_int_eq(plan(t, &cfg, out, 16, &info), 1);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	/* Settled, two start. */
	pl_view_settle(t->view);
	ck_assert_int_eq(plan(t, &cfg, out, 16, &info), 2);
	tl_free(t);
}
END_TEST

START_TEST(status_move_limit_per_member)
{
	tl *t = skewed();
	static const uint32_t c[] = {0, 1, 1};
	bu_stream(t, "other", c, 3, 3);
	t->k[6].moving_to = 0; /* other/00: b1 -> b0 in flight */
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 8;
	cfg.max_moves_in = 1;
	pl_action out[16];
	pl_plan_info info;
	/* orders 0/0/6 wants two moves into b0 and two into b1: b0 already has
	 * one coming in, so only b1 takes one. */
	int n = plan(t, &cfg, out, 16, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(out[0].to, 1);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	ck_assert(info.detail == 0 || info.detail == 1);
	/* max_moves_out: b2 hands one out at a time. */
	tl_view(t, 0);
	cfg.max_moves_in = 0;
	cfg.max_moves_out = 1;
	n = plan(t, &cfg, out, 16, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(out[0].from, 2);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	ck_assert_uint_eq(info.detail, 2);
	tl_free(t);
}
END_TEST

START_TEST(status_in_flight)
{
	tl *t = bu_new(3, NULL);
	static const uint32_t c[] = {1, 3, 0};
	bu_stream(t, "orders", c, 3, 3);
	for (uint32_t k = 1; k < 4; k++)
		t->k[k].moving_to = 0; /* b1's three are moving to b0: b0 leads 4, 3 of them moving */
	pl_action out[16];
	pl_plan_info info;
	int n = plan_up_to(t, 8, out, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(out[0].shard, 0); /* the one not moving */
	ck_assert_uint_eq(info.status, PL_STATUS_IN_FLIGHT);
	ck_assert_uint_eq(info.wanted, 2);
	tl_free(t);
}
END_TEST

START_TEST(status_blocked_caps)
{
	tl *t = bu_new(3, NULL);
	static const uint32_t c[] = {3, 0, 0};
	uint32_t s = bu_stream(t, "orders", c, 3, 1); /* RF 1: a move copies */
	t->m[1].max_shards = t->m[2].max_shards = 1;
	tl tmp;
	(void)tmp;
	/* b1 and b2 hold one replica each of another stream: at their caps. */
	static const uint32_t o[] = {0, 1, 1};
	bu_stream(t, "other", o, 3, 1);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_action out[16];
	pl_plan_info info;
	ck_assert_int_eq(plan(t, &cfg, out, 16, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_BLOCKED_CAPS);
	ck_assert_uint_eq(info.detail, s);
	ck_assert_uint_ge(info.blocked, 1);
	ck_assert_uint_eq(info.wanted, 0);
	/* Room for one more on b1: exactly one move, then blocked again. */
	t->m[1].max_shards = 2;
	uint32_t n;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(a[0].to, 1);
	ck_assert_uint_eq(info.status, PL_STATUS_BLOCKED_CAPS);
	free(a);
	tl_free(t);
}
END_TEST

START_TEST(status_blocked_zones)
{
	static const char *const zones[] = {"za", "zb", "zb"};
	tl *t = bu_new(3, zones);
	t->m[1].flags = PL_MEMBER_DOWN; /* a follower that may not lead */
	uint32_t s = tl_stream(t, "orders");
	for (int i = 0; i < 2; i++)
		tl_shard(t, tl_str(t, "orders/%d", i), s, 0, 2, 0u, 1u);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.replica_balance = 0; /* the leaders' block alone */
	pl_action out[16];
	pl_plan_info info;
	/* b2 taking b0's place would leave both replicas in zone zb. */
	ck_assert_int_eq(plan(t, &cfg, out, 16, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_BLOCKED_ZONES);
	ck_assert_uint_eq(info.detail, s);
	ck_assert_uint_eq(info.blocked, 2); /* the stream and the cluster */
	/* In zone za, b2 may take it. */
	t->m[2].zone = (pl_bytes){"za", 2};
	tl_view(t, 0);
	ck_assert_int_eq(plan(t, &cfg, out, 16, &info), 1);
	ck_assert_uint_eq(out[0].to, 2);
	ck_assert_uint_eq(out[0].flags, PL_ACTION_STAGE_FIRST);
	tl_free(t);
}
END_TEST

START_TEST(status_stalled_and_balanced)
{
	tl *t = bu_new(3, NULL);
	uint32_t s = tl_stream(t, "orders");
	tl_shard(t, "orders/00", s, 0, 1, 0u);
	tl_shard(t, "orders/01", s, 1, 1, 1u);
	tl_shard(t, "orders/02", s, 2, 1, 2u);
	t->m[0].flags = PL_MEMBER_DOWN; /* orders/00's only replica */
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_action out[16];
	pl_plan_info info;
	ck_assert_int_eq(plan(t, &cfg, out, 16, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_STALLED);
	ck_assert_uint_eq(info.detail, 0);
	ck_assert_uint_eq(info.blocked, 1);
	t->m[0].flags = 0;
	tl_view(t, 0);
	ck_assert_int_eq(plan(t, &cfg, out, 16, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(info.detail, PL_NONE);
	ck_assert_uint_eq(info.blocked, 0);
	ck_assert_uint_eq(info.wanted, 0);
	tl_free(t);
}
END_TEST

/* ---- the dry run ------------------------------------------------------------- */

/* PL_MEMBER_LAGGING is a fleet's and a region's notion: the broker policy
 * does not read it, so a lagging broker is a destination like any other
 * (pl_snapshot_validate(3) says so). */
START_TEST(a_lagging_member_is_a_destination_all_the_same)
{
	tl *t = skewed();
	t->m[0].flags |= PL_MEMBER_LAGGING;
	t->m[1].flags |= PL_MEMBER_LAGGING;
	pl_action out[16];
	pl_plan_info info;
	int n = plan_up_to(t, 4, out, &info);
	ck_assert_int_eq(n, 4);
	for (int i = 0; i < n; i++)
		ck_assert_msg(out[i].to == 0 || out[i].to == 1, "action %d goes to %u", i, out[i].to);
	ck_assert_uint_eq(bu_lead(t->view, 0, 2), 2);
	tl_free(t);
}
END_TEST

START_TEST(dry_run_is_the_ticks_in_sequence)
{
	uint32_t q;
	tl *t = bu_benchmark(&q), *u = bu_benchmark(&q);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 2;
	uint32_t n, ticks;
	pl_plan_info info;
	pl_action *a = bu_dry(t, &cfg, &n, &info, &ticks);
	/* The same by hand: plan, settle, until nothing. */
	pl_view *v = tl_view(u, 0);
	pl_action out[64];
	uint32_t i = 0, hand_ticks = 0;
	for (;;) {
		int w = pl_broker_plan(v, &cfg, out, 64, NULL, NULL);
		ck_assert_int_ge(w, 0);
		if (w == 0)
			break;
		hand_ticks++;
		for (int j = 0; j < w; j++, i++)
			ck_assert(memcmp(&out[j], &a[i], sizeof out[j]) == 0);
		pl_view_settle(v);
	}
	ck_assert_uint_eq(i, n);
	ck_assert_uint_eq(ticks, hand_ticks);
	ck_assert_uint_lt(ticks, n); /* two at a time */
	ck_assert_uint_eq(info.written, n);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	/* A cap shorter than the sequence: FULL, and the prefix. */
	tl_view(t, 0);
	pl_action part[5];
	ck_assert_int_eq(pl_broker_dry_run(t->view, &cfg, part, 5, &info, &ticks, NULL), 5);
	ck_assert_uint_eq(info.status, PL_STATUS_FULL);
	ck_assert_uint_eq(info.wanted, 6);
	ck_assert(memcmp(part, a, sizeof part) == 0);
	free(a);
	tl_free(t);
	tl_free(u);
}
END_TEST

/* Moves in flight that fill max_moves: the dry run settles them and goes on
 * (a real loop would see them finish and make the moves still wanted). */
START_TEST(dry_run_settles_the_moves_in_flight_and_goes_on)
{
	tl *t = bu_new(3, NULL);
	static const uint32_t c[] = {0, 0, 12};
	bu_stream(t, "orders", c, 3, 3);
	for (uint32_t k = 0; k < 5; k++)
		t->k[k].moving_to = k < 3 ? 0 : 1; /* 3/2/7 once they finish */
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 5;
	pl_action out[16];
	pl_plan_info info;
	ck_assert_int_eq(plan(t, &cfg, out, 16, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	uint32_t n, ticks;
	tl_view(t, 0);
	pl_action *a = bu_dry(t, &cfg, &n, &info, &ticks);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(ticks, 1);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(info.written, 3);
	v = t->view;
	for (uint32_t m = 0; m < 3; m++)
		ck_assert_uint_eq(bu_lead(v, 0, m), 4);
	free(a);
	tl_free(t);
}
END_TEST

/* ---- explanations ------------------------------------------------------------- */

START_TEST(every_action_reads_as_a_sentence_with_its_numbers)
{
	uint32_t q;
	tl *t = bu_benchmark(&q);
	bu_new_stream(t, "fresh", 3);
	t->m[1].flags = PL_MEMBER_DRAINING;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	uint32_t n;
	pl_plan_info info;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	char buf[512];
	int saw_new = 0, saw_drain = 0, saw_skew = 0;
	for (uint32_t i = 0; i < n; i++) {
		int len = pl_action_explain(tl_snap(t), &a[i], buf, sizeof buf);
		ck_assert_int_gt(len, 20);
		ck_assert_msg(strstr(buf, pl_action_kind_name(a[i].kind)) == NULL, "%s", buf); /* words, not codes */
		if (a[i].kind == PL_ACTION_SET_LEADER && a[i].reason == PL_REASON_NEW) {
			ck_assert_msg(strstr(buf, "place leader of fresh/") == buf, "%s", buf);
			ck_assert_msg(strstr(buf, "tier ") && strstr(buf, "cluster share"), "%s", buf);
			saw_new = 1;
		}
		if (a[i].reason == PL_REASON_DRAIN) {
			ck_assert_msg(strstr(buf, "hand leader of ") == buf && strstr(buf, "from b1 (draining) to "), "%s",
				      buf);
			saw_drain = 1;
		}
		if (a[i].reason == PL_REASON_STREAM_SKEW) {
			char want[128];
			snprintf(want, sizeof want, "leads %u on ", a[i].from_count);
			ck_assert_msg(strstr(buf, want) && strstr(buf, "floor") && strstr(buf, "ceiling"), "%s", buf);
			saw_skew = 1;
		}
	}
	ck_assert(saw_new && saw_drain && saw_skew);
	free(a);
	/* The seed's own sentence. */
	tl *b = bu_benchmark(&q);
	tl_view(b, 0);
	a = bu_dry(b, &cfg, &n, &info, NULL);
	for (uint32_t i = 0; i < n; i++)
		if (a[i].stream == q) {
			pl_action_explain(tl_snap(b), &a[i], buf, sizeof buf);
			char want[256];
			snprintf(want, sizeof want,
				 "move leader of %.*s from b2 to b0: stream perf-quorum leads 10 on b2, 1 on b0, floor 4, "
				 "ceiling 4",
				 (int)b->k[a[i].shard].key.len, b->k[a[i].shard].key.ptr);
			ck_assert_str_eq(buf, want);
			break;
		}
	free(a);
	tl_free(b);
	tl_free(t);
}
END_TEST

Suite *suite(void);
Suite *suite(void)
{
	Suite *s = suite_create("broker");
	TCase *c = tcase_create("config");
	tcase_add_test(c, config_init_matches_macro);
	suite_add_tcase(s, c);
	c = tcase_create("bad input");
	tcase_add_test(c, bad_input_null_arguments);
	tcase_add_test(c, bad_input_version);
	tcase_add_test(c, bad_input_config_values);
	tcase_add_test(c, bad_input_no_eligible_member);
	suite_add_tcase(s, c);
	c = tcase_create("status");
	tcase_add_test(c, status_full_writes_whole_shards_only);
	tcase_add_test(c, status_paused_starts_no_move_but_places);
	tcase_add_test(c, status_move_limit_counts_moves_in_flight);
	tcase_add_test(c, status_move_limit_per_member);
	tcase_add_test(c, status_in_flight);
	tcase_add_test(c, status_blocked_caps);
	tcase_add_test(c, status_blocked_zones);
	tcase_add_test(c, status_stalled_and_balanced);
	tcase_add_test(c, a_lagging_member_is_a_destination_all_the_same);
	suite_add_tcase(s, c);
	c = tcase_create("dry run and sentences");
	tcase_add_test(c, dry_run_is_the_ticks_in_sequence);
	tcase_add_test(c, dry_run_settles_the_moves_in_flight_and_goes_on);
	tcase_add_test(c, every_action_reads_as_a_sentence_with_its_numbers);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
