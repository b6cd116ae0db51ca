/* check_fleet_common.c - what the fleet's steps share (fleet_common.c): the
 * common fields of every fleet action (shards owned, counted before it; the
 * bounds of the member that receives; all shards in total), actions applied
 * as they are written and a full array, and the accounting of lag overrides
 * whose lag is over: one is over only when neither its holder nor the
 * shard's ring home lags, and then it counts for the home, not the holder. */
#include <stdlib.h>

#include "fleetsim.h"

/* ---- lag overrides that are over ----------------------------------------------- */

/* Keys whose ring homes among m0..m3 are m0, m0, m1, m1, m2, m3, m3 (in
 * that order of shards): found by asking a view of the members alone. */
static tl *fleet_of_homes(uint32_t *held_a, uint32_t *held_b)
{
	static const uint32_t want[] = {0, 0, 1, 1, 2, 3, 3};
	tl *t = tl_new();
	for (uint32_t m = 0; m < 4; m++)
		tl_member(t, tl_str(t, "m%u", m), NULL);
	pl_view *v = tl_view(t, 0);
	const char *key[7] = {0};
	for (uint32_t i = 0, found = 0; found < 7 && i < 100000; i++) {
		char buf[32];
		int len = snprintf(buf, sizeof buf, "k%u", i);
		uint32_t home;
		ck_assert_int_eq(pl_view_top(v, buf, (size_t)len, &home, 1), 1);
		for (uint32_t j = 0; j < 7; j++)
			if (!key[j] && want[j] == home) {
				key[j] = tl_str(t, "%s", buf);
				found++;
				break;
			}
	}
	for (uint32_t j = 0; j < 7; j++) {
		ck_assert_ptr_nonnull(key[j]);
		tl_shard(t, key[j], PL_NONE, PL_NONE, 0);
	}
	/* m0 holds m1's two shards by lag overrides, old. */
	tl_override(t, 2, 0, PL_ORIGIN_LAG, 10);
	tl_override(t, 3, 0, PL_ORIGIN_LAG, 10);
	*held_a = 2;
	*held_b = 3;
	return t;
}

static pl_fleet_config fleet_cfg(void)
{
	pl_fleet_config cfg;
	pl_fleet_config_init(&cfg);
	cfg.now = 1000;
	return cfg;
}

static uint32_t count_reason(const pl_action *a, int n, uint32_t reason)
{
	uint32_t c = 0;
	for (int i = 0; i < n; i++)
		c += a[i].reason == reason;
	return c;
}

/* Owned 4/0/1/2 (share 2, floor 1). Counted as they will be once the lag
 * is over, 2/2/1/2: nobody moves by count or spread; m1 takes its shards
 * back instead. */
START_TEST(a_lag_that_is_over_counts_for_the_home_not_the_holder)
{
	uint32_t ka, kb;
	tl *t = fleet_of_homes(&ka, &kb);
	pl_fleet_config cfg = fleet_cfg();
	pl_action out[16];
	pl_plan_info info;
	for (uint32_t self = 0; self < 4; self++) {
		int n = sim_decide(t, cfg, self, out, 16, &info);
		ck_assert_int_ge(n, 0);
		ck_assert_uint_eq(count_reason(out, n, PL_REASON_COUNT), 0);
		ck_assert_uint_eq(count_reason(out, n, PL_REASON_SPREAD), 0);
		if (self == 1) {
			ck_assert_int_eq(n, 1);
			ck_assert_uint_eq(out[0].reason, PL_REASON_RETURN_HOME);
			ck_assert(out[0].shard == ka || out[0].shard == kb);
		}
	}
	tl_free(t);
}
END_TEST

/* The home lags: its shards are not on their way home, so the holder counts
 * them (4, over its share) and hands one of its own to m2, below it. */
