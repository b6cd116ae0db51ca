/*
 * region.c - the region policy's entry points, and step 1: regions below the
 * effective replication factor, and regions without a live primary.
 *
 * How it works. pl_region_plan() validates everything first, then runs the
 * steps of placement/region.h over the view, in order, each a pass over the
 * regions in key order: step 1 here, steps 2 to 5 in region_balance.c, the
 * rules and output both use in region_common.c (calls go that way only).
 * Every action goes through pl__region_emit(), which applies it to the view before the next
 * decision is taken (pl__view_apply() updates the shard state and the
 * replica and leader tallies), and which stops the call at the first action
 * that does not fit under max_actions or in the caller's array. Nothing is
 * kept between calls: the view is the only state, and a region acted on is
 * busy (touched) until pl_view_settle() or a new view.
 *
 * Step 1 walks every region once. A placeable, idle region with a live peer
 * but no live primary is claimed by its peer leading the fewest primaries
 * (ties: the newest); otherwise a region below R live peers gets a peer on
 * the best member that may receive it: a zone it lacks, then the fewest
 * replicas, then the rendezvous draw. Members behind the region's epoch are
 * passed over; when that leaves no candidate the region is reported stalled,
 * naming the member that would have been chosen, and the walk goes on to the
 * next region, so one lagging member never holds up every region.
 *
 * Why it terminates. Step 1 only ever adds a peer to a region below R (at
 * most A0 adds over any run) and claims a region with no live primary (at
 * most once per region, as every primary handed out is live); nothing in
 * any step lowers a region's live peers. The bounds for the other steps, and
 * the whole argument, are in placement/region.h and region_balance.c.
 */
#include "region/region_impl.h"

const char *pl_region_stall_name(uint32_t reason)
{
	switch (reason) {
	case PL_REGION_STALL_NOT_READY:
		return "not-ready";
	case PL_REGION_STALL_NO_MEMBER:
		return "no-member";
	case PL_REGION_STALL_FULL:
		return "full";
	case PL_REGION_STALL_NO_SOURCE:
		return "no-source";
	case PL_REGION_STALL_PROPOSALS_OFF:
		return "proposals-off";
	default:
		return "unknown";
	}
}

int pl_region_config_init(pl_region_config *cfg)
{
	const pl_region_config def = PL_REGION_CONFIG_INIT;
	return pl__init_from(cfg, &def, sizeof def);
}

static int check_config(const pl_region_config *cfg, pl_diag *diag)
{
	if (cfg->version != PL_REGION_CONFIG_VERSION)
		return pl__fail(diag, PL_E_VERSION, PL_ELEM_CONFIG, 0, PL_NONE);
	if (cfg->replication_factor < 1 || cfg->replication_factor > PL_MAX_REPLICAS)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 1, PL_NONE);
	if (cfg->add_peer_proposals > 1)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 2, PL_NONE);
	if (cfg->load_balance > 1)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 3, PL_NONE);
	if (cfg->load_threshold < 1 || cfg->load_threshold > 99)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 4, PL_NONE);
	if (cfg->max_actions < 1)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 5, PL_NONE);
	return 0;
}

static uint32_t effective_rf(const pl_view *v, const pl_region_config *cfg)
{
	return cfg->replication_factor < v->n_live ? cfg->replication_factor : v->n_live;
}

int pl_region_effective_rf(const pl_view *v, const pl_region_config *cfg, pl_diag *diag)
{
	int rc = pl__check_policy_args(v, cfg, sizeof *cfg, NULL, 0, NULL, NULL, diag); /* no output array */
	if (rc)
		return rc;
	rc = check_config(cfg, diag);
	if (rc)
		return rc;
	return (int)effective_rf(v, cfg);
}

