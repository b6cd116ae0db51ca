/*
 * placement/broker.h - the broker policy: leaders and replicas per stream.
 *
 * A broker cluster gives every shard one leader, the member that appends its
 * records; a stream's write capacity is the capacity of the members that lead
 * its shards. Balancing leaders in total is not enough: twelve shards of one
 * stream led 1/1/10 sit beside totals of 21/21/19. This policy counts leaders
 * per member in total and per stream, and keeps both even. It does the same
 * for every replica, not only leaders: a draining member hands off all it
 * holds, a shard spanning fewer zones than it could is repaired (and one
 * of a majority stream holding too many in one zone: "Majority"), and
 * replicas per stream and in total are kept even.
 *
 * The numbers. For a stream whose leaders are counted over the eligible
 * members (live and not draining), a member's floor and ceiling are the count
 * times its weight over the eligible weight, rounded down and up: with equal
 * weights floor(s / n) and ceil(s / n), for 12 shards on 3 members 4 and 4.
 * The cluster share is the same ceiling over all shards when placing, over
 * the leaders on eligible members when rebalancing (the same number once
 * every shard has an eligible leader).
 *
 * Tolerance (config version 4, snapshot version 5). Ceph's
 * upmap_max_deviation and Cruise Control's thresholds trade evenness for
 * fewer moves; so does a tolerance of t shards: the scope's bounds widen to
 * [floor - t, ceiling + t] (the floor not below 0). The totals' scopes
 * (leaders and replicas) take the config's tolerance; each stream's scopes
 * take the snapshot's stream_tolerance for it, or, where that is NULL or
 * PL_TOLERANCE_DEFAULT, the config's stream_tolerance. Everything this
 * header says of a scope's bounds is said of the widened ones: a scope
 * wants a move only when a member is outside them, a move goes from a
 * member over the widened ceiling (or above the widened floor) to one under
 * the widened floor (or below the widened ceiling), the actions report the
 * widened floor and ceiling, and a layout within them is balanced as it
 * is. A move of one scope keeps every other scope's potential from rising,
 * counted against that scope's widened bounds (those its own pass moves
 * toward: against the exact ones a move of the totals could take a stream
 * past its widened ceiling and the stream's pass move it back, every tick;
 * check_broker_tolerance). The potentials below are counted against the widened
 * bounds: each move lowers one and raises none before it, so the plan ends
 * as without a tolerance (on random layouts it makes fewer moves:
 * check_broker_tolerance).
 * Placing new shards and drains use the exact bounds. Default 0: the
 * seed's bounds.
 *
 * Hand-offs only (handoff_only, config version 2). Leaderships move only to
 * in-sync followers, as Kafka's preferred elections and Redpanda's leader
 * balancer do; nothing is copied: no replica drain, zone repair or replica
 * balance, no leader move that stages a copy, no failover that copies (the
 * shard stalls). A leader drain goes to an in-sync follower or stalls. A
 * scope that wants a move only a copy would make ends the tick
 * PL_STATUS_BLOCKED_HANDOFF, detail the stream (PL_NONE: the cluster).
 *
 * Replicas in sync. A replica marked PL_SHARD_OUT_OF_SYNC(j) in the
 * snapshot (Kafka's ISR, Redpanda's healthy replicas) holds data and counts
 * as a replica everywhere, but no leadership goes to it without a copy: no
 * failover, drain hand-off, hand-off of a balance pass or of a chain. A
 * shard whose leader is down and has no live replica in sync is offline:
 * PL_STATUS_STALLED names it, and nothing is copied from a stale replica.
 *
 * Placing (one pass over the shards in key order, each choice counted at
 * once so the next shard sees it). A shard with no live leader gets one:
 *  - a new shard (no replicas): its leader is chosen by the tiers below among
 *    all eligible members (ties within a tier to the fewest replicas of its
 *    stream per weight, then the score), then replication_factor - 1
 *    followers, each the tier choice counted on replicas (the function a
 *    replica drain uses: of the stream, over its replicas once this shard's
 *    are placed, and in total) among the eligible members with room in a
 *    zone none of its replicas is in yet, else among every eligible member
 *    with room. A follower counts, beside the replicas of the stream it
 *    holds, the leaderships of the stream it will still take up to its
 *    floor (each comes with a replica), and within a tier goes to the fewest
 *    so counted, then the fewest replicas in total, then the score. So a new
 *    stream placed on a balanced cluster needs no replica move after it (on
 *    3,000 random layouts none did; with several new streams and shards of
 *    no stream placed at once, 10% still do, most after a leader move of the
 *    totals). It is emitted as ADD_REPLICA actions (leader's first), then
 *    SET_LEADER, all with reason NEW, and all or none of them (a full output
 *    array stops before a shard, never inside one);
 *  - a shard whose leader is down, or that has replicas but no leader:
 *    SET_LEADER (reason FAILOVER) to the tier choice among its live eligible
 *    followers; with none, the tier choice among all eligible members takes
 *    the dead leader's replica (MOVE_LEADER, STAGE_FIRST; among the members
 *    that keep the zone count, widened to every eligible member when none of
 *    those has room under max_shards) or, with no leader
 *    named, is added (ADD_REPLICA, then SET_LEADER). With no live replica to
 *    copy from, the shard is stalled (PL_STATUS_STALLED);
 *  - a shard led by a draining member: MOVE_LEADER (reason DRAIN) to the tier
 *    choice among the eligible members whose taking over keeps the shard's
 *    zone count (all eligible members when none does, or none of those has
 *    room under max_shards: no member passes its cap while a member of the
 *    widened set has room); STAGE_FIRST when the
 *    destination held no replica. A drain hand-off is a move: it counts
 *    against max_moves and the per-member limits, and a paused policy starts
 *    none; when the member that keeps the zone count is at its
 *    max_moves_in, the hand-off waits for it (PL_STATUS_MOVE_LIMIT) rather
 *    than go to one that loses a zone.
 * New shards and failovers are not moves (the shard serves nothing until it
 * has a leader) and are made even when paused or at the move limit.
 *
 * The tiers, one function for all three candidate sets: a candidate is in
 *  (1) when it leads fewer of the shard's stream than its floor,
 *  (2) when fewer than its ceiling,
 *  (3) when fewer leaders in total than its cluster share,
 *  (4) when it has room: max_shards is 0, or it holds a replica of the shard,
 *      or it holds fewer replicas than max_shards;
 *  (5) otherwise: every candidate is at its cap.
 * Tiers 1 to 3 also need room. The first non-empty tier wins; in tiers 1 and 2
 * a candidate under its cluster share is preferred. Within a tier, a replica
 * copied (drain, zone repair) or a new shard's follower goes to the member
 * holding the fewest replicas of the stream, then in total (per weight), so
 * the replica balance has no reason to move it on; a new shard's leader to
 * the fewest replicas of its stream. Then the highest
 * rendezvous score wins (weights and the scorer as in placement/hash.h), ties
 * on the smaller member id; in tier 5 the fewest leaders per weight, then the
 * fewest replicas per weight, then the score. A shard with no stream skips
 * tiers 1 and 2. With equal weights and room everywhere, a new stream's
 * shards therefore land no more than one apart on every member, whatever the
 * other streams lead: 12 shards on 3 members are placed 4/4/4.
 *
 * Rebalancing (after placing, when not paused and the move limit allows).
 * Within a scope (one stream's leaders, or all leaders, counted on eligible
 * members, with floors and ceilings over that count) a member is over when
 * it leads more than its ceiling and under when it leads fewer than its
 * floor; the scope wants a move when some member is either. Sources are the
 * members over their ceiling, or, when none is, those above their floor;
 * destinations are the members under their floor, or, when none is, those
 * below their ceiling. With equal weights this is exactly the seed's rule:
 * the member leading the most, when it leads at least two more than another,
 * hands one to the member leading the fewest.
 *  - Stream pass, the worst hotspot first: streams in order of how far their
 *    furthest member is over its ceiling, ties (and streams with members only
 *    under their floors) in id order. The source furthest over wins, ties to
 *    one leading more than its target (below), then to the member with the
 *    most projected leaders per weight (its leaders in total, less what it
 *    leads over its ceilings, plus what it lacks under its floors, over every
 *    stream: where its total is headed), then the smaller id; the
 *    destination furthest under wins, ties to one leading fewer than its
 *    target, then the fewest projected leaders per weight, then the smaller
 *    id.
 *  - Targets. Each stream ends with every member at its floor or its
 *    ceiling; which members take the ceiling decides how many moves the
 *    streams and then the totals need. Before the stream pass, one min-cost
 *    flow over every stream and the totals' bounds (a transportation
 *    problem: each stream's leaders above the sum of its floors, one per
 *    member with floor < ceiling, to the room the members' totals have
 *    within their cluster bounds; a place on a member leading its ceiling
 *    or more costs nothing, on one leading less costs a move; integers
 *    only; among the fewest moves, the one whose moves go to members
 *    holding the fewest replicas of the stream, so the copies they make
 *    even the replicas too; then ties by canonical rank) chooses them for
 *    all streams at once;
 *    the moves then go from members leading more than their target to
 *    members leading fewer, and the totals end within their bounds with no
 *    cluster move the flow did not count. The flow is solved on the stack
 *    (about 8 KiB, nothing allocated) when the view has at most 64 members
 *    and 64 streams, within 2^17 relaxation steps (a count, so the cut-off
 *    is deterministic; skipped at once when 4 x its places x streams x
 *    members pass it: each place takes a search over every pair); past
 *    that, the ties go to the projected totals alone, as the only rule. On
 *    400 small and 100 larger random layouts with equal weights and no
 *    zones or caps, the leader moves are 1.2% (0.4%) above the fewest any
 *    plan that may copy needs (a min-cost flow from the initial counts to
 *    any final counts within every stream's and member's bounds): the
 *    extra moves are the hops of chains of hand-offs (below), each of
 *    which saves a copy.
 *  - Cluster pass, only when no stream wanted a move in this call, moved or
 *    waiting on a limit or a move in flight (a stream whose every move is
 *    blocked by zones or caps does not hold it up): the member furthest over
 *    its share hands one shard to the member furthest under, ties on leaders
 *    per weight, then the smaller id. The shard's stream must keep its
 *    bounds on both: the source stays at or above its floor of the stream,
 *    the destination at or below its ceiling (it leads fewer of it), and
 *    its sum of count^2/weight must not rise (with unequal weights a move
 *    within the bounds can make a stream more uneven: a weight 2 and b
 *    weight 3 leading 6 and 8 of a stream go to 5 and 9, 39.33 to 39.50).
 * The best move is the best source that has any move, then its best
 * destination. Between copies (of leaders or of replicas, in every pass)
 * whose sources are equally far over and destinations equally far under
 * (each shard is offered every destination as far under as its best; a
 * leader's replica, which carries or hands off its leadership, only the
 * first; where no two members share a domain, the replica passes only the
 * first too),
 * the one whose destination shares the deepest failure domain with its
 * source wins before the ties above (the same zone, else the same rack of
 * a path, else the same region; a hand-off counts as sharing none, so the
 * ranking is one order whatever the order of the offers): the data crosses
 * the fewest domain boundaries, as Kudu moves inside a location when that does as well. On
 * the seed's majority layout (tests/placement/golden/majority.txt) the two
 * replica moves went across zones and now stay inside them. Which shard,
 * among the source's shards of the scope that may
 * go there: with replica_balance on and every replica on an eligible
 * member, one whose move with a copy also brings the replicas closer to
 * their bounds (its stream's replicas nearer their bounds, the replicas in
 * total not rising in potential: one move where a transfer would need a
 * replica move after it) first; then one the destination already holds a
 * replica of (a leadership transfer, no copy); then, in the stream pass
 * with replica_balance on, one none of whose other followers holds more
 * replicas of the stream than its replica ceiling (such a follower will
 * shed one, perhaps this shard's, which would then move twice: on 2,000
 * random layouts the layouts moving some shard twice, leader or replica,
 * fell from 491 to 439; 528 before the targets); then the one whose
 * rendezvous draw rises the most (the destination's draw less the source's,
 * so a shard that just arrived is the last to leave again), then key order.
 * A move to a member without a replica is MOVE_LEADER with
 * PL_ACTION_STAGE_FIRST: the destination takes the old leader's replica.
 *
 * Hand-offs before copies. When the best move would copy and serves no
 * replica bound (above), the pass looks for a chain of hand-offs instead:
 * the source hands a shard of the scope to a follower x1, x1 another to a
 * follower x2, ..., the last to a destination, each hop a leadership moved
 * to a member that holds a replica already. The members between end as they
 * began, so the chain moves one leader from the source to the destination,
 * as the copy would, and copies nothing. The shortest chain wins (at most
 * 8 hops; the distances are found backwards from the destinations, one walk
 * over the scope's shards per hop), then the best source, then the best
 * destination; its last hop (into the destination) is made now, and the
 * next search goes on from the member it left. That hop never takes the
 * scope further from its bounds: from a member at or below its floor it
 * goes only to a destination under its own. A hop is an ordinary
 * MOVE_LEADER with the scope's reason and no STAGE_FIRST. On the 6-member
 * layout of pl_broker_plan(3) (m0 leading 4 of 12, m1 none, three zones)
 * four hand-offs even the leaders where two copies and two replica moves
 * did; on 400 random layouts the copies above their lower bound fell from
 * 475 to 330.
 *
 * Staging. When every first-choice move would lose a zone (a destination
 * in the zone of the source's other replicas can take no leadership of it
 * with the source's own replica), or the best one copies, serves no replica
 * bound and no chain does it instead, a follower of a
 * shard a source leads gives the destination its replica instead: a
 * MOVE_REPLICA flagged PL_ACTION_FOR_HANDOFF, made only when it also evens
 * the replicas (it lowers the stream's replica potential and does not raise
 * the totals'), zones kept. Once the copy is in, the source hands the
 * destination the leadership (an ordinary hand-off, no copy), so the
 * leadership moves once where the fallbacks would move it twice (to a
 * member at its ceiling, then on with that member's replica). Each
 * destination is staged as many shards as it lacks to its ceiling; while
 * they are in flight the scope waits. Cruise Control's
 * TopicLeadershipDistributionGoal layout (6 members in 3 zones, 30 shards on
 * three of them, all led by one) takes 45 copies and 25 leadership changes,
 * both the fewest, where it took 36 changes with 11 shards led twice.
 *
 * What a plan remembers. Nothing from one tick to the next: a view built
 * afresh every tick and the dry run on one view (whose pl_view_settle()
 * forgets what moved) give the same actions, one for one. Within a tick the
 * view knows the shards a move was applied to: a shard is acted on once
 * (touched), and between two moves that are otherwise as good, in every
 * pass, one on a shard that has not moved in this tick wins. Across ticks
 * the ranking alone keeps a shard that just arrived from leaving again (the
 * rise in rendezvous draw: a shard moved to the member that draws it higher
 * is the last to leave it), so a shard can move twice in a plan: on 400
 * random layouts with equal weights, its leadership in 25 of them.
 * When zones or caps (or, in the cluster pass, the streams' bounds) leave
 * none of those moves, fallbacks are tried in turn: every pair that still
 * lowers the scope's distance (over the ceiling to below it, or above the
 * floor to under it); a member over its ceiling to one it leads at least
 * two more than (weighted: when the sum of count^2/weight drops); a relay,
 * where the source hands a shard to a member x at or below its bound that
 * can hand one of the scope on to the destination (x -> destination is then
 * an ordinary move); last, when no bound can be met, a hand-off (never a
 * copy) from any member to a follower it leads at least two more than
 * (weighted: the sum of count^2/weight drops, the distance not rising), so
 * the spread narrows as far as hand-offs allow. A layout that allows a
 * first-choice move never sees a fallback.
 * A move never: reduces the number of zones the shard's replicas span, or
 * raises a majority shard's zone excess (below, "Majority"); fills
 * a member past max_shards; touches a shard that is moving or was acted on in
 * this view since the last pl_view_settle(); starts past max_moves (moves in
 * flight in the view counted) or past a member's max_moves_in/max_moves_out.
 *
 * Why it terminates, with no thrash. The distance of a scope is the sum over
 * its members of how far each is outside [floor, ceiling]; its potential is
 * (distance, sum of count^2/weight), compared in that order. Every stream
 * move lowers its stream's potential: a first-choice or wide move goes from
 * a member over (above) a bound to one under (below) it and lowers the
 * distance; a spread move keeps the distance and lowers the sum. With equal
 * weights every such move goes from a member leading at least two more than
 * the destination, so the stream's sum of squared counts drops; so does a
 * narrowing hand-off. Every cluster move raises no stream's potential (a
 * stream within its bounds stays within them; one that no move can bring
 * within them may give a leader to the totals without ending further from
 * them) and lowers the cluster's. A staging copy keeps every leader
 * potential and lowers a replica one, which comes after them. The one exception is
 * a relay's first hop, which keeps the scope's distance (and, with equal
 * weights, its squares): the scope's next move is then an ordinary one that
 * lowers the distance, so two relays never follow each other. A hop of a
 * chain of hand-offs goes into a destination from a member that is not a
 * source, and from a member at or below its floor (with weights a floor can
 * equal its ceiling) only into one under its own floor, so it keeps the
 * distance or lowers it, and leaves the shortest
 * chain from a source one hop shorter: at most 7 such hops follow each
 * other before one that lowers the distance. So the moves end. In a layout that needs no fallback, each
 * stream move lowers its stream's max(excess over the ceilings, deficit
 * under the floors) by one: the fewest moves that stream needs. The targets
 * only rank moves the passes may make (among sources as far over, or
 * destinations as far under), so they leave this argument as it is. What a move
 * repeats (above) only ranks moves the passes may make, each of which
 * lowers a potential as before; a leader move that takes a replica along
 * changes only the replicas' part, which comes after the leaders'; and a
 * pass that waits for a shard in flight makes no move and waits at most
 * until the moves in flight settle (pl_view_settle() or the next
 * snapshot), after which nothing is passed over for being in flight. The
 * rule against copying a replica back only ranks moves and forbids some
 * that keep a distance, so the argument is unchanged.
 *
 * Decommission. After a draining member's leadership is handed off (above),
 * every replica it holds as a follower moves: MOVE_REPLICA, STAGE_FIRST,
 * reason REPLICA_DRAIN, to the tier choice counted on replicas (the tiers
 * above with "leads" read as "holds replicas of", of the stream over the
 * stream's replicas, in total over all replicas) among the eligible members
 * that hold none of the shard, keep its zone count and have room; where
 * the drained replica shares its domain with another of the shard's and the
 * shard could span more, among those in a domain none of its replicas is
 * in first (the zone repair's choice: one copy, not a drain and a repair).
 * A replica drain never lowers a zone count and never passes a cap; with no such
 * member it stalls: PL_STATUS_DRAIN_STALLED with the first such shard in
 * detail; pl_broker_drain_stalls() lists every such replica and why. So a draining member ends holding nothing whenever each of its
 * replicas has such a member. It is a move (limits, pause), one replica of
 * a shard per tick: of a shard's draining followers, the first in id order
 * that has a member to go to (one that cannot move holds up no other).
 *
 * Levels. A zone may be a path of failure domains, top first: "rack/host",
 * "region/rack/host" (up to three levels; a deeper path's tail belongs to
 * the last). A zone without '/' is a one-level path, and plans as it did.
 * A shard spans as many top-level domains as it can, then within that as
 * many at the next level, then as many zones: "the zones it spans" below
 * is that list, compared top first. A move keeps it when the first level
 * where the move changes the count gains a domain (so no move makes a
 * shard span fewer racks, even to gain a host); zone repair looks at the
 * top level first (the action's `at` names the level repaired: the paths'
 * first `at` parts, 0 for whole zones), and a new shard's followers go to a
 * top-level domain none of its replicas is in, then to a new domain of the
 * next level, then to a new zone. An empty zone is a domain of its own at
 * every level.
 *
 * Zone repair. A shard spans fewer zones than it could when its replicas'
 * zones number fewer than min(its replicas, the zones of its replicas and of
 * the eligible members with room). Every replica counts, a down member's
 * too (it is the shard's until the caller removes it; placement stats
 * counts the same way). Two of its replicas then share a zone, one of them
 * not the leader's; that replica moves to the tier choice among the
 * eligible members with room in a zone the shard does not span:
 * MOVE_REPLICA, STAGE_FIRST, reason ZONE_REPAIR, scope PL_SCOPE_ZONES
 * (from_count, to_count: zones before and after; total: zones it could
 * span). Which replica: an eligible follower (of several, the one holding
 * the most replicas of the stream, then in total, per weight, then the
 * smaller id); with none, a replica on a down member (the smaller id; the
 * copy comes from a live replica, and the shard gains a live one); a
 * draining member's replica is its drain's to move. The leadership never
 * moves with it; but when the leader shares its zone with an in-sync
 * follower and leads more of the stream than its (widened) ceiling, and a
 * hand-off to that follower lowers the stream's leader distance and keeps
 * the totals within their bounds, the tick makes that hand-off first
 * (MOVE_LEADER, STREAM_SKEW, as the stream pass writes it) and the repair
 * moves the old leader's replica on a later tick: one copy of the shard,
 * where a follower's copy now and the leadership copied away later would
 * make two. The hand-off is a stream move: the order below holds.
 * Otherwise a replica on a down member stays where it is:
 * the member may come back, and only a drain empties a member.
 * replication_factor is the replica count of a new shard only: a shard
 * with fewer replicas, or with replicas on down members, is given none
 * (its leader fails over to a live follower, above); the caller restores
 * it (or drains the member, or replaces the replica in the snapshot).
 *
 * Majority (snapshot.stream_zone_rule, PL_ZONES_MAJORITY: Kudu's placement
 * rule). A shard of such a stream with n replicas also keeps any one zone
 * from holding a majority: at most its base, (n - 1) / 2 of them, in a zone
 * (the base is at least 1: RF 3 one a zone, RF 5 and 6 two), so losing any
 * zone leaves a majority. Where the zones that can take a replica (those with an
 * eligible member with room, and those its replicas are in) are too few
 * for that, the limit is ceil(n / those zones): as few in one zone as they
 * allow (RF 5 over two zones ends 3/2). With zone paths (Levels) it counts
 * whole zones. Its excess is the sum over zones of
 * what each holds past the limit. The span rule still holds, and comes
 * first. No move raises the excess: a copy of a majority shard (of every
 * pass: leader copies, drains, replica balance, staging, the bytes passes)
 * goes to a zone holding fewer of it than max(its base, the source zone's
 * count), so the sum over zones of max(0, held - base)^2 does not rise (it does not depend on which members have room; whatever the
 * limit, a move it allows raises no zone past it); a candidate refused for
 * it counts as losing a zone (PL_STATUS_BLOCKED_ZONES, a drain stalls with
 * PL_BROKER_STALL_ZONES). Zone repair: a majority shard that spans all it
 * can and holds more than its limit in a zone, while a zone with an
 * eligible member with room that holds none of it holds fewer than the
 * limit, has a replica moved from the zone holding the most (never the
 * leader's; which, as above) to the tier choice among those members in
 * the zones holding the fewest: MOVE_REPLICA, STAGE_FIRST, reason
 * ZONE_REPAIR, scope PL_SCOPE_ZONES (from_count, to_count: zones spanned
 * before and after; total: zones it could span). Each lowers the excess by
 * one. A new shard's followers, once each zone it can reach holds one, go
 * to the zones holding the fewest of it so far, so it is placed within the
 * limit when the zones allow (RF 6 on three zones: 2/2/2). As with the
 * span rule, a failover, and a leader drain's hand-off when no member that
 * keeps the rules has room, may go anywhere. On 200 random layouts (4 to
 * 12 members in 2 to 4 zones, RF 3 to 6, draining and down members, caps)
 * 576 of 1,423 majority shards began past their limit and 1,286 ended
 * within it (196 repairs); the rest had no member with room in a zone
 * below it.
 *
 * Kept streams (snapshot.stream_flags, PL_STREAM_KEEP: Cruise Control's
 * excluded topics). No balance move takes a shard of a kept stream: no
 * leader, replica or bytes move, and no hand-off, whether for the stream's
 * own bounds or the totals'. Its shards still count in every member's
 * totals (leaders, replicas, bytes), so the other streams' shards even the
 * totals around them, as far as those streams' exact bounds allow (where
 * they cannot bring a member within its totals' bounds, the tick ends
 * PL_STATUS_BLOCKED_BOUNDS, detail PL_NONE). Its own scopes want no move,
 * so its own spread never keeps the plan from PL_STATUS_BALANCED. Failover, drains, zone repair and the placing of its
 * new shards still move them, as Cruise Control moves an excluded topic's
 * replicas off a dead or removed broker. In placement(5): stream ID keep.
 *
 * Replica balance (replica_balance, on by default). Replicas held per
 * member, per stream and in total, are kept within the weighted floor and
 * ceiling over the replicas eligible members hold, by the same two passes
 * (streams first, then the totals, by the same keys, ranking and fallbacks,
 * ties on replicas in total per weight, plus an "even" fallback: any pair
 * whose move keeps the distance and lowers the sum of count^2/weight, such
 * as two members under their floors in the one zone that can take them),
 * with MOVE_REPLICA (STAGE_FIRST; reasons REPLICA_STREAM_SKEW and
 * REPLICA_CLUSTER_SKEW; scopes PL_SCOPE_STREAM_REPLICAS and
 * PL_SCOPE_REPLICAS). The shard: one the source holds and the destination
 * does not, whose zone count the move keeps, the destination with room; a
 * follower's replica before the leader's. The leader's replica carries the
 * leadership (PL_ACTION_CARRIES_LEADER) only when the leadership's stream
 * and the leaders in total keep their bounds on both members and their
 * potentials do not rise; else the leadership first goes to a follower that
 * keeps them (MOVE_LEADER, no copy, with the replica reason) and the
 * replica, a follower's then, moves on a later tick; with no such follower,
 * the destination hands one of its shards of the same stream (the first in
 * key order that the source follows in sync) to the source in the same
 * step: both actions carry PL_ACTION_PAIRED, count as one move, and leave
 * every leader count as it was (replicas 3/4/5, leaders 3/3/3 at their
 * bounds: one such step ends 4/4/4, where no single move was allowed). In the cluster pass the
 * shard's stream's replica potential must not rise. Replica moves count
 * against max_moves and the per-member limits; a paused policy starts none.
 *
 * The order in one tick, and why it cannot oscillate. A leadership transfer
 * to an existing follower costs no copy; a replica move (and a leader move
 * to a member without a replica) costs one. So one tick runs: placing and
 * leader drains; replica drains; zone repair; leader balance (streams, then
 * the totals); and replica balance only when no leader move, replica drain
 * or zone repair was made in the tick or waits. The potentials are compared
 * in the order (zones spanned, summed over the shards, higher first; the
 * majority shards' squares (the sum over their zones of max(0, held -
 * base)^2, above), lower first; the
 * replicas and leaderships draining members hold; each leader scope's; each
 * replica scope's): a span repair raises the first and no move lowers it;
 * a majority repair keeps the first and lowers the second (it moves a
 * replica from a zone holding past the limit, so past the base, to one
 * holding at least two fewer), which no other move raises (the rule above;
 * a span repair moves into a zone holding none); a
 * drain lowers the third and raises neither; a leader move lowers the
 * leaders' part (it may change the replicas' freely: they come after); a
 * replica move keeps the leaders' part from rising (the carry rule) and
 * lowers its replica scope's, raising no other's. So every move lowers the
 * whole, lexicographically (a relay's first hop, or a leadership handed to a
 * follower for a replica move, is followed by the move that lowers it), and
 * no move of one kind can undo one of the other.
 *
 * Bytes (snapshot version 3 with shard_bytes; config version 3). A shard's
 * size is its data on one replica; a member's bytes are the known sizes of
 * the replicas it holds (copies in flight counted as finished, as every
 * count is); a size the caller does not know counts 0 in every sum and is
 * never moved for bytes (unknown is not zero, so nothing is concluded from
 * it). Four rules, each acting only when the snapshot gives what it needs:
 *  - The full ratio (full_ratio percent of a member's capacity, when the
 *    capacity is known): no copy, of any pass, fills a member past it (a
 *    shard of unknown size goes only to a member below it); a candidate
 *    refused for it counts as blocked (PL_STATUS_BLOCKED_FULL, detail: the
 *    member that cannot shed, else the blocked stream or PL_NONE).
 *  - Shedding: after drains and zone repair, an eligible member past its full
 *    bytes moves replicas off (MOVE_REPLICA, STAGE_FIRST, reason FULL_RATIO,
 *    scope PL_SCOPE_BYTES, bytes_limit its full bytes; CARRIES_LEADER when it
 *    leads the shard) to the eligible members with the most room under
 *    theirs that take them by the copy rules (zones, caps, full ratio,
 *    limits): first a move that keeps every count's potential, then the
 *    fewest bytes that bring it under, else the largest shard. With no such
 *    move the tick says PL_STATUS_BLOCKED_FULL naming the member.
 *  - The bytes band (bytes_balance): each eligible member's share of the
 *    bytes eligible members hold is proportional to its capacity when every
 *    eligible capacity is known, else to its weight; its band is that share
 *    plus or minus bytes_tolerance percent of it. While a member is outside
 *    its band, the fullest members (bytes per share) give to the emptiest:
 *    by a single MOVE_REPLICA that keeps every count's potential (the
 *    stream's and total replicas, and when the leader's replica moves, the
 *    stream's and total leaders), or by an exchange (PL_ACTION_EXCHANGE: two
 *    MOVE_REPLICAs, a larger shard one way and a smaller one of the same
 *    role, led or followed, the other, one move against max_moves), which
 *    keeps the totals and raises neither stream's potentials (with one
 *    stream, keeps every count). Reason BYTES_SKEW, scope PL_SCOPE_BYTES. Among those that
 *    bring both members within their bands, the fewest bytes copied; else the
 *    transfer nearest the one that evens the two. Counts first (the default):
 *    it runs in a tick where nothing else moved or waits. bytes_first: it runs
 *    before the leader and replica passes (after shedding), needs only lower
 *    the band's distance (the sum over members of how far each is outside its
 *    band), and every copy of the count passes must keep that distance from
 *    rising (a refused one counts as blocked-full).
 *  - Limits in flight: max_bytes_in_flight, max_bytes_in and max_bytes_out
 *    count the copies in flight in the view (the snapshot's and this tick's)
 *    as max_moves does moves; a copy that would pass one waits
 *    (PL_STATUS_MOVE_LIMIT), except that a copy starts when nothing is in
 *    flight where it counts, so a shard larger than a limit is not stuck.
 * Every action that copies says what: bytes (the shard's size, or
 * PL_BYTES_UNKNOWN), from_bytes and to_bytes (the members' bytes before it).
 * Why it still ends: the potentials gain two places. Before the leaders', the
 * sum over members of their bytes past their full bytes: shedding lowers it
 * (a shard of size s > 0 leaves a member past it and no member passes its
 * own), and no other move raises it (the full ratio). Last (counts first),
 * the sum over eligible members of bytes^2/weight: a band move keeps every
 * count's potential (a single move by the rule above; an exchange keeps the
 * totals and each leg's stream's potentials from rising) and moves t bytes from a to d only when (2 b_d + t) w_a < (2 b_a - t)
 * w_d, which is exactly that sum falling. With bytes_first the band's
 * distance sits right after the full-ratio place: band moves lower it, and no
 * count move raises it. So every move still lowers the whole,
 * lexicographically, and nothing thrashes between the counts and the bytes.
 * What is best effort: how close bytes come to even. Indivisible shards (one
 * larger than a band), counts at their bounds with no exchange of the same
 * role, zones and caps can leave a member outside its band; the pass then
 * stops (as even as the rules allow: status balanced). The search is
 * bounded: the 4 fullest members against the 16 emptiest, the first 4,096
 * movable shards of a source and 256 of a destination (in key order), for
 * each shard of the source 16 of the destination's (its smallest, and those
 * nearest the even split), about 2^21 shards weighed a move, one walk of the
 * shards a source and one for the destinations.
 *
 * Limits. Without sizes it counts shards, not bytes: a stream whose traffic
 * is lopsided across its own shards stays lopsided. The stream pass is exact: a stream it
 * reports blocked has no move the rules allow. The cluster pass ranks at most
 * PL_BROKER_SEARCH sources and, for each shard, its followers and the
 * PL_BROKER_SEARCH best destinations with room: on a cluster larger than that
 * where all of those are blocked it may report a block that a lower-ranked
 * pair would not have had. With unequal weights and no relay possible, the
 * totals can end outside their bounds; the streams come first. The leader
 * targets' flow counts leader moves and where their copies go, not zones:
 * whether a member's replicas of a stream can leave it depends on each
 * shard's other replicas' zones, which a flow over (stream, member) places
 * does not see. Where zones pin a stream's replicas (placement(1)'s
 * kafka-old example: broker 3 alone in its zone holds every orders
 * replica it cannot shed), the plan may need a replica move more than an
 * order of leader moves that knew it (5 there, where 4 did before the
 * flow); the leader moves stay the fewest.
 *
 * Cost: one call is linear in the shards and the per-stream cells (leader
 * and replica cells), plus
 * O(eligible members) per stream that wants a move, plus the targets' flow
 * (at most 64 members and 64 streams, 2^17 steps); nothing scores every
 * (shard, member) pair. Nothing is allocated; per-member numbers live in the
 * view's scratch, the flow's on the stack, for the length of a call.
 */
