package placement

import (
	"fmt"
	"testing"
	"unsafe"
)

const gib = uint64(1) << 30

// drainLayout: four members, b0 draining; shards of 1G..6G with two
// replicas each, and one of 7G on all four (its leadership can only be
// handed off). sizes false leaves every size unknown.
func drainLayout(sizes bool) Layout {
	l := Layout{Members: []Member{
		{ID: "b0", Draining: true, Capacity: 100 * gib, CapacityKnown: true},
		{ID: "b1", Capacity: 100 * gib, CapacityKnown: true},
		{ID: "b2", Capacity: 100 * gib, CapacityKnown: true},
		{ID: "b3"},
	}}
	pairs := [][2]string{{"b0", "b1"}, {"b0", "b2"}, {"b1", "b0"}, {"b2", "b0"}, {"b1", "b2"}, {"b0", "b3"}}
	for i, p := range pairs {
		l.Shards = append(l.Shards, Shard{Key: fmt.Sprintf("s/%d", i), Stream: "s", Replicas: []string{p[0], p[1]},
			Leader: p[0], Size: uint64(i+1) * gib, SizeKnown: sizes})
	}
	l.Shards = append(l.Shards, Shard{Key: "h", Stream: "s", Replicas: []string{"b0", "b1", "b2", "b3"}, Leader: "b0",
		Size: 7 * gib, SizeKnown: sizes})
	return l
}

