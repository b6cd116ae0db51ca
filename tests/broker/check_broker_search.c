/* check_broker_search.c - the ladder of fallbacks a search climbs when its
 * first moves are blocked (broker_search.c): first search, wide, spread,
 * even for replicas, relay; each once, and none after a move or a wait.
 * Driven through broker_int.h with scripted searches, then what a user sees
 * of it through pl_broker_plan and pl_broker_dry_run: the next source or
 * destination when the first is refused by zones or a move limit, a relay
 * when no direct move is allowed, a scope reported blocked. The drivers are
 * check_broker_search_drivers.c; the sources in rank order and the
 * destination lists, check_broker_search_lists.c. */
#include <stdlib.h>

#include "broker_util.h"
#include "broker_search_util.h"

/* ---- the ladder, scripted ------------------------------------------------------ */

/* A scripted search returns rc[level] at each level it is called at and
 * writes the level ('0'..'3') to the trace; the relay writes 'r' (or 'R'
 * when it is not given the scope's own level 0) and returns relay. */
typedef struct rung {
	int over, under, even, has_relay;
	int rc[4], relay;
	int want;          /* what pl__bk_search_all() returns */
	const char *trace; /* the searches it made, in order */
} rung;

static const rung *cur;
static char trace[16];
static size_t n_trace;

static int scripted(pl__bk *b, const pl__scope *sc)
{
	(void)b;
	ck_assert_uint_lt(n_trace, sizeof trace - 1);
	trace[n_trace++] = (char)('0' + sc->level);
	return cur->rc[sc->level];
}

static int scripted_relay(pl__bk *b, const pl__scope *sc)
{
	(void)b;
	ck_assert_uint_lt(n_trace, sizeof trace - 1);
	trace[n_trace++] = sc->level == 0 ? 'r' : 'R';
	return cur->relay;
}

static void climb(const rung *r, size_t n)
{
	pl__bk b;
	memset(&b, 0, sizeof b);
	for (size_t i = 0; i < n; i++) {
		cur = &r[i];
		n_trace = 0;
		memset(trace, 0, sizeof trace);
		pl__scope sc = scope(r[i].over, r[i].under);
		int rc = pl__bk_search_all(&b, &sc, scripted, r[i].even, r[i].has_relay ? scripted_relay : NULL);
		ck_assert_msg(rc == r[i].want && strcmp(trace, r[i].trace) == 0, "row %zu: returned %d after \"%s\", want %d after \"%s\"",
			      i, rc, trace, r[i].want, r[i].trace);
	}
}


START_TEST(a_first_search_that_moves_fills_or_waits_sees_no_fallback)
{
	static const rung r[] = {
		{1, 1, 0, 1, {MV, MV, MV, MV}, MV, MV, "0"}, {1, 1, 1, 1, {MV, MV, MV, MV}, MV, MV, "0"},
		{1, 1, 0, 1, {FU, MV, MV, MV}, MV, FU, "0"}, {1, 1, 1, 1, {FU, MV, MV, MV}, MV, FU, "0"},
		{1, 1, 0, 1, {WT, MV, MV, MV}, MV, WT, "0"}, {1, 1, 1, 1, {WT, MV, MV, MV}, MV, WT, "0"},
	};
	climb(r, sizeof r / sizeof *r);
}
END_TEST

START_TEST(the_fallbacks_come_in_order_each_once_where_the_scope_allows_them)
{
	/* After a block or nothing: wide (needs members over and under), spread
	 * (needs one over), even (the replica passes only), then the relay on
	 * the scope itself. */
	static const rung r[] = {
		{1, 1, 0, 1, {CA, SE, SE, SE}, SE, CA, "012r"}, {1, 1, 1, 1, {CA, SE, SE, SE}, SE, CA, "0123r"},
		{1, 1, 0, 1, {ZO, SE, SE, SE}, SE, ZO, "012r"}, {1, 1, 1, 1, {ZO, SE, SE, SE}, SE, ZO, "0123r"},
		{1, 1, 0, 1, {SE, SE, SE, SE}, SE, SE, "012r"}, {1, 1, 1, 1, {SE, SE, SE, SE}, SE, SE, "0123r"},
		{1, 0, 0, 1, {CA, MV, SE, SE}, SE, CA, "02r"},  {1, 0, 1, 1, {ZO, MV, SE, SE}, SE, ZO, "023r"},
		{0, 1, 0, 1, {CA, MV, MV, SE}, SE, CA, "0r"},   {0, 1, 1, 1, {SE, MV, MV, SE}, SE, SE, "03r"},
		{1, 1, 0, 0, {ZO, SE, SE, MV}, MV, ZO, "012"},  {0, 1, 0, 0, {ZO, MV, MV, MV}, MV, ZO, "0"},
	};
	climb(r, sizeof r / sizeof *r);
}
END_TEST

