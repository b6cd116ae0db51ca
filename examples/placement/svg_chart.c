/*
 * svg_chart.c - the chart of simulate's picture (--svg, svg.c draws the
 * rest): each member's count over the ticks as a line, on axes of round
 * steps, with the events marked by a dashed line and labelled in lanes
 * above the plot; one chart for the policy's measure and, but for the fleet
 * policy, one for the other count. Its <g> carries data-chart, data-top and
 * data-bottom, each line data-member and data-values, each event data-event
 * (its tick), so a test can check the chart against the numbers it draws.
 */
#include <stdlib.h>
#include <string.h>

#include "svg.h"

#define CHART_H 200u

static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
				      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

/* The smallest of 1, 2, 5 times a power of ten that is at least v. */
static uint32_t nice_step(uint32_t v)
{
	uint64_t p = 1;
	for (;;) {
		if (p >= v)
			return (uint32_t)p;
		if (2 * p >= v)
			return (uint32_t)(2 * p);
		if (5 * p >= v)
			return (uint32_t)(5 * p);
		p *= 10;
	}
}

/* Event labels sit in lanes above the plot, each right of its event's
 * line, never on a line of the plot nor over another label. */
#define LANE_H 12u
#define MAX_LANES 8u
#define LABEL_CH 6u /* width of a 10px character */

static uint32_t event_lanes(const pt_series *se, uint32_t x0, uint32_t w, uint32_t width, uint32_t *lane,
			    uint32_t *lx)
{
	uint32_t end[MAX_LANES], n = 0, t1 = se->ticks ? se->ticks : 1;
	for (uint32_t i = 0; i < se->nev; i++) {
		uint32_t at = x0 + (uint32_t)((uint64_t)se->ev_tick[i] * w / t1);
		uint32_t tw = (uint32_t)strlen(se->ev_text[i]) * LABEL_CH;
		/* right of its mark, or left of it when it would leave the picture */
		uint32_t x = at + 3 + tw > width - 4 && at > tw + 3 ? at - 3 - tw : at + 3;
		uint32_t right = x + tw;
		lx[i] = x;
		uint32_t l = 0;
		while (l < n && end[l] + 6 > x)
			l++;
		if (l == MAX_LANES)
			l = MAX_LANES - 1; /* a crowd: the last lane takes the rest */
		if (l == n && n < MAX_LANES)
			n++;
		end[l] = right;
		lane[i] = l;
	}
	return n;
}

/* One chart over the ticks: vals[tick * nm + member] per member, with the
 * events; what names the values ("leaders", "replicas"). */
