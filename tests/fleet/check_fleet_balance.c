/* check_fleet_balance.c - count balance and closing the spread: the seed's
 * fleet, the 55-member case, places without pile-ups, preferences, and
 * properties on random fleets simulated tick by tick. */
#include "fleetsim.h"

/* ---- the seed's fleet ------------------------------------------------------- */

static tl *seed_fleet(uint32_t members)
{
	return sim_fleet(members, "streams-", 1, 0, 64, NULL, 0);
}

static void owned_now(sim *s, uint32_t *owned)
{
	uint32_t fl[64], sh[64];
	sim_spread(s, owned, fl, sh);
}

START_TEST(seed_four_members)
{
	for (uint32_t spread = 0; spread < 2; spread++) {
		tl *t = seed_fleet(4);
		sim *s = sim_new(t, PL_SCORER_LEGACY_FNV1A, 0);
		s->cfg.cooldown = 5; /* the seed's REBALANCE_MOVE_COOLDOWN_SECS, ticks of 1 s */
		s->cfg.spread = spread;
		uint32_t owned[4];
		owned_now(s, owned);
		ck_assert_uint_eq(owned[0], 17);
		ck_assert_uint_eq(owned[1], 8);
		ck_assert_uint_eq(owned[2], 7);
		ck_assert_uint_eq(owned[3], 32);
		sim_run(s, sim_quiet(s), 1000);
		owned_now(s, owned);
		for (int m = 0; m < 4; m++)
			ck_assert_uint_eq(owned[m], 16);
		ck_assert_uint_eq(s->moves, 17);
		ck_assert_uint_eq(s->lag_moves + s->returns, 0);
		/* streams-4 moves once per cooldown: 16 moves take at least 75 ticks */
		ck_assert_uint_ge(s->ticks, 75);
		sim_free(s);
		tl_free(t);
	}
}
END_TEST

START_TEST(seed_eight_members)
{
	tl *t = seed_fleet(8);
	sim *s = sim_new(t, PL_SCORER_LEGACY_FNV1A, 0);
	s->cfg.cooldown = 5;
	uint64_t e, d;
	sim_bound(s, &e, &d);
	uint32_t owned[8], mx = 0;
	owned_now(s, owned);
	for (int m = 0; m < 8; m++)
		mx = owned[m] > mx ? owned[m] : mx;
	ck_assert_uint_ge(mx, 28); /* the skew the seed measured */
	sim_run(s, sim_quiet(s), 2000);
	owned_now(s, owned);
	for (int m = 0; m < 8; m++)
		ck_assert_uint_eq(owned[m], 8);
	ck_assert_uint_eq(s->moves, e);
	sim_free(s);
	tl_free(t);
}
END_TEST

/* Red first: with the count pass disabled (the seed's fleet before it), a
 * member stays over the share. */
START_TEST(count_pass_off_stays_over)
{
	tl *t = seed_fleet(4);
	sim *s = sim_new(t, PL_SCORER_LEGACY_FNV1A, 0);
	s->cfg.count_balance = 0;
	for (int i = 0; i < 100; i++)
		sim_tick(s);
	uint32_t owned[4];
	owned_now(s, owned);
	ck_assert_uint_eq(owned[3], 32);
	ck_assert_uint_eq(s->moves, 0);
	sim_free(s);
	tl_free(t);
}
END_TEST

/* 55 members, 2,536 shards (share 47, floor 46). The seed's pass leaves the
 * last member at 0; closing the spread ends with max - min <= 1 in
 * max(E, D) moves. */
static tl *fifty_five(void)
{
	tl *t = sim_fleet(55, "n", 0, 2, 2536, "p", 4);
	uint32_t want[55];
	for (int m = 0; m < 55; m++)
		want[m] = m < 10 ? 50 : m < 20 ? 44 : m < 52 ? 47 : m < 54 ? 46 : 0;
	sim_force(t, 0, want);
	return t;
}

