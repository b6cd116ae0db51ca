/*
 * stats_out.c - the spread stats.c counts, written out: a table with a
 * terminal bar chart, one line for plan's before and after, and JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define PT_BAR 40u

/* ---- text --------------------------------------------------------------------------- */

static size_t name_width(const pl_snapshot *s, const pt_stats *st)
{
	size_t w = 6;
	for (uint32_t r = 0; r < st->nm; r++) {
		pt_buf t = {0};
		pt_put_name(&t, s->members[st->m[r].member].id);
		if (t.len > w)
			w = t.len;
		pt_buf_free(&t);
	}
	return w > 32 ? 32 : w;
}

static void put_padded_name(pt_buf *b, pl_bytes id, size_t width)
{
	size_t before = b->len;
	pt_put_name(b, id);
	for (size_t n = b->len - before; n < width; n++)
		pt_putc(b, ' ');
}

static void bar(pt_buf *b, uint32_t val, uint32_t fl, uint32_t ce, uint32_t scale, int eligible_member)
{
	uint32_t n = scale ? (uint32_t)((uint64_t)val * PT_BAR / scale) : 0;
	uint32_t at = scale ? (uint32_t)((uint64_t)ce * PT_BAR / scale) : 0;
	if (val > 0 && n == 0)
		n = 1;
	pt_putc(b, ' ');
	for (uint32_t i = 0; i <= PT_BAR; i++) {
		if (i == at && eligible_member && ce)
			pt_putc(b, '|');
		else
			pt_putc(b, i < n ? '=' : ' ');
	}
	/* trim the blanks the bar ended with */
	while (b->len && b->p[b->len - 1] == ' ')
		b->len--;
	b->p[b->len] = '\0';
	if (eligible_member && val > ce)
		pt_put(b, " over by %u", val - ce);
	else if (eligible_member && val < fl)
		pt_put(b, " under by %u", fl - val);
}

/* "b3=2(draining)": a count named by its member, and a member that is not
 * held to the bounds says why. */
static void named_count(pt_buf *b, const pl_member *m, uint32_t val, int held)
{
	pt_put_name(b, m->id);
	pt_put(b, "=%u", val);
	if (!held)
		pt_put(b, "(%s)", m->flags & PL_MEMBER_DOWN ? "down" : "draining");
}

/* Named counts of a list past PT_NAMED: "min 1 (b3), max 10 (b2) over 40". */
#define PT_NAMED 16u

static void named_range(pt_buf *b, const pl_snapshot *s, uint32_t mn, uint32_t mn_m, uint32_t mx, uint32_t mx_m,
			uint32_t n)
{
	pt_put(b, "min %u (", mn);
	pt_put_name(b, s->members[mn_m].id);
	pt_put(b, "), max %u (", mx);
	pt_put_name(b, s->members[mx_m].id);
	pt_put(b, ") over %u members", n);
}

/* "b0=10 b1=1 b2=1" over the stream's rows (canonical order), or the
 * range over its eligible members. */
static void spread_words(pt_buf *b, const pt_stats *st, const pl_snapshot *s, const pt_stream_row *sr)
{
	if (sr->count == 0) {
		pt_put(b, "-");
		return;
	}
	if (sr->count <= PT_NAMED) {
		for (uint32_t q = 0; q < sr->count; q++) {
			const pt_cell_row *c = &st->cells[sr->first + q];
			if (q)
				pt_putc(b, ' ');
			named_count(b, &s->members[c->member], c->leaders, pt_eligible(&s->members[c->member]));
		}
		return;
	}
	uint32_t mn = UINT32_MAX, mx = 0, mn_m = 0, mx_m = 0, n = 0;
	for (uint32_t q = 0; q < sr->count; q++) {
		const pt_cell_row *c = &st->cells[sr->first + q];
		if (!pt_eligible(&s->members[c->member]))
			continue;
		n++;
		/* the first of equals in the rows' (id) order, never a file index */
		if (n == 1 || c->leaders < mn)
			mn = c->leaders, mn_m = c->member;
		if (n == 1 || c->leaders > mx)
			mx = c->leaders, mx_m = c->member;
	}
	if (n == 0) {
		pt_put(b, "-");
		return;
	}
	/* eligible members that hold none of it are not rows: the minimum is 0 */
	if (sr->min_leaders < mn)
		pt_put(b, "min %u, max %u (", sr->min_leaders, mx), pt_put_name(b, s->members[mx_m].id),
			pt_put(b, ") over %u members", st->c.eligible);
	else
		named_range(b, s, mn, mn_m, mx, mx_m, st->c.eligible);
}

void pt_stream_words(pt_buf *b, const pt_stats *st, const pl_view *v, const pt_stream_row *sr)
{
	spread_words(b, st, pl_view_snapshot(v), sr);
}

