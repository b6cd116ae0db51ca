/*
 * fleet_balance.c - count balance and closing the spread: who moves how many
 * shards where this tick, the same answer for every member.
 *
 * How it works. From the snapshot alone (owned counts, lag-held counts, the
 * lagging flags, every member's share and floor) each member computes the
 * tick's plan:
 *  - the movers, ranked by id: eligible, not lagging, above the limit of the
 *    pass (the share for count balance, the floor for the spread pass), each
 *    offering u = min(owned - limit, moves_per_decision, movable) moves,
 *    where movable excludes shards held through a lag override;
 *  - the places, listed target by target in id order: each eligible member
 *    that is not lagging offers as many as it is below the share (or below
 *    the floor, see below);
 *  - the k-th offered move takes the k-th place. A mover's moves are
 *    consecutive places; one ranked past the last place waits.
 * Self then makes its own moves: for each of its places, in order, it picks
 * one of its movable shards for that place's target (ring home first, then
 * next rendezvous choice, then its count overrides, then any, each in key
 * order) and writes the override (or drops its count override when the
 * target is the shard's ring home).
 *
 * Close the spread (cfg->spread). While some target is below its floor, the
 * count pass offers only places below the floor, so that every count move
 * made while a deficit remains closes one, whichever members happen to act
 * in a tick (cooldowns). When no mover above the share has a move to offer,
 * the spread pass lets members above their floor (at the share) hand one
 * shard each to the places below the floor.
 *
 * Why it terminates, and in how many moves. Let E be the sum of excess over
 * the share and D the sum of deficit under the floor. Places never exceed a
 * target's share (or floor), and a mover never offers more than its excess
 * (or its one shard above the floor), so no member crosses a limit: a count
 * move lowers E by one, and D by one while D > 0; a spread move lowers D by
 * one and leaves E at 0. Members acting on one snapshot take distinct places,
 * so this holds for the tick as a whole. Hence, without lag, every member
 * ends within [floor, share] after exactly max(E, D) moves (E with the
 * spread pass off, the seed's behaviour), and no move is possible after:
 * which is the minimum, since each move changes one member's count by one
 * on each side.
 */
#include "internal.h"

static void bounds(const pl_view *v, uint32_t m, uint32_t *floor, uint32_t *share)
{
	pl__bounds(v, v->nk, m, floor, share);
}

static int active(const pl_view *v, uint32_t m)
{
	return pl__eligible(v, m) && !pl__lagging(v, m);
}

/* Places member m offers: below the share, or below the floor only. */
static uint32_t offer(const pl_view *v, uint32_t m, uint32_t below_only)
{
	if (!active(v, m))
		return 0;
	uint32_t floor, share, owned = v->m_owned[m];
	bounds(v, m, &floor, &share);
	uint32_t lim = below_only ? floor : share;
	return owned < lim ? lim - owned : 0;
}

/* Moves member m offers in a pass: above its share (count) or its floor
 * (spread), at most moves_per_decision, at most its movable shards. */
static uint32_t offers_moves(const pl_view *v, uint32_t m, uint32_t reason, uint32_t per_decision)
{
	if (!active(v, m))
		return 0;
	uint32_t floor, share, owned = v->m_owned[m];
	bounds(v, m, &floor, &share);
	uint32_t lim = reason == PL_REASON_COUNT ? share : floor;
	if (owned <= lim)
		return 0;
	uint32_t u = owned - lim, movable = owned - v->m_lagged[m];
	u = u < per_decision ? u : per_decision;
	return u < movable ? u : movable;
}

static uint64_t sum_offers(const pl_view *v, uint32_t below_only)
{
	uint64_t n = 0;
	for (uint32_t e = 0; e < v->n_elig; e++)
		n += offer(v, v->elig[e], below_only);
	return n;
}

static uint64_t sum_moves(const pl_view *v, uint32_t reason, uint32_t per_decision)
{
	uint64_t n = 0;
	for (uint32_t e = 0; e < v->n_elig; e++)
		n += offers_moves(v, v->elig[e], reason, per_decision);
	return n;
}

