/*
 * svg.c - the pictures of stats, plan and simulate (--svg), as SVG.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

/* ---- SVG --------------------------------------------------------------------------------- */

static void xml_text(pt_buf *b, const char *s, size_t n)
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

static void xml_name(pt_buf *b, pl_bytes id)
{
	pt_buf t = {0};
	pt_put_name(&t, id);
	xml_text(b, t.p ? t.p : "", t.len);
	pt_buf_free(&t);
}

#define SVG_W 760
#define SVG_LABEL 170
#define SVG_BARW 440
#define SVG_ROW 18

/* One panel: a title and a bar per row. Returns the new y. */
typedef struct svg_row {
	pl_bytes name;
	uint32_t val, fl, ce;
	int in; /* held to the bounds */
} svg_row;

static uint32_t svg_panel(pt_buf *b, uint32_t y, const char *title, pl_bytes title_id, const svg_row *rows,
			  uint32_t n)
{
	uint32_t scale = 1;
	for (uint32_t i = 0; i < n; i++) {
		scale = rows[i].val > scale ? rows[i].val : scale;
		scale = rows[i].ce > scale ? rows[i].ce : scale;
	}
	pt_put(b, "<text x=\"10\" y=\"%u\" class=\"h\">", y + 14);
	xml_text(b, title, strlen(title));
	if (title_id.len)
		xml_name(b, title_id);
	pt_put(b, "</text>\n");
	y += 24;
	for (uint32_t i = 0; i < n; i++) {
		const svg_row *r = &rows[i];
		uint32_t wv = (uint32_t)((uint64_t)r->val * SVG_BARW / scale);
		const char *cls = !r->in ? "x" : r->val > r->ce ? "o" : r->val < r->fl ? "u" : "b";
		pt_put(b, "<text x=\"%u\" y=\"%u\" class=\"l\">", SVG_LABEL - 6, y + 13);
		xml_name(b, r->name);
		pt_put(b, "</text><rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" class=\"%s\"/>", SVG_LABEL, y + 2, wv,
		       SVG_ROW - 4, cls);
		pt_put(b, "<text x=\"%u\" y=\"%u\" class=\"v\">%u</text>", SVG_LABEL + wv + 4, y + 13, r->val);
		if (r->in && r->ce) {
			uint32_t xf = SVG_LABEL + (uint32_t)((uint64_t)r->fl * SVG_BARW / scale);
			uint32_t xc = SVG_LABEL + (uint32_t)((uint64_t)r->ce * SVG_BARW / scale);
			pt_put(b, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" class=\"f\"/>", xf, y, xf, y + SVG_ROW);
			pt_put(b, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" class=\"c\"/>", xc, y, xc, y + SVG_ROW);
		}
		pt_putc(b, '\n');
		y += SVG_ROW;
	}
	return y + 10;
}

void pt_stats_svg(pt_buf *b, const pt_stats *st, const pl_view *v, const char *title)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	pt_buf body = {0};
	svg_row *rows = pt_alloc(((size_t)st->nm + 1) * sizeof *rows);
	uint32_t y = 44;
	char t[128];
	for (uint32_t r = 0; r < st->nm; r++) {
		const pl_member *m = &s->members[st->m[r].member];
		rows[r].name = m->id;
		pt_total_measure(st, s, &st->m[r], &rows[r].val, &rows[r].fl, &rows[r].ce);
		rows[r].in = st->policy == PT_POLICY_REGION ? !(m->flags & PL_MEMBER_DOWN) : pt_eligible(m);
	}
	snprintf(t, sizeof t, "%s per member, %u shard%s", pt_measure_name(st->policy), st->c.shards,
		 st->c.shards == 1 ? "" : "s");
	y = svg_panel(&body, y, t, (pl_bytes){NULL, 0}, rows, st->nm);
	for (uint32_t r = 0; r < st->ns; r++) {
		const pt_stream_row *sr = &st->s[r];
		svg_row *sr_rows = pt_alloc(((size_t)sr->count + 1) * sizeof *sr_rows);
		for (uint32_t q = 0; q < sr->count; q++) {
			const pt_cell_row *c = &st->cells[sr->first + q];
			sr_rows[q] = (svg_row){s->members[c->member].id, c->leaders, c->floor, c->ceiling,
					       pt_eligible(&s->members[c->member])};
		}
		snprintf(t, sizeof t, "%s, %u shard%s: stream ", st->owned_valid ? "owned" : "leaders", sr->shards,
			 sr->shards == 1 ? "" : "s");
		y = svg_panel(&body, y, t, s->streams[sr->stream].id, sr_rows, sr->count);
		free(sr_rows);
	}
	free(rows);
	pt_put(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\">\n"
		  "<style>text{font:12px monospace}.h{font-weight:bold}.l{text-anchor:end}.v{fill:#333}"
		  ".b{fill:#4a7ab0}.o{fill:#c0392b}.u{fill:#e69f00}.x{fill:#aaa}"
		  ".f{stroke:#555;stroke-dasharray:2,2}.c{stroke:#000;stroke-width:2}</style>\n"
		  "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n<text x=\"10\" y=\"20\" class=\"h\">",
	       SVG_W, y, SVG_W, y);
	xml_text(b, title, strlen(title));
	pt_put(b, "</text>\n<text x=\"10\" y=\"36\">bar: the count; dashed line: the floor; solid line: the ceiling; "
		  "red: over the ceiling, orange: under the floor, grey: not held to them</text>\n");
	pt_putn(b, body.p ? body.p : "", body.len);
	pt_put(b, "</svg>\n");
	pt_buf_free(&body);
}
