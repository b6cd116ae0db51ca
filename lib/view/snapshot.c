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
 * scratch.
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

/* A byte range: NULL with a length, empty where not allowed, too long. */
static int check_bytes(pl_bytes b, int may_be_empty)
{
	if (b.ptr == NULL && b.len != 0)
		return PL_E_NULL;
	if (b.len == 0 && !may_be_empty)
		return PL_E_EMPTY_ID;
	if (b.len > PL_MAX_ID_LEN)
		return PL_E_LENGTH;
	return 0;
}

static int check_member(const pl_member *m)
{
	int rc = check_bytes(m->id, 0);
	if (rc == 0)
		rc = check_bytes(m->zone, 1);
	if (rc == 0 && (m->flags & ~PL_MEMBER_FLAGS_ALL))
		rc = PL_E_FLAGS;
	if (rc == 0 && m->weight > PL_MAX_WEIGHT)
		rc = PL_E_WEIGHT;
	return rc;
}

/* The usual shard, in straight-line code: a key of 1 to PL_MAX_ID_LEN
 * bytes, its stream in range or none, one to three replicas in range and
 * distinct, the leader none or one of them, no move, known flags. 0 for
 * anything else: the rules one by one then find the first that fails. */
static PL__FEED_INLINE int usual_shard(const pl_snapshot *s, const pl_shard *k)
{
	uint32_t nm = s->n_members, c = k->replica_count, l = k->leader;
	if (k->key.ptr == NULL || k->key.len - 1 >= PL_MAX_ID_LEN) /* a length 0 wraps */
		return 0;
	if ((k->stream >= s->n_streams && k->stream != PL_NONE) || k->moving_to != PL_NONE ||
	    (k->flags & ~PL_SHARD_FLAGS_ALL) || c - 1 >= 3)
		return 0;
	uint32_t a = k->replicas[0];
	if (a >= nm)
		return 0;
	int led = l == PL_NONE || l == a;
	if (c == 1)
		return led;
	uint32_t b = k->replicas[1];
	if (b >= nm || b == a)
		return 0;
	led |= l == b;
	if (c == 2)
		return led;
	uint32_t x = k->replicas[2];
	if (x >= nm || x == a || x == b)
		return 0;
	return led | (l == x);
}

/* The rules one by one, for a shard that is not a usual one. */
static int shard_rules(const pl_snapshot *s, const pl_shard *k)
{
	int rc = check_bytes(k->key, 0);
	if (rc)
		return rc;
	if (k->stream != PL_NONE && k->stream >= s->n_streams)
		return PL_E_STREAM_RANGE;
	if (k->replica_count > PL_MAX_REPLICAS)
		return PL_E_REPLICAS;
	for (uint32_t r = 0; r < k->replica_count; r++) {
		if (k->replicas[r] >= s->n_members)
			return PL_E_MEMBER_RANGE;
		for (uint32_t q = 0; q < r; q++)
			if (k->replicas[q] == k->replicas[r])
				return PL_E_DUP_REPLICA;
	}
	if (k->leader != PL_NONE) {
		if (k->leader >= s->n_members)
			return PL_E_MEMBER_RANGE;
		uint32_t r = 0;
		while (r < k->replica_count && k->replicas[r] != k->leader)
			r++;
		if (r == k->replica_count)
			return PL_E_LEADER_NOT_REPLICA;
	}
	if (k->moving_to != PL_NONE) {
		if (k->moving_to >= s->n_members)
			return PL_E_MEMBER_RANGE;
		if (k->leader == PL_NONE || k->moving_to == k->leader)
			return PL_E_MOVE_TARGET;
	}
	if (k->flags & ~(PL_SHARD_FLAGS_ALL | PL_SHARD_OUT_OF_SYNC_ALL))
		return PL_E_FLAGS;
	/* Out of sync: only replicas it has, never its leader. */
	for (uint32_t r = 0; r < PL_MAX_REPLICAS; r++)
		if ((k->flags & PL_SHARD_OUT_OF_SYNC(r)) && (r >= k->replica_count || k->replicas[r] == k->leader))
			return PL_E_FLAGS;
	return 0;
}

