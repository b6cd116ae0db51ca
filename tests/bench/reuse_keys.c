/*
 * reuse_keys.c - a view built with the previous tick's view as a hint when
 * the snapshot's arrays changed shape: 1,000,000 shards, 1,000 members,
 * 10,000 streams of 100 (RF 3, max_replicas 3, keys topic-NNNNN/PPP). Each
 * change below is built against the same previous view, as a ratio to one
 * plain pass over the shard keys, with a fresh build of the same snapshot
 * beside it; the two views' answers are compared (every order, every
 * member's tallies, every shard's state, a broker plan and a fleet decision).
 * On the sorted and the reordered snapshot, one broker decision is timed
 * too: a policy's walk should not depend on the caller's array order.
 * Each change is also timed as a whole tick of a control plane's loop: the
 * view built with last tick's view as the hint (last tick's broker plan and
 * fleet decision applied to it, its ring homes filled), then this tick's
 * broker plan (max_moves 256) and fleet decision; a fresh build and the
 * same decisions beside it, their actions compared.
 *  - nothing changed (same content, same order);
 *  - the same content with every array in another order (members, streams
 *    and shards shuffled, as a snapshot built from a hash map);
 *  - one stream of 12 shards created, inserted at its sorted place;
 *  - one stream of 100 shards deleted;
 *  - one member joined (appended);
 *  - one member down;
 *  - 1% of the shards led by another of their replicas (last tick's moves).
 * Each snapshot's id and key bytes stay where they were.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { NM = 1000, NS = 10000, PER = 100, NK = NS * PER, NEW_PER = 12 };

typedef struct snap {
	pl_member *m;
	pl_stream *s;
	pl_shard *k;
	uint32_t nm, ns, nk;
	pl_snapshot snap;
} snap;

static char (*mids)[16], (*sids)[16], (*keys)[20], new_sid[16], new_keys[NEW_PER][20];

static void snap_alloc(snap *x, uint32_t nm, uint32_t ns, uint32_t nk)
{
	x->m = calloc(nm, sizeof *x->m);
	x->s = calloc(ns, sizeof *x->s);
	x->k = calloc(nk, sizeof *x->k);
	x->nm = nm;
	x->ns = ns;
	x->nk = nk;
}

static void snap_done(snap *x)
{
	x->snap = (pl_snapshot){.version = PL_SNAPSHOT_VERSION, .members = x->m, .streams = x->s, .shards = x->k,
				.n_members = x->nm, .n_streams = x->ns, .n_shards = x->nk};
}

static void snap_free(snap *x)
{
	free(x->m);
	free(x->s);
	free(x->k);
}

static void shard_at(pl_shard *k, const char *key, uint32_t stream, uint64_t *rng, uint32_t nm)
{
	memset(k, 0, sizeof *k);
	k->key = (pl_bytes){key, strlen(key)};
	k->stream = stream;
	k->moving_to = PL_NONE;
	*rng = *rng * 6364136223846793005u + 1442695040888963407u;
	uint32_t a = (uint32_t)(*rng >> 33) % nm;
	k->replica_count = 3;
	for (uint32_t r = 0; r < 3; r++)
		k->replicas[r] = (a + r * 7) % nm;
	k->leader = a;
}

/* The base tick: every array in id order. */
static void base(snap *x)
{
	snap_alloc(x, NM, NS, NK);
	uint64_t rng = 42;
	for (uint32_t i = 0; i < NM; i++) {
		x->m[i].id = (pl_bytes){mids[i], strlen(mids[i])};
		x->m[i].weight = 1;
	}
	for (uint32_t i = 0; i < NS; i++)
		x->s[i].id = (pl_bytes){sids[i], strlen(sids[i])};
	for (uint32_t i = 0; i < NK; i++)
		shard_at(&x->k[i], keys[i], i / PER, &rng, NM);
	snap_done(x);
}

