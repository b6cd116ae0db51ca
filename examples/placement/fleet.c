/*
 * fleet.c - the fleet policy (placement/fleet.h) for plan and simulate.
 *
 * In a fleet every member decides for itself, each tick, on the same
 * snapshot. A tick copies the run's view as the tick starts (pl_view_copy()),
 * lets each deciding member decide on its own copy of that (pl_fleet_decide()
 * with self, now and its last move), and carries out every member's actions
 * on the run's view in member order (pl_view_apply()); a member that moved
 * records the tick's clock as its last move. The library's ranking of movers
 * and places means the members' decisions never collide; if two ever did,
 * pl_view_apply() would refuse the second and the tool says so.
 *
 * By default every live member decides; with --member or `set self`, only
 * that one does (the others are idle). The clock advances by `tick` per
 * tick, by default the cooldown, so every member may move once a tick.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

typedef struct fleet_state {
	pl_fleet_config cfg;
	void *tick_mem, *own_mem;
	size_t size;
	pl_action *buf;
	size_t buf_cap;
	uint32_t *owners;
	size_t owners_cap;
} fleet_state;

static const uint32_t fields[] = {PT_SET_COUNT,		 PT_SET_SELF,	 PT_SET_NOW,
				  PT_SET_COUNT,		 PT_SET_COOLDOWN, PT_SET_MOVES_PER_DECISION,
				  PT_SET_SPREAD,	 PT_SET_RETURN_HOME_AGE, PT_SET_COUNT_BALANCE,
				  PT_SET_COUNT};

static int prepare(pt_run *r, pt_err *e)
{
	fleet_state *f = calloc(1, sizeof *f);
	if (f == NULL)
		pt_oom();
	r->cfg = f;
	pl_fleet_config *c = &f->cfg;
	pl_fleet_config_init(c);
	const pt_doc *d = r->d;
	c->cooldown = pt_setting(d, PT_SET_COOLDOWN, c->cooldown);
	c->moves_per_decision = (uint32_t)pt_setting(d, PT_SET_MOVES_PER_DECISION, c->moves_per_decision);
	c->spread = (uint32_t)pt_setting(d, PT_SET_SPREAD, c->spread);
	c->return_home_age = pt_setting(d, PT_SET_RETURN_HOME_AGE, c->return_home_age);
	c->count_balance = (uint32_t)pt_setting(d, PT_SET_COUNT_BALANCE, c->count_balance);
	r->tick_len = pt_setting(d, PT_SET_TICK, c->cooldown ? c->cooldown : 1);
	if (r->tick_len == 0)
		return pt_fail(e, d->set[PT_SET_TICK].line, "set tick=0: a fleet's clock must move each tick");
	/* Quiet ticks while every member waits out its cooldown are not the end:
	 * a member that moved may move again after ceil(cooldown / tick) ticks. */
	uint64_t q = (c->cooldown + r->tick_len - 1) / r->tick_len;
	r->quiet_ticks = q < 1 ? 1 : q > 1000 ? 1000 : (uint32_t)q;
	if (r->nm == 0)
		return 0;
	pl_fleet_config probe = *c;
	probe.self = r->self != PL_NONE ? r->self : 0;
	probe.now = r->now;
	pl_diag dg;
	int rc = pl_fleet_decide(r->v, &probe, NULL, 0, NULL, &dg);
	if (rc == PL_E_CONFIG || rc == PL_E_VERSION)
		return pt_config_error(r, "fleet", rc, &dg, fields, sizeof fields / sizeof fields[0], e);
	return 0;
}

static int moved(const pl_action *a)
{
	return a->reason != PL_REASON_VOID_OVERRIDE && a->reason != PL_REASON_REDUNDANT_OVERRIDE;
}

/* Why a member's decision ended with a status that leaves the fleet out of
 * its bounds (pl_fleet_decide(3)). */
