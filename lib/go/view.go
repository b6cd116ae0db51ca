package placement

// #include <stdlib.h>
// #include <placement.h>
import "C"

import (
	"runtime"
	"unsafe"
)

// ViewOptions says how to build a view. Start from DefaultViewOptions();
// a nil *ViewOptions is the defaults.
type ViewOptions struct {
	// Scorer is the scorer the view ranks members with.
	Scorer Scorer
	// MaxReplicas is the most replicas any shard may reach in the view,
	// 1..8, or 0 for 8; the snapshot's largest replica count raises it.
	// Each shard's state has room for that many, so a smaller room is a
	// smaller view; adding a replica past it fails with ErrReplicaRoom,
	// and so does a broker plan whose replication factor passes it.
	MaxReplicas uint32
}

// DefaultViewOptions is pl_view_options_init(): the XXH3 scorer, room for
// 8 replicas.
func DefaultViewOptions() ViewOptions {
	var o C.pl_view_options
	C.pl_view_options_init(&o)
	return ViewOptions{Scorer: Scorer(o.scorer), MaxReplicas: uint32(o.max_replicas)}
}

func (o *ViewOptions) c(reuse *C.pl_view) C.pl_view_options {
	var c C.pl_view_options
	C.pl_view_options_init(&c)
	if o != nil {
		c.scorer, c.max_replicas = C.uint32_t(o.Scorer), C.uint32_t(o.MaxReplicas)
	}
	c.reuse = reuse
	return c
}

// View is what one tick derives from a Snapshot (pl_view_init()):
// canonical orders, ring homes, tallies, and every action applied since it
// was built, in C memory. A view is used by one goroutine at a time; give
// each goroutine its own (Clone).
//
// It keeps its snapshot open until it is closed. Close frees its memory;
// a view never closed is freed by the garbage collector, which does not see
// the C memory: close what a loop builds, or build through Views, which
// reuses two buffers.
type View struct {
	snap  *Snapshot
	ptr   *C.pl_view
	mem   unsafe.Pointer // owned memory; nil when owner holds it
	size  C.size_t       // the bytes it needs (pl_view_size_opt())
	owner *viewBuffers   // the buffers of the Views that built it, kept alive while it is
}

// closedError is what a method of a closed view returns.
func closedError() *Error {
	e := codeError(C.PL_E_INVAL)
	e.Kind, e.Index = ElemArgument, 1
	return e
}

// NewView builds a view of snap with opts (nil: the defaults). It
// validates the snapshot as NewSnapshot did, so its errors are those of the
// options: ErrScorer, ErrConfig (MaxReplicas past 8).
func NewView(snap *Snapshot, opts *ViewOptions) (*View, error) {
	return newView(snap, opts, nil)
}

// View is NewView(s, nil).
func (s *Snapshot) View() (*View, error) { return NewView(s, nil) }

// NewViewReusing builds a view of snap with an earlier view as a hint
// (pl_view_options.reuse), typically the previous tick's: what still holds
// (the canonical orders when the ids are the same at the same places, the
// tallies, the ring homes) is checked and reused; the answers are those of
// NewView, only sooner. prev is read during the call only. Views does this
// every tick, in two buffers.
func NewViewReusing(snap *Snapshot, opts *ViewOptions, prev *View) (*View, error) {
	if prev == nil || prev.ptr == nil {
		return nil, closedError()
	}
	v, err := newView(snap, opts, prev)
	runtime.KeepAlive(prev)
	return v, err
}

func newView(snap *Snapshot, opts *ViewOptions, prev *View) (*View, error) {
	if snap == nil || !snap.hold(false) {
		return nil, closedError()
	}
	var reuse *C.pl_view
	if prev != nil {
		reuse = prev.ptr
	}
	o := opts.c(reuse)
	size := C.pl_view_size_opt(snap.c, &o)
	mem := C.malloc(size)
	if mem == nil {
		snap.release()
		panic("placement: out of C memory for a view")
	}
	cMemory.Add(1)
	p, err := initView(snap, mem, size, &o)
	if err != nil {
		C.free(mem)
		cMemory.Add(-1)
		snap.release()
		return nil, err
	}
	v := &View{snap: snap, ptr: p, mem: mem, size: size}
	runtime.SetFinalizer(v, (*View).Close)
	return v, nil
}

