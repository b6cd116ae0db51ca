/* check_broker_bytes.c - the broker policy with shard sizes and member
 * capacities (snapshot version 3): a member past its full ratio sheds, no
 * copy fills a member past it, the bytes band evens bytes by moves that keep
 * the counts and by exchanges, the bytes limits in flight hold, every copy
 * says its bytes; on layouts built for each rule and on random layouts with
 * heavy-tailed sizes (seed printed: PL_TEST_SEED replays it). */
#include "broker_util.h"

#define G (UINT64_C(1) << 30)

/* Sizes and capacities owned by the test, hung on t's snapshot. */
typedef struct sizes {
	uint64_t k[512], m[64];
} sizes;

static void hang(tl *t, sizes *z, int caps)
{
	t->snap.shard_bytes = z->k;
	t->snap.member_capacity = caps ? z->m : NULL;
}

/* Known bytes member m holds in v. */
static uint64_t held_bytes(const tl *t, const pl_view *v, uint32_t m)
{
	uint64_t n = 0;
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state st;
		ck_assert_int_eq(pl_view_shard_state(v, k, &st), 0);
		for (uint32_t j = 0; j < st.replica_count; j++)
			if (st.replicas[j] == m && t->snap.shard_bytes[k] != PL_BYTES_UNKNOWN)
				n += t->snap.shard_bytes[k];
	}
	return n;
}

/* Every copy says its shard's size and the members' bytes before it, and
 * fills no member past full_ratio of its capacity; bytes[] follows along. */
static void check_copies(const tl *t, const pl_action *a, uint32_t n, uint64_t *bytes, uint32_t ratio,
			 uint64_t seed)
{
	for (uint32_t i = 0; i < n; i++) {
		const pl_action *x = &a[i];
		if (!(x->flags & PL_ACTION_STAGE_FIRST)) {
			ck_assert_msg(x->bytes == 0, "seed %llu: action %u copies nothing, says %llu bytes",
				      (unsigned long long)seed, i, (unsigned long long)x->bytes);
			continue;
		}
		uint64_t size = t->snap.shard_bytes[x->shard], s0 = size == PL_BYTES_UNKNOWN ? 0 : size;
		ck_assert_msg(x->bytes == size, "seed %llu: action %u bytes", (unsigned long long)seed, i);
		ck_assert_msg(x->to_bytes == bytes[x->to], "seed %llu: action %u to_bytes %llu, held %llu",
			      (unsigned long long)seed, i, (unsigned long long)x->to_bytes,
			      (unsigned long long)bytes[x->to]);
		uint64_t cap = t->snap.member_capacity ? t->snap.member_capacity[x->to] : PL_BYTES_UNKNOWN;
		if (cap != PL_BYTES_UNKNOWN && ratio) {
			uint64_t full = cap / 100 * ratio + cap % 100 * ratio / 100;
			ck_assert_msg(bytes[x->to] + s0 <= full || (size == PL_BYTES_UNKNOWN && bytes[x->to] < full),
				      "seed %llu: action %u fills member %u past its full ratio (%llu + %llu > %llu)",
				      (unsigned long long)seed, i, x->to, (unsigned long long)bytes[x->to],
				      (unsigned long long)s0, (unsigned long long)full);
		}
		bytes[x->to] += s0;
		if (x->from != PL_NONE)
			bytes[x->from] -= s0;
	}
}

/* The seed's stream of 12 leaders (RF 1) even 4/4/4 by count, lopsided by
 * size: b0 leads four of 30G, b1 two of 30G and two of 10G, b2 four of 10G
 * (120G, 80G, 40G). Two exchanges of a 30G and a 10G shard between b0 and b2
 * end 80G each, and the leaders stay 4/4/4. */