static const char *blocker_words(uint32_t status)
{
	switch (status) {
	case PL_STATUS_STALLED: return "it lags, and no member that is not lagging can take its busiest shard";
	case PL_STATUS_MOVING: return "count, spread or keep moves are still wanted";
	case PL_STATUS_RETURNING_HOME: return "lag overrides wait to go home";
	case PL_STATUS_UNEVEN: return "out of bounds, and no rule of this configuration moves it";
	default: return NULL;
	}
}

static int tick(pt_run *r, uint64_t budget, pt_tick *t, pt_err *e)
{
	fleet_state *f = r->cfg;
	const pl_snapshot *s = &r->snap;
	pl_diag dg;
	if (f->size < r->mem_size) {
		free(f->tick_mem);
		free(f->own_mem);
		f->tick_mem = pt_alloc(r->mem_size);
		f->own_mem = pt_alloc(r->mem_size);
		f->size = r->mem_size;
	}
	/* the ring homes once on the run's view, so every copy has them */
	f->owners = pt_grow(f->owners, &f->owners_cap, sizeof *f->owners, (size_t)s->n_shards + 1);
	int rc = pl_fleet_owners(r->v, f->owners, s->n_shards, &dg);
	if (rc < 0 && rc != PL_E_NO_ELIGIBLE)
		return pt_policy_error(r, "the fleet policy", rc, &dg, e);
	pl_view *tv, *ov;
	if (pl_view_copy(&tv, f->tick_mem, f->size, r->v) != 0)
		return pt_fail(e, 0, "internal: pl_view_copy of the tick's view failed");
	uint32_t counts[32];
	memset(counts, 0, sizeof counts);
	t->status = PL_STATUS_BALANCED;
	/* every member down: none decides, and no shard has an owner, which
	 * pl_fleet_decide() would answer PL_E_NO_ELIGIBLE to */
	pl_view_counts vc;
	pl_view_stats(r->v, &vc);
	if (vc.eligible == 0 && s->n_shards > 0)
		return pt_tick_no_eligible(t);
	for (uint32_t q = 0; q < s->n_members; q++) {
		uint32_t m = r->self != PL_NONE ? r->self : (uint32_t)pl_view_at(r->v, PL_ELEM_MEMBER, q);
		if (r->self == PL_NONE && (s->members[m].flags & PL_MEMBER_DOWN))
			continue; /* a member that is down runs nothing */
		if (pl_view_copy(&ov, f->own_mem, f->size, tv) != 0)
			return pt_fail(e, 0, "internal: pl_view_copy of a member's view failed");
		pl_view_counts c;
		pl_view_stats(ov, &c);
		size_t cap = (size_t)c.overrides + f->cfg.moves_per_decision + 8;
		f->buf = pt_grow(f->buf, &f->buf_cap, sizeof *f->buf, cap);
		pl_fleet_config cfg = f->cfg;
		cfg.self = m;
		cfg.now = r->now;
		cfg.last_move = r->last_move[m];
		pl_plan_info info;
		int n = pl_fleet_decide(ov, &cfg, f->buf, (uint32_t)cap, &info, &dg);
		if (n == PL_E_NO_ELIGIBLE)
			return pt_tick_no_eligible(t);
		if (n < 0)
			return pt_policy_error(r, "the fleet policy", n, &dg, e);
		counts[info.status < 32 ? info.status : 31]++;
		/* the tick's status: the first that blocks, else the first that
		 * is not balanced */
		if (pt_status_blocks(info.status)) {
			if (!pt_status_blocks(t->status))
				t->status = info.status;
			/* lagging names the members that lag (below), not the deciders */
			if (info.status != PL_STATUS_LAGGING)
				pt_tick_blocker(t, info.status, PL_NONE, PL_NONE, m, blocker_words(info.status));
		} else if (info.status != PL_STATUS_BALANCED && t->status == PL_STATUS_BALANCED) {
			t->status = info.status;
		}
		t->blocked += info.blocked;
		int any = 0;
		for (int i = 0; i < n; i++) {
			if (budget && t->written >= budget) {
				t->full_stop = 1;
				break;
			}
			rc = pl_view_apply(r->v, &f->buf[i]);
			if (rc != 0) {
				pt_buf w = {0};
				pt_put(&w, "member ");
				pt_put_name(&w, s->members[m].id);
				pt_put(&w, "'s %s of ", pl_action_kind_name(f->buf[i].kind));
				pt_put_name(&w, s->shards[f->buf[i].shard].key);
				pt_put(&w, " collides with an earlier member's action at tick %llu (%s)",
				       (unsigned long long)r->tickno, pl_error_name(rc));
				rc = pt_fail(e, 0, "%s", w.p);
				pt_buf_free(&w);
				return rc;
			}
			pt_run_add(r, &f->buf[i], m);
			t->written++;
			any |= moved(&f->buf[i]);
		}
		if (any)
			r->last_move[m] = r->now;
		if (t->full_stop || r->self != PL_NONE)
			break;
	}
	if (t->status == PL_STATUS_LAGGING)
		for (uint32_t q = 0; q < s->n_members; q++) {
			uint32_t m = (uint32_t)pl_view_at(r->v, PL_ELEM_MEMBER, q);
			if ((s->members[m].flags & (PL_MEMBER_LAGGING | PL_MEMBER_DOWN)) == PL_MEMBER_LAGGING)
				pt_tick_blocker(t, PL_STATUS_LAGGING, PL_NONE, PL_NONE, m, "it lags");
		}
	/* A member in its cooldown may move once it has passed (after as many
	 * ticks as the cooldown spans, or later when its last move is in the
	 * future): quiet ticks before then are not the end. */
	for (uint32_t m = 0; m < s->n_members; m++) {
		if (r->last_move[m] == PL_FLEET_NEVER || (s->members[m].flags & PL_MEMBER_DOWN))
			continue;
		uint64_t due = r->last_move[m] + f->cfg.cooldown;
		if (due < r->last_move[m])
			due = UINT64_MAX;
		if (due > t->wait_until)
			t->wait_until = due;
	}
	/* A lag override younger than return-home-age may go home later: quiet
	 * ticks before it is old enough are not the end. */
	if (f->cfg.return_home_age != PL_FLEET_NEVER)
		for (uint32_t k = 0; k < s->n_shards; k++) {
			pl_shard_state ss;
			pl_view_shard_state(r->v, k, &ss);
			if (ss.override_member == PL_NONE || ss.override_origin != PL_ORIGIN_LAG)
				continue;
			uint64_t due = ss.override_since + f->cfg.return_home_age;
			if (due < ss.override_since)
				due = UINT64_MAX;
			if (due > t->wait_until)
				t->wait_until = due;
		}
	/* which statuses the members ended with */
	pt_buf w = {0};
	for (uint32_t st = 0; st < 32; st++)
		if (counts[st])
			pt_put(&w, "%s%s %u", w.len ? ", " : "", pl_status_name(st), counts[st]);
	snprintf(t->note, sizeof t->note, "%s", w.p ? w.p : "");
	t->note_only = 1;
	pt_buf_free(&w);
	return 0;
}

static void config_json(const pt_run *r, pt_buf *b)
{
	const fleet_state *f = r->cfg;
	const pl_fleet_config *c = &f->cfg;
	pt_put(b, "{\"cooldown\": %llu, \"moves-per-decision\": %u, \"spread\": %s, \"return-home-age\": %llu, "
		  "\"count-balance\": %s, \"tick\": %llu}",
	       (unsigned long long)c->cooldown, c->moves_per_decision, c->spread ? "true" : "false",
	       (unsigned long long)c->return_home_age, c->count_balance ? "true" : "false",
	       (unsigned long long)r->tick_len);
}

static void done(pt_run *r)
{
	fleet_state *f = r->cfg;
	if (f) {
		free(f->tick_mem);
		free(f->own_mem);
		free(f->buf);
		free(f->owners);
		free(f);
	}
	r->cfg = NULL;
}

const pt_policy_ops pt_fleet_ops = {PT_POLICY_FLEET, "owned", prepare, tick, config_json, done};