static uint32_t chart_one(pt_buf *b, const pic *p, const pt_series *se, const uint32_t *vals, const char *what,
			  const char *kind, uint32_t width, uint32_t y)
{
	const pl_snapshot *s = p->s;
	uint32_t x0 = 60, w = width - x0 - 20, mx = 4; /* at least 0 to 4: five values on the axis */
	uint32_t *lane = pt_alloc(((size_t)se->nev + 1) * sizeof *lane);
	uint32_t *lab_x = pt_alloc(((size_t)se->nev + 1) * sizeof *lab_x);
	uint32_t lanes = event_lanes(se, x0, w, width, lane, lab_x);
	uint32_t top = y + 26 + lanes * LANE_H + 6; /* the plot's top: every label above it */
	pt_put(b, "<text x=\"10\" y=\"%u\" class=\"h\">%s per member over %u tick%s</text>\n", y + 14, what,
	       se->ticks, se->ticks == 1 ? "" : "s");
	for (size_t i = 0; i < (size_t)(se->ticks + 1) * se->nm; i++)
		if (vals[i] != PT_SERIES_NONE && vals[i] > mx)
			mx = vals[i];
	/* the axis: 0 to a whole number of round steps, at most five */
	uint32_t ystep = nice_step((mx + 3) / 4);
	mx = (mx + ystep - 1) / ystep * ystep;
	uint32_t t1 = se->ticks ? se->ticks : 1, xstep = nice_step((t1 + 3) / 4);
	pt_put(b, "<g data-chart=\"%s\" data-top=\"%u\" data-bottom=\"%u\">\n", kind, top, top + CHART_H);
	/* axes, with five values and five ticks (fewer when they would repeat) */
	pt_put(b, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" class=\"a\"/>", x0, top, x0, top + CHART_H);
	pt_put(b, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" class=\"a\"/>\n", x0, top + CHART_H, x0 + w,
	       top + CHART_H);
	for (uint32_t v = 0; v <= mx; v += ystep) {
		uint32_t yy = top + CHART_H - (uint32_t)((uint64_t)v * CHART_H / mx);
		pt_put(b, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" class=\"g\"/>", x0, yy, x0 + w, yy);
		pt_put(b, "<text x=\"%u\" y=\"%u\" class=\"l\" data-axis=\"y\">%u</text>\n", x0 - 4, yy + 4, v);
	}
	for (uint32_t t = 0; t <= se->ticks; t += xstep) {
		uint32_t xx = x0 + (uint32_t)((uint64_t)t * w / t1);
		pt_put(b, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" class=\"a\"/>", xx, top + CHART_H, xx,
		       top + CHART_H + 4);
		/* the last value ends at the axis' end; "tick" says what it counts */
		int end = t + xstep > se->ticks && t > 0;
		pt_put(b, "<text x=\"%u\" y=\"%u\" class=\"%s\" data-axis=\"x\">%s%u</text>\n", xx,
		       top + CHART_H + 16, end && xx + 30 > x0 + w ? "l" : t ? "m" : "", t ? "" : "tick ", t);
	}
	/* the events: a dashed line through the plot, its label in its lane */
	for (uint32_t i = 0; i < se->nev; i++) {
		uint32_t x = x0 + (uint32_t)((uint64_t)se->ev_tick[i] * w / t1);
		uint32_t ly = y + 26 + (lanes - 1 - lane[i]) * LANE_H + 9;
		/* the line stays in the plot, a mark on its top edge: no label
		 * above is crossed */
		pt_put(b, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" class=\"f\" data-event-line=\"%u\"/>", x, top, x,
		       top + CHART_H, se->ev_tick[i]);
		pt_put(b, "<path d=\"M%u %uh8l-4 5z\" class=\"e\"/>", x - 4, top - 5);
		pt_put(b, "<text x=\"%u\" y=\"%u\" class=\"s\" data-event=\"%u\">", lab_x[i], ly, se->ev_tick[i]);
		pt_svg_text(b, se->ev_text[i], strlen(se->ev_text[i]));
		pt_put(b, "</text>\n");
	}
	free(lane);
	free(lab_x);
	/* a line per member, in the order of the rows */
	uint32_t lx = 10, ly = top + CHART_H + 34;
	for (uint32_t r = 0; r < p->last->nm; r++) {
		uint32_t m = p->last->m[r].member;
		if (m >= se->nm)
			continue;
		const char *col = palette[r % (sizeof palette / sizeof palette[0])];
		pt_put(b, "<polyline data-member=\"");
		pt_svg_name(b, s->members[m].id);
		pt_put(b, "\" data-values=\"");
		for (uint32_t t = 0; t <= se->ticks; t++) {
			uint32_t v = vals[(size_t)t * se->nm + m];
			if (v == PT_SERIES_NONE)
				pt_put(b, "%s-", t ? " " : "");
			else
				pt_put(b, "%s%u", t ? " " : "", v);
		}
		pt_put(b, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
		/* members with equal counts would draw one line: each is moved
		 * by up to 5 px, so every line shows (never past the plot) */
		int off = (int)(r % 6) * 2 - 5;
		int first = 1;
		for (uint32_t t = 0; t <= se->ticks; t++) {
			uint32_t v = vals[(size_t)t * se->nm + m];
			if (v == PT_SERIES_NONE)
				continue;
			int yv = (int)(top + CHART_H - (uint32_t)((uint64_t)v * CHART_H / mx)) + off;
			if (yv > (int)(top + CHART_H))
				yv = (int)(top + CHART_H);
			if (yv < (int)top)
				yv = (int)top;
			pt_put(b, "%s%u,%d", first ? "" : " ", x0 + (uint32_t)((uint64_t)t * w / t1), yv);
			first = 0;
		}
		pt_put(b, "\"/>\n");
		/* its key */
		uint32_t kw = 30 + (uint32_t)pt_svg_name_chars(s->members[m].id) * CH + 14;
		if (lx > 10 && lx + kw > width - 10) {
			lx = 10;
			ly += 18;
		}
		pt_put(b, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"%s\" stroke-width=\"3\"/>", lx, ly - 4,
		       lx + 22, ly - 4, col);
		pt_put(b, "<text x=\"%u\" y=\"%u\">", lx + 28, ly);
		pt_svg_name(b, s->members[m].id);
		pt_put(b, "</text>\n");
		lx += kw;
	}
	pt_put(b, "</g>\n");
	return ly + 20;
}

/* The measure over the ticks, and beside it (below) the other count. */
uint32_t pt_svg_chart(pt_buf *b, const pic *p, const pt_series *se, uint32_t width, uint32_t y)
{
	y = chart_one(b, p, se, se->v, pt_measure_name(p->policy), "measure", width, y);
	if (se->o && p->policy != PT_POLICY_FLEET) /* a fleet's shards have no replicas */
		y = chart_one(b, p, se, se->o, se->o_name, "other", width, y);
	return y;
}
