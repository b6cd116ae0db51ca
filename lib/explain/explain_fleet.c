/*
 * explain_fleet.c - the sentence of pl_action_explain() for the fleet
 * policy: overrides by count, spread and lag, and those dropped.
 *
 * Part of plan.c's explanation, one file per action family; the numbers come
 * from the action's own fields (see plan.c).
 */
#include "explain/explain.h"

/* Why a count or spread move took that shard (pl_action.tier). */
static const char *pick_words(uint32_t tier)
{
	switch (tier) {
	case PL_FLEET_PICK_HOME: return " (its ring home)";
	case PL_FLEET_PICK_NEXT: return " (its next rendezvous choice)";
	case PL_FLEET_PICK_OVERRIDE: return " (moving a count override on)";
	default: return "";
	}
}

/* The mover of a count or spread move: what it owns (load: the number
 * placement stats shows) and, where different, what count balance counts
 * it as (from_count). */
static void owns_counted(out *o, const names *n, const pl_action *a)
{
	member(o, n, a->from);
	put(o, " owns %llu", (unsigned long long)a->load);
	if (a->load != a->from_count)
		put(o, " and is counted as %u", a->from_count);
}

int pl__explain_fleet(out *o, const names *n)
{
	const pl_action *a = n->a;
	switch (a->kind * 100 + a->reason) {
	case PL_ACTION_SET_OVERRIDE * 100 + PL_REASON_COUNT:
	case PL_ACTION_SET_OVERRIDE * 100 + PL_REASON_SPREAD:
	case PL_ACTION_DROP_OVERRIDE * 100 + PL_REASON_COUNT:
	case PL_ACTION_DROP_OVERRIDE * 100 + PL_REASON_SPREAD:
		if (a->tier == PL_FLEET_PICK_KEEP) {
			/* A holder keeps, by count, a shard it holds for its home
			 * since a lag: no owner changes. */
			put(o, "keep ");
			shard(o, n);
			put(o, " on ");
			member(o, n, a->to);
			const char *lim = a->reason == PL_REASON_COUNT ? "share" : "floor";
			put(o, " by count, the lag over: its ring home counts %u with the shards held for it, over its %s %u; ",
			    a->from_count, lim, a->share);
			member(o, n, a->to);
			put(o, " counts %u without them, below its %s %u", a->to_count, lim,
			    a->reason == PL_REASON_COUNT ? a->ceiling : a->floor);
			return 1;
		}
		if (a->kind == PL_ACTION_DROP_OVERRIDE) {
			shard_from_to(o, n, "move ", " back to its ring home ");
		} else {
			shard_from_to(o, n, "move ", " to ");
			put(o, "%s", pick_words(a->tier));
		}
		put(o, ": ");
		if (a->reason == PL_REASON_SPREAD)
			put(o, "nobody has a count move to make; ");
		owns_counted(o, n, a);
		if (a->reason == PL_REASON_COUNT)
			put(o, ", over the share %u; ", a->share);
		else
			put(o, ", the share %u; ", a->share);
		member(o, n, a->to);
		if (a->reason == PL_REASON_COUNT)
			put(o, " owns %u, below its share %u", a->to_count, a->ceiling);
		else
			put(o, " owns %u, below the floor %u", a->to_count, a->floor);
		if (a->kind == PL_ACTION_DROP_OVERRIDE)
			put(o, "; its count override is dropped");
		if (a->load != a->from_count)
			put(o, "; shards on their way home after a lag count at their ring home");
		return 1;
	case PL_ACTION_SET_OVERRIDE * 100 + PL_REASON_LAG:
	case PL_ACTION_DROP_OVERRIDE * 100 + PL_REASON_LAG:
		shard_from_to(o, n, "move ",
			      a->kind == PL_ACTION_DROP_OVERRIDE ? " (lagging) to its ring home " : " (lagging) to ");
		put(o, ": its busiest shard, load %llu; ", (unsigned long long)a->load);
		member(o, n, a->to);
		put(o, " is the least loaded member that is not lagging, owns %u", a->to_count);
		return 1;
	case PL_ACTION_DROP_OVERRIDE * 100 + PL_REASON_RETURN_HOME:
		put(o, "return ");
		shard(o, n);
		put(o, " home to ");
		member(o, n, a->to);
		put(o, ": its lag override on ");
		member(o, n, a->from);
		put(o, " is %llu old; ", (unsigned long long)a->at);
		member(o, n, a->to);
		put(o, " owns %u, within its share %u after taking it back", a->to_count, a->share);
		return 1;
	case PL_ACTION_DROP_OVERRIDE * 100 + PL_REASON_VOID_OVERRIDE:
		put(o, "drop the override of ");
		shard(o, n);
		put(o, " to ");
		member(o, n, a->from);
		put(o, ": ");
		member(o, n, a->from);
		put(o, " is %s; ", a->from != PL_NONE && (n->s->members[a->from].flags & PL_MEMBER_DOWN) == 0
					  ? "draining" : "down");
		shard(o, n);
		put(o, " stays with its ring home ");
		member(o, n, a->to);
		return 1;
	case PL_ACTION_DROP_OVERRIDE * 100 + PL_REASON_REDUNDANT_OVERRIDE:
		put(o, "drop the override of ");
		shard(o, n);
		put(o, " to ");
		member(o, n, a->from);
		put(o, ": it names the shard's ring home");
		return 1;
	default:
		return 0;
	}
}
