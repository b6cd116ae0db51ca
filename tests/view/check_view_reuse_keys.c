/* check_view_reuse_keys.c - a view built with the previous tick's view as a
 * hint when the caller's arrays come in another order: random tick
 * sequences that reorder the shards, members and streams, insert and delete
 * shards anywhere, let members join and leave, add and drop streams and
 * change leaders, each tick's view compared with a fresh build of the same
 * snapshot (every answer, a fleet decision and a broker plan). The shard
 * order is then merged from the hint's by key (PL__REUSED_KEYED). A hinted
 * build refuses a bad snapshot as a fresh one does: a duplicate key, a NULL
 * key, a NULL member id. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/view_build.h"
#include "testutil.h"
#include "view_answers.h"

enum { MM = 24, MS = 10, MK = 700 };

/* Key bytes that stay where they are from tick to tick (a caller that keeps
 * its names), by shard id. */
static char keys[MK][16];

/* A shard: its id, stream id (or -1), replica member ids, leader (or -1). */
typedef struct wshard {
	int id, stream, nrep, rep[3], leader;
} wshard;

/* The caller's arrays, by id, in the caller's order. */
typedef struct world {
	int m[MM], nm;          /* member ids */
	int zone[MM];
	int s[MS], ns;          /* stream ids */
	wshard k[MK];
	int nk;
	int used[MK];           /* shard ids in use */
} world;

static void shuffle_ints(int *a, int n, uint64_t *rng)
{
	for (int i = n; i > 1; i--) {
		int j = (int)tl_below(rng, (uint32_t)i), x = a[i - 1];
		a[i - 1] = a[j];
		a[j] = x;
	}
}

static int find(const int *a, int n, int x)
{
	for (int i = 0; i < n; i++)
		if (a[i] == x)
			return i;
	return -1;
}

/* Replicas of shard x: up to three live members, the first leading or none. */
static void place(world *w, int x, uint64_t *rng)
{
	w->k[x].nrep = 0;
	for (int t = 0; t < 3 && w->nm > 0; t++) {
		int m = w->m[tl_below(rng, (uint32_t)w->nm)];
		if (find(w->k[x].rep, w->k[x].nrep, m) < 0)
			w->k[x].rep[w->k[x].nrep++] = m;
	}
	w->k[x].leader = w->k[x].nrep && tl_below(rng, 5) ? w->k[x].rep[tl_below(rng, (uint32_t)w->k[x].nrep)] : -1;
}

static int new_shard(world *w, uint64_t *rng)
{
	for (int tries = 0; tries < 50; tries++) {
		int id = (int)tl_below(rng, MK);
		if (!w->used[id]) {
			w->used[id] = 1;
			return id;
		}
	}
	return -1;
}

/* Shard id's place: at random, or where it sorts (a topic created). */
static void insert_shard(world *w, int id, uint64_t *rng)
{
	if (w->nk == MK)
		return;
	int at = (int)tl_below(rng, (uint32_t)w->nk + 1);
	if (tl_below(rng, 2))
		for (at = 0; at < w->nk && w->k[at].id < id; at++)
			;
	memmove(&w->k[at + 1], &w->k[at], (size_t)(w->nk - at) * sizeof w->k[0]);
	w->nk++;
	w->k[at].id = id;
	w->k[at].stream = w->ns && tl_below(rng, 6) ? w->s[tl_below(rng, (uint32_t)w->ns)] : -1;
	place(w, at, rng);
}

static void world_init(world *w, uint64_t *rng)
{
	memset(w, 0, sizeof *w);
	for (int i = 0; i < MM; i++)
		w->zone[i] = (int)tl_below(rng, 3);
	w->nm = 6 + (int)tl_below(rng, 8);
	for (int i = 0; i < w->nm; i++)
		w->m[i] = i;
	w->ns = 1 + (int)tl_below(rng, MS - 1);
	for (int i = 0; i < w->ns; i++)
		w->s[i] = i;
	int n = 50 + (int)tl_below(rng, 400);
	for (int i = 0; i < n; i++) {
		int id = new_shard(w, rng);
		if (id >= 0)
			insert_shard(w, id, rng);
	}
}

