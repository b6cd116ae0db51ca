/*
 * run.h - placement(1): running a policy. run.c keeps the run (its own
 * copy of the snapshot, its view, the actions) and maps a policy's errors;
 * broker.c, fleet.c and region.c adapt each policy to it; plan.c plans tick
 * after tick and says what blocks a plan; simulate.c applies the scripted
 * events between ticks; actions.c writes the actions, the bytes they copy
 * and the spread before and after.
 */
#ifndef PT_RUN_H
#define PT_RUN_H

#include "stats.h"

/* ---- running a policy (run.c, plan.c, simulate.c, one adapter per policy) ---- */

/* An action as the run keeps it: the tick it was emitted in, and (fleet) the
 * member that decided it. Member and shard indices stay valid for the whole
 * run: shards never move in the arrays and members are only appended. */
typedef struct pt_act {
	pl_action a;
	uint64_t tick;
	uint32_t member; /* the deciding member, or PL_NONE */
	uint32_t pad_;
} pt_act;

/* What stops a policy: a shard, a stream or a member (PL_NONE where the
 * policy named none of them), and the status that named it. */
typedef struct pt_blocker {
	uint32_t status;
	uint32_t shard, stream, member;
	const char *word; /* the policy's word for it ("no-source"), or NULL */
} pt_blocker;

#define PT_MAX_BLOCKERS 8u

/* The exit status of a plan that ends blocked or stalled (placement(1)). */
#define PT_EXIT_BLOCKED 3

/* Statuses that end a plan with moves still wanted: the plan is blocked. */
int pt_status_blocks(uint32_t status);

/* What one tick of a policy did, for the tick's line. */
typedef struct pt_tick {
	uint32_t written;  /* actions this tick */
	uint32_t status;   /* PL_STATUS_* that ended it (fleet: the first decider's that is not balanced) */
	uint32_t blocked;  /* the policy's count of blocked shards, streams or movers */
	int full_stop;     /* the budget (--max) ended it before the policy did */
	char note[192];    /* policy words: "cooldown 2, waiting 1", "stalled: cpu/3 not-ready (n2)" */
	int note_only;     /* the note says it all (fleet: each member's status, counted) */
	uint64_t wait_until; /* a quiet tick before this clock is not the end (a lag
			      * override that may go home once it is old enough) */
	pt_blocker why[PT_MAX_BLOCKERS]; /* what the policy named as blocked or stalled */
	uint32_t nwhy;
} pt_tick;

/* What the policy named as blocking a plan's last tick, against the spread
 * st it ended at: a line each ("  blocked-zones: stream pay: b0=4 over its
 * ceiling 3"), or a JSON array of {status, shard, stream, member, why,
 * members}. Nothing, or [], when it named nothing. */
void pt_blockers_text(pt_buf *b, const pt_tick *t, const pt_stats *st, const pl_view *v);
/* The members a blocker involves, at most cap (PT_BLOCKER_MEMBERS, as the
 * JSON's "members" lists them): the member named, a shard's replicas
 * (leader first), a stream's eligible members outside their bounds
 * (leaders, then replicas where the imbalance counts them). */
#define PT_BLOCKER_MEMBERS (PL_MAX_REPLICAS + 65u)
uint32_t pt_blocker_members(const pt_blocker *w, const pt_stats *st, const pl_view *v, uint32_t *out, uint32_t cap);
void pt_blockers_json(pt_buf *b, const pt_tick *t, const pt_stats *st, const pl_view *v);
/* Add a blocker to a tick (kept when there is room, never twice). */
void pt_tick_blocker(pt_tick *t, uint32_t status, uint32_t shard, uint32_t stream, uint32_t member, const char *word);

typedef struct pt_run pt_run;

/* The bytes a run's copies move (where the layout gives sizes): known bytes
 * in total and per member (m_cap entries, by member index), and the copies
 * of unknown size, counted apart. */
