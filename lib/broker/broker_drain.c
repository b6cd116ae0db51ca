/*
 * broker_drain.c - the replica moves that come before balance: emptying a
 * draining member of the replicas it holds as a follower, and repairing
 * shards whose replicas span fewer zones than they could.
 *
 * How it works. A draining member's leadership is handed off first, by the
 * placing pass (broker_place.c); every replica it holds as a follower then
 * moves (MOVE_REPLICA, STAGE_FIRST) to the tier choice counted on replicas
 * (pl__bk_tier() with PL__BK_REPLICA: under the stream's replica floor, its
 * ceiling, the cluster's replica share, with room) among the eligible
 * members that hold no replica of the shard and keep its zone count; when
 * the drained replica shares its domain with another and the shard could
 * span more (drain_spread()), among those in a new domain first, as the
 * zone repair would move it next. A
 * replica drain never lowers a shard's zone count and never passes a cap:
 * with no such member the replica stalls, and the tick reports
 * PL_STATUS_DRAIN_STALLED with the first such shard. It is a move: it counts
 * against max_moves and the per-member limits, and a paused policy starts
 * none. One replica of a shard per tick (the shard is then in flight).
 *
 * Zone repair. A shard spans fewer zones than it could when the zones of its
 * replicas number fewer than min(its replicas, the zones of its replicas
 * and of the eligible members with room for a new replica). Then two of its
 * replicas share a zone, and one of them is a follower: the follower
 * (eligible, not in flight) of a shared zone whose member holds the most
 * replicas of the stream, then in total, per weight, then the smaller id,
 * moves to the tier choice among the eligible members with room in a zone
 * the shard does not span. The leadership never moves with it. Each repair
 * raises one shard's zone count by one, and no move of the policy ever
 * lowers one: at most (zones it could span) repairs per shard, in all.
 *
 * Majority repair. A shard of a stream whose zone rule is PL_ZONES_MAJORITY
 * and that spans all the zones it can has a limit: at most (n - 1) / 2 of
 * its n replicas (at least 1) in one zone, or ceil(n / zones) when the zones
 * that can take one (with an eligible member with room, or holding one of
 * its replicas) are too few for that. While a zone holds more than the
 * limit and some zone with an eligible member with room (that holds none of
 * it) holds fewer, a replica moves from the zone holding the most (never
 * the leader's; an eligible follower as above, else a down member's) to the
 * tier choice among those members in the zones holding the fewest: the
 * shard's excess (the sum over zones of what they hold past the limit)
 * falls by one, and so does the room-free potential no move may raise
 * (pl__bk_majority_ok(): the sum over zones of max(0, held - base)^2).
 * The action is a ZONE_REPAIR like a span repair's (zones before and after,
 * both the zones it spans).
 *
 * Both walk the shards in key order, once per tick; each is skipped with an
 * O(members) check when nothing can want it (no draining member holds a
 * replica; every member in a zone of its own).
 */
#include "broker/broker_int.h"

/* ---- zones ---------------------------------------------------------------- */

int pl__bk_domains_shared(const pl_view *v)
{
	if (v->zone_levels > 1)
		return 1;
	int64_t *z = v->m_scratch;
	int shared = 0;
	for (uint32_t m = 0; m < v->nm; m++)
		z[m] = 0;
	for (uint32_t m = 0; m < v->nm && !shared; m++)
		shared = z[v->m_zone[m]]++ > 0;
	for (uint32_t m = 0; m < v->nm; m++)
		z[m] = 0;
	return shared;
}

uint32_t pl__bk_room_zones(const pl_view *v)
{
	int64_t *z = v->m_scratch;
	uint32_t n = 0;
	for (uint32_t m = 0; m < v->nm; m++)
		z[m] &= ~PL__BK_MARK;
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e];
		if (pl__bk_room_new(v, m) && !(z[v->m_zone[m]] & PL__BK_MARK)) {
			z[v->m_zone[m]] |= PL__BK_MARK;
			n++;
		}
	}
	return n;
}

