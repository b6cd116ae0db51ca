/* check_region_common.c - what the region policy's steps share
 * (region_common.c): live peers (a replica on a down member is no copy), the
 * zones a region's live peers hold (a down peer holds none; a moving peer's
 * own zone is not "another"), the common fields of an action (stage first
 * exactly for copies), its output (applied as written; a stop at max_actions
 * or a full array, with the region that did not fit) and the stall reports
 * (every stall counted, as many written as there is room for, the first
 * named). A property checks the common fields and the replay of every
 * action on random clusters. */
#include "region_util.h"

/* ---- live peers and zones ------------------------------------------------------ */

START_TEST(a_peer_on_a_down_member_is_not_counted_as_a_copy)
{
	/* RF 3, peers b0, b1, b2 with b2 down: two live peers, so the region
	 * grows onto b3. */
	tl *t = tl_new();
	for (int i = 0; i < 4; i++)
		ru_member(t, tl_str(t, "b%d", i), NULL, 10);
	t->m[2].flags = PL_MEMBER_DOWN;
	uint32_t k = ru_region(t, "r", 0, 3, 0u, 1u, 2u);
	pl_view *v = tl_view(t, 0);
	pl_region_config cfg = ru_cfg(3);
	ru_tick *tk = ru_tick_new();
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 1);
	ck_assert_uint_eq(tk->a[0].kind, PL_ACTION_ADD_REPLICA);
	ck_assert_uint_eq(tk->a[0].shard, k);
	ck_assert_uint_eq(tk->a[0].to, 3);
	ck_assert_uint_eq(tk->a[0].to_count, 2);
	ck_assert_uint_eq(tk->a[0].total, 3);
	/* Every peer down: nothing to copy from, and the region says so. */
	t->m[0].flags = t->m[1].flags = PL_MEMBER_DOWN;
	v = tl_view(t, 0);
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 0);
	ck_assert_uint_eq(tk->info.status, PL_STATUS_STALLED);
	ck_assert_uint_eq(tk->st[0].reason, PL_REGION_STALL_NO_SOURCE);
	free(tk);
	tl_free(t);
}
END_TEST

START_TEST(a_down_peer_holds_no_zone_for_its_region)
{
	/* Peers b0 (za) and b1 (zb, down). b2 (zb) is in a zone no live peer
	 * is in: it takes the copy (tier 1), though b3 (za) holds fewer. */
	tl *t = tl_new();
	static const char *const zones[] = {"za", "zb", "zb", "za"};
	for (int i = 0; i < 4; i++)
		ru_member(t, tl_str(t, "b%d", i), zones[i], 10);
	t->m[1].flags = PL_MEMBER_DOWN;
	uint32_t k = ru_region(t, "r", 0, 2, 0u, 1u);
	ru_region(t, "s", 2, 1, 2u);
	ru_region(t, "u", 2, 1, 2u);
	pl_view *v = tl_view(t, 0);
	pl_region_config cfg = ru_cfg(2);
	ru_tick *tk = ru_tick_new();
	ck_assert_int_ge(ru_plan(v, &cfg, tk), 1);
	const pl_action *a = NULL;
	for (int i = 0; i < tk->rc; i++)
		if (tk->a[i].shard == k)
			a = &tk->a[i];
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(a->kind, PL_ACTION_ADD_REPLICA);
	ck_assert_uint_eq(a->to, 2);
	ck_assert_uint_eq(a->tier, 1);
	free(tk);
	tl_free(t);
}
END_TEST

