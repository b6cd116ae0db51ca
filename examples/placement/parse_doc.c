/*
 * parse_doc.c - the document of a snapshot file: its arrays, the bytes of its
 * ids, the hash tables of its ids, and the error of a parse.
 */
#define _DEFAULT_SOURCE /* madvise() and MADV_HUGEPAGE, where there are */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "parse.h"

int pt_fail(pt_err *e, uint64_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	e->line = line;
	return -1;
}

/* ---- the document ------------------------------------------------------------ */

void pt_doc_init(pt_doc *d, const char *path)
{
	memset(d, 0, sizeof *d);
	d->path = path;
}

static void table_free(pt_table *t)
{
	free(t->slot);
	memset(t, 0, sizeof *t);
}

void pt_doc_free(pt_doc *d)
{
	pt_arena_free(&d->bytes);
	free(d->members);
	free(d->m_line);
	free(d->m_last_move);
	free(d->m_capacity);
	free(d->streams);
	free(d->s_line);
	free(d->s_tolerance);
	free(d->s_zone_rule);
	free(d->s_flags);
	free(d->shards);
	free(d->k_line);
	free(d->k_bytes);
	free(d->overrides);
	free(d->o_line);
	free(d->events);
	free(d->copies);
	free(d->c_line);
	table_free(&d->tm);
	table_free(&d->ts);
	table_free(&d->tk);
	memset(d, 0, sizeof *d);
}

pl_bytes pt_keep(pt_doc *d, word w)
{
	return pt_arena_put(&d->bytes, w.p, w.n);
}

pl_snapshot pt_doc_snapshot(const pt_doc *d)
{
	pl_snapshot s = {.version = PL_SNAPSHOT_VERSION, .members = d->members, .streams = d->streams,
			.shards = d->shards, .overrides = d->overrides, .copies = d->copies, .n_members = d->nm,
			.n_streams = d->ns, .n_shards = d->nk, .n_overrides = d->no, .n_copies = d->nc};
	if (d->has_bytes) { /* else every size is unknown: the arrays stay NULL */
		s.shard_bytes = d->nk ? d->k_bytes : NULL;
		s.member_capacity = d->nm ? d->m_capacity : NULL;
	}
	if (d->has_rules && d->ns) { /* else every stream takes the defaults */
		s.stream_tolerance = d->s_tolerance;
		s.stream_zone_rule = d->s_zone_rule;
	}
	if (d->has_keep && d->ns) /* else no stream is kept */
		s.stream_flags = d->s_flags;
	return s;
}

/* ---- hash tables of ids ---------------------------------------------------------- */

pl_bytes pt_member_id(const pt_doc *d, uint32_t i)
{
	return d->members[i].id;
}
pl_bytes pt_stream_id(const pt_doc *d, uint32_t i)
{
	return d->streams[i].id;
}
pl_bytes pt_shard_key(const pt_doc *d, uint32_t i)
{
	return d->shards[i].key;
}

/* The tables' hash of an id: 8 bytes a step, multiply and xor-shift (the
 * finaliser of splitmix64). Only the tables use it; no result depends on it. */
uint64_t pt_id_hash(const char *p, size_t n)
{
	uint64_t h = UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)n;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = (h ^ w) * UINT64_C(0xBF58476D1CE4E5B9);
		h ^= h >> 31;
		p += 8;
		n -= 8;
	}
	uint64_t w = 0;
	if (n)
		memcpy(&w, p, n);
	h = (h ^ w) * UINT64_C(0x94D049BB133111EB);
	h ^= h >> 29;
	h *= UINT64_C(0xBF58476D1CE4E5B9);
	return h ^ (h >> 32);
}

int pt_same_id(pl_bytes a, const char *p, size_t n)
{
	return a.len == n && (n == 0 || memcmp(a.ptr, p, n) == 0);
}

int64_t pt_table_find(const pt_doc *d, const pt_table *t, id_at_fn at, const char *p, size_t n, uint64_t h)
{
	if (t->slot == NULL)
		return -1;
	uint64_t tag = h >> 32;
	for (size_t i = (size_t)tag & t->mask;; i = (i + 1) & t->mask) {
		uint64_t s = t->slot[i];
		if (s == 0)
			return -1;
		if ((s >> 32) == tag) {
			uint32_t idx = (uint32_t)(s & 0xffffffffu) - 1;
			if (pt_same_id(at(d, idx), p, n))
				return idx;
		}
	}
}

/* A big table is read at random: on Linux, ask for huge pages, so a probe
 * costs a cache miss and not also a TLB miss. */
uint64_t *pt_table_alloc(size_t n)
{
	size_t bytes = n * sizeof(uint64_t);
	void *p = NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (bytes >= (size_t)4 << 20) {
		if (posix_memalign(&p, (size_t)2 << 20, bytes) != 0)
			pt_oom();
		madvise(p, bytes, MADV_HUGEPAGE);
		memset(p, 0, bytes);
		return p;
	}
#endif
	p = calloc(n, sizeof(uint64_t));
	if (p == NULL)
		pt_oom();
	return p;
}

/* A slot holds the hash's high 32 bits (its tag, which also gives its place)
 * and the index + 1, so growing the table reads no id again. */
void pt_table_put_slot(pt_table *t, uint64_t slot)
{
	size_t i = (size_t)(slot >> 32) & t->mask;
	while (t->slot[i] != 0)
		i = (i + 1) & t->mask;
	t->slot[i] = slot;
	t->used++;
}

/* Insert index idx (whose id is already in its array) with hash h. */
void pt_table_insert(pt_table *t, uint32_t idx, uint64_t h)
{
	if (t->slot == NULL || (t->used + 1) * 2 > t->mask + 1) {
		size_t n = t->slot ? (t->mask + 1) * 2 : 64;
		uint64_t *old = t->slot;
		size_t old_n = t->slot ? t->mask + 1 : 0;
		t->slot = pt_table_alloc(n);
		t->mask = n - 1;
		t->used = 0;
		for (size_t i = 0; i < old_n; i++)
			if (old[i])
				pt_table_put_slot(t, old[i]);
		free(old);
	}
	pt_table_put_slot(t, ((h >> 32) << 32) | ((uint64_t)idx + 1));
}

int64_t pt_find_member(const pt_doc *d, const char *id, size_t len)
{
	return pt_table_find(d, &d->tm, pt_member_id, id, len, pt_id_hash(id, len));
}
