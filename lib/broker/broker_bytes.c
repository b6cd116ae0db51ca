/*
 * broker_bytes.c - the broker's bytes passes (placement/broker.h, "Bytes"):
 * a member past its full ratio sheds replicas, and the bytes band evens the
 * members' bytes by moves that keep the counts and by exchanges of shards
 * of one stream.
 *
 * How it works. Both passes move one replica (or exchange two) at a time,
 * each through pl__bk_emit_move(), so the next choice sees it. A member
 * past its full bytes sheds first (after drains and zone repair): a replica
 * of a shard of known size moves to the member with the most room that
 * takes it (pl__bk_copy_ok(): zones, full ratio, bytes limits), preferring a
 * move that keeps every count's potential, then one that brings the member
 * back under its full bytes with the fewest bytes, else the largest. The
 * band runs last (bytes_first: before the counts): the fullest member (by
 * bytes per capacity, or per weight) gives to the emptiest, by a single move
 * that keeps the counts' potentials or by an exchange that keeps every
 * count, choosing one that brings both within the band with the fewest bytes
 * copied, else the transfer nearest the even split. Every move lowers the
 * sum over members of bytes^2/capacity (counts first) or the band's distance
 * (bytes first): the proof in placement/broker.h.
 *
 * Cost: a move's search is one walk of the shards for each pair of members
 * tried (at most PL__BY_SRC sources by PL__BY_DST destinations), and
 * O(members) to rank them; nothing runs when every member is in its band.
 */
#include "broker/broker_int.h"

#include <stdlib.h>

#define PL__BY_SRC 4u  /* fullest members tried as sources */
#define PL__BY_DST 16u /* emptiest members tried as destinations */
#define PL__BY_HELD 4096u /* shards of the source weighed */
#define PL__BY_DHELD 256u /* shards of each destination weighed for exchanges */
#define PL__BY_TRIES 8u   /* of those, tried against each shard of the source */
#define PL__BY_WORK (UINT64_C(1) << 21) /* shards weighed for one move, at most (about) */

/* Member m's weight in the band: its capacity, or its weight. */
static uint64_t wt(const pl__bk *b, uint32_t m)
{
	return b->band.cap ? pl__capacity(b->v, m) : b->v->m_weight[m];
}

/* Is member x fuller than y (bytes per weight), ties on the id? */
static int fuller(const pl__bk *b, uint32_t x, uint32_t y)
{
	const pl_view *v = b->v;
	if (pl__bk_mul_lt(v->m_bytes[y], wt(b, x), v->m_bytes[x], wt(b, y)))
		return 1;
	if (pl__bk_mul_lt(v->m_bytes[x], wt(b, y), v->m_bytes[y], wt(b, x)))
		return 0;
	return v->m_rank[x] < v->m_rank[y];
}

/* Is x before y in a list of the given order: fullest first (ORDER_MOST),
 * emptiest first (ORDER_LEAST), roomiest under the full bytes first
 * (ORDER_ROOM, roomier() below)? */
#define ORDER_MOST 0
#define ORDER_LEAST 1
#define ORDER_ROOM 2
static int roomier(const pl__bk *b, uint32_t x, uint32_t y);
static int before(const pl__bk *b, int order, uint32_t x, uint32_t y)
{
	return order == ORDER_MOST ? fuller(b, x, y) : order == ORDER_LEAST ? fuller(b, y, x) : roomier(b, x, y);
}

/* The first `max` eligible members but `skip` in that order into out;
 * returns how many. */
static uint32_t rank_members(const pl__bk *b, int order, uint32_t skip, uint32_t *out, uint32_t max)
{
	const pl_view *v = b->v;
	uint32_t n = 0;
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e], i;
		if (m == skip)
			continue;
		if (n < max)
			i = n++;
		else if (before(b, order, m, out[max - 1]))
			i = max - 1;
		else
			continue;
		while (i > 0 && before(b, order, m, out[i - 1])) {
			out[i] = out[i - 1];
			i--;
		}
		out[i] = m;
	}
	return n;
}

/* May shard k be moved at all now: not in flight, not acted on in this
 * view, its size known and not 0? */
