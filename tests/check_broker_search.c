/* check_broker_search.c - what both rebalancing passes share beyond the
 * scope (broker_search.c): the destination list a search starts from (empty,
 * at most max members, the best per zone with per_zone), the sources in rank
 * order (the most over first, ties on the count per weight, then the
 * smaller id; each once), the ladder of fallbacks (first search, wide,
 * spread, even for replicas, relay; each once, and none after a move or a
 * wait), and the drivers (a scope's moves until it wants none, stopping at
 * max_moves, a full output or a blocked scope; the cluster scope waiting
 * for the streams). The ladder and the drivers are driven through
 * broker_int.h with scripted searches; what a user sees of them (the next
 * source or destination when the first is refused by zones or a move
 * limit, a relay when no direct move is allowed, the statuses, the cluster
 * pass waiting for the streams) through pl_broker_plan and
 * pl_broker_dry_run. */
#include <stdlib.h>

#include "broker_util.h"
#include "broker_int.h"

/* A call's state for the functions tested here: the view, the config, the
 * budget, no output, no per-member limits, nothing noted yet (as
 * pl_broker_plan() starts one, but limit_member, which a wait on max_moves
 * must set to PL_NONE, holds a value it would not). */
static pl__bk bk_call(pl_view *v, const pl_broker_config *cfg, uint32_t budget)
{
	pl__bk b;
	memset(&b, 0, sizeof b);
	b.v = v;
	b.cfg = cfg;
	b.budget = budget;
	b.stalled_shard = b.block_scope = b.drain_shard = PL_NONE;
	b.limit_member = 12345;
	return b;
}

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

