/*
 * tally.c - the view's tallies, and applying actions to them.
 *
 * How it works. Every policy, and pl_view_apply() for the caller, changes a
 * view through pl__view_apply(): it checks the action against the shard's
 * state, then updates the state and every tally the change touches (leaders
 * and replicas in total, the stream's leader cells and replica counts, the fleet's owned and
 * lag-held counts when they are computed), so a later decision in the same
 * call sees it.
 * Moves stay "in flight" (the shard is not moved again) until
 * pl_view_settle(), which is the next tick as far as a dry run is concerned.
 *
 * Replicas per stream are not kept per cell: pl__rcell_get() counts the
 * stream asked from its shards' states into a one-stream cache (the
 * policies visit streams one at a time), which pl__rcell_add() keeps in step.
 *
 * Leader cells: stream s owns cells [s_cell_first[s], s_cell_first[s + 1]),
 * of which the first s_cell_count[s] are live, sorted by member index, each
 * with a count of at least 1. A count reaching zero removes its cell, so a
 * stream never holds more cells than members leading some of it, which is at
 * most min(its shards, members): its room. A cell is 6 bytes (pl__cell in
 * view_int.h), read and written through its accessors only.
 */
#include "view/view_int.h"

/* Where member m's cell is (or goes) among the n cells at c, sorted by member. */
static inline uint32_t cell_pos(const pl__cell *c, uint32_t n, uint32_t m, int *found)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (pl__cell_member(c, mid) < m)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < n && pl__cell_member(c, lo) == m;
	return lo;
}

static uint32_t cell_get(const pl__cell *c, uint32_t n, uint32_t m)
{
	int found;
	uint32_t p = cell_pos(c, n, m, &found);
	return found ? pl__cell_leaders(c, p) : 0;
}

/* +1 or -1 to member m's count among the *n cells at c (room cells). */
static void cell_add(pl__cell *c, uint32_t *n, uint32_t room, uint32_t m, int delta)
{
	int found;
	uint32_t p = cell_pos(c, *n, m, &found);
	if (delta > 0) {
		if (found) {
			pl__cell_set(c, p, m, pl__cell_leaders(c, p) + 1);
			return;
		}
		PL_ASSERT(*n < room);
		(void)room;
		memmove(c + p + 1, c + p, (size_t)(*n - p) * sizeof *c);
		pl__cell_set(c, p, m, 1);
		(*n)++;
		return;
	}
	PL_ASSERT(found && pl__cell_leaders(c, p) > 0);
	/* GCOVR_EXCL_START: unreachable while the assertion above holds (a
	 * leader taken away was counted); a release build leaves the cells. */
	if (!found)
		return;
	/* GCOVR_EXCL_STOP */
	uint32_t left = pl__cell_leaders(c, p) - 1;
	if (left > 0) {
		pl__cell_set(c, p, m, left);
		return;
	}
	memmove(c + p, c + p + 1, (size_t)(*n - p - 1) * sizeof *c);
	(*n)--;
}

uint32_t pl__cell_find(const pl_view *v, uint32_t s, uint32_t m)
{
	if (v->lc_stream == s)
		return v->lc_count[m];
	return cell_get(v->cells + v->s_cell_first[s], v->s_cell_count[s], m);
}

/* Hold stream s's leaders per member in lc_count: the stream held before
 * is cleared on its cells (lc_count is in step with them), then s's cells
 * are written. O(both streams' cells); the cache is the view's own memory,
 * as rcache()'s, and changes no answer. */
void pl__cell_cache(const pl_view *v, uint32_t s)
{
	pl_view *w = (pl_view *)(uintptr_t)v;
	if (w->lc_stream == s)
		return;
	if (w->lc_stream != PL_NONE) {
		const pl__cell *c = v->cells + v->s_cell_first[w->lc_stream];
		for (uint32_t i = 0; i < v->s_cell_count[w->lc_stream]; i++)
			w->lc_count[pl__cell_member(c, i)] = 0;
	}
	const pl__cell *c = v->cells + v->s_cell_first[s];
	for (uint32_t i = 0; i < v->s_cell_count[s]; i++)
		w->lc_count[pl__cell_member(c, i)] = pl__cell_leaders(c, i);
	w->lc_stream = s;
}

