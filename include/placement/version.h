/*
 * placement/version.h - version macros and the export macro.
 *
 * Every other public header includes this one. The Makefile reads the three
 * PL_VERSION_* numbers from here, so this is the one place a release edits.
 */
#ifndef PLACEMENT_VERSION_H
#define PLACEMENT_VERSION_H

#define PL_VERSION_MAJOR 0
#define PL_VERSION_MINOR 1
#define PL_VERSION_PATCH 0

#define PL__STR_(x) #x
#define PL__STR(x) PL__STR_(x)
/** "MAJOR.MINOR.PATCH" of the headers in use. */
#define PL_VERSION_STRING \
	PL__STR(PL_VERSION_MAJOR) "." PL__STR(PL_VERSION_MINOR) "." PL__STR(PL_VERSION_PATCH)
/** One number, MAJOR * 10000 + MINOR * 100 + PATCH, for #if comparisons. */
#define PL_VERSION_NUMBER \
	(PL_VERSION_MAJOR * 10000 + PL_VERSION_MINOR * 100 + PL_VERSION_PATCH)

/* PL_API marks the library's exported functions. The library is built with
 * -fvisibility=hidden, so anything without it stays internal. */
#if defined(_WIN32) && defined(PL_BUILDING_DLL)
#define PL_API __declspec(dllexport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#define PL_API __attribute__((visibility("default")))
#else
#define PL_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * pl_version - the library's version at run time.
 *
 * @return "MAJOR.MINOR.PATCH" of the linked library, a static string. Compare
 *         with PL_VERSION_STRING to detect a header/library mismatch.
 */
PL_API const char *pl_version(void);

/**
 * pl_version_number - the linked library's PL_VERSION_NUMBER.
 */
PL_API int pl_version_number(void);

#ifdef __cplusplus
}
#endif

#endif /* PLACEMENT_VERSION_H */