static pl__scope scope(int over, int under)
{
	pl__scope sc;
	memset(&sc, 0, sizeof sc);
	sc.s = PL_NONE;
	sc.over = over;
	sc.under = under;
	return sc;
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

#define MV PL__BK_MOVED
#define FU PL__BK_FULL
#define WT PL__BK_WAIT
#define CA PL__BK_BLOCK_CAPS
#define ZO PL__BK_BLOCK_ZONES
#define SE PL__BK_SETTLED

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

/* ---- the drivers, scripted --------------------------------------------------- */

/* The scope a scripted fill reports: wanting a move while `wants` moves are
 * left; each scripted move makes one (spending the budget) or returns
 * move_rc once they are done. */
static int wants, move_rc, moves_made, fills;
static uint32_t filled_for;

static void scripted_fill(const pl__bk *b, uint32_t s, pl__scope *sc)
{
	(void)b;
	fills++;
	filled_for = s;
	*sc = scope(wants > 0, 0);
	sc->s = s;
}

static int scripted_move(pl__bk *b, const pl__scope *sc)
{
	ck_assert_int_gt(wants, 0); /* never called on a scope that wants nothing */
	ck_assert_uint_eq(sc->s, filled_for);
	if (move_rc != MV)
		return move_rc;
	b->budget--;
	wants--;
	moves_made++;
	return MV;
}

static void drive_script(int w, int rc)
{
	wants = w;
	move_rc = rc;
	moves_made = fills = 0;
}

START_TEST(a_driver_makes_a_scopes_moves_until_it_wants_none)
{
	pl_broker_config cfg = bu_cfg();
	pl__bk b = bk_call(NULL, &cfg, 10);
	int held = 0;
	drive_script(0, MV);
	ck_assert_int_eq(pl__bk_drive(&b, 3, scripted_fill, scripted_move, &held), 0);
	ck_assert_int_eq(held, 0);
	ck_assert_int_eq(moves_made, 0);
	drive_script(4, MV);
	ck_assert_int_eq(pl__bk_drive(&b, 3, scripted_fill, scripted_move, &held), 0);
	ck_assert_int_eq(moves_made, 4);
	ck_assert_int_eq(fills, 5); /* filled again after every move */
	ck_assert_int_eq(held, 1);
	ck_assert_uint_eq(b.budget, 6);
	ck_assert_uint_eq(b.want_limit + b.want_flight + b.blocked, 0);
}
END_TEST

START_TEST(a_driver_stops_the_pass_when_the_budget_is_spent)
{
	pl_broker_config cfg = bu_cfg();
	pl__bk b = bk_call(NULL, &cfg, 2);
	int held = 0;
	drive_script(5, MV);
	ck_assert_int_eq(pl__bk_drive(&b, 1, scripted_fill, scripted_move, &held), 1);
	ck_assert_int_eq(moves_made, 2);
	ck_assert_int_eq(held, 1);
	ck_assert_uint_eq(b.want_limit, 1);
	ck_assert_uint_eq(b.limit_member, PL_NONE); /* max_moves, not a member's limit */
	/* No budget at all: no search, the wait noted. */
	b = bk_call(NULL, &cfg, 0);
	held = 0;
	drive_script(1, MV);
	ck_assert_int_eq(pl__bk_drive(&b, 1, scripted_fill, scripted_move, &held), 1);
	ck_assert_int_eq(moves_made, 0);
	ck_assert_int_eq(held, 0);
	ck_assert_uint_eq(b.want_limit, 1);
	/* A scope that wants nothing does not wait on the budget. */
	b = bk_call(NULL, &cfg, 0);
	drive_script(0, MV);
	ck_assert_int_eq(pl__bk_drive(&b, 1, scripted_fill, scripted_move, &held), 0);
	ck_assert_uint_eq(b.want_limit, 0);
}
END_TEST

START_TEST(a_driver_stops_the_pass_on_a_full_output_and_the_scope_on_a_wait)
{
	pl_broker_config cfg = bu_cfg();
	pl__bk b = bk_call(NULL, &cfg, 5);
	int held = 0;
	drive_script(3, FU);
	ck_assert_int_eq(pl__bk_drive(&b, 0, scripted_fill, scripted_move, &held), 1);
	ck_assert_int_eq(held, 0);
	ck_assert_uint_eq(b.blocked, 0);
	/* A wait ends the scope, not the pass, and holds the cluster. */
	drive_script(3, WT);
	ck_assert_int_eq(pl__bk_drive(&b, 0, scripted_fill, scripted_move, &held), 0);
	ck_assert_int_eq(fills, 1);
	ck_assert_int_eq(held, 1);
	ck_assert_uint_eq(b.blocked, 0);
}
END_TEST

START_TEST(a_blocked_scope_is_noted_and_holds_nothing_up)
{
	pl_broker_config cfg = bu_cfg();
	pl__bk b = bk_call(NULL, &cfg, 5);
	int held = 0;
	drive_script(2, ZO);
	ck_assert_int_eq(pl__bk_drive(&b, 7, scripted_fill, scripted_move, &held), 0);
	ck_assert_int_eq(held, 0);
	ck_assert_uint_eq(b.block_zones, 1);
	ck_assert_uint_eq(b.block_scope, 7);
	drive_script(2, CA);
	ck_assert_int_eq(pl__bk_drive(&b, 9, scripted_fill, scripted_move, &held), 0);
	ck_assert_uint_eq(b.block_caps, 1);
	ck_assert_uint_eq(b.block_scope, 7); /* the first blocked scope */
	ck_assert_uint_eq(b.blocked, 2);
	/* Settled (balanced as far as the rules allow): nothing noted. */
	drive_script(2, SE);
	ck_assert_int_eq(pl__bk_drive(&b, 11, scripted_fill, scripted_move, &held), 0);
	ck_assert_uint_eq(b.blocked, 2);
	ck_assert_int_eq(held, 0);
	ck_assert_uint_eq(b.want_limit + b.want_flight, 0);
	/* And the cluster runs after them. */
	drive_script(1, MV);
	ck_assert_int_eq(pl__bk_drive_cluster(&b, held, scripted_fill, scripted_move), 1);
	ck_assert_int_eq(moves_made, 1);
	ck_assert_uint_eq(filled_for, PL_NONE);
}
END_TEST

START_TEST(the_cluster_waits_for_the_streams_moves)
{
	pl_broker_config cfg = bu_cfg();
	pl__bk b = bk_call(NULL, &cfg, 5);
	/* Held: the cluster scope makes no move; IN_FLIGHT when it wants one. */
	drive_script(2, MV);
	ck_assert_int_eq(pl__bk_drive_cluster(&b, 1, scripted_fill, scripted_move), 1);
	ck_assert_int_eq(moves_made, 0);
	ck_assert_uint_eq(b.want_flight, 1);
	ck_assert_uint_eq(filled_for, PL_NONE);
	b = bk_call(NULL, &cfg, 5);
	drive_script(0, MV);
	ck_assert_int_eq(pl__bk_drive_cluster(&b, 1, scripted_fill, scripted_move), 1);
	ck_assert_uint_eq(b.want_flight, 0);
	/* Not held: its moves, 1 when it made one or waits, 0 when settled. */
	b = bk_call(NULL, &cfg, 5);
	drive_script(2, MV);
	ck_assert_int_eq(pl__bk_drive_cluster(&b, 0, scripted_fill, scripted_move), 1);
	ck_assert_int_eq(moves_made, 2);
	drive_script(1, WT);
	ck_assert_int_eq(pl__bk_drive_cluster(&b, 0, scripted_fill, scripted_move), 1);
	drive_script(1, SE);
	ck_assert_int_eq(pl__bk_drive_cluster(&b, 0, scripted_fill, scripted_move), 0);
	drive_script(0, MV);
	ck_assert_int_eq(pl__bk_drive_cluster(&b, 0, scripted_fill, scripted_move), 0);
	b = bk_call(NULL, &cfg, 1);
	drive_script(3, MV);
	ck_assert_int_eq(pl__bk_drive_cluster(&b, 0, scripted_fill, scripted_move), 1);
	ck_assert_uint_eq(b.want_limit, 1);
}
END_TEST

/* ---- sources in rank order, destination lists: a model ------------------------ */

static int id_before(const tl *t, uint32_t a, uint32_t b)
{
	const pl_bytes *x = &t->m[a].id, *y = &t->m[b].id;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->ptr, y->ptr, n);
	return c ? c < 0 : x->len < y->len;
}