uint32_t pl__bk_zones(const pl_view *v, uint32_t k, uint32_t room_zones, uint32_t *could)
{
	const pl__shard_state *st = pl__st(v, k);
	uint32_t zones = 0, extra = 0;
	for (uint32_t j = 0; j < st->nrep; j++) {
		uint32_t z = v->m_zone[pl__rep(st, j)], seen = 0;
		for (uint32_t i = 0; i < j; i++)
			seen |= v->m_zone[pl__rep(st, i)] == z;
		if (seen)
			continue;
		zones++;
		extra += !(v->m_scratch[z] & PL__BK_MARK);
	}
	if (could) {
		uint32_t c = room_zones + extra;
		*could = c < st->nrep ? c : st->nrep;
	}
	return zones;
}


/* ---- a replica move before balance ------------------------------------------ */

/* May a move start now? Notes why not (paused, the budget, from's limit). */
static int may_move(pl__bk *b, uint32_t from)
{
	if (b->cfg->paused) {
		b->want_paused = 1;
		return 0;
	}
	if (b->budget == 0) {
		pl__bk_wait_limit(b, PL_NONE);
		return 0;
	}
	if (!pl__bk_out_ok(b, from)) {
		pl__bk_wait_limit(b, from);
		return 0;
	}
	return 1;
}

/* The replica move of shard k from `from` to p->member, with its numbers. */
static void emit_replica(pl__bk *b, uint32_t reason, uint32_t k, uint32_t from, const pl__pick *p, uint32_t zones,
			 uint32_t could)
{
	const pl_view *v = b->v;
	uint32_t s = v->snap.shards[k].stream;
	pl_action a;
	pl__action_init(&a, PL_ACTION_MOVE_REPLICA, reason, k, s, from, p->member);
	a.flags = PL_ACTION_STAGE_FIRST;
	a.tier = p->tier;
	a.share = p->share;
	a.load = p->total;
	if (reason == PL_REASON_ZONE_REPAIR) {
		a.scope = PL_SCOPE_ZONES;
		/* the domains counted: the paths' first `at` parts; 0, whole zones */
		a.at = b->zone_level + 1 < v->zone_levels ? b->zone_level + 1 : 0;
		a.from_count = zones;
		a.to_count = zones + 1;
		a.total = could;
	} else if (s != PL_NONE) {
		a.scope = PL_SCOPE_STREAM_REPLICAS;
		a.from_count = pl__rcell_get(v, s, from);
		a.to_count = p->count;
		a.total = p->stream_total;
	} else {
		a.scope = PL_SCOPE_REPLICAS;
		a.from_count = v->m_replicas[from];
		a.to_count = p->total;
		a.total = b->rep_total;
	}
	a.floor = p->floor;
	a.ceiling = p->ceiling;
	if (s == PL_NONE)
		pl__bounds(v, b->rep_total, p->member, &a.floor, &a.ceiling);
	pl__bk_emit_move(b, &a);
}

/* Choose where a replica of k goes (set: PL__BK_KEEP_ZONES or NEW_ZONE),
 * within the limits. 1: p is the choice; 0: it waits on a limit (noted);
 * -1: no member with room. */
static int choose(pl__bk *b, uint32_t k, uint32_t set, uint32_t from, pl__pick *p)
{
	pl__bk_tier(b, k, set | PL__BK_REPLICA, from, 0, p);
	if (p->member == PL_NONE || p->tier == 5)
		return -1;
	uint32_t first = p->member;
	if (b->limits) {
		pl__bk_tier(b, k, set | PL__BK_REPLICA, from, 1, p);
		if (p->member == PL_NONE || p->tier == 5) {
			pl__bk_wait_limit(b, first);
			return 0;
		}
	}
	return 1;
}

/* Is replica j of shard k in a domain (at `level`; the whole zone from
 * zone_levels - 1) another of its replicas is in? */
static int zone_shared(const pl_view *v, const pl__shard_state *st, uint32_t j, uint32_t level)
{
	for (uint32_t i = 0; i < st->nrep; i++)
		if (i != j && pl__zone_same(v, pl__rep(st, i), pl__rep(st, j), level))
			return 1;
	return 0;
}

/* Levels above the zone (paths): up to ROOM_REPS distinct domains at each
 * level with an eligible member with room, one member of each. As many as
 * a shard's replicas past the ones it spans are all a count needs. */
