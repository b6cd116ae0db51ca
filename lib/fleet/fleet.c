/*
 * fleet.c - fleet ownership, and one member's decision: clean-up of void and
 * redundant overrides, lag moves, return home; the tick's plan, count
 * balance, keeps and the status word are in fleet_balance.c, the pieces
 * both use in fleet_common.c (calls go that way only).
 *
 * How it works. Every member runs pl_fleet_decide() on the same snapshot
 * with itself as cfg->self and acts only for itself. The view's ring homes
 * and owned counts are filled once (pl__view_homes(), O(shards x eligible
 * members)); each decision then reads them and scans the shards in key
 * order for what self may act on. Who acts on which shard is fixed so that
 * no shard is touched by two members in one tick: a void or redundant
 * override is dropped by the ring home that owns the shard either way; a
 * lag move by the lagging member that owns the shard; a return home by the
 * home taking it back, and only from a member that is not lagging; a count
 * or spread move by its owner, never on a lag override. Every action is
 * applied to the view at once (pl__view_apply()), so the next choice in the
 * same call sees it.
 *
 * Why it terminates (no thrash, by construction). Clean-up drops change no
 * owner. A return home takes a shard back only within the home's share,
 * after the places count balance gives the home this tick, and consumes a
 * lag override, which only a lagging member creates; count overrides are
 * never dropped by age, so the seed's loop (an aged count override sent back
 * to its crowded home, then moved again by count) cannot start. Count and
 * spread moves lower the sum of excess over the share plus deficit under the
 * floor by one each (fleet_balance.c). So in a fleet without lag and without
 * membership change, moves stop after a bounded number and every later tick
 * emits nothing.
 */
#include "fleet/fleet_int.h"

int pl_fleet_config_init(pl_fleet_config *cfg)
{
	const pl_fleet_config def = PL_FLEET_CONFIG_INIT;
	return pl__init_from(cfg, &def, sizeof def);
}

int pl_fleet_owner(const pl_view *v, uint32_t shard)
{
	if (!pl__view_ok(v))
		return PL_E_INVAL;
	if (shard >= v->nk)
		return PL_E_SHARD_RANGE;
	uint32_t o = pl__ov(pl__st(v, shard));
	if (o != PL_NONE && pl__eligible(v, o))
		return (int)o;
	return pl_view_home(v, shard);
}

int pl_fleet_owners(pl_view *v, uint32_t *out, uint32_t cap, pl_diag *diag)
{
	const pl__arg a[1] = {PL__OUT(out, pl__span(cap, sizeof *out), 2)};
	int rc = pl__check_args(v, NULL, a, 1, diag);
	if (rc)
		return rc;
	if (!pl__view_ok(v))
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 1, PL_NONE);
	if (out == NULL && cap > 0)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 2, PL_NONE);
	if (v->nk > 0 && v->n_elig == 0)
		return pl__fail(diag, PL_E_NO_ELIGIBLE, PL_ELEM_SNAPSHOT, 0, PL_NONE);
	if (cap < v->nk)
		return pl__fail(diag, PL_E_NOSPACE, PL_ELEM_ARGUMENT, 3, PL_NONE);
	pl__view_homes(v);
	for (uint32_t k = 0; k < v->nk; k++)
		out[k] = pl__owner(v, k);
	return (int)v->nk;
}

static uint64_t age_of(const pl__shard_state *st, uint64_t now)
{
	return now >= pl__since(st) ? now - pl__since(st) : 0;
}

/* A drop of shard k's override, the shard going to its ring home. */
static pl_action drop_action(const pl_view *v, uint32_t reason, uint32_t k, uint64_t now)
{
	const pl__shard_state *st = pl__st(v, k);
	pl_action a = pl__fleet_action(v, PL_ACTION_DROP_OVERRIDE, reason, k, pl__ov(st), v->k_home[k]);
	a.origin = st->ov_origin;
	a.at = age_of(st, now);
	return a;
}

/* ---- 1. clean-up: void and redundant overrides ----------------------------- */

