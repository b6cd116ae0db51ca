/* check_view_reuse.c - a view built with the previous tick's view as a hint
 * answers every call as a view built without it: random tick sequences with
 * members joining, leaving, draining, going down and changing weight, shards
 * added and removed, arrays shuffled, overrides changed and the scorer
 * switched. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/view_build.h"
#include "testutil.h"
#include "view_answers.h"

enum { MM = 40, MK = 400 };

/* Streams of the run: few (the sorts' scratch shares the shard states'
 * room) or many (the cells have room for it, and validation writes the
 * states and hashes in its pass whatever the hint). */
static int NS = 4;

/* The abstract layout a tick is drawn from; members and shards by name. */
typedef struct model {
	struct {
		int alive, zone;
		uint32_t weight, flags;
	} m[MM];
	struct {
		int alive, stream, nrep, rep[3], leader, mv, ov, ov_origin;
		uint64_t since;
	} k[MK];
} model;

static void model_init(model *md, uint64_t *rng)
{
	memset(md, 0, sizeof *md);
	for (int i = 0; i < MM; i++) {
		md->m[i].alive = i < 12 || tl_below(rng, 3) == 0;
		md->m[i].zone = (int)tl_below(rng, 4);
		md->m[i].weight = 1;
	}
	for (int i = 0; i < MK; i++) {
		md->k[i].alive = tl_below(rng, 4) != 0;
		md->k[i].stream = (int)tl_below(rng, NS + 1) - 1; /* -1: no stream */
		md->k[i].ov = -1;
		md->k[i].mv = -1;
	}
}

static int alive_member(const model *md, uint64_t *rng)
{
	for (int tries = 0; tries < 100; tries++) {
		int m = (int)tl_below(rng, MM);
		if (md->m[m].alive)
			return m;
	}
	return -1;
}

/* One tick's changes. */
static void model_step(model *md, uint64_t *rng)
{
	uint32_t what = tl_below(rng, 8);
	int m = (int)tl_below(rng, MM);
	switch (what) {
	case 0: /* join or leave */
		md->m[m].alive = !md->m[m].alive;
		break;
	case 1: /* drain, go down, come back */
		md->m[m].flags = tl_below(rng, 3) == 0 ? 0 : tl_below(rng, 2) ? PL_MEMBER_DRAINING : PL_MEMBER_DOWN;
		break;
	case 2: /* weight */
		md->m[m].weight = 1 + tl_below(rng, 3);
		break;
	case 3: /* shards come and go */
		for (int j = 0; j < 20; j++) {
			int k = (int)tl_below(rng, MK);
			md->k[k].alive = !md->k[k].alive;
		}
		break;
	case 4: /* a shard changes stream */
		md->k[tl_below(rng, MK)].stream = (int)tl_below(rng, NS + 1) - 1;
		break;
	case 7:
		return; /* nothing changes at all: the tallies may be reused */
	default:
		break; /* nothing changes in membership: the cheap tick */
	}
	/* Leaders, replicas and overrides change on the other ticks. */
	for (int j = 0; j < 30; j++) {
		int k = (int)tl_below(rng, MK);
		int a = alive_member(md, rng), b = alive_member(md, rng);
		md->k[k].nrep = 0;
		if (a >= 0)
			md->k[k].rep[md->k[k].nrep++] = a;
		if (b >= 0 && b != a)
			md->k[k].rep[md->k[k].nrep++] = b;
		md->k[k].leader = md->k[k].nrep && tl_below(rng, 4) ? md->k[k].rep[0] : -1;
		md->k[k].mv = md->k[k].leader >= 0 && tl_below(rng, 4) == 0 ? alive_member(md, rng) : -1;
		md->k[k].ov = tl_below(rng, 3) == 0 ? alive_member(md, rng) : -1;
		md->k[k].ov_origin = (int)tl_below(rng, 2);
		md->k[k].since = tl_below(rng, 100);
	}
}

/* The same bytes as prev's when prev has this string, so that some ticks
 * share buffers with the one before (the same range compares by address). */
static pl_bytes name(tl *t, const tl *prev, const char *s)
{
	if (prev)
		for (uint32_t i = 0; i < prev->nstr; i++)
			if (strcmp(prev->str[i], s) == 0)
				return (pl_bytes){prev->str[i], strlen(s)};
	const char *p = tl_str(t, "%s", s);
	return (pl_bytes){p, strlen(p)};
}

