/*
 * route_handler.c - the forwarding decision inside a request handler.
 *
 * A fleet member receives data-plane requests for any key. Inside its
 * handler it:
 *  1. asks who owns the key's shard now: pl_route_lookup() on this tick's
 *     view (an override's member, else the ring home), with self = its index;
 *  2. serves when it owns the shard, else answers 409 naming the owner;
 *  3. describes the request to pl_route_decide(): that answer, whether the
 *     owner's address is in the peer table, whether the request is already
 *     marked forwarded, how much of the body was read;
 *  4. acts on the verdict: serve; forward once, marked forwarded (here the
 *     owner's own handle() answers, or the network refuses or fails), then
 *     calls pl_route_decide() again with the outcome: relay the owner's
 *     answer, 409 naming the owner, or 503 forward_failed with Retry-After.
 * The requests: a key self owns, a key another member owns, one already
 * forwarded (two members disagreeing about the owner never loop), an owner
 * with no known address, a body read in part, a forward refused before it
 * was sent and one that failed after it was sent, and a route that is not
 * the data plane. Each verdict is checked against route.h's table.
 *
 * Build: cc route_handler.c $(pkg-config --cflags --libs libplacement)
 */
#include <placement.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_MEMBERS 3
#define N_SHARDS 12

static char keys[N_SHARDS][16];
/* The trusted peer table, in the snapshot's member order: m2 publishes none. */
static const char *const peer_addr[N_MEMBERS] = {"10.0.0.1:8080", "10.0.0.2:8080", NULL};

struct request {
	const char *key;   /* NULL: not a data-plane route (say, /healthz) */
	int forwarded;     /* carries the forwarded mark */
	uint32_t body;     /* PL_ROUTE_BODY_* the handler left it in */
	uint32_t network;  /* what a forward from here meets: PL_ROUTE_OUTCOME_ANSWERED, REFUSED or FAILED */
};
struct response {
	uint32_t status, retry_after, rule; /* rule: the route.h row that decided at the member it reached */
	int member;                         /* 200: the member that served it; 409: the owner it names */
	const char *forwarded_to;           /* set on a relayed answer */
};

/* The data-plane handler of member `self`. */
static struct response handle(const pl_view *v, uint32_t self, const struct request *q)
{
	struct response res = {200, 0, 0, (int)self, NULL};
	pl_route_request r = PL_ROUTE_REQUEST_INIT;
	pl_route_verdict verdict;
	pl_route_owner own = {0, 0, 0, 1};

	r.data_plane = q->key != NULL;
	if (q->key != NULL && pl_route_lookup(v, q->key, strlen(q->key), self, &own, NULL) < 0)
		return (struct response){500, 0, 0, -1, NULL};
	if (!own.is_self) { /* the handler's own answer: 409 not-owner, naming the owner */
		res = (struct response){409, 0, 0, -1, NULL};
		r.answer = PL_ROUTE_ANSWER_NOT_OWNER;
	}
	r.owner_known = peer_addr[own.owner] != NULL;
	r.forwarded = (uint32_t)q->forwarded;
	r.body = q->body;
	if (pl_route_decide(&r, &verdict, NULL) < 0)
		return (struct response){500, 0, 0, -1, NULL};
	if (verdict.verdict == PL_ROUTE_FORWARD) {
		struct request hop = *q;
		struct response theirs = {0, 0, 0, -1, NULL};
		hop.forwarded = (int)verdict.mark; /* marked: the owner never forwards it again */
		r.outcome = q->network;
		if (q->network == PL_ROUTE_OUTCOME_ANSWERED) /* the owner's handler, reached over the network */
			theirs = handle(v, own.owner, &hop);
		if (pl_route_decide(&r, &verdict, NULL) < 0)
			return (struct response){500, 0, 0, -1, NULL};
		if (verdict.verdict == PL_ROUTE_RELAY)
			return (struct response){theirs.status, theirs.retry_after, verdict.rule, theirs.member,
						 peer_addr[own.owner]};
	}
	res.rule = verdict.rule;
	if (verdict.verdict == PL_ROUTE_REPLAY || verdict.verdict == PL_ROUTE_FAILED)
		res = (struct response){verdict.status, verdict.retry_after, verdict.rule,
					verdict.verdict == PL_ROUTE_REPLAY ? (int)own.owner : -1, NULL};
	return res;
}

