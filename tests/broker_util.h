/*
 * broker_util.h - layouts and checks shared by the broker suites
 * (check_broker*.c).
 * Header-only: every function is static inline, so a suite that does not use
 * one does not warn.
 */
#ifndef PL_BROKER_UTIL_H
#define PL_BROKER_UTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Members b0 .. b(n-1), zones given or none. */
static inline void bu_members(tl *t, uint32_t n, const char *const *zones)
{
	for (uint32_t i = 0; i < n; i++)
		tl_member(t, tl_str(t, "b%u", i), zones ? zones[i] : NULL);
}

/* A new layout with members b0 .. b(n-1), zones given or none. */
static inline tl *bu_new(uint32_t n, const char *const *zones)
{
	tl *t = tl_new();
	bu_members(t, n, zones);
	return t;
}

/* A stream whose shards "<name>/NN" are led counts[m] on member m, in key
 * order, each with rf replicas: the leader, then the next members in order. */
static inline uint32_t bu_stream(tl *t, const char *name, const uint32_t *counts, uint32_t nm, uint32_t rf)
{
	uint32_t s = tl_stream(t, name), i = 0;
	for (uint32_t m = 0; m < nm; m++)
		for (uint32_t c = 0; c < counts[m]; c++) {
			uint32_t k = tl_shard(t, tl_str(t, "%s/%02u", name, i++), s, m, 0);
			for (uint32_t r = 0; r < rf && r < nm; r++)
				t->k[k].replicas[r] = (m + r) % nm;
			t->k[k].replica_count = rf < nm ? rf : nm;
		}
	return s;
}

/* A stream of n new shards (no replicas, no leader). */
static inline uint32_t bu_new_stream(tl *t, const char *name, uint32_t n)
{
	uint32_t s = tl_stream(t, name);
	for (uint32_t i = 0; i < n; i++)
		tl_shard(t, tl_str(t, "%s/%02u", name, i), s, PL_NONE, 0);
	return s;
}

/* The seed's benchmark layout: three members, RF 3, four streams and a
 * cache; perf-quorum's 12 shards led 1/1/10, totals 21/21/19. Its index is
 * put in *quorum. */
static inline tl *bu_benchmark(uint32_t *quorum)
{
	tl *t = tl_new();
	bu_members(t, 3, NULL);
	static const uint32_t q[] = {1, 1, 10}, o[] = {5, 5, 2}, e[] = {5, 5, 2}, m[] = {4, 4, 4}, c[] = {6, 6, 1};
	*quorum = bu_stream(t, "perf-quorum", q, 3, 3);
	bu_stream(t, "orders", o, 3, 3);
	bu_stream(t, "events", e, 3, 3);
	bu_stream(t, "metrics", m, 3, 3);
	bu_stream(t, "cache", c, 3, 3);
	return t;
}

static inline pl_broker_config bu_cfg(void)
{
	pl_broker_config c = PL_BROKER_CONFIG_INIT;
	return c;
}

/* Leaders of stream s on member m, and on m in total. */
static inline uint32_t bu_lead(const pl_view *v, uint32_t s, uint32_t m)
{
	return tl_stream_tally(v, s, m).leaders;
}

static inline uint32_t bu_total(const pl_view *v, uint32_t m)
{
	return tl_member_tally(v, m).leaders;
}

/* Replicas member m holds in the view. */
static inline uint32_t bu_held(const pl_view *v, uint32_t m)
{
	return tl_member_tally(v, m).replicas;
}

/* The action that gave shard k a leader (SET_LEADER or MOVE_LEADER), or
 * NULL; bu_leader_of() fails the test when there is none. */
static inline const pl_action *bu_find_leader(const pl_action *a, int n, uint32_t k)
{
	for (int i = 0; i < n; i++)
		if (a[i].shard == k && (a[i].kind == PL_ACTION_SET_LEADER || a[i].kind == PL_ACTION_MOVE_LEADER))
			return &a[i];
	return NULL;
}

