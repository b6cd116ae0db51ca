/*
 * parse_words.c - the words of a line: splitting, %XX escapes, numbers, ids and
 * attributes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* ---- words ------------------------------------------------------------------------ */

int pt_next_word(cursor *c, word *w)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
	if (c->p == c->end)
		return 0;
	w->p = c->p;
	while (c->p < c->end && *c->p != ' ' && *c->p != '\t')
		c->p++;
	w->n = (size_t)(c->p - w->p);
	return 1;
}

int pt_word_is(word w, const char *s)
{
	size_t n = strlen(s);
	return w.n == n && memcmp(w.p, s, n) == 0;
}

const char *pt_show_bytes(const char *p, size_t n, char *buf, size_t cap)
{
	size_t j = 0;
	for (size_t i = 0; i < n && j + 5 < cap; i++) {
		unsigned char ch = (unsigned char)p[i];
		if (i == 60) {
			memcpy(buf + j, "...", 3);
			j += 3;
			break;
		}
		if (ch < 0x20 || ch >= 0x7f) {
			snprintf(buf + j, cap - j, "%%%02X", ch);
			j += 3;
		} else {
			buf[j++] = (char)ch;
		}
	}
	buf[j] = '\0';
	return buf;
}

const char *pt_show(word w, char *buf, size_t cap)
{
	return pt_show_bytes(w.p, w.n, buf, cap);
}

const char *pt_show_arg(const char *s, char *buf, size_t cap)
{
	return pt_show_bytes(s, strlen(s), buf, cap);
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Decode %XX escapes in place; what: the field, for the message. */
int pt_decode_word(word *w, uint64_t line, const char *what, pt_err *e)
{
	char *s = w->p, *o = w->p;
	char sb[80];
	for (size_t i = 0; i < w->n; i++) {
		if (s[i] != '%') {
			*o++ = s[i];
			continue;
		}
		int hi = i + 1 < w->n ? hexval((unsigned char)s[i + 1]) : -1;
		int lo = i + 2 < w->n ? hexval((unsigned char)s[i + 2]) : -1;
		if (hi < 0 || lo < 0)
			return pt_fail(e, line, "bad %%XX escape in %s '%s': a '%%' must be followed by two hex digits", what,
				       pt_show(*w, sb, sizeof sb));
		*o++ = (char)(hi * 16 + lo);
		i += 2;
	}
	w->n = (size_t)(o - w->p);
	return 0;
}

static int parse_u64(word w, uint64_t *out)
{
	if (w.n == 0 || w.n > 20)
		return -1;
	uint64_t v = 0;
	for (size_t i = 0; i < w.n; i++) {
		unsigned ch = (unsigned char)w.p[i] - '0';
		if (ch > 9)
			return -1;
		if (v > (UINT64_MAX - ch) / 10)
			return -1;
		v = v * 10 + ch;
	}
	*out = v;
	return 0;
}

/* A number for attribute `name`, at most max. */
int pt_number(word w, uint64_t max, uint64_t line, const char *name, uint64_t *out, pt_err *e)
{
	char sb[80];
	if (parse_u64(w, out) != 0) {
		for (size_t i = 0; i < w.n; i++)
			if ((unsigned)((unsigned char)w.p[i] - '0') > 9)
				return pt_fail(e, line, "bad number '%s' for %s: write a decimal number from 0 to %llu",
					       pt_show(w, sb, sizeof sb), name, (unsigned long long)max);
		if (w.n == 0)
			return pt_fail(e, line, "missing number after %s", name);
		return pt_fail(e, line, "number %s for %s is past the limit of %llu", pt_show(w, sb, sizeof sb), name,
			       (unsigned long long)max);
	}
	if (*out > max)
		return pt_fail(e, line, "number %llu for %s is past the limit of %llu", (unsigned long long)*out, name,
			       (unsigned long long)max);
	return 0;
}

/* An id word: no raw '=', decoded, not empty. */
int pt_id_word(word *w, uint64_t line, const char *kind, pt_err *e)
{
	char sb[80];
	if (memchr(w->p, '=', w->n))
		return pt_fail(e, line, "%s id '%s' contains '=': the id comes first (write an '=' in an id as %%3D)", kind,
			       pt_show(*w, sb, sizeof sb));
	if (pt_decode_word(w, line, kind, e))
		return -1;
	if (w->n == 0)
		return pt_fail(e, line, "%s id is empty", kind);
	return 0;
}

/* Split an attribute word into name and value (has_value 0 for a bare word). */
int pt_split_attr(word w, word *name, word *val, int *has_value, uint64_t line, pt_err *e)
{
	char *eq = memchr(w.p, '=', w.n);
	char sb[80];
	if (eq == NULL) {
		*name = w;
		*has_value = 0;
		return 0;
	}
	name->p = w.p;
	name->n = (size_t)(eq - w.p);
	val->p = eq + 1;
	val->n = w.n - name->n - 1;
	*has_value = 1;
	if (name->n == 0)
		return pt_fail(e, line, "'%s' has no name before '='", pt_show(w, sb, sizeof sb));
	if (memchr(val->p, '=', val->n))
		return pt_fail(e, line, "value of %.*s= contains a second '=' (write an '=' in a value as %%3D)",
			       (int)(name->n > 40 ? 40 : name->n), name->p);
	return 0;
}

int pt_decode_arg(const char *arg, char **out, size_t *len, pt_err *e)
{
	size_t n = strlen(arg);
	char *p = pt_alloc(n + 1);
	memcpy(p, arg, n + 1);
	word w = {p, n};
	if (pt_decode_word(&w, 0, "argument", e)) {
		free(p);
		return -1;
	}
	*out = p;
	*len = w.n;
	return 0;
}
