/*
 * parse.c - the snapshot text format (placement(5)): the grammar, ids and
 * escapes, and references by id.
 *
 * How it works. The parser walks the file's buffer (read by validate.c)
 * line by line, in place: a line is cut at '#', split into words at spaces
 * and tabs, and %XX escapes are decoded in place, so every id and key of the
 * snapshot points into the buffer and nothing is copied. Members, streams
 * and shards are kept in hash tables by id (XXH3, through id_hash()), which
 * find duplicates as they are declared and resolve references in O(1). A
 * reference to an element declared later in the file is kept aside and
 * resolved at the end, so a file may list things in any order. Errors come
 * in this order: the first syntax error in the file, then the first
 * unresolved reference, then the events; then (validate.c) the library's
 * validation, mapped back to lines.
 */
#define _DEFAULT_SOURCE /* madvise() and MADV_HUGEPAGE, where there are */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "tool.h"

int pt_fail(pt_err *e, uint64_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	e->line = line;
	return -1;
}

const pt_setting_info pt_settings[PT_SET_COUNT] = {
	[PT_SET_POLICY] = {"policy", PT_T_POLICY, 0, "broker, fleet or region: the policy plan and simulate run"},
	[PT_SET_SCORER] = {"scorer", PT_T_SCORER, 0, "xxh3 (default) or legacy (FNV-1a over \"<key> <member>\")"},
	[PT_SET_NOW] = {"now", PT_T_NUM, UINT64_MAX, "the caller's clock at the first tick (fleet)"},
	[PT_SET_TICK] = {"tick", PT_T_NUM, UINT64_MAX, "clock units one tick advances"},
	[PT_SET_TICKS] = {"ticks", PT_T_NUM, PT_MAX_TICKS, "ticks simulate runs"},
	[PT_SET_SELF] = {"self", PT_T_MEMBER, 0, "fleet: the member that decides (default: every member)"},
	[PT_SET_RF] = {"rf", PT_T_NUM, UINT32_MAX, "replication factor (broker, region)"},
	[PT_SET_MAX_MOVES] = {"max-moves", PT_T_NUM, UINT32_MAX, "broker: concurrent moves"},
	[PT_SET_MAX_MOVES_IN] = {"max-moves-in", PT_T_NUM, UINT32_MAX, "broker: moves into one member, 0 = any"},
	[PT_SET_MAX_MOVES_OUT] = {"max-moves-out", PT_T_NUM, UINT32_MAX, "broker: moves out of one member, 0 = any"},
	[PT_SET_PAUSED] = {"paused", PT_T_BOOL, 1, "broker: start no move"},
	[PT_SET_STREAM_BALANCE] = {"stream-balance", PT_T_BOOL, 1, "broker: per-stream tiers and pass"},
	[PT_SET_COOLDOWN] = {"cooldown", PT_T_NUM, UINT64_MAX, "fleet: time between two moves of a member"},
	[PT_SET_MOVES_PER_DECISION] = {"moves-per-decision", PT_T_NUM, UINT32_MAX, "fleet: moves per decision"},
	[PT_SET_SPREAD] = {"spread", PT_T_BOOL, 1, "fleet: close the spread below the floor"},
	[PT_SET_RETURN_HOME_AGE] = {"return-home-age", PT_T_NUM, UINT64_MAX, "fleet: age of a lag override before it goes home"},
	[PT_SET_COUNT_BALANCE] = {"count-balance", PT_T_BOOL, 1, "fleet: count balance"},
	[PT_SET_ADD_PEER_PROPOSALS] = {"add-peer-proposals", PT_T_BOOL, 1, "region: add peers"},
	[PT_SET_LOAD_BALANCE] = {"load-balance", PT_T_BOOL, 1, "region: primaries toward less load"},
	[PT_SET_LOAD_THRESHOLD] = {"load-threshold", PT_T_NUM, UINT32_MAX, "region: percent of load difference"},
	[PT_SET_MAX_ACTIONS] = {"max-actions", PT_T_NUM, UINT32_MAX, "region: actions per call"},
};

const char *pt_policy_name(uint32_t p)
{
	switch (p) {
	case PT_POLICY_BROKER: return "broker";
	case PT_POLICY_FLEET: return "fleet";
	case PT_POLICY_REGION: return "region";
	default: return "none";
	}
}

const char *pt_event_name(uint32_t kind)
{
	switch (kind) {
	case PT_EV_JOIN: return "join";
	case PT_EV_DRAIN: return "drain";
	case PT_EV_DOWN: return "down";
	case PT_EV_LAG: return "lag";
	case PT_EV_UP: return "up";
	default: return "unknown";
	}
}

/* ---- the document ------------------------------------------------------------ */

void pt_doc_init(pt_doc *d, const char *path)
{
	memset(d, 0, sizeof *d);
	d->path = path;
}

static void table_free(pt_table *t)
{
	free(t->slot);
	memset(t, 0, sizeof *t);
}

void pt_doc_free(pt_doc *d)
{
	free(d->text);
	free(d->members);
	free(d->m_line);
	free(d->m_last_move);
	free(d->streams);
	free(d->s_line);
	free(d->shards);
	free(d->k_line);
	free(d->overrides);
	free(d->o_line);
	free(d->events);
	for (size_t i = 0; i < d->nkeep; i++)
		free(d->keep[i]);
	free(d->keep);
	table_free(&d->tm);
	table_free(&d->ts);
	table_free(&d->tk);
	memset(d, 0, sizeof *d);
}

void pt_doc_keep(pt_doc *d, char *p)
{
	d->keep = pt_grow(d->keep, &d->keep_cap, sizeof *d->keep, d->nkeep + 1);
	d->keep[d->nkeep++] = p;
}

