/*
 * placement/route.h - routing one request in a fleet: who owns the shard
 * now, and the one-hop forwarding decision.
 *
 * A member that does not own a shard answers a data-plane request for it
 * with 409 not-owner naming the owner. When the fleet publishes its
 * members' addresses, the member can instead forward the request once to
 * the owner, so a client behind a balancer that reaches a non-owner does not
 * pay a 409 and a replay. pl_route_decide() is that decision as a pure table
 * over the request's state; it is called once after the handler answered,
 * and, when it said forward, once more with the forward's outcome:
 *
 *   not a data-plane route                       serve the handler's answer
 *   the handler served (any answer but a 409     serve the handler's answer
 *     naming the owner; a 404 names none)
 *   already marked forwarded                     409 naming the owner
 *   the owner's address unknown                  409 naming the owner
 *   the body read past PL_ROUTE_BODY_LIMIT       409 naming the owner
 *   the body read in part                        409 naming the owner
 *   otherwise                                    forward once, marked: an
 *                                                unread body streams to the
 *                                                owner, a body read whole is
 *                                                sent from the frames read
 *   second call, the owner answered              relay its answer (status,
 *                                                headers, body), adding the
 *                                                owner as forwarded-to
 *   second call, refused before sending          409 naming the owner
 *   second call, failed after sending            503 forward_failed with
 *                                                Retry-After 1: the owner may
 *                                                have applied it, so the
 *                                                client must not replay it as
 *                                                new
 *
 * The rows are checked in this order and the first that matches decides.
 * A request marked forwarded is never forwarded again, whatever else holds:
 * one hop, no loops, even while two members disagree about the owner.
 */
#ifndef PLACEMENT_ROUTE_H
#define PLACEMENT_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"
#include "view.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A body read whole within this many bytes can be forwarded from its frames. */
#define PL_ROUTE_BODY_LIMIT 65536u

/* pl_route_request.answer: what the handler answered. */
#define PL_ROUTE_ANSWER_SERVED 0u    /**< anything but a 409 naming the owner */
#define PL_ROUTE_ANSWER_NOT_OWNER 1u /**< 409 not-owner naming the owner */

/* pl_route_request.body: how much of the request body the handler read. */
#define PL_ROUTE_BODY_UNREAD 0u     /**< none (or the request has none) */
#define PL_ROUTE_BODY_WHOLE 1u      /**< all of it, within PL_ROUTE_BODY_LIMIT */
#define PL_ROUTE_BODY_PAST_LIMIT 2u /**< more than PL_ROUTE_BODY_LIMIT */
#define PL_ROUTE_BODY_PARTIAL 3u    /**< part of it */

/* pl_route_request.outcome: on the second call, how the forward went. */
#define PL_ROUTE_OUTCOME_NONE 0u     /**< first call: nothing was forwarded */
#define PL_ROUTE_OUTCOME_ANSWERED 1u /**< the owner answered */
#define PL_ROUTE_OUTCOME_REFUSED 2u  /**< refused before the request was sent */
#define PL_ROUTE_OUTCOME_FAILED 3u   /**< failed after the request was sent */

#define PL_ROUTE_REQUEST_VERSION 1u

/**
 * The state of one request. Every field but version is 0 or 1, or one of
 * the values above. A diag for a bad field names it with PL_ELEM_CONFIG and
 * the index in brackets.
 */
typedef struct pl_route_request {
	uint32_t version;     /**< [0] PL_ROUTE_REQUEST_VERSION */
	uint32_t data_plane;  /**< [1] 1: a data-plane route (default) */
	uint32_t answer;      /**< [2] PL_ROUTE_ANSWER_* */
	uint32_t owner_known; /**< [3] 1: the trusted peer table holds the owner's address */
	uint32_t forwarded;   /**< [4] 1: the request is already marked forwarded */
	uint32_t body;        /**< [5] PL_ROUTE_BODY_* */
	uint32_t outcome;     /**< [6] PL_ROUTE_OUTCOME_* */
	uint32_t reserved;    /**< [7] must be 0 */
} pl_route_request;

#define PL_ROUTE_REQUEST_INIT {PL_ROUTE_REQUEST_VERSION, 1u, 0u, 0u, 0u, 0u, 0u, 0u}

/**
 * pl_route_request_init - set a request to its defaults (a data-plane
 * request the handler served), the same bytes as PL_ROUTE_REQUEST_INIT.
 * @return 0, or PL_E_INVAL for NULL.
 */
PL_API int pl_route_request_init(pl_route_request *req);

/* pl_route_verdict.verdict */
#define PL_ROUTE_SERVE 1u   /**< answer with the handler's answer as it is */
#define PL_ROUTE_FORWARD 2u /**< forward once to the owner, marked forwarded */
#define PL_ROUTE_RELAY 3u   /**< answer with the owner's answer, adding the owner as forwarded-to */
#define PL_ROUTE_REPLAY 4u  /**< answer 409 naming the owner to replay to */
#define PL_ROUTE_FAILED 5u  /**< answer 503 forward_failed with Retry-After */