static int movable(const pl_view *v, uint32_t k)
{
	const pl__shard_state *st = pl__st(v, k);
	uint64_t s = pl__size(v, k);
	return !st->moving && !st->touched && s != PL_BYTES_UNKNOWN && s > 0 && !pl__bk_kept(v, k);
}

/* Replicas and leaders on eligible members: the totals' bounds are counted
 * over them. */
typedef struct by_totals {
	uint32_t R, L;
} by_totals;

static by_totals totals(const pl_view *v)
{
	by_totals t = {0, 0};
	for (uint32_t e = 0; e < v->n_elig; e++) {
		t.R += v->m_replicas[v->elig[e]];
		t.L += v->m_leaders[v->elig[e]];
	}
	return t;
}

/* Does a move of one of stream s's replicas from a to d (with its
 * leadership when `lead`) keep the stream's count potentials from rising?
 * (Always, for no stream or without stream balance.) */
static int stream_keeps(const pl__bk *b, uint32_t s, uint32_t a, uint32_t d, int lead)
{
	const pl_view *v = b->v;
	if (s == PL_NONE || !b->cfg->stream_balance)
		return 1;
	uint32_t tol = pl__bk_stream_tol(v, b->cfg, s);
	if (b->cfg->replica_balance &&
	    !pl__bk_no_rise(v, pl__bk_stream_replicas(v, s), tol, a, pl__rcell_get(v, s, a), d, pl__rcell_get(v, s, d)))
		return 0;
	return !lead ||
	       pl__bk_no_rise(v, pl__bk_stream_leaders(v, s), tol, a, pl__cell_get(v, s, a), d, pl__cell_get(v, s, d));
}

/* Does moving k's replica from a to d keep every count's potential from
 * rising: its stream's and the total replicas (replica_balance), and when
 * a leads it, its stream's and the total leaders (t: the totals)? */
static int counts_keep(const pl__bk *b, uint32_t k, uint32_t a, uint32_t d, by_totals t)
{
	const pl_view *v = b->v;
	int lead = pl__leader(pl__st(v, k)) == a;
	if (!stream_keeps(b, v->snap.shards[k].stream, a, d, lead))
		return 0;
	uint32_t tol = b->cfg->tolerance;
	if (b->cfg->replica_balance && !pl__bk_no_rise(v, t.R, tol, a, v->m_replicas[a], d, v->m_replicas[d]))
		return 0;
	return !lead || pl__bk_no_rise(v, t.L, tol, a, v->m_leaders[a], d, v->m_leaders[d]);
}

/* Write shard k's replica's move from a to d. */
static int emit(pl__bk *b, uint32_t k, uint32_t a, uint32_t d, uint32_t reason, uint64_t limit, uint32_t flags)
{
	const pl_view *v = b->v;
	pl_action x;
	pl__action_init(&x, PL_ACTION_MOVE_REPLICA, reason, k, v->snap.shards[k].stream, a, d);
	x.flags = PL_ACTION_STAGE_FIRST | flags | (pl__leader(pl__st(v, k)) == a ? PL_ACTION_CARRIES_LEADER : 0);
	x.scope = PL_SCOPE_BYTES;
	x.from_count = v->m_replicas[a];
	x.to_count = v->m_replicas[d];
	x.bytes_limit = limit;
	b->bytes_moved = 1;
	return pl__bk_emit_move(b, &x);
}

/* Paused, or no move left in the budget: note why the wanted move waits. */
static int waits(pl__bk *b)
{
	if (!b->cfg->paused && b->budget > 0)
		return 0;
	if (b->cfg->paused)
		b->want_paused = 1;
	else
		pl__bk_wait_limit(b, PL_NONE);
	return 1;
}

/* ---- shedding ------------------------------------------------------------- */

/* Is x a better destination to shed onto than y: more room under its full
 * bytes (fill per capacity lower), members of unknown capacity last? */
