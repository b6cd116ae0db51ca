/*
 * actions.c - actions as text (the library's sentence), as JSON and in a few
 * words; the spread before and after a plan; a config as words.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "stats.h"

/* ---- actions as text and JSON ------------------------------------------------------ */

/* The library's sentence names ids as their bytes: a control byte in an id
 * would reach the terminal, so those are written as %XX, as in the file. */
static void put_sentence(pt_buf *b, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c < 0x20 || c == 0x7f)
			pt_put(b, "%%%02X", c);
		else
			pt_putc(b, (char)c);
	}
}

static void explain(pt_buf *b, const pl_snapshot *s, const pl_action *a)
{
	char buf[512];
	int n = pl_action_explain(s, a, buf, sizeof buf);
	if (n < 0) {
		pt_put(b, "%s of shard %u (%s)", pl_action_kind_name(a->kind), a->shard, pl_reason_name(a->reason));
		return;
	}
	if ((size_t)n < sizeof buf) {
		put_sentence(b, buf, (size_t)n);
		return;
	}
	char *big = pt_alloc((size_t)n + 1);
	pl_action_explain(s, a, big, (size_t)n + 1);
	put_sentence(b, big, (size_t)n);
	free(big);
}

void pt_json_member(pt_buf *b, const pl_snapshot *s, uint32_t m)
{
	if (m == PL_NONE || m >= s->n_members)
		pt_put(b, "null");
	else
		pt_put_json_bytes(b, s->members[m].id);
}

uint64_t pt_act_bytes(const pl_snapshot *s, const pl_action *a)
{
	if (!(a->flags & PL_ACTION_STAGE_FIRST))
		return 0;
	/* the snapshot's size (what the broker writes into a->bytes, and the
	 * same for a policy that does not) */
	return s->shard_bytes && a->shard < s->n_shards ? s->shard_bytes[a->shard] : PL_BYTES_UNKNOWN;
}

static int sized(const pl_snapshot *s)
{
	return s->shard_bytes != NULL || s->member_capacity != NULL;
}

void pt_act_json(pt_buf *b, const pl_snapshot *s, const pt_act *x, size_t n)
{
	const pl_action *a = &x->a;
	pt_put(b, "{\"n\": %zu, \"tick\": %llu, \"member\": ", n, (unsigned long long)x->tick);
	pt_json_member(b, s, x->member);
	pt_put(b, ", \"kind\": \"%s\", \"reason\": \"%s\", \"shard\": ", pl_action_kind_name(a->kind),
	       pl_reason_name(a->reason));
	pt_put_json_bytes(b, s->shards[a->shard].key);
	pt_put(b, ", \"stream\": ");
	if (a->stream != PL_NONE && a->stream < s->n_streams)
		pt_put_json_bytes(b, s->streams[a->stream].id);
	else
		pt_put(b, "null");
	pt_put(b, ", \"from\": ");
	pt_json_member(b, s, a->from);
	pt_put(b, ", \"to\": ");
	pt_json_member(b, s, a->to);
	pt_put(b, ", \"stage_first\": %s", a->flags & PL_ACTION_STAGE_FIRST ? "true" : "false");
	if (a->kind == PL_ACTION_SET_OVERRIDE || a->kind == PL_ACTION_DROP_OVERRIDE)
		pt_put(b, ", \"origin\": \"%s\"", a->origin == PL_ORIGIN_COUNT ? "count" : "lag");
	else
		pt_put(b, ", \"origin\": null");
	pt_put(b, ", \"scope\": %u, \"tier\": %u, \"from_count\": %u, \"to_count\": %u, \"floor\": %u, \"ceiling\": %u, "
		  "\"share\": %u, \"total\": %u, \"at\": %llu, \"load\": %llu, \"explain\": ",
	       a->scope, a->tier, a->from_count, a->to_count, a->floor, a->ceiling, a->share, a->total,
	       (unsigned long long)a->at, (unsigned long long)a->load);
	pt_buf t = {0};
	explain(&t, s, a);
	pt_put_json_str(b, t.p ? t.p : "", t.len);
	pt_buf_free(&t);
	if (sized(s)) { /* the layout gives sizes */
		uint64_t by = pt_act_bytes(s, a);
		if (by == PL_BYTES_UNKNOWN)
			pt_put(b, ", \"bytes\": null");
		else
			pt_put(b, ", \"bytes\": %llu", (unsigned long long)by);
		if (a->scope == PL_SCOPE_BYTES)
			pt_put(b, ", \"from_bytes\": %llu, \"to_bytes\": %llu, \"bytes_limit\": %llu",
			       (unsigned long long)a->from_bytes, (unsigned long long)a->to_bytes,
			       (unsigned long long)a->bytes_limit);
	}
	pt_putc(b, '}');
}

