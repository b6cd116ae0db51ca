/*
 * fuzz_snapshot.c - libFuzzer harness: any bytes become a snapshot (often a
 * malformed one), which goes through validation and, when valid, a view and
 * every call on it: accessors, top-k, apply and settle, explain. A crash, a
 * sanitizer report, or a broken invariant (checked with abort()) is a bug.
 *
 *   make fuzz FUZZ_TIME=60     build with clang -fsanitize=fuzzer and run
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "placement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	in s = {data, len};
	fuzz_snapshot f;
	pl_snapshot snap = read_snapshot(&s, &f);
	const pl_member *m = f.m;
	uint32_t nm = snap.n_members, ns = snap.n_streams, nk = snap.n_shards;

	size_t ws = pl_snapshot_work_size(&snap);
	void *work = malloc(ws ? ws : 1);
	pl_diag d1, d2;
	int rc1 = pl_snapshot_validate(&snap, work, ws, &d1);
	free(work);

	size_t size = pl_view_size(&snap);
	void *mem = malloc(size);
	pl_view *v = NULL;
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	opt.scorer = take(&s, 2) ? PL_SCORER_XXH3 : PL_SCORER_LEGACY_FNV1A;
	int rc2 = pl_view_init(&v, mem, size, &snap, &opt, &d2);
	if (rc1 != rc2 || (rc1 && (d1.kind != d2.kind || d1.index != d2.index)))
		abort(); /* validation and view must agree */
	if (rc2 == 0) {
		pl_view_counts c;
		pl_tally t;
		pl_shard_state ss;
		if (pl_view_stats(v, &c) != 0)
			abort();
		for (uint32_t i = 0; i < nm; i++) {
			if (pl_view_member_tally(v, i, &t) != 0)
				abort();
			for (uint32_t j = 0; j < ns; j++)
				if (pl_view_stream_tally(v, j, i, &t) != 0)
					abort();
			if (pl_view_find(v, PL_ELEM_MEMBER, m[i].id.ptr, m[i].id.len) != (int)i)
				abort();
		}
		/* every measure: the parts add up, and a known measure is never refused */
		for (uint32_t q = PL_IMBALANCE_LEADERS; q <= PL_IMBALANCE_REPLICAS; q++) {
			pl_imbalance imb;
			if (pl_view_imbalance(v, q, &imb) != 0 || imb.total != imb.totals + imb.streams)
				abort();
		}
		for (uint32_t i = 0; i < nk; i++) {
			int h = pl_view_home(v, i);
			if (h >= 0 && (m[h].flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING)))
				abort();
			pl_view_shard_state(v, i, &ss);
		}
		uint32_t top[PL_MAX_REPLICAS];
		pl_view_top(v, "key", 3, top, take(&s, PL_MAX_REPLICAS + 1));
		char buf[256];
		for (int step = 0; step < 16 && s.n; step++) {
			pl_action a;
			memset(&a, 0, sizeof a);
			a.kind = take(&s, 8);
			a.reason = take(&s, 17);
			a.shard = take(&s, nk + 1);
			a.stream = index_or_none(&s, ns);
			a.from = index_or_none(&s, nm);
			a.to = index_or_none(&s, nm);
			a.origin = take(&s, 3);
			pl_action_explain(&snap, &a, buf, take(&s, sizeof buf));
			pl_view_apply(v, &a);
			if (take(&s, 4) == 0)
				pl_view_settle(v);
		}
	}
	free(mem);
	return 0;
}
