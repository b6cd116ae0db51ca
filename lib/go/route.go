package placement

// #include <placement.h>
import "C"

import (
	"runtime"
	"strconv"
	"unsafe"
)

// RouteBodyLimit is PL_ROUTE_BODY_LIMIT: a body read whole within this many
// bytes can be forwarded from its frames.
const RouteBodyLimit = C.PL_ROUTE_BODY_LIMIT

// Answer is what the request's handler answered (PL_ROUTE_ANSWER_*).
type Answer uint32

// Body is how much of the request body the handler read (PL_ROUTE_BODY_*).
type Body uint32

// Outcome is, on the second call, how the forward went (PL_ROUTE_OUTCOME_*).
type Outcome uint32

// VerdictKind is what to do with the request (PL_ROUTE_SERVE ...).
type VerdictKind uint32

// SendBody is how a forward sends the body (PL_ROUTE_SEND_*).
type SendBody uint32

// Rule is the row of the forwarding table that decided (PL_ROUTE_RULE_*).
type Rule uint32

// The values of route.h.
const (
	AnswerServed   Answer = C.PL_ROUTE_ANSWER_SERVED    // anything but a 409 naming the owner
	AnswerNotOwner Answer = C.PL_ROUTE_ANSWER_NOT_OWNER // 409 not-owner naming the owner

	BodyUnread    Body = C.PL_ROUTE_BODY_UNREAD     // none (or the request has none)
	BodyWhole     Body = C.PL_ROUTE_BODY_WHOLE      // all of it, within RouteBodyLimit
	BodyPastLimit Body = C.PL_ROUTE_BODY_PAST_LIMIT // more than RouteBodyLimit
	BodyPartial   Body = C.PL_ROUTE_BODY_PARTIAL    // part of it

	OutcomeNone     Outcome = C.PL_ROUTE_OUTCOME_NONE     // first call: nothing was forwarded
	OutcomeAnswered Outcome = C.PL_ROUTE_OUTCOME_ANSWERED // the owner answered
	OutcomeRefused  Outcome = C.PL_ROUTE_OUTCOME_REFUSED  // refused before the request was sent
	OutcomeFailed   Outcome = C.PL_ROUTE_OUTCOME_FAILED   // failed after the request was sent

	VerdictServe   VerdictKind = C.PL_ROUTE_SERVE   // answer with the handler's answer as it is
	VerdictForward VerdictKind = C.PL_ROUTE_FORWARD // forward once to the owner, marked forwarded
	VerdictRelay   VerdictKind = C.PL_ROUTE_RELAY   // answer with the owner's answer, adding the owner as forwarded-to
	VerdictReplay  VerdictKind = C.PL_ROUTE_REPLAY  // answer 409 naming the owner to replay to
	VerdictFailed  VerdictKind = C.PL_ROUTE_FAILED  // answer 503 forward_failed with Retry-After

	SendNone   SendBody = C.PL_ROUTE_SEND_NONE   // not a forward
	SendStream SendBody = C.PL_ROUTE_SEND_STREAM // stream the unread body to the owner
	SendFrames SendBody = C.PL_ROUTE_SEND_FRAMES // send the frames the handler read
)

func word(words []string, v uint32) string {
	if int(v) < len(words) && words[v] != "" {
		return words[v]
	}
	return "unknown(" + strconv.FormatUint(uint64(v), 10) + ")"
}

// String is the answer in the words of route.h: "served", "not-owner".
func (a Answer) String() string { return word([]string{"served", "not-owner"}, uint32(a)) }

// String is "unread", "whole", "past-limit" or "partial".
func (b Body) String() string {
	return word([]string{"unread", "whole", "past-limit", "partial"}, uint32(b))
}

// String is "none", "answered", "refused" or "failed".
func (o Outcome) String() string {
	return word([]string{"none", "answered", "refused", "failed"}, uint32(o))
}

// String is "serve", "forward", "relay", "replay" or "failed".
func (k VerdictKind) String() string {
	return word([]string{"", "serve", "forward", "relay", "replay", "failed"}, uint32(k))
}

// String is "none", "stream" or "frames".
func (s SendBody) String() string { return word([]string{"none", "stream", "frames"}, uint32(s)) }

// String is the library's name for the rule (pl_route_rule_name()):
// "already-forwarded"; "unknown" for a value it does not know.
func (r Rule) String() string { return C.GoString(C.pl_route_rule_name(C.uint32_t(r))) }

