package placement

// #include <placement.h>
import "C"

import (
	"runtime"
	"unsafe"
)

// FleetNever is a time that never comes (PL_FLEET_NEVER): FleetConfig's
// LastMove when the member never moved, its ReturnHomeAge to switch return
// home off.
const FleetNever uint64 = C.PL_FLEET_NEVER

// FleetConfig is one member's fleet decision settings (pl_fleet_config);
// the deciding member is named by id in FleetDecide. Times are in the
// caller's units. Start from DefaultFleetConfig().
type FleetConfig struct {
	Now              uint64 // the caller's clock
	LastMove         uint64 // the member's last move, or FleetNever
	Cooldown         uint64 // time between two moves of the member
	MovesPerDecision uint32 // moves per decision, >= 1
	Spread           bool   // close the spread below the floor once nobody is over the share
	ReturnHomeAge    uint64 // age of a lag override before it may go home, or FleetNever
	CountBalance     bool   // count balance (off: lag moves only)
}

// DefaultFleetConfig is pl_fleet_config_init(): never moved, cooldown 5,
// one move a decision, spread and count balance on, return home after 300.
func DefaultFleetConfig() FleetConfig {
	var c C.pl_fleet_config
	C.pl_fleet_config_init(&c)
	return FleetConfig{Now: uint64(c.now), LastMove: uint64(c.last_move), Cooldown: uint64(c.cooldown),
		MovesPerDecision: uint32(c.moves_per_decision), Spread: c.spread != 0,
		ReturnHomeAge: uint64(c.return_home_age), CountBalance: c.count_balance != 0}
}

func (c *FleetConfig) c(self C.uint32_t) C.pl_fleet_config {
	var r C.pl_fleet_config
	C.pl_fleet_config_init(&r)
	r.self, r.now, r.last_move, r.cooldown = self, C.uint64_t(c.Now), C.uint64_t(c.LastMove), C.uint64_t(c.Cooldown)
	r.moves_per_decision, r.spread = C.uint32_t(c.MovesPerDecision), flag(c.Spread)
	r.return_home_age, r.count_balance = C.uint64_t(c.ReturnHomeAge), flag(c.CountBalance)
	return r
}

// FleetOwner is the member that owns a shard now: its override's member
// when that one is eligible, else its ring home (pl_fleet_owner()).
func (v *View) FleetOwner(shard string) (string, error) {
	k, err := v.find(ElemShard, shard)
	if err != nil {
		return "", err
	}
	rc := C.pl_fleet_owner(v.ptr, k)
	runtime.KeepAlive(v)
	if rc < 0 {
		e := codeError(rc)
		e.Kind, e.Index, e.ID = ElemShard, int(k), shard
		return "", e
	}
	return v.snap.MemberID(int(rc)), nil
}

// FleetOwners is the owner of every shard, by shard index (as
// Snapshot.ShardKeys), from pl_fleet_owners(); it fills the view's ring
// homes once for later fleet calls on the view and its clones.
func (v *View) FleetOwners() ([]string, error) {
	if v.ptr == nil {
		return nil, closedError()
	}
	defer runtime.KeepAlive(v)
	n := len(v.snap.shardKeys)
	out := make([]C.uint32_t, n+1) // never empty: &out[0] is valid
	var d C.pl_diag
	rc := C.pl_fleet_owners(v.ptr, &out[0], C.uint32_t(n), &d)
	if rc < 0 {
		return nil, v.snap.diagError(rc, &d)
	}
	ids := make([]string, 0, int(rc))
	for _, m := range out[:rc] {
		ids = append(ids, v.snap.MemberID(int(m)))
	}
	return ids, nil
}

