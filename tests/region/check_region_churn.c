/* check_region_churn.c - the region policy under churn with replica copies
 * in flight: every stage (ADD_REPLICA, MOVE_REPLICA) becomes a copy listed
 * in the next snapshots until it commits, fails (its member goes down
 * mid-copy) or stalls a few ticks more; members join, go down, come back,
 * lag and fall behind the regions' epochs. Checked every tick: no action on
 * a region with a copy in flight (never staged twice, onto that member or
 * another), no action lowers a region's live peers, every snapshot valid.
 * After the last fault, every placeable region has min(RF, live) live
 * peers and the policy goes quiet. Deterministic; failures print the seed
 * (PL_TEST_SEED=<seed> PL_TEST_ITERS=1 replays one). */
#include "region_util.h"

typedef struct flight {
	pl_copy c;
	uint32_t left; /* ticks until it commits, fails or stalls */
} flight;

typedef struct rsim {
	tl *t;
	flight *f;
	pl_copy *copies;
	uint32_t nf, cap;
	uint64_t seed, rng;
	uint32_t tick;
	uint32_t staged, committed, failed, stalled;
} rsim;

static uint32_t live_peers(const tl *t, const pl_shard *k)
{
	uint32_t n = 0;
	for (uint32_t j = 0; j < k->replica_count; j++)
		n += !(t->m[k->replicas[j]].flags & PL_MEMBER_DOWN);
	return n;
}

static uint32_t live_members(const tl *t)
{
	uint32_t n = 0;
	for (uint32_t m = 0; m < t->nm; m++)
		n += !(t->m[m].flags & PL_MEMBER_DOWN);
	return n;
}

static int in_flight(const rsim *s, uint32_t k)
{
	for (uint32_t i = 0; i < s->nf; i++)
		if (s->f[i].c.shard == k)
			return 1;
	return 0;
}

/* Commit a copy into the shard: the replica moves or is added; the epoch
 * advances. */
static void commit(rsim *s, const pl_copy *c)
{
	pl_shard *k = &s->t->k[c->shard];
	if (c->from == PL_NONE) {
		k->replicas[k->replica_count++] = c->to;
	} else {
		for (uint32_t j = 0; j < k->replica_count; j++)
			if (k->replicas[j] == c->from)
				k->replicas[j] = c->to;
		if (k->leader == c->from)
			k->leader = c->to;
	}
	k->epoch++;
}

/* Copies move on: a member down mid-copy fails it; else it commits when
 * due, or stalls (one in five) a few ticks more. */
static void progress(rsim *s)
{
	uint32_t w = 0;
	for (uint32_t i = 0; i < s->nf; i++) {
		flight *f = &s->f[i];
		if (s->t->m[f->c.to].flags & PL_MEMBER_DOWN) {
			s->failed++;
			continue;
		}
		if (--f->left > 0) {
			s->f[w++] = *f;
			continue;
		}
		if (tl_below(&s->rng, 5) == 0) { /* it stalls */
			f->left = 1 + tl_below(&s->rng, 3);
			s->stalled++;
			s->f[w++] = *f;
			continue;
		}
		commit(s, &f->c);
		s->committed++;
	}
	s->nf = w;
}