static void clean_up(pl__fleet_run *r, uint32_t self)
{
	pl_view *v = r->v;
	if (v->n_overrides == 0)
		return;
	for (uint32_t i = 0; i < v->nk && !r->full; i++) {
		uint32_t k = v->k_order[i];
		const pl__shard_state *st = pl__st(v, k);
		if (pl__ov(st) == PL_NONE || v->k_home[k] != self)
			continue;
		uint32_t reason = !pl__eligible(v, pl__ov(st)) ? PL_REASON_VOID_OVERRIDE
				  : pl__ov(st) == self	   ? PL_REASON_REDUNDANT_OVERRIDE
								   : 0;
		if (reason == 0)
			continue;
		pl_action a = drop_action(v, reason, k, r->cfg->now);
		/* Nothing changes hands: the shard stays movable this tick. */
		uint8_t touched = pl__st(v, k)->touched;
		if (pl__fleet_emit(r, &a) == 0)
			pl__st(v, k)->touched = touched;
	}
}

/* ---- 3. lag moves ------------------------------------------------------------ */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Self's busiest owned shard: the greatest load, ties to the smaller key. */
static uint32_t busiest(const pl_view *v, uint32_t self)
{
	uint32_t best = PL_NONE;
	uint64_t load = 0;
	for (uint32_t i = 0; i < v->nk; i++) {
		uint32_t k = v->k_order[i];
		if (pl__owner(v, k) != self)
			continue;
		uint64_t l = v->snap.shards[k].load;
		if (best == PL_NONE || l > load) {
			best = k;
			load = l;
		}
	}
	return best;
}

/* The least loaded eligible member that is not lagging and is measured,
 * counting the loads this call already handed it; ties to the smaller id. */
static uint32_t least_loaded(const pl__fleet_run *r, uint32_t self)
{
	const pl_view *v = r->v;
	uint32_t best = PL_NONE;
	uint64_t load = 0;
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e];
		const pl_member *pm = &v->snap.members[m];
		if (m == self || (pm->flags & (PL_MEMBER_LAGGING | PL_MEMBER_UNMEASURED)))
			continue;
		uint64_t l = pm->load;
		for (uint32_t j = 0; j < r->written; j++)
			if (r->out[j].reason == PL_REASON_LAG && r->out[j].to == m)
				l = sat_add(l, r->out[j].load);
		if (best == PL_NONE || l < load) {
			best = m;
			load = l;
		}
	}
	return best;
}

static int lag_moves(pl__fleet_run *r, uint32_t self)
{
	pl_view *v = r->v;
	while (r->moves < r->cfg->moves_per_decision && !r->full) {
		uint32_t k = busiest(v, self), to = least_loaded(r, self);
		if (k == PL_NONE)
			return PL_STATUS_BALANCED;
		if (to == PL_NONE)
			return PL_STATUS_STALLED;
		pl_action a;
		if (to == v->k_home[k]) {
			a = drop_action(v, PL_REASON_LAG, k, r->cfg->now);
		} else {
			a = pl__fleet_action(v, PL_ACTION_SET_OVERRIDE, PL_REASON_LAG, k, self, to);
			a.origin = PL_ORIGIN_LAG;
			a.at = r->cfg->now;
		}
		a.from = self;
		a.from_count = v->m_owned[self];
		a.load = v->snap.shards[k].load;
		uint32_t floor;
		pl__bounds(v, v->nk, self, &floor, &a.share);
		if (pl__fleet_emit(r, &a))
			break;
		r->moves++;
	}
	return PL_STATUS_BALANCED;
}

/* ---- 5. return home ---------------------------------------------------------- */

/* Can self take shard k back home now? Its lag override after the lag is
 * old enough by self's clock, and the fleet's plan lets it go home. */
static int returnable(const pl_view *v, const pl_fleet_config *cfg, const pl__fleet_plan *p, uint32_t self,
		      uint32_t k)
{
	if (v->k_home[k] != self || !pl__fleet_may_return(v, p, k))
		return 0;
	const pl__shard_state *st = pl__st(v, k);
	return cfg->now >= pl__since(st) && cfg->now - pl__since(st) >= cfg->return_home_age;
}

/* The oldest returnable lag override homed at self; ties to the smaller key. */
static uint32_t oldest_returnable(const pl_view *v, const pl_fleet_config *cfg, const pl__fleet_plan *p,
				  uint32_t self)
{
	uint32_t best = PL_NONE;
	uint64_t since = 0;
	if (cfg->return_home_age == PL_FLEET_NEVER || v->n_lag == 0 || p->reason != 0)
		return PL_NONE;
	for (uint32_t i = 0; i < v->nk; i++) {
		uint32_t k = v->k_order[i];
		if (!returnable(v, cfg, p, self, k))
			continue;
		if (best == PL_NONE || pl__since(pl__st(v, k)) < since) {
			best = k;
			since = pl__since(pl__st(v, k));
		}
	}
	return best;
}

