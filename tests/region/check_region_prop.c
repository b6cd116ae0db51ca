/*
 * check_region_prop.c - the region policy's properties on random clusters
 * of four families (mixed flags and failures; regions on pairs of members,
 * RF 2; a cluster that members join; primaries piled on a few members) with
 * joins, leaves and returns: repeated calls stop within the stated bound,
 * every emitted action keeps the rules (no region lowered below
 * min(RF, live)), step 3's rule holds after every call and before every
 * hand-off that evens primaries out, no region's primary goes back to the
 * member it was handed from, and a quiet cluster has no chain of hand-offs
 * left that would lower the sum of squared primaries: its primaries are
 * within one of each other wherever a flow over the peer sets says they
 * can be; and shuffled input gives the same actions and stalls.
 * PL_REGION_STATS=1 prints, by family, how many quiet layouts were checked
 * and how many ended within one (and could).
 */
#include "region_util.h"

/* ---- properties on random clusters ----------------------------------------------------------- */

enum { FAM_MIXED, FAM_PAIRS, FAM_JOINS, FAM_SKEWED, FAMS };
static const char *const fam_name[FAMS] = {"mixed", "pairs", "joins", "skewed"};

typedef struct world {
	tl *t;
	pl_region_config cfg;
	uint64_t clock;
	uint32_t family;
} world;

static void random_member(world *w, uint64_t *rng, uint32_t zones)
{
	tl *t = w->t;
	uint32_t m = ru_member(t, tl_str(t, "m%03u", t->nm), zones ? tl_str(t, "z%u", tl_below(rng, zones)) : NULL,
			       w->clock);
	w->clock += tl_below(rng, 3); /* sometimes equal: ties go to the smaller id */
	pl_member *p = &t->m[m];
	p->map_version = tl_below(rng, 5) ? 3 : tl_below(rng, 3);
	p->load = tl_below(rng, 1000);
	uint32_t f = tl_below(rng, 100);
	if (f < 6)
		p->flags |= PL_MEMBER_DRAINING;
	else if (f < 10)
		p->flags |= PL_MEMBER_LAGGING;
	if (tl_below(rng, 5) == 0)
		p->flags |= PL_MEMBER_UNMEASURED;
	if (tl_below(rng, 10) == 0)
		p->max_shards = 3 + tl_below(rng, 20);
	p->weight = 1 + tl_below(rng, 3);
}

static world random_world(uint64_t *rng)
{
	world w;
	memset(&w, 0, sizeof w);
	w.t = tl_new();
	w.clock = 1;
	uint32_t nm = 1 + tl_below(rng, 16), zones = tl_below(rng, 5);
	for (uint32_t i = 0; i < nm; i++)
		random_member(&w, rng, zones);
	for (uint32_t i = 0; i < nm; i++)
		if (tl_below(rng, 10) == 0)
			w.t->m[i].flags |= PL_MEMBER_DOWN;
	w.t->m[tl_below(rng, nm)].flags = 0; /* someone eligible */
	uint32_t nk = 1 + tl_below(rng, 48);
	w.cfg = ru_cfg(1 + tl_below(rng, 5));
	for (uint32_t i = 0; i < nk; i++) {
		uint32_t k = ru_region(w.t, tl_str(w.t, "k%03u", i), PL_NONE, 0);
		pl_shard *s = &w.t->k[k];
		s->epoch = tl_below(rng, 4);
		uint32_t f = tl_below(rng, 100);
		s->flags = f < 4 ? PL_SHARD_NOT_IDEMPOTENT : f < 8 ? PL_SHARD_TRANSFER_DEBT : 0;
		uint32_t want = tl_below(rng, w.cfg.replication_factor + 2);
		if (want > nm)
			want = nm;
		tl_add_replicas(w.t, k, want, rng);
		if (s->replica_count && tl_below(rng, 6))
			s->leader = s->replicas[tl_below(rng, s->replica_count)];
	}
	w.cfg.max_actions = tl_below(rng, 3) ? 1 + tl_below(rng, 6) : RU_MAX_ACTIONS;
	w.cfg.add_peer_proposals = tl_below(rng, 8) != 0;
	w.cfg.load_balance = tl_below(rng, 3) == 0;
	w.cfg.load_threshold = 1 + tl_below(rng, 99);
	return w;
}

/* A healthy member, joined after every other. */
static uint32_t healthy_member(world *w, uint64_t *rng, uint32_t zones)
{
	tl *t = w->t;
	uint32_t m = ru_member(t, tl_str(t, "m%03u", t->nm), zones ? tl_str(t, "z%u", tl_below(rng, zones)) : NULL,
			       w->clock);
	w->clock += 1 + tl_below(rng, 2);
	return m;
}

/* Regions on pairs of members, RF 2, either of the two the primary: the
 * shape whose primaries the newest-peer rule alone leaves uneven. */