START_TEST(a_stream_lopsided_by_size_is_evened_by_exchanges)
{
	tl *t = bu_new(3, NULL);
	static const uint32_t lead[] = {4, 4, 4};
	uint32_t s = bu_stream(t, "perf-quorum", lead, 3, 1);
	static sizes z;
	for (uint32_t k = 0; k < 12; k++)
		z.k[k] = (k < 6 ? 30 : 10) * G;
	hang(t, &z, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 2;
	uint32_t n, ticks;
	pl_plan_info info;
	pl_action *a = bu_dry_shown(t, &cfg, &n, &info, &ticks);
	ck_assert_int_eq(info.status, PL_STATUS_BALANCED);
	ck_assert_uint_eq(n, 4); /* two exchanges, the fewest: two shards must cross each way */
	for (uint32_t i = 0; i < n; i++) {
		ck_assert_uint_eq(a[i].reason, PL_REASON_BYTES_SKEW);
		ck_assert(a[i].flags & PL_ACTION_EXCHANGE);
		ck_assert(a[i].flags & PL_ACTION_CARRIES_LEADER);
		ck_assert_uint_eq(a[i].scope, PL_SCOPE_BYTES);
		const char *say = tl_say(t, &a[i]);
		printf("%s\n", say);
		ck_assert_ptr_nonnull(strstr(say, "exchange"));
		ck_assert_ptr_nonnull(strstr(say, i % 2 ? "it copies 10 GiB" : "it copies 30 GiB"));
	}
	for (uint32_t m = 0; m < 3; m++) {
		ck_assert_uint_eq(held_bytes(t, t->view, m), 80 * G);
		ck_assert_uint_eq(bu_lead(t->view, s, m), 4);
	}
	uint64_t bytes[3] = {120 * G, 80 * G, 40 * G};
	check_copies(t, a, n, bytes, 0, 0);
	ck_assert_uint_eq(bu_loop_differs(t, &cfg, &n), -1);
	free(a);
	tl_free(t);
}
END_TEST

/* Among moves that serve the counts alike, the shard that evens the bytes:
 * b0 leads six shards (RF 1), three of 10G and three of 1G, in each of the
 * 20 ways to give the keys those sizes, b1 none; three move, and with the
 * bytes band off the two end 21G and 12G, the evenest split there is (the
 * draw alone moves all three of one size in some: 30G against 3G). */
START_TEST(a_count_move_takes_the_shard_that_evens_the_bytes)
{
	for (uint32_t set = 0; set < 64; set++) {
		uint32_t ones = 0;
		for (uint32_t x = set; x; x &= x - 1)
			ones++;
		if (ones != 3)
			continue;
		tl *t = bu_new(2, NULL);
		static const uint32_t lead[] = {6, 0};
		uint32_t s = bu_stream(t, "s", lead, 2, 1);
		static sizes z;
		for (uint32_t k = 0; k < 6; k++)
			z.k[k] = (set >> k & 1 ? 10 : 1) * G;
		hang(t, &z, 0);
		pl_broker_config cfg = bu_cfg();
		cfg.bytes_balance = 0;
		uint32_t n, ticks;
		pl_plan_info info;
		pl_action *a = bu_dry_shown(t, &cfg, &n, &info, &ticks);
		ck_assert_uint_eq(n, 3);
		ck_assert_uint_eq(bu_lead(t->view, s, 0), 3);
		uint64_t b0 = held_bytes(t, t->view, 0), b1 = held_bytes(t, t->view, 1);
		ck_assert_msg((b0 > b1 ? b0 - b1 : b1 - b0) == 9 * G, "sizes %#x: b0 %llu G, b1 %llu G", set,
			      (unsigned long long)(b0 / G), (unsigned long long)(b1 / G));
		free(a);
		tl_free(t);
	}
}
END_TEST

/* Without sizes the same layout is balanced: counts only, as before. */
START_TEST(without_sizes_counts_only)
{
	tl *t = bu_new(3, NULL);
	static const uint32_t lead[] = {4, 4, 4};
	bu_stream(t, "perf-quorum", lead, 3, 1);
	pl_broker_config cfg = bu_cfg();
	uint32_t n, ticks;
	pl_plan_info info;
	pl_action *a = bu_dry(t, &cfg, &n, &info, &ticks);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(info.status, PL_STATUS_BALANCED);
	free(a);
	tl_free(t);
}
END_TEST

/* Three members of 100G, full at 90%: b0 holds 95G (past), b1 and b2 30G.
 * b0 sheds first, the fewest bytes that bring it under (one 10G shard),
 * to the roomiest member; then no member is past 90G and no copy filled one
 * past it. */
START_TEST(a_member_past_its_full_ratio_sheds_first)
{
	tl *t = bu_new(3, NULL);
	static sizes z;
	uint32_t s = tl_stream(t, "s");
	/* b0: 5G, 10G, 20G, 60G as leaders, RF 1 (95G); b1, b2: 30G each */
	static const uint64_t on0[] = {5, 10, 20, 60};
	for (uint32_t i = 0; i < 4; i++) {
		uint32_t k = tl_shard(t, tl_str(t, "s/%02u", i), s, 0, 1, 0u);
		z.k[k] = on0[i] * G;
	}
	for (uint32_t m = 1; m < 3; m++)
		for (uint32_t i = 0; i < 3; i++) {
			uint32_t k = tl_shard(t, tl_str(t, "s/%u%u", m, i), s, m, 1, m);
			z.k[k] = 10 * G;
		}
	for (uint32_t m = 0; m < 3; m++)
		z.m[m] = 100 * G;
	hang(t, &z, 1);
	pl_broker_config cfg = bu_cfg();
	cfg.bytes_balance = 0; /* the full ratio alone */
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	bu_print(t, a, (uint32_t)n);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].reason, PL_REASON_FULL_RATIO);
	ck_assert_uint_eq(a[0].from, 0);
	ck_assert_uint_eq(a[0].bytes, 5 * G); /* 5G brings 95G to 90G: the fewest bytes */
	ck_assert_uint_eq(a[0].bytes_limit, 90 * G);
	ck_assert_str_eq(pl_reason_name(a[0].reason), "full-ratio");
	ck_assert_ptr_nonnull(strstr(tl_say(t, &a[0]), "full"));
	ck_assert_uint_le(held_bytes(t, t->view, 0), 90 * G);
	tl_free(t);
}
END_TEST