START_TEST(fifty_five_members)
{
	uint32_t owned[55], fl[55], sh[55];
	for (uint32_t spread = 0; spread < 2; spread++) {
		tl *t = fifty_five();
		sim *s = sim_new(t, 0, spread);
		s->cfg.spread = spread;
		s->cfg.cooldown = 2;
		uint64_t e, d;
		sim_bound(s, &e, &d);
		ck_assert_uint_eq(e, 30);
		ck_assert_uint_eq(d, 66);
		sim_run(s, sim_quiet(s), 5000);
		uint32_t spr = sim_spread(s, owned, fl, sh);
		ck_assert_uint_eq(sh[0], 47);
		ck_assert_uint_eq(fl[0], 46);
		if (!spread) {
			ck_assert_uint_eq(s->moves, e);
			ck_assert_uint_eq(owned[54], 0);
			ck_assert_uint_eq(spr, 47);
		} else {
			ck_assert_uint_eq(s->moves, d > e ? d : e);
			ck_assert_uint_le(spr, 1);
			for (int m = 0; m < 55; m++)
				ck_assert(owned[m] >= 46 && owned[m] <= 47);
		}
		sim_free(s);
		tl_free(t);
	}
}
END_TEST

/* ---- places ------------------------------------------------------------------ */

/* 7 members, 60 shards: share 9, floor 8. m0..m2 own 10, m3..m5 own 8, m6
 * owns 6. */
static tl *seven(void)
{
	tl *t = sim_fleet(7, "m", 0, 0, 60, "k", 3);
	uint32_t want[7] = {10, 10, 10, 8, 8, 8, 6};
	sim_force(t, 0, want);
	return t;
}

