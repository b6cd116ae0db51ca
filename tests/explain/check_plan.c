/* check_plan.c - action names and the one-sentence explanations. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static tl *names(void)
{
	tl *t = tl_new();
	tl_member(t, "b0", NULL);
	tl_member(t, "b1", NULL);
	tl_member(t, "b2", NULL);
	tl_stream(t, "orders");
	tl_shard(t, "orders/07", 0, 2, 1, 2u);
	return t;
}

/* An action on orders/07 (shard 0, stream 0). */
static pl_action act(uint32_t kind, uint32_t reason, uint32_t from, uint32_t to)
{
	return tl_action(kind, reason, 0, 0, from, to);
}

/* Member 2's stream move to member 0: 10 and 1 leaders, floor and ceiling 4. */
static pl_action skew(void)
{
	pl_action a = act(PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW, 2, 0);
	a.scope = PL_SCOPE_STREAM;
	a.from_count = 10;
	a.to_count = 1;
	a.floor = 4;
	a.ceiling = 4;
	return a;
}

static const char *say(tl *t, const pl_action *a)
{
	static char buf[512];
	int n = pl_action_explain(tl_snap(t), a, buf, sizeof buf);
	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq(strlen(buf), (size_t)n);
	return buf;
}

START_TEST(stream_skew_sentence)
{
	tl *t = names();
	pl_action a = skew();
	ck_assert_str_eq(say(t, &a),
			 "move leader of orders/07 from b2 to b0: stream orders leads 10 on b2, 1 on b0, floor 4, ceiling 4");
	tl_free(t);
}
END_TEST

START_TEST(every_kind_and_reason_reads_as_a_sentence)
{
	tl *t = names();
	for (uint32_t kind = 1; kind < 64; kind++)
		for (uint32_t reason = 1; reason < 64; reason++) {
			if (!strcmp(pl_action_kind_name(kind), "unknown") || !strcmp(pl_reason_name(reason), "unknown"))
				continue;
			pl_action a = act(kind, reason, 2, 0);
			const char *s = say(t, &a);
			ck_assert_msg(strstr(s, "orders/07") != NULL, "%s/%s: %s", pl_action_kind_name(kind),
				      pl_reason_name(reason), s);
			a.from = PL_NONE;
			say(t, &a);
			/* an action from outside may name no stream, or a level
			 * of the zones' paths, whatever its kind */
			a.from = 2;
			a.stream = PL_NONE;
			say(t, &a);
			a.at = 1;
			say(t, &a);
		}
	tl_free(t);
}
END_TEST

START_TEST(cut_to_fit_like_snprintf)
{
	tl *t = names();
	pl_action a = act(PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW, 2, 0);
	char big[512], small[10];
	int n = pl_action_explain(tl_snap(t), &a, big, sizeof big);
	ck_assert_int_eq(pl_action_explain(tl_snap(t), &a, small, sizeof small), n);
	ck_assert_uint_eq(strlen(small), sizeof small - 1);
	ck_assert_int_eq(strncmp(small, big, sizeof small - 1), 0);
	ck_assert_int_eq(pl_action_explain(tl_snap(t), &a, NULL, 0), n);
	tl_free(t);
}
END_TEST

START_TEST(bad_actions_write_nothing)
{
	tl *t = names();
	char buf[64];
	memset(buf, 'x', sizeof buf);
	pl_action a = act(PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW, 2, 0);
	const pl_snapshot *s = tl_snap(t);
	ck_assert_int_eq(pl_action_explain(NULL, &a, buf, sizeof buf), PL_E_INVAL);
	ck_assert_int_eq(pl_action_explain(s, NULL, buf, sizeof buf), PL_E_INVAL);
	ck_assert_int_eq(pl_action_explain(s, &a, NULL, 5), PL_E_INVAL);
	a.kind = 0;
	ck_assert_int_eq(pl_action_explain(s, &a, buf, sizeof buf), PL_E_INVAL);
	a.kind = PL_ACTION_MOVE_LEADER;
	a.reason = 999;
	ck_assert_int_eq(pl_action_explain(s, &a, buf, sizeof buf), PL_E_INVAL);
	a.reason = PL_REASON_STREAM_SKEW;
	a.to = 3;
	ck_assert_int_eq(pl_action_explain(s, &a, buf, sizeof buf), PL_E_INVAL);
	a.to = 0;
	a.shard = 1;
	ck_assert_int_eq(pl_action_explain(s, &a, buf, sizeof buf), PL_E_INVAL);
	a.shard = 0;
	a.stream = 1;
	ck_assert_int_eq(pl_action_explain(s, &a, buf, sizeof buf), PL_E_INVAL);
	for (size_t i = 0; i < sizeof buf; i++)
		ck_assert_int_eq(buf[i], 'x');
	tl_free(t);
}
END_TEST

