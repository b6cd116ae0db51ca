/*
 * snapshot_shards.c - validation's pass over the shards (step 4 of
 * pl__validate() in snapshot.c): the shard rules, and the stages of the one
 * pass that checks each shard, feeds its key to the sort's first level,
 * hashes it and writes its state, or matches it to a hint's.
 */
#include "view/view_build.h"

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
	int rc = pl__check_bytes(k->key, 0);
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

/* ---- the pass ----------------------------------------------------------- */

/*
 * One pass over the shards, in stages that run one after the other, each
 * from the shard where the one before stopped (p->j):
 *  - by index (shards_by_index()): with a hint, while each shard is the
 *    hint's at its index, the rules are skipped for one equal to it in
 *    every field they read, and its state is written;
 *  - by key (shards_by_key()): from the first that is not, when the hint has
 *    shards under the same scorer, each is matched to the hint's by key
 *    (pl__rekey), its hash taken from the match, and the order merged;
 *  - plain (shards_plain()): otherwise, each shard is checked, its key fed
 *    to the sort's first level (pl__keyfeed), hashed, and its state written
 *    while the room allows: check a shard, feed its key, hash it, write its
 *    state;
 *  - the end (shards_end()): what the pass found about the hint (pl__reuse),
 *    and the canonical order: the hint's, the merge's, or the sort's.
 * A stage returns 0, or the error of the first shard the rules refuse. */
typedef struct pl__shard_pass {
	const pl_snapshot *s;
	pl__reuse *r;
	pl_diag *d;
	void *scratch;
	uint32_t *k_order, *k_stream;
	pl__byteseq q;
	pl__keyfeed feed;
	const pl_shard *was; /* the hint's shards, while they match by index */
	char *st;            /* where the shards' states go, while they may */
	uint64_t *kh;        /* the key hashes, or NULL */
	int rehash;          /* kh is written while the shards match by index */
	int keyable, keyed, fresh;
	uint32_t tallies, moving, max_count;
	uint32_t j;      /* the next shard */
	uint32_t hashed; /* kh is written before it */
} pl__shard_pass;

static void shards_start(pl__shard_pass *p, const pl_snapshot *s, uint32_t *k_order, uint32_t *k_stream,
			 void *scratch, pl__reuse *r, pl_diag *d)
{
	p->s = s;
	p->r = r;
	p->d = d;
	p->scratch = scratch;
	p->k_order = k_order;
	p->k_stream = k_stream;
	/* With a hint, each shard is compared with the earlier snapshot's at
	 * its index in the same pass, and its state written while all match. */
	p->was = r && r->shards ? r->old->snap.shards : NULL;
	p->st = p->was ? r->st : NULL;
	/* The key hashes, while the key is in cache, unless the hint's hold
	 * (every shard matches under the same scorer): from the first that
	 * does not, after the ones before it. */
	p->kh = r ? r->k_hash : NULL;
	p->rehash = p->kh && p->was && r->scorer != r->old->scorer; /* while they match */
	/* From the first shard that is not the hint's at its index, the
	 * shards are matched to the hint's by key (pl__rekey) when the hint
	 * has shards under the same scorer (its key hashes are then the new
	 * ones'). */
	p->keyable = p->kh && r->old && r->scorer == r->old->scorer && r->old->nk > 0;
	p->keyed = 0;
	/* The keys go to the sort's first level in the same pass (the sort
	 * then reads no shard), unless they may match the hint's: from the
	 * first that does not, after the ones before it. The scratch is free
	 * now; the states written there while the shards matched are not kept
	 * once one does not. */
	p->tallies = r && r->old && r->tallies;
	p->moving = p->max_count = 0;
	p->j = p->hashed = 0;
	p->q = (pl__byteseq){(const char *)s->shards, sizeof(pl_shard), offsetof(pl_shard, key),
			     offsetof(pl_shard, stream)};
	p->fresh = p->was == NULL && !p->keyable;
	if (p->fresh) {
		/* Without a hint, a direct feed leaves the states' room free:
		 * validation writes them in its pass too, while it stays so. */
		pl__keyfeed_start(&p->feed, &p->q, s->n_shards, scratch, r ? r->direct_room : 0);
		p->st = p->feed.direct ? r->st : NULL; /* direct only with a room: r is set */
	}
}

/* While the shards match the hint's by index. A shard equal to the hint's
 * in every field the rules read, under bounds as wide (as many members or
 * more; the streams matched), was valid when the hint was built from it:
 * it is not checked again. One whose leader, leader move or replicas
 * differ goes on r->delta while that has room (its tallies are then
 * counted again alone). */
