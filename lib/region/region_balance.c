/*
 * region_balance.c - steps 2 to 5 of the region policy: fill an idle member,
 * primaries follow the newest peer, (off by default) primaries toward
 * clearly less load, and primaries even within their peer sets.
 *
 * How it works.
 *
 * Step 2 runs only when step 1 has no region left growing. With T live peers
 * over n live members the fair share is F = T / n (rounded down). Receivers
 * are the members that may receive and hold fewer than F replicas, newest
 * first. For each, one move at a time: the giver is the member holding the
 * most replicas (more than F) among those with a region the receiver can
 * take; among equally full givers the better tier (a non-primary peer first,
 * a zone gained first within that), then the smaller id; then the first
 * region in key order. One pass over the regions in key order finds it: each
 * (region, peer) pair is ranked by (giver's count, tier, giver's id) and the
 * pass stops early at the first region of the fullest member with the
 * smallest id in the best tier still open to the receiver, which nothing can
 * beat. That tier is learnt: a full pass that found no tier-1 move (RF 3 over
 * three zones never gains one) lets the receiver's later passes stop at the
 * first tier-2 region, so a join costs a short pass per move. A receiver
 * that is ready for no region it could take is reported (stall, step 2) and
 * the next receiver is served.
 *
 * Step 3 gives each region's primary to its newest peer that may receive
 * and is ready, when that peer leads strictly fewer primaries than the
 * primary's member; the counts move with every action, so a joiner takes
 * primaries only until it leads as many as the members it takes them from.
 * Which region goes first matters: taken in key order, the members leading
 * the first keys would be drained by every joiner while the others keep
 * theirs (1 -> 2 -> 4 would end at 6/3/6/9 primaries of 24). So each move is
 * the one whose primary's member leads the most, then whose newest peer
 * leads the fewest, then the first in key order: one pass over the regions
 * per move, which stops at the first move that meets both bounds (in a join,
 * usually the first region it looks at).
 *
 * Step 4, when on, makes at most one load move per call: loads are
 * measurements, not predictions, and the next tick's measurement shows what
 * the move did.
 *
 * Step 5 runs step 3 to its end, then seeks one chain of hand-offs that
 * lowers sum(L(m)^2), writes it, and starts again, until there is none. A
 * chain is sought level by level, h from the most primaries a member that
 * could hand one on leads down to two above the fewest one that could take
 * one leads, only at counts some live member leads (at a count none leads,
 * the search would meet exactly what the level above met): a breadth-first
 * search in v->m_scratch whose roots are the live members leading h or
 * more, whose edges are the idle regions' hand-offs (the primary to a peer
 * that may receive and is ready), which passes through members leading
 * h - 1 and ends at the first layer that meets one leading h - 2 or fewer.
 * Each layer is one pass over the regions in key order; at most max_actions
 * layers. Any chain that lowers the sum holds one of these, no longer, so a
 * search that finds none at any level proves there is none of that length.
 *
 * Why it terminates (no thrash, by construction).
 *  - Step 2: let D = sum over live members of max(0, F - c(m)). A move raises
 *    a receiver below F by one and leaves its giver, which held more than F,
 *    at F or more: D falls by exactly 1. Moves do not change T, so only step
 *    1's adds raise F, and each rise of F raises D by at most n.
 *  - Step 3: once a region's primary is its newest ready peer the rule no
 *    longer applies to it; only another action on the region (a peer added
 *    or moved, a load move) can make it apply again. A move also never
 *    raises sum(L(m)^2), since the receiver led strictly fewer.
 *  - Step 4: L(q) + 2 <= L(p) makes each load move lower sum(L(m)^2) by at
 *    least 2, and step 3 never raises it. Step 3's rule holds for the region
 *    neither before the move (step 3 runs first, until its rule holds for no
 *    idle region) nor after it (if the newest peer n is p, L(p) - 1 >=
 *    L(q) + 1; else L(n) >= L(p) >= L(q) + 2), so the two never undo each
 *    other: both are asserted where they are used.
 *  - Step 5: a chain from s (L(s) >= h) through members leading h - 1 to t
 *    (L(t) <= h - 2) lowers sum(L(m)^2) by 2 (L(s) - L(t) - 1) >= 2. With
 *    the counts it leaves, step 3's rule holds on none of its regions: a
 *    region's taker leads h - 1 or fewer (t: L(t) + 1), its giver h - 1 or
 *    more (s: L(s) - 1), and its newest peer n, when neither, led no fewer
 *    than the giver before (step 3 ran to its end), is not t (it led h - 1
 *    or more), so leads h - 1 or more still. So (sum(L(m)^2), regions not
 *    led by their newest peer) falls with every load move, chain and
 *    newest-peer move: steps 3 to 5 never take turns forever.
 * The resulting bounds on actions and calls are stated in placement/region.h.
 */
