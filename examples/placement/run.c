/*
 * run.c - running a policy over ticks: the run's own copy of the snapshot,
 * its view, the actions kept, the errors of a policy call, and the check of
 * a policy's configuration.
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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

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
	/* The statuses that end a call with nothing wanted, or with moves
	 * only waiting on time (cooldown, a member's turn) or room in this
	 * call; any other, those a library adds later included, still wants a
	 * move it may not make. */
	switch (status) {
	case PL_STATUS_BALANCED:
	case PL_STATUS_FULL:
	case PL_STATUS_COOLDOWN:
	case PL_STATUS_WAITING:
	case PL_STATUS_NOT_LIVE:
	case PL_STATUS_ACTION_CAP:
		return 0;
	default:
		return 1;
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
	r->snap = (pl_snapshot){.version = PL_SNAPSHOT_VERSION, .members = r->members, .streams = r->d->streams,
			.shards = r->shards, .overrides = r->ov, .copies = r->nc ? r->d->copies : NULL,
			.n_members = r->nm, .n_streams = r->d->ns, .n_shards = r->d->nk, .n_overrides = r->no,
			.n_copies = r->nc};
	if (r->d->has_bytes) { /* sizes given: the snapshot carries them (version 3) */
		r->snap.shard_bytes = r->d->nk ? r->d->k_bytes : NULL;
		r->snap.member_capacity = r->nm ? r->capacity : NULL;
	}
	if (r->d->has_rules && r->d->ns) { /* streams' rules given (version 5) */
		r->snap.stream_tolerance = r->d->s_tolerance;
		r->snap.stream_zone_rule = r->d->s_zone_rule;
	}
	if (r->d->has_keep && r->d->ns) /* some stream kept (version 5) */
		r->snap.stream_flags = r->d->s_flags;
	r->mem_size = pl_view_size(&r->snap);
	return pt_view(r->d, &r->snap, &r->v, &r->mem, e);
}

int pt_run_init(pt_run *r, const pt_doc *d, uint32_t policy, const char *member, pt_err *e)
{
	memset(r, 0, sizeof *r);
	r->d = d;
	r->self = PL_NONE;
	r->nm = d->nm;
	r->nc = d->nc;
	r->m_cap = (size_t)d->nm + d->nev + 1;
	r->members = pt_alloc(r->m_cap * sizeof *r->members);
	r->last_move = pt_alloc(r->m_cap * sizeof *r->last_move);
	r->capacity = pt_alloc(r->m_cap * sizeof *r->capacity);
	if (d->nm) {
		memcpy(r->members, d->members, (size_t)d->nm * sizeof *r->members);
		memcpy(r->last_move, d->m_last_move, (size_t)d->nm * sizeof *r->last_move);
		memcpy(r->capacity, d->m_capacity, (size_t)d->nm * sizeof *r->capacity);
	}
	if (d->has_bytes) {
		pt_copied *c = &r->copied;
		c->in = calloc(r->m_cap, sizeof *c->in);
		c->out = calloc(r->m_cap, sizeof *c->out);
		c->unknown_in = calloc(r->m_cap, sizeof *c->unknown_in);
		c->unknown_out = calloc(r->m_cap, sizeof *c->unknown_out);
		if (!c->in || !c->out || !c->unknown_in || !c->unknown_out)
			pt_oom();
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
		if (m < 0) {
			char sb[80];
			return pt_fail(e, 0, "--member %s: no such member in the file",
				       pt_show_arg(member, sb, sizeof sb));
		}
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
	free(r->capacity);
	free(r->copied.in);
	free(r->copied.out);
	free(r->copied.unknown_in);
	free(r->copied.unknown_out);
	free(r->shards);
	free(r->ov);
	free(r->mem);
	free(r->acts);
	memset(r, 0, sizeof *r);
}

/* A sum of bytes that stops at UINT64_MAX (a plan may copy a shard again
 * and again). */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
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
	pt_copied *c = &r->copied;
	if (c->in && (a->flags & PL_ACTION_STAGE_FIRST) && a->to < r->nm) {
		uint64_t size = pt_act_bytes(&r->snap, a);
		c->copies++;
		if (size == PL_BYTES_UNKNOWN) {
			c->unknown++;
			c->unknown_in[a->to]++;
			if (a->from < r->nm)
				c->unknown_out[a->from]++;
		} else {
			c->bytes = sat_add(c->bytes, size);
			c->in[a->to] = sat_add(c->in[a->to], size);
			if (a->from < r->nm)
				c->out[a->from] = sat_add(c->out[a->from], size);
		}
	}
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
	r->nc = 0; /* the view counts the file's copies done: the state captured holds them */
	for (uint32_t k = 0; k < r->d->nk; k++) {
		pl_shard_state ss;
		pl_shard *s = &r->shards[k];
		pl_view_shard_state(r->v, k, &ss);
		/* A replica out of sync stays so where it still is (by member,
		 * its place may change); a copy made since is in sync. */
		uint32_t oos = 0;
		for (uint32_t j = 0; j < ss.replica_count; j++)
			for (uint32_t i = 0; i < s->replica_count; i++)
				if (s->replicas[i] == ss.replicas[j] && (s->flags & PL_SHARD_OUT_OF_SYNC(i)) &&
				    ss.replicas[j] != ss.leader)
					oos |= PL_SHARD_OUT_OF_SYNC(j);
		s->flags = (s->flags & ~PL_SHARD_OUT_OF_SYNC_ALL) | oos;
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
