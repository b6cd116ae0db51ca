/*
 * placement/fleet.h - fleet ownership with overrides, fair-share count
 * balance, lag moves and return home; the override document.
 *
 * In a fleet there is no leader process: every member runs the same code on
 * the same snapshot and decides only for itself ("self"). These calls make
 * the independent decisions agree: each member computes the same assignment
 * from the same snapshot and carries out only its own part of it.
 *
 * Words. A member is live unless PL_MEMBER_DOWN is set, and eligible when it
 * is live and not PL_MEMBER_DRAINING. "The live members" of the fleet rules
 * are the eligible ones: a draining member owns nothing and takes nothing.
 *
 * Ownership. The ring home of a shard is its rendezvous top-1 over the
 * eligible members (placement/view.h, pl_view_home()). The owner is the
 * member its override names, when it has one and that member is eligible,
 * else its ring home. An override on a down or draining member (or on a
 * member that left: list it as PL_MEMBER_DOWN while the document still
 * names it) is void. An override on a lagging member stays in force: lag
 * moves take shards off a lagging member one cooldown at a time.
 *
 * Share and floor. For member m, share(m) = ceil(shards * w(m) / W) and
 * floor(m) = floor(shards * w(m) / W), W the eligible weight; with equal
 * weights ceil(shards / live) and floor(shards / live).
 *
 * One decision, pl_fleet_decide(), for self, in this order:
 *  1. Clean-up (always, moves nothing): self drops, as the ring home that
 *     owns the shard either way, every void override (reason
 *     VOID_OVERRIDE) and every override that names self as the shard's own
 *     ring home (REDUNDANT_OVERRIDE), so overrides do not pile up.
 *  2. Nothing more when self is not eligible (status NOT_LIVE) or its move
 *     cooldown runs: now - last_move < cooldown, or now < last_move
 *     (COOLDOWN). At most moves_per_decision moves follow.
 *  3. Lagging self: lag moves. Its busiest owned shard (pl_shard.load; ties
 *     to the smaller key) goes to the least loaded eligible member that is
 *     not lagging (pl_member.load; ties to the smaller id; a member flagged
 *     PL_MEMBER_UNMEASURED never wins on missing data; with more than one
 *     move, loads already handed to a member in this call count as its
 *     own): an override of origin lag (reason LAG), or a drop of self's
 *     override when that member is the shard's ring home. No such member:
 *     STALLED. Load is not size: the fleet reads pl_shard.load and
 *     pl_member.load (a rate such as lag or traffic, work per unit time)
 *     and never the snapshot's shard_bytes or member_capacity (data at
 *     rest, the bytes a move copies), which only the broker policy reads;
 *     one snapshot can carry both.
 *  4. Not lagging: count balance (count_balance on).
 *     What a member counts. A lag override is over when neither the member
 *     holding it nor the shard's ring home lags: the shard is on its way
 *     home. Each member counts c(m) = owned - held for others + its own
 *     shards held by others, over the lag overrides that are over: the fleet
 *     as it will be once they are home. No age enters c, so every member
 *     computes the same counts whatever its clock.
 *     Movers are the eligible members that are not lagging and count more
 *     than their share, ranked by id; each offers u = min(c - share,
 *     moves_per_decision, movable) moves, where movable counts its shards
 *     with no lag override (a count move never takes a lag override: it
 *     never undoes a lag move, nor gives away a shard about to go home).
 *     Targets are the eligible members that are not lagging and both own
 *     and count less than their share, in id order; each offers share -
 *     max(owned, c) places, listed target by target (so a holder of shards
 *     about to leave is no target until they have left, and nobody is ever
 *     pushed past its share by what it owns). The k-th move of the ranking
 *     takes the k-th place: a member takes its u consecutive places, and one
 *     ranked past the last place waits (WAITING). Every member computes the
 *     same ranking and places from the same snapshot, so independent
 *     deciders never push a target past its share.
 *     With the spread pass on, while some target is below its floor, only
 *     places below the floor are offered (floor - max(owned, c) each); and
 *     when no mover offers a move, members counting above their floor (u =
 *     min(c - floor, moves, movable)) hand shards to the targets below the
 *     floor, ranked and placed the same way (reason SPREAD). With it off
 *     (the seed's pass), only the count pass.
 *     The shard a move takes is the first of: (0) one of self's own shards
 *     the target holds through a lag override that is over (the target keeps
 *     it: the override becomes a count one, no owner changes; tier
 *     PL_FLEET_PICK_KEEP); then among self's movable shards (a) one whose
 *     ring home is the target (the move drops self's count override); (b)
 *     one whose next rendezvous choice is the target: the best-scoring
 *     eligible member other than self and the ring home; (c) one of self's
 *     count overrides (replacing it keeps the document from growing); (d)
 *     any; each in key order. A shard of self held by another member is
 *     never handed on to the target: its holder's count did not change with
 *     it, so the holder could become a target and be handed it back.
 *  5. Keep. When neither pass has a place and a move, the count (then the
 *     spread) keep pass: shards held through a lag override that is over, in
 *     key order, whose holder counts less than its share (floor) and whose
 *     ring home counts more: the holder keeps it, by count (tier KEEP, no
 *     owner changes), at most moves_per_decision per member and never past
 *     either's limit. The same assignment for every member; the home writes
 *     it.
 *  6. Returns, only when no count, spread or keep move is wanted anywhere:
 *     self takes back lag overrides that are over and homed at self, older
 *     than return_home_age by self's clock (now - since), oldest first (ties
 *     to the smaller key), while it stays within its share (reason
 *     RETURN_HOME, a drop). From one holder, one return per tick in all the
 *     fleet: its oldest lag override (since, then key; clock-free) whose home
 *     has room and may take it. A home counting above its share (or above its
 *     floor, with the spread pass) may take a shard back only from a holder
 *     counting at least that limit. Count overrides are never dropped by
 *     age. A drop removes the override and its origin.
 *
 * Why it terminates, and the bound. Let E be the sum over eligible members
 * of max(0, c - share), D that of max(0, floor - c), and L the lag overrides
 * in force off their ring homes. Returns leave every c unchanged (the holder
 * owns one less and holds one less for others; the home owns one more and
 * has one less held elsewhere). A count, spread or keep move takes one from
 * a member counting above a limit and gives it to one counting below it,
 * neither crossing it, so E + D falls by at least one with every move; a
 * return consumes a lag override, which only a lagging member makes;
 * clean-up drops change no owner. So once no member lags and membership no
 * longer changes, the fleet emits at most E + D + L moves and returns, all
 * counted on the first snapshot after the last change, then nothing: no
 * flapping. Without lag overrides (L = 0, c = owned) every member ends
 * within [floor, share] in exactly max(E, D) moves with the spread pass on,
 * which is the minimum (each move changes one member's count by one on each
 * side), and E with it off.
 *
 * Back within bounds. When nothing more is emitted (the lag overrides old
 * enough), every member is within [floor, share] (with the spread pass on;
 * within its share with it off): a member over its share would give, or
 * hold a lag override whose home has room; one below the floor would be a
 * target of a member counting above its floor.
 *
 * No A -> B -> A. Once no member lags and membership is stable, no shard
 * moves from A to B and later back to A. A member that gives counts above a
 * limit and never below it after; one that receives counts below it and
 * never above it after (nobody crosses a limit, returns change no count).
 * So a count or spread move is never reversed by another; a shard that went
 * home by a return is given again only by its home, and a home that gives
 * after a return only does so where the return did not open the place (the
 * holder counts at least the limit, and is never a target) or not at all
 * (a home at or below every limit never gives); a kept shard changes no
 * owner. The fleet churn suite checks all of this tick by tick.
 *
 * Clocks. The plan (who moves, where, which lag overrides are on their way
 * home, which keeps and which returns may happen) reads no time: only the
 * override document and the flags. A member's clock decides when its own
 * cooldown has passed and when a lag override homed at it is old enough to
 * take back (at = its now). So members' clocks may disagree by any amount:
 * the rules above hold whatever the skew; a member whose clock runs behind
 * only takes its shards back later. The suite runs fleets whose members'
 * now differ by three return-home ages.
 *
 * Statuses. Once self has nothing more to do this tick, the word says what
 * the rules above will do next if nothing changes (no flag, membership or
 * config changes; clocks run on), read on the view as self leaves it (its
 * own actions applied; other members' of the same tick are not in it). The
 * first that holds:
 *  - LAGGING: an eligible member lags (lag moves follow, or it is stalled).
 *  - MOVING: the plan of steps 4 and 5 has a count or spread pass, or the
 *    keep pass has a keep: a count, spread or keep move is wanted, other
 *    members' or self's in a later decision; its mover makes it once its
 *    cooldown has passed.
 *  - RETURNING_HOME: no such move, and a return is planned (step 6): a lag
 *    override that is over, whose home has room and may take it back; it
 *    goes home once it is return_home_age old by its home's clock and the
 *    home's cooldown has passed. Never with return_home_age PL_FLEET_NEVER.
 *  - BALANCED: none of the above, and every eligible member owns within
 *    [floor, share]: no decision moves anything again.
 *  - UNEVEN: none of the above, and some eligible member owns outside
 *    [floor, share]: no rule of this configuration moves a shard again
 *    (the spread pass or count balance off; or lag overrides that are over
 *    whose homes have no room, so none goes home and no count move may
 *    take them).
 * With none of the first three, no decision moves a shard, so nothing
 * changes and the word stays until something does. Self's own words come
 * first: COOLDOWN (it has a move, a keep or a return to make and its
 * cooldown runs), WAITING (it offers count or spread moves but is ranked
 * past the last place), NOT_LIVE, STALLED (it lags and no member can take
 * its busiest shard) and FULL.
 *
 * Requirements on the caller. Every member must use the same config, apart
 * from self, now and last_move, on the same snapshot; apply the actions to
 * the override document (pl_fleet_doc_format() writes a view's overrides);
 * and record its last move (an action with a reason other than
 * VOID_OVERRIDE or REDUNDANT_OVERRIDE) as last_move.
 */
