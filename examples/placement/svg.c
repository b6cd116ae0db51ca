/*
 * svg.c - the pictures of stats, plan and simulate (--svg), as SVG.
 *
 * A picture is panels: the cluster, then each stream. A panel has a row per
 * member and a column per state, before and after side by side (stats and
 * plan: the file's state and the one the policy's plan ends at, with how the
 * plan ended under the title; simulate: the start and the final state), and
 * in each cell two bars: the policy's measure (leaders, shards owned, or
 * replicas for the region policy), held to the floor and ceiling drawn as
 * lines, and below it the other count (replicas, or for the region policy
 * leaders). Every member has its row in every panel: a zero is a visible
 * stub labelled 0, and a member under its floor has its deficit drawn as a
 * dashed box up to the floor, labelled; one over its ceiling is red and
 * labelled. A member that is down or draining is labelled so and drawn grey.
 * simulate adds a chart of each member's count over the ticks, with the
 * events marked (svg_chart.c).
 *
 * Every row is a <g> whose data- attributes carry the numbers it draws
 * (data-scope, data-state, data-member, data-value, data-other,
 * data-floor, data-ceiling), and the line of a plan's end its status
 * (data-status, data-blocked, data-actions), so a test can check the
 * picture against the JSON of the same command (and of plan). Widths follow the longest name; the legend wraps
 * to the picture's width.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

#define COL_BAR 300u  /* bar area of a column */
#define COL_W 420u    /* a column: bars and their labels */
#define ROW_H 32u
#define MAX_STREAM_PANELS 24u
#define MAX_ROWS 256u
#define MAX_ROWS_ALL 512u /* rows of all the stream panels */

void pt_svg_text(pt_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '&': pt_put(b, "&amp;"); break;
		case '<': pt_put(b, "&lt;"); break;
		case '>': pt_put(b, "&gt;"); break;
		case '"': pt_put(b, "&quot;"); break;
		case '\'': pt_put(b, "&apos;"); break;
		default: pt_putc(b, s[i]); break;
		}
	}
}

void pt_svg_name(pt_buf *b, pl_bytes id)
{
	pt_buf t = {0};
	pt_put_name(&t, id);
	pt_svg_text(b, t.p ? t.p : "", t.len);
	pt_buf_free(&t);
}

size_t pt_svg_name_chars(pl_bytes id)
{
	pt_buf t = {0};
	pt_put_name(&t, id);
	size_t n = t.len;
	pt_buf_free(&t);
	return n;
}

/* ---- one cell ------------------------------------------------------------------- */

typedef struct cell {
	int present;    /* the member is in this state's snapshot */
	uint32_t val;   /* the measure */
	uint32_t other; /* the other count */
	uint32_t fl, ce;
	int held;       /* held to fl and ce */
	uint32_t flags; /* PL_MEMBER_* in that state */
	const pt_blocker *kept; /* what the policy named as keeping it where it is (the last state) */
	int alone;      /* the only eligible member of its zone, holding every shard (the last state) */
	pl_bytes zone;
	int sized;      /* the layout gives sizes: bytes, and the capacity used */
	uint64_t bytes, capacity, used; /* pt_bytes_row's */
} cell;

static uint32_t px(uint32_t v, uint32_t scale)
{
	return (uint32_t)((uint64_t)v * COL_BAR / (scale ? scale : 1));
}

static const char *state_word(uint32_t flags)
{
	return flags & PL_MEMBER_DOWN ? "down" : flags & PL_MEMBER_DRAINING ? "draining" : NULL;
}

