/*
 * fuzz_misuse.h - every public call with a bad argument, on a valid view: a
 * NULL where a pointer is needed, an index or length out of range, memory
 * too small or misaligned, an output that overlaps the view's memory or the
 * snapshot's arrays (at an offset the input chooses), an options or config
 * struct with one field out of its range (the field the input chooses), a
 * count past its documented limit, a snapshot of another version. Each must return its documented code,
 * name the argument or field in the diag where the call takes one, and
 * write nothing: not the output, not the view (its bytes are compared
 * before and after). fuzz_apply.c runs it once per valid input.
 */
#ifndef PL_FUZZ_MISUSE_H
#define PL_FUZZ_MISUSE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "placement.h"

/* rc must be code; a diag, when given, must name kind and index. */
static void fm_want(int rc, int code, const pl_diag *d, uint32_t kind, uint32_t index, int line)
{
	if (rc != code || (d && (d->code != code || d->kind != kind || d->index != index))) {
		fprintf(stderr, "fuzz_misuse.h:%d: got %s (kind %u index %u), wanted %s (kind %u index %u)\n", line,
			pl_error_name(rc), d ? d->kind : 0, d ? d->index : 0, pl_error_name(code), kind, index);
		abort();
	}
}
#define FM_WANT(rc, code) fm_want((rc), (code), NULL, 0, 0, __LINE__)
#define FM_DIAG(rc, code, kind, index) (memset(&d, 0, sizeof d), fm_want((rc), (code), &d, (kind), (index), __LINE__))

/* A config field out of range, for the field the input picks: which field
 * (its place in the struct, as diags number them), set to what. Fields that
 * take any value are left alone (0 returned). */
static uint32_t fm_broker_field(pl_broker_config *c, uint32_t f)
{
	switch (f) {
	case 0: c->version = 99; return PL_E_VERSION;
	case 1: c->max_moves = 0; return PL_E_CONFIG;
	case 2: c->max_moves_in = PL_BROKER_MAX_MOVES + 1; return PL_E_CONFIG;
	case 3: c->max_moves_out = PL_BROKER_MAX_MOVES + 1; return PL_E_CONFIG;
	case 4: c->paused = 2; return PL_E_CONFIG;
	case 5: c->replication_factor = PL_MAX_REPLICAS + 1; return PL_E_CONFIG;
	case 6: c->stream_balance = 2; return PL_E_CONFIG;
	case 7: c->replica_balance = 2; return PL_E_CONFIG;
	default: c->handoff_only = 2; return PL_E_CONFIG;
	}
}

static uint32_t fm_fleet_field(pl_fleet_config *c, uint32_t f, uint32_t nm)
{
	switch (f) {
	case 0: c->version = 99; return PL_E_VERSION;
	case 1: c->self = nm; return PL_E_MEMBER_RANGE;
	case 5: c->moves_per_decision = 0; return PL_E_CONFIG;
	case 6: c->spread = 2; return PL_E_CONFIG;
	case 8: c->count_balance = 2; return PL_E_CONFIG;
	case 9: c->reserved = 1; return PL_E_CONFIG;
	default: return 0;
	}
}

static uint32_t fm_region_field(pl_region_config *c, uint32_t f)
{
	switch (f) {
	case 0: c->version = 99; return PL_E_VERSION;
	case 1: c->replication_factor = 0; return PL_E_CONFIG;
	case 2: c->add_peer_proposals = 2; return PL_E_CONFIG;
	case 3: c->load_balance = 2; return PL_E_CONFIG;
	case 4: c->load_threshold = 100; return PL_E_CONFIG;
	default: c->max_actions = 0; return PL_E_CONFIG;
	}
}

