/* check_broker.c - the broker policy's entry points: configuration, bad
 * input, status, dry run, and the seed's scenarios end to end. */
#include "broker_util.h"

/* ---- the seed's benchmark layout ---------------------------------------- */

/* Three members, RF 3, four streams and a cache: perf-quorum's 12 shards led
 * 1/1/10, totals 21/21/19. */
static tl *benchmark(uint32_t *quorum)
{
	tl *t = tl_new();
	bu_members(t, 3, NULL);
	static const uint32_t q[] = {1, 1, 10}, o[] = {5, 5, 2}, e[] = {5, 5, 2}, m[] = {4, 4, 4}, c[] = {6, 6, 1};
	*quorum = bu_stream(t, "perf-quorum", q, 3, 3);
	bu_stream(t, "orders", o, 3, 3);
	bu_stream(t, "events", e, 3, 3);
	bu_stream(t, "metrics", m, 3, 3);
	bu_stream(t, "cache", c, 3, 3);
	return t;
}

START_TEST(benchmark_layout_ends_4_4_4)
{
	uint32_t q;
	tl *t = benchmark(&q);
	pl_view *v = tl_view(t, 0);
	ck_assert_uint_eq(bu_total(v, 0), 21);
	ck_assert_uint_eq(bu_total(v, 1), 21);
	ck_assert_uint_eq(bu_total(v, 2), 19);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n, ticks;
	pl_action *a = bu_dry(t, &cfg, &n, &info, &ticks);
	bu_print(t, a, n);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(ticks, n); /* one move at a time */
	for (uint32_t m = 0; m < 3; m++)
		ck_assert_uint_eq(bu_lead(v, q, m), 4);
	for (uint32_t s = 0; s < t->ns; s++)
		ck_assert_msg(bu_spread(t, v, s) <= 1, "stream %u spread %u", s, bu_spread(t, v, s));
	ck_assert_uint_le(bu_spread(t, v, PL_NONE), 1);
	ck_assert_uint_eq(bu_most_moves(a, n, t->nk), 1);
	/* perf-quorum needs 6 moves alone; orders and events one each. */
	ck_assert_uint_ge(n, 8);
	free(a);
	tl_free(t);
}
END_TEST

/* The same layout with the per-stream rules off is what the seed saw: the
 * totals are even (one move takes 21/21/19 to 21/20/20) and the stream
 * stays lopsided. */
START_TEST(red_first_cluster_totals_only_never_reach_4_4_4)
{
	uint32_t q;
	tl *t = benchmark(&q);
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.stream_balance = 0;
	pl_plan_info info;
	uint32_t n;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	bu_print(t, a, n);
	ck_assert_uint_le(n, 1);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_le(bu_spread(t, v, PL_NONE), 1);
	ck_assert_uint_ge(bu_lead(v, q, 2), 9);
	ck_assert_uint_gt(bu_spread(t, v, q), 1);
	free(a);
	tl_free(t);
}
END_TEST

/* ---- a new stream beside members leading 6/6/0 ---------------------------- */

START_TEST(new_stream_beside_6_6_0_is_placed_4_4_4_and_never_moves)
{
	tl *t = tl_new();
	bu_members(t, 3, NULL);
	static const uint32_t a6[] = {3, 3, 0};
	bu_stream(t, "alpha", a6, 3, 3);
	bu_stream(t, "beta", a6, 3, 3);
	uint32_t fresh = bu_new_stream(t, "perf-quorum", 12);
	pl_view *v = tl_view(t, 0);
	ck_assert_uint_eq(bu_total(v, 0), 6);
	ck_assert_uint_eq(bu_total(v, 2), 0);
	pl_broker_config cfg = bu_cfg();
	/* One tick places every new shard (placing is not a move). */
	pl_action out[256];
	pl_plan_info info;
	int n = pl_broker_plan(v, &cfg, out, 256, &info, NULL);
	ck_assert_int_gt(n, 12 * 4 - 1);
	for (uint32_t m = 0; m < 3; m++)
		ck_assert_uint_eq(bu_lead(v, fresh, m), 4);
	uint32_t placed = 0;
	for (int i = 0; i < n; i++) {
		if (out[i].kind == PL_ACTION_SET_LEADER) {
			ck_assert_uint_eq(out[i].reason, PL_REASON_NEW);
			ck_assert_uint_le(out[i].tier, 2);
			placed++;
		}
	}
	ck_assert_uint_eq(placed, 12);
	pl_view_settle(v);
	/* Then the other streams rebalance; the new stream's shards never move. */
	uint32_t dn;
	pl_action *d = bu_dry(t, &cfg, &dn, &info, NULL);
	ck_assert_uint_gt(dn, 0);
	for (uint32_t i = 0; i < dn; i++)
		ck_assert_uint_ne(d[i].stream, fresh);
	for (uint32_t s = 0; s < t->ns; s++)
		ck_assert_uint_le(bu_spread(t, v, s), 1);
	ck_assert_uint_le(bu_spread(t, v, PL_NONE), 1);
	for (uint32_t m = 0; m < 3; m++)
		ck_assert_uint_eq(bu_lead(v, fresh, m), 4);
	free(d);
	tl_free(t);
}
END_TEST

