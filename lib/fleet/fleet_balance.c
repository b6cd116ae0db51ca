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
#include "fleet/fleet_int.h"

static void bounds(const pl_view *v, uint32_t m, uint32_t *floor, uint32_t *share)
{
	pl__bounds(v, v->nk, m, floor, share);
}

static int active(const pl_view *v, uint32_t m)
{
	return pl__eligible(v, m) && !pl__lagging(v, m);
}

/* A member's numbers from the counts in m_scratch. */
typedef struct acct {
	uint32_t owned, eff, hi, movable;
} acct;

static acct acct_of(const pl_view *v, uint32_t m)
{
	uint64_t sc = (uint64_t)v->m_scratch[m];
	uint32_t in = (uint32_t)(sc >> 32), out = (uint32_t)sc;
	acct a;
	a.owned = v->m_owned[m];
	a.eff = a.owned - out + in;
	a.hi = a.owned > a.eff ? a.owned : a.eff;
	a.movable = a.owned - v->m_lagged[m];
	return a;
}

/* Places member m offers: below the share, or below the floor only; counted
 * on the greater of what it owns and what it counts. */
static uint32_t offer(const pl_view *v, uint32_t m, uint32_t below_only)
{
	if (!active(v, m))
		return 0;
	uint32_t floor, share;
	bounds(v, m, &floor, &share);
	acct a = acct_of(v, m);
	uint32_t lim = below_only ? floor : share;
	return a.hi < lim ? lim - a.hi : 0;
}

/* Moves member m offers in a pass: what it counts above its share (count)
 * or its floor (spread), at most moves_per_decision, at most its movable
 * shards. */
