/*
 * region_common.c - what the region policy's steps share, below them: the
 * rules every step reads (live peers, zones held), and the output of one
 * call (actions applied to the view as they are written, stall reports).
 *
 * Calls go one way: region.c (the entry points and step 1) calls
 * region_balance.c (steps 2 to 5), and both call this file, which calls
 * neither.
 */
#include "region/region_impl.h"

uint32_t pl__region_live_peers(const pl_view *v, const pl__shard_state *st)
{
	uint32_t n = 0;
	for (uint32_t j = 0; j < st->nrep; j++)
		n += pl__live(v, pl__rep(st, j));
	return n;
}

int pl__region_zone_held(const pl_view *v, const pl__shard_state *st, uint32_t zone, uint32_t except)
{
	for (uint32_t j = 0; j < st->nrep; j++) {
		uint32_t p = pl__rep(st, j);
		if (p != except && pl__live(v, p) && v->m_zone[p] == zone)
			return 1;
	}
	return 0;
}

int pl__region_emit(pl__region_ctx *c, const pl_action *a)
{
	PL_ASSERT(!c->stopped); /* every step stops calling once stopped */
	if (c->written >= c->cfg->max_actions || c->written >= c->cap) {
		c->stopped = 1;
		c->stop_status = c->written >= c->cfg->max_actions ? PL_STATUS_ACTION_CAP : PL_STATUS_FULL;
		c->stop_detail = a->shard;
		return 0;
	}
	int rc = pl__view_apply(c->v, a);
	PL_ASSERT(rc == 0); /* every step checks what apply checks */
	/* GCOVR_EXCL_START: unreachable while the assertion above holds; kept
	 * so that a release build stops rather than loops if it ever fails. */
	if (rc) {
		c->stopped = 1;
		c->stop_status = PL_STATUS_BALANCED;
		c->stop_detail = a->shard;
		return 0;
	}
	/* GCOVR_EXCL_STOP */
	c->out[c->written++] = *a;
	return 1;
}

int pl__region_fits(pl__region_ctx *c, uint32_t n, uint32_t k)
{
	PL_ASSERT(!c->stopped);
	uint64_t after = (uint64_t)c->written + n;
	if (after <= c->cfg->max_actions && after <= c->cap)
		return 1;
	c->stopped = 1;
	c->stop_status = after > c->cfg->max_actions ? PL_STATUS_ACTION_CAP : PL_STATUS_FULL;
	c->stop_detail = k;
	return 0;
}

void pl__region_stall(pl__region_ctx *c, uint32_t k, uint32_t reason, uint32_t step, uint32_t member,
		      uint32_t wanted)
{
	if (reason == PL_REGION_STALL_PROPOSALS_OFF) {
		if (c->first_held == PL_NONE)
			c->first_held = k;
	} else if (c->first_stall == PL_NONE) {
		c->first_stall = k;
	}
	if (c->blocked < c->stalls_cap) {
		pl_region_stall *s = &c->stalls[c->blocked];
		s->shard = k;
		s->reason = reason;
		s->step = step;
		s->member = member;
		s->wanted = wanted;
	}
	c->blocked++;
}

void pl__region_action(pl_action *a, uint32_t kind, uint32_t reason, const pl_view *v, uint32_t k,
		       uint32_t from, uint32_t to, uint32_t scope)
{
	pl__action_init(a, kind, reason, k, v->snap.shards[k].stream, from, to);
	a->scope = scope;
	if (kind == PL_ACTION_ADD_REPLICA || kind == PL_ACTION_MOVE_REPLICA)
		a->flags = PL_ACTION_STAGE_FIRST;
}

