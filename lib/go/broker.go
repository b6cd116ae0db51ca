package placement

// #include <placement.h>
import "C"

import "runtime"

// BrokerConfig is the broker policy's configuration (pl_broker_config).
// Start from DefaultBrokerConfig(): its zero value is refused (ErrConfig
// naming max_moves).
type BrokerConfig struct {
	MaxMoves          uint32 // concurrent moves, counting those in flight; 1..256
	MaxMovesIn        uint32 // moves in flight into one member; 0 = no limit
	MaxMovesOut       uint32 // moves in flight out of one member; 0 = no limit
	Paused            bool   // start no move (placing still runs)
	ReplicationFactor uint32 // replicas of a new shard, 1..8, capped at the eligible members
	StreamBalance     bool   // per-stream tiers and stream pass; off = cluster totals only
	ReplicaBalance    bool   // keep replicas even per stream and in total; off = leaders only
	// HandoffOnly moves leaderships by hand-offs to in-sync followers
	// only, copying nothing; a bound only a copy would meet ends the plan
	// StatusBlockedHandoff.
	HandoffOnly bool

	// The bytes settings act only on a snapshot that gives sizes
	// (Shard.SizeKnown, Member.CapacityKnown). A value the library refuses
	// is ErrConfig with Index the field's place: 9 BytesBalance, 10
	// BytesFirst, 11 FullRatio, 12 BytesTolerance, 14..16 the byte limits.

	BytesBalance bool   // keep each member's bytes within BytesTolerance of its capacity-proportional share (default on)
	BytesFirst   bool   // even the bytes before the counts (default off: counts first)
	FullRatio    uint32 // percent of a member's capacity no copy may fill it past, 1..100; 0 = none (default 90)
	// BytesTolerance is the percent of its share a member's bytes may
	// stray from it, 0..MaxTolerance (default 10).
	BytesTolerance   uint32
	MaxBytesInFlight uint64 // bytes of copies in flight, counting those listed; 0 = no limit
	MaxBytesIn       uint64 // bytes of copies in flight into one member; 0 = no limit
	MaxBytesOut      uint64 // bytes of copies in flight out of one member; 0 = no limit

	// The tolerances (config version 4) widen the bounds a member's counts
	// are kept within, in shards, 0..MaxShardTolerance (default 0); past it
	// is ErrConfig with Index 17 (Tolerance) or 18 (StreamTolerance). A
	// layout within the widened bounds is balanced as it is.

	Tolerance       uint32 // shards a member's total leaders or replicas may stray past its floor and ceiling
	StreamTolerance uint32 // the same for each stream's counts, where its Stream.ToleranceSet is not set
}

// MaxTolerance is the most a BrokerConfig's BytesTolerance may be, in
// percent (PL_BROKER_MAX_TOLERANCE).
const MaxTolerance = C.PL_BROKER_MAX_TOLERANCE

// DefaultBrokerConfig is pl_broker_config_init(): one move at a time,
// replication factor 3, stream balance and replica balance on; bytes
// balance on within 10%, a full ratio of 90%, no byte limits; no
// tolerances.
func DefaultBrokerConfig() BrokerConfig {
	var c C.pl_broker_config
	C.pl_broker_config_init_version(&c, C.PL_BROKER_CONFIG_VERSION)
	return BrokerConfig{MaxMoves: uint32(c.max_moves), MaxMovesIn: uint32(c.max_moves_in),
		MaxMovesOut: uint32(c.max_moves_out), Paused: c.paused != 0,
		ReplicationFactor: uint32(c.replication_factor), StreamBalance: c.stream_balance != 0,
		ReplicaBalance: c.replica_balance != 0, HandoffOnly: c.handoff_only != 0,
		BytesBalance: c.bytes_balance != 0, BytesFirst: c.bytes_first != 0, FullRatio: uint32(c.full_ratio),
		BytesTolerance: uint32(c.bytes_tolerance), MaxBytesInFlight: uint64(c.max_bytes_in_flight),
		MaxBytesIn: uint64(c.max_bytes_in), MaxBytesOut: uint64(c.max_bytes_out),
		Tolerance: uint32(c.tolerance), StreamTolerance: uint32(c.stream_tolerance)}
}

