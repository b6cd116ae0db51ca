/*
 * guard_util.h - the fixture the guard suites (check_guard*.c) share: a
 * layout with a view, the bytes of the view and of the snapshot's arrays
 * remembered and checked unwritten, memory inside the view, and the
 * PL_E_OVERLAP a refusal must give.
 * Header-only: every function is static inline, so a suite that does not use
 * one does not warn.
 */
#ifndef PL_GUARD_UTIL_H
#define PL_GUARD_UTIL_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"
#include "testutil.h"

/* A layout the broker wants to change: six shards of one stream, all led by
 * b0, on three members; a fleet override and an in-flight-free region set. */
typedef struct fx {
	tl *t;
	const pl_snapshot *s;
	char *mem;
	size_t size;
	pl_view *v;
	char *keep_view, *keep_members, *keep_shards;
} fx;

static inline fx *fx_new(void)
{
	fx *f = calloc(1, sizeof *f);
	f->t = tl_new();
	tl_member(f->t, "b0", "z0");
	tl_member(f->t, "b1", "z1");
	tl_member(f->t, "b2", "z2");
	tl_stream(f->t, "orders");
	for (uint32_t k = 0; k < 6; k++)
		tl_shard(f->t, tl_str(f->t, "orders/%02u", k), 0, 0, 2, 0u, 1u + k % 2);
	tl_override(f->t, 0, 1, PL_ORIGIN_COUNT, 3);
	f->s = tl_snap(f->t);
	f->size = pl_view_size(f->s);
	f->mem = calloc(1, f->size);
	pl_diag d;
	ck_assert_int_eq(pl_view_init(&f->v, f->mem, f->size, f->s, NULL, &d), 0);
	return f;
}

/* Remember the bytes of the view and of the snapshot's arrays. */
static inline void fx_keep(fx *f)
{
	free(f->keep_view);
	free(f->keep_members);
	free(f->keep_shards);
	f->keep_view = malloc(f->size);
	memcpy(f->keep_view, f->mem, f->size);
	f->keep_members = malloc(f->t->nm * sizeof(pl_member));
	memcpy(f->keep_members, f->t->m, f->t->nm * sizeof(pl_member));
	f->keep_shards = malloc(f->t->nk * sizeof(pl_shard));
	memcpy(f->keep_shards, f->t->k, f->t->nk * sizeof(pl_shard));
}

/* ... and check that nothing of them was written. */
static inline void fx_unchanged(const fx *f)
{
	ck_assert_mem_eq(f->mem, f->keep_view, f->size);
	ck_assert_mem_eq(f->t->m, f->keep_members, f->t->nm * sizeof(pl_member));
	ck_assert_mem_eq(f->t->k, f->keep_shards, f->t->nk * sizeof(pl_shard));
}

static inline void fx_free(fx *f)
{
	free(f->keep_view);
	free(f->keep_members);
	free(f->keep_shards);
	free(f->mem);
	tl_free(f->t);
	free(f);
}

/* Memory inside the view: `off` bytes past its start (8-aligned). */
static inline void *in_view(const fx *f, size_t off)
{
	ck_assert_uint_lt(off + 256, f->size);
	return f->mem + off;
}

static inline void expect_overlap(int rc, const pl_diag *d, uint32_t arg)
{
	ck_assert_int_eq(rc, PL_E_OVERLAP);
	ck_assert_int_eq(d->code, PL_E_OVERLAP);
	ck_assert_uint_eq(d->kind, PL_ELEM_ARGUMENT);
	ck_assert_uint_eq(d->index, arg);
}

#endif