pl_snapshot pt_doc_snapshot(const pt_doc *d)
{
	pl_snapshot s = {d->members, d->streams, d->shards, d->overrides, NULL, d->nm, d->ns, d->nk, d->no, 0};
	return s;
}

/* ---- hash tables of ids ---------------------------------------------------------- */

/* The i-th id of a kind. */
typedef pl_bytes (*id_at_fn)(const pt_doc *d, uint32_t i);

static pl_bytes member_id(const pt_doc *d, uint32_t i)
{
	return d->members[i].id;
}
static pl_bytes stream_id(const pt_doc *d, uint32_t i)
{
	return d->streams[i].id;
}
static pl_bytes shard_key(const pt_doc *d, uint32_t i)
{
	return d->shards[i].key;
}

/* The tables' hash of an id: 8 bytes a step, multiply and xor-shift (the
 * finaliser of splitmix64). Only the tables use it; no result depends on it. */
static uint64_t id_hash(const char *p, size_t n)
{
	uint64_t h = UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)n;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = (h ^ w) * UINT64_C(0xBF58476D1CE4E5B9);
		h ^= h >> 31;
		p += 8;
		n -= 8;
	}
	uint64_t w = 0;
	if (n)
		memcpy(&w, p, n);
	h = (h ^ w) * UINT64_C(0x94D049BB133111EB);
	h ^= h >> 29;
	h *= UINT64_C(0xBF58476D1CE4E5B9);
	return h ^ (h >> 32);
}

static int same(pl_bytes a, const char *p, size_t n)
{
	return a.len == n && (n == 0 || memcmp(a.ptr, p, n) == 0);
}

static int64_t table_find(const pt_doc *d, const pt_table *t, id_at_fn at, const char *p, size_t n, uint64_t h)
{
	if (t->slot == NULL)
		return -1;
	uint64_t tag = h >> 32;
	for (size_t i = (size_t)tag & t->mask;; i = (i + 1) & t->mask) {
		uint64_t s = t->slot[i];
		if (s == 0)
			return -1;
		if ((s >> 32) == tag) {
			uint32_t idx = (uint32_t)(s & 0xffffffffu) - 1;
			if (same(at(d, idx), p, n))
				return idx;
		}
	}
}

/* A big table is read at random: on Linux, ask for huge pages, so a probe
 * costs a cache miss and not also a TLB miss. */
static uint64_t *table_alloc(size_t n)
{
	size_t bytes = n * sizeof(uint64_t);
	void *p = NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (bytes >= (size_t)4 << 20) {
		if (posix_memalign(&p, (size_t)2 << 20, bytes) != 0)
			pt_oom();
		madvise(p, bytes, MADV_HUGEPAGE);
		memset(p, 0, bytes);
		return p;
	}
#endif
	p = calloc(n, sizeof(uint64_t));
	if (p == NULL)
		pt_oom();
	return p;
}

/* A slot holds the hash's high 32 bits (its tag, which also gives its place)
 * and the index + 1, so growing the table reads no id again. */
static void table_put_slot(pt_table *t, uint64_t slot)
{
	size_t i = (size_t)(slot >> 32) & t->mask;
	while (t->slot[i] != 0)
		i = (i + 1) & t->mask;
	t->slot[i] = slot;
	t->used++;
}

/* Insert index idx (whose id is already in its array) with hash h. */
static void table_insert(pt_table *t, uint32_t idx, uint64_t h)
{
	if (t->slot == NULL || (t->used + 1) * 2 > t->mask + 1) {
		size_t n = t->slot ? (t->mask + 1) * 2 : 64;
		uint64_t *old = t->slot;
		size_t old_n = t->slot ? t->mask + 1 : 0;
		t->slot = table_alloc(n);
		t->mask = n - 1;
		t->used = 0;
		for (size_t i = 0; i < old_n; i++)
			if (old[i])
				table_put_slot(t, old[i]);
		free(old);
	}
	table_put_slot(t, ((h >> 32) << 32) | ((uint64_t)idx + 1));
}

int64_t pt_find_member(const pt_doc *d, const char *id, size_t len)
{
	return table_find(d, &d->tm, member_id, id, len, id_hash(id, len));
}


/* ---- words ------------------------------------------------------------------------ */

typedef struct word {
	char *p;
	size_t n;
} word;

typedef struct cursor {
	char *p, *end;
	uint64_t line;
} cursor;

static int next_word(cursor *c, word *w)
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

static int word_is(word w, const char *s)
{
	size_t n = strlen(s);
	return w.n == n && memcmp(w.p, s, n) == 0;
}

/* A word for a message: printable, cut at 60 bytes. */
static const char *show(word w, char *buf, size_t cap)
{
	size_t j = 0;
	for (size_t i = 0; i < w.n && j + 5 < cap; i++) {
		unsigned char ch = (unsigned char)w.p[i];
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
static int decode(word *w, uint64_t line, const char *what, pt_err *e)
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
				       show(*w, sb, sizeof sb));
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
static int number(word w, uint64_t max, uint64_t line, const char *name, uint64_t *out, pt_err *e)
{
	char sb[80];
	if (parse_u64(w, out) != 0) {
		for (size_t i = 0; i < w.n; i++)
			if ((unsigned)((unsigned char)w.p[i] - '0') > 9)
				return pt_fail(e, line, "bad number '%s' for %s: write a decimal number from 0 to %llu",
					       show(w, sb, sizeof sb), name, (unsigned long long)max);
		if (w.n == 0)
			return pt_fail(e, line, "missing number after %s", name);
		return pt_fail(e, line, "number %s for %s is past the limit of %llu", show(w, sb, sizeof sb), name,
			       (unsigned long long)max);
	}
	if (*out > max)
		return pt_fail(e, line, "number %llu for %s is past the limit of %llu", (unsigned long long)*out, name,
			       (unsigned long long)max);
	return 0;
}

/* An id word: no raw '=', decoded, not empty. */
static int id_word(word *w, uint64_t line, const char *kind, pt_err *e)
{
	char sb[80];
	if (memchr(w->p, '=', w->n))
		return pt_fail(e, line, "%s id '%s' contains '=': the id comes first (write an '=' in an id as %%3D)", kind,
			       show(*w, sb, sizeof sb));
	if (decode(w, line, kind, e))
		return -1;
	if (w->n == 0)
		return pt_fail(e, line, "%s id is empty", kind);
	return 0;
}

/* Split an attribute word into name and value (has_value 0 for a bare word). */
static int split_attr(word w, word *name, word *val, int *has_value, uint64_t line, pt_err *e)
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
		return pt_fail(e, line, "'%s' has no name before '='", show(w, sb, sizeof sb));
	if (memchr(val->p, '=', val->n))
		return pt_fail(e, line, "value of %.*s= contains a second '=' (write an '=' in a value as %%3D)",
			       (int)(name->n > 40 ? 40 : name->n), name->p);
	return 0;
}