/* What a scope breaks ties on: leaders in total (the cluster of leaders),
 * the projected totals (a stream of leaders, after pl__bk_project()),
 * replicas in total (a scope of replicas). */
static uint64_t tie_count(const pl_view *v, const pl__scope *sc, uint32_t m)
{
	if (sc->rep)
		return tl_member_tally(v, m).replicas;
	if (sc->s != PL_NONE)
		return (uint64_t)(v->m_scratch[m] & (PL__BK_MARK - 1));
	return tl_member_tally(v, m).leaders;
}

/* Does member a (key ka) rank before b (key kb): the larger key, then
 * (sources) the most or (destinations) the fewest of tie_count() per
 * weight, then the smaller id? */
static int ranks_before(const tl *t, const pl_view *v, const pl__scope *sc, int source, uint32_t ka, uint32_t a,
			uint32_t kb, uint32_t b)
{
	if (ka != kb)
		return ka > kb;
	uint32_t wa = t->m[a].weight ? t->m[a].weight : 1, wb = t->m[b].weight ? t->m[b].weight : 1;
	uint64_t l = tie_count(v, sc, a) * wb, r = tie_count(v, sc, b) * wa;
	if (l != r)
		return source ? l > r : l < r;
	return id_before(t, a, b);
}

/* The members with their keys, sorted by rank (insertion sort). */
static uint32_t ranked(const tl *t, const pl_view *v, const pl__scope *sc, int source, uint32_t *m, uint32_t *key)
{
	uint32_t n = 0;
	for (uint32_t x = 0; x < t->nm; x++) {
		uint32_t k;
		if (!bu_eligible(t, x))
			continue;
		if (!(source ? pl__bk_source_key(v, sc, x, &k) : pl__bk_dest_key(v, sc, x, &k)))
			continue;
		uint32_t i = n++;
		while (i > 0 && ranks_before(t, v, sc, source, k, x, key[i - 1], m[i - 1])) {
			m[i] = m[i - 1];
			key[i] = key[i - 1];
			i--;
		}
		m[i] = x;
		key[i] = k;
	}
	return n;
}