/* One call of the policy on the snapshot with the copies in flight. */
static uint32_t rsim_tick(rsim *s, uint32_t rf)
{
	tl *t = s->t;
	progress(s);
	for (uint32_t i = 0; i < s->nf; i++)
		s->copies[i] = s->f[i].c;
	const pl_snapshot *snap = tl_snap(t);
	t->snap.copies = s->nf ? s->copies : NULL;
	t->snap.n_copies = s->nf;
	pl_diag d = {0, 0, 0, 0};
	int rc = tl_view_rc(t, 0, &d);
	ck_assert_msg(rc == 0, "seed %llu tick %u: snapshot refused: %s (kind %u index %u)", (unsigned long long)s->seed,
		      s->tick, pl_error_name(rc), d.kind, d.index);
	(void)snap;
	pl_region_config cfg = ru_cfg(rf);
	cfg.max_actions = 8;
	pl_action a[8];
	pl_region_stall st[16];
	int n = pl_region_plan(t->view, &cfg, a, 8, NULL, st, 16, NULL);
	ck_assert_msg(n >= 0, "seed %llu tick %u: plan: %s", (unsigned long long)s->seed, s->tick, pl_error_name(n));
	for (int i = 0; i < n; i++) {
		uint32_t k = a[i].shard;
		ck_assert_msg(!in_flight(s, k), "seed %llu tick %u: %s on region %u, which has a copy in flight",
			      (unsigned long long)s->seed, s->tick, pl_action_kind_name(a[i].kind), k);
		pl_shard *sh = &t->k[k];
		uint32_t before = live_peers(t, sh);
		switch (a[i].kind) {
		case PL_ACTION_ADD_REPLICA:
		case PL_ACTION_MOVE_REPLICA: {
			ck_assert_msg(!(t->m[a[i].to].flags & PL_MEMBER_DOWN), "seed %llu: staged on a down member",
				      (unsigned long long)s->seed);
			if (s->nf == s->cap) {
				s->cap = s->cap ? 2 * s->cap : 64;
				s->f = realloc(s->f, s->cap * sizeof *s->f);
				s->copies = realloc(s->copies, s->cap * sizeof *s->copies);
			}
			pl_copy c = {k, a[i].to, a[i].kind == PL_ACTION_ADD_REPLICA ? PL_NONE : a[i].from, 0};
			s->f[s->nf].c = c;
			s->f[s->nf].left = 1 + tl_below(&s->rng, 3);
			s->nf++;
			s->staged++;
			/* Counted finished, its live peers do not fall. */
			uint32_t after = before + 1 -
					 (a[i].kind == PL_ACTION_MOVE_REPLICA && !(t->m[a[i].from].flags & PL_MEMBER_DOWN));
			ck_assert_msg(after >= before, "seed %llu tick %u: region %u loses a live peer",
				      (unsigned long long)s->seed, s->tick, k);
			break;
		}
		case PL_ACTION_SET_LEADER:
		case PL_ACTION_MOVE_LEADER:
			ck_assert_msg(!(t->m[a[i].to].flags & PL_MEMBER_DOWN), "seed %llu: a down primary",
				      (unsigned long long)s->seed);
			sh->leader = a[i].to;
			sh->epoch++;
			break;
		default:
			ck_abort_msg("seed %llu: unexpected action kind %u", (unsigned long long)s->seed, a[i].kind);
		}
	}
	s->tick++;
	return (uint32_t)n;
}

static void churn_events(rsim *s)
{
	tl *t = s->t;
	uint32_t ev = tl_below(&s->rng, 100), m = tl_below(&s->rng, t->nm);
	uint64_t top = 0;
	for (uint32_t k = 0; k < t->nk; k++)
		top = t->k[k].epoch > top ? t->k[k].epoch : top;
	if (ev < 4 && t->nm < 24) { /* a join, its map a little behind */
		uint32_t j = ru_member(t, tl_str(t, "m%02u", t->nm), tl_str(t, "z%u", t->nm % 3), 100 + s->tick);
		t->m[j].map_version = top > 2 ? top - 2 : 0;
	} else if (ev < 10) {
		t->m[m].flags ^= PL_MEMBER_DOWN;
	} else if (ev < 14) {
		t->m[m].flags ^= PL_MEMBER_LAGGING;
	}
	if (live_members(t) == 0)
		t->m[0].flags = 0;
	for (uint32_t i = 0; i < t->nm; i++) /* maps catch up, some of the time */
		if (tl_below(&s->rng, 3) == 0)
			t->m[i].map_version = top;
}