static world pairs_world(uint64_t *rng)
{
	world w;
	memset(&w, 0, sizeof w);
	w.t = tl_new();
	w.clock = 1;
	w.family = FAM_PAIRS;
	uint32_t nm = 3 + tl_below(rng, 6), nk = 4 + tl_below(rng, 28);
	for (uint32_t i = 0; i < nm; i++)
		healthy_member(&w, rng, 0);
	for (uint32_t i = 0; i < nk; i++) {
		uint32_t a = tl_below(rng, nm), b = (a + 1 + tl_below(rng, nm - 1)) % nm;
		ru_region(w.t, tl_str(w.t, "k%03u", i), tl_below(rng, 2) ? a : b, 2, a, b);
	}
	w.cfg = ru_cfg(2);
	return w;
}

/* A healthy cluster (zones or not) that members join one at a time. */
static world joins_world(uint64_t *rng)
{
	world w;
	memset(&w, 0, sizeof w);
	w.t = tl_new();
	w.clock = 1;
	w.family = FAM_JOINS;
	uint32_t nm = 1 + tl_below(rng, 4), zones = tl_below(rng, 4), nk = 4 + tl_below(rng, 40);
	for (uint32_t i = 0; i < nm; i++)
		healthy_member(&w, rng, zones);
	w.cfg = ru_cfg(1 + tl_below(rng, 3));
	uint32_t rf = w.cfg.replication_factor < nm ? w.cfg.replication_factor : nm;
	for (uint32_t i = 0; i < nk; i++) {
		uint32_t k = ru_region(w.t, tl_str(w.t, "k%03u", i), PL_NONE, 0);
		tl_add_replicas(w.t, k, rf, rng);
		w.t->k[k].leader = w.t->k[k].replicas[tl_below(rng, rf)];
	}
	w.cfg.max_actions = 16;
	return w;
}

/* Primaries piled on the first members, some members draining or lagging,
 * zones, RF 2 or 3. */
static world skewed_world(uint64_t *rng)
{
	world w;
	memset(&w, 0, sizeof w);
	w.t = tl_new();
	w.clock = 1;
	w.family = FAM_SKEWED;
	uint32_t nm = 3 + tl_below(rng, 8), zones = tl_below(rng, 3), nk = 8 + tl_below(rng, 40);
	for (uint32_t i = 0; i < nm; i++) {
		uint32_t m = healthy_member(&w, rng, zones), f = tl_below(rng, 100);
		w.t->m[m].flags = f < 8 ? PL_MEMBER_DRAINING : f < 16 ? PL_MEMBER_LAGGING : 0;
	}
	w.t->m[0].flags = 0;
	w.cfg = ru_cfg(2 + tl_below(rng, 2));
	uint32_t rf = w.cfg.replication_factor < nm ? w.cfg.replication_factor : nm;
	for (uint32_t i = 0; i < nk; i++) {
		uint32_t k = ru_region(w.t, tl_str(w.t, "k%03u", i), PL_NONE, 0);
		pl_shard *sh = &w.t->k[k];
		if (tl_below(rng, 10) < 7) { /* a region of the first two members */
			sh->replicas[0] = tl_below(rng, 2);
			sh->replica_count = 1;
		}
		tl_add_replicas(w.t, k, rf, rng);
		sh->leader = sh->replicas[0];
	}
	return w;
}

static world family_world(uint32_t family, uint64_t *rng)
{
	switch (family) {
	case FAM_PAIRS:
		return pairs_world(rng);
	case FAM_JOINS:
		return joins_world(rng);
	case FAM_SKEWED:
		return skewed_world(rng);
	default:
		return random_world(rng);
	}
}

/* A join, a leave or a return (the joins family: a join); then the next
 * snapshot. */
static void change_membership(world *w, uint64_t *rng)
{
	tl *t = w->t;
	ru_adopt(t); /* carry the state before the members change */
	uint32_t what = w->family == FAM_JOINS ? 0 : tl_below(rng, 3), nm = t->nm;
	if (w->family == FAM_JOINS || w->family == FAM_PAIRS) {
		if (what == 0 || nm < 2)
			healthy_member(w, rng, 0);
		else if (what == 1)
			t->m[tl_below(rng, nm)].flags |= PL_MEMBER_DOWN;
		else
			t->m[tl_below(rng, nm)].flags &= ~(uint32_t)PL_MEMBER_DOWN;
		uint32_t elig = 0;
		for (uint32_t i = 0; i < t->nm; i++)
			elig += !(t->m[i].flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING));
		if (elig == 0)
			t->m[0].flags = 0;
		tl_view(t, 0);
		return;
	}
	if (what == 0 || nm < 2) {
		random_member(w, rng, 4);
		t->m[t->nm - 1].flags &= ~(uint32_t)PL_MEMBER_DOWN;
	} else if (what == 1) {
		uint32_t m = tl_below(rng, nm);
		t->m[m].flags |= PL_MEMBER_DOWN;
		uint32_t elig = 0;
		for (uint32_t i = 0; i < nm; i++)
			elig += !(t->m[i].flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING));
		if (elig == 0)
			t->m[m].flags &= ~(uint32_t)PL_MEMBER_DOWN;
	} else {
		t->m[tl_below(rng, nm)].flags &= ~(uint32_t)PL_MEMBER_DOWN;
	}
	tl_view(t, 0);
}