void pl__cell_add(pl_view *v, uint32_t s, uint32_t m, int delta)
{
	v->ls_stream = PL_NONE;
	if (v->lc_stream == s) {
		PL_ASSERT(delta > 0 || v->lc_count[m] > 0);
		v->lc_count[m] = delta > 0 ? v->lc_count[m] + 1 : v->lc_count[m] - 1;
	}
	cell_add(v->cells + v->s_cell_first[s], &v->s_cell_count[s], v->s_cell_first[s + 1] - v->s_cell_first[s], m,
		 delta);
}

void pl__cells_delta(pl_view *v, const pl_view *old, const uint32_t *ks, uint32_t n)
{
	/* Every leadership lost comes off before any is added, so no
	 * stream's live cells pass its room on the way. */
	for (int add = 0; add < 2; add++)
		for (uint32_t i = 0; i < n; i++) {
			uint32_t k = ks[i], s = v->snap.shards[k].stream;
			uint32_t was = pl__leader(pl__st(old, k)), is = pl__leader(pl__st(v, k));
			uint32_t m = add ? is : was;
			if (s == PL_NONE || was == is || m == PL_NONE)
				continue;
			uint32_t *count = &v->s_cell_count[s], first = v->s_cell_first[s];
			cell_add(v->cells + first, count, v->s_cell_first[s + 1] - first, m, add ? 1 : -1);
		}
}

uint32_t pl__cell_sum_elig(const pl_view *v, uint32_t s)
{
	pl_view *w = (pl_view *)(uintptr_t)v; /* the memo is the view's own memory, as rcache()'s */
	if (w->ls_stream == s)
		return w->ls_sum;
	const pl__cell *c = v->cells + v->s_cell_first[s];
	uint32_t sum = 0;
	for (uint32_t i = 0; i < v->s_cell_count[s]; i++)
		if (pl__eligible(v, pl__cell_member(c, i)))
			sum += pl__cell_leaders(c, i);
	w->ls_stream = s;
	w->ls_sum = sum;
	return sum;
}

/* Count stream s's replicas per member into the view's one-stream cache,
 * from its shards' states: O(the stream's replicas, and the last one's). */
static void rcache_fill(pl_view *v, uint32_t s)
{
	for (uint32_t i = 0; i < v->rc_n; i++)
		v->rc_count[v->rc_list[i]] = 0;
	uint32_t n = 0, *count = v->rc_count, *list = v->rc_list;
	for (uint32_t j = v->s_first[s]; j < v->s_first[s + 1]; j++) {
		uint32_t rep[PL_MAX_REPLICAS], nr = pl__reps(pl__st(v, v->by_stream[j]), rep);
		for (uint32_t r = 0; r < nr; r++) {
			uint32_t m = rep[r];
			if (count[m]++ == 0)
				list[n++] = m;
		}
	}
	v->rc_n = n; /* rcache() records the stream */
}

/* The cache is the view's own memory, not an answer: filling it from a
 * const view changes nothing a caller reads (a view is used by one thread
 * at a time). */
static pl_view *rcache(const pl_view *v, uint32_t s)
{
	pl_view *w = (pl_view *)(uintptr_t)v;
	if (w->rc_stream == s)
		return w;
	if (w->rc_rows)
		w->rc_count = w->rc_mat + (size_t)s * w->nm; /* every member listed */
	else
		rcache_fill(w, s);
	w->rc_stream = s;
	return w;
}

uint32_t pl__rcell_find(const pl_view *v, uint32_t s, uint32_t m)
{
	return rcache(v, s)->rc_count[m];
}

uint32_t pl__rcell_members(const pl_view *v, uint32_t s, const uint32_t **members)
{
	const pl_view *w = rcache(v, s);
	*members = w->rc_list;
	return w->rc_n;
}

