/*
 * broker_flow.c - the leader passes' targets: for every stream, which
 * members end the stream at their ceiling rather than their floor, chosen
 * together for all streams as one min-cost flow, so that the stream moves
 * and the cluster moves after them are as few as the bounds allow.
 *
 * How it works. With its leaders counted on the eligible members, stream s
 * ends with each member m at its floor lo or its ceiling hi (hi is lo or
 * lo + 1), and r_s = L_s - sum of the floors of them at the ceiling: r_s
 * "slots", each on a member with lo < hi, at most one per member. A member
 * m ends with sum_s lo(s, m) + (its slots) leaders in total, which must lie
 * within its cluster floor and ceiling. A slot on a member leading hi or
 * more of the stream costs nothing (it keeps one it would otherwise give);
 * on one leading lo or fewer it costs one move (it takes one more). Every
 * other move is forced by the bounds, so the fewest moves of the two
 * passes together is the forced ones plus the cost of the cheapest
 * placement of the slots: a transportation problem from streams (r_s
 * slots) to members (their totals' room), solved here by successive
 * shortest paths (Bellman-Ford, integers only) on the residual graph, kept
 * implicit: the slots placed so far are one bit per (stream, member), in
 * b->tgt. A member's slots below its cluster floor cost -BIG (they must be
 * filled first), up to its ceiling 0, past it +BIG (only when no placement
 * keeps every total within bounds; the cluster pass then does what it
 * can). It is the min-cost flow the property tests bound the moves with.
 * Among placements with the fewest moves, the one whose slots that take a
 * leader sit on the members holding the fewest replicas of the stream wins
 * (a second cost, below a move's): a leader move to a member without a
 * replica copies one there, from a member that leads many of the stream
 * and so holds many, so that copy evens the replicas too. On 2,000 small
 * random layouts it cut the replica moves after the leaders' from 7,985 to
 * 7,504 (500 larger: 2,769 to 2,685).
 *
 * The passes then read the targets as one more key (pl__bk_source_key(),
 * pl__bk_dest_key()): among sources as far over, one leading more than its
 * target first; among destinations as far under, one leading fewer than
 * its target. Every move the rules allow is still the only kind made, so
 * the termination argument is untouched; the targets only choose among
 * the moves it allows.
 *
 * Ties. Streams are walked in canonical order, members in eligible
 * (canonical) order, and a distance is replaced only by a strictly smaller
 * one, so the same snapshot content gives the same targets whatever the
 * order of its arrays.
 *
 * Bounds. It runs on views of at most PL__BK_FLOW members and streams (a
 * bit per member, a word per stream, on the stack: about 8 KiB), and
 * gives up past PL__BK_FLOW_WORK relaxation steps (counted, so the give-up
 * is deterministic too); then b->tgt_on stays 0 and the passes rank as
 * before, on projected totals (pl__bk_project()).
 */
#include "broker/broker_int.h"

#define BIG (INT64_C(1) << 56)
#define MOVE (INT64_C(1) << 36) /* a move; plus the replicas of the stream the member holds */
#define INF (INT64_C(1) << 62)

/* One stream's part of the flow. */
typedef struct fstream {
	uint32_t s;     /* the stream */
	uint32_t need;  /* slots still to place */
	uint64_t pair;  /* members with lo < hi: may take a slot */
	uint64_t cheap; /* members leading hi or more: a slot there costs nothing */
	uint8_t held[PL__BK_FLOW]; /* replicas of the stream each member holds, at most 255 */
	uint8_t far[PL__BK_FLOW];  /* levels of its zone no member leading past its floor shares */
} fstream;

typedef struct flow {
	uint32_t n;                          /* streams in the flow */
	fstream fs[PL__BK_FLOW];
	int64_t ds[PL__BK_FLOW];             /* distances of the streams */
	uint32_t vs[PL__BK_FLOW];            /* member a stream was reached from, or PL_NONE */
	int64_t dm[PL__BK_FLOW];             /* distances of the members (by index) */
	uint32_t vm[PL__BK_FLOW];            /* flow stream a member was reached from */
	uint32_t got[PL__BK_FLOW];           /* slots placed on each member */
	uint32_t lo[PL__BK_FLOW], hi[PL__BK_FLOW]; /* room for slots within its cluster bounds */
} flow;

/* Cost of stream x's slot on member m: none where it keeps a leader, a
 * move where it takes one, plus (ties among equal moves, far below a
 * move) the replicas of the stream the member holds, then how far its zone
 * is from the stream's sources. */
static int64_t cost(const fstream *x, uint32_t m)
{
	return x->cheap >> m & 1 ? 0 : MOVE + x->held[m] * (int64_t)(PL__ZONE_LEVELS + 1) + x->far[m];
}

/* Cost of one more slot on member m past those it has. */
static int64_t seg(const flow *f, uint32_t m)
{
	return f->got[m] < f->lo[m] ? -BIG : f->got[m] < f->hi[m] ? 0 : BIG;
}

/* One shortest path from a stream with slots to place to a member; 1 when
 * a slot was placed, 0 past the work bound. */
