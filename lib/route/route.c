/*
 * route.c - routing one request: the owner of a key now, and the one-hop
 * forwarding table.
 *
 * How it works. pl_route_lookup() finds the shard by key in the view's
 * canonical order (O(log n)) and reads its owner as the fleet does: the
 * override's member when eligible, else the ring home (the view's, when a
 * fleet call filled them, else one top-1 over the eligible members). A key
 * the snapshot lacks is owned by its ring home.
 *
 * pl_route_decide() is the table in placement/route.h, row by row, first
 * match wins: first the rows that keep the handler's answer, then the rows
 * that keep the 409 (already forwarded comes before every row that could
 * forward, so a marked request is never forwarded again), then forward; on
 * the second call the outcome picks relay, 409 or 503. It holds no state
 * and terminates after at most ten comparisons.
 */
#include "view/view_int.h"

int pl_route_request_init(pl_route_request *req)
{
	const pl_route_request def = PL_ROUTE_REQUEST_INIT;
	return pl__init_from(req, &def, sizeof def);
}

const char *pl_route_rule_name(uint32_t rule)
{
	switch (rule) {
	case PL_ROUTE_RULE_NOT_DATA_PLANE: return "not-data-plane";
	case PL_ROUTE_RULE_SERVED: return "served";
	case PL_ROUTE_RULE_ALREADY_FORWARDED: return "already-forwarded";
	case PL_ROUTE_RULE_OWNER_UNKNOWN: return "owner-unknown";
	case PL_ROUTE_RULE_BODY_PAST_LIMIT: return "body-past-limit";
	case PL_ROUTE_RULE_BODY_PARTIAL: return "body-partial";
	case PL_ROUTE_RULE_FORWARD: return "forward";
	case PL_ROUTE_RULE_OWNER_ANSWERED: return "owner-answered";
	case PL_ROUTE_RULE_REFUSED: return "refused";
	case PL_ROUTE_RULE_FAILED_AFTER_SEND: return "failed-after-send";
	default: return "unknown";
	}
}

static void verdict(pl_route_verdict *v, uint32_t what, uint32_t rule)
{
	memset(v, 0, sizeof *v);
	v->verdict = what;
	v->rule = rule;
	if (what == PL_ROUTE_REPLAY)
		v->status = 409;
	if (what == PL_ROUTE_FAILED) {
		v->status = 503;
		v->retry_after = 1;
	}
}

/* The first call's row. */
static void first_call(const pl_route_request *r, pl_route_verdict *v)
{
	if (!r->data_plane)
		verdict(v, PL_ROUTE_SERVE, PL_ROUTE_RULE_NOT_DATA_PLANE);
	else if (r->answer != PL_ROUTE_ANSWER_NOT_OWNER)
		verdict(v, PL_ROUTE_SERVE, PL_ROUTE_RULE_SERVED);
	else if (r->forwarded)
		verdict(v, PL_ROUTE_REPLAY, PL_ROUTE_RULE_ALREADY_FORWARDED);
	else if (!r->owner_known)
		verdict(v, PL_ROUTE_REPLAY, PL_ROUTE_RULE_OWNER_UNKNOWN);
	else if (r->body == PL_ROUTE_BODY_PAST_LIMIT)
		verdict(v, PL_ROUTE_REPLAY, PL_ROUTE_RULE_BODY_PAST_LIMIT);
	else if (r->body == PL_ROUTE_BODY_PARTIAL)
		verdict(v, PL_ROUTE_REPLAY, PL_ROUTE_RULE_BODY_PARTIAL);
	else {
		verdict(v, PL_ROUTE_FORWARD, PL_ROUTE_RULE_FORWARD);
		v->mark = 1;
		v->send_body = r->body == PL_ROUTE_BODY_UNREAD ? PL_ROUTE_SEND_STREAM : PL_ROUTE_SEND_FRAMES;
	}
}

