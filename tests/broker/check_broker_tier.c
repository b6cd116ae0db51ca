/* check_broker_tier.c - the tier function (broker_tier.c): which member of a
 * candidate set takes a shard. The five tiers in order, the preference for a
 * member under the cluster share in tiers 1 and 2, the rendezvous draw within
 * a tier, tier 5's least loaded; the candidate sets (every eligible member
 * for a new shard, the live eligible followers for a failover, the zone
 * keepers for a hand-off, widened when none has room); the replica tiers of
 * a replica drain. Two properties check a reference model of the tiers
 * against every new shard's and every failover's choice on random layouts. */
#include <stdlib.h>

#include "broker_util.h"

/* ---- a reference model of the tiers (equal weights) ---------------------------- */

/* A candidate's rating: tier, preference, and what breaks ties. */
typedef struct rating {
	uint32_t m, tier, pref, leaders, replicas, rtie;
	uint64_t score;
} rating;

static uint64_t score_of(const tl *t, uint32_t k, uint32_t m)
{
	const pl_bytes *key = &t->k[k].key, *id = &t->m[m].id;
	return pl_score(pl_hash(key->ptr, key->len), pl_hash(id->ptr, id->len));
}

static int id_before(const tl *t, uint32_t a, uint32_t b)
{
	const pl_bytes *x = &t->m[a].id, *y = &t->m[b].id;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->ptr, y->ptr, n);
	return c ? c < 0 : x->len < y->len;
}

/* Shard k's tier for member m, counted on leaders, read off the view's
 * tallies: (1) under the stream floor, (2) under its ceiling, (3) under the
 * cluster share, (4) with room, (5) otherwise; tiers 1 to 4 need room, 1 and
 * 2 need a stream and stream_balance. */
static rating rate(const tl *t, const pl_view *v, uint32_t k, uint32_t m, uint32_t n_elig, int streams)
{
	rating r;
	uint32_t s = t->k[k].stream, in_stream = 0;
	for (uint32_t i = 0; i < t->nk; i++)
		in_stream += s != PL_NONE && t->k[i].stream == s;
	pl_tally y = tl_member_tally(v, m);
	pl_shard_state st;
	ck_assert_int_eq(pl_view_shard_state(v, k, &st), 0);
	int holds = 0;
	for (uint32_t j = 0; j < st.replica_count; j++)
		holds |= st.replicas[j] == m;
	uint32_t cap = t->m[m].max_shards, share = (t->nk + n_elig - 1) / n_elig;
	int room = cap == 0 || holds || y.replicas < cap;
	uint32_t count = s != PL_NONE ? tl_stream_tally(v, s, m).leaders : 0;
	uint32_t floor = in_stream / n_elig, ceiling = (in_stream + n_elig - 1) / n_elig;
	streams = streams && s != PL_NONE;
	r.m = m;
	r.leaders = y.leaders;
	r.replicas = y.replicas;
	r.tier = !room ? 5 : streams && count < floor ? 1 : streams && count < ceiling ? 2 : y.leaders < share ? 3 : 4;
	r.pref = r.tier <= 2 && y.leaders < share;
	r.rtie = s != PL_NONE ? tl_stream_tally(v, s, m).replicas : y.replicas;
	r.score = score_of(t, k, m);
	return r;
}

/* A new shard's leader breaks ties within a tier on the fewest replicas of
 * its stream (of all replicas with no stream), before the draw. */
static int better(const tl *t, const rating *a, const rating *b, int new_shard)
{
	if (a->tier != b->tier)
		return a->tier < b->tier;
	if (a->pref != b->pref)
		return a->pref > b->pref;
	if (a->tier == 5 && a->leaders != b->leaders)
		return a->leaders < b->leaders;
	if (a->tier == 5 && a->replicas != b->replicas)
		return a->replicas < b->replicas;
	if (new_shard && a->rtie != b->rtie)
		return a->rtie < b->rtie;
	if (a->score != b->score)
		return a->score > b->score;
	return id_before(t, a->m, b->m);
}

static uint32_t n_eligible(const tl *t)
{
	uint32_t n = 0;
	for (uint32_t m = 0; m < t->nm; m++)
		n += bu_eligible(t, m);
	return n;
}