/* Every rule an emitted action keeps, checked against a replay of the
 * actions on an independent copy of the regions (`s`, updated here). */
static void check_action(const tl *t, const pl_region_config *cfg, pl_shard_state *s, uint8_t *acted,
			 uint8_t *had_rf, const pl_action *a, uint64_t seed)
{
	uint32_t k = a->shard, n = ru_n_live(t);
	uint32_t R = cfg->replication_factor < n ? cfg->replication_factor : n;
	pl_shard_state *x = &s[k];
	ck_assert_msg(!(t->k[k].flags & (PL_SHARD_NOT_IDEMPOTENT | PL_SHARD_TRANSFER_DEBT)),
		      "seed %llu: action on a region that is never placed", (unsigned long long)seed);
	ck_assert_msg(!acted[k], "seed %llu: two actions on region %u in one call", (unsigned long long)seed, k);
	acted[k] = 1;
	uint32_t copies = a->kind == PL_ACTION_ADD_REPLICA || a->kind == PL_ACTION_MOVE_REPLICA;
	ck_assert_msg(a->flags == (copies ? PL_ACTION_STAGE_FIRST : 0u), "seed %llu: stage-first flag wrong",
		      (unsigned long long)seed);
	ck_assert_msg(a->to < t->nm && ru_may_receive(t, a->to, k),
		      "seed %llu: destination %u may not receive region %u (unavailable or not ready)",
		      (unsigned long long)seed, a->to, k);
	uint32_t zones_before = ru_zones(t, x);
	switch (a->kind) {
	case PL_ACTION_ADD_REPLICA:
		ck_assert_msg(!ru_has_peer(x, a->to) && ru_live_peers(t, x) < R &&
				      (x->replica_count == 0 || ru_live_peers(t, x) > 0) && cfg->add_peer_proposals,
			      "seed %llu: bad add", (unsigned long long)seed);
		x->replicas[x->replica_count++] = a->to;
		break;
	case PL_ACTION_MOVE_REPLICA:
		ck_assert_msg(ru_has_peer(x, a->from) && ru_live(t, a->from) && !ru_has_peer(x, a->to),
			      "seed %llu: bad move", (unsigned long long)seed);
		for (uint32_t j = 0; j < x->replica_count; j++)
			if (x->replicas[j] == a->from)
				x->replicas[j] = a->to;
		if (x->leader == a->from)
			x->leader = a->to;
		ck_assert_msg(ru_zones(t, x) >= zones_before, "seed %llu: a move lost a zone", (unsigned long long)seed);
		break;
	case PL_ACTION_MOVE_LEADER:
		ck_assert_msg(a->from == x->leader && ru_has_peer(x, a->to), "seed %llu: bad leader move",
			      (unsigned long long)seed);
		if (a->reason == PL_REASON_LOAD)
			ck_assert_msg(!(t->m[a->to].flags & PL_MEMBER_UNMEASURED) && a->to_count + 2 <= a->from_count,
				      "seed %llu: bad load move", (unsigned long long)seed);
		else if (a->reason == PL_REASON_PRIMARY_SKEW)
			/* a hop of a chain from a member leading `ceiling` to one
			 * leading `floor`: never onto a member leading as many */
			ck_assert_msg(a->total >= 1 && a->floor + 2 <= a->ceiling && a->to_count < a->from_count &&
					      (a->total > 1 || a->to_count + 2 <= a->from_count),
				      "seed %llu: bad hand-off", (unsigned long long)seed);
		else
			ck_assert_msg(a->reason == PL_REASON_NEWEST_PEER && a->to_count < a->from_count,
				      "seed %llu: bad newest-peer move", (unsigned long long)seed);
		x->leader = a->to;
		break;
	case PL_ACTION_SET_LEADER:
		ck_assert_msg((x->leader == PL_NONE || !ru_live(t, x->leader)) && ru_has_peer(x, a->to),
			      "seed %llu: bad claim", (unsigned long long)seed);
		x->leader = a->to;
		break;
	default:
		ck_abort_msg("seed %llu: unexpected kind %u", (unsigned long long)seed, a->kind);
	}
	/* Once a region has min(RF, live) live peers, no action takes it below. */
	uint32_t lp = ru_live_peers(t, x);
	if (had_rf[k])
		ck_assert_msg(lp >= R, "seed %llu: region %u fell to %u live peers, below %u", (unsigned long long)seed,
			      k, lp, R);
	had_rf[k] |= lp >= R;
}

