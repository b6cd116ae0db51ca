/*
 * stats_bytes.c - bytes per member, where the layout gives sizes
 * (placement(5), size= and capacity=): what each member holds of the
 * known sizes, its capacity and the part of it used, its share, and the
 * spread; as a table, one line for plan's before and after, and JSON.
 *
 * How it works. Each shard's replicas are read from the view
 * (pl_view_shard_state(), so moves and copies in flight count as done, as
 * the view counts them) and its size, when known, is added to each of them;
 * a replica of unknown size is counted apart, never as 0 bytes. A member's
 * share is its part of the bytes on live members: in proportion to its
 * capacity when every eligible member's capacity is known, else to its
 * weight; 0 for a member that is not eligible. Percentages are in tenths,
 * computed in integers (pt_mul_div()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

uint64_t pt_mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	if (c == 0)
		return 0;
	uint64_t al = a & 0xFFFFFFFFu, ah = a >> 32, bl = b & 0xFFFFFFFFu, bh = b >> 32;
	uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
	uint64_t lo = (ll & 0xFFFFFFFFu) | (mid << 32);
	uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	if (hi >= c)
		return UINT64_MAX; /* the quotient does not fit */
	uint64_t q = 0, r = hi;
	for (int i = 63; i >= 0; i--) {
		uint64_t top = r >> 63;
		r = (r << 1) | ((lo >> i) & 1u);
		q <<= 1;
		if (top || r >= c) {
			r -= c;
			q |= 1;
		}
	}
	return q;
}

void pt_bytes_compute(pt_stats *st, const pl_view *v)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	pt_bytes_stats *by = &st->by;
	memset(by, 0, sizeof *by);
	if (s->shard_bytes == NULL && s->member_capacity == NULL)
		return;
	by->sized = 1;
	by->row = calloc(st->nm ? st->nm : 1, sizeof *by->row);
	uint32_t *row_of = pt_alloc(((size_t)s->n_members + 1) * sizeof *row_of);
	if (by->row == NULL)
		pt_oom();
	for (uint32_t r = 0; r < st->nm; r++) {
		uint32_t i = st->m[r].member;
		row_of[i] = r;
		by->row[r].capacity = s->member_capacity ? s->member_capacity[i] : PL_BYTES_UNKNOWN;
	}
	for (uint32_t k = 0; k < s->n_shards; k++) {
		uint64_t size = s->shard_bytes ? s->shard_bytes[k] : PL_BYTES_UNKNOWN;
		if (size != PL_BYTES_UNKNOWN)
			by->shards_known++;
		pl_shard_state ss;
		pl_view_shard_state(v, k, &ss);
		for (uint32_t q = 0; q < ss.replica_count; q++) {
			pt_bytes_row *br = &by->row[row_of[ss.replicas[q]]];
			if (size == PL_BYTES_UNKNOWN)
				br->unknown++;
			else
				br->bytes += size;
		}
	}
	free(row_of);
	/* totals over live members; the share over eligible ones */
	uint64_t cap_sum = 0, w_sum = 0;
	int all_cap = 1;
	for (uint32_t r = 0; r < st->nm; r++) {
		const pl_member *m = &s->members[st->m[r].member];
		const pt_bytes_row *br = &by->row[r];
		if (m->flags & PL_MEMBER_DOWN)
			continue;
		by->total += br->bytes;
		by->unknown += br->unknown;
		if (br->capacity != PL_BYTES_UNKNOWN)
			by->capacity += br->capacity;
		if (!pt_eligible(m))
			continue;
		if (br->capacity == PL_BYTES_UNKNOWN)
			all_cap = 0;
		else
			cap_sum += br->capacity;
		w_sum += m->weight ? m->weight : 1;
	}
	by->by_capacity = all_cap && cap_sum > 0;
	uint32_t n = 0;
	for (uint32_t r = 0; r < st->nm; r++) {
		const pl_member *m = &s->members[st->m[r].member];
		pt_bytes_row *br = &by->row[r];
		br->used = br->capacity != PL_BYTES_UNKNOWN ? pt_mul_div(br->bytes, 1000, br->capacity) : UINT64_MAX;
		if (!pt_eligible(m))
			continue;
		br->share = by->by_capacity ? pt_mul_div(by->total, br->capacity, cap_sum)
					    : pt_mul_div(by->total, m->weight ? m->weight : 1, w_sum);
		br->of_share = br->share ? pt_mul_div(br->bytes, 1000, br->share) : br->bytes ? UINT64_MAX : 1000;
		/* the first of equals in the rows' (id) order */
		if (n == 0 || br->bytes > by->row[by->max].bytes)
			by->max = r;
		if (n == 0 || br->bytes < by->row[by->min].bytes)
			by->min = r;
		if (br->used != UINT64_MAX) {
			if (by->used_n == 0 || br->used > by->row[by->used_max].used)
				by->used_max = r;
			if (by->used_n == 0 || br->used < by->row[by->used_min].used)
				by->used_min = r;
			by->used_n++;
		}
		n++;
	}
	by->eligible = n;
}

