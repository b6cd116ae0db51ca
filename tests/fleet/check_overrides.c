/* check_overrides.c - the override document: format and read back, the
 * layout's rules, every error with its line, and mutated documents. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static tl *fleet(void)
{
	tl *t = tl_new();
	tl_member(t, "a", NULL);
	tl_member(t, "b b", NULL); /* a space: escaped */
	tl_member(t, "c%#", NULL);
	tl_shard(t, "k1", PL_NONE, PL_NONE, 0);
	tl_shard(t, "k 2", PL_NONE, PL_NONE, 0);
	tl_shard(t, "#k3\xff", PL_NONE, PL_NONE, 0);
	tl_shard(t, "k4", PL_NONE, PL_NONE, 0);
	return t;
}

static int read_doc(tl *t, const char *doc, pl_override *out, uint32_t cap, uint32_t *skipped, pl_diag *d)
{
	pl_view *v = tl_view(t, 0);
	return pl_fleet_doc_read(v, doc, strlen(doc), out, cap, skipped, d);
}

START_TEST(format_then_read_round_trip)
{
	tl *t = fleet();
	tl_override(t, 0, 1, PL_ORIGIN_COUNT, 12);
	tl_override(t, 1, 2, PL_ORIGIN_LAG, 0);
	tl_override(t, 2, 0, PL_ORIGIN_COUNT, UINT64_MAX);
	pl_view *v = tl_view(t, 0);
	int n = pl_fleet_doc_format(v, NULL, 0);
	ck_assert_int_gt(n, 0);
	char *doc = malloc((size_t)n + 1);
	ck_assert_int_eq(pl_fleet_doc_format(v, doc, (size_t)n + 1), n);
	ck_assert_uint_eq(strlen(doc), (size_t)n);
	ck_assert_str_eq(doc, "placement-overrides 1\n"
			      "%23k3%FF a 18446744073709551615 count\n"
			      "k%202 c%25%23 0 lag\n"
			      "k1 b%20b 12 count\n");
	/* a short buffer: cut, NUL-terminated, the whole length returned */
	char small[8];
	ck_assert_int_eq(pl_fleet_doc_format(v, small, sizeof small), n);
	ck_assert_str_eq(small, "placeme");
	pl_override o[4];
	uint32_t skipped = 99;
	pl_view *w = tl_view(t, 0);
	ck_assert_int_eq(pl_fleet_doc_read(w, doc, (size_t)n, o, 4, &skipped, NULL), 3);
	ck_assert_uint_eq(skipped, 0);
	/* key order: k3, k2, k1 */
	ck_assert_uint_eq(o[0].shard, 2);
	ck_assert_uint_eq(o[0].member, 0);
	ck_assert(o[0].since == UINT64_MAX);
	ck_assert_uint_eq(o[0].origin, PL_ORIGIN_COUNT);
	ck_assert_uint_eq(o[1].shard, 1);
	ck_assert_uint_eq(o[1].member, 2);
	ck_assert_uint_eq(o[1].origin, PL_ORIGIN_LAG);
	ck_assert_uint_eq(o[2].shard, 0);
	ck_assert_uint_eq(o[2].member, 1);
	ck_assert(o[2].since == 12);
	free(doc);
	/* no overrides: the header alone */
	t->no = 0;
	v = tl_view(t, 0);
	char buf[64];
	ck_assert_int_eq(pl_fleet_doc_format(v, buf, sizeof buf), 22);
	ck_assert_str_eq(buf, "placement-overrides 1\n");
	tl_free(t);
}
END_TEST

START_TEST(layout_rules)
{
	tl *t = fleet();
	pl_override o[8];
	uint32_t skipped;
	/* no origin reads as lag; comments, blank lines, CRLF, tabs, lowercase hex */
	const char *doc = "# the fleet's overrides\r\n"
			  "\n"
			  "   placement-overrides\t1\r\n"
			  "k1 a 5\r\n"
			  "  # a comment\n"
			  "k%202\tb%20b\t7 count\n"
			  "%23k3%ff c%25%23 9";
	ck_assert_int_eq(read_doc(t, doc, o, 8, &skipped, NULL), 3);
	ck_assert_uint_eq(o[0].origin, PL_ORIGIN_LAG);
	ck_assert_uint_eq(o[0].shard, 0);
	ck_assert_uint_eq(o[1].origin, PL_ORIGIN_COUNT);
	ck_assert_uint_eq(o[1].member, 1);
	ck_assert_uint_eq(o[2].shard, 2);
	ck_assert_uint_eq(o[2].member, 2);
	ck_assert_uint_eq(o[2].origin, PL_ORIGIN_LAG);
	/* gone shards and members are skipped and counted */
	ck_assert_int_eq(read_doc(t, "placement-overrides 1\nk9 a 1\nk1 zed 1 count\nk4 a 2\n", o, 8, &skipped,
				  NULL), 1);
	ck_assert_uint_eq(skipped, 2);
	ck_assert_uint_eq(o[0].shard, 3);
	/* empty documents hold nothing */
	ck_assert_int_eq(read_doc(t, "", o, 0, NULL, NULL), 0);
	ck_assert_int_eq(read_doc(t, "\n# nothing yet\n", o, 0, NULL, NULL), 0);
	ck_assert_int_eq(read_doc(t, "placement-overrides 1\n", NULL, 0, NULL, NULL), 0);
	pl_view *v = tl_view(t, 0);
	ck_assert_int_eq(pl_fleet_doc_read(v, NULL, 0, NULL, 0, NULL, NULL), 0);
	tl_free(t);
}
END_TEST