static void drop_member(world *w, int x)
{
	int id = w->m[x];
	memmove(&w->m[x], &w->m[x + 1], (size_t)(w->nm - x - 1) * sizeof w->m[0]);
	w->nm--;
	for (int i = 0; i < w->nk; i++) {
		int r = find(w->k[i].rep, w->k[i].nrep, id);
		if (r >= 0) {
			w->k[i].rep[r] = w->k[i].rep[--w->k[i].nrep];
			if (w->k[i].leader == id)
				w->k[i].leader = -1;
		}
	}
}

/* One tick's changes: one to three of them. */
static void world_step(world *w, uint64_t *rng)
{
	for (uint32_t c = 1 + tl_below(rng, 3); c > 0; c--) {
		switch (tl_below(rng, 10)) {
		case 0: { /* the shards reordered: all, a block rotated, two swapped */
			uint32_t how = tl_below(rng, 3);
			if (how == 0) {
				for (int i = w->nk; i > 1; i--) {
					int j = (int)tl_below(rng, (uint32_t)i);
					wshard x = w->k[i - 1];
					w->k[i - 1] = w->k[j];
					w->k[j] = x;
				}
			} else if (w->nk > 2) {
				int a = (int)tl_below(rng, (uint32_t)w->nk), b = (int)tl_below(rng, (uint32_t)w->nk);
				wshard x = w->k[a];
				if (how == 1) { /* a moves to b */
					if (a < b)
						memmove(&w->k[a], &w->k[a + 1], (size_t)(b - a) * sizeof x);
					else
						memmove(&w->k[b + 1], &w->k[b], (size_t)(a - b) * sizeof x);
					w->k[b] = x;
				} else {
					w->k[a] = w->k[b];
					w->k[b] = x;
				}
			}
			break;
		}
		case 1: /* shards created */
			for (uint32_t n = 1 + tl_below(rng, 15); n > 0; n--) {
				int id = new_shard(w, rng);
				if (id >= 0)
					insert_shard(w, id, rng);
			}
			break;
		case 2: /* shards deleted */
			for (uint32_t n = 1 + tl_below(rng, 15); n > 0 && w->nk > 1; n--) {
				int x = (int)tl_below(rng, (uint32_t)w->nk);
				w->used[w->k[x].id] = 0;
				memmove(&w->k[x], &w->k[x + 1], (size_t)(w->nk - x - 1) * sizeof w->k[0]);
				w->nk--;
			}
			break;
		case 3: /* a member joins, appended or anywhere */
			for (int id = 0; id < MM; id++)
				if (find(w->m, w->nm, id) < 0) {
					int at = tl_below(rng, 2) ? w->nm : (int)tl_below(rng, (uint32_t)w->nm + 1);
					memmove(&w->m[at + 1], &w->m[at], (size_t)(w->nm - at) * sizeof w->m[0]);
					w->m[at] = id;
					w->nm++;
					break;
				}
			break;
		case 4: /* a member leaves */
			if (w->nm > 2)
				drop_member(w, (int)tl_below(rng, (uint32_t)w->nm));
			break;
		case 5: /* leaders change */
			for (int n = 0; n < 20 && w->nk > 0; n++) {
				int x = (int)tl_below(rng, (uint32_t)w->nk);
				if (tl_below(rng, 3) == 0)
					place(w, x, rng);
				else if (w->k[x].nrep)
					w->k[x].leader = w->k[x].rep[tl_below(rng, (uint32_t)w->k[x].nrep)];
			}
			break;
		case 6: /* the members reordered */
			shuffle_ints(w->m, w->nm, rng);
			break;
		case 7: /* the streams reordered, one added or dropped */
			if (tl_below(rng, 2)) {
				shuffle_ints(w->s, w->ns, rng);
			} else if (w->ns < MS && tl_below(rng, 2)) {
				for (int id = 0; id < MS; id++)
					if (find(w->s, w->ns, id) < 0) {
						int at = (int)tl_below(rng, (uint32_t)w->ns + 1);
						memmove(&w->s[at + 1], &w->s[at], (size_t)(w->ns - at) * sizeof w->s[0]);
						w->s[at] = id;
						w->ns++;
						break;
					}
			} else if (w->ns > 0) {
				int x = (int)tl_below(rng, (uint32_t)w->ns), id = w->s[x];
				memmove(&w->s[x], &w->s[x + 1], (size_t)(w->ns - x - 1) * sizeof w->s[0]);
				w->ns--;
				for (int i = 0; i < w->nk; i++)
					if (w->k[i].stream == id)
						w->k[i].stream = -1;
			}
			break;
		default:
			break; /* nothing changes */
		}
	}
}

