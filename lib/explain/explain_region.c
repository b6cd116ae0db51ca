/*
 * explain_region.c - the sentence of pl_action_explain() for the region policy: peers,
 * primaries (to the newest peer, toward less load, evened out, claimed) and
 * idle members.
 *
 * Part of plan.c's explanation, one file per action family; the numbers come
 * from the action's own fields (see plan.c).
 */
#include "explain/explain.h"

int pl__explain_region(out *o, const names *n)
{
	const pl_action *a = n->a;
	switch (a->kind * 100 + a->reason) {
	case PL_ACTION_MOVE_LEADER * 100 + PL_REASON_NEWEST_PEER:
		shard_from_to(o, n, "hand primary of ", " to its newest peer ");
		put(o, " (joined at %llu): ", (unsigned long long)a->at);
		member(o, n, a->to);
		put(o, " leads %u %s, fewer than the %u of ", a->to_count, plural(a->to_count, "primary", "primaries"),
		    a->from_count);
		member(o, n, a->from);
		return 1;
	case PL_ACTION_MOVE_LEADER * 100 + PL_REASON_LOAD:
		shard_from_to(o, n, "hand primary of ", " to ");
		put(o, ": ");
		member(o, n, a->to);
		put(o, "'s load %llu is more than %u%% below ", (unsigned long long)a->at, a->share);
		member(o, n, a->from);
		put(o, "'s %llu; ", (unsigned long long)a->load);
		member(o, n, a->to);
		put(o, " leads %u %s, ", a->to_count, plural(a->to_count, "primary", "primaries"));
		member(o, n, a->from);
		put(o, " %u", a->from_count);
		return 1;
	case PL_ACTION_MOVE_LEADER * 100 + PL_REASON_PRIMARY_SKEW:
		shard_from_to(o, n, "hand primary of ", " to ");
		put(o, ": ");
		if (a->total > 1)
			put(o, "one of %u hand-offs along peer sets that move a primary from a member leading %u to one "
			       "leading %u; ",
			    a->total, a->ceiling, a->floor);
		member(o, n, a->to);
		put(o, " leads %u %s, ", a->to_count, plural(a->to_count, "primary", "primaries"));
		if (a->total > 1) {
			member(o, n, a->from);
			put(o, " %u", a->from_count);
		} else {
			put(o, "at least two fewer than the %u of ", a->from_count);
			member(o, n, a->from);
		}
		return 1;
	case PL_ACTION_SET_LEADER * 100 + PL_REASON_NO_PRIMARY:
		put(o, "make ");
		member(o, n, a->to);
		put(o, " primary of ");
		shard(o, n);
		if (a->from == PL_NONE) {
			put(o, ": it has no primary; ");
		} else {
			put(o, ": its primary ");
			member(o, n, a->from);
			put(o, " is down; ");
		}
		member(o, n, a->to);
		if (a->total == 1)
			put(o, ", its only live peer, leads %u %s", a->to_count, plural(a->to_count, "primary", "primaries"));
		else
			put(o, " leads %u %s, the fewest of its %u live peers", a->to_count,
			    plural(a->to_count, "primary", "primaries"), a->total);
		return 1;
	case PL_ACTION_ADD_REPLICA * 100 + PL_REASON_UNDER_RF:
		shard_on(o, n, "stage a copy of ");
		put(o, ", then add it as a peer: %u of %u %s", a->to_count, a->total, plural(a->total, "peer", "peers"));
		if (a->ceiling > a->total)
			put(o, " (replication factor %u, %u live %s)", a->ceiling, a->total,
			    plural(a->total, "member", "members"));
		put(o, "; ");
		member(o, n, a->to);
		if (a->tier == 1)
			put(o, " is in a zone its peers are not, and holds %u %s", a->share,
			    plural(a->share, "replica", "replicas"));
		else
			put(o, " holds %u %s, and no member in a new zone could take it", a->share,
			    plural(a->share, "replica", "replicas"));
		return 1;
	case PL_ACTION_MOVE_REPLICA * 100 + PL_REASON_IDLE_MEMBER:
		shard_on(o, n, "stage a copy of ");
		put(o, ", then move the peer from ");
		member(o, n, a->from);
		put(o, ": ");
		member(o, n, a->to);
		put(o, " holds %u %s, below its fair share %u of %u peers; ", a->to_count,
		    plural(a->to_count, "replica", "replicas"), a->share, a->total);
		member(o, n, a->from);
		put(o, " holds %u, the most", a->from_count);
		switch (a->tier) {
		case 1: put(o, "; not the primary, and the region gains a zone"); break;
		case 2: put(o, "; not the primary"); break;
		case 3: put(o, "; the primary moves with it, and the region gains a zone"); break;
		case 4: put(o, "; the primary moves with it"); break;
		default: break;
		}
		return 1;
	default:
		return 0;
	}
}