static void draw_cell(pt_buf *b, const cell *c, uint32_t x0, uint32_t y, uint32_t scale, const char *scope,
		      pl_bytes scope_id, const char *state, pl_bytes member, const char *other_name)
{
	pt_put(b, "<g data-scope=\"%s", scope);
	if (scope_id.len) {
		pt_putc(b, ':');
		pt_svg_name(b, scope_id);
	}
	pt_put(b, "\" data-state=\"%s\" data-member=\"", state);
	pt_svg_name(b, member);
	if (!c->present) {
		pt_put(b, "\" data-value=\"none\"><text x=\"%u\" y=\"%u\" class=\"n\">not a member here</text></g>\n", x0,
		       y + 12);
		return;
	}
	pt_put(b, "\" data-value=\"%u\" data-other=\"%u\" data-floor=\"%u\" data-ceiling=\"%u\"", c->val, c->other,
	       c->fl, c->ce);
	if (c->sized)
		pt_put(b, " data-bytes=\"%llu\"", (unsigned long long)c->bytes);
	pt_putc(b, '>');
	uint32_t wv = px(c->val, scale), wo = px(c->other, scale);
	const char *cls = !c->held ? "x" : c->val > c->ce ? "o" : c->val < c->fl ? "u" : "b";
	uint32_t right = wv;
	if (c->val == 0)
		pt_put(b, "<rect x=\"%u\" y=\"%u\" width=\"2\" height=\"12\" class=\"z\"/>", x0, y + 2);
	else
		pt_put(b, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"12\" class=\"%s\"/>", x0, y + 2, wv ? wv : 1, cls);
	if (c->held && c->val < c->fl) {
		/* the deficit: what is missing up to the floor */
		uint32_t wf = px(c->fl, scale);
		pt_put(b, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"12\" class=\"d\"/>", x0 + wv, y + 2, wf - wv);
		right = wf > right ? wf : right;
	}
	if (c->held && c->ce) {
		uint32_t xf = x0 + px(c->fl, scale), xc = x0 + px(c->ce, scale);
		pt_put(b, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" class=\"f\"/>", xf, y, xf, y + 16);
		pt_put(b, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" class=\"c\"/>", xc, y - 1, xc, y + 17);
		right = px(c->ce, scale) > right ? px(c->ce, scale) : right;
	}
	/* the count, right of the bar, the deficit and the bounds */
	pt_put(b, "<text x=\"%u\" y=\"%u\" class=\"v\">%u", x0 + right + 5, y + 12, c->val);
	if (c->held && c->val > c->ce)
		pt_put(b, ", over by %u", c->val - c->ce);
	else if (c->held && c->val < c->fl)
		pt_put(b, ", under by %u", c->fl - c->val);
	if (state_word(c->flags))
		pt_put(b, "<tspan class=\"t\" dx=\"6\">%s</tspan>", state_word(c->flags));
	if (c->kept) {
		/* a constraint holds it here: the policy's word for it */
		pt_put(b, "<tspan class=\"t\" dx=\"6\" data-held=\"%s\">held: %s", pl_status_name(c->kept->status),
		       pl_status_name(c->kept->status));
		if (c->kept->word) {
			pt_put(b, " (");
			pt_svg_text(b, c->kept->word, strlen(c->kept->word));
			pt_put(b, ")");
		}
		pt_put(b, "</tspan>");
	}
	pt_put(b, "</text>");
	if (other_name) {
		pt_put(b, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"6\" class=\"r\"/>", x0, y + 19, wo ? wo : 1);
		/* "1 replica", "2 replicas" */
		size_t on = strlen(other_name);
		pt_put(b, "<text x=\"%u\" y=\"%u\" class=\"s\">%u %.*s", x0 + (wo ? wo : 1) + 5, y + 26, c->other,
		       (int)(c->other == 1 && on > 1 ? on - 1 : on), other_name);
		if (c->alone) {
			/* the zones hold it over any share: a replica of every shard */
			pt_put(b, "<tspan class=\"t\" dx=\"6\" data-held=\"zone\">held: the only member of zone ");
			pt_svg_name(b, c->zone);
			pt_put(b, ", it holds every shard</tspan>");
		}
		if (c->sized) { /* its bytes, and of its capacity when known */
			pt_put(b, "<tspan class=\"y\" dx=\"6\">");
			pt_put_size_human(b, c->bytes);
			if (c->capacity != PL_BYTES_UNKNOWN) {
				pt_put(b, " of ");
				pt_put_size_human(b, c->capacity);
				pt_put(b, " (%llu%%)", (unsigned long long)(c->used / 10));
			}
			pt_put(b, "</tspan>");
		}
		pt_put(b, "</text>");
	}
	pt_put(b, "</g>\n");
}

