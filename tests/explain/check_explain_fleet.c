/* check_explain_fleet.c - the fleet policy's sentences (explain_fleet.c):
 * count and spread moves with why that shard, what the mover owns and (where
 * different) is counted as, their drops back home, a keep after a lag, lag
 * moves, returns and the clean-up drops; cut to fit any buffer; every action
 * a fleet of deciders emits names its shard and members; and the numbers a
 * count move names are those placement stats shows, its claims true of the
 * fleet it comes from. */
#include <stdlib.h>
#include <string.h>

#include "explain_util.h"
#include "fleetsim.h"

/* A count move of orders/07 from b2 (owning and counted 5, share 4) to b0
 * (owning 2). */
static pl_action counted(uint32_t kind, uint32_t reason, uint32_t tier)
{
	pl_action a = eu_act(kind, reason, 2, 0);
	a.origin = PL_ORIGIN_COUNT;
	a.scope = PL_SCOPE_OWNED;
	a.tier = tier;
	a.from_count = 5;
	a.load = 5; /* what b2 owns */
	a.to_count = 2;
	a.share = 4;
	a.floor = 3;
	a.ceiling = 4;
	a.total = 13;
	return a;
}

START_TEST(a_count_move_says_why_that_shard_and_both_counts)
{
	tl *t = eu_names();
	pl_action a = counted(PL_ACTION_SET_OVERRIDE, PL_REASON_COUNT, PL_FLEET_PICK_HOME);
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 to b0 (its ring home): b2 owns 5, over the share 4; b0 owns 2, "
					"below its share 4");
	a.tier = PL_FLEET_PICK_NEXT;
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 to b0 (its next rendezvous choice): b2 owns 5, over the share "
					"4; b0 owns 2, below its share 4");
	a.tier = PL_FLEET_PICK_OVERRIDE;
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 to b0 (moving a count override on): b2 owns 5, over the share "
					"4; b0 owns 2, below its share 4");
	a.tier = PL_FLEET_PICK_ANY;
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 to b0: b2 owns 5, over the share 4; b0 owns 2, below its "
					"share 4");
	/* The target's own share (ceiling), not the giver's, closes it. */
	a.ceiling = 3;
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 to b0: b2 owns 5, over the share 4; b0 owns 2, below its "
					"share 3");
	tl_free(t);
}
END_TEST

/* The mover owns one number (what placement stats shows) and is counted as
 * another when lag overrides are on their way home: both, apart. */
START_TEST(a_count_move_says_what_the_mover_owns_and_is_counted_as)
{
	tl *t = eu_names();
	pl_action a = counted(PL_ACTION_SET_OVERRIDE, PL_REASON_COUNT, PL_FLEET_PICK_ANY);
	a.load = 2; /* b2 owns 2; 3 of its shards are held elsewhere on their way home */
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 to b0: b2 owns 2 and is counted as 5, over the share 4; b0 "
					"owns 2, below its share 4; shards on their way home after a lag count at their "
					"ring home");
	a.load = 7; /* b2 owns 7, holding 2 for others */
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 to b0: b2 owns 7 and is counted as 5, over the share 4; b0 "
					"owns 2, below its share 4; shards on their way home after a lag count at their "
					"ring home");
	tl_free(t);
}
END_TEST

/* A spread move claims no more about the fleet than holds whenever the
 * spread pass runs: nobody has a count move to make (a member may still
 * own more than its share, holding shards on their way home). */
START_TEST(a_spread_move_says_nobody_has_a_count_move_and_names_the_floor)
{
	tl *t = eu_names();
	pl_action a = counted(PL_ACTION_SET_OVERRIDE, PL_REASON_SPREAD, PL_FLEET_PICK_NEXT);
	a.from_count = a.load = 4;
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 to b0 (its next rendezvous choice): nobody has a count move to "
					"make; b2 owns 4, the share 4; b0 owns 2, below the floor 3");
	a.load = 3;
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 to b0 (its next rendezvous choice): nobody has a count move to "
					"make; b2 owns 3 and is counted as 4, the share 4; b0 owns 2, below the floor 3; "
					"shards on their way home after a lag count at their ring home");
	tl_free(t);
}
END_TEST