/* ---- references resolved at the end ------------------------------------------- */

enum ref_field {
	REF_STREAM,
	REF_LEADER,
	REF_MOVING,
	REF_REPLICA, /* + j */
	REF_OV_SHARD = REF_REPLICA + PL_MAX_REPLICAS,
	REF_OV_MEMBER,
	REF_SELF
};

typedef struct ref {
	uint64_t line;
	pl_bytes name;
	uint32_t elem;  /* shard or override index */
	uint32_t field; /* enum ref_field */
} ref;

typedef struct parser {
	pt_doc *d;
	ref *refs;
	size_t nref, ref_cap;
} parser;

static void add_ref(parser *ps, uint64_t line, word w, uint32_t elem, uint32_t field)
{
	ps->refs = pt_grow(ps->refs, &ps->ref_cap, sizeof *ps->refs, ps->nref + 1);
	ps->refs[ps->nref++] = (ref){line, {w.p, w.n}, elem, field};
}

static const char *field_name(uint32_t f)
{
	if (f >= REF_REPLICA && f < REF_REPLICA + PL_MAX_REPLICAS)
		return "replicas=";
	switch (f) {
	case REF_STREAM: return "stream=";
	case REF_LEADER: return "leader=";
	case REF_MOVING: return "moving-to=";
	case REF_OV_SHARD: return "override";
	case REF_OV_MEMBER: return "member=";
	default: return "self=";
	}
}

static void set_ref(pt_doc *d, const ref *r, uint32_t idx)
{
	if (r->field == REF_SELF) {
		d->set[PT_SET_SELF].value = idx;
		return;
	}
	if (r->field == REF_OV_SHARD) {
		d->overrides[r->elem].shard = idx;
		return;
	}
	if (r->field == REF_OV_MEMBER) {
		d->overrides[r->elem].member = idx;
		return;
	}
	pl_shard *k = &d->shards[r->elem];
	if (r->field == REF_STREAM)
		k->stream = idx;
	else if (r->field == REF_LEADER)
		k->leader = idx;
	else if (r->field == REF_MOVING)
		k->moving_to = idx;
	else
		k->replicas[r->field - REF_REPLICA] = idx;
}

/* Look a member up now, or keep the reference for the end. */
static uint32_t member_ref(parser *ps, uint64_t line, word w, uint32_t elem, uint32_t field)
{
	int64_t i = table_find(ps->d, &ps->d->tm, member_id, w.p, w.n, id_hash(w.p, w.n));
	if (i >= 0)
		return (uint32_t)i;
	add_ref(ps, line, w, elem, field);
	return PL_NONE;
}

/* ---- statements ----------------------------------------------------------------- */

#define ATTR(bit) (1u << (bit))

static int twice(uint32_t *seen, uint32_t bit, word name, uint64_t line, pt_err *e)
{
	/* a valued attribute's name is followed by its '=' in the line */
	int eq = name.p[name.n] == '=';
	if (*seen & ATTR(bit))
		return pt_fail(e, line, "%.*s%s is given twice", (int)(name.n > 40 ? 40 : name.n), name.p, eq ? "=" : "");
	*seen |= ATTR(bit);
	return 0;
}

static int need_value(int has, word name, uint64_t line, pt_err *e)
{
	if (!has)
		return pt_fail(e, line, "%.*s needs a value: %.*s=VALUE", (int)(name.n > 40 ? 40 : name.n), name.p,
			       (int)(name.n > 40 ? 40 : name.n), name.p);
	return 0;
}

static int no_value(int has, word name, uint64_t line, pt_err *e)
{
	if (has)
		return pt_fail(e, line, "%.*s is a flag and takes no value", (int)(name.n > 40 ? 40 : name.n), name.p);
	return 0;
}

static const char member_attrs[] =
	"zone=, weight=, cap=, joined=, load=, map=, last-move=, down, draining, lagging, unmeasured";

