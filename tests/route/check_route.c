/* check_route.c - routing one request: the owner of a key, and every row of
 * the one-hop forwarding table, plus a property over all inputs. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static pl_route_request req(uint32_t answer, uint32_t owner_known, uint32_t forwarded, uint32_t body,
			    uint32_t outcome)
{
	pl_route_request r = PL_ROUTE_REQUEST_INIT;
	r.answer = answer;
	r.owner_known = owner_known;
	r.forwarded = forwarded;
	r.body = body;
	r.outcome = outcome;
	return r;
}

static pl_route_verdict decide(pl_route_request r)
{
	pl_route_verdict v;
	memset(&v, 0xcc, sizeof v);
	ck_assert_int_eq(pl_route_decide(&r, &v, NULL), 0);
	return v;
}

#define NOT_OWNER PL_ROUTE_ANSWER_NOT_OWNER

/* One test per row of the seed's rules. */
START_TEST(row_not_data_plane_serves)
{
	pl_route_request r = req(NOT_OWNER, 1, 0, PL_ROUTE_BODY_UNREAD, 0);
	r.data_plane = 0;
	pl_route_verdict v = decide(r);
	ck_assert_uint_eq(v.verdict, PL_ROUTE_SERVE);
	ck_assert_uint_eq(v.rule, PL_ROUTE_RULE_NOT_DATA_PLANE);
	ck_assert_uint_eq(v.status, 0);
	ck_assert_uint_eq(v.mark, 0);
}
END_TEST

START_TEST(row_handler_served)
{
	/* a 404 names no owner: it is served, never forwarded */
	pl_route_verdict v = decide(req(PL_ROUTE_ANSWER_SERVED, 1, 0, PL_ROUTE_BODY_UNREAD, 0));
	ck_assert_uint_eq(v.verdict, PL_ROUTE_SERVE);
	ck_assert_uint_eq(v.rule, PL_ROUTE_RULE_SERVED);
}
END_TEST

START_TEST(row_forward_unread_body_streams)
{
	pl_route_verdict v = decide(req(NOT_OWNER, 1, 0, PL_ROUTE_BODY_UNREAD, 0));
	ck_assert_uint_eq(v.verdict, PL_ROUTE_FORWARD);
	ck_assert_uint_eq(v.rule, PL_ROUTE_RULE_FORWARD);
	ck_assert_uint_eq(v.mark, 1);
	ck_assert_uint_eq(v.send_body, PL_ROUTE_SEND_STREAM);
	ck_assert_uint_eq(v.status, 0);
}
END_TEST

START_TEST(row_forward_whole_body_from_frames)
{
	pl_route_verdict v = decide(req(NOT_OWNER, 1, 0, PL_ROUTE_BODY_WHOLE, 0));
	ck_assert_uint_eq(v.verdict, PL_ROUTE_FORWARD);
	ck_assert_uint_eq(v.mark, 1);
	ck_assert_uint_eq(v.send_body, PL_ROUTE_SEND_FRAMES);
}
END_TEST

START_TEST(row_already_forwarded_keeps_409)
{
	pl_route_verdict v = decide(req(NOT_OWNER, 1, 1, PL_ROUTE_BODY_UNREAD, 0));
	ck_assert_uint_eq(v.verdict, PL_ROUTE_REPLAY);
	ck_assert_uint_eq(v.rule, PL_ROUTE_RULE_ALREADY_FORWARDED);
	ck_assert_uint_eq(v.status, 409);
	ck_assert_uint_eq(v.mark, 0);
}
END_TEST

START_TEST(row_owner_unknown_keeps_409)
{
	pl_route_verdict v = decide(req(NOT_OWNER, 0, 0, PL_ROUTE_BODY_UNREAD, 0));
	ck_assert_uint_eq(v.verdict, PL_ROUTE_REPLAY);
	ck_assert_uint_eq(v.rule, PL_ROUTE_RULE_OWNER_UNKNOWN);
	ck_assert_uint_eq(v.status, 409);
}
END_TEST