#define ROOM_REPS (2 * PL_MAX_REPLICAS)
typedef struct room_reps {
	uint32_t n[PL__ZONE_LEVELS];
	uint32_t m[PL__ZONE_LEVELS][ROOM_REPS];
} room_reps;

static void room_domains(const pl_view *v, room_reps *rr)
{
	for (uint32_t lv = 0; lv + 1 < v->zone_levels; lv++) {
		rr->n[lv] = 0;
		for (uint32_t e = 0; e < v->n_elig && rr->n[lv] < ROOM_REPS; e++) {
			uint32_t m = v->elig[e], seen = 0;
			if (!pl__bk_room_new(v, m))
				continue;
			for (uint32_t i = 0; i < rr->n[lv] && !seen; i++)
				seen = pl__zone_same(v, rr->m[lv][i], m, lv);
			if (!seen)
				rr->m[lv][rr->n[lv]++] = m;
		}
	}
}

/* Shard k's domains at level lv above the zone, and (could) how many it
 * could span: min(replicas, those and the room domains it does not span). */
static uint32_t level_span(const pl_view *v, const room_reps *rr, uint32_t k, uint32_t lv, uint32_t *could)
{
	const pl__shard_state *st = pl__st(v, k);
	uint32_t rep[PL_MAX_REPLICAS], span = 0, extra = 0;
	for (uint32_t j = 0; j < st->nrep; j++) {
		rep[j] = pl__rep(st, j);
		span += pl__zone_new_level(v, rep, j, PL_NONE, rep[j]) <= lv;
	}
	for (uint32_t i = 0; i < rr->n[lv]; i++)
		extra += pl__zone_new_level(v, rep, st->nrep, PL_NONE, rr->m[lv][i]) <= lv;
	*could = span + extra < st->nrep ? span + extra : st->nrep;
	return span;
}

/* The level at which shard k wants a span repair: the top level whose
 * domains it could span more of (*zones of *could), the zone counted last
 * (marks of pl__bk_room_zones(), `room` of them). *zones == *could when it
 * spans all it can. */
static uint32_t repair_level(const pl_view *v, const room_reps *rr, uint32_t room, uint32_t k, uint32_t *zones,
			     uint32_t *could)
{
	for (uint32_t lv = 0; lv + 1 < v->zone_levels; lv++)
		if ((*zones = level_span(v, rr, k, lv, could)) < *could)
			return lv;
	*zones = pl__bk_zones(v, k, room, could);
	return v->zone_levels - 1;
}

/* ---- drains --------------------------------------------------------------- */

/* A drain of shard k's replica on `from` where that replica shares its
 * domain with another of the shard's and the shard could span more: to a
 * member in a domain none of its replicas is in, the one the zone repair
 * would copy it to next, so the replica is copied once. choose()'s answer
 * for that set; -1 when the drain is no such one or none of them has room
 * (then it keeps the zone count, as any drain). */
static int drain_spread(pl__bk *b, uint32_t k, uint32_t from, const room_reps *rr, uint32_t room, pl__pick *p)
{
	const pl_view *v = b->v;
	const pl__shard_state *st = pl__st(v, k);
	uint32_t zones, could, lv = repair_level(v, rr, room, k, &zones, &could), j = 0;
	if (zones >= could)
		return -1;
	while (pl__rep(st, j) != from)
		j++;
	if (!zone_shared(v, st, j, lv))
		return -1;
	b->zone_level = lv;
	return choose(b, k, PL__BK_NEW_ZONE, from, p);
}

/* Shard k's draining follower after `last` in id order (PL_NONE: the
 * first); PL_NONE when there is none. */
static uint32_t next_draining(const pl_view *v, const pl__shard_state *st, uint32_t last)
{
	uint32_t best = PL_NONE;
	for (uint32_t j = 0; j < st->nrep; j++) {
		uint32_t m = pl__rep(st, j);
		if (m == pl__leader(st) || !pl__live(v, m) || pl__eligible(v, m))
			continue;
		if (last != PL_NONE && v->m_rank[m] <= v->m_rank[last])
			continue;
		if (best == PL_NONE || v->m_rank[m] < v->m_rank[best])
			best = m;
	}
	return best;
}