/* The attributes of a member (a member line, or a join event). */
static int member_attrs_parse(cursor *c, pl_member *m, uint64_t *last_move, int *joined_given, pt_err *e)
{
	word w, name, val;
	int has;
	uint32_t seen = 0;
	char sb[80];
	while (next_word(c, &w)) {
		if (split_attr(w, &name, &val, &has, c->line, e))
			return -1;
		uint64_t n;
		if (word_is(name, "zone")) {
			if (twice(&seen, 0, name, c->line, e) || need_value(has, name, c->line, e) ||
			    decode(&val, c->line, "zone=", e))
				return -1;
			m->zone = (pl_bytes){val.n ? val.p : NULL, val.n};
		} else if (word_is(name, "weight")) {
			if (twice(&seen, 1, name, c->line, e) || need_value(has, name, c->line, e) ||
			    number(val, UINT32_MAX, c->line, "weight=", &n, e))
				return -1;
			m->weight = (uint32_t)n;
		} else if (word_is(name, "cap")) {
			if (twice(&seen, 2, name, c->line, e) || need_value(has, name, c->line, e) ||
			    number(val, UINT32_MAX, c->line, "cap=", &n, e))
				return -1;
			m->max_shards = (uint32_t)n;
		} else if (word_is(name, "joined")) {
			if (twice(&seen, 3, name, c->line, e) || need_value(has, name, c->line, e) ||
			    number(val, UINT64_MAX, c->line, "joined=", &m->joined_at, e))
				return -1;
			if (joined_given)
				*joined_given = 1;
		} else if (word_is(name, "load")) {
			if (twice(&seen, 4, name, c->line, e) || need_value(has, name, c->line, e) ||
			    number(val, UINT64_MAX, c->line, "load=", &m->load, e))
				return -1;
		} else if (word_is(name, "map")) {
			if (twice(&seen, 5, name, c->line, e) || need_value(has, name, c->line, e) ||
			    number(val, UINT64_MAX, c->line, "map=", &m->map_version, e))
				return -1;
		} else if (word_is(name, "last-move")) {
			if (twice(&seen, 6, name, c->line, e) || need_value(has, name, c->line, e) ||
			    number(val, UINT64_MAX - 1, c->line, "last-move=", last_move, e))
				return -1;
		} else if (word_is(name, "down") || word_is(name, "draining") || word_is(name, "lagging") ||
			   word_is(name, "unmeasured")) {
			uint32_t f = word_is(name, "down") ? PL_MEMBER_DOWN
				     : word_is(name, "draining") ? PL_MEMBER_DRAINING
				     : word_is(name, "lagging") ? PL_MEMBER_LAGGING
								 : PL_MEMBER_UNMEASURED;
			uint32_t bit = f == PL_MEMBER_DOWN ? 7 : f == PL_MEMBER_DRAINING ? 8 : f == PL_MEMBER_LAGGING ? 9 : 10;
			if (twice(&seen, bit, name, c->line, e) || no_value(has, name, c->line, e))
				return -1;
			m->flags |= f;
		} else {
			return pt_fail(e, c->line, "unknown member attribute '%s' (expected %s)", show(name, sb, sizeof sb),
				       member_attrs);
		}
	}
	if ((seen & ATTR(4)) && (m->flags & PL_MEMBER_UNMEASURED))
		return pt_fail(e, c->line, "load= and unmeasured contradict: a member's load is measured or not");
	return 0;
}

static int limit_fail(pt_err *e, uint64_t line, const char *what, uint64_t lim, const char *macro)
{
	return pt_fail(e, line, "one %s too many: past the limit of %llu %ss (%s)", what, (unsigned long long)lim, what,
		       macro);
}

static int st_member(parser *ps, cursor *c, pt_err *e)
{
	pt_doc *d = ps->d;
	word w;
	char sb[80];
	if (!next_word(c, &w))
		return pt_fail(e, c->line, "member: missing id (member ID [%s])", member_attrs);
	if (id_word(&w, c->line, "member", e))
		return -1;
	if (d->nm >= PL_MAX_MEMBERS)
		return limit_fail(e, c->line, "member", PL_MAX_MEMBERS, "PL_MAX_MEMBERS");
	uint64_t h = id_hash(w.p, w.n);
	int64_t dup = table_find(d, &d->tm, member_id, w.p, w.n, h);
	if (dup >= 0)
		return pt_fail(e, c->line, "member '%s' is declared twice (first at line %llu)", show(w, sb, sizeof sb),
			       (unsigned long long)d->m_line[dup]);
	size_t cap = d->m_cap;
	d->members = pt_grow(d->members, &cap, sizeof *d->members, (size_t)d->nm + 1);
	cap = d->m_cap;
	d->m_line = pt_grow(d->m_line, &cap, sizeof *d->m_line, (size_t)d->nm + 1);
	cap = d->m_cap;
	d->m_last_move = pt_grow(d->m_last_move, &d->m_cap, sizeof *d->m_last_move, (size_t)d->nm + 1);
	pl_member *m = &d->members[d->nm];
	memset(m, 0, sizeof *m);
	m->id = (pl_bytes){w.p, w.n};
	d->m_line[d->nm] = c->line;
	d->m_last_move[d->nm] = PT_NEVER;
	if (member_attrs_parse(c, m, &d->m_last_move[d->nm], NULL, e))
		return -1;
	table_insert(&d->tm, d->nm, h);
	d->nm++;
	return 0;
}

static int st_stream(parser *ps, cursor *c, pt_err *e)
{
	pt_doc *d = ps->d;
	word w;
	char sb[80];
	if (!next_word(c, &w))
		return pt_fail(e, c->line, "stream: missing id (stream ID)");
	if (id_word(&w, c->line, "stream", e))
		return -1;
	if (d->ns >= PL_MAX_STREAMS)
		return limit_fail(e, c->line, "stream", PL_MAX_STREAMS, "PL_MAX_STREAMS");
	uint64_t h = id_hash(w.p, w.n);
	int64_t dup = table_find(d, &d->ts, stream_id, w.p, w.n, h);
	if (dup >= 0)
		return pt_fail(e, c->line, "stream '%s' is declared twice (first at line %llu)", show(w, sb, sizeof sb),
			       (unsigned long long)d->s_line[dup]);
	word extra;
	if (next_word(c, &extra))
		return pt_fail(e, c->line, "stream takes only an id, not '%s'", show(extra, sb, sizeof sb));
	size_t cap = d->s_cap;
	d->streams = pt_grow(d->streams, &cap, sizeof *d->streams, (size_t)d->ns + 1);
	d->s_line = pt_grow(d->s_line, &d->s_cap, sizeof *d->s_line, (size_t)d->ns + 1);
	d->streams[d->ns].id = (pl_bytes){w.p, w.n};
	d->s_line[d->ns] = c->line;
	table_insert(&d->ts, d->ns, h);
	d->ns++;
	return 0;
}