START_TEST(a_move_back_home_drops_the_count_override)
{
	tl *t = eu_names();
	pl_action a = counted(PL_ACTION_DROP_OVERRIDE, PL_REASON_COUNT, PL_FLEET_PICK_HOME);
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 back to its ring home b0: b2 owns 5, over the share 4; b0 owns "
					"2, below its share 4; its count override is dropped");
	a.reason = PL_REASON_SPREAD;
	a.from_count = a.load = 4;
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 back to its ring home b0: nobody has a count move to make; b2 "
					"owns 4, the share 4; b0 owns 2, below the floor 3; its count override is dropped");
	tl_free(t);
}
END_TEST

START_TEST(a_keep_says_no_owner_changes_and_which_limit)
{
	tl *t = eu_names();
	pl_action a = counted(PL_ACTION_SET_OVERRIDE, PL_REASON_COUNT, PL_FLEET_PICK_KEEP);
	a.from = 2;
	a.to = 0;
	ck_assert_str_eq(eu_say(t, &a), "keep orders/07 on b0 by count, the lag over: its ring home counts 5 with the shards "
					"held for it, over its share 4; b0 counts 2 without them, below its share 4");
	a.reason = PL_REASON_SPREAD;
	a.share = 3; /* the home's limit: its floor, for a spread keep */
	a.floor = 3;
	ck_assert_str_eq(eu_say(t, &a), "keep orders/07 on b0 by count, the lag over: its ring home counts 5 with the shards "
					"held for it, over its floor 3; b0 counts 2 without them, below its floor 3");
	/* A keep's sentence does not depend on whether it is written as a set
	 * or a drop. */
	a.kind = PL_ACTION_DROP_OVERRIDE;
	ck_assert_str_eq(eu_say(t, &a), "keep orders/07 on b0 by count, the lag over: its ring home counts 5 with the shards "
					"held for it, over its floor 3; b0 counts 2 without them, below its floor 3");
	tl_free(t);
}
END_TEST

START_TEST(a_lag_move_names_the_load_and_the_least_loaded)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_SET_OVERRIDE, PL_REASON_LAG, 2, 1);
	a.origin = PL_ORIGIN_LAG;
	a.load = 900;
	a.to_count = 3;
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 (lagging) to b1: its busiest shard, load 900; b1 is the least "
					"loaded member that is not lagging, owns 3");
	a.kind = PL_ACTION_DROP_OVERRIDE;
	ck_assert_str_eq(eu_say(t, &a), "move orders/07 from b2 (lagging) to its ring home b1: its busiest shard, load 900; b1 "
					"is the least loaded member that is not lagging, owns 3");
	tl_free(t);
}
END_TEST

START_TEST(a_return_home_names_the_age_and_the_share)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_DROP_OVERRIDE, PL_REASON_RETURN_HOME, 2, 0);
	a.at = 400;
	a.to_count = 3;
	a.share = 4;
	ck_assert_str_eq(eu_say(t, &a), "return orders/07 home to b0: its lag override on b2 is 400 old; b0 owns 3, within its "
					"share 4 after taking it back");
	tl_free(t);
}
END_TEST