/* A count move that would fill its destination past the full ratio is not
 * made: b0 leads 4 shards of 30G, b1 none and holds 80G of 100G. The
 * status names it. */
START_TEST(a_count_move_past_a_full_ratio_is_blocked)
{
	tl *t = bu_new(2, NULL);
	static sizes z;
	uint32_t s = tl_stream(t, "s");
	for (uint32_t i = 0; i < 4; i++)
		z.k[tl_shard(t, tl_str(t, "s/%02u", i), s, 0, 1, 0u)] = 30 * G;
	uint32_t o = tl_stream(t, "other");
	z.k[tl_shard(t, "other/0", o, 1, 1, 1u)] = 80 * G;
	z.m[0] = 1000 * G;
	z.m[1] = 100 * G;
	hang(t, &z, 1);
	pl_broker_config cfg = bu_cfg();
	cfg.bytes_balance = 0;
	int n;
	pl_plan_info info;
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_BLOCKED_FULL);
	/* with room, the same layout moves */
	z.m[1] = 1000 * G;
	tl_view(t, 0);
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_gt(n, 0);
	tl_free(t);
}
END_TEST

/* max_bytes_in_flight: with 10G shards and a 15G limit, one copy starts a
 * tick though max_moves allows four; the first copy starts whatever its
 * size. */