static void copy_of(snap *x, const snap *b)
{
	snap_alloc(x, b->nm, b->ns, b->nk);
	memcpy(x->m, b->m, b->nm * sizeof *x->m);
	memcpy(x->s, b->s, b->ns * sizeof *x->s);
	memcpy(x->k, b->k, b->nk * sizeof *x->k);
	snap_done(x);
}

static void shuffle_u32(uint32_t *p, uint32_t n, uint64_t *rng)
{
	for (uint32_t i = n; i > 1; i--) {
		*rng = *rng * 6364136223846793005u + 1442695040888963407u;
		uint32_t j = (uint32_t)((*rng >> 33) % i), t = p[i - 1];
		p[i - 1] = p[j];
		p[j] = t;
	}
}

/* Every array of b in another order, the indices renamed. */
static void reordered(snap *x, const snap *b)
{
	snap_alloc(x, b->nm, b->ns, b->nk);
	uint64_t rng = 7;
	uint32_t *pm = malloc(b->nm * sizeof *pm), *ps = malloc(b->ns * sizeof *ps), *pk = malloc(b->nk * sizeof *pk);
	uint32_t *im = malloc(b->nm * sizeof *im), *is = malloc(b->ns * sizeof *is);
	for (uint32_t i = 0; i < b->nm; i++)
		pm[i] = i;
	for (uint32_t i = 0; i < b->ns; i++)
		ps[i] = i;
	for (uint32_t i = 0; i < b->nk; i++)
		pk[i] = i;
	shuffle_u32(pm, b->nm, &rng);
	shuffle_u32(ps, b->ns, &rng);
	shuffle_u32(pk, b->nk, &rng);
	for (uint32_t i = 0; i < b->nm; i++) {
		x->m[i] = b->m[pm[i]];
		im[pm[i]] = i;
	}
	for (uint32_t i = 0; i < b->ns; i++) {
		x->s[i] = b->s[ps[i]];
		is[ps[i]] = i;
	}
	for (uint32_t i = 0; i < b->nk; i++) {
		pl_shard *k = &x->k[i];
		*k = b->k[pk[i]];
		k->stream = is[k->stream];
		k->leader = im[k->leader];
		for (uint32_t r = 0; r < k->replica_count; r++)
			k->replicas[r] = im[k->replicas[r]];
	}
	free(pm);
	free(ps);
	free(pk);
	free(im);
	free(is);
	snap_done(x);
}

/* A stream of NEW_PER shards created, in its sorted place after stream at. */
static void inserted(snap *x, const snap *b, uint32_t at)
{
	snap_alloc(x, b->nm, b->ns + 1, b->nk + NEW_PER);
	memcpy(x->m, b->m, b->nm * sizeof *x->m);
	memcpy(x->s, b->s, (at + 1) * sizeof *x->s);
	x->s[at + 1].id = (pl_bytes){new_sid, strlen(new_sid)};
	memcpy(x->s + at + 2, b->s + at + 1, (b->ns - at - 1) * sizeof *x->s);
	uint32_t cut = (at + 1) * PER;
	memcpy(x->k, b->k, cut * sizeof *x->k);
	uint64_t rng = 9;
	for (uint32_t j = 0; j < NEW_PER; j++)
		shard_at(&x->k[cut + j], new_keys[j], at + 1, &rng, b->nm);
	for (uint32_t i = cut; i < b->nk; i++) {
		x->k[i + NEW_PER] = b->k[i];
		x->k[i + NEW_PER].stream++;
	}
	snap_done(x);
}

/* Stream at and its shards deleted. */
static void deleted(snap *x, const snap *b, uint32_t at)
{
	snap_alloc(x, b->nm, b->ns - 1, b->nk - PER);
	memcpy(x->m, b->m, b->nm * sizeof *x->m);
	memcpy(x->s, b->s, at * sizeof *x->s);
	memcpy(x->s + at, b->s + at + 1, (b->ns - at - 1) * sizeof *x->s);
	memcpy(x->k, b->k, at * PER * sizeof *x->k);
	for (uint32_t i = (at + 1) * PER; i < b->nk; i++) {
		x->k[i - PER] = b->k[i];
		x->k[i - PER].stream--;
	}
	snap_done(x);
}

