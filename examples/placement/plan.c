/*
 * plan.c - running a policy over ticks, and the plan command (a dry run).
 *
 * How it works. A run owns a copy of the document's snapshot arrays and a
 * view of them. A tick asks the policy's adapter (broker.c, fleet.c,
 * region.c) to decide on the view; the library applies every action it
 * emits to the view at once, so later decisions in the tick see them. Between
 * ticks pl_view_settle() finishes the moves in flight, which is what the next
 * tick's snapshot would show if every action were carried out. The view is
 * rebuilt from its own shard states (pl_view_shard_state()) only when the
 * snapshot itself must change: an event of a simulation, or --out. Member and
 * shard indices never change during a run (members are only appended), so
 * every action kept can be explained against the run's last snapshot.
 *
 * plan stops at the first quiet tick (for a fleet whose tick is shorter than
 * its cooldown, after as many quiet ticks as a cooldown spans), at --max
 * actions, or after PT_PLAN_TICKS ticks, and says which.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

#define PT_PLAN_TICKS UINT64_C(100000)

const pt_policy_ops *pt_policy_ops_of(uint32_t policy)
{
	switch (policy) {
	case PT_POLICY_BROKER: return pt_broker_ops.tick ? &pt_broker_ops : NULL;
	case PT_POLICY_FLEET: return pt_fleet_ops.tick ? &pt_fleet_ops : NULL;
	case PT_POLICY_REGION: return pt_region_ops.tick ? &pt_region_ops : NULL;
	default: return NULL;
	}
}

uint64_t pt_setting(const pt_doc *d, uint32_t which, uint64_t def)
{
	return d->set[which].given ? d->set[which].value : def;
}

/* ---- errors of a policy call ------------------------------------------------- */

int pt_config_error(const pt_run *r, const char *policy, int rc, const pl_diag *dg, const uint32_t *fields,
		    uint32_t nfields, pt_err *e)
{
	if (dg->kind == PL_ELEM_CONFIG && dg->index < nfields && fields[dg->index] < PT_SET_COUNT) {
		uint32_t s = fields[dg->index];
		const pt_set *set = &r->d->set[s];
		const char *range = pt_settings[s].range;
		if (set->given)
			return pt_fail(e, set->line, "set %s=%llu: the %s policy refuses it: %s%s%s [PL_%s]",
				       pt_settings[s].name, (unsigned long long)set->value, policy, pl_strerror(rc),
				       range ? "; allowed: " : "", range ? range : "", pl_error_name(rc));
		return pt_fail(e, 0, "the %s policy refuses %s (its default): %s%s%s [PL_%s]", policy, pt_settings[s].name,
			       pl_strerror(rc), range ? "; allowed: " : "", range ? range : "", pl_error_name(rc));
	}
	return pt_fail(e, 0, "the %s policy refuses its configuration (field %u): %s [PL_%s]", policy, dg->index,
		       pl_strerror(rc), pl_error_name(rc));
}

int pt_policy_error(const pt_run *r, const char *what, int rc, const pl_diag *dg, pt_err *e)
{
	if (dg->kind >= PL_ELEM_MEMBER && dg->kind <= PL_ELEM_OVERRIDE) {
		pt_diag_error(r->d, &r->snap, rc, dg, e);
		char msg[sizeof e->msg];
		int n = snprintf(msg, sizeof msg, "%s: ", what);
		snprintf(msg + n, sizeof msg - (size_t)n, "%.700s", e->msg);
		memcpy(e->msg, msg, sizeof msg);
		return -1;
	}
	if (rc == PL_E_NO_ELIGIBLE)
		return pt_fail(e, 0, "%s: no eligible member: every member is down or draining [PL_%s]", what,
			       pl_error_name(rc));
	return pt_fail(e, 0, "%s: %s [PL_%s]", what, pl_strerror(rc), pl_error_name(rc));
}

