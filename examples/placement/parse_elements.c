/*
 * parse_elements.c - the statements that declare elements: member, stream, shard and
 * override, with their attributes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* ---- statements ----------------------------------------------------------------- */

static int twice(uint32_t *seen, uint32_t bit, word name, uint64_t line, pt_err *e)
{
	/* a valued attribute's name is followed by its '=' in the line */
	int eq = name.p[name.n] == '=';
	if (*seen & ATTR(bit))
		return pt_fail(e, line, "%.*s%s is given twice", (int)(name.n > 40 ? 40 : name.n), name.p, eq ? "=" : "");
	*seen |= ATTR(bit);
	return 0;
}

int pt_need_value(int has, word name, uint64_t line, pt_err *e)
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

const char pt_member_attrs[] =
	"zone=, weight=, cap=, capacity=, joined=, load=, map=, last-move=, down, draining, lagging, unmeasured";

/* A member's capacity=: a size, not 0, at most PL_MAX_BYTES. */
static int capacity_word(word val, uint64_t line, uint64_t *out, pt_err *e)
{
	if (pt_size_word(val.p, val.n, PL_MAX_BYTES, line, "capacity=", out, e))
		return -1;
	if (*out == 0)
		return pt_fail(e, line,
			       "capacity=0: a member holds some bytes (leave capacity= out when it is not known; a "
			       "member that holds nothing is down)");
	return 0;
}

/* The attributes of a member (a member line, or a join event). */
int pt_member_attrs_parse(pt_doc *d, cursor *c, pl_member *m, uint64_t *last_move, int *joined_given,
			  uint64_t *capacity, pt_err *e)
{
	word w, name, val;
	int has;
	uint32_t seen = 0;
	char sb[80];
	while (pt_next_word(c, &w)) {
		if (pt_split_attr(w, &name, &val, &has, c->line, e))
			return -1;
		uint64_t n;
		if (pt_word_is(name, "zone")) {
			if (twice(&seen, 0, name, c->line, e) || pt_need_value(has, name, c->line, e) ||
			    pt_decode_word(&val, c->line, "zone=", e))
				return -1;
			m->zone = pt_keep(d, val); /* empty: {NULL, 0} */
		} else if (pt_word_is(name, "weight")) {
			if (twice(&seen, 1, name, c->line, e) || pt_need_value(has, name, c->line, e) ||
			    pt_number(val, UINT32_MAX, c->line, "weight=", &n, e))
				return -1;
			m->weight = (uint32_t)n;
		} else if (pt_word_is(name, "cap")) {
			if (twice(&seen, 2, name, c->line, e) || pt_need_value(has, name, c->line, e) ||
			    pt_number(val, UINT32_MAX, c->line, "cap=", &n, e))
				return -1;
			m->max_shards = (uint32_t)n;
		} else if (pt_word_is(name, "joined")) {
			if (twice(&seen, 3, name, c->line, e) || pt_need_value(has, name, c->line, e) ||
			    pt_number(val, UINT64_MAX, c->line, "joined=", &m->joined_at, e))
				return -1;
			if (joined_given)
				*joined_given = 1;
		} else if (pt_word_is(name, "load")) {
			if (twice(&seen, 4, name, c->line, e) || pt_need_value(has, name, c->line, e) ||
			    pt_number(val, UINT64_MAX, c->line, "load=", &m->load, e))
				return -1;
		} else if (pt_word_is(name, "map")) {
			if (twice(&seen, 5, name, c->line, e) || pt_need_value(has, name, c->line, e) ||
			    pt_number(val, UINT64_MAX, c->line, "map=", &m->map_version, e))
				return -1;
		} else if (pt_word_is(name, "last-move")) {
			if (twice(&seen, 6, name, c->line, e) || pt_need_value(has, name, c->line, e) ||
			    pt_number(val, UINT64_MAX - 1, c->line, "last-move=", last_move, e))
				return -1;
		} else if (pt_word_is(name, "capacity")) {
			if (twice(&seen, 11, name, c->line, e) || pt_need_value(has, name, c->line, e) ||
			    capacity_word(val, c->line, capacity, e))
				return -1;
			d->has_bytes = 1;
		} else if (pt_word_is(name, "down") || pt_word_is(name, "draining") || pt_word_is(name, "lagging") ||
			   pt_word_is(name, "unmeasured")) {
			uint32_t f = pt_word_is(name, "down") ? PL_MEMBER_DOWN
				     : pt_word_is(name, "draining") ? PL_MEMBER_DRAINING
				     : pt_word_is(name, "lagging") ? PL_MEMBER_LAGGING
								 : PL_MEMBER_UNMEASURED;
			uint32_t bit = f == PL_MEMBER_DOWN ? 7 : f == PL_MEMBER_DRAINING ? 8 : f == PL_MEMBER_LAGGING ? 9 : 10;
			if (twice(&seen, bit, name, c->line, e) || no_value(has, name, c->line, e))
				return -1;
			m->flags |= f;
		} else {
			return pt_fail(e, c->line, "unknown member attribute '%s' (expected %s)", pt_show(name, sb, sizeof sb),
				       pt_member_attrs);
		}
	}
	if ((seen & ATTR(4)) && (m->flags & PL_MEMBER_UNMEASURED))
		return pt_fail(e, c->line, "load= and unmeasured contradict: a member's load is measured or not");
	return 0;
}