/* Every misuse, on view v (in mem, size bytes) of snap. */
static void fm_misuse(in *s, pl_view *v, void *mem, size_t size, const pl_snapshot *snap)
{
	void *before = malloc(size);
	memcpy(before, mem, size);
	pl_diag d;
	/* an output inside the view's memory, at an 8-aligned offset, with room */
	size_t room = sizeof(pl_action) * 2;
	char *inside = (char *)mem + ((size > room ? (take(s, 0) % (size - room)) : 0) & ~(size_t)7);
	char *in_snap = snap->n_shards ? (char *)snap->shards + sizeof(pl_shard) * take(s, snap->n_shards)
				       : (char *)snap->members;
	char *into = take(s, 2) ? inside : in_snap;
	uint32_t nm = snap->n_members, ns = snap->n_streams, nk = snap->n_shards;

	/* readers */
	pl_view_counts vc;
	pl_tally t;
	pl_shard_state st;
	FM_WANT(pl_view_stats(NULL, &vc), PL_E_INVAL);
	FM_WANT(pl_view_stats(v, NULL), PL_E_INVAL);
	FM_WANT(pl_view_stats(v, (pl_view_counts *)(void *)into), PL_E_OVERLAP);
	FM_WANT(pl_view_member_tally(v, nm + take(s, 4), &t), PL_E_MEMBER_RANGE);
	FM_WANT(pl_view_member_tally(v, 0, NULL), PL_E_INVAL);
	FM_WANT(pl_view_member_tally(v, 0, (pl_tally *)(void *)into), PL_E_OVERLAP);
	FM_WANT(pl_view_stream_tally(v, ns + take(s, 4), 0, &t), PL_E_STREAM_RANGE);
	if (ns)
		FM_WANT(pl_view_stream_tally(v, take(s, ns), nm + take(s, 4), &t), PL_E_MEMBER_RANGE);
	FM_WANT(pl_view_stream_tally(NULL, 0, 0, &t), PL_E_INVAL);
	FM_WANT(pl_view_stream_tally(v, 0, 0, (pl_tally *)(void *)into), PL_E_OVERLAP);
	pl_imbalance imb;
	FM_WANT(pl_view_imbalance(NULL, PL_IMBALANCE_BROKER, &imb), PL_E_INVAL);
	FM_WANT(pl_view_imbalance(v, PL_IMBALANCE_REPLICAS + 1 + take(s, 4), &imb), PL_E_INVAL);
	FM_WANT(pl_view_imbalance(v, PL_IMBALANCE_BROKER, NULL), PL_E_INVAL);
	FM_WANT(pl_view_imbalance(v, PL_IMBALANCE_BROKER, (pl_imbalance *)(void *)into), PL_E_OVERLAP);
	FM_WANT(pl_view_shard_state(v, nk + take(s, 4), &st), PL_E_SHARD_RANGE);
	FM_WANT(pl_view_shard_state(v, 0, NULL), PL_E_INVAL);
	FM_WANT(pl_view_shard_state(v, 0, (pl_shard_state *)(void *)into), PL_E_OVERLAP);
	FM_WANT(pl_view_home(NULL, 0), PL_E_INVAL);
	FM_WANT(pl_view_home(v, nk + take(s, 4)), PL_E_SHARD_RANGE);
	FM_WANT(pl_fleet_owner(NULL, 0), PL_E_INVAL);
	FM_WANT(pl_fleet_owner(v, nk + take(s, 4)), PL_E_SHARD_RANGE);
	uint32_t top[PL_MAX_REPLICAS];
	FM_WANT(pl_view_top(v, "k", 1, NULL, 1), PL_E_INVAL);
	FM_WANT(pl_view_top(v, NULL, 1, top, 1), PL_E_INVAL);
	FM_WANT(pl_view_top(v, "k", 1, top, PL_MAX_REPLICAS + 1 + take(s, 4)), PL_E_INVAL);
	FM_WANT(pl_view_top(v, "k", PL_MAX_ID_LEN + 1 + take(s, 4), top, 1), PL_E_LENGTH);
	FM_WANT(pl_view_top(v, "k", 1, (uint32_t *)(void *)into, 1 + take(s, PL_MAX_REPLICAS)), PL_E_OVERLAP);
	uint32_t kind = PL_ELEM_MEMBER + take(s, 3);
	FM_WANT(pl_view_find(v, PL_ELEM_OVERRIDE + take(s, 4), "m00", 3), PL_E_INVAL);
	FM_WANT(pl_view_find(v, kind, NULL, 1), PL_E_INVAL);
	FM_WANT(pl_view_find(NULL, kind, "m00", 3), PL_E_INVAL);
	FM_WANT(pl_view_find(v, kind, "\xff", 1), PL_E_NOT_FOUND);
	FM_WANT(pl_view_at(v, PL_ELEM_NONE, 0), PL_E_INVAL);
	FM_WANT(pl_view_at(v, kind, (kind == PL_ELEM_MEMBER ? nm : kind == PL_ELEM_STREAM ? ns : nk) + take(s, 4)),
		kind == PL_ELEM_MEMBER ? PL_E_MEMBER_RANGE : kind == PL_ELEM_STREAM ? PL_E_STREAM_RANGE : PL_E_SHARD_RANGE);
	if (pl_view_snapshot(NULL) != NULL || pl_view_snapshot(v) == NULL)
		abort();

	/* building and copying */
	pl_view *w = NULL;
	void *other = malloc(size + 8);
	FM_WANT(pl_view_copy(NULL, other, size, v), PL_E_INVAL);
	FM_WANT(pl_view_copy(&w, NULL, size, v), PL_E_INVAL);
	FM_WANT(pl_view_copy(&w, other, size, NULL), PL_E_INVAL);
	FM_WANT(pl_view_copy(&w, other, take(s, 0) % size, v), PL_E_WORKSPACE);
	FM_WANT(pl_view_copy(&w, (char *)other + 1 + take(s, 7), size, v), PL_E_ALIGN);
	FM_WANT(pl_view_copy(&w, mem, size, v), PL_E_OVERLAP);
	FM_WANT(pl_view_copy((pl_view **)other, other, size, v), PL_E_OVERLAP);
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	FM_DIAG(pl_view_init(NULL, other, size, snap, NULL, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 1);
	FM_DIAG(pl_view_init(&w, NULL, size, snap, NULL, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 2);
	FM_DIAG(pl_view_init(&w, other, size, NULL, NULL, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 4);
	opt.version = PL_VIEW_OPTIONS_VERSION + 1 + take(s, 8);
	FM_DIAG(pl_view_init(&w, other, size, snap, &opt, &d), PL_E_VERSION, PL_ELEM_CONFIG, 0);
	opt.version = PL_VIEW_OPTIONS_VERSION;
	opt.max_replicas = PL_MAX_REPLICAS + 1 + take(s, 8);
	FM_DIAG(pl_view_init(&w, other, size, snap, &opt, &d), PL_E_CONFIG, PL_ELEM_CONFIG, 3);
	opt.max_replicas = 0;
	opt.reserved = 1 + take(s, 8);
	FM_DIAG(pl_view_init(&w, other, size, snap, &opt, &d), PL_E_CONFIG, PL_ELEM_CONFIG, 4);
	opt.reserved = 0;
	opt.scorer = 3 + take(s, 8);
	FM_DIAG(pl_view_init(&w, other, size, snap, &opt, &d), PL_E_SCORER, PL_ELEM_CONFIG, 1);
	opt.scorer = PL_SCORER_XXH3;
	opt.reuse = (const pl_view *)(const void *)snap->members; /* not a view */
	FM_DIAG(pl_view_init(&w, other, size, snap, &opt, &d), PL_E_INVAL, PL_ELEM_CONFIG, 2);
	opt.reuse = v; /* a view, but in the memory handed in */
	FM_DIAG(pl_view_init(&w, mem, size, snap, &opt, &d), PL_E_OVERLAP, PL_ELEM_ARGUMENT, 2);
	opt.reuse = NULL;
	FM_DIAG(pl_view_init(&w, other, take(s, 0) % size, snap, &opt, &d), PL_E_WORKSPACE, PL_ELEM_ARGUMENT, 3);
	FM_DIAG(pl_view_init(&w, (char *)other + 1 + take(s, 7), size, snap, &opt, &d), PL_E_ALIGN, PL_ELEM_ARGUMENT, 2);
	FM_DIAG(pl_view_init((pl_view **)other, other, size, snap, &opt, &d), PL_E_OVERLAP, PL_ELEM_ARGUMENT, 1);
	memcpy(other, &opt, sizeof opt); /* options inside the memory handed in */
	FM_DIAG(pl_view_init(&w, other, size, snap, (const pl_view_options *)other, &d), PL_E_OVERLAP,
		PL_ELEM_ARGUMENT, 2);
	/* a count past its limit: refused before the size, which is an empty view's */
	pl_snapshot big = *snap;
	uint32_t which = take(s, 5);
	uint32_t *count[5] = {&big.n_members, &big.n_streams, &big.n_shards, &big.n_overrides, &big.n_copies};
	const uint32_t limit[5] = {PL_MAX_MEMBERS, PL_MAX_STREAMS, PL_MAX_SHARDS, PL_MAX_SHARDS, PL_MAX_COPIES};
	const void *arr[5] = {big.members, big.streams, big.shards, big.overrides, big.copies};
	*count[which] = limit[which] + 1 + take(s, 0);
	if (arr[which] == NULL) {
		/* a NULL array with a count is named first */
		FM_DIAG(pl_view_init(&w, other, size, &big, NULL, &d), PL_E_NULL, PL_ELEM_SNAPSHOT, which);
	} else {
		pl_snapshot empty = PL_SNAPSHOT_INIT;
		if (pl_view_size(&big) != pl_view_size(&empty) || pl_view_size(NULL) != pl_view_size(&empty) ||
		    pl_snapshot_work_size(&big) != 0 || pl_snapshot_work_size(NULL) != 0)
			abort(); /* a corrupt count costs memory */
		FM_DIAG(pl_view_init(&w, other, size, &big, NULL, &d), PL_E_LIMIT, PL_ELEM_SNAPSHOT, which);
		FM_DIAG(pl_snapshot_validate(&big, NULL, 0, &d), PL_E_LIMIT, PL_ELEM_SNAPSHOT, which);
	}
	/* a snapshot of another version (0, the low half of an old layout's
	 * first pointer: even; or past the known one): refused before anything
	 * else of it is read, the snapshot argument named (4 of the view, 1 of
	 * validation), nothing written; its sizes are an empty view's and no
	 * workspace */
	pl_snapshot other_version = *snap;
	other_version.version = take(s, 2) ? 2 * take(s, 0) : PL_SNAPSHOT_VERSION + 1 + take(s, 0);
	if (pl_view_size(&other_version) != pl_view_size(NULL) || pl_snapshot_work_size(&other_version) != 0)
		abort();
	void *kept = malloc(size + 8);
	memset(other, 0x5a, size + 8);
	memcpy(kept, other, size + 8);
	FM_DIAG(pl_view_init(&w, other, size, &other_version, take(s, 2) ? &opt : NULL, &d), PL_E_VERSION,
		PL_ELEM_ARGUMENT, 4);
	FM_DIAG(pl_snapshot_validate(&other_version, other, size, &d), PL_E_VERSION, PL_ELEM_ARGUMENT, 1);
	if (w != NULL || memcmp(kept, other, size + 8) != 0)
		abort(); /* a refused snapshot had something written */
	free(kept);
	size_t work = pl_snapshot_work_size(snap);
	FM_DIAG(pl_snapshot_validate(NULL, other, size, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 1);
	if (work) {
		FM_DIAG(pl_snapshot_validate(snap, NULL, work, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 2);
		FM_DIAG(pl_snapshot_validate(snap, other, take(s, 0) % work, &d), PL_E_WORKSPACE, PL_ELEM_ARGUMENT, 3);
		FM_DIAG(pl_snapshot_validate(snap, (char *)other + 1 + take(s, 7), work, &d), PL_E_ALIGN, PL_ELEM_ARGUMENT, 2);
		if (nk)
			FM_DIAG(pl_snapshot_validate(snap, (void *)(uintptr_t)snap->shards, work, &d), PL_E_OVERLAP,
				PL_ELEM_ARGUMENT, 2);
	}
	FM_WANT(pl_view_options_init(NULL), PL_E_INVAL);
	FM_WANT(pl_broker_config_init(NULL), PL_E_INVAL);
	FM_WANT(pl_fleet_config_init(NULL), PL_E_INVAL);
	FM_WANT(pl_region_config_init(NULL), PL_E_INVAL);
	FM_WANT(pl_route_request_init(NULL), PL_E_INVAL);
	pl_view_options o2;
	if (pl_view_options_init(&o2) != 0 || memcmp(&o2, &(pl_view_options)PL_VIEW_OPTIONS_INIT, sizeof o2) != 0)
		abort();

	/* actions */
	pl_action a;
	memset(&a, 0, sizeof a);
	FM_WANT(pl_view_apply(NULL, &a), PL_E_INVAL);
	FM_WANT(pl_view_apply(v, NULL), PL_E_INVAL);
	FM_WANT(pl_view_apply(v, (const pl_action *)(void *)into), PL_E_OVERLAP);
	FM_WANT(pl_view_settle(NULL), PL_E_INVAL);
	char buf[64];
	a.kind = PL_ACTION_SET_LEADER;
	a.reason = PL_REASON_NEW;
	a.stream = a.from = a.to = PL_NONE;
	FM_WANT(pl_action_explain(NULL, &a, buf, sizeof buf), PL_E_INVAL);
	FM_WANT(pl_action_explain(snap, NULL, buf, sizeof buf), PL_E_INVAL);
	FM_WANT(pl_action_explain(snap, &a, NULL, 1 + take(s, 8)), PL_E_INVAL);
	if (nk) {
		FM_WANT(pl_action_explain(snap, &a, (char *)(void *)&a, sizeof a), PL_E_OVERLAP);
		FM_WANT(pl_action_explain(snap, &a, in_snap, sizeof(pl_shard)), PL_E_OVERLAP);
		pl_snapshot nul = *snap;
		nul.shards = NULL;
		FM_WANT(pl_action_explain(&nul, &a, buf, sizeof buf), PL_E_INVAL);
	}
	FM_WANT(pl_action_explain(&other_version, &a, buf, sizeof buf), PL_E_VERSION);
	a.kind = 50 + take(s, 50);
	FM_WANT(pl_action_explain(snap, &a, buf, sizeof buf), PL_E_INVAL);

	/* names of what is no code, kind, reason, status, stall or rule */
	uint32_t junk = 200 + take(s, 0);
	if (strcmp(pl_strerror((int)junk), pl_strerror(0)) != 0 || strcmp(pl_error_name(1 + (int)take(s, 9)), "OK") != 0 ||
	    strcmp(pl_strerror(-(int)junk), "unknown error") != 0 || strcmp(pl_error_name(-(int)junk), "E_UNKNOWN") != 0 ||
	    strcmp(pl_action_kind_name(junk), "unknown") != 0 || strcmp(pl_reason_name(junk), "unknown") != 0 ||
	    strcmp(pl_status_name(junk), "unknown") != 0 || strcmp(pl_region_stall_name(junk), "unknown") != 0 ||
	    strcmp(pl_route_rule_name(junk), "unknown") != 0)
		abort();

	/* policies: arguments, then one config field */
	pl_plan_info info;
	pl_action *outa = (pl_action *)other;
	pl_broker_config bc = PL_BROKER_CONFIG_INIT;
	FM_DIAG(pl_broker_plan(v, &bc, NULL, 1 + take(s, 8), &info, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 3);
	FM_DIAG(pl_broker_plan(v, &bc, (pl_action *)(void *)into, 1, &info, &d), PL_E_OVERLAP, PL_ELEM_ARGUMENT, 3);
	uint32_t f = take(s, 9);
	uint32_t code = fm_broker_field(&bc, f);
	FM_DIAG(pl_broker_plan(v, &bc, outa, 4, &info, &d), (int)code, PL_ELEM_CONFIG, f);
	FM_DIAG(pl_broker_dry_run(v, &bc, outa, 4, &info, NULL, &d), (int)code, PL_ELEM_CONFIG, f);
	bc = (pl_broker_config)PL_BROKER_CONFIG_INIT;
	pl_view_stats(v, &vc);
	if (vc.eligible || nk == 0) /* else PL_E_NO_ELIGIBLE comes first */
		FM_DIAG(pl_broker_dry_run(v, &bc, outa, 4, &info, (uint32_t *)(void *)outa, &d), PL_E_OVERLAP,
			PL_ELEM_ARGUMENT, 6);
	pl_broker_stall bs[2];
	FM_DIAG(pl_broker_drain_stalls(NULL, bs, 2, NULL, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 1);
	FM_DIAG(pl_broker_drain_stalls(v, NULL, 1 + take(s, 8), NULL, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 2);
	pl_fleet_config fc = PL_FLEET_CONFIG_INIT;
	f = take(s, 10);
	code = fm_fleet_field(&fc, f, nm);
	if (code)
		FM_DIAG(pl_fleet_decide(v, &fc, outa, 4, &info, &d), (int)code, PL_ELEM_CONFIG, f);
	uint32_t *owners = (uint32_t *)other;
	FM_DIAG(pl_fleet_owners(NULL, owners, nk, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 1);
	FM_DIAG(pl_fleet_owners(v, NULL, 1 + take(s, 8), &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 2);
	FM_DIAG(pl_fleet_owners(v, (uint32_t *)(void *)into, 1, &d), PL_E_OVERLAP, PL_ELEM_ARGUMENT, 2);
	if (nk && vc.eligible)
		FM_DIAG(pl_fleet_owners(v, owners, take(s, nk), &d), PL_E_NOSPACE, PL_ELEM_ARGUMENT, 3);
	pl_region_config rc = PL_REGION_CONFIG_INIT;
	pl_region_stall rs[2];
	FM_DIAG(pl_region_plan(v, &rc, outa, 4, &info, NULL, 1 + take(s, 8), &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 6);
	FM_DIAG(pl_region_plan(v, &rc, outa, 4, &info, (pl_region_stall *)(void *)outa, 2, &d), PL_E_OVERLAP,
		PL_ELEM_ARGUMENT, 6);
	f = take(s, 6);
	code = fm_region_field(&rc, f);
	FM_DIAG(pl_region_plan(v, &rc, outa, 4, &info, rs, 2, &d), (int)code, PL_ELEM_CONFIG, f);
	FM_DIAG(pl_region_effective_rf(v, &rc, &d), (int)code, PL_ELEM_CONFIG, f);
	FM_DIAG(pl_region_check_add_peer(NULL, 0, 0, 0, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 1);
	FM_DIAG(pl_region_check_add_peer(v, nk + take(s, 4), 0, 0, &d), PL_E_SHARD_RANGE, PL_ELEM_ARGUMENT, 2);
	if (nk)
		FM_DIAG(pl_region_check_add_peer(v, take(s, nk), nm + take(s, 4), 0, &d), PL_E_MEMBER_RANGE,
			PL_ELEM_ARGUMENT, 3);

	/* routing and the override document */
	pl_route_owner ro;
	FM_DIAG(pl_route_lookup(NULL, "k", 1, 0, &ro, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 1);
	FM_DIAG(pl_route_lookup(v, NULL, 1, 0, &ro, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 2);
	FM_DIAG(pl_route_lookup(v, "k", PL_MAX_ID_LEN + 1 + take(s, 4), 0, &ro, &d), PL_E_LENGTH, PL_ELEM_ARGUMENT, 3);
	FM_DIAG(pl_route_lookup(v, "k", 1, nm + take(s, 4), &ro, &d), PL_E_MEMBER_RANGE, PL_ELEM_ARGUMENT, 4);
	FM_DIAG(pl_route_lookup(v, "k", 1, 0, NULL, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 5);
	FM_DIAG(pl_route_lookup(v, "k", 1, 0, (pl_route_owner *)(void *)into, &d), PL_E_OVERLAP, PL_ELEM_ARGUMENT, 5);
	pl_route_request req;
	pl_route_request_init(&req);
	pl_route_verdict rv;
	FM_DIAG(pl_route_decide(NULL, &rv, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 1);
	FM_DIAG(pl_route_decide(&req, NULL, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 2);
	FM_DIAG(pl_route_decide(&req, (pl_route_verdict *)(void *)&req, &d), PL_E_OVERLAP, PL_ELEM_ARGUMENT, 2);
	pl_override ov[2];
	uint32_t skipped;
	FM_DIAG(pl_fleet_doc_read(NULL, "", 0, ov, 2, NULL, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 1);
	FM_DIAG(pl_fleet_doc_read(v, NULL, 1, ov, 2, NULL, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 2);
	FM_DIAG(pl_fleet_doc_read(v, "", 0, NULL, 1 + take(s, 8), NULL, &d), PL_E_INVAL, PL_ELEM_ARGUMENT, 4);
	FM_DIAG(pl_fleet_doc_read(v, "", 0, (pl_override *)(void *)into, 1, NULL, &d), PL_E_OVERLAP, PL_ELEM_ARGUMENT, 4);
	FM_DIAG(pl_fleet_doc_read(v, "", 0, ov, 2, (uint32_t *)(void *)ov, &d), PL_E_OVERLAP, PL_ELEM_ARGUMENT, 6);
	(void)skipped;
	FM_WANT(pl_fleet_doc_format(NULL, buf, sizeof buf), PL_E_INVAL);
	FM_WANT(pl_fleet_doc_format(v, NULL, 1 + take(s, 8)), PL_E_INVAL);
	FM_WANT(pl_fleet_doc_format(v, into, 1 + take(s, 64)), PL_E_OVERLAP);

	if (memcmp(before, mem, size) != 0)
		abort(); /* a refused call changed the view */
	free(other);
	free(before);
}

#endif