/* One of the four scopes: a stream's or the cluster's, of leaders or of
 * replicas, at a level. */
static pl__scope some_scope(pl__bk *b, const tl *t, uint64_t *rng)
{
	pl__scope sc;
	uint32_t rep = tl_below(rng, 2), s = t->ns ? tl_below(rng, t->ns + 1) : 0;
	if (s == t->ns || t->ns == 0) {
		if (rep)
			pl__bk_rscope_cluster(b, &sc);
		else
			pl__bk_scope_cluster(b, &sc);
	} else if (rep) {
		pl__bk_rscope_stream(b, s, &sc);
	} else {
		pl__bk_project(b);
		pl__bk_scope_stream(b, s, &sc);
	}
	sc.level = (int)tl_below(rng, rep ? 4 : 3);
	return sc;
}

/* Random layouts, some weights, caps, a draining or a down member. */
static tl *weighted_layout(uint64_t *rng)
{
	uint32_t nm = 2 + tl_below(rng, 9);
	tl *t = tl_random(rng, nm, tl_below(rng, 4), tl_below(rng, 60), 1 + tl_below(rng, 3), tl_below(rng, 2));
	for (uint32_t m = 0; m < nm; m++) {
		if (tl_below(rng, 3) == 0)
			t->m[m].weight = 1 + tl_below(rng, 4);
		if (tl_below(rng, 4) == 0)
			t->m[m].max_shards = tl_below(rng, 12);
	}
	if (nm > 2 && tl_below(rng, 3) == 0)
		t->m[tl_below(rng, nm)].flags = tl_below(rng, 2) ? PL_MEMBER_DRAINING : PL_MEMBER_DOWN;
	return t;
}

static pl__bk bk_of(pl_view *v, const pl_broker_config *cfg)
{
	pl__bk b = bk_call(v, cfg, cfg->max_moves);
	for (uint32_t e = 0; e < v->n_elig; e++)
		if (v->m_weight[v->elig[e]] > b.w_max)
			b.w_max = v->m_weight[v->elig[e]];
	for (uint32_t m = 0; m < v->nm; m++)
		b.rep_total += v->m_replicas[m];
	return b;
}

START_TEST(sources_come_the_most_over_first_ties_to_the_most_per_weight_then_the_smaller_id)
{
	/* The cluster of leaders: 17 on 5 members, floor 3, ceiling 4. b1 and
	 * b3 lead 6 (2 over), b4 5, b0 and b2 0: b1, b3, b4, then none. */
	tl *t = bu_new(5, NULL);
	static const uint32_t c[] = {0, 6, 0, 6, 5};
	bu_stream(t, "a", c, 5, 1);
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl__bk b = bk_of(v, &cfg);
	pl__scope sc;
	pl__bk_scope_cluster(&b, &sc);
	uint32_t k, m = pl__bk_next_source(v, &sc, PL_NONE, 0, &k);
	ck_assert_uint_eq(m, 1);
	ck_assert_uint_eq(k, 2);
	m = pl__bk_next_source(v, &sc, m, k, &k);
	ck_assert_uint_eq(m, 3);
	ck_assert_uint_eq(k, 2);
	m = pl__bk_next_source(v, &sc, m, k, &k);
	ck_assert_uint_eq(m, 4);
	ck_assert_uint_eq(k, 1);
	ck_assert_uint_eq(pl__bk_next_source(v, &sc, m, k, &k), PL_NONE);
	tl_free(t);
	/* Weighted: 20 on weights 1, 2, 1, 1; b1 and b3 both 2 over their
	 * ceilings (b1 10 over 8, b3 6 over 4): b1 leads fewer per weight (5
	 * to 6) and comes second. */
	t = bu_new(4, NULL);
	t->m[1].weight = 2;
	static const uint32_t w[] = {2, 10, 2, 6};
	bu_stream(t, "a", w, 4, 1);
	v = tl_view(t, 0);
	b = bk_of(v, &cfg);
	pl__bk_scope_cluster(&b, &sc);
	uint32_t fl, ce;
	pl__bk_bounds(v, &sc, 1, &fl, &ce);
	ck_assert_uint_eq(ce, 8);
	pl__bk_bounds(v, &sc, 3, &fl, &ce);
	ck_assert_uint_eq(ce, 4);
	m = pl__bk_next_source(v, &sc, PL_NONE, 0, &k);
	ck_assert_uint_eq(m, 3);
	ck_assert_uint_eq(pl__bk_next_source(v, &sc, m, k, &k), 1);
	tl_free(t);
}
END_TEST

