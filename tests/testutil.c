/* testutil.c - layouts for the Check suites; see testutil.h. */
#include "testutil.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *grow(void *p, uint32_t *cap, uint32_t need, size_t size)
{
	if (need <= *cap)
		return p;
	uint32_t c = *cap ? *cap * 2 : 16;
	while (c < need)
		c *= 2;
	void *q = realloc(p, (size_t)c * size);
	ck_assert_ptr_nonnull(q);
	memset((char *)q + (size_t)*cap * size, 0, (size_t)(c - *cap) * size);
	*cap = c;
	return q;
}

tl *tl_new(void)
{
	tl *t = calloc(1, sizeof *t);
	ck_assert_ptr_nonnull(t);
	t->snap.version = PL_SNAPSHOT_VERSION; /* tl_snap() sets the rest; a test may change it */
	return t;
}

void tl_free(tl *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->nstr; i++)
		free(t->str[i]);
	free(t->str);
	free(t->m);
	free(t->s);
	free(t->k);
	free(t->o);
	free(t->mem);
	free(t->perm_m);
	free(t->perm_s);
	free(t->perm_k);
	free(t->perm_o);
	free(t);
}

static const char *own(tl *t, char *s)
{
	t->str = grow(t->str, &t->cstr, t->nstr + 1, sizeof *t->str);
	t->str[t->nstr++] = s;
	return s;
}

const char *tl_str(tl *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char buf[4096];
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	size_t n = strlen(buf) + 1;
	char *s = malloc(n);
	if (s)
		memcpy(s, buf, n);
	ck_assert_ptr_nonnull(s);
	return own(t, s);
}

static pl_bytes bytes(tl *t, const char *s)
{
	pl_bytes b = {NULL, 0};
	if (s && *s) {
		b.ptr = tl_str(t, "%s", s);
		b.len = strlen(s);
	}
	return b;
}

uint32_t tl_member(tl *t, const char *id, const char *zone)
{
	t->m = grow(t->m, &t->cm, t->nm + 1, sizeof *t->m);
	pl_member *m = &t->m[t->nm];
	memset(m, 0, sizeof *m);
	m->id = bytes(t, id);
	m->zone = bytes(t, zone);
	m->weight = 1;
	return t->nm++;
}

uint32_t tl_stream(tl *t, const char *id)
{
	t->s = grow(t->s, &t->cs, t->ns + 1, sizeof *t->s);
	t->s[t->ns].id = bytes(t, id);
	return t->ns++;
}

uint32_t tl_shard(tl *t, const char *key, uint32_t stream, uint32_t leader, uint32_t nrep, ...)
{
	t->k = grow(t->k, &t->ck, t->nk + 1, sizeof *t->k);
	pl_shard *k = &t->k[t->nk];
	memset(k, 0, sizeof *k);
	k->key = bytes(t, key);
	k->stream = stream;
	k->leader = leader;
	k->moving_to = PL_NONE;
	va_list ap;
	va_start(ap, nrep);
	for (uint32_t i = 0; i < nrep && i < PL_MAX_REPLICAS; i++)
		k->replicas[i] = va_arg(ap, uint32_t);
	va_end(ap);
	k->replica_count = nrep;
	return t->nk++;
}

uint32_t tl_override(tl *t, uint32_t shard, uint32_t member, uint32_t origin, uint64_t since)
{
	t->o = grow(t->o, &t->co, t->no + 1, sizeof *t->o);
	pl_override *o = &t->o[t->no];
	memset(o, 0, sizeof *o);
	o->shard = shard;
	o->member = member;
	o->origin = origin;
	o->since = since;
	return t->no++;
}

const pl_snapshot *tl_snap(tl *t)
{
	t->snap.members = t->m;
	t->snap.streams = t->s;
	t->snap.shards = t->k;
	t->snap.overrides = t->o;
	t->snap.n_members = t->nm;
	t->snap.n_streams = t->ns;
	t->snap.n_shards = t->nk;
	t->snap.n_overrides = t->no;
	return &t->snap;
}