START_TEST(kth_mover_takes_kth_place)
{
	tl *t = seven();
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	pl_action a[4];
	pl_plan_info info;
	/* The seed's pass: places m3, m4, m5, m6 x3; m0, m1, m2 take the first three. */
	cfg.spread = 0;
	for (uint32_t m = 0; m < 3; m++) {
		ck_assert_int_eq(sim_decide(t, cfg, m, a, 4, &info), 1);
		ck_assert_uint_eq(a[0].reason, PL_REASON_COUNT);
		ck_assert_uint_eq(a[0].from, m);
		ck_assert_uint_eq(a[0].to, 3 + m);
		ck_assert_uint_eq(a[0].share, 9);
	}
	for (uint32_t m = 3; m < 7; m++) { /* targets: nothing to do, but the fleet is moving */
		ck_assert_int_eq(sim_decide(t, cfg, m, a, 4, &info), 0);
		ck_assert_uint_eq(info.status, PL_STATUS_MOVING);
	}
	/* A lagging target offers no place: the places shift to m4, m5, m6. */
	t->m[3].flags = PL_MEMBER_LAGGING;
	for (uint32_t m = 0; m < 3; m++) {
		ck_assert_int_eq(sim_decide(t, cfg, m, a, 4, &info), 1);
		ck_assert_uint_eq(a[0].to, 4 + m);
	}
	t->m[3].flags = 0;
	/* Closing the spread: only m6 is below the floor (2 places); m2 waits. */
	cfg.spread = 1;
	for (uint32_t m = 0; m < 2; m++) {
		ck_assert_int_eq(sim_decide(t, cfg, m, a, 4, &info), 1);
		ck_assert_uint_eq(a[0].to, 6);
	}
	ck_assert_int_eq(sim_decide(t, cfg, 2, a, 4, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_WAITING);
	ck_assert_uint_eq(info.blocked, 1);
	tl_free(t);
}
END_TEST

START_TEST(moves_per_decision_take_consecutive_places)
{
	/* m0 owns 13 (excess 4), m1 11 (2), m2..m5 8, m6 4: places (to 9)
	 * m2, m3, m4, m5, m6 x5. */
	tl *t = sim_fleet(7, "m", 0, 0, 60, "k", 3);
	uint32_t want[7] = {13, 11, 8, 8, 8, 8, 4};
	sim_force(t, 0, want);
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	cfg.spread = 0;
	pl_action a[8];
	pl_plan_info info;
	cfg.moves_per_decision = 2;
	ck_assert_int_eq(sim_decide(t, cfg, 0, a, 8, &info), 2);
	ck_assert_uint_eq(a[0].to, 2);
	ck_assert_uint_eq(a[1].to, 3);
	ck_assert_int_eq(sim_decide(t, cfg, 1, a, 8, &info), 2);
	ck_assert_uint_eq(a[0].to, 4);
	ck_assert_uint_eq(a[1].to, 5);
	cfg.moves_per_decision = 3;
	ck_assert_int_eq(sim_decide(t, cfg, 0, a, 8, &info), 3);
	ck_assert_uint_eq(a[2].to, 4);
	ck_assert_int_eq(sim_decide(t, cfg, 1, a, 8, &info), 2);
	ck_assert_uint_eq(a[0].to, 5);
	ck_assert_uint_eq(a[1].to, 6);
	/* A full output stops the moves: the view holds only what was written. */
	cfg.moves_per_decision = 3;
	pl_view *v = tl_view(t, 0);
	cfg.self = 0;
	ck_assert_int_eq(pl_fleet_decide(v, &cfg, a, 1, &info, NULL), 1);
	ck_assert_uint_eq(info.status, PL_STATUS_FULL);
	ck_assert_uint_eq(info.wanted, 2);
	ck_assert_int_eq(pl_fleet_owner(v, a[0].shard), 2);
	uint32_t n = 0;
	for (uint32_t k = 0; k < t->nk; k++)
		n += pl_fleet_owner(v, k) == 0;
	ck_assert_uint_eq(n, 12);
	tl_free(t);
}
END_TEST

/* The shard a count move takes: ring home is the target, then the target
 * is its next rendezvous choice, then self's count overrides, then any;
 * each in key order. Checked against an oracle on random fleets. */
START_TEST(preference_order)
{
	uint64_t seed = tl_seed(0xf1ee7001u);
	uint32_t iters = tl_iters(150), tiers[5] = {0, 0, 0, 0, 0};
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t rng = seed + it;
		uint32_t nm = 3 + tl_below(&rng, 6), nk = 20 + tl_below(&rng, 60);
		tl *t = sim_fleet(nm, "m", 0, 0, nk, "k", 3);
		pl_view *v = tl_view(t, 0);
		/* Random count overrides onto m0, to make it the mover. */
		uint32_t *home = malloc(nk * 4);
		for (uint32_t k = 0; k < nk; k++)
			home[k] = (uint32_t)pl_view_home(v, k);
		for (uint32_t k = 0; k < nk; k++)
			if (home[k] != 0 && tl_below(&rng, 100) < 40)
				tl_override(t, k, 0, tl_below(&rng, 3) ? PL_ORIGIN_COUNT : PL_ORIGIN_LAG, 1);
		v = tl_view(t, 0);
		pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
		cfg.self = 0;
		pl_action a[2];
		pl_plan_info info;
		int n = pl_fleet_decide(v, &cfg, a, 1, &info, NULL);
		ck_assert_int_ge(n, 0);
		if (n == 0 || a[0].reason != PL_REASON_COUNT) {
			free(home);
			tl_free(t);
			continue;
		}
		v = tl_view(t, 0); /* fresh, for the oracle */
		uint32_t target = a[0].to, best = 99, pick = PL_NONE;
		for (uint32_t r = 0; r < nk; r++) {
			uint32_t k = (uint32_t)pl_view_at(v, PL_ELEM_SHARD, r);
			pl_shard_state st;
			pl_view_shard_state(v, k, &st);
			if (pl_fleet_owner(v, k) != 0 || (st.override_member == 0 && st.override_origin == PL_ORIGIN_LAG))
				continue;
			uint32_t rank[8];
			pl_view_top(v, t->k[k].key.ptr, t->k[k].key.len, rank, nm);
			uint32_t next = PL_NONE;
			for (uint32_t j = 0; j < nm && next == PL_NONE; j++)
				if (rank[j] != 0 && rank[j] != home[k])
					next = rank[j];
			uint32_t tier = home[k] == target ? 1 : next == target ? 2
				      : st.override_member == 0 ? 3 : 4;
			if (tier < best) {
				best = tier;
				pick = k;
			}
		}
		ck_assert_msg(a[0].shard == pick && a[0].tier == best,
			      "seed %llu: picked shard %u (tier %u), oracle %u (tier %u)",
			      (unsigned long long)(seed + it), a[0].shard, a[0].tier, pick, best);
		ck_assert_uint_eq(a[0].kind, best == 1 ? PL_ACTION_DROP_OVERRIDE : PL_ACTION_SET_OVERRIDE);
		tiers[best]++;
		free(home);
		tl_free(t);
	}
	/* The layouts reached the first two preferences. */
	if (iters >= 100) {
		ck_assert_uint_gt(tiers[1], 0);
		ck_assert_uint_gt(tiers[2], 0);
	}
}
END_TEST

/* ---- properties on random fleets ----------------------------------------------- */

/* A random fleet: members, shards, and a skew of count overrides onto a
 * favourite member. */
