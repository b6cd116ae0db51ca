/* check_tally_cells.c - the per-stream leader cells (tally.c): 6 bytes that
 * hold every member index and leader count the limits allow, kept sorted by
 * member as actions insert and remove them. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/view_build.h"
#include "testutil.h"
#include "view_answers.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Stream s's live cells against a count of its shards' leaders from their
 * states: the same (member, leaders) pairs in member order, within the
 * stream's room, each read through pl__cell_get() and
 * pl_view_stream_tally() too. (Check records every assertion that passes:
 * the loops abort on a failure instead.) */
static void expect_cells(const tl *t, const pl_view *v, uint32_t s)
{
	uint32_t *lead = malloc(((size_t)t->nk + 1) * sizeof *lead), n = 0;
	ck_assert_ptr_nonnull(lead);
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state st;
		if (pl_view_shard_state(v, k, &st) != 0)
			ck_abort_msg("shard %u: no state", k);
		if (t->k[k].stream == s && st.leader != PL_NONE)
			lead[n++] = st.leader;
	}
	qsort(lead, n, sizeof *lead, cmp_u32);
	const pl__cell *c = v->cells + v->s_cell_first[s];
	uint32_t live = v->s_cell_count[s], i = 0;
	ck_assert_uint_le(v->s_cell_first[s] + live, v->s_cell_first[s + 1]);
	for (uint32_t j = 0, e; j < n; j = e, i++) {
		for (e = j; e < n && lead[e] == lead[j]; e++)
			;
		if (i >= live)
			ck_abort_msg("stream %u: %u cells for more leaders", s, live);
		if (pl__cell_member(c, i) != lead[j] || pl__cell_leaders(c, i) != e - j)
			ck_abort_msg("stream %u cell %u: member %u leads %u, the states say member %u leads %u", s, i,
				     pl__cell_member(c, i), pl__cell_leaders(c, i), lead[j], e - j);
		pl_tally x;
		if (pl__cell_get(v, s, lead[j]) != e - j || pl_view_stream_tally(v, s, lead[j], &x) != 0 ||
		    x.leaders != e - j)
			ck_abort_msg("stream %u member %u: the lookup misses its cell", s, lead[j]);
	}
	ck_assert_uint_eq(live, i);
	/* The stream's leaders on eligible members, which the view remembers for
	 * the stream last asked: asked again after every change, it must not be
	 * the remembered sum of before. */
	uint32_t elig = 0;
	for (uint32_t j = 0; j < n; j++)
		elig += pl__eligible(v, lead[j]) != 0;
	ck_assert_uint_eq(pl__cell_sum_elig(v, s), elig);
	free(lead);
}

/* Move the leadership of shard k to member to (a replica or not). */
static void lead_to(tl *t, pl_view *v, uint32_t k, uint32_t to)
{
	pl_shard_state st;
	ck_assert_int_eq(pl_view_shard_state(v, k, &st), 0);
	pl_action a = tl_action(PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW, k, t->k[k].stream, st.leader, to);
	ck_assert_int_eq(pl_view_apply(v, &a), 0);
}

/* A cell is 48 bits in three 16-bit halves, low first: the member in the
 * low 20 bits, the leaders in the 28 above, at their widest without
 * touching a neighbour. */
