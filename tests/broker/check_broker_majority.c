/* check_broker_majority.c - the per-stream zone rule PL_ZONES_MAJORITY
 * (snapshot.stream_zone_rule; Kudu's placement rule): no zone holds more
 * than (n - 1) / 2 of a shard's n replicas (at least 1), or, where the
 * zones that can take one are too few, ceil(n / zones). Zone repair lowers
 * a shard's excess over that limit, no move raises it, new shards are
 * placed within it, a stream of the span rule beside it is left as it was,
 * and a rule past PL_ZONES_RULE_MAX is refused. A property runs the dry run
 * on random layouts (draining and down members, caps, move limits) and
 * checks every action against a mirror of the replica sets kept here; the
 * same layouts in shuffled arrays give the same actions. */
#include <stdlib.h>

#include "broker_util.h"

/* ---- the rule, counted on a mirror of the replica sets --------------------- */

/* Zone ids of t's members: equal non-empty zone bytes share one. */
static void zone_ids(const tl *t, uint32_t *zone)
{
	for (uint32_t m = 0; m < t->nm; m++) {
		zone[m] = m;
		for (uint32_t o = 0; o < m; o++)
			if (bu_same_zone(t, o, m)) {
				zone[m] = zone[o];
				break;
			}
	}
}

/* Replicas of a set in zone z. */
static uint32_t held_in(const uint32_t *zone, const uint32_t *rep, uint32_t n, uint32_t z)
{
	uint32_t c = 0;
	for (uint32_t j = 0; j < n; j++)
		c += zone[rep[j]] == z;
	return c;
}

static uint32_t most_in_a_zone(const uint32_t *zone, const uint32_t *rep, uint32_t n)
{
	uint32_t most = 0;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t c = held_in(zone, rep, n, zone[rep[j]]);
		most = c > most ? c : most;
	}
	return most;
}

static uint32_t base_of(uint32_t n)
{
	return n > 2 ? (n - 1) / 2 : 1;
}

/* The sum over zones of max(0, held - lim). */
static uint32_t excess_over(const uint32_t *zone, const uint32_t *rep, uint32_t n, uint32_t lim)
{
	uint32_t x = 0;
	for (uint32_t j = 0; j < n; j++) {
		int first = 1;
		for (uint32_t i = 0; i < j; i++)
			first &= zone[rep[i]] != zone[rep[j]];
		uint32_t c = held_in(zone, rep, n, zone[rep[j]]);
		x += first && c > lim ? c - lim : 0;
	}
	return x;
}

/* The sum over zones of max(0, held - base)^2: what no move may raise. */
static uint64_t squares_over(const uint32_t *zone, const uint32_t *rep, uint32_t n)
{
	uint64_t x = 0;
	uint32_t lim = base_of(n);
	for (uint32_t j = 0; j < n; j++) {
		int first = 1;
		for (uint32_t i = 0; i < j; i++)
			first &= zone[rep[i]] != zone[rep[j]];
		uint32_t c = held_in(zone, rep, n, zone[rep[j]]);
		if (first && c > lim)
			x += (uint64_t)(c - lim) * (c - lim);
	}
	return x;
}

/* A mirror: every shard's replicas and leader, members' replica counts. */
typedef struct mj {
	const tl *t;
	uint32_t zone[64];
	uint32_t rep[256][PL_MAX_REPLICAS], n[256], lead[256];
	uint32_t held[64];
} mj;

static void mj_init(mj *x, const tl *t)
{
	ck_assert_uint_le(t->nm, 64);
	ck_assert_uint_le(t->nk, 256);
	memset(x, 0, sizeof *x);
	x->t = t;
	zone_ids(t, x->zone);
	for (uint32_t k = 0; k < t->nk; k++) {
		x->n[k] = t->k[k].replica_count;
		x->lead[k] = t->k[k].leader;
		for (uint32_t j = 0; j < x->n[k]; j++) {
			x->rep[k][j] = t->k[k].replicas[j];
			x->held[x->rep[k][j]]++;
		}
	}
}