#include "region/region_impl.h"

/* ---- step 2: fill an idle member ------------------------------------------------ */

/* A candidate replica move for the receiver. */
typedef struct move {
	uint32_t k;    /* region, PL_NONE when empty */
	uint32_t from; /* giver */
	uint32_t tier; /* 1..4 */
} move;

/* The giver holding more first, then the better tier, then the giver with
 * the smaller id; equal: the earlier region in key order stays. */
static int move_better(const pl_view *v, const move *a, const move *b)
{
	if (b->k == PL_NONE)
		return 1;
	uint32_t ca = v->m_replicas[a->from], cb = v->m_replicas[b->from];
	if (ca != cb)
		return ca > cb;
	if (a->tier != b->tier)
		return a->tier < b->tier;
	return v->m_rank[a->from] < v->m_rank[b->from];
}

/* The live member holding the most replicas, more than F; ties to the
 * smaller id. PL_NONE when nobody holds more than F. */
static uint32_t fullest(const pl_view *v, uint32_t F)
{
	uint32_t best = PL_NONE;
	for (uint32_t r = 0; r < v->nm; r++) {
		uint32_t m = v->m_order[r];
		if (pl__live(v, m) && v->m_replicas[m] > F && (best == PL_NONE || v->m_replicas[m] > v->m_replicas[best]))
			best = m;
	}
	return best;
}

/* The best move onto receiver r, and the best one r is not ready for.
 * *floor is a tier no move onto r can beat (1 at first): within a call the
 * tiers open to r only close (regions acted on are busy, givers' counts only
 * fall), so a full pass that saw no better tier raises it, and later passes
 * stop at the fullest giver's first region in that tier. */
static void find_move(const pl_view *v, uint32_t r, uint32_t F, uint32_t *floor, move *best, move *best_nr)
{
	best->k = best_nr->k = PL_NONE;
	uint32_t top = fullest(v, F), seen = 5;
	if (top == PL_NONE)
		return;
	uint32_t zr = v->m_zone[r];
	for (uint32_t rk = 0; rk < v->nk; rk++) {
		uint32_t k = v->k_order[rk];
		const pl__shard_state *st = pl__st(v, k);
		if (!pl__region_placeable(v, k) || pl__region_busy(st) || pl__holds(st, r))
			continue;
		int ready = pl__region_ready(v, r, k);
		if (!ready && best->k != PL_NONE)
			continue; /* best_nr only matters while no ready move exists */
		int r_new = !pl__region_zone_held(v, st, zr, PL_NONE);
		for (uint32_t j = 0; j < st->nrep; j++) {
			uint32_t p = pl__rep(st, j);
			if (!pl__live(v, p) || v->m_replicas[p] <= F)
				continue;
			int p_shared = pl__region_zone_held(v, st, v->m_zone[p], p);
			if (!r_new && !p_shared && v->m_zone[p] != zr)
				continue; /* the region would lose p's zone */
			int gain = r_new && p_shared, primary = pl__leader(st) == p;
			move m = {k, p, primary ? (gain ? 3u : 4u) : (gain ? 1u : 2u)};
			if (ready && m.tier < seen)
				seen = m.tier;
			move *slot = ready ? best : best_nr;
			if (move_better(v, &m, slot))
				*slot = m;
		}
		if (best->k != PL_NONE && best->from == top && best->tier == *floor)
			return; /* the fullest, smallest id, best tier: nothing beats it */
	}
	if (seen < 5)
		*floor = seen;
}

