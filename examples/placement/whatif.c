/*
 * whatif.c - plan with a change (--add-member, --drain, --down): the plan
 * of the layout with the change beside the plan of the layout as it is, in
 * one command.
 *
 * A layout whose spread is already off moves without any change, so what
 * a change costs is the difference of two plans, not the plan of the
 * change. Both plans run from the same file with the same settings: the
 * first on the file's layout, the second on it after the changes (a
 * member joins, drains or goes down, in the order given), each until its
 * first quiet tick or --max actions, as plan runs. Each is counted (its
 * actions, the copies among them, the hand-offs, the shards they touch,
 * the actions by kind), with how it ends and the spread and imbalance
 * before and after it; a plan that ends blocked names what blocks it, as
 * plan does (pt_blockers_text()).
 *
 * A change is read as an event of the file at tick 1 (placement(5), `at`),
 * so it is checked and named the same way; the events are dropped from the
 * document once both runs are built, so nothing else sees them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "stats.h"

/* What one plan did, counted. */
typedef struct plan_sum {
	pt_plan_end end;
	size_t copies, handoffs, other, shards;
	uint32_t kinds[8];
	pt_stats before, after;
} plan_sum;

static const char *const change_word[] = {"", "join", "drain", "down"};

static void count(plan_sum *p, const pt_run *r)
{
	uint8_t *seen = calloc(r->d->nk ? r->d->nk : 1, 1);
	if (seen == NULL)
		pt_oom();
	for (size_t i = 0; i < r->nacts; i++) {
		const pl_action *a = &r->acts[i].a;
		p->kinds[a->kind < 8 ? a->kind : 7]++;
		if (a->flags & PL_ACTION_STAGE_FIRST)
			p->copies++;
		else if (a->kind == PL_ACTION_SET_LEADER || a->kind == PL_ACTION_MOVE_LEADER)
			p->handoffs++;
		else
			p->other++;
		if (a->shard < r->d->nk && !seen[a->shard]) {
			seen[a->shard] = 1;
			p->shards++;
		}
	}
	free(seen);
}

/* One plan, from the run's view as it is now. */
static int run_plan(pt_run *r, const pt_opts *o, uint32_t policy, plan_sum *p, pt_err *e)
{
	pt_stats_compute(&p->before, r->v, policy, r->d);
	int rc = pt_plan_run(r, o, o->max_given ? o->max : 0, NULL, 1, &p->end, e);
	if (rc == 0) {
		pt_stats_compute(&p->after, r->v, policy, r->d);
		count(p, r);
	}
	return rc;
}

static const char *ends_word(const plan_sum *p)
{
	return p->end.stopped_max ? "cut at --max" : p->end.stopped_ticks ? "tick limit" : pl_status_name(p->end.status);
}

static void kinds_text(pt_buf *b, const plan_sum *p)
{
	int first = 1;
	for (uint32_t k = 0; k < 8; k++)
		if (p->kinds[k]) {
			pt_put(b, "%s%u %s", first ? "" : ", ", p->kinds[k], pl_action_kind_name(k));
			first = 0;
		}
	if (first)
		pt_put(b, "none");
}

static void sum_json(pt_buf *b, const plan_sum *p, const pl_view *v)
{
	pt_put(b, "{\"count\": %zu, \"copies\": %zu, \"handoffs\": %zu, \"other\": %zu, \"shards\": %zu, \"kinds\": {",
	       p->end.actions, p->copies, p->handoffs, p->other, p->shards);
	int first = 1;
	for (uint32_t k = 0; k < 8; k++)
		if (p->kinds[k]) {
			pt_put(b, "%s\"%s\": %u", first ? "" : ", ", pl_action_kind_name(k), p->kinds[k]);
			first = 0;
		}
	pt_put(b, "}, \"ticks\": %u, \"stopped\": \"%s\", \"status\": \"%s\", \"blocked\": %s, \"blockers\": ",
	       p->end.active, p->end.stopped_max ? "max" : p->end.stopped_ticks ? "ticks" : "quiet",
	       pl_status_name(p->end.status), p->end.blocked ? "true" : "false");
	if (p->end.blocked)
		pt_blockers_json(b, &p->end.last, &p->after, v);
	else
		pt_put(b, "[]");
	pt_put(b, ",\n  \"imbalance_before\": %llu, \"imbalance_after\": %llu,\n  \"before\": ",
	       (unsigned long long)p->before.imbalance, (unsigned long long)p->after.imbalance);
	pt_stats_json(b, &p->before, v);
	b->len--; /* its newline */
	pt_put(b, ",\n  \"after\": ");
	pt_stats_json(b, &p->after, v);
	b->len--;
	pt_put(b, "}");
}