/* ---- five streams skewed different ways ----------------------------------- */

START_TEST(five_skewed_streams_balance_with_no_shard_moving_twice)
{
	tl *t = tl_new();
	bu_members(t, 4, NULL);
	static const uint32_t s1[] = {12, 0, 0, 0}, s2[] = {0, 8, 0, 0}, s3[] = {1, 1, 4, 4}, s4[] = {0, 0, 0, 7},
			      s5[] = {3, 3, 3, 0};
	bu_stream(t, "s1", s1, 4, 3);
	bu_stream(t, "s2", s2, 4, 3);
	bu_stream(t, "s3", s3, 4, 3);
	bu_stream(t, "s4", s4, 4, 3);
	bu_stream(t, "s5", s5, 4, 3);
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	bu_print(t, a, n);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	for (uint32_t s = 0; s < t->ns; s++)
		ck_assert_msg(bu_spread(t, v, s) <= 1, "stream %u", s);
	ck_assert_uint_le(bu_spread(t, v, PL_NONE), 1);
	ck_assert_uint_eq(bu_most_moves(a, n, t->nk), 1);
	free(a);
	tl_free(t);
}
END_TEST

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

static void guard_start(guard *g)
{
	g->t = tl_new();
	bu_members(g->t, 3, NULL);
	static const uint32_t c[] = {0, 0, 6};
	bu_stream(g->t, "orders", c, 3, 3);
	bu_new_stream(g->t, "fresh", 2);
	tl_view(g->t, 0);
	g->size = pl_view_size(tl_snap(g->t));
	g->copy = malloc(g->size);
	memcpy(g->copy, g->t->mem, g->size);
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
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		pl_broker_config cfg = bu_cfg();
		memcpy((char *)&cfg + bad[i].field, &bad[i].value, sizeof(uint32_t));
		expect_error(&g, g.t->view, &cfg, g.out, 8, PL_E_CONFIG, PL_ELEM_CONFIG, bad[i].index);
	}
	/* The field index is the field's place in the struct. */
	ck_assert_uint_eq(offsetof(pl_broker_config, stream_balance) / sizeof(uint32_t), 6);
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
	tl_view(g.t, 0);
	memcpy(g.copy, g.t->mem, g.size);
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
	tl *t = tl_new();
	bu_members(t, 3, NULL);
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

