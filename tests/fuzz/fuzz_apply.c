/*
 * fuzz_apply.c - libFuzzer harness for what a caller does with a view between
 * policy calls: actions of its own through pl_view_apply() (any kind, any
 * indices, any fields), their sentences through pl_action_explain() (any
 * buffer size), pl_view_settle(), and every reader of a view, on
 * valid-by-construction snapshots (fuzz_valid.h). A crash, a sanitizer
 * report, a failed assertion in the library or a broken promise (abort())
 * is a bug:
 *  - a refused action leaves the view's bytes as they were;
 *  - an applied one leaves a view whose readers all answer, whose totals
 *    agree with its shard states, and whose shard states form a valid
 *    snapshot again (no replica twice, the leader among them);
 *  - pl_action_explain() returns the sentence's whole length whatever the
 *    buffer, writes a NUL within it, and refuses what does not fit the
 *    snapshot without writing;
 *  - every call with a bad argument returns its documented code, names the
 *    argument, and writes nothing (fuzz_misuse.h; its choices are drawn
 *    from the snapshot's random stream, after the snapshot).
 *
 *   make fuzz FUZZ_TIME=60     build with clang -fsanitize=fuzzer and run
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_misuse.h"
#include "fuzz_valid.h"
#include "placement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static fv_snapshot f;

/* An index below n, or (rarely) n or PL_NONE. */
static uint32_t pick(in *s, uint32_t n)
{
	uint32_t v = take(s, 0);
	return v % 31 == 30 ? n : v % 31 == 29 ? PL_NONE : n ? v % n : PL_NONE;
}

static void check_view(const pl_view *v, const pl_snapshot *snap)
{
	pl_view_counts vc;
	if (pl_view_stats(v, &vc) != 0)
		abort();
	uint64_t leaders = 0, replicas = 0;
	for (uint32_t m = 0; m < snap->n_members; m++) {
		pl_tally t;
		if (pl_view_member_tally(v, m, &t) != 0)
			abort();
		leaders += t.leaders;
		replicas += t.replicas;
	}
	uint64_t l2 = 0, r2 = 0;
	for (uint32_t k = 0; k < snap->n_shards; k++) {
		pl_shard_state st;
		if (pl_view_shard_state(v, k, &st) != 0 || st.replica_count > PL_MAX_REPLICAS)
			abort();
		int lead_ok = st.leader == PL_NONE;
		for (uint32_t j = 0; j < st.replica_count; j++) {
			if (st.replicas[j] >= snap->n_members)
				abort();
			for (uint32_t q = 0; q < j; q++)
				if (st.replicas[q] == st.replicas[j])
					abort(); /* a replica twice */
			lead_ok |= st.replicas[j] == st.leader;
		}
		if (!lead_ok)
			abort(); /* the leader is no replica */
		l2 += st.leader != PL_NONE;
		r2 += st.replica_count;
	}
	if (l2 != leaders || r2 != replicas)
		abort(); /* totals and states disagree */
	for (uint32_t s = 0; s < snap->n_streams; s++) {
		pl_tally t;
		uint32_t sum = 0;
		for (uint32_t m = 0; m < snap->n_members; m++) {
			if (pl_view_stream_tally(v, s, m, &t) != 0)
				abort();
			sum += t.leaders;
		}
		if (sum > t.shards)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	in s = {data, len};
	uint32_t n_actions = take(&s, 64);
	uint8_t acts[64][24];
	for (uint32_t i = 0; i < n_actions; i++)
		for (int b = 0; b < 24; b++)
			acts[i][b] = (uint8_t)take(&s, 256);
	pl_snapshot snap = fv_read(&s, &f);
	size_t size = pl_view_size(&snap);
	void *mem = malloc(size), *copy = malloc(size);
	pl_view *v = NULL;
	int init = pl_view_init(&v, mem, size, &snap, NULL, NULL);
	count_valid("fuzz_apply", init == 0);
	if (init != 0)
		goto done;
	uint8_t choice[128];
	for (size_t i = 0; i < sizeof choice; i++)
		choice[i] = (uint8_t)fv_next(&f);
	in ms = {choice, sizeof choice};
	fm_misuse(&ms, v, mem, size, &snap);
	char buf[300];
	for (uint32_t i = 0; i < n_actions; i++) {
		in a_in = {acts[i], 24};
		pl_action a;
		memset(&a, 0, sizeof a);
		a.kind = take(&a_in, 8);
		a.reason = take(&a_in, 24);
		a.shard = pick(&a_in, snap.n_shards);
		a.stream = take(&a_in, 4) ? (a.shard < snap.n_shards ? snap.shards[a.shard].stream : PL_NONE)
					   : pick(&a_in, snap.n_streams);
		a.from = pick(&a_in, snap.n_members);
		if (take(&a_in, 2) && a.shard < snap.n_shards) {
			pl_shard_state st;
			pl_view_shard_state(v, a.shard, &st);
			a.from = take(&a_in, 2) || st.replica_count == 0 ? st.leader : st.replicas[take(&a_in, st.replica_count)];
		}
		a.to = pick(&a_in, snap.n_members);
		a.origin = take(&a_in, 3);
		a.scope = take(&a_in, 8);
		a.tier = take(&a_in, 6);
		a.from_count = take(&a_in, 0);
		a.to_count = take(&a_in, 0);
		a.at = take(&a_in, 0);
		memcpy(copy, mem, size);
		int rc = pl_view_apply(v, &a);
		if (pl_strerror(rc)[0] == '\0' || pl_error_name(rc)[0] == '\0' || pl_error_name(-(int)take(&a_in, 70))[0] == '\0' ||
		    pl_strerror(-(int)take(&a_in, 70))[0] == '\0')
			abort(); /* every code has a name and a message */
		if (rc != 0 && (rc != PL_E_ACTION || memcmp(copy, mem, size) != 0))
			abort(); /* a refusal changed the view */
		if (rc == 0)
			check_view(v, &snap);
		size_t cap = take(&a_in, 0) % (sizeof buf + 1);
		memset(buf, 0x5a, sizeof buf);
		int n = pl_action_explain(&snap, &a, cap ? buf : NULL, cap);
		if (n >= 0) {
			int whole = pl_action_explain(&snap, &a, NULL, 0);
			if (n != whole || (cap && memchr(buf, '\0', cap) == NULL))
				abort();
		} else {
			for (size_t b = 0; b < sizeof buf; b++)
				if ((unsigned char)buf[b] != 0x5a)
					abort(); /* a refusal wrote */
		}
		if (take(&s, 8) == 0 && pl_view_settle(v) < 0)
			abort();
	}
	if (pl_version_number() <= 0 || pl_version()[0] == '\0')
		abort();
	uint32_t top[PL_MAX_REPLICAS];
	if (pl_view_top(v, "k/0001", 6, top, PL_MAX_REPLICAS) < 0)
		abort();
	for (uint32_t k = 0; k < 3 && k < snap.n_shards; k++) {
		(void)pl_view_home(v, k);
		(void)pl_fleet_owner(v, k);
	}
	(void)pl_view_find(v, PL_ELEM_MEMBER, "m00", 3);
	(void)pl_view_at(v, PL_ELEM_SHARD, snap.n_shards);
done:
	free(mem);
	free(copy);
	return 0;
}
