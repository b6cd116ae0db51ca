/*
 * broker_search_util.h - what the suites of broker_search.c
 * (check_broker_search*.c) share: a call's state to hand its functions, a
 * bare scope, and short names for the outcomes of a search.
 * Header-only: every function is static inline, so a suite that does not use
 * one does not warn.
 */
#ifndef PL_BROKER_SEARCH_UTIL_H
#define PL_BROKER_SEARCH_UTIL_H

#include <string.h>

#include "broker/broker_int.h"

/* A call's state for the functions tested here: the view, the config, the
 * budget, no output, no per-member limits, nothing noted yet (as
 * pl_broker_plan() starts one, but limit_member, which a wait on max_moves
 * must set to PL_NONE, holds a value it would not). */
static inline pl__bk bk_call(pl_view *v, const pl_broker_config *cfg, uint32_t budget)
{
	pl__bk b;
	memset(&b, 0, sizeof b);
	b.v = v;
	b.cfg = cfg;
	b.budget = budget;
	b.stalled_shard = b.block_scope = b.drain_shard = PL_NONE;
	b.limit_member = 12345;
	return b;
}

/* A scope of no stream that is over and under as given, at level 0. */
static inline pl__scope scope(int over, int under)
{
	pl__scope sc;
	memset(&sc, 0, sizeof sc);
	sc.s = PL_NONE;
	sc.over = over;
	sc.under = under;
	return sc;
}

#define MV PL__BK_MOVED
#define FU PL__BK_FULL
#define WT PL__BK_WAIT
#define CA PL__BK_BLOCK_CAPS
#define ZO PL__BK_BLOCK_ZONES
#define SE PL__BK_SETTLED

#endif