/* Same set of peers, same leader. */
static void expect_same_state(const pl_shard_state *a, const pl_shard_state *b, uint64_t seed, uint32_t k)
{
	ck_assert_msg(a->leader == b->leader && a->replica_count == b->replica_count,
		      "seed %llu: region %u differs from the replay", (unsigned long long)seed, k);
	for (uint32_t j = 0; j < a->replica_count; j++)
		ck_assert_msg(ru_has_peer(b, a->replicas[j]), "seed %llu: region %u peers differ", (unsigned long long)seed,
			      k);
}

static int id_less(const pl_bytes *a, const pl_bytes *b)
{
	size_t n = a->len < b->len ? (size_t)a->len : (size_t)b->len;
	int c = memcmp(a->ptr, b->ptr, n);
	return c != 0 ? c < 0 : a->len < b->len;
}

/* After a call that was not capped, step 3's rule holds for no idle,
 * placeable region with a live primary: its newest ready peer that may
 * receive leads no fewer primaries than the primary's member. */
static void expect_no_newest_move(const tl *t, const pl_view *v, const uint8_t *acted, uint64_t seed)
{
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state s = ru_state(v, k);
		if (acted[k] || s.moving || (t->k[k].flags & (PL_SHARD_NOT_IDEMPOTENT | PL_SHARD_TRANSFER_DEBT)) ||
		    s.leader == PL_NONE || !ru_live(t, s.leader))
			continue;
		uint32_t n = PL_NONE;
		for (uint32_t j = 0; j < s.replica_count; j++) {
			uint32_t x = s.replicas[j];
			if (!ru_may_receive(t, x, k))
				continue;
			if (n == PL_NONE || t->m[x].joined_at > t->m[n].joined_at ||
			    (t->m[x].joined_at == t->m[n].joined_at && id_less(&t->m[x].id, &t->m[n].id)))
				n = x;
		}
		ck_assert_msg(n == PL_NONE || n == s.leader || ru_prims(v, n) >= ru_prims(v, s.leader),
			      "seed %llu: region %u still wants its primary on its newest peer", (unsigned long long)seed, k);
	}
}

/* ---- primaries even: an independent search and a flow ------------------------------------- */

/* May a hand-off move region k's primary (placeable, not acted on in this
 * call, its primary live)? s: the regions as replayed. */
static int movable(const tl *t, const pl_shard_state *s, const uint8_t *acted, uint32_t k)
{
	return !(t->k[k].flags & (PL_SHARD_NOT_IDEMPOTENT | PL_SHARD_TRANSFER_DEBT)) && !(acted && acted[k]) &&
	       !s[k].moving && s[k].leader != PL_NONE && ru_live(t, s[k].leader);
}

/* Primaries each member leads in s. */
static void count_prims(const tl *t, const pl_shard_state *s, uint32_t *L)
{
	memset(L, 0, (size_t)t->nm * sizeof *L);
	for (uint32_t k = 0; k < t->nk; k++)
		if (s[k].leader != PL_NONE)
			L[s[k].leader]++;
}

/* The shortest chain of at most `most` hand-offs (a movable region's
 * primary to a peer that may receive it, again and again) from a live
 * member to one leading two or more fewer: its length, 0 when there is
 * none. Breadth first from every live member, over any counts in between:
 * it does not share the library's levels. */
static uint32_t shortest_chain(const tl *t, const pl_shard_state *s, const uint8_t *acted, uint32_t most,
			       uint32_t *from, uint32_t *to)
{
	uint32_t nm = t->nm, best = 0;
	uint32_t *L = malloc((size_t)nm * sizeof *L), *dist = malloc((size_t)nm * sizeof *dist);
	uint32_t *queue = malloc((size_t)nm * sizeof *queue);
	ck_assert(L && dist && queue);
	count_prims(t, s, L);
	for (uint32_t src = 0; src < nm; src++) {
		if (!ru_live(t, src))
			continue;
		for (uint32_t m = 0; m < nm; m++)
			dist[m] = UINT32_MAX;
		uint32_t head = 0, tail = 0;
		dist[src] = 0;
		queue[tail++] = src;
		while (head < tail) {
			uint32_t u = queue[head++];
			if (dist[u] >= most)
				continue;
			for (uint32_t k = 0; k < t->nk; k++) {
				if (s[k].leader != u || !movable(t, s, acted, k))
					continue;
				for (uint32_t j = 0; j < s[k].replica_count; j++) {
					uint32_t w = s[k].replicas[j];
					if (w == u || dist[w] != UINT32_MAX || !ru_may_receive(t, w, k))
						continue;
					dist[w] = dist[u] + 1;
					queue[tail++] = w;
					if (L[w] + 2 <= L[src] && (best == 0 || dist[w] < best)) {
						best = dist[w];
						*from = src;
						*to = w;
					}
				}
			}
		}
	}
	free(L);
	free(dist);
	free(queue);
	return best;
}

