/*
 * stats.c - the spread of a layout: leaders, replicas and (for a fleet)
 * shards owned per member, in total and per stream, with the floor and
 * ceiling that apply to each member; as a table with a terminal bar chart,
 * and as JSON (the pictures are svg.c's).
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
 * The table and the JSON are stats_out.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define PT_STREAM_ROWS 64u

int pt_eligible(const pl_member *m)
{
	return !(m->flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING));
}

void pt_bounds(uint64_t count, uint32_t weight, uint64_t total_w, int elig, uint32_t *fl, uint32_t *ce)
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
		if (ss.override_member != PL_NONE && pt_eligible(&s->members[ss.override_member])) {
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

/* Zone bytes of members, for qsort (no context argument in C11). */
static const pl_member *zone_ctx;

static int by_zone(const void *a, const void *b)
{
	const pl_bytes *x = &zone_ctx[*(const uint32_t *)a].zone, *y = &zone_ctx[*(const uint32_t *)b].zone;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = n ? memcmp(x->ptr, y->ptr, n) : 0;
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Shards whose replicas span fewer zones than they could: min(replicas,
 * zones of its replicas and of eligible members with room for one more),
 * as the broker policy's zone repair counts them. An empty zone is a zone
 * of its own. */
static void under_spread(pt_stats *st, const pl_view *v)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	uint32_t nm = s->n_members, *zid = pt_alloc(((size_t)nm + 1) * sizeof *zid);
	uint32_t *ord = pt_alloc(((size_t)nm + 1) * sizeof *ord);
	uint8_t *room = calloc(nm ? nm : 1, 1);
	if (!room)
		pt_oom();
	for (uint32_t m = 0; m < nm; m++)
		ord[m] = m;
	zone_ctx = s->members;
	qsort(ord, nm, sizeof *ord, by_zone);
	for (uint32_t j = 0, id = 0; j < nm; j++) {
		if (j > 0 && (s->members[ord[j]].zone.len == 0 || by_zone(&ord[j - 1], &ord[j]) != 0))
			id++;
		zid[ord[j]] = id;
	}
	uint32_t nroom = 0;
	for (uint32_t m = 0; m < nm; m++) {
		pl_tally t;
		pl_view_member_tally(v, m, &t);
		uint32_t cap = s->members[m].max_shards;
		if (pt_eligible(&s->members[m]) && (cap == 0 || t.replicas < cap) && !room[zid[m]]) {
			room[zid[m]] = 1;
			nroom++;
		}
	}
	for (uint32_t r = 0; r < s->n_shards; r++) {
		uint32_t k = (uint32_t)pl_view_at(v, PL_ELEM_SHARD, r), zones = 0, extra = 0;
		pl_shard_state ss;
		pl_view_shard_state(v, k, &ss);
		for (uint32_t j = 0; j < ss.replica_count; j++) {
			uint32_t z = zid[ss.replicas[j]], seen = 0;
			for (uint32_t i = 0; i < j; i++)
				seen |= zid[ss.replicas[i]] == z;
			if (!seen) {
				zones++;
				extra += !room[z];
			}
		}
		uint32_t could = nroom + extra < ss.replica_count ? nroom + extra : ss.replica_count;
		if (zones < could) {
			if (st->under_spread < PT_UNDER_SPREAD_SHOWN)
				st->under_first[st->under_spread] = k;
			st->under_spread++;
		}
	}
	free(zid);
	free(ord);
	free(room);
}

uint32_t pt_imbalance_measure(uint32_t policy, const pt_doc *d)
{
	if (policy == PT_POLICY_FLEET)
		return PL_IMBALANCE_OWNED;
	if (policy == PT_POLICY_REGION)
		return PL_IMBALANCE_REPLICAS;
	/* handoff-only copies nothing: replicas stay where they are */
	if (d && (!pt_setting(d, PT_SET_REPLICA_BALANCE, 1) || pt_setting(d, PT_SET_HANDOFF_ONLY, 0)))
		return PL_IMBALANCE_LEADERS;
	return PL_IMBALANCE_BROKER;
}