/* The model's choice among the members `in` marks. */
static rating choose(const tl *t, const pl_view *v, uint32_t k, const uint8_t *in, int streams, int new_shard)
{
	rating best = {PL_NONE, 0, 0, 0, 0, 0, 0};
	uint32_t n_elig = n_eligible(t);
	for (uint32_t m = 0; m < t->nm; m++) {
		if (!in[m])
			continue;
		rating r = rate(t, v, k, m, n_elig, streams);
		if (best.m == PL_NONE || better(t, &r, &best, new_shard))
			best = r;
	}
	return best;
}

/* A random layout where nothing needs a leader, every weight 1, some caps
 * (some tight), maybe a draining member (the policy is paused, so it hands
 * nothing off and only placing runs). */
static tl *layout(uint64_t *rng)
{
	uint32_t nm = 2 + tl_below(rng, 7);
	tl *t = tl_random(rng, nm, tl_below(rng, 4), tl_below(rng, 40), 1 + tl_below(rng, 3), tl_below(rng, 2));
	for (uint32_t m = 0; m < nm; m++)
		if (tl_below(rng, 4) == 0)
			t->m[m].max_shards = 1 + tl_below(rng, 12);
	if (nm > 2 && tl_below(rng, 3) == 0)
		t->m[tl_below(rng, nm)].flags = PL_MEMBER_DRAINING;
	return t;
}

static pl_broker_config paused(uint64_t *rng)
{
	pl_broker_config cfg = bu_cfg();
	cfg.paused = 1;
	cfg.stream_balance = tl_below(rng, 4) != 0;
	return cfg;
}

START_TEST(property_a_new_shard_goes_to_the_first_tier_then_the_best_draw)
{
	uint64_t seed0 = tl_seed(0x7133u);
	uint32_t iters = tl_iters(300), by_tier[6] = {0};
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		tl *t = layout(&rng);
		uint32_t k = tl_shard(t, "fresh", t->ns ? tl_below(&rng, t->ns + 1) : PL_NONE, PL_NONE, 0);
		if (t->k[k].stream == t->ns)
			t->k[k].stream = PL_NONE;
		pl_broker_config cfg = paused(&rng);
		pl_view *v = tl_view(t, 0);
		uint8_t in[16];
		for (uint32_t m = 0; m < t->nm; m++)
			in[m] = (uint8_t)bu_eligible(t, m);
		rating want = choose(t, v, k, in, (int)cfg.stream_balance, 1);
		int n;
		pl_plan_info info;
		pl_action *a = bu_plan(t, &cfg, &n, &info);
		const pl_action *l = bu_find_leader(a, n, k);
		ck_assert_msg(l != NULL, "seed %llu: the new shard got no leader", (unsigned long long)seed);
		ck_assert_msg(l->to == want.m && l->tier == want.tier,
			      "seed %llu: tier %u to %u, the model says tier %u to %u (pref %u)", (unsigned long long)seed,
			      l->tier, l->to, want.tier, want.m, want.pref);
		by_tier[want.tier]++;
		tl_free(t);
	}
	/* Every tier reached: on the full run (a short PL_TEST_ITERS, as under
	 * valgrind, may miss one). */
	for (uint32_t tier = 1; tier <= 5 && iters >= 300; tier++)
		ck_assert_msg(by_tier[tier] > 0, "no layout of seed %llu chose tier %u", (unsigned long long)seed0, tier);
}
END_TEST

START_TEST(property_a_failover_promotes_the_best_live_eligible_follower)
{
	uint64_t seed0 = tl_seed(0xfa110u);
	uint32_t iters = tl_iters(300), promoted = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		tl *t = layout(&rng);
		/* A member that leads one shard, and is down. */
		uint32_t gone = tl_member(t, "gone", NULL);
		t->m[gone].flags = PL_MEMBER_DOWN;
		uint32_t k = tl_shard(t, "orphan", t->ns ? 0 : PL_NONE, gone, 1, gone);
		tl_add_replicas(t, k, 2 + tl_below(&rng, t->nm - 1 < 3 ? t->nm - 1 : 3), &rng);
		pl_broker_config cfg = paused(&rng);
		pl_view *v = tl_view(t, 0);
		uint8_t in[16] = {0};
		int any = 0;
		for (uint32_t j = 0; j < t->k[k].replica_count; j++) {
			uint32_t m = t->k[k].replicas[j];
			in[m] = (uint8_t)(m != gone && bu_eligible(t, m));
			any |= in[m];
		}
		rating want = choose(t, v, k, in, (int)cfg.stream_balance, 0);
		int n;
		pl_plan_info info;
		pl_action *a = bu_plan(t, &cfg, &n, &info);
		const pl_action *l = bu_find_leader(a, n, k);
		ck_assert_msg(l != NULL, "seed %llu: the orphan got no leader", (unsigned long long)seed);
		if (!any) {
			/* No eligible follower: another member takes a copy. */
			ck_assert_uint_eq(l->kind, PL_ACTION_MOVE_LEADER);
			ck_assert_uint_eq(l->flags, PL_ACTION_STAGE_FIRST);
			tl_free(t);
			continue;
		}
		ck_assert_msg(l->kind == PL_ACTION_SET_LEADER && l->to == want.m && l->tier == want.tier,
			      "seed %llu: %s to %u tier %u, the model says %u tier %u", (unsigned long long)seed,
			      pl_action_kind_name(l->kind), l->to, l->tier, want.m, want.tier);
		promoted++;
		tl_free(t);
	}
	ck_assert_uint_gt(promoted, iters / 2);
}
END_TEST

