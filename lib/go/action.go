package placement

// #include <placement.h>
import "C"

import "unsafe"

// Action is one step a policy asks the caller to take, in ids: its kind and
// reason, the shard, the members it moves something between, and the
// numbers that decided it. String is the library's sentence
// (pl_action_explain()), e.g. "move leader of orders/07 from b2 to b0:
// stream orders leads 10 on b2, 1 on b0, floor 4, ceiling 4".
//
// Ids a kind does not use are "", numbers 0.
type Action struct {
	Kind   Kind   // what to do
	Reason Reason // why
	Shard  string // the shard's key
	Stream string // the shard's stream, or ""
	From   string // the member giving up the leader, replica or ownership, or ""
	To     string // the member receiving it, or ""

	StageFirst    bool // it copies data: stage on To first, then commit (PL_ACTION_STAGE_FIRST)
	CarriesLeader bool // a move-replica of the leader's replica: To leads after it (PL_ACTION_CARRIES_LEADER)
	Paired        bool // one step of two actions, to be carried out together (PL_ACTION_PAIRED)
	ForHandoff    bool // a follower's replica copied so that the leader hands To the leadership after it (PL_ACTION_FOR_HANDOFF)
	Exchange      bool // one of the two replica moves of a bytes exchange: every count stays as it was (PL_ACTION_EXCHANGE)

	Origin    Origin // override actions: the origin written or dropped
	Scope     Scope  // where the counts below were taken
	Tier      uint32 // the placement tier (1..5) that chose To, or the fleet's pick; 0 otherwise
	FromCount uint32 // From's count in Scope, before the action
	ToCount   uint32 // To's count in Scope, before the action
	Floor     uint32 // the floor that applied to To
	Ceiling   uint32 // the ceiling that applied to To
	Share     uint32 // the cluster share (or fair share) that applied
	Total     uint32 // how many were counted in Scope (shards, or target RF)
	At        uint64 // override actions: the caller's now; for drops, the override's age
	Load      uint64 // lag and load moves: the load that decided it

	// Bytes is what the action copies: the shard's size when it copies
	// (StageFirst), 0 when it copies nothing (a hand-off, an override).
	// BytesKnown is false when the shard's size is unknown
	// (PL_BYTES_UNKNOWN): unknown is not zero.
	Bytes      uint64
	BytesKnown bool
	FromBytes  uint64 // a broker copy: From's known bytes before it; else 0
	ToBytes    uint64 // a broker copy: To's known bytes before it; else 0
	BytesLimit uint64 // ScopeBytes: the bound that decided it (From's full bytes, or the band's edge); else 0

	// Explanation is the sentence pl_action_explain() wrote; String
	// returns it.
	Explanation string
}

// String is the library's sentence for the action.
func (a Action) String() string { return a.Explanation }

// explain is pl_action_explain() of a C action against a snapshot.
func explain(s *Snapshot, a *C.pl_action) (string, error) {
	buf := make([]byte, 256)
	for {
		rc := C.pl_action_explain(s.c, a, (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)))
		if rc < 0 {
			return "", codeError(rc)
		}
		if int(rc) < len(buf) {
			return string(buf[:rc]), nil
		}
		buf = make([]byte, int(rc)+1)
	}
}

// actionOf is the Action for a C action whose indices refer to s.
func actionOf(s *Snapshot, a *C.pl_action) (Action, error) {
	text, err := explain(s, a)
	if err != nil {
		return Action{}, err
	}
	return Action{
		Kind: Kind(a.kind), Reason: Reason(a.reason),
		Shard: idOf(s.shardKeys, a.shard), Stream: idOf(s.streamIDs, a.stream),
		From: idOf(s.memberIDs, a.from), To: idOf(s.memberIDs, a.to),
		StageFirst:    a.flags&C.PL_ACTION_STAGE_FIRST != 0,
		CarriesLeader: a.flags&C.PL_ACTION_CARRIES_LEADER != 0,
		Paired:        a.flags&C.PL_ACTION_PAIRED != 0,
		ForHandoff:    a.flags&C.PL_ACTION_FOR_HANDOFF != 0,
		Exchange:      a.flags&C.PL_ACTION_EXCHANGE != 0,
		Origin:        Origin(a.origin), Scope: Scope(a.scope), Tier: uint32(a.tier),
		FromCount: uint32(a.from_count), ToCount: uint32(a.to_count),
		Floor: uint32(a.floor), Ceiling: uint32(a.ceiling), Share: uint32(a.share), Total: uint32(a.total),
		At: uint64(a.at), Load: uint64(a.load),
		Bytes: uint64(a.bytes), BytesKnown: a.bytes != C.PL_BYTES_UNKNOWN,
		FromBytes: uint64(a.from_bytes), ToBytes: uint64(a.to_bytes), BytesLimit: uint64(a.bytes_limit),
		Explanation: text,
	}, nil
}