/* Edmonds-Karp on a capacity matrix of n nodes: the flow from a to b. */
static int max_flow(int *cap, int n, int a, int b)
{
	int flow = 0, *prev = malloc((size_t)n * sizeof *prev), *queue = malloc((size_t)n * sizeof *queue);
	ck_assert(prev && queue);
	for (;;) {
		for (int i = 0; i < n; i++)
			prev[i] = -1;
		int head = 0, tail = 0;
		prev[a] = a;
		queue[tail++] = a;
		while (head < tail && prev[b] < 0) {
			int u = queue[head++];
			for (int x = 0; x < n; x++)
				if (prev[x] < 0 && cap[u * n + x] > 0) {
					prev[x] = u;
					queue[tail++] = x;
				}
		}
		if (prev[b] < 0)
			break;
		int push = INT32_MAX;
		for (int x = b; x != a; x = prev[x])
			push = cap[prev[x] * n + x] < push ? cap[prev[x] * n + x] : push;
		for (int x = b; x != a; x = prev[x]) {
			cap[prev[x] * n + x] -= push;
			cap[x * n + prev[x]] += push;
		}
		flow += push;
	}
	free(prev);
	free(queue);
	return flow;
}

/* Could every live member lead q or q + 1 primaries (q: the primaries on
 * live members over the live members, rounded down), each movable region's
 * primary kept or handed to a peer that may receive it and every other
 * region's where it is? A feasible flow with lower bounds: source -> region
 * (exactly 1) -> member -> sink (between q and q + 1 less its fixed ones). */
static int within_one_possible(const tl *t, const pl_shard_state *s)
{
	uint32_t nm = t->nm, nk = t->nk, live = 0, total = 0;
	uint32_t *fixed = calloc(nm, sizeof *fixed);
	ck_assert_ptr_nonnull(fixed);
	for (uint32_t m = 0; m < nm; m++)
		live += ru_live(t, m);
	for (uint32_t k = 0; k < nk; k++) {
		if (s[k].leader == PL_NONE || !ru_live(t, s[k].leader))
			continue;
		total++;
		if (!movable(t, s, NULL, k))
			fixed[s[k].leader]++;
	}
	uint32_t q = live ? total / live : 0, hi = q + (live && total % live ? 1 : 0);
	int ok = 1;
	for (uint32_t m = 0; m < nm; m++)
		ok &= !ru_live(t, m) || fixed[m] <= hi;
	/* nodes: 0 source, 1 sink, 2 and 3 the lower bounds' source and sink,
	 * then the regions, then the members */
	int n = 4 + (int)nk + (int)nm, need = 0;
	int *cap = calloc((size_t)n * (size_t)n, sizeof *cap), *ex = calloc((size_t)n, sizeof *ex);
	ck_assert(cap && ex);
	for (uint32_t k = 0; ok && k < nk; k++) {
		if (s[k].leader == PL_NONE || !ru_live(t, s[k].leader) || !movable(t, s, NULL, k))
			continue;
		int kn = 4 + (int)k;
		ex[kn] += 1; /* source -> region: exactly one */
		ex[0] -= 1;
		cap[kn * n + 4 + (int)nk + (int)s[k].leader] = 1;
		for (uint32_t j = 0; j < s[k].replica_count; j++)
			if (ru_may_receive(t, s[k].replicas[j], k))
				cap[kn * n + 4 + (int)nk + (int)s[k].replicas[j]] = 1;
	}
	for (uint32_t m = 0; ok && m < nm; m++) {
		if (!ru_live(t, m))
			continue;
		int mn = 4 + (int)nk + (int)m, lo = q > fixed[m] ? (int)(q - fixed[m]) : 0, up = (int)(hi - fixed[m]);
		cap[mn * n + 1] = up - lo;
		ex[1] += lo;
		ex[mn] -= lo;
	}
	cap[1 * n + 0] = INT32_MAX / 2; /* sink -> source */
	for (int x = 0; ok && x < n; x++) {
		if (ex[x] > 0) {
			cap[2 * n + x] = ex[x];
			need += ex[x];
		} else if (ex[x] < 0) {
			cap[x * n + 3] = -ex[x];
		}
	}
	if (ok)
		ok = max_flow(cap, n, 2, 3) == need;
	free(cap);
	free(ex);
	free(fixed);
	return ok;
}

/* Quiet layouts by family: checked, within one, could be within one; and
 * the primaries' hand-offs, and of those how many went back to the member
 * the region's primary last left (A -> B -> A: the newest-peer rule may
 * hand a joiner more than the even spread leaves it, and what it gives
 * back can only be what it took; claims, adds and idle moves change the
 * counts too). */
static uint32_t stat_layouts[FAMS], stat_even[FAMS], stat_can[FAMS], stat_handoffs[FAMS], stat_returns[FAMS];