void pl__rcell_add(pl_view *v, uint32_t s, uint32_t m, int delta)
{
	if (v->rc_rows) {
		uint32_t *c = &v->rc_mat[(size_t)s * v->nm + m];
		PL_ASSERT(delta > 0 || *c > 0);
		*c = delta > 0 ? *c + 1 : *c - 1;
		return;
	}
	if (v->rc_stream != s)
		return; /* counted from the states when it is asked */
	uint32_t *c = &v->rc_count[m];
	if (delta > 0) {
		if (*c == 0) {
			/* Listed already when it held some before: a walk, only
			 * for a member gaining its first replica of the stream. */
			uint32_t i = 0;
			while (i < v->rc_n && v->rc_list[i] != m)
				i++;
			if (i == v->rc_n)
				v->rc_list[v->rc_n++] = m;
		}
		(*c)++;
		return;
	}
	PL_ASSERT(*c > 0);
	(*c)--;
}

void pl__bounds(const pl_view *v, uint32_t count, uint32_t m, uint32_t *floor, uint32_t *ceil)
{
	if (!pl__eligible(v, m) || v->weight_elig == 0) {
		*floor = *ceil = 0;
		return;
	}
	uint64_t num = (uint64_t)count * v->m_weight[m];
	*floor = (uint32_t)(num / v->weight_elig);
	*ceil = (uint32_t)((num + v->weight_elig - 1) / v->weight_elig);
}

uint32_t pl__owner(const pl_view *v, uint32_t k)
{
	uint32_t o = pl__ov(pl__st(v, k));
	if (o != PL_NONE && pl__eligible(v, o))
		return o;
	return v->k_home[k];
}

uint32_t pl__lag_holder(const pl_view *v, uint32_t k)
{
	const pl__shard_state *st = pl__st(v, k);
	uint32_t o = pl__ov(st);
	if (o != PL_NONE && st->ov_origin == PL_ORIGIN_LAG && pl__eligible(v, o) && o != v->k_home[k])
		return o;
	return PL_NONE;
}

void pl__view_homes(pl_view *v)
{
	if (v->homes_ready)
		return;
	for (uint32_t k = 0; k < v->nk; k++)
		v->k_home[k] = pl__view_top1(v, v->k_hash[k]);
	pl__view_owned(v);
}

void pl__view_owned(pl_view *v)
{
	for (uint32_t i = 0; i < v->nm; i++)
		v->m_owned[i] = v->m_lagged[i] = 0;
	if (v->n_overrides == 0) {
		/* Every owner is the ring home: the states need not be read. */
		for (uint32_t k = 0; k < v->nk; k++)
			if (v->k_home[k] != PL_NONE)
				v->m_owned[v->k_home[k]]++;
		v->homes_ready = 1;
		return;
	}
	for (uint32_t k = 0; k < v->nk; k++) {
		uint32_t o = pl__owner(v, k), l = pl__lag_holder(v, k);
		if (o != PL_NONE)
			v->m_owned[o]++;
		if (l != PL_NONE)
			v->m_lagged[l]++;
	}
	v->homes_ready = 1;
}

/* The leadership of shard k passes from `from` (its leader before the
 * action, PL_NONE for none) to `to`, a replica by now (every action that
 * moves a leadership names one). */
static void set_leader(pl_view *v, uint32_t k, uint32_t from, uint32_t to)
{
	pl__shard_state *st = pl__st(v, k);
	uint32_t s = v->snap.shards[k].stream;
	if (from != PL_NONE) {
		v->m_leaders[from]--;
		if (s != PL_NONE)
			pl__cell_add(v, s, from, -1);
	}
	pl__set_lead(st, to);
	v->m_leaders[to]++;
	if (s != PL_NONE)
		pl__cell_add(v, s, to, +1);
}

/* Shard k's replica moves from `from` to `to` (either may be PL_NONE: a
 * replica added or dropped): the totals and the stream's replica cells. */
