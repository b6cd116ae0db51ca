/*
 * explain_broker.c - the sentence of pl_action_explain() for the broker
 * policy: placing, failing over, draining and balancing leaders.
 *
 * Part of plan.c's explanation, one file per action family; the numbers come
 * from the action's own fields (see plan.c).
 */
#include "explain/explain.h"

/* The head both placements share: the tier that chose `to`, and its count
 * of the stream against the stream's bounds when `scope` counted the stream
 * ("leads 3 of stream s" / "holds 3 replicas of stream s"), then its count
 * in total (in `load`). */
static void tier_counts(out *o, const names *n, uint32_t scope, const char *verb, const char *unit)
{
	const pl_action *a = n->a;
	put(o, ": tier %u, ", a->tier);
	member(o, n, a->to);
	if (a->stream != PL_NONE && a->scope == scope) {
		put(o, " %s %u%s of stream ", verb, a->to_count, unit_of(a->to_count, unit));
		stream(o, n);
		if (a->tier == 1)
			put(o, ", under its floor %u (ceiling %u),", a->floor, a->ceiling);
		else if (a->tier == 2)
			put(o, ", under its ceiling %u (floor %u),", a->ceiling, a->floor);
		else
			put(o, " (floor %u, ceiling %u),", a->floor, a->ceiling);
		put(o, " and %llu in total", (unsigned long long)a->load);
	} else {
		put(o, " %s %llu%s in total", verb, (unsigned long long)a->load, unit_of(a->load, unit));
	}
}

/* The numbers of a broker placement (SET_LEADER or a drain or failover
 * MOVE_LEADER): its leaders of the stream against the stream's bounds, and
 * in total against its cluster share. */
