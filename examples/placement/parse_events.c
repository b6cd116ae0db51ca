/*
 * parse_events.c - the scripted events of a snapshot file (`at TICK EVENT
 * MEMBER`) and of --event arguments: their grammar, and the check that each
 * names a member that is there at its tick.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

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

int pt_st_at(parser *ps, cursor *c, pt_err *e)
{
	pt_doc *d = ps->d;
	word w;
	char sb[80];
	pt_event ev;
	memset(&ev, 0, sizeof ev);
	ev.line = c->line;
	ev.last_move = PT_NEVER;
	ev.capacity = PL_BYTES_UNKNOWN;
	if (!pt_next_word(c, &w))
		return pt_fail(e, c->line, "at: missing tick (at TICK join|drain|down|lag|up MEMBER ...)");
	if (pt_number(w, PT_MAX_TICKS, c->line, "the tick of at", &ev.tick, e))
		return -1;
	if (ev.tick == 0)
		return pt_fail(e, c->line, "at 0: ticks count from 1");
	if (!pt_next_word(c, &w))
		return pt_fail(e, c->line, "at %llu: missing event (join, drain, down, lag or up)",
			       (unsigned long long)ev.tick);
	for (uint32_t k = PT_EV_JOIN; k <= PT_EV_UP; k++)
		if (pt_word_is(w, pt_event_name(k)))
			ev.kind = k;
	if (ev.kind == 0)
		return pt_fail(e, c->line, "unknown event '%s' (expected join, drain, down, lag or up)",
			       pt_show(w, sb, sizeof sb));
	if (!pt_next_word(c, &w))
		return pt_fail(e, c->line, "at %llu %s: missing member id", (unsigned long long)ev.tick,
			       pt_event_name(ev.kind));
	if (pt_id_word(&w, c->line, "member", e))
		return -1;
	ev.name = pt_keep(d, w);
	if (ev.kind == PT_EV_JOIN) {
		ev.joiner.id = ev.name;
		if (pt_member_attrs_parse(d, c, &ev.joiner, &ev.last_move, &ev.joined_given, &ev.capacity, e))
			return -1;
	} else if (pt_next_word(c, &w)) {
		return pt_fail(e, c->line, "at %llu %s takes only a member id, not '%s'", (unsigned long long)ev.tick,
			       pt_event_name(ev.kind), pt_show(w, sb, sizeof sb));
	}
	if (d->nev >= PT_MAX_EVENTS)
		return pt_limit_fail(e, c->line, "event", PT_MAX_EVENTS, "PT_MAX_EVENTS");
	d->events = pt_grow(d->events, &d->ev_cap, sizeof *d->events, (size_t)d->nev + 1);
	ev.seq = d->nev;
	d->events[d->nev++] = ev;
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
int pt_check_events(pt_doc *d, pt_err *e)
{
	char sb[80];
	if (d->nev > 1)
		qsort(d->events, d->nev, sizeof *d->events, event_cmp);
	for (uint32_t i = 0; i < d->nev; i++) {
		pt_event *ev = &d->events[i];
		word w = {(char *)(uintptr_t)ev->name.ptr, (size_t)ev->name.len};
		int64_t m = pt_table_find(d, &d->tm, pt_member_id, w.p, w.n, pt_id_hash(w.p, w.n));
		int64_t j = -1;
		for (uint32_t q = 0; q < i && m < 0; q++)
			if (d->events[q].kind == PT_EV_JOIN && pt_same_id(d->events[q].name, w.p, w.n))
				j = q;
		if (ev->kind == PT_EV_JOIN) {
			if (m >= 0)
				return pt_fail(e, ev->line, "at %llu join: member '%s' is already declared (line %llu)",
					       (unsigned long long)ev->tick, pt_show(w, sb, sizeof sb),
					       (unsigned long long)d->m_line[m]);
			if (j >= 0)
				return pt_fail(e, ev->line, "at %llu join: member '%s' already joins at tick %llu",
					       (unsigned long long)ev->tick, pt_show(w, sb, sizeof sb),
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
				       (unsigned long long)ev->tick, pt_event_name(ev->kind), pt_show(w, sb, sizeof sb));
		}
	}
	return 0;
}

int pt_parse_event(pt_doc *d, const char *arg, pt_err *e)
{
	/* The event keeps copies of its ids (pt_keep()), as a file's do. */
	size_t n = strlen(arg);
	if (n > PT_MAX_LINE)
		return pt_fail(e, 0, "--event: %zu bytes, past the limit of %u bytes for a line", n, PT_MAX_LINE);
	char *copy = pt_alloc(n + 4);
	memcpy(copy, "at ", 3);
	memcpy(copy + 3, arg, n + 1);
	parser ps;
	memset(&ps, 0, sizeof ps);
	ps.d = d;
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
	pt_next_word(&c, &kw);
	int rc = pt_st_at(&ps, &c, e);
	free(ps.refs);
	pt_arena_free(&ps.names);
	free(copy);
	if (rc)
		return rc;
	d->events[d->nev - 1].line = 0;
	return pt_check_events(d, e);
}