static void run_region_churn(uint64_t seed, uint32_t members, uint32_t regions, uint32_t rf, uint32_t faults)
{
	rsim s;
	memset(&s, 0, sizeof s);
	s.seed = s.rng = seed;
	s.t = tl_new();
	tl *t = s.t;
	for (uint32_t m = 0; m < members; m++)
		ru_member(t, tl_str(t, "m%02u", m), tl_str(t, "z%u", m % 3), m);
	for (uint32_t r = 0; r < regions; r++) {
		uint32_t a = tl_below(&s.rng, members);
		ru_region(t, tl_str(t, "r/%03u", r), a, 1, a);
		t->k[r].epoch = tl_below(&s.rng, 3);
		if (tl_below(&s.rng, 10) == 0)
			t->k[r].flags = PL_SHARD_NOT_IDEMPOTENT;
	}
	for (uint32_t tick = 0; tick < faults; tick++) {
		churn_events(&s);
		rsim_tick(&s, rf);
	}
	/* The last fault: every member up, not lagging, its map current. */
	uint64_t top = 0;
	for (uint32_t k = 0; k < t->nk; k++)
		top = t->k[k].epoch > top ? t->k[k].epoch : top;
	uint32_t quiet = 0, ticks = 0;
	while (quiet < 8 && ticks < 5000) {
		for (uint32_t m = 0; m < t->nm; m++) {
			t->m[m].flags = 0;
			t->m[m].map_version = UINT64_MAX;
		}
		quiet = rsim_tick(&s, rf) == 0 && s.nf == 0 ? quiet + 1 : 0;
		ticks++;
	}
	ck_assert_msg(quiet >= 8, "seed %llu: the policy did not go quiet (%u copies in flight)", (unsigned long long)seed,
		      s.nf);
	uint32_t want = rf < t->nm ? rf : t->nm;
	for (uint32_t k = 0; k < t->nk; k++)
		if (!(t->k[k].flags & PL_SHARD_NOT_IDEMPOTENT))
			ck_assert_msg(live_peers(t, &t->k[k]) >= want, "seed %llu: region %u has %u live peers, want %u",
				      (unsigned long long)seed, k, live_peers(t, &t->k[k]), want);
	free(s.f);
	free(s.copies);
	tl_free(t);
}

START_TEST(random_region_churn)
{
	uint64_t seed = tl_seed(0x2e610c0eu);
	uint32_t iters = tl_iters(40);
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t rng = seed + it, rs = rng;
		uint32_t nm = 2 + tl_below(&rng, 8), nk = 4 + tl_below(&rng, 60), rf = 1 + tl_below(&rng, 3);
		run_region_churn(rs, nm, nk, rf, 40 + tl_below(&rng, 80));
	}
}
END_TEST

/* The seed's case: a copy onto a joiner in flight, the next snapshot lists
 * it, and the region is not staged again; the joiner goes down mid-copy, the
 * copy is dropped, and the region grows onto another member. */
START_TEST(copy_fails_mid_way)
{
	rsim s;
	memset(&s, 0, sizeof s);
	s.seed = s.rng = 1;
	s.t = tl_new();
	tl *t = s.t;
	uint32_t a = ru_member(t, "a", "z1", 1), b = ru_member(t, "b", "z2", 2);
	ru_region(t, "r/0", a, 1, a);
	ck_assert_uint_eq(rsim_tick(&s, 2), 1);
	ck_assert_uint_eq(s.nf, 1);
	ck_assert_uint_eq(s.f[0].c.to, b);
	s.f[0].left = 100;
	for (int i = 0; i < 5; i++)
		ck_assert_uint_eq(rsim_tick(&s, 2), 0); /* in flight: never staged again */
	uint32_t c = ru_member(t, "c", "z3", 3);
	t->m[b].flags = PL_MEMBER_DOWN;
	ck_assert_uint_eq(rsim_tick(&s, 2), 1); /* the copy failed; grown onto c */
	ck_assert_uint_eq(s.failed, 1);
	ck_assert_uint_eq(s.f[0].c.to, c);
	free(s.f);
	free(s.copies);
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("region_churn");
	TCase *c = tcase_create("churn");
	tcase_set_timeout(c, 300);
	tcase_add_test(c, copy_fails_mid_way);
	tcase_add_test(c, random_region_churn);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