/* Member-level refusals of an add, in the documented order. */
static int add_refusal(const pl_view *v, uint32_t k, uint32_t m)
{
	if (pl__holds(pl__st(v, k), m))
		return PL_E_PEER_DUPLICATE;
	if (!pl__region_may_receive(v, m))
		return PL_E_MEMBER_UNAVAILABLE;
	if (!pl__region_ready(v, m, k))
		return PL_E_NOT_READY;
	if (!pl__region_room(v, m))
		return PL_E_MEMBER_FULL;
	return 0;
}

int pl_region_check_add_peer(const pl_view *v, uint32_t region, uint32_t member, uint64_t expected_epoch,
			     pl_diag *diag)
{
	if (pl__check_args(v, NULL, NULL, 0, diag))
		return PL_E_OVERLAP;
	if (!pl__view_ok(v))
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 1, PL_NONE);
	if (region >= v->nk)
		return pl__fail(diag, PL_E_SHARD_RANGE, PL_ELEM_ARGUMENT, 2, PL_NONE);
	if (member >= v->nm)
		return pl__fail(diag, PL_E_MEMBER_RANGE, PL_ELEM_ARGUMENT, 3, PL_NONE);
	const pl_shard *k = &v->snap.shards[region];
	if (k->flags & PL_SHARD_NOT_IDEMPOTENT)
		return pl__fail(diag, PL_E_NOT_IDEMPOTENT, PL_ELEM_SHARD, region, PL_NONE);
	if (k->flags & PL_SHARD_TRANSFER_DEBT)
		return pl__fail(diag, PL_E_TRANSFER_DEBT, PL_ELEM_SHARD, region, PL_NONE);
	if (expected_epoch != pl__epoch(v, region))
		return pl__fail(diag, PL_E_EPOCH_STALE, PL_ELEM_SHARD, region, PL_NONE);
	int rc = add_refusal(v, region, member);
	if (rc)
		return pl__fail(diag, rc, PL_ELEM_MEMBER, member, region);
	if (pl__st(v, region)->nrep >= PL_MAX_REPLICAS)
		return pl__fail(diag, PL_E_REPLICA_SET_FULL, PL_ELEM_SHARD, region, PL_NONE);
	if (pl__st(v, region)->nrep >= v->room)
		return pl__fail(diag, PL_E_REPLICA_ROOM, PL_ELEM_SHARD, region, PL_NONE);
	/* A copy (or a primary move) in flight: staged again onto no member
	 * until it leaves the snapshot or the view is settled. */
	if (pl__st(v, region)->moving)
		return pl__fail(diag, PL_E_MOVE_IN_FLIGHT, PL_ELEM_SHARD, region, PL_NONE);
	return 0;
}

/* ---- step 1: claim a primary, grow the peer set ------------------------------- */

/* The primary for a region with none live: among its live peers that may
 * receive and are ready, the fewest primaries, then the newest. *stall_m gets
 * the best peer that is not ready, when none is. */
static uint32_t pick_primary(const pl_view *v, uint32_t k, uint32_t *stall_m)
{
	const pl__shard_state *st = pl__st(v, k);
	uint32_t best = PL_NONE, best_nr = PL_NONE;
	for (uint32_t j = 0; j < st->nrep; j++) {
		uint32_t p = pl__rep(st, j);
		if (!pl__region_may_receive(v, p))
			continue;
		uint32_t *slot = pl__region_ready(v, p, k) ? &best : &best_nr;
		if (*slot == PL_NONE || v->m_leaders[p] < v->m_leaders[*slot] ||
		    (v->m_leaders[p] == v->m_leaders[*slot] && pl__region_newer(v, p, *slot)))
			*slot = p;
	}
	*stall_m = best_nr;
	return best;
}

/* A candidate for a new peer and its rank key. */
typedef struct cand {
	uint32_t m;
	uint32_t zone_new;
	uint32_t count;
	uint32_t drawn;
	pl__draw d;
} cand;