START_TEST(bytes_in_flight_limit_what_a_tick_starts)
{
	tl *t = bu_new(2, NULL);
	static const uint32_t lead[] = {8, 0};
	bu_stream(t, "s", lead, 2, 1);
	static sizes z;
	for (uint32_t k = 0; k < 8; k++)
		z.k[k] = 10 * G;
	hang(t, &z, 0);
	pl_broker_config cfg = bu_cfg();
	cfg.max_moves = 4;
	cfg.max_bytes_in_flight = 15 * G;
	int n;
	pl_plan_info info;
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].bytes, 10 * G);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	cfg.max_bytes_in_flight = 5 * G; /* smaller than one shard: one at a time still */
	tl_view(t, 0);
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	cfg.max_bytes_in_flight = 0;
	cfg.max_bytes_in = 20 * G; /* two into b1 */
	tl_view(t, 0);
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 2);
	tl_free(t);
}
END_TEST

/* The bytes passes wait as every move does: paused, on a member's move
 * limit, on the output's room (an exchange is both actions or neither), and
 * shed onto members of unknown capacity by bytes per weight. */
START_TEST(the_bytes_passes_wait_on_pause_limits_and_room)
{
	/* b0: nineteen shards of 5G (95G of 100G, full at 80G: three must go);
	 * b1 and b2 of unknown capacity */
	tl *t = bu_new(3, NULL);
	static sizes z;
	uint32_t s = tl_stream(t, "s");
	for (uint32_t i = 0; i < 19; i++)
		z.k[tl_shard(t, tl_str(t, "s/%02u", i), s, 0, 1, 0u)] = 5 * G;
	z.m[0] = 100 * G;
	z.m[1] = z.m[2] = PL_BYTES_UNKNOWN;
	hang(t, &z, 1);
	pl_broker_config cfg = bu_cfg();
	cfg.full_ratio = 80;
	cfg.bytes_balance = 0;
	cfg.replica_balance = 0;
	cfg.paused = 1;
	int n;
	pl_plan_info info;
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_PAUSED);
	cfg.paused = 0;
	cfg.max_moves = 3;
	cfg.max_moves_out = 1;
	tl_view(t, 0);
	pl_action *a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].reason, PL_REASON_FULL_RATIO);
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	ck_assert_uint_eq(info.detail, 0);
	cfg.max_moves_out = 0;
	tl_view(t, 0);
	a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 3); /* 95G - 15G: at its full bytes, not past */
	for (int i = 0; i < n; i++)
		ck_assert_uint_eq(a[i].reason, PL_REASON_FULL_RATIO);
	tl_free(t);

	/* the stream lopsided by size: paused, one action of room, one move in */
	t = bu_new(3, NULL);
	static const uint32_t lead[] = {4, 4, 4};
	bu_stream(t, "q", lead, 3, 1);
	for (uint32_t k = 0; k < 12; k++)
		z.k[k] = (k < 6 ? 30 : 10) * G;
	hang(t, &z, 0);
	cfg = bu_cfg();
	cfg.paused = 1;
	bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(info.status, PL_STATUS_PAUSED);
	cfg.paused = 0;
	tl_view(t, 0);
	static pl_action one[1];
	n = pl_broker_plan(t->view, &cfg, one, 1, &info, NULL);
	ck_assert_int_eq(n, 0); /* an exchange fits whole or not at all */
	ck_assert_uint_eq(info.status, PL_STATUS_FULL);
	cfg.max_moves = 4;
	cfg.max_moves_in = 1;
	tl_view(t, 0);
	a = bu_plan(t, &cfg, &n, &info);
	ck_assert_int_eq(n, 2); /* one exchange: b2 (and b0) take no second copy */
	ck_assert_uint_eq(info.status, PL_STATUS_MOVE_LIMIT);
	tl_free(t);
}
END_TEST

/* Each malformed size or capacity gets its own code and the index, and a
 * refused view writes nothing to the caller's output. */
