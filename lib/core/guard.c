/*
 * guard.c - the checks every entry point makes before it writes anything:
 * counts within the documented limits, and byte ranges that share no byte
 * with a snapshot (view/view_guard.c adds a view's memory to these).
 *
 * How it works. A count past its limit is found from the five counts alone,
 * before any size is computed or any memory touched, so a corrupt count costs
 * nothing to refuse. An overlap is a comparison of two byte ranges per array:
 * an output range against the snapshot struct and each of its five arrays.
 * The id bytes the arrays point to are not checked (that
 * would cost a pass over the elements); the man pages say they must not
 * overlap either. Addresses are compared as integers, without forming a
 * pointer past either range, so the test cannot overflow.
 */
#include "core/core.h"

uint32_t pl__past_limit(const pl_snapshot *s)
{
	const uint32_t cnt[5] = {s->n_members, s->n_streams, s->n_shards, s->n_overrides, s->n_copies};
	const uint32_t lim[5] = {PL_MAX_MEMBERS, PL_MAX_STREAMS, PL_MAX_SHARDS, PL_MAX_SHARDS, PL_MAX_COPIES};
	for (uint32_t a = 0; a < 5; a++)
		if (cnt[a] > lim[a])
			return a;
	return PL_NONE;
}

int pl__check_arrays(const pl_snapshot *s, pl_diag *d)
{
	const void *arr[5] = {s->members, s->streams, s->shards, s->overrides, s->copies};
	const uint32_t cnt[5] = {s->n_members, s->n_streams, s->n_shards, s->n_overrides, s->n_copies};
	for (uint32_t a = 0; a < 5; a++)
		if (arr[a] == NULL && cnt[a] != 0)
			return pl__fail(d, PL_E_NULL, PL_ELEM_SNAPSHOT, a, PL_NONE);
	uint32_t a = pl__past_limit(s);
	if (a != PL_NONE)
		return pl__fail(d, PL_E_LIMIT, PL_ELEM_SNAPSHOT, a, PL_NONE);
	return 0;
}

int pl__overlap(const void *p, size_t n, const void *q, size_t m)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
	if (p == NULL || q == NULL || n == 0 || m == 0)
		return 0;
	return a <= b ? b - a < n : a - b < m;
}

size_t pl__span(uint32_t count, size_t size)
{
	return (uint64_t)count > SIZE_MAX / size ? SIZE_MAX : (size_t)count * size;
}

int pl__overlaps_snapshot(const pl_snapshot *s, const void *p, size_t n)
{
	/* A snapshot of another version is refused having had only its
	 * version read: that is all of it an output is compared with. */
	if (!pl__snapshot_known(s))
		return pl__overlap(p, n, s, sizeof s->version);
	const void *arr[5] = {s->members, s->streams, s->shards, s->overrides, s->copies};
	const uint32_t cnt[5] = {s->n_members, s->n_streams, s->n_shards, s->n_overrides, s->n_copies};
	const uint32_t lim[5] = {PL_MAX_MEMBERS, PL_MAX_STREAMS, PL_MAX_SHARDS, PL_MAX_SHARDS, PL_MAX_COPIES};
	const size_t size[5] = {sizeof(pl_member), sizeof(pl_stream), sizeof(pl_shard), sizeof(pl_override),
				sizeof(pl_copy)};
	if (pl__overlap(p, n, s, pl__snapshot_size(s)))
		return 1;
	if (s->version >= 3u && ((s->n_shards <= PL_MAX_SHARDS &&
				  pl__overlap(p, n, s->shard_bytes, pl__span(s->n_shards, sizeof(uint64_t)))) ||
				 (s->n_members <= PL_MAX_MEMBERS &&
				  pl__overlap(p, n, s->member_capacity, pl__span(s->n_members, sizeof(uint64_t))))))
		return 1;
	if (s->version >= 5u && s->n_streams <= PL_MAX_STREAMS &&
	    (pl__overlap(p, n, s->stream_tolerance, pl__span(s->n_streams, sizeof(uint32_t))) ||
	     pl__overlap(p, n, s->stream_zone_rule, pl__span(s->n_streams, sizeof(uint32_t))) ||
	     pl__overlap(p, n, s->stream_flags, pl__span(s->n_streams, sizeof(uint32_t)))))
		return 1;
	/* An array whose count passes its limit is refused before it is read
	 * (pl__check_arrays()): its claimed extent is not compared either. */
	for (uint32_t a = 0; a < 5; a++)
		if (cnt[a] <= lim[a] && pl__overlap(p, n, arr[a], pl__span(cnt[a], size[a])))
			return 1;
	return 0;
}