START_TEST(an_idle_move_never_takes_a_region_out_of_a_zone)
{
	/* b0 (za) and b1 (zb) hold every region, b0 leading; b2 (za) joins
	 * empty. A peer of b1 moving to b2 would leave its region in za
	 * alone; b1 is alone in zb in each region (its own zone is not another
	 * peer's), so only b0's peers move, the primary with them, until b0
	 * is down to the fair share: b2 stays below it rather than take a
	 * zone from a region. */
	tl *t = tl_new();
	static const char *const zones[] = {"za", "zb", "za"};
	for (int i = 0; i < 3; i++)
		ru_member(t, tl_str(t, "b%d", i), zones[i], 10 + (uint64_t)i);
	for (int r = 0; r < 6; r++)
		ru_region(t, tl_str(t, "r%d", r), 0, 2, 0u, 1u);
	pl_view *v = tl_view(t, 0);
	pl_region_config cfg = ru_cfg(2);
	ru_tick *tk = ru_tick_new();
	uint32_t idle = 0;
	for (int tick = 0; tick < 20; tick++) {
		int n = ru_plan(v, &cfg, tk);
		for (int i = 0; i < n; i++) {
			if (tk->a[i].reason != PL_REASON_IDLE_MEMBER)
				continue;
			idle++;
			ck_assert_uint_eq(tk->a[i].from, 0);
			ck_assert_uint_eq(tk->a[i].to, 2);
			ck_assert_uint_eq(tk->a[i].tier, 4);
		}
		if (n == 0)
			break;
		v = ru_next(t, 0);
	}
	ck_assert_uint_eq(idle, 2); /* F = 12 / 3 = 4: b0 6 -> 4 */
	ck_assert_uint_eq(ru_reps(v, 0), 4);
	ck_assert_uint_eq(ru_reps(v, 2), 2);
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state s = ru_state(v, k);
		ck_assert_uint_eq(ru_zones(t, &s), 2);
	}
	free(tk);
	tl_free(t);
}
END_TEST

/* ---- the output ------------------------------------------------------------------ */

/* Regions to grow: 8 regions with one peer each on b0, RF 2, four members. */
static tl *growing(void)
{
	tl *t = tl_new();
	for (int i = 0; i < 4; i++)
		ru_member(t, tl_str(t, "b%d", i), NULL, 10);
	for (int r = 0; r < 8; r++)
		ru_region(t, tl_str(t, "r%d", r), 0, 1, 0u);
	return t;
}

/* The view the call left equals a fresh one with its actions applied. */
static void replayed(tl *t, const pl_view *v, const pl_action *a, uint32_t n)
{
	void *mem;
	pl_view *w = tl_view_fresh(t, &mem);
	tl_apply(w, a, n);
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state x = ru_state(v, k), y = ru_state(w, k);
		ck_assert_uint_eq(x.leader, y.leader);
		ck_assert_uint_eq(x.replica_count, y.replica_count);
		ck_assert_uint_eq(x.epoch, y.epoch);
		for (uint32_t j = 0; j < x.replica_count; j++)
			ck_assert(ru_has_peer(&y, x.replicas[j]));
	}
	for (uint32_t m = 0; m < t->nm; m++)
		ck_assert_uint_eq(ru_reps(v, m), ru_reps(w, m));
	free(mem);
}

START_TEST(the_call_stops_at_max_actions_or_a_full_array_naming_the_region)
{
	tl *t = growing();
	ru_tick *tk = ru_tick_new();
	pl_region_config cfg = ru_cfg(2);
	pl_view *v = tl_view(t, 0);
	ck_assert_int_eq(ru_plan(v, &cfg, tk), 8);
	pl_action all[8];
	memcpy(all, tk->a, sizeof all);
	for (uint32_t lim = 1; lim < 8; lim++) {
		/* max_actions reached: ACTION_CAP, also when the array is as
		 * small (max_actions is checked first). */
		cfg.max_actions = lim;
		for (uint32_t extra = 0; extra < 2; extra++) {
			v = tl_view(t, 0);
			pl_plan_info info;
			pl_action out[16];
			int n = pl_region_plan(v, &cfg, out, lim + extra, &info, NULL, 0, NULL);
			ck_assert_int_eq(n, (int)lim);
			ck_assert_uint_eq(info.status, PL_STATUS_ACTION_CAP);
			ck_assert_uint_eq(info.wanted, lim + 1);
			ck_assert_uint_eq(info.detail, all[lim].shard);
			ck_assert_int_eq(memcmp(out, all, lim * sizeof *out), 0);
			replayed(t, v, out, lim);
		}
		/* The array full first: FULL. */
		cfg.max_actions = 16;
		v = tl_view(t, 0);
		pl_plan_info info;
		pl_action out[16];
		int n = pl_region_plan(v, &cfg, out, lim, &info, NULL, 0, NULL);
		ck_assert_int_eq(n, (int)lim);
		ck_assert_uint_eq(info.status, PL_STATUS_FULL);
		ck_assert_uint_eq(info.wanted, lim + 1);
		ck_assert_uint_eq(info.detail, all[lim].shard);
		replayed(t, v, out, lim);
	}
	free(tk);
	tl_free(t);
}
END_TEST