START_TEST(a_clean_up_drop_says_why_the_override_is_void_or_redundant)
{
	tl *t = eu_names();
	pl_action a = eu_act(PL_ACTION_DROP_OVERRIDE, PL_REASON_VOID_OVERRIDE, 2, 0);
	t->m[2].flags = PL_MEMBER_DOWN;
	ck_assert_str_eq(eu_say(t, &a), "drop the override of orders/07 to b2: b2 is down; orders/07 stays with its ring home b0");
	t->m[2].flags = PL_MEMBER_DRAINING;
	ck_assert_str_eq(eu_say(t, &a),
			 "drop the override of orders/07 to b2: b2 is draining; orders/07 stays with its ring home b0");
	t->m[2].flags = PL_MEMBER_DOWN | PL_MEMBER_DRAINING; /* down wins */
	ck_assert_str_eq(eu_say(t, &a), "drop the override of orders/07 to b2: b2 is down; orders/07 stays with its ring home b0");
	a = eu_act(PL_ACTION_DROP_OVERRIDE, PL_REASON_REDUNDANT_OVERRIDE, 0, 0);
	ck_assert_str_eq(eu_say(t, &a), "drop the override of orders/07 to b0: it names the shard's ring home");
	tl_free(t);
}
END_TEST

/* ---- the policy's own actions ------------------------------------------------ */

/* Random fleets with skew, lag overrides and a void one: every member
 * decides; each action reads as its own sentence naming shard and members,
 * and the count, clean-up and return kinds all show up. */
START_TEST(every_action_a_fleet_emits_reads_as_its_own_sentence)
{
	uint64_t seed0 = tl_seed(0xf1ee7u);
	uint32_t iters = tl_iters(60);
	uint8_t seen[EU_REASONS] = {0};
	pl_action out[64];
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		uint32_t nm = 3 + tl_below(&rng, 5), nk = 8 + tl_below(&rng, 40);
		tl *t = tl_new();
		for (uint32_t m = 0; m < nm; m++)
			tl_member(t, tl_str(t, "m%02u", m), NULL);
		for (uint32_t k = 0; k < nk; k++)
			tl_shard(t, tl_str(t, "k%03u", k), PL_NONE, PL_NONE, 0);
		/* A favourite holds a part of the shards by count override, some
		 * members hold some by lag override, and one override is void. */
		uint32_t fav = tl_below(&rng, nm);
		for (uint32_t k = 0; k < nk; k++) {
			uint32_t r = tl_below(&rng, 10);
			if (r < 4)
				tl_override(t, k, fav, PL_ORIGIN_COUNT, 10);
			else if (r < 5)
				tl_override(t, k, tl_below(&rng, nm), PL_ORIGIN_LAG, 10);
		}
		uint32_t down = tl_below(&rng, nm);
		if (down != fav && tl_below(&rng, 2))
			t->m[down].flags = PL_MEMBER_DOWN;
		if (tl_below(&rng, 3) == 0)
			t->m[tl_below(&rng, nm)].flags |= PL_MEMBER_LAGGING;
		for (uint32_t k = 0; k < nk; k++)
			t->k[k].load = tl_below(&rng, 1000);
		pl_fleet_config cfg;
		pl_fleet_config_init(&cfg);
		cfg.now = 10000;
		cfg.moves_per_decision = 2;
		for (uint32_t self = 0; self < nm; self++) {
			pl_plan_info info;
			int n = sim_decide(t, cfg, self, out, 64, &info);
			ck_assert_msg(n >= 0, "seed %llu: %s", (unsigned long long)seed, pl_error_name(n));
			for (int i = 0; i < n; i++)
				eu_own_sentence(t, &out[i], seed, seen);
		}
		tl_free(t);
	}
	static const uint32_t want[] = {PL_REASON_COUNT, PL_REASON_LAG, PL_REASON_RETURN_HOME, PL_REASON_VOID_OVERRIDE,
					PL_REASON_REDUNDANT_OVERRIDE};
	eu_saw_every(seen, want, sizeof want / sizeof want[0], "fleets", iters, seed0);
}
END_TEST

/* ---- sentences checked against the fleet they come from ---------------------- */

/* A fleet of members named by ids[], `nk` shards of keys picked so that
 * `nlag` of them are homed at member `home` (xxh3); those are held by
 * `holder` through lag overrides whose lag is over, and member m owns plain[m]
 * more (its ring homes, or count overrides). */
