/* check_snapshot.c - validation: every rule has its own code, names the
 * element, and writes nothing on failure. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Three members in two zones, two streams, four shards, one override. */
static tl *base(void)
{
	tl *t = tl_new();
	tl_member(t, "b0", "z1");
	tl_member(t, "b1", "z2");
	tl_member(t, "b2", "z1");
	tl_stream(t, "orders");
	tl_stream(t, "cache");
	tl_shard(t, "orders/00", 0, 0, 2, 0u, 1u);
	tl_shard(t, "orders/01", 0, 1, 2, 1u, 2u);
	tl_shard(t, "cache/00", 1, PL_NONE, 0);
	tl_shard(t, "loose", PL_NONE, 2, 1, 2u);
	tl_override(t, 2, 1, PL_ORIGIN_COUNT, 10);
	return t;
}

/* Validate through pl_snapshot_validate and through pl_view_init; both must
 * agree, name the element, and leave outputs alone. */
static void expect(tl *t, int code, uint32_t kind, uint32_t index, uint32_t other)
{
	const pl_snapshot *s = tl_snap(t);
	size_t ws = pl_snapshot_work_size(s);
	void *w = malloc(ws ? ws : 1);
	pl_diag d;
	memset(&d, 0x5a, sizeof d);
	int rc = pl_snapshot_validate(s, w, ws, &d);
	ck_assert_msg(rc == code, "validate: got %s, want %s", pl_error_name(rc), pl_error_name(code));
	if (code) {
		ck_assert_int_eq(d.code, code);
		ck_assert_uint_eq(d.kind, kind);
		ck_assert_uint_eq(d.index, index);
		ck_assert_uint_eq(d.other, other);
	} else {
		pl_diag untouched;
		memset(&untouched, 0x5a, sizeof untouched);
		ck_assert_mem_eq(&d, &untouched, sizeof d);
	}
	free(w);

	pl_view *sentinel = (pl_view *)(uintptr_t)0x1234;
	pl_view *v = sentinel;
	size_t size = pl_view_size(s);
	void *mem = malloc(size);
	memset(&d, 0, sizeof d);
	rc = pl_view_init(&v, mem, size, s, NULL, &d);
	ck_assert_msg(rc == code, "view: got %s, want %s", pl_error_name(rc), pl_error_name(code));
	if (code) {
		ck_assert_ptr_eq(v, sentinel); /* nothing written to the output */
		ck_assert_uint_eq(d.kind, kind);
		ck_assert_uint_eq(d.index, index);
	} else {
		ck_assert_ptr_ne(v, sentinel);
	}
	free(mem);
}

START_TEST(valid_snapshot)
{
	tl *t = base();
	expect(t, 0, 0, 0, 0);
	tl_free(t);
}
END_TEST

START_TEST(empty_snapshot)
{
	pl_snapshot s = PL_SNAPSHOT_INIT;
	ck_assert_uint_eq(s.version, PL_SNAPSHOT_VERSION);
	ck_assert_ptr_null(s.members);
	ck_assert_uint_eq(s.n_members + s.n_streams + s.n_shards + s.n_overrides + s.n_copies, 0);
	ck_assert_int_eq(pl_snapshot_validate(&s, NULL, 0, NULL), 0);
	ck_assert_uint_eq(pl_snapshot_work_size(&s), 0);
	ck_assert_uint_eq(pl_snapshot_work_size(NULL), 0);
}
END_TEST

/* The layout of pl_snapshot before its version: a pointer first. */
typedef struct old_snapshot {
	const pl_member *members;
	const pl_stream *streams;
	const pl_shard *shards;
	const pl_override *overrides;
	const pl_copy *copies;
	uint32_t n_members;
	uint32_t n_streams;
	uint32_t n_shards;
	uint32_t n_overrides;
	uint32_t n_copies;
} old_snapshot;

/* A snapshot of an unknown version (its struct is `bytes` long, read from
 * no further than its version): every call that reads it refuses it with
 * PL_E_VERSION before anything else, names the snapshot argument (1 for
 * validation, 4 for the view) and writes nothing: not the workspace, not
 * the view's memory, not *out, not an explanation's buffer. The sizes are
 * those of no snapshot (an empty view, no workspace). `room` is the size
 * the snapshot would need were its version right. */