START_TEST(a_lag_is_not_over_while_the_home_lags)
{
	uint32_t ka, kb;
	tl *t = fleet_of_homes(&ka, &kb);
	t->m[1].flags = PL_MEMBER_LAGGING;
	pl_fleet_config cfg = fleet_cfg();
	pl_action out[16];
	pl_plan_info info;
	int n = sim_decide(t, cfg, 0, out, 16, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(out[0].reason, PL_REASON_COUNT);
	ck_assert_uint_eq(out[0].from, 0);
	ck_assert_uint_eq(out[0].to, 2);
	ck_assert(out[0].shard != ka && out[0].shard != kb); /* never a lag override */
	ck_assert_uint_eq(out[0].from_count, 4);
	tl_free(t);
}
END_TEST

/* The holder lags: not over either. The home then counts 0, below its
 * floor, and a member above its floor hands it one (spread). */
START_TEST(a_lag_is_not_over_while_the_holder_lags)
{
	uint32_t ka, kb;
	tl *t = fleet_of_homes(&ka, &kb);
	t->m[0].flags = PL_MEMBER_LAGGING;
	pl_fleet_config cfg = fleet_cfg();
	pl_action out[16];
	pl_plan_info info;
	int n = sim_decide(t, cfg, 3, out, 16, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(out[0].reason, PL_REASON_SPREAD);
	ck_assert_uint_eq(out[0].from, 3);
	ck_assert_uint_eq(out[0].to, 1);
	/* With the lag over, m3 counts 2 beside m1's 2: nothing to do. */
	t->m[0].flags = 0;
	n = sim_decide(t, cfg, 3, out, 16, &info);
	ck_assert_int_eq(n, 0);
	tl_free(t);
}
END_TEST

/* ---- the common fields and the output ----------------------------------------------- */

/* Owned counts of view w, into owned[nm]. */
static void owned_now(pl_view *w, uint32_t nm, uint32_t nk, uint32_t *owned)
{
	uint32_t *o = malloc((nk ? nk : 1) * sizeof *o);
	ck_assert_int_eq(pl_fleet_owners(w, o, nk, NULL), (int)nk);
	memset(owned, 0, nm * sizeof *owned);
	for (uint32_t k = 0; k < nk; k++)
		owned[o[k]]++;
	free(o);
}

/* Random fleets with weights, skew, lag overrides, a lagging member and a
 * void override: every member decides; each action, replayed on a copy of
 * the view, carries the shards owned in total, scope OWNED, the receiver's
 * count before it and its weighted bounds (a keep excepted: it counts what
 * the fleet will be). */
START_TEST(property_every_action_carries_the_owned_counts_before_it)
{
	uint64_t seed0 = tl_seed(0xf1c0u);
	uint32_t iters = tl_iters(120), acts = 0;
	pl_action out[32];
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		uint32_t nm = 3 + tl_below(&rng, 5), nk = 6 + tl_below(&rng, 40);
		tl *t = tl_new();
		for (uint32_t m = 0; m < nm; m++) {
			tl_member(t, tl_str(t, "m%02u", m), NULL);
			t->m[m].weight = 1 + tl_below(&rng, 3);
		}
		for (uint32_t k = 0; k < nk; k++) {
			tl_shard(t, tl_str(t, "k%03u", k), PL_NONE, PL_NONE, 0);
			t->k[k].load = tl_below(&rng, 1000);
		}
		uint32_t fav = tl_below(&rng, nm);
		for (uint32_t k = 0; k < nk; k++) {
			uint32_t r = tl_below(&rng, 10);
			if (r < 4)
				tl_override(t, k, fav, PL_ORIGIN_COUNT, 10);
			else if (r < 6)
				tl_override(t, k, tl_below(&rng, nm), PL_ORIGIN_LAG, tl_below(&rng, 900));
		}
		if (tl_below(&rng, 2))
			t->m[tl_below(&rng, nm)].flags = PL_MEMBER_LAGGING;
		if (tl_below(&rng, 3) == 0)
			t->m[tl_below(&rng, nm)].flags = PL_MEMBER_DOWN;
		uint64_t W = 0;
		for (uint32_t m = 0; m < nm; m++)
			W += !(t->m[m].flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING)) ? t->m[m].weight : 0;
		pl_fleet_config cfg = fleet_cfg();
		cfg.moves_per_decision = 1 + tl_below(&rng, 3);
		uint32_t owned[16];
		for (uint32_t self = 0; self < nm; self++) {
			void *mem;
			pl_view *v = tl_view(t, 0), *w = tl_view_clone(t, v, &mem);
			cfg.self = self;
			pl_plan_info info;
			int n = pl_fleet_decide(v, &cfg, out, 32, &info, NULL);
			ck_assert_msg(n >= 0, "seed %llu: %s", (unsigned long long)seed, pl_error_name(n));
			for (int i = 0; i < n; i++) {
				const pl_action *a = &out[i];
				owned_now(w, nm, nk, owned);
				ck_assert_msg(a->scope == PL_SCOPE_OWNED && a->total == nk && a->stream == PL_NONE,
					      "seed %llu: %s/%s scope %u total %u", (unsigned long long)seed,
					      pl_action_kind_name(a->kind), pl_reason_name(a->reason), a->scope, a->total);
				if (a->tier != PL_FLEET_PICK_KEEP && a->to != PL_NONE) {
					uint64_t x = (uint64_t)nk * t->m[a->to].weight;
					uint32_t fl = (uint32_t)(x / W), ce = (uint32_t)((x + W - 1) / W);
					ck_assert_msg(a->to_count == owned[a->to] && a->floor == fl && a->ceiling == ce,
						      "seed %llu: %s/%s to %u count %u of %u, bounds %u..%u of %u..%u",
						      (unsigned long long)seed, pl_action_kind_name(a->kind),
						      pl_reason_name(a->reason), a->to, a->to_count, owned[a->to], a->floor,
						      a->ceiling, fl, ce);
				}
				ck_assert_msg(pl_view_apply(w, a) == 0, "seed %llu: action %d does not apply",
					      (unsigned long long)seed, i);
				acts++;
			}
			/* The view the call left is the copy with its actions applied. */
			uint32_t left[16];
			owned_now(v, nm, nk, left);
			owned_now(w, nm, nk, owned);
			ck_assert_msg(memcmp(left, owned, nm * sizeof *owned) == 0, "seed %llu: self %u: views differ",
				      (unsigned long long)seed, self);
			free(mem);
		}
		tl_free(t);
	}
	ck_assert_uint_gt(acts, iters);
}
END_TEST