#ifndef PLACEMENT_FLEET_H
#define PLACEMENT_FLEET_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "snapshot.h"
#include "view.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PL_FLEET_CONFIG_VERSION 1u

/** A time that never comes: last_move when self never moved; return_home_age
 * to switch return home off. */
#define PL_FLEET_NEVER UINT64_C(0xFFFFFFFFFFFFFFFF)

/* pl_action.tier of a count or spread move: why that shard was chosen. */
#define PL_FLEET_PICK_HOME 1u       /**< its ring home is the target */
#define PL_FLEET_PICK_NEXT 2u       /**< the target is its next rendezvous choice */
#define PL_FLEET_PICK_OVERRIDE 3u   /**< one of self's count overrides, key order */
#define PL_FLEET_PICK_ANY 4u        /**< key order */
#define PL_FLEET_PICK_KEEP 5u       /**< self's shard the target holds through a lag override
				     *  after the lag: the target keeps it, by count */

/**
 * One member's decision settings. Times are in the caller's units (the
 * defaults assume seconds, as the seed fleet did); the library reads no
 * clock. Start from PL_FLEET_CONFIG_INIT or pl_fleet_config_init(). A diag
 * for a bad field names it with PL_ELEM_CONFIG and the index in brackets.
 */
typedef struct pl_fleet_config {
	uint32_t version;            /**< [0] PL_FLEET_CONFIG_VERSION */
	uint32_t self;               /**< [1] the deciding member's index */
	uint64_t now;                /**< [2] the caller's clock */
	uint64_t last_move;          /**< [3] self's last move, or PL_FLEET_NEVER (default) */
	uint64_t cooldown;           /**< [4] time between two moves of self; default 5 */
	uint32_t moves_per_decision; /**< [5] moves per decision, >= 1; default 1 */
	uint32_t spread;             /**< [6] 1 (default): close the spread; 0: the seed's pass */
	uint64_t return_home_age;    /**< [7] age of a lag override before it may go home; default 300 */
	uint32_t count_balance;      /**< [8] 1 (default): count balance; 0: lag moves only */
	uint32_t reserved;           /**< [9] must be 0 */
} pl_fleet_config;