static void replica_moved(pl_view *v, uint32_t k, uint32_t from, uint32_t to)
{
	uint32_t s = v->snap.shards[k].stream;
	uint64_t b = pl__size0(v, k);
	if (from != PL_NONE)
		v->m_bytes[from] -= b;
	if (to != PL_NONE)
		v->m_bytes[to] += b;
	if (from != PL_NONE) {
		v->m_replicas[from]--;
		if (s != PL_NONE)
			pl__rcell_add(v, s, from, -1);
	}
	if (to != PL_NONE) {
		v->m_replicas[to]++;
		if (s != PL_NONE)
			pl__rcell_add(v, s, to, +1);
	}
}

static void set_moving(pl_view *v, pl__shard_state *st)
{
	if (!st->moving) {
		st->moving = 1;
		v->n_moving++;
	}
}

/* Is the action consistent with the view? */
static int check_action(const pl_view *v, const pl_action *a)
{
	if (a->shard >= v->nk)
		return PL_E_ACTION;
	const pl__shard_state *st = pl__st(v, a->shard);
	int to_ok = a->to < v->nm, from_ok = a->from < v->nm;
	if (st->ep == PL__EP_MAX && a->kind != PL_ACTION_SET_OVERRIDE && a->kind != PL_ACTION_DROP_OVERRIDE)
		return PL_E_ACTION; /* the epoch's advance since the build is kept in 24 bits */
	switch (a->kind) {
	case PL_ACTION_SET_LEADER:
		return to_ok && pl__rep_index(st, a->to) >= 0 && a->from == pl__leader(st) && a->to != pl__leader(st)
			       ? 0 : PL_E_ACTION;
	case PL_ACTION_MOVE_LEADER:
		return to_ok && from_ok && a->from == pl__leader(st) && a->to != a->from ? 0 : PL_E_ACTION;
	case PL_ACTION_ADD_REPLICA:
		if (!to_ok || pl__rep_index(st, a->to) >= 0 || st->nrep >= PL_MAX_REPLICAS)
			return PL_E_ACTION;
		return st->nrep < v->room ? 0 : PL_E_REPLICA_ROOM; /* the state has no slot for it */
	case PL_ACTION_MOVE_REPLICA:
		return to_ok && from_ok && pl__rep_index(st, a->from) >= 0 && pl__rep_index(st, a->to) < 0
			       ? 0 : PL_E_ACTION;
	case PL_ACTION_SET_OVERRIDE:
		return to_ok && a->origin <= PL_ORIGIN_COUNT ? 0 : PL_E_ACTION;
	case PL_ACTION_DROP_OVERRIDE:
		return pl__ov(st) != PL_NONE && (a->from == PL_NONE || a->from == pl__ov(st))
			       ? 0 : PL_E_ACTION;
	default:
		return PL_E_ACTION;
	}
}

