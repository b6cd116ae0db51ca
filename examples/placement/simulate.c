/*
 * simulate.c - the simulate command: the policy tick after tick, every
 * tick's actions carried out before the next (pl_view_settle()), and the
 * file's events applied at the start of their tick.
 *
 * An event changes the snapshot itself, so the view's shard states are first
 * written back into the run's arrays (pt_run_capture()), the members are
 * changed (a joiner is appended, so every index kept so far stays valid),
 * and a new view is built. Without a tick count the run stops when the
 * policy has nothing more to do and no event is left (after as many quiet
 * ticks as a fleet's cooldown spans), or after PT_SIM_TICKS ticks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "stats.h"

#define PT_SIM_TICKS 1000u

void pt_apply_event(pt_run *r, const pt_event *ev, uint32_t *join_idx, uint32_t ev_index)
{
	if (ev->kind == PT_EV_JOIN) {
		uint32_t m = r->nm++;
		r->members[m] = ev->joiner;
		if (!ev->joined_given)
			r->members[m].joined_at = r->now;
		r->last_move[m] = ev->last_move;
		if (r->capacity)
			r->capacity[m] = ev->capacity;
		join_idx[ev_index] = m;
		return;
	}
	uint32_t m = ev->member & PT_JOINER ? join_idx[ev->member & ~PT_JOINER] : ev->member;
	pl_member *mb = &r->members[m];
	switch (ev->kind) {
	case PT_EV_DRAIN: mb->flags |= PL_MEMBER_DRAINING; break;
	case PT_EV_DOWN: mb->flags |= PL_MEMBER_DOWN; break;
	case PT_EV_LAG: mb->flags |= PL_MEMBER_LAGGING; break;
	default: mb->flags &= ~(uint32_t)(PL_MEMBER_DOWN | PL_MEMBER_DRAINING | PL_MEMBER_LAGGING); break;
	}
}

/* "2 actions: 1 add-replica, 1 set-leader" */
static void actions_words(pt_buf *b, const pt_run *r, size_t from)
{
	size_t n = r->nacts - from;
	if (n == 0) {
		pt_put(b, "no action");
		return;
	}
	if (n <= 3) {
		pt_put(b, "%zu action%s: ", n, n == 1 ? "" : "s");
		for (size_t i = from; i < r->nacts; i++) {
			if (i > from)
				pt_put(b, ", ");
			pt_act_short(b, &r->snap, &r->acts[i].a);
		}
		return;
	}
	uint32_t kinds[16];
	memset(kinds, 0, sizeof kinds);
	for (size_t i = from; i < r->nacts; i++)
		kinds[r->acts[i].a.kind < 16 ? r->acts[i].a.kind : 15]++;
	pt_put(b, "%zu actions:", n);
	int first = 1;
	for (uint32_t k = 0; k < 16; k++)
		if (kinds[k]) {
			pt_put(b, "%s %u %s", first ? "" : ",", kinds[k], pl_action_kind_name(k));
			first = 0;
		}
}