static tl *random_fleet(uint64_t *rng, uint32_t nm, uint32_t nk)
{
	tl *t = sim_fleet(nm, "member-", 0, 0, nk, "shard/", 5);
	uint32_t fav = tl_below(rng, nm), skew = tl_below(rng, 60);
	for (uint32_t k = 0; k < nk; k++)
		if (tl_below(rng, 100) < skew)
			tl_override(t, k, fav, PL_ORIGIN_COUNT, 1);
	return t;
}

static uint32_t size_draw(uint64_t *rng, uint32_t lo, uint32_t hi)
{
	/* log-uniform-ish: small fleets often, large ones sometimes */
	uint32_t span = hi - lo, r = tl_below(rng, 4);
	return lo + tl_below(rng, r == 0 ? span + 1 : r == 1 ? span / 4 + 1 : span / 16 + 1);
}

/* Without lag the move count is exactly the bound (E with the spread pass
 * off, max(E, D) with it on), the final spread is <= 1 with it on, and the
 * fleet goes quiet. */
START_TEST(random_fleets_converge_in_the_bound)
{
	uint64_t seed = tl_seed(0xf1ee7002u);
	uint32_t iters = tl_iters(60);
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t rng = seed + it, rs = rng;
		uint32_t nm = size_draw(&rng, 2, 64), nk = size_draw(&rng, 16, 4096);
		tl *t = random_fleet(&rng, nm, nk);
		sim *s = sim_new(t, 0, rs);
		s->cfg.spread = it % 2;
		s->cfg.cooldown = tl_below(&rng, 3);
		s->cfg.moves_per_decision = 1 + (tl_below(&rng, 4) == 0 ? tl_below(&rng, 4) : 0);
		uint64_t e, d;
		sim_bound(s, &e, &d);
		sim_run(s, sim_quiet(s), 100000);
		uint32_t *owned = malloc(nm * 4), *fl = malloc(nm * 4), *sh = malloc(nm * 4);
		uint32_t spr = sim_spread(s, owned, fl, sh);
		uint64_t want = s->cfg.spread && d > e ? d : e;
		ck_assert_msg(s->moves == want, "seed %llu: %u members, %u shards, spread %u: %u moves, bound %llu",
			      (unsigned long long)rs, nm, nk, s->cfg.spread, s->moves, (unsigned long long)want);
		for (uint32_t m = 0; m < nm; m++) {
			ck_assert_msg(owned[m] <= sh[m], "seed %llu: member %u over the share", (unsigned long long)rs, m);
			if (s->cfg.spread)
				ck_assert_msg(owned[m] >= fl[m], "seed %llu: member %u below the floor",
					      (unsigned long long)rs, m);
		}
		if (s->cfg.spread)
			ck_assert_msg(spr <= 1, "seed %llu: final spread %u", (unsigned long long)rs, spr);
		ck_assert_uint_eq(s->lag_moves + s->returns, 0);
		free(owned);
		free(fl);
		free(sh);
		sim_free(s);
		tl_free(t);
	}
}
END_TEST

/* Lag flags and loads that change with the tick, the same for a member
 * whatever its index. */
static void set_lag(tl *t, const uint32_t *orig, uint64_t seed, uint32_t tick, uint32_t lag_pct)
{
	for (uint32_t i = 0; i < t->nm; i++) {
		uint64_t r = seed ^ ((uint64_t)orig[i] << 20) ^ ((uint64_t)(tick / 7) << 40);
		uint32_t x = (uint32_t)(tl_rand(&r) % 100);
		t->m[i].flags = x < lag_pct ? PL_MEMBER_LAGGING : 0;
		t->m[i].load = tl_rand(&r) % 1000;
		if (x % 11 == 0)
			t->m[i].flags |= PL_MEMBER_UNMEASURED;
	}
}

/* With random lag and load: members acting independently on one snapshot
 * never push a target past the share (checked every tick by sim_tick), and
 * the same fleet with its arrays shuffled makes identical decisions, tick
 * after tick (the documents are compared byte for byte). */