static int mj_holds(const mj *x, uint32_t k, uint32_t m)
{
	for (uint32_t j = 0; j < x->n[k]; j++)
		if (x->rep[k][j] == m)
			return 1;
	return 0;
}

static int mj_room(const mj *x, uint32_t m)
{
	const pl_member *p = &x->t->m[m];
	return bu_eligible(x->t, m) && (p->max_shards == 0 || x->held[m] < p->max_shards);
}

/* Shard k's limit: the base, or ceil(n / zones that can take one) when
 * those are too few (zones with an eligible member with room, and zones
 * its replicas are in). */
static uint32_t mj_limit(const mj *x, uint32_t k)
{
	uint32_t nz = 0, seen[64];
	for (uint32_t m = 0; m < x->t->nm; m++) {
		if (!mj_room(x, m) && !mj_holds(x, k, m))
			continue;
		int dup = 0;
		for (uint32_t i = 0; i < nz; i++)
			dup |= seen[i] == x->zone[m];
		if (!dup)
			seen[nz++] = x->zone[m];
	}
	uint32_t n = x->n[k], fit = nz ? (n + nz - 1) / nz : n, base = base_of(n);
	return fit > base ? fit : base;
}

static uint32_t mj_excess(const mj *x, uint32_t k)
{
	return excess_over(x->zone, x->rep[k], x->n[k], mj_limit(x, k));
}

static void mj_replace(mj *x, uint32_t k, uint32_t from, uint32_t to)
{
	if (mj_holds(x, k, to))
		return;
	for (uint32_t j = 0; j < x->n[k]; j++)
		if (x->rep[k][j] == from) {
			x->rep[k][j] = to;
			x->held[from]--;
			x->held[to]++;
			return;
		}
	ck_abort_msg("shard %u: %u holds no replica to move", k, from);
}

static void mj_apply(mj *x, const pl_action *a)
{
	uint32_t k = a->shard;
	switch (a->kind) {
	case PL_ACTION_ADD_REPLICA:
		x->rep[k][x->n[k]++] = a->to;
		x->held[a->to]++;
		break;
	case PL_ACTION_SET_LEADER:
		x->lead[k] = a->to;
		break;
	case PL_ACTION_MOVE_LEADER:
		if (a->from != PL_NONE && !mj_holds(x, k, a->to))
			mj_replace(x, k, a->from, a->to);
		x->lead[k] = a->to;
		break;
	case PL_ACTION_MOVE_REPLICA:
		mj_replace(x, k, a->from, a->to);
		if (a->flags & PL_ACTION_CARRIES_LEADER)
			x->lead[k] = a->to;
		break;
	default:
		ck_abort_msg("unexpected action kind %u", a->kind);
	}
}

/* ---- layouts ------------------------------------------------------------------ */

static uint32_t rules[64];

/* Set stream s's rule (the snapshot's array points at rules). */
static void rule(tl *t, uint32_t s, uint32_t r)
{
	ck_assert_uint_lt(s, 64);
	rules[s] = r;
	t->snap.stream_zone_rule = rules;
}

static tl *zoned(uint32_t n, uint32_t per_zone)
{
	tl *t = tl_new();
	for (uint32_t m = 0; m < n; m++)
		tl_member(t, tl_str(t, "b%u", m), tl_str(t, "z%u", m / per_zone));
	memset(rules, 0, sizeof rules);
	return t;
}

/* A shard of stream s led by reps[0], with its n replicas. */
static uint32_t shard(tl *t, const char *key, uint32_t s, const uint32_t *reps, uint32_t n)
{
	uint32_t k = tl_shard(t, key, s, reps[0], 0);
	memcpy(t->k[k].replicas, reps, n * sizeof *reps);
	t->k[k].replica_count = n;
	return k;
}

/* Which layout a failure is in (the property's seed), or empty. */
static char where[96];

