/* error.c - messages and names of error codes, generated from PL_ERROR_LIST. */
#include "core/core.h"

const char *pl_strerror(int code)
{
	if (code > 0)
		code = 0;
	switch (code) {
	PL_ERROR_LIST(PL__CASE_STRING)
	default:
		return "unknown error";
	}
}

const char *pl_error_name(int code)
{
	if (code > 0)
		code = 0;
	switch (code) {
#define PL__CASE(name, value, msg) \
	case value:                \
		return #name;
		PL_ERROR_LIST(PL__CASE)
#undef PL__CASE
	default:
		return "E_UNKNOWN";
	}
}