/* The newest peer of region k in s that may receive it, or PL_NONE. */
static uint32_t newest_in(const tl *t, const pl_shard_state *s, uint32_t k)
{
	uint32_t n = PL_NONE;
	for (uint32_t j = 0; j < s[k].replica_count; j++) {
		uint32_t x = s[k].replicas[j];
		if (!ru_may_receive(t, x, k))
			continue;
		if (n == PL_NONE || t->m[x].joined_at > t->m[n].joined_at ||
		    (t->m[x].joined_at == t->m[n].joined_at && id_less(&t->m[x].id, &t->m[n].id)))
			n = x;
	}
	return n;
}

/* After a chain of hand-offs (its hops a[0..len)), with the counts it left,
 * step 3's rule holds on none of its regions: no hand-off gives a primary
 * away from a region's newest peer that step 3 would hand back. */
static void expect_chain_kept(const tl *t, const pl_shard_state *s, const pl_action *a, uint32_t len, uint64_t seed)
{
	uint32_t *L = malloc((size_t)(t->nm ? t->nm : 1) * sizeof *L);
	ck_assert_ptr_nonnull(L);
	count_prims(t, s, L);
	for (uint32_t i = 0; i < len; i++) {
		uint32_t k = a[i].shard, n = newest_in(t, s, k);
		ck_assert_msg(a[i].reason == PL_REASON_PRIMARY_SKEW && a[i].total == len,
			      "seed %llu: a chain's hops are written together", (unsigned long long)seed);
		ck_assert_msg(n == PL_NONE || n == s[k].leader || L[n] >= L[s[k].leader],
			      "seed %llu: a hand-off of region %u that step 3 would take back (%u leads %u, its newest "
			      "peer %u %u)",
			      (unsigned long long)seed, k, s[k].leader, L[s[k].leader], n, L[n]);
	}
	free(L);
}

/* A quiet cluster: no chain of at most max_actions hand-offs is left, so
 * (with max_actions at least the live members less one, a bound no
 * shortest chain passes) its primaries are within one of each other
 * whenever the flow says they can be. */
static void expect_even(const world *w, const pl_view *v, uint64_t seed)
{
	const tl *t = w->t;
	uint32_t nk = t->nk, live = ru_n_live(t), most = w->cfg.max_actions, from = 0, to = 0;
	pl_shard_state *s = malloc((size_t)(nk ? nk : 1) * sizeof *s);
	ck_assert_ptr_nonnull(s);
	for (uint32_t k = 0; k < nk; k++)
		s[k] = ru_state(v, k);
	uint32_t len = shortest_chain(t, s, NULL, most, &from, &to);
	ck_assert_msg(len == 0, "seed %llu: quiet with a chain of %u hand-offs from %u (leading %u) to %u (leading %u)",
		      (unsigned long long)seed, len, from, ru_prims(v, from), to, ru_prims(v, to));
	uint32_t lo = UINT32_MAX, hi = 0;
	for (uint32_t m = 0; m < t->nm; m++) {
		if (!ru_live(t, m))
			continue;
		uint32_t l = ru_prims(v, m);
		lo = l < lo ? l : lo;
		hi = l > hi ? l : hi;
	}
	int even = live == 0 || hi <= lo + 1, can = within_one_possible(t, s);
	if (most + 1 >= live)
		ck_assert_msg(even || !can, "seed %llu: primaries %u to %u, though within one is possible",
			      (unsigned long long)seed, lo, hi);
	stat_layouts[w->family]++;
	stat_even[w->family] += (uint32_t)even;
	stat_can[w->family] += (uint32_t)can;
	free(s);
}

/* Step 3's rule first: before a chain of hand-offs, no idle region's newest
 * peer that may receive it leads fewer primaries than its primary. */
static void expect_newest_first(const tl *t, const pl_shard_state *s, const uint8_t *acted, uint64_t seed)
{
	uint32_t *L = malloc((size_t)(t->nm ? t->nm : 1) * sizeof *L);
	ck_assert_ptr_nonnull(L);
	count_prims(t, s, L);
	for (uint32_t k = 0; k < t->nk; k++) {
		if (!movable(t, s, acted, k))
			continue;
		uint32_t n = newest_in(t, s, k);
		ck_assert_msg(n == PL_NONE || n == s[k].leader || L[n] >= L[s[k].leader],
			      "seed %llu: a hand-off while region %u still wants its primary on its newest peer",
			      (unsigned long long)seed, k);
	}
	free(L);
}