static void refused(const pl_snapshot *s, size_t room)
{
	ck_assert_uint_ne(s->version, PL_SNAPSHOT_VERSION);
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	ck_assert_uint_eq(pl_snapshot_work_size(s), 0);
	ck_assert_uint_eq(pl_view_size(s), pl_view_size(NULL));
	ck_assert_uint_eq(pl_view_size_opt(s, &opt), pl_view_size_opt(NULL, &opt));
	ck_assert_uint_eq(pl_view_size_opt(s, NULL), pl_view_size(NULL));

	char *mem = malloc(room), *before = malloc(room);
	ck_assert_ptr_nonnull(mem);
	ck_assert_ptr_nonnull(before);
	memset(mem, 0x5a, room);
	memcpy(before, mem, room);
	pl_diag d;
	memset(&d, 0, sizeof d);
	ck_assert_int_eq(pl_snapshot_validate(s, mem, room, &d), PL_E_VERSION);
	ck_assert_int_eq(d.code, PL_E_VERSION);
	ck_assert_uint_eq(d.kind, PL_ELEM_ARGUMENT);
	ck_assert_uint_eq(d.index, 1);
	ck_assert_uint_eq(d.other, PL_NONE);
	ck_assert_mem_eq(mem, before, room);
	/* the version before the workspace: none at all is refused the same */
	memset(&d, 0, sizeof d);
	ck_assert_int_eq(pl_snapshot_validate(s, NULL, 0, &d), PL_E_VERSION);
	ck_assert_uint_eq(d.kind, PL_ELEM_ARGUMENT);
	ck_assert_uint_eq(d.index, 1);
	ck_assert_int_eq(pl_snapshot_validate(s, mem, room, NULL), PL_E_VERSION);

	pl_view *const sentinel = (pl_view *)(uintptr_t)0x1234;
	pl_view *v = sentinel;
	memset(&d, 0, sizeof d);
	ck_assert_int_eq(pl_view_init(&v, mem, room, s, NULL, &d), PL_E_VERSION);
	ck_assert_int_eq(d.code, PL_E_VERSION);
	ck_assert_uint_eq(d.kind, PL_ELEM_ARGUMENT);
	ck_assert_uint_eq(d.index, 4);
	ck_assert_uint_eq(d.other, PL_NONE);
	ck_assert_ptr_eq(v, sentinel); /* nothing written to *out */
	ck_assert_mem_eq(mem, before, room); /* nor to the memory */
	/* the snapshot (argument 4) before the options (5), and before the size */
	opt.version = PL_VIEW_OPTIONS_VERSION + 1;
	memset(&d, 0, sizeof d);
	ck_assert_int_eq(pl_view_init(&v, mem, 8, s, &opt, &d), PL_E_VERSION);
	ck_assert_uint_eq(d.kind, PL_ELEM_ARGUMENT);
	ck_assert_uint_eq(d.index, 4);
	ck_assert_ptr_eq(v, sentinel);
	ck_assert_mem_eq(mem, before, room);
	opt.version = PL_VIEW_OPTIONS_VERSION;
	ck_assert_int_eq(pl_view_init(&v, mem, room, s, &opt, NULL), PL_E_VERSION);
	ck_assert_ptr_eq(v, sentinel);

	/* an explanation reads the snapshot's names: refused the same */
	pl_action a = tl_action(PL_ACTION_SET_LEADER, PL_REASON_NEW, 0, PL_NONE, PL_NONE, 0);
	char buf[64];
	memset(buf, 0x5a, sizeof buf);
	ck_assert_int_eq(pl_action_explain(s, &a, buf, sizeof buf), PL_E_VERSION);
	for (size_t i = 0; i < sizeof buf; i++)
		ck_assert_int_eq(buf[i], 0x5a);
	free(before);
	free(mem);
}

/* What each refused snapshot would need with its version right. */
static size_t room_of(tl *t)
{
	const pl_snapshot *s = tl_snap(t);
	size_t vs = pl_view_size(s), ws = pl_snapshot_work_size(s);
	ck_assert_uint_gt(ws, 0);
	return vs > ws ? vs : ws;
}