static inline const pl_action *bu_leader_of(const pl_action *a, int n, uint32_t k)
{
	const pl_action *l = bu_find_leader(a, n, k);
	if (l == NULL)
		ck_abort_msg("shard %u got no leader", k);
	return l;
}

static inline int bu_eligible(const tl *t, uint32_t m)
{
	return !(t->m[m].flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING));
}

/* Max minus min leaders of stream s (PL_NONE: in total) over eligible members. */
static inline uint32_t bu_spread(const tl *t, const pl_view *v, uint32_t s)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	for (uint32_t m = 0; m < t->nm; m++) {
		if (!bu_eligible(t, m))
			continue;
		uint32_t c = s == PL_NONE ? bu_total(v, m) : bu_lead(v, s, m);
		lo = c < lo ? c : lo;
		hi = c > hi ? c : hi;
	}
	return lo == UINT32_MAX ? 0 : hi - lo;
}

/* Max minus min replicas of stream s (PL_NONE: in total) over eligible members. */
static inline uint32_t bu_rspread(const tl *t, const pl_view *v, uint32_t s)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	for (uint32_t m = 0; m < t->nm; m++) {
		if (!bu_eligible(t, m))
			continue;
		uint32_t c = s == PL_NONE ? tl_member_tally(v, m).replicas : tl_stream_tally(v, s, m).replicas;
		lo = c < lo ? c : lo;
		hi = c > hi ? c : hi;
	}
	return lo == UINT32_MAX ? 0 : hi - lo;
}

/* Do members a and b share a zone? (An empty zone is a zone of its own.) */
static inline int bu_same_zone(const tl *t, uint32_t a, uint32_t b)
{
	const pl_bytes *x = &t->m[a].zone, *y = &t->m[b].zone;
	return a == b || (x->len && x->len == y->len && memcmp(x->ptr, y->ptr, x->len) == 0);
}

/* The zones shard k's replicas span in the view. */
static inline uint32_t bu_zones(const tl *t, const pl_view *v, uint32_t k)
{
	pl_shard_state st;
	ck_assert_int_eq(pl_view_shard_state(v, k, &st), 0);
	uint32_t n = 0;
	for (uint32_t j = 0; j < st.replica_count; j++) {
		int dup = 0;
		for (uint32_t i = 0; i < j; i++)
			dup |= bu_same_zone(t, st.replicas[i], st.replicas[j]);
		n += !dup;
	}
	return n;
}

/* One pl_broker_plan() on t's view (built first when there is none) into
 * an array of BU_PLAN_CAP actions the suite owns (the next call reuses it);
 * the test fails on an error. */
#define BU_PLAN_CAP 512
/* Every stream within one of even, and the totals too: what a balanced
 * layout looks like wherever caps and zones allow. */
static inline void bu_expect_even(const tl *t, const pl_view *v)
{
	for (uint32_t s = 0; s < t->ns; s++)
		ck_assert_msg(bu_spread(t, v, s) <= 1, "stream %u spread %u", s, bu_spread(t, v, s));
	ck_assert_msg(bu_spread(t, v, PL_NONE) <= 1, "totals spread %u", bu_spread(t, v, PL_NONE));
}

/* Every stream's replicas within one of even, and the totals too. */
static inline void bu_expect_replicas_even(const tl *t, const pl_view *v)
{
	for (uint32_t s = 0; s < t->ns; s++)
		ck_assert_msg(bu_rspread(t, v, s) <= 1, "stream %u replica spread %u", s, bu_rspread(t, v, s));
	ck_assert_msg(bu_rspread(t, v, PL_NONE) <= 1, "replica totals spread %u", bu_rspread(t, v, PL_NONE));
}

