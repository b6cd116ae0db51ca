/*
 * check_region_prop.c - the region policy's properties on random clusters
 * with joins, leaves and returns: repeated calls stop within the stated
 * bound, every emitted action keeps the rules (no region lowered below
 * min(RF, live)), and shuffled input gives the same actions and stalls.
 */
#include "region_util.h"

/* ---- properties on random clusters ----------------------------------------------------------- */

typedef struct world {
	tl *t;
	pl_region_config cfg;
	uint64_t clock;
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

/* A join, a leave or a return; then the next snapshot. */
static void change_membership(world *w, uint64_t *rng)
{
	tl *t = w->t;
	ru_adopt(t); /* carry the state before the members change */
	uint32_t what = tl_below(rng, 3), nm = t->nm;
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
	ru_tick *tk = ru_tick_new();
	ck_assert_ptr_nonnull(s);
	for (uint32_t k = 0; k < nk; k++) {
		s[k] = ru_state(t->view, k);
		had_rf[k] = ru_live_peers(t, &s[k]) >= R;
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
		for (int i = 0; i < n; i++) {
			check_action(t, &w->cfg, s, acted, had_rf, &tk->a[i], seed);
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
		/* Step 3 ran to the end unless the call was capped; a load move
		 * after it may lower a member's count and so open step 3 for
		 * another region next call (that is bounded too). */
		int load_moved = 0;
		for (int i = 0; i < n; i++)
			load_moved |= tk->a[i].reason == PL_REASON_LOAD;
		if (tk->info.status != PL_STATUS_FULL && tk->info.status != PL_STATUS_ACTION_CAP && !load_moved)
			expect_no_newest_move(t, v, acted, seed);
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
	free(s);
	free(acted);
	free(had_rf);
	free(tk);
}

START_TEST(random_clusters_quiesce_within_the_bound)
{
	uint64_t seed0 = tl_seed(0x7e610001u);
	uint32_t iters = tl_iters(300);
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		world w = random_world(&rng);
		tl_view(w.t, 0);
		for (int phase = 0; phase < 4; phase++) {
			run_phase(&w, seed, (int)((it + (uint32_t)phase) % 2));
			change_membership(&w, &rng);
			if (tl_below(&rng, 4) == 0)
				w.cfg.replication_factor = 1 + tl_below(&rng, 5);
		}
		tl_free(w.t);
	}
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
		world w = random_world(&rng);
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