func initView(snap *Snapshot, mem unsafe.Pointer, size C.size_t, o *C.pl_view_options) (*C.pl_view, error) {
	var p *C.pl_view
	var d C.pl_diag
	if rc := C.pl_view_init(&p, mem, size, snap.c, o, &d); rc < 0 {
		return nil, snap.diagError(rc, &d)
	}
	return p, nil
}

// Close frees the view's memory (a view of Views: gives it back) and
// lets its snapshot go. It is safe to call more than once; any other
// method of a closed view fails with ErrInval (argument 1).
func (v *View) Close() {
	if v.ptr == nil {
		return
	}
	v.ptr = nil
	if v.mem != nil {
		C.free(v.mem)
		cMemory.Add(-1)
		v.mem = nil
	}
	v.snap.release()
	runtime.SetFinalizer(v, nil)
}

// Snapshot is the snapshot the view was built from.
func (v *View) Snapshot() *Snapshot { return v.snap }

// Clone is an independent copy of the view, with every action applied so
// far (pl_view_copy()): how a dry run asks what would follow from here
// without changing this view.
func (v *View) Clone() (*View, error) {
	if v.ptr == nil || !v.snap.hold(true) {
		return nil, closedError()
	}
	size := v.size
	mem := C.malloc(size)
	if mem == nil {
		v.snap.release()
		panic("placement: out of C memory for a view")
	}
	cMemory.Add(1)
	var p *C.pl_view
	rc := C.pl_view_copy(&p, mem, size, v.ptr)
	runtime.KeepAlive(v)
	if rc < 0 {
		C.free(mem)
		cMemory.Add(-1)
		v.snap.release()
		return nil, codeError(rc)
	}
	c := &View{snap: v.snap, ptr: p, mem: mem, size: size}
	runtime.SetFinalizer(c, (*View).Close)
	return c, nil
}

// Counts are a view's counts (pl_view_counts).
type Counts struct {
	Members    uint32 // members in the snapshot
	Live       uint32 // not down
	Eligible   uint32 // not down and not draining
	Streams    uint32
	Shards     uint32
	Overrides  uint32 // overrides the view holds now
	Moving     uint32 // shards with a move in flight
	Leaderless uint32 // shards with no leader, or a leader that is not live
	Scorer     Scorer // the scorer the view scores with
	Share      uint32 // ceil(shards / eligible members), 0 when none
	Weight     uint64 // the sum of eligible members' weights
	Copies     uint32 // replica copies in flight in the snapshot
}

// Counts is the view's counts (pl_view_stats()); zero for a closed view.
func (v *View) Counts() Counts {
	if v.ptr == nil {
		return Counts{}
	}
	var c C.pl_view_counts
	C.pl_view_stats(v.ptr, &c)
	runtime.KeepAlive(v)
	return Counts{Members: uint32(c.members), Live: uint32(c.live), Eligible: uint32(c.eligible),
		Streams: uint32(c.streams), Shards: uint32(c.shards), Overrides: uint32(c.overrides),
		Moving: uint32(c.moving), Leaderless: uint32(c.leaderless), Scorer: Scorer(c.scorer),
		Share: uint32(c.share), Weight: uint64(c.weight), Copies: uint32(c.copies)}
}

// find is pl_view_find(): the index of the element with this id, or
// ErrNotFound naming the id.
func (v *View) find(kind ElementKind, id string) (C.uint32_t, error) {
	if v.ptr == nil {
		return 0, closedError()
	}
	var p *C.char
	if len(id) > 0 {
		b := []byte(id)
		p = (*C.char)(unsafe.Pointer(&b[0]))
	}
	rc := C.pl_view_find(v.ptr, C.uint32_t(kind), p, C.size_t(len(id)))
	runtime.KeepAlive(v)
	if rc < 0 {
		e := codeError(rc)
		e.Kind, e.ID = kind, id
		return 0, e
	}
	return C.uint32_t(rc), nil
}