START_TEST(cell_packs_member_and_leaders)
{
	ck_assert_uint_eq(sizeof(pl__cell), 6);
	pl__cell c[3];
	pl__cell_set(c, 0, 0, 0);
	pl__cell_set(c, 1, PL_MAX_MEMBERS - 1, PL__CELL_LEADERS_MAX);
	pl__cell_set(c, 2, 0xabcde, 0x1234567);
	ck_assert_uint_eq(pl__cell_member(c, 0), 0);
	ck_assert_uint_eq(pl__cell_leaders(c, 0), 0);
	ck_assert_uint_eq(pl__cell_member(c, 1), PL_MAX_MEMBERS - 1);
	ck_assert_uint_eq(pl__cell_leaders(c, 1), (UINT32_C(1) << 28) - 1);
	ck_assert_uint_ge(PL__CELL_LEADERS_MAX, PL_MAX_SHARDS);
	ck_assert_uint_eq(pl__cell_member(c, 2), 0xabcde);
	ck_assert_uint_eq(pl__cell_leaders(c, 2), 0x1234567);
	/* the same bits on every platform: 0x1234567abcde */
	ck_assert_uint_eq(c[2].w[0], 0xbcde);
	ck_assert_uint_eq(c[2].w[1], 0x567a);
	ck_assert_uint_eq(c[2].w[2], 0x1234);
	pl__cell_set(c, 1, 1, 1);
	ck_assert_uint_eq(pl__cell_member(c, 1), 1);
	ck_assert_uint_eq(pl__cell_leaders(c, 1), 1);
	ck_assert_uint_eq(pl__cell_member(c, 0) | pl__cell_leaders(c, 0), 0);
	ck_assert_uint_eq(pl__cell_leaders(c, 2), 0x1234567);
}
END_TEST

/* 70,000 shards of one stream led by one member: counts past 16 bits,
 * kept by actions and read by the broker's stream pass. */
START_TEST(stream_leader_count_past_16_bits)
{
	enum { N = 70000 };
	tl *t = tl_new();
	tl_member(t, "a", NULL);
	tl_member(t, "b", NULL);
	tl_member(t, "c", NULL);
	tl_stream(t, "s");
	tl_stream(t, "t");
	tl_shard(t, "t/0", 1, 0, 1, 0u);
	for (uint32_t i = 0; i < N; i++) {
		uint32_t m = i == 0 ? 0u : i == 1 ? 2u : 1u;
		tl_shard(t, tl_str(t, "s/%05u", i), 0, m, 1, m);
	}
	tl_shard(t, "t/1", 1, 2, 1, 2u);
	pl_view *v = tl_view(t, 0);
	ck_assert_uint_eq(tl_stream_tally(v, 0, 1).leaders, N - 2);
	ck_assert_uint_eq(pl__cell_get(v, 0, 1), N - 2);
	for (uint32_t s = 0; s < 2; s++)
		expect_cells(t, v, s);
	lead_to(t, v, 3, 0);
	lead_to(t, v, 4, 2);
	ck_assert_uint_eq(tl_stream_tally(v, 0, 1).leaders, N - 4);
	for (uint32_t s = 0; s < 2; s++)
		expect_cells(t, v, s);
	ck_assert_int_eq(pl_view_settle(v), 2);
	/* The stream pass sees b far over its ceiling and moves one away. */
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	cfg.replica_balance = 0;
	pl_action out[1];
	pl_plan_info info;
	ck_assert_int_eq(pl_broker_plan(v, &cfg, out, 1, &info, NULL), 1);
	ck_assert_uint_eq(out[0].kind, PL_ACTION_MOVE_LEADER);
	ck_assert_uint_eq(out[0].reason, PL_REASON_STREAM_SKEW);
	ck_assert_uint_eq(out[0].from, 1);
	ck_assert_uint_eq(out[0].from_count, N - 4);
	ck_assert_uint_eq(tl_stream_tally(v, 0, 1).leaders, N - 5);
	for (uint32_t s = 0; s < 2; s++)
		expect_cells(t, v, s);
	tl_free(t);
}
END_TEST

/* PL_MAX_MEMBERS members: cells of member indices past 16 bits, sorted
 * when the view is built (a heap sort of a few, a bitmap read of many),
 * copied from a hint, and inserted and removed at both ends of a stream's
 * cells by actions. */