/* ---- the states of a picture ---------------------------------------------------- */

/* The blocker that names a member in the last state: the members it
 * involves as plan's JSON lists them (pt_blocker_members()). */
static const pt_blocker *kept_by(const pic *p, uint32_t member)
{
	if (p->why == NULL)
		return NULL;
	for (uint32_t i = 0; i < p->why->nwhy; i++) {
		uint32_t ms[PT_BLOCKER_MEMBERS];
		uint32_t n = pt_blocker_members(&p->why->why[i], p->last, p->v, ms, PT_BLOCKER_MEMBERS);
		for (uint32_t q = 0; q < n; q++)
			if (ms[q] == member)
				return &p->why->why[i];
	}
	return NULL;
}

static const char *other_name(uint32_t policy)
{
	return policy == PT_POLICY_REGION ? "leaders" : policy == PT_POLICY_FLEET ? NULL : "replicas";
}

static int member_cell(const pic *p, uint32_t state, uint32_t member, cell *c)
{
	const pt_stats *st = p->st[state];
	memset(c, 0, sizeof *c);
	for (uint32_t r = 0; r < st->nm; r++) {
		const pt_member_row *row = &st->m[r];
		if (row->member != member)
			continue;
		pt_total_measure(st, p->s, row, &c->val, &c->fl, &c->ce);
		c->other = p->policy == PT_POLICY_REGION ? row->leaders : row->replicas;
		c->flags = row->flags;
		c->held = p->policy == PT_POLICY_REGION ? !(row->flags & PL_MEMBER_DOWN)
							: !(row->flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING));
		c->present = 1;
		if (st->by.sized) {
			c->sized = 1;
			c->bytes = st->by.row[r].bytes;
			c->capacity = st->by.row[r].capacity;
			c->used = st->by.row[r].used;
		}
		if (state == p->n - 1) {
			c->kept = kept_by(p, member);
			c->alone = p->alone && p->alone[member];
			c->zone = p->s->members[member].zone;
		}
		return 1;
	}
	return 0;
}

static const pt_stream_row *stream_of(const pt_stats *st, uint32_t stream)
{
	for (uint32_t r = 0; r < st->ns; r++)
		if (st->s[r].stream == stream)
			return &st->s[r];
	return NULL;
}

static void stream_cell(const pic *p, uint32_t state, uint32_t stream, uint32_t member, cell *c)
{
	const pt_stats *st = p->st[state];
	memset(c, 0, sizeof *c);
	cell m;
	if (!member_cell(p, state, member, &m))
		return;
	c->present = 1;
	c->flags = m.flags;
	c->held = !(m.flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING));
	/* in a stream's panel, only what names the stream or the member */
	if (m.kept && (m.kept->stream == stream || m.kept->stream == PL_NONE))
		c->kept = m.kept;
	const pt_stream_row *sr = stream_of(st, stream);
	for (uint32_t q = 0; sr && q < sr->count; q++) {
		const pt_cell_row *x = &st->cells[sr->first + q];
		if (x->member != member)
			continue;
		c->val = x->leaders;
		c->other = x->replicas;
		c->fl = x->floor;
		c->ce = x->ceiling;
		return;
	}
	/* not a row of the stream: it holds none of it; its bounds are the
	 * stream's (equal weights) or unknown */
	if (sr && c->held) {
		for (uint32_t q = 0; q < sr->count; q++) {
			const pt_cell_row *x = &st->cells[sr->first + q];
			if (pt_eligible(&p->s->members[x->member]) &&
			    p->s->members[x->member].weight == p->s->members[member].weight) {
				c->fl = x->floor;
				c->ce = x->ceiling;
				break;
			}
		}
	}
}

