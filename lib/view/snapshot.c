/*
 * snapshot.c - validation: every rule a snapshot must meet, and the first
 * element that breaks one.
 *
 * How it works. Per-element rules are checked in array order; uniqueness is
 * checked by sorting the ids (order.c) and comparing neighbours, which also
 * yields the canonical orders the view keeps. The sort is stable, so the
 * element reported for a duplicate is the same whatever the input order of
 * equal ids: the smallest index whose id an earlier element already has.
 * Nothing is allocated: the caller's workspace holds the orders and the sort
 * scratch. The shards' rules and their one pass are in snapshot_shards.c.
 */
#include "view/view_build.h"

static uint32_t max5(uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t e)
{
	uint32_t m = a > b ? a : b;
	m = m > c ? m : c;
	m = m > d ? m : d;
	return m > e ? m : e;
}

static uint32_t clamp(uint32_t n, uint32_t lim)
{
	return n > lim ? lim : n;
}

size_t pl_snapshot_work_size(const pl_snapshot *s)
{
	if (!pl__snapshot_known(s) || pl__past_limit(s) != PL_NONE)
		return 0;
	uint32_t nm = clamp(s->n_members, PL_MAX_MEMBERS), ns = clamp(s->n_streams, PL_MAX_STREAMS);
	uint32_t nk = clamp(s->n_shards, PL_MAX_SHARDS), no = clamp(s->n_overrides, PL_MAX_SHARDS);
	uint32_t nc = clamp(s->n_copies, PL_MAX_COPIES);
	size_t orders = ((size_t)nm + ns + nk) * sizeof(uint32_t);
	orders = (orders + 7) & ~(size_t)7;
	return orders + PL__SORT_SCRATCH(max5(nm, ns, nk, no, nc));
}

static int check_member(const pl_member *m)
{
	int rc = pl__check_bytes(m->id, 0);
	if (rc == 0)
		rc = pl__check_bytes(m->zone, 1);
	if (rc == 0 && (m->flags & ~PL_MEMBER_FLAGS_ALL))
		rc = PL_E_FLAGS;
	if (rc == 0 && m->weight > PL_MAX_WEIGHT)
		rc = PL_E_WEIGHT;
	return rc;
}

/* A copy in flight, against its shard (indices already in range): the
 * shard's replicas as the view counts them, its leader move finished. */
static int check_copy(const pl_snapshot *s, const pl_copy *c)
{
	if (c->shard >= s->n_shards)
		return PL_E_COPY_SHARD;
	if (c->to >= s->n_members)
		return PL_E_COPY_TO;
	if (c->from != PL_NONE && c->from >= s->n_members)
		return PL_E_COPY_FROM;
	if (c->reserved != 0)
		return PL_E_COPY_RESERVED;
	const pl_shard *k = &s->shards[c->shard];
	int to_held = 0, from_held = 0, mover_held = 0;
	for (uint32_t r = 0; r < k->replica_count; r++) {
		to_held |= k->replicas[r] == c->to;
		from_held |= k->replicas[r] == c->from;
		mover_held |= k->replicas[r] == k->moving_to;
	}
	if (k->moving_to != PL_NONE && !mover_held) {
		/* The leader move counts finished: moving_to holds the old
		 * leader's replica, and the old leader holds none. */
		to_held &= c->to != k->leader;
		to_held |= c->to == k->moving_to;
		from_held &= c->from != k->leader;
		from_held |= c->from == k->moving_to;
	}
	if (to_held)
		return PL_E_COPY_TARGET;
	if (c->from != PL_NONE && !from_held)
		return PL_E_COPY_SOURCE;
	if (c->from == PL_NONE && k->replica_count >= PL_MAX_REPLICAS)
		return PL_E_COPY_FULL;
	return 0;
}

/* Two elements naming one shard (a uint32 at `offset` in each of n records
 * of `stride` bytes): (shard, index) as one integer, radix-sorted, so equal
 * shards end up adjacent in index order. *best gets the smallest index
 * whose shard an earlier one names, *other that earlier one. scratch holds
 * 2 * n uint64. */
static int first_dup(void *scratch, uint32_t n, const char *base, size_t stride, size_t offset, uint32_t *best,
		     uint32_t *other)
{
	*best = *other = PL_NONE;
	if (n < 2)
		return 0;
	uint64_t *a = scratch, *tmp = a + n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k;
		memcpy(&k, base + (size_t)i * stride + offset, sizeof k);
		a[i] = (uint64_t)k << 32 | i;
	}
	pl__radix_sort_u64(a, tmp, n);
	for (uint32_t j = 1; j < n; j++)
		if (a[j] >> 32 == a[j - 1] >> 32 && (uint32_t)a[j] < *best) {
			*best = (uint32_t)a[j];
			*other = (uint32_t)a[j - 1];
		}
	return *best != PL_NONE;
}