static void expect_error(tl *t, const char *doc, int code, uint32_t line)
{
	pl_override o[4], o0[4];
	memset(o, 0x3c, sizeof o);
	memcpy(o0, o, sizeof o);
	uint32_t skipped = 77;
	pl_diag d;
	memset(&d, 0, sizeof d);
	ck_assert_int_eq(read_doc(t, doc, o, 4, &skipped, &d), code);
	ck_assert_int_eq(d.code, code);
	ck_assert_uint_eq(d.kind, PL_ELEM_ARGUMENT);
	ck_assert_uint_eq(d.index, 2);
	ck_assert_msg(d.other == line, "%s: line %u, want %u", doc, d.other, line);
	ck_assert_mem_eq(o, o0, sizeof o);
	ck_assert_uint_eq(skipped, 77);
}

START_TEST(errors_name_the_line)
{
	tl *t = fleet();
	expect_error(t, "k1 a 1\n", PL_E_DOC_SYNTAX, 1);
	expect_error(t, "# c\nplacement-overrides\n", PL_E_DOC_SYNTAX, 2);
	expect_error(t, "placement-overrides x\n", PL_E_DOC_SYNTAX, 1);
	expect_error(t, "placement-overrides 2\nk1 a 1\n", PL_E_DOC_VERSION, 1);
	expect_error(t, "placement-overrides 1\nk1 a 1\nk1 a\n", PL_E_DOC_SYNTAX, 3);
	expect_error(t, "placement-overrides 1\nk1 a 1 lag extra\n", PL_E_DOC_SYNTAX, 2);
	expect_error(t, "placement-overrides 1\nk1 a -1\n", PL_E_DOC_SYNTAX, 2);
	expect_error(t, "placement-overrides 1\nk1 a 18446744073709551616\n", PL_E_DOC_SYNTAX, 2);
	expect_error(t, "placement-overrides 1\n\nk%2 a 1\n", PL_E_DOC_SYNTAX, 3);
	expect_error(t, "placement-overrides 1\nk%zz a 1\n", PL_E_DOC_SYNTAX, 2);
	expect_error(t, "placement-overrides 1\nk1 a 1 counted\n", PL_E_ORIGIN, 2);
	char *long_doc = malloc(64 + 3 * PL_MAX_ID_LEN);
	strcpy(long_doc, "placement-overrides 1\nk1 ");
	size_t n = strlen(long_doc);
	for (uint32_t i = 0; i <= PL_MAX_ID_LEN; i++)
		long_doc[n++] = 'x';
	strcpy(long_doc + n, " 1\n");
	expect_error(t, long_doc, PL_E_LENGTH, 2);
	free(long_doc);
	/* arguments */
	pl_view *v = tl_view(t, 0);
	pl_override o[1];
	pl_diag d;
	const char *two = "placement-overrides 1\nk1 a 1\nk4 a 1\n";
	ck_assert_int_eq(pl_fleet_doc_read(v, two, strlen(two), o, 1, NULL, &d), PL_E_NOSPACE);
	ck_assert_uint_eq(d.index, 5);
	ck_assert_int_eq(pl_fleet_doc_read(NULL, two, strlen(two), o, 1, NULL, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.index, 1);
	ck_assert_int_eq(pl_fleet_doc_read(v, NULL, 3, o, 1, NULL, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.index, 2);
	ck_assert_int_eq(pl_fleet_doc_read(v, two, strlen(two), NULL, 1, NULL, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.index, 4);
	ck_assert_int_eq(pl_fleet_doc_format(NULL, NULL, 0), PL_E_INVAL);
	ck_assert_int_eq(pl_fleet_doc_format(v, NULL, 5), PL_E_INVAL);
	tl_free(t);
}
END_TEST

/* Mutated documents: the reader never reads past the text, and either
 * succeeds or writes nothing. A document it wrote reads back the same. */
START_TEST(mutated_documents)
{
	uint64_t seed = tl_seed(0xd0c5u);
	uint32_t iters = tl_iters(300);
	tl *t = tl_new();
	for (int i = 0; i < 6; i++)
		tl_member(t, tl_str(t, "m%d", i), NULL);
	for (int k = 0; k < 40; k++)
		tl_shard(t, tl_str(t, "s/%02d", k), PL_NONE, PL_NONE, 0);
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t rng = seed + it;
		t->no = 0;
		for (uint32_t k = 0; k < 40; k++)
			if (tl_below(&rng, 3) == 0)
				tl_override(t, k, tl_below(&rng, 6), tl_below(&rng, 2), tl_rand(&rng) % 100000);
		pl_view *v = tl_view(t, 0);
		int n = pl_fleet_doc_format(v, NULL, 0);
		char *doc = malloc((size_t)n + 1);
		pl_fleet_doc_format(v, doc, (size_t)n + 1);
		pl_override o[48];
		ck_assert_int_eq(pl_fleet_doc_read(v, doc, (size_t)n, o, 48, NULL, NULL), (int)t->no);
		for (uint32_t i = 0; i < t->no; i++) {
			/* the document is in key order, the same as k order here */
			ck_assert_uint_eq(o[i].shard, t->o[i].shard);
			ck_assert_uint_eq(o[i].member, t->o[i].member);
			ck_assert_uint_eq(o[i].origin, t->o[i].origin);
			ck_assert(o[i].since == t->o[i].since);
		}
		/* mutate a few bytes; read an exact-size copy (ASan checks bounds) */
		uint32_t flips = 1 + tl_below(&rng, 4);
		for (uint32_t f = 0; f < flips && n > 0; f++)
			doc[tl_below(&rng, (uint32_t)n)] = (char)tl_rand(&rng);
		size_t len = (size_t)n - (tl_below(&rng, 4) == 0 ? tl_below(&rng, (uint32_t)n) : 0);
		char *copy = malloc(len ? len : 1);
		memcpy(copy, doc, len);
		memset(o, 0x5e, sizeof o);
		pl_override o0[48];
		memcpy(o0, o, sizeof o);
		pl_diag d;
		int rc = pl_fleet_doc_read(v, copy, len, o, 48, NULL, &d);
		if (rc < 0) {
			ck_assert_mem_eq(o, o0, sizeof o);
			ck_assert_uint_ge(d.other, 1);
		} else {
			ck_assert_int_le(rc, 48);
		}
		free(copy);
		free(doc);
	}
	tl_free(t);
}
END_TEST

/* %XX reads in either case; a bad digit in either place is refused. */
START_TEST(escapes_in_either_case)
{
	tl *t = fleet();
	pl_override o[4];
	uint32_t skipped = 9;
	const char *lower = "placement-overrides 1\n%6b%31 %61 5 count\n", *upper = "placement-overrides 1\n%6B%31 %61 5\n";
	ck_assert_int_eq(read_doc(t, lower, o, 4, &skipped, NULL), 1);
	ck_assert_uint_eq(o[0].shard, 0);
	ck_assert_uint_eq(o[0].member, 0);
	ck_assert_uint_eq(o[0].origin, PL_ORIGIN_COUNT);
	ck_assert_uint_eq(skipped, 0);
	ck_assert_int_eq(read_doc(t, upper, o, 4, &skipped, NULL), 1);
	ck_assert_uint_eq(o[0].shard, 0);
	ck_assert_uint_eq(o[0].origin, PL_ORIGIN_LAG);
	expect_error(t, "placement-overrides 1\nk%!1 a 1\n", PL_E_DOC_SYNTAX, 2);
	expect_error(t, "placement-overrides 1\nk%3! a 1\n", PL_E_DOC_SYNTAX, 2);
	expect_error(t, "placement-overrides 1\nk%G1 a 1\n", PL_E_DOC_SYNTAX, 2);
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("overrides");
	TCase *c = tcase_create("document");
	tcase_add_test(c, format_then_read_round_trip);
	tcase_add_test(c, layout_rules);
	tcase_add_test(c, errors_name_the_line);
	tcase_add_test(c, escapes_in_either_case);
	suite_add_tcase(s, c);
	c = tcase_create("properties");
	tcase_set_timeout(c, 60);
	tcase_add_test(c, mutated_documents);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
