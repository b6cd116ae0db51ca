/*
 * overrides.c - the override document: reading it into a snapshot's
 * overrides, and writing a view's overrides back as text.
 *
 * How it works. The layout is in placement/fleet.h: a header line
 * "placement-overrides 1", then one "<key> <member> <since> [<origin>]" line
 * per override, keys and ids %XX-escaped. Reading makes two passes over the
 * text with the same code: the first checks every line and counts the
 * overrides it resolves (so an error or a short array writes nothing), the
 * second writes them. Each key and id is unescaped into a fixed buffer of
 * PL_MAX_ID_LEN bytes on the stack and looked up in the view's canonical
 * orders (O(log n)); nothing is allocated. Writing also measures first, so
 * a document too long for an int is refused before a byte is written.
 *
 * It terminates: every pass moves forward through the text by at least one
 * byte per step.
 */
#include <stdio.h>

#include "fleet/fleet_int.h"

static const char HEADER[] = "placement-overrides";

typedef struct field {
	const char *p;
	size_t n;
} field;

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Split a line into at most `max` fields; returns how many there were
 * (max + 1 when there were more). */
static uint32_t split(const char *p, size_t n, field *f, uint32_t max)
{
	uint32_t count = 0;
	size_t i = 0;
	while (i < n) {
		while (i < n && is_space(p[i]))
			i++;
		if (i == n)
			break;
		size_t s = i;
		while (i < n && !is_space(p[i]))
			i++;
		if (count == max)
			return max + 1;
		f[count].p = p + s;
		f[count].n = i - s;
		count++;
	}
	return count;
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Unescape a field into buf[PL_MAX_ID_LEN]; its length, or a PL_E code. */
static int unescape(field f, char *buf)
{
	size_t n = 0;
	for (size_t i = 0; i < f.n; i++) {
		char c = f.p[i];
		if (c == '%') {
			if (i + 2 >= f.n)
				return PL_E_DOC_SYNTAX;
			int hi = hex(f.p[i + 1]), lo = hex(f.p[i + 2]);
			if (hi < 0 || lo < 0)
				return PL_E_DOC_SYNTAX;
			c = (char)(hi * 16 + lo);
			i += 2;
		}
		if (n == PL_MAX_ID_LEN)
			return PL_E_LENGTH;
		buf[n++] = c;
	}
	return (int)n;
}

static int number(field f, uint64_t *out)
{
	uint64_t x = 0;
	if (f.n == 0)
		return PL_E_DOC_SYNTAX;
	for (size_t i = 0; i < f.n; i++) {
		int d = f.p[i] - '0';
		if (d < 0 || d > 9 || x > (UINT64_MAX - (uint64_t)d) / 10)
			return PL_E_DOC_SYNTAX;
		x = x * 10 + (uint64_t)d;
	}
	*out = x;
	return 0;
}

static int word(field f, const char *w)
{
	size_t n = strlen(w);
	return f.n == n && memcmp(f.p, w, n) == 0;
}

/* One pass over the document. write: fill out[]; else only check and count. */
static int scan(const pl_view *v, const char *text, size_t len, pl_override *out, int write, uint32_t *n_out,
		uint32_t *skipped, uint32_t *bad_line)
{
	char buf[PL_MAX_ID_LEN];
	uint32_t line = 0, n = 0, skip = 0;
	int header = 0;
	size_t i = 0;
	while (i < len) {
		size_t s = i;
		while (i < len && text[i] != '\n')
			i++;
		size_t e = i;
		if (i < len)
			i++; /* the LF */
		if (e > s && text[e - 1] == '\r')
			e--;
		line++;
		*bad_line = line;
		field f[5];
		uint32_t nf = split(text + s, e - s, f, 4);
		if (nf == 0 || f[0].p[0] == '#')
			continue;
		if (!header) {
			uint64_t ver;
			if (nf != 2 || !word(f[0], HEADER) || number(f[1], &ver))
				return PL_E_DOC_SYNTAX;
			if (ver != PL_FLEET_DOC_VERSION)
				return PL_E_DOC_VERSION;
			header = 1;
			continue;
		}
		if (nf < 3 || nf > 4)
			return PL_E_DOC_SYNTAX;
		pl_override o;
		memset(&o, 0, sizeof o);
		int rc = number(f[2], &o.since);
		if (rc)
			return rc;
		o.origin = PL_ORIGIN_LAG; /* a line without an origin: what such a fleet did */
		if (nf == 4) {
			if (word(f[3], "lag"))
				o.origin = PL_ORIGIN_LAG;
			else if (word(f[3], "count"))
				o.origin = PL_ORIGIN_COUNT;
			else
				return PL_E_ORIGIN;
		}
		int kn = unescape(f[0], buf);
		if (kn < 0)
			return kn;
		int k = pl_view_find(v, PL_ELEM_SHARD, buf, (size_t)kn);
		int mn = unescape(f[1], buf);
		if (mn < 0)
			return mn;
		int m = pl_view_find(v, PL_ELEM_MEMBER, buf, (size_t)mn);
		if (k < 0 || m < 0) {
			skip++; /* the shard or the member is gone */
			continue;
		}
		o.shard = (uint32_t)k;
		o.member = (uint32_t)m;
		if (write)
			out[n] = o;
		n++;
	}
	*n_out = n;
	*skipped = skip;
	return 0;
}

int pl_fleet_doc_read(const pl_view *v, const char *text, size_t len, pl_override *out, uint32_t cap,
		      uint32_t *skipped, pl_diag *diag)
{
	const pl__arg a[3] = {PL__IN(text, len, 2), PL__OUT(out, pl__span(cap, sizeof *out), 4),
			      PL__OUT(skipped, sizeof *skipped, 6)};
	int rc = pl__check_args(v, NULL, a, 3, diag);
	if (rc)
		return rc;
	if (!pl__view_ok(v))
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 1, PL_NONE);
	if (text == NULL && len > 0)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 2, PL_NONE);
	if (out == NULL && cap > 0)
		return pl__fail(diag, PL_E_INVAL, PL_ELEM_ARGUMENT, 4, PL_NONE);
	uint32_t n, skip, line = 0;
	rc = scan(v, text, len, out, 0, &n, &skip, &line);
	if (rc)
		return pl__fail(diag, rc, PL_ELEM_ARGUMENT, 2, line);
	if (n > cap)
		return pl__fail(diag, PL_E_NOSPACE, PL_ELEM_ARGUMENT, 5, PL_NONE);
	if (n > (uint32_t)INT32_MAX)
		return pl__fail(diag, PL_E_LIMIT, PL_ELEM_ARGUMENT, 2, PL_NONE);
	rc = scan(v, text, len, out, 1, &n, &skip, &line);
	PL_ASSERT(rc == 0);
	if (skipped)
		*skipped = skip;
	return (int)n;
}

