/* check_view_reuse_rules.c - a hint never lets a bad snapshot through.
 * Validation does not check again a shard equal to the hint's in every
 * field the rules read, under the same bounds: each way a shard can match
 * the hint's and still break a rule is refused with its own code and index,
 * as without the hint, and nothing is written to *out. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"
#include "testutil.h"

enum { NK = 50, BAD = 37 };

/* NK shards over 4 members, three replicas each, one of them member 3. */
static tl *layout(void)
{
	tl *t = tl_new();
	for (int i = 0; i < 4; i++)
		tl_member(t, tl_str(t, "m%d", i), NULL);
	tl_stream(t, "s");
	for (uint32_t k = 0; k < NK; k++)
		tl_shard(t, tl_str(t, "s/%02u", k), 0, k % 3, 3, k % 3, (k + 1) % 3, 3u);
	return t;
}

/* A copy of the snapshot's shards, to change. */
static pl_shard *copy_shards(const pl_snapshot *s)
{
	pl_shard *k = malloc(NK * sizeof *k);
	memcpy(k, s->shards, NK * sizeof *k);
	return k;
}

/* The snapshot after `change`, built with the hint and without: both
 * refuse it with `want` at shard BAD, *out untouched. */
static void refused(const pl_view *hint, const pl_snapshot *snap, int want)
{
	for (int with = 0; with <= 1; with++) {
		size_t size = pl_view_size(snap);
		void *mem = calloc(1, size);
		pl_view_options opt = PL_VIEW_OPTIONS_INIT;
		opt.reuse = with ? hint : NULL;
		pl_view *out = NULL;
		pl_diag d;
		ck_assert_int_eq(pl_view_init(&out, mem, size, snap, &opt, &d), want);
		ck_assert_uint_eq(d.kind, PL_ELEM_SHARD);
		ck_assert_uint_eq(d.index, BAD);
		ck_assert_ptr_null(out);
		free(mem);
	}
}

/* A member fewer: the shards are the hint's, field for field, but member 3
 * is now out of range (the hint was valid with four). */
START_TEST(a_matching_shard_under_fewer_members)
{
	tl *t = layout();
	pl_view *hint = tl_view(t, 0);
	pl_snapshot s = *tl_snap(t);
	pl_shard *k = copy_shards(&s);
	for (uint32_t i = 0; i < NK; i++)
		if (i != BAD) /* every other shard keeps to members 0..2 */
			k[i].replica_count = 2;
	s.shards = k;
	s.n_members = 3;
	/* The hint's snapshot, with the same shards, for the sameness test to
	 * see them equal: rebuild the hint from it with four members. */
	pl_snapshot h = s;
	h.n_members = 4;
	size_t size = pl_view_size(&h);
	void *hmem = calloc(1, size);
	ck_assert_int_eq(pl_view_init(&hint, hmem, size, &h, NULL, NULL), 0);
	refused(hint, &s, PL_E_MEMBER_RANGE);
	free(hmem);
	free(k);
	tl_free(t);
}
END_TEST

/* A flag the rules do not know, on a shard otherwise the hint's. */
START_TEST(a_matching_shard_with_an_unknown_flag)
{
	tl *t = layout();
	pl_view *hint = tl_view(t, 0);
	pl_snapshot s = *tl_snap(t);
	pl_shard *k = copy_shards(&s);
	k[BAD].flags = 0x80;
	s.shards = k;
	refused(hint, &s, PL_E_FLAGS);
	free(k);
	tl_free(t);
}
END_TEST

/* A key of the hint's length with no bytes (NULL): refused, never compared
 * with the hint's key. */
START_TEST(a_key_of_the_hints_length_and_no_bytes)
{
	tl *t = layout();
	pl_view *hint = tl_view(t, 0);
	pl_snapshot s = *tl_snap(t);
	pl_shard *k = copy_shards(&s);
	k[BAD].key.ptr = NULL;
	s.shards = k;
	pl_diag d;
	size_t size = pl_view_size(&s);
	void *mem = calloc(1, size);
	pl_view *out = NULL;
	int want = pl_view_init(&out, mem, size, &s, NULL, &d);
	ck_assert_int_ne(want, 0);
	free(mem);
	refused(hint, &s, want);
	free(k);
	tl_free(t);
}
END_TEST