START_TEST(property_sources_come_in_rank_order_each_once)
{
	uint64_t seed0 = tl_seed(0x5ea4c4u);
	uint32_t iters = tl_iters(400), walked = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		tl *t = weighted_layout(&rng);
		pl_view *v = tl_view(t, 0);
		pl_broker_config cfg = bu_cfg();
		pl__bk b = bk_of(v, &cfg);
		pl__scope sc = some_scope(&b, t, &rng);
		uint32_t want[64], wkey[64];
		uint32_t n = ranked(t, v, &sc, 1, want, wkey);
		uint32_t prev = PL_NONE, kprev = 0, i = 0;
		for (;;) {
			uint32_t k = 0xdead, m = pl__bk_next_source(v, &sc, prev, kprev, &k);
			if (m == PL_NONE)
				break;
			ck_assert_msg(i < n && m == want[i] && k == wkey[i],
				      "seed %llu (PL_TEST_SEED=%llu PL_TEST_ITERS=1): source %u is m%02u key %u, want m%02u key %u",
				      (unsigned long long)seed, (unsigned long long)seed, i, m, k, i < n ? want[i] : PL_NONE,
				      i < n ? wkey[i] : 0);
			prev = m;
			kprev = k;
			i++;
		}
		ck_assert_msg(i == n, "seed %llu: %u sources walked, want %u", (unsigned long long)seed, i, n);
		walked += n;
		tl_free(t);
	}
	ck_assert_uint_gt(walked, iters); /* the layouts have sources to walk */
}
END_TEST

START_TEST(a_destination_list_is_filled_afresh_in_rank_order_within_its_limits)
{
	/* Leaders: b0 9, b1..b6 hold 0, 1, 1, 2, 0, 3 (16 on 7: floor 2,
	 * ceiling 3); zones za: b1 b2, zb: b3 b4, zc: b5 b6, b0 alone. b5 is
	 * at its cap. Destinations under the floor: b1, b5 (0: b1 first, the
	 * smaller id; b5 has no room), b2, b3 (1), b4 (2 is not under). */
	static const char *const zones[] = {"zx", "za", "za", "zb", "zb", "zc", "zc"};
	tl *t = bu_new(7, zones);
	static const uint32_t c[] = {9, 0, 1, 1, 2, 0, 3};
	bu_stream(t, "a", c, 7, 1);
	t->m[5].max_shards = 1;
	tl_shard(t, "pad", PL_NONE, 5, 1, 5u);
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	pl__bk b = bk_of(v, &cfg);
	pl__scope sc;
	pl__bk_scope_cluster(&b, &sc);
	pl__dlist l;
	memset(&l, 0xff, sizeof l); /* filled afresh, whatever it held */
	pl__seen w = {0, 0, 0, 0, PL_NONE, 0};
	pl__bk_dlist_fill(&b, &sc, &l, PL_BROKER_SEARCH, 0, &w);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_uint_eq(l.m[0], 1);
	ck_assert_uint_eq(l.m[1], 2);
	ck_assert_uint_eq(l.m[2], 3);
	ck_assert_uint_eq(l.key[0], 2);
	ck_assert_uint_eq(l.key[1], 1);
	ck_assert_int_eq(w.caps, 1); /* b5, passed over for its cap */
	/* At most max: the best two. */
	memset(&w, 0, sizeof w);
	pl__bk_dlist_fill(&b, &sc, &l, 2, 0, &w);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_uint_eq(l.m[0], 1);
	ck_assert_uint_eq(l.m[1], 2);
	/* Per zone: b1 for za, b3 for zb; zc's only destination has no room. */
	pl__bk_dlist_fill(&b, &sc, &l, PL_MAX_REPLICAS, 1, &w);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_uint_eq(l.m[0], 1);
	ck_assert_uint_eq(l.m[1], 3);
	pl__bk_dlist_fill(&b, &sc, &l, 1, 1, &w);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_uint_eq(l.m[0], 1);
	tl_free(t);
}
END_TEST