#ifndef PLACEMENT_BROKER_H
#define PLACEMENT_BROKER_H

#include <stdint.h>

#include "plan.h"
#include "view.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The config's layout: 2 added handoff_only at the end, 3 the bytes fields
 * after it, 4 the tolerances after those. A config of version 1 (the eight
 * fields before handoff_only), 2 or 3 is read as it was, with the later
 * fields at their defaults; the library never reads past the fields of the
 * version the caller set.
 */
#define PL_BROKER_CONFIG_VERSION 4u

/** Most concurrent moves a config may allow (max_moves). */
#define PL_BROKER_MAX_MOVES 256u

/** How many sources, and destinations with room, the cluster pass ranks. */
#define PL_BROKER_SEARCH 32u

/**
 * The broker policy's configuration. Start from PL_BROKER_CONFIG_INIT or
 * pl_broker_config_init(); the field's place in the struct (0 = version) is
 * the index a PL_E_CONFIG diag names.
 */
typedef struct pl_broker_config {
	uint32_t version;            /**< 0: PL_BROKER_CONFIG_VERSION */
	uint32_t max_moves;          /**< 1: concurrent moves, counting those in flight; 1..PL_BROKER_MAX_MOVES (default 1) */
	uint32_t max_moves_in;       /**< 2: moves in flight into one member; 0 = no limit (default) */
	uint32_t max_moves_out;      /**< 3: moves in flight out of one member; 0 = no limit (default) */
	uint32_t paused;             /**< 4: 1 = start no move (placing still runs); 0 or 1 (default 0) */
	uint32_t replication_factor; /**< 5: replicas of a new shard, 1..PL_MAX_REPLICAS, capped at the eligible members (default 3) */
	uint32_t stream_balance;     /**< 6: 1 = per-stream tiers and stream pass (default); 0 = cluster totals only */
	uint32_t replica_balance;    /**< 7: 1 = balance replicas per stream and in total (default); 0 = leaders only */
	uint32_t handoff_only;       /**< 8 (version 2): 1 = move leaderships by hand-offs to in-sync followers only,
				      *  copy nothing; 0 (default) */
	/* Version 3: bytes. They act only on a snapshot that gives sizes
	 * (snapshot version 3); see "Bytes" above. */
	uint32_t bytes_balance;      /**< 9: 1 = even each member's bytes within bytes_tolerance (default); 0 = not */
	uint32_t bytes_first;        /**< 10: 1 = the bytes band before the counts; 0 = counts first (default) */
	uint32_t full_ratio;         /**< 11: percent of a member's capacity no copy may fill it past, and past
				      *  which it sheds first; 1..100, 0 = none (default 90) */
	uint32_t bytes_tolerance;    /**< 12: percent of its capacity-proportional share a member's bytes may
				      *  stray from it; 0..PL_BROKER_MAX_TOLERANCE (default 10) */
	uint32_t reserved;           /**< 13: must be 0 */
	uint64_t max_bytes_in_flight; /**< 14: bytes of copies in flight, counting those listed; 0 = no limit */
	uint64_t max_bytes_in;       /**< 15: bytes of copies in flight into one member; 0 = no limit */
	uint64_t max_bytes_out;      /**< 16: bytes of copies in flight out of one member; 0 = no limit */
	/* Version 4: tolerances (see "Tolerance" above). */
	uint32_t tolerance;          /**< 17: shards by which a member's total leaders or replicas may stray
				      *  past its floor and ceiling before a move is made;
				      *  0..PL_MAX_TOLERANCE (default 0) */
	uint32_t stream_tolerance;   /**< 18: the same for each stream's counts, where the snapshot's
				      *  stream_tolerance does not set it; 0..PL_MAX_TOLERANCE (default 0) */
} pl_broker_config;

