package placement

import (
	"fmt"
	"testing"
	"unsafe"
)

// skewedTolerance: 3 members, one stream s of 12 shards (RF 1) led 5/4/3:
// the stream's floor and ceiling, and the totals', are 4 on every member,
// so b0 and b2 are each one shard off without a tolerance.
func skewedTolerance(t *testing.T, st Stream) *Snapshot {
	t.Helper()
	l := Layout{Members: members("b0", "b1", "b2"), Streams: []Stream{st}}
	for _, mc := range []struct {
		m string
		n int
	}{{"b0", 5}, {"b1", 4}, {"b2", 3}} {
		for i := 0; i < mc.n; i++ {
			l.Shards = append(l.Shards, Shard{Key: fmt.Sprintf("s/%s%d", mc.m, i), Stream: "s", Replicas: []string{mc.m}, Leader: mc.m})
		}
	}
	s, err := NewSnapshot(l)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func rf1() BrokerConfig {
	c := DefaultBrokerConfig()
	c.ReplicationFactor = 1
	return c
}

func streamRules(s *Snapshot) (tol, zones []uint32) {
	n := int(s.c.n_streams)
	if s.c.stream_tolerance != nil {
		tol = append(tol, unsafe.Slice((*uint32)(unsafe.Pointer(s.c.stream_tolerance)), n)...)
	}
	if s.c.stream_zone_rule != nil {
		zones = append(zones, unsafe.Slice((*uint32)(unsafe.Pointer(s.c.stream_zone_rule)), n)...)
	}
	return tol, zones
}

func moveList(p Plan) string {
	out := ""
	for _, a := range p.Actions {
		out += fmt.Sprintf("%s %s>%s;", a.Kind, a.From, a.To)
	}
	return out
}

func TestToleranceDefaults(t *testing.T) {
	d := DefaultBrokerConfig()
	if d.Tolerance != 0 || d.StreamTolerance != 0 {
		t.Errorf("defaults %d %d", d.Tolerance, d.StreamTolerance)
	}
	d.Tolerance, d.StreamTolerance = 3, 4
	if r := d.c(); r.version != 4 || r.tolerance != 3 || r.stream_tolerance != 4 {
		t.Errorf("%+v", r)
	}
	if MaxShardTolerance != 1<<26 || ZonesSpan != 0 || ZonesMajority != 1 {
		t.Errorf("constants %d %d %d", MaxShardTolerance, ZonesSpan, ZonesMajority)
	}
	if ZonesSpan.String() != "span" || ZonesMajority.String() != "majority" || ZoneRule(7).String() != "ZoneRule(7)" {
		t.Errorf("names %s %s %s", ZonesSpan, ZonesMajority, ZoneRule(7))
	}
}

// The arrays only when a listed stream sets a rule, then for every stream
// (a stream only the shards name has the defaults).
func TestToleranceArrays(t *testing.T) {
	k := []Shard{{Key: "k", Stream: "named", Replicas: []string{"a"}, Leader: "a"}}
	s, err := NewSnapshot(Layout{Members: members("a"), Streams: []Stream{{ID: "s"}}, Shards: k})
	if err != nil {
		t.Fatal(err)
	}
	if s.c.version != 5 {
		t.Errorf("version %d", s.c.version)
	}
	if tol, zones := streamRules(s); tol != nil || zones != nil {
		t.Errorf("no rule set: %v %v", tol, zones)
	}
	s.Close()
	s, err = NewSnapshot(Layout{Members: members("a"), Shards: k, Streams: []Stream{{ID: "s"},
		{ID: "t", Tolerance: 3, ToleranceSet: true}, {ID: "u", Zones: ZonesMajority}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := uint32(1<<32 - 1)
	tol, zones := streamRules(s)
	if fmt.Sprint(tol) != fmt.Sprint([]uint32{d, 3, d, d}) || fmt.Sprint(zones) != "[0 0 1 0]" {
		t.Errorf("rules %v %v", tol, zones)
	}
}

func TestToleranceWithinTheWidenedBoundsMovesNothing(t *testing.T) {
	none := skewedTolerance(t, Stream{ID: "s"})
	defer none.Close()
	p, err := BrokerDryRun(none, rf1())
	if err != nil || moveList(p) != "move-leader b0>b2;" || p.Status != StatusBalanced {
		t.Fatalf("without a tolerance: %s %s %v", moveList(p), p.Status, err)
	}
	both := rf1()
	both.Tolerance, both.StreamTolerance = 1, 1
	tot := rf1()
	tot.Tolerance = 1
	max := rf1()
	max.Tolerance = MaxShardTolerance
	for i, c := range []struct {
		st  Stream
		cfg BrokerConfig
	}{
		{Stream{ID: "s"}, both},                                                  // the config's for every stream
		{Stream{ID: "s", Tolerance: 1, ToleranceSet: true}, tot},                 // the stream's own
		{Stream{ID: "s", Tolerance: MaxShardTolerance, ToleranceSet: true}, max}, // the limits themselves
	} {
		s := skewedTolerance(t, c.st)
		p, err := BrokerDryRun(s, c.cfg)
		if err != nil || len(p.Actions) != 0 || p.Status != StatusBalanced {
			t.Errorf("%d: %s %s %v", i, moveList(p), p.Status, err)
		}
		if p, err = BrokerPlan(s, c.cfg); err != nil || p.Status != StatusBalanced {
			t.Errorf("%d: plan %s %v", i, p.Status, err)
		}
		s.Close()
	}
}

func TestToleranceNotWidenedStillMoves(t *testing.T) {
	tot := rf1()
	tot.Tolerance = 1
	str := rf1()
	str.StreamTolerance = 1
	both := rf1()
	both.Tolerance, both.StreamTolerance = 1, 1
	for i, c := range []struct {
		st  Stream
		cfg BrokerConfig
	}{
		{Stream{ID: "s"}, tot}, // the stream's bounds are not widened
		{Stream{ID: "s"}, str}, // nor the totals'
		{Stream{ID: "s", Tolerance: 0, ToleranceSet: true}, both}, // the stream's over the config's
	} {
		s := skewedTolerance(t, c.st)
		p, err := BrokerDryRun(s, c.cfg)
		if err != nil || moveList(p) != "move-leader b0>b2;" {
			t.Errorf("%d: %s %v", i, moveList(p), err)
		}
		s.Close()
	}
}

// The majority rule is carried; what the policy does with it is the library's.
func TestToleranceMajorityIsCarried(t *testing.T) {
	s := skewedTolerance(t, Stream{ID: "s", Zones: ZonesMajority})
	defer s.Close()
	if _, zones := streamRules(s); fmt.Sprint(zones) != "[1]" {
		t.Errorf("zones %v", zones)
	}
	if p, err := BrokerDryRun(s, rf1()); err != nil || p.Status != StatusBalanced {
		t.Errorf("%s %v", p.Status, err)
	}
}

func TestToleranceRefusals(t *testing.T) {
	s := skewedTolerance(t, Stream{ID: "s"})
	defer s.Close()
	bad := rf1()
	bad.Tolerance = MaxShardTolerance + 1
	_, err := BrokerPlan(s, bad)
	wantErr(t, err, ErrConfig, ElemConfig, 17, "")
	bad = rf1()
	bad.StreamTolerance = MaxShardTolerance + 1
	_, err = BrokerDryRun(s, bad)
	wantErr(t, err, ErrConfig, ElemConfig, 18, "")
	_, err = NewSnapshot(Layout{Members: members("a"), Streams: []Stream{{ID: "s"}, {ID: "t", Tolerance: MaxShardTolerance + 1, ToleranceSet: true}}})
	wantErr(t, err, ErrTolerance, ElemStream, 1, "t")
	_, err = NewSnapshot(Layout{Members: members("a"), Streams: []Stream{{ID: "s", Zones: ZonesMajority + 1}}})
	wantErr(t, err, ErrZoneRule, ElemStream, 0, "s")
	// PL_TOLERANCE_DEFAULT set is the default, not a tolerance past the limit
	ok, err := NewSnapshot(Layout{Members: members("a"), Streams: []Stream{{ID: "s", Tolerance: 1<<32 - 1, ToleranceSet: true}}})
	if err != nil {
		t.Fatal(err)
	}
	ok.Close()
}
