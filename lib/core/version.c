/* version.c - the library's version at run time. */
#include "core/core.h"

const char *pl_version(void)
{
	return PL_VERSION_STRING;
}

int pl_version_number(void)
{
	return PL_VERSION_NUMBER;
}
