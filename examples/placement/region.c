/*
 * region.c - the region policy (placement/region.h) for plan and simulate:
 * its config from the settings, and one tick of pl_region_plan(), with the
 * regions it wanted to act on and could not (its stalls).
 *
 * max-actions bounds one call, so a tick is one call; only when the tool's
 * own buffer fills first does the tick call again, going on from the view.
 *
 * It is built when the library has the policy (placement.h includes
 * placement/region.h, which defines PL_REGION_CONFIG_VERSION); without it, the
 * adapter is an empty entry and plan and simulate say the policy is missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

#ifdef PL_REGION_CONFIG_VERSION

#define CHUNK 1024u
#define STALLS 8u

static const uint32_t fields[] = {PT_SET_COUNT, PT_SET_RF, PT_SET_ADD_PEER_PROPOSALS, PT_SET_LOAD_BALANCE,
				  PT_SET_LOAD_THRESHOLD, PT_SET_MAX_ACTIONS};

static int prepare(pt_run *r, pt_err *e)
{
	pl_region_config *c = pt_alloc(sizeof *c);
	pl_region_config_init(c);
	r->cfg = c;
	const pt_doc *d = r->d;
	c->replication_factor = (uint32_t)pt_setting(d, PT_SET_RF, c->replication_factor);
	c->add_peer_proposals = (uint32_t)pt_setting(d, PT_SET_ADD_PEER_PROPOSALS, c->add_peer_proposals);
	c->load_balance = (uint32_t)pt_setting(d, PT_SET_LOAD_BALANCE, c->load_balance);
	c->load_threshold = (uint32_t)pt_setting(d, PT_SET_LOAD_THRESHOLD, c->load_threshold);
	c->max_actions = (uint32_t)pt_setting(d, PT_SET_MAX_ACTIONS, c->max_actions);
	r->tick_len = pt_setting(d, PT_SET_TICK, 1);
	pl_diag dg;
	int rc = pl_region_effective_rf(r->v, c, &dg);
	if (rc == PL_E_CONFIG || rc == PL_E_VERSION)
		return pt_config_error(r, "region", rc, &dg, fields, sizeof fields / sizeof fields[0], e);
	return 0;
}

static int tick(pt_run *r, uint64_t budget, pt_tick *t, pt_err *e)
{
	pl_action buf[CHUNK];
	pl_region_stall stalls[STALLS];
	pl_plan_info info;
	pl_diag dg;
	uint32_t nstalls = 0, first_stall = PL_NONE, first_reason = 0, first_member = PL_NONE;
	for (;;) {
		uint32_t cap = CHUNK;
		if (budget && budget - t->written < cap)
			cap = (uint32_t)(budget - t->written);
		int n = pl_region_plan(r->v, r->cfg, buf, cap, &info, stalls, STALLS, &dg);
		if (n == PL_E_NO_ELIGIBLE)
			return pt_tick_no_eligible(t);
		if (n < 0)
			return pt_policy_error(r, "the region policy", n, &dg, e);
		for (int i = 0; i < n; i++)
			pt_run_add(r, &buf[i], PL_NONE);
		t->written += (uint32_t)n;
		nstalls += info.blocked;
		for (uint32_t q = 0; q < info.blocked && q < STALLS; q++)
			if (stalls[q].shard < r->snap.n_shards)
				pt_tick_blocker(t, PL_STATUS_STALLED, stalls[q].shard, r->snap.shards[stalls[q].shard].stream,
						stalls[q].member, pl_region_stall_name(stalls[q].reason));
		if (info.blocked && first_stall == PL_NONE) {
			first_stall = stalls[0].shard;
			first_reason = stalls[0].reason;
			first_member = stalls[0].member;
		}
		if (info.status != PL_STATUS_FULL)
			break;
		if (n == 0 || (budget && t->written >= budget)) {
			t->full_stop = 1;
			break;
		}
	}
	t->status = info.status;
	t->blocked = nstalls;
	if (info.status == PL_STATUS_PROPOSALS_OFF && info.detail < r->snap.n_shards)
		pt_tick_blocker(t, info.status, info.detail, r->snap.shards[info.detail].stream, PL_NONE, NULL);
	if (first_stall != PL_NONE) {
		pt_buf w = {0};
		pt_put(&w, "%u stalled, first ", nstalls);
		pt_put_name(&w, r->snap.shards[first_stall].key);
		pt_put(&w, " %s", pl_region_stall_name(first_reason));
		if (first_member != PL_NONE && first_member < r->snap.n_members) {
			pt_put(&w, " (");
			pt_put_name(&w, r->snap.members[first_member].id);
			pt_putc(&w, ')');
		}
		snprintf(t->note, sizeof t->note, "%s", w.p);
		pt_buf_free(&w);
	}
	return 0;
}

static void config_json(const pt_run *r, pt_buf *b)
{
	const pl_region_config *c = r->cfg;
	pt_put(b, "{\"rf\": %u, \"add-peer-proposals\": %s, \"load-balance\": %s, \"load-threshold\": %u, "
		  "\"max-actions\": %u}",
	       c->replication_factor, c->add_peer_proposals ? "true" : "false", c->load_balance ? "true" : "false",
	       c->load_threshold, c->max_actions);
}

static void done(pt_run *r)
{
	free(r->cfg);
	r->cfg = NULL;
}

const pt_policy_ops pt_region_ops = {PT_POLICY_REGION, "replicas", prepare, tick, config_json, done};

void pt_region_below_rf(const pt_run *r, pt_below_rf *b)
{
	memset(b, 0, sizeof *b);
	if (r->ops != &pt_region_ops || r->cfg == NULL)
		return;
	int rf = pl_region_effective_rf(r->v, r->cfg, NULL);
	if (rf <= 0)
		return;
	b->rf = (uint32_t)rf;
	const pl_snapshot *s = pl_view_snapshot(r->v);
	uint32_t *order = pt_order(r->v, PL_ELEM_SHARD, s->n_shards);
	for (uint32_t q = 0; q < s->n_shards; q++) {
		uint32_t k = order[q];
		pl_shard_state st;
		pl_view_shard_state(r->v, k, &st);
		uint32_t live = 0;
		for (uint32_t j = 0; j < st.replica_count; j++)
			live += !(s->members[st.replicas[j]].flags & PL_MEMBER_DOWN);
		if (live >= b->rf)
			continue;
		uint32_t why = PT_BELOW_OTHER;
		if (s->shards[k].flags & PL_SHARD_NOT_IDEMPOTENT)
			why = PT_BELOW_NOT_IDEMPOTENT;
		else if (s->shards[k].flags & PL_SHARD_TRANSFER_DEBT)
			why = PT_BELOW_TRANSFER_DEBT;
		else
			for (uint32_t c = 0; c < s->n_copies; c++)
				if (s->copies[c].shard == k)
					why = PT_BELOW_COPYING;
		b->total++;
		b->why[why]++;
		if (b->nnamed < PT_BELOW_NAMED) {
			b->named[b->nnamed] = k;
			b->named_why[b->nnamed++] = why;
		}
	}
	free(order);
}

#else /* no region policy in this build of the library */

