/*
 * broker_common.c - the broker policy's shared helpers, the bottom layer of
 * its call graph (broker_int.h): the zone rule, the per-member move limits,
 * the potential rule a move of one count must keep, and writing actions.
 * Nothing here calls up into a pass or an entry point.
 *
 * How it works. Every pass writes its actions through pl__bk_emit() (and
 * moves through pl__bk_emit_move(), which spends the budget and lists the
 * move for the per-member limits), so each action is applied to the view as
 * it is written and the next decision sees it.
 */
#include "broker/broker_int.h"

int pl__bk_zones_ok(const pl_view *v, uint32_t k, uint32_t from, uint32_t to)
{
	const pl__shard_state *st = pl__st(v, k);
	if (pl__holds(st, to))
		return 1;
	/* With Z = the zones of the other replicas: before spans |Z| plus one
	 * when from's zone is not in Z, after |Z| plus one when to's is not. */
	int from_in = 0, to_in = 0;
	for (uint32_t j = 0; j < st->nrep; j++) {
		uint32_t r = pl__rep(st, j);
		if (r == from)
			continue;
		from_in |= v->m_zone[r] == v->m_zone[from];
		to_in |= v->m_zone[r] == v->m_zone[to];
	}
	return from_in || !to_in;
}

uint32_t pl__bk_in(const pl__bk *b, uint32_t m)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < b->n_flight; i++)
		n += b->fl_to[i] == m;
	return n;
}

uint32_t pl__bk_out(const pl__bk *b, uint32_t m)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < b->n_flight; i++)
		n += b->fl_from[i] == m;
	return n;
}

int pl__bk_in_ok(const pl__bk *b, uint32_t m)
{
	return b->cfg->max_moves_in == 0 || pl__bk_in(b, m) < b->cfg->max_moves_in;
}

int pl__bk_out_ok(const pl__bk *b, uint32_t m)
{
	return b->cfg->max_moves_out == 0 || pl__bk_out(b, m) < b->cfg->max_moves_out;
}

void pl__bk_wait_limit(pl__bk *b, uint32_t member)
{
	if (!b->want_limit)
		b->limit_member = member;
	b->want_limit = 1;
}

int pl__bk_emit(pl__bk *b, const pl_action *act)
{
	if (b->n >= b->cap) {
		b->full = 1;
		return 1;
	}
	pl_action a = *act;
	if (a.flags & PL_ACTION_STAGE_FIRST) { /* what it copies, and the members' bytes before */
		a.bytes = pl__size(b->v, a.shard);
		a.from_bytes = a.from != PL_NONE ? b->v->m_bytes[a.from] : 0;
		a.to_bytes = b->v->m_bytes[a.to];
	}
	int rc = pl__view_apply(b->v, &a);
	PL_ASSERT(rc == 0); /* every action is built from the view it applies to */
	if (rc)
		return rc;
	b->out[b->n++] = a;
	return 0;
}

int pl__bk_emit_move(pl__bk *b, const pl_action *a)
{
	PL_ASSERT(b->budget > 0);
	int rc = pl__bk_emit(b, a);
	if (rc)
		return rc;
	b->budget--;
	if (b->limits && b->n_flight < PL_BROKER_MAX_MOVES) {
		b->fl_from[b->n_flight] = a->from;
		b->fl_to[b->n_flight] = a->to;
		b->n_flight++;
	}
	return 0;
}


/* How far c is outside [fl, ce]. */
static uint32_t outside(uint32_t c, uint32_t fl, uint32_t ce)
{
	return c > ce ? c - ce : c < fl ? fl - c : 0;
}

/* The scope's distance on a and d before and after a move of one from a
 * (count ca > 0) to d (count cd), bounds over `total`. */
static void distances(const pl_view *v, uint32_t total, uint32_t a, uint32_t ca, uint32_t d, uint32_t cd,
		      uint64_t *before, uint64_t *after)
{
	uint32_t fa, ea, fd, ed;
	pl__bounds(v, total, a, &fa, &ea);
	pl__bounds(v, total, d, &fd, &ed);
	*before = (uint64_t)outside(ca, fa, ea) + outside(cd, fd, ed);
	*after = (uint64_t)outside(ca - 1, fa, ea) + outside(cd + 1, fd, ed);
}

int pl__bk_no_rise(const pl_view *v, uint32_t total, uint32_t a, uint32_t ca, uint32_t d, uint32_t cd)
{
	uint64_t before, after;
	if (ca == 0)
		return 0;
	distances(v, total, a, ca, d, cd, &before, &after);
	if (after != before)
		return after < before;
	/* The same distance: the sum of count^2/weight must not rise,
	 * (2 cd + 1) / w_d <= (2 ca - 1) / w_a. */
	return (2 * (uint64_t)cd + 1) * v->m_weight[a] <= (2 * (uint64_t)ca - 1) * v->m_weight[d];
}

int pl__bk_drops(const pl_view *v, uint32_t total, uint32_t a, uint32_t ca, uint32_t d, uint32_t cd)
{
	uint64_t before, after;
	if (ca == 0)
		return 0;
	distances(v, total, a, ca, d, cd, &before, &after);
	return after < before;
}

int pl__bk_keeps(const pl_view *v, uint32_t total, uint32_t a, uint32_t ca, uint32_t d, uint32_t cd)
{
	uint32_t fa, ea, fd, ed;
	pl__bounds(v, total, a, &fa, &ea);
	pl__bounds(v, total, d, &fd, &ed);
	if (ca < fa + 1 || cd + 1 > ed)
		return 0;
	return pl__bk_no_rise(v, total, a, ca, d, cd);
}

void pl__bk_block(pl__bk *b, int rc, uint32_t scope_id)
{
	if (rc == PL__BK_BLOCK_CAPS)
		b->block_caps++;
	else if (rc == PL__BK_BLOCK_HANDOFF)
		b->block_handoff++;
	else
		b->block_zones++;
	if (b->block_caps + b->block_zones + b->block_handoff == 1)
		b->block_scope = scope_id;
	b->blocked++;
}

void pl__bk_drain_stall(pl__bk *b, uint32_t k)
{
	if (!b->drain_stalled)
		b->drain_shard = k;
	b->drain_stalled++;
	b->blocked++;
}