START_TEST(property_a_destination_list_holds_the_best_with_room_per_zone_within_max)
{
	uint64_t seed0 = tl_seed(0xd1157u);
	uint32_t iters = tl_iters(400), listed = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		tl *t = weighted_layout(&rng);
		pl_view *v = tl_view(t, 0);
		pl_broker_config cfg = bu_cfg();
		pl__bk b = bk_of(v, &cfg);
		pl__scope sc = some_scope(&b, t, &rng);
		uint32_t max = 1 + tl_below(&rng, tl_below(&rng, 2) ? PL_MAX_REPLICAS : PL_BROKER_SEARCH);
		uint32_t per_zone = tl_below(&rng, 2);
		uint32_t all[64], akey[64], want[64], wkey[64], n = 0;
		uint32_t na = ranked(t, v, &sc, 0, all, akey);
		int caps = 0;
		for (uint32_t i = 0; i < na; i++) {
			uint32_t m = all[i], cap = t->m[m].max_shards;
			if (cap && tl_member_tally(v, m).replicas >= cap) {
				caps = 1;
				continue;
			}
			int dup = 0;
			for (uint32_t j = 0; j < n && per_zone; j++)
				dup |= bu_same_zone(t, want[j], m);
			if (dup || n == max)
				continue;
			want[n] = m;
			wkey[n++] = akey[i];
		}
		pl__dlist l;
		memset(&l, 0xa5, sizeof l);
		pl__seen w = {0, 0, 0, 0, PL_NONE, 0};
		pl__bk_dlist_fill(&b, &sc, &l, max, per_zone, &w);
		ck_assert_msg(l.n == n, "seed %llu (PL_TEST_SEED=%llu PL_TEST_ITERS=1): %u listed, want %u (max %u, per zone %u)",
			      (unsigned long long)seed, (unsigned long long)seed, l.n, n, max, per_zone);
		for (uint32_t i = 0; i < n; i++)
			ck_assert_msg(l.m[i] == want[i] && l.key[i] == wkey[i], "seed %llu: place %u holds m%02u, want m%02u",
				      (unsigned long long)seed, i, l.m[i], want[i]);
		ck_assert_msg(l.max == max && l.per_zone == per_zone, "seed %llu: limits not kept", (unsigned long long)seed);
		ck_assert_msg(w.caps == caps, "seed %llu: caps seen %d, want %d", (unsigned long long)seed, w.caps, caps);
		listed += n;
		tl_free(t);
	}
	ck_assert_uint_gt(listed, iters);
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

/* Stream a led 6/0/0, RF 1, on three members: four moves to 2/2/2. */
static tl *six_on_b0(void)
{
	tl *t = bu_new(3, NULL);
	static const uint32_t c[] = {6, 0, 0};
	bu_stream(t, "a", c, 3, 1);
	return t;
}