void pt_act_text(pt_buf *b, const pl_snapshot *s, const pt_act *x, size_t n)
{
	pt_put(b, "  %3zu. ", n);
	if (x->member != PL_NONE) {
		pt_putc(b, '[');
		pt_put_name(b, s->members[x->member].id);
		pt_put(b, "] ");
	}
	explain(b, s, &x->a);
	uint64_t by = pt_act_bytes(s, &x->a);
	/* the broker's sentence ends "it copies N" itself when it knows N */
	int said = x->a.bytes != 0 && x->a.bytes != PL_BYTES_UNKNOWN;
	if (sized(s) && (x->a.flags & PL_ACTION_STAGE_FIRST) && !said) {
		pt_put(b, " [copies ");
		if (by == PL_BYTES_UNKNOWN)
			pt_put(b, "? bytes: size unknown]");
		else
			pt_put_size_human(b, by), pt_putc(b, ']');
	}
	pt_putc(b, '\n');
}

/* ---- the bytes a plan copies ------------------------------------------------------- */

/* "b2 20G, b3 30.5G (1 of unknown size)": the members with some, in id order. */
static void members_words(pt_buf *b, const pt_run *r, const uint64_t *by, const uint32_t *unk)
{
	const pl_snapshot *s = &r->snap;
	uint32_t shown = 0, more = 0;
	for (uint32_t q = 0; q < s->n_members; q++) {
		uint32_t m = (uint32_t)pl_view_at(r->v, PL_ELEM_MEMBER, q);
		if (!by[m] && !unk[m])
			continue;
		if (shown == 16) {
			more++;
			continue;
		}
		pt_put(b, shown++ ? ", " : " ");
		pt_put_name(b, s->members[m].id);
		pt_putc(b, ' ');
		pt_put_size_human(b, by[m]);
		if (unk[m])
			pt_put(b, " (+%u of unknown size)", unk[m]);
	}
	if (more)
		pt_put(b, ", and %u more", more);
	if (!shown)
		pt_put(b, " -");
}

void pt_copied_text(pt_buf *b, const pt_run *r)
{
	const pt_copied *c = &r->copied;
	if (!c->in)
		return;
	pt_put(b, "bytes to copy: ");
	pt_put_size_human(b, c->bytes);
	pt_put(b, " in %llu cop%s", (unsigned long long)c->copies, c->copies == 1 ? "y" : "ies");
	if (c->unknown)
		pt_put(b, " (%llu of unknown size, not counted)", (unsigned long long)c->unknown);
	if (c->copies) {
		pt_put(b, "; in:");
		members_words(b, r, c->in, c->unknown_in);
		pt_put(b, "; out:");
		members_words(b, r, c->out, c->unknown_out);
	}
	pt_putc(b, '\n');
}

