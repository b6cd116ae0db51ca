/*
 * broker.c - the broker policy (placement/broker.h) for plan and simulate:
 * its config from the settings, and one tick of pl_broker_plan().
 *
 * A tick calls pl_broker_plan() until it stops for a reason of its own: when
 * the tool's action buffer fills first (PL_STATUS_FULL), the view holds the
 * actions written and the next call goes on from there, with the moves it
 * started counted as in flight, exactly as one call with a larger buffer.
 *
 * It is built when the library has the policy (placement.h includes
 * placement/broker.h, which defines PL_BROKER_CONFIG_VERSION); without it, the
 * adapter is an empty entry and plan and simulate say the policy is missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

#ifdef PL_BROKER_CONFIG_VERSION

#define CHUNK 1024u

/* The setting of each config field, by its place in pl_broker_config. */
static const uint32_t fields[] = {PT_SET_COUNT,		PT_SET_MAX_MOVES,	 PT_SET_MAX_MOVES_IN,
				  PT_SET_MAX_MOVES_OUT, PT_SET_PAUSED,		 PT_SET_RF,
				  PT_SET_STREAM_BALANCE, PT_SET_REPLICA_BALANCE, PT_SET_HANDOFF_ONLY,
				  PT_SET_BYTES_BALANCE, PT_SET_BYTES_FIRST,	 PT_SET_FULL_RATIO,
				  PT_SET_BYTES_TOLERANCE, PT_SET_COUNT,		 PT_SET_MAX_BYTES_IN_FLIGHT,
				  PT_SET_MAX_BYTES_IN,	PT_SET_MAX_BYTES_OUT,	 PT_SET_TOLERANCE,
				  PT_SET_STREAM_TOLERANCE};

static int prepare(pt_run *r, pt_err *e)
{
	pl_broker_config *c = pt_alloc(sizeof *c);
	pl_broker_config_init(c);
	r->cfg = c;
	const pt_doc *d = r->d;
	c->max_moves = (uint32_t)pt_setting(d, PT_SET_MAX_MOVES, c->max_moves);
	c->max_moves_in = (uint32_t)pt_setting(d, PT_SET_MAX_MOVES_IN, c->max_moves_in);
	c->max_moves_out = (uint32_t)pt_setting(d, PT_SET_MAX_MOVES_OUT, c->max_moves_out);
	c->paused = (uint32_t)pt_setting(d, PT_SET_PAUSED, c->paused);
	c->replication_factor = (uint32_t)pt_setting(d, PT_SET_RF, c->replication_factor);
	c->stream_balance = (uint32_t)pt_setting(d, PT_SET_STREAM_BALANCE, c->stream_balance);
	c->replica_balance = (uint32_t)pt_setting(d, PT_SET_REPLICA_BALANCE, c->replica_balance);
	c->handoff_only = (uint32_t)pt_setting(d, PT_SET_HANDOFF_ONLY, c->handoff_only);
	c->bytes_balance = (uint32_t)pt_setting(d, PT_SET_BYTES_BALANCE, c->bytes_balance);
	c->bytes_first = (uint32_t)pt_setting(d, PT_SET_BYTES_FIRST, c->bytes_first);
	c->full_ratio = (uint32_t)pt_setting(d, PT_SET_FULL_RATIO, c->full_ratio);
	c->bytes_tolerance = (uint32_t)pt_setting(d, PT_SET_BYTES_TOLERANCE, c->bytes_tolerance);
	c->max_bytes_in_flight = pt_setting(d, PT_SET_MAX_BYTES_IN_FLIGHT, c->max_bytes_in_flight);
	c->max_bytes_in = pt_setting(d, PT_SET_MAX_BYTES_IN, c->max_bytes_in);
	c->max_bytes_out = pt_setting(d, PT_SET_MAX_BYTES_OUT, c->max_bytes_out);
	c->tolerance = (uint32_t)pt_setting(d, PT_SET_TOLERANCE, c->tolerance);
	c->stream_tolerance = (uint32_t)pt_setting(d, PT_SET_STREAM_TOLERANCE, c->stream_tolerance);
	r->tick_len = pt_setting(d, PT_SET_TICK, 1);
	/* the config is checked by a call that may write nothing */
	pl_diag dg;
	int rc = pl_broker_plan(r->v, c, NULL, 0, NULL, &dg);
	if (rc == PL_E_CONFIG || rc == PL_E_VERSION)
		return pt_config_error(r, "broker", rc, &dg, fields, sizeof fields / sizeof fields[0], e);
	return 0;
}

/* Why a draining member's replica cannot leave it (pl_broker_drain_stalls()). */
static const char *stall_words(uint32_t reason)
{
	switch (reason) {
	case PL_BROKER_STALL_HELD: return "every eligible member holds it";
	case PL_BROKER_STALL_ZONES: return "every other eligible member would lower its zone count";
	case PL_BROKER_STALL_CAPS: return "every member that keeps its zone count is at its cap";
	default: return NULL;
	}
}