// Tally is a member's counts, in total or in one stream, and the bounds
// that apply to it (pl_tally).
type Tally struct {
	Leaders  uint32 // shards it leads (moves in flight counted as finished)
	Replicas uint32 // shards it holds a replica of
	Floor    uint32 // its floor; 0 when not eligible
	Ceiling  uint32 // its ceiling (in total: the cluster share)
	Shards   uint32 // shards counted: all, or the stream's
}

func tallyOf(t *C.pl_tally) Tally {
	return Tally{Leaders: uint32(t.leaders), Replicas: uint32(t.replicas), Floor: uint32(t.floor),
		Ceiling: uint32(t.ceiling), Shards: uint32(t.shards)}
}

// MemberTally is a member's leaders and replicas in total, with the
// cluster floor and share that apply to it (pl_view_member_tally()).
func (v *View) MemberTally(member string) (Tally, error) {
	m, err := v.find(ElemMember, member)
	if err != nil {
		return Tally{}, err
	}
	var t C.pl_tally
	rc := C.pl_view_member_tally(v.ptr, m, &t)
	runtime.KeepAlive(v)
	if rc < 0 {
		return Tally{}, codeError(rc)
	}
	return tallyOf(&t), nil
}

// StreamTally is a member's leaders and replicas in one stream, with that
// stream's floor and ceiling for it (pl_view_stream_tally()).
func (v *View) StreamTally(stream, member string) (Tally, error) {
	s, err := v.find(ElemStream, stream)
	if err != nil {
		return Tally{}, err
	}
	m, err := v.find(ElemMember, member)
	if err != nil {
		return Tally{}, err
	}
	var t C.pl_tally
	rc := C.pl_view_stream_tally(v.ptr, s, m, &t)
	runtime.KeepAlive(v)
	if rc < 0 {
		return Tally{}, codeError(rc)
	}
	return tallyOf(&t), nil
}

// Measure is which policy's counts View.Imbalance measures
// (PL_IMBALANCE_*).
type Measure uint32

const (
	// MeasureBroker is the broker policy with its replica balance on (the
	// default): leaders and replicas, in total and per stream.
	MeasureBroker Measure = C.PL_IMBALANCE_BROKER
	// MeasureLeaders is the broker policy with ReplicaBalance off: leaders
	// only, in total and per stream.
	MeasureLeaders Measure = C.PL_IMBALANCE_LEADERS
	// MeasureOwned is a fleet's: shards owned (override, else ring home),
	// in total.
	MeasureOwned Measure = C.PL_IMBALANCE_OWNED
	// MeasureReplicas is the region policy's: replicas against the fair
	// share of the live members, in total.
	MeasureReplicas Measure = C.PL_IMBALANCE_REPLICAS
)

// Imbalance is how far a view is from balanced (pl_imbalance): 0 when
// every member is within its bounds, else the count past them. The
// definition is pl_view_imbalance(3)'s, the number placement(1) prints.
type Imbalance struct {
	Total   uint64 // Totals + Streams
	Totals  uint64 // the part in the members' totals
	Streams uint64 // the part in the streams (the broker's measures; 0 for the others)
}

// Imbalance is how far the view, as it is now, is from balanced under a
// policy's measure (pl_view_imbalance()): the sum over every member of the
// distance of its count to its floor and ceiling (every count on a member
// not held to them), in total and, for the broker, in each stream. A
// measure that is not one of the Measure constants is ErrInval.
func (v *View) Imbalance(m Measure) (Imbalance, error) {
	if v.ptr == nil {
		return Imbalance{}, closedError()
	}
	var out C.pl_imbalance
	rc := C.pl_view_imbalance(v.ptr, C.uint32_t(m), &out)
	runtime.KeepAlive(v)
	if rc < 0 {
		return Imbalance{}, codeError(rc)
	}
	return Imbalance{Total: uint64(out.total), Totals: uint64(out.totals), Streams: uint64(out.streams)}, nil
}