static tl *arranged(const char *const *ids, uint32_t nm, const uint32_t *plain, uint32_t home, uint32_t holder,
		    uint32_t nlag)
{
	uint32_t nk = nlag;
	for (uint32_t m = 0; m < nm; m++)
		nk += plain[m];
	/* The keys: the first nlag of k00.. homed at `home`, then any. */
	tl *probe = tl_new();
	for (uint32_t m = 0; m < nm; m++)
		tl_member(probe, ids[m], NULL);
	for (uint32_t k = 0; k < 100; k++)
		tl_shard(probe, tl_str(probe, "k%02u", k), PL_NONE, PL_NONE, 0);
	pl_view *pv = tl_view(probe, PL_SCORER_XXH3);
	tl *t = tl_new();
	for (uint32_t m = 0; m < nm; m++)
		tl_member(t, ids[m], NULL);
	uint32_t homes[100], lag = 0, rest = 0;
	for (uint32_t k = 0; k < 100 && (lag < nlag || rest < nk - nlag); k++) {
		int h = pl_view_home(pv, k);
		if (h == (int)home && lag < nlag)
			lag++;
		else if (rest < nk - nlag)
			rest++;
		else
			continue;
		homes[t->nk] = (uint32_t)h;
		tl_shard(t, tl_str(t, "k%02u", k), PL_NONE, PL_NONE, 0);
	}
	ck_assert_uint_eq(t->nk, nk);
	uint32_t want[8] = {0}, to = 0;
	memcpy(want, plain, nm * sizeof *plain);
	lag = 0;
	for (uint32_t k = 0; k < nk; k++) { /* lag first, then homes that still want */
		if (homes[k] == home && lag < nlag) {
			tl_override(t, k, holder, PL_ORIGIN_LAG, 100);
			lag++;
			homes[k] = PL_NONE;
		} else if (want[homes[k]] > 0) {
			want[homes[k]]--;
			homes[k] = PL_NONE;
		}
	}
	for (uint32_t k = 0; k < nk; k++) { /* the rest by count */
		if (homes[k] == PL_NONE)
			continue;
		while (want[to] == 0)
			to++;
		want[to]--;
		tl_override(t, k, to, PL_ORIGIN_COUNT, 100);
	}
	tl_free(probe);
	return t;
}

/* The sentence of self's one move in that fleet (default config, now 1000). */
static const char *one_move(tl *t, uint32_t self, uint32_t reason, uint32_t tier)
{
	static char buf[EU_MAX];
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	cfg.now = 1000;
	pl_action a[4];
	pl_plan_info info;
	ck_assert_int_eq(sim_decide_scored(t, PL_SCORER_XXH3, cfg, self, a, 4, &info), 1);
	ck_assert_uint_eq(a[0].reason, reason);
	ck_assert_uint_eq(a[0].tier == PL_FLEET_PICK_KEEP, tier == PL_FLEET_PICK_KEEP);
	snprintf(buf, sizeof buf, "%s", eu_say(t, &a[0]));
	return buf;
}

/* a owns 2, and 2 of its shards are on b after a lag that is over: a counts
 * 4, over its share 3 (7 shards, 3 members), and moves one to c (owning 2).
 * The sentence says a owns 2 (placement stats), and is counted as 4. */
START_TEST(a_count_move_by_a_member_with_shards_away_says_both)
{
	static const char *const ids[] = {"a", "b", "c"};
	static const uint32_t plain[] = {2, 1, 2};
	tl *t = arranged(ids, 3, plain, 0, 1, 2);
	const char *say = one_move(t, 0, PL_REASON_COUNT, 0);
	ck_assert_msg(strstr(say, ": a owns 2 and is counted as 4, over the share 3; c owns 2, below its share 3") != NULL,
		      "%s", say);
	ck_assert_msg(strstr(say, "; shards on their way home after a lag count at their ring home") != NULL, "%s", say);
	tl_free(t);
}
END_TEST