START_TEST(names_of_kinds_reasons_statuses)
{
	ck_assert_str_eq(pl_action_kind_name(PL_ACTION_MOVE_LEADER), "move-leader");
	ck_assert_str_eq(pl_reason_name(PL_REASON_STREAM_SKEW), "stream-skew");
	ck_assert_str_eq(pl_status_name(PL_STATUS_BALANCED), "balanced");
	ck_assert_str_eq(pl_status_name(PL_STATUS_BLOCKED_ZONES), "blocked-zones");
	ck_assert_str_eq(pl_action_kind_name(0), "unknown");
	ck_assert_str_eq(pl_reason_name(0), "unknown");
	ck_assert_str_eq(pl_status_name(999), "unknown");
}
END_TEST

START_TEST(every_status_has_its_name)
{
#define X(name, value, str) ck_assert_str_eq(pl_status_name(PL_STATUS_##name), str);
	PL_STATUS_LIST(X)
#undef X
}
END_TEST

START_TEST(explain_refuses_members_out_of_range_and_missing_arrays)
{
	tl *t = names();
	char buf[64];
	memset(buf, 'x', sizeof buf);
	pl_action a = act(PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW, 2, 0);
	a.from = 3;
	ck_assert_int_eq(pl_action_explain(tl_snap(t), &a, buf, sizeof buf), PL_E_INVAL);
	a.from = 2;
	pl_snapshot s = *tl_snap(t);
	s.members = NULL;
	ck_assert_int_eq(pl_action_explain(&s, &a, buf, sizeof buf), PL_E_INVAL);
	s = *tl_snap(t);
	s.streams = NULL;
	ck_assert_int_eq(pl_action_explain(&s, &a, buf, sizeof buf), PL_E_INVAL);
	for (size_t i = 0; i < sizeof buf; i++)
		ck_assert_int_eq(buf[i], 'x');
	tl_free(t);
}
END_TEST

/* The parts of a sentence that depend on a field: no stream, tier 5, a
 * relay, and the fleet's pick words. */
START_TEST(sentences_follow_their_fields)
{
	tl *t = names();
	pl_action a = act(PL_ACTION_SET_LEADER, PL_REASON_NEW, PL_NONE, 0);
	a.tier = 5;
	a.share = 2;
	ck_assert_ptr_nonnull(strstr(say(t, &a), "every candidate is at its max_shards and it is the least loaded"));
	const uint32_t skews[][2] = {{PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW},
				     {PL_ACTION_MOVE_LEADER, PL_REASON_CLUSTER_SKEW},
				     {PL_ACTION_MOVE_REPLICA, PL_REASON_REPLICA_STREAM_SKEW},
				     {PL_ACTION_MOVE_REPLICA, PL_REASON_REPLICA_CLUSTER_SKEW},
				     {PL_ACTION_MOVE_LEADER, PL_REASON_REPLICA_STREAM_SKEW}};
	for (size_t i = 0; i < sizeof skews / sizeof skews[0]; i++) {
		a = act(skews[i][0], skews[i][1], 2, 0);
		ck_assert_ptr_nonnull(strstr(say(t, &a), "stream orders"));
		a.stream = PL_NONE;
		ck_assert_ptr_null(strstr(say(t, &a), "stream orders"));
	}
	a = act(PL_ACTION_MOVE_LEADER, PL_REASON_CLUSTER_SKEW, 2, 0);
	a.share = 3;
	a.to_count = 3;
	ck_assert_ptr_nonnull(strstr(say(t, &a), "b0 is at its share and hands one on next (a relay)"));
	a.to_count = 2;
	ck_assert_ptr_null(strstr(say(t, &a), "a relay"));
	a = act(PL_ACTION_MOVE_REPLICA, PL_REASON_ZONE_REPAIR, 2, PL_NONE);
	ck_assert_ptr_nonnull(strstr(say(t, &a), "is in zone ,"));
	a = act(PL_ACTION_SET_OVERRIDE, PL_REASON_COUNT, 2, 0);
	a.tier = PL_FLEET_PICK_HOME;
	ck_assert_ptr_nonnull(strstr(say(t, &a), "(its ring home)"));
	a.tier = PL_FLEET_PICK_KEEP;
	a.reason = PL_REASON_SPREAD;
	a.floor = 7;
	ck_assert_ptr_nonnull(strstr(say(t, &a), "below its floor 7"));
	tl_free(t);
}
END_TEST