int pt_status_blocks(uint32_t status)
{
	switch (status) {
	case PL_STATUS_PAUSED:
	case PL_STATUS_MOVE_LIMIT:
	case PL_STATUS_BLOCKED_ZONES:
	case PL_STATUS_BLOCKED_CAPS:
	case PL_STATUS_PROPOSALS_OFF:
	case PL_STATUS_STALLED:
	case PL_STATUS_IN_FLIGHT:
		return 1;
	default:
		return 0;
	}
}

void pt_tick_blocker(pt_tick *t, uint32_t status, uint32_t shard, uint32_t stream, uint32_t member, const char *word)
{
	for (uint32_t i = 0; i < t->nwhy; i++)
		if (t->why[i].status == status && t->why[i].shard == shard && t->why[i].stream == stream &&
		    t->why[i].member == member)
			return;
	if (t->nwhy < PT_MAX_BLOCKERS)
		t->why[t->nwhy++] = (pt_blocker){status, shard, stream, member, word};
}

int pt_tick_no_eligible(pt_tick *t)
{
	/* A layout where every member is down or draining is not bad input:
	 * the policy can do nothing, and says so. */
	snprintf(t->note, sizeof t->note, "no eligible member: every member is down or draining");
	t->note_only = 1;
	t->status = PL_STATUS_STALLED;
	return 0;
}

/* ---- a run ---------------------------------------------------------------------- */

static int build_view(pt_run *r, pt_err *e)
{
	free(r->mem);
	r->mem = NULL;
	r->v = NULL;
	r->snap = (pl_snapshot){r->members, r->d->streams, r->shards, r->ov, NULL, r->nm, r->d->ns, r->d->nk, r->no, 0};
	r->mem_size = pl_view_size(&r->snap);
	return pt_view(r->d, &r->snap, &r->v, &r->mem, e);
}

int pt_run_init(pt_run *r, const pt_doc *d, uint32_t policy, const char *member, pt_err *e)
{
	memset(r, 0, sizeof *r);
	r->d = d;
	r->self = PL_NONE;
	r->nm = d->nm;
	r->m_cap = (size_t)d->nm + d->nev + 1;
	r->members = pt_alloc(r->m_cap * sizeof *r->members);
	r->last_move = pt_alloc(r->m_cap * sizeof *r->last_move);
	if (d->nm) {
		memcpy(r->members, d->members, (size_t)d->nm * sizeof *r->members);
		memcpy(r->last_move, d->m_last_move, (size_t)d->nm * sizeof *r->last_move);
	}
	r->shards = pt_alloc(((size_t)d->nk + 1) * sizeof *r->shards);
	if (d->nk)
		memcpy(r->shards, d->shards, (size_t)d->nk * sizeof *r->shards);
	r->o_cap = (size_t)d->no + 1;
	r->ov = pt_alloc(r->o_cap * sizeof *r->ov);
	r->no = d->no;
	if (d->no)
		memcpy(r->ov, d->overrides, (size_t)d->no * sizeof *r->ov);
	/* the snapshot is checked first, then what the policy needs */
	if (build_view(r, e))
		return -1;
	if ((member || d->set[PT_SET_SELF].given) && policy != PT_POLICY_FLEET)
		return pt_fail(e, member ? 0 : d->set[PT_SET_SELF].line,
			       "%s names the member that decides, which only the fleet policy has (the policy is %s)",
			       member ? "--member" : "set self=", pt_policy_name(policy));
	r->ops = pt_policy_ops_of(policy);
	if (r->ops == NULL)
		return pt_fail(e, 0, "the %s policy is not in this build of libplacement", pt_policy_name(policy));
	if (member) {
		char *id;
		size_t len;
		if (pt_decode_arg(member, &id, &len, e))
			return -1;
		int64_t m = pt_find_member(d, id, len);
		free(id);
		if (m < 0)
			return pt_fail(e, 0, "--member %s: no such member in the file", member);
		r->self = (uint32_t)m;
	} else if (d->set[PT_SET_SELF].given) {
		r->self = (uint32_t)d->set[PT_SET_SELF].value;
	}
	r->now = pt_setting(d, PT_SET_NOW, 0);
	r->tick_len = 1;
	r->quiet_ticks = 1;
	return r->ops->prepare(r, e);
}

