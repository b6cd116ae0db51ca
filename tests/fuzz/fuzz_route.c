/*
 * fuzz_route.c - libFuzzer harness for routing: the forwarding table
 * (pl_route_decide(), any field any value) and the owner lookup
 * (pl_route_lookup(), any key, any self) on valid-by-construction views
 * (fuzz_valid.h). A crash, a sanitizer report or a broken promise (abort())
 * is a bug:
 *  - a field out of its values is refused, naming it, and nothing written;
 *  - a request already marked forwarded is never forwarded again, nor one
 *    whose owner's address is unknown or whose body was read past the
 *    limit or in part: those keep the 409;
 *  - a forward is marked, a failure after sending is a 503 with
 *    Retry-After 1, and a first call never relays or fails;
 *  - the owner of a key the snapshot holds is pl_fleet_owner()'s, its home
 *    is pl_view_home()'s, and is_self says whether the owner is self.
 *
 *   make fuzz FUZZ_TIME=60     build with clang -fsanitize=fuzzer and run
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_valid.h"
#include "placement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static fv_snapshot f;

static void table(in *s)
{
	pl_route_request r = PL_ROUTE_REQUEST_INIT;
	int wild = take(s, 16) == 0;
	r.version = wild ? take(s, 3) : PL_ROUTE_REQUEST_VERSION;
	r.data_plane = take(s, wild ? 4 : 2);
	r.answer = take(s, wild ? 4 : 2);
	r.owner_known = take(s, wild ? 4 : 2);
	r.forwarded = take(s, wild ? 4 : 2);
	r.body = take(s, wild ? 6 : 4);
	r.outcome = take(s, 3) ? PL_ROUTE_OUTCOME_NONE : take(s, wild ? 6 : 4);
	r.reserved = wild ? take(s, 2) : 0;
	pl_route_verdict out, pat;
	memset(&out, 0x5a, sizeof out);
	pat = out;
	pl_diag d = {0, 0, 0, 0};
	int rc = pl_route_decide(&r, &out, &d);
	if (rc < 0) {
		if (memcmp(&out, &pat, sizeof out) != 0 || d.code != rc)
			abort();
		return;
	}
	if (r.version != PL_ROUTE_REQUEST_VERSION || r.data_plane > 1 || r.answer > 1 || r.owner_known > 1 ||
	    r.forwarded > 1 || r.body > PL_ROUTE_BODY_PARTIAL || r.outcome > PL_ROUTE_OUTCOME_FAILED || r.reserved)
		abort(); /* a bad field accepted */
	int first = r.outcome == PL_ROUTE_OUTCOME_NONE;
	int may_forward = r.data_plane && r.answer == PL_ROUTE_ANSWER_NOT_OWNER && r.owner_known && !r.forwarded &&
			  r.body != PL_ROUTE_BODY_PAST_LIMIT && r.body != PL_ROUTE_BODY_PARTIAL;
	if (first) {
		if (out.verdict == PL_ROUTE_FORWARD ? !may_forward || !out.mark : may_forward)
			abort();
		if (out.verdict == PL_ROUTE_RELAY || out.verdict == PL_ROUTE_FAILED)
			abort();
		if (out.verdict == PL_ROUTE_REPLAY && out.status != 409)
			abort();
	} else {
		if (!may_forward)
			abort(); /* an outcome for a request that was not forwarded */
		if (r.outcome == PL_ROUTE_OUTCOME_FAILED && (out.verdict != PL_ROUTE_FAILED || out.status != 503 ||
							     out.retry_after != 1))
			abort();
		if (r.outcome == PL_ROUTE_OUTCOME_REFUSED && out.verdict != PL_ROUTE_REPLAY)
			abort();
		if (r.outcome == PL_ROUTE_OUTCOME_ANSWERED && out.verdict != PL_ROUTE_RELAY)
			abort();
	}
	if (strcmp(pl_route_rule_name(out.rule), "unknown") == 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	in s = {data, len};
	for (int i = 0; i < 8; i++)
		table(&s);
	char key[16];
	size_t klen = take(&s, sizeof key + 1);
	for (size_t i = 0; i < klen && i < sizeof key; i++)
		key[i] = (char)take(&s, 256);
	if (klen > sizeof key)
		klen = sizeof key;
	uint32_t self = take(&s, FV_MEMBERS + 2);
	uint32_t probe = take(&s, 0);
	pl_snapshot snap = fv_read(&s, &f);
	size_t size = pl_view_size(&snap);
	void *mem = malloc(size);
	pl_view *v = NULL;
	int init = pl_view_init(&v, mem, size, &snap, NULL, NULL);
	count_valid("fuzz_route", init == 0);
	if (init != 0)
		goto done;
	if (self == FV_MEMBERS + 1)
		self = PL_NONE;
	for (int round = 0; round < 2; round++) {
		const char *k = key;
		size_t kl = klen;
		if (round == 1 && snap.n_shards) {
			const pl_shard *sh = &snap.shards[probe % snap.n_shards];
			k = sh->key.ptr;
			kl = (size_t)sh->key.len;
		}
		pl_route_owner o;
		pl_diag d = {0, 0, 0, 0};
		int rc = pl_route_lookup(v, k, kl, self, &o, &d);
		if (rc < 0) {
			if (rc != PL_E_NO_ELIGIBLE && !(rc == PL_E_MEMBER_RANGE && self != PL_NONE && self >= snap.n_members))
				abort();
			continue;
		}
		if (o.owner >= snap.n_members || o.home >= snap.n_members || o.is_self != (o.owner == self))
			abort();
		if (o.shard != PL_NONE) {
			if (pl_fleet_owner(v, o.shard) != (int)o.owner || pl_view_home(v, o.shard) != (int)o.home)
				abort();
		} else if (o.owner != o.home) {
			abort(); /* a key the snapshot lacks has no override */
		}
	}
done:
	free(mem);
	return 0;
}
