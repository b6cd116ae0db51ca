package placement

// #include <stdlib.h>
// #include <placement.h>
// static uint32_t pl_go_out_of_sync(uint32_t j) { return PL_SHARD_OUT_OF_SYNC(j); }
import "C"

import (
	"math"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Member is a process that can own, lead or replicate shards. The zero
// value but for its ID is a live member of weight 1, no cap, load 0, and
// an unknown capacity.
//
// Capacity is the bytes it can hold, read only when CapacityKnown is set:
// an unknown capacity is not zero. A known capacity of 0 is refused
// (ErrCapacity naming the member: a member that can hold nothing is Down),
// one past MaxBytes too (ErrBytes). The broker's full ratio and bytes band
// read it (BrokerConfig.FullRatio, BytesBalance).
type Member struct {
	ID         string // unique, non-empty; ties break on these bytes
	Zone       string // failure domain; "" is a zone of its own; a path ("rack/host") names levels, the top first
	Weight     uint32 // relative capacity, 1..65536; 0 reads as 1
	MaxShards  uint32 // most replicas it may hold; 0 is no cap
	Down       bool   // not live: owns, leads and receives nothing
	Draining   bool   // live, but takes nothing new; the broker policy hands off all it has
	Lagging    bool   // live, but behind: never the destination of a fleet or region move
	Unmeasured bool   // its load is unknown (PL_MEMBER_UNMEASURED): Load is ignored
	Load       uint64 // the caller's measure of its load
	JoinedAt   uint64 // the caller's clock when it joined; greater is newer
	MapVersion uint64 // the version of the shard map it has installed

	Capacity      uint64 // bytes it can hold, 1..MaxBytes, when CapacityKnown
	CapacityKnown bool   // Capacity is known; false (the zero value) is unknown, not zero
}

// Stream is a set of shards whose spread matters together. A snapshot
// lists the streams its shards name by itself; list one in Layout.Streams
// to fix the order, to have a stream with no shard, or to give it rules.
//
// Its rules are the broker policy's (snapshot version 5; the other
// policies read neither). Tolerance is the shards by which a member's
// count of the stream (leaders, replicas) may stray past its floor and
// ceiling before the broker moves anything, read only when ToleranceSet is
// set: the zero value takes the config's BrokerConfig.StreamTolerance. At
// most MaxShardTolerance (2^26); past it the snapshot is refused
// (ErrTolerance naming the stream). Zones is how its shards' replicas
// spread over zones: ZonesSpan (the zero value) or ZonesMajority; another
// value is refused (ErrZoneRule naming the stream). Flags are its
// StreamFlags: StreamKeep excludes it from balancing; another bit is
// refused (ErrStreamFlags naming the stream). The snapshot gives the
// library each array only when some listed stream sets it.
//
// A kept stream whose leaders all sit on one member stays there while the
// broker balances the others around it (the example).
type Stream struct {
	ID           string      // unique, non-empty
	Tolerance    uint32      // shards past its bounds a member's count may stray, when ToleranceSet
	ToleranceSet bool        // Tolerance is the stream's own; false (the zero value) takes the config's
	Zones        ZoneRule    // how its shards spread over zones; ZonesSpan (the zero value) by default
	Flags        StreamFlags // StreamKeep or none (the zero value)
}

// StreamFlags are a stream's flags (PL_STREAM_*), for the broker policy.
type StreamFlags uint32

// The stream flags of snapshot.h.
const (
	// StreamKeep excludes the stream from balancing (Cruise Control's
	// excluded topics): no balance move (leaders, replicas or bytes, of the
	// stream or of the totals) takes one of its shards. They still count in
	// every member's totals, and failover, drains, zone repair and new
	// shards' placement still move them.
	StreamKeep StreamFlags = C.PL_STREAM_KEEP
	// StreamFlagsAll is every flag the library knows; another bit is
	// refused (ErrStreamFlags naming the stream).
	StreamFlagsAll StreamFlags = C.PL_STREAM_FLAGS_ALL
)

// ZoneRule is how a stream's shards spread over zones (PL_ZONES_*), for
// the broker policy.
type ZoneRule uint32

// The zone rules of snapshot.h.
const (
	// ZonesSpan spans as many zones as it can (the default).
	ZonesSpan ZoneRule = C.PL_ZONES_SPAN
	// ZonesMajority spans as many, and no zone holds a majority's worth: at
	// most (replicas - 1) / 2 of a shard's replicas in one zone, so losing
	// any zone leaves a majority (Kudu's placement rule).
	ZonesMajority ZoneRule = C.PL_ZONES_MAJORITY
)

// String is the word placement(5) writes: "span", "majority";
// "ZoneRule(N)" for a value that is not a rule.
func (z ZoneRule) String() string {
	switch z {
	case ZonesSpan:
		return "span"
	case ZonesMajority:
		return "majority"
	}
	return "ZoneRule(" + strconv.FormatUint(uint64(z), 10) + ")"
}

// MaxShardTolerance is the most a tolerance in shards may be: a stream's
// (Stream.Tolerance) or a config's (BrokerConfig.Tolerance,
// StreamTolerance); PL_MAX_TOLERANCE, 2^26.
const MaxShardTolerance = C.PL_MAX_TOLERANCE

// Shard is the unit that is placed. A shard with no replicas and no leader
// is new. Member ids name members of the same snapshot; "" is none.
//
// Size is its data on one replica, in bytes, read only when SizeKnown is
// set: an unknown size is not zero (a known Size of 0 holds nothing). The
// known sizes of all shards together may be at most MaxBytes /
// PL_MAX_REPLICAS (2^59): past it the snapshot is refused (ErrBytes naming
// the shard at which the sum passes it). A copy of the shard reports it as
// Action.Bytes.
type Shard struct {
	Key           string   // unique, non-empty
	Stream        string   // the stream it belongs to, or ""
	Replicas      []string // the members holding a copy, at most 8, each once
	Leader        string   // its leader, one of the replicas, or ""
	MovingTo      string   // a leader move in flight to this member (needs a leader), or ""
	OutOfSync     []string // replicas not in sync: they hold data, but no leadership goes to them
	Epoch         uint64   // the shard map's epoch for it (regions)
	Load          uint64   // the caller's measure of its load
	NotIdempotent bool     // its destination is not idempotent (a rollup): never placed
	TransferDebt  bool     // it carries transfer debt: no peer is added or moved
	Size          uint64   // its bytes on one replica, when SizeKnown
	SizeKnown     bool     // Size is known; false (the zero value) is unknown, not zero
}

// Override is a fleet's record that a shard lives on a member off its ring
// home.
type Override struct {
	Shard  string // the shard's key
	Member string // the member that owns it
	Origin Origin // which pass wrote it
	Since  uint64 // the caller's clock when it was written
}

// Copy is a replica copy in flight: staged on To, not yet committed; on
// commit it replaces the replica on From, or adds a peer when From is "".
// The view counts it as finished.
type Copy struct {
	Shard string // the shard's key
	To    string // the member the copy is staged on
	From  string // the replica it replaces on commit, or ""
}

// Layout is what NewSnapshot takes: everything one tick knows, by id.
type Layout struct {
	Members   []Member
	Streams   []Stream // listed first; then the streams the shards name, in the order first named
	Shards    []Shard
	Overrides []Override
	Copies    []Copy
}

// Snapshot is one tick's layout as the C library reads it: the arrays,
// built from ids, and the bytes they point into, in memory allocated with
// C's malloc (a view keeps pointers into it). It is immutable once built,
// and safe to use from several goroutines at once (each building its own
// views). Indices (Error.Index) are places in the slices of its Layout.
//
// Close frees its memory once no open View reads it; a Snapshot that is
// never closed is freed by the garbage collector, which does not see the C
// memory it holds: a loop that builds one every tick should Close it.
type Snapshot struct {
	c         *C.pl_snapshot // in arena
	arena     unsafe.Pointer
	memberIDs []string
	streamIDs []string
	shardKeys []string
	ovShard   []uint32 // each override's shard index
	cpShard   []uint32 // each copy's shard index

	mu     sync.Mutex
	views  int  // open views that read it
	closed bool // Close was called
}

// cMemory counts the C blocks the package holds (snapshots, views, the
// buffers of Views), for the tests to see that everything is freed.
var cMemory atomic.Int64

func align8(n uintptr) uintptr { return (n + 7) &^ 7 }

func limitError(n int, array int) error {
	if uint64(n) > math.MaxUint32 {
		e := codeError(C.PL_E_LIMIT)
		e.Kind, e.Index = ElemSnapshot, array
		return e
	}
	return nil
}

func refError(code C.int, kind ElementKind, i int, id, ref string) *Error {
	e := codeError(code)
	e.Kind, e.Index, e.ID, e.Reference = kind, i, id, ref
	return e
}

// NewSnapshot resolves every id of the layout and validates the result
// (pl_snapshot_validate()).
//
// An id that names nothing is refused before the library sees it, with the
// library's code for it: a replica, leader, move target or out-of-sync
// replica naming an unknown member is ErrMemberRange naming the shard (ID)
// and the unknown id (Reference); an override's unknown shard or member is
// ErrOverrideShard or ErrOverrideMember, a copy's ErrCopyShard, ErrCopyTo
// or ErrCopyFrom. Then the library's first error names the element: a
// duplicate id (ErrDupMember, with Other the earlier one), a leader that is
// not a replica, an id past 1024 bytes, and so on.
func NewSnapshot(l Layout) (*Snapshot, error) {
	for i, n := range []int{len(l.Members), len(l.Streams), len(l.Shards), len(l.Overrides), len(l.Copies)} {
		if err := limitError(n, i); err != nil {
			return nil, err
		}
	}
	s := &Snapshot{}
	memberIndex := make(map[string]uint32, len(l.Members))
	s.memberIDs = make([]string, len(l.Members))
	for i, m := range l.Members {
		s.memberIDs[i] = m.ID
		if _, ok := memberIndex[m.ID]; !ok {
			memberIndex[m.ID] = uint32(i)
		}
	}
	streamIndex := make(map[string]uint32)
	for _, st := range l.Streams {
		if _, ok := streamIndex[st.ID]; !ok {
			streamIndex[st.ID] = uint32(len(s.streamIDs))
		}
		s.streamIDs = append(s.streamIDs, st.ID)
	}
	for _, k := range l.Shards {
		if k.Stream == "" {
			continue
		}
		if _, ok := streamIndex[k.Stream]; !ok {
			streamIndex[k.Stream] = uint32(len(s.streamIDs))
			s.streamIDs = append(s.streamIDs, k.Stream)
		}
	}
	if err := limitError(len(s.streamIDs), 1); err != nil {
		return nil, err
	}
	s.shardKeys = make([]string, len(l.Shards))
	shardIndex := make(map[string]uint32, len(l.Shards))
	for i, k := range l.Shards {
		s.shardKeys[i] = k.Key
		if _, ok := shardIndex[k.Key]; !ok {
			shardIndex[k.Key] = uint32(i)
		}
	}

	// Resolve every reference before any C memory is allocated.
	type shardRefs struct {
		replicas                [C.PL_MAX_REPLICAS]uint32
		leader, movingTo, flags uint32
	}
	refs := make([]shardRefs, len(l.Shards))
	for i, k := range l.Shards {
		r := &refs[i]
		r.leader, r.movingTo = C.PL_NONE, C.PL_NONE
		member := func(id string) (uint32, error) {
			m, ok := memberIndex[id]
			if !ok {
				return 0, refError(C.PL_E_MEMBER_RANGE, ElemShard, i, k.Key, id)
			}
			return m, nil
		}
		for j, id := range k.Replicas {
			m, err := member(id)
			if err != nil {
				return nil, err
			}
			if j < len(r.replicas) {
				r.replicas[j] = m
			}
		}
		var err error
		if k.Leader != "" {
			if r.leader, err = member(k.Leader); err != nil {
				return nil, err
			}
		}
		if k.MovingTo != "" {
			if r.movingTo, err = member(k.MovingTo); err != nil {
				return nil, err
			}
		}
		if k.NotIdempotent {
			r.flags |= C.PL_SHARD_NOT_IDEMPOTENT
		}
		if k.TransferDebt {
			r.flags |= C.PL_SHARD_TRANSFER_DEBT
		}
		for _, id := range k.OutOfSync {
			j := -1
			for x, rep := range k.Replicas {
				if rep == id {
					j = x
					break
				}
			}
			if j < 0 {
				return nil, refError(C.PL_E_MEMBER_RANGE, ElemShard, i, k.Key, id)
			}
			if j < C.PL_MAX_REPLICAS {
				r.flags |= uint32(C.pl_go_out_of_sync(C.uint32_t(j)))
			}
		}
	}
	s.ovShard = make([]uint32, len(l.Overrides))
	ovMember := make([]uint32, len(l.Overrides))
	for i, o := range l.Overrides {
		k, ok := shardIndex[o.Shard]
		if !ok {
			return nil, refError(C.PL_E_OVERRIDE_SHARD, ElemOverride, i, o.Shard, o.Shard)
		}
		m, ok := memberIndex[o.Member]
		if !ok {
			return nil, refError(C.PL_E_OVERRIDE_MEMBER, ElemOverride, i, o.Shard, o.Member)
		}
		s.ovShard[i], ovMember[i] = k, m
	}
	s.cpShard = make([]uint32, len(l.Copies))
	cpTo := make([]uint32, len(l.Copies))
	cpFrom := make([]uint32, len(l.Copies))
	for i, c := range l.Copies {
		k, ok := shardIndex[c.Shard]
		if !ok {
			return nil, refError(C.PL_E_COPY_SHARD, ElemCopy, i, c.Shard, c.Shard)
		}
		to, ok := memberIndex[c.To]
		if !ok {
			return nil, refError(C.PL_E_COPY_TO, ElemCopy, i, c.Shard, c.To)
		}
		from := uint32(C.PL_NONE)
		if c.From != "" {
			if from, ok = memberIndex[c.From]; !ok {
				return nil, refError(C.PL_E_COPY_FROM, ElemCopy, i, c.Shard, c.From)
			}
		}
		s.cpShard[i], cpTo[i], cpFrom[i] = k, to, from
	}

	// Sizes and capacities: their arrays only when one is known.
	sized, capped := false, false
	for i := range l.Shards {
		sized = sized || l.Shards[i].SizeKnown
	}
	for i := range l.Members {
		capped = capped || l.Members[i].CapacityKnown
	}
	// Each stream's rules: their arrays only when a listed stream sets one.
	tolerant, zoned, flagged := false, false, false
	for i := range l.Streams {
		tolerant = tolerant || l.Streams[i].ToleranceSet
		zoned = zoned || l.Streams[i].Zones != ZonesSpan
		flagged = flagged || l.Streams[i].Flags != 0
	}

	// One C allocation: the struct, the five arrays, the sizes and
	// capacities, the streams' tolerances, zone rules and flags, then the
	// id bytes.
	nm, ns, nk, no, nc := len(l.Members), len(s.streamIDs), len(l.Shards), len(l.Overrides), len(l.Copies)
	off := align8(unsafe.Sizeof(C.pl_snapshot{}))
	offM := off
	off = align8(off + uintptr(nm)*unsafe.Sizeof(C.pl_member{}))
	offS := off
	off = align8(off + uintptr(ns)*unsafe.Sizeof(C.pl_stream{}))
	offK := off
	off = align8(off + uintptr(nk)*unsafe.Sizeof(C.pl_shard{}))
	offO := off
	off = align8(off + uintptr(no)*unsafe.Sizeof(C.pl_override{}))
	offC := off
	off = align8(off + uintptr(nc)*unsafe.Sizeof(C.pl_copy{}))
	offSz := off
	if sized {
		off += uintptr(nk) * 8
	}
	offCap := off
	if capped {
		off += uintptr(nm) * 8
	}
	offTol := off
	if tolerant {
		off += uintptr(ns) * 4
	}
	offZone := off
	if zoned {
		off += uintptr(ns) * 4
	}
	offFlags := off
	if flagged {
		off += uintptr(ns) * 4
	}
	offB := off
	for _, m := range l.Members {
		off += uintptr(len(m.ID) + len(m.Zone))
	}
	for _, id := range s.streamIDs {
		off += uintptr(len(id))
	}
	for _, k := range s.shardKeys {
		off += uintptr(len(k))
	}
	s.arena = C.calloc(1, C.size_t(off))
	if s.arena == nil {
		panic("placement: out of C memory for a snapshot")
	}
	cMemory.Add(1)
	at := func(o uintptr) unsafe.Pointer { return unsafe.Add(s.arena, o) }
	bytes := unsafe.Slice((*byte)(s.arena), off)
	next := offB
	put := func(str string) C.pl_bytes {
		if len(str) == 0 {
			return C.pl_bytes{}
		}
		copy(bytes[next:], str)
		b := C.pl_bytes{ptr: (*C.char)(at(next)), len: C.uint64_t(len(str))}
		next += uintptr(len(str))
		return b
	}

	snap := (*C.pl_snapshot)(s.arena)
	snap.version = C.PL_SNAPSHOT_VERSION
	snap.n_members, snap.n_streams, snap.n_shards = C.uint32_t(nm), C.uint32_t(ns), C.uint32_t(nk)
	snap.n_overrides, snap.n_copies = C.uint32_t(no), C.uint32_t(nc)
	if nm > 0 {
		snap.members = (*C.pl_member)(at(offM))
		cm := unsafe.Slice(snap.members, nm)
		for i, m := range l.Members {
			c := &cm[i]
			c.id = put(m.ID)
			c.zone = put(m.Zone)
			c.joined_at, c.map_version = C.uint64_t(m.JoinedAt), C.uint64_t(m.MapVersion)
			c.weight, c.max_shards = C.uint32_t(m.Weight), C.uint32_t(m.MaxShards)
			if !m.Unmeasured {
				c.load = C.uint64_t(m.Load)
			}
			var f C.uint32_t
			if m.Down {
				f |= C.PL_MEMBER_DOWN
			}
			if m.Draining {
				f |= C.PL_MEMBER_DRAINING
			}
			if m.Lagging {
				f |= C.PL_MEMBER_LAGGING
			}
			if m.Unmeasured {
				f |= C.PL_MEMBER_UNMEASURED
			}
			c.flags = f
		}
	}
	if ns > 0 {
		snap.streams = (*C.pl_stream)(at(offS))
		cs := unsafe.Slice(snap.streams, ns)
		for i, id := range s.streamIDs {
			cs[i].id = put(id)
		}
	}
	if nk > 0 {
		snap.shards = (*C.pl_shard)(at(offK))
		ck := unsafe.Slice(snap.shards, nk)
		for i, k := range l.Shards {
			c, r := &ck[i], &refs[i]
			c.key = put(k.Key)
			c.epoch, c.load = C.uint64_t(k.Epoch), C.uint64_t(k.Load)
			c.stream = C.PL_NONE
			if k.Stream != "" {
				c.stream = C.uint32_t(streamIndex[k.Stream])
			}
			c.leader, c.moving_to, c.flags = C.uint32_t(r.leader), C.uint32_t(r.movingTo), C.uint32_t(r.flags)
			c.replica_count = C.uint32_t(len(k.Replicas))
			if uint64(len(k.Replicas)) > math.MaxUint32 {
				c.replica_count = math.MaxUint32
			}
			for j := range r.replicas {
				c.replicas[j] = C.uint32_t(r.replicas[j])
			}
		}
	}
	if no > 0 {
		snap.overrides = (*C.pl_override)(at(offO))
		co := unsafe.Slice(snap.overrides, no)
		for i, o := range l.Overrides {
			co[i] = C.pl_override{since: C.uint64_t(o.Since), shard: C.uint32_t(s.ovShard[i]),
				member: C.uint32_t(ovMember[i]), origin: C.uint32_t(o.Origin)}
		}
	}
	if sized && nk > 0 {
		snap.shard_bytes = (*C.uint64_t)(at(offSz))
		cb := unsafe.Slice(snap.shard_bytes, nk)
		for i := range l.Shards {
			cb[i] = C.PL_BYTES_UNKNOWN
			if l.Shards[i].SizeKnown {
				cb[i] = C.uint64_t(l.Shards[i].Size)
			}
		}
	}
	if capped && nm > 0 {
		snap.member_capacity = (*C.uint64_t)(at(offCap))
		cc := unsafe.Slice(snap.member_capacity, nm)
		for i := range l.Members {
			cc[i] = C.PL_BYTES_UNKNOWN
			if l.Members[i].CapacityKnown {
				cc[i] = C.uint64_t(l.Members[i].Capacity)
			}
		}
	}
	if tolerant && ns > 0 {
		snap.stream_tolerance = (*C.uint32_t)(at(offTol))
		ct := unsafe.Slice(snap.stream_tolerance, ns)
		for i := range ct {
			ct[i] = C.PL_TOLERANCE_DEFAULT
			if i < len(l.Streams) && l.Streams[i].ToleranceSet {
				ct[i] = C.uint32_t(l.Streams[i].Tolerance)
			}
		}
	}
	if zoned && ns > 0 {
		snap.stream_zone_rule = (*C.uint32_t)(at(offZone))
		cz := unsafe.Slice(snap.stream_zone_rule, ns)
		for i := range cz {
			cz[i] = C.PL_ZONES_SPAN
			if i < len(l.Streams) {
				cz[i] = C.uint32_t(l.Streams[i].Zones)
			}
		}
	}
	if flagged && ns > 0 {
		snap.stream_flags = (*C.uint32_t)(at(offFlags))
		cf := unsafe.Slice(snap.stream_flags, ns)
		for i := range cf {
			cf[i] = 0
			if i < len(l.Streams) {
				cf[i] = C.uint32_t(l.Streams[i].Flags)
			}
		}
	}
	if nc > 0 {
		snap.copies = (*C.pl_copy)(at(offC))
		cc := unsafe.Slice(snap.copies, nc)
		for i := range l.Copies {
			cc[i] = C.pl_copy{shard: C.uint32_t(s.cpShard[i]), to: C.uint32_t(cpTo[i]), from: C.uint32_t(cpFrom[i])}
		}
	}
	s.c = snap
	runtime.SetFinalizer(s, (*Snapshot).free)

	size := C.pl_snapshot_work_size(s.c)
	var work unsafe.Pointer
	if size > 0 {
		work = C.malloc(size)
		if work == nil {
			panic("placement: out of C memory for a snapshot's validation")
		}
		defer C.free(work)
	}
	var d C.pl_diag
	if rc := C.pl_snapshot_validate(s.c, work, size, &d); rc < 0 {
		err := s.diagError(rc, &d)
		s.free()
		return nil, err
	}
	return s, nil
}

// diagError is the error for a diag, with the id of the element it names.
func (s *Snapshot) diagError(rc C.int, d *C.pl_diag) *Error {
	e := diagError(rc, d)
	if e.Index < 0 {
		return e
	}
	i := e.Index
	switch e.Kind {
	case ElemMember:
		e.ID = s.MemberID(i)
	case ElemStream:
		e.ID = s.StreamID(i)
	case ElemShard:
		e.ID = s.ShardKey(i)
	case ElemOverride:
		if i < len(s.ovShard) {
			e.ID = s.ShardKey(int(s.ovShard[i]))
		}
	case ElemCopy:
		if i < len(s.cpShard) {
			e.ID = s.ShardKey(int(s.cpShard[i]))
		}
	}
	return e
}

// MemberIDs is the member ids, by index. The slice is the snapshot's: do
// not change it.
func (s *Snapshot) MemberIDs() []string { return s.memberIDs }

// StreamIDs is the stream ids, by index: those listed, then those the
// shards name. The slice is the snapshot's: do not change it.
func (s *Snapshot) StreamIDs() []string { return s.streamIDs }

// ShardKeys is the shard keys, by index. The slice is the snapshot's: do
// not change it.
func (s *Snapshot) ShardKeys() []string { return s.shardKeys }

func at(ids []string, i int) string {
	if i >= 0 && i < len(ids) {
		return ids[i]
	}
	return ""
}

// MemberID is the id of member i, "" when there is none.
func (s *Snapshot) MemberID(i int) string { return at(s.memberIDs, i) }

// StreamID is the id of stream i, "" when there is none.
func (s *Snapshot) StreamID(i int) string { return at(s.streamIDs, i) }

// ShardKey is the key of shard i, "" when there is none.
func (s *Snapshot) ShardKey(i int) string { return at(s.shardKeys, i) }

// idOf is the id at a C index, "" for PL_NONE.
func idOf(ids []string, i C.uint32_t) string {
	if i == C.PL_NONE {
		return ""
	}
	return at(ids, int(i))
}

// Close frees the snapshot's C memory as soon as no open View reads it
// (at once when none does). It is safe to call more than once. Building a
// view of a closed snapshot is refused.
func (s *Snapshot) Close() {
	s.mu.Lock()
	s.closed = true
	free := s.views == 0
	s.mu.Unlock()
	if free {
		s.free()
	}
}

// hold counts a view that reads the snapshot; false when it is closed (a
// copy of an open view, which keeps it, may still hold it).
func (s *Snapshot) hold(copying bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if (s.closed && !copying) || s.arena == nil {
		return false
	}
	s.views++
	return true
}

// release ends a hold; the last one frees a closed snapshot.
func (s *Snapshot) release() {
	s.mu.Lock()
	s.views--
	free := s.closed && s.views == 0
	s.mu.Unlock()
	if free {
		s.free()
	}
}

func (s *Snapshot) free() {
	s.mu.Lock()
	p := s.arena
	s.arena, s.c = nil, nil
	s.mu.Unlock()
	if p != nil {
		C.free(p)
		cMemory.Add(-1)
	}
	runtime.SetFinalizer(s, nil)
}
