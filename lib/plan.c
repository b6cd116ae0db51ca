/*
 * plan.c - names of action kinds, reasons and statuses, and the one-sentence
 * explanation of an action.
 *
 * The sentence is built only from the action's own fields (the numbers that
 * decided it were copied into it when it was emitted) and the snapshot's
 * names, so an action can be explained long after the view that made it.
 */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

const char *pl_action_kind_name(uint32_t kind)
{
	switch (kind) {
	PL_ACTION_KIND_LIST(PL__CASE_STRING)
	default:
		return "unknown";
	}
}

const char *pl_reason_name(uint32_t reason)
{
	switch (reason) {
	PL_REASON_LIST(PL__CASE_STRING)
	default:
		return "unknown";
	}
}

const char *pl_status_name(uint32_t status)
{
	switch (status) {
	PL_STATUS_LIST(PL__CASE_STRING)
	default:
		return "unknown";
	}
}

/* An output that counts what it would write, as snprintf does. */
typedef struct out {
	char *buf;
	size_t cap;
	size_t len;
} out;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = o->len < o->cap ? o->cap - o->len : 0;
	int n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static void put_bytes(out *o, pl_bytes b)
{
	int n = b.len > 0x7fffffff ? 0x7fffffff : (int)b.len;
	put(o, "%.*s", n, b.ptr ? b.ptr : "");
}