func TestBytesArraysOnlyWhenKnown(t *testing.T) {
	s, err := NewSnapshot(Layout{Members: []Member{{ID: "a"}}, Shards: []Shard{{Key: "k", Replicas: []string{"a"}, Leader: "a"}}})
	if err != nil {
		t.Fatal(err)
	}
	if s.c.version != 5 || s.c.shard_bytes != nil || s.c.member_capacity != nil {
		t.Errorf("no size known: version %d, arrays %p %p", s.c.version, s.c.shard_bytes, s.c.member_capacity)
	}
	s.Close()
	s, err = NewSnapshot(Layout{Members: []Member{{ID: "a"}, {ID: "b", Capacity: 5, CapacityKnown: true}},
		Shards: []Shard{{Key: "k", Replicas: []string{"a"}, Leader: "a"}, {Key: "q", SizeKnown: true}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	caps := unsafe.Slice(s.c.member_capacity, 2)
	sizes := unsafe.Slice(s.c.shard_bytes, 2)
	if uint64(caps[0]) != BytesUnknown || caps[1] != 5 || uint64(sizes[0]) != BytesUnknown || sizes[1] != 0 {
		t.Errorf("capacities %v, sizes %v", caps, sizes)
	}
	v, err := s.View()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.Counts().Shards != 2 {
		t.Errorf("%+v", v.Counts())
	}
}

func TestBytesRefused(t *testing.T) {
	m := func(id string, c uint64) Member { return Member{ID: id, Capacity: c, CapacityKnown: true} }
	k := func(key string, b uint64) Shard { return Shard{Key: key, Size: b, SizeKnown: true} }
	for _, c := range []struct {
		l     Layout
		code  Code
		kind  ElementKind
		index int
		id    string
	}{
		{Layout{Members: []Member{{ID: "a"}, m("b", 0)}}, ErrCapacity, ElemMember, 1, "b"},
		{Layout{Members: []Member{m("a", MaxBytes+1)}}, ErrBytes, ElemMember, 0, "a"},
		{Layout{Members: []Member{m("a", MaxBytes)}, Shards: []Shard{k("x", 1<<59), {Key: "u"}, k("y", 1)}},
			ErrBytes, ElemShard, 2, "y"},
		{Layout{Members: []Member{{ID: "a"}}, Shards: []Shard{k("x", BytesUnknown-1)}}, ErrBytes, ElemShard, 0, "x"},
	} {
		_, err := NewSnapshot(c.l)
		wantErr(t, err, c.code, c.kind, c.index, c.id)
	}
	// at the limits, and unknown ones, are taken
	s, err := NewSnapshot(Layout{Members: []Member{m("a", MaxBytes)},
		Shards: []Shard{k("x", 1<<58), k("y", 1<<58), {Key: "z"}}})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

func TestBytesConfig(t *testing.T) {
	d := DefaultBrokerConfig()
	if !d.BytesBalance || d.BytesFirst || d.FullRatio != 90 || d.BytesTolerance != 10 ||
		d.MaxBytesInFlight != 0 || d.MaxBytesIn != 0 || d.MaxBytesOut != 0 {
		t.Errorf("defaults %+v", d)
	}
	s, err := NewSnapshot(drainLayout(true))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bad := d
	bad.FullRatio = 101
	_, err = BrokerPlan(s, bad)
	wantErr(t, err, ErrConfig, ElemConfig, 11, "")
	bad = d
	bad.BytesTolerance = MaxTolerance + 1
	_, err = BrokerPlan(s, bad)
	wantErr(t, err, ErrConfig, ElemConfig, 12, "")
	// every field reaches the C struct
	ok := d
	ok.BytesBalance, ok.BytesFirst, ok.FullRatio, ok.BytesTolerance = false, true, 100, MaxTolerance
	ok.MaxBytesInFlight, ok.MaxBytesIn, ok.MaxBytesOut = ^uint64(0), gib, 1
	r := ok.c()
	if r.version != 4 || r.bytes_balance != 0 || r.bytes_first != 1 || r.full_ratio != 100 || r.bytes_tolerance != MaxTolerance ||
		r.reserved != 0 || uint64(r.max_bytes_in_flight) != ^uint64(0) || uint64(r.max_bytes_in) != gib || r.max_bytes_out != 1 {
		t.Errorf("%+v", r)
	}
	if _, err := BrokerPlan(s, ok); err != nil {
		t.Error(err)
	}
	ok = d
	ok.FullRatio, ok.BytesTolerance = 0, 0
	if _, err := BrokerPlan(s, ok); err != nil {
		t.Error(err)
	}
}

func TestBytesOfADrain(t *testing.T) {
	l := drainLayout(true)
	size := map[string]uint64{}
	held := map[string]uint64{}
	for _, k := range l.Shards {
		size[k.Key] = k.Size
		for _, r := range k.Replicas {
			held[r] += k.Size
		}
	}
	s, err := NewSnapshot(l)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := BrokerDryRun(s, DefaultBrokerConfig())
	if err != nil {
		t.Fatal(err)
	}
	moves, handoffs, drains := 0, 0, 0
	for _, a := range p.Actions {
		switch {
		case a.Kind == KindMoveReplica:
			moves++
			if a.Reason == ReasonReplicaDrain {
				drains++
			}
			if !a.StageFirst || !a.BytesKnown || a.Bytes != size[a.Shard] || a.BytesLimit != 0 {
				t.Errorf("%s: bytes %d known %v, want %d", a, a.Bytes, a.BytesKnown, size[a.Shard])
			}
		case a.Kind == KindMoveLeader && !a.StageFirst:
			handoffs++
			if !a.BytesKnown || a.Bytes != 0 || a.FromBytes != 0 || a.ToBytes != 0 {
				t.Errorf("hand-off %s: bytes %d known %v from %d to %d", a, a.Bytes, a.BytesKnown, a.FromBytes, a.ToBytes)
			}
		}
		if a.StageFirst {
			// what its members held before it
			if a.FromBytes != held[a.From] || a.ToBytes != held[a.To] || a.Bytes != size[a.Shard] {
				t.Errorf("%s: from %d to %d, want %d %d", a, a.FromBytes, a.ToBytes, held[a.From], held[a.To])
			}
			held[a.From] -= a.Bytes
			held[a.To] += a.Bytes
		}
	}
	if moves == 0 || handoffs == 0 || drains == 0 {
		t.Errorf("%d moves (%d drains), %d hand-offs: %v", moves, drains, handoffs, p.Actions)
	}
	if held["b0"] != 7*gib {
		t.Errorf("b0 ends with %d bytes", held["b0"])
	}
}

func TestBytesUnknownIsNotZero(t *testing.T) {
	s, err := NewSnapshot(drainLayout(false))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := BrokerDryRun(s, DefaultBrokerConfig())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range p.Actions {
		if a.StageFirst {
			n++
			if a.BytesKnown || a.FromBytes != 0 || a.ToBytes != 0 {
				t.Errorf("%s: bytes %d known %v", a, a.Bytes, a.BytesKnown)
			}
		}
	}
	if n == 0 {
		t.Error("no copy")
	}
	if ScopeBytes.String() != "bytes" || StatusBlockedFull.String() != "blocked-full" || ReasonFullRatio.String() != "full-ratio" {
		t.Error(ScopeBytes, StatusBlockedFull, ReasonFullRatio)
	}
}

// TestBytesExchange: twelve leaders (RF 1) 4/4/4 by count, 120G/80G/40G by
// bytes: two exchanges of a 30G and a 10G shard between b0 and b2 even the
// bytes and keep the leaders as they were.
func TestBytesExchange(t *testing.T) {
	l := Layout{Members: []Member{{ID: "b0"}, {ID: "b1"}, {ID: "b2"}}}
	for i := 0; i < 12; i++ {
		m := fmt.Sprintf("b%d", i/4)
		size := uint64(10)
		if i < 6 {
			size = 30
		}
		l.Shards = append(l.Shards, Shard{Key: fmt.Sprintf("q/%02d", i), Stream: "q", Replicas: []string{m}, Leader: m,
			Size: size * gib, SizeKnown: true})
	}
	s, err := NewSnapshot(l)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cfg := DefaultBrokerConfig()
	cfg.MaxMoves = 2
	p, err := BrokerDryRun(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]uint64{"b0": 120 * gib, "b1": 80 * gib, "b2": 40 * gib}
	for _, a := range p.Actions {
		if a.Reason != ReasonBytesSkew || !a.Exchange || !a.CarriesLeader {
			t.Errorf("%s: not an exchange for bytes", a)
		}
		held[a.From] -= a.Bytes
		held[a.To] += a.Bytes
	}
	if len(p.Actions) != 4 || held["b0"] != 80*gib || held["b1"] != 80*gib || held["b2"] != 80*gib {
		t.Errorf("%d actions, held %v", len(p.Actions), held)
	}
}
