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

#include "placement.h"

typedef struct in {
	const uint8_t *p;
	size_t n;
} in;

static uint32_t take(in *s, uint32_t bound)
{
	uint32_t v = 0;
	for (int i = 0; i < 2 && s->n; i++) {
		v = (v << 8) | *s->p++;
		s->n--;
	}
	return bound ? v % bound : v;
}

static uint32_t index_or_none(in *s, uint32_t n)
{
	uint32_t v = take(s, n + 2);
	return v == n + 1 ? PL_NONE : v; /* sometimes n itself: out of range */
}

static char pool[1 << 14];
static size_t pool_used;

static pl_bytes text(in *s, int may_be_empty)
{
	static const char alphabet[] = "ab0/\0z";
	uint32_t len = take(s, 5) + (may_be_empty ? 0 : 0);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	in s = {data, len};
	pl_member m[12];
	pl_stream st[4];
	pl_shard k[40];
	pl_override o[6];
	memset(m, 0, sizeof m);
	memset(k, 0, sizeof k);
	memset(o, 0, sizeof o);
	pool_used = 0;
	uint32_t nm = take(&s, 12), ns = take(&s, 5), nk = take(&s, 41), no = take(&s, 7);
	if (ns > 4)
		ns = 4;
	if (nk > 40)
		nk = 40;
	if (no > 6)
		no = 6;
	for (uint32_t i = 0; i < nm; i++) {
		m[i].id = text(&s, 0);
		m[i].zone = text(&s, 1);
		m[i].weight = take(&s, 0) % 9 == 8 ? PL_MAX_WEIGHT + 1 : take(&s, 5);
		m[i].max_shards = take(&s, 6);
		m[i].flags = take(&s, 0) & 0x1f;
		m[i].joined_at = take(&s, 0);
		m[i].load = take(&s, 0);
		m[i].map_version = take(&s, 4);
	}
	for (uint32_t i = 0; i < ns; i++)
		st[i].id = text(&s, 0);
	for (uint32_t i = 0; i < nk; i++) {
		k[i].key = text(&s, 0);
		k[i].stream = index_or_none(&s, ns);
		k[i].replica_count = take(&s, 10) == 9 ? PL_MAX_REPLICAS + 1 : take(&s, 4);
		for (uint32_t r = 0; r < PL_MAX_REPLICAS; r++)
			k[i].replicas[r] = take(&s, nm + 1);
		k[i].leader = take(&s, 3) ? (k[i].replica_count ? k[i].replicas[0] : PL_NONE) : index_or_none(&s, nm);
		k[i].moving_to = take(&s, 4) ? PL_NONE : index_or_none(&s, nm);
		k[i].flags = take(&s, 0) & 0x7;
		k[i].epoch = take(&s, 4);
		k[i].load = take(&s, 0);
	}
	for (uint32_t i = 0; i < no; i++) {
		o[i].shard = take(&s, nk + 1);
		o[i].member = take(&s, nm + 1);
		o[i].origin = take(&s, 3);
		o[i].since = take(&s, 0);
	}
	pl_snapshot snap = {m, st, k, o, nm, ns, nk, no};
	if (take(&s, 50) == 0)
		snap.shards = NULL;

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