START_TEST(version_zero_refused)
{
	/* A zeroed struct, and a filled one whose version was never set. */
	pl_snapshot z;
	memset(&z, 0, sizeof z);
	refused(&z, 4096);
	tl *t = base();
	size_t room = room_of(t);
	t->snap.version = 0;
	refused(tl_snap(t), room);
	t->snap.version = PL_SNAPSHOT_VERSION;
	expect(t, 0, 0, 0, 0);
	tl_free(t);
}
END_TEST

START_TEST(version_past_known_refused)
{
	tl *t = base();
	size_t room = room_of(t);
	const uint32_t bad[] = {PL_SNAPSHOT_VERSION + 1, PL_SNAPSHOT_VERSION + 2, 0x80000001u, UINT32_MAX};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		t->snap.version = bad[i];
		refused(tl_snap(t), room);
	}
	tl_free(t);
}
END_TEST

/* A caller built against the layout before the version: its struct starts
 * with the members pointer, whose low 32 bits (aligned, or NULL) are even
 * while every version is odd. Read through a cast, it is refused, never
 * misread. The struct is in memory of its own size, 8 bytes short of a
 * pl_snapshot: a library that read it as one would read past its end,
 * which make sanitize reports. */
START_TEST(old_layout_refused)
{
	tl *t = base();
	size_t room = room_of(t);
	const pl_snapshot *s = tl_snap(t);
	old_snapshot *o = malloc(sizeof *o);
	ck_assert_ptr_nonnull(o);
	*o = (old_snapshot){s->members, s->streams, s->shards, s->overrides, s->copies,
			    s->n_members, s->n_streams, s->n_shards, s->n_overrides, s->n_copies};
	ck_assert_uint_eq((uint32_t)(uintptr_t)o->members % 2, 0);
	ck_assert_uint_eq(PL_SNAPSHOT_VERSION % 2, 1);
	const pl_snapshot *cast = (const pl_snapshot *)(const void *)o;
	refused(cast, room);
	/* every array NULL (an old empty snapshot): version 0 */
	*o = (old_snapshot){NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0};
	refused(cast, room);
	free(o);
	tl_free(t);
}
END_TEST

START_TEST(null_snapshot)
{
	pl_diag d;
	ck_assert_int_eq(pl_snapshot_validate(NULL, NULL, 0, &d), PL_E_INVAL);
	ck_assert_uint_eq(d.kind, PL_ELEM_ARGUMENT);
}
END_TEST

START_TEST(null_array_with_count)
{
	tl *t = base();
	const pl_snapshot *s = tl_snap(t);
	pl_snapshot c = *s;
	c.shards = NULL;
	char w[4096] __attribute__((aligned(8)));
	pl_diag d;
	ck_assert_int_eq(pl_snapshot_validate(&c, w, sizeof w, &d), PL_E_NULL);
	ck_assert_uint_eq(d.kind, PL_ELEM_SNAPSHOT);
	ck_assert_uint_eq(d.index, 2);
	tl_free(t);
}
END_TEST

START_TEST(count_past_limit)
{
	tl *t = base();
	pl_snapshot c = *tl_snap(t);
	c.n_members = PL_MAX_MEMBERS + 1;
	/* The work size is bounded by the limits: it cannot overflow. */
	ck_assert_uint_lt(pl_snapshot_work_size(&c), (size_t)1 << 34);
	size_t ws = pl_snapshot_work_size(&c);
	void *w = malloc(ws);
	pl_diag d;
	ck_assert_int_eq(pl_snapshot_validate(&c, w, ws, &d), PL_E_LIMIT);
	ck_assert_uint_eq(d.kind, PL_ELEM_SNAPSHOT);
	ck_assert_uint_eq(d.index, 0);
	free(w);
	tl_free(t);
}
END_TEST

START_TEST(member_empty_id)
{
	tl *t = base();
	t->m[1].id.len = 0;
	expect(t, PL_E_EMPTY_ID, PL_ELEM_MEMBER, 1, PL_NONE);
	tl_free(t);
}
END_TEST