/* Step 6: capacities, then sizes and their running sum: at most
 * PL_MAX_BYTES / PL_MAX_REPLICAS, so no member's bytes (each shard at most
 * once on it) nor any replica set's can pass PL_MAX_BYTES; then the
 * streams' rules (version 5). */
static int check_sizes(const pl_snapshot *caller, pl_diag *d)
{
	pl_snapshot s;
	pl__snapshot_read(caller, &s); /* a version 1 snapshot has no sizes */
	if (s.member_capacity)
		for (uint32_t i = 0; i < s.n_members; i++) {
			uint64_t c = s.member_capacity[i];
			if (c == 0)
				return pl__fail(d, PL_E_CAPACITY, PL_ELEM_MEMBER, i, PL_NONE);
			if (c != PL_BYTES_UNKNOWN && c > PL_MAX_BYTES)
				return pl__fail(d, PL_E_BYTES, PL_ELEM_MEMBER, i, PL_NONE);
		}
	if (s.shard_bytes) {
		uint64_t sum = 0;
		for (uint32_t i = 0; i < s.n_shards; i++) {
			uint64_t b = s.shard_bytes[i];
			if (b == PL_BYTES_UNKNOWN)
				continue;
			if (b > PL_MAX_BYTES / PL_MAX_REPLICAS - sum)
				return pl__fail(d, PL_E_BYTES, PL_ELEM_SHARD, i, PL_NONE);
			sum += b;
		}
	}
	/* the streams' rules (version 5) */
	for (uint32_t i = 0; s.stream_tolerance && i < s.n_streams; i++)
		if (s.stream_tolerance[i] > PL_MAX_TOLERANCE && s.stream_tolerance[i] != PL_TOLERANCE_DEFAULT)
			return pl__fail(d, PL_E_TOLERANCE, PL_ELEM_STREAM, i, PL_NONE);
	for (uint32_t i = 0; s.stream_zone_rule && i < s.n_streams; i++)
		if (s.stream_zone_rule[i] > PL_ZONES_RULE_MAX)
			return pl__fail(d, PL_E_ZONE_RULE, PL_ELEM_STREAM, i, PL_NONE);
	for (uint32_t i = 0; s.stream_flags && i < s.n_streams; i++)
		if (s.stream_flags[i] & ~PL_STREAM_FLAGS_ALL)
			return pl__fail(d, PL_E_STREAM_FLAGS, PL_ELEM_STREAM, i, PL_NONE);
	return 0;
}