START_TEST(status_full_writes_whole_shards_only)
{
	tl *t = tl_new();
	bu_members(t, 3, NULL);
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
	tl *t = tl_new();
	bu_members(t, 3, NULL);
	static const uint32_t c[] = {1, 3, 0};
	bu_stream(t, "orders", c, 3, 3);
	for (uint32_t k = 1; k < 4; k++)
		t->k[k].moving_to = 0; /* b1's three are moving to b0: b0 leads 4, 3 of them moving */
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 8;
	pl_action out[16];
	pl_plan_info info;
	int n = plan(t, &cfg, out, 16, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(out[0].shard, 0); /* the one not moving */
	ck_assert_uint_eq(info.status, PL_STATUS_IN_FLIGHT);
	ck_assert_uint_eq(info.wanted, 2);
	tl_free(t);
}
END_TEST

START_TEST(status_blocked_caps)
{
	tl *t = tl_new();
	bu_members(t, 3, NULL);
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
	tl *t = tl_new();
	static const char *const zones[] = {"za", "zb", "zb"};
	bu_members(t, 3, zones);
	t->m[1].flags = PL_MEMBER_DRAINING; /* a follower that may not lead */
	uint32_t s = tl_stream(t, "orders");
	for (int i = 0; i < 2; i++)
		tl_shard(t, tl_str(t, "orders/%d", i), s, 0, 2, 0u, 1u);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
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
	tl *t = tl_new();
	bu_members(t, 3, NULL);
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

START_TEST(dry_run_is_the_ticks_in_sequence)
{
	uint32_t q;
	tl *t = benchmark(&q), *u = benchmark(&q);
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

/* ---- the seed's further cases ----------------------------------------------- */

START_TEST(joining_member_gets_shards_that_stay)
{
	tl *t = tl_new();
	bu_members(t, 3, NULL);
	static const uint32_t even[] = {4, 4, 4}, odd[] = {3, 3, 3};
	bu_stream(t, "a", even, 3, 3);
	bu_stream(t, "b", even, 3, 3);
	bu_stream(t, "c", odd, 3, 3);
	tl_member(t, "b3", NULL); /* joins with nothing */
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	bu_print(t, a, n);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	for (uint32_t s = 0; s < t->ns; s++)
		ck_assert_uint_le(bu_spread(t, v, s), 1);
	ck_assert_uint_le(bu_spread(t, v, PL_NONE), 1);
	ck_assert_uint_eq(bu_most_moves(a, n, t->nk), 1);
	for (uint32_t i = 0; i < n; i++) {
		ck_assert_uint_ne(a[i].from, 3); /* nothing given to the joiner leaves it */
		ck_assert_uint_eq(a[i].to, 3);
		ck_assert_uint_eq(a[i].flags, PL_ACTION_STAGE_FIRST); /* it holds no replica */
	}
	/* 33 leaders over 4: the joiner ends with 8; a and b with 3 each. */
	ck_assert_uint_eq(bu_total(v, 3), 8);
	ck_assert_uint_eq(n, 8);
	free(a);
	tl_free(t);
}
END_TEST

START_TEST(draining_member_hands_off_each_leader_once)
{
	tl *t = tl_new();
	bu_members(t, 3, NULL);
	static const uint32_t c[] = {4, 4, 4}, d[] = {2, 2, 2};
	bu_stream(t, "orders", c, 3, 3);
	bu_stream(t, "events", d, 3, 3);
	t->m[2].flags = PL_MEMBER_DRAINING;
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n, ticks;
	pl_action *a = bu_dry(t, &cfg, &n, &info, &ticks);
	bu_print(t, a, n);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(ticks, 6); /* a hand-off is a move: one at a time */
	for (uint32_t i = 0; i < n; i++) {
		ck_assert_uint_eq(a[i].kind, PL_ACTION_MOVE_LEADER);
		ck_assert_uint_eq(a[i].reason, PL_REASON_DRAIN);
		ck_assert_uint_eq(a[i].from, 2);
		ck_assert_uint_eq(a[i].flags, 0); /* RF 3: the others are followers */
	}
	ck_assert_uint_eq(bu_most_moves(a, n, t->nk), 1);
	ck_assert_uint_eq(bu_lead(v, 0, 0), 6);
	ck_assert_uint_eq(bu_lead(v, 0, 1), 6);
	ck_assert_uint_eq(bu_lead(v, 1, 0), 3);
	ck_assert_uint_eq(bu_total(v, 2), 0);
	free(a);
	tl_free(t);
}
END_TEST

START_TEST(member_with_a_shard_cap_is_never_filled_past_it)
{
	uint32_t q;
	tl *t = tl_new();
	bu_members(t, 3, NULL);
	static const uint32_t c[] = {1, 1, 10};
	q = bu_stream(t, "perf-quorum", c, 3, 1); /* RF 1: every move copies */
	t->m[0].max_shards = 2;                   /* room for one more */
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	bu_print(t, a, n);
	pl_tally y;
	pl_view_member_tally(v, 0, &y);
	ck_assert_uint_eq(y.replicas, 2);
	ck_assert_uint_eq(bu_lead(v, q, 0), 2);
	/* 12 over the three: b0 can hold 2, so b1 and b2 end 5 each. */
	ck_assert_uint_eq(bu_lead(v, q, 1), 5);
	ck_assert_uint_eq(bu_lead(v, q, 2), 5);
	ck_assert_uint_eq(info.status, PL_STATUS_BLOCKED_CAPS);
	free(a);
	tl_free(t);
}
END_TEST

START_TEST(zones_are_never_lost)
{
	tl *t = tl_new();
	static const char *const zones[] = {"za", "za", "zb", "zb"};
	bu_members(t, 4, zones);
	/* RF 2 spanning both zones; everything led by b0. */
	uint32_t s = tl_stream(t, "orders");
	for (int i = 0; i < 8; i++)
		tl_shard(t, tl_str(t, "orders/%02d", i), s, 0, 2, 0u, (uint32_t)(2 + i % 2));
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	bu_print(t, a, n);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_le(bu_spread(t, v, s), 0);
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state st;
		pl_view_shard_state(v, k, &st);
		ck_assert_uint_eq(st.replica_count, 2);
		uint32_t z0 = st.replicas[0] < 2, z1 = st.replicas[1] < 2;
		ck_assert_msg(z0 != z1, "shard %u lost a zone", k);
	}
	free(a);
	tl_free(t);
}
END_TEST

START_TEST(five_members_rf3_balance)
{
	tl *t = tl_new();
	static const char *const zones[] = {"z1", "z2", "z3", "z1", "z2"};
	bu_members(t, 5, zones);
	static const uint32_t s1[] = {10, 0, 0, 0, 0}, s2[] = {0, 6, 6, 0, 0}, s3[] = {3, 3, 3, 3, 3},
			      s4[] = {0, 0, 0, 1, 8};
	bu_stream(t, "s1", s1, 5, 3);
	bu_stream(t, "s2", s2, 5, 3);
	bu_stream(t, "s3", s3, 5, 3);
	bu_stream(t, "s4", s4, 5, 3);
	pl_view *v = tl_view(t, 0);
	uint32_t zones_before[64];
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state st;
		pl_view_shard_state(v, k, &st);
		uint32_t z = 0;
		for (uint32_t r = 0; r < 3; r++)
			z |= 1u << (t->m[st.replicas[r]].zone.ptr[1] - '0');
		zones_before[k] = (uint32_t)__builtin_popcount(z);
	}
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	uint32_t n;
	pl_action *a = bu_dry(t, &cfg, &n, &info, NULL);
	bu_print(t, a, n);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	for (uint32_t s = 0; s < t->ns; s++)
		ck_assert_uint_le(bu_spread(t, v, s), 1);
	ck_assert_uint_le(bu_spread(t, v, PL_NONE), 1);
	/* A shard of s2 reaches b0 only through its replica in b0's zone (z1):
	 * moving it there and on is the one way that keeps three zones. */
	ck_assert_uint_le(bu_most_moves(a, n, t->nk), 2);
	uint32_t copies = 0;
	for (uint32_t i = 0; i < n; i++)
		copies += a[i].flags == PL_ACTION_STAGE_FIRST;
	ck_assert_uint_gt(copies, 0); /* RF 3 of 5: some destinations hold no copy */
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state st;
		pl_view_shard_state(v, k, &st);
		uint32_t z = 0;
		for (uint32_t r = 0; r < 3; r++)
			z |= 1u << (t->m[st.replicas[r]].zone.ptr[1] - '0');
		ck_assert_uint_ge((uint32_t)__builtin_popcount(z), zones_before[k]);
	}
	free(a);
	tl_free(t);
}
END_TEST

