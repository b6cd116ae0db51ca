package placement

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"
)

func snapshot(t *testing.T, l Layout) *Snapshot {
	t.Helper()
	s, err := NewSnapshot(l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestNoEligible: every member down or draining is a plan, not an error.
func TestNoEligible(t *testing.T) {
	l := Layout{Members: []Member{{ID: "b0", Down: true}, {ID: "b1", Draining: true}},
		Shards: []Shard{{Key: "k", Replicas: []string{"b0", "b1"}, Leader: "b0"}}}
	s := snapshot(t, l)
	for _, run := range []func(*Snapshot, BrokerConfig) (Plan, error){BrokerPlan, BrokerDryRun} {
		p, err := run(s, DefaultBrokerConfig())
		if err != nil || !p.NoEligible || p.Status != StatusStalled || len(p.Actions) != 0 {
			t.Errorf("plan %+v, error %v", p, err)
		}
	}
	// with no shard there is nothing to do: balanced
	l.Shards = nil
	p, err := BrokerDryRun(snapshot(t, l), DefaultBrokerConfig())
	if err != nil || p.NoEligible || p.Status != StatusBalanced {
		t.Errorf("no shards: plan %+v, error %v", p, err)
	}
}

// skewed is 12 shards of one stream, all led by b2.
func skewed() Layout {
	l := Layout{Members: []Member{{ID: "b0", Zone: "a"}, {ID: "b1", Zone: "b"}, {ID: "b2", Zone: "c"}}}
	for i := 0; i < 12; i++ {
		l.Shards = append(l.Shards, Shard{Key: fmt.Sprintf("perf/%02d", i), Stream: "perf",
			Replicas: []string{"b0", "b1", "b2"}, Leader: "b2"})
	}
	return l
}

func TestDryRun(t *testing.T) {
	s := snapshot(t, skewed())
	v, err := s.View()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	p, err := v.BrokerDryRun(DefaultBrokerConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 8 || p.Ticks != 8 || p.Status != StatusBalanced || p.Wanted != 8 || p.Detail != "" {
		t.Fatalf("plan: %d actions, %d ticks, %s, wanted %d", len(p.Actions), p.Ticks, p.Status, p.Wanted)
	}
	a := p.Actions[0]
	if a.Kind != KindMoveLeader || a.Reason != ReasonStreamSkew || a.From != "b2" || a.Stream != "perf" ||
		a.Scope != ScopeStream || a.StageFirst || a.String() == "" || a.String() != a.Explanation {
		t.Errorf("first action: %+v", a)
	}
	for _, m := range []string{"b0", "b1", "b2"} {
		tl, err := v.StreamTally("perf", m)
		if err != nil || tl.Leaders != 4 || tl.Floor != 4 || tl.Ceiling != 4 {
			t.Errorf("%s: %+v %v", m, tl, err)
		}
	}
}

// TestContinued: a plan whose buffer fills goes on where it stopped, and is
// the plan one large buffer gives.
func TestContinued(t *testing.T) {
	l := Layout{Members: members("b0", "b1", "b2", "b3")}
	for i := 0; i < 40; i++ {
		l.Shards = append(l.Shards, Shard{Key: fmt.Sprintf("new/%02d", i), Stream: "new"})
	}
	s := snapshot(t, l)
	cfg := DefaultBrokerConfig()
	cfg.MaxMoves = 2
	whole, err := BrokerDryRun(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Actions) < 160 || whole.Status != StatusBalanced {
		t.Fatalf("%d actions, %s", len(whole.Actions), whole.Status)
	}
	one, err := BrokerPlan(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { firstChunk = 0 }()
	for _, chunk := range []int{1, 7, 64} {
		firstChunk = chunk
		p, err := BrokerDryRun(s, cfg)
		if err != nil || !reflect.DeepEqual(p, whole) {
			t.Errorf("chunk %d: %d actions, %d ticks, wanted %d (whole: %d, %d, %d), %v", chunk, len(p.Actions),
				p.Ticks, p.Wanted, len(whole.Actions), whole.Ticks, whole.Wanted, err)
		}
		p, err = BrokerPlan(s, cfg)
		if err != nil || !reflect.DeepEqual(p, one) {
			t.Errorf("chunk %d, one tick: %d actions (whole: %d), %v", chunk, len(p.Actions), len(one.Actions), err)
		}
	}
}

// TestDetail: a plan's Detail is the id its status names.
func TestDetail(t *testing.T) {
	l := Layout{Members: []Member{{ID: "b0", Zone: "a"}, {ID: "b1", Zone: "b", MaxShards: 1}, {ID: "b2", Zone: "c", MaxShards: 1}}}
	for i := 0; i < 6; i++ {
		r := []string{"b0"}
		if i < 2 {
			r = append(r, []string{"b1", "b2"}[i])
		}
		l.Shards = append(l.Shards, Shard{Key: fmt.Sprintf("s/%d", i), Stream: "s", Replicas: r, Leader: "b0"})
	}
	cfg := DefaultBrokerConfig()
	cfg.ReplicationFactor = 1
	p, err := BrokerDryRun(snapshot(t, l), cfg)
	if err != nil || p.Status != StatusBlockedCaps || p.Detail != "s" || p.Blocked != 4 { // as placement(1) says of this layout (broker-caps)
		t.Errorf("caps: %s detail %q blocked %d, %v", p.Status, p.Detail, p.Blocked, err)
	}

	// b0 drains, b1 and b2 share a zone: the replica cannot leave
	d := Layout{Members: []Member{{ID: "b0", Zone: "za", Draining: true}, {ID: "b1", Zone: "zb"}, {ID: "b2", Zone: "zb"}},
		Shards: []Shard{{Key: "k", Replicas: []string{"b1", "b0"}, Leader: "b1"}}}
	s := snapshot(t, d)
	v, err := s.View()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	stalls, err := v.BrokerDrainStalls()
	if err != nil || !reflect.DeepEqual(stalls, []DrainStall{{Shard: "k", Member: "b0", Reason: StallZones}}) {
		t.Errorf("stalls %+v, %v", stalls, err)
	}
	p, err = v.BrokerDryRun(DefaultBrokerConfig())
	if err != nil || p.Status != StatusDrainStalled || p.Detail != "k" {
		t.Errorf("drain: %s detail %q, %v", p.Status, p.Detail, err)
	}
}

// TestApply: a plan's actions, applied to another view of the same layout,
// leave it where the plan left its own; a clone changes on its own.
func TestApply(t *testing.T) {
	s := snapshot(t, skewed())
	a, _ := s.View()
	b, _ := s.View()
	defer a.Close()
	defer b.Close()
	cfg := DefaultBrokerConfig()
	cfg.MaxMoves = 3
	c, err := a.Clone()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := a.BrokerPlan(cfg)
	if err != nil || len(p.Actions) != 3 || p.Status != StatusMoveLimit || p.Wanted != 4 {
		t.Fatalf("%d actions, %s, wanted %d, %v", len(p.Actions), p.Status, p.Wanted, err)
	}
	for _, x := range p.Actions {
		if err := b.Apply(x); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []string{"b0", "b1", "b2"} {
		ta, _ := a.MemberTally(m)
		tb, _ := b.MemberTally(m)
		tc, _ := c.MemberTally(m)
		if ta != tb || (m == "b2" && tc.Leaders != 12) {
			t.Errorf("%s: planned %+v, applied %+v, clone %+v", m, ta, tb, tc)
		}
	}
	if a.Counts().Moving != 3 || b.Counts().Moving != 3 || c.Counts().Moving != 0 {
		t.Errorf("moving: %d %d %d", a.Counts().Moving, b.Counts().Moving, c.Counts().Moving)
	}
	if n, err := b.Settle(); n != 3 || err != nil {
		t.Errorf("settled %d, %v", n, err)
	}
	// an action of the caller's own making
	if err := b.Apply(Action{Kind: KindMoveLeader, Reason: ReasonClusterSkew, Shard: "perf/11", From: "b2", To: "b0"}); err != nil {
		t.Fatal(err)
	}
	st, err := b.ShardState("perf/11")
	if err != nil || st.Leader != "b0" || !st.Moving || st.Epoch != 1 || len(st.Replicas) != 3 {
		t.Errorf("state %+v, %v", st, err)
	}
	home, err := b.Home("perf/00")
	top, err2 := b.Top("perf/00", 3)
	if err != nil || err2 != nil || len(top) != 3 || top[0] != home {
		t.Errorf("home %q, top %v, %v %v", home, top, err, err2)
	}
}

// TestClose: a view keeps its snapshot until the view is closed; a closed
// snapshot takes no new view.
func TestClose(t *testing.T) {
	s, err := NewSnapshot(skewed())
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.View()
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s.arena == nil {
		t.Fatal("the snapshot was freed under an open view")
	}
	if _, err := s.View(); !errors.Is(err, ErrInval) {
		t.Errorf("a view of a closed snapshot: %v", err)
	}
	if p, err := v.BrokerDryRun(DefaultBrokerConfig()); err != nil || len(p.Actions) != 8 {
		t.Errorf("the open view: %v", err)
	}
	v.Close()
	if s.arena != nil {
		t.Error("the snapshot outlived its last view")
	}
	s.Close()
}

// TestFinalizers: snapshots, views and Views nobody closes are freed by
// the garbage collector, and closing frees at once.
func TestFinalizers(t *testing.T) {
	base := cMemory.Load()
	func() {
		s, _ := NewSnapshot(skewed())
		v, _ := s.View()
		c, _ := v.Clone()
		views := NewViews(nil)
		for i := 0; i < 3; i++ {
			n, _ := NewSnapshot(skewed())
			if _, err := views.Next(n); err != nil {
				t.Fatal(err)
			}
		}
		_, _ = c.BrokerPlan(DefaultBrokerConfig())
		if cMemory.Load() != base+3+3+2 { // s, v, c; the three snapshots given to Next; two buffers
			t.Errorf("%d C blocks held, want %d", cMemory.Load()-base, 8)
		}
	}()
	for i := 0; i < 20 && cMemory.Load() != base; i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if n := cMemory.Load() - base; n != 0 {
		t.Errorf("%d C blocks left after collection", n)
	}
	s, _ := NewSnapshot(skewed())
	views := NewViews(nil)
	_, _ = views.Next(s)
	s.Close()
	views.Close()
	if n := cMemory.Load() - base; n != 0 {
		t.Errorf("%d C blocks left after Close", n)
	}
}