/* One member appended. */
static void joined(snap *x, const snap *b)
{
	snap_alloc(x, b->nm + 1, b->ns, b->nk);
	memcpy(x->m, b->m, b->nm * sizeof *x->m);
	x->m[b->nm].id = (pl_bytes){mids[b->nm], strlen(mids[b->nm])};
	x->m[b->nm].weight = 1;
	memcpy(x->s, b->s, b->ns * sizeof *x->s);
	memcpy(x->k, b->k, b->nk * sizeof *x->k);
	snap_done(x);
}

/* One member down (its replicas stay where they are). */
static void member_down(snap *x, const snap *b)
{
	copy_of(x, b);
	x->m[NM / 2].flags |= PL_MEMBER_DOWN;
}

/* Last tick's moves carried out: 1% of the shards led by another replica. */
static void leaders_changed(snap *x, const snap *b)
{
	copy_of(x, b);
	for (uint32_t i = 0; i < x->nk; i += 100)
		x->k[i].leader = x->k[i].replicas[1];
}

static pl_view *build(const snap *x, const pl_view *hint, void *mem, size_t size)
{
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	opt.reuse = hint;
	opt.max_replicas = 3;
	pl_view *v = NULL;
	if (pl_view_init(&v, mem, size, &x->snap, &opt, NULL) != 0) {
		fprintf(stderr, "bench: view init failed\n");
		exit(1);
	}
	return v;
}

static size_t size_of(const snap *x)
{
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	opt.max_replicas = 3;
	return pl_view_size_opt(&x->snap, &opt);
}

/* Do a and b, two views of x, answer alike? */
static int same_answers(pl_view *a, pl_view *b, const snap *x)
{
	uint32_t kinds[3] = {PL_ELEM_MEMBER, PL_ELEM_STREAM, PL_ELEM_SHARD}, n[3] = {x->nm, x->ns, x->nk};
	for (int e = 0; e < 3; e++)
		for (uint32_t i = 0; i < n[e]; i++)
			if (pl_view_at(a, kinds[e], i) != pl_view_at(b, kinds[e], i))
				return 0;
	for (uint32_t m = 0; m < x->nm; m++) {
		pl_tally ta, tb;
		memset(&ta, 0, sizeof ta);
		memset(&tb, 0, sizeof tb);
		if (pl_view_member_tally(a, m, &ta) != pl_view_member_tally(b, m, &tb) || memcmp(&ta, &tb, sizeof ta))
			return 0;
	}
	for (uint32_t k = 0; k < x->nk; k++) {
		pl_shard_state sa, sb;
		memset(&sa, 0, sizeof sa);
		memset(&sb, 0, sizeof sb);
		if (pl_view_shard_state(a, k, &sa) != pl_view_shard_state(b, k, &sb) || memcmp(&sa, &sb, sizeof sa))
			return 0;
	}
	static pl_action oa[64], ob[64];
	pl_broker_config bc = PL_BROKER_CONFIG_INIT;
	bc.max_moves = 16;
	memset(oa, 0, sizeof oa);
	memset(ob, 0, sizeof ob);
	int ra = pl_broker_plan(a, &bc, oa, 64, NULL, NULL), rb = pl_broker_plan(b, &bc, ob, 64, NULL, NULL);
	if (ra != rb || (ra > 0 && memcmp(oa, ob, (size_t)ra * sizeof *oa)))
		return 0;
	pl_fleet_config fc = PL_FLEET_CONFIG_INIT;
	memset(oa, 0, sizeof oa);
	memset(ob, 0, sizeof ob);
	ra = pl_fleet_decide(a, &fc, oa, 64, NULL, NULL);
	rb = pl_fleet_decide(b, &fc, ob, 64, NULL, NULL);
	return ra == rb && (ra <= 0 || memcmp(oa, ob, (size_t)ra * sizeof *oa) == 0);
}