// ShardState is a shard as the view has it now: the snapshot plus the
// actions applied since (pl_shard_state).
type ShardState struct {
	Leader         string   // its leader, or ""
	Replicas       []string // its replicas
	Moving         bool     // a move is in flight
	OverrideMember string   // the fleet override's member, or ""
	OverrideOrigin Origin   // the override's origin, when OverrideMember is set
	OverrideSince  uint64   // when the override was written
	Epoch          uint64   // the snapshot's epoch, plus one per replica or leader action applied
}

// ShardState is a shard as the view has it now (pl_view_shard_state()).
func (v *View) ShardState(key string) (ShardState, error) {
	k, err := v.find(ElemShard, key)
	if err != nil {
		return ShardState{}, err
	}
	var st C.pl_shard_state
	rc := C.pl_view_shard_state(v.ptr, k, &st)
	runtime.KeepAlive(v)
	if rc < 0 {
		return ShardState{}, codeError(rc)
	}
	ids := v.snap.memberIDs
	out := ShardState{Leader: idOf(ids, st.leader), Moving: st.moving != 0,
		OverrideMember: idOf(ids, st.override_member), Epoch: uint64(st.epoch)}
	if out.OverrideMember != "" {
		out.OverrideOrigin, out.OverrideSince = Origin(st.override_origin), uint64(st.override_since)
	}
	for j := 0; j < int(st.replica_count) && j < len(st.replicas); j++ {
		out.Replicas = append(out.Replicas, idOf(ids, st.replicas[j]))
	}
	return out, nil
}

// Home is a shard's ring home: the eligible member with the highest
// rendezvous score (pl_view_home()); ErrNoEligible when there is none.
func (v *View) Home(key string) (string, error) {
	k, err := v.find(ElemShard, key)
	if err != nil {
		return "", err
	}
	rc := C.pl_view_home(v.ptr, k)
	runtime.KeepAlive(v)
	if rc < 0 {
		e := codeError(rc)
		e.Kind, e.Index, e.ID = ElemShard, int(k), key
		return "", e
	}
	return v.snap.MemberID(int(rc)), nil
}

// Top is the k best eligible members for any key, zones spread first; the
// first is the ring home (pl_view_top()). k is at most 8.
func (v *View) Top(key string, k int) ([]string, error) {
	if v.ptr == nil {
		return nil, closedError()
	}
	if k < 0 || k > C.PL_MAX_REPLICAS {
		e := codeError(C.PL_E_INVAL)
		e.Kind, e.Index = ElemArgument, 5
		return nil, e
	}
	var out [C.PL_MAX_REPLICAS]C.uint32_t
	var p *C.char
	if len(key) > 0 {
		b := []byte(key)
		p = (*C.char)(unsafe.Pointer(&b[0]))
	}
	rc := C.pl_view_top(v.ptr, p, C.size_t(len(key)), &out[0], C.uint32_t(k))
	runtime.KeepAlive(v)
	if rc < 0 {
		e := codeError(rc)
		e.Kind, e.Index, e.ID = ElemArgument, 2, key
		return nil, e
	}
	ids := make([]string, 0, int(rc))
	for _, m := range out[:rc] {
		ids = append(ids, v.snap.MemberID(int(m)))
	}
	return ids, nil
}

// Apply applies an action to the view's shard states and tallies, as the
// policies do with theirs (pl_view_apply()). Its ids are looked up in this
// view, so an action planned on another view of the same content applies
// here, and so does one of the caller's own making (Kind, Reason, Shard,
// From, To): ErrNotFound names an id the view lacks, ErrAction an action
// that does not fit the view.
func (v *View) Apply(a Action) error {
	r, err := v.rawAction(&a)
	if err != nil {
		return err
	}
	rc := C.pl_view_apply(v.ptr, &r)
	runtime.KeepAlive(v)
	if rc < 0 {
		e := codeError(rc)
		e.Kind, e.Index, e.ID = ElemShard, int(r.shard), a.Shard
		return e
	}
	return nil
}

