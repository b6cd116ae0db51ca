/*
 * placement/region.h - replica sets that grow onto joining members, and
 * primaries that follow.
 *
 * Here a shard is a region: its replicas are its peer set and its leader is
 * its primary. A control plane calls pl_region_plan() once per tick with a
 * view of what it knows; the call returns a short list of actions, each
 * already applied to the view, and names every region it wanted to act on
 * and could not, with the reason.
 *
 * Words
 *  - live member: not PL_MEMBER_DOWN. Live peers of a region are its
 *    replicas on live members; a replica on a down member is not a copy
 *    anyone can read.
 *  - effective replication factor R = min(configured RF, live members): a
 *    one-member cluster owns its regions with one peer, not an impossible
 *    peer set of three.
 *  - a member may receive (a peer or a primary) when it is live, not
 *    draining, not lagging, below its max_shards (0 = no cap) when it
 *    receives a copy, and ready for the region: its map_version is at least
 *    the region's epoch (pl_shard.epoch). A member behind is not ready: it is
 *    never a destination, and the next candidate is used instead.
 *  - a region is placeable unless PL_SHARD_NOT_IDEMPOTENT (a rollup: a
 *    repeated copy would sum twice) or PL_SHARD_TRANSFER_DEBT is set. Every
 *    step skips the others entirely: they are never placed, grown, moved or
 *    handed a new primary. A region with a move in flight (a leader move, or
 *    a replica copy staged and not committed: the snapshot's copies, counted
 *    as finished), or acted on since the view was built or last settled, is
 *    busy and skipped too: at most one action per region per call, since
 *    each action changes the region's epoch and a second one would fail its
 *    compare-and-set; and a region whose copy is in flight is never staged
 *    again, onto that member or another, until the copy leaves the snapshot
 *    (committed: a peer; failed: the region may grow again);
 *    pl_region_check_add_peer() refuses an add on it (PL_E_MOVE_IN_FLIGHT).
 *  - c(m) = replicas member m holds, L(m) = primaries it leads, counted over
 *    every region with this call's earlier actions applied. Counts are not
 *    weighted: a member's weight only enters the rendezvous tie-break.
 *  - newest: greatest pl_member.joined_at; equal joined_at break toward the
 *    smaller member id.
 *
 * The steps. One call runs them in this order over the regions in key order;
 * each action is applied to the view at once, so every later decision, for
 * the same step and region or a later one, sees it.
 *  1. Grow and claim. A region with a live peer but no live primary gets one
 *     (SET_LEADER, reason NO_PRIMARY): among its peers that may receive, the
 *     one leading the fewest primaries, then the newest. Otherwise (or when
 *     none may), a region with fewer than R live peers gains one (ADD_REPLICA,
 *     reason UNDER_RF, stage first): among the members that may receive, a
 *     member in a zone none of its live peers is in, then the member holding
 *     the fewest replicas, then the highest rendezvous score for the region
 *     (the score pl_view_home() ranks by; ties to the smaller id). A region
 *     whose listed peers are all down is not grown (there is nothing to copy
 *     from); a new region (no peers) is.
 *     With add_peer_proposals off, no ADD_REPLICA is emitted.
 *     A region step 1 cannot serve is reported once, with what it wanted
 *     (a primary when it has no live one, else a peer: a region whose
 *     listed peers are all down, or that has none yet, wants a primary
 *     too, since a peer it gains would lead, and one of its down peers
 *     coming back would be claimed) and what blocked it:
 *     for a region without a live primary, the claim's blocker when a peer
 *     that may lead is behind (NOT_READY, that peer) or when the region is
 *     not under R; else the blocker of the peer it would grow onto, which
 *     would lead once added (NOT_READY with that member when the only
 *     members it could grow onto are behind, not NO_MEMBER).
 *  2. Fill an idle member, only when step 1 leaves no region it is growing or
 *     waiting on: none is under R and busy (in flight, or acted on in this
 *     call) or held back by add_peer_proposals off (an add would serve it,
 *     and a move now would copy data the add copies again). Regions skipped
 *     (not placeable) or stalled do not hold step 2 up: one lagging member
 *     or one lost region never stops the whole cluster.
 *     The fair share is F = T / n, rounded down, for T live peers over all
 *     regions and n live members. A member that may receive and holds fewer
 *     than F replicas takes, newest member first, one replica at a time from
 *     the member holding the most (more than F) that has a region it can
 *     take (MOVE_REPLICA, reason IDLE_MEMBER, stage first): a region the
 *     receiver holds no peer of, is ready for, whose zone count does not
 *     drop. Among equally full givers and of the giver's regions, in order
 *     of the action's tier: 1 a non-primary peer whose move adds a zone,
 *     2 a non-primary peer, 3 the primary's peer adding a zone, 4 the
 *     primary's peer (the primary moves with it); then the giver with the
 *     smaller id; then key order. It goes on while it is below F.
 *  3. Primaries follow the newest peer. A region whose newest peer that may
 *     receive (its peers that are not ready are passed over) is not its
 *     primary hands the primary to it (MOVE_LEADER, reason NEWEST_PEER) while
 *     that peer leads strictly fewer primaries than the primary's member. The
 *     count is read after every earlier action, so one joiner is never handed
 *     every region at once. Of the regions the rule applies to, the one whose
 *     primary's member leads the most goes first, then the one whose newest
 *     peer leads the fewest, then key order: the members leading the first
 *     keys are not drained by every joiner while the others keep theirs.
 *  4. Load (off by default). At most one MOVE_LEADER per call, reason LOAD:
 *     from a primary p to a peer q that may receive, when both are measured
 *     (an unmeasured member, PL_MEMBER_UNMEASURED, never wins or loses a
 *     comparison on missing data) and q's load is clearly less:
 *     100 * load(q) < (100 - load_threshold) * load(p); and step 3's count
 *     rule holds before and after: L(q) < L(p) before, L(q) + 1 <= L(p) - 1
 *     after, and step 3 would not move the region's primary either before or
 *     after (by construction: step 3 has run until its rule held for no idle
 *     region, and then L(newest) >= L(p) >= L(q) + 2). A load move may still
 *     lower p's count enough to open step 3 for another region: step 5 runs
 *     step 3's rule again first. Step 5 then evens the counts out: a load
 *     move is the first of a call's hand-offs, chosen by load. Of all such
 *     moves, the one with the largest load difference, then the first
 *     region in key order; q is the least loaded such peer, then the one
 *     leading fewer primaries, then the smaller id.
 *  5. Primaries even. Step 3's rule runs again until it holds for no idle
 *     region (so a joiner still takes its primaries first); then, while
 *     there is one, a chain of hand-offs (MOVE_LEADER, reason PRIMARY_SKEW;
 *     no data copied) runs from a member s leading h or more primaries to
 *     a member t leading h - 2 or fewer: idle placeable regions k1 .. kj,
 *     k1 led by s, each handing its primary to a peer that may receive and
 *     is ready, each next one led by the member the last handed to, kj
 *     handing to t, every member in between leading exactly h - 1. After
 *     it s leads one fewer, t one more and the others as many, so
 *     sum(L(m)^2) falls by 2 (L(s) - L(t) - 1), at least 2. One hand-off
 *     (j = 1) is the chain from a member to a peer leading two or more
 *     fewer; a longer one reaches members that share no region. Then step
 *     3's rule again, and the next chain. Chosen: the greatest h (the
 *     members leading the most give first), then the fewest hand-offs,
 *     then t leading the fewest, then t's region first in key order, then
 *     t's smaller id; each member on the way is reached through the first
 *     region in key order that reaches it. A chain has at most max_actions
 *     hand-offs and is written whole, from t's end (t takes first, and no
 *     member but t ever leads more than before the chain), or not at all:
 *     one that does not fit stops the call as an action that does not fit
 *     does.
 *     It never undoes step 3: with the counts a chain leaves, step 3's rule
 *     holds on none of its regions (each taker then leads h - 1 or fewer;
 *     each giver h - 1 or more; a newest peer that is neither led no fewer
 *     than the giver before, and is not t, so still h - 1 or more).
 *     What it guarantees. A call that ends without reaching a cap leaves
 *     no such chain of at most max_actions hand-offs among the idle
 *     regions. Any sequence of hand-offs that lowers sum(L(m)^2) holds one,
 *     no longer (end it at the first member leading two or more fewer than
 *     its start, and begin it at the last member before that leading as
 *     many as the start or more), and a shortest one meets each member
 *     once; so when max_actions is at least the live
 *     members less one, no way of keeping or handing on each idle
 *     placeable region's primary (with a live primary) to one of its peers
 *     that may receive and is ready, the other regions' primaries counted
 *     where they are, has a smaller sum(L(m)^2). Such an assignment is the
 *     most even the peer sets allow: whenever some such way puts every
 *     live member within one primary of every other, the primaries end
 *     within one. A member that may not receive (draining, lagging, behind
 *     the region) only gives; a down member's regions do not move here.
 *
 * Why repeated calls stop emitting (termination by construction). Take a
 * snapshot whose members, flags, map versions and loads no longer change,
 * and a caller that carries out every action before the next call
 * (pl_view_apply()/pl_view_settle(), or a snapshot rebuilt from the
 * results). Let n be the live members, R the effective RF, A0 = sum over
 * placeable regions of max(0, R - live peers), F the fair share and D0 =
 * sum over live members of max(0, F - c(m)), all in the first snapshot, N
 * its regions. Then:
 *  - claims: at most one per region (live primaries stay live and every
 *    handoff goes to a live member), so at most N for N regions;
 *  - adds: each raises one region's live peers toward R and nothing lowers
 *    them (moves replace a live peer by a live one), so at most A0;
 *  - idle-member moves: each lowers D by exactly 1 (the receiver is below F,
 *    the giver stays at F or above); only an add can raise D, by raising F,
 *    at most n times per n adds, so at most D0 + A0 + n - 1 (D0 when A0 = 0);
 *    let M be this bound;
 *  - newest-peer moves: after one, the region's primary is its newest peer
 *    and stays so until another action changes the region's peers or
 *    primary, so at most N + A0 + M, plus one for each load move and each
 *    hand-off of step 5;
 *  - load moves and chains of hand-offs: each lowers sum(L(m)^2) by at
 *    least 2, newest-peer moves never raise it (the taker led fewer), and a
 *    claim or an idle move raises it by at most 2N + 1, so at most
 *    Q = (N^2 + (N + M) * (2N + 1)) / 2 of them together; a chain meets a
 *    member once, so it has at most n - 1 hand-offs.
 * So at most B = 2N + 2 * A0 + 2 * M + 2 * max(1, n - 1) * Q actions are
 * ever emitted (each load move or hand-off, and the newest-peer move it may
 * allow). As a call that emits nothing leaves the view as it found it, at
 * most B + 1 calls reach one that emits nothing, whatever the caps. There
 * is no oscillation:
 * every load move and chain lowers sum(L(m)^2), every newest-peer move
 * leaves it no higher and leaves one more region led by its newest peer,
 * so the pair (sum(L(m)^2), regions not led by their newest ready peer)
 * falls with each, and steps 3, 4 and 5 never take turns forever. A
 * primary may still go back to a member it left (A -> B -> A) once the
 * counts have changed: step 3 may hand a joiner more than the even spread
 * leaves it, and what the joiner gives back can only be what it took.
 * A configured-RF change, a join or a leave restarts the count from the
 * new snapshot. The bounds are what the property tests and the fuzz
 * harness check.
 *
 * What it does not do: remove peers from a region above R (when a member
 * comes back), or peers on down members (the caller's heal path); balance
 * bytes other than through step 4's member loads; weigh primaries (step 5
 * counts them, as step 3 does).
 *
 * Deterministic: the same snapshot content gives the same actions whatever
 * the order of its arrays (members, regions and a region's peers are walked
 * in canonical order). Nothing is allocated; no floating point.
 */