/* Ids are bytes: a NUL, a control byte or a '%' in one is written %XX, so
 * the sentence names every byte, two ids never read the same, and no id
 * cuts the sentence short or breaks its line. */
START_TEST(odd_bytes_of_ids_are_written_as_escapes)
{
	static const char from[] = "a\0x", to[] = "a\0y", key[] = "k\ney\x1b%";
	tl *t = names();
	t->m[2].id = (pl_bytes){from, sizeof from - 1};
	t->m[0].id = (pl_bytes){to, sizeof to - 1};
	t->k[0].key = (pl_bytes){key, sizeof key - 1};
	pl_action a = skew();
	ck_assert_str_eq(say(t, &a), "move leader of k%0Aey%1B%25 from a%00x to a%00y: stream orders leads 10 on "
				     "a%00x, 1 on a%00y, floor 4, ceiling 4");
	tl_free(t);
}
END_TEST

/* DEL (0x7f) is a control byte too; a byte past it (0x80 on) is not. */
START_TEST(del_in_an_id_is_written_as_an_escape)
{
	static const char key[] = "k\x7f\x80%";
	tl *t = names();
	t->k[0].key = (pl_bytes){key, sizeof key - 1};
	pl_action a = skew();
	const char *said = say(t, &a);
	static const char head[] = "move leader of k%7F\x80%25 from ";
	ck_assert_msg(strncmp(said, head, sizeof head - 1) == 0, "%s", said);
	tl_free(t);
}
END_TEST

/* A snapshot of no members and no streams (NULL arrays, counts of 0)
 * explains an action that names neither. */
START_TEST(no_members_nor_streams_to_name)
{
	tl *t = tl_new();
	tl_shard(t, "orders/07", PL_NONE, PL_NONE, 0);
	pl_snapshot s = *tl_snap(t);
	s.members = NULL;
	s.n_members = 0;
	s.streams = NULL;
	s.n_streams = 0;
	pl_action a = tl_action(PL_ACTION_MOVE_LEADER, PL_REASON_STREAM_SKEW, 0, PL_NONE, PL_NONE, PL_NONE);
	char buf[256];
	int n = pl_action_explain(&s, &a, buf, sizeof buf);
	ck_assert_int_gt(n, 0);
	ck_assert_msg(strncmp(buf, "move leader of orders/07", 24) == 0, "%s", buf);
	/* One member named where there are none: refused, nothing written. */
	a.to = 0;
	buf[0] = 'x';
	ck_assert_int_eq(pl_action_explain(&s, &a, buf, sizeof buf), PL_E_INVAL);
	ck_assert_int_eq(buf[0], 'x');
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("plan");
	TCase *c = tcase_create("explain");
	tcase_add_test(c, stream_skew_sentence);
	tcase_add_test(c, every_kind_and_reason_reads_as_a_sentence);
	tcase_add_test(c, cut_to_fit_like_snprintf);
	tcase_add_test(c, bad_actions_write_nothing);
	tcase_add_test(c, explain_refuses_members_out_of_range_and_missing_arrays);
	tcase_add_test(c, sentences_follow_their_fields);
	tcase_add_test(c, odd_bytes_of_ids_are_written_as_escapes);
	tcase_add_test(c, del_in_an_id_is_written_as_an_escape);
	tcase_add_test(c, no_members_nor_streams_to_name);
	suite_add_tcase(s, c);
	c = tcase_create("names");
	tcase_add_test(c, names_of_kinds_reasons_statuses);
	tcase_add_test(c, every_status_has_its_name);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
