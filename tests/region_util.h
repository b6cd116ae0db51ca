/*
 * region_util.h - helpers the region suites share: building clusters of
 * regions, running ticks, carrying actions out, and the invariants every
 * emitted action must keep.
 */
#ifndef PL_REGION_UTIL_H
#define PL_REGION_UTIL_H

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "region_bound.h"
#include "testutil.h"

#define RU_MAX_ACTIONS 4096u
#define RU_MAX_STALLS 1024u

/* One call's results. */
typedef struct ru_tick {
	pl_action a[RU_MAX_ACTIONS];
	pl_region_stall st[RU_MAX_STALLS];
	pl_plan_info info;
	int rc;
} ru_tick;

static inline pl_region_config ru_cfg(uint32_t rf)
{
	pl_region_config c = PL_REGION_CONFIG_INIT;
	c.replication_factor = rf;
	c.max_actions = RU_MAX_ACTIONS;
	return c;
}

static inline uint32_t ru_member(tl *t, const char *id, const char *zone, uint64_t joined_at)
{
	uint32_t m = tl_member(t, id, zone);
	t->m[m].joined_at = joined_at;
	return m;
}

/* A region without a stream; leader PL_NONE or one of the nrep peers. */
static inline uint32_t ru_region(tl *t, const char *key, uint32_t leader, uint32_t nrep, ...)
{
	uint32_t k = tl_shard(t, key, PL_NONE, leader, 0);
	va_list ap;
	va_start(ap, nrep);
	for (uint32_t i = 0; i < nrep; i++)
		t->k[k].replicas[i] = va_arg(ap, uint32_t);
	va_end(ap);
	t->k[k].replica_count = nrep;
	return k;
}

static inline ru_tick *ru_tick_new(void)
{
	ru_tick *tk = calloc(1, sizeof *tk);
	ck_assert_ptr_nonnull(tk);
	return tk;
}

/* One call with room for everything. */
static inline int ru_plan(pl_view *v, const pl_region_config *cfg, ru_tick *tk)
{
	pl_diag d;
	memset(&tk->info, 0, sizeof tk->info);
	tk->rc = pl_region_plan(v, cfg, tk->a, RU_MAX_ACTIONS, &tk->info, tk->st, RU_MAX_STALLS, &d);
	ck_assert_msg(tk->rc >= 0, "pl_region_plan: %s (kind %u index %u)", pl_error_name(tk->rc), d.kind, d.index);
	return tk->rc;
}

/* Replicas (peers) and leaders (primaries) on member m. */
static inline uint32_t ru_reps(const pl_view *v, uint32_t m)
{
	return tl_member_tally(v, m).replicas;
}

static inline uint32_t ru_prims(const pl_view *v, uint32_t m)
{
	return tl_member_tally(v, m).leaders;
}

static inline pl_shard_state ru_state(const pl_view *v, uint32_t k)
{
	pl_shard_state s;
	ck_assert_int_eq(pl_view_shard_state(v, k, &s), 0);
	return s;
}

static inline int ru_has_peer(const pl_shard_state *s, uint32_t m)
{
	for (uint32_t j = 0; j < s->replica_count; j++)
		if (s->replicas[j] == m)
			return 1;
	return 0;
}

/* Carry the view's state into the layout's shards (the next tick's
 * snapshot) and build a fresh view of it. */
static inline pl_view *ru_adopt(tl *t)
{
	pl_shard_state *s = malloc((size_t)(t->nk ? t->nk : 1) * sizeof *s);
	ck_assert_ptr_nonnull(s);
	for (uint32_t k = 0; k < t->nk; k++)
		s[k] = ru_state(t->view, k);
	for (uint32_t k = 0; k < t->nk; k++) {
		t->k[k].leader = s[k].leader;
		t->k[k].moving_to = PL_NONE;
		t->k[k].replica_count = s[k].replica_count;
		for (uint32_t j = 0; j < PL_MAX_REPLICAS; j++)
			t->k[k].replicas[j] = j < s[k].replica_count ? s[k].replicas[j] : 0;
	}
	free(s);
	return tl_view(t, 0);
}

/* The next tick: every action carried out. `rebuild` picks a fresh snapshot
 * from the view's state over pl_view_settle() on the same view. */
static inline pl_view *ru_next(tl *t, int rebuild)
{
	if (rebuild)
		return ru_adopt(t);
	ck_assert_int_ge(pl_view_settle(t->view), 0);
	return t->view;
}

static inline int ru_live(const tl *t, uint32_t m)
{
	return !(t->m[m].flags & PL_MEMBER_DOWN);
}

static inline uint32_t ru_live_peers(const tl *t, const pl_shard_state *s)
{
	return region_live_peers(t->m, s);
}

static inline uint32_t ru_n_live(const tl *t)
{
	uint32_t n = 0;
	for (uint32_t m = 0; m < t->nm; m++)
		n += ru_live(t, m);
	return n;
}

static inline uint32_t ru_zones(const tl *t, const pl_shard_state *s)
{
	uint32_t n = 0;
	for (uint32_t j = 0; j < s->replica_count; j++) {
		uint32_t a = s->replicas[j], seen = 0;
		if (!ru_live(t, a))
			continue;
		for (uint32_t i = 0; i < j; i++) {
			uint32_t b = s->replicas[i];
			if (!ru_live(t, b))
				continue;
			pl_bytes za = t->m[a].zone, zb = t->m[b].zone;
			if (za.len && za.len == zb.len && memcmp(za.ptr, zb.ptr, za.len) == 0)
				seen = 1;
		}
		n += !seen;
	}
	return n;
}

static inline int ru_may_receive(const tl *t, uint32_t m, uint32_t k)
{
	return !(t->m[m].flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING | PL_MEMBER_LAGGING)) &&
	       t->m[m].map_version >= t->k[k].epoch;
}

#endif
