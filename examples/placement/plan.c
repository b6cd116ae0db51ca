/*
 * plan.c - the plan command (a dry run): every action the policy would emit,
 * tick after tick, printed as it is planned, then why it stopped, what
 * blocks it, and the spread before and after.
 *
 * plan stops at the first quiet tick (for a fleet whose tick is shorter than
 * its cooldown, after as many quiet ticks as a cooldown spans), at --max
 * actions, or after PT_PLAN_TICKS ticks, and says which.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "stats.h"

#define PT_PLAN_TICKS UINT64_C(100000)

/* ---- what blocks a plan --------------------------------------------------------------- */

/* The stream's row of the stats, or NULL. */
static const pt_stream_row *stream_row(const pt_stats *st, uint32_t stream)
{
	for (uint32_t r = 0; r < st->ns; r++)
		if (st->s[r].stream == stream)
			return &st->s[r];
	return NULL;
}

/* Whether the replicas member c->member holds of the stream are outside
 * their bounds, as the imbalance counts them (the broker's replica balance:
 * the stream's replicas on eligible members shared by weight), and the
 * bounds. 0 when the imbalance does not count replicas. */
static int replicas_off(const pt_stats *st, const pl_snapshot *s, const pt_stream_row *sr, const pt_cell_row *c,
			uint32_t *fl, uint32_t *ce)
{
	const pl_member *m = &s->members[c->member];
	if (st->measure != PL_IMBALANCE_BROKER || !pt_eligible(m) || st->c.weight == 0)
		return 0;
	uint64_t L = 0;
	for (uint32_t q = 0; q < sr->count; q++)
		if (pt_eligible(&s->members[st->cells[sr->first + q].member]))
			L += st->cells[sr->first + q].replicas;
	uint64_t num = L * (m->weight ? m->weight : 1);
	*fl = (uint32_t)(num / st->c.weight);
	*ce = (uint32_t)((num + st->c.weight - 1) / st->c.weight);
	return c->replicas < *fl || c->replicas > *ce;
}

/* The replicas on eligible members. */
static uint64_t eligible_replicas(const pl_view *v)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	uint64_t R = 0;
	pl_tally x;
	for (uint32_t i = 0; i < s->n_members; i++)
		if (pt_eligible(&s->members[i]) && pl_view_member_tally(v, i, &x) == 0)
			R += x.replicas;
	return R;
}

/* The member at canonical place r when it is eligible and its leaders in
 * total are outside their floor and ceiling, or (the broker's measure) its
 * replicas outside theirs, the R replicas on eligible members shared by
 * weight; else PL_NONE. *y its tally; *rfl and *rce the replicas' bounds
 * (0, 0 when its leaders are the ones outside). */
static uint32_t totals_off(const pt_stats *st, const pl_view *v, uint64_t R, uint32_t r, pl_tally *y, uint32_t *rfl,
			   uint32_t *rce)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	int m = pl_view_at(v, PL_ELEM_MEMBER, r);
	*rfl = *rce = 0;
	if (m < 0 || !pt_eligible(&s->members[m]) || pl_view_member_tally(v, (uint32_t)m, y) != 0)
		return PL_NONE;
	if (y->leaders > y->ceiling || y->leaders < y->floor)
		return (uint32_t)m;
	if (st->measure != PL_IMBALANCE_BROKER || st->c.weight == 0)
		return PL_NONE;
	uint64_t num = R * (s->members[m].weight ? s->members[m].weight : 1);
	*rfl = (uint32_t)(num / st->c.weight);
	*rce = (uint32_t)((num + st->c.weight - 1) / st->c.weight);
	return y->replicas < *rfl || y->replicas > *rce ? (uint32_t)m : PL_NONE;
}

/* The members a blocker involves: a shard's replicas (leader first), a
 * stream's eligible members outside its bounds (leaders, then replicas),
 * the member named, or, for the totals, the eligible members outside
 * their bounds. */