static int roomier(const pl__bk *b, uint32_t x, uint32_t y)
{
	const pl_view *v = b->v;
	uint64_t cx = pl__capacity(v, x), cy = pl__capacity(v, y);
	if ((cx == PL_BYTES_UNKNOWN) != (cy == PL_BYTES_UNKNOWN))
		return cy == PL_BYTES_UNKNOWN;
	if (cx == PL_BYTES_UNKNOWN)
		cx = v->m_weight[x], cy = v->m_weight[y];
	if (pl__bk_mul_lt(v->m_bytes[x], cy, v->m_bytes[y], cx))
		return 1;
	if (pl__bk_mul_lt(v->m_bytes[y], cx, v->m_bytes[x], cy))
		return 0;
	return v->m_rank[x] < v->m_rank[y];
}

/* One shedding move off m (past its full bytes): 1 moved, 0 none found. */
static int shed_one(pl__bk *b, uint32_t m, uint64_t full)
{
	const pl_view *v = b->v;
	uint32_t dst[PL__BY_DST], nd = rank_members(b, ORDER_ROOM, m, dst, PL__BY_DST);
	uint64_t excess = v->m_bytes[m] - full;
	by_totals t = totals(v);
	uint32_t bk = PL_NONE, bd = PL_NONE, bkeep = 0, bfix = 0;
	uint64_t bsize = 0;
	for (uint32_t r = 0; r < v->nk; r++) {
		uint32_t k = v->k_order[r];
		const pl__shard_state *st = pl__st(v, k);
		if (!pl__holds(st, m) || !movable(v, k))
			continue;
		uint32_t d = PL_NONE, keep = 0;
		for (uint32_t i = 0; i < nd; i++) {
			uint32_t x = dst[i];
			if (pl__holds(st, x) || !pl__bk_in_ok(b, x) || !pl__bk_room_new(v, x) || !pl__bk_copy_ok(b, k, m, x))
				continue;
			if (counts_keep(b, k, m, x, t)) {
				d = x, keep = 1;
				break;
			}
			if (d == PL_NONE)
				d = x;
		}
		if (d == PL_NONE)
			continue;
		uint64_t size = pl__size(v, k);
		uint32_t fix = size >= excess;
		/* keeps the counts, then brings m under (fewest bytes), else the largest */
		int better = bk == PL_NONE || keep > bkeep ||
			     (keep == bkeep && (fix > bfix || (fix == bfix && (fix ? size < bsize : size > bsize))));
		if (better)
			bk = k, bd = d, bkeep = keep, bfix = fix, bsize = size;
	}
	if (bk == PL_NONE)
		return 0;
	emit(b, bk, m, bd, PL_REASON_FULL_RATIO, full, 0);
	return 1;
}

void pl__bk_shed(pl__bk *b)
{
	const pl_view *v = b->v;
	if (!v->sized || v->snap.member_capacity == NULL || b->cfg->full_ratio == 0)
		return;
	for (uint32_t e = 0; e < v->n_elig && !b->full; e++) {
		uint32_t m = v->elig[e];
		uint64_t full = pl__bk_full(b, m);
		while (!b->full && v->m_bytes[m] > full) {
			if (waits(b))
				return;
			if (!pl__bk_out_ok(b, m)) {
				pl__bk_wait_limit(b, m);
				break;
			}
			if (!shed_one(b, m, full)) {
				if (!b->block_full++)
					b->full_member = m;
				b->blocked++;
				break;
			}
		}
	}
}

/* ---- the band --------------------------------------------------------------- */

/* A candidate: shard x moves a -> d, and y (PL_NONE: none) d -> a. */
typedef struct by_cand {
	uint32_t x, y;
	uint64_t t;      /* bytes a gives d, net */
	uint64_t copied; /* bytes copied */
	uint32_t fix;    /* brings both within the band */
	uint64_t off;    /* |t - the even split| */
} by_cand;

typedef struct by_pair {
	uint32_t a, d;
	uint64_t ba, bd, wa, wd; /* bytes and weights */
	uint64_t need;           /* the least transfer that fixes the side out of the band */
	uint64_t lo_a, hi_d;     /* a may not fall below, d not rise above, for `fix` */
	uint64_t even;           /* the transfer that evens a and d */
	int first;               /* bytes first: the band's distance decides */
	by_totals t;             /* the totals' counts, for single moves */
} by_pair;