/* Run one phase to quiescence, checking every action and the bound. */
static void run_phase(world *w, uint64_t seed, int rebuild)
{
	tl *t = w->t;
	uint64_t B = region_bound(t->view, tl_snap(t), &w->cfg);
	uint32_t nk = t->nk, R;
	{
		uint32_t n = ru_n_live(t);
		R = w->cfg.replication_factor < n ? w->cfg.replication_factor : n;
	}
	pl_shard_state *s = calloc(nk ? nk : 1, sizeof *s);
	uint8_t *acted = calloc(nk ? nk : 1, 1), *had_rf = calloc(nk ? nk : 1, 1);
	uint32_t *left = malloc((size_t)(nk ? nk : 1) * sizeof *left); /* the member each primary last left */
	ru_tick *tk = ru_tick_new();
	ck_assert(s && acted && had_rf && left);
	for (uint32_t k = 0; k < nk; k++) {
		s[k] = ru_state(t->view, k);
		had_rf[k] = ru_live_peers(t, &s[k]) >= R;
		left[k] = PL_NONE;
	}
	uint64_t calls = 0, actions = 0;
	pl_view *v = t->view;
	for (;;) {
		ck_assert_msg(calls <= B + 1, "seed %llu: no quiescence after %llu calls (bound %llu)",
			      (unsigned long long)seed, (unsigned long long)calls, (unsigned long long)B);
		/* A second view of the same snapshot replays the actions and
		 * checks every add with pl_region_check_add_peer(). */
		void *mem = NULL;
		pl_view *replay = NULL;
		if (rebuild) {
			size_t size = pl_view_size(tl_snap(t));
			mem = malloc(size);
			ck_assert_int_eq(pl_view_init(&replay, mem, size, tl_snap(t), NULL, NULL), 0);
		}
		int n = ru_plan(v, &w->cfg, tk);
		calls++;
		memset(acted, 0, nk);
		for (int i = 0, chain = 0; i < n; i++) {
			const pl_action *a = &tk->a[i];
			if (a->reason == PL_REASON_PRIMARY_SKEW && chain == 0) {
				expect_newest_first(t, s, acted, seed);
				chain = (int)a->total;
			}
			if (a->kind == PL_ACTION_MOVE_LEADER) {
				/* a primary handed back to the member it left
				 * (A -> B -> A): counted, see stat_returns */
				stat_returns[w->family] += a->to == left[a->shard];
				stat_handoffs[w->family]++;
				left[a->shard] = a->from;
			}
			check_action(t, &w->cfg, s, acted, had_rf, a, seed);
			if (a->reason == PL_REASON_PRIMARY_SKEW && --chain == 0)
				expect_chain_kept(t, s, &tk->a[i + 1 - (int)a->total], a->total, seed);
			if (replay) {
				if (tk->a[i].kind == PL_ACTION_ADD_REPLICA)
					ck_assert_msg(pl_region_check_add_peer(replay, tk->a[i].shard, tk->a[i].to,
									       t->k[tk->a[i].shard].epoch, NULL) == 0,
						      "seed %llu: an emitted add fails the add-peer check",
						      (unsigned long long)seed);
				ck_assert_int_eq(pl_view_apply(replay, &tk->a[i]), 0);
			}
		}
		actions += (uint64_t)n;
		ck_assert_msg(tk->info.written == (uint32_t)n && tk->info.wanted >= tk->info.written,
			      "seed %llu: info", (unsigned long long)seed);
		ck_assert_uint_le((uint32_t)n, w->cfg.max_actions);
		/* Steps 3 and 5 ran to the end unless the call was capped (step
		 * 5 runs step 3's rule again after a load move and after every
		 * chain): no idle region wants its primary on its newest peer,
		 * and no chain of hand-offs is left among the idle regions. */
		if (tk->info.status != PL_STATUS_FULL && tk->info.status != PL_STATUS_ACTION_CAP) {
			expect_no_newest_move(t, v, acted, seed);
			uint32_t from = 0, to = 0, len = shortest_chain(t, s, acted, w->cfg.max_actions, &from, &to);
			ck_assert_msg(len == 0, "seed %llu: a chain of %u hand-offs from %u to %u left after a call",
				      (unsigned long long)seed, len, from, to);
		}
		for (uint32_t k = 0; k < nk; k++) {
			pl_shard_state now = ru_state(v, k);
			expect_same_state(&now, &s[k], seed, k);
			if (replay) {
				pl_shard_state r = ru_state(replay, k);
				expect_same_state(&now, &r, seed, k);
			}
		}
		free(mem);
		if (n == 0)
			break;
		ck_assert_msg(actions <= B, "seed %llu: %llu actions past the bound %llu", (unsigned long long)seed,
			      (unsigned long long)actions, (unsigned long long)B);
		v = ru_next(t, rebuild);
	}
	/* Quiet: every placeable region below R, or without a live primary
	 * while it has a live peer, is reported, with the reason. */
	uint32_t shown = tk->info.blocked < RU_MAX_STALLS ? tk->info.blocked : RU_MAX_STALLS;
	for (uint32_t k = 0; k < nk; k++) {
		if (t->k[k].flags & (PL_SHARD_NOT_IDEMPOTENT | PL_SHARD_TRANSFER_DEBT))
			continue;
		pl_shard_state x = ru_state(v, k);
		uint32_t lp = ru_live_peers(t, &x), reported = 0;
		int lead = x.leader != PL_NONE && ru_live(t, x.leader);
		for (uint32_t i = 0; i < shown; i++)
			reported |= tk->st[i].shard == k && tk->st[i].step == 1;
		ck_assert_msg(reported == (lp < R || (!lead && lp > 0)),
			      "seed %llu: region %u (%u live peers of %u, primary %d) reported %u",
			      (unsigned long long)seed, k, lp, R, lead, reported);
	}
	ck_assert_msg(tk->info.status != PL_STATUS_FULL && tk->info.status != PL_STATUS_ACTION_CAP,
		      "seed %llu: quiet but capped", (unsigned long long)seed);
	expect_even(w, v, seed);
	free(s);
	free(acted);
	free(had_rf);
	free(left);
	free(tk);
}