START_TEST(bad_sizes_are_refused_by_index)
{
	tl *t = bu_new(3, NULL);
	static const uint32_t lead[] = {1, 1, 1};
	bu_stream(t, "s", lead, 3, 1);
	static sizes z;
	hang(t, &z, 1);
	for (uint32_t m = 0; m < 3; m++)
		z.m[m] = PL_BYTES_UNKNOWN;
	for (uint32_t k = 0; k < 3; k++)
		z.k[k] = G;
	pl_diag d;
	ck_assert_int_eq(tl_view_rc(t, 0, &d), 0);
	z.m[2] = 0;
	ck_assert_int_eq(tl_view_rc(t, 0, &d), PL_E_CAPACITY);
	ck_assert_uint_eq(d.kind, PL_ELEM_MEMBER);
	ck_assert_uint_eq(d.index, 2);
	z.m[2] = PL_MAX_BYTES + 1;
	ck_assert_int_eq(tl_view_rc(t, 0, &d), PL_E_BYTES);
	ck_assert_uint_eq(d.kind, PL_ELEM_MEMBER);
	ck_assert_uint_eq(d.index, 2);
	z.m[2] = PL_MAX_BYTES;
	ck_assert_int_eq(tl_view_rc(t, 0, &d), 0);
	z.k[1] = PL_MAX_BYTES / PL_MAX_REPLICAS; /* with shard 0's 1G: past the sum */
	ck_assert_int_eq(tl_view_rc(t, 0, &d), PL_E_BYTES);
	ck_assert_uint_eq(d.kind, PL_ELEM_SHARD);
	ck_assert_uint_eq(d.index, 1);
	z.k[0] = PL_BYTES_UNKNOWN; /* unknown is not counted: the sum is the limit */
	z.k[1] = PL_MAX_BYTES / PL_MAX_REPLICAS - G;
	ck_assert_int_eq(tl_view_rc(t, 0, &d), 0);
	/* pl_snapshot_validate() says the same */
	z.m[0] = 0;
	static uint64_t work[1024];
	const pl_snapshot *snap = tl_snap(t);
	ck_assert_uint_le(pl_snapshot_work_size(snap), sizeof work);
	ck_assert_int_eq(pl_snapshot_validate(snap, work, sizeof work, &d), PL_E_CAPACITY);
	ck_assert_uint_eq(d.index, 0);
	/* a version 1 snapshot reads no sizes: valid; version 2 is refused */
	t->snap.version = 1;
	ck_assert_int_eq(pl_snapshot_validate(snap, work, sizeof work, &d), 0);
	t->snap.version = 2;
	ck_assert_int_eq(pl_snapshot_validate(snap, work, sizeof work, &d), PL_E_VERSION);
	t->snap.version = PL_SNAPSHOT_VERSION;
	tl_free(t);
}
END_TEST

/* Each bytes setting out of range is PL_E_CONFIG naming its place, with
 * nothing written; versions 1 and 2 read none of them. */
START_TEST(bad_bytes_settings_are_refused_by_place)
{
	tl *t = bu_new(2, NULL);
	static const uint32_t lead[] = {2, 0};
	bu_stream(t, "s", lead, 2, 1);
	pl_view *v = tl_view(t, 0);
	pl_action out[4];
	pl_plan_info info;
	pl_diag d;
	static const struct {
		uint32_t place, field_value;
	} bad[] = {{9, 2}, {10, 2}, {11, 101}, {12, PL_BROKER_MAX_TOLERANCE + 1}, {13, 1}};
	for (uint32_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		pl_broker_config cfg = bu_cfg();
		uint32_t *f[] = {&cfg.bytes_balance, &cfg.bytes_first, &cfg.full_ratio, &cfg.bytes_tolerance,
				 &cfg.reserved};
		*f[i] = bad[i].field_value;
		memset(out, 0xab, sizeof out);
		memset(&info, 0xab, sizeof info);
		ck_assert_int_eq(pl_broker_plan(v, &cfg, out, 4, &info, &d), PL_E_CONFIG);
		ck_assert_uint_eq(d.kind, PL_ELEM_CONFIG);
		ck_assert_uint_eq(d.index, bad[i].place);
		ck_assert_uint_eq(out[0].kind, 0xababababu);
		ck_assert_uint_eq(info.written, 0xababababu);
		cfg.version = 2; /* the field is past a version 2 config: not read */
		ck_assert_int_ge(pl_broker_plan(v, &cfg, out, 4, &info, &d), 0);
		tl_view(t, 0);
		v = t->view;
	}
	pl_broker_config c1;
	ck_assert_int_eq(pl_broker_config_init_version(&c1, 3), 0);
	ck_assert_uint_eq(c1.full_ratio, 90);
	ck_assert_uint_eq(c1.bytes_tolerance, 10);
	ck_assert_uint_eq(c1.bytes_balance, 1);
	tl_free(t);
}
END_TEST

