/*
 * broker.c - the broker policy's entry points: configuration, argument
 * checks, one tick (pl_broker_plan), the dry run and the drain stall
 * entries.
 *
 * How it works. A tick validates everything before it touches anything, so
 * an error writes nothing. It then makes a budget of moves: max_moves less
 * the moves the view already has in flight (when per-member limits are set,
 * those moves are listed, at most PL_BROKER_MAX_MOVES of them, on the stack,
 * so the limits can be counted without allocating). The placing pass
 * (broker_place.c) walks the shards in key order and gives every shard with
 * no live leader one, and hands off what draining members lead; the replica
 * drains and zone repairs (broker_drain.c) follow; the rebalancing passes
 * then start moves while the budget lasts, leaders first (broker_balance.c),
 * replicas in a tick where nothing before them moved or waits
 * (broker_replica.c). Every action goes through pl__view_apply() as it is
 * written, so each later decision sees it. Last, the status says why
 * nothing more was emitted.
 *
 * Why it terminates. A tick is a bounded walk: one pass over the shards, and
 * at most `budget` moves, each found by bounded scans. The dry run repeats
 * ticks, settling moves between them, until one emits nothing with no move
 * in flight (a tick that emits nothing while the snapshot's own moves are in
 * flight settles them and goes on, as the real loop would); it ends
 * because placing acts on each shard at most once (a shard that gets a live
 * leader needs none again) and every move lowers the potentials of
 * broker.h (zones spanned, drains, each leader scope's, then each replica
 * scope's, compared in that order, none ever rising; a relay's first hop
 * keeps its scope's and the scope's next move lowers it), so only finitely
 * many moves exist. The output cap bounds it as well.
 */
#include "broker/broker_int.h"

/* The bytes of each layout version: 1 ends before handoff_only, 2 before
 * the bytes fields, 3 before the tolerances. */
static size_t config_size(uint32_t version)
{
	return version == 1   ? offsetof(pl_broker_config, handoff_only)
	       : version == 2 ? offsetof(pl_broker_config, bytes_balance)
	       : version == 3 ? offsetof(pl_broker_config, tolerance)
	       : version == 4 ? sizeof(pl_broker_config)
			      : 0;
}

int pl_broker_config_init_version(pl_broker_config *cfg, uint32_t version)
{
	const pl_broker_config def = PL_BROKER_CONFIG_INIT;
	if (cfg == NULL)
		return PL_E_INVAL;
	if (config_size(version) == 0)
		return PL_E_VERSION;
	int rc = pl__init_from(cfg, &def, config_size(version));
	cfg->version = version;
	return rc;
}

/* The function of the name the header's macro hides: what a program built
 * against version 1 calls. It fills version 1, and no byte past it. */
#undef pl_broker_config_init
int pl_broker_config_init(pl_broker_config *cfg)
{
	return pl_broker_config_init_version(cfg, 1);
}

/* ---- one tick ------------------------------------------------------------- */

/* Check everything, then fill *use: the caller's config as the current
 * layout (a version 1 config has handoff_only 0). */