/* A spread move while b owns 5 of a share of 3 (two of them a's, on their
 * way home): "nobody is over the share" would be false by what b owns;
 * a (owning 1, counted as 3) hands one to d (owning 1, floor 2). */
START_TEST(a_spread_move_claims_only_what_holds)
{
	static const char *const ids[] = {"a", "b", "c", "d"};
	static const uint32_t plain[] = {1, 3, 3, 1};
	tl *t = arranged(ids, 4, plain, 0, 1, 2);
	const char *say = one_move(t, 0, PL_REASON_SPREAD, 0);
	ck_assert_msg(strstr(say, "nobody is over") == NULL, "%s", say);
	ck_assert_msg(strstr(say, ": nobody has a count move to make; a owns 1 and is counted as 3, the share 3; d owns 1, "
				  "below the floor 2; shards on their way home after a lag count at their ring home") !=
			      NULL,
		      "%s", say);
	tl_free(t);
}
END_TEST

/* A count move that is a keep (the target holds a's shard since a lag):
 * the target's number is what it counts, not what it owns; and a spread
 * keep names the home's floor. */
START_TEST(a_keep_in_a_move_names_what_the_holder_counts)
{
	static const char *const ids[] = {"a", "b", "c"}, *const ids4[] = {"a", "b", "c", "d"};
	/* a owns 3 and counts 4 (share 3); c owns 1, a's, and counts 0. */
	static const uint32_t plain[] = {3, 3, 0}, plain4[] = {2, 3, 3, 0};
	tl *t = arranged(ids, 3, plain, 0, 2, 1);
	const char *say = one_move(t, 0, PL_REASON_COUNT, PL_FLEET_PICK_KEEP);
	ck_assert_msg(strstr(say, "its ring home counts 4 with the shards held for it, over its share 3; c counts 0 without "
				  "them, below its share 3") != NULL, "%s", say);
	tl_free(t);
	/* 9 shards over 4 (floor 2, share 3): a owns 2 and counts 3; d owns 1,
	 * a's, and counts 0: the spread pass, and d keeps it. */
	t = arranged(ids4, 4, plain4, 0, 3, 1);
	say = one_move(t, 0, PL_REASON_SPREAD, PL_FLEET_PICK_KEEP);
	ck_assert_msg(strstr(say, "its ring home counts 3 with the shards held for it, over its floor 2; d counts 0 without "
				  "them, below its floor 2") != NULL, "%s", say);
	tl_free(t);
}
END_TEST

/* "<id> owns <n>" in the sentence: n as placement stats would show it. */
static void says_owns(const char *say, const pl_snapshot *s, uint32_t m, uint32_t n, uint64_t seed)
{
	char w[300];
	snprintf(w, sizeof w, "%.*s owns %u", (int)s->members[m].id.len, s->members[m].id.ptr, n);
	ck_assert_msg(strstr(say, w) != NULL, "seed %llu: \"%s\" does not say \"%s\"", (unsigned long long)seed, say, w);
}

/* Random fleets after lags: every count and spread move a member makes
 * says what its mover and its target own before it, the numbers placement
 * stats shows (replayed on a copy of the member's view); "counted as" only
 * when the mover counts otherwise; and a spread move claims nobody is over
 * the share never. */