/* ---- the tiers, case by case ---------------------------------------------------- */

START_TEST(tier_5_takes_the_fewest_leaders_per_weight_then_replicas_per_weight)
{
	/* Every member at its cap. b0 (weight 2) leads 2 and b1 (weight 1)
	 * leads 1: the same per weight; b0 holds 2 replicas per 2, b1 2 per 1,
	 * so b0 is the less loaded, whatever the draw. */
	tl *t = bu_new(3, NULL);
	t->m[0].weight = 2;
	tl_shard(t, "a0", PL_NONE, 0, 1, 0u);
	tl_shard(t, "a1", PL_NONE, 0, 1, 0u);
	tl_shard(t, "b0", PL_NONE, 1, 2, 1u, 2u);
	tl_shard(t, "b1", PL_NONE, 2, 2, 2u, 1u);
	tl_shard(t, "c0", PL_NONE, 2, 1, 2u);
	t->m[0].max_shards = 2;
	t->m[1].max_shards = 2;
	t->m[2].max_shards = 3;
	uint32_t k = tl_shard(t, "fresh", PL_NONE, PL_NONE, 0);
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.paused = 1;
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	const pl_action *l = bu_leader_of(a, n, k);
	ck_assert_uint_eq(l->tier, 5);
	ck_assert_uint_eq(l->to, 0);
	/* b0 leading one more (3 per 2 against 1 per 1): b1. */
	tl_shard(t, "a2", PL_NONE, 0, 1, 0u);
	t->m[0].max_shards = 3;
	tl_view(t, 0);
	a = bu_plan(t, &cfg, &n, &info);
	l = bu_leader_of(a, n, k);
	ck_assert_uint_eq(l->tier, 5);
	ck_assert_uint_eq(l->to, 1);
	tl_free(t);
}
END_TEST

START_TEST(tiers_1_and_2_prefer_a_member_under_the_cluster_share_over_the_draw)
{
	/* orders: 4 shards led 1/1/1 plus the new one: floor 1, ceiling 2, all
	 * in tier 2. cache makes b0 and b1 heavy: 14 shards on 3, share 5;
	 * only b2 (1 in total) is under it, whatever the keys' draws. */
	for (int key = 0; key < 8; key++) {
		tl *t = bu_new(3, NULL);
		static const uint32_t o[] = {1, 1, 1}, c[] = {5, 5, 0};
		uint32_t s = bu_stream(t, "orders", o, 3, 1);
		bu_stream(t, "cache", c, 3, 1);
		uint32_t k = tl_shard(t, tl_str(t, "orders/new%d", key), s, PL_NONE, 0);
		tl_view(t, 0);
		pl_broker_config cfg = bu_cfg();
		cfg.paused = 1;
		int n;
		pl_plan_info info;
		pl_action *a = bu_plan(t, &cfg, &n, &info);
		const pl_action *l = bu_leader_of(a, n, k);
		ck_assert_uint_eq(l->tier, 2);
		ck_assert_uint_eq(l->to, 2);
		ck_assert_uint_eq(l->share, 5);
		tl_free(t);
	}
}
END_TEST

/* ---- the candidate sets ------------------------------------------------------------ */

/* orders/x led by b0 (za) with its other replica on b1 (zb); b2 (zb) and
 * b3 (zc), b3 leading orders/y and orders/z. x's index in *k. */
