/*
 * broker_common.c - the broker policy's shared helpers, the bottom layer of
 * its call graph (broker_int.h): the zone rules (span, and majority for the
 * streams that ask for it), the per-member move limits,
 * the potential rule a move of one count must keep, and writing actions.
 * Nothing here calls up into a pass or an entry point.
 *
 * How it works. Every pass writes its actions through pl__bk_emit() (and
 * moves through pl__bk_emit_move(), which spends the budget and lists the
 * move for the per-member limits), so each action is applied to the view as
 * it is written and the next decision sees it.
 */
#include "broker/broker_int.h"

int pl__bk_zones_ok(const pl_view *v, uint32_t k, uint32_t from, uint32_t to)
{
	const pl__shard_state *st = pl__st(v, k);
	if (pl__holds(st, to))
		return 1;
	/* With Z = the zones of the other replicas: before spans |Z| plus one
	 * when from's zone is not in Z, after |Z| plus one when to's is not.
	 * With levels (paths), the domains spanned at each level, the top
	 * first, compared in that order: the first level where from and to
	 * differ decides. */
	if (v->zone_levels == 1) { /* one level: the zone counts alone */
		int from_in = 0, to_in = 0;
		for (uint32_t j = 0; j < st->nrep; j++) {
			uint32_t r = pl__rep(st, j);
			if (r == from)
				continue;
			from_in |= v->m_zone[r] == v->m_zone[from];
			to_in |= v->m_zone[r] == v->m_zone[to];
		}
		return (from_in || !to_in) && pl__bk_majority_ok(v, k, from, to);
	}
	uint32_t rep[PL_MAX_REPLICAS];
	for (uint32_t j = 0; j < st->nrep; j++)
		rep[j] = pl__rep(st, j);
	uint32_t lf = pl__zone_new_level(v, rep, st->nrep, from, from);
	uint32_t lt = pl__zone_new_level(v, rep, st->nrep, from, to);
	/* from (to) is new at its level and every one past it: the move
	 * loses (gains) a domain at each of those, so the first change is a
	 * gain (or there is none) when to is new at a level no deeper */
	return lt <= lf && pl__bk_majority_ok(v, k, from, to);
}

uint32_t pl__bk_zone_held(const pl_view *v, const pl__shard_state *st, uint32_t z)
{
	uint32_t n = 0;
	for (uint32_t j = 0; j < st->nrep; j++)
		n += v->m_zone[pl__rep(st, j)] == z;
	return n;
}

int pl__bk_majority_ok(const pl_view *v, uint32_t k, uint32_t from, uint32_t to)
{
	if (!pl__bk_majority(v, k) || v->m_zone[from] == v->m_zone[to])
		return 1;
	const pl__shard_state *st = pl__st(v, k);
	uint32_t base = pl__bk_maj_base(st->nrep), c = pl__bk_zone_held(v, st, v->m_zone[to]);
	if (!pl__holds(st, from))
		return c < base; /* nothing leaves: to's zone must stay within the base */
	uint32_t a = pl__bk_zone_held(v, st, v->m_zone[from]);
	/* The square's rise in to's zone, 2 (c - L) + 1 past L, against its
	 * fall in from's, 2 (a - L) - 1: not larger exactly when c < max(L, a). */
	return c < (base > a ? base : a);
}

uint32_t pl__bk_in(const pl__bk *b, uint32_t m)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < b->n_flight; i++)
		n += b->fl_to[i] == m;
	return n;
}

uint32_t pl__bk_out(const pl__bk *b, uint32_t m)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < b->n_flight; i++)
		n += b->fl_from[i] == m;
	return n;
}

void pl__bk_wait_limit(pl__bk *b, uint32_t member)
{
	if (!b->want_limit)
		b->limit_member = member;
	b->want_limit = 1;
}

