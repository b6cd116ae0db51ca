package placement

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// keepLayout: 3 members, RF 3 (every member holds every replica): stream
// t's six leaders and stream k's six all on b0; k is listed second (index
// 1), with flags f.
func keepLayout(t *testing.T, f StreamFlags, b0Down bool) *Snapshot {
	t.Helper()
	l := Layout{Members: []Member{{ID: "b0", Down: b0Down}, {ID: "b1"}, {ID: "b2"}},
		Streams: []Stream{{ID: "t"}, {ID: "k", Flags: f}}}
	for _, st := range []string{"t", "k"} {
		for i := 0; i < 6; i++ {
			l.Shards = append(l.Shards, Shard{Key: fmt.Sprintf("%s/%d", st, i), Stream: st,
				Replicas: []string{"b0", "b1", "b2"}, Leader: "b0"})
		}
	}
	s, err := NewSnapshot(l)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func rf3() BrokerConfig {
	c := DefaultBrokerConfig()
	c.ReplicationFactor = 3
	return c
}

func streamFlags(s *Snapshot) []uint32 {
	if s.c.stream_flags == nil {
		return nil
	}
	return append([]uint32(nil), unsafe.Slice((*uint32)(unsafe.Pointer(s.c.stream_flags)), int(s.c.n_streams))...)
}

// namesKept: the actions that name a shard of stream k, or k itself.
func namesKept(p Plan) []string {
	var out []string
	for _, a := range p.Actions {
		if strings.HasPrefix(a.Shard, "k/") || a.Stream == "k" {
			out = append(out, a.String())
		}
	}
	return out
}

func TestKeepDefaultsAndArrays(t *testing.T) {
	if StreamKeep != 1 || StreamFlagsAll != 1 || ErrStreamFlags != -42 {
		t.Errorf("constants %d %d %d", StreamKeep, StreamFlagsAll, ErrStreamFlags)
	}
	k := []Shard{{Key: "x", Stream: "named", Replicas: []string{"a"}, Leader: "a"}}
	s, err := NewSnapshot(Layout{Members: members("a"), Shards: k,
		Streams: []Stream{{ID: "s", Tolerance: 1, ToleranceSet: true, Zones: ZonesMajority}}})
	if err != nil {
		t.Fatal(err)
	}
	if f := streamFlags(s); f != nil {
		t.Errorf("no stream keeps: %v", f)
	}
	s.Close()
	s, err = NewSnapshot(Layout{Members: members("a"), Shards: k, Streams: []Stream{{ID: "s"}, {ID: "t", Flags: StreamKeep}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if f := streamFlags(s); fmt.Sprint(f) != "[0 1 0]" {
		t.Errorf("flags %v", f)
	}
}

func TestKeepNoBalanceMoveTakesAKeptShard(t *testing.T) {
	free := keepLayout(t, 0, false)
	defer free.Close()
	if p, err := BrokerDryRun(free, rf3()); err != nil || len(namesKept(p)) == 0 {
		t.Fatalf("without keep, k's leaders are balanced too: %s %v", moveList(p), err)
	}
	s := keepLayout(t, StreamKeep, false)
	defer s.Close()
	dry, err := BrokerDryRun(s, rf3())
	if err != nil {
		t.Fatal(err)
	}
	plan, err := BrokerPlan(s, rf3())
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []Plan{dry, plan} {
		if len(p.Actions) == 0 {
			t.Errorf("%d: stream t is still balanced", i)
		}
		if kept := namesKept(p); len(kept) != 0 {
			t.Errorf("%d: a balance move takes a kept shard: %v", i, kept)
		}
		for _, a := range p.Actions {
			if a.Reason != ReasonStreamSkew {
				t.Errorf("%d: %s", i, a)
			}
		}
	}
	if dry.Status != StatusBlockedBounds || dry.Detail != "" { // b0 still leads k's: the totals cannot even
		t.Errorf("status %s", dry.Status)
	}
}

func TestKeepFailoverStillMovesKeptShards(t *testing.T) {
	s := keepLayout(t, StreamKeep, true)
	defer s.Close()
	p, err := BrokerDryRun(s, rf3())
	if err != nil {
		t.Fatal(err)
	}
	led := map[string]bool{}
	for _, a := range p.Actions {
		if a.Reason == ReasonFailover {
			led[a.Shard] = true
		}
	}
	for i := 0; i < 6; i++ {
		if k := fmt.Sprintf("k/%d", i); !led[k] {
			t.Errorf("%s not failed over: %s", k, moveList(p))
		}
	}
}

func TestKeepUnknownFlagIsRefused(t *testing.T) {
	_, err := NewSnapshot(Layout{Members: members("a"), Streams: []Stream{{ID: "t"}, {ID: "k", Flags: 0x2}}})
	e := wantErr(t, err, ErrStreamFlags, ElemStream, 1, "k")
	if e != nil && !strings.Contains(e.Error(), "unknown stream flags") {
		t.Errorf("%q", e.Error())
	}
	_, err = NewSnapshot(Layout{Members: members("a"), Streams: []Stream{{ID: "k", Flags: StreamKeep | 0x2}}})
	wantErr(t, err, ErrStreamFlags, ElemStream, 0, "k")
}
