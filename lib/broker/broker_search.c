/*
 * broker_search.c - what the leader passes (broker_balance.c) and the
 * replica passes (broker_replica.c) share beyond the scope itself: the
 * destination list a search starts from, the sources in rank order, the
 * ladder of fallbacks a search climbs when its first moves are blocked, and
 * the drivers that run a scope's moves until it wants none, streams first
 * and then the totals. The passes differ only in what they count (leaders or
 * replicas), which shards and moves they offer (their search functions) and
 * the order they take the streams in.
 *
 * Why it ends. A driver makes a scope's moves one at a time while the scope
 * wants one and the budget lasts; each move lowers the scope's potential (or
 * is a relay's first hop, followed by one that does: see placement/broker.h),
 * and every other outcome (full, waiting, blocked, settled) ends the scope.
 * The ladder tries each fallback once. Every walk here is over the eligible
 * members, bounded.
 */
#include "broker/broker_int.h"

void pl__bk_dlist_fill(const pl__bk *b, const pl__scope *sc, pl__dlist *l, uint32_t max, uint32_t per_zone,
		       pl__seen *w)
{
	l->n = 0;
	l->max = max;
	l->per_zone = per_zone;
	pl__bk_dests(b, sc, l, w);
}

uint32_t pl__bk_source_next(const pl_view *v, const pl__scope *sc, pl__srcs *it, uint32_t t, uint32_t *key)
{
	uint32_t seen;
	if (t == 0 || (t >= it->n && !it->all)) {
		it->n = pl__bk_sources(v, sc, t == 0 ? 2 : PL_BROKER_SEARCH, it->m, it->key, &seen);
		it->all = seen == it->n;
	}
	if (t >= it->n)
		return PL_NONE;
	*key = it->key[t];
	return it->m[t];
}

static int ends(int rc)
{
	return rc == PL__BK_MOVED || rc == PL__BK_FULL || rc == PL__BK_WAIT;
}

int pl__bk_search_all(pl__bk *b, const pl__scope *sc, pl__bk_search_fn search, int even, pl__bk_search_fn relay)
{
	int rc = search(b, sc);
	if (!PL__BK_BLOCKED(rc) && rc != PL__BK_SETTLED)
		return rc;
	pl__scope w = *sc;
	for (int level = 1; level <= (even ? 3 : 2); level++) {
		if (level == 1 ? !(sc->over && sc->under) : level == 2 ? !sc->over : 0)
			continue;
		w.level = level;
		int again = search(b, &w);
		if (ends(again))
			return again;
	}
	if (relay) {
		int again = relay(b, sc);
		if (again != PL__BK_SETTLED)
			return again;
	}
	return rc;
}

int pl__bk_drive(pl__bk *b, uint32_t s, pl__bk_fill_fn fill, pl__bk_search_fn move, int *held)
{
	pl__scope sc;
	for (;;) {
		fill(b, s, &sc);
		if (!sc.over && !sc.under)
			return 0;
		if (b->budget == 0) {
			pl__bk_wait_limit(b, PL_NONE);
			return 1;
		}
		int rc = move(b, &sc);
		if (rc == PL__BK_MOVED) {
			*held = 1;
			continue;
		}
		if (rc == PL__BK_FULL)
			return 1;
		if (rc == PL__BK_WAIT)
			*held = 1;
		else if (PL__BK_BLOCKED(rc))
			pl__bk_block(b, rc, s);
		else if (rc == PL__BK_SETTLED && (!sc.rep || pl__bk_rscope_movable(b, &sc)))
			pl__bk_block(b, PL__BK_BLOCK_BOUNDS, s); /* a rule binds, not the holdings alone */
		return 0;
	}
}

int pl__bk_drive_cluster(pl__bk *b, int held, pl__bk_fill_fn fill, pl__bk_search_fn move)
{
	if (held) {
		/* The cluster scope waits until the streams' moves have settled. */
		pl__scope sc;
		fill(b, PL_NONE, &sc);
		if (sc.over || sc.under)
			b->want_flight = 1;
		return 1;
	}
	int moved = 0;
	return pl__bk_drive(b, PL_NONE, fill, move, &moved) || moved;
}