START_TEST(the_drivers_stop_at_max_moves_with_a_move_wanted)
{
	tl *t = six_on_b0();
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 3;
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 3);
	for (int i = 0; i < n; i++)
		ck_assert_uint_eq(a[i].reason, PL_REASON_STREAM_SKEW);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	ck_assert_uint_eq(info.detail, PL_NONE);
	ck_assert_uint_eq(info.wanted, 4);
	/* Enough moves: all four in one tick, then the totals wait for them. */
	tl_free(t);
	t = six_on_b0();
	tl_view(t, 0);
	cfg.max_moves = 8;
	a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 4);
	ck_assert_uint_ne(info.status, PL_STATUS_MOVE_LIMIT);
	tl_free(t);
}
END_TEST

START_TEST(the_drivers_stop_at_a_full_output)
{
	tl *t = six_on_b0();
	pl_view *v = tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 8;
	pl_action out[2];
	pl_plan_info info;
	int n = pl_broker_plan(v, &cfg, out, 2, &info, NULL);
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(info.status, PL_STATUS_FULL);
	ck_assert_uint_eq(info.wanted, 3);
	ck_assert_uint_eq(bu_lead(v, 0, 0), 4); /* the view holds the two written */
	tl_free(t);
}
END_TEST

START_TEST(a_blocked_stream_does_not_hold_the_totals_up)
{
	/* Stream a: b0 leads 3 (RF 1), b1 and b2 at their caps: blocked by caps.
	 * The totals (b0 6, b1 0, b2 1) want a move, and b0's shards of no
	 * stream have b1 as a follower: the cluster pass hands one over in the
	 * same tick. */
	tl *t = bu_new(3, NULL);
	static const uint32_t c[] = {3, 0, 0};
	uint32_t s = bu_stream(t, "a", c, 3, 1);
	for (uint32_t i = 0; i < 3; i++)
		tl_shard(t, tl_str(t, "x/%02u", i), PL_NONE, 0, 2, 0u, 1u);
	tl_shard(t, "p", PL_NONE, 2, 1, 2u);
	t->m[1].max_shards = 3;
	t->m[2].max_shards = 1;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.replica_balance = 0;
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	bu_print(t, a, (uint32_t)n);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].reason, PL_REASON_CLUSTER_SKEW);
	ck_assert_uint_eq(a[0].from, 0);
	ck_assert_uint_eq(a[0].to, 1);
	ck_assert_uint_eq(a[0].flags, 0); /* to the follower: no copy */
	ck_assert_uint_ge(info.blocked, 1);
	/* The whole run ends with the stream still named as blocked. */
	pl_view_settle(t->view);
	uint32_t k;
	pl_action *all = bu_dry_shown(t, &cfg, &k, &info, NULL);
	ck_assert_uint_eq(info.status, PL_STATUS_BLOCKED_CAPS);
	ck_assert_uint_eq(info.detail, s);
	free(all);
	tl_free(t);
}
END_TEST

/* ---- properties through the public header ------------------------------------ */

/* Ticks on random layouts (equal weights, zones, caps, a draining member,
 * up to 8 moves a tick), each settled before the next: no tick that makes a
 * stream move makes a cluster move of the same kind (leaders, replicas),
 * since the cluster waits for the streams; and no cluster leader move
 * widens any stream's spread. */