/* ---- panels ----------------------------------------------------------------------- */

typedef struct layout {
	uint32_t label_w; /* the member column */
	uint32_t col_w;   /* a state's column: COL_W, wider for the bytes' labels */
	uint32_t width;
} layout;

static uint32_t panel(pt_buf *b, const pic *p, const layout *lay, uint32_t y, int stream_panel, uint32_t stream)
{
	const pl_snapshot *s = p->s;
	const char *scope = stream_panel ? "stream" : "cluster";
	pl_bytes sid = stream_panel ? s->streams[stream].id : (pl_bytes){NULL, 0};
	/* the title and the column heads */
	pt_put(b, "<text x=\"10\" y=\"%u\" class=\"h\">", y + 14);
	if (stream_panel) {
		const pt_stream_row *sr = stream_of(p->last, stream);
		pt_put(b, "stream ");
		pt_svg_name(b, sid);
		pt_put(b, ": %s per member, %u shard%s", p->policy == PT_POLICY_FLEET ? "owned" : "leaders",
		       sr ? sr->shards : 0, sr && sr->shards == 1 ? "" : "s");
		if (sr && sr->kept)
			pt_put(b, ", kept: not balanced");
	} else {
		pt_put(b, "%s per member, %u shard%s", pt_measure_name(p->policy), p->last->c.shards,
		       p->last->c.shards == 1 ? "" : "s");
	}
	pt_put(b, "</text>\n");
	y += 22;
	for (uint32_t k = 0; k < p->n; k++)
		pt_put(b, "<text x=\"%u\" y=\"%u\" class=\"k\">%s</text>\n", lay->label_w + k * lay->col_w, y + 10, p->label[k]);
	y += 16;
	/* one scale for the panel, so before and after compare by eye */
	uint32_t scale = 1, nrows = 0;
	for (uint32_t r = 0; r < p->last->nm; r++)
		for (uint32_t k = 0; k < p->n; k++) {
			cell c;
			uint32_t m = p->last->m[r].member;
			if (stream_panel)
				stream_cell(p, k, stream, m, &c);
			else
				member_cell(p, k, m, &c);
			scale = c.val > scale ? c.val : scale;
			scale = c.ce > scale ? c.ce : scale;
			scale = c.fl > scale ? c.fl : scale;
			if (!stream_panel || p->policy != PT_POLICY_FLEET)
				scale = c.other > scale ? c.other : scale;
		}
	for (uint32_t r = 0; r < p->last->nm; r++) {
		uint32_t m = p->last->m[r].member;
		if (nrows == MAX_ROWS) {
			pt_put(b, "<text x=\"10\" y=\"%u\" class=\"n\">... and %u more members (placement stats lists them "
				  "all)</text>\n",
			       y + 12, p->last->nm - r);
			y += ROW_H;
			break;
		}
		nrows++;
		/* the member's name; its state (down, draining) is said in each
		 * cell, as it was in that state */
		pt_put(b, "<text x=\"%u\" y=\"%u\" class=\"l\">", lay->label_w - 8, y + 12);
		pt_svg_name(b, s->members[m].id);
		pt_put(b, "</text>\n");
		for (uint32_t k = 0; k < p->n; k++) {
			cell c;
			if (stream_panel)
				stream_cell(p, k, stream, m, &c);
			else
				member_cell(p, k, m, &c);
			const char *other = stream_panel ? (p->policy == PT_POLICY_FLEET ? NULL : "replicas")
							 : other_name(p->policy);
			draw_cell(b, &c, lay->label_w + k * lay->col_w, y, scale, scope, sid, p->label[k], s->members[m].id, other);
		}
		y += ROW_H;
	}
	return y + 12;
}