// rawAction is the C action for a, its ids looked up in the view.
func (v *View) rawAction(a *Action) (C.pl_action, error) {
	r := C.pl_action{kind: C.uint32_t(a.Kind), reason: C.uint32_t(a.Reason), stream: C.PL_NONE,
		from: C.PL_NONE, to: C.PL_NONE, origin: C.uint32_t(a.Origin), scope: C.uint32_t(a.Scope),
		tier: C.uint32_t(a.Tier), from_count: C.uint32_t(a.FromCount), to_count: C.uint32_t(a.ToCount),
		floor: C.uint32_t(a.Floor), ceiling: C.uint32_t(a.Ceiling), share: C.uint32_t(a.Share),
		total: C.uint32_t(a.Total), at: C.uint64_t(a.At), load: C.uint64_t(a.Load), bytes: C.PL_BYTES_UNKNOWN,
		from_bytes: C.uint64_t(a.FromBytes), to_bytes: C.uint64_t(a.ToBytes), bytes_limit: C.uint64_t(a.BytesLimit)}
	if a.BytesKnown {
		r.bytes = C.uint64_t(a.Bytes)
	}
	var err error
	if r.shard, err = v.find(ElemShard, a.Shard); err != nil {
		return r, err
	}
	if a.Stream != "" {
		if r.stream, err = v.find(ElemStream, a.Stream); err != nil {
			return r, err
		}
	} else if k := unsafe.Slice(v.snap.c.shards, v.snap.c.n_shards); int(r.shard) < len(k) {
		r.stream = k[r.shard].stream
	}
	if a.From != "" {
		if r.from, err = v.find(ElemMember, a.From); err != nil {
			return r, err
		}
	}
	if a.To != "" {
		if r.to, err = v.find(ElemMember, a.To); err != nil {
			return r, err
		}
	}
	if a.StageFirst {
		r.flags |= C.PL_ACTION_STAGE_FIRST
	}
	if a.CarriesLeader {
		r.flags |= C.PL_ACTION_CARRIES_LEADER
	}
	if a.Paired {
		r.flags |= C.PL_ACTION_PAIRED
	}
	if a.ForHandoff {
		r.flags |= C.PL_ACTION_FOR_HANDOFF
	}
	if a.Exchange {
		r.flags |= C.PL_ACTION_EXCHANGE
	}
	return r, nil
}

// Plan is what a policy call did: the actions, in the order to carry them
// out, and why it stopped.
type Plan struct {
	Actions []Action
	// Status says why no further action was emitted.
	Status Status
	// Wanted is at least len(Actions); one more when a further action was
	// wanted (a limit, a move in flight).
	Wanted int
	// Detail is the id behind Status, "" when it names none: the shard's
	// key for StatusStalled and StatusDrainStalled, the stream's id for
	// StatusBlockedCaps, StatusBlockedZones and StatusBlockedHandoff (""
	// for the cluster as a whole), the member's id for StatusMoveLimit (""
	// when max_moves itself is reached).
	Detail string
	// Blocked is how many shards or scopes were blocked or stalled.
	Blocked int
	// Ticks is, for a dry run, how many ticks emitted something; for one
	// tick, 1 when it emitted anything, else 0.
	Ticks int
	// NoEligible is set when the snapshot has shards and every member is
	// down or draining (the library's ErrNoEligible): that is no bad
	// input but a layout the policy can do nothing for, so the plan has no
	// actions and Status is StatusStalled, as placement(1) reports it.
	NoEligible bool
}

// detailOf is the id pl_plan_info.detail names for a status.
func detailOf(s *Snapshot, st Status, d C.uint32_t) string {
	switch st {
	case StatusStalled, StatusDrainStalled:
		return idOf(s.shardKeys, d)
	case StatusBlockedCaps, StatusBlockedZones, StatusBlockedHandoff, StatusBlockedBounds:
		return idOf(s.streamIDs, d)
	case StatusMoveLimit:
		return idOf(s.memberIDs, d)
	}
	return ""
}