/* The newest member after `prev` (PL_NONE: the newest of all) that may
 * receive a copy and holds fewer than F replicas. */
static uint32_t next_receiver(const pl_view *v, uint32_t F, uint32_t prev)
{
	uint32_t best = PL_NONE;
	for (uint32_t r = 0; r < v->nm; r++) {
		uint32_t m = v->m_order[r];
		if (!pl__region_may_receive(v, m) || !pl__region_room(v, m) || v->m_replicas[m] >= F)
			continue;
		if (prev != PL_NONE && !pl__region_newer(v, prev, m))
			continue;
		if (best == PL_NONE || pl__region_newer(v, m, best))
			best = m;
	}
	return best;
}

void pl__region_step_idle(pl__region_ctx *c)
{
	pl_view *v = c->v;
	if (v->n_live == 0)
		return;
	uint64_t total = 0;
	for (uint32_t m = 0; m < v->nm; m++)
		if (pl__live(v, m))
			total += v->m_replicas[m];
	uint32_t F = (uint32_t)(total / v->n_live);
	for (uint32_t r = next_receiver(v, F, PL_NONE); r != PL_NONE && !c->stopped; r = next_receiver(v, F, r)) {
		uint32_t floor = 1;
		while (!c->stopped && v->m_replicas[r] < F && pl__region_room(v, r)) {
			move mv, nr;
			find_move(v, r, F, &floor, &mv, &nr);
			if (mv.k == PL_NONE) {
				if (nr.k != PL_NONE)
					pl__region_stall(c, nr.k, PL_REGION_STALL_NOT_READY, 2, r, PL_REGION_WANT_PEER);
				break;
			}
			pl_action a;
			pl__region_action(&a, PL_ACTION_MOVE_REPLICA, PL_REASON_IDLE_MEMBER, v, mv.k, mv.from, r,
					  PL_SCOPE_REPLICAS);
			a.from_count = v->m_replicas[mv.from];
			a.to_count = v->m_replicas[r];
			a.share = F;
			a.total = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
			a.tier = mv.tier;
			pl__region_emit(c, &a);
		}
	}
}

/* ---- step 3: primaries follow the newest peer --------------------------------------- */

/* The region's newest peer that may receive and is ready, or PL_NONE. */
static uint32_t newest_peer(const pl_view *v, uint32_t k)
{
	const pl__shard_state *st = pl__st(v, k);
	uint32_t best = PL_NONE;
	for (uint32_t j = 0; j < st->nrep; j++) {
		uint32_t p = pl__rep(st, j);
		if (pl__region_may_receive(v, p) && pl__region_ready(v, p, k) &&
		    (best == PL_NONE || pl__region_newer(v, p, best)))
			best = p;
	}
	return best;
}

/* The primary of a placeable, idle region with a live primary; else PL_NONE. */
static uint32_t movable_primary(const pl_view *v, uint32_t k)
{
	const pl__shard_state *st = pl__st(v, k);
	if (!pl__region_placeable(v, k) || pl__region_busy(st) || pl__leader(st) == PL_NONE || !pl__live(v, pl__leader(st)))
		return PL_NONE;
	return pl__leader(st);
}

/* Is the move (k, p -> n) better than the best so far (bk)? The primary's
 * member leading more first, then the newest peer leading fewer; equal:
 * the earlier region in key order stays. */
static int newest_better(const pl_view *v, uint32_t p, uint32_t n, uint32_t bk, uint32_t bp, uint32_t bn)
{
	if (bk == PL_NONE)
		return 1;
	if (v->m_leaders[p] != v->m_leaders[bp])
		return v->m_leaders[p] > v->m_leaders[bp];
	return v->m_leaders[n] < v->m_leaders[bn];
}