uint32_t pt_blocker_members(const pt_blocker *w, const pt_stats *st, const pl_view *v, uint32_t *out, uint32_t cap)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	uint32_t n = 0;
	if (w->member != PL_NONE && n < cap)
		out[n++] = w->member;
	if (w->shard != PL_NONE) {
		pl_shard_state ss;
		pl_view_shard_state(v, w->shard, &ss);
		if (ss.leader != PL_NONE && n < cap && ss.leader != w->member)
			out[n++] = ss.leader;
		for (uint32_t q = 0; q < ss.replica_count && n < cap; q++)
			if (ss.replicas[q] != ss.leader && ss.replicas[q] != w->member)
				out[n++] = ss.replicas[q];
	} else if (w->stream != PL_NONE) {
		const pt_stream_row *sr = stream_row(st, w->stream);
		for (uint32_t q = 0; sr && q < sr->count && n < cap; q++) {
			const pt_cell_row *c = &st->cells[sr->first + q];
			const pl_member *m = &s->members[c->member];
			if (!(m->flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING)) &&
			    (c->leaders > c->ceiling || c->leaders < c->floor))
				out[n++] = c->member;
		}
		for (uint32_t q = 0; sr && q < sr->count && n < cap; q++) {
			const pt_cell_row *c = &st->cells[sr->first + q];
			uint32_t fl, ce, seen = 0;
			for (uint32_t i = 0; i < n; i++)
				seen |= out[i] == c->member;
			if (!seen && replicas_off(st, s, sr, c, &fl, &ce))
				out[n++] = c->member;
		}
	} else if (w->member == PL_NONE) {
		pl_tally y;
		uint32_t fl, ce;
		uint64_t R = eligible_replicas(v);
		for (uint32_t r = 0, m; r < s->n_members && n < cap; r++)
			if ((m = totals_off(st, v, R, r, &y, &fl, &ce)) != PL_NONE)
				out[n++] = m;
	}
	return n;
}