/* Is a better than b (b may be empty)? Draws are computed only on a tie. */
static int cand_better(const pl_view *v, uint64_t kh, cand *a, cand *b)
{
	if (b->m == PL_NONE)
		return 1;
	if (a->zone_new != b->zone_new)
		return a->zone_new > b->zone_new;
	if (a->count != b->count)
		return a->count < b->count;
	if (!a->drawn) {
		a->d = pl__view_draw(v, kh, a->m);
		a->drawn = 1;
	}
	if (!b->drawn) {
		b->d = pl__view_draw(v, kh, b->m);
		b->drawn = 1;
	}
	return pl__draw_gt(a->d, b->d);
}

/* The member a region below R grows onto, or PL_NONE; then *stall says why
 * (NOT_READY with *stall_m, or NO_MEMBER). */
static uint32_t pick_peer(const pl_view *v, uint32_t k, uint32_t *tier, uint32_t *stall, uint32_t *stall_m)
{
	const pl__shard_state *st = pl__st(v, k);
	uint64_t kh = v->k_hash[k];
	cand best = {PL_NONE, 0, 0, 0, {0, 0, 0}}, best_nr = best;
	for (uint32_t r = 0; r < v->nm; r++) {
		uint32_t m = v->m_order[r];
		if (!pl__region_may_receive(v, m) || !pl__region_room(v, m) || pl__holds(st, m))
			continue;
		cand c = {m, !pl__region_zone_held(v, st, v->m_zone[m], PL_NONE), v->m_replicas[m], 0, {0, 0, 0}};
		cand *slot = pl__region_ready(v, m, k) ? &best : &best_nr;
		if (cand_better(v, kh, &c, slot))
			*slot = c;
	}
	if (best.m != PL_NONE) {
		*tier = best.zone_new ? 1 : 2;
		return best.m;
	}
	*stall = best_nr.m != PL_NONE ? PL_REGION_STALL_NOT_READY : PL_REGION_STALL_NO_MEMBER;
	*stall_m = best_nr.m;
	return PL_NONE;
}

static void step_grow(pl__region_ctx *c)
{
	pl_view *v = c->v;
	for (uint32_t r = 0; r < v->nk && !c->stopped; r++) {
		uint32_t k = v->k_order[r];
		if (!pl__region_placeable(v, k))
			continue;
		pl__shard_state *st = pl__st(v, k);
		uint32_t lp = pl__region_live_peers(v, st);
		if (pl__region_busy(st)) {
			c->pending += lp < c->rf;
			continue;
		}
		/* No live primary (no live peer at all included): a primary is
		 * what it waits for, whatever blocks it. */
		int no_primary = pl__leader(st) == PL_NONE || !pl__live(v, pl__leader(st));
		uint32_t claim_stall = 0, claim_m = PL_NONE;
		if (lp > 0 && no_primary) {
			uint32_t nr, to = pick_primary(v, k, &nr);
			if (to != PL_NONE) {
				pl_action a;
				pl__region_action(&a, PL_ACTION_SET_LEADER, PL_REASON_NO_PRIMARY, v, k, pl__leader(st), to,
						  PL_SCOPE_PRIMARIES);
				a.to_count = v->m_leaders[to];
				a.total = lp;
				if (pl__region_emit(c, &a))
					c->pending += lp < c->rf;
				continue;
			}
			claim_stall = nr != PL_NONE ? PL_REGION_STALL_NOT_READY : PL_REGION_STALL_NO_MEMBER;
			claim_m = nr;
		}
		if (lp >= c->rf) {
			if (claim_stall)
				pl__region_stall(c, k, claim_stall, 1, claim_m, PL_REGION_WANT_PRIMARY);
			continue;
		}
		uint32_t stall = 0, stall_m = PL_NONE, tier = 0, to = PL_NONE;
		if (st->nrep > 0 && lp == 0)
			stall = PL_REGION_STALL_NO_SOURCE;
		else if (!c->cfg->add_peer_proposals)
			stall = PL_REGION_STALL_PROPOSALS_OFF;
		else if (st->nrep >= v->room) /* a full set, or the view's room */
			stall = PL_REGION_STALL_FULL;
		else
			to = pick_peer(v, k, &tier, &stall, &stall_m);
		if (to == PL_NONE) {
			/* Held back, it still waits to grow: step 2 waits too. */
			c->pending += stall == PL_REGION_STALL_PROPOSALS_OFF;
			/* No live primary: a peer behind is what blocks the claim;
			 * else the peer it would grow onto (and then hand the
			 * primary), or with every listed peer down the lack of a
			 * source, is. */
			if (claim_stall == PL_REGION_STALL_NOT_READY)
				pl__region_stall(c, k, claim_stall, 1, claim_m, PL_REGION_WANT_PRIMARY);
			else
				pl__region_stall(c, k, stall, 1, stall_m,
						 no_primary ? PL_REGION_WANT_PRIMARY : PL_REGION_WANT_PEER);
			continue;
		}
		pl_action a;
		pl__region_action(&a, PL_ACTION_ADD_REPLICA, PL_REASON_UNDER_RF, v, k, PL_NONE, to, PL_SCOPE_PEERS);
		a.to_count = lp;
		a.total = c->rf;
		a.ceiling = c->cfg->replication_factor;
		a.share = v->m_replicas[to];
		a.tier = tier;
		if (pl__region_emit(c, &a))
			c->pending += lp + 1 < c->rf;
	}
}