/* Room self keeps for returns: its share less what it owns. */
static uint32_t return_room(const pl_view *v, uint32_t self)
{
	uint32_t floor, share;
	pl__bounds(v, v->nk, self, &floor, &share);
	return v->m_owned[self] < share ? share - v->m_owned[self] : 0;
}

static void return_home(pl__fleet_run *r, uint32_t self, const pl__fleet_plan *p)
{
	pl_view *v = r->v;
	uint32_t room = return_room(v, self);
	while (room > 0 && r->moves < r->cfg->moves_per_decision && !r->full) {
		uint32_t k = oldest_returnable(v, r->cfg, p, self);
		if (k == PL_NONE)
			return;
		pl_action a = drop_action(v, PL_REASON_RETURN_HOME, k, r->cfg->now);
		uint32_t floor;
		pl__bounds(v, v->nk, self, &floor, &a.share);
		if (pl__fleet_emit(r, &a))
			return;
		r->moves++;
		room--;
	}
}

/* ---- the decision ---------------------------------------------------------- */

static int check_config(const pl_view *v, const pl_fleet_config *c, pl_diag *diag)
{
	if (c->version != PL_FLEET_CONFIG_VERSION)
		return pl__fail(diag, PL_E_VERSION, PL_ELEM_CONFIG, 0, PL_NONE);
	if (c->self >= v->nm)
		return pl__fail(diag, PL_E_MEMBER_RANGE, PL_ELEM_CONFIG, 1, PL_NONE);
	if (c->moves_per_decision == 0)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 5, PL_NONE);
	if (c->spread > 1)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 6, PL_NONE);
	if (c->count_balance > 1)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 8, PL_NONE);
	if (c->reserved != 0)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 9, PL_NONE);
	return 0;
}

static int cooldown_passed(const pl_fleet_config *c)
{
	if (c->last_move == PL_FLEET_NEVER)
		return 1;
	return c->now >= c->last_move && c->now - c->last_move >= c->cooldown;
}

int pl_fleet_decide(pl_view *v, const pl_fleet_config *cfg, pl_action *out, uint32_t cap, pl_plan_info *info,
		    pl_diag *diag)
{
	int rc = pl__check_policy_args(v, cfg, sizeof *cfg, out, cap, info, NULL, diag);
	if (rc)
		return rc;
	rc = check_config(v, cfg, diag);
	if (rc)
		return rc;
	if (v->nk > 0 && v->n_elig == 0)
		return pl__fail(diag, PL_E_NO_ELIGIBLE, PL_ELEM_SNAPSHOT, 0, PL_NONE);

	pl__view_homes(v);
	pl__fleet_run r = {v, cfg, out, cap, 0, 0, 0};
	uint32_t self = cfg->self, status = PL_STATUS_BALANCED, waiting = 0;
	if (!pl__eligible(v, self)) {
		status = PL_STATUS_NOT_LIVE;
	} else {
		clean_up(&r, self);
		int cool = cooldown_passed(cfg);
		if (r.full) {
			/* status set below */
		} else if (pl__lagging(v, self)) {
			if (busiest(v, self) == PL_NONE)
				status = PL_STATUS_BALANCED;
			else if (least_loaded(&r, self) == PL_NONE)
				status = PL_STATUS_STALLED;
			else if (!cool)
				status = PL_STATUS_COOLDOWN;
			else
				status = (uint32_t)lag_moves(&r, self);
		} else {
			pl__fleet_plan p;
			pl__fleet_plan_tick(v, cfg, &p);
			waiting = p.waiting;
			int returns = return_room(v, self) > 0 && oldest_returnable(v, cfg, &p, self) != PL_NONE;
			if (p.take == 0 && p.keep_self == 0 && !returns) {
				status = p.u_self > 0 ? PL_STATUS_WAITING : PL_STATUS_BALANCED;
			} else if (!cool) {
				status = PL_STATUS_COOLDOWN;
			} else if (p.take > 0) {
				pl__fleet_balance(&r, &p);
			} else if (p.keep_self > 0) {
				uint32_t mine;
				pl__fleet_keep(v, cfg, &r, &mine);
			} else {
				return_home(&r, self, &p);
			}
		}
	}
	if (r.full)
		status = PL_STATUS_FULL;
	else if (status == PL_STATUS_BALANCED)
		status = pl__fleet_status(v, cfg); /* balanced only when every member is within bounds */
	pl__plan_info(info, r.written, r.full ? 1u : 0u, status, PL_NONE, waiting);
	return (int)r.written;
}