/* The dry run of t, replayed on a mirror: every action of a majority shard
 * keeps its squares from rising and its excess from rising. The mirror
 * ends holding the layout the run leaves. */
static pl_action *dry_checked(tl *t, const pl_broker_config *cfg, mj *x, uint32_t *n, pl_plan_info *info)
{
	pl_action *a = bu_dry(t, cfg, n, info, NULL);
	ck_assert_msg(info->status != PL_STATUS_FULL, "%sthe dry run did not end", where);
	mj_init(x, t);
	for (uint32_t i = 0; i < *n; i++) {
		uint32_t k = a[i].shard;
		int maj = t->snap.stream_zone_rule && t->k[k].stream != PL_NONE &&
			  t->snap.stream_zone_rule[t->k[k].stream] == PL_ZONES_MAJORITY;
		/* A failover is no move (the shard serves nothing until it has a
		 * leader): with no member that keeps the rule it takes any. */
		int move = (a[i].kind == PL_ACTION_MOVE_REPLICA || a[i].kind == PL_ACTION_MOVE_LEADER) &&
			   a[i].reason != PL_REASON_FAILOVER;
		uint64_t sq = squares_over(x->zone, x->rep[k], x->n[k]);
		uint32_t ex = mj_excess(x, k);
		mj_apply(x, &a[i]);
		if (maj && move && (squares_over(x->zone, x->rep[k], x->n[k]) > sq || mj_excess(x, k) > ex)) {
			printf("%sthe run:\n", where);
			bu_print(t, a, *n);
			fflush(stdout);
		}
		if (maj && move) {
			ck_assert_msg(squares_over(x->zone, x->rep[k], x->n[k]) <= sq, "%saction %u raised shard %u's squares", where, i, k);
			ck_assert_msg(mj_excess(x, k) <= ex, "%saction %u raised shard %u's excess", where, i, k);
		}
	}
	return a;
}

/* ---- the examples -------------------------------------------------------------- */

/* 9 members, 3 a zone (b0-b2 z0, b3-b5 z1, b6-b8 z2); shards of 6 replicas
 * 3/2/1 over the zones: they span every zone, so the span rule leaves them. */
static tl *six_over_three(uint32_t *maj, uint32_t *span)
{
	tl *t = zoned(9, 3);
	static const uint32_t r[][6] = {{0, 1, 2, 3, 4, 6}, {3, 4, 5, 6, 7, 0}, {6, 7, 8, 0, 1, 3}};
	*maj = tl_stream(t, "maj");
	*span = tl_stream(t, "span");
	for (uint32_t i = 0; i < 3; i++) {
		shard(t, tl_str(t, "maj/%02u", i), *maj, r[i], 6);
		shard(t, tl_str(t, "span/%02u", i), *span, r[i], 6);
	}
	return t;
}

START_TEST(the_span_rule_alone_leaves_three_of_six_in_a_zone)
{
	uint32_t maj, span, n;
	tl *t = six_over_three(&maj, &span);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	mj x;
	pl_action *a = dry_checked(t, &cfg, &x, &n, &info);
	ck_assert_uint_eq(bu_count_kind(a, n, PL_ACTION_MOVE_REPLICA, PL_REASON_ZONE_REPAIR), 0);
	free(a);
	tl_free(t);
}
END_TEST