int pt_limit_fail(pt_err *e, uint64_t line, const char *what, uint64_t lim, const char *macro)
{
	return pt_fail(e, line, "one %s too many: past the limit of %llu %ss (%s)", what, (unsigned long long)lim, what,
		       macro);
}

int pt_st_member(parser *ps, cursor *c, pt_err *e)
{
	pt_doc *d = ps->d;
	word w;
	char sb[80];
	if (!pt_next_word(c, &w))
		return pt_fail(e, c->line, "member: missing id (member ID [%s])", pt_member_attrs);
	if (pt_id_word(&w, c->line, "member", e))
		return -1;
	if (d->nm >= PL_MAX_MEMBERS)
		return pt_limit_fail(e, c->line, "member", PL_MAX_MEMBERS, "PL_MAX_MEMBERS");
	uint64_t h = pt_id_hash(w.p, w.n);
	int64_t dup = pt_table_find(d, &d->tm, pt_member_id, w.p, w.n, h);
	if (dup >= 0)
		return pt_fail(e, c->line, "member '%s' is declared twice (first at line %llu)", pt_show(w, sb, sizeof sb),
			       (unsigned long long)d->m_line[dup]);
	size_t cap = d->m_cap;
	d->members = pt_grow(d->members, &cap, sizeof *d->members, (size_t)d->nm + 1);
	cap = d->m_cap;
	d->m_line = pt_grow(d->m_line, &cap, sizeof *d->m_line, (size_t)d->nm + 1);
	cap = d->m_cap;
	d->m_capacity = pt_grow(d->m_capacity, &cap, sizeof *d->m_capacity, (size_t)d->nm + 1);
	cap = d->m_cap;
	d->m_last_move = pt_grow(d->m_last_move, &d->m_cap, sizeof *d->m_last_move, (size_t)d->nm + 1);
	pl_member *m = &d->members[d->nm];
	memset(m, 0, sizeof *m);
	m->id = pt_keep(d, w);
	d->m_line[d->nm] = c->line;
	d->m_last_move[d->nm] = PT_NEVER;
	d->m_capacity[d->nm] = PL_BYTES_UNKNOWN;
	if (pt_member_attrs_parse(d, c, m, &d->m_last_move[d->nm], NULL, &d->m_capacity[d->nm], e))
		return -1;
	pt_table_insert(&d->tm, d->nm, h);
	d->nm++;
	return 0;
}