static const char shard_attrs[] =
	"stream=, replicas=, leader=, moving-to=, epoch=, load=, not-idempotent, transfer-debt";

static int st_shard(parser *ps, cursor *c, pt_err *e)
{
	pt_doc *d = ps->d;
	word w, name, val;
	int has;
	char sb[80];
	if (!next_word(c, &w))
		return pt_fail(e, c->line, "shard: missing key (shard KEY [%s])", shard_attrs);
	if (id_word(&w, c->line, "shard", e))
		return -1;
	if (d->nk >= PL_MAX_SHARDS)
		return limit_fail(e, c->line, "shard", PL_MAX_SHARDS, "PL_MAX_SHARDS");
	/* Shards are not looked up as they are declared (a table of a million
	 * keys costs a cache miss a line): the library's validation finds a
	 * duplicate key, and overrides are resolved at the end. */
	size_t cap = d->k_cap;
	d->shards = pt_grow(d->shards, &cap, sizeof *d->shards, (size_t)d->nk + 1);
	d->k_line = pt_grow(d->k_line, &d->k_cap, sizeof *d->k_line, (size_t)d->nk + 1);
	uint32_t ki = d->nk;
	pl_shard *k = &d->shards[ki];
	memset(k, 0, sizeof *k);
	k->key = (pl_bytes){w.p, w.n};
	k->stream = k->leader = k->moving_to = PL_NONE;
	d->k_line[ki] = c->line;
	uint32_t seen = 0;
	while (next_word(c, &w)) {
		if (split_attr(w, &name, &val, &has, c->line, e))
			return -1;
		if (word_is(name, "stream")) {
			if (twice(&seen, 0, name, c->line, e) || need_value(has, name, c->line, e) ||
			    id_word(&val, c->line, "stream", e))
				return -1;
			int64_t s = table_find(d, &d->ts, stream_id, val.p, val.n, id_hash(val.p, val.n));
			if (s >= 0)
				k->stream = (uint32_t)s;
			else
				add_ref(ps, c->line, val, ki, REF_STREAM);
		} else if (word_is(name, "replicas")) {
			if (twice(&seen, 1, name, c->line, e) || need_value(has, name, c->line, e))
				return -1;
			char *p = val.p, *end = val.p + val.n;
			uint32_t r = 0;
			while (val.n > 0) {
				char *comma = memchr(p, ',', (size_t)(end - p));
				word m = {p, (size_t)((comma ? comma : end) - p)};
				if (m.n == 0)
					return pt_fail(e, c->line, "empty member id in replicas= (write replicas=a,b,c)");
				if (r == PL_MAX_REPLICAS)
					return pt_fail(e, c->line,
						       "more than %u replicas: past the limit of PL_MAX_REPLICAS",
						       PL_MAX_REPLICAS);
				if (id_word(&m, c->line, "member", e))
					return -1;
				k->replicas[r] = member_ref(ps, c->line, m, ki, REF_REPLICA + r);
				r++;
				if (comma == NULL)
					break;
				p = comma + 1;
				if (p == end)
					return pt_fail(e, c->line, "empty member id in replicas= (write replicas=a,b,c)");
			}
			k->replica_count = r;
		} else if (word_is(name, "leader") || word_is(name, "moving-to")) {
			int lead = word_is(name, "leader");
			if (twice(&seen, lead ? 2 : 3, name, c->line, e) || need_value(has, name, c->line, e) ||
			    id_word(&val, c->line, "member", e))
				return -1;
			uint32_t m = member_ref(ps, c->line, val, ki, lead ? REF_LEADER : REF_MOVING);
			if (lead)
				k->leader = m;
			else
				k->moving_to = m;
		} else if (word_is(name, "epoch")) {
			if (twice(&seen, 4, name, c->line, e) || need_value(has, name, c->line, e) ||
			    number(val, UINT64_MAX, c->line, "epoch=", &k->epoch, e))
				return -1;
		} else if (word_is(name, "load")) {
			if (twice(&seen, 5, name, c->line, e) || need_value(has, name, c->line, e) ||
			    number(val, UINT64_MAX, c->line, "load=", &k->load, e))
				return -1;
		} else if (word_is(name, "not-idempotent") || word_is(name, "transfer-debt")) {
			int ni = word_is(name, "not-idempotent");
			if (twice(&seen, ni ? 6 : 7, name, c->line, e) || no_value(has, name, c->line, e))
				return -1;
			k->flags |= ni ? PL_SHARD_NOT_IDEMPOTENT : PL_SHARD_TRANSFER_DEBT;
		} else {
			return pt_fail(e, c->line, "unknown shard attribute '%s' (expected %s)", show(name, sb, sizeof sb),
				       shard_attrs);
		}
	}
	d->nk++;
	return 0;
}