START_TEST(majority_moves_a_replica_of_six_out_of_the_zone_holding_three)
{
	uint32_t maj, span, n;
	tl *t = six_over_three(&maj, &span);
	rule(t, maj, PL_ZONES_MAJORITY);
	rule(t, span, PL_ZONES_SPAN);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	mj x;
	pl_action *a = dry_checked(t, &cfg, &x, &n, &info);
	uint32_t repairs = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (a[i].reason != PL_REASON_ZONE_REPAIR)
			continue;
		repairs++;
		ck_assert_uint_eq(a[i].stream, maj); /* the span stream is left to its rule */
		ck_assert_uint_eq(a[i].kind, PL_ACTION_MOVE_REPLICA);
		ck_assert_uint_eq(a[i].scope, PL_SCOPE_ZONES);
		ck_assert(a[i].flags & PL_ACTION_STAGE_FIRST);
		ck_assert(!(a[i].flags & PL_ACTION_CARRIES_LEADER));
		ck_assert_uint_ne(a[i].from, t->k[a[i].shard].leader);
		ck_assert_uint_eq(a[i].from_count, 3); /* it spans all three zones, before and after */
		ck_assert_uint_eq(a[i].to_count, 3);
		ck_assert_uint_eq(a[i].total, 3);
		ck_assert(!bu_same_zone(t, a[i].from, a[i].to));
	}
	ck_assert_uint_eq(repairs, 3); /* one a shard: each lowers its excess from 1 to 0 */
	for (uint32_t k = 0; k < t->nk; k++) {
		uint32_t most = most_in_a_zone(x.zone, x.rep[k], x.n[k]);
		if (t->k[k].stream == maj)
			ck_assert_msg(most <= 2, "shard %u ends with %u of 6 in a zone", k, most);
	}
	uint32_t len;
	ck_assert_int_eq(bu_loop_differs(t, &cfg, &len), -1);
	free(a);
	tl_free(t);
}
END_TEST

START_TEST(majority_of_three_over_three_zones_is_one_a_zone)
{
	tl *t = zoned(6, 2);
	uint32_t s = tl_stream(t, "maj"), n;
	rule(t, s, PL_ZONES_MAJORITY);
	static const uint32_t r[][3] = {{0, 1, 2}, {2, 3, 4}, {4, 5, 0}, {1, 0, 3}};
	for (uint32_t i = 0; i < 4; i++)
		shard(t, tl_str(t, "maj/%02u", i), s, r[i], 3);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	mj x;
	pl_action *a = dry_checked(t, &cfg, &x, &n, &info);
	for (uint32_t k = 0; k < t->nk; k++)
		ck_assert_uint_eq(most_in_a_zone(x.zone, x.rep[k], x.n[k]), 1);
	free(a);
	tl_free(t);
}
END_TEST

START_TEST(five_over_two_zones_ends_three_and_two)
{
	tl *t = zoned(10, 5); /* b0-b4 z0, b5-b9 z1 */
	uint32_t s = tl_stream(t, "maj"), n;
	rule(t, s, PL_ZONES_MAJORITY);
	static const uint32_t r[][5] = {{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}, {1, 2, 3, 4, 5}, {6, 7, 8, 9, 0}};
	for (uint32_t i = 0; i < 4; i++)
		shard(t, tl_str(t, "maj/%02u", i), s, r[i], 5);
	pl_broker_config cfg = bu_cfg();
	pl_plan_info info;
	mj x;
	pl_action *a = dry_checked(t, &cfg, &x, &n, &info);
	ck_assert_uint_eq(info.status, PL_STATUS_BALANCED); /* the plan ends */
	for (uint32_t k = 0; k < t->nk; k++) {
		ck_assert_uint_eq(most_in_a_zone(x.zone, x.rep[k], x.n[k]), 3);
		ck_assert_uint_eq(mj_excess(&x, k), 0);
	}
	/* 5/0 -> 4/1 (span) -> 3/2 (majority); 4/1 -> 3/2: six repairs. */
	ck_assert_uint_eq(bu_count_kind(a, n, PL_ACTION_MOVE_REPLICA, PL_REASON_ZONE_REPAIR), 6);
	uint32_t len;
	ck_assert_int_eq(bu_loop_differs(t, &cfg, &len), -1);
	free(a);
	tl_free(t);
}
END_TEST

