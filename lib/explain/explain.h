/*
 * explain.h - what the files of pl_action_explain() share: an output that
 * counts what it would write, and the names of an action's elements.
 *
 * plan.c holds the names and the entry point; explain_broker.c,
 * explain_fleet.c and explain_region.c each render one family of actions,
 * and return 0 for an action that is not theirs.
 */
#ifndef PL_EXPLAIN_H
#define PL_EXPLAIN_H

#include <stdarg.h>
#include <stdio.h>

#include "view/view_int.h"

/* An output that counts what it would write, as snprintf does. */
typedef struct out {
	char *buf;
	size_t cap;
	size_t len;
} out;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static inline void put(out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = o->len < o->cap ? o->cap - o->len : 0;
	int n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

/* An id's bytes, as they are but for a control byte (below 0x20, 0x7f) or
 * a '%', written %XX as placement(5) spells it: a NUL in an id must not end
 * the sentence, nor a newline break its line, and two ids never read the
 * same. */
static inline int plain_byte(unsigned char c)
{
	return c >= 0x20 && c != 0x7f && c != '%';
}

static inline void put_bytes(out *o, pl_bytes b)
{
	const unsigned char *p = (const unsigned char *)b.ptr;
	uint64_t i = 0;
	while (p && i < b.len) {
		uint64_t j = i;
		while (i < b.len && i - j < 0x40000000u && plain_byte(p[i]))
			i++;
		if (i > j)
			put(o, "%.*s", (int)(i - j), (const char *)p + j);
		else
			put(o, "%%%02X", p[i++]);
	}
}

/* "1 replica", "2 replicas". */
static inline const char *plural(uint32_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* A count's unit after it: "" (leaders, said by the verb) or " replicas",
 * " replica" for one. */
static inline const char *unit_of(uint64_t n, const char *unit)
{
	return n == 1 && unit[0] != '\0' ? " replica" : unit;
}

typedef struct names {
	const pl_snapshot *s;
	const pl_action *a;
} names;

static inline void member(out *o, const names *n, uint32_t m)
{
	if (m == PL_NONE)
		put(o, "nobody");
	else
		put_bytes(o, n->s->members[m].id);
}

static inline void shard(out *o, const names *n)
{
	put_bytes(o, n->s->shards[n->a->shard].key);
}

/* An action from outside the library may name no stream where its sentence
 * wants one: it is written, never read past the array. */
static inline void stream(out *o, const names *n)
{
	if (n->a->stream == PL_NONE)
		put(o, "(none)");
	else
		put_bytes(o, n->s->streams[n->a->stream].id);
}

/* "<head><shard> on <to>". */
static inline void shard_on(out *o, const names *n, const char *head)
{
	put(o, "%s", head);
	shard(o, n);
	put(o, " on ");
	member(o, n, n->a->to);
}

/* "<head><shard> from <from><mid><to>": how most moves begin. */
static inline void shard_from_to(out *o, const names *n, const char *head, const char *mid)
{
	put(o, "%s", head);
	shard(o, n);
	put(o, " from ");
	member(o, n, n->a->from);
	put(o, "%s", mid);
	member(o, n, n->a->to);
}

int pl__explain_broker(out *o, const names *n);
int pl__explain_fleet(out *o, const names *n);
int pl__explain_region(out *o, const names *n);

#endif /* PL_EXPLAIN_H */