const pt_policy_ops pt_region_ops = {PT_POLICY_REGION, "replicas", NULL, NULL, NULL, NULL};

void pt_region_below_rf(const pt_run *r, pt_below_rf *b)
{
	(void)r;
	memset(b, 0, sizeof *b);
}

#endif

static const char *const below_words[PT_BELOW_KINDS] = {"not-idempotent", "transfer-debt", "copy-in-flight",
							 "stalled-or-not-reached"};

void pt_below_rf_text(pt_buf *b, const pl_snapshot *s, const pt_below_rf *w)
{
	if (w->total == 0)
		return;
	pt_put(b, "%u region%s below rf %u left:", w->total, w->total == 1 ? "" : "s", w->rf);
	const char *sep = " ";
	for (uint32_t k = 0; k < PT_BELOW_KINDS; k++)
		if (w->why[k]) {
			pt_put(b, "%s%u %s", sep, w->why[k], below_words[k]);
			sep = ", ";
		}
	pt_put(b, " (");
	for (uint32_t i = 0; i < w->nnamed; i++) {
		pt_put(b, "%s", i ? ", " : "");
		pt_put_name(b, s->shards[w->named[i]].key);
		pt_put(b, " %s", below_words[w->named_why[i]]);
	}
	pt_put(b, "%s)", w->total > w->nnamed ? ", ..." : "");
}

void pt_below_rf_json(pt_buf *b, const pl_snapshot *s, const pt_below_rf *w)
{
	pt_put(b, "{\"rf\": %u, \"count\": %u", w->rf, w->total);
	for (uint32_t k = 0; k < PT_BELOW_KINDS; k++)
		pt_put(b, ", \"%s\": %u", below_words[k], w->why[k]);
	pt_put(b, ", \"first\": [");
	for (uint32_t i = 0; i < w->nnamed; i++) {
		pt_put(b, "%s{\"shard\": ", i ? ", " : "");
		pt_put_json_str(b, s->shards[w->named[i]].key.ptr, (size_t)s->shards[w->named[i]].key.len);
		pt_put(b, ", \"why\": \"%s\"}", below_words[w->named_why[i]]);
	}
	pt_put(b, "]}");
}