/* Whether a member is held to the bounds of the chart's measure. */
int pt_held(const pt_stats *st, const pl_member *m)
{
	return st->policy == PT_POLICY_REGION ? !(m->flags & PL_MEMBER_DOWN) : pt_eligible(m);
}

void pt_stats_line(pt_buf *b, const pt_stats *st, const pl_view *v)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	uint32_t n = 0, mn = UINT32_MAX, mx = 0, mn_m = 0, mx_m = 0;
	pt_put(b, "%s ", pt_measure_name(st->policy));
	for (uint32_t r = 0; r < st->nm; r++) {
		uint32_t val, fl, ce;
		const pl_member *m = &s->members[st->m[r].member];
		pt_total_measure(st, s, &st->m[r], &val, &fl, &ce);
		if (st->nm <= PT_NAMED) {
			if (r)
				pt_putc(b, ' ');
			named_count(b, m, val, pt_held(st, m));
			continue;
		}
		if (!pt_held(st, m))
			continue;
		n++;
		if (n == 1 || val < mn)
			mn = val, mn_m = st->m[r].member;
		if (n == 1 || val > mx)
			mx = val, mx_m = st->m[r].member;
	}
	if (st->nm == 0 || (st->nm > PT_NAMED && n == 0))
		pt_put(b, "-");
	else if (st->nm > PT_NAMED)
		named_range(b, s, mn, mn_m, mx, mx_m, n);
	if (st->policy != PT_POLICY_FLEET && st->ns) {
		pt_put(b, "; streams outside their bounds: %u", st->streams_uneven);
		/* the widest stream, the first in id order among equals; a kept
		 * one is left as it is, so not named */
		const pt_stream_row *w = NULL;
		for (uint32_t r = 0; r < st->ns; r++)
			if (!st->s[r].kept &&
			    (w == NULL || st->s[r].max_leaders - st->s[r].min_leaders > w->max_leaders - w->min_leaders))
				w = &st->s[r];
		if (w && w->max_leaders - w->min_leaders > 1) {
			pt_put(b, ", widest ");
			pt_put_name(b, s->streams[w->stream].id);
			pt_putc(b, ' ');
			spread_words(b, st, s, w);
		}
	}
	pt_put(b, "; imbalance %llu", (unsigned long long)st->imbalance);
	pt_bytes_line(b, st, v);
}

/* What the imbalance counts, in words (and in the JSON). */
static const char *imbalance_words(uint32_t measure)
{
	return measure == PL_IMBALANCE_BROKER	 ? "leaders and replicas"
	       : measure == PL_IMBALANCE_LEADERS ? "leaders"
	       : measure == PL_IMBALANCE_OWNED	 ? "shards owned"
						 : "replicas";
}