void pt_run_free(pt_run *r)
{
	if (r->ops && r->ops->done)
		r->ops->done(r);
	free(r->members);
	free(r->last_move);
	free(r->shards);
	free(r->ov);
	free(r->mem);
	free(r->acts);
	memset(r, 0, sizeof *r);
}

void pt_run_add(pt_run *r, const pl_action *a, uint32_t member)
{
	size_t slot = r->nacts - r->acts_base;
	r->acts = pt_grow(r->acts, &r->acts_cap, sizeof *r->acts, slot + 1);
	pt_act *x = &r->acts[slot];
	r->nacts++;
	x->a = *a;
	x->tick = r->tickno;
	x->member = member;
	x->pad_ = 0;
}

int pt_run_rebuild(pt_run *r, pt_err *e)
{
	return build_view(r, e);
}

void pt_run_capture(pt_run *r)
{
	uint32_t no = 0;
	for (uint32_t k = 0; k < r->d->nk; k++) {
		pl_shard_state ss;
		pl_view_shard_state(r->v, k, &ss);
		if (ss.override_member != PL_NONE)
			no++;
	}
	r->ov = pt_grow(r->ov, &r->o_cap, sizeof *r->ov, (size_t)no + 1);
	r->no = 0;
	for (uint32_t k = 0; k < r->d->nk; k++) {
		pl_shard_state ss;
		pl_shard *s = &r->shards[k];
		pl_view_shard_state(r->v, k, &ss);
		s->leader = ss.leader;
		s->moving_to = PL_NONE;
		s->replica_count = ss.replica_count;
		for (uint32_t j = 0; j < PL_MAX_REPLICAS; j++)
			s->replicas[j] = j < ss.replica_count ? ss.replicas[j] : 0;
		if (ss.override_member != PL_NONE)
			r->ov[r->no++] = (pl_override){ss.override_since, k, ss.override_member, ss.override_origin};
	}
}

int pt_run_sync(pt_run *r, pt_err *e)
{
	pt_run_capture(r);
	return build_view(r, e);
}

/* ---- actions as text and JSON ------------------------------------------------------ */

/* The library's sentence names ids as their bytes: a control byte in an id
 * would reach the terminal, so those are written as %XX, as in the file. */
static void put_sentence(pt_buf *b, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c < 0x20 || c == 0x7f)
			pt_put(b, "%%%02X", c);
		else
			pt_putc(b, (char)c);
	}
}

static void explain(pt_buf *b, const pl_snapshot *s, const pl_action *a)
{
	char buf[512];
	int n = pl_action_explain(s, a, buf, sizeof buf);
	if (n < 0) {
		pt_put(b, "%s of shard %u (%s)", pl_action_kind_name(a->kind), a->shard, pl_reason_name(a->reason));
		return;
	}
	if ((size_t)n < sizeof buf) {
		put_sentence(b, buf, (size_t)n);
		return;
	}
	char *big = pt_alloc((size_t)n + 1);
	pl_action_explain(s, a, big, (size_t)n + 1);
	put_sentence(b, big, (size_t)n);
	free(big);
}

static void json_member(pt_buf *b, const pl_snapshot *s, uint32_t m)
{
	if (m == PL_NONE || m >= s->n_members)
		pt_put(b, "null");
	else
		pt_put_json_bytes(b, s->members[m].id);
}