int pl__bk_emit(pl__bk *b, const pl_action *act)
{
	if (b->n >= b->cap) {
		b->full = 1;
		return 1;
	}
	pl_action a = *act;
	if (a.flags & PL_ACTION_STAGE_FIRST) { /* what it copies, and the members' bytes before */
		a.bytes = pl__size(b->v, a.shard);
		a.from_bytes = a.from != PL_NONE ? b->v->m_bytes[a.from] : 0;
		a.to_bytes = b->v->m_bytes[a.to];
	}
	int rc = pl__view_apply(b->v, &a);
	PL_ASSERT(rc == 0); /* every action is built from the view it applies to */
	if (rc)
		return rc;
	b->out[b->n++] = a;
	return 0;
}

int pl__bk_emit_move(pl__bk *b, const pl_action *a)
{
	PL_ASSERT(b->budget > 0);
	int rc = pl__bk_emit(b, a);
	if (rc)
		return rc;
	b->budget--;
	uint64_t size = a->flags & PL_ACTION_STAGE_FIRST ? pl__size0(b->v, a->shard) : 0;
	b->bytes_flight += size;
	if (b->limits && b->n_flight < PL_BROKER_MAX_MOVES) {
		b->fl_from[b->n_flight] = a->from;
		b->fl_to[b->n_flight] = a->to;
		b->fl_bytes[b->n_flight] = size;
		b->n_flight++;
	}
	return 0;
}


/* How far c is outside [fl, ce]. */
static uint32_t outside(uint32_t c, uint32_t fl, uint32_t ce)
{
	return c > ce ? c - ce : c < fl ? fl - c : 0;
}

/* Members a's and d's bounds over `total`, widened by the scope's tolerance. */
static void bounds2(const pl_view *v, uint32_t total, uint32_t tol, uint32_t a, uint32_t d, uint32_t *fa, uint32_t *ea,
		    uint32_t *fd, uint32_t *ed)
{
	pl__bounds(v, total, a, fa, ea);
	pl__bounds(v, total, d, fd, ed);
	pl__bk_widen(tol, fa, ea);
	pl__bk_widen(tol, fd, ed);
}

/* The scope's distance on a and d before and after a move of one from a
 * (count ca > 0) to d (count cd), bounds over `total` widened by tol: the
 * bounds the scope's own pass moves toward. */
static void distances(const pl_view *v, uint32_t total, uint32_t tol, uint32_t a, uint32_t ca, uint32_t d, uint32_t cd,
		      uint64_t *before, uint64_t *after)
{
	uint32_t fa, ea, fd, ed;
	bounds2(v, total, tol, a, d, &fa, &ea, &fd, &ed);
	*before = (uint64_t)outside(ca, fa, ea) + outside(cd, fd, ed);
	*after = (uint64_t)outside(ca - 1, fa, ea) + outside(cd + 1, fd, ed);
}

int pl__bk_no_rise(const pl_view *v, uint32_t total, uint32_t tol, uint32_t a, uint32_t ca, uint32_t d, uint32_t cd)
{
	uint64_t before, after;
	if (ca == 0)
		return 0;
	distances(v, total, tol, a, ca, d, cd, &before, &after);
	if (after != before)
		return after < before;
	/* The same distance: the sum of count^2/weight must not rise,
	 * (2 cd + 1) / w_d <= (2 ca - 1) / w_a. */
	return (2 * (uint64_t)cd + 1) * v->m_weight[a] <= (2 * (uint64_t)ca - 1) * v->m_weight[d];
}

int pl__bk_drops(const pl_view *v, uint32_t total, uint32_t tol, uint32_t a, uint32_t ca, uint32_t d, uint32_t cd)
{
	uint64_t before, after;
	if (ca == 0)
		return 0;
	distances(v, total, tol, a, ca, d, cd, &before, &after);
	return after < before;
}

int pl__bk_keeps(const pl_view *v, uint32_t total, uint32_t tol, uint32_t a, uint32_t ca, uint32_t d, uint32_t cd)
{
	uint32_t fa, ea, fd, ed;
	bounds2(v, total, tol, a, d, &fa, &ea, &fd, &ed);
	if (ca < fa + 1 || cd + 1 > ed)
		return 0;
	return pl__bk_no_rise(v, total, tol, a, ca, d, cd);
}