int pt_cmd_simulate(const char *path, const pt_opts *o, pt_buf *out, pt_err *e)
{
	pt_doc d;
	pt_run r;
	uint32_t policy;
	uint32_t *join_idx = NULL;
	memset(&r, 0, sizeof r);
	int rc = pt_load(&d, path, o, e);
	if (rc == 0)
		rc = pt_policy_of(&d, o, &policy, e);
	if (rc == 0)
		rc = pt_run_init(&r, &d, policy, o->member, e);
	if (rc) {
		pt_run_free(&r);
		pt_doc_free(&d);
		return rc;
	}
	uint64_t fixed = o->ticks_given ? o->ticks : pt_setting(&d, PT_SET_TICKS, 0);
	join_idx = pt_alloc(((size_t)d.nev + 1) * sizeof *join_idx);
	uint32_t ev = 0, quiet = 0;
	const char *stopped = "ticks";
	pt_buf ticks_json = {0}, lines = {0}, last_body = {0};
	size_t run_start = 0;
	uint64_t run_len = 0;
	/* the picture: the start, and each member's measure tick by tick */
	pt_stats first_stats;
	pt_stats_compute(&first_stats, r.v, policy, &d);
	pt_series se;
	memset(&se, 0, sizeof se);
	size_t se_cap = 0, so_cap = 0, ev_cap = 0, ev_text_cap = 0;
	se.nm = (uint32_t)r.m_cap;
	/* the other count beside the measure: replicas (the region policy's
	 * measure is replicas: leaders) */
	se.o_name = policy == PT_POLICY_REGION ? "leaders" : "replicas";
	if (o->svg) {
		se.v = pt_grow(NULL, &se_cap, sizeof *se.v, se.nm);
		se.o = pt_grow(NULL, &so_cap, sizeof *se.o, se.nm);
		for (uint32_t m = 0; m < se.nm; m++)
			se.v[m] = se.o[m] = PT_SERIES_NONE;
		for (uint32_t q = 0; q < first_stats.nm; q++) {
			uint32_t val, fl, ce;
			const pt_member_row *row = &first_stats.m[q];
			pt_total_measure(&first_stats, &r.snap, row, &val, &fl, &ce);
			se.v[row->member] = val;
			se.o[row->member] = policy == PT_POLICY_REGION ? row->leaders : row->replicas;
		}
	}
	pt_tick last_tk;
	memset(&last_tk, 0, sizeof last_tk);
	double t0 = pt_now();
	for (uint64_t t = 1;; t++) {
		r.tickno = t;
		pt_buf evw = {0}, evj = {0};
		if (ev < d.nev && d.events[ev].tick == t) {
			pt_run_capture(&r);
			for (; ev < d.nev && d.events[ev].tick == t; ev++) {
				const pt_event *x = &d.events[ev];
				pt_apply_event(&r, x, join_idx, ev);
				pt_put(&evw, "%s%s ", evw.len ? ", " : "", pt_event_name(x->kind));
				pt_put_name(&evw, x->name);
				pt_put(&evj, "%s{\"event\": \"%s\", \"member\": ", evj.len ? ", " : "", pt_event_name(x->kind));
				pt_put_json_bytes(&evj, x->name);
				pt_putc(&evj, '}');
				if (o->svg && se.nev && se.ev_tick[se.nev - 1] == t && strlen(se.ev_text[se.nev - 1]) < 160) {
					/* the tick's events make one mark */
					pt_buf w = {0};
					pt_put(&w, "%s, %s ", se.ev_text[se.nev - 1], pt_event_name(x->kind));
					pt_put_name(&w, x->name);
					free(se.ev_text[se.nev - 1]);
					se.ev_text[se.nev - 1] = w.p;
				} else if (o->svg && se.nev < 64) {
					pt_buf w = {0};
					pt_put(&w, "tick %llu: %s ", (unsigned long long)t, pt_event_name(x->kind));
					pt_put_name(&w, x->name);
					se.ev_tick = pt_grow(se.ev_tick, &ev_cap, sizeof *se.ev_tick, se.nev + 1);
					se.ev_text = pt_grow(se.ev_text, &ev_text_cap, sizeof *se.ev_text, se.nev + 1);
					se.ev_tick[se.nev] = (uint32_t)t;
					se.ev_text[se.nev++] = w.p;
				}
			}
			rc = pt_run_rebuild(&r, e);
			if (rc) {
				pt_buf_free(&evw);
				pt_buf_free(&evj);
				goto out;
			}
		}
		size_t first = r.nacts;
		pt_tick tk;
		memset(&tk, 0, sizeof tk);
		rc = r.ops->tick(&r, 0, &tk, e);
		if (rc) {
			pt_buf_free(&evw);
			pt_buf_free(&evj);
			goto out;
		}
		int settled = pl_view_settle(r.v); /* moves that finish: not quiet */
		quiet = tk.written || settled > 0 ? 0 : r.now >= tk.wait_until ? quiet + 1 : quiet;
		last_tk = tk;
		pt_stats st;
		pt_stats_compute(&st, r.v, policy, &d);
		if (pt_progress_due(o)) {
			/* the total: the ticks asked for, else the limit */
			uint64_t total = fixed ? fixed : PT_SIM_TICKS;
			char left[64];
			pt_progress_left(left, sizeof left, t0, t, total);
			pt_progress(o, "simulated tick %llu of %s%llu, %zu action%s so far; imbalance %llu%s", (unsigned long long)t,
				    fixed ? "" : "at most ", (unsigned long long)total, r.nacts, r.nacts == 1 ? "" : "s",
				    (unsigned long long)st.imbalance, fixed ? left : "");
		}
		/* the tick's measure per member, for the picture (up to a bound
		 * on its size: the chart then ends there) */
		if (o->svg && (uint64_t)(se.ticks + 2) * se.nm <= (UINT64_C(1) << 24)) {
			size_t base = (size_t)(se.ticks + 1) * se.nm;
			se.v = pt_grow(se.v, &se_cap, sizeof *se.v, base + se.nm);
			se.o = pt_grow(se.o, &so_cap, sizeof *se.o, base + se.nm);
			for (uint32_t m = 0; m < se.nm; m++)
				se.v[base + m] = se.o[base + m] = PT_SERIES_NONE;
			for (uint32_t q = 0; q < st.nm; q++) {
				uint32_t val, fl, ce;
				const pt_member_row *row = &st.m[q];
				pt_total_measure(&st, &r.snap, row, &val, &fl, &ce);
				se.v[base + row->member] = val;
				se.o[base + row->member] = policy == PT_POLICY_REGION ? row->leaders : row->replicas;
			}
			se.ticks++;
		}
		if (o->json) {
			pt_put(&ticks_json, "%s\n  {\"tick\": %llu, \"now\": %llu, \"events\": [%s], \"actions\": [",
			       t > 1 ? "," : "", (unsigned long long)t, (unsigned long long)r.now, evj.p ? evj.p : "");
			for (size_t i = first; i < r.nacts; i++) {
				pt_put(&ticks_json, "%s\n   ", i > first ? "," : "");
				pt_act_json(&ticks_json, &r.snap, &r.acts[i], i + 1);
			}
			pt_put(&ticks_json, "], \"status\": \"%s\", \"note\": ", pl_status_name(tk.status));
			pt_put_json_str(&ticks_json, tk.note, strlen(tk.note));
			pt_put(&ticks_json, ", \"measure\": {");
			for (uint32_t q = 0; q < st.nm; q++) {
				const pt_member_row *row = &st.m[q];
				uint32_t val = policy == PT_POLICY_FLEET    ? row->owned
					       : policy == PT_POLICY_REGION ? row->replicas
									    : row->leaders;
				pt_put(&ticks_json, "%s", q ? ", " : "");
				pt_put_json_bytes(&ticks_json, r.snap.members[row->member].id);
				pt_put(&ticks_json, ": %u", val);
			}
			pt_put(&ticks_json, "}, \"%s\": {", se.o_name);
			for (uint32_t q = 0; q < st.nm; q++) {
				const pt_member_row *row = &st.m[q];
				pt_put(&ticks_json, "%s", q ? ", " : "");
				pt_put_json_bytes(&ticks_json, r.snap.members[row->member].id);
				pt_put(&ticks_json, ": %u", policy == PT_POLICY_REGION ? row->leaders : row->replicas);
			}
			pt_put(&ticks_json, "}}");
		} else if (!o->quiet) {
			/* a run of quiet ticks that read the same is one line */
			size_t start = lines.len;
			pt_put(&lines, "tick %3llu", (unsigned long long)t);
			if (policy == PT_POLICY_FLEET)
				pt_put(&lines, " (now %llu)", (unsigned long long)r.now);
			pt_put(&lines, ": ");
			if (evw.len)
				pt_put(&lines, "%s; ", evw.p);
			actions_words(&lines, &r, first);
			pt_put(&lines, " | ");
			pt_stats_line(&lines, &st, r.v);
			/* the status says where the policy stopped: after the
			 * tick's actions when it emitted some */
			const char *after = tk.written ? "then " : "";
			if (tk.note_only && tk.note[0])
				pt_put(&lines, " | %s%s", after, tk.note);
			else if (tk.note[0])
				pt_put(&lines, " | %s%s (%s)", after, pl_status_name(tk.status), tk.note);
			else
				pt_put(&lines, " | %s%s", after, pl_status_name(tk.status));
			pt_putc(&lines, '\n');
			const char *body = strchr(lines.p + start, ':');
			size_t blen = (size_t)(lines.p + lines.len - body);
			if (!evw.len && tk.written == 0 && run_len && blen == last_body.len &&
			    memcmp(body, last_body.p, blen) == 0) {
				/* the same as the line before: widen its range */
				lines.len = run_start;
				run_len++;
				pt_put(&lines, "tick %3llu-%llu", (unsigned long long)(t - run_len + 1), (unsigned long long)t);
				pt_putn(&lines, last_body.p, last_body.len);
			} else {
				run_len = !evw.len && tk.written == 0 ? 1 : 0;
				run_start = start;
				last_body.len = 0;
				pt_putn(&last_body, body, blen);
			}
		}
		pt_stats_free(&st);
		pt_buf_free(&evw);
		pt_buf_free(&evj);
		if (fixed && t >= fixed)
			break;
		if (!fixed && quiet >= r.quiet_ticks && ev == d.nev) {
			stopped = "quiet";
			break;
		}
		if (!fixed && t >= PT_SIM_TICKS) {
			stopped = "limit";
			break;
		}
		r.now += r.tick_len;
	}
	pt_progress_done(o);
	if (o->timing)
		fprintf(stderr, "timing: simulate %.3f s, %zu actions in %llu ticks\n", pt_now() - t0, r.nacts,
			(unsigned long long)r.tickno);
	pt_stats fin;
	pt_stats_compute(&fin, r.v, policy, &d);
	if (o->svg) {
		pt_buf svg = {0};
		char title[512];
		char after[64];
		snprintf(title, sizeof title, "placement simulate %s: %llu ticks", d.path, (unsigned long long)r.tickno);
		snprintf(after, sizeof after, "after tick %llu", (unsigned long long)r.tickno);
		/* what the last tick named as blocked marks its members */
		if (!pt_status_blocks(last_tk.status))
			last_tk.nwhy = 0;
		pt_svg_before_after(&svg, &first_stats, &fin, r.v, title, "at the start", after, &se, &last_tk);
		rc = pt_write_file(o->svg, &svg, e);
		pt_buf_free(&svg);
	}
	if (rc == 0 && o->out) {
		/* the final layout: members as they are now, no events left, the
		 * clock where the run stopped */
		pt_buf f = {0};
		pt_doc copy = d;
		copy.set[PT_SET_NOW].given = 1;
		copy.set[PT_SET_NOW].value = r.now;
		rc = pt_run_sync(&r, e);
		if (rc == 0) {
			pt_stats_free(&fin);
			pt_stats_compute(&fin, r.v, policy, &d);
			pt_format_text(&f, &copy, &r.snap, r.last_move, r.v, 0);
			rc = pt_write_file(o->out, &f, e);
		}
		pt_buf_free(&f);
	}
	if (rc == 0) {
		size_t active = 0;
		uint64_t last = 0;
		pt_below_rf below;
		pt_region_below_rf(&r, &below);
		for (size_t i = 0; i < r.nacts; i++)
			if (r.acts[i].tick != last) {
				last = r.acts[i].tick;
				active++;
			}
		if (o->json) {
			pt_put(out, "{\"policy\": \"%s\", \"config\": ", pt_policy_name(policy));
			pt_buf c = {0};
			r.ops->config_json(&r, &c);
			pt_putn(out, c.p, c.len);
			pt_buf_free(&c);
			pt_put(out, ", \"member\": ");
			if (r.self != PL_NONE)
				pt_put_json_bytes(out, r.snap.members[r.self].id);
			else
				pt_put(out, "null");
			pt_put(out, ", \"tick_length\": %llu,\n \"ticks\": [%s],\n \"ran\": %llu, \"actions\": %zu, "
				    "\"active_ticks\": %zu, \"stopped\": \"%s\",\n \"final\": ",
			       (unsigned long long)r.tick_len, ticks_json.p ? ticks_json.p : "", (unsigned long long)r.tickno,
			       r.nacts, active, stopped);
			pt_stats_json(out, &fin, r.v);
			if (policy == PT_POLICY_REGION) {
				pt_put(out, ",\n \"below_rf\": ");
				pt_below_rf_json(out, &r.snap, &below);
			}
			pt_put(out, "}\n");
		} else {
			pt_put(out, "simulate: the %s policy (", pt_policy_name(policy));
			pt_buf c = {0};
			r.ops->config_json(&r, &c);
			pt_config_words(out, c.p, c.len);
			pt_buf_free(&c);
			pt_put(out, "); %u event%s\n", d.nev, d.nev == 1 ? "" : "s");
			if (lines.len)
				pt_putn(out, lines.p, lines.len);
			pt_put(out, "%llu tick%s, %zu action%s in %zu of them; ", (unsigned long long)r.tickno,
			       r.tickno == 1 ? "" : "s", r.nacts, r.nacts == 1 ? "" : "s", active);
			if (strcmp(stopped, "quiet") == 0)
				pt_put(out, "stopped: nothing more to do and no event left\n\n");
			else if (strcmp(stopped, "limit") == 0)
				pt_put(out, "stopped at the limit of %u ticks (give --ticks)\n\n", PT_SIM_TICKS);
			else
				pt_put(out, "ran the ticks asked for\n\n");
			if (below.total) {
				out->len -= 1; /* "...\n; 2 regions below rf 3 left: ...\n\n" */
				pt_put(out, "at the end, ");
				pt_below_rf_text(out, &r.snap, &below);
				pt_put(out, "\n\n");
			}
			pt_stats_text(out, &fin, r.v, 1);
		}
	}
	pt_stats_free(&fin);
out:
	pt_stats_free(&first_stats);
	free(se.v);
	for (uint32_t i = 0; i < se.nev; i++)
		free(se.ev_text[i]);
	free(se.ev_text);
	free(se.ev_tick);
	free(se.o);
	pt_buf_free(&ticks_json);
	pt_buf_free(&lines);
	pt_buf_free(&last_body);
	free(join_idx);
	pt_run_free(&r);
	pt_doc_free(&d);
	return rc;
}