/** Most a config's bytes_tolerance may be, in percent. */
#define PL_BROKER_MAX_TOLERANCE 1000u

/**
 * The defaults. replica_balance 0 balances leaders only (drains and zone
 * repair still move replicas). stream_balance 0 is the behaviour before per-stream counting:
 * placing skips tiers 1 and 2, there is no stream pass, and the cluster pass
 * moves any shard. It exists to show (and test) what the per-stream rules fix:
 * beside totals of 21/21/19 a 12-shard stream led 1/1/10 stays lopsided.
 */
#define PL_BROKER_CONFIG_INIT {PL_BROKER_CONFIG_VERSION, 1u, 0u, 0u, 0u, 3u, 1u, 1u, 0u, 1u, 0u, 90u, 10u, 0u, 0u, 0u, 0u, 0u, 0u}

/**
 * pl_broker_config_init_version - set a config of the given layout version
 * to its defaults: the fields that version has, and no byte past them.
 *
 * @param cfg      the config to fill.
 * @param version  1, 2, 3 or 4 (PL_BROKER_CONFIG_VERSION).
 * @return 0, or PL_E_INVAL for NULL, PL_E_VERSION for another version.
 */
PL_API int pl_broker_config_init_version(pl_broker_config *cfg, uint32_t version);

/**
 * pl_broker_config_init - set a config to its defaults, the same bytes as
 * PL_BROKER_CONFIG_INIT: the layout of the header the caller was compiled
 * with (the macro passes PL_BROKER_CONFIG_VERSION). The function of that
 * name, which a program built against version 1 calls, fills version 1.
 *
 * @param cfg  the config to fill.
 * @return 0, or PL_E_INVAL for NULL.
 */