/* ---- the call ------------------------------------------------------------------ */

int pl_region_plan(pl_view *v, const pl_region_config *cfg, pl_action *out, uint32_t cap, pl_plan_info *info,
		   pl_region_stall *stalls, uint32_t stalls_cap, pl_diag *diag)
{
	const pl__arg st = PL__OUT(stalls, pl__span(stalls_cap, sizeof *stalls), 6);
	int rc = pl__check_policy_args(v, cfg, sizeof *cfg, out, cap, info, &st, diag);
	if (rc)
		return rc;
	if (stalls == NULL && stalls_cap > 0)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 6, PL_NONE);
	rc = check_config(cfg, diag);
	if (rc)
		return rc;
	if (cfg->replication_factor > v->room) /* regions would grow past the view's replica room */
		return pl__fail(diag, PL_E_REPLICA_ROOM, PL_ELEM_CONFIG, 1, PL_NONE);
	if (v->nk > 0 && v->n_elig == 0)
		return pl__fail(diag, PL_E_NO_ELIGIBLE, PL_ELEM_SNAPSHOT, 0, PL_NONE);

	pl__region_ctx c;
	memset(&c, 0, sizeof c);
	c.v = v;
	c.cfg = cfg;
	c.out = out;
	c.cap = cap;
	c.stalls = stalls;
	c.stalls_cap = stalls_cap;
	c.first_stall = c.first_held = PL_NONE;
	c.rf = effective_rf(v, cfg);

	step_grow(&c);
	if (!c.stopped && c.pending == 0)
		pl__region_step_idle(&c);
	if (!c.stopped)
		pl__region_step_newest(&c);
	if (!c.stopped && cfg->load_balance)
		pl__region_step_load(&c);
	if (!c.stopped)
		pl__region_step_even(&c);

	uint32_t status = PL_STATUS_BALANCED, detail = PL_NONE;
	if (c.stopped) {
		status = c.stop_status;
		detail = c.stop_detail;
	} else if (c.first_stall != PL_NONE) {
		status = PL_STATUS_STALLED;
		detail = c.first_stall;
	} else if (c.first_held != PL_NONE) {
		status = PL_STATUS_PROPOSALS_OFF;
		detail = c.first_held;
	}
	pl__plan_info(info, c.written, c.stop_status == PL_STATUS_FULL || c.stop_status == PL_STATUS_ACTION_CAP,
		      status, detail, c.blocked);
	return (int)c.written;
}
