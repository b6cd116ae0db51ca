/*
 * fleet_common.c - what the fleet's steps share, below them: the actions'
 * common fields and their emission (applied to the view at once), and the
 * accounting of lag overrides whose lag is over.
 *
 * Calls go one way: fleet.c (the decision, clean-up, lag moves, returns)
 * calls fleet_balance.c (the tick's plan, count and spread moves, keeps,
 * the status word), and both call this file, which calls neither.
 */
#include "fleet/fleet_int.h"

pl_action pl__fleet_action(const pl_view *v, uint32_t kind, uint32_t reason, uint32_t k, uint32_t from,
			   uint32_t to)
{
	pl_action a;
	pl__action_init(&a, kind, reason, k, v->snap.shards[k].stream, from, to);
	a.scope = PL_SCOPE_OWNED;
	a.total = v->nk;
	a.from_count = from < v->nm ? v->m_owned[from] : 0;
	a.to_count = to < v->nm ? v->m_owned[to] : 0;
	if (to < v->nm)
		pl__bounds(v, v->nk, to, &a.floor, &a.ceiling);
	return a;
}

int pl__fleet_emit(pl__fleet_run *r, const pl_action *a)
{
	if (r->written == r->cap) {
		r->full = 1;
		return 1;
	}
	int rc = pl__view_apply(r->v, a);
	PL_ASSERT(rc == 0); /* every fleet action is checked before it is made */
	if (rc)
		return 1;
	r->out[r->written++] = *a;
	return 0;
}

uint32_t pl__fleet_released(const pl_view *v, uint32_t k)
{
	uint32_t x = pl__lag_holder(v, k);
	if (x == PL_NONE || pl__lagging(v, x) || pl__lagging(v, v->k_home[k]))
		return PL_NONE;
	return x;
}

void pl__fleet_count(const pl_view *v, pl__fleet_count_t *out)
{
	int64_t *sc = v->m_scratch;
	for (uint32_t m = 0; m < v->nm; m++)
		sc[m] = 0;
	out->released = 0;
	if (v->n_lag == 0)
		return;
	for (uint32_t k = 0; k < v->nk; k++) {
		uint32_t x = pl__fleet_released(v, k);
		if (x == PL_NONE)
			continue;
		sc[x] += 1;                         /* out: held for another */
		sc[v->k_home[k]] += INT64_C(1) << 32; /* in: held elsewhere for it */
		out->released++;
	}
}