void pt_act_json(pt_buf *b, const pl_snapshot *s, const pt_act *x, size_t n)
{
	const pl_action *a = &x->a;
	pt_put(b, "{\"n\": %zu, \"tick\": %llu, \"member\": ", n, (unsigned long long)x->tick);
	json_member(b, s, x->member);
	pt_put(b, ", \"kind\": \"%s\", \"reason\": \"%s\", \"shard\": ", pl_action_kind_name(a->kind),
	       pl_reason_name(a->reason));
	pt_put_json_bytes(b, s->shards[a->shard].key);
	pt_put(b, ", \"stream\": ");
	if (a->stream != PL_NONE && a->stream < s->n_streams)
		pt_put_json_bytes(b, s->streams[a->stream].id);
	else
		pt_put(b, "null");
	pt_put(b, ", \"from\": ");
	json_member(b, s, a->from);
	pt_put(b, ", \"to\": ");
	json_member(b, s, a->to);
	pt_put(b, ", \"stage_first\": %s", a->flags & PL_ACTION_STAGE_FIRST ? "true" : "false");
	if (a->kind == PL_ACTION_SET_OVERRIDE || a->kind == PL_ACTION_DROP_OVERRIDE)
		pt_put(b, ", \"origin\": \"%s\"", a->origin == PL_ORIGIN_COUNT ? "count" : "lag");
	else
		pt_put(b, ", \"origin\": null");
	pt_put(b, ", \"scope\": %u, \"tier\": %u, \"from_count\": %u, \"to_count\": %u, \"floor\": %u, \"ceiling\": %u, "
		  "\"share\": %u, \"total\": %u, \"at\": %llu, \"load\": %llu, \"explain\": ",
	       a->scope, a->tier, a->from_count, a->to_count, a->floor, a->ceiling, a->share, a->total,
	       (unsigned long long)a->at, (unsigned long long)a->load);
	pt_buf t = {0};
	explain(&t, s, a);
	pt_put_json_str(b, t.p ? t.p : "", t.len);
	pt_buf_free(&t);
	pt_putc(b, '}');
}

void pt_act_text(pt_buf *b, const pl_snapshot *s, const pt_act *x, size_t n)
{
	pt_put(b, "  %3zu. ", n);
	if (x->member != PL_NONE) {
		pt_putc(b, '[');
		pt_put_name(b, s->members[x->member].id);
		pt_put(b, "] ");
	}
	explain(b, s, &x->a);
	pt_putc(b, '\n');
}

/* "move-leader pq/03 b2->b0" */
void pt_act_short(pt_buf *b, const pl_snapshot *s, const pl_action *a)
{
	pt_put(b, "%s ", pl_action_kind_name(a->kind));
	pt_put_name(b, s->shards[a->shard].key);
	pt_putc(b, ' ');
	if (a->from != PL_NONE && a->from < s->n_members)
		pt_put_name(b, s->members[a->from].id);
	pt_put(b, "->");
	if (a->to != PL_NONE && a->to < s->n_members)
		pt_put_name(b, s->members[a->to].id);
}

/* ---- the spread before and after --------------------------------------------------- */

void pt_spread_text(pt_buf *b, const pt_stats *x, const pl_view *vx, const pt_stats *y, const pl_view *vy, int all)
{
	pt_put(b, "\nspread before and after\n  before: ");
	pt_stats_line(b, x, vx);
	pt_put(b, "\n  after:  ");
	pt_stats_line(b, y, vy);
	pt_putc(b, '\n');
	/* the streams whose spread changed or is still uneven (both views list
	 * the same streams in the same canonical order) */
	const pl_snapshot *s = pl_view_snapshot(vy);
	uint32_t shown = 0, more = 0;
	for (uint32_t r = 0; r < y->ns && r < x->ns; r++) {
		const pt_stream_row *a = &x->s[r], *c = &y->s[r];
		int changed = a->min_leaders != c->min_leaders || a->max_leaders != c->max_leaders || a->over != c->over ||
			      a->under != c->under;
		if (!changed && !(c->over || c->under))
			continue;
		if (shown == 40 && !all) {
			more++;
			continue;
		}
		shown++;
		pt_put(b, "  stream ");
		pt_put_name(b, s->streams[c->stream].id);
		pt_put(b, ": %s ", y->owned_valid ? "owned" : "leaders");
		pt_stream_words(b, x, vx, a);
		if (a->over || a->under)
			pt_put(b, " (%u over, %u under)", a->over, a->under);
		pt_put(b, " -> ");
		pt_stream_words(b, y, vy, c);
		if (c->over || c->under)
			pt_put(b, " (%u over, %u under)", c->over, c->under);
		else
			pt_put(b, " (within bounds)");
		pt_putc(b, '\n');
	}
	if (more)
		pt_put(b, "  ... and %u more streams\n", more);
}