/* The world as a snapshot; keys at their fixed bytes, or copies. */
static tl *materialize(const world *w, int copies)
{
	tl *t = tl_new();
	for (int i = 0; i < w->nm; i++)
		tl_member(t, tl_str(t, "member-%02d", w->m[i]), tl_str(t, "zone-%d", w->zone[w->m[i]]));
	for (int i = 0; i < w->ns; i++)
		tl_stream(t, tl_str(t, "stream-%d", w->s[i]));
	for (int i = 0; i < w->nk; i++) {
		int st = w->k[i].stream < 0 ? -1 : find(w->s, w->ns, w->k[i].stream);
		uint32_t k = tl_shard(t, "x", st < 0 ? PL_NONE : (uint32_t)st, PL_NONE, 0);
		const char *key = keys[w->k[i].id];
		t->k[k].key = (pl_bytes){copies ? tl_str(t, "%s", key) : key, strlen(key)};
		for (int r = 0; r < w->k[i].nrep; r++)
			t->k[k].replicas[t->k[k].replica_count++] = (uint32_t)find(w->m, w->nm, w->k[i].rep[r]);
		if (w->k[i].leader >= 0)
			t->k[k].leader = (uint32_t)find(w->m, w->nm, w->k[i].leader);
	}
	tl_snap(t);
	return t;
}

static pl_view *build(const tl *t, const pl_view *reuse, void **mem)
{
	size_t size = pl_view_size(&t->snap);
	*mem = malloc(size);
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	opt.reuse = reuse;
	pl_view *v = NULL;
	pl_diag d;
	int rc = pl_view_init(&v, *mem, size, &t->snap, &opt, &d);
	ck_assert_msg(rc == 0, "pl_view_init: %s (kind %u index %u)", pl_error_name(rc), d.kind, d.index);
	return v;
}

START_TEST(ticks_in_any_order_answer_as_fresh_views)
{
	uint64_t seed = tl_seed(0x6b3e5u);
	uint32_t runs = tl_iters(16), ticks = 0, keyed = 0, tallies = 0;
	for (int i = 0; i < MK; i++)
		snprintf(keys[i], sizeof keys[i], "%s/%05d", i % 3 ? "orders" : "logs", (i * 7919) % 100000);
	for (uint32_t run = 0; run < runs; run++) {
		uint64_t rs = seed + run, rng = rs;
		world w;
		world_init(&w, &rng);
		tl *prev_t = NULL;
		void *prev_mem = NULL;
		pl_view *prev = NULL;
		for (uint32_t tick = 0; tick < 40; tick++) {
			world_step(&w, &rng);
			tl *t = materialize(&w, tl_below(&rng, 4) == 0);
			void *rmem, *fmem;
			pl_view *reused = build(t, prev, &rmem), *fresh = build(t, NULL, &fmem);
			ticks++;
			keyed += (reused->reused & PL__REUSED_KEYED) != 0;
			tallies += (reused->reused & PL__REUSED_TALLIES) != 0;
			same_answers(reused, fresh, t, rs, tick);
			/* The next hint: the reused view (policies ran on it) or a
			 * fresh one, with its homes filled or not. */
			free(prev_mem);
			tl_free(prev_t);
			if (tl_below(&rng, 3) == 0) {
				free(rmem);
				void *m2;
				prev = build(t, NULL, &m2);
				prev_mem = m2;
				if (tl_below(&rng, 2))
					pl_view_home(prev, 0);
			} else {
				prev = reused;
				prev_mem = rmem;
			}
			prev_t = t;
			free(fmem);
		}
		free(prev_mem);
		tl_free(prev_t);
	}
	printf("reuse by key: %u ticks, the order merged by key on %u, tallies reused on %u\n", ticks, keyed, tallies);
	ck_assert_msg(keyed > ticks / 3, "seed %" PRIu64 ": the order was merged by key on %u ticks of %u", seed, keyed,
		      ticks);
}
END_TEST