START_TEST(row_body_past_limit_keeps_409)
{
	pl_route_verdict v = decide(req(NOT_OWNER, 1, 0, PL_ROUTE_BODY_PAST_LIMIT, 0));
	ck_assert_uint_eq(v.verdict, PL_ROUTE_REPLAY);
	ck_assert_uint_eq(v.rule, PL_ROUTE_RULE_BODY_PAST_LIMIT);
	ck_assert_uint_eq(v.status, 409);
	ck_assert_uint_eq(PL_ROUTE_BODY_LIMIT, 65536);
}
END_TEST

START_TEST(row_body_in_part_keeps_409)
{
	pl_route_verdict v = decide(req(NOT_OWNER, 1, 0, PL_ROUTE_BODY_PARTIAL, 0));
	ck_assert_uint_eq(v.verdict, PL_ROUTE_REPLAY);
	ck_assert_uint_eq(v.rule, PL_ROUTE_RULE_BODY_PARTIAL);
}
END_TEST

START_TEST(row_refused_keeps_409)
{
	pl_route_verdict v = decide(req(NOT_OWNER, 1, 0, PL_ROUTE_BODY_UNREAD, PL_ROUTE_OUTCOME_REFUSED));
	ck_assert_uint_eq(v.verdict, PL_ROUTE_REPLAY);
	ck_assert_uint_eq(v.rule, PL_ROUTE_RULE_REFUSED);
	ck_assert_uint_eq(v.status, 409);
}
END_TEST

START_TEST(row_failed_after_send_is_503)
{
	pl_route_verdict v = decide(req(NOT_OWNER, 1, 0, PL_ROUTE_BODY_WHOLE, PL_ROUTE_OUTCOME_FAILED));
	ck_assert_uint_eq(v.verdict, PL_ROUTE_FAILED);
	ck_assert_uint_eq(v.rule, PL_ROUTE_RULE_FAILED_AFTER_SEND);
	ck_assert_uint_eq(v.status, 503);
	ck_assert_uint_eq(v.retry_after, 1);
	ck_assert_uint_eq(v.mark, 0);
}
END_TEST

START_TEST(row_owner_answer_relayed)
{
	pl_route_verdict v = decide(req(NOT_OWNER, 1, 0, PL_ROUTE_BODY_UNREAD, PL_ROUTE_OUTCOME_ANSWERED));
	ck_assert_uint_eq(v.verdict, PL_ROUTE_RELAY);
	ck_assert_uint_eq(v.rule, PL_ROUTE_RULE_OWNER_ANSWERED);
	ck_assert_uint_eq(v.status, 0);
}
END_TEST

/* Every combination of valid inputs: a request marked forwarded is never
 * forwarded again; only a 409 on a data-plane route with a known owner, an
 * unmarked request and a usable body is forwarded; a 503 only after a
 * forward failed past sending; an outcome for a request that was not
 * forwarded is refused. */
START_TEST(all_combinations)
{
	uint32_t forwards = 0, combos = 0;
	for (uint32_t dp = 0; dp < 2; dp++)
		for (uint32_t an = 0; an < 2; an++)
			for (uint32_t ok = 0; ok < 2; ok++)
				for (uint32_t fw = 0; fw < 2; fw++)
					for (uint32_t b = 0; b < 4; b++)
						for (uint32_t oc = 0; oc < 4; oc++) {
		pl_route_request r = req(an, ok, fw, b, oc);
		r.data_plane = dp;
		pl_route_verdict v;
		pl_diag d;
		int rc = pl_route_decide(&r, &v, &d);
		int forwardable = dp && an == NOT_OWNER && ok && !fw &&
				  (b == PL_ROUTE_BODY_UNREAD || b == PL_ROUTE_BODY_WHOLE);
		combos++;
		if (oc != PL_ROUTE_OUTCOME_NONE && !forwardable) {
			ck_assert_int_eq(rc, PL_E_ROUTE_OUTCOME);
			ck_assert_uint_eq(d.index, 6);
			continue;
		}
		ck_assert_int_eq(rc, 0);
		if (fw)
			ck_assert_uint_ne(v.verdict, PL_ROUTE_FORWARD);
		ck_assert_uint_eq(v.verdict == PL_ROUTE_FORWARD, forwardable && oc == PL_ROUTE_OUTCOME_NONE);
		ck_assert_uint_eq(v.mark, v.verdict == PL_ROUTE_FORWARD);
		ck_assert_uint_eq(v.verdict == PL_ROUTE_FAILED, oc == PL_ROUTE_OUTCOME_FAILED);
		ck_assert_uint_eq(v.status == 409, v.verdict == PL_ROUTE_REPLAY);
		if (!dp || an != NOT_OWNER)
			ck_assert_uint_eq(v.verdict, PL_ROUTE_SERVE);
		forwards += v.verdict == PL_ROUTE_FORWARD;
		ck_assert_str_ne(pl_route_rule_name(v.rule), "unknown");
	}
	ck_assert_uint_eq(combos, 256);
	ck_assert_uint_eq(forwards, 2);
}
END_TEST