static int shards_by_index(pl__shard_pass *p)
{
	const pl_snapshot *s = p->s;
	pl__reuse *r = p->r;
	const pl_shard *was = p->was;
	int bounds = was && s->n_members >= r->old->snap.n_members; /* valid among fewer, valid among more */
	uint32_t j = 0;
	for (; was && j < s->n_shards; j++) {
		const pl_shard *k = &s->shards[j], *o = &was[j];
		if (k->stream != o->stream || k->key.ptr == NULL || !pl__same_bytes(k->key, o->key))
			break;
		int same = pl__same_tallies(k, o);
		if (!(same && bounds && k->flags == o->flags)) {
			int rc = check_shard(s, k);
			if (rc)
				return pl__fail(p->d, rc, PL_ELEM_SHARD, j, PL_NONE);
		}
		/* A shard an action changed in the hint counts again too. */
		int again = !same || (r->old->moved && pl__changed(r->old, j));
		if (again && p->tallies && r->n_delta < r->delta_cap)
			r->delta[r->n_delta++] = j; /* its tallies are added up again alone */
		else
			p->tallies = p->tallies && !again;
		if (p->rehash)
			p->kh[j] = pl__scorer_key_hash(r->scorer, k->key.ptr, k->key.len);
		p->max_count = k->replica_count > p->max_count ? k->replica_count : p->max_count;
		if (p->st && k->replica_count > r->room)
			p->st = NULL; /* past the room: the view is built again with more */
		if (p->st) {
			pl__state_from_shard(pl__reuse_st(r, j), k, r->room);
			p->moving += k->moving_to != PL_NONE;
			if (r->ktags)
				r->ktags[j] = k->stream; /* for a match by key from a later shard */
		}
	}
	p->j = j;
	return 0;
}

/* By key, from the first shard that is not the hint's at its index (when the
 * hint's key hashes are the new ones'): the hint's hash of each shard
 * matched, the rules skipped as above for one equal to its match. */
static int shards_by_key(pl__shard_pass *p)
{
	const pl_snapshot *s = p->s;
	pl__reuse *r = p->r;
	uint32_t j = p->j, *k_order = p->k_order;
	uint64_t *kh = p->kh;
	pl__rekey kt;
	p->keyed = p->keyable && j < s->n_shards &&
		   pl__rekey_start(&kt, r->old, s->n_shards, j, p->scratch, r->scratch_room, r->ktags ? r->keep : 0);
	if (!p->keyed)
		return 0;
	/* The states and streams by index go on while the match stays low
	 * (pl__rekey): those of the shards before j are written. */
	char *st = r->ktags && kt.low && (j == 0 || p->st != NULL) ? r->st : NULL;
	p->was = NULL;
	memcpy(kh, r->old->k_hash, (size_t)j * sizeof *kh);
	const pl_snapshot *os = &r->old->snap;
	int same_bounds = s->n_members >= os->n_members && s->n_streams >= os->n_streams;
	/* Shards that are not the guess, listed in k_order (free until the
	 * merge); past an eighth of them, the order has changed so much that
	 * the sort costs less than the lookups. */
	uint32_t nl = 0, nl_max = s->n_shards / 8 + PL__REKEY_SEARCHES;
	for (; j < s->n_shards; j++) {
		const pl_shard *k = &s->shards[j];
		uint32_t o = pl__rekey_guess(&kt, k->key);
		int same = o != PL_NONE && k->stream == kt.was[o].stream && pl__same_tallies(k, &kt.was[o]);
		if (!(same && same_bounds && k->flags == kt.was[o].flags)) {
			int rc = check_shard(s, k);
			if (rc)
				return pl__fail(p->d, rc, PL_ELEM_SHARD, j, PL_NONE);
		}
		if (o == PL_NONE && (o = pl__rekey_search(&kt, k->key)) != PL_NONE)
			same = k->stream == kt.was[o].stream && pl__same_tallies(k, &kt.was[o]);
		p->max_count = k->replica_count > p->max_count ? k->replica_count : p->max_count;
		if (st && k->replica_count > r->room)
			st = NULL; /* past the room: the view is built again with more */
		if (st) {
			pl__state_from_shard(pl__reuse_st(r, j), k, r->room);
			p->moving += k->moving_to != PL_NONE;
			r->ktags[j] = k->stream;
		}
		if (o != PL_NONE) {
			pl__rekey_note(&kt, j, o);
			kh[j] = r->old->k_hash[o];
			p->tallies = p->tallies && same;
			continue;
		}
		kh[j] = pl__scorer_key_hash(r->scorer, k->key.ptr, k->key.len);
		if (kt.searches <= PL__REKEY_SEARCHES) {
			pl__rekey_note(&kt, j, PL_NONE); /* new */
			st = kt.low ? st : NULL; /* the list outgrew its low room */
		} else if (nl < nl_max) {
			k_order[nl++] = j; /* looked up after the pass */
		} else {
			p->keyed = 0; /* sorted as without a hint, from shard j + 1 on */
			j++;
			break;
		}
	}
	p->hashed = p->j = j;
	if (p->keyed) {
		pl__rekey_lookup(&kt, s, kh, k_order, nl, &p->tallies);
		/* The hint's tallies hold when its shards are all here, each
		 * with its stream (the same streams) and replicas. */
		p->tallies = p->tallies && kt.nu == 0 && kt.no == s->n_shards && r->streams;
		st = kt.low ? st : NULL; /* a table, a list past keep: the states are lost */
		/* else a duplicate, or no room */
		p->keyed = pl__rekey_order(&kt, s, st ? r->ktags : NULL, k_order, p->k_stream) == 0;
		st = p->keyed ? st : NULL;
	}
	p->st = st;
	return 0;
}

