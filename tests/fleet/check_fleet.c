/* check_fleet.c - fleet ownership, clean-up of void and redundant overrides,
 * lag moves, return home, statuses, bad input, and whole fleets over time
 * (the seed's endless loop, joins and leaves). */
#include "fleetsim.h"

/* 4 members a..d, 40 shards k00..k39: share 10, floor 10. */
static tl *four(void)
{
	return sim_fleet(4, "m", 0, 0, 40, "k", 2);
}

static int home_of(tl *t, uint32_t k)
{
	return pl_view_home(tl_view(t, 0), k);
}

/* The first shard (index order) homed at h, at or after `from`. */
static uint32_t homed_at(tl *t, uint32_t h, uint32_t from)
{
	for (uint32_t k = from; k < t->nk; k++)
		if ((uint32_t)home_of(t, k) == h)
			return k;
	ck_abort_msg("no shard homed at %u", h);
	return PL_NONE;
}

static uint32_t owned_by(tl *t, uint32_t m)
{
	pl_view *v = tl_view(t, 0);
	uint32_t n = 0;
	for (uint32_t k = 0; k < t->nk; k++)
		n += pl_fleet_owner(v, k) == (int)m;
	return n;
}

/* Count overrides onto m until it owns `want` (taking shards of others in
 * index order that have no override). */
static void fill_to(tl *t, uint32_t m, uint32_t want)
{
	for (uint32_t k = 0; k < t->nk && owned_by(t, m) < want; k++) {
		int has = 0;
		for (uint32_t o = 0; o < t->no; o++)
			has |= t->o[o].shard == k;
		if (!has && home_of(t, k) != (int)m)
			tl_override(t, k, m, PL_ORIGIN_COUNT, 1);
	}
}

START_TEST(config_init_matches_macro)
{
	pl_fleet_config a, b = PL_FLEET_CONFIG_INIT;
	memset(&a, 0xa5, sizeof a);
	ck_assert_int_eq(pl_fleet_config_init(&a), 0);
	ck_assert_mem_eq(&a, &b, sizeof a);
	ck_assert_uint_eq(a.moves_per_decision, 1);
	ck_assert_uint_eq(a.spread, 1);
	ck_assert_uint_eq(a.count_balance, 1);
	ck_assert(a.last_move == PL_FLEET_NEVER);
	ck_assert_int_eq(pl_fleet_config_init(NULL), PL_E_INVAL);
}
END_TEST

/* ---- ownership ------------------------------------------------------------------ */

START_TEST(owner_follows_overrides)
{
	tl *t = four();
	uint32_t k = 0, h = (uint32_t)home_of(t, 0), x = (h + 1) % 4;
	tl_override(t, k, x, PL_ORIGIN_LAG, 1);
	static const uint32_t flags[4] = {0, PL_MEMBER_LAGGING, PL_MEMBER_DRAINING, PL_MEMBER_DOWN};
	for (int f = 0; f < 4; f++) {
		t->m[x].flags = flags[f];
		pl_view *v = tl_view(t, 0);
		uint32_t want = f < 2 ? x : (uint32_t)pl_view_home(v, k);
		ck_assert_int_eq(pl_fleet_owner(v, k), (int)want);
		uint32_t all[40];
		ck_assert_int_eq(pl_fleet_owners(v, all, 40, NULL), 40);
		for (uint32_t i = 0; i < 40; i++)
			ck_assert_int_eq(pl_fleet_owner(v, i), (int)all[i]);
		ck_assert_uint_eq(all[k], want);
		pl_route_owner ro;
		ck_assert_int_eq(pl_route_lookup(v, "k00", 3, want, &ro, NULL), 0);
		ck_assert_uint_eq(ro.owner, want);
		ck_assert_uint_eq(ro.is_self, 1);
	}
	tl_free(t);
}
END_TEST

