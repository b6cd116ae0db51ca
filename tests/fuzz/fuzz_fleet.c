/*
 * fuzz_fleet.c - libFuzzer harness for the fleet and routing calls: any
 * bytes become a small fleet (members with flags and loads, shards with
 * loads, overrides) and a config; when the snapshot is valid, every member
 * decides on its own copy of the view, the owners are read, the document is
 * written and read back, and keys are routed. The rest of the bytes are also
 * read as an override document and as a route request. A crash, a sanitizer
 * report or a broken invariant (abort()) is a bug:
 *  - a decision on valid input never fails, and writes no more than cap;
 *  - every action it writes applies to a fresh copy of the view, and
 *    explains;
 *  - the document a view writes reads back to the same overrides;
 *  - a request marked forwarded is never forwarded.
 *
 *   make fuzz FUZZ_TIME=60     build with clang -fsanitize=fuzzer and run
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "placement.h"

#define MAXM 9
#define MAXK 40

static char names[MAXM][8], keys[MAXK][8];

static void route(in *s)
{
	pl_route_request r;
	pl_route_request_init(&r);
	r.data_plane = take(s, 3);
	r.answer = take(s, 3);
	r.owner_known = take(s, 3);
	r.forwarded = take(s, 3);
	r.body = take(s, 5);
	r.outcome = take(s, 5);
	pl_route_verdict v;
	int rc = pl_route_decide(&r, &v, NULL);
	if (rc == 0 && r.forwarded && (v.verdict == PL_ROUTE_FORWARD || v.verdict == PL_ROUTE_RELAY))
		abort();
	if (rc == 0)
		(void)pl_route_rule_name(v.rule);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	in s = {data, size};
	pl_member m[MAXM];
	pl_shard k[MAXK];
	pl_override o[MAXK + 2];
	memset(m, 0, sizeof m);
	memset(k, 0, sizeof k);
	uint32_t nm = take(&s, MAXM + 1), nk = take(&s, MAXK + 1), no = take(&s, MAXK + 3);
	for (uint32_t i = 0; i < nm; i++) {
		m[i].id = read_member_id(&s, names[i]);
		m[i].flags = take(&s, 16);
		m[i].load = take(&s, 0);
		m[i].weight = take(&s, 4) == 0 ? 2 : 1;
	}
	for (uint32_t i = 0; i < nk; i++) {
		int n = snprintf(keys[i], sizeof keys[i], "%02x", i);
		k[i].key = (pl_bytes){keys[i], (uint64_t)n};
		k[i].stream = k[i].leader = k[i].moving_to = PL_NONE;
		k[i].load = take(&s, 0);
	}
	read_overrides(&s, o, no, nk, nm);
	pl_snapshot snap = {.version = PL_SNAPSHOT_VERSION, .members = m, .shards = k, .overrides = o,
			.n_members = nm, .n_shards = nk, .n_overrides = no};
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	opt.scorer = take(&s, 2) ? PL_SCORER_XXH3 : PL_SCORER_LEGACY_FNV1A;
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	cfg.now = take(&s, 0);
	cfg.cooldown = take(&s, 8);
	cfg.moves_per_decision = 1 + take(&s, 4);
	cfg.spread = take(&s, 2);
	cfg.count_balance = take(&s, 2);
	cfg.return_home_age = take(&s, 4) == 0 ? PL_FLEET_NEVER : take(&s, 0);
	size_t vs = pl_view_size(&snap);
	void *mem = malloc(vs), *copy = malloc(vs);
	pl_view *v, *c;
	int init = pl_view_init(&v, mem, vs, &snap, &opt, NULL);
	count_valid("fuzz_fleet", init == 0);
	if (init == 0) {
		uint32_t owners[MAXK];
		int n = pl_fleet_owners(v, owners, MAXK, NULL);
		if (n >= 0) {
			for (uint32_t i = 0; i < nk; i++)
				if (pl_fleet_owner(v, i) != (int)owners[i])
					abort();
			for (uint32_t self = 0; self < nm; self++) {
				if (pl_view_copy(&c, copy, vs, v) != 0)
					abort();
				cfg.self = self;
				cfg.last_move = take(&s, 3) ? PL_FLEET_NEVER : cfg.now;
				pl_action a[MAXK + 8];
				uint32_t cap = take(&s, MAXK + 8);
				pl_plan_info info;
				int got = pl_fleet_decide(c, &cfg, a, cap, &info, NULL);
				if (got < 0 || (uint32_t)got > cap || info.written != (uint32_t)got)
					abort();
				char line[512];
				if (pl_view_copy(&c, copy, vs, v) != 0)
					abort();
				for (int j = 0; j < got; j++) {
					if (pl_view_apply(c, &a[j]) != 0 || pl_action_explain(&snap, &a[j], line, sizeof line) < 0)
						abort();
				}
				/* the document the copy holds reads back the same */
				int len = pl_fleet_doc_format(c, NULL, 0);
				char *doc = malloc((size_t)len + 1);
				pl_fleet_doc_format(c, doc, (size_t)len + 1);
				pl_override back[MAXK];
				int r = pl_fleet_doc_read(c, doc, (size_t)len, back, MAXK, NULL, NULL);
				for (int j = 0; j < r; j++) {
					pl_shard_state st;
					pl_view_shard_state(c, back[j].shard, &st);
					if (st.override_member != back[j].member || st.override_origin != back[j].origin ||
					    st.override_since != back[j].since)
						abort();
				}
				free(doc);
				if (r < 0)
					abort();
			}
		}
		pl_route_owner ro;
		for (uint32_t i = 0; i < nk; i++)
			if (pl_route_lookup(v, keys[i], 2, nm ? 0 : PL_NONE, &ro, NULL) == 0 && ro.owner != owners[i])
				abort();
		(void)pl_route_lookup(v, "new", 3, PL_NONE, &ro, NULL);
		/* the rest of the input as a document */
		pl_override d[8];
		uint32_t skipped;
		(void)pl_fleet_doc_read(v, (const char *)s.p, s.n, d, 8, &skipped, NULL);
	}
	while (s.n)
		route(&s);
	free(mem);
	free(copy);
	return 0;
}