void pl__bk_drain_replicas(pl__bk *b)
{
	const pl_view *v = b->v;
	int any = 0;
	for (uint32_t m = 0; m < v->nm && !any; m++)
		any = pl__live(v, m) && !pl__eligible(v, m) && v->m_replicas[m] > 0;
	if (!any)
		return;
	room_reps rr;
	uint32_t room = 0;
	if (b->domains_shared) {
		room = pl__bk_room_zones(v);
		room_domains(v, &rr);
	}
	for (uint32_t r = 0; r < v->nk && !b->full; r++) {
		uint32_t k = v->k_order[r];
		const pl__shard_state *st = pl__st(v, k);
		if (pl__leader(st) == PL_NONE || !pl__live(v, pl__leader(st)))
			continue; /* placing gives it a leader first */
		/* Of its draining followers, the first in id order that has a
		 * member to go to (not the first listed, so the order of the
		 * replicas changes nothing; and one that cannot move does not
		 * keep another from moving). */
		uint32_t from = PL_NONE, last = PL_NONE, any_from = 0;
		pl__pick p;
		for (;;) {
			uint32_t m = next_draining(v, st, last);
			if (m == PL_NONE)
				break;
			last = m;
			any_from = 1;
			if (st->moving || st->touched)
				break;
			pl__bk_tier(b, k, PL__BK_KEEP_ZONES | PL__BK_REPLICA, m, 0, &p);
			if (p.member != PL_NONE && p.tier < 5) {
				from = m;
				break;
			}
		}
		if (!any_from)
			continue;
		if (st->moving || st->touched) {
			b->want_flight = b->rep_hold = 1;
			continue;
		}
		if (from == PL_NONE) {
			pl__bk_drain_stall(b, k); /* stalled: it holds nothing up */
			continue;
		}
		b->rep_hold = 1; /* a drain moves or waits: replica balance after it */
		if (!may_move(b, from))
			continue;
		int got = b->domains_shared ? drain_spread(b, k, from, &rr, room, &p) : -1;
		if (got < 0)
			got = choose(b, k, PL__BK_KEEP_ZONES, from, &p);
		if (got > 0) {
			emit_replica(b, PL_REASON_REPLICA_DRAIN, k, from, &p, 0, 0);
			if (b->domains_shared) {
				room = pl__bk_room_zones(v); /* the destination may have filled */
				room_domains(v, &rr);
			}
		}
	}
	for (uint32_t m = 0; m < v->nm; m++)
		v->m_scratch[m] &= ~PL__BK_MARK;
}

uint32_t pl__bk_stall_reason(const pl_view *v, uint32_t k, uint32_t d)
{
	const pl__shard_state *st = pl__st(v, k);
	int other = 0, keeps = 0;
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e];
		if (pl__holds(st, m))
			continue;
		other = 1;
		if (!pl__bk_zones_ok(v, k, d, m))
			continue;
		keeps = 1;
		if (pl__bk_room_new(v, m))
			return 0;
	}
	return !other ? PL_BROKER_STALL_HELD : !keeps ? PL_BROKER_STALL_ZONES : PL_BROKER_STALL_CAPS;
}

/* ---- zone repair ---------------------------------------------------------- */

/* The replica of shard k to move for a zone repair, in a zone another
 * replica shares, never the leader's (repair_handoff() makes the leader a
 * follower first where the stream wants its leadership elsewhere): an eligible follower, the one holding
 * the most of the stream, then in total, per weight, then the smaller id;
 * with none, a replica on a down member (it serves nothing; the copy comes
 * from a live replica), the smaller id. PL_NONE when neither: the shared
 * zones hold only the leader and draining members (whose drains move them). */
