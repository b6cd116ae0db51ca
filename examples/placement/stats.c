/*
 * stats.c - the spread of a layout: leaders, replicas and (for a fleet)
 * shards owned per member, in total and per stream, with the floor and
 * ceiling that apply to each member; as a table with a terminal bar chart,
 * as JSON, and as an SVG picture.
 *
 * How it works. Totals come from the view (pl_view_member_tally()). Per
 * stream, the shards are grouped by stream with a counting sort and each
 * stream's shards are walked once, counting leaders and replicas (from
 * pl_view_shard_state(), so in-flight moves count as finished, as the view
 * counts them) into per-member counters that are reset member by member
 * afterwards: O(shards x replicas + streams x eligible members), never a
 * members x streams table. Floors and ceilings are the library's documented
 * ones: floor(count x weight / eligible weight) and the same rounded up, 0
 * for a member that is not eligible.
 *
 * A stream lists every eligible member when there are at most
 * PT_STREAM_ROWS of them, else only the members holding some of it: the
 * stream's line still gives the minimum and maximum over all of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

#define PT_STREAM_ROWS 64u
#define PT_BAR 40u

static int eligible(const pl_member *m)
{
	return !(m->flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING));
}

static void bounds(uint64_t count, uint32_t weight, uint64_t total_w, int elig, uint32_t *fl, uint32_t *ce)
{
	if (!elig || total_w == 0) {
		*fl = *ce = 0;
		return;
	}
	uint64_t num = count * (weight ? weight : 1);
	*fl = (uint32_t)(num / total_w);
	*ce = (uint32_t)((num + total_w - 1) / total_w);
}

/* The owner of every shard as a fleet sees it: the override's member when it
 * is eligible, else the ring home. */
static void owners(const pl_view *v, uint32_t *own)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	for (uint32_t k = 0; k < s->n_shards; k++) {
		pl_shard_state ss;
		pl_view_shard_state(v, k, &ss);
		if (ss.override_member != PL_NONE && eligible(&s->members[ss.override_member])) {
			own[k] = ss.override_member;
			continue;
		}
		int h = pl_view_home(v, k);
		own[k] = h < 0 ? PL_NONE : (uint32_t)h;
	}
}

/* qsort has no context argument in C11: the rank table for by_rank(). */
static const uint32_t *sort_ctx;

static int by_rank(const void *a, const void *b)
{
	uint32_t x = sort_ctx[*(const uint32_t *)a], y = sort_ctx[*(const uint32_t *)b];
	return x < y ? -1 : x > y;
}