// RouteRequest is the state of one request (pl_route_request). Start from
// DefaultRouteRequest(): a data-plane request the handler served.
type RouteRequest struct {
	DataPlane  bool    // a data-plane route
	Answer     Answer  // what the handler answered
	OwnerKnown bool    // the trusted peer table holds the owner's address
	Forwarded  bool    // the request is already marked forwarded
	Body       Body    // how much of the body the handler read
	Outcome    Outcome // on the second call, how the forward went; OutcomeNone on the first
}

// DefaultRouteRequest is pl_route_request_init().
func DefaultRouteRequest() RouteRequest {
	var r C.pl_route_request
	C.pl_route_request_init(&r)
	return RouteRequest{DataPlane: r.data_plane != 0, Answer: Answer(r.answer), OwnerKnown: r.owner_known != 0,
		Forwarded: r.forwarded != 0, Body: Body(r.body), Outcome: Outcome(r.outcome)}
}

// Verdict is what to do with a request (pl_route_verdict).
type Verdict struct {
	Kind       VerdictKind // what to do
	Rule       Rule        // the row of the table that decided
	Status     uint32      // the HTTP status to answer: 409, 503, or 0 (the handler's or the owner's own)
	RetryAfter uint32      // seconds of Retry-After with a 503, else 0
	Mark       bool        // with a forward: mark the request forwarded
	SendBody   SendBody    // how a forward sends the body
}

// RouteDecide is the one-hop forwarding decision for one request
// (pl_route_decide()): called once after the handler answered and, when it
// said forward, once more with the forward's outcome. Its errors:
// ErrRouteValue (a field that is not one of its values: Kind ElemConfig,
// Index the field's place), ErrRouteOutcome (an outcome for a request the
// table would not forward).
func RouteDecide(req RouteRequest) (Verdict, error) {
	var r C.pl_route_request
	C.pl_route_request_init(&r)
	r.data_plane, r.answer, r.owner_known = flag(req.DataPlane), C.uint32_t(req.Answer), flag(req.OwnerKnown)
	r.forwarded, r.body, r.outcome = flag(req.Forwarded), C.uint32_t(req.Body), C.uint32_t(req.Outcome)
	var out C.pl_route_verdict
	var d C.pl_diag
	if rc := C.pl_route_decide(&r, &out, &d); rc < 0 {
		return Verdict{}, diagError(rc, &d)
	}
	return Verdict{Kind: VerdictKind(out.verdict), Rule: Rule(out.rule), Status: uint32(out.status),
		RetryAfter: uint32(out.retry_after), Mark: out.mark != 0, SendBody: SendBody(out.send_body)}, nil
}

// RouteOwner is who owns a key's shard now (pl_route_owner).
type RouteOwner struct {
	Owner  string // the owner: the peer to forward to
	Home   string // the key's ring home
	Known  bool   // the snapshot holds a shard of that key (else its ring home owns it)
	IsSelf bool   // the owner is the asking member
}

// RouteLookup is who owns the shard with this key now, and whether self
// (a member id, or "" for a router that is no member) is it
// (pl_route_lookup()): the shard's override member when it has one that is
// eligible, else its ring home; a key the snapshot does not hold is owned
// by its ring home.
func (v *View) RouteLookup(key, self string) (RouteOwner, error) {
	if v.ptr == nil {
		return RouteOwner{}, closedError()
	}
	defer runtime.KeepAlive(v)
	m := C.uint32_t(C.PL_NONE)
	if self != "" {
		var err error
		if m, err = v.find(ElemMember, self); err != nil {
			return RouteOwner{}, err
		}
	}
	b := []byte(key + "\x00") // never empty: &b[0] is valid
	var out C.pl_route_owner
	var d C.pl_diag
	rc := C.pl_route_lookup(v.ptr, (*C.char)(unsafe.Pointer(&b[0])), C.size_t(len(key)), m, &out, &d)
	if rc < 0 {
		e := diagError(rc, &d)
		e.ID = key
		return RouteOwner{}, e
	}
	return RouteOwner{Owner: v.snap.MemberID(int(out.owner)), Home: v.snap.MemberID(int(out.home)),
		Known: out.shard != C.PL_NONE, IsSelf: out.is_self != 0}, nil
}