START_TEST(every_count_move_names_what_stats_shows)
{
	uint64_t seed0 = tl_seed(0x0b75u);
	uint32_t iters = tl_iters(200), checked = 0, apart = 0;
	pl_action out[64];
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		uint32_t nm = 3 + tl_below(&rng, 5), nk = 6 + tl_below(&rng, 40);
		tl *t = tl_new();
		for (uint32_t m = 0; m < nm; m++)
			tl_member(t, tl_str(t, "m%u", m), NULL);
		for (uint32_t k = 0; k < nk; k++)
			tl_shard(t, tl_str(t, "k%03u", k), PL_NONE, PL_NONE, 0);
		uint32_t fav = tl_below(&rng, nm);
		for (uint32_t k = 0; k < nk; k++) {
			uint32_t r = tl_below(&rng, 10);
			if (r < 3)
				tl_override(t, k, fav, PL_ORIGIN_COUNT, 10);
			else if (r < 6)
				tl_override(t, k, tl_below(&rng, nm), PL_ORIGIN_LAG, 10);
		}
		pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
		cfg.now = 20;
		cfg.moves_per_decision = 1 + tl_below(&rng, 3);
		cfg.spread = tl_below(&rng, 4) != 0;
		for (uint32_t self = 0; self < nm; self++) {
			pl_view *v = tl_view(t, PL_SCORER_XXH3);
			uint32_t *o = malloc(nk * sizeof *o);
			ck_assert_int_eq(pl_fleet_owners(v, o, nk, NULL), (int)nk);
			free(o);
			void *mem;
			pl_view *mine = tl_view_clone(t, v, &mem);
			cfg.self = self;
			pl_plan_info info;
			int n = pl_fleet_decide(mine, &cfg, out, 64, &info, NULL);
			ck_assert_int_ge(n, 0);
			free(mem);
			for (int i = 0; i < n; i++) {
				const pl_action *a = &out[i];
				if ((a->reason == PL_REASON_COUNT || a->reason == PL_REASON_SPREAD) &&
				    a->tier != PL_FLEET_PICK_KEEP) {
					const char *say = eu_say(t, a);
					says_owns(say, tl_snap(t), a->from, v->m_owned[a->from], seed);
					says_owns(say, tl_snap(t), a->to, v->m_owned[a->to], seed);
					ck_assert_msg((strstr(say, "counted as") != NULL) ==
							      (v->m_owned[a->from] != a->from_count),
						      "seed %llu: %s", (unsigned long long)seed, say);
					ck_assert_msg(strstr(say, "nobody is over") == NULL, "seed %llu: %s",
						      (unsigned long long)seed, say);
					checked++;
					apart += v->m_owned[a->from] != a->from_count;
				}
				ck_assert_int_eq(pl_view_apply(v, a), 0);
			}
		}
		tl_free(t);
	}
	if (iters >= 100)
		ck_assert_msg(checked > 100 && apart > 10, "seed %llu: %u count moves, %u counted apart",
			      (unsigned long long)seed0, checked, apart);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("explain_fleet");
	TCase *c = tcase_create("count");
	tcase_add_test(c, a_count_move_says_why_that_shard_and_both_counts);
	tcase_add_test(c, a_count_move_says_what_the_mover_owns_and_is_counted_as);
	tcase_add_test(c, a_spread_move_says_nobody_has_a_count_move_and_names_the_floor);
	tcase_add_test(c, a_move_back_home_drops_the_count_override);
	tcase_add_test(c, a_keep_says_no_owner_changes_and_which_limit);
	suite_add_tcase(s, c);
	c = tcase_create("lag");
	tcase_add_test(c, a_lag_move_names_the_load_and_the_least_loaded);
	tcase_add_test(c, a_return_home_names_the_age_and_the_share);
	suite_add_tcase(s, c);
	c = tcase_create("clean_up");
	tcase_add_test(c, a_clean_up_drop_says_why_the_override_is_void_or_redundant);
	suite_add_tcase(s, c);
	c = tcase_create("policy");
	tcase_set_timeout(c, 60);
	tcase_add_test(c, every_action_a_fleet_emits_reads_as_its_own_sentence);
	tcase_add_test(c, a_count_move_by_a_member_with_shards_away_says_both);
	tcase_add_test(c, a_spread_move_claims_only_what_holds);
	tcase_add_test(c, a_keep_in_a_move_names_what_the_holder_counts);
	tcase_add_test(c, every_count_move_names_what_stats_shows);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