void pl__bk_block(pl__bk *b, int rc, uint32_t scope_id)
{
	b->blocked++;
	if (rc == PL__BK_BLOCK_BOUNDS) { /* named only when no other block is */
		if (!b->block_bounds++)
			b->bounds_scope = scope_id;
		return;
	}
	if (rc == PL__BK_BLOCK_CAPS)
		b->block_caps++;
	else if (rc == PL__BK_BLOCK_HANDOFF)
		b->block_handoff++;
	else if (rc == PL__BK_BLOCK_FULL)
		b->block_full++;
	else
		b->block_zones++;
	if (b->block_caps + b->block_zones + b->block_handoff + b->block_full == 1)
		b->block_scope = scope_id;
}

void pl__bk_drain_stall(pl__bk *b, uint32_t k)
{
	if (!b->drain_stalled)
		b->drain_shard = k;
	b->drain_stalled++;
	b->blocked++;
}

/* ---- bytes ----------------------------------------------------------------- */

/* 128-bit products, for bytes times capacities (each below 2^63). */
typedef struct u128 {
	uint64_t hi, lo;
} u128;

static u128 mul(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
	__extension__ typedef unsigned __int128 wide;
	wide r = (wide)a * b;
	return (u128){(uint64_t)(r >> 64), (uint64_t)r};
#else
	uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
	uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
	return (u128){hh + (lh >> 32) + (hl >> 32) + (mid >> 32), (ll & 0xffffffffu) | (mid << 32)};
#endif
}

static int lt128(u128 x, u128 y)
{
	return x.hi != y.hi ? x.hi < y.hi : x.lo < y.lo;
}

int pl__bk_mul_lt(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	return lt128(mul(a, b), mul(c, d));
}

uint64_t pl__bk_muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	/* floor(a * b / c), c > 0, saturated at UINT64_MAX: long division of
	 * the 128-bit product, one bit at a time. */
	u128 p = mul(a, b);
	if (p.hi >= c)
		return UINT64_MAX;
	uint64_t r = p.hi, q = 0;
	for (int i = 63; i >= 0; i--) {
		uint64_t top = r >> 63;
		r = (r << 1) | ((p.lo >> i) & 1u);
		q <<= 1;
		if (top || r >= c) {
			r -= c;
			q |= 1u;
		}
	}
	return q;
}

uint64_t pl__bk_full(const pl__bk *b, uint32_t m)
{
	uint64_t cap = pl__capacity(b->v, m);
	uint32_t ratio = b->cfg->full_ratio;
	if (cap == PL_BYTES_UNKNOWN || ratio == 0)
		return UINT64_MAX;
	return cap / 100 * ratio + cap % 100 * ratio / 100;
}

/* Does a copy of k fit on `to` under its full bytes? */
static int fits(const pl__bk *b, uint32_t k, uint32_t to)
{
	uint64_t full = pl__bk_full(b, to), have = b->v->m_bytes[to], size = pl__size(b->v, k);
	if (full == UINT64_MAX)
		return 1;
	return size == PL_BYTES_UNKNOWN ? have < full : have <= full && size <= full - have;
}

/* Bytes in flight into (in) or out of m. */
static uint64_t flight_bytes(const pl__bk *b, uint32_t m, int in)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < b->n_flight; i++)
		if ((in ? b->fl_to[i] : b->fl_from[i]) == m)
			n += b->fl_bytes[i];
	return n;
}

/* Would `size` more on top of `have` pass `limit` (0: none)? A copy starts
 * alone whatever its size, so one larger than the limit is not stuck. */
static int past(uint64_t limit, uint64_t have, uint64_t size)
{
	return limit != 0 && have > 0 && (have > limit || size > limit - have);
}