void pl__region_step_newest(pl__region_ctx *c)
{
	pl_view *v = c->v;
	while (!c->stopped) {
		/* Bounds no move can beat: the most primaries any live member
		 * leads, the fewest any member that may receive leads. */
		uint32_t most = 0, fewest = UINT32_MAX;
		for (uint32_t m = 0; m < v->nm; m++) {
			if (pl__live(v, m) && v->m_leaders[m] > most)
				most = v->m_leaders[m];
			if (pl__region_may_receive(v, m) && v->m_leaders[m] < fewest)
				fewest = v->m_leaders[m];
		}
		uint32_t bk = PL_NONE, bp = PL_NONE, bn = PL_NONE;
		for (uint32_t r = 0; r < v->nk; r++) {
			uint32_t k = v->k_order[r], p = movable_primary(v, k);
			if (p == PL_NONE)
				continue;
			uint32_t n = newest_peer(v, k);
			if (n == PL_NONE || n == p || v->m_leaders[n] >= v->m_leaders[p])
				continue;
			if (newest_better(v, p, n, bk, bp, bn)) {
				bk = k;
				bp = p;
				bn = n;
				if (v->m_leaders[p] == most && v->m_leaders[n] == fewest)
					break; /* nothing later can beat it */
			}
		}
		if (bk == PL_NONE) {
			c->newest_at = c->written;
			return;
		}
		pl_action a;
		pl__region_action(&a, PL_ACTION_MOVE_LEADER, PL_REASON_NEWEST_PEER, v, bk, bp, bn, PL_SCOPE_PRIMARIES);
		a.from_count = v->m_leaders[bp];
		a.to_count = v->m_leaders[bn];
		a.at = v->snap.members[bn].joined_at;
		pl__region_emit(c, &a);
	}
}

/* ---- step 4: primaries toward clearly less load ----------------------------------- */

/* a * b as a 96-bit number (hi, lo 32 bits), for b < 2^32. */
static void mul96(uint64_t a, uint32_t b, uint64_t *hi, uint64_t *lo)
{
	uint64_t l = (a & 0xffffffffu) * b, h = (a >> 32) * b;
	*hi = h + (l >> 32);
	*lo = l & 0xffffffffu;
}

/* 100 * q < (100 - threshold) * p, exactly. */
static int clearly_less(uint64_t q, uint64_t p, uint32_t threshold)
{
	uint64_t qh, ql, ph, pl;
	mul96(q, 100u, &qh, &ql);
	mul96(p, 100u - threshold, &ph, &pl);
	return qh != ph ? qh < ph : ql < pl;
}

void pl__region_step_load(pl__region_ctx *c)
{
	pl_view *v = c->v;
	const pl_member *mem = v->snap.members;
	uint32_t bk = PL_NONE, bp = PL_NONE, bq = PL_NONE;
	uint64_t bdiff = 0;
	for (uint32_t r = 0; r < v->nk; r++) {
		uint32_t k = v->k_order[r], p = movable_primary(v, k);
		if (p == PL_NONE || !pl__region_measured(v, p) || mem[p].load == 0)
			continue;
		uint32_t n = newest_peer(v, k), lp = v->m_leaders[p];
		/* Step 3 ran until its rule held for no idle region, so it does
		 * not hold here before the move. */
		PL_ASSERT(n == PL_NONE || n == p || v->m_leaders[n] >= lp);
		(void)n;
		const pl__shard_state *st = pl__st(v, k);
		uint32_t q = PL_NONE;
		for (uint32_t j = 0; j < st->nrep; j++) {
			uint32_t x = pl__rep(st, j);
			if (x == p || !pl__region_may_receive(v, x) || !pl__region_ready(v, x, k) ||
			    !pl__region_measured(v, x))
				continue;
			uint32_t lx = v->m_leaders[x];
			if (lx + 2 > lp || !clearly_less(mem[x].load, mem[p].load, c->cfg->load_threshold))
				continue; /* count rule before and after, and the load */
			/* Step 3 cannot take it from x after the move: if n is p,
			 * L(p) - 1 >= L(x) + 1; else L(n) >= L(p) >= L(x) + 2. */
			PL_ASSERT(n == x || (n == p ? lp - 1 >= lx + 1 : v->m_leaders[n] >= lx + 1));
			if (q == PL_NONE || mem[x].load < mem[q].load ||
			    (mem[x].load == mem[q].load &&
			     (lx < v->m_leaders[q] || (lx == v->m_leaders[q] && v->m_rank[x] < v->m_rank[q]))))
				q = x;
		}
		if (q == PL_NONE)
			continue;
		uint64_t diff = mem[p].load - mem[q].load;
		if (bk == PL_NONE || diff > bdiff) {
			bk = k;
			bp = p;
			bq = q;
			bdiff = diff;
		}
	}
	if (bk == PL_NONE)
		return;
	pl_action a;
	pl__region_action(&a, PL_ACTION_MOVE_LEADER, PL_REASON_LOAD, v, bk, bp, bq, PL_SCOPE_PRIMARIES);
	a.from_count = v->m_leaders[bp];
	a.to_count = v->m_leaders[bq];
	a.load = mem[bp].load;
	a.at = mem[bq].load;
	a.share = c->cfg->load_threshold;
	pl__region_emit(c, &a);
}