/* "1 replica", "2 replicas". */
static const char *plural(uint32_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

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

typedef struct names {
	const pl_snapshot *s;
	const pl_action *a;
} names;

static void member(out *o, const names *n, uint32_t m)
{
	if (m == PL_NONE)
		put(o, "nobody");
	else
		put_bytes(o, n->s->members[m].id);
}

static void shard(out *o, const names *n)
{
	put_bytes(o, n->s->shards[n->a->shard].key);
}

static void stream(out *o, const names *n)
{
	put_bytes(o, n->s->streams[n->a->stream].id);
}

/* "<head><shard> on <to>". */
static void shard_on(out *o, const names *n, const char *head)
{
	put(o, "%s", head);
	shard(o, n);
	put(o, " on ");
	member(o, n, n->a->to);
}

/* "<head><shard> from <from><mid><to>": how most moves begin. */
static void shard_from_to(out *o, const names *n, const char *head, const char *mid)
{
	put(o, "%s", head);
	shard(o, n);
	put(o, " from ");
	member(o, n, n->a->from);
	put(o, "%s", mid);
	member(o, n, n->a->to);
}

/* The numbers of a broker placement (SET_LEADER or a drain or failover
 * MOVE_LEADER): the tier that chose `to`, its count of the stream against
 * the stream's bounds, and its leaders in total (in `load`) against its
 * cluster share. */
static void placement(out *o, const names *n)
{
	const pl_action *a = n->a;
	put(o, ": tier %u, ", a->tier);
	member(o, n, a->to);
	if (a->stream != PL_NONE && a->scope == PL_SCOPE_STREAM) {
		put(o, " leads %u of stream ", a->to_count);
		stream(o, n);
		if (a->tier == 1)
			put(o, ", under its floor %u (ceiling %u),", a->floor, a->ceiling);
		else if (a->tier == 2)
			put(o, ", under its ceiling %u (floor %u),", a->ceiling, a->floor);
		else
			put(o, " (floor %u, ceiling %u),", a->floor, a->ceiling);
		put(o, " and %llu in total", (unsigned long long)a->load);
	} else {
		put(o, " leads %llu in total", (unsigned long long)a->load);
	}
	switch (a->tier) {
	case 1:
	case 2:
		put(o, a->load < a->share ? ", under the cluster share %u" : ", cluster share %u", a->share);
		return;
	case 3:
		put(o, ", under the cluster share %u", a->share);
		return;
	case 4:
		put(o, ", cluster share %u; it has room under its max_shards", a->share);
		return;
	case 5:
		put(o, ", cluster share %u; every candidate is at its max_shards and it is the least loaded", a->share);
		return;
	default:
		put(o, ", cluster share %u", a->share);
		return;
	}
}

/* A leader move to a member without a replica copies the shard first. */
static void copy_note(out *o, const names *n)
{
	if (!(n->a->flags & PL_ACTION_STAGE_FIRST))
		return;
	put(o, "; ");
	member(o, n, n->a->to);
	put(o, " holds no replica, so a copy is staged first");
}

static void explain(out *o, const names *n)
{
	const pl_action *a = n->a;
	switch (a->kind * 100 + a->reason) {
	case PL_ACTION_SET_LEADER * 100 + PL_REASON_NEW:
		shard_on(o, n, "place leader of ");
		put(o, ": new shard");
		placement(o, n);
		return;
	case PL_ACTION_SET_LEADER * 100 + PL_REASON_FAILOVER:
		put(o, "promote ");
		member(o, n, a->to);
		put(o, " to lead ");
		shard(o, n);
		if (a->from == PL_NONE) {
			put(o, ": it has no leader");
		} else {
			put(o, ": leader ");
			member(o, n, a->from);
			put(o, " is down");
		}
		placement(o, n);
		return;
	case PL_ACTION_MOVE_LEADER * 100 + PL_REASON_FAILOVER:
		shard_from_to(o, n, "move leader of ", " (down) to ");
		put(o, ", staging a copy first: no live eligible follower");
		placement(o, n);
		return;
	case PL_ACTION_ADD_REPLICA * 100 + PL_REASON_FAILOVER:
		shard_on(o, n, "stage a copy of ");
		put(o, ", then add it as a replica: no leader and no live eligible follower, %u of %u replicas",
		    a->to_count, a->total);
		return;
	case PL_ACTION_SET_LEADER * 100 + PL_REASON_DRAIN:
	case PL_ACTION_MOVE_LEADER * 100 + PL_REASON_DRAIN:
		shard_from_to(o, n, "hand leader of ", " (draining) to ");
		if (a->flags & PL_ACTION_STAGE_FIRST)
			put(o, ", staging a copy first");
		placement(o, n);
		return;
	case PL_ACTION_MOVE_LEADER * 100 + PL_REASON_STREAM_SKEW:
		shard_from_to(o, n, "move leader of ", " to ");
		put(o, ": stream ");
		if (a->stream != PL_NONE)
			stream(o, n);
		put(o, " leads %u on ", a->from_count);
		member(o, n, a->from);
		put(o, ", %u on ", a->to_count);
		member(o, n, a->to);
		put(o, ", floor %u, ceiling %u", a->floor, a->ceiling);
		copy_note(o, n);
		return;
	case PL_ACTION_MOVE_LEADER * 100 + PL_REASON_CLUSTER_SKEW:
		shard_from_to(o, n, "move leader of ", " to ");
		put(o, ": cluster leads %u on ", a->from_count);
		member(o, n, a->from);
		put(o, ", %u on ", a->to_count);
		member(o, n, a->to);
		put(o, ", share %u", a->share);
		if (a->stream != PL_NONE) {
			put(o, "; ");
			member(o, n, a->to);
			put(o, " leads fewer of stream ");
			stream(o, n);
		}
		if (a->share && a->to_count >= a->share) {
			put(o, "; ");
			member(o, n, a->to);
			put(o, " is at its share and hands one on next (a relay)");
		}
		copy_note(o, n);
		return;
	case PL_ACTION_MOVE_LEADER * 100 + PL_REASON_NEWEST_PEER:
		shard_from_to(o, n, "hand primary of ", " to its newest peer ");
		put(o, " (joined at %llu): ", (unsigned long long)a->at);
		member(o, n, a->to);
		put(o, " leads %u %s, fewer than the %u of ", a->to_count, plural(a->to_count, "primary", "primaries"),
		    a->from_count);
		member(o, n, a->from);
		return;
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
		return;
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
		return;
	case PL_ACTION_ADD_REPLICA * 100 + PL_REASON_NEW:
		shard_on(o, n, "add a replica of ");
		put(o, ": new shard, %u of %u replicas placed, zones spread first", a->to_count, a->total);
		return;
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
		return;
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
		return;
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
			return;
		}
		if (a->kind == PL_ACTION_DROP_OVERRIDE) {
			shard_from_to(o, n, "move ", " back to its ring home ");
		} else {
			shard_from_to(o, n, "move ", " to ");
			put(o, "%s", pick_words(a->tier));
		}
		put(o, ": ");
		if (a->reason == PL_REASON_COUNT) {
			member(o, n, a->from);
			put(o, " owns %u, over the share %u; ", a->from_count, a->share);
			member(o, n, a->to);
			put(o, " owns %u, below its share %u", a->to_count, a->ceiling);
		} else {
			put(o, "nobody is over the share; ");
			member(o, n, a->from);
			put(o, " owns %u, the share %u; ", a->from_count, a->share);
			member(o, n, a->to);
			put(o, " owns %u, below the floor %u", a->to_count, a->floor);
		}
		if (a->kind == PL_ACTION_DROP_OVERRIDE)
			put(o, "; its count override is dropped");
		return;
	case PL_ACTION_SET_OVERRIDE * 100 + PL_REASON_LAG:
	case PL_ACTION_DROP_OVERRIDE * 100 + PL_REASON_LAG:
		shard_from_to(o, n, "move ",
			      a->kind == PL_ACTION_DROP_OVERRIDE ? " (lagging) to its ring home " : " (lagging) to ");
		put(o, ": its busiest shard, load %llu; ", (unsigned long long)a->load);
		member(o, n, a->to);
		put(o, " is the least loaded member that is not lagging, owns %u", a->to_count);
		return;
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
		return;
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
		return;
	case PL_ACTION_DROP_OVERRIDE * 100 + PL_REASON_REDUNDANT_OVERRIDE:
		put(o, "drop the override of ");
		shard(o, n);
		put(o, " to ");
		member(o, n, a->from);
		put(o, ": it names the shard's ring home");
		return;
	default:
		put(o, "%s", pl_action_kind_name(a->kind));
		shard_from_to(o, n, " of ", " to ");
		put(o, ": %s", pl_reason_name(a->reason));
		return;
	}
}

int pl_action_explain(const pl_snapshot *snap, const pl_action *a, char *buf, size_t cap)
{
	if (snap == NULL || a == NULL || (buf == NULL && cap != 0))
		return PL_E_INVAL;
	if (strcmp(pl_action_kind_name(a->kind), "unknown") == 0 || strcmp(pl_reason_name(a->reason), "unknown") == 0)
		return PL_E_INVAL;
	if (a->shard >= snap->n_shards || (a->stream != PL_NONE && a->stream >= snap->n_streams) ||
	    (a->from != PL_NONE && a->from >= snap->n_members) || (a->to != PL_NONE && a->to >= snap->n_members))
		return PL_E_INVAL;
	if ((snap->n_shards && !snap->shards) || (snap->n_members && !snap->members) ||
	    (snap->n_streams && !snap->streams))
		return PL_E_INVAL;
	out o = {buf, cap, 0};
	names n = {snap, a};
	explain(&o, &n);
	if (cap)
		buf[o.len < cap ? o.len : cap - 1] = '\0';
	return o.len > 0x7fffffff ? 0x7fffffff : (int)o.len;
}