void pt_stats_compute(pt_stats *st, const pl_view *v, uint32_t policy)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	memset(st, 0, sizeof *st);
	pl_view_stats(v, &st->c);
	st->policy = policy;
	st->nm = s->n_members;
	st->ns = s->n_streams;
	st->m = pt_alloc((size_t)st->nm * sizeof *st->m);
	uint32_t *own = NULL;
	uint32_t *m_row = pt_alloc((size_t)st->nm * sizeof *m_row);
	if (policy == PT_POLICY_FLEET) {
		own = pt_alloc((size_t)s->n_shards * sizeof *own);
		owners(v, own);
		st->owned_valid = 1;
	}
	for (uint32_t r = 0; r < st->nm; r++) {
		uint32_t i = (uint32_t)pl_view_at(v, PL_ELEM_MEMBER, r);
		pl_tally t;
		pl_view_member_tally(v, i, &t);
		pt_member_row *row = &st->m[r];
		memset(row, 0, sizeof *row);
		row->member = i;
		row->leaders = t.leaders;
		row->replicas = t.replicas;
		row->floor = t.floor;
		row->ceiling = t.ceiling;
		m_row[i] = r;
		if (!(s->members[i].flags & PL_MEMBER_DOWN))
			st->live_replicas += t.replicas;
	}
	for (uint32_t k = 0; own && k < s->n_shards; k++)
		if (own[k] != PL_NONE)
			st->m[m_row[own[k]]].owned++;

	/* shards grouped by stream */
	uint32_t ns = s->n_streams;
	uint32_t *first = pt_alloc(((size_t)ns + 1) * sizeof *first);
	uint32_t *by = pt_alloc((size_t)s->n_shards * sizeof *by);
	memset(first, 0, ((size_t)ns + 1) * sizeof *first);
	for (uint32_t k = 0; k < s->n_shards; k++)
		if (s->shards[k].stream != PL_NONE)
			first[s->shards[k].stream + 1]++;
	for (uint32_t i = 0; i < ns; i++)
		first[i + 1] += first[i];
	uint32_t *next = pt_alloc(((size_t)ns + 1) * sizeof *next);
	memcpy(next, first, ((size_t)ns + 1) * sizeof *next);
	for (uint32_t k = 0; k < s->n_shards; k++)
		if (s->shards[k].stream != PL_NONE)
			by[next[s->shards[k].stream]++] = k;
	free(next);

	uint32_t *cl = calloc(st->nm ? st->nm : 1, sizeof *cl), *cr = calloc(st->nm ? st->nm : 1, sizeof *cr);
	uint32_t *co = calloc(st->nm ? st->nm : 1, sizeof *co);
	uint32_t *touched = pt_alloc(((size_t)st->nm + 1) * sizeof *touched); /* members marked in a stream */
	if (!cl || !cr || !co)
		pt_oom();
	uint32_t *elig = pt_alloc((size_t)st->nm * sizeof *elig), nelig = 0;
	for (uint32_t r = 0; r < st->nm; r++)
		if (eligible(&s->members[st->m[r].member]))
			elig[nelig++] = st->m[r].member;
	uint8_t *mark = calloc(st->nm ? st->nm : 1, 1);
	if (!mark)
		pt_oom();
	size_t cells_cap = 0;
	st->s = pt_alloc((size_t)ns * sizeof *st->s);
	for (uint32_t r = 0; r < ns; r++) {
		uint32_t si = (uint32_t)pl_view_at(v, PL_ELEM_STREAM, r);
		pt_stream_row *sr = &st->s[r];
		memset(sr, 0, sizeof *sr);
		sr->stream = si;
		sr->shards = first[si + 1] - first[si];
		size_t nt = 0;
		for (uint32_t j = first[si]; j < first[si + 1]; j++) {
			uint32_t k = by[j];
			pl_shard_state ss;
			pl_view_shard_state(v, k, &ss);
			if (ss.leader != PL_NONE) {
				sr->led_eligible += eligible(&s->members[ss.leader]);
				if (!mark[ss.leader])
					mark[ss.leader] = 1, touched[nt++] = ss.leader;
				cl[ss.leader]++;
			}
			for (uint32_t q = 0; q < ss.replica_count; q++) {
				uint32_t m = ss.replicas[q];
				if (!mark[m])
					mark[m] = 1, touched[nt++] = m;
				cr[m]++;
			}
			if (own && own[k] != PL_NONE) {
				if (!mark[own[k]])
					mark[own[k]] = 1, touched[nt++] = own[k];
				co[own[k]]++;
			}
		}
		/* min, max and members outside [floor, ceiling], over the eligible */
		sr->min_leaders = nelig ? UINT32_MAX : 0;
		for (uint32_t e = 0; e < nelig; e++) {
			uint32_t m = elig[e], fl, ce;
			bounds(sr->shards, s->members[m].weight, st->c.weight, 1, &fl, &ce);
			uint32_t l = own ? co[m] : cl[m];
			sr->min_leaders = l < sr->min_leaders ? l : sr->min_leaders;
			sr->max_leaders = l > sr->max_leaders ? l : sr->max_leaders;
			sr->over += l > ce;
			sr->under += l < fl;
		}
		if (sr->over || sr->under)
			st->streams_uneven++;
		/* rows, in canonical member order: every member when the
		 * eligible ones are few, else only the members holding some */
		sr->first = (uint32_t)st->ncells;
		int all = nelig <= PT_STREAM_ROWS;
		if (!all) {
			sort_ctx = m_row;
			qsort(touched, nt, sizeof *touched, by_rank);
		}
		uint32_t lim = all ? st->nm : (uint32_t)nt;
		for (uint32_t q = 0; q < lim; q++) {
			uint32_t m = all ? st->m[q].member : touched[q];
			int el = eligible(&s->members[m]);
			if (!mark[m] && !el)
				continue;
			st->cells = pt_grow(st->cells, &cells_cap, sizeof *st->cells, st->ncells + 1);
			pt_cell_row *c = &st->cells[st->ncells++];
			c->member = m;
			c->leaders = own ? co[m] : cl[m];
			c->replicas = cr[m];
			bounds(sr->shards, s->members[m].weight, st->c.weight, el, &c->floor, &c->ceiling);
		}
		sr->count = (uint32_t)st->ncells - sr->first;
		for (size_t t = 0; t < nt; t++) {
			uint32_t m = touched[t];
			mark[m] = 0;
			cl[m] = cr[m] = co[m] = 0;
		}
	}
	free(mark);
	free(elig);
	free(touched);
	free(cl);
	free(cr);
	free(co);
	free(first);
	free(by);
	free(m_row);
	free(own);
}