START_TEST(member_indices_past_16_bits)
{
	const uint32_t top = PL_MAX_MEMBERS - 1;
	tl *t = tl_new();
	/* ids "m0000000" on, 8 bytes each, in one buffer */
	char *ids = malloc((size_t)PL_MAX_MEMBERS * 8 + 1);
	ck_assert_ptr_nonnull(ids);
	for (uint32_t m = 0; m <= top; m++) {
		snprintf(ids + (size_t)m * 8, 9, "m%07u", m);
		tl_member(t, NULL, NULL);
		t->m[m].id.ptr = ids + (size_t)m * 8;
		t->m[m].id.len = 8;
	}
	tl_stream(t, "few");
	tl_stream(t, "many");
	tl_stream(t, "last");
	/* few: leaders in no order, 0 and top leading two each. */
	const uint32_t few[] = {65536, top, 5, 0, top - 1, 65535, 0, 1, 700001, top, 131071, 2};
	uint32_t nfew = (uint32_t)(sizeof few / sizeof few[0]);
	for (uint32_t i = 0; i < nfew; i++)
		tl_shard(t, tl_str(t, "few/%02u", i), 0, few[i], 1, few[i]);
	/* many: 5,000 members leading one each, top among them; enough for a
	 * read of the member bitmap (a word of it per 64 members). */
	for (uint32_t i = 0; i < 5000; i++) {
		uint32_t m = top - i * 209;
		tl_shard(t, tl_str(t, "many/%04u", i), 1, m, 1, m);
	}
	tl_shard(t, "last/0", 2, top, 1, top);
	pl_view *v = tl_view(t, 0);
	for (uint32_t s = 0; s < 3; s++)
		expect_cells(t, v, s);
	ck_assert_uint_eq(pl__cell_member(v->cells + v->s_cell_first[0], v->s_cell_count[0] - 1), top);
	ck_assert_uint_eq(pl__cell_get(v, 0, top), 2);

	/* A view built with this one as a hint copies its cells. */
	size_t size = pl_view_size(tl_snap(t));
	void *mem = malloc(size);
	ck_assert_ptr_nonnull(mem);
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	opt.reuse = v;
	pl_view *w;
	ck_assert_int_eq(pl_view_init(&w, mem, size, tl_snap(t), &opt, NULL), 0);
	ck_assert_uint_ne(w->reused & PL__REUSED_TALLIES, 0);
	for (uint32_t s = 0; s < 3; s++)
		expect_cells(t, w, s);
	free(mem);

	/* The last cell goes (top's two shards to member 5), comes back, then
	 * the first (member 0's two to top) goes and comes back. */
	uint32_t k_top[2], k_zero[2], nt = 0, nz = 0;
	for (uint32_t i = 0; i < nfew; i++) {
		if (few[i] == top)
			k_top[nt++] = i;
		if (few[i] == 0)
			k_zero[nz++] = i;
	}
	const struct {
		uint32_t k, to, first, last;
	} step[] = {
		{k_top[0], 5, 0, top},     {k_top[1], 5, 0, top - 1}, {k_top[0], top, 0, top},
		{k_zero[0], top, 0, top},  {k_zero[1], top, 1, top},  {k_zero[0], 0, 0, top},
	};
	for (size_t i = 0; i < sizeof step / sizeof step[0]; i++) {
		lead_to(t, v, step[i].k, step[i].to);
		const pl__cell *c = v->cells + v->s_cell_first[0];
		ck_assert_msg(pl__cell_member(c, 0) == step[i].first, "step %zu: first cell member %u", i,
			      pl__cell_member(c, 0));
		ck_assert_msg(pl__cell_member(c, v->s_cell_count[0] - 1) == step[i].last,
			      "step %zu: last cell member %u", i, pl__cell_member(c, v->s_cell_count[0] - 1));
		for (uint32_t s = 0; s < 3; s++)
			expect_cells(t, v, s);
	}
	tl_free(t);
	free(ids);
}
END_TEST

/* 91 shards on six members, RF 2, in three streams, and one in none;
 * `change` of them differ from the first build: stream 0's two shards hand
 * leadership to their other replica (its room of two cells full before and
 * after), then shards of stream 1 move a replica or lose their leader, then
 * shards of stream 2 move both replicas. With `joined`, a seventh member
 * comes at the end, the streamless shard and one of stream 1 move to it:
 * the rooms of the cells grow (stream 1 has more shards than members, and
 * seven leaders now) and so do the
 * per-stream rows of replica counts (kept: 7 members x 3 streams is at
 * most a quarter of the shards). */