void pt_bytes_free(pt_stats *st)
{
	free(st->by.row);
	memset(&st->by, 0, sizeof st->by);
}

/* Tenths of a percent as "62.5%"; "?" unknown. */
static const char *permille_text(char *t, size_t cap, uint64_t pm)
{
	if (pm == UINT64_MAX)
		snprintf(t, cap, "?");
	else if (pm % 10)
		snprintf(t, cap, "%llu.%llu%%", (unsigned long long)(pm / 10), (unsigned long long)(pm % 10));
	else
		snprintf(t, cap, "%llu%%", (unsigned long long)(pm / 10));
	return t;
}

static void put_permille(pt_buf *b, uint64_t pm)
{
	char t[32];
	pt_put(b, "%s", permille_text(t, sizeof t, pm));
}

static void put_padded(pt_buf *b, size_t from, size_t width)
{
	for (size_t n = b->len - from; n < width; n++)
		pt_putc(b, ' ');
}

/* "bytes max 50G (b0, 125% of its share), min 0 (b2); used max 50% (b0), min 0% (b2)" */
static void spread_words(pt_buf *b, const pt_stats *st, const pl_snapshot *s)
{
	const pt_bytes_stats *by = &st->by;
	if (by->eligible == 0) {
		pt_put(b, "bytes -");
		return;
	}
	const pt_bytes_row *mx = &by->row[by->max], *mn = &by->row[by->min];
	pt_put(b, "bytes max ");
	pt_put_size_human(b, mx->bytes);
	pt_put(b, " (");
	pt_put_name(b, s->members[st->m[by->max].member].id);
	pt_put(b, ", ");
	put_permille(b, mx->of_share);
	pt_put(b, " of its share), min ");
	pt_put_size_human(b, mn->bytes);
	pt_put(b, " (");
	pt_put_name(b, s->members[st->m[by->min].member].id);
	pt_put(b, ", ");
	put_permille(b, mn->of_share);
	pt_put(b, " of its share)");
	if (by->used_n) {
		pt_put(b, "; used max ");
		put_permille(b, by->row[by->used_max].used);
		pt_put(b, " (");
		pt_put_name(b, s->members[st->m[by->used_max].member].id);
		pt_put(b, "), min ");
		put_permille(b, by->row[by->used_min].used);
		pt_put(b, " (");
		pt_put_name(b, s->members[st->m[by->used_min].member].id);
		pt_putc(b, ')');
	}
}

void pt_bytes_line(pt_buf *b, const pt_stats *st, const pl_view *v)
{
	if (!st->by.sized)
		return;
	pt_put(b, "; ");
	spread_words(b, st, pl_view_snapshot(v));
}

void pt_bytes_text(pt_buf *b, const pt_stats *st, const pl_view *v, size_t w)
{
	const pt_bytes_stats *by = &st->by;
	const pl_snapshot *s = pl_view_snapshot(v);
	if (!by->sized)
		return;
	pt_put(b, "\nbytes per member: ");
	pt_put_size_human(b, by->total);
	pt_put(b, " of known sizes on live members (%u of %u shard%s sized", by->shards_known, s->n_shards,
	       s->n_shards == 1 ? "" : "s");
	if (by->unknown)
		pt_put(b, "; %llu replica%s of unknown size not counted", (unsigned long long)by->unknown,
		       by->unknown == 1 ? "" : "s");
	pt_put(b, "); share in proportion to %s\n", by->by_capacity ? "capacity" : "weight");
	pt_put(b, "  %-*s %9s %9s %7s %9s %9s %8s\n", (int)w, "member", "bytes", "capacity", "used", "share",
	       "of share", "unknown");
	for (uint32_t r = 0; r < st->nm; r++) {
		const pt_bytes_row *br = &by->row[r];
		const pl_member *m = &s->members[st->m[r].member];
		pt_put(b, "  ");
		size_t before = b->len;
		pt_put_name(b, m->id);
		put_padded(b, before, w);
		char t[32], u[32];
		pt_size_human(t, sizeof t, br->bytes);
		pt_put(b, " %9s", t);
		pt_size_human(t, sizeof t, br->capacity);
		pt_put(b, " %9s %7s", t, permille_text(u, sizeof u, br->used));
		if (pt_eligible(m)) {
			pt_size_human(t, sizeof t, br->share);
			pt_put(b, " %9s %9s", t, permille_text(u, sizeof u, br->of_share));
		} else {
			pt_put(b, " %9s %9s", "-", "-");
		}
		pt_put(b, " %8u\n", br->unknown);
	}
	pt_put(b, "  spread: ");
	spread_words(b, st, s);
	pt_putc(b, '\n');
}