/* nk shards "k/NNNN" on 5 members, in index order or reversed. */
static tl *plain(uint32_t nk, int reversed)
{
	tl *t = tl_new();
	for (int i = 0; i < 5; i++)
		tl_member(t, tl_str(t, "m%d", i), NULL);
	tl_stream(t, "s");
	for (uint32_t i = 0; i < nk; i++) {
		uint32_t x = reversed ? nk - 1 - i : i;
		tl_shard(t, tl_str(t, "k/%04u", x), 0, x % 5, 2, x % 5, (x + 1) % 5);
	}
	tl_snap(t);
	return t;
}

/* A reordered snapshot with a duplicate key or a NULL key, hinted: the
 * error a fresh build names, at the same index; no view. */
START_TEST(bad_shards_in_another_order)
{
	for (uint32_t nk = 40; nk <= 4000; nk *= 10) { /* a binary search each, or the table */
		tl *t = plain(nk, 0);
		void *m0;
		pl_view *old = build(t, NULL, &m0);
		for (int c = 0; c < 3; c++) {
			tl *u = plain(nk, 1);
			int want = PL_E_DUP_SHARD;
			uint32_t at = nk / 2 + 3, other = 5;
			if (c == 0) {
				u->k[at].key = u->k[other].key; /* a duplicate */
			} else if (c == 1) {
				u->k[at].key.ptr = NULL; /* a NULL key */
				want = PL_E_NULL;
			} else {
				u->k[at].key = (pl_bytes){"k/new", 5};
				u->k[at + 1].key = (pl_bytes){"k/new", 5}; /* a duplicate among the new ones */
				other = at;
				at = at + 1;
			}
			size_t size = pl_view_size(&u->snap);
			void *mem = malloc(size);
			for (int hint = 0; hint < 2; hint++) {
				pl_view_options opt = PL_VIEW_OPTIONS_INIT;
				opt.reuse = hint ? old : NULL;
				pl_view *v = NULL;
				pl_diag d;
				ck_assert_int_eq(pl_view_init(&v, mem, size, &u->snap, &opt, &d), want);
				ck_assert_uint_eq(d.kind, PL_ELEM_SHARD);
				ck_assert_uint_eq(d.index, at);
				if (want == PL_E_DUP_SHARD)
					ck_assert_uint_eq(d.other, other);
				ck_assert_ptr_null(v);
			}
			free(mem);
			tl_free(u);
		}
		/* the same shards reversed: merged by key, answers as fresh */
		tl *u = plain(nk, 1);
		void *m1, *m2;
		pl_view *hinted = build(u, old, &m1), *fresh = build(u, NULL, &m2);
		ck_assert_uint_ne(hinted->reused & PL__REUSED_KEYED, 0);
		same_answers(hinted, fresh, u, nk, 0);
		free(m1);
		free(m2);
		tl_free(u);
		free(m0);
		tl_free(t);
	}
}
END_TEST

/* A member id {NULL, n} where the hint's member had n bytes: PL_E_NULL, as
 * without the hint; the id is not read. */
START_TEST(a_null_member_id_with_a_hint)
{
	tl *t = plain(20, 0);
	void *m0;
	pl_view *old = build(t, NULL, &m0);
	tl *u = plain(20, 0);
	u->m[2].id.ptr = NULL;
	size_t size = pl_view_size(&u->snap);
	void *mem = malloc(size);
	for (int hint = 0; hint < 2; hint++) {
		pl_view_options opt = PL_VIEW_OPTIONS_INIT;
		opt.reuse = hint ? old : NULL;
		pl_view *v = NULL;
		pl_diag d;
		ck_assert_int_eq(pl_view_init(&v, mem, size, &u->snap, &opt, &d), PL_E_NULL);
		ck_assert_uint_eq(d.kind, PL_ELEM_MEMBER);
		ck_assert_uint_eq(d.index, 2);
	}
	free(mem);
	tl_free(u);
	free(m0);
	tl_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("view_reuse_keys");
	TCase *c = tcase_create("ticks");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, ticks_in_any_order_answer_as_fresh_views);
	tcase_add_test(c, bad_shards_in_another_order);
	tcase_add_test(c, a_null_member_id_with_a_hint);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