void pt_stats_free(pt_stats *st)
{
	free(st->m);
	free(st->s);
	free(st->cells);
	memset(st, 0, sizeof *st);
}

/* ---- the chart's measure ------------------------------------------------------- */

static const char *measure_name(uint32_t policy)
{
	return policy == PT_POLICY_FLEET ? "owned" : policy == PT_POLICY_REGION ? "replicas" : "leaders";
}

/* A member's value on the totals chart, and the bounds it is held to. */
static void total_measure(const pt_stats *st, const pl_snapshot *s, const pt_member_row *r, uint32_t *val,
			  uint32_t *fl, uint32_t *ce)
{
	if (st->policy == PT_POLICY_FLEET) {
		*val = r->owned;
		*fl = r->floor;
		*ce = r->ceiling;
	} else if (st->policy == PT_POLICY_REGION) {
		/* the region policy's fair share: live replicas over live members */
		*val = r->replicas;
		if ((s->members[r->member].flags & PL_MEMBER_DOWN) || st->c.live == 0) {
			*fl = *ce = 0;
		} else {
			*fl = (uint32_t)(st->live_replicas / st->c.live);
			*ce = (uint32_t)((st->live_replicas + st->c.live - 1) / st->c.live);
		}
	} else {
		*val = r->leaders;
		*fl = r->floor;
		*ce = r->ceiling;
	}
}

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
			named_count(b, &s->members[c->member], c->leaders, eligible(&s->members[c->member]));
		}
		return;
	}
	uint32_t mn = UINT32_MAX, mx = 0, mn_m = 0, mx_m = 0, n = 0;
	for (uint32_t q = 0; q < sr->count; q++) {
		const pt_cell_row *c = &st->cells[sr->first + q];
		if (!eligible(&s->members[c->member]))
			continue;
		n++;
		if (c->leaders < mn)
			mn = c->leaders, mn_m = c->member;
		if (c->leaders > mx)
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
static int held(const pt_stats *st, const pl_member *m)
{
	return st->policy == PT_POLICY_REGION ? !(m->flags & PL_MEMBER_DOWN) : eligible(m);
}

void pt_stats_line(pt_buf *b, const pt_stats *st, const pl_view *v)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	uint32_t n = 0, mn = UINT32_MAX, mx = 0, mn_m = 0, mx_m = 0;
	pt_put(b, "%s ", measure_name(st->policy));
	for (uint32_t r = 0; r < st->nm; r++) {
		uint32_t val, fl, ce;
		const pl_member *m = &s->members[st->m[r].member];
		total_measure(st, s, &st->m[r], &val, &fl, &ce);
		if (st->nm <= PT_NAMED) {
			if (r)
				pt_putc(b, ' ');
			named_count(b, m, val, held(st, m));
			continue;
		}
		if (!held(st, m))
			continue;
		n++;
		if (val < mn)
			mn = val, mn_m = st->m[r].member;
		if (val > mx)
			mx = val, mx_m = st->m[r].member;
	}
	if (st->nm == 0 || (st->nm > PT_NAMED && n == 0))
		pt_put(b, "-");
	else if (st->nm > PT_NAMED)
		named_range(b, s, mn, mn_m, mx, mx_m, n);
	if (st->policy != PT_POLICY_FLEET && st->ns) {
		pt_put(b, "; streams outside their bounds: %u", st->streams_uneven);
		/* the widest stream, the first in id order among equals */
		const pt_stream_row *w = NULL;
		for (uint32_t r = 0; r < st->ns; r++)
			if (w == NULL || st->s[r].max_leaders - st->s[r].min_leaders > w->max_leaders - w->min_leaders)
				w = &st->s[r];
		if (w && w->max_leaders - w->min_leaders > 1) {
			pt_put(b, ", widest ");
			pt_put_name(b, s->streams[w->stream].id);
			pt_putc(b, ' ');
			spread_words(b, st, s, w);
		}
	}
}

