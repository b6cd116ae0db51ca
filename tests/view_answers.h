/* view_answers.h - two views of one snapshot answer every call alike:
 * counts, orders, tallies in total and per stream, homes, owners, shard
 * states, and a fleet decision and a broker plan action for action. The
 * suites that build one view two ways compare them with it. */
#ifndef VIEW_ANSWERS_H
#define VIEW_ANSWERS_H
#include <check.h>
#include <inttypes.h>
#include <string.h>

#include "placement.h"
#include "testutil.h"

/* Every answer of a and b, the same snapshot's views, compared. */
static inline void same_answers(pl_view *a, pl_view *b, const tl *t, uint64_t seed, uint32_t tick)
{
	pl_view_counts ca, cb;
	memset(&ca, 0, sizeof ca);
	memset(&cb, 0, sizeof cb);
	ck_assert_int_eq(pl_view_stats(a, &ca), 0);
	ck_assert_int_eq(pl_view_stats(b, &cb), 0);
	ck_assert_msg(memcmp(&ca, &cb, sizeof ca) == 0, "seed %" PRIu64 " tick %u: counts differ", seed, tick);
	uint32_t elem[3] = {PL_ELEM_MEMBER, PL_ELEM_STREAM, PL_ELEM_SHARD}, n[3] = {t->nm, t->ns, t->nk};
	for (int e = 0; e < 3; e++)
		for (uint32_t i = 0; i < n[e]; i++)
			ck_assert_msg(pl_view_at(a, elem[e], i) == pl_view_at(b, elem[e], i),
				      "seed %" PRIu64 " tick %u: order of kind %u differs at %u", seed, tick, elem[e], i);
	for (uint32_t m = 0; m < t->nm; m++) {
		pl_tally x = tl_member_tally(a, m), y = tl_member_tally(b, m);
		ck_assert_msg(memcmp(&x, &y, sizeof x) == 0, "seed %" PRIu64 " tick %u: member %u tally", seed, tick, m);
		for (uint32_t s = 0; s < t->ns; s++) {
			x = tl_stream_tally(a, s, m);
			y = tl_stream_tally(b, s, m);
			ck_assert_msg(memcmp(&x, &y, sizeof x) == 0, "seed %" PRIu64 " tick %u: stream tally", seed, tick);
		}
	}
	for (uint32_t k = 0; k < t->nk; k++) {
		ck_assert_msg(pl_view_home(a, k) == pl_view_home(b, k), "seed %" PRIu64 " tick %u: home of %s", seed,
			      tick, t->k[k].key.ptr);
		ck_assert_msg(pl_fleet_owner(a, k) == pl_fleet_owner(b, k), "seed %" PRIu64 " tick %u: owner", seed, tick);
		pl_shard_state x, y;
		memset(&x, 0, sizeof x);
		memset(&y, 0, sizeof y);
		ck_assert_int_eq(pl_view_shard_state(a, k, &x), 0);
		ck_assert_int_eq(pl_view_shard_state(b, k, &y), 0);
		ck_assert_msg(memcmp(&x, &y, sizeof x) == 0, "seed %" PRIu64 " tick %u: shard state", seed, tick);
	}
	/* The policies: a fleet decision and a broker plan, action for action. */
	pl_action oa[64], ob[64];
	pl_plan_info ia, ib;
	int ra, rb;
	if (t->nm > 0) {
		pl_fleet_config fc = PL_FLEET_CONFIG_INIT;
		fc.self = (uint32_t)(seed + tick) % t->nm;
		fc.now = 1000;
		fc.return_home_age = 50;
		memset(oa, 0, sizeof oa);
		memset(ob, 0, sizeof ob);
		ra = pl_fleet_decide(a, &fc, oa, 64, &ia, NULL);
		rb = pl_fleet_decide(b, &fc, ob, 64, &ib, NULL);
		ck_assert_int_eq(ra, rb);
		ck_assert_msg(ra < 0 || memcmp(oa, ob, (size_t)ra * sizeof *oa) == 0, "seed %" PRIu64 " tick %u: fleet",
			      seed, tick);
	}
	pl_broker_config bc = PL_BROKER_CONFIG_INIT;
	bc.max_moves = 4;
	memset(oa, 0, sizeof oa);
	memset(ob, 0, sizeof ob);
	ra = pl_broker_plan(a, &bc, oa, 64, &ia, NULL);
	rb = pl_broker_plan(b, &bc, ob, 64, &ib, NULL);
	ck_assert_int_eq(ra, rb);
	ck_assert_msg(ra < 0 || memcmp(oa, ob, (size_t)ra * sizeof *oa) == 0, "seed %" PRIu64 " tick %u: broker", seed,
		      tick);
}

#endif