static int st_override(parser *ps, cursor *c, pt_err *e)
{
	pt_doc *d = ps->d;
	word w, name, val;
	int has;
	char sb[80];
	if (!next_word(c, &w))
		return pt_fail(e, c->line, "override: missing shard key (override KEY member=ID [origin=lag|count] [since=N])");
	if (id_word(&w, c->line, "shard", e))
		return -1;
	if (d->no >= PL_MAX_SHARDS)
		return limit_fail(e, c->line, "override", PL_MAX_SHARDS, "PL_MAX_SHARDS");
	size_t cap = d->o_cap;
	d->overrides = pt_grow(d->overrides, &cap, sizeof *d->overrides, (size_t)d->no + 1);
	d->o_line = pt_grow(d->o_line, &d->o_cap, sizeof *d->o_line, (size_t)d->no + 1);
	uint32_t oi = d->no;
	pl_override *o = &d->overrides[oi];
	memset(o, 0, sizeof *o);
	o->origin = PL_ORIGIN_LAG;
	o->member = PL_NONE;
	o->shard = PL_NONE;
	add_ref(ps, c->line, w, oi, REF_OV_SHARD);
	d->o_line[oi] = c->line;
	uint32_t seen = 0;
	while (next_word(c, &w)) {
		if (split_attr(w, &name, &val, &has, c->line, e))
			return -1;
		if (word_is(name, "member")) {
			if (twice(&seen, 0, name, c->line, e) || need_value(has, name, c->line, e) ||
			    id_word(&val, c->line, "member", e))
				return -1;
			o->member = member_ref(ps, c->line, val, oi, REF_OV_MEMBER);
		} else if (word_is(name, "origin")) {
			if (twice(&seen, 1, name, c->line, e) || need_value(has, name, c->line, e))
				return -1;
			if (word_is(val, "lag"))
				o->origin = PL_ORIGIN_LAG;
			else if (word_is(val, "count"))
				o->origin = PL_ORIGIN_COUNT;
			else
				return pt_fail(e, c->line, "unknown origin '%s' (expected lag or count)",
					       show(val, sb, sizeof sb));
		} else if (word_is(name, "since")) {
			if (twice(&seen, 2, name, c->line, e) || need_value(has, name, c->line, e) ||
			    number(val, UINT64_MAX, c->line, "since=", &o->since, e))
				return -1;
		} else {
			return pt_fail(e, c->line, "unknown override attribute '%s' (expected member=, origin=, since=)",
				       show(name, sb, sizeof sb));
		}
	}
	if (!(seen & ATTR(0)))
		return pt_fail(e, c->line, "override: missing member= (the member the shard lives on)");
	d->no++;
	return 0;
}

static int st_set(parser *ps, cursor *c, pt_err *e)
{
	pt_doc *d = ps->d;
	word w, name, val;
	int has, any = 0;
	char sb[80];
	while (next_word(c, &w)) {
		any = 1;
		if (split_attr(w, &name, &val, &has, c->line, e))
			return -1;
		uint32_t i = 0;
		while (i < PT_SET_COUNT && !word_is(name, pt_settings[i].name))
			i++;
		if (i == PT_SET_COUNT)
			return pt_fail(e, c->line, "unknown setting '%s' (see placement(5), SETTINGS)",
				       show(name, sb, sizeof sb));
		if (need_value(has, name, c->line, e))
			return -1;
		pt_set *s = &d->set[i];
		if (s->given)
			return pt_fail(e, c->line, "setting %s is given twice (first at line %llu)", pt_settings[i].name,
				       (unsigned long long)s->line);
		char nm[48];
		snprintf(nm, sizeof nm, "%s=", pt_settings[i].name);
		switch (pt_settings[i].type) {
		case PT_T_NUM:
			if (number(val, pt_settings[i].max, c->line, nm, &s->value, e))
				return -1;
			break;
		case PT_T_BOOL:
			if (word_is(val, "on"))
				s->value = 1;
			else if (word_is(val, "off"))
				s->value = 0;
			else
				return pt_fail(e, c->line, "bad value '%s' for %s: write on or off", show(val, sb, sizeof sb), nm);
			break;
		case PT_T_POLICY:
			if (word_is(val, "broker"))
				s->value = PT_POLICY_BROKER;
			else if (word_is(val, "fleet"))
				s->value = PT_POLICY_FLEET;
			else if (word_is(val, "region"))
				s->value = PT_POLICY_REGION;
			else
				return pt_fail(e, c->line, "unknown policy '%s' (expected broker, fleet or region)",
					       show(val, sb, sizeof sb));
			break;
		case PT_T_SCORER:
			if (word_is(val, "xxh3"))
				s->value = PL_SCORER_XXH3;
			else if (word_is(val, "legacy"))
				s->value = PL_SCORER_LEGACY_FNV1A;
			else
				return pt_fail(e, c->line, "unknown scorer '%s' (expected xxh3 or legacy)",
					       show(val, sb, sizeof sb));
			break;
		default: /* PT_T_MEMBER */
			if (id_word(&val, c->line, "member", e))
				return -1;
			s->text = (pl_bytes){val.p, val.n};
			s->value = PL_NONE;
			add_ref(ps, c->line, val, 0, REF_SELF);
			break;
		}
		s->given = 1;
		s->line = c->line;
	}
	if (!any)
		return pt_fail(e, c->line, "set: missing NAME=VALUE");
	return 0;
}