#define PL_FLEET_CONFIG_INIT {PL_FLEET_CONFIG_VERSION, 0u, 0u, PL_FLEET_NEVER, 5u, 1u, 1u, 300u, 1u, 0u}

/**
 * pl_fleet_config_init - set a config to its defaults, the same bytes as
 * PL_FLEET_CONFIG_INIT.
 * @return 0, or PL_E_INVAL for NULL.
 */
PL_API int pl_fleet_config_init(pl_fleet_config *cfg);

/**
 * pl_fleet_owner - the member that owns a shard now: its override's member
 * when it has one and that member is eligible, else its ring home.
 *
 * @param v      the view (const: nothing is cached).
 * @param shard  index into the snapshot's shards.
 * @return the member index; PL_E_INVAL (NULL view), PL_E_SHARD_RANGE, or
 *         PL_E_NO_ELIGIBLE when the owner would be a ring home and no member
 *         is eligible. O(1) once a fleet call filled the view's ring homes,
 *         else O(eligible members).
 */
PL_API int pl_fleet_owner(const pl_view *v, uint32_t shard);

/**
 * pl_fleet_owners - the owner of every shard, out[i] for shard index i.
 *
 * Fills the view's ring homes once (O(shards x eligible members), kept for
 * later fleet calls on the view, and for copies made after).
 *
 * @param v     the view.
 * @param out   receives n_shards member indices.
 * @param cap   its length; less than n_shards is PL_E_NOSPACE.
 * @param diag  optional; names the bad argument.
 * @return n_shards, or PL_E_INVAL (NULL view, NULL out with cap > 0;
 *         PL_ELEM_ARGUMENT 1 or 2), PL_E_NOSPACE (argument 3),
 *         PL_E_NO_ELIGIBLE (shards but no eligible member). On error nothing
 *         is written.
 */