START_TEST(bad_values)
{
	pl_route_verdict v, v0;
	memset(&v, 0x11, sizeof v);
	v0 = v;
	pl_diag d;
	ck_assert_int_eq(pl_route_decide(NULL, &v, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.kind, PL_ELEM_ARGUMENT);
	ck_assert_uint_eq(d.index, 1);
	pl_route_request r = PL_ROUTE_REQUEST_INIT;
	ck_assert_int_eq(pl_route_decide(&r, NULL, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.index, 2);
	r.version = 9;
	ck_assert_int_eq(pl_route_decide(&r, &v, &d), PL_E_VERSION);
	ck_assert_uint_eq(d.kind, PL_ELEM_CONFIG);
	ck_assert_uint_eq(d.index, 0);
	for (uint32_t f = 1; f <= 7; f++) {
		r = (pl_route_request)PL_ROUTE_REQUEST_INIT;
		uint32_t *field = f == 1 ? &r.data_plane : f == 2 ? &r.answer : f == 3 ? &r.owner_known
				  : f == 4 ? &r.forwarded : f == 5 ? &r.body : f == 6 ? &r.outcome : &r.reserved;
		*field = f == 5 || f == 6 ? 4 : f == 7 ? 1 : 2; /* one past the last value */
		ck_assert_int_eq(pl_route_decide(&r, &v, &d), PL_E_ROUTE_VALUE);
		ck_assert_uint_eq(d.code, PL_E_ROUTE_VALUE);
		ck_assert_uint_eq(d.kind, PL_ELEM_CONFIG);
		ck_assert_uint_eq(d.index, f);
		*field = 0xffffffffu;
		ck_assert_int_eq(pl_route_decide(&r, &v, &d), PL_E_ROUTE_VALUE);
	}
	r = (pl_route_request)PL_ROUTE_REQUEST_INIT;
	r.outcome = PL_ROUTE_OUTCOME_FAILED; /* the handler served: nothing was forwarded */
	ck_assert_int_eq(pl_route_decide(&r, &v, &d), PL_E_ROUTE_OUTCOME);
	ck_assert_mem_eq(&v, &v0, sizeof v);
	ck_assert_str_eq(pl_route_rule_name(0), "unknown");
	ck_assert_str_eq(pl_error_name(PL_E_ROUTE_VALUE), "E_ROUTE_VALUE");
}
END_TEST

START_TEST(request_init_matches_macro)
{
	pl_route_request a, b = PL_ROUTE_REQUEST_INIT;
	memset(&a, 0xff, sizeof a);
	ck_assert_int_eq(pl_route_request_init(&a), 0);
	ck_assert_mem_eq(&a, &b, sizeof a);
	ck_assert_int_eq(pl_route_request_init(NULL), PL_E_INVAL);
}
END_TEST

/* ---- who owns a key ---------------------------------------------------------- */

START_TEST(lookup_owner)
{
	tl *t = tl_new();
	for (int i = 0; i < 5; i++)
		tl_member(t, tl_str(t, "i-%d", i), NULL);
	for (int k = 0; k < 50; k++)
		tl_shard(t, tl_str(t, "st-%02d", k), PL_NONE, PL_NONE, 0);
	pl_view *v = tl_view(t, 0);
	int h = pl_view_home(v, 7);
	uint32_t x = ((uint32_t)h + 2) % 5;
	tl_override(t, 7, x, PL_ORIGIN_COUNT, 3);
	v = tl_view(t, 0);
	pl_route_owner o;
	ck_assert_int_eq(pl_route_lookup(v, "st-07", 5, (uint32_t)h, &o, NULL), 0);
	ck_assert_uint_eq(o.owner, x);
	ck_assert_uint_eq(o.home, (uint32_t)h);
	ck_assert_uint_eq(o.shard, 7);
	ck_assert_uint_eq(o.is_self, 0);
	ck_assert_int_eq(pl_route_lookup(v, "st-07", 5, x, &o, NULL), 0);
	ck_assert_uint_eq(o.is_self, 1);
	/* the same answer once a fleet call filled the ring homes */
	uint32_t all[50];
	pl_fleet_owners(v, all, 50, NULL);
	for (uint32_t k = 0; k < 50; k++) {
		ck_assert_int_eq(pl_route_lookup(v, t->k[k].key.ptr, t->k[k].key.len, PL_NONE, &o, NULL), 0);
		ck_assert_uint_eq(o.owner, all[k]);
		ck_assert_uint_eq(o.is_self, 0);
	}
	/* a key the snapshot lacks: its ring home */
	ck_assert_int_eq(pl_route_lookup(v, "new-stream", 10, 0, &o, NULL), 0);
	uint32_t top[1];
	ck_assert_int_eq(pl_view_top(v, "new-stream", 10, top, 1), 1);
	ck_assert_uint_eq(o.owner, top[0]);
	ck_assert_uint_eq(o.shard, PL_NONE);
	/* bad input, nothing written */
	pl_route_owner o0;
	memset(&o, 0x42, sizeof o);
	o0 = o;
	pl_diag d;
	ck_assert_int_eq(pl_route_lookup(NULL, "a", 1, 0, &o, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.index, 1);
	ck_assert_int_eq(pl_route_lookup(v, NULL, 1, 0, &o, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.index, 2);
	ck_assert_int_eq(pl_route_lookup(v, "a", PL_MAX_ID_LEN + 1, 0, &o, &d), PL_E_LENGTH);
	ck_assert_uint_eq(d.index, 3);
	ck_assert_int_eq(pl_route_lookup(v, "a", 1, 5, &o, &d), PL_E_MEMBER_RANGE);
	ck_assert_uint_eq(d.index, 4);
	ck_assert_int_eq(pl_route_lookup(v, "a", 1, 0, NULL, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.index, 5);
	for (int i = 0; i < 5; i++)
		t->m[i].flags = PL_MEMBER_DOWN;
	v = tl_view(t, 0);
	ck_assert_int_eq(pl_route_lookup(v, "st-01", 5, 0, &o, &d), PL_E_NO_ELIGIBLE);
	ck_assert_mem_eq(&o, &o0, sizeof o);
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("route");
	TCase *c = tcase_create("rows");
	tcase_add_test(c, row_not_data_plane_serves);
	tcase_add_test(c, row_handler_served);
	tcase_add_test(c, row_forward_unread_body_streams);
	tcase_add_test(c, row_forward_whole_body_from_frames);
	tcase_add_test(c, row_already_forwarded_keeps_409);
	tcase_add_test(c, row_owner_unknown_keeps_409);
	tcase_add_test(c, row_body_past_limit_keeps_409);
	tcase_add_test(c, row_body_in_part_keeps_409);
	tcase_add_test(c, row_refused_keeps_409);
	tcase_add_test(c, row_failed_after_send_is_503);
	tcase_add_test(c, row_owner_answer_relayed);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_add_test(c, all_combinations);
	suite_add_tcase(s, c);
	c = tcase_create("arguments");
	tcase_add_test(c, bad_values);
	tcase_add_test(c, request_init_matches_macro);
	suite_add_tcase(s, c);
	c = tcase_create("owner");
	tcase_add_test(c, lookup_owner);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