static int check_args(const pl_view *v, const pl_broker_config *cfg, const pl_action *out, uint32_t cap,
		      const pl_plan_info *info, const pl__arg *more, pl_diag *diag, pl_broker_config *use)
{
	/* Only the bytes of the caller's version are its config. */
	size_t size = cfg && config_size(cfg->version) ? config_size(cfg->version) : sizeof cfg->version;
	int rc = pl__check_policy_args(v, cfg, size, out, cap, info, more, diag);
	if (rc)
		return rc;
	if (config_size(cfg->version) == 0)
		return pl__fail(diag, PL_E_VERSION, PL_ELEM_CONFIG, 0, PL_NONE);
	if (cfg->max_moves < 1 || cfg->max_moves > PL_BROKER_MAX_MOVES)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 1, PL_NONE);
	if (cfg->max_moves_in > PL_BROKER_MAX_MOVES)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 2, PL_NONE);
	if (cfg->max_moves_out > PL_BROKER_MAX_MOVES)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 3, PL_NONE);
	if (cfg->paused > 1)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 4, PL_NONE);
	if (cfg->replication_factor < 1 || cfg->replication_factor > PL_MAX_REPLICAS)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 5, PL_NONE);
	if (cfg->replication_factor > v->room) /* new shards would pass the view's replica room */
		return pl__fail(diag, PL_E_REPLICA_ROOM, PL_ELEM_CONFIG, 5, PL_NONE);
	if (cfg->stream_balance > 1)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 6, PL_NONE);
	if (cfg->replica_balance > 1)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 7, PL_NONE);
	if (cfg->version >= 2 && cfg->handoff_only > 1)
		return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, 8, PL_NONE);
	if (cfg->version >= 3) {
		uint32_t bad = cfg->bytes_balance > 1			      ? 9
			       : cfg->bytes_first > 1			      ? 10
			       : cfg->full_ratio > 100			      ? 11
			       : cfg->bytes_tolerance > PL_BROKER_MAX_TOLERANCE ? 12
			       : cfg->reserved != 0			      ? 13
									      : 0;
		if (bad)
			return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, bad, PL_NONE);
	}
	if (cfg->version >= 4) {
		uint32_t bad = cfg->tolerance > PL_MAX_TOLERANCE ? 17 : cfg->stream_tolerance > PL_MAX_TOLERANCE ? 18 : 0;
		if (bad)
			return pl__fail(diag, PL_E_CONFIG, PL_ELEM_CONFIG, bad, PL_NONE);
	}
	if (v->n_elig == 0 && v->nk > 0)
		return pl__fail(diag, PL_E_NO_ELIGIBLE, PL_ELEM_ARGUMENT, 1, PL_NONE);
	const pl_broker_config def = PL_BROKER_CONFIG_INIT;
	*use = def;
	memcpy(use, cfg, size);
	use->version = PL_BROKER_CONFIG_VERSION;
	return 0;
}

/* Did the snapshot list m among shard sh's replicas? */
static int in_snapshot(const pl_shard *sh, uint32_t m)
{
	for (uint32_t i = 0; i < sh->replica_count; i++)
		if (sh->replicas[i] == m)
			return 1;
	return 0;
}

static void start(pl__bk *b, pl_view *v, const pl_broker_config *cfg, pl_action *out, uint32_t cap)
{
	memset(b, 0, offsetof(pl__bk, fl_from));
	b->v = v;
	b->cfg = cfg;
	b->out = out;
	b->cap = cap;
	b->stalled_shard = b->limit_member = b->block_scope = b->drain_shard = b->full_member = PL_NONE;
	for (uint32_t m = 0; m < v->nm; m++)
		b->rep_total += v->m_replicas[m];
	b->domains_shared = pl__bk_domains_shared(v);
	b->budget = v->n_moving < cfg->max_moves ? cfg->max_moves - v->n_moving : 0;
	b->limits = cfg->max_moves_in != 0 || cfg->max_moves_out != 0 || cfg->max_bytes_in != 0 ||
		    cfg->max_bytes_out != 0 || cfg->max_bytes_in_flight != 0;
	for (uint32_t e = 0; e < v->n_elig; e++)
		if (v->m_weight[v->elig[e]] > b->w_max)
			b->w_max = v->m_weight[v->elig[e]];
	/* List the moves in flight for the per-member limits. There are fewer
	 * than max_moves whenever a move may start, so they fit. */
	b->n_flight = 0;
	if (b->limits && b->budget > 0 && v->n_moving > 0) {
		for (uint32_t k = 0; k < v->nk && b->n_flight < PL_BROKER_MAX_MOVES; k++) {
			const pl__shard_state *st = pl__st(v, k);
			if (!st->moving)
				continue;
			const pl_shard *sh = &v->snap.shards[k];
			uint32_t from = sh->leader, to = pl__leader(st);
			if (to == from) {
				/* No leader moved: a replica copy, read off the
				 * replica lists (to: new in the view; from: gone). */
				to = from = PL_NONE;
				for (uint32_t j = 0; j < st->nrep && to == PL_NONE; j++) {
					uint32_t i = 0;
					while (i < sh->replica_count && sh->replicas[i] != pl__rep(st, j))
						i++;
					if (i == sh->replica_count)
						to = pl__rep(st, j);
				}
				for (uint32_t i = 0; i < sh->replica_count && from == PL_NONE; i++)
					if (!pl__holds(st, sh->replicas[i]))
						from = sh->replicas[i];
				if (to == PL_NONE)
					continue;
			}
			b->fl_from[b->n_flight] = from;
			b->fl_to[b->n_flight] = to;
			/* A leader move copies when its destination held no replica. */
			b->fl_bytes[b->n_flight] = in_snapshot(sh, to) ? 0 : pl__size0(v, k);
			b->bytes_flight += b->fl_bytes[b->n_flight];
			b->n_flight++;
		}
	}
	pl__bk_band_init(b);
}

