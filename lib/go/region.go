package placement

// #include <placement.h>
import "C"

import "runtime"

// RegionConfig is the region policy's configuration (pl_region_config).
// Start from DefaultRegionConfig().
type RegionConfig struct {
	ReplicationFactor uint32 // peers wanted per region, 1..8
	AddPeerProposals  bool   // add peers (off during a rolling upgrade)
	LoadBalance       bool   // step 4: primaries toward clearly less load
	LoadThreshold     uint32 // percent, 1..99, by which a peer's load must be less
	MaxActions        uint32 // most actions one call emits, >= 1
}

// DefaultRegionConfig is pl_region_config_init(): RF 3, add-peer proposals
// on, load balance off at 25%, 16 actions a call.
func DefaultRegionConfig() RegionConfig {
	var c C.pl_region_config
	C.pl_region_config_init(&c)
	return RegionConfig{ReplicationFactor: uint32(c.replication_factor), AddPeerProposals: c.add_peer_proposals != 0,
		LoadBalance: c.load_balance != 0, LoadThreshold: uint32(c.load_threshold), MaxActions: uint32(c.max_actions)}
}

func (c *RegionConfig) c() C.pl_region_config {
	var r C.pl_region_config
	C.pl_region_config_init(&r)
	r.replication_factor, r.add_peer_proposals = C.uint32_t(c.ReplicationFactor), flag(c.AddPeerProposals)
	r.load_balance, r.load_threshold = flag(c.LoadBalance), C.uint32_t(c.LoadThreshold)
	r.max_actions = C.uint32_t(c.MaxActions)
	return r
}

// RegionStallReason says what blocked a region the region policy wanted to
// act on (PL_REGION_STALL_*).
type RegionStallReason uint32

// The stall reasons of region.h.
const (
	// RegionNotReady: every member that could take it is behind the region's epoch.
	RegionNotReady RegionStallReason = C.PL_REGION_STALL_NOT_READY
	// RegionNoMember: no member may take it.
	RegionNoMember RegionStallReason = C.PL_REGION_STALL_NO_MEMBER
	// RegionFull: its peer list is full.
	RegionFull RegionStallReason = C.PL_REGION_STALL_FULL
	// RegionNoSource: every listed peer is down: nothing to copy from.
	RegionNoSource RegionStallReason = C.PL_REGION_STALL_NO_SOURCE
	// RegionProposalsOff: held back: add-peer proposals are off.
	RegionProposalsOff RegionStallReason = C.PL_REGION_STALL_PROPOSALS_OFF
)

// String is the library's name for the reason (pl_region_stall_name()):
// "not-ready"; "unknown" for a value it does not know.
func (r RegionStallReason) String() string {
	return C.GoString(C.pl_region_stall_name(C.uint32_t(r)))
}

// RegionWant is what a stalled region waited for (PL_REGION_WANT_*).
type RegionWant uint32

// The wants of region.h.
const (
	WantPrimary RegionWant = C.PL_REGION_WANT_PRIMARY // a live primary: it has none
	WantPeer    RegionWant = C.PL_REGION_WANT_PEER    // a peer, added or moved onto an idle member
)

// String is "primary" or "peer".
func (w RegionWant) String() string {
	switch w {
	case WantPrimary:
		return "primary"
	case WantPeer:
		return "peer"
	}
	return "unknown"
}

// RegionStall is a region the region policy wanted to act on and could not
// (pl_region_stall).
type RegionStall struct {
	Region string            // the region's (shard's) key
	Reason RegionStallReason // what blocked it
	Step   uint32            // 1 (a primary or a peer wanted) or 2 (an idle member could take it)
	Member string            // not-ready: the best candidate; step 2: the idle member; else ""
	Wanted RegionWant        // what it waited for
}

// RegionPlan is one tick of the region policy (pl_region_plan()): grow and
// claim, fill an idle member, primaries to the newest peer, load,
// primaries even within the peer sets. Every action is applied to the
// view; the stalls name the regions it could not act on, in the order met.
// Regions with no live, non-draining member is a plan with NoEligible set,
// as for the broker.
func (v *View) RegionPlan(cfg RegionConfig) (Plan, []RegionStall, error) {
	if v.ptr == nil {
		return Plan{}, nil, closedError()
	}
	defer runtime.KeepAlive(v)
	c := cfg.c()
	s := v.snap
	n := len(s.shardKeys)
	if uint64(cfg.MaxActions) < uint64(n) {
		n = int(cfg.MaxActions)
	}
	out := make([]C.pl_action, n+1)                            // at most one action a region, and max_actions
	stalls := make([]C.pl_region_stall, 2*len(s.shardKeys)+16) // step 1 and step 2 of each region
	var info C.pl_plan_info
	var d C.pl_diag
	rc := C.pl_region_plan(v.ptr, &c, &out[0], C.uint32_t(len(out)), &info, &stalls[0], C.uint32_t(len(stalls)), &d)
	if rc == C.PL_E_NO_ELIGIBLE {
		return Plan{Status: StatusStalled, NoEligible: true}, nil, nil
	}
	if rc < 0 {
		return Plan{}, nil, s.diagError(rc, &d)
	}
	p := Plan{Status: Status(info.status), Wanted: int(info.wanted), Blocked: int(info.blocked)}
	if info.detail != C.PL_NONE { // a region, whatever the status
		p.Detail = idOf(s.shardKeys, info.detail)
	}
	if rc > 0 {
		p.Ticks = 1
	}
	for i := range out[:rc] {
		a, err := actionOf(s, &out[i])
		if err != nil {
			return Plan{}, nil, err
		}
		p.Actions = append(p.Actions, a)
	}
	met := int(info.blocked)
	if met > len(stalls) {
		met = len(stalls)
	}
	var rs []RegionStall
	for _, st := range stalls[:met] {
		rs = append(rs, RegionStall{Region: idOf(s.shardKeys, st.shard), Reason: RegionStallReason(st.reason),
			Step: uint32(st.step), Member: idOf(s.memberIDs, st.member), Wanted: RegionWant(st.wanted)})
	}
	return p, rs, nil
}

// RegionEffectiveRF is the effective replication factor, min(configured
// RF, live members) (pl_region_effective_rf()).
func (v *View) RegionEffectiveRF(cfg RegionConfig) (int, error) {
	if v.ptr == nil {
		return 0, closedError()
	}
	c := cfg.c()
	var d C.pl_diag
	rc := C.pl_region_effective_rf(v.ptr, &c, &d)
	runtime.KeepAlive(v)
	if rc < 0 {
		return 0, diagError(rc, &d)
	}
	return int(rc), nil
}

// CheckAddPeer says whether member may be added as a peer of region,
// proposed against expectedEpoch (pl_region_check_add_peer()): nil, or the
// refusal (ErrEpochStale, ErrPeerDuplicate, ErrTransferDebt,
// ErrMemberUnavailable, ErrNotReady, ErrMemberFull, ErrMoveInFlight, ...)
// naming the region or the member.
func (v *View) CheckAddPeer(region, member string, expectedEpoch uint64) error {
	k, err := v.find(ElemShard, region)
	if err != nil {
		return err
	}
	m, err := v.find(ElemMember, member)
	if err != nil {
		return err
	}
	var d C.pl_diag
	rc := C.pl_region_check_add_peer(v.ptr, k, m, C.uint64_t(expectedEpoch), &d)
	runtime.KeepAlive(v)
	if rc < 0 {
		return v.snap.diagError(rc, &d)
	}
	return nil
}