void pt_blockers_text(pt_buf *b, const pt_tick *t, const pt_stats *st, const pl_view *v)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	for (uint32_t i = 0; i < t->nwhy; i++) {
		const pt_blocker *w = &t->why[i];
		pt_put(b, "  %s:", pl_status_name(w->status));
		if (w->shard != PL_NONE) {
			pl_shard_state ss;
			pl_view_shard_state(v, w->shard, &ss);
			pt_put(b, " shard ");
			pt_put_name(b, s->shards[w->shard].key);
			if (w->stream != PL_NONE) {
				pt_put(b, " of stream ");
				pt_put_name(b, s->streams[w->stream].id);
			}
			pt_put(b, " (leader ");
			if (ss.leader != PL_NONE)
				pt_put_name(b, s->members[ss.leader].id);
			else
				pt_put(b, "none");
			pt_put(b, ", replicas ");
			for (uint32_t q = 0; q < ss.replica_count; q++) {
				if (q)
					pt_putc(b, ',');
				pt_put_name(b, s->members[ss.replicas[q]].id);
			}
			if (ss.replica_count == 0)
				pt_put(b, "none");
			pt_putc(b, ')');
		} else if (w->stream != PL_NONE) {
			pt_put(b, " stream ");
			pt_put_name(b, s->streams[w->stream].id);
			const pt_stream_row *sr = stream_row(st, w->stream);
			int first = 1;
			for (uint32_t q = 0; sr && q < sr->count; q++) {
				const pt_cell_row *c = &st->cells[sr->first + q];
				const pl_member *m = &s->members[c->member];
				if (m->flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING))
					continue;
				if (c->leaders <= c->ceiling && c->leaders >= c->floor)
					continue;
				pt_put(b, "%s ", first ? ":" : ",");
				first = 0;
				pt_put_name(b, m->id);
				if (c->leaders > c->ceiling)
					pt_put(b, "=%u over its ceiling %u", c->leaders, c->ceiling);
				else
					pt_put(b, "=%u under its floor %u", c->leaders, c->floor);
			}
			/* the replicas the stream's members hold off their bounds */
			for (uint32_t q = 0; sr && q < sr->count; q++) {
				const pt_cell_row *c = &st->cells[sr->first + q];
				uint32_t fl, ce;
				if (!replicas_off(st, s, sr, c, &fl, &ce))
					continue;
				pt_put(b, "%s ", first ? ":" : ",");
				first = 0;
				pt_put_name(b, s->members[c->member].id);
				pt_put(b, " holds %u replica%s, %s %u", c->replicas, c->replicas == 1 ? "" : "s",
				       c->replicas > ce ? "over its ceiling" : "under its floor", c->replicas > ce ? ce : fl);
			}
		} else if (w->member == PL_NONE) {
			pl_tally y;
			uint32_t fl, ce;
			uint64_t R = eligible_replicas(v);
			int first = 1;
			for (uint32_t r = 0, m; r < s->n_members; r++) {
				if ((m = totals_off(st, v, R, r, &y, &fl, &ce)) == PL_NONE)
					continue;
				pt_put(b, "%s ", first ? " the totals:" : ",");
				first = 0;
				pt_put_name(b, s->members[m].id);
				if (ce > 0 || fl > 0)
					pt_put(b, " holds %u replica%s, %s %u", y.replicas, y.replicas == 1 ? "" : "s",
					       y.replicas > ce ? "over its ceiling" : "under its floor",
					       y.replicas > ce ? ce : fl);
				else if (y.leaders > y.ceiling)
					pt_put(b, "=%u over its ceiling %u", y.leaders, y.ceiling);
				else
					pt_put(b, "=%u under its floor %u", y.leaders, y.floor);
			}
			if (first)
				pt_put(b, " the cluster as a whole");
		} else {
			pt_put(b, " member "); /* "lagging: member f2: it lags" */
			pt_put_name(b, s->members[w->member].id);
		}
		if (w->word)
			pt_put(b, ": %s", w->word);
		if (w->member != PL_NONE && (w->shard != PL_NONE || w->stream != PL_NONE)) {
			pt_put(b, ", member ");
			pt_put_name(b, s->members[w->member].id);
		}
		pt_putc(b, '\n');
	}
}

static void json_index(pt_buf *b, const pl_snapshot *s, uint32_t kind, uint32_t i)
{
	if (i == PL_NONE)
		pt_put(b, "null");
	else if (kind == PL_ELEM_SHARD)
		pt_put_json_bytes(b, s->shards[i].key);
	else if (kind == PL_ELEM_STREAM)
		pt_put_json_bytes(b, s->streams[i].id);
	else
		pt_put_json_bytes(b, s->members[i].id);
}

void pt_blockers_json(pt_buf *b, const pt_tick *t, const pt_stats *st, const pl_view *v)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	pt_putc(b, '[');
	for (uint32_t i = 0; i < t->nwhy; i++) {
		const pt_blocker *w = &t->why[i];
		pt_put(b, "%s{\"status\": \"%s\", \"shard\": ", i ? ", " : "", pl_status_name(w->status));
		json_index(b, s, PL_ELEM_SHARD, w->shard);
		pt_put(b, ", \"stream\": ");
		json_index(b, s, PL_ELEM_STREAM, w->stream);
		pt_put(b, ", \"member\": ");
		json_index(b, s, PL_ELEM_MEMBER, w->member);
		uint32_t ms[PT_BLOCKER_MEMBERS];
		uint32_t n = pt_blocker_members(w, st, v, ms, PT_BLOCKER_MEMBERS);
		pt_put(b, ", \"why\": ");
		if (w->word)
			pt_put_json_str(b, w->word, strlen(w->word));
		else
			pt_put(b, "null");
		pt_put(b, ", \"members\": [");
		for (uint32_t q = 0; q < n; q++) {
			pt_put(b, "%s", q ? ", " : "");
			json_index(b, s, PL_ELEM_MEMBER, ms[q]);
		}
		pt_put(b, "]}");
	}
	pt_putc(b, ']');
}