void pt_copied_json(pt_buf *b, const pt_run *r)
{
	const pt_copied *c = &r->copied;
	const pl_snapshot *s = &r->snap;
	if (!c->in) {
		pt_put(b, "\"bytes\": null");
		return;
	}
	pt_put(b, "\"bytes\": {\"copies\": %llu, \"total\": %llu, \"unknown_copies\": %llu, \"members\": [",
	       (unsigned long long)c->copies, (unsigned long long)c->bytes, (unsigned long long)c->unknown);
	uint32_t n = 0;
	for (uint32_t q = 0; q < s->n_members; q++) {
		uint32_t m = (uint32_t)pl_view_at(r->v, PL_ELEM_MEMBER, q);
		if (!c->in[m] && !c->out[m] && !c->unknown_in[m] && !c->unknown_out[m])
			continue;
		pt_put(b, "%s{\"member\": ", n++ ? ", " : "");
		pt_put_json_bytes(b, s->members[m].id);
		pt_put(b, ", \"in\": %llu, \"out\": %llu, \"unknown_in\": %u, \"unknown_out\": %u}",
		       (unsigned long long)c->in[m], (unsigned long long)c->out[m], c->unknown_in[m], c->unknown_out[m]);
	}
	pt_put(b, "]}");
}

/* "move-leader pq/03 b2->b0" */
void pt_act_short(pt_buf *b, const pl_snapshot *s, const pl_action *a)
{
	pt_put(b, "%s ", pl_action_kind_name(a->kind));
	pt_put_name(b, s->shards[a->shard].key);
	pt_putc(b, ' ');
	if (a->from != PL_NONE && a->from < s->n_members)
		pt_put_name(b, s->members[a->from].id);
	pt_put(b, "->");
	if (a->to != PL_NONE && a->to < s->n_members)
		pt_put_name(b, s->members[a->to].id);
}

/* ---- the spread before and after --------------------------------------------------- */

void pt_spread_text(pt_buf *b, const pt_stats *x, const pl_view *vx, const pt_stats *y, const pl_view *vy, int all)
{
	pt_put(b, "\nspread before and after\n  before: ");
	pt_stats_line(b, x, vx);
	pt_put(b, "\n  after:  ");
	pt_stats_line(b, y, vy);
	pt_putc(b, '\n');
	/* the streams whose spread changed or is still uneven (both views list
	 * the same streams in the same canonical order) */
	const pl_snapshot *s = pl_view_snapshot(vy);
	uint32_t shown = 0, more = 0;
	for (uint32_t r = 0; r < y->ns && r < x->ns; r++) {
		const pt_stream_row *a = &x->s[r], *c = &y->s[r];
		int changed = a->min_leaders != c->min_leaders || a->max_leaders != c->max_leaders || a->over != c->over ||
			      a->under != c->under;
		if (!changed && !(c->over || c->under))
			continue;
		if (shown == 40 && !all) {
			more++;
			continue;
		}
		shown++;
		pt_put(b, "  stream ");
		pt_put_name(b, s->streams[c->stream].id);
		pt_put(b, ": %s ", y->owned_valid ? "owned" : "leaders");
		pt_stream_words(b, x, vx, a);
		if (a->over || a->under)
			pt_put(b, " (%u over, %u under)", a->over, a->under);
		pt_put(b, " -> ");
		pt_stream_words(b, y, vy, c);
		if (c->kept)
			pt_put(b, " (kept)");
		else if (c->over || c->under)
			pt_put(b, " (%u over, %u under)", c->over, c->under);
		else
			pt_put(b, " (within bounds)");
		pt_putc(b, '\n');
	}
	if (more)
		pt_put(b, "  ... and %u more streams\n", more);
}

void pt_config_words(pt_buf *b, const char *json, size_t n)
{
	/* the JSON object's fields as words: {"a": 1, "b": true} -> a 1, b on */
	for (size_t i = 0; i < n; i++) {
		char c = json[i];
		if (c == '{' || c == '}' || c == '"' || c == ':')
			continue;
		if (strncmp(json + i, "true", 4) == 0 && (i + 4 == n || json[i + 4] == ',' || json[i + 4] == '}')) {
			pt_put(b, "on");
			i += 3;
		} else if (strncmp(json + i, "false", 5) == 0 && (i + 5 == n || json[i + 5] == ',' || json[i + 5] == '}')) {
			pt_put(b, "off");
			i += 4;
		} else {
			pt_putc(b, c);
		}
	}
}