static void placement(out *o, const names *n)
{
	const pl_action *a = n->a;
	tier_counts(o, n, PL_SCOPE_STREAM, "leads", "");
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

/* The numbers of a broker replica drain: its replicas of the stream against
 * the stream's replica bounds, and in total against its replica share. */
static void replica_placement(out *o, const names *n)
{
	const pl_action *a = n->a;
	tier_counts(o, n, PL_SCOPE_STREAM_REPLICAS, "holds", " replicas");
	put(o, a->load < a->share ? ", under its replica share %u" : ", replica share %u", a->share);
	if (a->tier == 4)
		put(o, "; it has room under its max_shards");
}

/* The leadership that moves with a replica. */
static void carry_note(out *o, const names *n)
{
	if (!(n->a->flags & PL_ACTION_CARRIES_LEADER))
		return;
	put(o, "; ");
	member(o, n, n->a->from);
	if (n->a->flags & PL_ACTION_PAIRED) {
		put(o, " leads it, and the leadership moves with it while ");
		member(o, n, n->a->to);
		put(o, " hands one of the stream back (the next action): the leaders stay as they are");
		return;
	}
	put(o, " leads it, and the leadership moves with it within the leaders' bounds");
}

/* A follower's replica copied so that the leader can hand the leadership
 * over after it (the leader passes' staging). */
static void handoff_note(out *o, const names *n)
{
	if (!(n->a->flags & PL_ACTION_FOR_HANDOFF))
		return;
	put(o, "; once it is in, the shard's leader hands ");
	member(o, n, n->a->to);
	put(o, " the leadership, which the leaders' bounds want and zones keep the leader's own replica from bringing");
}

/* "<what><from_count><unit> on <from>, <to_count> on <to>": the two counts
 * a balance move compares. */
static void counts_on(out *o, const names *n, const char *what, const char *unit)
{
	put(o, "%s%u%s on ", what, n->a->from_count, unit_of(n->a->from_count, unit));
	member(o, n, n->a->from);
	put(o, ", %u on ", n->a->to_count);
	member(o, n, n->a->to);
}

/* "stream S" (the name left out when the action has none), then the two
 * members' counts in it and its bounds. */
static void stream_skew(out *o, const names *n, const char *lead, const char *verb, const char *unit)
{
	put(o, "%sstream", lead);
	if (n->a->stream != PL_NONE) {
		put(o, " ");
		stream(o, n);
	}
	counts_on(o, n, verb, unit);
	put(o, ", floor %u, ceiling %u", n->a->floor, n->a->ceiling);
}

/* A cluster move to a member at its share: it passes one on next (a
 * relay's first hop, which goes only to a member at or below its share).
 * A member already over its share takes one only in a fallback that lowers
 * the weighted sum of squares: it leads (holds) fewer per weight than the
 * source. */
static void relay_note(out *o, const names *n, const char *verb)
{
	if (!n->a->share || n->a->to_count < n->a->share)
		return;
	put(o, "; ");
	member(o, n, n->a->to);
	if (n->a->to_count == n->a->share) {
		put(o, " is at its share and hands one on next (a relay)");
		return;
	}
	put(o, " is over its share too, and %s fewer per weight than ", verb);
	member(o, n, n->a->from);
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

static int explain(out *o, const names *n);

/* A byte count, in the largest binary unit that divides it exactly; when
 * none above bytes does, the bytes and the count in whole units beside. */
static void put_size(out *o, uint64_t b)
{
	static const char unit[6][6] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
	uint32_t u = 0, w = 0;
	uint64_t x = b, whole = b;
	while (u < 5 && x >= 1024 && x % 1024 == 0) {
		x /= 1024;
		u++;
	}
	while (w < 5 && whole >= 1024) {
		whole /= 1024;
		w++;
	}
	put(o, "%llu %s", (unsigned long long)x, u == 0 && x == 1 ? "byte" : unit[u]);
	if (u == 0 && w > 0)
		put(o, " (%llu %s)", (unsigned long long)whole, unit[w]);
}

/* The bytes passes' sentences: a member past its full ratio sheds, or the
 * bytes band evens two members (alone or by an exchange). */
static void bytes_move(out *o, const names *n)
{
	const pl_action *a = n->a;
	shard_from_to(o, n, "move replica of ", " to ");
	if ((a->flags & PL_ACTION_EXCHANGE) && a->bytes_limit == 0) {
		put(o, ", staging a copy first: the return half of the exchange before it, a smaller shard of the "
		       "same role, so no count's potential rises");
		carry_note(o, n);
		return;
	}
	put(o, ", staging a copy first: ");
	member(o, n, a->from);
	put(o, " holds ");
	put_size(o, a->from_bytes);
	if (a->reason == PL_REASON_FULL_RATIO) {
		put(o, ", past its full ratio at ");
		put_size(o, a->bytes_limit);
		put(o, ", so it sheds");
	} else if (a->from_bytes > a->bytes_limit) {
		put(o, ", above the top of its bytes band, ");
		put_size(o, a->bytes_limit);
	} else {
		put(o, " (the top of its bytes band: ");
		put_size(o, a->bytes_limit);
		put(o, "), and a member is below its band");
	}
	put(o, "; ");
	member(o, n, a->to);
	put(o, " holds ");
	put_size(o, a->to_bytes);
	if (a->flags & PL_ACTION_EXCHANGE)
		put(o, "; the first half of an exchange with a smaller shard of the same role, so no count's potential "
		       "rises");
	carry_note(o, n);
}

int pl__explain_broker(out *o, const names *n)
{
	int rc = explain(o, n);
	const pl_action *a = n->a;
	if (rc && (a->flags & PL_ACTION_STAGE_FIRST) && a->bytes != PL_BYTES_UNKNOWN && a->bytes != 0) {
		put(o, "; it copies ");
		put_size(o, a->bytes);
	}
	return rc;
}

static int explain(out *o, const names *n)
{
	const pl_action *a = n->a;
	switch (a->kind * 100 + a->reason) {
	case PL_ACTION_MOVE_REPLICA * 100 + PL_REASON_FULL_RATIO:
	case PL_ACTION_MOVE_REPLICA * 100 + PL_REASON_BYTES_SKEW:
		bytes_move(o, n);
		return 1;
	case PL_ACTION_SET_LEADER * 100 + PL_REASON_NEW:
		shard_on(o, n, "place leader of ");
		put(o, ": new shard");
		placement(o, n);
		return 1;
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
		return 1;
	case PL_ACTION_MOVE_LEADER * 100 + PL_REASON_FAILOVER:
		shard_from_to(o, n, "move leader of ", " (down) to ");
		put(o, ", staging a copy first: no live eligible follower");
		placement(o, n);
		return 1;
	case PL_ACTION_ADD_REPLICA * 100 + PL_REASON_FAILOVER:
		shard_on(o, n, "stage a copy of ");
		put(o, ", then add it as a replica: no leader and no live eligible follower, %u of %u %s",
		    a->to_count, a->total, plural(a->total, "replica", "replicas"));
		return 1;
	case PL_ACTION_SET_LEADER * 100 + PL_REASON_DRAIN:
	case PL_ACTION_MOVE_LEADER * 100 + PL_REASON_DRAIN:
		shard_from_to(o, n, "hand leader of ", " (draining) to ");
		if (a->flags & PL_ACTION_STAGE_FIRST)
			put(o, ", staging a copy first");
		placement(o, n);
		return 1;
	case PL_ACTION_MOVE_LEADER * 100 + PL_REASON_STREAM_SKEW:
		shard_from_to(o, n, "move leader of ", " to ");
		stream_skew(o, n, ": ", " leads ", "");
		copy_note(o, n);
		return 1;
	case PL_ACTION_MOVE_LEADER * 100 + PL_REASON_CLUSTER_SKEW:
		shard_from_to(o, n, "move leader of ", " to ");
		counts_on(o, n, ": cluster leads ", "");
		put(o, ", share %u", a->share);
		if (a->stream != PL_NONE) {
			put(o, "; ");
			member(o, n, a->to);
			put(o, " leads fewer of stream ");
			stream(o, n);
		}
		relay_note(o, n, "leads");
		copy_note(o, n);
		return 1;
	case PL_ACTION_MOVE_REPLICA * 100 + PL_REASON_REPLICA_DRAIN:
		shard_from_to(o, n, "move replica of ", " (draining) to ");
		put(o, ", staging a copy first");
		replica_placement(o, n);
		put(o, "; the shard keeps its zones");
		return 1;
	case PL_ACTION_MOVE_REPLICA * 100 + PL_REASON_ZONE_REPAIR:
		/* A down member's replica moves only when no follower can. */
		shard_from_to(o, n, "move replica of ",
			      a->from < n->s->n_members && (n->s->members[a->from].flags & PL_MEMBER_DOWN) ? " (down) to "
													     : " to ");
		if (a->from_count == a->to_count && a->to < n->s->n_members && a->from < n->s->n_members) {
			/* the majority rule: the zones spanned stay as they are */
			put(o, ", staging a copy first: no zone may hold a majority's worth of its replicas (stream ");
			stream(o, n);
			put(o, ", zones=majority), and ");
			member(o, n, a->from);
			put(o, "'s zone ");
			put_bytes(o, n->s->members[a->from].zone);
			put(o, " holds more than that; ");
			member(o, n, a->to);
			put(o, " is in zone ");
			put_bytes(o, n->s->members[a->to].zone);
			put(o, ", which holds the fewest of them; ");
		} else if (a->at > 0 && a->to < n->s->n_members) {
			/* a level of the zones' paths: the first `at` parts */
			pl_bytes z = n->s->members[a->to].zone;
			uint64_t len = 0, parts = 0;
			while (len < z.len && !(z.ptr[len] == '/' && ++parts == a->at))
				len++;
			put(o, ", staging a copy first: its replicas span %u %s at level %llu of their zones and could "
			       "span %u; ",
			    a->from_count, plural(a->from_count, "domain", "domains"), (unsigned long long)a->at,
			    a->total);
			member(o, n, a->to);
			put(o, " is in zone ");
			put_bytes(o, z);
			put(o, ", whose ");
			put_bytes(o, (pl_bytes){z.ptr, len});
			put(o, " none of them is in, and ");
			member(o, n, a->from);
			put(o, " shares its level %llu domain with another replica; ", (unsigned long long)a->at);
		} else {
			put(o, ", staging a copy first: its replicas span %u %s and could span %u; ", a->from_count,
			    plural(a->from_count, "zone", "zones"), a->total);
			member(o, n, a->to);
			put(o, " is in zone ");
			if (a->to != PL_NONE)
				put_bytes(o, n->s->members[a->to].zone);
			put(o, ", which none of them is in, and ");
			member(o, n, a->from);
			put(o, " shares its zone with another replica; ");
		}
		member(o, n, a->to);
		put(o, " holds %llu%s, replica share %u", (unsigned long long)a->load, unit_of(a->load, " replicas"),
		    a->share);
		return 1;
	case PL_ACTION_MOVE_REPLICA * 100 + PL_REASON_REPLICA_STREAM_SKEW:
		shard_from_to(o, n, "move replica of ", " to ");
		stream_skew(o, n, ", staging a copy first: ", " holds ", " replicas");
		carry_note(o, n);
		handoff_note(o, n);
		return 1;
	case PL_ACTION_MOVE_REPLICA * 100 + PL_REASON_REPLICA_CLUSTER_SKEW:
		shard_from_to(o, n, "move replica of ", " to ");
		counts_on(o, n, ", staging a copy first: cluster holds ", " replicas");
		put(o, ", share %u", a->share);
		if (a->stream != PL_NONE) {
			put(o, "; stream ");
			stream(o, n);
			put(o, " is no less even after it");
		}
		relay_note(o, n, "holds");
		carry_note(o, n);
		handoff_note(o, n);
		return 1;
	case PL_ACTION_MOVE_LEADER * 100 + PL_REASON_REPLICA_STREAM_SKEW:
	case PL_ACTION_MOVE_LEADER * 100 + PL_REASON_REPLICA_CLUSTER_SKEW:
		if (a->flags & PL_ACTION_PAIRED) {
			shard_from_to(o, n, "hand leader of ", " to its follower ");
			put(o, ", which gave ");
			member(o, n, a->from);
			put(o, " the leadership of the replica it moved (the action before): the leaders stay as they are");
			return 1;
		}
		shard_from_to(o, n, "hand leader of ", " to its follower ");
		put(o, " first, so that the replica on ");
		member(o, n, a->from);
		put(o, " can move next: ");
		if (a->reason == PL_REASON_REPLICA_STREAM_SKEW) {
			put(o, "stream ");
			if (a->stream != PL_NONE)
				stream(o, n);
			put(o, " holds %u %s on ", a->from_count, plural(a->from_count, "replica", "replicas"));
			member(o, n, a->from);
			put(o, ", floor %u, ceiling %u", a->floor, a->ceiling);
		} else {
			put(o, "cluster holds %u %s on ", a->from_count, plural(a->from_count, "replica", "replicas"));
			member(o, n, a->from);
			put(o, ", share %u", a->share);
		}
		put(o, "; the leadership could not go with the replica within the leaders' bounds");
		return 1;
	case PL_ACTION_ADD_REPLICA * 100 + PL_REASON_NEW:
		shard_on(o, n, "add a replica of ");
		put(o, ": new shard, %u of %u %s placed, zones spread first", a->to_count, a->total,
		    plural(a->total, "replica", "replicas"));
		return 1;
	default:
		return 0;
	}
}