START_TEST(the_ladder_stops_at_the_first_fallback_that_moves_fills_or_waits)
{
	static const rung r[] = {
		{1, 1, 1, 1, {ZO, MV, MV, MV}, MV, MV, "01"},   {1, 1, 1, 1, {ZO, FU, MV, MV}, MV, FU, "01"},
		{1, 1, 1, 1, {ZO, WT, MV, MV}, MV, WT, "01"},   {1, 1, 1, 1, {ZO, CA, MV, MV}, MV, MV, "012"},
		{1, 1, 1, 1, {CA, ZO, WT, MV}, MV, WT, "012"},  {1, 1, 1, 1, {CA, ZO, SE, FU}, MV, FU, "0123"},
		{1, 0, 1, 1, {SE, MV, WT, MV}, MV, WT, "02"},   {0, 1, 1, 1, {CA, MV, MV, MV}, SE, MV, "03"},
	};
	climb(r, sizeof r / sizeof *r);
}
END_TEST

START_TEST(a_relay_is_the_last_resort_and_the_first_block_is_reported)
{
	/* The relay's move or full output is the outcome; with none, the first
	 * search's block, not a fallback's. */
	static const rung r[] = {
		{1, 1, 0, 1, {ZO, CA, SE, SE}, MV, MV, "012r"}, {1, 1, 0, 1, {ZO, CA, SE, SE}, FU, FU, "012r"},
		{1, 1, 1, 1, {ZO, CA, CA, CA}, SE, ZO, "0123r"}, {1, 1, 1, 0, {CA, ZO, ZO, ZO}, SE, CA, "0123"},
		{1, 1, 0, 1, {SE, ZO, ZO, ZO}, SE, SE, "012r"},
	};
	climb(r, sizeof r / sizeof *r);
}
END_TEST


/* ---- through the public header ------------------------------------------------ */

START_TEST(the_next_source_is_tried_when_the_first_has_no_move)
{
	/* Totals 4/6/6/0/4 (ceiling 4): b1 and b2 are 2 over, b1 first (the
	 * smaller id); b3 is the one under. b1's shards have their follower in
	 * b3's zone, so a copy to b3 would lose a zone, and the follower b4 is
	 * not under: b1 has no move. b2's can go: the cluster pass moves one of
	 * b2's to b3, no fallback needed. */
	static const char *const zones[] = {"za", "zb", "zc", "zd", "zd"};
	tl *t = bu_new(5, zones);
	static const uint32_t lead[] = {4, 6, 6, 0, 4}, follow[] = {1, 4, 0, 0, 2};
	for (uint32_t m = 0, i = 0; m < 5; m++)
		for (uint32_t c = 0; c < lead[m]; c++, i++)
			tl_shard(t, tl_str(t, "k%02u", i), PL_NONE, m, 2, m, follow[m]);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.stream_balance = 0;
	cfg.replica_balance = 0;
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	bu_print(t, a, (uint32_t)n);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].kind, PL_ACTION_MOVE_LEADER);
	ck_assert_uint_eq(a[0].reason, PL_REASON_CLUSTER_SKEW);
	ck_assert_uint_eq(a[0].from, 2);
	ck_assert_uint_eq(a[0].to, 3);
	ck_assert_uint_eq(a[0].from_count, 6);
	ck_assert_uint_eq(a[0].flags, PL_ACTION_STAGE_FIRST);
	/* Without zones b1, first of the two, has its move. */
	for (uint32_t m = 0; m < 5; m++)
		t->m[m].zone = (pl_bytes){NULL, 0};
	tl_view(t, 0);
	a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].from, 1);
	ck_assert_uint_eq(a[0].to, 3);
	tl_free(t);
}
END_TEST