static int st_at(parser *ps, cursor *c, pt_err *e)
{
	pt_doc *d = ps->d;
	word w;
	char sb[80];
	pt_event ev;
	memset(&ev, 0, sizeof ev);
	ev.line = c->line;
	ev.last_move = PT_NEVER;
	if (!next_word(c, &w))
		return pt_fail(e, c->line, "at: missing tick (at TICK join|drain|down|lag|up MEMBER ...)");
	if (number(w, PT_MAX_TICKS, c->line, "the tick of at", &ev.tick, e))
		return -1;
	if (ev.tick == 0)
		return pt_fail(e, c->line, "at 0: ticks count from 1");
	if (!next_word(c, &w))
		return pt_fail(e, c->line, "at %llu: missing event (join, drain, down, lag or up)",
			       (unsigned long long)ev.tick);
	for (uint32_t k = PT_EV_JOIN; k <= PT_EV_UP; k++)
		if (word_is(w, pt_event_name(k)))
			ev.kind = k;
	if (ev.kind == 0)
		return pt_fail(e, c->line, "unknown event '%s' (expected join, drain, down, lag or up)",
			       show(w, sb, sizeof sb));
	if (!next_word(c, &w))
		return pt_fail(e, c->line, "at %llu %s: missing member id", (unsigned long long)ev.tick,
			       pt_event_name(ev.kind));
	if (id_word(&w, c->line, "member", e))
		return -1;
	ev.name = (pl_bytes){w.p, w.n};
	if (ev.kind == PT_EV_JOIN) {
		ev.joiner.id = ev.name;
		if (member_attrs_parse(c, &ev.joiner, &ev.last_move, &ev.joined_given, e))
			return -1;
	} else if (next_word(c, &w)) {
		return pt_fail(e, c->line, "at %llu %s takes only a member id, not '%s'", (unsigned long long)ev.tick,
			       pt_event_name(ev.kind), show(w, sb, sizeof sb));
	}
	if (d->nev >= PT_MAX_EVENTS)
		return limit_fail(e, c->line, "event", PT_MAX_EVENTS, "PT_MAX_EVENTS");
	d->events = pt_grow(d->events, &d->ev_cap, sizeof *d->events, (size_t)d->nev + 1);
	ev.seq = d->nev;
	d->events[d->nev++] = ev;
	(void)ps;
	return 0;
}

/* One line, without its end of line. */
static int parse_line(parser *ps, char *p, char *end, uint64_t line, pt_err *e)
{
	char *hash = memchr(p, '#', (size_t)(end - p));
	if (hash)
		end = hash;
	/* Control bytes, 8 at a time: a word with no byte below 0x20 and none
	 * equal to 0x7f passes at once; any other is looked at byte by byte. */
	const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
	char *q = p;
	for (; end - q >= 8; q += 8) {
		uint64_t w;
		memcpy(&w, q, 8);
		uint64_t low = (w - ones * 0x20) & ~w & highs;   /* some byte < 0x20 */
		uint64_t x = w ^ (ones * 0x7f);
		uint64_t del = (x - ones) & ~x & highs;          /* some byte == 0x7f */
		if (low | del)
			break;
	}
	for (; q < end; q++) {
		unsigned char ch = (unsigned char)*q;
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			return pt_fail(e, line, "control byte 0x%02X at column %zu: write bytes below '!' as %%XX", ch,
				       (size_t)(q - p) + 1);
	}
	cursor c = {p, end, line};
	word kw;
	char sb[80];
	if (!next_word(&c, &kw))
		return 0;
	if (word_is(kw, "member"))
		return st_member(ps, &c, e);
	if (word_is(kw, "stream"))
		return st_stream(ps, &c, e);
	if (word_is(kw, "shard"))
		return st_shard(ps, &c, e);
	if (word_is(kw, "override"))
		return st_override(ps, &c, e);
	if (word_is(kw, "set"))
		return st_set(ps, &c, e);
	if (word_is(kw, "at"))
		return st_at(ps, &c, e);
	return pt_fail(e, line, "unknown keyword '%s' (expected member, stream, shard, override, set or at)",
		       show(kw, sb, sizeof sb));
}

/* ---- the end of the file: references and events ------------------------------ */

static int resolve_refs(parser *ps, pt_err *e)
{
	pt_doc *d = ps->d;
	char sb[80];
	/* the shards' table, for overrides, built once at its final size */
	for (size_t i = 0; i < ps->nref && d->tk.slot == NULL; i++)
		if (ps->refs[i].field == REF_OV_SHARD) {
			size_t n = 64;
			while (n < (size_t)d->nk * 2 + 2)
				n *= 2;
			d->tk.slot = table_alloc(n);
			d->tk.mask = n - 1;
			for (uint32_t k = 0; k < d->nk; k++) {
				pl_bytes b = d->shards[k].key;
				table_put_slot(&d->tk, (id_hash(b.ptr, (size_t)b.len) >> 32 << 32) | ((uint64_t)k + 1));
			}
		}
	for (size_t i = 0; i < ps->nref; i++) {
		const ref *r = &ps->refs[i];
		word w = {(char *)(uintptr_t)r->name.ptr, (size_t)r->name.len};
		int64_t idx;
		if (r->field == REF_STREAM) {
			idx = table_find(d, &d->ts, stream_id, w.p, w.n, id_hash(w.p, w.n));
			if (idx < 0)
				return pt_fail(e, r->line, "unknown stream '%s' in stream= (declare it: stream %s)",
					       show(w, sb, sizeof sb), sb);
		} else if (r->field == REF_OV_SHARD) {
			idx = table_find(d, &d->tk, shard_key, w.p, w.n, id_hash(w.p, w.n));
			if (idx < 0)
				return pt_fail(e, r->line, "override names unknown shard '%s' (declare it: shard %s ...)",
					       show(w, sb, sizeof sb), sb);
		} else {
			idx = table_find(d, &d->tm, member_id, w.p, w.n, id_hash(w.p, w.n));
			if (idx < 0)
				return pt_fail(e, r->line, "unknown member '%s' in %s (declare it: member %s ...)",
					       show(w, sb, sizeof sb), field_name(r->field), sb);
		}
		set_ref(d, r, (uint32_t)idx);
	}
	ps->nref = 0;
	return 0;
}