static void finish(const pl__bk *b, pl_plan_info *info)
{
	uint32_t status = PL_STATUS_BALANCED, detail = PL_NONE, more = 0;
	if (b->full) {
		status = PL_STATUS_FULL;
		more = 1;
	} else if (b->stalled) {
		status = PL_STATUS_STALLED;
		detail = b->stalled_shard;
	} else if (b->drain_stalled) {
		status = PL_STATUS_DRAIN_STALLED;
		detail = b->drain_shard;
	} else if (b->want_paused) {
		status = PL_STATUS_PAUSED;
		more = 1;
	} else if (b->want_limit) {
		status = PL_STATUS_MOVE_LIMIT;
		detail = b->limit_member;
		more = 1;
	} else if (b->want_flight) {
		status = PL_STATUS_IN_FLIGHT;
		more = 1;
	} else if (b->block_caps) {
		status = PL_STATUS_BLOCKED_CAPS;
		detail = b->block_scope;
	} else if (b->block_zones) {
		status = PL_STATUS_BLOCKED_ZONES;
		detail = b->block_scope;
	} else if (b->block_full) {
		status = PL_STATUS_BLOCKED_FULL;
		detail = b->full_member != PL_NONE ? b->full_member : b->block_scope;
	} else if (b->block_handoff) {
		status = PL_STATUS_BLOCKED_HANDOFF;
		detail = b->block_scope;
	} else if (b->block_bounds) {
		status = PL_STATUS_BLOCKED_BOUNDS;
		detail = b->bounds_scope;
	}
	pl__plan_info(info, b->n, more, status, detail, b->blocked);
}

/* The bytes band after the counts: in a tick where nothing else moved or
 * waits (counts first; bytes_first ran it before them). */
static void bytes_last(pl__bk *b)
{
	if (b->cfg->bytes_first || b->full || b->n > 0 || b->want_flight || b->want_limit || b->rep_hold)
		return;
	pl__bk_bbalance(b);
}

/* One tick, in the order of placement/broker.h: placing and leader drains;
 * replica drains; zone repair; leader balance; replica balance. The moves
 * before balance note their own waits (paused, limits, in flight). */
static void tick(pl__bk *b)
{
	int copies = !b->cfg->handoff_only; /* hand-offs only: nothing that copies */
	pl__bk_place(b);
	if (!b->full && copies)
		pl__bk_drain_replicas(b);
	if (!b->full && copies)
		pl__bk_zone_repair(b);
	if (!b->full && copies)
		pl__bk_shed(b);
	if (!b->full && copies && b->cfg->bytes_first && !b->rep_hold && !b->want_limit) {
		pl__bk_bbalance(b); /* the band before the counts */
		if (b->bytes_moved || b->want_limit || b->want_paused)
			return;
	}
	if (b->full)
		return;
	if (b->cfg->paused || b->budget == 0) {
		if (pl__bk_any_wanted(b) || (copies && !b->rep_hold && pl__bk_replicas_wanted(b)) ||
		    (copies && pl__bk_bytes_wanted(b))) {
			if (b->cfg->paused)
				b->want_paused = 1;
			else
				pl__bk_wait_limit(b, PL_NONE);
		}
		return;
	}
	int held = pl__bk_balance(b);
	if (b->full || !copies)
		return;
	if (!b->cfg->replica_balance) {
		if (!held)
			bytes_last(b);
		return;
	}
	if (held || b->rep_hold) {
		if (pl__bk_replicas_wanted(b))
			b->want_flight = 1; /* after the leaders, drains and repairs settle */
		return;
	}
	pl__bk_rbalance(b);
	bytes_last(b);
}