/* ---- writing ------------------------------------------------------------------ */

typedef struct sink {
	char *buf;
	size_t cap;
	uint64_t len;
} sink;

static void put_char(sink *s, char c)
{
	if (s->len + 1 < s->cap)
		s->buf[s->len] = c;
	s->len++;
}

static void put_str(sink *s, const char *p)
{
	while (*p)
		put_char(s, *p++);
}

static void put_escaped(sink *s, pl_bytes b)
{
	static const char digits[] = "0123456789ABCDEF";
	for (uint64_t i = 0; i < b.len; i++) {
		unsigned char c = (unsigned char)b.ptr[i];
		if (c == '%' || c == '#' || c < '!' || c > '~') {
			put_char(s, '%');
			put_char(s, digits[c >> 4]);
			put_char(s, digits[c & 15]);
		} else {
			put_char(s, (char)c);
		}
	}
}

static void put_u64(sink *s, uint64_t x)
{
	char d[24];
	int n = 0;
	do {
		d[n++] = (char)('0' + x % 10);
		x /= 10;
	} while (x);
	while (n)
		put_char(s, d[--n]);
}

static void format(const pl_view *v, sink *s)
{
	put_str(s, HEADER);
	put_char(s, ' ');
	put_u64(s, PL_FLEET_DOC_VERSION);
	put_char(s, '\n');
	if (v->n_overrides == 0)
		return;
	for (uint32_t i = 0; i < v->nk; i++) {
		uint32_t k = v->k_order[i];
		const pl__shard_state *st = pl__st(v, k);
		if (pl__ov(st) == PL_NONE)
			continue;
		put_escaped(s, v->snap.shards[k].key);
		put_char(s, ' ');
		put_escaped(s, v->snap.members[pl__ov(st)].id);
		put_char(s, ' ');
		put_u64(s, pl__since(st));
		put_str(s, st->ov_origin == PL_ORIGIN_COUNT ? " count\n" : " lag\n");
	}
}

int pl_fleet_doc_format(const pl_view *v, char *buf, size_t cap)
{
	const pl__arg a[1] = {PL__OUT(buf, cap, 2)};
	if (pl__check_args(v, NULL, a, 1, NULL))
		return PL_E_OVERLAP;
	if (!pl__view_ok(v) || (buf == NULL && cap > 0))
		return PL_E_INVAL;
	sink measure = {NULL, 0, 0};
	format(v, &measure);
	if (measure.len > (uint64_t)INT32_MAX)
		return PL_E_LIMIT;
	if (cap > 0) {
		sink s = {buf, cap, 0};
		format(v, &s);
		buf[s.len < cap ? s.len : cap - 1] = '\0';
	}
	return (int)measure.len;
}