static int tick(pt_run *r, uint64_t budget, pt_tick *t, pt_err *e)
{
	pl_action buf[CHUNK];
	pl_plan_info info;
	pl_diag dg;
	for (;;) {
		uint32_t cap = CHUNK;
		if (budget && budget - t->written < cap)
			cap = (uint32_t)(budget - t->written);
		int n = pl_broker_plan(r->v, r->cfg, buf, cap, &info, &dg);
		if (n == PL_E_NO_ELIGIBLE)
			return pt_tick_no_eligible(t);
		if (n < 0)
			return pt_policy_error(r, "the broker policy", n, &dg, e);
		for (int i = 0; i < n; i++)
			pt_run_add(r, &buf[i], PL_NONE);
		t->written += (uint32_t)n;
		if (info.status != PL_STATUS_FULL)
			break;
		if (n == 0 || (budget && t->written >= budget)) {
			t->full_stop = 1;
			break;
		}
	}
	t->status = info.status;
	t->blocked = info.blocked;
	/* what info.detail names, by status (placement/broker.h); a drain
	 * that stalls names each replica that cannot leave, and why */
	if (info.status == PL_STATUS_DRAIN_STALLED) {
		pl_broker_stall st[PT_MAX_BLOCKERS];
		int ns = pl_broker_drain_stalls(r->v, st, PT_MAX_BLOCKERS, NULL, NULL);
		for (int i = 0; i < ns; i++)
			pt_tick_blocker(t, info.status, st[i].shard, r->snap.shards[st[i].shard].stream, st[i].member,
					stall_words(st[i].reason));
		if (ns <= 0 && info.detail < r->snap.n_shards)
			pt_tick_blocker(t, info.status, info.detail, r->snap.shards[info.detail].stream, PL_NONE, NULL);
	} else if (info.detail != PL_NONE) {
		if (info.status == PL_STATUS_STALLED && info.detail < r->snap.n_shards)
			pt_tick_blocker(t, info.status, info.detail, r->snap.shards[info.detail].stream, PL_NONE, NULL);
		else if ((info.status == PL_STATUS_BLOCKED_CAPS || info.status == PL_STATUS_BLOCKED_ZONES ||
			  info.status == PL_STATUS_BLOCKED_HANDOFF || info.status == PL_STATUS_BLOCKED_BOUNDS) &&
			 info.detail < r->snap.n_streams)
			pt_tick_blocker(t, info.status, PL_NONE, info.detail, PL_NONE, NULL);
		else if (info.status == PL_STATUS_MOVE_LIMIT && info.detail < r->snap.n_members)
			pt_tick_blocker(t, info.status, PL_NONE, PL_NONE, info.detail, NULL);
	} else if (pt_status_blocks(info.status)) {
		pt_tick_blocker(t, info.status, PL_NONE, PL_NONE, PL_NONE, NULL); /* the cluster as a whole */
	}
	if (info.blocked)
		snprintf(t->note, sizeof t->note, "%u blocked", info.blocked);
	return 0;
}

static void config_json(const pt_run *r, pt_buf *b)
{
	const pl_broker_config *c = r->cfg;
	pt_put(b, "{\"max-moves\": %u, \"max-moves-in\": %u, \"max-moves-out\": %u, \"paused\": %s, \"rf\": %u, "
		  "\"stream-balance\": %s, \"replica-balance\": %s, \"handoff-only\": %s",
	       c->max_moves, c->max_moves_in, c->max_moves_out, c->paused ? "true" : "false", c->replication_factor,
	       c->stream_balance ? "true" : "false", c->replica_balance ? "true" : "false",
	       c->handoff_only ? "true" : "false");
	/* the bytes settings act only where the layout gives sizes */
	if (r->d->has_bytes)
		pt_put(b, ", \"bytes-balance\": %s, \"bytes-first\": %s, \"full-ratio\": %u, \"bytes-tolerance\": %u, "
			  "\"max-bytes-in-flight\": %llu, \"max-bytes-in\": %llu, \"max-bytes-out\": %llu",
		       c->bytes_balance ? "true" : "false", c->bytes_first ? "true" : "false", c->full_ratio,
		       c->bytes_tolerance, (unsigned long long)c->max_bytes_in_flight,
		       (unsigned long long)c->max_bytes_in, (unsigned long long)c->max_bytes_out);
	/* the tolerances, when set */
	if (c->tolerance || c->stream_tolerance)
		pt_put(b, ", \"tolerance\": %u, \"stream-tolerance\": %u", c->tolerance, c->stream_tolerance);
	pt_putc(b, '}');
}

static void done(pt_run *r)
{
	free(r->cfg);
	r->cfg = NULL;
}

const pt_policy_ops pt_broker_ops = {PT_POLICY_BROKER, "leaders", prepare, tick, config_json, done};

#else /* no broker policy in this build of the library */

const pt_policy_ops pt_broker_ops = {PT_POLICY_BROKER, "leaders", NULL, NULL, NULL, NULL};

#endif