int pt_st_stream(parser *ps, cursor *c, pt_err *e)
{
	pt_doc *d = ps->d;
	word w;
	char sb[80];
	if (!pt_next_word(c, &w))
		return pt_fail(e, c->line, "stream: missing id (stream ID)");
	if (pt_id_word(&w, c->line, "stream", e))
		return -1;
	if (d->ns >= PL_MAX_STREAMS)
		return pt_limit_fail(e, c->line, "stream", PL_MAX_STREAMS, "PL_MAX_STREAMS");
	uint64_t h = pt_id_hash(w.p, w.n);
	int64_t dup = pt_table_find(d, &d->ts, pt_stream_id, w.p, w.n, h);
	if (dup >= 0)
		return pt_fail(e, c->line, "stream '%s' is declared twice (first at line %llu)", pt_show(w, sb, sizeof sb),
			       (unsigned long long)d->s_line[dup]);
	/* its rules (the broker policy's): tolerance=N, zones=span|majority, keep */
	uint32_t tol = PL_TOLERANCE_DEFAULT, rule = PL_ZONES_SPAN, flags = 0, seen = 0;
	word a, name, val;
	int has;
	while (pt_next_word(c, &a)) {
		if (pt_split_attr(a, &name, &val, &has, c->line, e))
			return -1;
		if (pt_word_is(name, "tolerance")) {
			uint64_t x;
			if (twice(&seen, 0, name, c->line, e) || pt_need_value(has, name, c->line, e) ||
			    pt_number(val, PL_MAX_TOLERANCE, c->line, "tolerance=", &x, e))
				return -1;
			tol = (uint32_t)x;
		} else if (pt_word_is(name, "zones")) {
			if (twice(&seen, 1, name, c->line, e) || pt_need_value(has, name, c->line, e))
				return -1;
			if (pt_word_is(val, "span"))
				rule = PL_ZONES_SPAN;
			else if (pt_word_is(val, "majority"))
				rule = PL_ZONES_MAJORITY;
			else
				return pt_fail(e, c->line, "zones= is span or majority, not '%s'", pt_show(val, sb, sizeof sb));
		} else if (pt_word_is(name, "keep")) {
			if (twice(&seen, 2, name, c->line, e) || no_value(has, name, c->line, e))
				return -1;
			flags |= PL_STREAM_KEEP;
			d->has_keep = 1; /* the snapshot carries s_flags */
			continue;
		} else {
			return pt_fail(e, c->line, "stream takes an id and tolerance=, zones= or keep, not '%s'",
				       pt_show(a, sb, sizeof sb));
		}
		d->has_rules = 1;
	}
	size_t cap = d->s_cap;
	d->streams = pt_grow(d->streams, &cap, sizeof *d->streams, (size_t)d->ns + 1);
	cap = d->s_cap;
	d->s_tolerance = pt_grow(d->s_tolerance, &cap, sizeof *d->s_tolerance, (size_t)d->ns + 1);
	cap = d->s_cap;
	d->s_zone_rule = pt_grow(d->s_zone_rule, &cap, sizeof *d->s_zone_rule, (size_t)d->ns + 1);
	cap = d->s_cap;
	d->s_flags = pt_grow(d->s_flags, &cap, sizeof *d->s_flags, (size_t)d->ns + 1);
	d->s_line = pt_grow(d->s_line, &d->s_cap, sizeof *d->s_line, (size_t)d->ns + 1);
	d->streams[d->ns].id = pt_keep(d, w);
	d->s_tolerance[d->ns] = tol;
	d->s_zone_rule[d->ns] = rule;
	d->s_flags[d->ns] = flags;
	d->s_line[d->ns] = c->line;
	pt_table_insert(&d->ts, d->ns, h);
	d->ns++;
	return 0;
}

static const char shard_attrs[] =
	"stream=, replicas=, leader=, moving-to=, epoch=, load=, size=, not-idempotent, transfer-debt, out-of-sync=";

/* out-of-sync=a,b: each id one of the line's replicas= (val), marked
 * PL_SHARD_OUT_OF_SYNC at its place. */