func flag(b bool) C.uint32_t {
	if b {
		return 1
	}
	return 0
}

func (c *BrokerConfig) c() C.pl_broker_config {
	var r C.pl_broker_config
	C.pl_broker_config_init_version(&r, C.PL_BROKER_CONFIG_VERSION)
	r.max_moves, r.max_moves_in, r.max_moves_out = C.uint32_t(c.MaxMoves), C.uint32_t(c.MaxMovesIn), C.uint32_t(c.MaxMovesOut)
	r.paused, r.replication_factor = flag(c.Paused), C.uint32_t(c.ReplicationFactor)
	r.stream_balance, r.replica_balance, r.handoff_only = flag(c.StreamBalance), flag(c.ReplicaBalance), flag(c.HandoffOnly)
	r.bytes_balance, r.bytes_first = flag(c.BytesBalance), flag(c.BytesFirst)
	r.full_ratio, r.bytes_tolerance = C.uint32_t(c.FullRatio), C.uint32_t(c.BytesTolerance)
	r.max_bytes_in_flight, r.max_bytes_in, r.max_bytes_out = C.uint64_t(c.MaxBytesInFlight), C.uint64_t(c.MaxBytesIn), C.uint64_t(c.MaxBytesOut)
	r.tolerance, r.stream_tolerance = C.uint32_t(c.Tolerance), C.uint32_t(c.StreamTolerance)
	return r
}

// BrokerPlan is one tick of the broker policy (pl_broker_plan()): place
// what has no live leader, hand off what draining members lead and hold,
// repair zones, start moves (leaders, then replicas) up to the limits.
// Every action is applied to the view. Its errors: ErrConfig (Kind
// ElemConfig, Index the field's place, 1 = max_moves), ErrVersion.
// Every member down or draining is no error: see Plan.NoEligible.
func (v *View) BrokerPlan(cfg BrokerConfig) (Plan, error) { return v.broker(cfg, false) }

// BrokerDryRun is every action from here to a balanced layout
// (pl_broker_dry_run()): ticks of BrokerPlan with every move settled in
// between, until a tick on a settled view emits nothing. The view ends
// holding the layout after them. Its status is never StatusMoveLimit or
// StatusInFlight; it may be StatusDrainStalled (see BrokerDrainStalls).
func (v *View) BrokerDryRun(cfg BrokerConfig) (Plan, error) { return v.broker(cfg, true) }

// firstChunk, when set, is the room of a plan's first call (tests set it
// to make a plan continue past a full buffer).
var firstChunk = 0

func (v *View) broker(cfg BrokerConfig, dry bool) (Plan, error) {
	if v.ptr == nil {
		return Plan{}, closedError()
	}
	defer runtime.KeepAlive(v)
	c := cfg.c()
	s := v.snap
	n := len(s.shardKeys) + 64
	if n > 1<<20 {
		n = 1 << 20
	}
	if firstChunk > 0 {
		n = firstChunk
	}
	var all []C.pl_action
	var info C.pl_plan_info
	ticks, continued := 0, false
	for {
		out := make([]C.pl_action, n)
		var d C.pl_diag
		var t C.uint32_t
		var rc C.int
		if dry {
			rc = C.pl_broker_dry_run(v.ptr, &c, &out[0], C.uint32_t(len(out)), &info, &t, &d)
		} else {
			rc = C.pl_broker_plan(v.ptr, &c, &out[0], C.uint32_t(len(out)), &info, &d)
		}
		if rc == C.PL_E_NO_ELIGIBLE && len(all) == 0 {
			return Plan{Status: StatusStalled, NoEligible: true}, nil
		}
		if rc < 0 {
			return Plan{}, s.diagError(rc, &d)
		}
		all = append(all, out[:rc]...)
		if dry {
			// a call that stopped full inside a tick is continued by the
			// next call's first tick: count that tick once
			if continued && t > 0 {
				t--
			}
			ticks += int(t)
		}
		if info.status != C.PL_STATUS_FULL || (rc == 0 && n >= 1<<24) {
			break
		}
		// full: go on from where it stopped, with more room (a call that
		// wrote nothing had too little for one step, and changed nothing)
		continued = continued || rc > 0
		if n < 1<<24 {
			n *= 2
		}
	}
	p := Plan{Status: Status(info.status), Blocked: int(info.blocked), Ticks: ticks,
		Detail: detailOf(s, Status(info.status), info.detail)}
	p.Wanted = len(all) + int(info.wanted) - int(info.written)
	if !dry && len(all) > 0 {
		p.Ticks = 1
	}
	p.Actions = make([]Action, 0, len(all))
	for i := range all {
		a, err := actionOf(s, &all[i])
		if err != nil {
			return Plan{}, err
		}
		p.Actions = append(p.Actions, a)
	}
	return p, nil
}