static uint32_t repair_source(const pl_view *v, uint32_t k, uint32_t level)
{
	const pl__shard_state *st = pl__st(v, k);
	uint32_t s = v->snap.shards[k].stream, best = PL_NONE, bs = 0, bt = 0, down = PL_NONE;
	for (uint32_t j = 0; j < st->nrep; j++) {
		uint32_t m = pl__rep(st, j);
		if (m == pl__leader(st) || !zone_shared(v, st, j, level))
			continue;
		if (!pl__live(v, m)) {
			if (down == PL_NONE || v->m_rank[m] < v->m_rank[down])
				down = m;
			continue;
		}
		if (!pl__eligible(v, m))
			continue;
		uint32_t cs = s != PL_NONE ? pl__rcell_get(v, s, m) : 0, ct = v->m_replicas[m];
		if (best != PL_NONE) {
			int c = pl__bk_cmp_w(v, cs, m, bs, best);
			if (c == 0)
				c = pl__bk_cmp_w(v, ct, m, bt, best);
			if (c < 0 || (c == 0 && v->m_rank[m] > v->m_rank[best]))
				continue;
		}
		best = m;
		bs = cs;
		bt = ct;
	}
	return best != PL_NONE ? best : down;
}

/* Before a zone repair of shard k moves a follower's replica: when its
 * leader u shares a domain (at `level`) with a follower f and leads more
 * of the stream than its ceiling (widened by the stream's tolerance), a
 * hand-off u -> f that lowers the stream's leader distance and keeps the
 * totals within their bounds is what the stream pass would make anyway;
 * made first, it leaves u's replica, a follower's then, as the one its
 * zone repair moves on the next tick, instead of a follower's replica now
 * and u's leadership copied elsewhere later (two copies of one shard where
 * one does). Followers that share u's domain, in sync and within the
 * limits, fewest of the stream's leaders per weight first, then rank.
 * PL_NONE when none. */
static uint32_t repair_handoff(const pl__bk *b, uint32_t k, uint32_t level)
{
	const pl_view *v = b->v;
	const pl__shard_state *st = pl__st(v, k);
	uint32_t s = v->snap.shards[k].stream, u = pl__leader(st), ju = PL_NONE;
	if (s == PL_NONE || !b->cfg->stream_balance || pl__bk_kept(v, k) || (pl__moved(v, k) & PL__MOVED_LEADER) ||
	    !pl__eligible(v, u) || !pl__bk_out_ok(b, u))
		return PL_NONE;
	for (uint32_t j = 0; j < st->nrep; j++)
		if (pl__rep(st, j) == u)
			ju = j;
	if (ju == PL_NONE || !zone_shared(v, st, ju, level))
		return PL_NONE;
	uint32_t L = pl__bk_stream_leaders(v, s), cu = pl__cell_get(v, s, u), fu, eu, best = PL_NONE, cb = 0;
	pl__bounds(v, L, u, &fu, &eu);
	pl__bk_widen(pl__bk_stream_tol(v, b->cfg, s), &fu, &eu);
	if (cu <= eu)
		return PL_NONE;
	for (uint32_t j = 0; j < st->nrep; j++) {
		uint32_t f = pl__rep(st, j), cf;
		if (j == ju || !pl__zone_same(v, u, f, level) || !pl__eligible(v, f) || !pl__in_sync(v, k, f) ||
		    !pl__bk_in_ok(b, f))
			continue;
		cf = pl__cell_get(v, s, f);
		if (!pl__bk_drops(v, L, pl__bk_stream_tol(v, b->cfg, s), u, cu, f, cf) ||
		    !pl__bk_keeps(v, b->lead_elig, b->cfg->tolerance, u, v->m_leaders[u], f, v->m_leaders[f]))
			continue;
		if (best != PL_NONE) {
			int c = pl__bk_cmp_w(v, cf, f, cb, best);
			if (c > 0 || (c == 0 && v->m_rank[f] > v->m_rank[best]))
				continue;
		}
		best = f;
		cb = cf;
	}
	return best;
}

/* The hand-off repair_handoff() chose: a stream move, as the stream pass
 * writes it. */
static void emit_repair_handoff(pl__bk *b, uint32_t k, uint32_t f)
{
	const pl_view *v = b->v;
	uint32_t s = v->snap.shards[k].stream, u = pl__leader(pl__st(v, k)), L = pl__bk_stream_leaders(v, s);
	pl_action a;
	pl__action_init(&a, PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW, k, s, u, f);
	a.scope = PL_SCOPE_STREAM;
	a.from_count = pl__cell_get(v, s, u);
	a.to_count = pl__cell_get(v, s, f);
	pl__bounds(v, L, f, &a.floor, &a.ceiling);
	pl__bk_widen(pl__bk_stream_tol(v, b->cfg, s), &a.floor, &a.ceiling);
	a.total = L;
	pl__bk_emit_move(b, &a);
}