void pt_stats_text(pt_buf *b, const pt_stats *st, const pl_view *v, int per_stream)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	const pl_view_counts *c = &st->c;
	size_t w = name_width(s, st);
	pt_put_counts(b, c);
	pt_put(b, ", scorer %s\n", c->scorer == PL_SCORER_LEGACY_FNV1A ? "legacy" : "xxh3");
	pt_put(b, "cluster share %u (ceil(%u shard%s / %u eligible member%s)); %llu replica%s on live members\n",
	       c->share, c->shards, c->shards == 1 ? "" : "s", c->eligible, c->eligible == 1 ? "" : "s",
	       (unsigned long long)st->live_replicas, st->live_replicas == 1 ? "" : "s");
	pt_put(b, "imbalance %llu (%llu in the totals, %llu in the streams): the %s past the bounds, 0 when balanced\n",
	       (unsigned long long)st->imbalance, (unsigned long long)(st->imbalance - st->imbalance_streams),
	       (unsigned long long)st->imbalance_streams, imbalance_words(st->measure));
	if (st->under_spread) {
		pt_put(b, "%u shard%s span%s fewer zones than %s could:", st->under_spread, st->under_spread == 1 ? "" : "s",
		       st->under_spread == 1 ? "s" : "", st->under_spread == 1 ? "it" : "they");
		for (uint32_t i = 0; i < st->under_spread && i < PT_UNDER_SPREAD_SHOWN; i++) {
			pt_put(b, i ? ", " : " ");
			pt_put_name(b, s->shards[st->under_first[i]].key);
		}
		pt_put(b, "%s\n", st->under_spread > PT_UNDER_SPREAD_SHOWN ? ", ..." : "");
	}
	pt_health_text(b, &st->health, v, "at risk:");
	pt_put(b, "\n%-*s  %-8s %6s  %-8s %7s %8s", (int)w, "member", "zone", "weight", "state", "leaders", "replicas");
	if (st->owned_valid)
		pt_put(b, " %5s", "owned");
	pt_put(b, " %5s %7s  (of %s)\n", "floor", "ceiling", pt_measure_name(st->policy));
	for (uint32_t r = 0; r < st->nm; r++) {
		const pt_member_row *row = &st->m[r];
		const pl_member *m = &s->members[row->member];
		put_padded_name(b, m->id, w);
		pt_put(b, "  ");
		size_t before = b->len;
		if (m->zone.len)
			pt_put_name(b, m->zone);
		else
			pt_putc(b, '-');
		for (size_t n = b->len - before; n < 8; n++)
			pt_putc(b, ' ');
		pt_put(b, " %6u  ", m->weight ? m->weight : 1);
		before = b->len;
		pt_put_member_state(b, m->flags & ~PL_MEMBER_UNMEASURED, ',');
		for (size_t n = b->len - before; n < 8; n++)
			pt_putc(b, ' ');
		pt_put(b, " %7u %8u", row->leaders, row->replicas);
		if (st->owned_valid)
			pt_put(b, " %5u", row->owned);
		uint32_t val, fl, ce;
		pt_total_measure(st, s, row, &val, &fl, &ce);
		pt_put(b, " %5u %7u\n", fl, ce);
	}
	pt_bytes_text(b, st, v, w);
	/* the chart */
	uint32_t scale = 1;
	for (uint32_t r = 0; r < st->nm; r++) {
		uint32_t val, fl, ce;
		pt_total_measure(st, s, &st->m[r], &val, &fl, &ce);
		scale = val > scale ? val : scale;
		scale = ce > scale ? ce : scale;
	}
	pt_put(b, "\n%s per member (| marks the %s)\n", pt_measure_name(st->policy),
	       st->policy == PT_POLICY_REGION ? "fair share, rounded up" : "ceiling");
	for (uint32_t r = 0; r < st->nm; r++) {
		uint32_t val, fl, ce;
		const pl_member *m = &s->members[st->m[r].member];
		pt_total_measure(st, s, &st->m[r], &val, &fl, &ce);
		pt_put(b, "  ");
		put_padded_name(b, m->id, w);
		pt_put(b, " %5u", val);
		int in = st->policy == PT_POLICY_REGION ? !(m->flags & PL_MEMBER_DOWN) : pt_eligible(m);
		bar(b, val, fl, ce, scale, in);
		pt_putc(b, '\n');
	}
	if (!per_stream)
		return;
	for (uint32_t r = 0; r < st->ns; r++) {
		const pt_stream_row *sr = &st->s[r];
		pt_put(b, "\nstream ");
		pt_put_name(b, s->streams[sr->stream].id);
		uint32_t fl, ce;
		pt_bounds(sr->shards, 1, c->eligible, 1, &fl, &ce);
		pt_put(b, ": %u shard%s, %s ", sr->shards, sr->shards == 1 ? "" : "s", st->owned_valid ? "owned" : "leaders");
		spread_words(b, st, s, sr);
		if (c->weight == c->eligible)
			pt_put(b, ", floor %u, ceiling %u", fl, ce);
		if (c->weight == c->eligible && !st->owned_valid && sr->led_eligible != sr->shards) {
			/* the broker's stream pass counts only what eligible
			 * members lead; its reasons give these bounds */
			uint32_t lf, lc;
			pt_bounds(sr->led_eligible, 1, c->eligible, 1, &lf, &lc);
			pt_put(b, " (the %u led by eligible members: floor %u, ceiling %u)", sr->led_eligible, lf, lc);
		}
		if (sr->kept)
			pt_put(b, "; kept: not balanced\n");
		else if (sr->over || sr->under)
			pt_put(b, "; %u over the ceiling, %u under the floor\n", sr->over, sr->under);
		else
			pt_put(b, "; within bounds\n");
		uint32_t sc = 1;
		int weighted = c->weight != c->eligible;
		for (uint32_t q = 0; q < sr->count; q++) {
			const pt_cell_row *cr = &st->cells[sr->first + q];
			sc = cr->leaders > sc ? cr->leaders : sc;
			sc = cr->ceiling > sc ? cr->ceiling : sc;
		}
		pt_put(b, "  %-*s %7s %8s%s\n", (int)w, "member", st->owned_valid ? "owned" : "leaders", "replicas",
		       weighted ? "  floor ceiling" : "");
		for (uint32_t q = 0; q < sr->count; q++) {
			const pt_cell_row *cr = &st->cells[sr->first + q];
			const pl_member *m = &s->members[cr->member];
			pt_put(b, "  ");
			put_padded_name(b, m->id, w);
			pt_put(b, " %7u %8u", cr->leaders, cr->replicas);
			if (weighted)
				pt_put(b, "  %5u %7u", cr->floor, cr->ceiling);
			bar(b, cr->leaders, cr->floor, cr->ceiling, sc, pt_eligible(m) && !sr->kept);
			pt_putc(b, '\n');
		}
		if (sr->count < c->eligible)
			pt_put(b, "  (%u eligible members hold none of it)\n", c->eligible - sr->count);
	}
}