static inline pl_action *bu_plan(tl *t, const pl_broker_config *cfg, int *n, pl_plan_info *info)
{
	static pl_action out[BU_PLAN_CAP];
	pl_diag d;
	*n = pl_broker_plan(t->view ? t->view : tl_view(t, 0), cfg, out, BU_PLAN_CAP, info, &d);
	ck_assert_msg(*n >= 0, "plan: %s", pl_error_name(*n));
	return out;
}

/* Run pl_broker_dry_run on t's view; the actions are returned (free them). */
static inline pl_action *bu_dry(tl *t, const pl_broker_config *cfg, uint32_t *n, pl_plan_info *info,
				uint32_t *ticks)
{
	pl_view *v = t->view ? t->view : tl_view(t, 0);
	uint32_t cap = 64 + 16 * t->nk * (t->nm + 2);
	pl_action *out = malloc(cap * sizeof *out);
	ck_assert_ptr_nonnull(out);
	pl_diag d;
	int rc = pl_broker_dry_run(v, cfg, out, cap, info, ticks, &d);
	ck_assert_msg(rc >= 0, "dry run: %s", pl_error_name(rc));
	*n = (uint32_t)rc;
	return out;
}

/* What bu_expect_same_mapped() compares besides kind, reason, shard, from
 * and to: an action's flags; from_count and to_count; total; tier. */
#define BU_SAME_FLAGS 1u
#define BU_SAME_COUNTS 2u
#define BU_SAME_TOTAL 4u
#define BU_SAME_TIER 8u

/* The dry runs of t and of u, a copy of t with its arrays shuffled
 * (tl_shuffled()), give the same actions once t's indices are mapped to u's
 * (perm_k, perm_m): as many, the same status, and each alike in kind,
 * reason, shard, from and to, and in the fields `same` names (BU_SAME_*).
 * Each run starts from its layout's view (bu_dry()). The plan must not hang
 * on the order of the snapshot's arrays; `where` names the layout in a
 * failure's message. */
static inline void bu_expect_same_mapped(tl *t, tl *u, const pl_broker_config *cfg, uint32_t same, const char *where)
{
	uint32_t na, nb;
	pl_plan_info ia, ib;
	pl_action *a = bu_dry(t, cfg, &na, &ia, NULL), *b = bu_dry(u, cfg, &nb, &ib, NULL);
	ck_assert_msg(na == nb, "%s: %u against %u actions", where, na, nb);
	ck_assert_uint_eq(ia.status, ib.status);
	for (uint32_t i = 0; i < na; i++) {
		const pl_action *x = &a[i], *y = &b[i];
		ck_assert_msg(x->kind == y->kind && x->reason == y->reason && u->perm_k[x->shard] == y->shard &&
				      (x->from == PL_NONE ? y->from == PL_NONE : u->perm_m[x->from] == y->from) &&
				      (x->to == PL_NONE ? y->to == PL_NONE : u->perm_m[x->to] == y->to) &&
				      (!(same & BU_SAME_FLAGS) || x->flags == y->flags) &&
				      (!(same & BU_SAME_COUNTS) ||
				       (x->from_count == y->from_count && x->to_count == y->to_count)) &&
				      (!(same & BU_SAME_TOTAL) || x->total == y->total) &&
				      (!(same & BU_SAME_TIER) || x->tier == y->tier),
			      "%s: action %u differs", where, i);
	}
	free(a);
	free(b);
}

/* How many times the most-moved shard's leader moved (MOVE_LEADER). */
static inline uint32_t bu_most_moves(const pl_action *a, uint32_t n, uint32_t nk)
{
	uint32_t *c = calloc(nk ? nk : 1, sizeof *c), most = 0;
	ck_assert_ptr_nonnull(c);
	for (uint32_t i = 0; i < n; i++)
		if (a[i].kind == PL_ACTION_MOVE_LEADER && ++c[a[i].shard] > most)
			most = c[a[i].shard];
	free(c);
	return most;
}