START_TEST(member_id_null_pointer)
{
	tl *t = base();
	t->m[2].id.ptr = NULL;
	expect(t, PL_E_NULL, PL_ELEM_MEMBER, 2, PL_NONE);
	tl_free(t);
}
END_TEST

START_TEST(member_id_too_long)
{
	tl *t = base();
	char *big = calloc(PL_MAX_ID_LEN + 1, 1);
	memset(big, 'a', PL_MAX_ID_LEN);
	t->m[0].id.ptr = big;
	t->m[0].id.len = PL_MAX_ID_LEN;
	expect(t, 0, 0, 0, 0); /* exactly the limit is fine */
	t->m[0].id.len = PL_MAX_ID_LEN + 1;
	big = realloc(big, PL_MAX_ID_LEN + 2);
	big[PL_MAX_ID_LEN] = 'a';
	t->m[0].id.ptr = big;
	expect(t, PL_E_LENGTH, PL_ELEM_MEMBER, 0, PL_NONE);
	free(big);
	tl_free(t);
}
END_TEST

START_TEST(member_zone_too_long)
{
	tl *t = base();
	char *big = calloc(PL_MAX_ID_LEN + 2, 1);
	memset(big, 'z', PL_MAX_ID_LEN + 1);
	t->m[2].zone.ptr = big;
	t->m[2].zone.len = PL_MAX_ID_LEN + 1;
	expect(t, PL_E_LENGTH, PL_ELEM_MEMBER, 2, PL_NONE);
	free(big);
	tl_free(t);
}
END_TEST

START_TEST(member_unknown_flags)
{
	tl *t = base();
	t->m[1].flags = 0x100;
	expect(t, PL_E_FLAGS, PL_ELEM_MEMBER, 1, PL_NONE);
	tl_free(t);
}
END_TEST

START_TEST(member_weight_past_limit)
{
	tl *t = base();
	t->m[0].weight = PL_MAX_WEIGHT;
	expect(t, 0, 0, 0, 0);
	t->m[0].weight = PL_MAX_WEIGHT + 1;
	expect(t, PL_E_WEIGHT, PL_ELEM_MEMBER, 0, PL_NONE);
	tl_free(t);
}
END_TEST

START_TEST(duplicate_member)
{
	tl *t = base();
	tl_member(t, "b3", NULL);
	tl_member(t, "b1", NULL); /* index 4 repeats index 1 */
	tl_member(t, "b3", NULL); /* index 5 repeats index 3, but 4 comes first */
	expect(t, PL_E_DUP_MEMBER, PL_ELEM_MEMBER, 4, 1);
	tl_free(t);
}
END_TEST

START_TEST(stream_empty_id)
{
	tl *t = base();
	t->s[1].id.len = 0;
	expect(t, PL_E_EMPTY_ID, PL_ELEM_STREAM, 1, PL_NONE);
	tl_free(t);
}
END_TEST

START_TEST(duplicate_stream)
{
	tl *t = base();
	tl_stream(t, "orders");
	expect(t, PL_E_DUP_STREAM, PL_ELEM_STREAM, 2, 0);
	tl_free(t);
}
END_TEST

START_TEST(shard_empty_key)
{
	tl *t = base();
	t->k[3].key.len = 0;
	expect(t, PL_E_EMPTY_ID, PL_ELEM_SHARD, 3, PL_NONE);
	tl_free(t);
}
END_TEST

START_TEST(shard_stream_out_of_range)
{
	tl *t = base();
	t->k[1].stream = 2;
	expect(t, PL_E_STREAM_RANGE, PL_ELEM_SHARD, 1, PL_NONE);
	tl_free(t);
}
END_TEST

START_TEST(shard_too_many_replicas)
{
	tl *t = base();
	t->k[0].replica_count = PL_MAX_REPLICAS + 1;
	expect(t, PL_E_REPLICAS, PL_ELEM_SHARD, 0, PL_NONE);
	tl_free(t);
}
END_TEST

START_TEST(shard_replica_out_of_range)
{
	tl *t = base();
	t->k[1].replicas[1] = 3;
	expect(t, PL_E_MEMBER_RANGE, PL_ELEM_SHARD, 1, PL_NONE);
	tl_free(t);
}
END_TEST