START_TEST(random_lag_and_shuffled_input)
{
	uint64_t seed = tl_seed(0xf1ee7003u);
	uint32_t iters = tl_iters(30);
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t rng = seed + it, rs = rng;
		uint32_t nm = size_draw(&rng, 2, 64), nk = size_draw(&rng, 16, 2048);
		tl *a = random_fleet(&rng, nm, nk);
		for (uint32_t k = 0; k < nk; k++)
			a->k[k].load = tl_below(&rng, 100);
		tl *b = tl_shuffled(a, &rng);
		uint32_t *orig_a = malloc(nm * 4), *orig_b = malloc(nm * 4);
		for (uint32_t i = 0; i < nm; i++) {
			orig_a[i] = i;
			orig_b[b->perm_m[i]] = i;
		}
		sim *sa = sim_new(a, 0, rs), *sb = sim_new(b, 0, rs);
		uint32_t lag_pct = 5 + tl_below(&rng, 30);
		sa->cfg.cooldown = sb->cfg.cooldown = tl_below(&rng, 3);
		sa->cfg.return_home_age = sb->cfg.return_home_age = 5;
		sa->cfg.spread = sb->cfg.spread = (uint32_t)tl_below(&rng, 2);
		char *da = NULL, *db = NULL;
		for (uint32_t tick = 0; tick < 40; tick++) {
			set_lag(a, orig_a, rs, tick, tick < 30 ? lag_pct : 0);
			set_lag(b, orig_b, rs, tick, tick < 30 ? lag_pct : 0);
			uint32_t na = sim_tick(sa), nb = sim_tick(sb);
			ck_assert_msg(na == nb, "seed %llu tick %u: %u actions, %u shuffled", (unsigned long long)rs, tick,
				      na, nb);
			pl_view *va = tl_view(a, 0), *vb = tl_view(b, 0);
			int la = pl_fleet_doc_format(va, NULL, 0), lb = pl_fleet_doc_format(vb, NULL, 0);
			da = realloc(da, (size_t)la + 1);
			db = realloc(db, (size_t)lb + 1);
			pl_fleet_doc_format(va, da, (size_t)la + 1);
			pl_fleet_doc_format(vb, db, (size_t)lb + 1);
			ck_assert_msg(la == lb && strcmp(da, db) == 0, "seed %llu tick %u: documents differ",
				      (unsigned long long)rs, tick);
		}
		ck_assert_uint_eq(sa->moves + sa->lag_moves + sa->returns, sb->moves + sb->lag_moves + sb->returns);
		free(da);
		free(db);
		free(orig_a);
		free(orig_b);
		sim_free(sa);
		sim_free(sb);
		tl_free(a);
		tl_free(b);
	}
}
END_TEST

/* count_balance 0: lag moves only. m0 owns all twelve shards by count
 * overrides: with count balance it gives them away, without it keeps them. */
START_TEST(without_count_balance_no_shard_moves_by_count)
{
	tl *t = tl_new();
	for (uint32_t m = 0; m < 4; m++)
		tl_member(t, tl_str(t, "m%u", m), NULL);
	for (uint32_t k = 0; k < 12; k++) {
		tl_shard(t, tl_str(t, "k%02u", k), PL_NONE, PL_NONE, 0);
		tl_override(t, k, 0, PL_ORIGIN_COUNT, 10);
	}
	pl_fleet_config cfg;
	pl_fleet_config_init(&cfg);
	cfg.now = 1000;
	pl_action out[16];
	pl_plan_info info;
	int n = sim_decide(t, cfg, 0, out, 16, &info);
	uint32_t by_count = 0;
	for (int i = 0; i < n; i++)
		by_count += out[i].reason == PL_REASON_COUNT;
	ck_assert_uint_ge(by_count, 1);
	cfg.count_balance = 0;
	n = sim_decide(t, cfg, 0, out, 16, &info);
	ck_assert_int_ge(n, 0);
	for (int i = 0; i < n; i++)
		ck_assert_uint_ne(out[i].reason, PL_REASON_COUNT);
	for (uint32_t self = 1; self < 4; self++) {
		n = sim_decide(t, cfg, self, out, 16, &info);
		ck_assert_int_eq(n, 0);
	}
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fleet_balance");
	TCase *c = tcase_create("seed");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, seed_four_members);
	tcase_add_test(c, without_count_balance_no_shard_moves_by_count);
	tcase_add_test(c, seed_eight_members);
	tcase_add_test(c, count_pass_off_stays_over);
	tcase_add_test(c, fifty_five_members);
	suite_add_tcase(s, c);
	c = tcase_create("places");
	tcase_add_test(c, kth_mover_takes_kth_place);
	tcase_add_test(c, moves_per_decision_take_consecutive_places);
	tcase_add_test(c, preference_order);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 300);
	tcase_add_test(c, random_fleets_converge_in_the_bound);
	tcase_add_test(c, random_lag_and_shuffled_input);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