#ifndef PLACEMENT_REGION_H
#define PLACEMENT_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "snapshot.h"
#include "view.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PL_REGION_CONFIG_VERSION 1u

/**
 * How the region policy runs. Start from PL_REGION_CONFIG_INIT or
 * pl_region_config_init(). A bad field is PL_E_CONFIG with diag->kind
 * PL_ELEM_CONFIG and diag->index its position below (0 = version).
 */
typedef struct pl_region_config {
	uint32_t version;            /**< 0: PL_REGION_CONFIG_VERSION */
	uint32_t replication_factor; /**< 1: peers wanted per region, 1..PL_MAX_REPLICAS; default 3 */
	uint32_t add_peer_proposals; /**< 2: 1 (default) or 0: off during a rolling upgrade, when
				       *  members on the old build cannot decode an add-peer op */
	uint32_t load_balance;       /**< 3: 0 (default) or 1: step 4, primaries toward less load */
	uint32_t load_threshold;     /**< 4: percent, 1..99; default 25: q's load must be below
				       *  p's by more than this share of p's */
	uint32_t max_actions;        /**< 5: most actions one call emits, >= 1; default 16; also
				       *  the most hand-offs of a chain step 5 seeks */
} pl_region_config;

#define PL_REGION_CONFIG_INIT {PL_REGION_CONFIG_VERSION, 3u, 1u, 0u, 25u, 16u}