/* ---- the majority rule ------------------------------------------------------ */

/* The most of majority shard k's replicas a zone may hold: the base
 * (pl__bk_maj_base()), or, when the zones that can take one (those with an
 * eligible member with room, marked by pl__bk_room_zones(), `room` of them,
 * and the zones its replicas are in) are too few for it, ceil(n / zones). */
static uint32_t maj_limit(const pl_view *v, uint32_t k, uint32_t room)
{
	const pl__shard_state *st = pl__st(v, k);
	uint32_t n = st->nrep, zones = room, base = pl__bk_maj_base(n);
	for (uint32_t j = 0; j < n; j++) {
		uint32_t z = v->m_zone[pl__rep(st, j)], seen = 0;
		for (uint32_t i = 0; i < j; i++)
			seen |= v->m_zone[pl__rep(st, i)] == z;
		zones += !seen && !(v->m_scratch[z] & PL__BK_MARK);
	}
	uint32_t fit = zones > 0 ? (n + zones - 1) / zones : n;
	return fit > base ? fit : base;
}

/* Its excess over limit: the sum over zones of max(0, held - limit). */
static uint32_t maj_excess(const pl_view *v, const pl__shard_state *st, uint32_t limit)
{
	uint32_t x = 0;
	for (uint32_t j = 0; j < st->nrep; j++) {
		uint32_t z = v->m_zone[pl__rep(st, j)], seen = 0;
		for (uint32_t i = 0; i < j; i++)
			seen |= v->m_zone[pl__rep(st, i)] == z;
		uint32_t c = seen ? 0 : pl__bk_zone_held(v, st, z);
		x += c > limit ? c - limit : 0;
	}
	return x;
}

/* The replica of majority shard k to move: never the leader's, in a zone
 * holding more than limit, of those the zone holding the most; there, as
 * repair_source() ranks them, an eligible follower before a replica on a
 * down member. PL_NONE when those zones hold only the leader and draining
 * members (whose drains move them). */
static uint32_t maj_source(const pl_view *v, uint32_t k, uint32_t limit)
{
	const pl__shard_state *st = pl__st(v, k);
	uint32_t s = v->snap.shards[k].stream, best = PL_NONE, bz = 0, bs = 0, bt = 0, down = PL_NONE, dz = 0;
	for (uint32_t j = 0; j < st->nrep; j++) {
		uint32_t m = pl__rep(st, j), c = pl__bk_zone_held(v, st, v->m_zone[m]);
		if (m == pl__leader(st) || c <= limit)
			continue;
		if (!pl__live(v, m)) {
			if (down == PL_NONE || c > dz || (c == dz && v->m_rank[m] < v->m_rank[down])) {
				down = m;
				dz = c;
			}
			continue;
		}
		if (!pl__eligible(v, m))
			continue;
		uint32_t cs = s != PL_NONE ? pl__rcell_get(v, s, m) : 0, ct = v->m_replicas[m];
		if (best != PL_NONE) {
			if (c != bz) {
				if (c < bz)
					continue;
			} else {
				int cmp = pl__bk_cmp_w(v, cs, m, bs, best);
				if (cmp == 0)
					cmp = pl__bk_cmp_w(v, ct, m, bt, best);
				if (cmp < 0 || (cmp == 0 && v->m_rank[m] > v->m_rank[best]))
					continue;
			}
		}
		best = m;
		bz = c;
		bs = cs;
		bt = ct;
	}
	return best != PL_NONE ? best : down;
}

/* The fewest of shard st's replicas in the zone of an eligible member with
 * room that holds none of it; UINT32_MAX when there is no such member. */
static uint32_t maj_fewest(const pl_view *v, const pl__shard_state *st)
{
	uint32_t few = UINT32_MAX;
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e], c;
		if (!pl__holds(st, m) && pl__bk_room_new(v, m) && (c = pl__bk_zone_held(v, st, v->m_zone[m])) < few)
			few = c;
	}
	return few;
}