/* A plan that ends blocked: what blocks it, as plan says it. */
static void blocked_text(pt_buf *b, const char *which, const plan_sum *p, const pl_view *v)
{
	if (!p->end.blocked)
		return;
	pt_put(b, "\n%s, the plan ends blocked (%s)%s\n", which, pl_status_name(p->end.status),
	       p->end.last.nwhy ? "; what the policy named:" : "");
	pt_blockers_text(b, &p->end.last, &p->after, v);
}

/* A row of the table: a label and the two plans' numbers. */
static void row(pt_buf *b, const char *label, unsigned long long x, unsigned long long y)
{
	pt_put(b, "  %-22s %14llu %16llu\n", label, x, y);
}

static void sum_text(pt_buf *b, const plan_sum *a, const pl_view *va, const plan_sum *c, const pl_view *vc)
{
	pt_put(b, "  %-22s %14s %16s\n", "", "as it is", "with the change");
	row(b, "actions", a->end.actions, c->end.actions);
	row(b, "  copies (data)", a->copies, c->copies);
	row(b, "  hand-offs (leaders)", a->handoffs, c->handoffs);
	if (a->other || c->other)
		row(b, "  other", a->other, c->other);
	row(b, "shards touched", a->shards, c->shards);
	row(b, "ticks", a->end.active, c->end.active);
	row(b, "imbalance before", a->before.imbalance, c->before.imbalance);
	row(b, "imbalance after", a->after.imbalance, c->after.imbalance);
	pt_put(b, "  %-22s %14s %16s\n", "ends", ends_word(a), ends_word(c));
	pt_put(b, "\nas it is: ");
	kinds_text(b, a);
	pt_put(b, "\n  before: ");
	pt_stats_line(b, &a->before, va);
	pt_put(b, "\n  after:  ");
	pt_stats_line(b, &a->after, va);
	pt_put(b, "\nwith the change: ");
	kinds_text(b, c);
	pt_put(b, "\n  before: ");
	pt_stats_line(b, &c->before, vc);
	pt_put(b, "\n  after:  ");
	pt_stats_line(b, &c->after, vc);
	pt_putc(b, '\n');
	blocked_text(b, "as it is", a, va);
	blocked_text(b, "with the change", c, vc);
}