START_TEST(property_the_cluster_moves_only_after_the_streams_and_keeps_them_as_even)
{
	uint64_t seed0 = tl_seed(0xc1a55u);
	uint32_t iters = tl_iters(250), cluster_moves = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		uint32_t nm = 3 + tl_below(&rng, 6);
		tl *t = tl_random(&rng, nm, 1 + tl_below(&rng, 4), 6 + tl_below(&rng, 60), 1 + tl_below(&rng, 3),
				  tl_below(&rng, 2));
		for (uint32_t m = 0; m < nm; m++)
			if (tl_below(&rng, 5) == 0)
				t->m[m].max_shards = 4 + tl_below(&rng, 20);
		if (tl_below(&rng, 4) == 0)
			t->m[tl_below(&rng, nm)].flags = PL_MEMBER_DRAINING;
		pl_broker_config cfg = bu_cfg();
		cfg.max_moves = 1 + tl_below(&rng, 8);
		cfg.replica_balance = tl_below(&rng, 3) != 0;
		pl_view *v = tl_view(t, 0);
		void *mem;
		pl_view *shadow = tl_view_fresh(t, &mem);
		for (uint32_t tick = 0; tick < 60; tick++) {
			int n;
			pl_plan_info info;
			pl_action *a = bu_plan(t, &cfg, &n, &info);
			if (n == 0)
				break;
			int lead_stream = 0, rep_stream = 0;
			for (int i = 0; i < n; i++) {
				uint32_t r = a[i].reason;
				lead_stream |= r == PL_REASON_STREAM_SKEW;
				rep_stream |= r == PL_REASON_REPLICA_STREAM_SKEW;
				if (r == PL_REASON_CLUSTER_SKEW || r == PL_REASON_REPLICA_CLUSTER_SKEW) {
					int stream_first = r == PL_REASON_CLUSTER_SKEW ? lead_stream : rep_stream;
					ck_assert_msg(!stream_first,
						      "seed %llu (PL_TEST_SEED=%llu PL_TEST_ITERS=1) tick %u: a cluster move (%s) after a stream move",
						      (unsigned long long)seed, (unsigned long long)seed, tick, tl_say(t, &a[i]));
				}
				uint32_t before[16];
				for (uint32_t s = 0; s < t->ns && s < 16; s++)
					before[s] = bu_spread(t, shadow, s);
				tl_apply(shadow, &a[i], 1);
				if (r != PL_REASON_CLUSTER_SKEW)
					continue;
				cluster_moves++;
				for (uint32_t s = 0; s < t->ns && s < 16; s++)
					ck_assert_msg(bu_spread(t, shadow, s) <= before[s],
						      "seed %llu (PL_TEST_SEED=%llu PL_TEST_ITERS=1) tick %u: %s widens stream %u from %u to %u",
						      (unsigned long long)seed, (unsigned long long)seed, tick, tl_say(t, &a[i]), s,
						      before[s], bu_spread(t, shadow, s));
			}
			pl_view_settle(v);
			pl_view_settle(shadow);
		}
		free(mem);
		tl_free(t);
	}
	/* The cluster pass had moves to make: a reach check, on a full run only
	 * (the streams' moves serve the totals, so a few layouts may need none). */
	if (iters >= 100)
		ck_assert_uint_gt(cluster_moves, iters / 10);
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
	c = tcase_create("drivers");
	tcase_add_test(c, a_driver_makes_a_scopes_moves_until_it_wants_none);
	tcase_add_test(c, a_driver_stops_the_pass_when_the_budget_is_spent);
	tcase_add_test(c, a_driver_stops_the_pass_on_a_full_output_and_the_scope_on_a_wait);
	tcase_add_test(c, a_blocked_scope_is_noted_and_holds_nothing_up);
	tcase_add_test(c, the_cluster_waits_for_the_streams_moves);
	tcase_add_test(c, the_drivers_stop_at_max_moves_with_a_move_wanted);
	tcase_add_test(c, the_drivers_stop_at_a_full_output);
	tcase_add_test(c, a_blocked_stream_does_not_hold_the_totals_up);
	suite_add_tcase(s, c);
	c = tcase_create("lists");
	tcase_add_test(c, sources_come_the_most_over_first_ties_to_the_most_per_weight_then_the_smaller_id);
	tcase_add_test(c, a_destination_list_is_filled_afresh_in_rank_order_within_its_limits);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 60);
	tcase_add_test(c, property_sources_come_in_rank_order_each_once);
	tcase_add_test(c, property_a_destination_list_holds_the_best_with_room_per_zone_within_max);
	tcase_add_test(c, property_the_cluster_moves_only_after_the_streams_and_keeps_them_as_even);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