int pl_broker_plan(pl_view *v, const pl_broker_config *cfg, pl_action *out, uint32_t cap, pl_plan_info *info,
		   pl_diag *diag)
{
	pl_broker_config use;
	int rc = check_args(v, cfg, out, cap, info, NULL, diag, &use);
	if (rc)
		return rc;
	pl__bk b;
	start(&b, v, &use, out, cap);
	tick(&b);
	finish(&b, info);
	return (int)b.n;
}

int pl_broker_dry_run(pl_view *v, const pl_broker_config *cfg, pl_action *out, uint32_t cap, pl_plan_info *info,
		      uint32_t *ticks, pl_diag *diag)
{
	const pl__arg t_arg = PL__OUT(ticks, sizeof *ticks, 6);
	pl_broker_config use;
	int rc = check_args(v, cfg, out, cap, info, &t_arg, diag, &use);
	if (rc)
		return rc;
	pl__bk b;
	uint32_t n = 0, t = 0;
	int settled = 0; /* the view was settled before this tick */
	for (;;) {
		start(&b, v, &use, out ? out + n : NULL, cap - n);
		tick(&b);
		n += b.n;
		if (b.n > 0)
			t++;
		if (b.full)
			break;
		/* A tick that emits nothing ends the run, unless moves are in
		 * flight (the snapshot's own): they settle, and the next tick
		 * may start what waited on them. */
		if (b.n == 0 && (settled || (v->n_moving == 0 && !b.want_flight)))
			break;
		pl_view_settle(v);
		settled = 1;
	}
	b.n = n; /* the whole sequence, for finish() */
	finish(&b, info);
	if (ticks)
		*ticks = t;
	return (int)n;
}

int pl_broker_drain_stalls(const pl_view *v, pl_broker_stall *out, uint32_t cap, uint32_t *total, pl_diag *diag)
{
	const pl__arg a[2] = {PL__OUT(out, pl__span(cap, sizeof *out), 2), PL__OUT(total, sizeof *total, 4)};
	int rc = pl__check_args(v, NULL, a, 2, diag);
	if (rc)
		return rc;
	if (!pl__view_ok(v))
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 1, PL_NONE);
	if (out == NULL && cap > 0)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 2, PL_NONE);
	uint32_t n = 0, all = 0;
	if (v->n_live > v->n_elig)
		for (uint32_t r = 0; r < v->nk; r++) {
			uint32_t k = v->k_order[r];
			const pl__shard_state *st = pl__st(v, k);
			/* Its replicas on draining members, in id order. */
			uint32_t last = PL_NONE;
			for (;;) {
				uint32_t d = PL_NONE;
				for (uint32_t j = 0; j < st->nrep; j++) {
					uint32_t m = pl__rep(st, j);
					if (!pl__live(v, m) || pl__eligible(v, m))
						continue;
					if (last != PL_NONE && v->m_rank[m] <= v->m_rank[last])
						continue;
					if (d == PL_NONE || v->m_rank[m] < v->m_rank[d])
						d = m;
				}
				if (d == PL_NONE)
					break;
				last = d;
				uint32_t why = pl__bk_stall_reason(v, k, d);
				if (!why)
					continue;
				if (n < cap)
					out[n++] = (pl_broker_stall){k, d, why, 0};
				all++;
			}
		}
	if (total)
		*total = all;
	return (int)n;
}