// Settle marks every move in flight finished, as the next tick's snapshot
// would show it (pl_view_settle()), and says how many it settled.
func (v *View) Settle() (int, error) {
	if v.ptr == nil {
		return 0, closedError()
	}
	rc := C.pl_view_settle(v.ptr)
	runtime.KeepAlive(v)
	if rc < 0 {
		return 0, codeError(rc)
	}
	return int(rc), nil
}

// Views builds each tick's view with the previous tick's as the hint
// (pl_view_options.reuse), alternating between two buffers it keeps: a
// control plane's tick loop allocates no view memory once the buffers are
// large enough, and the library reuses what still holds (the canonical
// orders when the ids are the same at the same places, the tallies when
// the replicas are too, the ring homes), checked, never on trust.
//
// A view that Next returns stays valid until the second call of Next after
// it: the next call builds in the other buffer with it as the hint, the one
// after reuses its buffer and closes it (its methods then fail with
// ErrInval). So this tick's view and the previous one are usable at once.
// A Views is used by one goroutine at a time. Close frees the buffers; a
// Views never closed is freed by the garbage collector once neither it nor
// a view it built is reachable.
type Views struct {
	opts  ViewOptions
	bufs  *viewBuffers
	views [2]*View // the latest view built in each buffer
	last  int      // the buffer of the latest view, -1 before the first
}

// viewBuffers is the C memory of a Views. The views built in it point to
// it, and it points to nothing, so no cycle holds a finalizer.
type viewBuffers struct {
	mem  [2]unsafe.Pointer
	size [2]C.size_t
}

func (b *viewBuffers) free() {
	for i := range b.mem {
		if b.mem[i] != nil {
			C.free(b.mem[i])
			cMemory.Add(-1)
		}
		b.mem[i], b.size[i] = nil, 0
	}
}

// NewViews is a Views that builds with opts (nil: the defaults).
func NewViews(opts *ViewOptions) *Views {
	t := &Views{opts: DefaultViewOptions(), last: -1}
	if opts != nil {
		t.opts = *opts
	}
	return t
}

// Next builds the view of snap, with the latest view Next built (when it is
// still open) as the hint. On error the latest view stays as it was.
func (t *Views) Next(snap *Snapshot) (*View, error) {
	if t.bufs == nil {
		t.bufs = &viewBuffers{}
		runtime.SetFinalizer(t.bufs, (*viewBuffers).free)
	}
	i := 0
	var prev *View
	if t.last >= 0 {
		i = 1 - t.last
		if p := t.views[t.last]; p != nil && p.ptr != nil {
			prev = p
		}
	}
	if t.views[i] != nil {
		t.views[i].Close() // two ticks old: its buffer is this tick's
		t.views[i] = nil
	}
	if snap == nil || !snap.hold(false) {
		return nil, closedError()
	}
	var reuse *C.pl_view
	if prev != nil {
		reuse = prev.ptr
	}
	o := t.opts.c(reuse)
	size := C.pl_view_size_opt(snap.c, &o)
	b := t.bufs
	if b.size[i] < size {
		if b.mem[i] != nil {
			C.free(b.mem[i])
			cMemory.Add(-1)
		}
		grown := size + size/8 // room for a layout that grows a little
		b.mem[i], b.size[i] = C.malloc(grown), grown
		if b.mem[i] == nil {
			b.size[i] = 0
			snap.release()
			panic("placement: out of C memory for a view")
		}
		cMemory.Add(1)
	}
	p, err := initView(snap, b.mem[i], b.size[i], &o)
	runtime.KeepAlive(prev)
	if err != nil {
		snap.release()
		return nil, err
	}
	v := &View{snap: snap, ptr: p, size: size, owner: b}
	runtime.SetFinalizer(v, (*View).Close) // lets its snapshot go; the buffer stays
	t.views[i], t.last = v, i
	return v, nil
}

// Close closes the views it built and frees both buffers. It is safe to
// call more than once; a Views closed builds in new buffers.
func (t *Views) Close() {
	for i, v := range t.views {
		if v != nil {
			v.Close()
			t.views[i] = nil
		}
	}
	if t.bufs != nil {
		t.bufs.free()
		runtime.SetFinalizer(t.bufs, nil)
		t.bufs = nil
	}
	t.last = -1
}