void pt_config_words(pt_buf *b, const char *json, size_t n)
{
	/* the JSON object's fields as words: {"a": 1, "b": true} -> a 1, b on */
	for (size_t i = 0; i < n; i++) {
		char c = json[i];
		if (c == '{' || c == '}' || c == '"' || c == ':')
			continue;
		if (strncmp(json + i, "true", 4) == 0 && (i + 4 == n || json[i + 4] == ',' || json[i + 4] == '}')) {
			pt_put(b, "on");
			i += 3;
		} else if (strncmp(json + i, "false", 5) == 0 && (i + 5 == n || json[i + 5] == ',' || json[i + 5] == '}')) {
			pt_put(b, "off");
			i += 4;
		} else {
			pt_putc(b, c);
		}
	}
}

/* ---- what blocks a plan --------------------------------------------------------------- */

/* The stream's row of the stats, or NULL. */
static const pt_stream_row *stream_row(const pt_stats *st, uint32_t stream)
{
	for (uint32_t r = 0; r < st->ns; r++)
		if (st->s[r].stream == stream)
			return &st->s[r];
	return NULL;
}

/* The members a blocker involves: a shard's replicas (leader first), a
 * stream's eligible members outside its bounds, or the member named. */
static uint32_t blocker_members(const pt_blocker *w, const pt_stats *st, const pl_view *v, uint32_t *out,
				uint32_t cap)
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
	}
	return n;
}

