/*
 * fleet/fleet_int.h - what the fleet policy's sources share (fleet.c ->
 * fleet_balance.c -> fleet_common.c; overrides.c reads and writes the
 * override document). Built on the view's interface alone.
 */
#ifndef PLACEMENT_FLEET_INT_H
#define PLACEMENT_FLEET_INT_H

#include "view/view_int.h"

/* One fleet decision in progress: where its actions go. */
typedef struct pl__fleet_run {
	pl_view *v;
	const pl_fleet_config *cfg;
	pl_action *out;
	uint32_t cap;
	uint32_t written;
	uint32_t full;      /* an action did not fit */
	uint32_t moves;     /* moves made so far (clean-up drops are not moves) */
} pl__fleet_run;

/* The tick's count or spread assignment, the same for every member. */
typedef struct pl__fleet_plan {
	uint32_t reason;     /* PL_REASON_COUNT, PL_REASON_SPREAD, or 0: no pass */
	uint32_t below_only; /* places are offered only below the floor */
	uint64_t places;     /* places offered in all */
	uint64_t offered;    /* moves the ranked members offer in all */
	uint64_t first;      /* self's first place */
	uint32_t u_self;     /* moves self offers */
	uint32_t take;       /* places self takes: min(u_self, places past first) */
	uint32_t waiting;    /* members ranked past the last place */
	uint32_t taken_self; /* places of self taken by the ranked members */
	uint32_t keeps;      /* no pass: lag overrides the keep pass turns into count ones */
	uint32_t keep_self;  /* of those, self's */
} pl__fleet_plan;

/* Lag overrides after the lag, counted by pl__fleet_count(). */
typedef struct pl__fleet_count_t {
	uint32_t released;
} pl__fleet_count_t;

static inline int pl__lagging(const pl_view *v, uint32_t m)
{
	return (v->snap.members[m].flags & PL_MEMBER_LAGGING) != 0;
}

/* fleet_common.c: */
/* The member holding shard k through a lag override after the lag (it and
 * the shard's ring home not lagging), else PL_NONE (homes ready). */
uint32_t pl__fleet_released(const pl_view *v, uint32_t k);
/* Count the released lag overrides, per member held (out) and homed (in),
 * into m_scratch ((in << 32) | out). */
void pl__fleet_count(const pl_view *v, pl__fleet_count_t *out);
/* fleet_balance.c: */
/* Fill the plan for self (homes ready); m_scratch then holds what
 * pl__fleet_balance() or pl__fleet_may_return() reads. */
void pl__fleet_plan_tick(const pl_view *v, const pl_fleet_config *cfg, pl__fleet_plan *p);
/* The keep passes of a tick with no count or spread pass: holders counting
 * less than a pass's limit keep, by count, shards they hold for homes
 * counting more; the same assignment for every decider. Returns how many,
 * *mine self's; with r, self's are emitted. */
uint32_t pl__fleet_keep(const pl_view *v, const pl_fleet_config *cfg, pl__fleet_run *r, uint32_t *mine);
/* May shard k's released lag override go home this tick, as far as the
 * fleet's plan goes (the home checks its own room, age and cooldown)? */
int pl__fleet_may_return(const pl_view *v, const pl__fleet_plan *p, uint32_t k);
/* The fleet's status word when self has nothing more to do (view as left):
 * what the rules will do next if nothing changes (placement/fleet.h,
 * Statuses). */
uint32_t pl__fleet_status(const pl_view *v, const pl_fleet_config *cfg);
/* Make self's count or spread moves: its places, in order. */
void pl__fleet_balance(pl__fleet_run *r, const pl__fleet_plan *p);
/* fleet_common.c: */
/* Append an action and apply it to the view; 0, or 1 when out is full. */
int pl__fleet_emit(pl__fleet_run *r, const pl_action *a);
/* An override action on shard k with the fleet's common fields filled. */
pl_action pl__fleet_action(const pl_view *v, uint32_t kind, uint32_t reason, uint32_t k, uint32_t from,
			   uint32_t to);

#endif /* PLACEMENT_FLEET_INT_H */