static inline uint32_t bu_count_kind(const pl_action *a, uint32_t n, uint32_t kind, uint32_t reason)
{
	uint32_t c = 0;
	for (uint32_t i = 0; i < n; i++)
		c += a[i].kind == kind && (reason == 0 || a[i].reason == reason);
	return c;
}

/* Print the actions' sentences (for a failing test's log). */
static inline void bu_print(tl *t, const pl_action *a, uint32_t n)
{
	char buf[512];
	for (uint32_t i = 0; i < n; i++) {
		pl_action_explain(tl_snap(t), &a[i], buf, sizeof buf);
		printf("  %3u. %s\n", i + 1, buf);
	}
}

/* bu_dry(), then the sequence's sentences printed (for a failing test's log). */
static inline pl_action *bu_dry_shown(tl *t, const pl_broker_config *cfg, uint32_t *n, pl_plan_info *info,
				      uint32_t *ticks)
{
	pl_action *a = bu_dry(t, cfg, n, info, ticks);
	bu_print(t, a, *n);
	return a;
}

/* The most actions bu_loop_differs() compares. */
#define BU_LOOP_CAP 4096u

/* A control plane's tick loop against the dry run: every tick a fresh
 * view of the layout the last tick left, one pl_broker_plan(), its moves
 * carried out.
 *
 * The layout after a tick: every shard as the view holds it, moves done. */
static inline void bu_read_back(tl *t, const pl_view *v)
{
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state st;
		ck_assert_int_eq(pl_view_shard_state(v, k, &st), 0);
		pl_shard *s = &t->k[k];
		s->leader = st.leader;
		s->replica_count = st.replica_count;
		memcpy(s->replicas, st.replicas, sizeof s->replicas);
		s->moving_to = PL_NONE;
		s->epoch = st.epoch;
	}
}

/* The loop on t (changed: it ends as the loop leaves it), into out. */
static inline uint32_t bu_tick_loop(tl *t, const pl_broker_config *cfg, pl_action *out, uint32_t cap, uint32_t *status)
{
	uint32_t n = 0;
	for (uint32_t tick = 0; tick < cap; tick++) {
		void *mem;
		pl_view *v = tl_view_fresh(t, &mem);
		pl_plan_info info;
		int got = pl_broker_plan(v, cfg, out + n, cap - n, &info, NULL);
		ck_assert_int_ge(got, 0);
		*status = info.status;
		uint32_t moving = (uint32_t)pl_view_settle(v);
		bu_read_back(t, v);
		free(mem);
		n += (uint32_t)got;
		if (got == 0 && moving == 0)
			break;
	}
	return n;
}

/* The dry run of t as it is, into out. */
static inline uint32_t bu_dry_run(tl *t, const pl_broker_config *cfg, pl_action *out, uint32_t cap, uint32_t *status)
{
	void *mem;
	pl_view *v = tl_view_fresh(t, &mem);
	pl_plan_info info;
	int got = pl_broker_dry_run(v, cfg, out, cap, &info, NULL, NULL);
	ck_assert_int_ge(got, 0);
	*status = info.status;
	free(mem);
	return (uint32_t)got;
}

/* The first action where the loop and the dry run differ, or -1. */
static inline int bu_loop_differs(tl *t, const pl_broker_config *cfg, uint32_t *len)
{
	static pl_action a[BU_LOOP_CAP], b[BU_LOOP_CAP]; /* one suite thread */
	uint32_t sa, sb;
	uint32_t na = bu_dry_run(t, cfg, a, BU_LOOP_CAP, &sa);
	uint32_t nb = bu_tick_loop(t, cfg, b, BU_LOOP_CAP, &sb);
	*len = na;
	for (uint32_t i = 0; i < na && i < nb; i++)
		if (memcmp(&a[i], &b[i], sizeof a[i]) != 0)
			return (int)i;
	return na != nb || sa != sb ? (int)(na < nb ? na : nb) : -1;
}

#endif