int tl_view_rc(tl *t, uint32_t scorer, pl_diag *diag)
{
	const pl_snapshot *s = tl_snap(t);
	free(t->mem);
	t->view = NULL;
	size_t size = pl_view_size(s);
	t->mem = malloc(size);
	ck_assert_ptr_nonnull(t->mem);
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	opt.scorer = scorer ? scorer : PL_SCORER_XXH3;
	return pl_view_init(&t->view, t->mem, size, s, &opt, diag);
}

pl_view *tl_view(tl *t, uint32_t scorer)
{
	pl_diag d = {0, 0, 0, 0};
	int rc = tl_view_rc(t, scorer, &d);
	ck_assert_msg(rc == 0, "pl_view_init: %s (kind %u index %u)", pl_error_name(rc), d.kind, d.index);
	return t->view;
}

pl_view *tl_view_fresh(tl *t, void **mem)
{
	const pl_snapshot *s = tl_snap(t);
	size_t size = pl_view_size(s);
	*mem = malloc(size);
	ck_assert_ptr_nonnull(*mem);
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	opt.scorer = PL_SCORER_XXH3;
	pl_view *v;
	ck_assert_int_eq(pl_view_init(&v, *mem, size, s, &opt, NULL), 0);
	return v;
}

pl_view *tl_view_clone(tl *t, const pl_view *v, void **mem)
{
	size_t size = pl_view_size(tl_snap(t));
	*mem = malloc(size);
	ck_assert_ptr_nonnull(*mem);
	pl_view *w;
	ck_assert_int_eq(pl_view_copy(&w, *mem, size, v), 0);
	return w;
}

void tl_apply(pl_view *v, const pl_action *a, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		ck_assert_msg(pl_view_apply(v, &a[i]) == 0, "action %u does not apply", i);
}

const char *tl_say(tl *t, const pl_action *a)
{
	static char buf[1024];
	ck_assert_int_gt(pl_action_explain(tl_snap(t), a, buf, sizeof buf), 0);
	return buf;
}

uint64_t tl_rand(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

uint32_t tl_below(uint64_t *s, uint32_t n)
{
	return n ? (uint32_t)(tl_rand(s) % n) : 0;
}

uint64_t tl_seed(uint64_t fallback)
{
	const char *e = getenv("PL_TEST_SEED");
	return e && *e ? strtoull(e, NULL, 0) : fallback;
}

uint32_t tl_iters(uint32_t fallback)
{
	const char *e = getenv("PL_TEST_ITERS");
	if (e && *e)
		return (uint32_t)strtoul(e, NULL, 0);
	const char *m = getenv("PL_TEST_ITERS_MAX");
	uint32_t max = m && *m ? (uint32_t)strtoul(m, NULL, 0) : 0;
	return max && max < fallback ? max : fallback;
}

static uint32_t *perm(uint64_t *rng, uint32_t n)
{
	uint32_t *p = malloc((size_t)(n ? n : 1) * sizeof *p);
	ck_assert_ptr_nonnull(p);
	for (uint32_t i = 0; i < n; i++)
		p[i] = i;
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = tl_below(rng, i), x = p[i - 1];
		p[i - 1] = p[j];
		p[j] = x;
	}
	return p;
}

static uint32_t map(const uint32_t *p, uint32_t i)
{
	return i == PL_NONE ? PL_NONE : p[i];
}