static void layout(tl *t, uint32_t change, int joined)
{
	for (int m = 0; m < 6 + joined; m++)
		tl_member(t, tl_str(t, "m%d", m), NULL);
	tl_stream(t, "two");
	tl_stream(t, "eight");
	tl_stream(t, "many");
	uint32_t c = 0;
	tl_shard(t, "two/0", 0, c < change ? 2 : 0, 2, 0, 2);
	c++;
	tl_shard(t, "two/1", 0, c < change ? 3 : 1, 2, 1, 3);
	c++;
	for (uint32_t i = 0; i < 8; i++, c++) {
		uint32_t a = i % 6, b = (i + 1) % 6;
		if (joined && i == 7) /* a seventh leader in the stream: past its room of before */
			tl_shard(t, tl_str(t, "eight/%u", i), 1, 6, 2, 6, 0);
		else if (c >= change)
			tl_shard(t, tl_str(t, "eight/%u", i), 1, a, 2, a, b);
		else if (i % 2)
			tl_shard(t, tl_str(t, "eight/%u", i), 1, PL_NONE, 2, a, b);
		else
			tl_shard(t, tl_str(t, "eight/%u", i), 1, a, 2, a, (i + 3) % 6);
	}
	for (uint32_t i = 0; i < 80; i++, c++) {
		uint32_t a = (i + (c < change ? 2 : 0)) % 6;
		tl_shard(t, tl_str(t, "many/%02u", i), 2, a, 2, a, (a + 1) % 6);
	}
	if (joined)
		tl_shard(t, "none/0", PL_NONE, 6, 2, 5, 6);
	else
		tl_shard(t, "none/0", PL_NONE, 5, 2, 5, 0);
}

/* A hint whose shards differ from the new snapshot's in a few leaders and
 * replicas, or that has fewer members (joined at the end), or to which
 * actions were applied (its tallies count them), lends its tallies and
 * cells, with those shards taken off as they were (in the hint) and added
 * as they are; past a quarter of the shards, it does not. Either way every
 * answer is a fresh build's. */