int pl__bk_bytes_ok(const pl__bk *b, uint32_t k, uint32_t from, uint32_t to)
{
	const pl_broker_config *c = b->cfg;
	if (!b->v->sized || (c->max_bytes_in_flight == 0 && c->max_bytes_in == 0 && c->max_bytes_out == 0))
		return 1;
	uint64_t size = pl__size0(b->v, k);
	if (past(c->max_bytes_in_flight, b->bytes_flight, size))
		return 0;
	if (c->max_bytes_in && past(c->max_bytes_in, flight_bytes(b, to, 1), size))
		return 0;
	return from == PL_NONE || c->max_bytes_out == 0 || !past(c->max_bytes_out, flight_bytes(b, from, 0), size);
}

void pl__bk_band_init(pl__bk *b)
{
	const pl_view *v = b->v;
	pl__band *band = &b->band;
	memset(band, 0, sizeof *band);
	if (!v->sized || !b->cfg->bytes_balance || v->n_elig == 0)
		return;
	band->on = 1;
	band->cap = 1;
	for (uint32_t e = 0; e < v->n_elig; e++)
		band->cap &= pl__capacity(v, v->elig[e]) != PL_BYTES_UNKNOWN;
	for (uint32_t e = 0; e < v->n_elig; e++) {
		uint32_t m = v->elig[e];
		band->total += v->m_bytes[m];
		band->weights += band->cap ? pl__capacity(v, m) : v->m_weight[m];
	}
}

void pl__bk_band_of(const pl__bk *b, uint32_t m, uint64_t *lo, uint64_t *hi)
{
	const pl__band *band = &b->band;
	*lo = 0;
	*hi = UINT64_MAX;
	if (!band->on || band->weights == 0)
		return;
	uint64_t w = band->cap ? pl__capacity(b->v, m) : b->v->m_weight[m];
	uint64_t share = pl__bk_muldiv(band->total, w, band->weights), tol = b->cfg->bytes_tolerance;
	uint64_t slack = pl__bk_muldiv(share, tol, 100);
	*lo = share > slack ? share - slack : 0;
	*hi = slack > UINT64_MAX - share ? UINT64_MAX : share + slack;
}

uint64_t pl__bk_band_out(const pl__bk *b, uint32_t m, uint64_t bytes)
{
	uint64_t lo, hi;
	pl__bk_band_of(b, m, &lo, &hi);
	return bytes > hi ? bytes - hi : bytes < lo ? lo - bytes : 0;
}

int pl__bk_copy_why(const pl__bk *b, uint32_t k, uint32_t from, uint32_t to)
{
	const pl_view *v = b->v;
	if (pl__holds(pl__st(v, k), to))
		return PL__BK_COPY_OK;
	if (from != PL_NONE && !pl__bk_zones_ok(v, k, from, to))
		return PL__BK_COPY_ZONES;
	if (!v->sized && v->snap.member_capacity == NULL)
		return PL__BK_COPY_OK;
	if (!fits(b, k, to))
		return PL__BK_COPY_FULL;
	if (!pl__bk_bytes_ok(b, k, from, to))
		return PL__BK_COPY_LIMIT;
	if (!b->cfg->bytes_first || !b->band.on)
		return PL__BK_COPY_OK;
	/* bytes first: the band's distance, over `from` and `to`, may not rise */
	uint64_t s = pl__size0(v, k), bt = v->m_bytes[to];
	uint64_t before = pl__bk_band_out(b, to, bt), after = pl__bk_band_out(b, to, bt + s);
	if (from != PL_NONE && pl__eligible(v, from)) {
		uint64_t bf = v->m_bytes[from];
		before += pl__bk_band_out(b, from, bf);
		after += pl__bk_band_out(b, from, bf - s);
	}
	return after <= before ? PL__BK_COPY_OK : PL__BK_COPY_FULL;
}

int pl__bk_copy_ok(const pl__bk *b, uint32_t k, uint32_t from, uint32_t to)
{
	return pl__bk_copy_why(b, k, from, to) == PL__BK_COPY_OK;
}

int pl__bk_room_bytes(const pl__bk *b, uint32_t k, uint32_t from, uint32_t to)
{
	int why = pl__bk_copy_why(b, k, PL_NONE, to);
	(void)from;
	return why == PL__BK_COPY_OK;
}