/* ---- step 5: primaries even ------------------------------------------------------ */

/* v->m_scratch during a chain search at level h: UNREACHED, or a member the
 * search reached: its layer (hand-offs from a root) in the high 32 bits, and
 * in the low 32 bits the region + 1 whose primary hands to it (0: a root,
 * leading h or more). */
#define UNREACHED INT64_C(-1)

static int64_t reach(uint32_t layer, uint32_t k)
{
	return (int64_t)((uint64_t)layer << 32 | (k == PL_NONE ? 0u : k + 1u));
}

static uint32_t layer_of(int64_t s)
{
	return (uint32_t)((uint64_t)s >> 32);
}

static uint32_t parent_of(int64_t s)
{
	uint32_t x = (uint32_t)((uint64_t)s & 0xffffffffu);
	return x ? x - 1 : PL_NONE;
}

/* One breadth-first search at level h, at most `most` layers: the roots are
 * the live members leading h or more; a region whose primary was reached
 * in the last layer hands to its peers that may receive and are ready: one
 * leading h - 1 joins the next layer, one leading h - 2 or fewer ends a
 * chain. 1 with *end = that member (marked, its region with it) at the
 * first layer any is met: the one leading the fewest, then the first region
 * in key order, then the smaller id; so the pass stops at one leading the
 * fewest any taker leads. */
static int search_level(pl_view *v, uint32_t h, uint32_t most, uint32_t fewest, uint32_t *end)
{
	int64_t *s = v->m_scratch;
	for (uint32_t m = 0; m < v->nm; m++)
		s[m] = pl__live(v, m) && v->m_leaders[m] >= h ? reach(0, PL_NONE) : UNREACHED;
	for (uint32_t layer = 1; layer <= most; layer++) {
		uint32_t best = PL_NONE, best_k = PL_NONE, grew = 0;
		for (uint32_t r = 0; r < v->nk; r++) {
			uint32_t k = v->k_order[r], u = movable_primary(v, k);
			if (u == PL_NONE || s[u] == UNREACHED || layer_of(s[u]) != layer - 1)
				continue;
			const pl__shard_state *st = pl__st(v, k);
			for (uint32_t j = 0; j < st->nrep; j++) {
				uint32_t w = pl__rep(st, j);
				if (w == u || s[w] != UNREACHED || !pl__region_may_receive(v, w) || !pl__region_ready(v, w, k))
					continue;
				uint32_t lw = v->m_leaders[w];
				if (lw + 2 <= h) {
					if (best == PL_NONE || lw < v->m_leaders[best] ||
					    (lw == v->m_leaders[best] && k == best_k && v->m_rank[w] < v->m_rank[best])) {
						best = w;
						best_k = k;
					}
				} else {
					PL_ASSERT(lw + 1 == h); /* leading h or more: a root */
					s[w] = reach(layer, k);
					grew = 1;
				}
			}
			if (best != PL_NONE && v->m_leaders[best] == fewest)
				break; /* the fewest any taker leads: nothing beats it */
		}
		if (best != PL_NONE) {
			s[best] = reach(layer, best_k);
			*end = best;
			return 1;
		}
		if (!grew)
			return 0;
	}
	return 0;
}