PL_API int pl_broker_config_init(pl_broker_config *cfg);
#define pl_broker_config_init(cfg) pl_broker_config_init_version((cfg), PL_BROKER_CONFIG_VERSION)

/**
 * pl_broker_plan - one tick of the broker policy: place what has no live
 * leader, hand off what draining members lead and hold, repair zones, then
 * start rebalance moves (leaders, then replicas) up to the limits. Every action is applied to the view as it is emitted.
 *
 * @param v     the view (placement/view.h); changed by the actions emitted.
 * @param cfg   the configuration.
 * @param out   receives the actions, in the order to carry them out; may be
 *              NULL when cap is 0.
 * @param cap   room in out.
 * @param info  optional: written, wanted and why the call stopped, the
 *              first of these that holds:
 *              PL_STATUS_FULL: out filled first (wanted = written + 1);
 *              PL_STATUS_STALLED: a shard needs a leader and has no member
 *              it may go to (no live replica left to copy from), or a
 *              draining member's shard has no member with room; detail =
 *              the first such shard;
 *              PL_STATUS_DRAIN_STALLED: a replica a draining member holds
 *              as a follower has no member it may go to (none keeps the
 *              zone count with room, or every other eligible member holds
 *              the shard); detail = the first such shard;
 *              PL_STATUS_PAUSED: a move is wanted and the policy is paused;
 *              PL_STATUS_MOVE_LIMIT: a move waits on max_moves (detail
 *              PL_NONE) or on a member's max_moves_in/out (detail = that
 *              member);
 *              PL_STATUS_IN_FLIGHT: a wanted move touches only shards
 *              already moving, or the cluster pass waits for this call's
 *              stream moves to settle;
 *              (for these three a move is wanted later: wanted = written + 1)
 *              PL_STATUS_BLOCKED_CAPS, PL_STATUS_BLOCKED_ZONES: a scope wants
 *              a move and every one would pass a max_shards cap or lose a
 *              zone; detail = the first such stream, PL_NONE for the
 *              cluster;
 *              PL_STATUS_BLOCKED_HANDOFF (handoff_only): a scope wants a
 *              move only a copy would make; detail as above;
 *              PL_STATUS_BLOCKED_BOUNDS: a scope's leaders or replicas
 *              are outside their bounds and no move the rules allow
 *              brings them in (a kept stream's shards; a replica out of
 *              sync; each other move would take another scope from its
 *              bounds or make it more uneven; not replicas the holdings
 *              alone keep, as when every member holds every shard);
 *              detail as above;
 *              PL_STATUS_BALANCED: nothing more is wanted.
 *              blocked counts the stalled shards (and drain-stalled
 *              replicas) and the blocked scopes.
 * @param diag  optional; names the bad element on error.
 * @return how many actions were written; or PL_E_INVAL (NULL or dropped view:
 *         PL_ELEM_ARGUMENT 1; NULL cfg: 2; NULL out with cap > 0: 3),
 *         PL_E_VERSION (PL_ELEM_CONFIG 0), PL_E_CONFIG (PL_ELEM_CONFIG with
 *         the field's index), PL_E_NO_ELIGIBLE (the view has shards and no
 *         eligible member: PL_ELEM_ARGUMENT 1). On error nothing is written:
 *         not out, not info, not the view.
 *
 * Deterministic: the same snapshot content gives the same actions (up to the
 * indices that name them), whatever the order of the snapshot's arrays.
 */