/* The legend, wrapped to the picture's width; returns the new y. */
static uint32_t legend(pt_buf *b, const pic *p, uint32_t width, uint32_t y)
{
	char meas[64];
	snprintf(meas, sizeof meas, "%s, within floor and ceiling", pt_measure_name(p->policy));
	const char *other = other_name(p->policy);
	char oth[64];
	snprintf(oth, sizeof oth, "%s (not held to the bounds)", other ? other : "");
	const struct {
		const char *cls, *shape, *text;
	} items[] = {
		{"b", "rect", meas},
		{"o", "rect", "over the ceiling"},
		{"u", "rect", "under the floor"},
		{"d", "rect", "the deficit up to the floor"},
		{"z", "zero", "a zero"},
		{"x", "rect", "down or draining: not held to the bounds"},
		{"t", "none", p->why && p->why->nwhy ? "what the policy named as keeping it there" : NULL},
		{"r", "rect", other ? oth : NULL},
		{"f", "line", "floor"},
		{"c", "line", "ceiling"},
	};
	uint32_t x = 10;
	y += 4;
	for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
		if (items[i].text == NULL)
			continue;
		uint32_t sw = strcmp(items[i].shape, "none") == 0 ? 44 : 22; /* the swatch, or "held:" */
		uint32_t w = sw + (uint32_t)strlen(items[i].text) * CH + 18;
		if (x > 10 && x + w > width - 10) {
			x = 10;
			y += 18;
		}
		if (strcmp(items[i].shape, "line") == 0)
			pt_put(b, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" class=\"%s\"/>", x + 7, y, x + 7, y + 12,
			       items[i].cls);
		else if (strcmp(items[i].shape, "none") == 0)
			pt_put(b, "<text x=\"%u\" y=\"%u\" class=\"t\">held:</text>", x, y + 10);
		else if (strcmp(items[i].shape, "zero") == 0)
			pt_put(b, "<rect x=\"%u\" y=\"%u\" width=\"2\" height=\"12\" class=\"z\"/>", x + 6, y);
		else
			pt_put(b, "<rect x=\"%u\" y=\"%u\" width=\"16\" height=\"12\" class=\"%s\"/>", x, y, items[i].cls);
		pt_put(b, "<text x=\"%u\" y=\"%u\">%s</text>\n", x + sw, y + 10, items[i].text);
		x += w;
	}
	return y + 24;
}

/* ---- the picture ------------------------------------------------------------------- */

/* qsort has no context argument in C11: the stream rows for by_spread(). */
static const pt_stream_row *sort_rows;