/* One tick's decisions on v: a broker plan (max_moves 256) and a fleet
 * decision, each applied to v as a policy does. The actions go to out
 * (room for both); returns how many. */
static int tick(pl_view *v, pl_action *out, uint32_t room)
{
	pl_broker_config bc = PL_BROKER_CONFIG_INIT;
	bc.max_moves = PL_BROKER_MAX_MOVES;
	int n = pl_broker_plan(v, &bc, out, PL_BROKER_MAX_MOVES, NULL, NULL);
	pl_fleet_config fc = PL_FLEET_CONFIG_INIT;
	int f = pl_fleet_decide(v, &fc, out + (n > 0 ? n : 0), room - PL_BROKER_MAX_MOVES, NULL, NULL);
	if (n < 0 || f < 0) {
		fprintf(stderr, "bench: a tick's decision failed\n");
		exit(1);
	}
	return n + f;
}

static double key_pass_ms(const snap *x)
{
	double best = 1e30;
	for (int r = 0; r < 5; r++) {
		uint64_t t0 = bench_now(), acc = 0;
		for (uint32_t i = 0; i < x->nk; i++) {
			const unsigned char *p = (const unsigned char *)x->k[i].key.ptr;
			for (uint64_t j = 0; j < x->k[i].key.len; j++)
				acc += p[j];
		}
		bench_keep(acc);
		double ms = bench_ms_since(t0);
		best = ms < best ? ms : best;
	}
	return best;
}