START_TEST(hint_tallies_take_the_changed_shards_alone)
{
	/* acted: actions applied to the hint before (1), and then settled (2):
	 * a hand-off, a replica moved, one added, a leader copied. */
	const struct {
		uint32_t change;
		int joined, acted;
	} c[] = {{1, 0, 0},  {2, 0, 0},	 {3, 0, 0},  {6, 0, 0},  {22, 0, 0}, {23, 0, 0}, {40, 0, 0},
		 {0, 1, 0},  {2, 1, 0},	 {12, 1, 0}, {21, 1, 0}, {22, 1, 0}, {0, 0, 1},  {0, 0, 2},
		 {12, 0, 1}, {12, 1, 2}, {19, 0, 1}, {20, 0, 2}, {40, 0, 1}};
	for (size_t x = 0; x < sizeof c / sizeof c[0]; x++) {
		tl *was = tl_new(), *now = tl_new();
		layout(was, 0, 0);
		layout(now, c[x].change, c[x].joined);
		ck_assert_uint_eq(now->nk / PL__DELTA_SHARE, 22);
		pl_view *hint = tl_view(was, 0);
		/* the shards acted on: 0 (two/0), and many/00 to many/02 (10 to 12) */
		const pl_action acts[] = {
			tl_action(PL_ACTION_SET_LEADER, PL_REASON_STREAM_SKEW, 0, 0, 0, 2),
			tl_action(PL_ACTION_MOVE_REPLICA, PL_REASON_REPLICA_STREAM_SKEW, 10, 2, 1, 4),
			tl_action(PL_ACTION_ADD_REPLICA, PL_REASON_REPLICA_STREAM_SKEW, 11, 2, PL_NONE, 5),
			tl_action(PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW, 12, 2, 2, 0),
		};
		for (size_t i = 0; c[x].acted && i < sizeof acts / sizeof acts[0]; i++)
			ck_assert_int_eq(pl_view_apply(hint, &acts[i]), 0);
		if (c[x].acted == 2)
			pl_view_settle(hint);
		void *mem, *fmem;
		pl_view *fresh = tl_view_fresh(now, &fmem);
		ck_assert(hint->rc_rows && fresh->rc_rows);
		size_t size = pl_view_size(tl_snap(now));
		mem = malloc(size);
		ck_assert_ptr_nonnull(mem);
		pl_view_options opt = PL_VIEW_OPTIONS_INIT;
		opt.reuse = hint;
		pl_view *w;
		ck_assert_int_eq(pl_view_init(&w, mem, size, tl_snap(now), &opt, NULL), 0);
		int lent = (w->reused & PL__REUSED_TALLIES) != 0;
		uint32_t changed = 0;
		for (uint32_t k = 0; k < now->nk; k++)
			changed += now->k[k].leader != was->k[k].leader ||
				   memcmp(now->k[k].replicas, was->k[k].replicas, sizeof now->k[k].replicas) != 0 ||
				   (c[x].acted && (k == 0 || (k >= 10 && k <= 12)));
		ck_assert_msg(lent == (changed <= 22), "case %zu: %u changed, tallies lent %d", x, changed, lent);
		for (uint32_t s = 0; s < 3; s++)
			expect_cells(now, w, s);
		same_answers(fresh, w, now, 0, (uint32_t)x);
		free(mem);
		free(fmem);
		tl_free(was);
		tl_free(now);
	}
}
END_TEST

/* A stream's leaders on eligible members, remembered for the stream last
 * asked: a leadership that leaves a draining or down member raises it, one
 * that goes to a draining member lowers it, and each is seen at once. */
START_TEST(eligible_sum_follows_every_change)
{
	tl *t = tl_new();
	for (uint32_t m = 0; m < 4; m++)
		tl_member(t, tl_str(t, "m%u", m), NULL);
	t->m[0].flags = PL_MEMBER_DRAINING;
	t->m[1].flags = PL_MEMBER_DOWN;
	tl_stream(t, tl_str(t, "s"));
	const uint32_t lead[] = {0, 0, 1, 2, 3};
	for (uint32_t k = 0; k < 5; k++)
		tl_shard(t, tl_str(t, "k%u", k), 0, lead[k], 1, lead[k]);
	pl_view *v = tl_view(t, 0);
	ck_assert_uint_eq(pl__cell_sum_elig(v, 0), 2);
	/* 1 -> 2, 0 -> 3, 3 -> 0, 0 -> 2 */
	const uint32_t k_of[] = {2, 0, 4, 1}, to[] = {2, 3, 0, 2}, want[] = {3, 4, 3, 4};
	for (uint32_t i = 0; i < 4; i++) {
		lead_to(t, v, k_of[i], to[i]);
		ck_assert_uint_eq(pl__cell_sum_elig(v, 0), want[i]);
		expect_cells(t, v, 0);
	}
	tl_free(t);
}
END_TEST

/* One stream's leaders held dense for a pass (pl__cell_cache()): every
 * change of a leader cell of the held stream is seen at once, a change to
 * another stream leaves it as it was, and holding another stream clears
 * the first one's members (their counts read 0 where they lead none). */