void pt_stats_text(pt_buf *b, const pt_stats *st, const pl_view *v, int per_stream)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	const pl_view_counts *c = &st->c;
	size_t w = name_width(s, st);
	pt_put_counts(b, c);
	pt_put(b, ", scorer %s\n", c->scorer == PL_SCORER_LEGACY_FNV1A ? "legacy" : "xxh3");
	pt_put(b, "cluster share %u (ceil(%u shard%s / %u eligible member%s)); %llu replicas on live members\n", c->share,
	       c->shards, c->shards == 1 ? "" : "s", c->eligible, c->eligible == 1 ? "" : "s",
	       (unsigned long long)st->live_replicas);
	pt_put(b, "\n%-*s  %-8s %6s  %-8s %7s %8s", (int)w, "member", "zone", "weight", "state", "leaders", "replicas");
	if (st->owned_valid)
		pt_put(b, " %5s", "owned");
	pt_put(b, " %5s %7s  (of %s)\n", "floor", "ceiling", measure_name(st->policy));
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
		total_measure(st, s, row, &val, &fl, &ce);
		pt_put(b, " %5u %7u\n", fl, ce);
	}
	/* the chart */
	uint32_t scale = 1;
	for (uint32_t r = 0; r < st->nm; r++) {
		uint32_t val, fl, ce;
		total_measure(st, s, &st->m[r], &val, &fl, &ce);
		scale = val > scale ? val : scale;
		scale = ce > scale ? ce : scale;
	}
	pt_put(b, "\n%s per member (| marks the %s)\n", measure_name(st->policy),
	       st->policy == PT_POLICY_REGION ? "fair share, rounded up" : "ceiling");
	for (uint32_t r = 0; r < st->nm; r++) {
		uint32_t val, fl, ce;
		const pl_member *m = &s->members[st->m[r].member];
		total_measure(st, s, &st->m[r], &val, &fl, &ce);
		pt_put(b, "  ");
		put_padded_name(b, m->id, w);
		pt_put(b, " %5u", val);
		int in = st->policy == PT_POLICY_REGION ? !(m->flags & PL_MEMBER_DOWN) : eligible(m);
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
		bounds(sr->shards, 1, c->eligible, 1, &fl, &ce);
		pt_put(b, ": %u shard%s, %s ", sr->shards, sr->shards == 1 ? "" : "s", st->owned_valid ? "owned" : "leaders");
		spread_words(b, st, s, sr);
		if (c->weight == c->eligible)
			pt_put(b, ", floor %u, ceiling %u", fl, ce);
		if (c->weight == c->eligible && !st->owned_valid && sr->led_eligible != sr->shards) {
			/* the broker's stream pass counts only what eligible
			 * members lead; its reasons give these bounds */
			uint32_t lf, lc;
			bounds(sr->led_eligible, 1, c->eligible, 1, &lf, &lc);
			pt_put(b, " (the %u led by eligible members: floor %u, ceiling %u)", sr->led_eligible, lf, lc);
		}
		if (sr->over || sr->under)
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
			bar(b, cr->leaders, cr->floor, cr->ceiling, sc, eligible(m));
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
		  "\"live_replicas\": %llu, \"policy\": \"%s\", \"measure\": \"%s\",\n \"cluster\": [",
	       c->members, c->live, c->eligible, c->streams, c->shards, c->leaderless, c->moving, c->overrides,
	       c->scorer == PL_SCORER_LEGACY_FNV1A ? "legacy" : "xxh3", c->share, (unsigned long long)st->live_replicas,
	       pt_policy_name(st->policy), measure_name(st->policy));
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
		total_measure(st, s, row, &val, &fl, &ce);
		pt_put(b, ", \"measure\": {\"value\": %u, \"floor\": %u, \"ceiling\": %u}}", val, fl, ce);
	}
	pt_put(b, "],\n \"streams\": [");
	for (uint32_t r = 0; r < st->ns; r++) {
		const pt_stream_row *sr = &st->s[r];
		pt_put(b, "%s\n  {\"stream\": ", r ? "," : "");
		pt_put_json_bytes(b, s->streams[sr->stream].id);
		pt_put(b, ", \"shards\": %u, \"min\": %u, \"max\": %u, \"over\": %u, \"under\": %u, \"members\": [",
		       sr->shards, sr->min_leaders, sr->max_leaders, sr->over, sr->under);
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
		total_measure(st, s, &st->m[r], &rows[r].val, &rows[r].fl, &rows[r].ce);
		rows[r].in = st->policy == PT_POLICY_REGION ? !(m->flags & PL_MEMBER_DOWN) : eligible(m);
	}
	snprintf(t, sizeof t, "%s per member, %u shard%s", measure_name(st->policy), st->c.shards,
		 st->c.shards == 1 ? "" : "s");
	y = svg_panel(&body, y, t, (pl_bytes){NULL, 0}, rows, st->nm);
	for (uint32_t r = 0; r < st->ns; r++) {
		const pt_stream_row *sr = &st->s[r];
		svg_row *sr_rows = pt_alloc(((size_t)sr->count + 1) * sizeof *sr_rows);
		for (uint32_t q = 0; q < sr->count; q++) {
			const pt_cell_row *c = &st->cells[sr->first + q];
			sr_rows[q] = (svg_row){s->members[c->member].id, c->leaders, c->floor, c->ceiling,
					       eligible(&s->members[c->member])};
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