/* Does a transfer of t from a to d lower what the pass lowers: the sum of
 * bytes^2/weight ((2 bd + t) wa < (2 ba - t) wd), or with bytes first the
 * band's distance over a and d? */
static int lowers(const pl__bk *b, const by_pair *p, uint64_t t)
{
	if (t == 0 || t > p->ba)
		return 0;
	if (p->first) {
		uint64_t before = pl__bk_band_out(b, p->a, p->ba) + pl__bk_band_out(b, p->d, p->bd);
		return pl__bk_band_out(b, p->a, p->ba - t) + pl__bk_band_out(b, p->d, p->bd + t) < before;
	}
	return 2 * p->ba > t && pl__bk_mul_lt(2 * p->bd + t, p->wa, 2 * p->ba - t, p->wd);
}

static void consider(const pl__bk *b, const by_pair *p, uint32_t x, uint32_t y, by_cand *best)
{
	const pl_view *v = b->v;
	uint64_t sx = pl__size(v, x), sy = y == PL_NONE ? 0 : pl__size(v, y);
	if (sx <= sy)
		return;
	uint64_t t = sx - sy;
	if (!lowers(b, p, t))
		return;
	by_cand c = {x, y, t, sx + sy, 0, 0};
	c.fix = t >= p->need && p->ba - t >= p->lo_a && p->bd + t <= p->hi_d;
	c.off = t > p->even ? t - p->even : p->even - t;
	int better;
	if (best->x == PL_NONE)
		better = 1;
	else if (c.fix != best->fix)
		better = c.fix > best->fix;
	else if (c.fix)
		better = c.copied < best->copied || (c.copied == best->copied && c.off < best->off);
	else
		better = c.off < best->off || (c.off == best->off && c.copied < best->copied);
	if (better)
		*best = c;
}

/* May x (on a, not on d) go a -> d now, by the copy rules (not counts)? */
static int can_go(const pl__bk *b, uint32_t x, uint32_t a, uint32_t d)
{
	const pl__shard_state *st = pl__st(b->v, x);
	return pl__holds(st, a) && !pl__holds(st, d) && movable(b->v, x) && pl__bk_copy_ok(b, x, a, d);
}

/* The shards a holds that may move, in key order: at most PL__BY_HELD of
 * them (the first), into S; returns how many. One walk of the shards. */
static uint32_t held_by(const pl_view *v, uint32_t a, uint32_t *S)
{
	uint32_t n = 0;
	for (uint32_t r = 0; r < v->nk && n < PL__BY_HELD; r++) {
		uint32_t k = v->k_order[r];
		if (pl__holds(pl__st(v, k), a) && movable(v, k))
			S[n++] = k;
	}
	return n;
}

/* What the destinations hold: for each of dst[0..nd), at most PL__BY_DHELD
 * of its movable shards (the first in key order), sorted by size. One walk
 * of the shards for all of them. */
typedef struct by_dheld {
	uint32_t n[PL__BY_DST];
	uint32_t k[PL__BY_DST][PL__BY_DHELD];
} by_dheld;

static void sort_by_size(const pl_view *v, uint32_t *k, uint32_t n)
{
	/* insertion sort, by size then key rank: n <= PL__BY_DHELD */
	for (uint32_t i = 1; i < n; i++) {
		uint32_t x = k[i], j = i;
		while (j > 0 && (pl__size(v, k[j - 1]) > pl__size(v, x) ||
				 (pl__size(v, k[j - 1]) == pl__size(v, x) && v->k_rank[k[j - 1]] > v->k_rank[x]))) {
			k[j] = k[j - 1];
			j--;
		}
		k[j] = x;
	}
}

static void dests_hold(const pl_view *v, const uint32_t *dst, uint32_t nd, by_dheld *h)
{
	uint64_t seen[64] = {0}; /* a filter over member indices mod 4096 */
	for (uint32_t j = 0; j < nd; j++) {
		h->n[j] = 0;
		seen[(dst[j] & 4095) >> 6] |= UINT64_C(1) << (dst[j] & 63);
	}
	for (uint32_t r = 0; r < v->nk; r++) {
		uint32_t k = v->k_order[r];
		const pl__shard_state *st = pl__st(v, k);
		for (uint32_t q = 0; q < st->nrep; q++) {
			uint32_t m = pl__rep(st, q);
			if (!(seen[(m & 4095) >> 6] >> (m & 63) & 1))
				continue;
			for (uint32_t j = 0; j < nd; j++)
				if (dst[j] == m && h->n[j] < PL__BY_DHELD && movable(v, k))
					h->k[j][h->n[j]++] = k;
		}
	}
	for (uint32_t j = 0; j < nd; j++)
		sort_by_size(v, h->k[j], h->n[j]);
}