int pl__validate(const pl_snapshot *s, uint32_t *m_order, uint32_t *s_order, uint32_t *k_order,
		 uint32_t *k_stream, void *scratch, pl__reuse *r, pl_diag *d)
{
	/* 1. the arrays: checked by both callers before they size the
	 * workspace (pl__check_arrays()), so a corrupt count costs nothing */
	PL_ASSERT(pl__check_arrays(s, NULL) == 0);

	/* 2. members */
	for (uint32_t i = 0; i < s->n_members; i++) {
		int rc = check_member(&s->members[i]);
		if (rc)
			return pl__fail(d, rc, PL_ELEM_MEMBER, i, PL_NONE);
	}
	pl__byteseq q = {(const char *)s->members, sizeof(pl_member), offsetof(pl_member, id), PL__NO_TAG};
	uint32_t other, dup = PL_NONE;
	if (r && r->members) /* the same ids as a validated view's: its order, no duplicate */
		memcpy(m_order, r->old->m_order, (size_t)s->n_members * sizeof *m_order);
	else
		dup = pl__sort_bytes(&q, s->n_members, m_order, NULL, scratch, &other);
	if (dup != PL_NONE)
		return pl__fail(d, PL_E_DUP_MEMBER, PL_ELEM_MEMBER, dup, other);

	/* 3. streams */
	for (uint32_t i = 0; i < s->n_streams; i++) {
		int rc = pl__check_bytes(s->streams[i].id, 0);
		if (rc)
			return pl__fail(d, rc, PL_ELEM_STREAM, i, PL_NONE);
	}
	q = (pl__byteseq){(const char *)s->streams, sizeof(pl_stream), offsetof(pl_stream, id), PL__NO_TAG};
	if (r && r->streams)
		memcpy(s_order, r->old->s_order, (size_t)s->n_streams * sizeof *s_order);
	else
		dup = pl__sort_bytes(&q, s->n_streams, s_order, NULL, scratch, &other);
	if (dup != PL_NONE)
		return pl__fail(d, PL_E_DUP_STREAM, PL_ELEM_STREAM, dup, other);

	/* The duplicate overrides and copies, found now while the scratch is
	 * free (a hint's shard states may go there below) and reported in
	 * their turn. */
	uint32_t ov_best, ov_other, cp_best, cp_other;
	int ov_dup = first_dup(scratch, s->n_overrides, (const char *)s->overrides, sizeof(pl_override),
			       offsetof(pl_override, shard), &ov_best, &ov_other);
	int cp_dup = first_dup(scratch, s->n_copies, (const char *)s->copies, sizeof(pl_copy), offsetof(pl_copy, shard),
			       &cp_best, &cp_other);

	/* 4. shards: one pass, in stages (snapshot_shards.c) */
	uint32_t max_count;
	int failed = pl__validate_shards(s, k_order, k_stream, scratch, r, d, &max_count);
	if (failed)
		return failed;

	/* 5. overrides */
	for (uint32_t i = 0; i < s->n_overrides; i++) {
		const pl_override *o = &s->overrides[i];
		int rc = o->shard >= s->n_shards	  ? PL_E_OVERRIDE_SHARD
			 : o->member >= s->n_members ? PL_E_OVERRIDE_MEMBER
			 : o->origin > PL_ORIGIN_COUNT ? PL_E_ORIGIN
						       : 0;
		if (rc)
			return pl__fail(d, rc, PL_ELEM_OVERRIDE, i, PL_NONE);
	}
	if (ov_dup)
		return pl__fail(d, PL_E_DUP_OVERRIDE, PL_ELEM_OVERRIDE, ov_best, ov_other);

	/* 6. sizes (version 3) */
	int sz = check_sizes(s, d);
	if (sz)
		return sz;

	/* 7. copies in flight */
	for (uint32_t i = 0; i < s->n_copies; i++) {
		int rc = check_copy(s, &s->copies[i]);
		if (rc)
			return pl__fail(d, rc, PL_ELEM_COPY, i, PL_NONE);
	}
	if (cp_dup)
		return pl__fail(d, PL_E_DUP_COPY, PL_ELEM_COPY, cp_best, cp_other);
	if (r) {
		for (uint32_t i = 0; i < s->n_copies; i++) {
			const pl_copy *c = &s->copies[i];
			uint32_t n = s->shards[c->shard].replica_count + (c->from == PL_NONE);
			max_count = n > max_count ? n : max_count;
		}
		r->max_count = max_count;
	}
	return 0;
}

int pl_snapshot_validate(const pl_snapshot *s, void *work, size_t work_size, pl_diag *d)
{
	/* The overlap rule first: the diag, and as much of work as validation
	 * uses, against the snapshot's struct and arrays. */
	size_t need = pl_snapshot_work_size(s);
	const pl__arg a[1] = {PL__OUT(work, need < work_size ? need : work_size, 2)};
	int rc = pl__check_args(NULL, s, a, 1, d);
	if (rc)
		return rc;
	if (s == NULL)
		return pl__fail(d, PL_E_INVAL, PL_ELEM_ARGUMENT, 1, PL_NONE);
	if (!pl__snapshot_known(s)) /* before anything else of it is read */
		return pl__fail(d, PL_E_VERSION, PL_ELEM_ARGUMENT, 1, PL_NONE);
	if ((rc = pl__check_arrays(s, d))) /* limits before sizes: a corrupt count costs nothing */
		return rc;
	if (need > 0 && work == NULL)
		return pl__fail(d, PL_E_INVAL, PL_ELEM_ARGUMENT, 2, PL_NONE);
	if (work_size < need)
		return pl__fail(d, PL_E_WORKSPACE, PL_ELEM_ARGUMENT, 3, PL_NONE);
	if ((uintptr_t)work % 8 != 0)
		return pl__fail(d, PL_E_ALIGN, PL_ELEM_ARGUMENT, 2, PL_NONE);
	uint32_t nm = s->n_members, ns = s->n_streams, nk = s->n_shards;
	uint32_t *m_order = work, *s_order = m_order + nm, *k_order = s_order + ns;
	size_t orders = ((size_t)nm + ns + nk) * sizeof(uint32_t);
	void *scratch = (char *)work + ((orders + 7) & ~(size_t)7);
	return pl__validate(s, m_order, s_order, k_order, NULL, scratch, NULL, d);
}