/* ---- explanations ------------------------------------------------------------- */

START_TEST(every_action_reads_as_a_sentence_with_its_numbers)
{
	uint32_t q;
	tl *t = benchmark(&q);
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
	tl *b = benchmark(&q);
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
	TCase *c = tcase_create("seed");
	tcase_add_test(c, benchmark_layout_ends_4_4_4);
	tcase_add_test(c, red_first_cluster_totals_only_never_reach_4_4_4);
	tcase_add_test(c, new_stream_beside_6_6_0_is_placed_4_4_4_and_never_moves);
	tcase_add_test(c, five_skewed_streams_balance_with_no_shard_moving_twice);
	tcase_add_test(c, joining_member_gets_shards_that_stay);
	tcase_add_test(c, draining_member_hands_off_each_leader_once);
	tcase_add_test(c, member_with_a_shard_cap_is_never_filled_past_it);
	tcase_add_test(c, zones_are_never_lost);
	tcase_add_test(c, five_members_rf3_balance);
	suite_add_tcase(s, c);
	c = tcase_create("config");
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
	suite_add_tcase(s, c);
	c = tcase_create("dry run and sentences");
	tcase_add_test(c, dry_run_is_the_ticks_in_sequence);
	tcase_add_test(c, every_action_reads_as_a_sentence_with_its_numbers);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