static tl *zoned_orders(uint32_t *k)
{
	static const char *const zones[] = {"za", "zb", "zb", "zc"};
	tl *t = bu_new(4, zones);
	uint32_t s = tl_stream(t, "orders");
	*k = tl_shard(t, "orders/x", s, 0, 2, 0u, 1u);
	tl_shard(t, "orders/y", s, 3, 1, 3u);
	tl_shard(t, "orders/z", s, 3, 1, 3u);
	return t;
}

/* A hand-off keeps the zone count: a member in a zone the shard's other
 * replica is in is passed over for one in a new zone, even from a better
 * tier; when no zone keeper has room the set widens to every eligible
 * member with room. */
START_TEST(a_hand_off_keeps_the_zones_and_widens_only_when_no_keeper_has_room)
{
	/* b0 drains, b1 is down. b2 (zb) leads nothing of orders: tier 1; b3
	 * (zc) leads 2. */
	uint32_t k;
	tl *t = zoned_orders(&k);
	t->m[0].flags = PL_MEMBER_DRAINING;
	t->m[1].flags = PL_MEMBER_DOWN;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	const pl_action *l = bu_leader_of(a, n, k);
	ck_assert_uint_eq(l->reason, PL_REASON_DRAIN);
	ck_assert_uint_eq(l->to, 3);
	ck_assert_uint_eq(l->flags, PL_ACTION_STAGE_FIRST);
	/* b3 at its cap: widened, b2 takes it (the shard then spans one zone). */
	t->m[3].max_shards = 2;
	tl_view(t, 0);
	a = bu_plan(t, &cfg, &n, &info);
	l = bu_leader_of(a, n, k);
	ck_assert_uint_eq(l->to, 2);
	ck_assert_uint_eq(l->tier, 1);
	tl_free(t);
}
END_TEST

/* A failover with no live eligible follower copies to the tier choice of
 * the zone keepers; when every member is at its cap it is still the zone
 * keepers' tier 5, not a member of the widened set that would lose a zone. */
START_TEST(a_failover_copy_at_every_cap_stays_with_the_zone_keepers)
{
	/* b0 is down, b1 drains (live, so a copy can be made, but no
	 * candidate). b2 (zb) leads one, b3 (zc) two: tier 5's least loaded
	 * is b2, but b2 would leave the shard in one zone. */
	uint32_t k;
	tl *t = zoned_orders(&k);
	tl_shard(t, "other", PL_NONE, 2, 1, 2u);
	t->m[0].flags = PL_MEMBER_DOWN;
	t->m[1].flags = PL_MEMBER_DRAINING;
	t->m[2].max_shards = 1;
	t->m[3].max_shards = 2;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.paused = 1;
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	const pl_action *l = bu_leader_of(a, n, k);
	ck_assert_uint_eq(l->kind, PL_ACTION_MOVE_LEADER);
	ck_assert_uint_eq(l->reason, PL_REASON_FAILOVER);
	ck_assert_uint_eq(l->tier, 5);
	ck_assert_uint_eq(l->to, 3);
	tl_free(t);
}
END_TEST

/* A replica drain is rated on replicas: the member under the stream's
 * replica floor wins, and a member already holding the shard is never a
 * candidate. */
START_TEST(a_replica_drain_is_rated_on_the_streams_replicas)
{
	/* orders: 4 shards, RF 2: 8 replicas over the 3 eligible members,
	 * floor 2, ceiling 3. b3 drains its follower replica of orders/0; b1
	 * holds 3 of orders, b2 1: b2 is under the floor. b0 holds orders/0
	 * already. */
	tl *t = bu_new(4, NULL);
	uint32_t s = tl_stream(t, "orders");
	uint32_t k = tl_shard(t, "orders/0", s, 0, 2, 0u, 3u);
	tl_shard(t, "orders/1", s, 1, 2, 1u, 0u);
	tl_shard(t, "orders/2", s, 1, 2, 1u, 0u);
	tl_shard(t, "orders/3", s, 1, 2, 1u, 2u);
	t->m[3].flags = PL_MEMBER_DRAINING;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_ge(n, 1);
	ck_assert_uint_eq(a[0].kind, PL_ACTION_MOVE_REPLICA);
	ck_assert_uint_eq(a[0].reason, PL_REASON_REPLICA_DRAIN);
	ck_assert_uint_eq(a[0].shard, k);
	ck_assert_uint_eq(a[0].to, 2);
	ck_assert_uint_eq(a[0].tier, 1);
	ck_assert_uint_eq(a[0].scope, PL_SCOPE_STREAM_REPLICAS);
	ck_assert_uint_eq(a[0].to_count, 1);
	ck_assert_uint_eq(a[0].total, 8);
	ck_assert_uint_eq(a[0].floor, 2);
	ck_assert_uint_eq(a[0].ceiling, 3);
	tl_free(t);
}
END_TEST