START_TEST(new_shards_of_a_majority_stream_are_placed_within_the_limit)
{
	for (uint32_t rf = 3; rf <= 6; rf++) {
		tl *t = zoned(9, 3);
		uint32_t s = bu_new_stream(t, "maj", 12), n;
		rule(t, s, PL_ZONES_MAJORITY);
		pl_broker_config cfg = bu_cfg();
		cfg.replication_factor = rf;
		pl_plan_info info;
		mj x;
		pl_action *a = dry_checked(t, &cfg, &x, &n, &info);
		ck_assert_uint_eq(bu_count_kind(a, n, PL_ACTION_ADD_REPLICA, PL_REASON_NEW), 12 * rf);
		/* At most (rf - 1) / 2 a zone; rf 4 over 3 zones: 2/1/1. */
		uint32_t lim = rf == 4 ? 2 : base_of(rf);
		for (uint32_t k = 0; k < t->nk; k++) {
			ck_assert_uint_eq(x.n[k], rf);
			ck_assert_uint_eq(mj_limit(&x, k), lim);
			ck_assert_msg(most_in_a_zone(x.zone, x.rep[k], x.n[k]) <= lim, "rf %u shard %u: %u in a zone", rf, k,
				      most_in_a_zone(x.zone, x.rep[k], x.n[k]));
		}
		ck_assert_uint_eq(bu_count_kind(a, n, PL_ACTION_MOVE_REPLICA, PL_REASON_ZONE_REPAIR), 0);
		free(a);
		tl_free(t);
	}
}
END_TEST

START_TEST(a_zone_rule_past_the_last_is_refused_and_nothing_is_written)
{
	uint32_t maj, span;
	tl *t = six_over_three(&maj, &span);
	rule(t, maj, PL_ZONES_MAJORITY);
	rule(t, span, 2);
	pl_diag d = {0, 0, 0, 0};
	const pl_snapshot *snap = tl_snap(t);
	size_t size = pl_view_size(snap);
	void *mem = malloc(size);
	ck_assert_ptr_nonnull(mem);
	pl_view *v = (pl_view *)&d, *before = v; /* a sentinel: not written on error */
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	ck_assert_int_eq(pl_view_init(&v, mem, size, snap, &opt, &d), PL_E_ZONE_RULE);
	ck_assert_ptr_eq(v, before);
	ck_assert_int_eq(d.code, PL_E_ZONE_RULE);
	ck_assert_uint_eq(d.kind, PL_ELEM_STREAM);
	ck_assert_uint_eq(d.index, span);
	size_t need = pl_snapshot_work_size(snap);
	void *work = malloc(need);
	memset(&d, 0, sizeof d);
	ck_assert_int_eq(pl_snapshot_validate(snap, work, need, &d), PL_E_ZONE_RULE);
	ck_assert_uint_eq(d.kind, PL_ELEM_STREAM);
	ck_assert_uint_eq(d.index, span);
	/* The same snapshot with the rule in range builds. */
	rules[span] = PL_ZONES_SPAN;
	ck_assert_int_eq(pl_view_init(&v, mem, size, snap, &opt, &d), 0);
	ck_assert_ptr_ne(v, before);
	free(mem);
	free(work);
	tl_free(t);
}
END_TEST

/* ---- the property ---------------------------------------------------------------- */

/* A random layout: 4-12 members in 2-4 zones, 1-3 streams each of the
 * majority or the span rule, 2-8 shards a stream with 3-6 replicas (a few
 * new), some members draining or down, some capped. */