static void json_permille(pt_buf *b, uint64_t pm)
{
	if (pm == UINT64_MAX)
		pt_put(b, "null");
	else
		pt_put(b, "%llu.%llu", (unsigned long long)(pm / 10), (unsigned long long)(pm % 10));
}

void pt_bytes_member_json(pt_buf *b, const pt_stats *st, const pl_view *v, uint32_t r)
{
	if (!st->by.sized)
		return;
	const pt_bytes_row *br = &st->by.row[r];
	pt_put(b, ", \"bytes\": %llu, \"unknown_replicas\": %u, \"capacity\": ", (unsigned long long)br->bytes,
	       br->unknown);
	if (br->capacity == PL_BYTES_UNKNOWN)
		pt_put(b, "null");
	else
		pt_put(b, "%llu", (unsigned long long)br->capacity);
	pt_put(b, ", \"used_percent\": ");
	json_permille(b, br->used);
	if (pt_eligible(&pl_view_snapshot(v)->members[st->m[r].member])) {
		pt_put(b, ", \"share\": %llu, \"of_share_percent\": ", (unsigned long long)br->share);
		json_permille(b, br->of_share);
	} else {
		pt_put(b, ", \"share\": null, \"of_share_percent\": null");
	}
}

void pt_bytes_json(pt_buf *b, const pt_stats *st, const pl_view *v)
{
	const pt_bytes_stats *by = &st->by;
	const pl_snapshot *s = pl_view_snapshot(v);
	if (!by->sized) {
		pt_put(b, "\"bytes\": null");
		return;
	}
	pt_put(b, "\"bytes\": {\"total\": %llu, \"unknown_replicas\": %llu, \"shards_sized\": %u, \"capacity\": %llu, "
		  "\"share_by\": \"%s\", \"max\": ",
	       (unsigned long long)by->total, (unsigned long long)by->unknown, by->shards_known,
	       (unsigned long long)by->capacity, by->by_capacity ? "capacity" : "weight");
	if (by->eligible) {
		pt_put(b, "{\"member\": ");
		pt_put_json_bytes(b, s->members[st->m[by->max].member].id);
		pt_put(b, ", \"bytes\": %llu, \"of_share_percent\": ", (unsigned long long)by->row[by->max].bytes);
		json_permille(b, by->row[by->max].of_share);
		pt_put(b, "}, \"min\": {\"member\": ");
		pt_put_json_bytes(b, s->members[st->m[by->min].member].id);
		pt_put(b, ", \"bytes\": %llu, \"of_share_percent\": ", (unsigned long long)by->row[by->min].bytes);
		json_permille(b, by->row[by->min].of_share);
		pt_putc(b, '}');
	} else {
		pt_put(b, "null, \"min\": null");
	}
	pt_put(b, ", \"used_max\": ");
	if (by->used_n) {
		pt_put(b, "{\"member\": ");
		pt_put_json_bytes(b, s->members[st->m[by->used_max].member].id);
		pt_put(b, ", \"percent\": ");
		json_permille(b, by->row[by->used_max].used);
		pt_put(b, "}, \"used_min\": {\"member\": ");
		pt_put_json_bytes(b, s->members[st->m[by->used_min].member].id);
		pt_put(b, ", \"percent\": ");
		json_permille(b, by->row[by->used_min].used);
		pt_putc(b, '}');
	} else {
		pt_put(b, "null, \"used_min\": null");
	}
	pt_putc(b, '}');
}