int pt_cmd_whatif(const char *path, const pt_opts *o, pt_buf *out, pt_err *e)
{
	pt_doc d;
	pt_run a, c;
	uint32_t policy;
	plan_sum pa, pc;
	memset(&a, 0, sizeof a);
	memset(&c, 0, sizeof c);
	memset(&pa, 0, sizeof pa);
	memset(&pc, 0, sizeof pc);
	uint32_t *join_idx = NULL;
	int rc = pt_load(&d, path, o, e);
	/* the file's events are not the plan's: set aside, the changes alone
	 * are the document's events until the runs are built */
	pt_event *file_ev = d.events;
	uint32_t file_nev = d.nev;
	size_t file_cap = d.ev_cap;
	d.events = NULL;
	d.nev = 0;
	d.ev_cap = 0;
	const uint32_t ev0 = 0;
	/* the changes, as events at tick 1 */
	for (int i = 0; rc == 0 && i < o->nchanges; i++) {
		const pt_change *ch = &o->changes[i];
		size_t n = strlen(ch->arg);
		char *text = pt_alloc(n + 16);
		snprintf(text, n + 16, "1 %s %s", change_word[ch->kind], ch->arg);
		if (pt_parse_event(&d, text, e)) {
			char msg[sizeof e->msg], sb[80];
			static const char *const opt[] = {"", "--add-member", "--drain", "--down"};
			const char *m = e->msg;
			if (strncmp(m, "--event: ", 9) == 0)
				m += 9;
			snprintf(msg, sizeof msg, "%s %s: %.600s", opt[ch->kind], pt_show_arg(ch->arg, sb, sizeof sb), m);
			memcpy(e->msg, msg, sizeof msg);
			e->line = 0;
			e->arg = 1;
			rc = -1;
		}
		free(text);
	}
	if (rc == 0)
		rc = pt_policy_of(&d, o, &policy, e);
	if (rc == 0)
		rc = pt_run_init(&a, &d, policy, o->member, e);
	if (rc == 0)
		rc = pt_run_init(&c, &d, policy, o->member, e);
	if (rc)
		goto out;
	/* the change, on the second run only */
	join_idx = pt_alloc(((size_t)d.nev + 1) * sizeof *join_idx);
	for (uint32_t i = ev0; i < d.nev; i++)
		pt_apply_event(&c, &d.events[i], join_idx, i);
	rc = pt_run_rebuild(&c, e);
	if (rc)
		goto out;
	rc = run_plan(&a, o, policy, &pa, e);
	if (rc == 0)
		rc = run_plan(&c, o, policy, &pc, e);
	if (rc)
		goto out;
	if (o->json) {
		pt_put(out, "{\"what_if\": {\"policy\": \"%s\", \"changes\": [", pt_policy_name(policy));
		for (uint32_t i = ev0; i < d.nev; i++) {
			const pt_event *ev = &d.events[i];
			pt_put(out, "%s{\"change\": \"%s\", \"member\": ", i > ev0 ? ", " : "", pt_event_name(ev->kind));
			pt_put_json_bytes(out, ev->name);
			if (ev->kind == PT_EV_JOIN) {
				pt_put(out, ", \"zone\": ");
				pt_put_json_bytes(out, ev->joiner.zone);
				pt_put(out, ", \"weight\": %u", ev->joiner.weight ? ev->joiner.weight : 1);
			}
			pt_put(out, "}");
		}
		pt_put(out, "],\n \"as_is\": ");
		sum_json(out, &pa, a.v);
		pt_put(out, ",\n \"changed\": ");
		sum_json(out, &pc, c.v);
		pt_put(out, ",\n \"difference\": {\"count\": %lld, \"copies\": %lld, \"handoffs\": %lld}}}\n",
		       (long long)pc.end.actions - (long long)pa.end.actions, (long long)pc.copies - (long long)pa.copies,
		       (long long)pc.handoffs - (long long)pa.handoffs);
	} else {
		pt_put(out, "what-if: the %s policy's plan with ", pt_policy_name(policy));
		for (uint32_t i = ev0; i < d.nev; i++) {
			const pt_event *ev = &d.events[i];
			pt_put(out, "%s%s ", i > ev0 ? ", " : "", pt_event_name(ev->kind));
			pt_put_name(out, ev->name);
			if (ev->kind == PT_EV_JOIN) {
				pt_put(out, " (zone ");
				if (ev->joiner.zone.len)
					pt_put_name(out, ev->joiner.zone);
				else
					pt_put(out, "none");
				if (ev->joiner.weight > 1)
					pt_put(out, ", weight %u", ev->joiner.weight);
				pt_put(out, ")");
			}
		}
		pt_put(out, ", beside its plan as it is\n\n");
		sum_text(out, &pa, a.v, &pc, c.v);
		long long dx = (long long)pc.end.actions - (long long)pa.end.actions;
		pt_put(out, "\nthe change against doing nothing: %+lld action%s, %+lld copies, %+lld hand-offs\n", dx,
		       dx == 1 || dx == -1 ? "" : "s", (long long)pc.copies - (long long)pa.copies,
		       (long long)pc.handoffs - (long long)pa.handoffs);
	}
	if (pc.end.blocked)
		rc = PT_EXIT_BLOCKED;
out:
	pt_progress_done(o);
	free(join_idx);
	pt_stats_free(&pa.before);
	pt_stats_free(&pa.after);
	pt_stats_free(&pc.before);
	pt_stats_free(&pc.after);
	pt_run_free(&a);
	pt_run_free(&c);
	free(d.events);
	d.events = file_ev;
	d.nev = file_nev;
	d.ev_cap = file_cap;
	pt_doc_free(&d);
	return rc;
}