static void blockers_text(pt_buf *b, const pt_tick *t, const pt_stats *st, const pl_view *v)
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
		} else if (w->member == PL_NONE) {
			pt_put(b, " the cluster as a whole");
		}
		if (w->word)
			pt_put(b, ": %s", w->word);
		if (w->member != PL_NONE) {
			pt_put(b, "%s member ", w->shard != PL_NONE || w->stream != PL_NONE || w->word ? "," : "");
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

static void blockers_json(pt_buf *b, const pt_tick *t, const pt_stats *st, const pl_view *v)
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
		uint32_t ms[PL_MAX_REPLICAS + 65];
		uint32_t n = blocker_members(w, st, v, ms, (uint32_t)(sizeof ms / sizeof ms[0]));
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
	if (rc == 0 && (o->kafka_reassignment || o->kafka_election))
		rc = pt_kafka_check(&d, e);
	if (rc) {
		pt_run_free(&r);
		pt_doc_free(&d);
		return rc;
	}
	/* A plan changes no member, so the stats before can be read against
	 * the view after (names, states and weights are the same). */
	pt_stats before, after;
	pt_stats_compute(&before, r.v, policy);
	uint64_t budget = o->max_given ? o->max : 0;
	uint32_t quiet = 0, active = 0, status = PL_STATUS_BALANCED;
	int stopped_max = 0, stopped_ticks = 0;
	/* text: ticks are written as they are planned, and (without JSON or
	 * a Kafka file, which need them all) not kept */
	int streaming = !o->json, keep = o->json;
	char note[192] = "";
	int note_only = 0;
	pt_tick last_tick;
	memset(&last_tick, 0, sizeof last_tick);
	if (streaming) {
		plan_header(out, &r, policy);
		flush_out(out, o);
	}
	double t0 = pt_now();
	for (;;) {
		pt_tick t;
		memset(&t, 0, sizeof t);
		r.tickno++;
		size_t first = r.nacts;
		rc = r.ops->tick(&r, budget ? budget - r.nacts : 0, &t, e);
		if (rc)
			goto out;
		pl_view_settle(r.v);
		status = t.status;
		last_tick = t;
		note_only = t.note_only;
		memcpy(note, t.note, sizeof note);
		if (t.written) {
			active++;
			quiet = 0;
		} else if (r.now >= t.wait_until) {
			quiet++;
		}
		if (streaming && !o->summary && r.nacts > first) {
			pt_put(out, "tick %llu\n", (unsigned long long)r.tickno);
			for (size_t i = first; i < r.nacts; i++)
				pt_act_text(out, &r.snap, &r.acts[i - r.acts_base], i + 1);
			flush_out(out, o);
		}
		if (!keep)
			r.acts_base = r.nacts; /* written: the array is reused */
		pt_progress(o, "planned tick %llu, %zu actions so far", (unsigned long long)r.tickno, r.nacts);
		if ((budget && r.nacts >= budget) || t.full_stop) {
			stopped_max = 1;
			break;
		}
		if (quiet >= r.quiet_ticks)
			break;
		if (r.tickno >= PT_PLAN_TICKS) {
			stopped_ticks = 1;
			break;
		}
		r.now += r.tick_len;
	}
	pt_progress_done(o);
	if (o->timing)
		fprintf(stderr, "timing: plan %.3f s, %zu actions in %llu ticks\n", pt_now() - t0, r.nacts,
			(unsigned long long)r.tickno);
	pt_stats_compute(&after, r.v, policy);
	if (o->kafka_reassignment || o->kafka_election) {
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
	/* A plan that ends with moves still wanted and none it may make is
	 * blocked (exit 3); one cut at --max did what was asked. */
	int blocked = !stopped_max && (stopped_ticks || pt_status_blocks(status));
	if (!blocked)
		last_tick.nwhy = 0;
	if (o->json) {
		pt_put(out, "{\"policy\": \"%s\", \"config\": ", pt_policy_name(policy));
		config_words(out, &r, 1);
		pt_put(out, ", \"member\": ");
		json_member(out, s, r.self);
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
		blockers_json(out, &last_tick, &after, r.v);
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
		if (blocked)
			pt_put(out, "the plan ends blocked: the end state is not balanced%s\n",
			       last_tick.nwhy ? "; what the policy named:" : "");
		blockers_text(out, &last_tick, &after, r.v);
		pt_spread_text(out, &before, r.v, &after, r.v, o->summary);
	}
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

/* ---- check: the policy's configuration ------------------------------------------------ */

int pt_policy_check(const pt_doc *d, pl_view *v, uint32_t policy, pt_err *e);

/* The policy's config, checked against the view check already built: a run
 * that borrows the document's arrays and the view (no copy, no second view),
 * prepared and dropped. The probes write no action, so the view is as it was
 * (a fleet's ring homes may be filled in, which changes no result). */
int pt_policy_check(const pt_doc *d, pl_view *v, uint32_t policy, pt_err *e)
{
	if (d->set[PT_SET_SELF].given && policy != PT_POLICY_FLEET)
		return pt_fail(e, d->set[PT_SET_SELF].line,
			       "set self= names the member that decides, which only the fleet policy has (the policy is %s)",
			       pt_policy_name(policy));
	pt_run r;
	memset(&r, 0, sizeof r);
	r.ops = pt_policy_ops_of(policy);
	if (r.ops == NULL)
		return 0; /* not in this build: nothing to check it against */
	r.d = d;
	r.v = v;
	r.snap = *pl_view_snapshot(v);
	r.nm = d->nm;
	r.self = d->set[PT_SET_SELF].given ? (uint32_t)d->set[PT_SET_SELF].value : PL_NONE;
	r.now = pt_setting(d, PT_SET_NOW, 0);
	r.tick_len = 1;
	r.quiet_ticks = 1;
	int rc = r.ops->prepare(&r, e);
	if (r.ops->done)
		r.ops->done(&r);
	return rc;
}
