/*
 * fuzz_broker.c - libFuzzer harness for the broker policy: any bytes become
 * a valid-by-construction snapshot (fuzz_valid.h: up to 64 members, 16
 * streams, 2,000 shards; one input in 32 with a deliberate fault; the
 * malformed ones are fuzz_snapshot.c's) and a configuration (sometimes a bad
 * one); a valid snapshot's view goes through pl_broker_plan(), settles, and
 * pl_broker_dry_run(). A crash, a sanitizer report, or a broken promise
 * (checked with abort()) is a bug:
 *  - an error writes nothing: not out, not info, not the view's bytes;
 *  - a call writes at most cap actions, says so in info, and every action
 *    is one pl_action_explain() can render, of the broker's kinds and
 *    reasons;
 *  - a dry run that did not fill its output ends where a further tick
 *    emits nothing.
 *
 *   make fuzz FUZZ_TIME=60     build with clang -fsanitize=fuzzer and run
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_valid.h"
#include "placement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	in s = {data, len};
	static fv_snapshot f;
	pl_snapshot snap = fv_read(&s, &f);

	pl_view *v = NULL;
	size_t size = pl_view_size(&snap);
	void *mem = malloc(size), *copy = malloc(size);
	int init = pl_view_init(&v, mem, size, &snap, NULL, NULL);
	count_valid("fuzz_broker", init == 0);
	if (init != 0) {
		free(mem);
		free(copy);
		return 0;
	}
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	if (take(&s, 16) == 0)
		cfg.version = take(&s, 3);
	cfg.max_moves = take(&s, 20) == 0 ? (take(&s, 2) ? 0 : PL_BROKER_MAX_MOVES + 1) : 1 + take(&s, 4);
	cfg.max_moves_in = take(&s, 3);
	cfg.max_moves_out = take(&s, 3);
	cfg.paused = take(&s, 8) == 0 ? take(&s, 3) : 0;
	cfg.replication_factor = take(&s, 20) == 0 ? take(&s, 2) * (PL_MAX_REPLICAS + 1) : 1 + take(&s, 4);
	cfg.stream_balance = take(&s, 6) == 0 ? take(&s, 3) : 1;
	cfg.replica_balance = take(&s, 6) == 0 ? take(&s, 3) : 1;
	cfg.handoff_only = take(&s, 4) == 0 ? take(&s, 3) : 0;
	enum { CAP = 256 };
	static pl_action out[CAP];
	uint32_t cap = take(&s, 4) == 0 ? take(&s, 8) : CAP;
	char buf[512];
	for (int round = 0; round < 3; round++) {
		pl_plan_info info;
		memset(out, 0x5a, sizeof out);
		memset(&info, 0x5a, sizeof info);
		memcpy(copy, mem, size);
		int rc = round < 2 ? pl_broker_plan(v, &cfg, take(&s, 30) ? out : NULL, cap, &info, NULL)
				   : pl_broker_dry_run(v, &cfg, out, cap, &info, NULL, NULL);
		if (rc < 0) {
			unsigned char pat[sizeof info];
			memset(pat, 0x5a, sizeof pat);
			if (memcmp(&info, pat, sizeof info) != 0 || memcmp(copy, mem, size) != 0)
				abort(); /* an error wrote something */
			for (uint32_t i = 0; i < CAP; i++)
				if (memcmp(&out[i], pat, sizeof pat > sizeof out[i] ? sizeof out[i] : sizeof pat) != 0)
					abort();
			break;
		}
		if ((uint32_t)rc > cap || info.written != (uint32_t)rc || info.wanted < info.written)
			abort();
		if (strcmp(pl_status_name(info.status), "unknown") == 0)
			abort();
		for (int i = 0; i < rc; i++) {
			const pl_action *a = &out[i];
			if (a->kind != PL_ACTION_SET_LEADER && a->kind != PL_ACTION_MOVE_LEADER &&
			    a->kind != PL_ACTION_ADD_REPLICA && a->kind != PL_ACTION_MOVE_REPLICA)
				abort();
			if ((a->reason < PL_REASON_NEW || a->reason > PL_REASON_CLUSTER_SKEW) &&
			    (a->reason < PL_REASON_ZONE_REPAIR || a->reason > PL_REASON_REPLICA_CLUSTER_SKEW))
				abort();
			if (pl_action_explain(&snap, a, buf, sizeof buf) <= 0)
				abort();
		}
		if (round == 2 && info.status != PL_STATUS_FULL) {
			/* The dry run ended where a tick emits nothing. */
			if (pl_broker_plan(v, &cfg, out, CAP, &info, NULL) != 0)
				abort();
		}
		pl_view_settle(v);
	}
	free(mem);
	free(copy);
	return 0;
}