/* The model as a snapshot, in model order or shuffled. */
static tl *materialize(const model *md, const tl *prev, int shuffle, uint64_t *rng)
{
	tl *t = tl_new();
	int mi[MM];
	char buf[32];
	int order[MM];
	for (int i = 0; i < MM; i++)
		order[i] = i;
	if (shuffle)
		for (int i = MM; i > 1; i--) {
			int j = (int)tl_below(rng, (uint32_t)i), x = order[i - 1];
			order[i - 1] = order[j];
			order[j] = x;
		}
	for (int x = 0; x < MM; x++) {
		int i = order[x];
		mi[i] = -1;
		if (!md->m[i].alive)
			continue;
		snprintf(buf, sizeof buf, "member-%02d", i);
		uint32_t m = tl_member(t, "x", NULL);
		t->m[m].id = name(t, prev, buf);
		snprintf(buf, sizeof buf, "zone-%d", md->m[i].zone);
		t->m[m].zone = name(t, prev, buf);
		t->m[m].weight = md->m[i].weight;
		t->m[m].flags = md->m[i].flags;
		mi[i] = (int)m;
	}
	for (int s = 0; s < NS; s++) {
		snprintf(buf, sizeof buf, "stream-%d", s);
		uint32_t x = tl_stream(t, "x");
		t->s[x].id = name(t, prev, buf);
	}
	for (int i = 0; i < MK; i++) {
		int x = shuffle ? (i * 7919) % MK : i; /* 7919 is prime to MK: a permutation */
		if (!md->k[x].alive)
			continue;
		snprintf(buf, sizeof buf, "shard/%03d", x);
		uint32_t k = tl_shard(t, "x", md->k[x].stream < 0 ? PL_NONE : (uint32_t)md->k[x].stream, PL_NONE, 0);
		t->k[k].key = name(t, prev, buf);
		for (int r = 0; r < md->k[x].nrep; r++)
			if (mi[md->k[x].rep[r]] >= 0)
				t->k[k].replicas[t->k[k].replica_count++] = (uint32_t)mi[md->k[x].rep[r]];
		if (md->k[x].leader >= 0 && mi[md->k[x].leader] >= 0)
			for (uint32_t r = 0; r < t->k[k].replica_count; r++)
				if (t->k[k].replicas[r] == (uint32_t)mi[md->k[x].leader])
					t->k[k].leader = t->k[k].replicas[r];
		if (md->k[x].mv >= 0 && mi[md->k[x].mv] >= 0 && t->k[k].leader != PL_NONE &&
		    t->k[k].leader != (uint32_t)mi[md->k[x].mv])
			t->k[k].moving_to = (uint32_t)mi[md->k[x].mv]; /* a leader move in flight */
		if (md->k[x].ov >= 0 && mi[md->k[x].ov] >= 0)
			tl_override(t, k, (uint32_t)mi[md->k[x].ov], (uint32_t)md->k[x].ov_origin, md->k[x].since);
	}
	tl_snap(t);
	return t;
}

static pl_view *build(const tl *t, uint32_t scorer, const pl_view *reuse, void **mem)
{
	size_t size = pl_view_size(&t->snap);
	*mem = malloc(size);
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	opt.scorer = scorer;
	opt.reuse = reuse;
	pl_view *v = NULL;
	pl_diag d;
	int rc = pl_view_init(&v, *mem, size, &t->snap, &opt, &d);
	ck_assert_msg(rc == 0, "pl_view_init: %s (kind %u index %u)", pl_error_name(rc), d.kind, d.index);
	return v;
}