/* The shard rules: the straight-line check inline, the rest out of line. */
static PL__FEED_INLINE int check_shard(const pl_snapshot *s, const pl_shard *k)
{
	return usual_shard(s, k) ? 0 : shard_rules(s, k);
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
		int rc = check_bytes(s->streams[i].id, 0);
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

	/* 4. shards */
	/* With a hint, each shard is compared with the earlier snapshot's at
	 * its index in the same pass, and its state written while all match. */
	const pl_shard *was = r && r->shards ? r->old->snap.shards : NULL;
	char *st = was ? r->st : NULL;
	/* The key hashes, while the key is in cache, unless the hint's hold
	 * (every shard matches under the same scorer): from the first that
	 * does not, after the ones before it. */
	uint64_t *kh = r ? r->k_hash : NULL;
	int rehash = kh && was && r->scorer != r->old->scorer; /* while they match */
	/* From the first shard that is not the hint's at its index, the
	 * shards are matched to the hint's by key (pl__rekey) when the hint
	 * has shards under the same scorer (its key hashes are then the new
	 * ones'). */
	int keyable = kh && r->old && r->scorer == r->old->scorer && r->old->nk > 0;
	/* The keys go to the sort's first level in the same pass (the sort
	 * then reads no shard), unless they may match the hint's: from the
	 * first that does not, after the ones before it. The scratch is free
	 * now; the states written there while the shards matched are not kept
	 * once one does not. */
	uint32_t tallies = r && r->old && r->tallies, moving = 0, max_count = 0;
	q = (pl__byteseq){(const char *)s->shards, sizeof(pl_shard), offsetof(pl_shard, key),
			  offsetof(pl_shard, stream)};
	pl__keyfeed feed;
	int fresh = was == NULL && !keyable;
	if (fresh) {
		/* Without a hint, a direct feed leaves the states' room free:
		 * validation writes them in its pass too, while it stays so. */
		pl__keyfeed_start(&feed, &q, s->n_shards, scratch, r ? r->direct_room : 0);
		st = feed.direct ? r->st : NULL; /* direct only with a room: r is set */
	}
	/* While the shards match the hint's. A shard equal to the hint's in
	 * every field the rules read, under the same bounds (the same member
	 * count; the streams matched), was valid when the hint was built from
	 * it: it is not checked again. */
	int bounds = was && s->n_members == r->old->snap.n_members;
	uint32_t j = 0;
	for (; was && j < s->n_shards; j++) {
		const pl_shard *k = &s->shards[j], *o = &was[j];
		if (k->stream != o->stream || k->key.ptr == NULL || !pl__same_bytes(k->key, o->key))
			break;
		int same = pl__same_tallies(k, o);
		if (!(same && bounds && k->flags == o->flags)) {
			int rc = check_shard(s, k);
			if (rc)
				return pl__fail(d, rc, PL_ELEM_SHARD, j, PL_NONE);
		}
		tallies = tallies && same;
		if (rehash)
			kh[j] = pl__scorer_key_hash(r->scorer, k->key.ptr, k->key.len);
		max_count = k->replica_count > max_count ? k->replica_count : max_count;
		if (st && k->replica_count > r->room)
			st = NULL; /* past the room: the view is built again with more */
		if (st) {
			pl__state_from_shard(pl__reuse_st(r, j), k, r->room);
			moving += k->moving_to != PL_NONE;
			if (r->ktags)
				r->ktags[j] = k->stream; /* for a match by key from a later shard */
		}
	}
	pl__rekey kt;
	int keyed = keyable && j < s->n_shards &&
		    pl__rekey_start(&kt, r->old, s->n_shards, j, scratch, r->scratch_room, r->ktags ? r->keep : 0);
	uint32_t hashed = 0; /* kh is written before it */
	if (keyed) {
		/* By key from shard j: the hint's hash of each shard matched,
		 * the rules skipped as above for one equal to its match. */
		/* The states and streams by index go on while the match stays
		 * low (pl__rekey): those of the shards before j are written. */
		st = r->ktags && kt.low && (j == 0 || st != NULL) ? r->st : NULL;
		was = NULL;
		memcpy(kh, r->old->k_hash, (size_t)j * sizeof *kh);
		const pl_snapshot *os = &r->old->snap;
		int same_bounds = s->n_members == os->n_members && s->n_streams == os->n_streams;
		/* Shards that are not the guess, listed in k_order (free until
		 * the merge); past an eighth of them, the order has changed so
		 * much that the sort costs less than the lookups. */
		uint32_t nl = 0, nl_max = s->n_shards / 8 + PL__REKEY_SEARCHES;
		for (; j < s->n_shards; j++) {
			const pl_shard *k = &s->shards[j];
			uint32_t o = pl__rekey_guess(&kt, k->key);
			int same = o != PL_NONE && k->stream == kt.was[o].stream && pl__same_tallies(k, &kt.was[o]);
			if (!(same && same_bounds && k->flags == kt.was[o].flags)) {
				int rc = check_shard(s, k);
				if (rc)
					return pl__fail(d, rc, PL_ELEM_SHARD, j, PL_NONE);
			}
			if (o == PL_NONE && (o = pl__rekey_search(&kt, k->key)) != PL_NONE)
				same = k->stream == kt.was[o].stream && pl__same_tallies(k, &kt.was[o]);
			max_count = k->replica_count > max_count ? k->replica_count : max_count;
			if (st && k->replica_count > r->room)
				st = NULL; /* past the room: the view is built again with more */
			if (st) {
				pl__state_from_shard(pl__reuse_st(r, j), k, r->room);
				moving += k->moving_to != PL_NONE;
				r->ktags[j] = k->stream;
			}
			if (o != PL_NONE) {
				pl__rekey_note(&kt, j, o);
				kh[j] = r->old->k_hash[o];
				tallies = tallies && same;
				continue;
			}
			kh[j] = pl__scorer_key_hash(r->scorer, k->key.ptr, k->key.len);
			if (kt.searches <= PL__REKEY_SEARCHES) {
				pl__rekey_note(&kt, j, PL_NONE); /* new */
				st = kt.low ? st : NULL; /* the list outgrew its low room */
			} else if (nl < nl_max) {
				k_order[nl++] = j; /* looked up after the pass */
			} else {
				keyed = 0; /* sorted as without a hint, from shard j + 1 on */
				j++;
				break;
			}
		}
		hashed = j;
		if (keyed) {
			pl__rekey_lookup(&kt, s, kh, k_order, nl, &tallies);
			/* The hint's tallies hold when its shards are all here,
			 * each with its stream (the same streams) and replicas. */
			tallies = tallies && kt.nu == 0 && kt.no == s->n_shards && r->streams;
			st = kt.low ? st : NULL; /* a table, a list past keep: the states are lost */
			/* else a duplicate, or no room */
			keyed = pl__rekey_order(&kt, s, st ? r->ktags : NULL, k_order, k_stream) == 0;
			st = keyed ? st : NULL;
		}
	}
	if (!fresh && !keyed && (was == NULL || j < s->n_shards)) {
		/* shard j does not match (or the match by key gave way): as
		 * without a hint from here */
		was = NULL;
		st = NULL;
		pl__keyfeed_start(&feed, &q, s->n_shards, scratch, 0);
		for (uint32_t x = 0; x < j && feed.live; x++) /* once: not inline */
			pl__keyfeed_add(&feed, s->shards[x].key, s->shards[x].stream);
		for (uint32_t x = hashed; x < j && kh && !rehash; x++)
			kh[x] = pl__scorer_key_hash(r->scorer, s->shards[x].key.ptr, s->shards[x].key.len);
	}
	for (; j < s->n_shards; j++) {
		const pl_shard *k = &s->shards[j];
#if defined(__GNUC__)
		if (j + 16 < s->n_shards) /* the caller's key bytes lie anywhere: ask ahead for them */
			__builtin_prefetch(s->shards[j + 16].key.ptr);
#endif
		int rc = check_shard(s, k);
		if (rc)
			return pl__fail(d, rc, PL_ELEM_SHARD, j, PL_NONE);
		pl__keyfeed_next(&feed, k->key, k->stream);
		if (kh)
			kh[j] = pl__scorer_key_hash(r->scorer, k->key.ptr, k->key.len);
		max_count = k->replica_count > max_count ? k->replica_count : max_count;
		if (st && (!feed.direct || k->replica_count > r->room))
			st = NULL; /* the feed took the scratch, or past the room */
		if (st) {
			pl__state_from_shard(pl__reuse_st(r, j), k, r->room);
			moving += k->moving_to != PL_NONE;
		}
	}
	if (r) {
		r->shards = was != NULL;
		r->keyed = (uint32_t)keyed;
		r->hashes = r->shards && r->scorer == r->old->scorer;
		r->tallies = (r->shards || keyed) && tallies;
		r->states = st != NULL && (r->shards || fresh || keyed);
		r->tags = st == NULL ? NULL : fresh ? feed.tags : r->ktags;
		r->moving = moving;
	}
	if (r && r->shards)
		memcpy(k_order, r->old->k_order, (size_t)s->n_shards * sizeof *k_order);
	else if (!keyed)
		dup = pl__sort_fed(&q, s->n_shards, &feed, k_order, k_stream, scratch, &other);
	if (dup != PL_NONE)
		return pl__fail(d, PL_E_DUP_SHARD, PL_ELEM_SHARD, dup, other);

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
