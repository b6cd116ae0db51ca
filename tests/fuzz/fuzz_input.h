/*
 * fuzz_input.h - what the libFuzzer harnesses share: a reader that turns the
 * input bytes into bounded numbers and short byte strings, and the decoder
 * of a general snapshot (up to 12 members, 4 streams, 40 shards and 6
 * overrides, any field possibly out of range) that fuzz_snapshot.c and
 * fuzz_broker.c start from. fuzz_fleet.c and fuzz_region.c build smaller
 * snapshots of their own with the same reader and member ids (and, for the
 * fleet, overrides).
 *
 * count_valid() keeps the share of a harness's inputs whose snapshot passed
 * validation; with PL_FUZZ_STATS set in the environment it is printed at
 * exit.
 *
 * Each harness is one .c file built on its own with the library sources, so
 * everything here is static. The order in which bytes are taken is part of
 * what a kept corpus means: change it and every stored input decodes to
 * something else.
 */
#ifndef PL_FUZZ_INPUT_H
#define PL_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"

typedef struct in {
	const uint8_t *p;
	size_t n;
} in;

/* The next two bytes (fewer at the end, 0 when none are left), modulo bound
 * unless bound is 0. */
static inline uint32_t take(in *s, uint32_t bound)
{
	uint32_t v = 0;
	for (int i = 0; i < 2 && s->n; i++) {
		v = (v << 8) | *s->p++;
		s->n--;
	}
	return bound ? v % bound : v;
}

/* An index below n, or n itself (out of range), or PL_NONE. */
static inline uint32_t index_or_none(in *s, uint32_t n)
{
	uint32_t v = take(s, n + 2);
	return v == n + 1 ? PL_NONE : v; /* sometimes n itself: out of range */
}

/* Strings made by text() live here until the next input resets pool_used. */
static char pool[1 << 14];
static size_t pool_used;

/* Up to 4 bytes from a small alphabet (with a NUL and a '/'), sometimes
 * empty (so ids reach PL_E_EMPTY_ID), sometimes a NULL pointer with a length. */
static inline pl_bytes text(in *s)
{
	static const char alphabet[] = "ab0/\0z";
	uint32_t len = take(s, 5);
	if (pool_used + len > sizeof pool)
		len = 0;
	char *p = pool + pool_used;
	for (uint32_t i = 0; i < len; i++)
		p[i] = alphabet[take(s, sizeof alphabet - 1)];
	pool_used += len;
	pl_bytes b = {len ? p : NULL, len};
	if (take(s, 64) == 0)
		b.ptr = NULL; /* NULL with a length */
	return b;
}

/* A member id "m0" .. "m11" written into buf; with a dozen ids for up to
 * nine members, two members often share one. */
static inline pl_bytes read_member_id(in *s, char buf[8])
{
	int n = snprintf(buf, 8, "m%u", take(s, 12));
	return (pl_bytes){buf, (uint64_t)n};
}

/* Fills o[0..no): each names a shard up to nk and a member up to nm (so one
 * past the end at times), any origin below 3, any time. */
static inline void read_overrides(in *s, pl_override *o, uint32_t no, uint32_t nk, uint32_t nm)
{
	for (uint32_t i = 0; i < no; i++) {
		o[i].shard = take(s, nk + 1);
		o[i].member = take(s, nm + 1);
		o[i].origin = take(s, 3);
		o[i].since = take(s, 0);
	}
}

/* The arrays a general snapshot points into. */
typedef struct fuzz_snapshot {
	pl_member m[12];
	pl_stream st[4];
	pl_shard k[40];
	pl_override o[6];
	pl_copy c[4];
} fuzz_snapshot;

/* A general snapshot, often a malformed one: every field of every member,
 * stream, shard and override read from s into f, which the result points
 * into; sometimes the shard array is NULL with a count. Resets the pool. */
static inline pl_snapshot read_snapshot(in *s, fuzz_snapshot *f)
{
	pl_member *m = f->m;
	pl_stream *st = f->st;
	pl_shard *k = f->k;
	pl_override *o = f->o;
	memset(m, 0, sizeof f->m);
	memset(k, 0, sizeof f->k);
	memset(o, 0, sizeof f->o);
	pool_used = 0;
	uint32_t nm = take(s, 12), ns = take(s, 5), nk = take(s, 41), no = take(s, 7);
	if (ns > 4)
		ns = 4;
	if (nk > 40)
		nk = 40;
	if (no > 6)
		no = 6;
	for (uint32_t i = 0; i < nm; i++) {
		m[i].id = text(s);
		m[i].zone = text(s);
		m[i].weight = take(s, 0) % 9 == 8 ? PL_MAX_WEIGHT + 1 : take(s, 5);
		m[i].max_shards = take(s, 6);
		m[i].flags = take(s, 0) & 0x1f;
		m[i].joined_at = take(s, 0);
		m[i].load = take(s, 0);
		m[i].map_version = take(s, 4);
	}
	for (uint32_t i = 0; i < ns; i++)
		st[i].id = text(s);
	for (uint32_t i = 0; i < nk; i++) {
		k[i].key = text(s);
		k[i].stream = index_or_none(s, ns);
		k[i].replica_count = take(s, 10) == 9 ? PL_MAX_REPLICAS + 1 : take(s, 4);
		for (uint32_t r = 0; r < PL_MAX_REPLICAS; r++)
			k[i].replicas[r] = take(s, nm + 1);
		k[i].leader = take(s, 3) ? (k[i].replica_count ? k[i].replicas[0] : PL_NONE) : index_or_none(s, nm);
		k[i].moving_to = take(s, 4) ? PL_NONE : index_or_none(s, nm);
		k[i].flags = take(s, 0) & 0x7;
		k[i].epoch = take(s, 4);
		k[i].load = take(s, 0);
	}
	read_overrides(s, o, no, nk, nm);
	/* Copies in flight, any field possibly out of range. */
	uint32_t nc = take(s, 5) % 5;
	for (uint32_t i = 0; i < nc; i++) {
		f->c[i].shard = take(s, nk + 1);
		f->c[i].to = take(s, nm + 1);
		f->c[i].from = take(s, 3) ? PL_NONE : take(s, nm + 1);
		f->c[i].reserved = take(s, 9) == 8;
	}
	pl_snapshot snap = {.version = PL_SNAPSHOT_VERSION, .members = m, .streams = st, .shards = k,
			.overrides = o, .copies = nc ? f->c : NULL, .n_members = nm, .n_streams = ns,
			.n_shards = nk, .n_overrides = no, .n_copies = nc};
	if (take(s, 50) == 0)
		snap.shards = NULL;
	return snap;
}

static unsigned long n_inputs, n_valid;
static const char *harness;

static void print_valid(void)
{
	if (n_inputs)
		fprintf(stderr, "%s: %lu inputs, %lu valid (%.1f%%)\n", harness, n_inputs, n_valid,
			100.0 * (double)n_valid / (double)n_inputs);
}

/* Count one input of harness `name`, valid or not. */
static inline void count_valid(const char *name, int valid)
{
	if (!harness && getenv("PL_FUZZ_STATS"))
		atexit(print_valid);
	harness = name;
	n_inputs++;
	n_valid += valid != 0;
}

#endif
