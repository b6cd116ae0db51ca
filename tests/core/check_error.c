/* check_error.c - error codes, their names and messages. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"
#include "testutil.h"

static const int codes[] = {
#define PL__CODE(name, value, msg) PL_##name,
	PL_ERROR_LIST(PL__CODE)
#undef PL__CODE
};

START_TEST(values_are_fixed)
{
	/* The values are part of the ABI: a binding may hard-code them. */
	ck_assert_int_eq(PL_OK, 0);
	ck_assert_int_eq(PL_E_INVAL, -1);
	ck_assert_int_eq(PL_E_DUP_MEMBER, -6);
	ck_assert_int_eq(PL_E_DUP_SHARD, -8);
	ck_assert_int_eq(PL_E_NO_ELIGIBLE, -20);
	ck_assert_int_eq(PL_E_WORKSPACE, -22);
	ck_assert_int_eq(PL_E_NOSPACE, -24);
	ck_assert_int_eq(PL_E_NOT_READY, -34);
	ck_assert_int_eq(PL_E_SHARD_RANGE, -35);
	ck_assert_int_eq(PL_E_OVERLAP, -39);
}
END_TEST

START_TEST(every_code_has_its_own_name_and_message)
{
	size_t n = sizeof codes / sizeof *codes;
	ck_assert_uint_ge(n, 36);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_le(codes[i], 0);
		ck_assert_str_ne(pl_error_name(codes[i]), "E_UNKNOWN");
		ck_assert_str_ne(pl_strerror(codes[i]), "unknown error");
		for (size_t j = 0; j < i; j++) {
			ck_assert_int_ne(codes[i], codes[j]);
			ck_assert_str_ne(pl_error_name(codes[i]), pl_error_name(codes[j]));
			ck_assert_str_ne(pl_strerror(codes[i]), pl_strerror(codes[j]));
		}
	}
	ck_assert_str_eq(pl_error_name(PL_E_DUP_MEMBER), "E_DUP_MEMBER");
	ck_assert_str_eq(pl_strerror(PL_E_DUP_MEMBER), "duplicate member id");
	ck_assert_str_eq(pl_error_name(PL_OK), "OK");
}
END_TEST

START_TEST(unknown_codes_and_counts)
{
	ck_assert_str_eq(pl_strerror(-999), "unknown error");
	ck_assert_str_eq(pl_error_name(-999), "E_UNKNOWN");
	ck_assert_str_eq(pl_strerror(7), "success"); /* a count is success */
	ck_assert_str_eq(pl_error_name(7), "OK");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("error");
	TCase *c = tcase_create("codes");
	tcase_add_test(c, values_are_fixed);
	tcase_add_test(c, every_code_has_its_own_name_and_message);
	tcase_add_test(c, unknown_codes_and_counts);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