static tl *random_layout(uint64_t *rng)
{
	tl *t = tl_new();
	memset(rules, 0, sizeof rules);
	uint32_t nm = 4 + tl_below(rng, 9), nz = 2 + tl_below(rng, 3);
	for (uint32_t m = 0; m < nm; m++) {
		uint32_t z = m < nz ? m : tl_below(rng, nz);
		tl_member(t, tl_str(t, "b%02u", m), tl_str(t, "z%u", z));
	}
	uint32_t ns = 1 + tl_below(rng, 3);
	for (uint32_t s = 0; s < ns; s++) {
		tl_stream(t, tl_str(t, "s%u", s));
		rules[s] = tl_below(rng, 3) ? PL_ZONES_MAJORITY : PL_ZONES_SPAN;
		uint32_t nk = 2 + tl_below(rng, 7);
		for (uint32_t i = 0; i < nk; i++) {
			uint32_t k = tl_shard(t, tl_str(t, "s%u/%02u", s, i), s, PL_NONE, 0);
			if (tl_below(rng, 10) == 0)
				continue; /* new */
			uint32_t rf = 3 + tl_below(rng, 4);
			rf = rf < nm ? rf : nm;
			while (t->k[k].replica_count < rf) {
				uint32_t m = tl_below(rng, nm), dup = 0;
				for (uint32_t j = 0; j < t->k[k].replica_count; j++)
					dup |= t->k[k].replicas[j] == m;
				if (!dup)
					t->k[k].replicas[t->k[k].replica_count++] = m;
			}
			t->k[k].leader = t->k[k].replicas[tl_below(rng, rf)];
		}
	}
	t->snap.stream_zone_rule = rules;
	for (uint32_t m = 1; m < nm; m++) { /* b00 stays eligible */
		uint32_t r = tl_below(rng, 16);
		if (r == 0)
			t->m[m].flags = PL_MEMBER_DOWN;
		else if (r == 1)
			t->m[m].flags = PL_MEMBER_DRAINING;
	}
	mj x;
	mj_init(&x, t);
	for (uint32_t m = 0; m < nm; m++)
		if (tl_below(rng, 4) == 0)
			t->m[m].max_shards = x.held[m] + tl_below(rng, 3);
	return t;
}

/* May majority shard k end with an excess: it has no live leader (1), no
 * member with room in a zone below its limit (2), or its zones past the
 * limit hold only its leader and draining members, the drains' to move (3);
 * 0 when none of these holds. */
static int excess_excused(const mj *x, uint32_t k)
{
	const tl *t = x->t;
	uint32_t lim = mj_limit(x, k), n = x->n[k];
	if (n < 2 || x->lead[k] == PL_NONE || (t->m[x->lead[k]].flags & PL_MEMBER_DOWN))
		return 1;
	int dest = 0, src = 0;
	for (uint32_t m = 0; m < t->nm; m++)
		dest |= mj_room(x, m) && !mj_holds(x, k, m) && held_in(x->zone, x->rep[k], n, x->zone[m]) < lim;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t m = x->rep[k][j];
		src |= m != x->lead[k] && held_in(x->zone, x->rep[k], n, x->zone[m]) > lim &&
		       (bu_eligible(t, m) || (t->m[m].flags & PL_MEMBER_DOWN));
	}
	return !dest ? 2 : !src ? 3 : 0;
}