static int augment(pl__bk *b, flow *f, uint64_t *work)
{
	const pl_view *v = b->v;
	uint64_t *tgt = b->tgt;
	for (uint32_t i = 0; i < f->n; i++) {
		f->ds[i] = f->fs[i].need ? 0 : INF;
		f->vs[i] = PL_NONE;
	}
	for (uint32_t e = 0; e < v->n_elig; e++)
		f->dm[v->elig[e]] = INF;
	for (uint32_t round = 0; round <= f->n + v->n_elig; round++) {
		int changed = 0;
		for (uint32_t i = 0; i < f->n; i++) {
			if (f->ds[i] == INF)
				continue;
			uint64_t avail = f->fs[i].pair & ~tgt[f->fs[i].s];
			for (uint32_t e = 0; e < v->n_elig; e++) {
				uint32_t m = v->elig[e];
				if (!(avail >> m & 1))
					continue;
				int64_t d = f->ds[i] + cost(&f->fs[i], m);
				if (d < f->dm[m]) {
					f->dm[m] = d;
					f->vm[m] = i;
					changed = 1;
				}
			}
		}
		for (uint32_t e = 0; e < v->n_elig; e++) {
			uint32_t m = v->elig[e];
			if (f->dm[m] == INF)
				continue;
			for (uint32_t i = 0; i < f->n; i++) {
				if (!(tgt[f->fs[i].s] >> m & 1))
					continue; /* no slot of i on m to take back */
				int64_t d = f->dm[m] - cost(&f->fs[i], m);
				if (d < f->ds[i]) {
					f->ds[i] = d;
					f->vs[i] = m;
					changed = 1;
				}
			}
		}
		*work += 2 * (uint64_t)f->n * v->n_elig;
		if (*work > PL__BK_FLOW_WORK)
			return 0;
		if (!changed)
			break;
	}
	uint32_t end = PL_NONE;
	int64_t best = INF;
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e];
		if (f->dm[m] != INF && f->dm[m] + seg(f, m) < best) {
			best = f->dm[m] + seg(f, m);
			end = m;
		}
	}
	if (end == PL_NONE)
		return 0; /* cannot happen: a stream with slots to place has a free pair */
	f->got[end]++;
	for (uint32_t m = end, guard = 0; guard <= f->n + v->n_elig; guard++) {
		uint32_t i = f->vm[m];
		tgt[f->fs[i].s] |= UINT64_C(1) << m;
		m = f->vs[i];
		if (m == PL_NONE) {
			f->fs[i].need--;
			return 1;
		}
		tgt[f->fs[i].s] &= ~(UINT64_C(1) << m);
	}
	return 0; /* a cycle in the path: cannot happen without a negative cycle */
}

/* For each member that may take a slot of x, the levels of its failure
 * domain that no member leading more than its floor (a source of the
 * stream's moves) shares: among slots that cost a move alike, the one in a
 * source's zone copies inside that zone (pl__zone_new_level()). */
static void far_from_sources(const pl_view *v, fstream *x)
{
	uint32_t src[PL__BK_FLOW], n = 0, L = pl__bk_stream_leaders(v, x->s);
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e], lo, hi;
		pl__bounds(v, L, m, &lo, &hi);
		if (pl__cell_get(v, x->s, m) > lo)
			src[n++] = m;
	}
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e];
		if (x->pair >> m & 1)
			x->far[m] = (uint8_t)(v->zone_levels - pl__zone_new_level(v, src, n, PL_NONE, m));
	}
}

void pl__bk_targets(pl__bk *b)
{
	const pl_view *v = b->v;
	b->tgt_on = 0;
	if (!b->cfg->stream_balance || v->nm > PL__BK_FLOW || v->ns > PL__BK_FLOW || v->n_elig == 0)
		return;
	flow f;
	uint32_t base[PL__BK_FLOW] = {0}, LT = 0, slots = 0;
	f.n = 0;
	for (uint32_t e = 0; e < v->n_elig; e++)
		LT += v->m_leaders[v->elig[e]];
	for (uint32_t r = 0; r < v->ns; r++) {
		uint32_t s = v->s_order[r], L = pl__bk_stream_leaders(v, s), sum = 0;
		b->tgt[s] = 0;
		if (L == 0)
			continue;
		if (pl__bk_kept_stream(v, s)) {
			/* a kept stream's leaders stay where they are: they
			 * take their members' room in the totals, no slot */
			for (uint32_t e = 0; e < v->n_elig; e++)
				base[v->elig[e]] += pl__cell_get(v, s, v->elig[e]);
			continue;
		}
		fstream *x = &f.fs[f.n];
		x->s = s;
		x->pair = x->cheap = 0;
		for (uint32_t e = 0; e < v->n_elig; e++) {
			uint32_t m = v->elig[e], lo, hi;
			pl__bounds(v, L, m, &lo, &hi);
			base[m] += lo;
			sum += lo;
			if (hi > lo) {
				uint32_t c = pl__cell_get(v, s, m);
				x->pair |= UINT64_C(1) << m;
				if (c >= hi)
					x->cheap |= UINT64_C(1) << m;
				uint32_t h = pl__rcell_get(v, s, m);
				x->held[m] = (uint8_t)(h < 255 ? h : 255);
			}
		}
		x->need = L - sum;
		slots += x->need;
		if (x->need) {
			far_from_sources(v, x);
			f.n++;
		}
	}
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e], lo, hi;
		pl__bounds(v, LT, m, &lo, &hi);
		f.got[m] = 0;
		f.lo[m] = lo > base[m] ? lo - base[m] : 0;
		f.hi[m] = hi > base[m] ? hi - base[m] : 0;
	}
	/* Each slot takes a search of at least two rounds over every pair:
	 * give up at once when that alone passes the bound. */
	if ((uint64_t)slots * f.n * v->n_elig * 4 > PL__BK_FLOW_WORK)
		return;
	uint64_t work = 0;
	for (uint32_t k = 0; k < slots; k++)
		if (!augment(b, &f, &work))
			return;
	b->tgt_on = 1;
}