START_TEST(every_stall_is_counted_and_as_many_written_as_there_is_room_for)
{
	/* Five regions on b0 only, RF 2, the other members behind their epoch:
	 * five stalls in step 1, then two in step 2 (b1 and b2 are idle and
	 * cannot take a peer either): seven, in the order met. */
	tl *t = tl_new();
	for (int i = 0; i < 3; i++)
		ru_member(t, tl_str(t, "b%d", i), NULL, 10);
	uint32_t first = PL_NONE;
	for (int r = 0; r < 5; r++) {
		uint32_t k = ru_region(t, tl_str(t, "r%d", r), 0, 1, 0u);
		t->k[k].epoch = 5;
		first = first == PL_NONE ? k : first;
	}
	t->m[0].map_version = 5;
	pl_region_config cfg = ru_cfg(2);
	pl_region_stall st[10];
	pl_action out[8];
	pl_plan_info info;
	for (uint32_t cap = 0; cap <= 9; cap++) {
		pl_view *v = tl_view(t, 0);
		memset(st, 0xee, sizeof st);
		int n = pl_region_plan(v, &cfg, out, 8, &info, cap ? st : NULL, cap, NULL);
		ck_assert_int_eq(n, 0);
		ck_assert_uint_eq(info.status, PL_STATUS_STALLED);
		ck_assert_uint_eq(info.blocked, 7);
		ck_assert_uint_eq(info.detail, first);
		for (uint32_t i = 0; i < cap && i < 7; i++) {
			ck_assert_uint_eq(st[i].reason, PL_REGION_STALL_NOT_READY);
			ck_assert_uint_eq(st[i].step, i < 5 ? 1 : 2);
			ck_assert_uint_eq(st[i].wanted, PL_REGION_WANT_PEER);
		}
		for (uint32_t i = cap < 7 ? cap : 7; i < 10; i++)
			ck_assert_uint_eq(st[i].shard, 0xeeeeeeeeu); /* nothing past what was met or the room */
	}
	/* A region first in key order whose one peer is down stalls first:
	 * it is the one named, the others still counted and listed after. */
	uint32_t gone = ru_member(t, "gone", NULL, 1);
	t->m[gone].flags = PL_MEMBER_DOWN;
	uint32_t lost = ru_region(t, "a", gone, 1, gone);
	tl_view(t, 0);
	int n = pl_region_plan(t->view, &cfg, out, 8, &info, st, 10, NULL);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_STALLED);
	ck_assert_uint_eq(info.detail, lost);
	ck_assert_uint_eq(info.blocked, 8);
	ck_assert_uint_eq(st[0].shard, lost);
	ck_assert_uint_eq(st[0].reason, PL_REGION_STALL_NO_SOURCE);
	ck_assert_uint_eq(st[1].shard, first);
	/* Proposals off: the regions are held back, the first held named
	 * (a, its peer live again); with a's peer down, a stalls and is named
	 * before the held ones, and counted with them. */
	t->m[gone].flags = 0;
	cfg.add_peer_proposals = 0;
	tl_view(t, 0);
	n = pl_region_plan(t->view, &cfg, out, 8, &info, st, 10, NULL);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_PROPOSALS_OFF);
	ck_assert_uint_eq(info.detail, lost);
	uint32_t held = info.blocked;
	ck_assert_uint_ge(held, 6);
	t->m[gone].flags = PL_MEMBER_DOWN;
	tl_view(t, 0);
	n = pl_region_plan(t->view, &cfg, out, 8, &info, st, 10, NULL);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_STALLED);
	ck_assert_uint_eq(info.detail, lost);
	ck_assert_uint_eq(info.blocked, held); /* a, held back before, now stalls */
	tl_free(t);
}
END_TEST