PL_API int pl_fleet_owners(pl_view *v, uint32_t *out, uint32_t cap, pl_diag *diag);

/**
 * pl_fleet_decide - one member's decision for this tick (see the top of this
 * header for the rules and their order).
 *
 * Every action is applied to the view as it is emitted, so the view then
 * holds the overrides as self leaves them. Actions are SET_OVERRIDE (to =
 * the new owner, from = self, origin lag or count, at = now) and
 * DROP_OVERRIDE (from = the override's member, to = the ring home that owns
 * the shard after it, origin = the dropped origin, at = the override's age:
 * now - since), with the numbers that decided them:
 * scope PL_SCOPE_OWNED, from_count and to_count owned before the move,
 * floor and ceiling of the receiving member, share of self, total = shards,
 * tier = PL_FLEET_PICK_* for count and spread moves, load for lag moves.
 * A keep (tier PL_FLEET_PICK_KEEP) is a SET_OVERRIDE of origin count with
 * from = to = the holder, from_count = what self counts, to_count = what
 * the holder counts, share = self's limit in that pass (share for reason
 * COUNT, floor for SPREAD). From_count of a count or spread move is what
 * self counts, and its load what self owns (pl_fleet_owners(), as
 * placement stats shows it; the two differ by the lag overrides that are
 * over, counted at their ring homes).
 *
 * @param v     the view of this tick's snapshot.
 * @param cfg   the config; cfg->self names the deciding member.
 * @param out   where to write the actions; may be NULL when cap is 0.
 * @param cap   its length. A full array is not an error: the call stops,
 *              info->status is PL_STATUS_FULL and wanted = written + 1; the
 *              view holds exactly the written actions.
 * @param info  optional: written, wanted, status (FULL, COOLDOWN, WAITING,
 *              NOT_LIVE, STALLED, LAGGING, MOVING, RETURNING_HOME, BALANCED,
 *              UNEVEN: see Statuses above), detail (PL_NONE) and blocked
 *              (how many movers of the fleet wait for a place this tick).
 * @param diag  optional; names the bad argument or config field.
 * @return how many actions were written (0 or more), or: PL_E_INVAL (NULL
 *         view, config, or out with cap > 0: PL_ELEM_ARGUMENT 1, 2, 3);
 *         PL_E_VERSION (PL_ELEM_CONFIG 0); PL_E_MEMBER_RANGE (self,
 *         PL_ELEM_CONFIG 1); PL_E_CONFIG (moves_per_decision 0, spread or
 *         count_balance not 0 or 1, reserved not 0: PL_ELEM_CONFIG 5, 6, 8,
 *         9); PL_E_NO_ELIGIBLE (shards but no eligible member). On error
 *         nothing is written: not out, not info, not the view.
 *
 * Cost: the first decision on a fresh view computes every shard's ring home
 * (O(shards x eligible members), as pl_fleet_owners()), silently; later
 * calls on the same view, and on copies of it (pl_view_copy()), reuse them.
 * Every member of a fleet decides on the same snapshot, so build one view,
 * fill its homes once (pl_fleet_owners(), or a first decision), and give
 * each member a pl_view_copy() of it: one O(shards x members) pass per tick
 * instead of one per member. Then O(members + shards) per move, plus
 * O(eligible members) per shard self examines for a next-choice preference.
 * No allocation.
 */