typedef struct pt_copied {
	uint64_t bytes, copies, unknown;
	uint64_t *in, *out;
	uint32_t *unknown_in, *unknown_out;
} pt_copied;
/* The bytes an action copies: 0 when it copies nothing (no
 * PL_ACTION_STAGE_FIRST), the shard's size, or PL_BYTES_UNKNOWN. */
uint64_t pt_act_bytes(const pl_snapshot *s, const pl_action *a);
/* The totals at the end of a plan: "to copy: 50.5G in 4 copies (1 of
 * unknown size); in: b2 20G, ...; out: ..." (a line), or "bytes": {...}. */
void pt_copied_text(pt_buf *b, const pt_run *r);
void pt_copied_json(pt_buf *b, const pt_run *r);

/* How a plan ended (pt_plan_run). */
typedef struct pt_plan_end {
	uint32_t status;   /* PL_STATUS_* of the last tick */
	uint32_t active;   /* ticks that wrote an action */
	size_t actions;    /* actions in the whole plan */
	int stopped_max;   /* the budget (--max) cut it */
	int stopped_ticks; /* PT_PLAN_TICKS ran out without a quiet tick */
	int blocked;       /* moves still wanted and none it may make (exit 3) */
	pt_tick last;      /* the last tick; its blockers only when blocked */
} pt_plan_end;

typedef struct pt_policy_ops {
	uint32_t id;                                   /* PT_POLICY_* */
	const char *measure;                           /* what the progress line shows */
	/* The policy's config from the settings, checked by the library (a
	 * refused field names its `set` line). */
	int (*prepare)(pt_run *r, pt_err *e);
	/* One tick on r->v: decide, every action applied to the view, and
	 * appended with pt_run_add(); at most budget actions (0: no bound). */
	int (*tick)(pt_run *r, uint64_t budget, pt_tick *t, pt_err *e);
	/* The config as JSON fields, for plan --json. */
	void (*config_json)(const pt_run *r, pt_buf *b);
	void (*done)(pt_run *r);
} pt_policy_ops;

struct pt_run {
	const pt_doc *d;
	const pt_policy_ops *ops;
	uint32_t self;            /* fleet: the only member that decides, or PL_NONE for all */
	/* the snapshot the view reads: the tool's own copy, changed by events */
	pl_member *members;
	uint64_t *last_move;
	uint64_t *capacity;       /* each member's capacity, or PL_BYTES_UNKNOWN */
	uint32_t nm;
	size_t m_cap;
	pl_shard *shards;
	pl_override *ov;
	uint32_t no;
	size_t o_cap;
	pl_snapshot snap;
	pl_view *v;
	void *mem;
	size_t mem_size;
	uint64_t now, tick_len, tickno;
	uint32_t quiet_ticks;     /* quiet ticks in a row that mean "nothing more" */
	pt_act *acts;
	size_t nacts, acts_cap;
	void *cfg;                /* the adapter's */
	void *scratch;            /* the adapter's */
	size_t acts_base;         /* actions before this one were written and dropped: acts[i - acts_base] */
	uint32_t nc;              /* the file's copies in flight, until the first capture counts them done */
	pt_copied copied;         /* the bytes the actions copy (in, out NULL without sizes) */
};

/* The regions a region plan leaves below the effective RF, counted by why
 * (region.c): the rules keep a rollup (not idempotent) and a region with
 * transfer debt where they are, and one with a copy in flight until the copy
 * commits; any other was stalled, or not reached (--max). */
enum { PT_BELOW_NOT_IDEMPOTENT, PT_BELOW_TRANSFER_DEBT, PT_BELOW_COPYING, PT_BELOW_OTHER, PT_BELOW_KINDS };
#define PT_BELOW_NAMED 8u
typedef struct pt_below_rf {
	uint32_t rf;                  /* the effective RF */
	uint32_t total;               /* regions with fewer live peers than rf */
	uint32_t why[PT_BELOW_KINDS]; /* of them, by why */
	uint32_t named[PT_BELOW_NAMED], named_why[PT_BELOW_NAMED], nnamed; /* the first, in key order */
} pt_below_rf;
void pt_region_below_rf(const pt_run *r, pt_below_rf *b);
/* ", 2 regions below rf 3 left: r3 not-idempotent, r4 transfer-debt" (text),
 * and "below_rf": {...} (JSON) */