START_TEST(random_clusters_quiesce_within_the_bound)
{
	uint64_t seed0 = tl_seed(0x7e610001u);
	uint32_t iters = tl_iters(300);
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		world w = family_world((uint32_t)(seed % FAMS), &rng);
		tl_view(w.t, 0);
		for (int phase = 0; phase < 4; phase++) {
			run_phase(&w, seed, (int)((it + (uint32_t)phase) % 2));
			change_membership(&w, &rng);
			if (tl_below(&rng, 4) == 0)
				w.cfg.replication_factor = 1 + tl_below(&rng, 5);
		}
		tl_free(w.t);
	}
	if (getenv("PL_REGION_STATS"))
		for (uint32_t f = 0; f < FAMS; f++)
			printf("%-7s %5u quiet layouts, %5u within one (%3u%%), %5u could be (%3u%%); %6u hand-offs, %4u "
			       "back to the member left\n",
			       fam_name[f], stat_layouts[f], stat_even[f],
			       stat_layouts[f] ? 100 * stat_even[f] / stat_layouts[f] : 0, stat_can[f],
			       stat_layouts[f] ? 100 * stat_can[f] / stat_layouts[f] : 0, stat_handoffs[f], stat_returns[f]);
}
END_TEST

/* Shuffled arrays (members, regions, each region's peers) give the same
 * actions and stalls, named by id, call after call. */
START_TEST(shuffled_input_gives_the_same_actions)
{
	uint64_t seed0 = tl_seed(0x7e610002u);
	uint32_t iters = tl_iters(150);
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		world w = family_world((uint32_t)(seed % FAMS), &rng);
		tl *a = w.t, *b = tl_shuffled(a, &rng);
		tl_view(a, 0);
		tl_view(b, 0);
		ru_tick *ta = ru_tick_new(), *tb = ru_tick_new();
		for (int call = 0; call < 12; call++) {
			int n = ru_plan(a->view, &w.cfg, ta);
			ck_assert_int_eq(ru_plan(b->view, &w.cfg, tb), n);
			for (int i = 0; i < n; i++) {
				pl_action x = ta->a[i], y = tb->a[i];
				x.shard = b->perm_k[x.shard];
				x.from = x.from == PL_NONE ? PL_NONE : b->perm_m[x.from];
				x.to = x.to == PL_NONE ? PL_NONE : b->perm_m[x.to];
				ck_assert_msg(memcmp(&x, &y, sizeof x) == 0, "seed %llu: call %d action %d differs",
					      (unsigned long long)seed, call, i);
			}
			ck_assert_msg(memcmp(&ta->info, &tb->info, sizeof ta->info) == 0 ||
					      (ta->info.detail != PL_NONE && b->perm_k[ta->info.detail] == tb->info.detail),
				      "seed %llu: info differs", (unsigned long long)seed);
			uint32_t shown = ta->info.blocked < RU_MAX_STALLS ? ta->info.blocked : RU_MAX_STALLS;
			for (uint32_t i = 0; i < shown; i++) {
				pl_region_stall x = ta->st[i], y = tb->st[i];
				ck_assert_msg(b->perm_k[x.shard] == y.shard && x.reason == y.reason && x.step == y.step &&
						      (x.member == PL_NONE ? y.member == PL_NONE : b->perm_m[x.member] == y.member),
					      "seed %llu: stall %u differs", (unsigned long long)seed, i);
			}
			if (n == 0)
				break;
			ru_next(a, call % 2);
			if (call % 2) {
				/* Rebuild b too, keeping its array order. */
				ru_adopt(b);
			} else {
				pl_view_settle(b->view);
			}
		}
		free(ta);
		free(tb);
		tl_free(b);
		tl_free(a);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("region_prop");
	TCase *tc = tcase_create("properties");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, random_clusters_quiesce_within_the_bound);
	tcase_add_test(tc, shuffled_input_gives_the_same_actions);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