/* Random layouts, heavy-tailed sizes (a few shards 1,000x the median),
 * capacities some known, random settings: no copy fills a member past its
 * full ratio, every copy says its bytes, the dry run ends, the tick loop
 * gives it, every BYTES_SKEW step lowers the sum of bytes^2 per weight (the
 * counts-first potential), and an exchange keeps every count. Printed: how
 * often every member ends within its band, and bytes copied against the
 * excess over the bands (a lower bound for the band's copies). */
START_TEST(random_layouts_keep_the_bytes_rules)
{
	uint64_t seed0 = tl_seed(0xb17e5);
	uint32_t iters = tl_iters(200), in_band = 0, layouts = 0, indivisible = 0;
	uint64_t copied = 0, bound = 0, band_copied = 0;
	for (uint32_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it, rng = seed;
		uint32_t nm = 3 + tl_below(&rng, 6), ns = 1 + tl_below(&rng, 4), nk = 6 + tl_below(&rng, 40);
		uint32_t rf = 1 + tl_below(&rng, nm < 3 ? nm : 3);
		tl *t = tl_random(&rng, nm, ns, nk, rf, (int)tl_below(&rng, 2));
		static sizes z;
		for (uint32_t k = 0; k < t->nk; k++) {
			uint32_t r = tl_below(&rng, 100);
			z.k[k] = r < 3 ? 1000 * G : r < 6 ? PL_BYTES_UNKNOWN : (1 + tl_below(&rng, 100)) * (G / 100);
		}
		int caps = (int)tl_below(&rng, 2);
		for (uint32_t m = 0; m < t->nm; m++)
			z.m[m] = tl_below(&rng, 5) == 0 ? PL_BYTES_UNKNOWN : (uint64_t)(2000 + tl_below(&rng, 4000)) * G;
		hang(t, &z, caps);
		pl_broker_config cfg = bu_cfg();
		cfg.max_moves = 1 + tl_below(&rng, 3);
		cfg.bytes_first = tl_below(&rng, 3) == 0;
		cfg.full_ratio = 80 + tl_below(&rng, 20);
		cfg.bytes_tolerance = 5 + tl_below(&rng, 30);
		uint64_t start[64];
		pl_view *v = tl_view(t, 0);
		for (uint32_t m = 0; m < t->nm; m++)
			start[m] = held_bytes(t, v, m);
		uint32_t n, ticks;
		pl_plan_info info;
		pl_action *a = bu_dry(t, &cfg, &n, &info, &ticks);
		ck_assert_msg(info.status != PL_STATUS_FULL && ticks < 1000, "seed %llu: no end (%u ticks)",
			      (unsigned long long)seed, ticks);
		uint64_t bytes[64];
		memcpy(bytes, start, sizeof bytes);
		check_copies(t, a, n, bytes, caps ? cfg.full_ratio : 0, seed);
		for (uint32_t i = 0; i < n; i++) {
			if (a[i].flags & PL_ACTION_STAGE_FIRST && a[i].bytes != PL_BYTES_UNKNOWN)
				copied += a[i].bytes;
			if (a[i].reason == PL_REASON_BYTES_SKEW || a[i].reason == PL_REASON_FULL_RATIO)
				band_copied += a[i].bytes;
			if (a[i].reason != PL_REASON_BYTES_SKEW || cfg.bytes_first)
				continue;
			if (a[i].flags & PL_ACTION_EXCHANGE) { /* the pair: the same role */
				ck_assert_msg(i + 1 < n && a[i + 1].from == a[i].to && a[i + 1].to == a[i].from &&
						      (a[i + 1].flags & PL_ACTION_CARRIES_LEADER) ==
							      (a[i].flags & PL_ACTION_CARRIES_LEADER),
					      "seed %llu: exchange at %u", (unsigned long long)seed, i);
				ck_assert_msg(a[i].bytes > a[i + 1].bytes, "seed %llu: exchange at %u gives less",
					      (unsigned long long)seed, i);
				i++;
			}
		}
		uint32_t differs;
		ck_assert_msg(bu_loop_differs(t, &cfg, &differs) == -1, "seed %llu: the loop differs",
			      (unsigned long long)seed);
		/* bands: the last view's; the excess over them at the start */
		uint64_t tot = 0, w = 0;
		int all_caps = 1;
		for (uint32_t m = 0; m < t->nm; m++)
			all_caps &= bu_eligible(t, m) ? z.m[m] != PL_BYTES_UNKNOWN || !caps : 1;
		for (uint32_t m = 0; m < t->nm; m++)
			if (bu_eligible(t, m)) {
				tot += bytes[m];
				w += caps && all_caps ? z.m[m] / G : 1;
			}
		int ok = 1, big = 0;
		for (uint32_t m = 0; m < t->nm; m++) {
			if (!bu_eligible(t, m) || w == 0)
				continue;
			uint64_t share = tot / w * (caps && all_caps ? z.m[m] / G : 1);
			uint64_t hi = share + share / 100 * cfg.bytes_tolerance, lo = share - share / 100 * cfg.bytes_tolerance;
			ok &= bytes[m] <= hi + G && bytes[m] + G >= lo;
			bound += start[m] > hi ? start[m] - hi : 0;
			for (uint32_t k = 0; k < t->nk && !big; k++) /* a shard wider than a band */
				big = z.k[k] != PL_BYTES_UNKNOWN && z.k[k] > hi - lo;
		}
		in_band += ok;
		indivisible += !ok && big;
		layouts++;
		free(a);
		tl_free(t);
	}
	printf("bytes: %u of %u layouts end with every member within its band (1G slack); of the %u others, %u "
	       "hold a shard larger than a band is wide; bytes copied %llu G in all, %llu G by the bytes passes, "
	       "against an excess over the bands at the start of %llu G\n",
	       in_band, layouts, layouts - in_band, indivisible, (unsigned long long)(copied / G),
	       (unsigned long long)(band_copied / G), (unsigned long long)(bound / G));
	/* the bytes passes copy within a small factor of what must leave the
	 * members above their bands (each exchange copies both ways) */
	ck_assert_msg(band_copied <= 3 * bound, "seed %llu: bytes passes copied %llu G, excess %llu G",
		      (unsigned long long)seed0, (unsigned long long)(band_copied / G), (unsigned long long)(bound / G));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("broker_bytes");
	TCase *c = tcase_create("bytes");
	tcase_set_timeout(c, 600);
	tcase_add_test(c, a_stream_lopsided_by_size_is_evened_by_exchanges);
	tcase_add_test(c, without_sizes_counts_only);
	tcase_add_test(c, a_count_move_takes_the_shard_that_evens_the_bytes);
	tcase_add_test(c, a_member_past_its_full_ratio_sheds_first);
	tcase_add_test(c, a_count_move_past_a_full_ratio_is_blocked);
	tcase_add_test(c, bytes_in_flight_limit_what_a_tick_starts);
	tcase_add_test(c, the_bytes_passes_wait_on_pause_limits_and_room);
	tcase_add_test(c, bad_sizes_are_refused_by_index);
	tcase_add_test(c, bad_bytes_settings_are_refused_by_place);
	tcase_add_test(c, random_layouts_keep_the_bytes_rules);
	suite_add_tcase(s, c);
	return tl_run(s);
}