void pl__fleet_plan_tick(const pl_view *v, const pl_fleet_config *cfg, pl__fleet_plan *p)
{
	memset(p, 0, sizeof *p);
	if (!cfg->count_balance)
		return;
	uint32_t mpd = cfg->moves_per_decision;
	uint64_t below = sum_offers(v, 1);
	p->below_only = cfg->spread && below > 0;
	p->places = p->below_only ? below : sum_offers(v, 0);
	p->offered = sum_moves(v, PL_REASON_COUNT, mpd);
	if (p->places > 0 && p->offered > 0) {
		p->reason = PL_REASON_COUNT;
	} else if (cfg->spread && below > 0) {
		p->below_only = 1;
		p->places = below;
		p->offered = sum_moves(v, PL_REASON_SPREAD, mpd);
		if (p->offered > 0)
			p->reason = PL_REASON_SPREAD;
	}
	if (p->reason == 0) {
		p->places = p->offered = 0;
		return;
	}
	/* The ranking: movers by id, each taking its consecutive places. */
	uint64_t at = 0;
	for (uint32_t e = 0; e < v->n_elig; e++) { /* elig is in id order */
		uint32_t m = v->elig[e], u = offers_moves(v, m, p->reason, mpd);
		if (u == 0)
			continue;
		if (m == cfg->self) {
			p->first = at;
			p->u_self = u;
		}
		if (at >= p->places)
			p->waiting++;
		at += u;
	}
	if (p->u_self > 0 && p->first < p->places) {
		uint64_t left = p->places - p->first;
		p->take = left < p->u_self ? (uint32_t)left : p->u_self;
	}
	/* Self as a target: how many of its places are taken. */
	uint64_t filled = p->offered < p->places ? p->offered : p->places, c = 0;
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e], o = offer(v, m, p->below_only);
		if (m == cfg->self) {
			uint64_t end = c + o < filled ? c + o : filled;
			p->taken_self = end > c ? (uint32_t)(end - c) : 0;
			break;
		}
		c += o;
	}
}

/* Is t the best-scoring eligible member for shard k other than self and
 * the shard's ring home? */
static int next_choice(const pl_view *v, uint32_t k, uint32_t self, uint32_t t)
{
	uint64_t kh = v->k_hash[k];
	uint32_t home = v->k_home[k];
	pl__draw dt = pl__view_draw(v, kh, t);
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e];
		if (m == t || m == self || m == home)
			continue;
		if (pl__draw_gt(pl__view_draw(v, kh, m), dt))
			return 0;
	}
	return 1;
}

static int movable(const pl_view *v, uint32_t k, uint32_t self)
{
	return pl__owner(v, k) == self && pl__lag_holder(v, k) == PL_NONE;
}

/* Which of self's movable shards goes to target t; PL_NONE when none. */
static uint32_t pick(const pl_view *v, uint32_t self, uint32_t t, uint32_t *why)
{
	uint32_t first_ov = PL_NONE, first_any = PL_NONE;
	for (uint32_t i = 0; i < v->nk; i++) {
		uint32_t k = v->k_order[i];
		if (!movable(v, k, self))
			continue;
		if (v->k_home[k] == t) {
			*why = PL_FLEET_PICK_HOME;
			return k;
		}
		if (first_ov == PL_NONE && v->st[k].ov_member == self && v->st[k].ov_origin == PL_ORIGIN_COUNT)
			first_ov = k;
		if (first_any == PL_NONE)
			first_any = k;
	}
	if (first_any == PL_NONE)
		return PL_NONE;
	for (uint32_t i = 0; i < v->nk; i++) {
		uint32_t k = v->k_order[i];
		if (movable(v, k, self) && next_choice(v, k, self, t)) {
			*why = PL_FLEET_PICK_NEXT;
			return k;
		}
	}
	*why = first_ov != PL_NONE ? PL_FLEET_PICK_OVERRIDE : PL_FLEET_PICK_ANY;
	return first_ov != PL_NONE ? first_ov : first_any;
}

static int move_one(pl__fleet_run *r, uint32_t reason, uint32_t t)
{
	pl_view *v = r->v;
	uint32_t self = r->cfg->self, why = 0, k = pick(v, self, t, &why);
	PL_ASSERT(k != PL_NONE); /* a mover offers no more moves than it has movable shards */
	if (k == PL_NONE)
		return 1;
	const pl__shard_state *st = &v->st[k];
	pl_action a;
	if (v->k_home[k] == t) {
		a = pl__fleet_action(v, PL_ACTION_DROP_OVERRIDE, reason, k, self, t);
		a.origin = st->ov_origin;
		a.at = r->cfg->now >= st->ov_since ? r->cfg->now - st->ov_since : 0;
	} else {
		a = pl__fleet_action(v, PL_ACTION_SET_OVERRIDE, reason, k, self, t);
		a.origin = PL_ORIGIN_COUNT;
		a.at = r->cfg->now;
	}
	uint32_t floor;
	bounds(v, self, &floor, &a.share);
	a.tier = why;
	if (pl__fleet_emit(r, &a))
		return 1;
	r->moves++;
	return 0;
}

void pl__fleet_balance(pl__fleet_run *r, const pl__fleet_plan *p)
{
	const pl_view *v = r->v;
	uint64_t lo = p->first, hi = p->first + p->take, c = 0;
	/* Walk the targets in id order; each target's offer is read before
	 * self gives it anything, so its range of places is the snapshot's. */
	for (uint32_t e = 0; e < v->n_elig && c < hi; e++) {
		uint32_t t = v->elig[e], o = offer(v, t, p->below_only);
		uint64_t from = c > lo ? c : lo, to = c + o < hi ? c + o : hi;
		for (uint64_t j = from; j < to; j++)
			if (r->moves >= r->cfg->moves_per_decision || move_one(r, p->reason, t))
				return;
		c += o;
	}
}