START_TEST(shard_leader_out_of_range)
{
	tl *t = base();
	t->k[2].leader = 7;
	expect(t, PL_E_MEMBER_RANGE, PL_ELEM_SHARD, 2, PL_NONE);
	tl_free(t);
}
END_TEST

START_TEST(shard_replica_twice)
{
	tl *t = base();
	t->k[1].replicas[0] = 2;
	t->k[1].leader = 2;
	expect(t, PL_E_DUP_REPLICA, PL_ELEM_SHARD, 1, PL_NONE);
	tl_free(t);
}
END_TEST

START_TEST(shard_leader_not_replica)
{
	tl *t = base();
	t->k[0].leader = 2;
	expect(t, PL_E_LEADER_NOT_REPLICA, PL_ELEM_SHARD, 0, PL_NONE);
	tl_free(t);
}
END_TEST

START_TEST(shard_move_target)
{
	tl *t = base();
	t->k[0].moving_to = 0; /* its own leader */
	expect(t, PL_E_MOVE_TARGET, PL_ELEM_SHARD, 0, PL_NONE);
	t->k[0].moving_to = 2;
	expect(t, 0, 0, 0, 0);
	t->k[2].moving_to = 1; /* no leader */
	expect(t, PL_E_MOVE_TARGET, PL_ELEM_SHARD, 2, PL_NONE);
	t->k[2].moving_to = 9;
	expect(t, PL_E_MEMBER_RANGE, PL_ELEM_SHARD, 2, PL_NONE);
	tl_free(t);
}
END_TEST

START_TEST(shard_unknown_flags)
{
	tl *t = base();
	t->k[3].flags = 0x80;
	expect(t, PL_E_FLAGS, PL_ELEM_SHARD, 3, PL_NONE);
	tl_free(t);
}
END_TEST

START_TEST(duplicate_shard)
{
	tl *t = base();
	tl_shard(t, "cache/00", 1, PL_NONE, 0);
	expect(t, PL_E_DUP_SHARD, PL_ELEM_SHARD, 4, 2);
	tl_free(t);
}
END_TEST

START_TEST(override_unknown_shard)
{
	tl *t = base();
	t->o[0].shard = 4;
	expect(t, PL_E_OVERRIDE_SHARD, PL_ELEM_OVERRIDE, 0, PL_NONE);
	tl_free(t);
}
END_TEST

START_TEST(override_unknown_member)
{
	tl *t = base();
	t->o[0].member = 3;
	expect(t, PL_E_OVERRIDE_MEMBER, PL_ELEM_OVERRIDE, 0, PL_NONE);
	tl_free(t);
}
END_TEST

START_TEST(override_unknown_origin)
{
	tl *t = base();
	t->o[0].origin = 2;
	expect(t, PL_E_ORIGIN, PL_ELEM_OVERRIDE, 0, PL_NONE);
	tl_free(t);
}
END_TEST

START_TEST(duplicate_override)
{
	tl *t = base();
	tl_override(t, 0, 2, PL_ORIGIN_LAG, 0);
	tl_override(t, 2, 0, PL_ORIGIN_LAG, 0);
	expect(t, PL_E_DUP_OVERRIDE, PL_ELEM_OVERRIDE, 2, 0);
	tl_free(t);
}
END_TEST

START_TEST(workspace_small_and_misaligned)
{
	tl *t = base();
	const pl_snapshot *s = tl_snap(t);
	size_t ws = pl_snapshot_work_size(s);
	ck_assert_uint_le(ws, pl_view_size(s));
	char *w = malloc(ws + 8);
	pl_diag d;
	ck_assert_int_eq(pl_snapshot_validate(s, w, ws - 1, &d), PL_E_WORKSPACE);
	ck_assert_uint_eq(d.kind, PL_ELEM_ARGUMENT);
	ck_assert_int_eq(pl_snapshot_validate(s, w + 4, ws, &d), PL_E_ALIGN);
	ck_assert_int_eq(pl_snapshot_validate(s, NULL, ws, &d), PL_E_INVAL);
	ck_assert_int_eq(pl_snapshot_validate(s, w, ws, NULL), 0);
	free(w);
	tl_free(t);
}
END_TEST