/**
 * pl_region_config_init - set cfg to the defaults, the same bytes as
 * PL_REGION_CONFIG_INIT.
 * @return 0, or PL_E_INVAL for NULL.
 */
PL_API int pl_region_config_init(pl_region_config *cfg);

/* pl_region_stall.reason: why a region the call wanted to act on was not. */
#define PL_REGION_STALL_NOT_READY 1u     /**< every member that could take it is behind the
					   *  region's epoch; member = the best of them */
#define PL_REGION_STALL_NO_MEMBER 2u     /**< no member may take it: each is down, draining,
					   *  lagging, at max_shards or already a peer */
#define PL_REGION_STALL_FULL 3u          /**< its peer list holds PL_MAX_REPLICAS entries,
					   *  some on down members */
#define PL_REGION_STALL_NO_SOURCE 4u     /**< every listed peer is down: nothing to copy from */
#define PL_REGION_STALL_PROPOSALS_OFF 5u /**< held back: add-peer proposals are off */

/* pl_region_stall.wanted: what the region was waiting for. */
#define PL_REGION_WANT_PRIMARY 1u /**< a live primary (step 1: it has none) */
#define PL_REGION_WANT_PEER 2u    /**< a peer: added (step 1) or moved onto an idle member (step 2) */

/** A region the call wanted to act on and could not. */
typedef struct pl_region_stall {
	uint32_t shard;  /**< the region's index */
	uint32_t reason; /**< PL_REGION_STALL_*: what blocked it */
	uint32_t step;   /**< 1 (a primary or a peer wanted) or 2 (an idle member could take it) */
	uint32_t member; /**< NOT_READY: the member that would have been chosen; step 2:
			  *  the idle member; else PL_NONE */
	uint32_t wanted; /**< PL_REGION_WANT_PRIMARY or PL_REGION_WANT_PEER */
} pl_region_stall;