/* The widest spread first; among equals, the canonical order (the rows'). */
static int by_spread(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t wx = sort_rows[x].max_leaders - sort_rows[x].min_leaders;
	uint32_t wy = sort_rows[y].max_leaders - sort_rows[y].min_leaders;
	if (wx != wy)
		return wx > wy ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int by_index(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* How the plan ended, in words: "the broker policy's plan: 3 actions in 2
 * ticks, then balanced"; returns whether it ended blocked. */
static int plan_words(char *w, size_t n, const pic *p)
{
	const pt_plan_end *end = p->end;
	int k = snprintf(w, n, "the %s policy's plan: %zu action%s in %u tick%s, ", pt_policy_name(p->policy),
			 end->actions, end->actions == 1 ? "" : "s", end->active, end->active == 1 ? "" : "s");
	if (k < 0 || (size_t)k >= n)
		return end->blocked;
	if (end->stopped_max)
		snprintf(w + k, n - (size_t)k, "cut at --max (%s): the policy had more to do", pl_status_name(end->status));
	else if (end->stopped_ticks)
		snprintf(w + k, n - (size_t)k, "stopped at the tick limit without a quiet one (%s): it ends blocked",
			 pl_status_name(end->status));
	else if (end->blocked)
		snprintf(w + k, n - (size_t)k, "then %s: it ends blocked, the state after is not balanced",
			 pl_status_name(end->status));
	else
		snprintf(w + k, n - (size_t)k, "then %s", pl_status_name(end->status));
	return end->blocked;
}

/* Members alone in their zone among the eligible, holding a replica of
 * every shard, more than an even share of the replicas: the zones keep
 * them there. */
static uint8_t *alone_members(const pic *p)
{
	const pl_snapshot *s = p->s;
	const pt_stats *st = p->last;
	if (p->policy == PT_POLICY_FLEET || st->c.shards == 0)
		return NULL;
	uint8_t *a = calloc(s->n_members ? s->n_members : 1, 1);
	if (a == NULL)
		pt_oom();
	for (uint32_t r = 0; r < st->nm; r++) {
		uint32_t m = st->m[r].member;
		const pl_member *mb = &s->members[m];
		/* over an even share of the replicas on live members */
		uint64_t share = st->c.eligible ? (st->live_replicas + st->c.eligible - 1) / st->c.eligible : 0;
		if (st->m[r].replicas != st->c.shards || st->m[r].replicas <= share || !pt_eligible(mb) ||
		    mb->zone.len == 0)
			continue;
		int others = 0;
		for (uint32_t q = 0; q < st->nm && !others; q++) {
			const pl_member *o = &s->members[st->m[q].member];
			others = st->m[q].member != m && pt_eligible(o) && o->zone.len == mb->zone.len &&
				 memcmp(o->zone.ptr, mb->zone.ptr, mb->zone.len) == 0;
		}
		a[m] = !others;
	}
	return a;
}

static void picture(pt_buf *out, const pic *p_in, const char *title, const pt_series *se)
{
	pic pc = *p_in;
	pc.alone = alone_members(p_in);
	const pic *p = &pc;
	const pl_snapshot *s = p->s;
	layout lay;
	size_t longest = 6;
	for (uint32_t r = 0; r < p->last->nm; r++) {
		size_t n = pt_svg_name_chars(s->members[p->last->m[r].member].id);
		longest = n > longest ? n : longest;
	}
	if (longest > 40)
		longest = 40;
	lay.label_w = 20 + (uint32_t)(longest > 20 ? longest : 20) * CH;
	lay.col_w = COL_W + (p->last->by.sized ? 200u : 0u);
	lay.width = lay.label_w + p->n * lay.col_w + 10;
	/* room right of the last column for what holds a member there */
	int marked = p->why && p->why->nwhy;
	for (uint32_t m = 0; p->alone && m < s->n_members; m++)
		marked |= p->alone[m];
	if (marked)
		lay.width += 300;
	if (lay.width < 760)
		lay.width = 760;
	char words[256] = "";
	int blocked = p->end ? plan_words(words, sizeof words, p) : 0;
	size_t tl = (strlen(title) > strlen(words) ? strlen(title) : strlen(words)) * CH + 20;
	if (tl > lay.width && tl < 4000)
		lay.width = (uint32_t)tl;
	pt_buf body = {0};
	uint32_t y = 30;
	if (p->end) {
		/* how the plan ended: its status word, and blocked or not */
		pt_put(&body, "<text x=\"10\" y=\"%u\" class=\"%s\" data-status=\"%s\" data-blocked=\"%s\" "
			      "data-actions=\"%zu\">",
		       y + 8, blocked ? "w" : "k", pl_status_name(p->end->status), blocked ? "true" : "false",
		       p->end->actions);
		pt_svg_text(&body, words, strlen(words));
		pt_put(&body, "</text>\n");
		y += 16;
	}
	y = legend(&body, p, lay.width, y);
	if (se)
		y = pt_svg_chart(&body, p, se, lay.width, y);
	y = panel(&body, p, &lay, y, 0, 0);
	/* the streams, the widest first (in id order among equals), as many as
	 * keep the picture under MAX_ROWS_ALL rows */
	uint32_t rows = p->last->nm < MAX_ROWS ? p->last->nm : MAX_ROWS;
	uint32_t limit = MAX_ROWS_ALL / (rows ? rows : 1);
	limit = limit < 1 ? 1 : limit > MAX_STREAM_PANELS ? MAX_STREAM_PANELS : limit;
	uint32_t ns = p->last->ns, *pick = pt_alloc(((size_t)ns + 1) * sizeof *pick);
	for (uint32_t r = 0; r < ns; r++)
		pick[r] = r;
	sort_rows = p->last->s;
	qsort(pick, ns, sizeof *pick, by_spread);
	uint32_t shown = ns < limit ? ns : limit;
	/* the ones shown, in id order */
	qsort(pick, shown, sizeof *pick, by_index);
	for (uint32_t r = 0; r < shown; r++)
		y = panel(&body, p, &lay, y, 1, p->last->s[pick[r]].stream);
	if (shown < ns) {
		pt_put(&body, "<text x=\"10\" y=\"%u\" class=\"n\">... and %u more streams, less uneven (placement stats "
			      "lists them all)</text>\n",
		       y + 12, ns - shown);
		y += 24;
	}
	free(pick);
	pt_put(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\">\n"
		    "<style>text{font:12px monospace;fill:#222}.h{font-weight:bold}.k{font-weight:bold;fill:#555}"
		    ".l{text-anchor:end}.t{font-size:11px;fill:#a00;font-weight:bold}.s{font-size:10px;fill:#555}.y{font-size:10px;fill:#036}"
		    ".n{fill:#888;font-style:italic}.v{fill:#222}.w{font-weight:bold;fill:#c0392b}"
		    ".b{fill:#4a7ab0}.o{fill:#c0392b}.u{fill:#e69f00}.x{fill:#aaa}.z{fill:#222}.r{fill:#9ecae1}"
		    ".d{fill:none;stroke:#e69f00;stroke-width:1.5;stroke-dasharray:3,2}"
		    ".f{stroke:#555;stroke-dasharray:2,2}.g{stroke:#eee}.e{fill:#555}.m{text-anchor:middle}.c{stroke:#000;stroke-width:2}.a{stroke:#444}</style>\n"
		    "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n<text x=\"10\" y=\"20\" class=\"h\">",
	       lay.width, y, lay.width, y);
	pt_svg_text(out, title, strlen(title));
	pt_put(out, "</text>\n");
	pt_putn(out, body.p ? body.p : "", body.len);
	pt_put(out, "</svg>\n");
	pt_buf_free(&body);
	free(pc.alone);
}

void pt_svg_before_after(pt_buf *b, const pt_stats *before, const pt_stats *after, const pl_view *v,
			 const char *title, const char *before_label, const char *after_label, const pt_series *se,
			 const pt_tick *why)
{
	const pt_stats *sts[2] = {before, after};
	const char *labels[2] = {before_label, after_label};
	pic p = {pl_view_snapshot(v), sts, labels, 2, after->policy, after, NULL, v, why, NULL};
	picture(b, &p, title, se);
}

int pt_plan_svg(const char *path, const char *command, const char *file, const pt_stats *before,
		const pt_stats *after, const pl_view *v, const pt_plan_end *end, pt_err *e)
{
	pt_buf svg = {0};
	char title[512];
	snprintf(title, sizeof title, "placement %s %s: before and after the plan", command, file);
	const pt_stats *sts[2] = {before, after};
	const char *labels[2] = {"before", "after the plan"};
	pic p = {pl_view_snapshot(v), sts, labels, 2, after->policy, after, end, v, end->blocked ? &end->last : NULL, NULL};
	picture(&svg, &p, title, NULL);
	int rc = pt_write_file(path, &svg, e);
	pt_buf_free(&svg);
	return rc;
}
