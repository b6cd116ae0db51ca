/*
 * svg.h - what the files of the pictures (--svg) share: svg.c draws the
 * panels of members and streams, the legend and the picture around them;
 * svg_chart.c draws simulate's chart of each member's count over the ticks.
 * A picture's states (pic), and the text and names written into it.
 */
#ifndef PT_SVG_H
#define PT_SVG_H

#include "run.h"
#include "stats.h"

#define CH 7u /* width of a 12px monospace character, rounded down */

typedef struct pic {
	const pl_snapshot *s;  /* names (the last state's snapshot: members only grow) */
	const pt_stats *const *st;
	const char *const *label;
	uint32_t n;            /* states */
	uint32_t policy;
	const pt_stats *last;  /* the order of rows: the last state's members */
	const pt_plan_end *end; /* a plan's end, said under the title, or NULL */
	const pl_view *v;      /* the last state's view */
	const pt_tick *why;    /* what the policy named as blocked at the end, or NULL */
	uint8_t *alone;        /* by member: alone in its zone and holding every shard, in the last state */
} pic;

/* svg.c: text, escaped for XML; a name as the tool writes it (pt_put_name),
 * escaped; and its width in characters */
void pt_svg_text(pt_buf *b, const char *s, size_t n);
void pt_svg_name(pt_buf *b, pl_bytes id);
size_t pt_svg_name_chars(pl_bytes id);

/* svg_chart.c: the measure over the ticks, and beside it (below) the other
 * count; returns the new y. */
uint32_t pt_svg_chart(pt_buf *b, const pic *p, const pt_series *se, uint32_t width, uint32_t y);

#endif /* PT_SVG_H */