int main(void)
{
	pl_member members[N_MEMBERS] = {{.id = {"m0", 2}}, {.id = {"m1", 2}}, {.id = {"m2", 2}}};
	pl_shard shards[N_SHARDS];
	const char *owned_by[N_MEMBERS] = {NULL, NULL, NULL};
	int fail = 0;

	for (uint32_t k = 0; k < N_SHARDS; k++) {
		snprintf(keys[k], sizeof keys[k], "orders/%02u", k);
		shards[k] = (pl_shard){.key = {keys[k], strlen(keys[k])}, .stream = PL_NONE, .leader = PL_NONE,
				       .moving_to = PL_NONE};
	}
	pl_snapshot snap = {.version = PL_SNAPSHOT_VERSION, .members = members, .n_members = N_MEMBERS,
			    .shards = shards, .n_shards = N_SHARDS};
	size_t size = pl_view_size(&snap);
	void *mem = malloc(size);
	pl_view *v;
	if (mem == NULL || pl_view_init(&v, mem, size, &snap, NULL, NULL) < 0)
		return fprintf(stderr, "view\n"), 1;
	for (uint32_t k = 0; k < N_SHARDS; k++) { /* a key each member owns, to aim the requests */
		int o = pl_fleet_owner(v, k);
		if (o >= 0 && owned_by[o] == NULL)
			owned_by[o] = keys[k];
	}
	if (!owned_by[0] || !owned_by[1] || !owned_by[2])
		return fprintf(stderr, "FAIL: some member owns no key\n"), 1;

	const struct {
		const char *what;
		struct request q;
		uint32_t status, rule, retry_after;
		int member; /* who served it (200) or is named (409) */
	} cases[] = {
		{"m0's own key", {owned_by[0], 0, PL_ROUTE_BODY_UNREAD, PL_ROUTE_OUTCOME_ANSWERED}, 200,
		 PL_ROUTE_RULE_SERVED, 0, 0},
		{"m1's key", {owned_by[1], 0, PL_ROUTE_BODY_WHOLE, PL_ROUTE_OUTCOME_ANSWERED}, 200,
		 PL_ROUTE_RULE_OWNER_ANSWERED, 0, 1},
		{"m1's key, already forwarded", {owned_by[1], 1, PL_ROUTE_BODY_UNREAD, PL_ROUTE_OUTCOME_ANSWERED}, 409,
		 PL_ROUTE_RULE_ALREADY_FORWARDED, 0, 1},
		{"m2's key, no address", {owned_by[2], 0, PL_ROUTE_BODY_UNREAD, PL_ROUTE_OUTCOME_ANSWERED}, 409,
		 PL_ROUTE_RULE_OWNER_UNKNOWN, 0, 2},
		{"m1's key, body read in part", {owned_by[1], 0, PL_ROUTE_BODY_PARTIAL, PL_ROUTE_OUTCOME_ANSWERED}, 409,
		 PL_ROUTE_RULE_BODY_PARTIAL, 0, 1},
		{"m1's key, refused", {owned_by[1], 0, PL_ROUTE_BODY_UNREAD, PL_ROUTE_OUTCOME_REFUSED}, 409,
		 PL_ROUTE_RULE_REFUSED, 0, 1},
		{"m1's key, failed after send", {owned_by[1], 0, PL_ROUTE_BODY_UNREAD, PL_ROUTE_OUTCOME_FAILED}, 503,
		 PL_ROUTE_RULE_FAILED_AFTER_SEND, 1, -1},
		{"/healthz", {NULL, 0, PL_ROUTE_BODY_UNREAD, PL_ROUTE_OUTCOME_ANSWERED}, 200,
		 PL_ROUTE_RULE_NOT_DATA_PLANE, 0, 0},
	};
	printf("m0 handles requests; m0, m1, m2 own %s, %s, %s; m2 publishes no address\n", owned_by[0],
	       owned_by[1], owned_by[2]);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct response res = handle(v, 0, &cases[i].q);
		int ok = res.status == cases[i].status && res.rule == cases[i].rule &&
			 res.retry_after == cases[i].retry_after && res.member == cases[i].member;
		printf("%-30s -> %u", cases[i].what, res.status);
		if (res.retry_after)
			printf(" Retry-After %u", res.retry_after);
		if (res.status == 409)
			printf(" naming m%d", res.member);
		if (res.forwarded_to)
			printf(", served by m%d, forwarded-to %s", res.member, res.forwarded_to);
		printf(" (%s)%s\n", pl_route_rule_name(res.rule), ok ? "" : "  <- FAIL: not what route.h says");
		fail |= !ok;
	}
	free(mem);
	if (fail)
		return fprintf(stderr, "FAIL: a verdict differs from route.h's table\n"), 1;
	printf("ok: every verdict is route.h's\n");
	return 0;
}