// BrokerDryRun is View.BrokerDryRun on a fresh view of snap (default
// options), closed before it returns.
func BrokerDryRun(snap *Snapshot, cfg BrokerConfig) (Plan, error) {
	v, err := snap.View()
	if err != nil {
		return Plan{}, err
	}
	defer v.Close()
	return v.BrokerDryRun(cfg)
}

// BrokerPlan is View.BrokerPlan on a fresh view of snap (default options),
// closed before it returns.
func BrokerPlan(snap *Snapshot, cfg BrokerConfig) (Plan, error) {
	v, err := snap.View()
	if err != nil {
		return Plan{}, err
	}
	defer v.Close()
	return v.BrokerPlan(cfg)
}

// DrainStallReason says why a draining member's replica cannot leave it
// (PL_BROKER_STALL_*).
type DrainStallReason uint32

// The reasons of broker.h.
const (
	// StallHeld: every eligible member holds a replica of the shard already.
	StallHeld DrainStallReason = C.PL_BROKER_STALL_HELD
	// StallZones: every other eligible member would lower the shard's zone count.
	StallZones DrainStallReason = C.PL_BROKER_STALL_ZONES
	// StallCaps: every member that keeps the zone count is at its max_shards.
	StallCaps DrainStallReason = C.PL_BROKER_STALL_CAPS
)

// String is "held", "zones" or "caps".
func (r DrainStallReason) String() string {
	switch r {
	case StallHeld:
		return "held"
	case StallZones:
		return "zones"
	case StallCaps:
		return "caps"
	}
	return "unknown"
}

// DrainStall is a replica on a draining member that a drain cannot move,
// and why (pl_broker_stall).
type DrainStall struct {
	Shard  string           // the shard's key
	Member string           // the draining member that holds the replica
	Reason DrainStallReason // why it cannot leave
}

// BrokerDrainStalls is every replica a draining member holds that a drain
// cannot move, and why (pl_broker_drain_stalls()): the entries behind a
// plan's StatusDrainStalled, as the view is now. Shards in key order, a
// shard's members in id order. The view is not changed.
func (v *View) BrokerDrainStalls() ([]DrainStall, error) {
	if v.ptr == nil {
		return nil, closedError()
	}
	defer runtime.KeepAlive(v)
	var total C.uint32_t
	var d C.pl_diag
	if rc := C.pl_broker_drain_stalls(v.ptr, nil, 0, &total, &d); rc < 0 {
		return nil, v.snap.diagError(rc, &d)
	}
	if total == 0 {
		return nil, nil
	}
	out := make([]C.pl_broker_stall, total)
	rc := C.pl_broker_drain_stalls(v.ptr, &out[0], total, &total, &d)
	if rc < 0 {
		return nil, v.snap.diagError(rc, &d)
	}
	stalls := make([]DrainStall, 0, int(rc))
	for _, e := range out[:rc] {
		stalls = append(stalls, DrainStall{Shard: idOf(v.snap.shardKeys, e.shard),
			Member: idOf(v.snap.memberIDs, e.member), Reason: DrainStallReason(e.reason)})
	}
	return stalls, nil
}