PL_API int pl_broker_plan(pl_view *v, const pl_broker_config *cfg, pl_action *out, uint32_t cap,
			  pl_plan_info *info, pl_diag *diag);

/**
 * pl_broker_dry_run - the whole sequence of actions from this view to a
 * balanced layout: pl_broker_plan(), then pl_view_settle() (every move
 * finishes), repeated until a tick on a settled view emits nothing (a first
 * tick that emits nothing while the view has moves in flight settles them
 * and goes on). This is what an operator reviews before turning the
 * balancer on.
 *
 * @param v      the view; it ends holding the layout after the written
 *               actions (build a fresh view to plan for real).
 * @param cfg    the configuration (max_moves applies per tick).
 * @param out    receives the sequence; NULL only when cap is 0.
 * @param cap    room in out; the sequence stops there (PL_STATUS_FULL).
 * @param info   optional: written is the sequence's length; status is why
 *               the last tick emitted nothing (PL_STATUS_BALANCED when the
 *               layout is balanced; PL_STATUS_PAUSED, a block, or STALLED
 *               otherwise) or PL_STATUS_FULL; blocked and detail as that
 *               tick reported. Never MOVE_LIMIT or IN_FLIGHT: the last
 *               tick starts from a settled view.
 * @param ticks  optional: how many ticks emitted something (with max_moves
 *               1 and nothing to place, the number of moves).
 * @param diag   optional; names the bad element on error.
 * @return the sequence's length, or an error as pl_broker_plan(). On error
 *         nothing is written (not ticks either).
 *
 * It ends because every tick either places shards, each at most once, or
 * lowers the potentials described at the top of this header.
 */