// FleetDecide is one member's decision for this tick (pl_fleet_decide()):
// clean-up, then lag moves, count balance or return home, for the member
// with this id. Every action is applied to the view: it then holds the
// overrides as the member leaves them (FormatOverrides writes them). A
// fleet with shards and no eligible member is a plan with NoEligible set,
// as for the broker.
func (v *View) FleetDecide(member string, cfg FleetConfig) (Plan, error) {
	m, err := v.find(ElemMember, member)
	if err != nil {
		return Plan{}, err
	}
	defer runtime.KeepAlive(v)
	c := cfg.c(m)
	s := v.snap
	// clean-up drops at most every override, moves at most
	// MovesPerDecision: one action per shard and some is room enough, and
	// a full buffer is reported (StatusFull), never cut silently
	n := 2*len(s.shardKeys) + int(cfg.MovesPerDecision%(1<<20)) + 64
	out := make([]C.pl_action, n)
	var info C.pl_plan_info
	var d C.pl_diag
	rc := C.pl_fleet_decide(v.ptr, &c, &out[0], C.uint32_t(n), &info, &d)
	if rc == C.PL_E_NO_ELIGIBLE {
		return Plan{Status: StatusStalled, NoEligible: true}, nil
	}
	if rc < 0 {
		return Plan{}, s.diagError(rc, &d)
	}
	p := Plan{Status: Status(info.status), Wanted: int(info.wanted), Blocked: int(info.blocked),
		Detail: detailOf(s, Status(info.status), info.detail)}
	if rc > 0 {
		p.Ticks = 1
	}
	for i := range out[:rc] {
		a, err := actionOf(s, &out[i])
		if err != nil {
			return Plan{}, err
		}
		p.Actions = append(p.Actions, a)
	}
	return p, nil
}

// FleetDecide is View.FleetDecide on a fresh view of snap (default
// options), closed before it returns.
func FleetDecide(snap *Snapshot, member string, cfg FleetConfig) (Plan, error) {
	v, err := snap.View()
	if err != nil {
		return Plan{}, err
	}
	defer v.Close()
	return v.FleetDecide(member, cfg)
}

// OverrideDoc is what ReadOverrides found in an override document.
type OverrideDoc struct {
	Overrides []Override // in line order
	Skipped   int        // lines naming a shard or member the view does not know
}

// ReadOverrides reads an override document (version 1, see fleet.h) into
// overrides for this view's snapshot (pl_fleet_doc_read()), ready for the
// next tick's Layout. A document error is ErrDocSyntax, ErrDocVersion,
// ErrOrigin or ErrLength with Kind ElemArgument, Index 2 (the text) and
// Other the 1-based line number.
func (v *View) ReadOverrides(text string) (OverrideDoc, error) {
	if v.ptr == nil {
		return OverrideDoc{}, closedError()
	}
	defer runtime.KeepAlive(v)
	lines := 1
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			lines++
		}
	}
	out := make([]C.pl_override, lines)
	b := []byte(text + "\x00") // never empty: &b[0] is valid
	var skipped C.uint32_t
	var d C.pl_diag
	rc := C.pl_fleet_doc_read(v.ptr, (*C.char)(unsafe.Pointer(&b[0])), C.size_t(len(text)), &out[0],
		C.uint32_t(len(out)), &skipped, &d)
	if rc < 0 {
		return OverrideDoc{}, diagError(rc, &d)
	}
	doc := OverrideDoc{Skipped: int(skipped)}
	for _, o := range out[:rc] {
		doc.Overrides = append(doc.Overrides, Override{Shard: idOf(v.snap.shardKeys, o.shard),
			Member: idOf(v.snap.memberIDs, o.member), Origin: Origin(o.origin), Since: uint64(o.since)})
	}
	return doc, nil
}

// FormatOverrides is the overrides in force in this view (the snapshot's,
// with every action applied since) as an override document, one line per
// shard in key order (pl_fleet_doc_format()).
func (v *View) FormatOverrides() (string, error) {
	if v.ptr == nil {
		return "", closedError()
	}
	defer runtime.KeepAlive(v)
	rc := C.pl_fleet_doc_format(v.ptr, nil, 0)
	if rc < 0 {
		return "", codeError(rc)
	}
	buf := make([]byte, int(rc)+1)
	rc = C.pl_fleet_doc_format(v.ptr, (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)))
	if rc < 0 {
		return "", codeError(rc)
	}
	return string(buf[:rc]), nil
}