/* The chain to hand along, if any. No chain unless a member leads two or
 * more more than one that may receive (a pass over the members), and, of
 * the hand-offs the idle regions offer (a pass over the regions), a giver
 * leads two or more more than a taker: then levels from the most a giver
 * leads down to two above the fewest a taker leads, each a count some live
 * member leads (at a count none leads, the search would meet what the
 * level above it met). */
static int find_chain(pl_view *v, uint32_t most, uint32_t *end)
{
	uint32_t top = 0, fewest = UINT32_MAX;
	for (uint32_t m = 0; m < v->nm; m++) {
		if (pl__live(v, m) && v->m_leaders[m] > top)
			top = v->m_leaders[m];
		if (pl__region_may_receive(v, m) && v->m_leaders[m] < fewest)
			fewest = v->m_leaders[m];
	}
	if (fewest == UINT32_MAX || top < fewest + 2)
		return 0;
	uint32_t give = 0, take = UINT32_MAX;
	for (uint32_t k = 0; k < v->nk; k++) {
		uint32_t u = movable_primary(v, k);
		if (u == PL_NONE)
			continue;
		const pl__shard_state *st = pl__st(v, k);
		for (uint32_t j = 0; j < st->nrep; j++) {
			uint32_t w = pl__rep(st, j);
			if (w == u || !pl__region_may_receive(v, w) || !pl__region_ready(v, w, k))
				continue;
			give = v->m_leaders[u] > give ? v->m_leaders[u] : give;
			take = v->m_leaders[w] < take ? v->m_leaders[w] : take;
		}
	}
	if (take == UINT32_MAX || give < take + 2)
		return 0;
	for (uint32_t h = give; h >= take + 2;) {
		if (search_level(v, h, most, take, end))
			return 1;
		uint32_t next = 0;
		for (uint32_t m = 0; m < v->nm; m++)
			if (pl__live(v, m) && v->m_leaders[m] < h && v->m_leaders[m] > next)
				next = v->m_leaders[m];
		h = next;
	}
	return 0;
}

void pl__region_step_even(pl__region_ctx *c)
{
	pl_view *v = c->v;
	while (!c->stopped) {
		if (c->written != c->newest_at)
			pl__region_step_newest(c); /* step 3's rule first, after every action since */
		uint32_t end;
		if (c->stopped || !find_chain(v, c->cfg->max_actions, &end))
			return;
		/* Its length and its root, back from the end. */
		const int64_t *s = v->m_scratch;
		uint32_t len = 0, root = end, first = parent_of(s[end]);
		for (uint32_t k = first; k != PL_NONE; k = parent_of(s[root])) {
			root = pl__leader(pl__st(v, k));
			len++;
		}
		if (!pl__region_fits(c, len, first))
			return;
		uint32_t ceiling = v->m_leaders[root], floor = v->m_leaders[end];
		/* From the end back: the member leading the fewest takes first,
		 * and no member ever leads more than it did before the chain
		 * but that end. */
		for (uint32_t to = end, k = first; k != PL_NONE;) {
			uint32_t from = pl__leader(pl__st(v, k)), next = parent_of(s[from]);
			pl_action a;
			pl__region_action(&a, PL_ACTION_MOVE_LEADER, PL_REASON_PRIMARY_SKEW, v, k, from, to,
					  PL_SCOPE_PRIMARIES);
			a.from_count = v->m_leaders[from];
			a.to_count = v->m_leaders[to];
			a.floor = floor;
			a.ceiling = ceiling;
			a.total = len;
			pl__region_emit(c, &a);
			to = from;
			k = next;
		}
	}
}