START_TEST(a_full_array_stops_the_decision_with_the_view_as_written)
{
	/* m0 owns every shard by count override, m1..m3 nothing: its clean-up
	 * and four moves; each cap below stops there, FULL, wanting one more. */
	tl *t = tl_new();
	for (uint32_t m = 0; m < 4; m++)
		tl_member(t, tl_str(t, "m%u", m), NULL);
	for (uint32_t k = 0; k < 12; k++) {
		tl_shard(t, tl_str(t, "k%02u", k), PL_NONE, PL_NONE, 0);
		tl_override(t, k, 0, PL_ORIGIN_COUNT, 10);
	}
	pl_fleet_config cfg = fleet_cfg();
	cfg.moves_per_decision = 4;
	pl_action all[16], out[16];
	pl_plan_info info;
	int total = sim_decide(t, cfg, 0, all, 16, &info);
	ck_assert_int_ge(total, 4);
	for (uint32_t cap = 0; cap < (uint32_t)total; cap++) {
		pl_view *v = tl_view(t, 0);
		cfg.self = 0;
		int n = pl_fleet_decide(v, &cfg, out, cap, &info, NULL);
		ck_assert_int_eq(n, (int)cap);
		ck_assert_uint_eq(info.status, PL_STATUS_FULL);
		ck_assert_uint_eq(info.wanted, cap + 1);
		ck_assert_int_eq(memcmp(out, all, cap * sizeof *out), 0);
		/* The view holds the written actions and no more. */
		void *mem;
		pl_view *w = tl_view_fresh(t, &mem);
		tl_apply(w, out, cap);
		for (uint32_t k = 0; k < 12; k++) {
			pl_shard_state x, y;
			pl_view_shard_state(v, k, &x);
			pl_view_shard_state(w, k, &y);
			ck_assert_uint_eq(x.override_member, y.override_member);
			ck_assert_uint_eq(x.override_origin, y.override_origin);
		}
		free(mem);
	}
	tl_free(t);
}
END_TEST