/* Arrays large enough for the radix path, with ids sharing a prefix longer
 * than one radix level: one duplicate pair is found and named exactly. */
START_TEST(duplicate_found_in_large_arrays)
{
	tl *t = tl_new();
	for (uint32_t i = 0; i < 5000; i++)
		tl_member(t, tl_str(t, "member-%05u-with-a-long-shared-prefix", i), NULL);
	for (uint32_t i = 0; i < 20000; i++)
		tl_shard(t, tl_str(t, "stream/with/a/long/prefix/%07u", (i * 7919u) % 20000u), PL_NONE,
			 PL_NONE, 0);
	expect(t, 0, 0, 0, 0);
	t->k[15000].key = t->k[3].key;
	expect(t, PL_E_DUP_SHARD, PL_ELEM_SHARD, 15000, 3);
	t->m[4000].id = t->m[4321].id;
	expect(t, PL_E_DUP_MEMBER, PL_ELEM_MEMBER, 4321, 4000);
	tl_free(t);
}
END_TEST

/* The shard rules one by one, in the order validation reports them: the
 * reference the shard checks (with their straight-line path for the usual
 * shard) must agree with. */
static int shard_rule(const pl_snapshot *s, const pl_shard *k)
{
	if (k->key.ptr == NULL && k->key.len != 0)
		return PL_E_NULL;
	if (k->key.len == 0)
		return PL_E_EMPTY_ID;
	if (k->key.len > PL_MAX_ID_LEN)
		return PL_E_LENGTH;
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
	int led = 0;
	for (uint32_t r = 0; r < k->replica_count; r++)
		led |= k->replicas[r] == k->leader;
	if (k->leader != PL_NONE && k->leader >= s->n_members)
		return PL_E_MEMBER_RANGE;
	if (k->leader != PL_NONE && !led)
		return PL_E_LEADER_NOT_REPLICA;
	if (k->moving_to != PL_NONE && k->moving_to >= s->n_members)
		return PL_E_MEMBER_RANGE;
	if (k->moving_to != PL_NONE && (k->leader == PL_NONE || k->moving_to == k->leader))
		return PL_E_MOVE_TARGET;
	if (k->flags & ~(PL_SHARD_FLAGS_ALL | PL_SHARD_OUT_OF_SYNC_ALL))
		return PL_E_FLAGS;
	/* A replica out of sync: one the shard has, not its leader. */
	for (uint32_t r = 0; r < PL_MAX_REPLICAS; r++)
		if ((k->flags & PL_SHARD_OUT_OF_SYNC(r)) && (r >= k->replica_count || k->replicas[r] == k->leader))
			return PL_E_FLAGS;
	return 0;
}

/* A member index for a random shard: mostly in range (often one already
 * drawn), sometimes just past it, PL_NONE or far past it. */
static uint32_t any_member(uint64_t *rng, const pl_shard *k, uint32_t r, uint32_t nm)
{
	uint32_t c = tl_below(rng, 20);
	if (c < 3 && r > 0)
		return k->replicas[tl_below(rng, r)];
	return c == 3 ? nm : c == 4 ? PL_NONE : c == 5 ? UINT32_C(1) << 20 : tl_below(rng, nm);
}

/* Shards of random fields (0 to 9 replicas, in range or not, repeated or
 * not; leaders, moves, streams, flags and keys right and wrong), each after
 * a valid one: validation reports what the rules one by one find, at the
 * shard's index, or nothing. PL_TEST_SEED=<seed> PL_TEST_ITERS=1 replays a
 * failure. */
