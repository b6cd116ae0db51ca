/*
 * size.c - sizes in bytes (placement(5), SIZES): read as a decimal number
 * with an optional K, M, G, T or P (powers of 1024), written back with the
 * largest suffix that is exact, and shown to a reader rounded to one
 * decimal (integer arithmetic only).
 */
#include <stdio.h>
#include <string.h>

#include "tool.h"

static const char suffixes[] = "KMGTP";

int pt_size_parse(const char *p, size_t n, uint64_t *out)
{
	if (n == 0)
		return -1;
	unsigned shift = 0;
	const char *s = memchr(suffixes, p[n - 1], sizeof suffixes - 1);
	if (s && p[n - 1] != '\0') {
		shift = 10u * (unsigned)(s - suffixes + 1);
		n--;
	}
	if (n == 0 || n > 20)
		return -1;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned ch = (unsigned char)p[i] - '0';
		if (ch > 9)
			return -1;
		if (v > (UINT64_MAX - ch) / 10)
			return 1;
		v = v * 10 + ch;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return 1;
	*out = v << shift;
	return 0;
}

int pt_size_word(const char *p, size_t n, uint64_t max, uint64_t line, const char *name, uint64_t *out, pt_err *e)
{
	char sb[80], lim[32];
	int rc = pt_size_parse(p, n, out);
	pt_size_text(lim, sizeof lim, max);
	if (rc < 0)
		return pt_fail(e, line,
			       "bad size '%s' for %s: write a decimal number of bytes, with K, M, G, T or P for powers "
			       "of 1024 (512M, 10G, 1536)",
			       pt_show_bytes(p, n, sb, sizeof sb), name);
	if (rc > 0 || *out > max)
		return pt_fail(e, line, "size %s for %s is past the limit of %s (%llu bytes)",
			       pt_show_bytes(p, n, sb, sizeof sb), name, lim, (unsigned long long)max);
	return 0;
}

void pt_size_text(char *buf, size_t cap, uint64_t v)
{
	unsigned k = 0;
	while (k < sizeof suffixes - 1 && v && (v & 1023u) == 0) {
		v >>= 10;
		k++;
	}
	if (k)
		snprintf(buf, cap, "%llu%c", (unsigned long long)v, suffixes[k - 1]);
	else
		snprintf(buf, cap, "%llu", (unsigned long long)v);
}

void pt_put_size(pt_buf *b, uint64_t v)
{
	char t[32];
	pt_size_text(t, sizeof t, v);
	pt_put(b, "%s", t);
}

void pt_size_human(char *buf, size_t cap, uint64_t v)
{
	if (v == PL_BYTES_UNKNOWN) {
		snprintf(buf, cap, "?");
		return;
	}
	if (v < 1024) {
		snprintf(buf, cap, "%llu", (unsigned long long)v);
		return;
	}
	unsigned k = 0;
	uint64_t unit = 1;
	while (k < sizeof suffixes - 1 && v / unit >= 1024) {
		unit <<= 10;
		k++;
	}
	/* tenths, rounded half up, without floating point */
	uint64_t whole = v / unit, rest = v % unit;
	uint64_t tenths = (rest / (unit / 1024) * 10 + 512) / 1024;
	if (tenths >= 10) {
		whole++;
		tenths -= 10;
	}
	if (whole >= 1024 && k < sizeof suffixes - 1) {
		whole = 1;
		tenths = 0;
		k++;
	}
	if (tenths)
		snprintf(buf, cap, "%llu.%llu%c", (unsigned long long)whole, (unsigned long long)tenths, suffixes[k - 1]);
	else
		snprintf(buf, cap, "%llu%c", (unsigned long long)whole, suffixes[k - 1]);
}

void pt_put_size_human(pt_buf *b, uint64_t v)
{
	char t[32];
	pt_size_human(t, sizeof t, v);
	pt_put(b, "%s", t);
}