START_TEST(owner_bad_input)
{
	tl *t = four();
	pl_view *v = tl_view(t, 0);
	uint32_t out[40];
	pl_diag d;
	memset(out, 0xee, sizeof out);
	ck_assert_int_eq(pl_fleet_owner(NULL, 0), PL_E_INVAL);
	ck_assert_int_eq(pl_fleet_owner(v, 40), PL_E_SHARD_RANGE);
	ck_assert_int_eq(pl_fleet_owners(NULL, out, 40, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.kind, PL_ELEM_ARGUMENT);
	ck_assert_uint_eq(d.index, 1);
	ck_assert_int_eq(pl_fleet_owners(v, NULL, 40, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.index, 2);
	ck_assert_int_eq(pl_fleet_owners(v, out, 39, &d), PL_E_NOSPACE);
	ck_assert_uint_eq(d.index, 3);
	ck_assert_uint_eq(out[0], 0xeeeeeeeeu);
	for (int m = 0; m < 4; m++)
		t->m[m].flags = PL_MEMBER_DRAINING;
	v = tl_view(t, 0);
	ck_assert_int_eq(pl_fleet_owner(v, 0), PL_E_NO_ELIGIBLE);
	ck_assert_int_eq(pl_fleet_owners(v, out, 40, &d), PL_E_NO_ELIGIBLE);
	ck_assert_uint_eq(out[0], 0xeeeeeeeeu);
	tl_free(t);
}
END_TEST

/* ---- bad input of a decision: each code, diag, nothing written ---------------- */

static void expect_refused(tl *t, pl_view *v, const pl_fleet_config *cfg, pl_action *out, uint32_t cap, int code,
			   uint32_t kind, uint32_t index)
{
	pl_action before[4];
	pl_plan_info info, info0;
	memset(&info, 0x5a, sizeof info);
	info0 = info;
	if (out)
		memcpy(before, out, sizeof before);
	pl_diag d;
	memset(&d, 0, sizeof d);
	int doc0 = v ? pl_fleet_doc_format(v, NULL, 0) : 0;
	ck_assert_int_eq(pl_fleet_decide(v, cfg, out, cap, &info, &d), code);
	ck_assert_int_eq(d.code, code);
	ck_assert_uint_eq(d.kind, kind);
	ck_assert_uint_eq(d.index, index);
	ck_assert_mem_eq(&info, &info0, sizeof info);
	if (out)
		ck_assert_mem_eq(out, before, sizeof before);
	if (v)
		ck_assert_int_eq(pl_fleet_doc_format(v, NULL, 0), doc0);
	(void)t;
}

START_TEST(decide_bad_input)
{
	tl *t = four();
	fill_to(t, 0, 14);
	pl_view *v = tl_view(t, 0);
	pl_action out[4];
	memset(out, 0x77, sizeof out);
	pl_fleet_config c = PL_FLEET_CONFIG_INIT;
	expect_refused(t, NULL, &c, out, 4, PL_E_INVAL, PL_ELEM_ARGUMENT, 1);
	expect_refused(t, v, NULL, out, 4, PL_E_INVAL, PL_ELEM_ARGUMENT, 2);
	expect_refused(t, v, &c, NULL, 4, PL_E_INVAL, PL_ELEM_ARGUMENT, 3);
	c.version = 2;
	expect_refused(t, v, &c, out, 4, PL_E_VERSION, PL_ELEM_CONFIG, 0);
	c.version = PL_FLEET_CONFIG_VERSION;
	c.self = 4;
	expect_refused(t, v, &c, out, 4, PL_E_MEMBER_RANGE, PL_ELEM_CONFIG, 1);
	c.self = 0;
	c.moves_per_decision = 0;
	expect_refused(t, v, &c, out, 4, PL_E_CONFIG, PL_ELEM_CONFIG, 5);
	c.moves_per_decision = 1;
	c.spread = 2;
	expect_refused(t, v, &c, out, 4, PL_E_CONFIG, PL_ELEM_CONFIG, 6);
	c.spread = 1;
	c.count_balance = 7;
	expect_refused(t, v, &c, out, 4, PL_E_CONFIG, PL_ELEM_CONFIG, 8);
	c.count_balance = 1;
	c.reserved = 1;
	expect_refused(t, v, &c, out, 4, PL_E_CONFIG, PL_ELEM_CONFIG, 9);
	c.reserved = 0;
	/* The same view still decides (nothing was changed by the refusals). */
	ck_assert_int_eq(pl_fleet_decide(v, &c, out, 4, NULL, NULL), 1);
	for (int m = 0; m < 4; m++)
		t->m[m].flags = PL_MEMBER_DOWN;
	v = tl_view(t, 0);
	expect_refused(t, v, &c, out, 4, PL_E_NO_ELIGIBLE, PL_ELEM_SNAPSHOT, 0);
	/* cap 0 with a NULL out is fine: the decision reports FULL. */
	for (int m = 0; m < 4; m++)
		t->m[m].flags = 0;
	v = tl_view(t, 0);
	pl_plan_info info;
	ck_assert_int_eq(pl_fleet_decide(v, &c, NULL, 0, &info, NULL), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_FULL);
	ck_assert_uint_eq(info.wanted, 1);
	tl_free(t);
}
END_TEST

/* ---- clean-up ------------------------------------------------------------------------ */

START_TEST(void_and_redundant_overrides_dropped_by_the_home)
{
	tl *t = four();
	uint32_t k0 = 0, h0 = (uint32_t)home_of(t, 0);
	uint32_t k1 = 1, h1 = (uint32_t)home_of(t, 1);
	uint32_t k2 = 2, h2 = (uint32_t)home_of(t, 2);
	uint32_t gone = 3;
	/* pick a member that is none of the three homes to be down (if any) */
	for (uint32_t m = 0; m < 4; m++)
		if (m != h0 && m != h1 && m != h2)
			gone = m;
	if (gone == h0 || gone == h1 || gone == h2)
		gone = (h0 + 1) % 4;
	tl_override(t, k0, gone, PL_ORIGIN_LAG, 5);
	tl_override(t, k2, h2, PL_ORIGIN_COUNT, 5); /* names its own ring home */
	t->m[gone].flags = PL_MEMBER_DOWN;
	if (gone == h1)
		k1 = PL_NONE;
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	cfg.now = 100;
	cfg.last_move = 99; /* cooldown running: clean-up is not a move */
	pl_action a[8];
	pl_plan_info info;
	uint32_t drops = 0;
	for (uint32_t m = 0; m < 4; m++) {
		int n = sim_decide(t, cfg, m, a, 8, &info);
		for (int j = 0; j < n; j++) {
			ck_assert_uint_eq(a[j].kind, PL_ACTION_DROP_OVERRIDE);
			ck_assert_uint_eq(a[j].to, m); /* only the home drops */
			if (a[j].shard == k0) {
				ck_assert_uint_eq(m, (uint32_t)home_of(t, k0));
				ck_assert_uint_eq(a[j].reason, PL_REASON_VOID_OVERRIDE);
				ck_assert_uint_eq(a[j].from, gone);
				ck_assert_uint_eq(a[j].origin, PL_ORIGIN_LAG);
			} else {
				ck_assert_uint_eq(a[j].shard, k2);
				ck_assert_uint_eq(a[j].reason, PL_REASON_REDUNDANT_OVERRIDE);
				ck_assert_uint_eq(a[j].origin, PL_ORIGIN_COUNT);
			}
			drops++;
		}
	}
	ck_assert_uint_eq(drops, 2);
	/* A draining override member: void too. */
	t->m[gone].flags = PL_MEMBER_DRAINING;
	uint32_t h = (uint32_t)home_of(t, k0);
	ck_assert_int_eq(sim_decide(t, cfg, h, a, 8, &info), h == h2 ? 2 : 1);
	ck_assert_uint_eq(a[0].reason, PL_REASON_VOID_OVERRIDE);
	char buf[256];
	ck_assert_int_gt(pl_action_explain(tl_snap(t), &a[0], buf, sizeof buf), 0);
	ck_assert_ptr_nonnull(strstr(buf, "draining"));
	(void)k1;
	tl_free(t);
}
END_TEST

/* ---- count moves never take a lag override ------------------------------------------ */

START_TEST(count_move_never_takes_a_lag_override)
{
	tl *t = four();
	/* m0 holds 6 lag overrides of m1's shards on top of its ring homes.
	 * While m1 lags they stay where they are and count as m0's: m0 gives
	 * its own shards. */
	uint32_t lagged = 0;
	for (uint32_t k = 0; k < t->nk && lagged < 6; k++)
		if (home_of(t, k) == 1) {
			tl_override(t, k, 0, PL_ORIGIN_LAG, 1);
			lagged++;
		}
	uint32_t mine = owned_by(t, 0), held = 0;
	ck_assert_uint_gt(mine, 10);
	for (uint32_t o = 0; o < t->no; o++)
		held += (uint32_t)home_of(t, t->o[o].shard) == 1;
	ck_assert_uint_gt(held, 0);
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	cfg.moves_per_decision = 40;
	t->m[1].flags = PL_MEMBER_LAGGING; /* its shards on m0 stay m0's for now */
	pl_view *v = tl_view(t, 0);
	pl_action a[64];
	int n = pl_fleet_decide(v, &cfg, a, 64, NULL, NULL);
	ck_assert_int_eq(n > 0, owned_by(t, 2) < 10 || owned_by(t, 3) < 10);
	for (int j = 0; j < n; j++) {
		ck_assert_uint_eq(a[j].reason, PL_REASON_COUNT);
		for (uint32_t o = 0; o < t->no; o++)
			ck_assert_uint_ne(a[j].shard, t->o[o].shard);
	}
	/* Once the lag is over, m0 counts them at their homes: they go home
	 * (or stay by count), and m0 gives only what it owns past its share
	 * without them. */
	t->m[1].flags = 0;
	uint32_t own = mine - 6;
	v = tl_view(t, 0);
	n = pl_fleet_decide(v, &cfg, a, 64, NULL, NULL);
	ck_assert_int_eq(n, own > 10 ? (int)(own - 10) : 0);
	for (int j = 0; j < n; j++)
		for (uint32_t o = 0; o < t->no; o++)
			ck_assert_uint_ne(a[j].shard, t->o[o].shard);
	/* Every shard m0 owns besides the lag overrides gone: nothing movable is
	 * left, and the lag overrides stay. */
	tl_free(t);
	t = four();
	for (uint32_t k = 0; k < t->nk; k++)
		if (home_of(t, k) == 0)
			tl_override(t, k, 1 + k % 3, PL_ORIGIN_COUNT, 1);
	lagged = 0;
	for (uint32_t k = 0; k < t->nk && lagged < 12; k++)
		if (home_of(t, k) != 0) {
			int has = 0;
			tl_override(t, k, 0, PL_ORIGIN_LAG, 1);
			lagged++;
			(void)has;
		}
	ck_assert_uint_eq(owned_by(t, 0), 12);
	pl_plan_info info;
	ck_assert_int_eq(sim_decide(t, cfg, 0, a, 64, &info), 0);
	tl_free(t);
}
END_TEST

/* ---- return home ---------------------------------------------------------------------- */

START_TEST(return_home_rules)
{
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	cfg.return_home_age = 300;
	cfg.cooldown = 0;
	pl_action a[8];
	pl_plan_info info;
	for (int scene = 0; scene < 8; scene++) {
		/* 38 shards over 4: share 10, floor 9. */
		tl *t = sim_fleet(4, "m", 0, 0, 38, "k", 2);
		uint32_t h = 0, k = homed_at(t, h, 0), x = 1, k2 = homed_at(t, h, k + 1);
		tl_override(t, k, x, scene == 5 ? PL_ORIGIN_COUNT : PL_ORIGIN_LAG, 1000);
		if (scene >= 6) /* two aged lag overrides: the oldest first */
			tl_override(t, k2, 2, PL_ORIGIN_LAG, 900);
		/* Nobody over the share or below the floor: no count places this
		 * tick. The home at 9 has room for one; in scene 2 it is at its
		 * share, and taking the shard back would pass it. */
		uint32_t want[4] = {9, 10, 10, 9}, full[4] = {10, 10, 9, 9}, two[4] = {8, 10, 10, 10};
		sim_force(t, 0, scene == 2 ? full : scene == 6 ? two : want);
		if (scene == 7) /* no place for a count move: m3 lags */
			t->m[3].flags = PL_MEMBER_LAGGING;
		cfg.now = scene == 1 ? 1299 : scene == 5 ? 1000000 : 1300;
		if (scene == 3)
			t->m[h].flags = PL_MEMBER_LAGGING;
		if (scene == 4)
			t->m[x].flags = PL_MEMBER_LAGGING;
		uint32_t before = owned_by(t, h);
		int n = sim_decide(t, cfg, h, a, 8, &info);
		if (scene == 7) {
			/* The home counts 11 with both, over its share 10, and nobody
			 * has a place: m1, counting 9, keeps its one by count (no owner
			 * changes); then the other goes home. */
			ck_assert_msg(n == 1, "%d", n);
			ck_assert_msg(a[0].kind == PL_ACTION_SET_OVERRIDE, "%s %s", pl_action_kind_name(a[0].kind),
				      pl_reason_name(a[0].reason));
			ck_assert_uint_eq(a[0].reason, PL_REASON_COUNT);
			ck_assert_uint_eq(a[0].tier, PL_FLEET_PICK_KEEP);
			ck_assert_uint_eq(a[0].shard, k);
			ck_assert_uint_eq(a[0].from, x);
			ck_assert_uint_eq(a[0].to, x);
			char line[256];
			ck_assert_int_gt(pl_action_explain(tl_snap(t), &a[0], line, sizeof line), 0);
			ck_assert_msg(strstr(line, "keep k") && strstr(line, "counts 11 with the shards held for it"), "%s",
				      line);
			for (uint32_t o = 0; o < t->no; o++)
				if (t->o[o].shard == k)
					t->o[o].origin = PL_ORIGIN_COUNT;
			n = sim_decide(t, cfg, h, a, 8, &info);
		}
		int returned = 0;
		for (int j = 0; j < n; j++)
			if (a[j].reason == PL_REASON_RETURN_HOME) {
				returned++;
				ck_assert_uint_eq(a[j].kind, PL_ACTION_DROP_OVERRIDE);
				ck_assert_uint_eq(a[j].to, h);
				ck_assert_uint_eq(a[j].origin, PL_ORIGIN_LAG);
				ck_assert_uint_eq(a[j].from, scene >= 6 ? 2 : x);
				ck_assert_uint_eq(a[j].shard, scene >= 6 ? k2 : k);
				ck_assert(a[j].at == (scene >= 6 ? 400u : 300u));
				ck_assert_uint_le(before + 1, 10);
			}
		/* 0: aged, home within share: back. 1: too young. 2: home at share.
		 * 3: home lagging. 4: holder lagging. 5: a count override, never by
		 * age. 6: the oldest of two. 7: one kept by its holder, the other home. */
		ck_assert_msg(returned == (scene == 0 || scene >= 6), "scene %d: %d returns, %d actions, status %u, owned %u",
			      scene, returned, n, info.status, before);
		/* The holder never returns it itself. */
		int m = sim_decide(t, cfg, x, a, 8, &info);
		for (int j = 0; j < m; j++)
			ck_assert_uint_ne(a[j].reason, PL_REASON_RETURN_HOME);
		tl_free(t);
	}
}
END_TEST

/* ---- lag moves ------------------------------------------------------------------------ */

/* A member's load and the loads handed to it in this decision add without
 * wrapping: one given a shard of load near 2^64 is no longer the least
 * loaded (a wrapped sum would make it the least again). */
START_TEST(lag_move_loads_add_without_wrapping)
{
	tl *t = four();
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	cfg.now = 50;
	cfg.moves_per_decision = 2;
	pl_action a[8];
	pl_plan_info info;
	uint32_t self = 0;
	t->m[self].flags = PL_MEMBER_LAGGING;
	uint32_t k1 = homed_at(t, self, 0), k2 = homed_at(t, self, k1 + 1);
	t->k[k1].load = UINT64_MAX - 1;
	t->k[k2].load = UINT64_MAX - 1;
	t->m[1].load = 10;
	t->m[2].load = 20;
	t->m[3].load = 30;
	ck_assert_int_eq(sim_decide(t, cfg, self, a, 8, &info), 2);
	ck_assert_uint_eq(a[0].reason, PL_REASON_LAG);
	ck_assert_uint_eq(a[0].to, 1);
	ck_assert_uint_eq(a[1].reason, PL_REASON_LAG);
	ck_assert_uint_eq(a[1].to, 2);
	tl_free(t);
}
END_TEST

START_TEST(lag_moves_busiest_to_least_loaded)
{
	tl *t = four();
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	cfg.now = 50;
	pl_action a[8];
	pl_plan_info info;
	uint32_t self = 0;
	t->m[self].flags = PL_MEMBER_LAGGING;
	uint32_t k1 = homed_at(t, self, 0), k2 = homed_at(t, self, k1 + 1);
	t->k[k1].load = 70;
	t->k[k2].load = 90;
	t->m[1].load = 10;
	t->m[2].load = 0;
	t->m[2].flags = PL_MEMBER_UNMEASURED; /* no data: never the least loaded */
	t->m[3].load = 30;
	ck_assert_int_eq(sim_decide(t, cfg, self, a, 8, &info), 1);
	ck_assert_uint_eq(a[0].kind, PL_ACTION_SET_OVERRIDE);
	ck_assert_uint_eq(a[0].reason, PL_REASON_LAG);
	ck_assert_uint_eq(a[0].origin, PL_ORIGIN_LAG);
	ck_assert_uint_eq(a[0].shard, k2);
	ck_assert_uint_eq(a[0].to, 1);
	ck_assert_uint_eq(a[0].load, 90);
	ck_assert(a[0].at == 50);
	/* Two moves: loads handed out count: 10 + 90 > 30. */
	cfg.moves_per_decision = 2;
	ck_assert_int_eq(sim_decide(t, cfg, self, a, 8, &info), 2);
	ck_assert_uint_eq(a[1].shard, k1);
	ck_assert_uint_eq(a[1].to, 3);
	cfg.moves_per_decision = 1;
	/* Ties on load go to the smaller id. */
	t->m[3].load = 10;
	ck_assert_int_eq(sim_decide(t, cfg, self, a, 8, &info), 1);
	ck_assert_uint_eq(a[0].to, 1);
	/* Cooldown. */
	cfg.last_move = 48;
	ck_assert_int_eq(sim_decide(t, cfg, self, a, 8, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_COOLDOWN);
	cfg.last_move = PL_FLEET_NEVER;
	/* Nobody measured and not lagging: stalled. */
	t->m[1].flags = PL_MEMBER_LAGGING;
	t->m[3].flags = PL_MEMBER_UNMEASURED;
	ck_assert_int_eq(sim_decide(t, cfg, self, a, 8, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_STALLED);
	/* A lag override held by self goes to its ring home as a drop. */
	t->m[1].flags = 0;
	t->m[3].flags = 0;
	tl *u = four();
	u->m[self].flags = PL_MEMBER_LAGGING;
	uint32_t k3 = homed_at(u, 1, 0);
	tl_override(u, k3, self, PL_ORIGIN_LAG, 1);
	u->k[k3].load = 1000;
	u->m[1].load = 1;
	u->m[2].load = 5;
	u->m[3].load = 5;
	ck_assert_int_eq(sim_decide(u, cfg, self, a, 8, &info), 1);
	ck_assert_uint_eq(a[0].kind, PL_ACTION_DROP_OVERRIDE);
	ck_assert_uint_eq(a[0].reason, PL_REASON_LAG);
	ck_assert_uint_eq(a[0].to, 1);
	char buf[256];
	ck_assert_int_gt(pl_action_explain(tl_snap(u), &a[0], buf, sizeof buf), 0);
	ck_assert_ptr_nonnull(strstr(buf, "lagging"));
	tl_free(u);
	tl_free(t);
}
END_TEST

START_TEST(statuses)
{
	tl *t = four();
	fill_to(t, 0, 13);
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	pl_action a[8];
	pl_plan_info info;
	cfg.now = 10;
	cfg.last_move = 8;
	ck_assert_int_eq(sim_decide(t, cfg, 0, a, 8, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_COOLDOWN);
	cfg.last_move = 11; /* a clock behind the last move: wait */
	ck_assert_int_eq(sim_decide(t, cfg, 0, a, 8, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_COOLDOWN);
	cfg.last_move = 5;
	ck_assert_int_eq(sim_decide(t, cfg, 0, a, 8, &info), 1);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVING); /* m0 still owns 12 of share 10 */
	ck_assert_uint_eq(info.written, 1);
	ck_assert_uint_eq(info.wanted, 1);
	ck_assert_uint_eq(info.detail, PL_NONE);
	t->m[0].flags = PL_MEMBER_DRAINING;
	ck_assert_int_eq(sim_decide(t, cfg, 0, a, 8, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_NOT_LIVE);
	t->m[0].flags = PL_MEMBER_DOWN;
	ck_assert_int_eq(sim_decide(t, cfg, 0, a, 8, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_NOT_LIVE);
	tl_free(t);
}
END_TEST


/* Every fleet action reads as one sentence with the numbers that decided it. */
START_TEST(actions_explain)
{
	tl *t = sim_fleet(4, "streams-", 1, 0, 64, NULL, 0);
	pl_view *v = tl_view(t, PL_SCORER_LEGACY_FNV1A);
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	cfg.self = 3; /* streams-4 owns 32 */
	pl_action a[2];
	ck_assert_int_eq(pl_fleet_decide(v, &cfg, a, 2, NULL, NULL), 1);
	char buf[512];
	int n = pl_action_explain(tl_snap(t), &a[0], buf, sizeof buf);
	ck_assert_int_gt(n, 0);
	ck_assert_msg(strstr(buf, "from streams-4 to streams-") && strstr(buf, "owns 32, over the share 16"), "%s",
		      buf);
	tl_free(t);
}
END_TEST

/* ---- whole fleets over time --------------------------------------------------------- */

/* The seed's endless loop: return home dropping a count override put the
 * shard back on its crowded home, and the count pass moved it again. Here
 * count overrides are never dropped by age: in a static fleet, after
 * convergence, 1,000 further ticks (past the return-home age many times)
 * emit nothing, lag overrides included. */
START_TEST(static_fleet_stays_quiet)
{
	/* 64 shards (the seed's) and 66 (so members at the floor have room a
	 * return home could use). */
	for (uint32_t nk = 64; nk <= 66; nk += 2) {
		tl *t = sim_fleet(4, "streams-", 1, 0, nk, NULL, 0);
		/* Lag overrides left by an old lag episode (homes now healthy). */
		pl_view *v = tl_view(t, PL_SCORER_LEGACY_FNV1A);
		for (uint32_t k = 0; k < nk; k += 9) {
			uint32_t h = (uint32_t)pl_view_home(v, k);
			tl_override(t, k, (h + 1) % 4, PL_ORIGIN_LAG, 0);
		}
		sim *s = sim_new(t, PL_SCORER_LEGACY_FNV1A, nk);
		s->cfg.cooldown = 5;
		s->cfg.return_home_age = 300;
		sim_run(s, sim_quiet(s), 3000);
		uint32_t count_overrides = 0;
		for (uint32_t o = 0; o < t->no; o++)
			count_overrides += t->o[o].origin == PL_ORIGIN_COUNT;
		ck_assert_uint_gt(count_overrides, 0);
		uint32_t owned[4], fl[4], sh[4];
		ck_assert_uint_le(sim_spread(s, owned, fl, sh), 1);
		/* Every count override ages past return_home_age many times over. */
		for (int i = 0; i < 1000; i++)
			ck_assert_msg(sim_tick(s) == 0, "%u shards: tick %d after convergence emitted", nk, i);
		tl_free(t);
		sim_free(s);
	}
}
END_TEST

START_TEST(joins_and_leaves_reconverge)
{
	uint64_t seed = tl_seed(0xf1ee7004u);
	tl *t = sim_fleet(8, "node-", 0, 0, 1000, "s/", 4);
	sim *s = sim_new(t, 0, seed);
	s->cfg.cooldown = 1;
	uint32_t owned[16], fl[16], sh[16];
	for (int phase = 0; phase < 5; phase++) {
		if (phase == 1) { /* two join */
			tl_member(t, "node-8", NULL);
			tl_member(t, "node-9", NULL);
			sim_grow(s, 8);
		}
		if (phase == 2) /* three leave */
			for (int m = 0; m < 3; m++)
				t->m[m * 3].flags = PL_MEMBER_DOWN;
		if (phase == 3) /* one comes back, one drains */
			t->m[3].flags = 0, t->m[4].flags = PL_MEMBER_DRAINING;
		if (phase == 4) /* all back */
			for (uint32_t m = 0; m < t->nm; m++)
				t->m[m].flags = 0;
		uint64_t e, d;
		sim_bound(s, &e, &d);
		uint32_t moves0 = s->moves;
		sim_run(s, sim_quiet(s), 5000);
		ck_assert_msg(s->moves - moves0 == (d > e ? d : e), "phase %d: %u moves, bound %llu", phase,
			      s->moves - moves0, (unsigned long long)(d > e ? d : e));
		ck_assert_uint_le(sim_spread(s, owned, fl, sh), 1);
		pl_view *v = tl_view(t, 0);
		for (uint32_t k = 0; k < t->nk; k++) {
			pl_shard_state st;
			pl_view_shard_state(v, k, &st);
			if (st.override_member != PL_NONE) {
				/* no void or redundant override survives */
				ck_assert_uint_eq(t->m[st.override_member].flags, 0);
				ck_assert_int_ne(pl_view_home(v, k), (int)st.override_member);
			}
		}
	}
	ck_assert_uint_gt(s->cleanups, 0);
	sim_free(s);
	tl_free(t);
}
END_TEST

/* A lagging member with no member to hand to (every other one lags or is
 * unmeasured) stalls and writes nothing; with somewhere to go and room for
 * one action of the two it wants, it writes one and says the output was
 * full. */
START_TEST(lag_move_with_no_destination_or_no_room)
{
	tl *t = four();
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	cfg.now = 50;
	pl_action a[4];
	memset(a, 0x5a, sizeof a);
	pl_plan_info info;
	for (uint32_t m = 0; m < 4; m++)
		t->m[m].flags = m == 3 ? PL_MEMBER_UNMEASURED : PL_MEMBER_LAGGING;
	ck_assert_int_eq(sim_decide(t, cfg, 0, a, 4, &info), 0);
	ck_assert_uint_eq(info.status, PL_STATUS_STALLED);
	ck_assert_uint_eq(a[0].kind, 0x5a5a5a5au);
	t->m[3].flags = 0;
	cfg.moves_per_decision = 2;
	ck_assert_int_eq(sim_decide(t, cfg, 0, a, 1, &info), 1);
	ck_assert_uint_eq(info.status, PL_STATUS_FULL);
	ck_assert_uint_eq(info.wanted, 2);
	ck_assert_uint_eq(a[0].reason, PL_REASON_LAG);
	ck_assert_uint_eq(a[0].to, 3);
	tl_free(t);
}
END_TEST

/* count_balance 0: a member over its share moves nothing by count (lag
 * moves only); with it on, the same decision moves. */
START_TEST(count_balance_off_moves_nothing_by_count)
{
	tl *t = four();
	for (uint32_t k = 0; k < 20; k++)
		tl_override(t, k, 0, PL_ORIGIN_COUNT, 1); /* m0 owns more than its share */
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	cfg.now = 50;
	pl_action a[8];
	pl_plan_info info;
	int n = sim_decide(t, cfg, 0, a, 8, &info), counted = 0;
	for (int i = 0; i < n; i++)
		counted += a[i].reason == PL_REASON_COUNT;
	ck_assert_int_gt(counted, 0);
	cfg.count_balance = 0;
	n = sim_decide(t, cfg, 0, a, 8, &info);
	for (int i = 0; i < n; i++)
		ck_assert_uint_ne(a[i].reason, PL_REASON_COUNT);
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fleet");
	TCase *c = tcase_create("ownership");
	tcase_add_test(c, config_init_matches_macro);
	tcase_add_test(c, owner_follows_overrides);
	tcase_add_test(c, owner_bad_input);
	tcase_add_test(c, decide_bad_input);
	suite_add_tcase(s, c);
	c = tcase_create("rules");
	tcase_add_test(c, void_and_redundant_overrides_dropped_by_the_home);
	tcase_add_test(c, count_move_never_takes_a_lag_override);
	tcase_add_test(c, return_home_rules);
	tcase_add_test(c, lag_moves_busiest_to_least_loaded);
	tcase_add_test(c, lag_move_loads_add_without_wrapping);
	tcase_add_test(c, lag_move_with_no_destination_or_no_room);
	tcase_add_test(c, count_balance_off_moves_nothing_by_count);
	tcase_add_test(c, statuses);
	tcase_add_test(c, actions_explain);
	suite_add_tcase(s, c);
	c = tcase_create("fleets");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, static_fleet_stays_quiet);
	tcase_add_test(c, joins_and_leaves_reconverge);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