/* May x go a -> d and y d -> a as one exchange: the same role on both sides
 * (the cluster's leader and replica totals stay as they are), each leg by
 * the copy rules, and when their streams differ, neither stream's count
 * potentials rising? */
static int exchange_ok(const pl__bk *b, uint32_t x, uint32_t y, uint32_t a, uint32_t d)
{
	const pl_view *v = b->v;
	int lx = pl__leader(pl__st(v, x)) == a, ly = pl__leader(pl__st(v, y)) == d;
	if (lx != ly || !can_go(b, y, d, a))
		return 0;
	uint32_t sx = v->snap.shards[x].stream, sy = v->snap.shards[y].stream;
	return sx == sy || (stream_keeps(b, sx, a, d, lx) && stream_keeps(b, sy, d, a, ly));
}

/* The best move or exchange between a and d into *best, from a's shards
 * S[0..n) and d's T[0..nt) (by size); *work counts the pairs weighed. */
static void search_pair(const pl__bk *b, const by_pair *p, const uint32_t *S, uint32_t n, const uint32_t *T,
			uint32_t nt, by_cand *best, uint64_t *work)
{
	const pl_view *v = b->v;
	best->x = PL_NONE;
	/* single moves, any shard (a stream-less one too) */
	if (pl__bk_room_new(v, p->d))
		for (uint32_t i = 0; i < n; i++)
			if (can_go(b, S[i], p->a, p->d) && (p->first || counts_keep(b, S[i], p->a, p->d, p->t)))
				consider(b, p, S[i], PL_NONE, best);
	*work += n;
	if (best->x != PL_NONE && best->fix)
		return; /* a single copy does it: no exchange copies less */
	if (!pl__bk_in_ok(b, p->a) || !pl__bk_out_ok(b, p->d))
		return;
	/* exchanges: for each x, the smallest shards of d (the fewest bytes),
	 * and those nearest the even split, a few of each */
	for (uint32_t i = 0; i < n && *work < PL__BY_WORK; i++) {
		uint32_t x = S[i];
		if (!can_go(b, x, p->a, p->d))
			continue;
		uint64_t sx = pl__size(v, x), want = sx > p->even ? sx - p->even : 0;
		uint32_t lo = 0, hi = nt;
		while (lo < hi) { /* the first of T at least `want` */
			uint32_t mid = lo + (hi - lo) / 2;
			if (pl__size(v, T[mid]) < want)
				lo = mid + 1;
			else
				hi = mid;
		}
		uint32_t tries = 0;
		for (uint32_t j = 0; j < nt && j < PL__BY_TRIES; j++, tries++)
			if (pl__size(v, T[j]) < sx && exchange_ok(b, x, T[j], p->a, p->d))
				consider(b, p, x, T[j], best);
		for (uint32_t j = lo > PL__BY_TRIES / 2 ? lo - PL__BY_TRIES / 2 : 0; j < nt && j < lo + PL__BY_TRIES / 2;
		     j++, tries++)
			if (pl__size(v, T[j]) < sx && exchange_ok(b, x, T[j], p->a, p->d))
				consider(b, p, x, T[j], best);
		*work += tries;
	}
}

