/*
 * broker_place.c - the pass that gives every shard a live leader: new
 * shards, failovers and drain hand-offs. The tier function they choose with
 * is in broker_tier.c.
 *
 * Placing, promoting and draining differ only in the candidate set handed to
 * the tier function: every eligible member, the shard's eligible followers,
 * or the eligible members that keep the shard's zone count.
 *
 * The pass walks the shards in key order and applies each choice at once, so
 * the tallies the next shard is rated on include it: that is what makes a new
 * stream land floor-first on every member (each member reaches its floor
 * before any reaches its ceiling), 4/4/4 for 12 shards on three members. A
 * shard is acted on at most once per pass and never again once it has a live
 * eligible leader, so the pass ends after one walk; a first sequential scan
 * skips the walk when no shard needs a leader.
 *
 * Caps. Tiers 1 to 4 need room, so no member passes its max_shards while any
 * candidate has room; a set that keeps the zone count is widened to every
 * eligible member when none of it has room (pl__bk_tier_widened()), in
 * failover and drain alike. A new shard or a failover with no candidate under its
 * cap still gets a leader (tier 5, the least loaded): a shard without one
 * serves nothing. A drain hand-off is a move and never passes a cap; with
 * nowhere to go the shard is stalled.
 */
#include "broker/broker_int.h"

/* An action placing (or moving) k's leader on p->member, with its numbers. */
static pl_action placed(const pl__bk *b, uint32_t kind, uint32_t reason, uint32_t k, uint32_t from, const pl__pick *p)
{
	const pl_view *v = b->v;
	uint32_t s = v->snap.shards[k].stream;
	pl_action a;
	pl__action_init(&a, kind, reason, k, s, from, p->member);
	a.tier = p->tier;
	a.share = p->share;
	a.load = p->total;
	if (s != PL_NONE) {
		a.scope = PL_SCOPE_STREAM;
		a.from_count = from != PL_NONE ? pl__cell_get(v, s, from) : 0;
		a.to_count = p->count;
		a.floor = p->floor;
		a.ceiling = p->ceiling;
		a.total = v->s_shards[s];
	} else {
		a.scope = PL_SCOPE_CLUSTER;
		a.from_count = from != PL_NONE ? v->m_leaders[from] : 0;
		a.to_count = p->total;
		pl__bounds(v, v->nk, p->member, &a.floor, &a.ceiling);
		a.total = v->nk;
	}
	if ((kind == PL_ACTION_MOVE_LEADER || kind == PL_ACTION_ADD_REPLICA) && !pl__holds(pl__st(v, k), p->member))
		a.flags = PL_ACTION_STAGE_FIRST;
	return a;
}

static pl_action add_replica(uint32_t reason, uint32_t k, uint32_t stream, uint32_t to, uint32_t nth, uint32_t rf)
{
	pl_action a;
	pl__action_init(&a, PL_ACTION_ADD_REPLICA, reason, k, stream, PL_NONE, to);
	a.scope = PL_SCOPE_PEERS;
	a.to_count = nth;
	a.total = rf;
	return a;
}

static void stall(pl__bk *b, uint32_t k)
{
	if (!b->stalled)
		b->stalled_shard = k;
	b->stalled = 1;
	b->blocked++;
}

/* A new shard: its leader by the tiers among every eligible member, then
 * followers zones spread first, among members with room. */
static void place_new(pl__bk *b, uint32_t k)
{
	const pl_view *v = b->v;
	uint32_t s = v->snap.shards[k].stream;
	uint32_t rf = b->cfg->replication_factor < v->n_elig ? b->cfg->replication_factor : v->n_elig;
	pl__pick lead;
	pl__bk_tier(b, k, PL__BK_ALL | PL__BK_NEW, PL_NONE, 0, &lead);
	PL_ASSERT(lead.member != PL_NONE); /* checked: some member is eligible */
	uint32_t pick[PL_MAX_REPLICAS], n = 0;
	/* The stream's replicas once this shard's are placed: the replica
	 * bounds its followers are rated on. */
	uint32_t st_total = 0;
	if (s != PL_NONE) {
		st_total = pl__bk_stream_replicas_all(v, s) + rf;
		if (st_total < rf * v->s_shards[s])
			st_total = rf * v->s_shards[s];
	}
	pick[n++] = lead.member;
	while (n < rf) {
		uint32_t m = pl__bk_tier_follower(b, k, pick, n, st_total);
		if (m == PL_NONE)
			break; /* every other member is at its cap: fewer replicas */
		pick[n++] = m;
	}
	if (b->cap - b->n < n + 1) {
		b->full = 1; /* a shard's actions are written all or none */
		return;
	}
	for (uint32_t j = 0; j < n; j++) {
		pl_action a = add_replica(PL_REASON_NEW, k, s, pick[j], j + 1, rf);
		pl__bk_emit(b, &a);
	}
	b->rep_total += n; /* the replica share the next shard is rated on */
	/* The numbers as the leader was chosen, before its replicas existed. */
	pl_action a = placed(b, PL_ACTION_SET_LEADER, PL_REASON_NEW, k, PL_NONE, &lead);
	pl__bk_emit(b, &a);
}