START_TEST(property_no_move_raises_a_majority_excess_and_the_plan_ends_within_the_limit)
{
	uint64_t seed = tl_seed(0x6d616a6f72697479ull), rng = seed;
	uint32_t iters = tl_iters(200), shards = 0, zero = 0, excused[4] = {0, 0, 0, 0}, repairs = 0, began = 0;
	uint64_t acts = 0, acts_span = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t at = rng;
		tl *t = random_layout(&rng);
		pl_broker_config cfg = bu_cfg();
		cfg.max_moves = 1 + tl_below(&rng, 4);
		cfg.max_moves_in = tl_below(&rng, 3);
		cfg.replication_factor = 3 + tl_below(&rng, 3);
		mj x;
		mj_init(&x, t);
		for (uint32_t k = 0; k < t->nk; k++)
			began += rules[t->k[k].stream] == PL_ZONES_MAJORITY && x.n[k] > 0 && mj_excess(&x, k) > 0;
		uint32_t n;
		pl_plan_info info;
		snprintf(where, sizeof where, "seed %llu layout %u: ", (unsigned long long)seed, it);
		pl_action *a = dry_checked(t, &cfg, &x, &n, &info);
		for (uint32_t i = 0; i < n; i++)
			repairs += a[i].reason == PL_REASON_ZONE_REPAIR && rules[a[i].stream] == PL_ZONES_MAJORITY &&
				   a[i].from_count == a[i].to_count;
		for (uint32_t k = 0; k < t->nk; k++) {
			if (rules[t->k[k].stream] != PL_ZONES_MAJORITY)
				continue;
			shards++;
			if (mj_excess(&x, k) == 0) {
				zero++;
				continue;
			}
			int why = excess_excused(&x, k);
			excused[why]++;
			ck_assert_msg(why != 0, "seed %llu layout %u (rng 0x%llx): shard %u ends with excess %u",
				      (unsigned long long)seed, it, (unsigned long long)at, k, mj_excess(&x, k));
		}
		/* What the same layout costs with every stream spanning. */
		acts += n;
		uint32_t n_span;
		pl_plan_info info_span;
		t->snap.stream_zone_rule = NULL;
		tl_view(t, 0); /* afresh: the first dry run's view ends where it left it */
		free(bu_dry(t, &cfg, &n_span, &info_span, NULL));
		t->snap.stream_zone_rule = rules;
		acts_span += n_span;
		uint32_t len;
		int d = bu_loop_differs(t, &cfg, &len);
		ck_assert_msg(d == -1, "seed %llu layout %u: the tick loop differs from the dry run at %d of %u",
			      (unsigned long long)seed, it, d, len);
		free(a);
		tl_free(t);
	}
	where[0] = 0;
	printf("majority: %u layouts, %u majority shards (%u past the limit before), %u end within it; past it: %u "
	       "with no live leader, %u with no member with room in a zone below it, %u with only the leader and "
	       "draining members past it; %u majority repairs; %llu actions in all, %llu with every stream spanning\n",
	       iters, shards, began, zero, excused[1], excused[2], excused[3], repairs, (unsigned long long)acts,
	       (unsigned long long)acts_span);
}
END_TEST

/* The same content in shuffled arrays (the rules shuffled with the
 * streams, each replica list too) gives the same actions, compared by ids. */
START_TEST(shuffled_arrays_give_the_same_actions)
{
	uint64_t seed = tl_seed(0x73687566ull), rng = seed;
	uint32_t iters = tl_iters(200);
	static uint32_t urules[64];
	for (uint32_t it = 0; it < iters; it++) {
		tl *t = random_layout(&rng);
		pl_broker_config cfg = bu_cfg();
		cfg.max_moves = 1 + tl_below(&rng, 4);
		tl *u = tl_shuffled(t, &rng);
		for (uint32_t i = 0; i < t->ns; i++)
			urules[u->perm_s[i]] = rules[i];
		u->snap.stream_zone_rule = urules;
		char layout[96];
		snprintf(layout, sizeof layout, "seed %llu layout %u", (unsigned long long)seed, it);
		bu_expect_same_mapped(t, u, &cfg, BU_SAME_FLAGS | BU_SAME_COUNTS | BU_SAME_TOTAL, layout);
		tl_free(u);
		tl_free(t);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("broker_majority");
	TCase *c = tcase_create("rule");
	tcase_add_test(c, the_span_rule_alone_leaves_three_of_six_in_a_zone);
	tcase_add_test(c, majority_moves_a_replica_of_six_out_of_the_zone_holding_three);
	tcase_add_test(c, majority_of_three_over_three_zones_is_one_a_zone);
	tcase_add_test(c, five_over_two_zones_ends_three_and_two);
	tcase_add_test(c, new_shards_of_a_majority_stream_are_placed_within_the_limit);
	tcase_add_test(c, a_zone_rule_past_the_last_is_refused_and_nothing_is_written);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, property_no_move_raises_a_majority_excess_and_the_plan_ends_within_the_limit);
	tcase_add_test(c, shuffled_arrays_give_the_same_actions);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