/**
 * pl_region_stall_name - "not-ready", "no-member", "full", "no-source",
 * "proposals-off"; "unknown" otherwise. A static string.
 */
PL_API const char *pl_region_stall_name(uint32_t reason);

/**
 * pl_region_effective_rf - the effective replication factor,
 * min(cfg->replication_factor, live members).
 *
 * @return R (0 when no member is live), or PL_E_INVAL (NULL v or cfg),
 *         PL_E_VERSION or PL_E_CONFIG (cfg, named in diag).
 */
PL_API int pl_region_effective_rf(const pl_view *v, const pl_region_config *cfg, pl_diag *diag);

/**
 * pl_region_check_add_peer - may `member` be added as a peer of `region`,
 * proposed against `expected_epoch`? The same rules every ADD_REPLICA the
 * policy emits passes, for an add-peer op a caller builds or applies itself.
 * Read against the view: its peer sets include actions applied to it.
 *
 * Checks, in this order, and returns the first that fails:
 *  PL_E_NOT_IDEMPOTENT   the region is a rollup (PL_SHARD_NOT_IDEMPOTENT);
 *  PL_E_TRANSFER_DEBT    it carries transfer debt (PL_SHARD_TRANSFER_DEBT);
 *  PL_E_EPOCH_STALE      expected_epoch is not the region's epoch in the
 *                        view: the proposal was made against another map.
 *                        Every ADD_REPLICA, MOVE_REPLICA, SET_LEADER and
 *                        MOVE_LEADER applied to the view advances the
 *                        region's epoch by one, as its commit would, so a
 *                        proposal read before a planned action is stale;
 *  PL_E_PEER_DUPLICATE   member already is a peer;
 *  PL_E_MEMBER_UNAVAILABLE  member is down, draining or lagging;
 *  PL_E_NOT_READY        member's map_version is behind the region's epoch;
 *  PL_E_MEMBER_FULL      member holds its max_shards replicas;
 *  PL_E_REPLICA_SET_FULL the region lists PL_MAX_REPLICAS peers;
 *  PL_E_REPLICA_ROOM     it lists as many as the view's replica room;
 *  PL_E_MOVE_IN_FLIGHT   it has a move in flight: a copy staged and not
 *                        committed (the snapshot's copies, or an
 *                        ADD_REPLICA or MOVE_REPLICA applied to the view
 *                        and not settled) or a primary move (moving_to, or
 *                        a MOVE_LEADER applied and not settled). A region
 *                        whose copy is in flight is staged again onto no
 *                        member, that one or another, until the copy
 *                        leaves the snapshot (or pl_view_settle()): its
 *                        commit changes the epoch, and a second copy of a
 *                        rollup would be summed twice.
 *
 * @param v               the view (read only).
 * @param region          index of the region (shard).
 * @param member          index of the member.
 * @param expected_epoch  the epoch the proposal was made against.
 * @param diag            optional; on failure names the region (PL_ELEM_SHARD)
 *                        or the member (PL_ELEM_MEMBER) at fault, or the
 *                        argument (PL_ELEM_ARGUMENT, from 1).
 * @return 0 when the add may go ahead; PL_E_INVAL (NULL v),
 *         PL_E_SHARD_RANGE, PL_E_MEMBER_RANGE, or a refusal above.
 */