static int out_of_sync(pl_shard *k, word reps, word oos, uint64_t line, pt_err *e)
{
	char sb[80];
	char *p = oos.p, *end = oos.p + oos.n;
	while (p <= end) {
		char *comma = memchr(p, ',', (size_t)(end - p));
		word m = {p, (size_t)((comma ? comma : end) - p)};
		if (m.n == 0)
			return pt_fail(e, line, "empty member id in out-of-sync= (write out-of-sync=a,b)");
		uint32_t j = 0, found = 0;
		char *q = reps.p, *rend = reps.p + reps.n;
		while (reps.n && q <= rend && !found) {
			char *rc = memchr(q, ',', (size_t)(rend - q));
			size_t n = (size_t)((rc ? rc : rend) - q);
			found = n == m.n && memcmp(q, m.p, n) == 0;
			if (!found) {
				j++;
				q = rc ? rc + 1 : rend + 1;
			}
		}
		if (!found)
			return pt_fail(e, line, "out-of-sync= names '%s', which replicas= does not list",
				       pt_show(m, sb, sizeof sb));
		k->flags |= PL_SHARD_OUT_OF_SYNC(j);
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	return 0;
}

int pt_st_shard(parser *ps, cursor *c, pt_err *e)
{
	pt_doc *d = ps->d;
	word w, name, val;
	int has;
	char sb[80];
	if (!pt_next_word(c, &w))
		return pt_fail(e, c->line, "shard: missing key (shard KEY [%s])", shard_attrs);
	if (pt_id_word(&w, c->line, "shard", e))
		return -1;
	if (d->nk >= PL_MAX_SHARDS)
		return pt_limit_fail(e, c->line, "shard", PL_MAX_SHARDS, "PL_MAX_SHARDS");
	/* Shards are not looked up as they are declared (a table of a million
	 * keys costs a cache miss a line): the library's validation finds a
	 * duplicate key, and overrides are resolved at the end. */
	size_t cap = d->k_cap;
	d->shards = pt_grow(d->shards, &cap, sizeof *d->shards, (size_t)d->nk + 1);
	cap = d->k_cap;
	d->k_bytes = pt_grow(d->k_bytes, &cap, sizeof *d->k_bytes, (size_t)d->nk + 1);
	d->k_line = pt_grow(d->k_line, &d->k_cap, sizeof *d->k_line, (size_t)d->nk + 1);
	uint32_t ki = d->nk;
	pl_shard *k = &d->shards[ki];
	memset(k, 0, sizeof *k);
	k->key = pt_keep(d, w);
	k->stream = k->leader = k->moving_to = PL_NONE;
	d->k_line[ki] = c->line;
	d->k_bytes[ki] = PL_BYTES_UNKNOWN;
	uint32_t seen = 0;
	word reps = {NULL, 0}, oos = {NULL, 0}; /* this line's words: read at its end */
	while (pt_next_word(c, &w)) {
		if (pt_split_attr(w, &name, &val, &has, c->line, e))
			return -1;
		if (pt_word_is(name, "stream")) {
			if (twice(&seen, 0, name, c->line, e) || pt_need_value(has, name, c->line, e) ||
			    pt_id_word(&val, c->line, "stream", e))
				return -1;
			int64_t s = pt_table_find(d, &d->ts, pt_stream_id, val.p, val.n, pt_id_hash(val.p, val.n));
			if (s >= 0)
				k->stream = (uint32_t)s;
			else
				pt_add_ref(ps, c->line, val, ki, REF_STREAM);
		} else if (pt_word_is(name, "replicas")) {
			if (twice(&seen, 1, name, c->line, e) || pt_need_value(has, name, c->line, e))
				return -1;
			/* one rule for every value: an empty one is refused (a
			 * shard with no replicas leaves replicas= out) */
			if (val.n == 0)
				return pt_fail(e, c->line,
					       "empty member id in replicas= (write replicas=a,b,c, or leave replicas= out "
					       "for a shard with none)");
			char *p = val.p, *end = val.p + val.n;
			uint32_t r = 0;
			for (;;) {
				char *comma = memchr(p, ',', (size_t)(end - p));
				word m = {p, (size_t)((comma ? comma : end) - p)};
				if (m.n == 0)
					return pt_fail(e, c->line, "empty member id in replicas= (write replicas=a,b,c)");
				if (r == PL_MAX_REPLICAS)
					return pt_fail(e, c->line,
						       "more than %u replicas: past the limit of PL_MAX_REPLICAS",
						       PL_MAX_REPLICAS);
				if (pt_id_word(&m, c->line, "member", e))
					return -1;
				k->replicas[r] = pt_member_ref(ps, c->line, m, ki, REF_REPLICA + r);
				r++;
				if (comma == NULL)
					break;
				p = comma + 1;
				if (p == end)
					return pt_fail(e, c->line, "empty member id in replicas= (write replicas=a,b,c)");
			}
			k->replica_count = r;
			reps = val;
		} else if (pt_word_is(name, "out-of-sync")) {
			if (twice(&seen, 8, name, c->line, e) || pt_need_value(has, name, c->line, e))
				return -1;
			oos = val;
		} else if (pt_word_is(name, "leader") || pt_word_is(name, "moving-to")) {
			int lead = pt_word_is(name, "leader");
			if (twice(&seen, lead ? 2 : 3, name, c->line, e) || pt_need_value(has, name, c->line, e) ||
			    pt_id_word(&val, c->line, "member", e))
				return -1;
			uint32_t m = pt_member_ref(ps, c->line, val, ki, lead ? REF_LEADER : REF_MOVING);
			if (lead)
				k->leader = m;
			else
				k->moving_to = m;
		} else if (pt_word_is(name, "epoch")) {
			if (twice(&seen, 4, name, c->line, e) || pt_need_value(has, name, c->line, e) ||
			    pt_number(val, UINT64_MAX, c->line, "epoch=", &k->epoch, e))
				return -1;
		} else if (pt_word_is(name, "load")) {
			if (twice(&seen, 5, name, c->line, e) || pt_need_value(has, name, c->line, e) ||
			    pt_number(val, UINT64_MAX, c->line, "load=", &k->load, e))
				return -1;
		} else if (pt_word_is(name, "size")) {
			/* one shard at most PL_MAX_BYTES / PL_MAX_REPLICAS, as
			 * all of them together (the library checks the sum) */
			if (twice(&seen, 9, name, c->line, e) || pt_need_value(has, name, c->line, e) ||
			    pt_size_word(val.p, val.n, PL_MAX_BYTES / PL_MAX_REPLICAS, c->line, "size=", &d->k_bytes[ki], e))
				return -1;
			d->has_bytes = 1;
		} else if (pt_word_is(name, "not-idempotent") || pt_word_is(name, "transfer-debt")) {
			int ni = pt_word_is(name, "not-idempotent");
			if (twice(&seen, ni ? 6 : 7, name, c->line, e) || no_value(has, name, c->line, e))
				return -1;
			k->flags |= ni ? PL_SHARD_NOT_IDEMPOTENT : PL_SHARD_TRANSFER_DEBT;
		} else {
			return pt_fail(e, c->line, "unknown shard attribute '%s' (expected %s)", pt_show(name, sb, sizeof sb),
				       shard_attrs);
		}
	}
	if (oos.p && out_of_sync(k, reps, oos, c->line, e))
		return -1;
	d->nk++;
	return 0;
}

int pt_st_copy(parser *ps, cursor *c, pt_err *e)
{
	pt_doc *d = ps->d;
	word w, name, val;
	int has;
	char sb[80];
	if (!pt_next_word(c, &w))
		return pt_fail(e, c->line, "copy: missing shard key (copy KEY to=ID [from=ID])");
	if (pt_id_word(&w, c->line, "shard", e))
		return -1;
	if (d->nc >= PL_MAX_COPIES)
		return pt_limit_fail(e, c->line, "copy", PL_MAX_COPIES, "PL_MAX_COPIES");
	size_t cap = d->c_cap;
	d->copies = pt_grow(d->copies, &cap, sizeof *d->copies, (size_t)d->nc + 1);
	d->c_line = pt_grow(d->c_line, &d->c_cap, sizeof *d->c_line, (size_t)d->nc + 1);
	uint32_t ci = d->nc;
	pl_copy *cp = &d->copies[ci];
	*cp = (pl_copy){PL_NONE, PL_NONE, PL_NONE, 0};
	pt_add_ref(ps, c->line, w, ci, REF_CP_SHARD);
	d->c_line[ci] = c->line;
	uint32_t seen = 0;
	while (pt_next_word(c, &w)) {
		if (pt_split_attr(w, &name, &val, &has, c->line, e))
			return -1;
		int to = pt_word_is(name, "to");
		if (to || pt_word_is(name, "from")) {
			if (twice(&seen, to ? 0 : 1, name, c->line, e) || pt_need_value(has, name, c->line, e) ||
			    pt_id_word(&val, c->line, "member", e))
				return -1;
			uint32_t m = pt_member_ref(ps, c->line, val, ci, to ? REF_CP_TO : REF_CP_FROM);
			*(to ? &cp->to : &cp->from) = m;
		} else {
			return pt_fail(e, c->line, "unknown copy attribute '%s' (expected to=, from=)",
				       pt_show(name, sb, sizeof sb));
		}
	}
	if (!(seen & ATTR(0)))
		return pt_fail(e, c->line, "copy: missing to= (the member the copy is staged on)");
	d->nc++;
	return 0;
}

int pt_st_override(parser *ps, cursor *c, pt_err *e)
{
	pt_doc *d = ps->d;
	word w, name, val;
	int has;
	char sb[80];
	if (!pt_next_word(c, &w))
		return pt_fail(e, c->line, "override: missing shard key (override KEY member=ID [origin=lag|count] [since=N])");
	if (pt_id_word(&w, c->line, "shard", e))
		return -1;
	if (d->no >= PL_MAX_SHARDS)
		return pt_limit_fail(e, c->line, "override", PL_MAX_SHARDS, "PL_MAX_SHARDS");
	size_t cap = d->o_cap;
	d->overrides = pt_grow(d->overrides, &cap, sizeof *d->overrides, (size_t)d->no + 1);
	d->o_line = pt_grow(d->o_line, &d->o_cap, sizeof *d->o_line, (size_t)d->no + 1);
	uint32_t oi = d->no;
	pl_override *o = &d->overrides[oi];
	memset(o, 0, sizeof *o);
	o->origin = PL_ORIGIN_LAG;
	o->member = PL_NONE;
	o->shard = PL_NONE;
	pt_add_ref(ps, c->line, w, oi, REF_OV_SHARD);
	d->o_line[oi] = c->line;
	uint32_t seen = 0;
	while (pt_next_word(c, &w)) {
		if (pt_split_attr(w, &name, &val, &has, c->line, e))
			return -1;
		if (pt_word_is(name, "member")) {
			if (twice(&seen, 0, name, c->line, e) || pt_need_value(has, name, c->line, e) ||
			    pt_id_word(&val, c->line, "member", e))
				return -1;
			o->member = pt_member_ref(ps, c->line, val, oi, REF_OV_MEMBER);
		} else if (pt_word_is(name, "origin")) {
			if (twice(&seen, 1, name, c->line, e) || pt_need_value(has, name, c->line, e))
				return -1;
			if (pt_word_is(val, "lag"))
				o->origin = PL_ORIGIN_LAG;
			else if (pt_word_is(val, "count"))
				o->origin = PL_ORIGIN_COUNT;
			else
				return pt_fail(e, c->line, "unknown origin '%s' (expected lag or count)",
					       pt_show(val, sb, sizeof sb));
		} else if (pt_word_is(name, "since")) {
			if (twice(&seen, 2, name, c->line, e) || pt_need_value(has, name, c->line, e) ||
			    pt_number(val, UINT64_MAX, c->line, "since=", &o->since, e))
				return -1;
		} else {
			return pt_fail(e, c->line, "unknown override attribute '%s' (expected member=, origin=, since=)",
				       pt_show(name, sb, sizeof sb));
		}
	}
	if (!(seen & ATTR(0)))
		return pt_fail(e, c->line, "override: missing member= (the member the shard lives on)");
	d->no++;
	return 0;
}