int pl__view_apply(pl_view *v, const pl_action *a)
{
	int rc = check_action(v, a);
	if (rc)
		return rc;
	uint32_t k = a->shard;
	pl__shard_state *st = pl__st(v, k);
	uint32_t owner_before = v->homes_ready ? pl__owner(v, k) : PL_NONE;
	uint32_t lag_before = v->homes_ready ? pl__lag_holder(v, k) : PL_NONE;
	switch (a->kind) {
	case PL_ACTION_SET_LEADER:
		set_leader(v, k, a->from, a->to); /* from is the leader: checked */
		break;
	case PL_ACTION_MOVE_LEADER: {
		if (pl__rep_index(st, a->to) < 0) {
			/* The destination held no copy: it takes the leader's. */
			int j = pl__rep_index(st, a->from);
			PL_ASSERT(j >= 0); /* a leader is always among the replicas */
			pl__set_rep(st, (uint32_t)j, a->to);
			replica_moved(v, k, a->from, a->to);
		}
		set_leader(v, k, a->from, a->to); /* from is the leader: checked */
		set_moving(v, st);
		break;
	}
	case PL_ACTION_ADD_REPLICA:
		pl__set_rep(st, st->nrep, a->to);
		st->nrep++;
		replica_moved(v, k, PL_NONE, a->to);
		set_moving(v, st);
		break;
	case PL_ACTION_MOVE_REPLICA: {
		int j = pl__rep_index(st, a->from), led = pl__leader(st) == a->from;
		pl__set_rep(st, (uint32_t)j, a->to); /* the leader's place, when it led: it leads */
		replica_moved(v, k, a->from, a->to);
		if (led)
			set_leader(v, k, a->from, a->to);
		set_moving(v, st);
		break;
	}
	case PL_ACTION_SET_OVERRIDE:
		if (pl__ov(st) == PL_NONE)
			v->n_overrides++;
		else
			v->n_lag -= st->ov_origin == PL_ORIGIN_LAG;
		v->n_lag += a->origin == PL_ORIGIN_LAG;
		pl__set_ov(st, a->to);
		st->ov_origin = (uint8_t)a->origin;
		pl__set_since(st, a->at);
		break;
	case PL_ACTION_DROP_OVERRIDE:
		v->n_lag -= st->ov_origin == PL_ORIGIN_LAG;
		pl__set_ov(st, PL_NONE);
		st->ov_origin = 0;
		pl__set_since(st, 0);
		v->n_overrides--;
		break;
	} /* check_action() refused every other kind */
	if (a->kind != PL_ACTION_SET_OVERRIDE && a->kind != PL_ACTION_DROP_OVERRIDE) {
		st->ep++; /* a shard-map op: its commit advances the epoch */
		v->moved = 1;
		v->k_changed[k >> 6] |= UINT64_C(1) << (k & 63);
	}
	st->touched = 1;
	if (a->kind == PL_ACTION_MOVE_LEADER || a->kind == PL_ACTION_MOVE_REPLICA) {
		/* A replica move took the leadership when `to` (new) leads. */
		uint64_t bits = PL__MOVED | (a->kind == PL_ACTION_MOVE_LEADER || pl__leader(st) == a->to ? PL__MOVED_LEADER : 0);
		v->k_moved[k >> 5] |= bits << (2 * (k & 31));
	}
	if (v->homes_ready) {
		uint32_t owner_after = pl__owner(v, k);
		uint32_t lag_after = pl__lag_holder(v, k);
		if (owner_before != owner_after) {
			if (owner_before != PL_NONE)
				v->m_owned[owner_before]--;
			if (owner_after != PL_NONE)
				v->m_owned[owner_after]++;
		}
		if (lag_before != lag_after) {
			if (lag_before != PL_NONE)
				v->m_lagged[lag_before]--;
			if (lag_after != PL_NONE)
				v->m_lagged[lag_after]++;
		}
	}
	return 0;
}

int pl_view_apply(pl_view *v, const pl_action *a)
{
	if (!pl__view_ok(v) || a == NULL)
		return PL_E_INVAL;
	if (pl__overlaps_view(v, a, sizeof *a))
		return PL_E_OVERLAP;
	return pl__view_apply(v, a);
}

int pl_view_settle(pl_view *v)
{
	if (!pl__view_ok(v))
		return PL_E_INVAL;
	int n = 0;
	for (uint32_t k = 0; k < v->nk; k++) {
		n += pl__st(v, k)->moving;
		pl__st(v, k)->moving = 0;
		pl__st(v, k)->touched = 0;
	}
	v->n_moving = 0;
	/* The next tick knows no earlier move, as a fresh view would not. */
	memset(v->k_moved, 0, PL__MOVED_WORDS(v->nk) * sizeof *v->k_moved);
	return n;
}

void pl__view_count_bytes(pl_view *v)
{
	memset(v->m_bytes, 0, (size_t)v->nm * sizeof *v->m_bytes);
	v->sized = v->snap.shard_bytes != NULL;
	if (!v->sized)
		return;
	for (uint32_t k = 0; k < v->nk; k++) {
		uint64_t b = pl__size0(v, k);
		if (b == 0)
			continue;
		const pl__shard_state *st = pl__st(v, k);
		for (uint32_t j = 0; j < st->nrep; j++)
			v->m_bytes[pl__rep(st, j)] += b;
	}
}