START_TEST(a_source_or_destination_at_its_move_limit_gives_way_to_the_next)
{
	/* Totals 8/5/0/2 (floor 3, ceiling 4), RF 1: b0 and b1 over, b2 and b3
	 * under. Two moves a tick: the first b0 -> b2; the second b0 -> b2 again
	 * unless b0 is at its max_moves_out (then b1, the next source) or b2 at
	 * its max_moves_in (then b3, the next destination). */
	static const uint32_t c[] = {8, 5, 0, 2}, lim[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
	static const uint32_t want[4][2] = {{0, 2}, {1, 2}, {0, 3}, {1, 3}};
	for (uint32_t i = 0; i < 4; i++) {
		tl *t = bu_new(4, NULL);
		for (uint32_t m = 0, j = 0; m < 4; m++)
			for (uint32_t x = 0; x < c[m]; x++, j++)
				tl_shard(t, tl_str(t, "k%02u", j), PL_NONE, m, 1, m);
		tl_view(t, 0);
		pl_broker_config cfg = bu_cfg();
		cfg.stream_balance = 0;
		cfg.replica_balance = 0;
		cfg.max_moves = 2;
		cfg.max_moves_out = lim[i][0];
		cfg.max_moves_in = lim[i][1];
		int n;
		pl_plan_info info;
		pl_action *a = bu_plan(t, &cfg, &n, &info);
		ck_assert_int_eq(n, 2);
		ck_assert_uint_eq(a[0].from, 0);
		ck_assert_uint_eq(a[0].to, 2);
		ck_assert_msg(a[1].from == want[i][0] && a[1].to == want[i][1], "limits out %u in %u: b%u -> b%u, want b%u -> b%u",
			      lim[i][0], lim[i][1], a[1].from, a[1].to, want[i][0], want[i][1]);
		tl_free(t);
	}
}
END_TEST

/* One stream a of 8 shards on b0 (za), b1 (zb), b2, b3 (zc), RF 2: b0 leads
 * 3 (followers on b3), b1 2 (on b0), b2 1 (on b1), b3 2 (on b1); floor and
 * ceiling 2. b0 -> b2 would leave its shards in zc alone, whatever the level;
 * nobody else is over or under. */
static tl *relay_layout(void)
{
	static const char *const zones[] = {"za", "zb", "zc", "zc"};
	tl *t = bu_new(4, zones);
	uint32_t s = tl_stream(t, "a");
	static const uint32_t lead[] = {3, 2, 1, 2}, follow[] = {3, 0, 1, 1};
	for (uint32_t m = 0, i = 0; m < 4; m++)
		for (uint32_t c = 0; c < lead[m]; c++, i++)
			tl_shard(t, tl_str(t, "a/%02u", i), s, m, 2, m, follow[m]);
	return t;
}

START_TEST(a_relay_when_no_direct_move_is_allowed_then_the_move_it_prepared)
{
	tl *t = relay_layout();
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.replica_balance = 0;
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	bu_print(t, a, (uint32_t)n);
	/* The first hop: from b0 to a member at its ceiling that can pass a
	 * shard on to b2 (b1 or b3). */
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].reason, PL_REASON_STREAM_SKEW);
	ck_assert_uint_eq(a[0].from, 0);
	ck_assert(a[0].to == 1 || a[0].to == 3);
	ck_assert_uint_eq(a[0].to_count, a[0].ceiling);
	uint32_t x = a[0].to;
	/* Then x -> b2, an ordinary move: balanced in two moves. */
	pl_view_settle(v);
	uint32_t k;
	pl_action *all = bu_dry_shown(t, &cfg, &k, &info, NULL);
	ck_assert_uint_eq(k, 1);
	ck_assert_uint_eq(all[0].from, x);
	ck_assert_uint_eq(all[0].to, 2);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED);
	for (uint32_t m = 0; m < 4; m++)
		ck_assert_uint_eq(bu_lead(v, 0, m), 2);
	free(all);
	tl_free(t);
}
END_TEST

START_TEST(a_scope_with_no_move_and_no_relay_is_reported_blocked)
{
	/* The relay's layout with b2 at its cap: no move into b2, direct or
	 * relayed. The stream is blocked by caps, named, and nothing moves. */
	tl *t = relay_layout();
	t->m[2].max_shards = 1;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.replica_balance = 0;
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	bu_print(t, a, (uint32_t)n);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_BLOCKED_CAPS);
	ck_assert_uint_eq(info.detail, 0);
	ck_assert_uint_eq(info.blocked, 2); /* the stream, and the totals (the same counts) */
	tl_free(t);
}
END_TEST

Suite *suite(void);
Suite *suite(void)
{
	Suite *s = suite_create("broker_search");
	TCase *c = tcase_create("ladder");
	tcase_add_test(c, a_first_search_that_moves_fills_or_waits_sees_no_fallback);
	tcase_add_test(c, the_fallbacks_come_in_order_each_once_where_the_scope_allows_them);
	tcase_add_test(c, the_ladder_stops_at_the_first_fallback_that_moves_fills_or_waits);
	tcase_add_test(c, a_relay_is_the_last_resort_and_the_first_block_is_reported);
	tcase_add_test(c, the_next_source_is_tried_when_the_first_has_no_move);
	tcase_add_test(c, a_source_or_destination_at_its_move_limit_gives_way_to_the_next);
	tcase_add_test(c, a_relay_when_no_direct_move_is_allowed_then_the_move_it_prepared);
	tcase_add_test(c, a_scope_with_no_move_and_no_relay_is_reported_blocked);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