int pl_route_decide(const pl_route_request *req, pl_route_verdict *out, pl_diag *diag)
{
	const pl__arg a[2] = {PL__IN(req, sizeof *req, 1), PL__OUT(out, sizeof *out, 2)};
	int rc = pl__check_args(NULL, NULL, a, 2, diag);
	if (rc)
		return rc;
	if (req == NULL)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 1, PL_NONE);
	if (out == NULL)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 2, PL_NONE);
	if (req->version != PL_ROUTE_REQUEST_VERSION)
		return pl__fail(diag, PL_E_VERSION, PL_ELEM_CONFIG, 0, PL_NONE);
	const uint32_t value[7] = {0, req->data_plane, req->answer, req->owner_known, req->forwarded, req->body,
				   req->outcome};
	const uint32_t last[7] = {0, 1, PL_ROUTE_ANSWER_NOT_OWNER, 1, 1, PL_ROUTE_BODY_PARTIAL,
				  PL_ROUTE_OUTCOME_FAILED};
	for (uint32_t f = 1; f < 7; f++)
		if (value[f] > last[f])
			return pl__fail(diag, PL_E_ROUTE_VALUE, PL_ELEM_CONFIG, f, PL_NONE);
	if (req->reserved != 0)
		return pl__fail(diag, PL_E_ROUTE_VALUE, PL_ELEM_CONFIG, 7, PL_NONE);
	pl_route_verdict v;
	first_call(req, &v);
	if (req->outcome != PL_ROUTE_OUTCOME_NONE) {
		if (v.verdict != PL_ROUTE_FORWARD)
			return pl__fail(diag, PL_E_ROUTE_OUTCOME, PL_ELEM_CONFIG, 6, PL_NONE);
		if (req->outcome == PL_ROUTE_OUTCOME_ANSWERED)
			verdict(&v, PL_ROUTE_RELAY, PL_ROUTE_RULE_OWNER_ANSWERED);
		else if (req->outcome == PL_ROUTE_OUTCOME_REFUSED)
			verdict(&v, PL_ROUTE_REPLAY, PL_ROUTE_RULE_REFUSED);
		else
			verdict(&v, PL_ROUTE_FAILED, PL_ROUTE_RULE_FAILED_AFTER_SEND);
	}
	*out = v;
	return 0;
}

int pl_route_lookup(const pl_view *v, const char *key, size_t len, uint32_t self, pl_route_owner *out,
		    pl_diag *diag)
{
	/* The key's bytes are read only within the limit (past it: refused). */
	const pl__arg a[2] = {PL__IN(key, len <= PL_MAX_ID_LEN ? len : 0, 2), PL__OUT(out, sizeof *out, 5)};
	int rc = pl__check_args(v, NULL, a, 2, diag);
	if (rc)
		return rc;
	if (!pl__view_ok(v))
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 1, PL_NONE);
	if (key == NULL && len > 0)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 2, PL_NONE);
	if (len > PL_MAX_ID_LEN)
		return pl__fail(diag, PL_E_LENGTH, PL_ELEM_ARGUMENT, 3, PL_NONE);
	if (self != PL_NONE && self >= v->nm)
		return pl__fail(diag, PL_E_MEMBER_RANGE, PL_ELEM_ARGUMENT, 4, PL_NONE);
	if (out == NULL)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 5, PL_NONE);
	int k = pl_view_find(v, PL_ELEM_SHARD, key, len);
	uint32_t home, owner;
	if (k >= 0) {
		home = v->homes_ready ? v->k_home[k] : pl__view_top1(v, v->k_hash[k]);
		uint32_t o = pl__ov(pl__st(v, k));
		owner = o != PL_NONE && pl__eligible(v, o) ? o : home;
	} else {
		home = owner = pl__view_top1(v, pl__key_hash(v, key, len));
	}
	if (home == PL_NONE)
		return pl__fail(diag, PL_E_NO_ELIGIBLE, PL_ELEM_SNAPSHOT, 0, PL_NONE);
	out->owner = owner;
	out->home = home;
	out->shard = k >= 0 ? (uint32_t)k : PL_NONE;
	out->is_self = owner == self;
	return 0;
}