/* A member id, a member's zone or a stream id with the hint's length and no
 * bytes: refused as without the hint (PL_E_NULL naming the element), never
 * compared with the hint's bytes on the way. */
START_TEST(an_id_of_the_hints_length_and_no_bytes)
{
	tl *t = layout();
	t->m[2].zone = (pl_bytes){"z", 1};
	pl_view *hint = tl_view(t, 0);
	for (int which = 0; which < 3; which++) {
		pl_snapshot s = *tl_snap(t);
		pl_member m[4];
		pl_stream st[1];
		memcpy(m, s.members, sizeof m);
		memcpy(st, s.streams, sizeof st);
		if (which == 0)
			m[2].id.ptr = NULL;
		else if (which == 1)
			m[2].zone.ptr = NULL;
		else
			st[0].id.ptr = NULL;
		s.members = m;
		s.streams = st;
		pl_diag want, d;
		size_t size = pl_view_size(&s);
		for (int with = 0; with <= 1; with++) {
			void *mem = calloc(1, size);
			pl_view_options opt = PL_VIEW_OPTIONS_INIT;
			opt.reuse = with ? hint : NULL;
			pl_view *out = NULL;
			int rc = pl_view_init(&out, mem, size, &s, &opt, with ? &d : &want);
			ck_assert_int_eq(rc, PL_E_NULL);
			ck_assert_ptr_null(out);
			if (with) {
				ck_assert_uint_eq(d.kind, want.kind);
				ck_assert_uint_eq(d.index, want.index);
			}
			ck_assert_uint_eq(want.kind, which == 2 ? PL_ELEM_STREAM : PL_ELEM_MEMBER);
			ck_assert_uint_eq(want.index, which == 2 ? 0 : 2);
			free(mem);
		}
	}
	tl_free(t);
}
END_TEST

/* Shards equal to the hint's but leading, moving or holding otherwise: each
 * is checked (the rules read those fields), and each refusal is the one a
 * fresh build gives. */
START_TEST(a_matching_key_with_changed_replicas)
{
	static const struct {
		uint32_t leader, moving_to, count, r2;
		int want;
	} cases[] = {
		{PL_NONE, PL_NONE, 3, 1, PL_E_DUP_REPLICA},	   /* replicas 1, 2, 1 */
		{0, PL_NONE, 3, 3, PL_E_LEADER_NOT_REPLICA},   /* led by 0, held by 1, 2, 3 */
		{1, 1, 3, 3, PL_E_MOVE_TARGET},		   /* moving to its leader */
		{1, PL_NONE, PL_MAX_REPLICAS + 1, 3, PL_E_REPLICAS},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		tl *t = layout();
		pl_view *hint = tl_view(t, 0);
		pl_snapshot s = *tl_snap(t);
		pl_shard *k = copy_shards(&s);
		/* shard BAD (37 % 3 = 1): replicas 1, 2, 3, led by 1 */
		k[BAD].leader = cases[c].leader;
		k[BAD].moving_to = cases[c].moving_to;
		k[BAD].replica_count = cases[c].count;
		k[BAD].replicas[2] = cases[c].r2;
		s.shards = k;
		refused(hint, &s, cases[c].want);
		free(k);
		tl_free(t);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("view_reuse_rules");
	TCase *c = tcase_create("rules under a hint");
	tcase_add_test(c, a_matching_shard_under_fewer_members);
	tcase_add_test(c, a_matching_shard_with_an_unknown_flag);
	tcase_add_test(c, a_key_of_the_hints_length_and_no_bytes);
	tcase_add_test(c, an_id_of_the_hints_length_and_no_bytes);
	tcase_add_test(c, a_matching_key_with_changed_replicas);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return tl_run(suite());
}