tl *tl_shuffled(const tl *src, uint64_t *rng)
{
	tl *t = tl_new();
	t->perm_m = perm(rng, src->nm);
	t->perm_s = perm(rng, src->ns);
	t->perm_k = perm(rng, src->nk);
	t->perm_o = perm(rng, src->no);
	t->m = grow(t->m, &t->cm, src->nm, sizeof *t->m);
	t->s = grow(t->s, &t->cs, src->ns, sizeof *t->s);
	t->k = grow(t->k, &t->ck, src->nk, sizeof *t->k);
	t->o = grow(t->o, &t->co, src->no, sizeof *t->o);
	t->nm = src->nm;
	t->ns = src->ns;
	t->nk = src->nk;
	t->no = src->no;
	for (uint32_t i = 0; i < src->nm; i++) {
		pl_member m = src->m[i];
		m.id.ptr = m.id.len ? tl_str(t, "%.*s", (int)m.id.len, m.id.ptr) : NULL;
		m.zone.ptr = m.zone.len ? tl_str(t, "%.*s", (int)m.zone.len, m.zone.ptr) : NULL;
		t->m[t->perm_m[i]] = m;
	}
	for (uint32_t i = 0; i < src->ns; i++) {
		pl_stream s = src->s[i];
		s.id.ptr = s.id.len ? tl_str(t, "%.*s", (int)s.id.len, s.id.ptr) : NULL;
		t->s[t->perm_s[i]] = s;
	}
	for (uint32_t i = 0; i < src->nk; i++) {
		pl_shard k = src->k[i];
		k.key.ptr = k.key.len ? tl_str(t, "%.*s", (int)k.key.len, k.key.ptr) : NULL;
		k.stream = map(t->perm_s, k.stream);
		k.leader = map(t->perm_m, k.leader);
		k.moving_to = map(t->perm_m, k.moving_to);
		/* The replica list is shuffled too: its order carries no meaning. */
		uint32_t *rp = perm(rng, k.replica_count);
		for (uint32_t r = 0; r < k.replica_count; r++)
			k.replicas[rp[r]] = map(t->perm_m, src->k[i].replicas[r]);
		free(rp);
		t->k[t->perm_k[i]] = k;
	}
	for (uint32_t i = 0; i < src->no; i++) {
		pl_override o = src->o[i];
		o.shard = map(t->perm_k, o.shard);
		o.member = map(t->perm_m, o.member);
		t->o[t->perm_o[i]] = o;
	}
	return t;
}

void tl_add_replicas(tl *t, uint32_t k, uint32_t n, uint64_t *rng)
{
	pl_shard *sh = &t->k[k];
	while (sh->replica_count < n) {
		uint32_t c = tl_below(rng, t->nm), dup = 0;
		for (uint32_t r = 0; r < sh->replica_count; r++)
			dup |= sh->replicas[r] == c;
		if (!dup)
			sh->replicas[sh->replica_count++] = c;
	}
}

tl *tl_random(uint64_t *rng, uint32_t members, uint32_t streams, uint32_t shards, uint32_t rf, int zones)
{
	tl *t = tl_new();
	uint32_t nz = zones ? 1 + tl_below(rng, members < 4 ? members : 4) : 0;
	for (uint32_t i = 0; i < members; i++) {
		const char *zone = nz ? tl_str(t, "z%u", i % nz) : NULL;
		tl_member(t, tl_str(t, "m%02u", i), zone);
	}
	for (uint32_t i = 0; i < streams; i++)
		tl_stream(t, tl_str(t, "s%u", i));
	if (rf > members)
		rf = members;
	if (rf > PL_MAX_REPLICAS)
		rf = PL_MAX_REPLICAS;
	/* Skew: a favourite member that takes a large part of the leaders. */
	uint32_t fav = tl_below(rng, members ? members : 1), skew = tl_below(rng, 100);
	for (uint32_t i = 0; i < shards; i++) {
		uint32_t st = streams ? tl_below(rng, streams) : PL_NONE;
		uint32_t k = tl_shard(t, tl_str(t, "k%05u", i), st, PL_NONE, 0);
		if (members == 0 || rf == 0)
			continue;
		uint32_t lead = tl_below(rng, 100) < skew ? fav : tl_below(rng, members);
		pl_shard *sh = &t->k[k];
		sh->replicas[0] = lead;
		sh->replica_count = 1;
		tl_add_replicas(t, k, rf, rng);
		sh->leader = lead;
	}
	return t;
}

pl_tally tl_member_tally(const pl_view *v, uint32_t m)
{
	pl_tally t;
	ck_assert_int_eq(pl_view_member_tally(v, m, &t), 0);
	return t;
}

pl_tally tl_stream_tally(const pl_view *v, uint32_t s, uint32_t m)
{
	pl_tally t;
	ck_assert_int_eq(pl_view_stream_tally(v, s, m, &t), 0);
	return t;
}

pl_action tl_action(uint32_t kind, uint32_t reason, uint32_t shard, uint32_t stream, uint32_t from, uint32_t to)
{
	pl_action a;
	memset(&a, 0, sizeof a);
	a.kind = kind;
	a.reason = reason;
	a.shard = shard;
	a.stream = stream;
	a.from = from;
	a.to = to;
	return a;
}

int tl_run(Suite *s)
{
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