void bench_reuse_keys(void)
{
	mids = malloc((NM + 1) * sizeof *mids);
	sids = malloc(NS * sizeof *sids);
	keys = malloc(NK * sizeof *keys);
	for (uint32_t i = 0; i <= NM; i++)
		snprintf(mids[i], sizeof mids[i], "broker-%04u", i);
	for (uint32_t i = 0; i < NS; i++)
		snprintf(sids[i], sizeof sids[i], "topic-%05u", i);
	for (uint32_t i = 0; i < NK; i++)
		snprintf(keys[i], sizeof keys[i], "topic-%05u/%03u", i / PER, i % PER);
	/* the new stream sorts between topic-04999 and topic-05000 */
	snprintf(new_sid, sizeof new_sid, "topic-04999x");
	for (uint32_t j = 0; j < NEW_PER; j++)
		snprintf(new_keys[j], sizeof new_keys[j], "topic-04999x/%03u", j);

	printf("\n== view build with the previous view as a hint, arrays changed: %u shards, %u members,"
	       " %u streams of %u, RF 3 (max_replicas 3)\n",
	       NK, NM, NS, PER);
	snap b;
	base(&b);
	size_t bsize = size_of(&b);
	void *bmem = malloc(bsize);
	memset(bmem, 0, bsize);
	double keyp = key_pass_ms(&b);
	printf("one pass over the keys %.1f ms; view %.1f bytes a shard\n", keyp, (double)bsize / NK);
	static const char *const names[] = {"nothing changed",	 "every array reordered", "one stream of 12 inserted",
					    "one stream of 100 deleted", "one member joined",	  "one member down",
					    "1% of the leaders changed"};
	double sorted_decide = 0;
	for (int c = 0; c < 7; c++) {
		snap x;
		if (c == 0)
			copy_of(&x, &b);
		else if (c == 1)
			reordered(&x, &b);
		else if (c == 2)
			inserted(&x, &b, NS / 2 - 1);
		else if (c == 3)
			deleted(&x, &b, NS / 2);
		else if (c == 4)
			joined(&x, &b);
		else if (c == 5)
			member_down(&x, &b);
		else
			leaders_changed(&x, &b);
		size_t size = size_of(&x);
		void *rmem = malloc(size), *fmem = malloc(size);
		memset(rmem, 0, size);
		memset(fmem, 0, size);
		double fresh = 1e30, reused = 1e30, decide = 1e30;
		int ok = 1;
		for (int r = 0; r < 5; r++) {
			pl_view *prev = build(&b, NULL, bmem, bsize);
			uint64_t t0 = bench_now();
			pl_view *vr = build(&x, prev, rmem, size);
			double ms = bench_ms_since(t0);
			reused = ms < reused ? ms : reused;
			t0 = bench_now();
			pl_view *vf = build(&x, NULL, fmem, size);
			ms = bench_ms_since(t0);
			fresh = ms < fresh ? ms : fresh;
			if (r == 0)
				ok = same_answers(vr, vf, &x);
			if (c <= 1) { /* the same content, sorted and reordered: one broker decision */
				pl_broker_config bc = PL_BROKER_CONFIG_INIT;
				static pl_action out[PL_BROKER_MAX_MOVES];
				bc.max_moves = PL_BROKER_MAX_MOVES;
				t0 = bench_now();
				int n = pl_broker_plan(vf, &bc, out, PL_BROKER_MAX_MOVES, NULL, NULL);
				ms = bench_ms_since(t0);
				decide = ms < decide ? ms : decide;
				bench_keep((uint64_t)n);
			}
		}
		/* The whole tick as a control plane's loop runs it: the hint is
		 * last tick's view, on which last tick's decisions ran (their
		 * actions applied, the ring homes filled); this tick builds its
		 * view with it and decides (broker and fleet). Beside it, the
		 * same from a fresh build (which fills every home). */
		double tick_r = 1e30, tick_f = 1e30;
		for (int r = 0; r < 3; r++) {
			static pl_action last[PL_BROKER_MAX_MOVES + 64], ar[PL_BROKER_MAX_MOVES + 64],
				af[PL_BROKER_MAX_MOVES + 64];
			pl_view *prev = build(&b, NULL, bmem, bsize);
			tick(prev, last, PL_BROKER_MAX_MOVES + 64);
			uint64_t t0 = bench_now();
			pl_view *vr = build(&x, prev, rmem, size);
			int nr = tick(vr, ar, PL_BROKER_MAX_MOVES + 64);
			double ms = bench_ms_since(t0);
			tick_r = ms < tick_r ? ms : tick_r;
			t0 = bench_now();
			pl_view *vf = build(&x, NULL, fmem, size);
			int nf = tick(vf, af, PL_BROKER_MAX_MOVES + 64);
			ms = bench_ms_since(t0);
			tick_f = ms < tick_f ? ms : tick_f;
			ok = ok && nr == nf && memcmp(ar, af, (size_t)nr * sizeof *ar) == 0;
		}
		printf("%-28s reused %7.1f ms %6.2fx   fresh %7.1f ms %6.2fx   answers %s\n", names[c], reused,
		       reused / keyp, fresh, fresh / keyp, ok ? "equal" : "DIFFER");
		printf("%-28s whole tick: reused %7.1f ms %6.2fx   fresh %7.1f ms %6.2fx\n", "", tick_r, tick_r / keyp,
		       tick_f, tick_f / keyp);
		if (c == 0)
			sorted_decide = decide;
		if (c == 1) {
			printf("%-28s broker decision %.1f ms on the sorted snapshot, %.1f ms on the reordered one\n", "",
			       sorted_decide, decide);
			printf("broker-decision-reordered-vs-sorted: %.2fx (target <= 1.2x) %s\n", decide / sorted_decide,
			       decide / sorted_decide <= 1.2 ? "ok" : "MISSED");
		}
		if (!ok)
			exit(1);
		free(rmem);
		free(fmem);
		snap_free(&x);
	}
	free(bmem);
	snap_free(&b);
	free(mids);
	free(sids);
	free(keys);
}