/* ---- JSON ------------------------------------------------------------------------------ */

void pt_stats_json(pt_buf *b, const pt_stats *st, const pl_view *v)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	const pl_view_counts *c = &st->c;
	pt_put(b, "{\"members\": %u, \"live\": %u, \"eligible\": %u, \"streams\": %u, \"shards\": %u, "
		  "\"leaderless\": %u, \"moving\": %u, \"overrides\": %u, \"scorer\": \"%s\", \"share\": %u, "
		  "\"live_replicas\": %llu, \"policy\": \"%s\", \"measure\": \"%s\",\n \"imbalance\": {\"measure\": \"%s\", \"total\": %llu, \"totals\": %llu, \"streams\": %llu},\n \"under_spread\": {\"count\": %u, \"first\": [",
	       c->members, c->live, c->eligible, c->streams, c->shards, c->leaderless, c->moving, c->overrides,
	       c->scorer == PL_SCORER_LEGACY_FNV1A ? "legacy" : "xxh3", c->share, (unsigned long long)st->live_replicas,
	       pt_policy_name(st->policy), pt_measure_name(st->policy), imbalance_words(st->measure),
	       (unsigned long long)st->imbalance,
	       (unsigned long long)(st->imbalance - st->imbalance_streams), (unsigned long long)st->imbalance_streams,
	       st->under_spread);
	for (uint32_t i = 0; i < st->under_spread && i < PT_UNDER_SPREAD_SHOWN; i++) {
		pt_put(b, i ? ", " : "");
		pt_put_json_bytes(b, s->shards[st->under_first[i]].key);
	}
	pt_put(b, "]},\n ");
	pt_health_json(b, &st->health, v);
	if (st->by.sized) {
		pt_put(b, ",\n ");
		pt_bytes_json(b, st, v);
	}
	pt_put(b, ",\n \"cluster\": [");
	for (uint32_t r = 0; r < st->nm; r++) {
		const pt_member_row *row = &st->m[r];
		const pl_member *m = &s->members[row->member];
		pt_put(b, "%s\n  {\"member\": ", r ? "," : "");
		pt_put_json_bytes(b, m->id);
		pt_put(b, ", \"zone\": ");
		pt_put_json_bytes(b, m->zone);
		pt_put(b, ", \"weight\": %u, \"state\": ", m->weight ? m->weight : 1);
		pt_put_json_state(b, m->flags);
		pt_put(b, ", \"leaders\": %u, \"replicas\": %u, \"floor\": %u, \"ceiling\": %u", row->leaders, row->replicas,
		       row->floor, row->ceiling);
		if (st->owned_valid)
			pt_put(b, ", \"owned\": %u", row->owned);
		uint32_t val, fl, ce;
		pt_total_measure(st, s, row, &val, &fl, &ce);
		pt_put(b, ", \"measure\": {\"value\": %u, \"floor\": %u, \"ceiling\": %u}", val, fl, ce);
		pt_bytes_member_json(b, st, v, r);
		pt_putc(b, '}');
	}
	pt_put(b, "],\n \"streams\": [");
	for (uint32_t r = 0; r < st->ns; r++) {
		const pt_stream_row *sr = &st->s[r];
		pt_put(b, "%s\n  {\"stream\": ", r ? "," : "");
		pt_put_json_bytes(b, s->streams[sr->stream].id);
		pt_put(b, ", \"shards\": %u, \"min\": %u, \"max\": %u, \"over\": %u, \"under\": %u, ", sr->shards,
		       sr->min_leaders, sr->max_leaders, sr->over, sr->under);
		if (sr->kept) /* broker: never balanced (over and under are 0) */
			pt_put(b, "\"kept\": true, ");
		pt_put(b, "\"members\": [");
		for (uint32_t q = 0; q < sr->count; q++) {
			const pt_cell_row *cr = &st->cells[sr->first + q];
			pt_put(b, "%s\n   {\"member\": ", q ? "," : "");
			pt_put_json_bytes(b, s->members[cr->member].id);
			pt_put(b, ", \"%s\": %u, \"replicas\": %u, \"floor\": %u, \"ceiling\": %u}",
			       st->owned_valid ? "owned" : "leaders", cr->leaders, cr->replicas, cr->floor, cr->ceiling);
		}
		pt_put(b, "]}");
	}
	pt_put(b, "]}\n");
}
