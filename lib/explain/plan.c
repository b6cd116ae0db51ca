/*
 * plan.c - names of action kinds, reasons and statuses, and the one-sentence
 * explanation of an action.
 *
 * The sentence is built only from the action's own fields (the numbers that
 * decided it were copied into it when it was emitted) and the snapshot's
 * names, so an action can be explained long after the view that made it.
 * Each family of actions has its file (explain_broker.c, explain_fleet.c,
 * explain_region.c); explain() asks each in turn, and an action none of them
 * knows is written with its kind and reason names.
 */
#include "explain/explain.h"

const char *pl_action_kind_name(uint32_t kind)
{
	switch (kind) {
	PL_ACTION_KIND_LIST(PL__CASE_STRING)
	default:
		return "unknown";
	}
}

const char *pl_reason_name(uint32_t reason)
{
	switch (reason) {
	PL_REASON_LIST(PL__CASE_STRING)
	default:
		return "unknown";
	}
}

const char *pl_status_name(uint32_t status)
{
	switch (status) {
	PL_STATUS_LIST(PL__CASE_STRING)
	default:
		return "unknown";
	}
}

static void explain(out *o, const names *n)
{
	const pl_action *a = n->a;
	if (pl__explain_broker(o, n) || pl__explain_region(o, n) || pl__explain_fleet(o, n))
		return;
	put(o, "%s", pl_action_kind_name(a->kind));
	shard_from_to(o, n, " of ", " to ");
	put(o, ": %s", pl_reason_name(a->reason));
}

int pl_action_explain(const pl_snapshot *snap, const pl_action *a, char *buf, size_t cap)
{
	if (snap == NULL || a == NULL || (buf == NULL && cap != 0))
		return PL_E_INVAL;
	if (!pl__snapshot_known(snap)) /* before anything else of it is read */
		return PL_E_VERSION;
	if (strcmp(pl_action_kind_name(a->kind), "unknown") == 0 || strcmp(pl_reason_name(a->reason), "unknown") == 0)
		return PL_E_INVAL;
	if (a->shard >= snap->n_shards || (a->stream != PL_NONE && a->stream >= snap->n_streams) ||
	    (a->from != PL_NONE && a->from >= snap->n_members) || (a->to != PL_NONE && a->to >= snap->n_members))
		return PL_E_INVAL;
	if ((snap->n_shards && !snap->shards) || (snap->n_members && !snap->members) ||
	    (snap->n_streams && !snap->streams))
		return PL_E_INVAL;
	if (pl__overlaps_snapshot(snap, buf, cap) || pl__overlap(buf, cap, a, sizeof *a))
		return PL_E_OVERLAP;
	out o = {buf, cap, 0};
	names n = {snap, a};
	explain(&o, &n);
	if (cap)
		buf[o.len < cap ? o.len : cap - 1] = '\0';
	return o.len > 0x7fffffff ? 0x7fffffff : (int)o.len;
}