/* Fill a pair's numbers. */
static void pair_of(const pl__bk *b, uint32_t a, uint32_t d, by_pair *p)
{
	const pl_view *v = b->v;
	uint64_t lo, hi, lo_d, hi_a;
	p->a = a;
	p->d = d;
	p->t = totals(v);
	p->ba = v->m_bytes[a];
	p->bd = v->m_bytes[d];
	p->wa = wt(b, a);
	p->wd = wt(b, d);
	p->first = b->cfg->bytes_first != 0;
	pl__bk_band_of(b, a, &lo, &hi_a);
	p->lo_a = lo;
	pl__bk_band_of(b, d, &lo_d, &hi);
	p->hi_d = hi;
	uint64_t na = p->ba > hi_a ? p->ba - hi_a : 0, nd = p->bd < lo_d ? lo_d - p->bd : 0;
	p->need = na > nd ? na : nd;
	/* even: (ba - t)/wa = (bd + t)/wd, t = (ba wd - bd wa) / (wa + wd) */
	uint64_t x = pl__bk_muldiv(p->ba, p->wd, p->wa + p->wd), y = pl__bk_muldiv(p->bd, p->wa, p->wa + p->wd);
	p->even = x > y ? x - y : 0;
}

int pl__bk_bytes_wanted(const pl__bk *b)
{
	const pl_view *v = b->v;
	if (!b->band.on || b->band.weights == 0)
		return 0;
	for (uint32_t e = 0; e < v->n_elig; e++)
		if (pl__bk_band_out(b, v->elig[e], v->m_bytes[v->elig[e]]))
			return 1;
	return 0;
}

void pl__bk_bbalance(pl__bk *b)
{
	const pl_view *v = b->v;
	if (!v->sized || !b->cfg->bytes_balance)
		return;
	pl__bk_band_init(b);
	if (!b->band.on || b->band.weights == 0)
		return;
	while (!b->full) {
		uint32_t src[PL__BY_SRC], dst[PL__BY_DST];
		uint32_t ns = rank_members(b, ORDER_MOST, PL_NONE, src, PL__BY_SRC);
		uint32_t nd = rank_members(b, ORDER_LEAST, PL_NONE, dst, PL__BY_DST);
		if (ns == 0 || pl__bk_band_out(b, src[0], v->m_bytes[src[0]]) +
					   pl__bk_band_out(b, dst[0], v->m_bytes[dst[0]]) ==
				       0)
			return; /* every member within its band */
		if (waits(b))
			return;
		by_cand best = {PL_NONE, PL_NONE, 0, 0, 0, 0};
		by_pair p;
		int waits = 0;
		uint64_t work = 0;
		uint32_t S[PL__BY_HELD];
		by_dheld T;
		dests_hold(v, dst, nd, &T);
		work += v->nk;
		for (uint32_t i = 0; i < ns && best.x == PL_NONE && work < PL__BY_WORK; i++) {
			uint32_t n = held_by(v, src[i], S);
			work += v->nk;
			for (uint32_t j = 0; j < nd && best.x == PL_NONE && work < PL__BY_WORK; j++) {
				if (src[i] == dst[j] || !fuller(b, src[i], dst[j]))
					continue;
				if (!pl__bk_out_ok(b, src[i]) || !pl__bk_in_ok(b, dst[j])) {
					waits = 1;
					continue;
				}
				pair_of(b, src[i], dst[j], &p);
				if (p.first && pl__bk_band_out(b, p.a, p.ba) + pl__bk_band_out(b, p.d, p.bd) == 0)
					continue; /* bytes first lowers the band's distance: nothing to lower here */
				search_pair(b, &p, S, n, T.k[j], T.n[j], &best, &work);
			}
		}
		if (best.x == PL_NONE) {
			if (waits)
				pl__bk_wait_limit(b, PL_NONE);
			return; /* as even as the rules allow */
		}
		uint64_t lo, hi;
		pl__bk_band_of(b, p.a, &lo, &hi);
		uint32_t flags = best.y != PL_NONE ? PL_ACTION_EXCHANGE : 0;
		if (best.y != PL_NONE && b->cap - b->n < 2) {
			b->full = 1; /* both actions of an exchange, or neither */
			return;
		}
		if (emit(b, best.x, p.a, p.d, PL_REASON_BYTES_SKEW, hi, flags))
			return;
		if (best.y != PL_NONE) {
			b->budget++; /* an exchange is one move against max_moves: each member sends one, takes one */
			if (emit(b, best.y, p.d, p.a, PL_REASON_BYTES_SKEW, 0, flags))
				return;
		}
	}
}