START_TEST(random_shards_meet_the_rules_in_order)
{
	enum { NM = 6, NS = 3 };
	uint64_t seed = tl_seed(0x5ba2d5u);
	uint32_t iters = tl_iters(20000);
	pl_member m[NM];
	pl_stream st[NS];
	char ids[NM][4], sids[NS][4], *long_key = calloc(PL_MAX_ID_LEN + 1, 1);
	memset(m, 0, sizeof m);
	memset(st, 0, sizeof st);
	for (uint32_t i = 0; i < NM; i++)
		m[i].id = (pl_bytes){ids[i], (uint64_t)snprintf(ids[i], sizeof ids[i], "m%u", i)};
	for (uint32_t i = 0; i < NS; i++)
		st[i].id = (pl_bytes){sids[i], (uint64_t)snprintf(sids[i], sizeof sids[i], "s%u", i)};
	memset(long_key, 'k', PL_MAX_ID_LEN + 1);
	size_t ws = 0;
	void *w = NULL;
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t rng = seed + it;
		pl_shard k[2];
		memset(k, 0, sizeof k);
		k[0].key = (pl_bytes){"a", 1};
		k[0].stream = 0;
		k[0].leader = 1;
		k[0].moving_to = PL_NONE;
		k[0].replica_count = 2;
		k[0].replicas[0] = 1;
		k[0].replicas[1] = 4;
		pl_shard *x = &k[1];
		uint32_t kc = tl_below(&rng, 16);
		x->key = kc == 0   ? (pl_bytes){NULL, 0}
			 : kc == 1 ? (pl_bytes){NULL, 3}
			 : kc == 2 ? (pl_bytes){"b", 0}
			 : kc == 3 ? (pl_bytes){long_key, PL_MAX_ID_LEN + 1}
			 : kc == 4 ? (pl_bytes){long_key, PL_MAX_ID_LEN}
				   : (pl_bytes){"b", 1};
		uint32_t sc = tl_below(&rng, 10);
		x->stream = sc == 0 ? PL_NONE : sc == 1 ? NS : tl_below(&rng, NS);
		uint32_t rc = tl_below(&rng, 12);
		x->replica_count = rc < 9 ? (rc < 5 ? 1 + rc % 3 : rc) : rc == 9 ? 0 : PL_MAX_REPLICAS + 1;
		for (uint32_t r = 0; r < PL_MAX_REPLICAS; r++)
			x->replicas[r] = tl_below(&rng, 4) ? tl_below(&rng, NM) : any_member(&rng, x, r, NM);
		for (uint32_t r = 0; r < x->replica_count && r < PL_MAX_REPLICAS; r++)
			if (tl_below(&rng, 3)) /* mostly distinct and in range */
				for (uint32_t q = 0; q < r; q++)
					if (x->replicas[q] == x->replicas[r] || x->replicas[r] >= NM)
						x->replicas[r] = (x->replicas[q] + 1 + q) % NM;
		uint32_t lc = tl_below(&rng, 10);
		uint32_t cnt = x->replica_count < PL_MAX_REPLICAS ? x->replica_count : PL_MAX_REPLICAS;
		x->leader = lc < 6 && cnt > 0 ? x->replicas[tl_below(&rng, cnt)] : any_member(&rng, x, cnt, NM);
		uint32_t mc = tl_below(&rng, 12);
		x->moving_to = mc < 9 ? PL_NONE : any_member(&rng, x, cnt, NM);
		x->flags = tl_below(&rng, 12) == 0 ? UINT32_C(1) << tl_below(&rng, 32) : 0;
		pl_snapshot snap = {.version = PL_SNAPSHOT_VERSION, .members = m, .streams = st, .shards = k,
				.n_members = NM, .n_streams = NS, .n_shards = 2};
		int want = shard_rule(&snap, x);
		size_t need = pl_snapshot_work_size(&snap);
		if (need > ws) {
			free(w);
			w = malloc(need);
			ws = need;
		}
		pl_diag d;
		memset(&d, 0x5a, sizeof d);
		int got = pl_snapshot_validate(&snap, w, ws, &d);
		ck_assert_msg(got == want, "seed %llu: got %s, want %s", (unsigned long long)(seed + it),
			      pl_error_name(got), pl_error_name(want));
		if (want)
			ck_assert_msg(d.kind == PL_ELEM_SHARD && d.index == 1 && d.other == PL_NONE,
				      "seed %llu: diag %u %u %u", (unsigned long long)(seed + it), d.kind, d.index,
				      d.other);
	}
	free(w);
	free(long_key);
}
END_TEST

/* The overlap rule still comes first: a diag over the version of a refused
 * snapshot is not written (PL_E_OVERLAP). Of a snapshot of another version
 * nothing past its version is read, so nothing past it is compared: a diag
 * there is written, with PL_E_VERSION. */