PL_API int pl_region_check_add_peer(const pl_view *v, uint32_t region, uint32_t member,
				    uint64_t expected_epoch, pl_diag *diag);

/**
 * pl_region_plan - one tick of the region policy: steps 1 to 5 above.
 *
 * @param v           the view; every action written is applied to it.
 * @param cfg         the configuration.
 * @param out         receives up to cap actions; may be NULL when cap is 0.
 * @param cap         room in out.
 * @param info        optional: written, wanted, status, detail, blocked.
 * @param stalls      optional: receives up to stalls_cap regions it wanted to
 *                    act on and could not, in the order met (step 1 in key
 *                    order, then step 2); may be NULL when stalls_cap is 0.
 * @param stalls_cap  room in stalls.
 * @param diag        optional; on error names the bad argument or config field.
 * @return the number of actions written, or: PL_E_INVAL (NULL v, cfg, out
 *         with cap > 0, stalls with stalls_cap > 0: PL_ELEM_ARGUMENT, index
 *         1, 2, 3 or 6), PL_E_VERSION or PL_E_CONFIG (PL_ELEM_CONFIG, the
 *         field), PL_E_NO_ELIGIBLE (regions but no live, non-draining member:
 *         PL_ELEM_SNAPSHOT). On error nothing is written: not out, info,
 *         stalls nor the view.
 *
 * Stops at the first action that does not fit, or chain of step 5's
 * hand-offs that does not fit whole: status PL_STATUS_ACTION_CAP when
 * max_actions were written (or the chain would pass it), else
 * PL_STATUS_FULL when out is full (wanted = written + 1 in both; detail =
 * the region that did not fit, a chain's first written). The view then
 * holds exactly the written actions, and the stalls are those met before
 * the stop. Otherwise status is PL_STATUS_STALLED when a region
 * stalled (detail = the first), else PL_STATUS_PROPOSALS_OFF when an add
 * was held back (detail = the first such region), else PL_STATUS_BALANCED
 * (detail PL_NONE). info->blocked counts every stall met, even past
 * stalls_cap.
 *
 * The numbers each action carries (scope and counts before the action):
 *  - SET_LEADER, NO_PRIMARY: scope PRIMARIES; from = the down primary or
 *    PL_NONE; to_count = L(to); total = the region's live peers.
 *  - ADD_REPLICA, UNDER_RF: scope PEERS; to_count = live peers; total = R;
 *    ceiling = configured RF; share = c(to); tier 1 when to's zone is new
 *    to the region, else 2.
 *  - MOVE_REPLICA, IDLE_MEMBER: scope REPLICAS; from_count = c(from);
 *    to_count = c(to); share = F; total = T; tier 1..4 as in step 2.
 *  - MOVE_LEADER, NEWEST_PEER: scope PRIMARIES; from_count = L(from);
 *    to_count = L(to); at = to's joined_at.
 *  - MOVE_LEADER, LOAD: scope PRIMARIES; from_count, to_count as above;
 *    load = from's load; at = to's load; share = load_threshold.
 *  - MOVE_LEADER, PRIMARY_SKEW: scope PRIMARIES; from_count, to_count as
 *    above (the chain's hand-offs written before it applied); total = the
 *    chain's hand-offs; ceiling = L(s), floor = L(t), before the chain.
 * ADD_REPLICA and MOVE_REPLICA carry PL_ACTION_STAGE_FIRST: stage the copy
 * on `to`, then commit the peer; leader actions move no data and do not.
 *
 * Cost: O(regions x RF) per pass, plus O(members) for each region step 1
 * acts on or reports, plus, for each idle-member or newest-peer move, one
 * pass over the regions that stops at the first move nothing can beat (in a
 * join, after a few regions; at worst a full pass), plus, for each chain
 * step 5 seeks (one more than it writes): nothing more when every live
 * member leads within one of every member that may receive; else a pass
 * over the regions, and then, when some hand-off's giver leads two or more
 * more than some taker, for each primary count a live member leads from
 * the most a giver leads down to two above the fewest a taker leads,
 * O(members) and up to max_actions passes (one per hand-off of length; a
 * pass that reaches no new member ends the count): at worst
 * O(members x max_actions x regions x RF) a chain. max_actions bounds the
 * work of a call as well as its churn. No allocation: the search marks
 * members in the view's per-member scratch.
 */
PL_API int pl_region_plan(pl_view *v, const pl_region_config *cfg, pl_action *out, uint32_t cap,
			  pl_plan_info *info, pl_region_stall *stalls, uint32_t stalls_cap, pl_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* PLACEMENT_REGION_H */