/* A shard whose leader is down, or that has replicas and no leader. */
static void failover(pl__bk *b, uint32_t k)
{
	const pl_view *v = b->v;
	const pl__shard_state *st = pl__st(v, k);
	uint32_t from = pl__leader(st);
	pl__pick p;
	pl__bk_tier(b, k, PL__BK_FOLLOWERS, from, 0, &p);
	if (p.member != PL_NONE) {
		pl_action a = placed(b, PL_ACTION_SET_LEADER, PL_REASON_FAILOVER, k, from, &p);
		pl__bk_emit(b, &a);
		return;
	}
	/* No eligible follower in sync: a new replica takes over, copied from
	 * a live one in sync. With none the shard is offline: reported, never
	 * given a copy of stale data. */
	int live = 0;
	for (uint32_t j = 0; j < st->nrep; j++)
		live |= pl__live(v, pl__rep(st, j)) && pl__rep(st, j) != from && pl__in_sync(v, k, pl__rep(st, j));
	if (!live || b->cfg->handoff_only) {
		stall(b, k); /* nothing left to copy from, or no copy allowed */
		return;
	}
	if (from != PL_NONE) {
		pl__bk_tier_widened(b, k, from, 0, &p);
		pl_action a = placed(b, PL_ACTION_MOVE_LEADER, PL_REASON_FAILOVER, k, from, &p);
		pl__bk_emit(b, &a);
		return;
	}
	if (st->nrep >= v->room) { /* a full set, or the view's room */
		stall(b, k);
		return;
	}
	pl__bk_tier(b, k, PL__BK_ALL, PL_NONE, 0, &p);
	if (b->cap - b->n < 2) {
		b->full = 1;
		return;
	}
	uint32_t s = v->snap.shards[k].stream;
	pl_action a = add_replica(PL_REASON_FAILOVER, k, s, p.member, st->nrep + 1, st->nrep + 1);
	a.flags = PL_ACTION_STAGE_FIRST;
	pl_action l = placed(b, PL_ACTION_SET_LEADER, PL_REASON_FAILOVER, k, PL_NONE, &p);
	pl__bk_emit(b, &a);
	pl__bk_emit(b, &l);
	b->rep_total++;
}

/* A shard led by a draining member: a move, within the limits and caps. */
static void drain(pl__bk *b, uint32_t k)
{
	const pl_view *v = b->v;
	const pl__shard_state *st = pl__st(v, k);
	uint32_t from = pl__leader(st);
	if (st->moving || st->touched) {
		b->want_flight = 1;
		return;
	}
	if (b->cfg->paused) {
		b->want_paused = 1;
		return;
	}
	if (b->budget == 0) {
		pl__bk_wait_limit(b, PL_NONE);
		return;
	}
	if (!pl__bk_out_ok(b, from)) {
		pl__bk_wait_limit(b, from);
		return;
	}
	pl__pick p;
	if (b->cfg->handoff_only) {
		/* To an in-sync follower, or not at all: no copy. */
		pl__bk_tier(b, k, PL__BK_FOLLOWERS, from, 0, &p);
		uint32_t any = p.member;
		if (any != PL_NONE && b->limits)
			pl__bk_tier(b, k, PL__BK_FOLLOWERS, from, 1, &p);
		if (p.member == PL_NONE) {
			if (any != PL_NONE)
				pl__bk_wait_limit(b, any);
			else
				stall(b, k);
			return;
		}
		pl_action a = placed(b, PL_ACTION_MOVE_LEADER, PL_REASON_DRAIN, k, from, &p);
		pl__bk_emit_move(b, &a);
		return;
	}
	pl__bk_tier_widened(b, k, from, 0, &p);
	uint32_t first = p.member != PL_NONE && p.tier < 5 ? p.member : PL_NONE;
	if (b->limits)
		pl__bk_tier_widened(b, k, from, 1, &p);
	if (p.member == PL_NONE || p.tier == 5 ||
	    (first != PL_NONE && p.member != first && pl__bk_zones_ok(v, k, from, first) &&
	     !pl__bk_zones_ok(v, k, from, p.member))) {
		/* The member with room is at its limit: wait for it rather
		 * than give up a zone the shard could keep. */
		if (first != PL_NONE)
			pl__bk_wait_limit(b, first);
		else
			stall(b, k); /* every candidate is at its cap */
		return;
	}
	pl_action a = placed(b, PL_ACTION_MOVE_LEADER, PL_REASON_DRAIN, k, from, &p);
	pl__bk_emit_move(b, &a);
}

static int needs_leader(const pl_view *v, const pl__shard_state *st)
{
	return pl__leader(st) == PL_NONE || !pl__eligible(v, pl__leader(st));
}

void pl__bk_place(pl__bk *b)
{
	const pl_view *v = b->v;
	uint32_t first = PL_NONE;
	/* Most ticks have nothing to place: when the eligible members lead
	 * every shard between them (m_leaders counts each shard's leader
	 * once), no shard lacks a leader or has one that is not eligible. */
	uint64_t led = 0;
	for (uint32_t e = 0; e < v->n_elig; e++)
		led += v->m_leaders[v->elig[e]];
#ifndef PL_DEBUG
	if (led == v->nk)
		return;
#endif
	/* Else a sequential scan first, for the first shard in key order. */
	for (uint32_t k = 0; k < v->nk; k++)
		if (needs_leader(v, pl__st(v, k)) && (first == PL_NONE || v->k_rank[k] < first))
			first = v->k_rank[k];
	PL_ASSERT(led != v->nk || first == PL_NONE); /* a debug build checks the count against the scan */
	if (first == PL_NONE)
		return;
	for (uint32_t r = first; r < v->nk && !b->full; r++) {
		uint32_t k = v->k_order[r];
		const pl__shard_state *st = pl__st(v, k);
		if (!needs_leader(v, st))
			continue;
		if (pl__leader(st) == PL_NONE && st->nrep == 0)
			place_new(b, k);
		else if (pl__leader(st) == PL_NONE || !pl__live(v, pl__leader(st)))
			failover(b, k);
		else
			drain(b, k);
	}
}