/* ---- the common fields, on random clusters ------------------------------------------ */

/* Members join random clusters with zones, a member down, regions in
 * streams: every action names its region's stream, copies (and only
 * copies) are staged first, the scope fits the kind, and the tick's
 * actions replayed on a fresh view give the view the call left. */
START_TEST(property_every_action_carries_the_common_fields_and_replays)
{
	uint64_t seed0 = tl_seed(0xc033u);
	uint32_t iters = tl_iters(150), acts = 0;
	ru_tick *tk = ru_tick_new();
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		tl *t = tl_new();
		uint32_t nm = 2 + tl_below(&rng, 5), nk = 3 + tl_below(&rng, 20), ns = tl_below(&rng, 3);
		for (uint32_t m = 0; m < nm; m++)
			ru_member(t, tl_str(t, "m%02u", m), tl_str(t, "z%u", tl_below(&rng, 3)), 10 + m);
		for (uint32_t s = 0; s < ns; s++)
			tl_stream(t, tl_str(t, "s%u", s));
		for (uint32_t k = 0; k < nk; k++) {
			uint32_t a = tl_below(&rng, nm);
			uint32_t r = ru_region(t, tl_str(t, "r%03u", k), tl_below(&rng, 4) ? a : PL_NONE, 1, a);
			t->k[r].stream = ns ? tl_below(&rng, ns) : PL_NONE;
		}
		if (tl_below(&rng, 2))
			t->m[tl_below(&rng, nm)].flags = PL_MEMBER_DOWN;
		for (uint32_t j = 0, joins = tl_below(&rng, 3); j < joins; j++)
			ru_member(t, tl_str(t, "new%u", j), tl_str(t, "z%u", j), 100 + j);
		pl_region_config cfg = ru_cfg(1 + tl_below(&rng, 3));
		cfg.max_actions = 1 + tl_below(&rng, 12);
		pl_view *v = tl_view(t, 0);
		for (uint32_t tick = 0; tick < 40; tick++) {
			int n = ru_plan(v, &cfg, tk);
			for (int i = 0; i < n; i++) {
				const pl_action *a = &tk->a[i];
				int copy = a->kind == PL_ACTION_ADD_REPLICA || a->kind == PL_ACTION_MOVE_REPLICA;
				ck_assert_msg(a->stream == t->k[a->shard].stream, "seed %llu: stream", (unsigned long long)seed);
				ck_assert_msg(a->flags == (copy ? PL_ACTION_STAGE_FIRST : 0u), "seed %llu: %s flags %u",
					      (unsigned long long)seed, pl_action_kind_name(a->kind), a->flags);
				uint32_t scope = a->kind == PL_ACTION_ADD_REPLICA    ? PL_SCOPE_PEERS
						 : a->kind == PL_ACTION_MOVE_REPLICA ? PL_SCOPE_REPLICAS
										     : PL_SCOPE_PRIMARIES;
				ck_assert_msg(a->scope == scope, "seed %llu: %s scope %u", (unsigned long long)seed,
					      pl_action_kind_name(a->kind), a->scope);
				acts++;
			}
			ck_assert_uint_le((uint32_t)n, cfg.max_actions);
			replayed(t, v, tk->a, (uint32_t)n);
			if (n == 0)
				break;
			v = ru_adopt(t);
		}
		tl_free(t);
	}
	free(tk);
	ck_assert_uint_gt(acts, iters);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("region_common");
	TCase *c = tcase_create("peers");
	tcase_add_test(c, a_peer_on_a_down_member_is_not_counted_as_a_copy);
	tcase_add_test(c, a_down_peer_holds_no_zone_for_its_region);
	tcase_add_test(c, an_idle_move_never_takes_a_region_out_of_a_zone);
	suite_add_tcase(s, c);
	c = tcase_create("output");
	tcase_add_test(c, the_call_stops_at_max_actions_or_a_full_array_naming_the_region);
	tcase_add_test(c, every_stall_is_counted_and_as_many_written_as_there_is_room_for);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 60);
	tcase_add_test(c, property_every_action_carries_the_common_fields_and_replays);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