/* pl_route_verdict.rule: the row of the table that decided. */
#define PL_ROUTE_RULE_NOT_DATA_PLANE 1u
#define PL_ROUTE_RULE_SERVED 2u
#define PL_ROUTE_RULE_ALREADY_FORWARDED 3u
#define PL_ROUTE_RULE_OWNER_UNKNOWN 4u
#define PL_ROUTE_RULE_BODY_PAST_LIMIT 5u
#define PL_ROUTE_RULE_BODY_PARTIAL 6u
#define PL_ROUTE_RULE_FORWARD 7u
#define PL_ROUTE_RULE_OWNER_ANSWERED 8u
#define PL_ROUTE_RULE_REFUSED 9u
#define PL_ROUTE_RULE_FAILED_AFTER_SEND 10u

/* pl_route_verdict.send_body: how a forward sends the body. */
#define PL_ROUTE_SEND_NONE 0u   /**< not a forward */
#define PL_ROUTE_SEND_STREAM 1u /**< stream the unread body to the owner */
#define PL_ROUTE_SEND_FRAMES 2u /**< send the frames the handler read */

/** What to do with the request. */
typedef struct pl_route_verdict {
	uint32_t verdict;     /**< PL_ROUTE_SERVE ... PL_ROUTE_FAILED */
	uint32_t rule;        /**< PL_ROUTE_RULE_*: the row that decided */
	uint32_t status;      /**< the HTTP status to answer: 409, 503, or 0 (the handler's or the owner's own) */
	uint32_t retry_after; /**< seconds of Retry-After with a 503 (1), else 0 */
	uint32_t mark;        /**< 1 with a forward: mark the request forwarded */
	uint32_t send_body;   /**< PL_ROUTE_SEND_* */
} pl_route_verdict;

/**
 * pl_route_decide - the one-hop forwarding decision for one request.
 *
 * @param req   the request's state; outcome NONE on the first call.
 * @param out   receives the verdict.
 * @param diag  optional; names the bad argument or field.
 * @return 0, or: PL_E_INVAL (NULL req or out: PL_ELEM_ARGUMENT 1, 2);
 *         PL_E_VERSION (PL_ELEM_CONFIG 0); PL_E_ROUTE_VALUE (a field that is
 *         not one of its values, reserved not 0: PL_ELEM_CONFIG 1 .. 7);
 *         PL_E_ROUTE_OUTCOME (an outcome for a request the table would not
 *         forward: PL_ELEM_CONFIG 6). On error out is untouched. A pure
 *         function of *req: no state, no clock, a few comparisons.
 */
PL_API int pl_route_decide(const pl_route_request *req, pl_route_verdict *out, pl_diag *diag);

/** The name of a rule ("already-forwarded"), "unknown" otherwise. */
PL_API const char *pl_route_rule_name(uint32_t rule);

/** Who owns a key's shard now. */
typedef struct pl_route_owner {
	uint32_t owner;   /**< member index of the owner: the peer to forward to */
	uint32_t home;    /**< member index of the key's ring home */
	uint32_t shard;   /**< the shard's index, or PL_NONE for a key the snapshot lacks */
	uint32_t is_self; /**< 1 when the owner is self */
} pl_route_owner;

/**
 * pl_route_lookup - who owns the shard with this key now, and whether self
 * is it. The owner is the shard's override member when it has one that is
 * eligible, else its ring home (placement/fleet.h); a key the snapshot does
 * not hold (a stream being created) is owned by its ring home. The owner's
 * index is the member's index in the snapshot: a peer address table kept in
 * the same order gives the address to forward to.
 *
 * @param v     the view.
 * @param key   the shard key bytes; may be NULL when len is 0.
 * @param len   its length.
 * @param self  the asking member's index, or PL_NONE for a router that is
 *              not a member.
 * @param out   receives the answer.
 * @param diag  optional; names the bad argument.
 * @return 0, or: PL_E_INVAL (NULL view, key with len > 0, or out:
 *         PL_ELEM_ARGUMENT 1, 2, 5); PL_E_LENGTH (len past PL_MAX_ID_LEN,
 *         argument 3); PL_E_MEMBER_RANGE (argument 4); PL_E_NO_ELIGIBLE (no
 *         eligible member to be the home). On error out is untouched.
 *         O(log shards), plus O(eligible members) when the view's ring homes
 *         were not filled by a fleet call.
 */
PL_API int pl_route_lookup(const pl_view *v, const char *key, size_t len, uint32_t self, pl_route_owner *out,
			   pl_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* PLACEMENT_ROUTE_H */