START_TEST(version_refused_overlap)
{
	union {
		pl_snapshot s;
		unsigned char b[sizeof(pl_snapshot)];
	} u;
	memset(&u, 0, sizeof u); /* version 0 */
	pl_view *v = NULL;
	char mem[256] __attribute__((aligned(8)));
	pl_diag *over = (pl_diag *)(void *)&u.s.version;
	ck_assert_int_eq(pl_snapshot_validate(&u.s, NULL, 0, over), PL_E_OVERLAP);
	ck_assert_int_eq(pl_view_init(&v, mem, sizeof mem, &u.s, NULL, over), PL_E_OVERLAP);
	for (size_t i = 0; i < sizeof u.b; i++)
		ck_assert_uint_eq(u.b[i], 0);
	ck_assert_ptr_null(v);
	pl_diag *past = (pl_diag *)(void *)(u.b + 8);
	ck_assert_int_eq(pl_snapshot_validate(&u.s, NULL, 0, past), PL_E_VERSION);
	ck_assert_uint_eq(u.s.version, 0);
	ck_assert_int_eq(past->code, PL_E_VERSION);
	ck_assert_uint_eq(past->kind, PL_ELEM_ARGUMENT);
	ck_assert_uint_eq(past->index, 1);
	/* *out over the version: named as argument 1, before the version is */
	pl_diag d;
	memset(&u, 0, sizeof u);
	ck_assert_int_eq(pl_view_init((pl_view **)(void *)&u.s, mem, sizeof mem, &u.s, NULL, &d), PL_E_OVERLAP);
	ck_assert_uint_eq(d.kind, PL_ELEM_ARGUMENT);
	ck_assert_uint_eq(d.index, 1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("snapshot");
	TCase *c = tcase_create("valid");
	tcase_add_test(c, valid_snapshot);
	tcase_add_test(c, empty_snapshot);
	suite_add_tcase(s, c);
	c = tcase_create("version");
	tcase_add_test(c, version_zero_refused);
	tcase_add_test(c, version_past_known_refused);
	tcase_add_test(c, old_layout_refused);
	tcase_add_test(c, version_refused_overlap);
	suite_add_tcase(s, c);
	c = tcase_create("arrays");
	tcase_add_test(c, null_snapshot);
	tcase_add_test(c, null_array_with_count);
	tcase_add_test(c, count_past_limit);
	tcase_add_test(c, workspace_small_and_misaligned);
	suite_add_tcase(s, c);
	c = tcase_create("members");
	tcase_add_test(c, member_empty_id);
	tcase_add_test(c, member_id_null_pointer);
	tcase_add_test(c, member_id_too_long);
	tcase_add_test(c, member_zone_too_long);
	tcase_add_test(c, member_unknown_flags);
	tcase_add_test(c, member_weight_past_limit);
	tcase_add_test(c, duplicate_member);
	suite_add_tcase(s, c);
	c = tcase_create("streams");
	tcase_add_test(c, stream_empty_id);
	tcase_add_test(c, duplicate_stream);
	suite_add_tcase(s, c);
	c = tcase_create("shards");
	tcase_add_test(c, shard_empty_key);
	tcase_add_test(c, shard_stream_out_of_range);
	tcase_add_test(c, shard_too_many_replicas);
	tcase_add_test(c, shard_replica_out_of_range);
	tcase_add_test(c, shard_leader_out_of_range);
	tcase_add_test(c, shard_replica_twice);
	tcase_add_test(c, shard_leader_not_replica);
	tcase_add_test(c, shard_move_target);
	tcase_add_test(c, shard_unknown_flags);
	tcase_add_test(c, duplicate_shard);
	tcase_add_test(c, random_shards_meet_the_rules_in_order);
	suite_add_tcase(s, c);
	c = tcase_create("overrides");
	tcase_add_test(c, override_unknown_shard);
	tcase_add_test(c, override_unknown_member);
	tcase_add_test(c, override_unknown_origin);
	tcase_add_test(c, duplicate_override);
	suite_add_tcase(s, c);
	c = tcase_create("large");
	tcase_set_timeout(c, 60);
	tcase_add_test(c, duplicate_found_in_large_arrays);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