/* ---- plan ------------------------------------------------------------------------------ */

static void config_words(pt_buf *b, const pt_run *r, int json)
{
	pt_buf t = {0};
	r->ops->config_json(r, &t);
	if (json) {
		pt_putn(b, t.p ? t.p : "{}", t.p ? t.len : 2);
	} else {
		pt_config_words(b, t.p, t.len);
	}
	pt_buf_free(&t);
}

/* Text mode: what is in out goes to standard output now, so a long plan
 * shows its ticks as they are planned (the file was read and checked
 * before the first one). */
static void flush_out(pt_buf *out, const pt_opts *o)
{
	pt_progress_done(o); /* the progress line is not left inside the plan */
	if (out->len && fwrite(out->p, 1, out->len, stdout) == out->len)
		out->len = 0;
	fflush(stdout);
}

static void plan_header(pt_buf *out, const pt_run *r, uint32_t policy)
{
	const pl_snapshot *s = &r->snap;
	pt_put(out, "plan: the %s policy (", pt_policy_name(policy));
	config_words(out, r, 0);
	pt_put(out, ")");
	if (policy == PT_POLICY_FLEET) {
		if (r->self != PL_NONE) {
			pt_put(out, "; only ");
			pt_put_name(out, s->members[r->self].id);
			pt_put(out, " decides");
		} else {
			pt_put(out, "; every live member decides for itself, each tick");
		}
	}
	pt_put(out, "\n");
}

int pt_plan_run(pt_run *r, const pt_opts *o, uint64_t budget, pt_buf *out, int keep, pt_plan_end *end, pt_err *e)
{
	uint32_t quiet = 0;
	memset(end, 0, sizeof *end);
	end->status = PL_STATUS_BALANCED;
	double t0 = pt_now();
	/* progress: the imbalance at the start is the total, what is left of
	 * it the part to go (or, cut at --max, the budget) */
	uint64_t start_imb = 0;
	if (pt_progress_due(o)) {
		pt_stats st;
		pt_stats_compute(&st, r->v, r->ops->id, r->d);
		start_imb = st.imbalance;
		pt_stats_free(&st);
	}
	for (;;) {
		pt_tick t;
		memset(&t, 0, sizeof t);
		r->tickno++;
		size_t first = r->nacts;
		int rc = r->ops->tick(r, budget ? budget - r->nacts : 0, &t, e);
		if (rc)
			return rc;
		/* a tick that starts nothing while moves finish is not quiet:
		 * the moves in flight may be what held the policy back */
		int settled = pl_view_settle(r->v);
		end->status = t.status;
		end->last = t;
		if (t.written) {
			end->active++;
			quiet = 0;
		} else if (settled > 0) {
			quiet = 0;
		} else if (r->now >= t.wait_until) {
			quiet++;
		}
		if (out && r->nacts > first) {
			pt_put(out, "tick %llu\n", (unsigned long long)r->tickno);
			for (size_t i = first; i < r->nacts; i++)
				pt_act_text(out, &r->snap, &r->acts[i - r->acts_base], i + 1);
			flush_out(out, o);
		}
		if (!keep)
			r->acts_base = r->nacts; /* written or not wanted: the array is reused */
		if (pt_progress_due(o)) {
			pt_stats st;
			pt_stats_compute(&st, r->v, r->ops->id, r->d);
			char left[64];
			uint64_t imb = st.imbalance;
			pt_stats_free(&st);
			if (budget)
				pt_progress_left(left, sizeof left, t0, r->nacts, budget);
			else
				pt_progress_left(left, sizeof left, t0, start_imb > imb ? start_imb - imb : 0, start_imb);
			if (budget)
				pt_progress(o, "planned tick %llu, %zu of at most %llu action%s; imbalance %llu%s",
					    (unsigned long long)r->tickno, r->nacts, (unsigned long long)budget,
					    budget == 1 ? "" : "s", (unsigned long long)imb, left);
			else
				pt_progress(o, "planned tick %llu, %zu action%s; imbalance %llu of %llu at the start, %llu%% done%s",
					    (unsigned long long)r->tickno, r->nacts, r->nacts == 1 ? "" : "s", (unsigned long long)imb,
					    (unsigned long long)start_imb,
					    (unsigned long long)(start_imb > imb ? (start_imb - imb) * 100 / start_imb : 0), left);
		}
		if ((budget && r->nacts >= budget) || t.full_stop) {
			end->stopped_max = 1;
			break;
		}
		if (quiet >= r->quiet_ticks)
			break;
		if (r->tickno >= PT_PLAN_TICKS) {
			end->stopped_ticks = 1;
			break;
		}
		r->now += r->tick_len;
	}
	pt_progress_done(o);
	if (o->timing)
		fprintf(stderr, "timing: plan %.3f s, %zu actions in %llu ticks\n", pt_now() - t0, r->nacts,
			(unsigned long long)r->tickno);
	/* A plan that ends with moves still wanted and none it may make is
	 * blocked (exit 3); one cut at --max did what was asked. */
	end->actions = r->nacts;
	end->blocked = !end->stopped_max && (end->stopped_ticks || pt_status_blocks(end->status));
	if (!end->blocked)
		end->last.nwhy = 0;
	return 0;
}