/* Of no stream, a replica drain is rated on the replicas in total: a member
 * under the replica share wins over one at it, whatever the draw (and
 * whatever either leads). */
START_TEST(a_replica_drain_of_no_stream_goes_under_the_replica_share)
{
	for (int key = 0; key < 8; key++) {
		/* b0 leads 3 and holds 3; b1 leads none and holds 5; 15
		 * replicas over 3 eligible members: share 5. */
		tl *t = bu_new(4, NULL);
		for (int i = 0; i < 3; i++)
			tl_shard(t, tl_str(t, "p%d", i), PL_NONE, 0, 1, 0u);
		for (int i = 0; i < 5; i++)
			tl_shard(t, tl_str(t, "q%d", i), PL_NONE, 2, 2, 2u, 1u);
		uint32_t k = tl_shard(t, tl_str(t, "x%d", key), PL_NONE, 2, 2, 2u, 3u);
		t->m[3].flags = PL_MEMBER_DRAINING;
		tl_view(t, 0);
		pl_broker_config cfg = bu_cfg();
		int n;
		pl_plan_info info;
		pl_action *a = bu_plan(t, &cfg, &n, &info);
		ck_assert_int_ge(n, 1);
		ck_assert_uint_eq(a[0].reason, PL_REASON_REPLICA_DRAIN);
		ck_assert_uint_eq(a[0].shard, k);
		ck_assert_uint_eq(a[0].to, 0);
		ck_assert_uint_eq(a[0].tier, 3);
		ck_assert_uint_eq(a[0].scope, PL_SCOPE_REPLICAS);
		ck_assert_uint_eq(a[0].share, 5);
		tl_free(t);
	}
}
END_TEST

/* A member at its max_moves_in is no candidate: the next one takes it; when
 * the only one with room is at its limit the hand-off waits, naming it. */
START_TEST(a_member_at_its_moves_in_limit_is_passed_over)
{
	tl *t = bu_new(4, NULL);
	uint32_t s = tl_stream(t, "orders");
	tl_shard(t, "orders/0", s, 0, 1, 0u);
	tl_shard(t, "orders/1", s, 0, 1, 0u);
	tl_shard(t, "orders/2", s, 1, 1, 1u);
	tl_shard(t, "orders/3", s, 2, 1, 2u);
	t->m[0].flags = PL_MEMBER_DRAINING;
	tl_view(t, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 2;
	cfg.max_moves_in = 1;
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	/* b3 leads nothing of orders (tier 1) and takes the first; the second
	 * would go to b3 too, but b3 is at its limit: another member. */
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(a[0].to, 3);
	ck_assert_uint_ne(a[1].to, 3);
	ck_assert_uint_ne(a[1].to, 0);
	/* Only b3 has room: the second hand-off waits on b3. */
	t->m[1].max_shards = 1;
	t->m[2].max_shards = 1;
	tl_view(t, 0);
	a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].to, 3);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	ck_assert_uint_eq(info.detail, 3);
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("broker_tier");
	TCase *c = tcase_create("tiers");
	tcase_add_test(c, tier_5_takes_the_fewest_leaders_per_weight_then_replicas_per_weight);
	tcase_add_test(c, tiers_1_and_2_prefer_a_member_under_the_cluster_share_over_the_draw);
	suite_add_tcase(s, c);
	c = tcase_create("sets");
	tcase_add_test(c, a_hand_off_keeps_the_zones_and_widens_only_when_no_keeper_has_room);
	tcase_add_test(c, a_failover_copy_at_every_cap_stays_with_the_zone_keepers);
	tcase_add_test(c, a_replica_drain_is_rated_on_the_streams_replicas);
	tcase_add_test(c, a_replica_drain_of_no_stream_goes_under_the_replica_share);
	tcase_add_test(c, a_member_at_its_moves_in_limit_is_passed_over);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 60);
	tcase_add_test(c, property_a_new_shard_goes_to_the_first_tier_then_the_best_draw);
	tcase_add_test(c, property_a_failover_promotes_the_best_live_eligible_follower);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