START_TEST(held_stream_follows_every_change)
{
	tl *t = tl_new();
	for (uint32_t m = 0; m < 5; m++)
		tl_member(t, tl_str(t, "m%u", m), NULL);
	tl_stream(t, tl_str(t, "a"));
	tl_stream(t, tl_str(t, "b"));
	const uint32_t lead[] = {0, 0, 1, 2, 3, 4, 4, 1};
	for (uint32_t k = 0; k < 8; k++)
		tl_shard(t, tl_str(t, "k%u", k), k < 5 ? 0 : 1, lead[k], 1, lead[k]);
	pl_view *v = tl_view(t, 0);
	pl__cell_cache(v, 0);
	ck_assert_uint_eq(pl__cell_get(v, 0, 0), 2);
	ck_assert_uint_eq(pl__cell_get(v, 0, 4), 0);
	/* 0 -> 4 and 1 -> 4 in a; 4 -> 0 in b; then b held and a changed */
	const uint32_t k_of[] = {0, 2, 5, 1, 6}, to[] = {4, 4, 0, 3, 2};
	for (uint32_t i = 0; i < 5; i++) {
		if (i == 3)
			pl__cell_cache(v, 1);
		lead_to(t, v, k_of[i], to[i]);
		expect_cells(t, v, 0);
		expect_cells(t, v, 1);
		for (uint32_t m = 0; m < 5; m++) {
			uint32_t want[2] = {0, 0};
			for (uint32_t k = 0; k < 8; k++) {
				pl_shard_state st;
				ck_assert_int_eq(pl_view_shard_state(v, k, &st), 0);
				want[t->k[k].stream] += st.leader == m;
			}
			ck_assert_msg(pl__cell_get(v, 0, m) == want[0] && pl__cell_get(v, 1, m) == want[1],
				      "step %u member %u: %u/%u leaders, the states say %u/%u", i, m,
				      pl__cell_get(v, 0, m), pl__cell_get(v, 1, m), want[0], want[1]);
		}
	}
	tl_free(t);
}
END_TEST

/* A stream whose room is full (every shard led by another member), between
 * two neighbours: cells inserted and removed at its first and last place
 * leave the neighbours' cells alone. */
START_TEST(full_room_keeps_its_neighbours)
{
	tl *t = tl_new();
	for (uint32_t m = 0; m < 8; m++)
		tl_member(t, tl_str(t, "m%u", m), NULL);
	for (uint32_t s = 0; s < 3; s++)
		tl_stream(t, tl_str(t, "s%u", s));
	/* s0: led by 6 and 7; s1: by 1, 3, 5, 6 (full); s2: by 0 and 2. */
	const uint32_t lead[] = {6, 7, 1, 3, 5, 6, 0, 2}, stream[] = {0, 0, 1, 1, 1, 1, 2, 2};
	for (uint32_t k = 0; k < 8; k++)
		tl_shard(t, tl_str(t, "k%u", k), stream[k], lead[k], 1, lead[k]);
	pl_view *v = tl_view(t, 0);
	ck_assert_uint_eq(v->s_cell_count[1], v->s_cell_first[2] - v->s_cell_first[1]);
	/* 1 -> 0 (a new first), 6 -> 7 (a new last), 0 -> 4 (the first gone,
	 * one in the middle), 7 -> 2, 2 -> 1. */
	const uint32_t k_of[] = {2, 5, 2, 5, 5}, to[] = {0, 7, 4, 2, 1};
	for (uint32_t i = 0; i < 5; i++) {
		lead_to(t, v, k_of[i], to[i]);
		ck_assert_uint_eq(v->s_cell_count[1], 4);
		for (uint32_t s = 0; s < 3; s++)
			expect_cells(t, v, s);
	}
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tally_cells");
	TCase *c = tcase_create("packing");
	tcase_add_test(c, cell_packs_member_and_leaders);
	suite_add_tcase(s, c);
	c = tcase_create("limits");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, stream_leader_count_past_16_bits);
	tcase_add_test(c, member_indices_past_16_bits);
	tcase_add_test(c, hint_tallies_take_the_changed_shards_alone);
	suite_add_tcase(s, c);
	c = tcase_create("edges");
	tcase_add_test(c, full_room_keeps_its_neighbours);
	tcase_add_test(c, eligible_sum_follows_every_change);
	tcase_add_test(c, held_stream_follows_every_change);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