/* Does majority shard k want a majority repair (its zones past their limit
 * with a member with room in a zone below it)? Then *from is the replica to
 * move, b->maj_few the count its destination's zone holds; *before and
 * *limit the excess and the limit. 0 when it wants none, or has nothing
 * that may move. */
static int maj_wants(pl__bk *b, uint32_t k, uint32_t room, uint32_t *from, uint32_t *before, uint32_t *limit)
{
	const pl_view *v = b->v;
	const pl__shard_state *st = pl__st(v, k);
	*limit = maj_limit(v, k, room);
	*before = maj_excess(v, st, *limit);
	if (*before == 0)
		return 0;
	uint32_t few = maj_fewest(v, st);
	if (few >= *limit)
		return 0; /* every zone with room holds its limit already */
	*from = maj_source(v, k, *limit);
	b->maj_few = few;
	return *from != PL_NONE;
}

/* The majority repair's move of shard k from `from` to p->member: as a span
 * repair's (reason ZONE_REPAIR, scope PL_SCOPE_ZONES, from_count and
 * to_count the zones spanned before and after, total the zones it could
 * span), the excess it lowers by one in the sentence's stead. */
static void maj_emit(pl__bk *b, uint32_t k, uint32_t from, const pl__pick *p, uint32_t room)
{
	uint32_t could, zones = pl__bk_zones(b->v, k, room, &could);
	uint32_t after = zones + !pl__bk_zone_held(b->v, pl__st(b->v, k), b->v->m_zone[p->member]);
	uint32_t n = b->n;
	emit_replica(b, PL_REASON_ZONE_REPAIR, k, from, p, zones, could);
	if (b->n > n)
		b->out[n].to_count = after;
}

void pl__bk_zone_repair(pl__bk *b)
{
	const pl_view *v = b->v;
	if (!b->domains_shared)
		return; /* every member in a zone of its own: every shard spans all it can */
	uint32_t room = pl__bk_room_zones(v);
	room_reps rr;
	room_domains(v, &rr);
	b->lead_elig = 0; /* the totals' bounds of repair_handoff(); its hand-offs keep the sum */
	for (uint32_t e = 0; e < v->n_elig; e++)
		b->lead_elig += v->m_leaders[v->elig[e]];
	for (uint32_t r = 0; r < v->nk && !b->full; r++) {
		uint32_t k = v->k_order[r], could = 0, zones = 0;
		const pl__shard_state *st = pl__st(v, k);
		if (st->nrep < 2 || pl__leader(st) == PL_NONE || !pl__live(v, pl__leader(st)))
			continue;
		/* the top level first: the first level whose domains it could
		 * span more of; then, a majority stream's, its zones' limit */
		uint32_t from, set = PL__BK_NEW_ZONE, excess, limit, lv = repair_level(v, &rr, room, k, &zones, &could);
		if (zones < could)
			from = repair_source(v, k, lv);
		else if (pl__bk_majority(v, k) && maj_wants(b, k, room, &from, &excess, &limit))
			set = PL__BK_FEW_ZONE; /* spans all it can, and a zone holds past the majority limit */
		else
			continue;
		if (from == PL_NONE)
			continue; /* its shared zones hold only its leader and draining members */
		b->rep_hold = 1; /* a repair moves or waits: replica balance after it */
		if (st->moving || st->touched) {
			b->want_flight = 1;
			continue;
		}
		if (!may_move(b, from))
			continue;
		uint32_t f = set == PL__BK_NEW_ZONE ? repair_handoff(b, k, lv) : PL_NONE;
		if (f != PL_NONE) {
			emit_repair_handoff(b, k, f); /* the repair moves the leader's replica next tick */
			continue;
		}
		pl__pick p;
		b->zone_level = lv;
		if (choose(b, k, set, from, &p) > 0) {
			if (set == PL__BK_NEW_ZONE)
				emit_replica(b, PL_REASON_ZONE_REPAIR, k, from, &p, zones, could);
			else
				maj_emit(b, k, from, &p, room);
			room = pl__bk_room_zones(v); /* the destination may have filled */
			room_domains(v, &rr);
		}
	}
	for (uint32_t m = 0; m < v->nm; m++)
		v->m_scratch[m] &= ~PL__BK_MARK;
}