void pt_below_rf_text(pt_buf *b, const pl_snapshot *s, const pt_below_rf *w);
void pt_below_rf_json(pt_buf *b, const pl_snapshot *s, const pt_below_rf *w);

/* The adapters; NULL where the library has no such policy yet. */
extern const pt_policy_ops pt_broker_ops, pt_fleet_ops, pt_region_ops;
const pt_policy_ops *pt_policy_ops_of(uint32_t policy);

int pt_run_init(pt_run *r, const pt_doc *d, uint32_t policy, const char *member, pt_err *e);
void pt_run_free(pt_run *r);
void pt_run_add(pt_run *r, const pl_action *a, uint32_t member);
/* The view's shard states written back into the run's arrays (moves
 * settled); the view still reads them until pt_run_rebuild(). */
void pt_run_capture(pt_run *r);
/* A new view of the run's arrays (after they changed). */
int pt_run_rebuild(pt_run *r, pt_err *e);
/* Apply one event to the run's arrays (simulate.c); join_idx maps join
 * events to the members they appended. Rebuild the view after. */
void pt_apply_event(pt_run *r, const pt_event *ev, uint32_t *join_idx, uint32_t ev_index);
/* Both. */
int pt_run_sync(pt_run *r, pt_err *e);
/* A plan (plan.c): tick after tick on r until the first quiet tick (or as
 * many as r->quiet_ticks), budget actions (0: no bound) or the tick limit.
 * With out, each tick's actions are written there and flushed to standard
 * output as they are planned; keep: every action stays in r->acts (else
 * they are dropped tick by tick). The one planner of plan and stats --svg. */
int pt_plan_run(pt_run *r, const pt_opts *o, uint64_t budget, pt_buf *out, int keep, pt_plan_end *end, pt_err *e);
/* Pictures (svg.c): the spread before a plan and where it ends, side by
 * side, with how it ended; command is "plan" or "stats" (for the title). */
int pt_plan_svg(const char *path, const char *command, const char *file, const pt_stats *before,
		const pt_stats *after, const pl_view *v, const pt_plan_end *end, pt_err *e);
/* A member's id as JSON, null for PL_NONE. */
void pt_json_member(pt_buf *b, const pl_snapshot *s, uint32_t m);
/* Actions as text and JSON (n counts from 1), and in a few words. */
void pt_act_json(pt_buf *b, const pl_snapshot *s, const pt_act *x, size_t n);
void pt_act_text(pt_buf *b, const pl_snapshot *s, const pt_act *x, size_t n);
void pt_act_short(pt_buf *b, const pl_snapshot *s, const pl_action *a);
/* A config's JSON object as words: "max-moves 1, paused off". */
void pt_config_words(pt_buf *b, const char *json, size_t n);
/* "before: ... / after: ..." and the streams that changed. */
void pt_spread_text(pt_buf *b, const pt_stats *x, const pl_view *vx, const pt_stats *y, const pl_view *vy, int all);
/* A refused config field (PL_E_CONFIG/PL_E_VERSION, PL_ELEM_CONFIG index)
 * mapped to its setting: fields[i] is the setting of field i (PT_SET_COUNT
 * for none). */
int pt_config_error(const pt_run *r, const char *policy, int rc, const pl_diag *dg, const uint32_t *fields,
		    uint32_t nfields, pt_err *e);
/* A tick where the policy has no eligible member (PL_E_NO_ELIGIBLE): not an
 * error of the input; the tick says so and emits nothing. Returns 0. */
int pt_tick_no_eligible(pt_tick *t);
/* A policy call's other errors. */
int pt_policy_error(const pt_run *r, const char *what, int rc, const pl_diag *dg, pt_err *e);

#endif /* PT_RUN_H */