static uint32_t offers_moves(const pl_view *v, uint32_t m, uint32_t reason, uint32_t per_decision)
{
	if (!active(v, m))
		return 0;
	uint32_t floor, share;
	bounds(v, m, &floor, &share);
	acct a = acct_of(v, m);
	uint32_t lim = reason == PL_REASON_COUNT ? share : floor;
	if (a.eff <= lim)
		return 0;
	uint32_t u = a.eff - lim;
	u = u < per_decision ? u : per_decision;
	return u < a.movable ? u : a.movable;
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

/* Counted shards of every member into m_scratch (low 32 bits; high bits 0). */
static void fill_counted(const pl_view *v)
{
	pl__fleet_count_t n;
	pl__fleet_count(v, &n);
	for (uint32_t m = 0; m < v->nm; m++)
		v->m_scratch[m] = acct_of(v, m).eff;
}

static uint32_t counted(const pl_view *v, uint32_t m)
{
	return (uint32_t)v->m_scratch[m];
}

/* The pass in which a member counting c may one day give: COUNT above the
 * share, SPREAD above the floor (with the spread pass), 0: never. */
static uint32_t give_limit(const pl_view *v, const pl_fleet_config *cfg, uint32_t m, uint32_t c)
{
	uint32_t floor, share;
	bounds(v, m, &floor, &share);
	if (!cfg->count_balance)
		return 0;
	if (c > share)
		return PL_REASON_COUNT;
	if (cfg->spread && c > floor)
		return PL_REASON_SPREAD;
	return 0;
}

/* May shard k held by x go home? Its home has room. And a home that may one
 * day give (it counts above the share, or above the floor with the spread
 * pass; once it owns shards it can give them) takes a shard back only from
 * a holder counting at least that limit: such a holder never becomes a
 * target, so the shard is never handed back to it. A home that never gives
 * takes back freely (returns do not change what a member counts). */
static int return_fits(const pl_view *v, const pl_fleet_config *cfg, uint32_t k, uint32_t x)
{
	uint32_t h = v->k_home[k], floor, share;
	bounds(v, h, &floor, &share);
	if (v->m_owned[h] >= share)
		return 0; /* no room at home */
	uint32_t pass = give_limit(v, cfg, h, counted(v, h));
	if (pass == 0)
		return 1;
	bounds(v, x, &floor, &share);
	return counted(v, x) >= (pass == PL_REASON_COUNT ? share : floor);
}

/* One keep pass for `reason`, counting in the low 32 bits of m_scratch
 * (updated as keeps are assigned), the high bits as this pass's uses. */
static uint32_t keep_pass(const pl_view *v, const pl_fleet_config *cfg, uint32_t reason, pl__fleet_run *r,
			  uint32_t *mine)
{
	int64_t *sc = v->m_scratch;
	uint32_t n = 0, mpd = cfg->moves_per_decision;
	for (uint32_t m = 0; m < v->nm; m++)
		sc[m] = (uint32_t)sc[m];
	for (uint32_t i = 0; i < v->nk; i++) {
		uint32_t k = v->k_order[i], x = pl__fleet_released(v, k);
		if (x == PL_NONE)
			continue;
		uint32_t h = v->k_home[k], fx, sx, fh, sh;
		bounds(v, x, &fx, &sx);
		bounds(v, h, &fh, &sh);
		uint32_t lx = reason == PL_REASON_COUNT ? sx : fx, lh = reason == PL_REASON_COUNT ? sh : fh;
		uint32_t cx = counted(v, x), ch = counted(v, h);
		uint32_t ux = (uint32_t)((uint64_t)sc[x] >> 32), uh = (uint32_t)((uint64_t)sc[h] >> 32);
		if (cx >= lx || ch <= lh || ux >= mpd || uh >= mpd)
			continue;
		/* x keeps it: x counts one more, h one less, both within. */
		sc[x] = (int64_t)((uint64_t)(ux + 1) << 32 | (cx + 1));
		sc[h] = (int64_t)((uint64_t)(uh + 1) << 32 | (ch - 1));
		n++;
		if (h != cfg->self)
			continue;
		(*mine)++;
		if (r == NULL || r->full || r->moves >= mpd)
			continue;
		/* The holder keeps the shard, by count: no owner changes. */
		pl_action a = pl__fleet_action(v, PL_ACTION_SET_OVERRIDE, reason, k, x, x);
		a.origin = PL_ORIGIN_COUNT;
		a.at = cfg->now;
		a.from_count = ch;
		a.to_count = cx;
		a.share = lh; /* the home's limit in this pass */
		a.tier = PL_FLEET_PICK_KEEP;
		if (pl__fleet_emit(r, &a) == 0)
			r->moves++;
	}
	return n;
}

uint32_t pl__fleet_keep(const pl_view *v, const pl_fleet_config *cfg, pl__fleet_run *r, uint32_t *mine)
{
	*mine = 0;
	if (!cfg->count_balance || v->n_lag == 0)
		return 0;
	fill_counted(v);
	uint32_t n = keep_pass(v, cfg, PL_REASON_COUNT, r, mine);
	if (cfg->spread)
		n += keep_pass(v, cfg, PL_REASON_SPREAD, r, mine);
	return n;
}

/* No pass this tick: what returns need, in m_scratch for the call: per
 * member, its counted shards (low 32 bits) and (high 32 bits) 1 + the
 * released lag override it holds that goes home first (the oldest since,
 * then key, that fits), or 0. One per holder per tick, the same for every
 * decider, so returns from one holder never add up past what was checked. */
static void plan_returns(const pl_view *v, const pl_fleet_config *cfg)
{
	int64_t *sc = v->m_scratch;
	fill_counted(v);
	for (uint32_t i = 0; i < v->nk && v->n_lag > 0; i++) {
		uint32_t k = v->k_order[i], x = pl__fleet_released(v, k);
		if (x == PL_NONE || !return_fits(v, cfg, k, x))
			continue;
		uint32_t f = (uint32_t)((uint64_t)sc[x] >> 32);
		if (f == 0 || pl__since(pl__st(v, k)) < pl__since(pl__st(v, f - 1)))
			sc[x] = (int64_t)((uint64_t)(k + 1) << 32 | (uint32_t)sc[x]);
	}
}

/* No pass this tick. First the keep passes: a holder counting less than a
 * pass's limit keeps shards it holds for a home counting more, by count, the
 * same assignment for every decider. When there are none, returns. */
static void no_pass(const pl_view *v, const pl_fleet_config *cfg, pl__fleet_plan *p)
{
	p->places = p->offered = 0;
	p->keeps = pl__fleet_keep(v, cfg, NULL, &p->keep_self);
	if (p->keeps == 0)
		plan_returns(v, cfg);
}

int pl__fleet_may_return(const pl_view *v, const pl__fleet_plan *p, uint32_t k)
{
	uint32_t x = pl__fleet_released(v, k);
	if (x == PL_NONE || p->reason != 0 || p->keeps != 0)
		return 0;
	return (uint32_t)((uint64_t)v->m_scratch[x] >> 32) == k + 1;
}

void pl__fleet_plan_tick(const pl_view *v, const pl_fleet_config *cfg, pl__fleet_plan *p)
{
	memset(p, 0, sizeof *p);
	pl__fleet_count_t n;
	pl__fleet_count(v, &n);
	if (!cfg->count_balance) {
		no_pass(v, cfg, p);
		return;
	}
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
		no_pass(v, cfg, p);
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
	/* The places as the snapshot offers them, read while self moves. */
	for (uint32_t m = 0; m < v->nm; m++)
		v->m_scratch[m] = (int64_t)((uint64_t)acct_of(v, m).eff << 32 | offer(v, m, p->below_only));
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

/* Which shard goes to target t; PL_NONE when none. Self's own shards, and
 * its shards t holds through a lag override after the lag (t keeps one).
 * A shard of self held by another member is never handed on to t: its
 * holder's count does not change, so the holder could later be a target
 * and t hand it back. */
static uint32_t pick(const pl_view *v, uint32_t self, uint32_t t, uint32_t *why)
{
	uint32_t first_ov = PL_NONE, first_any = PL_NONE, first_keep = PL_NONE, first_home = PL_NONE;
	for (uint32_t i = 0; i < v->nk; i++) {
		uint32_t k = v->k_order[i];
		if (first_keep == PL_NONE && v->k_home[k] == self && v->n_lag > 0 &&
		    pl__fleet_released(v, k) == t)
			first_keep = k;
		if (!movable(v, k, self))
			continue;
		if (v->k_home[k] == t && first_home == PL_NONE) {
			first_home = k;
			if (v->n_lag == 0)
				break; /* no shard to keep: nothing can beat it */
		}
		if (first_ov == PL_NONE && pl__ov(pl__st(v, k)) == self && pl__st(v, k)->ov_origin == PL_ORIGIN_COUNT)
			first_ov = k;
		if (first_any == PL_NONE)
			first_any = k;
	}
	if (first_keep != PL_NONE) {
		*why = PL_FLEET_PICK_KEEP;
		return first_keep;
	}
	if (first_home != PL_NONE) {
		*why = PL_FLEET_PICK_HOME;
		return first_home;
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

/* One move of self to target t, self counting c and t counting ct (what
 * the snapshot counts, plus what self has moved already). */
static int move_one(pl__fleet_run *r, uint32_t reason, uint32_t t, uint32_t c, uint32_t ct)
{
	pl_view *v = r->v;
	uint32_t self = r->cfg->self, why = 0, k = pick(v, self, t, &why), floor;
	PL_ASSERT(k != PL_NONE); /* a mover offers no more moves than it has movable shards */
	if (k == PL_NONE)
		return 1;
	const pl__shard_state *st = pl__st(v, k);
	pl_action a;
	if (why == PL_FLEET_PICK_KEEP) {
		/* Self's shard, held by the target since a lag: the target
		 * keeps it, by count; no owner changes. As the keep pass
		 * writes it: what each counts, and self's limit in the pass. */
		a = pl__fleet_action(v, PL_ACTION_SET_OVERRIDE, reason, k, pl__ov(st), t);
		a.origin = PL_ORIGIN_COUNT;
		a.at = r->cfg->now;
		a.to_count = ct;
	} else if (v->k_home[k] == t) {
		a = pl__fleet_action(v, PL_ACTION_DROP_OVERRIDE, reason, k, self, t);
		a.origin = st->ov_origin;
		a.at = r->cfg->now >= pl__since(st) ? r->cfg->now - pl__since(st) : 0;
	} else {
		a = pl__fleet_action(v, PL_ACTION_SET_OVERRIDE, reason, k, self, t);
		a.origin = PL_ORIGIN_COUNT;
		a.at = r->cfg->now;
	}
	a.from_count = c;
	bounds(v, self, &floor, &a.share);
	if (why == PL_FLEET_PICK_KEEP) {
		if (reason == PL_REASON_SPREAD)
			a.share = floor;
	} else {
		a.load = v->m_owned[self]; /* what self owns, beside what it counts */
	}
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
	uint32_t c_self = (uint32_t)((uint64_t)v->m_scratch[r->cfg->self] >> 32);
	/* Walk the targets in id order; their places and counts are the
	 * snapshot's (m_scratch), whatever self has moved already. */
	for (uint32_t e = 0; e < v->n_elig && c < hi; e++) {
		uint32_t t = v->elig[e], o = (uint32_t)v->m_scratch[t];
		uint32_t ct = (uint32_t)((uint64_t)v->m_scratch[t] >> 32);
		uint64_t from = c > lo ? c : lo, to = c + o < hi ? c + o : hi;
		for (uint64_t j = from; j < to; j++) {
			if (r->moves >= r->cfg->moves_per_decision ||
			    move_one(r, p->reason, t, c_self, ct + (uint32_t)(j - from)))
				return;
			c_self--;
		}
		c += o;
	}
}

/* After pl__fleet_plan_tick() found no pass and no keep: will one of the
 * planned returns (one per holder, in the high bits of m_scratch) ever be
 * made? Its home takes it back once the override is return_home_age old by
 * the home's clock and its cooldown has passed; never when returns are off,
 * or when since + return_home_age passes the clock's range. */
static int return_planned(const pl_view *v, const pl_fleet_config *cfg)
{
	if (cfg->return_home_age == PL_FLEET_NEVER || v->n_lag == 0)
		return 0;
	for (uint32_t m = 0; m < v->nm; m++) {
		uint32_t f = (uint32_t)((uint64_t)v->m_scratch[m] >> 32);
		if (f != 0 && pl__since(pl__st(v, f - 1)) <= UINT64_MAX - cfg->return_home_age)
			return 1;
	}
	return 0;
}

/* The word for the fleet as the view stands, from what the rules will do
 * next with nothing changing (no flag, membership or config change), the
 * first that holds:
 *  LAGGING         an eligible member lags (lag moves, or stalled);
 *  MOVING          the tick's plan has a count or spread pass, or the keep
 *                  pass a keep: some member moves once its cooldown passes;
 *  RETURNING_HOME  a return is planned: a lag override after the lag whose
 *                  home has room and may take it, which goes home once it
 *                  is return_home_age old by its home's clock and the home's
 *                  cooldown has passed;
 *  BALANCED        every eligible member owns within [floor, share], and
 *                  none of the above: no member acts again;
 *  UNEVEN          out of bounds, and none of the above: no rule of this
 *                  configuration ever moves a shard again.
 * Each state with no pass, keep or planned return is a fixed point: no
 * decision moves anything, so nothing changes and the word stays. */
uint32_t pl__fleet_status(const pl_view *v, const pl_fleet_config *cfg)
{
	int within = 1;
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e], floor, share, o = v->m_owned[m];
		if (pl__lagging(v, m))
			return PL_STATUS_LAGGING;
		bounds(v, m, &floor, &share);
		if (o > share || o < floor)
			within = 0;
	}
	pl__fleet_plan p;
	pl__fleet_plan_tick(v, cfg, &p);
	if (p.reason != 0 || p.keeps != 0)
		return PL_STATUS_MOVING;
	if (return_planned(v, cfg))
		return PL_STATUS_RETURNING_HOME;
	return within ? PL_STATUS_BALANCED : PL_STATUS_UNEVEN;
}