PL_API int pl_fleet_decide(pl_view *v, const pl_fleet_config *cfg, pl_action *out, uint32_t cap,
			   pl_plan_info *info, pl_diag *diag);

/*
 * The override document: the fleet's record of which shards live off their
 * ring home, kept by the caller as text, version 1:
 *
 *     placement-overrides 1
 *     # comment
 *     <shard key> <member id> <since> [<origin>]
 *
 * One override per line; fields separated by spaces or tabs; lines end in LF
 * or CRLF; blank lines and lines starting with '#' are ignored. The first
 * other line is the header. since is a decimal number (the caller's clock
 * when the override was written). origin is "lag" or "count" (the seed's
 * "counted" set): a line without one reads as lag, so a document written
 * before origins existed keeps its meaning. Keys and ids are bytes: a byte
 * that is '%', '#', below '!' or above '~' is written as %XX (two hex
 * digits). An empty document (or only blank and comment lines) holds no
 * overrides. pl_fleet_doc_format() writes the overrides in key order.
 */
#define PL_FLEET_DOC_VERSION 1u

/**
 * pl_fleet_doc_read - read an override document into overrides for the
 * view's snapshot (shard and member indices looked up by key and id).
 *
 * A line naming a shard or a member the view does not know is skipped (the
 * shard or member is gone; the next document written from the view no longer
 * holds it) and counted in *skipped. Two lines naming one shard are not
 * detected here: pl_view_init() refuses them (PL_E_DUP_OVERRIDE, naming the
 * two out[] indices, which are in line order).
 *
 * @param v        a view with the snapshot's members and shards (its
 *                 overrides do not matter).
 * @param text     the document; may be NULL when len is 0.
 * @param len      its length in bytes.
 * @param out      receives the overrides, in line order.
 * @param cap      its length; fewer than needed is PL_E_NOSPACE.
 * @param skipped  optional: how many lines were skipped.
 * @param diag     optional; on a document error: kind PL_ELEM_ARGUMENT,
 *                 index 2 (the text), other = the 1-based line number.
 * @return how many overrides were written, or: PL_E_INVAL (NULL view, text
 *         or out where needed; argument 1, 2, 4); PL_E_DOC_VERSION (an
 *         unknown header version); PL_E_DOC_SYNTAX (a missing header, a
 *         missing or extra field, a bad %XX escape, since not a number);
 *         PL_E_ORIGIN (origin neither lag nor count); PL_E_LENGTH (a key or
 *         id past PL_MAX_ID_LEN bytes); PL_E_NOSPACE (argument 5). On error
 *         nothing is written, *skipped included. O(lines x log n).
 */
PL_API int pl_fleet_doc_read(const pl_view *v, const char *text, size_t len, pl_override *out, uint32_t cap,
			     uint32_t *skipped, pl_diag *diag);

/**
 * pl_fleet_doc_format - write the overrides in force in a view (the
 * snapshot's, with every action applied since) as a document, one line per
 * shard in key order, with its origin.
 *
 * @param v    the view.
 * @param buf  where to write, NUL-terminated; may be NULL when cap is 0.
 * @param cap  its size.
 * @return the length of the whole document (without the NUL), as snprintf
 *         does, even when it was cut to fit: call with cap 0 to size the
 *         buffer. PL_E_INVAL for a NULL view or a NULL buf with cap > 0;
 *         PL_E_LIMIT when the document would pass INT_MAX bytes. On error buf
 *         is untouched.
 */
PL_API int pl_fleet_doc_format(const pl_view *v, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* PLACEMENT_FLEET_H */
