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
 *     STALLED.
 *  4. Not lagging: count balance (count_balance on).
 *     Movers are the eligible members that are not lagging and own more
 *     than their share, ranked by id; each offers u = min(owned - share,
 *     moves_per_decision, movable) moves, where movable counts its shards
 *     with no override or a count override in force (never a lag override:
 *     a count move never undoes a lag move). Targets are the eligible
 *     members that are not lagging and own less than their share, in id
 *     order; each offers share - owned places, listed target by target. The
 *     k-th move of the ranking takes the k-th place: a member takes its u
 *     consecutive places, and one ranked past the last place waits
 *     (WAITING). Every member computes the same ranking and places from the
 *     same snapshot, so independent deciders never push a target past its
 *     share.
 *     With the spread pass on, while some target owns less than its floor,
 *     only places below the floor are offered (floor - owned each), so every
 *     count move closes a deficit while one remains, whichever members act
 *     in a tick; and when no mover offers a move, members at the share that
 *     are above their floor (u = min(owned - floor, moves, movable)) hand
 *     shards to the targets below the floor, ranked and placed the same way
 *     (reason SPREAD). Every member then ends within [floor, share], in
 *     exactly max(sum of excess over the share, sum of deficit under the
 *     floor) moves, which is the minimum. With it off (the seed's pass),
 *     exactly the sum of excess over the share.
 *     The shard a move takes, among self's movable shards, is the first of:
 *     (a) one whose ring home is the target (the move drops self's count
 *     override); (b) one whose next rendezvous choice is the target: the
 *     best-scoring eligible member other than self and the ring home;
 *     (c) one of self's count overrides (replacing it keeps the document
 *     from growing); (d) any; each in key order.
 *  5. Not lagging, and the places above handed out: return home. Self takes
 *     back lag overrides off its ring home (reason RETURN_HOME, a drop)
 *     older than return_home_age (now - since), oldest first (ties to the
 *     smaller key), while it stays within its share counting the places
 *     given to it this tick, and only when the override's member is not
 *     lagging (a lagging member hands its shards on by lag moves; this way
 *     no shard is acted on by two members in one tick). Count overrides are
 *     never dropped by age. A drop removes the override and its origin.
 *
 * Why it terminates. Count and spread moves only go from above the share to
 * below it, or from above the floor to below it, so the sum of excess over
 * the share and of deficit under the floor falls by at least one with every
 * move; return home only takes a shard back within the share and consumes a
 * lag override, which only a lagging member makes; clean-up drops change no
 * owner. In a fleet with no lag and no membership change every member ends
 * within its share after sum(max(0, owned - share)) count moves (spread off)
 * and emits nothing after: no flapping.
 *
 * A known limit, inherited from the seed's rules. After a lag episode a
 * member can hold shards only through lag overrides whose ring homes sit at
 * their share: count balance never moves a lag-overridden shard (so a count
 * move never undoes a lag move), and return home only brings a shard back
 * within its home's share, so such a member can stay one or more above its
 * share while another stays below it (seen: 9/8/8/8/8/8/7/8 after a lag on
 * 8 members). The lag overrides go home as their homes gain room; the caller
 * can also drop them (pl_view_apply() with DROP_OVERRIDE) once the lag is
 * over.
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
 *
 * @param v     the view of this tick's snapshot.
 * @param cfg   the config; cfg->self names the deciding member.
 * @param out   where to write the actions; may be NULL when cap is 0.
 * @param cap   its length. A full array is not an error: the call stops,
 *              info->status is PL_STATUS_FULL and wanted = written + 1; the
 *              view holds exactly the written actions.
 * @param info  optional: written, wanted, status (BALANCED, FULL, COOLDOWN,
 *              WAITING, NOT_LIVE, STALLED), detail (PL_NONE) and blocked
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
 * Cost: the view's ring homes once (as pl_fleet_owners()), then O(members +
 * shards) per move, plus O(eligible members) per shard self examines for a
 * next-choice preference. No allocation.
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