START_TEST(reused_views_answer_as_fresh_ones)
{
	uint64_t seed = tl_seed(0x2e05eu);
	uint32_t runs = tl_iters(12);
	uint32_t took_orders = 0, took_homes = 0, took_tallies = 0, ticks = 0;
	for (uint32_t run = 0; run < runs; run++) {
		uint64_t rs = seed + run, rng = rs;
		NS = run % 2 ? 100 : 4;
		model md;
		model_init(&md, &rng);
		tl *hist[48] = {0};
		void *mem[48] = {0};
		pl_view *prev = NULL;
		uint32_t scorer = PL_SCORER_XXH3;
		for (uint32_t tick = 0; tick < 48; tick++) {
			model_step(&md, &rng);
			if (tl_below(&rng, 10) == 0)
				scorer = scorer == PL_SCORER_XXH3 ? PL_SCORER_LEGACY_FNV1A : PL_SCORER_XXH3;
			int shuffle = tl_below(&rng, 6) == 0;
			hist[tick] = materialize(&md, tick ? hist[tick - 1] : NULL, shuffle, &rng);
			tl *t = hist[tick];
			void *fmem;
			pl_view *fresh = build(t, scorer, NULL, &fmem);
			pl_view *reused = build(t, scorer, prev, &mem[tick]);
			took_orders += (reused->reused & PL__REUSED_ORDERS) != 0;
			took_homes += (reused->reused & PL__REUSED_HOMES) != 0;
			took_tallies += (reused->reused & PL__REUSED_TALLIES) != 0;
			ticks++;
			/* Homes from the hint are filled now; the fresh view fills
			 * its own on the first call that needs them. */
			/* A second view of the snapshot with the fresh one (no action
			 * applied to it yet) as its hint takes its tallies. */
			void *amem, *f2mem;
			pl_view *again = build(t, scorer, fresh, &amem);
			ck_assert_msg(t->snap.n_copies > 0 || (again->reused & PL__REUSED_TALLIES),
				      "seed %" PRIu64 " tick %u: tallies not reused", rs, tick);
			same_answers(fresh, reused, t, rs, tick);
			free(fmem);
			pl_view *fresh2 = build(t, scorer, NULL, &f2mem);
			same_answers(fresh2, again, t, rs, tick);
			free(f2mem);
			free(amem);
			/* The next tick's hint: fresh or with homes, applied
			 * actions and all (same_answers ran policies on it). */
			if (tl_below(&rng, 4) == 0) {
				void *m2;
				prev = build(t, scorer, NULL, &m2); /* no homes yet */
				free(mem[tick]);
				mem[tick] = m2;
			} else {
				prev = reused;
			}
			if (tick >= 2) { /* the view two ticks back is no longer read */
				free(mem[tick - 2]);
				mem[tick - 2] = NULL;
			}
		}
		for (uint32_t i = 0; i < 48; i++) {
			free(mem[i]);
			tl_free(hist[i]);
		}
	}
	printf("reuse: %u ticks, orders reused on %u, homes on %u, tallies on %u\n", ticks, took_orders, took_homes,
	       took_tallies);
	ck_assert_uint_gt(took_orders, ticks / 4);
	ck_assert_uint_gt(took_homes, ticks / 3);
	ck_assert_uint_gt(took_tallies, 0);
}
END_TEST

/* A hint that is not a view, or overlaps the new view's memory, is refused;
 * version-1 options never read `reuse`. */