void pt_stats_compute(pt_stats *st, const pl_view *v, uint32_t policy, const pt_doc *d)
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
		row->flags = s->members[i].flags;
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
		if (pt_eligible(&s->members[st->m[r].member]))
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
				sr->led_eligible += pt_eligible(&s->members[ss.leader]);
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
		/* min, max and members outside [floor, ceiling], over the
		 * eligible; for the broker policy the bounds widened by the
		 * stream's tolerance (the snapshot's, else stream-tolerance=) */
		uint32_t tol = 0;
		if (policy == PT_POLICY_BROKER) {
			tol = s->stream_tolerance ? s->stream_tolerance[si] : PL_TOLERANCE_DEFAULT;
			if (tol == PL_TOLERANCE_DEFAULT)
				tol = d ? (uint32_t)pt_setting(d, PT_SET_STREAM_TOLERANCE, 0) : 0;
		}
		sr->min_leaders = nelig ? UINT32_MAX : 0;
		for (uint32_t e = 0; e < nelig; e++) {
			uint32_t m = elig[e], fl, ce;
			pt_bounds(sr->shards, s->members[m].weight, st->c.weight, 1, &fl, &ce);
			fl = fl > tol ? fl - tol : 0;
			ce = ce + tol < ce ? UINT32_MAX : ce + tol;
			uint32_t l = own ? co[m] : cl[m];
			sr->min_leaders = l < sr->min_leaders ? l : sr->min_leaders;
			sr->max_leaders = l > sr->max_leaders ? l : sr->max_leaders;
			sr->over += l > ce;
			sr->under += l < fl;
		}
		/* a kept stream (broker) is never balanced: none of its members
		 * is outside bounds it is not held to */
		if (policy == PT_POLICY_BROKER && s->stream_flags && (s->stream_flags[si] & PL_STREAM_KEEP))
			sr->kept = 1, sr->over = sr->under = 0;
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
			int el = pt_eligible(&s->members[m]);
			/* with every member listed, one down or drained to nothing
			 * keeps its row (marked), as in the cluster's list */
			if (!all && !mark[m] && !el)
				continue;
			st->cells = pt_grow(st->cells, &cells_cap, sizeof *st->cells, st->ncells + 1);
			pt_cell_row *c = &st->cells[st->ncells++];
			c->member = m;
			c->leaders = own ? co[m] : cl[m];
			c->replicas = cr[m];
			pt_bounds(sr->shards, s->members[m].weight, st->c.weight, el, &c->floor, &c->ceiling);
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
	/* the imbalance: the library's (pl_view_imbalance(3), placement(1)) */
	pl_imbalance imb;
	if (pl_view_imbalance(v, pt_imbalance_measure(policy, d), &imb) != 0)
		pt_oom(); /* GCOVR_EXCL_LINE: a built view and a known measure */
	st->measure = pt_imbalance_measure(policy, d);
	st->imbalance = imb.total;
	st->imbalance_streams = imb.streams;
	under_spread(st, v);
	pt_bytes_compute(st, v);
	if (policy != PT_POLICY_FLEET) /* a fleet shard has owners, not replicas in sync */
		pt_health_compute(&st->health, v);
}

void pt_stats_free(pt_stats *st)
{
	pt_bytes_free(st);
	free(st->m);
	free(st->s);
	free(st->cells);
	memset(st, 0, sizeof *st);
}

/* ---- the chart's measure ------------------------------------------------------- */

const char *pt_measure_name(uint32_t policy)
{
	return policy == PT_POLICY_FLEET ? "owned" : policy == PT_POLICY_REGION ? "replicas" : "leaders";
}

/* A member's value on the totals chart, and the bounds it is held to. */
void pt_total_measure(const pt_stats *st, const pl_snapshot *s, const pt_member_row *r, uint32_t *val,
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