/* The shards left, as without a hint: check a shard, feed its key to the
 * sort, hash it, write its state. */
static int shards_plain(pl__shard_pass *p)
{
	const pl_snapshot *s = p->s;
	pl__reuse *r = p->r;
	uint32_t j = p->j;
	if (!p->fresh && !p->keyed && (p->was == NULL || j < s->n_shards)) {
		/* shard j does not match (or the match by key gave way): as
		 * without a hint from here */
		p->was = NULL;
		p->st = NULL;
		pl__keyfeed_start(&p->feed, &p->q, s->n_shards, p->scratch, 0);
		for (uint32_t x = 0; x < j && p->feed.live; x++) /* once: not inline */
			pl__keyfeed_add(&p->feed, s->shards[x].key, s->shards[x].stream);
		for (uint32_t x = p->hashed; x < j && p->kh && !p->rehash; x++)
			p->kh[x] = pl__scorer_key_hash(r->scorer, s->shards[x].key.ptr, s->shards[x].key.len);
	}
	if (p->keyed)
		return 0; /* the match by key took every shard */
	pl__keyfeed *feed = &p->feed;
	uint64_t *kh = p->kh;
	char *st = p->st;
	uint32_t max_count = p->max_count, moving = p->moving;
	for (; j < s->n_shards; j++) {
		const pl_shard *k = &s->shards[j];
#if defined(__GNUC__)
		if (j + 16 < s->n_shards) /* the caller's key bytes lie anywhere: ask ahead for them */
			__builtin_prefetch(s->shards[j + 16].key.ptr);
#endif
		int rc = check_shard(s, k);
		if (rc)
			return pl__fail(p->d, rc, PL_ELEM_SHARD, j, PL_NONE);
		pl__keyfeed_next(feed, k->key, k->stream);
		if (kh)
			kh[j] = pl__scorer_key_hash(r->scorer, k->key.ptr, k->key.len);
		max_count = k->replica_count > max_count ? k->replica_count : max_count;
		if (st && (!feed->direct || k->replica_count > r->room))
			st = NULL; /* the feed took the scratch, or past the room */
		if (st) {
			pl__state_from_shard(pl__reuse_st(r, j), k, r->room);
			moving += k->moving_to != PL_NONE;
		}
	}
	p->j = j;
	p->st = st;
	p->max_count = max_count;
	p->moving = moving;
	return 0;
}

/* What the pass found about the hint, and the shards' canonical order: the
 * hint's (every shard matched by index), the merge's (by key), or the
 * sort's, which reports the first duplicate key. */
static int shards_end(pl__shard_pass *p)
{
	const pl_snapshot *s = p->s;
	pl__reuse *r = p->r;
	if (r) {
		r->shards = p->was != NULL;
		r->keyed = (uint32_t)p->keyed;
		r->hashes = r->shards && r->scorer == r->old->scorer;
		/* The listed shards are counted again only when the order is
		 * the hint's, by index. */
		r->tallies = (r->shards || (p->keyed && r->n_delta == 0 && !r->old->moved)) && p->tallies;
		if (!r->shards)
			r->n_delta = 0;
		r->states = p->st != NULL && (r->shards || p->fresh || p->keyed);
		r->tags = p->st == NULL ? NULL : p->fresh ? p->feed.tags : r->ktags;
		r->moving = p->moving;
	}
	uint32_t other, dup = PL_NONE;
	if (r && r->shards)
		memcpy(p->k_order, r->old->k_order, (size_t)s->n_shards * sizeof *p->k_order);
	else if (!p->keyed)
		dup = pl__sort_fed(&p->q, s->n_shards, &p->feed, p->k_order, p->k_stream, p->scratch, &other);
	if (dup != PL_NONE)
		return pl__fail(p->d, PL_E_DUP_SHARD, PL_ELEM_SHARD, dup, other);
	return 0;
}

int pl__validate_shards(const pl_snapshot *s, uint32_t *k_order, uint32_t *k_stream, void *scratch, pl__reuse *r,
			pl_diag *d, uint32_t *max_count)
{
	pl__shard_pass p;
	shards_start(&p, s, k_order, k_stream, scratch, r, d);
	int failed = shards_by_index(&p);
	failed = failed ? failed : shards_by_key(&p);
	failed = failed ? failed : shards_plain(&p);
	failed = failed ? failed : shards_end(&p);
	*max_count = p.max_count;
	return failed;
}