static int event_cmp(const void *a, const void *b)
{
	const pt_event *x = a, *y = b;
	if (x->tick != y->tick)
		return x->tick < y->tick ? -1 : 1;
	/* events are appended in line order, --event ones after: keep it */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort the events by tick (stable), and check each names a member that is
 * there at its tick: a join names a new id, the others a member declared in
 * the file or joined at an earlier tick (or earlier at the same tick). */
static int check_events(pt_doc *d, pt_err *e)
{
	char sb[80];
	if (d->nev > 1)
		qsort(d->events, d->nev, sizeof *d->events, event_cmp);
	for (uint32_t i = 0; i < d->nev; i++) {
		pt_event *ev = &d->events[i];
		word w = {(char *)(uintptr_t)ev->name.ptr, (size_t)ev->name.len};
		int64_t m = table_find(d, &d->tm, member_id, w.p, w.n, id_hash(w.p, w.n));
		int64_t j = -1;
		for (uint32_t q = 0; q < i && m < 0; q++)
			if (d->events[q].kind == PT_EV_JOIN && same(d->events[q].name, w.p, w.n))
				j = q;
		if (ev->kind == PT_EV_JOIN) {
			if (m >= 0)
				return pt_fail(e, ev->line, "at %llu join: member '%s' is already declared (line %llu)",
					       (unsigned long long)ev->tick, show(w, sb, sizeof sb),
					       (unsigned long long)d->m_line[m]);
			if (j >= 0)
				return pt_fail(e, ev->line, "at %llu join: member '%s' already joins at tick %llu",
					       (unsigned long long)ev->tick, show(w, sb, sizeof sb),
					       (unsigned long long)d->events[j].tick);
			if (ev->joiner.id.len > PL_MAX_ID_LEN)
				return pt_fail(e, ev->line, "member id of %llu bytes is past the limit of %u bytes (PL_MAX_ID_LEN)",
					       (unsigned long long)ev->joiner.id.len, PL_MAX_ID_LEN);
			if (ev->joiner.weight > PL_MAX_WEIGHT)
				return pt_fail(e, ev->line, "weight %u is past the limit of %u (PL_MAX_WEIGHT)",
					       ev->joiner.weight, PL_MAX_WEIGHT);
			ev->member = PT_JOINER | i;
		} else if (m >= 0) {
			ev->member = (uint32_t)m;
		} else if (j >= 0) {
			ev->member = PT_JOINER | (uint32_t)j;
		} else {
			return pt_fail(e, ev->line, "at %llu %s: unknown member '%s' (declare it, or join it at an earlier tick)",
				       (unsigned long long)ev->tick, pt_event_name(ev->kind), show(w, sb, sizeof sb));
		}
	}
	return 0;
}

int pt_parse(pt_doc *d, char *text, size_t len, pt_err *e)
{
	parser ps = {d, NULL, 0, 0};
	d->text = text;
	d->text_len = len;
	char *p = text, *end = text + len;
	uint64_t line = 0;
	int rc = 0;
	if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3; /* a UTF-8 byte order mark */
	/* Room for as many shards as the file has lines (at most the limit), so
	 * the arrays are not copied as they grow: pages nobody writes cost
	 * nothing. */
	size_t lines = 1;
	for (const char *q = p; (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++)
		lines++;
	if (lines > PL_MAX_SHARDS)
		lines = PL_MAX_SHARDS;
	if (d->k_cap < lines && lines > 1024) {
		size_t cap = d->k_cap;
		d->shards = pt_grow(d->shards, &cap, sizeof *d->shards, lines);
		d->k_line = pt_grow(d->k_line, &d->k_cap, sizeof *d->k_line, lines);
	}
	while (p < end) {
		line++;
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *le = nl ? nl : end;
		if ((uint64_t)(le - p) > PT_MAX_LINE) {
			rc = pt_fail(e, line, "the line is %zu bytes, past the limit of %u bytes for a line",
				     (size_t)(le - p), PT_MAX_LINE);
			break;
		}
		if (le > p && le[-1] == '\r')
			le--;
		rc = parse_line(&ps, p, le, line, e);
		if (rc)
			break;
		p = nl ? nl + 1 : end;
	}
	d->lines = line;
	if (rc == 0)
		rc = resolve_refs(&ps, e);
	if (rc == 0)
		rc = check_events(d, e);
	free(ps.refs);
	return rc;
}

int pt_parse_event(pt_doc *d, const char *arg, pt_err *e)
{
	/* The argument is kept for the document's life: its ids point into it.
	 * It is chained onto the document's text as a separate allocation. */
	size_t n = strlen(arg);
	if (n > PT_MAX_LINE)
		return pt_fail(e, 0, "--event: %zu bytes, past the limit of %u bytes for a line", n, PT_MAX_LINE);
	char *copy = pt_alloc(n + 4);
	memcpy(copy, "at ", 3);
	memcpy(copy + 3, arg, n + 1);
	parser ps = {d, NULL, 0, 0};
	cursor c;
	char *end = copy + n + 3;
	for (char *q = copy; q < end; q++)
		if ((unsigned char)*q < 0x20 && *q != '\t') {
			free(copy);
			return pt_fail(e, 0, "--event: control byte in '%s'", arg);
		}
	c.p = copy;
	c.end = end;
	c.line = 0;
	word kw;
	next_word(&c, &kw);
	int rc = st_at(&ps, &c, e);
	free(ps.refs);
	if (rc) {
		free(copy);
		return rc;
	}
	/* The event's ids point into copy: keep it with the document. */
	d->events[d->nev - 1].line = 0;
	pt_doc_keep(d, copy);
	return check_events(d, e);
}

int pt_decode_arg(const char *arg, char **out, size_t *len, pt_err *e)
{
	size_t n = strlen(arg);
	char *p = pt_alloc(n + 1);
	memcpy(p, arg, n + 1);
	word w = {p, n};
	if (decode(&w, 0, "argument", e)) {
		free(p);
		return -1;
	}
	*out = p;
	*len = w.n;
	return 0;
}