/* The same in the lag moves (self lags: it hands its shards off, after the
 * clean-up of void overrides, which may fill the array first) and in
 * the return home (m1 takes back a shard held for it since a lag): a cap
 * below the decision's actions stops it FULL with what fits, as written. */
START_TEST(a_full_array_stops_the_lag_moves_and_the_return_home)
{
	tl *t = tl_new();
	for (uint32_t m = 0; m < 4; m++)
		tl_member(t, tl_str(t, "m%u", m), NULL);
	tl_member(t, "gone", NULL);
	for (uint32_t k = 0; k < 12; k++) {
		tl_shard(t, tl_str(t, "k%02u", k), PL_NONE, PL_NONE, 0);
		tl_override(t, k, 4, PL_ORIGIN_COUNT, 10); /* void: the clean-up drops m0's */
	}
	t->m[0].flags |= PL_MEMBER_LAGGING;
	t->m[4].flags |= PL_MEMBER_DOWN;
	pl_fleet_config cfg = fleet_cfg();
	cfg.moves_per_decision = 4;
	pl_action all[16], out[16];
	pl_plan_info info;
	int total = sim_decide(t, cfg, 0, all, 16, &info);
	ck_assert_int_ge(total, 2);
	uint32_t void_n = count_reason(all, total, PL_REASON_VOID_OVERRIDE);
	ck_assert_uint_ge(void_n, 1);
	ck_assert_uint_ge(count_reason(all, total, PL_REASON_LAG), 1);
	ck_assert_uint_eq(count_reason(all, total, PL_REASON_LAG) + void_n, (uint32_t)total);
	for (uint32_t cap = 0; cap < (uint32_t)total; cap++) {
		int n = sim_decide(t, cfg, 0, out, cap, &info);
		ck_assert_int_eq(n, (int)cap);
		ck_assert_uint_eq(info.status, PL_STATUS_FULL);
		ck_assert_int_eq(memcmp(out, all, cap * sizeof *out), 0);
	}
	tl_free(t);

	uint32_t ka, kb;
	t = fleet_of_homes(&ka, &kb);
	cfg = fleet_cfg();
	ck_assert_int_eq(sim_decide(t, cfg, 1, all, 16, &info), 1);
	ck_assert_uint_eq(all[0].reason, PL_REASON_RETURN_HOME);
	ck_assert_int_eq(sim_decide(t, cfg, 1, out, 0, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_FULL);
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fleet_common");
	TCase *c = tcase_create("lag_over");
	tcase_add_test(c, a_lag_that_is_over_counts_for_the_home_not_the_holder);
	tcase_add_test(c, a_lag_is_not_over_while_the_home_lags);
	tcase_add_test(c, a_lag_is_not_over_while_the_holder_lags);
	suite_add_tcase(s, c);
	c = tcase_create("actions");
	tcase_add_test(c, a_full_array_stops_the_decision_with_the_view_as_written);
	tcase_add_test(c, a_full_array_stops_the_lag_moves_and_the_return_home);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 60);
	tcase_add_test(c, property_every_action_carries_the_owned_counts_before_it);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