START_TEST(bad_hints)
{
	tl *t = tl_new();
	for (int i = 0; i < 3; i++)
		tl_member(t, tl_str(t, "m%d", i), NULL);
	tl_shard(t, "s/0", PL_NONE, PL_NONE, 0);
	pl_view *v = tl_view(t, 0);
	size_t size = pl_view_size(&t->snap);
	uint64_t *mem = calloc(1, size * 2 + 64);
	pl_view *out = NULL;
	pl_diag d;
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	char junk[256] = {0};
	opt.reuse = (const pl_view *)(void *)junk;
	ck_assert_int_eq(pl_view_init(&out, mem, size, &t->snap, &opt, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.kind, PL_ELEM_CONFIG);
	ck_assert_uint_eq(d.index, 2);
	ck_assert_ptr_null(out);
	opt.reuse = v;
	ck_assert_int_eq(pl_view_init(&out, v, size, &t->snap, &opt, &d), PL_E_OVERLAP);
	ck_assert_uint_eq(d.index, 2);
	ck_assert_ptr_null(out);
	/* version 1: the fields past its end are not read, junk or not */
	pl_view_options v1 = {1, PL_SCORER_XXH3, (const pl_view *)(void *)junk, 99, 7};
	ck_assert_int_eq(pl_view_init(&out, mem, size, &t->snap, &v1, &d), 0);
	ck_assert_int_eq(pl_view_home(out, 0), pl_view_home(v, 0));
	/* version 2: nor is max_replicas */
	pl_view_options v2 = {2, PL_SCORER_XXH3, NULL, 99, 7};
	ck_assert_int_eq(pl_view_init(&out, mem, size, &t->snap, &v2, &d), 0);
	ck_assert_int_eq(pl_view_home(out, 0), pl_view_home(v, 0));
	free(mem);
	tl_free(t);
}
END_TEST

/* A fleet that more than halved: the homes are filled as without a hint,
 * and answer as a fresh view's; one whose zones, stream count or shard
 * count changed reuses nothing it should not. */
START_TEST(a_fleet_that_more_than_halved_and_changed_shapes)
{
	tl *t = tl_new();
	for (int i = 0; i < 10; i++)
		tl_member(t, tl_str(t, "m%d", i), tl_str(t, "z%d", i % 3));
	tl_stream(t, "s0");
	for (int k = 0; k < 40; k++)
		tl_shard(t, tl_str(t, "k/%02d", k), 0, PL_NONE, 0);
	tl_snap(t);
	void *m0, *m1, *m2;
	pl_view *old = build(t, PL_SCORER_XXH3, NULL, &m0);
	uint32_t owners[40];
	ck_assert_int_eq(pl_fleet_owners(old, owners, 40, NULL), 40); /* homes filled */
	tl *few = tl_new();
	for (int i = 0; i < 4; i++)
		tl_member(few, tl_str(few, "m%d", i + 6), NULL); /* other zones, fewer members */
	tl_stream(few, "s0");
	tl_stream(few, "s1");
	for (int k = 0; k < 39; k++)
		tl_shard(few, tl_str(few, "k/%02d", k), 0, PL_NONE, 0);
	tl_snap(few);
	pl_view *hinted = build(few, PL_SCORER_XXH3, old, &m1), *fresh = build(few, PL_SCORER_XXH3, NULL, &m2);
	for (uint32_t k = 0; k < few->nk; k++)
		ck_assert_int_eq(pl_view_home(hinted, k), pl_view_home(fresh, k));
	same_answers(hinted, fresh, few, 0, 0);
	/* the same members, one in another zone: nothing zone-bound is reused */
	tl *z = tl_new();
	for (int i = 0; i < 10; i++)
		tl_member(z, tl_str(z, "m%d", i), tl_str(z, "z%d", i ? i % 3 : 1));
	tl_stream(z, "s0");
	for (int k = 0; k < 40; k++)
		tl_shard(z, tl_str(z, "k/%02d", k), 0, PL_NONE, 0);
	tl_snap(z);
	void *m3, *m4;
	pl_view *rezoned = build(z, PL_SCORER_XXH3, old, &m3), *fresh2 = build(z, PL_SCORER_XXH3, NULL, &m4);
	same_answers(rezoned, fresh2, z, 0, 1);
	free(m3);
	free(m4);
	tl_free(z);
	free(m0);
	free(m1);
	free(m2);
	tl_free(few);
	tl_free(t);
}
END_TEST

/* nm members in three zones, ns streams, nk shards of RF 3 (keys
 * "orders/NNNNN" in a scattered order, or with keys_of, its keys: the same
 * bytes where they were). */
static tl *shards_layout(uint32_t nm, uint32_t ns, uint32_t nk, const tl *keys_of)
{
	tl *t = tl_new();
	for (uint32_t i = 0; i < nm; i++)
		tl_member(t, tl_str(t, "m%02u", i), tl_str(t, "z%u", i % 3));
	for (uint32_t i = 0; i < ns; i++)
		tl_stream(t, tl_str(t, "s%04u", i));
	for (uint32_t i = 0; i < nk; i++) {
		uint32_t a = i % nm, b = (i + 1) % nm, c = (i + 2) % nm;
		if (keys_of) {
			tl_shard(t, "x", i % ns, a, 3, a, b, c);
			t->k[i].key = keys_of->k[i].key;
		} else {
			tl_shard(t, tl_str(t, "orders/%05u", (i * 7919u) % nk), i % ns, a, 3, a, b, c);
		}
	}
	tl_snap(t);
	return t;
}

/* Thousands of shards (the key sort's first level is fed by validation's
 * pass over them): a hint whose shards match up to one place, from which
 * validation feeds the keys after those before; the first key differing
 * from the hint's is the first, one in the middle, or a key of another shape
 * (the sample's plan gives way). Few streams (the sort's scratch is the
 * states' room) and many (the cells' room). A duplicate key is found with
 * and without the hint. */
START_TEST(many_shards_matching_up_to_a_place)
{
	static const uint32_t cuts[] = {0, 3000, 5999};
	for (int shape = 0; shape < 2; shape++) {
		uint32_t nm = shape ? 40 : 8, ns = shape ? 1000 : 4, nk = 6000;
		tl *t = shards_layout(nm, ns, nk, NULL);
		void *m0;
		pl_view *old = build(t, PL_SCORER_XXH3, NULL, &m0);
		for (uint32_t c = 0; c < 3 * 2; c++) {
			uint32_t cut = cuts[c % 3];
			tl *u = shards_layout(nm, ns, nk, t);
			if (c < 3) { /* swap two keys: the same key set */
				uint32_t o = cut ? cut - 1 : 1;
				pl_bytes k = u->k[cut].key;
				u->k[cut].key = u->k[o].key;
				u->k[o].key = k;
			} else {
				u->k[cut].key.ptr = tl_str(u, "orders/%s", "new-one");
				u->k[cut].key.len = strlen(u->k[cut].key.ptr);
			}
			tl_snap(u);
			void *m1, *m2;
			pl_view *hinted = build(u, PL_SCORER_XXH3, old, &m1), *fresh = build(u, PL_SCORER_XXH3, NULL, &m2);
			ck_assert_uint_eq(hinted->reused & PL__REUSED_ORDERS, 0);
			same_answers(hinted, fresh, u, shape, c);
			free(m1);
			free(m2);
			/* a duplicate: the smallest index repeating an earlier key */
			u->k[4000 + c].key = u->k[7 + c].key;
			size_t size = pl_view_size(&u->snap);
			void *mem = malloc(size);
			pl_view_options opt = PL_VIEW_OPTIONS_INIT;
			pl_view *v;
			for (int hint = 0; hint < 2; hint++) {
				pl_diag d;
				opt.reuse = hint ? old : NULL;
				ck_assert_int_eq(pl_view_init(&v, mem, size, &u->snap, &opt, &d), PL_E_DUP_SHARD);
				ck_assert_uint_eq(d.index, 4000 + c);
				ck_assert_uint_eq(d.other, 7 + c);
			}
			free(mem);
			tl_free(u);
		}
		free(m0);
		tl_free(t);
	}
}
END_TEST

/* A hint whose shards differ from the snapshot's only in a leader move, in
 * one listed replica or in the slots past the replica count, or where a copy
 * is in flight in the hint or in the snapshot: the answers are a fresh
 * view's. */
START_TEST(shards_differing_in_a_move_a_replica_or_a_copy)
{
	tl *t = shards_layout(8, 4, 200, NULL);
	void *m0;
	pl_view *old = build(t, PL_SCORER_XXH3, NULL, &m0);
	for (int c = 0; c < 4; c++) {
		tl *u = shards_layout(8, 4, 200, t);
		pl_copy cp;
		memset(&cp, 0, sizeof cp);
		cp.shard = 9;
		cp.from = PL_NONE;
		cp.to = 4; /* shard 9 is on 1, 2, 3 */
		if (c == 0)
			u->k[5].moving_to = u->k[5].replicas[1];
		else if (c == 1)
			u->k[6].replicas[2] = 1; /* 6, 7, 0 -> 6, 7, 1 */
		else if (c == 2)
			u->k[7].replicas[PL_MAX_REPLICAS - 1] = 3; /* past the count */
		else {
			u->snap.copies = &cp;
			u->snap.n_copies = 1;
		}
		tl_snap(u);
		void *m1, *m2;
		pl_view *hinted = build(u, PL_SCORER_XXH3, old, &m1), *fresh = build(u, PL_SCORER_XXH3, NULL, &m2);
		same_answers(hinted, fresh, u, 0, (uint32_t)c);
		if (c == 1) {
			pl_shard_state st;
			ck_assert_int_eq(pl_view_shard_state(hinted, 6, &st), 0);
			ck_assert_uint_eq(st.replicas[2], 1);
		}
		if (c == 3) {
			/* ... and the view with the copy as the hint of one without */
			void *m3, *m4;
			pl_view *back = build(t, PL_SCORER_XXH3, hinted, &m3), *again = build(t, PL_SCORER_XXH3, NULL, &m4);
			same_answers(back, again, t, 1, (uint32_t)c);
			free(m3);
			free(m4);
		}
		free(m1);
		free(m2);
		u->snap.copies = NULL;
		u->snap.n_copies = 0;
		tl_free(u);
	}
	free(m0);
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("view_reuse");
	TCase *c = tcase_create("ticks");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, reused_views_answer_as_fresh_ones);
	tcase_add_test(c, bad_hints);
	tcase_add_test(c, a_fleet_that_more_than_halved_and_changed_shapes);
	tcase_add_test(c, many_shards_matching_up_to_a_place);
	tcase_add_test(c, shards_differing_in_a_move_a_replica_or_a_copy);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
