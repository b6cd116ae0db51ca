/*
 * parse.c - the snapshot text format (placement(5)): the grammar, ids and
 * escapes, and references by id. This file drives a file line by line and
 * resolves its references; parse.h says where the rest lives.
 *
 * How it works. The parser takes the file a line at a time from a pt_reader
 * (read.c) and parses it in place, in the reader's buffer: a line is cut at
 * '#', split into words at spaces and tabs, and %XX escapes are decoded in
 * place. What is kept of a line is copied before the next is read: the
 * bytes of ids, keys and zones into the document's arena, the names of
 * references not resolved yet into the parser's. The arrays of elements
 * grow as elements are declared, so memory follows what the file declares,
 * never its size or its count of lines, and the first bad line is reported
 * before another is read. Members, streams and shards are kept in hash
 * tables by id (through pt_id_hash()), which find duplicates as they are
 * declared and resolve references in O(1). A reference to an element
 * declared later in the file is kept aside and resolved at the end, so a
 * file may list things in any order. Errors come in this order: the first
 * syntax error in the file, then the first unresolved reference, then the
 * events; then (validate.c) the library's validation, mapped back to lines.
 */
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* ---- references resolved at the end ------------------------------------------- */

void pt_add_ref(parser *ps, uint64_t line, word w, uint32_t elem, uint32_t field)
{
	ps->refs = pt_grow(ps->refs, &ps->ref_cap, sizeof *ps->refs, ps->nref + 1);
	ps->refs[ps->nref++] = (ref){line, pt_arena_put(&ps->names, w.p, w.n), elem, field};
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
	case REF_CP_SHARD: return "copy";
	case REF_CP_TO: return "to=";
	case REF_CP_FROM: return "from=";
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
	if (r->field == REF_CP_SHARD || r->field == REF_CP_TO || r->field == REF_CP_FROM) {
		pl_copy *cp = &d->copies[r->elem];
		*(r->field == REF_CP_SHARD ? &cp->shard : r->field == REF_CP_TO ? &cp->to : &cp->from) = idx;
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
uint32_t pt_member_ref(parser *ps, uint64_t line, word w, uint32_t elem, uint32_t field)
{
	int64_t i = pt_table_find(ps->d, &ps->d->tm, pt_member_id, w.p, w.n, pt_id_hash(w.p, w.n));
	if (i >= 0)
		return (uint32_t)i;
	pt_add_ref(ps, line, w, elem, field);
	return PL_NONE;
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
	if (!pt_next_word(&c, &kw))
		return 0;
	if (pt_word_is(kw, "member"))
		return pt_st_member(ps, &c, e);
	if (pt_word_is(kw, "stream"))
		return pt_st_stream(ps, &c, e);
	if (pt_word_is(kw, "shard"))
		return pt_st_shard(ps, &c, e);
	if (pt_word_is(kw, "override"))
		return pt_st_override(ps, &c, e);
	if (pt_word_is(kw, "copy"))
		return pt_st_copy(ps, &c, e);
	if (pt_word_is(kw, "set"))
		return pt_st_set(ps, &c, e);
	if (pt_word_is(kw, "at"))
		return pt_st_at(ps, &c, e);
	return pt_fail(e, line, "unknown keyword '%s' (expected member, stream, shard, override, copy, set or at)",
		       pt_show(kw, sb, sizeof sb));
}

/* ---- the end of the file: references and events ------------------------------ */

static int resolve_refs(parser *ps, pt_err *e)
{
	pt_doc *d = ps->d;
	char sb[80];
	/* the shards' table, for overrides, built once at its final size */
	for (size_t i = 0; i < ps->nref && d->tk.slot == NULL; i++)
		if (ps->refs[i].field == REF_OV_SHARD || ps->refs[i].field == REF_CP_SHARD) {
			size_t n = 64;
			while (n < (size_t)d->nk * 2 + 2)
				n *= 2;
			d->tk.slot = pt_table_alloc(n);
			d->tk.mask = n - 1;
			for (uint32_t k = 0; k < d->nk; k++) {
				pl_bytes b = d->shards[k].key;
				pt_table_put_slot(&d->tk, (pt_id_hash(b.ptr, (size_t)b.len) >> 32 << 32) | ((uint64_t)k + 1));
			}
		}
	for (size_t i = 0; i < ps->nref; i++) {
		const ref *r = &ps->refs[i];
		word w = {(char *)(uintptr_t)r->name.ptr, (size_t)r->name.len};
		int64_t idx;
		if (r->field == REF_STREAM) {
			idx = pt_table_find(d, &d->ts, pt_stream_id, w.p, w.n, pt_id_hash(w.p, w.n));
			if (idx < 0)
				return pt_fail(e, r->line, "unknown stream '%s' in stream= (declare it: stream %s)",
					       pt_show(w, sb, sizeof sb), sb);
		} else if (r->field == REF_OV_SHARD || r->field == REF_CP_SHARD) {
			idx = pt_table_find(d, &d->tk, pt_shard_key, w.p, w.n, pt_id_hash(w.p, w.n));
			if (idx < 0)
				return pt_fail(e, r->line, "%s names unknown shard '%s' (declare it: shard %s ...)",
					       field_name(r->field), pt_show(w, sb, sizeof sb), sb);
		} else {
			idx = pt_table_find(d, &d->tm, pt_member_id, w.p, w.n, pt_id_hash(w.p, w.n));
			if (idx < 0)
				return pt_fail(e, r->line, "unknown member '%s' in %s (declare it: member %s ...)",
					       pt_show(w, sb, sizeof sb), field_name(r->field), sb);
		}
		set_ref(d, r, (uint32_t)idx);
	}
	ps->nref = 0;
	return 0;
}

int pt_parse_reader(pt_doc *d, pt_reader *r, pt_err *e)
{
	parser ps;
	memset(&ps, 0, sizeof ps);
	ps.d = d;
	r->skip_bom = 1;
	int rc = 0;
	pt_oom_at(d->path, &r->line); /* out of memory names the line being read */
	for (;;) {
		char *p;
		size_t n;
		rc = pt_reader_line(r, &p, &n, e);
		if (rc <= 0)
			break;
		rc = n ? parse_line(&ps, p, p + n, r->line, e) : 0;
		if (rc)
			break;
	}
	pt_oom_at(NULL, NULL);
	d->lines = r->line;
	if (rc == 0)
		rc = resolve_refs(&ps, e);
	if (rc == 0)
		rc = pt_check_events(d, e);
	free(ps.refs);
	pt_arena_free(&ps.names);
	return rc;
}

int pt_parse(pt_doc *d, char *text, size_t len, pt_err *e)
{
	pt_reader r;
	pt_reader_mem(&r, text, len);
	int rc = pt_parse_reader(d, &r, e);
	pt_reader_close(&r);
	free(text);
	return rc;
}

int pt_parse_setting(pt_doc *d, const char *arg, pt_err *e)
{
	size_t n = strlen(arg);
	if (n > PT_MAX_LINE)
		return pt_fail(e, 0, "%zu bytes, past the limit of %u bytes for a line", n, PT_MAX_LINE);
	for (const char *q = arg; *q; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			return pt_fail(e, 0, "control byte 0x%02X: write bytes below '!' as %%XX", (unsigned char)*q);
	/* The file's `set` line parser reads it, as "set ARG", with the
	 * file's settings hidden: the command line overrides them, and a later
	 * --set an earlier one. */
	pt_set saved[PT_SET_COUNT];
	memcpy(saved, d->set, sizeof saved);
	for (uint32_t i = 0; i < PT_SET_COUNT; i++)
		d->set[i].given = 0;
	char *copy = pt_alloc(n + 5);
	memcpy(copy, "set ", 4);
	memcpy(copy + 4, arg, n + 1);
	parser ps;
	memset(&ps, 0, sizeof ps);
	ps.d = d;
	cursor c = {copy, copy + n + 4, 0};
	word kw;
	pt_next_word(&c, &kw);
	int rc = pt_st_set(&ps, &c, e);
	if (rc == 0)
		rc = resolve_refs(&ps, e);
	free(ps.refs);
	pt_arena_free(&ps.names);
	free(copy);
	for (uint32_t i = 0; i < PT_SET_COUNT; i++)
		if (rc || !d->set[i].given)
			d->set[i] = saved[i];
	return rc;
}