int pt_cmd_plan(const char *path, const pt_opts *o, pt_buf *out, pt_err *e)
{
	pt_doc d;
	pt_run r;
	uint32_t policy;
	memset(&r, 0, sizeof r);
	int rc = pt_load(&d, path, o, e);
	if (rc == 0)
		rc = pt_policy_of(&d, o, &policy, e);
	if (rc == 0)
		rc = pt_run_init(&r, &d, policy, o->member, e);
	if (rc == 0 && (o->kafka_reassignment || o->kafka_election || o->kafka_unclean || o->kafka_rollback))
		rc = pt_kafka_check(&d, e);
	if (rc) {
		pt_run_free(&r);
		pt_doc_free(&d);
		return rc;
	}
	/* A plan changes no member, so the stats before can be read against
	 * the view after (names, states and weights are the same). */
	pt_stats before, after;
	pt_stats_compute(&before, r.v, policy, &d);
	uint64_t budget = o->max_given ? o->max : 0;
	/* text: ticks are written as they are planned, and (without JSON or
	 * a Kafka file, which need them all) not kept */
	int streaming = !o->json, keep = o->json;
	if (streaming) {
		plan_header(out, &r, policy);
		flush_out(out, o);
	}
	pt_plan_end end;
	rc = pt_plan_run(&r, o, budget, streaming && !o->summary ? out : NULL, keep, &end, e);
	if (rc)
		goto out;
	uint32_t active = end.active, status = end.status;
	int stopped_max = end.stopped_max, stopped_ticks = end.stopped_ticks, blocked = end.blocked;
	const char *note = end.last.note;
	int note_only = end.last.note_only;
	pt_tick last_tick = end.last;
	pt_stats_compute(&after, r.v, policy, &d);
	if (policy == PT_POLICY_BROKER)
		pt_health_short_rf(&after.health, r.v, ((const pl_broker_config *)r.cfg)->replication_factor, &d);
	if (o->kafka_reassignment || o->kafka_election || o->kafka_unclean || o->kafka_rollback) {
		rc = pt_kafka_write(&d, r.v, o, e);
		if (rc) {
			pt_stats_free(&after);
			goto out;
		}
	}
	if (o->out) {
		pt_buf f = {0};
		pt_doc copy = d;
		/* the layout after the plan, with the file's settings and events,
		 * and for a fleet the clock where the plan ended */
		if (policy == PT_POLICY_FLEET || d.set[PT_SET_NOW].given) {
			copy.set[PT_SET_NOW].given = 1;
			copy.set[PT_SET_NOW].value = r.now;
		}
		rc = pt_run_sync(&r, e);
		if (rc == 0) {
			pt_format_text(&f, &copy, &r.snap, r.last_move, r.v, 1);
			rc = pt_write_file(o->out, &f, e);
		}
		pt_buf_free(&f);
		if (rc) {
			pt_stats_free(&after);
			goto out;
		}
	}
	const pl_snapshot *s = &r.snap;
	const char *why = stopped_max ? "max" : stopped_ticks ? "ticks" : "quiet";
	pt_below_rf below;
	pt_region_below_rf(&r, &below);
	if (o->json) {
		pt_put(out, "{\"policy\": \"%s\", \"config\": ", pt_policy_name(policy));
		config_words(out, &r, 1);
		pt_put(out, ", \"member\": ");
		pt_json_member(out, s, r.self);
		if (o->summary) {
			pt_put(out, ",\n \"summary\": true");
		} else {
			pt_put(out, ",\n \"actions\": [");
			for (size_t i = 0; i < r.nacts; i++) {
				pt_put(out, "%s\n  ", i ? "," : "");
				pt_act_json(out, s, &r.acts[i], i + 1);
			}
			pt_put(out, "]");
		}
		pt_put(out, ",\n \"count\": %zu, \"ticks\": %u, \"stopped\": \"%s\", \"status\": \"%s\", \"note\": ", r.nacts,
		       active, why, pl_status_name(status));
		pt_put_json_str(out, note, strlen(note));
		pt_put(out, ", \"blocked\": %s, \"blockers\": ", blocked ? "true" : "false");
		pt_blockers_json(out, &last_tick, &after, r.v);
		if (r.copied.in) {
			pt_put(out, ",\n ");
			pt_copied_json(out, &r);
		}
		if (policy == PT_POLICY_BROKER) {
			pt_put(out, ",\n ");
			pt_health_short_json(out, &after.health, r.v);
		}
		if (policy == PT_POLICY_REGION) {
			pt_put(out, ",\n \"below_rf\": ");
			pt_below_rf_json(out, s, &below);
		}
		pt_put(out, ",\n \"before\": ");
		pt_stats_json(out, &before, r.v);
		pt_put(out, ", \"after\": ");
		pt_stats_json(out, &after, r.v);
		pt_put(out, "}\n");
	} else {
		pt_put(out, "%zu action%s in %u tick%s; ", r.nacts, r.nacts == 1 ? "" : "s", active, active == 1 ? "" : "s");
		if (stopped_max)
			pt_put(out, "stopped at --max %llu; the policy had more to do\n", (unsigned long long)budget);
		else if (stopped_ticks)
			pt_put(out, "stopped after %llu ticks without a quiet one\n", (unsigned long long)PT_PLAN_TICKS);
		else
			pt_put(out, "then nothing more: %s%s%s%s\n", note_only && note[0] ? note : pl_status_name(status),
			       !note_only && note[0] ? " (" : "", !note_only && note[0] ? note : "",
			       !note_only && note[0] ? ")" : "");
		if (below.total) { /* on the same line: "balanced; 2 regions below rf 3 left: ..." */
			out->len--;
			pt_put(out, "; ");
			pt_below_rf_text(out, s, &below);
			pt_putc(out, '\n');
		}
		pt_copied_text(out, &r);
		pt_health_text(out, &before.health, r.v, "at risk in the file:");
		pt_health_short_text(out, &after.health, r.v, after.c.eligible);
		if (blocked)
			pt_put(out, "the plan ends blocked: the end state is not balanced%s\n",
			       last_tick.nwhy ? "; what the policy named:" : "");
		pt_blockers_text(out, &last_tick, &after, r.v);
		pt_spread_text(out, &before, r.v, &after, r.v, o->summary);
	}
	if (rc == 0 && o->svg)
		rc = pt_plan_svg(o->svg, "plan", d.path, &before, &after, r.v, &end, e);
	pt_stats_free(&after);
	if (rc == 0 && blocked)
		rc = PT_EXIT_BLOCKED;
out:
	pt_progress_done(o);
	pt_stats_free(&before);
	pt_run_free(&r);
	pt_doc_free(&d);
	return rc;
}