PL_API int pl_broker_dry_run(pl_view *v, const pl_broker_config *cfg, pl_action *out, uint32_t cap,
			     pl_plan_info *info, uint32_t *ticks, pl_diag *diag);

/* pl_broker_stall.reason: why a draining member's replica cannot leave it. */
#define PL_BROKER_STALL_HELD 1u  /**< every eligible member holds a replica of the shard already */
#define PL_BROKER_STALL_ZONES 2u /**< every other eligible member would lower the shard's zone count (or,
				  *  of a majority stream, raise its zone excess) */
#define PL_BROKER_STALL_CAPS 3u  /**< every member that keeps the zone count is at its max_shards */

/** A replica on a draining member with no member it may go to. */
typedef struct pl_broker_stall {
	uint32_t shard;    /**< index into shards */
	uint32_t member;   /**< the draining member that holds it */
	uint32_t reason;   /**< PL_BROKER_STALL_* */
	uint32_t reserved; /**< 0 */
} pl_broker_stall;

/**
 * pl_broker_drain_stalls - every replica a draining member holds that a
 * drain cannot move, and why: the entries behind PL_STATUS_DRAIN_STALLED
 * (and a leadership whose hand-off stalls for the same reasons). A replica
 * can go to an eligible member that holds none of the shard, keeps its zone
 * count and has room under max_shards; when none can take it the reason is
 * the first that holds of: every eligible member holds the shard (HELD),
 * none keeps the zone count (ZONES), all that keep it are at their caps
 * (CAPS). Read-only: the view is not changed.
 *
 * @param v      the view (after the moves applied to it, as it is now).
 * @param out    receives the entries, shards in key order, members in id
 *               order; may be NULL when cap is 0.
 * @param cap    room in out.
 * @param total  optional: how many entries there are, even past cap.
 * @param diag   optional; names the bad argument on error.
 * @return how many entries were written, or PL_E_INVAL (NULL or dropped
 *         view: PL_ELEM_ARGUMENT 1; NULL out with cap > 0: 2). On error
 *         nothing is written, not total either. Cost: one walk over the
 *         shards, O(eligible members) for each replica on a draining member.
 */
PL_API int pl_broker_drain_stalls(const pl_view *v, pl_broker_stall *out, uint32_t cap, uint32_t *total,
				  pl_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* PLACEMENT_BROKER_H */
