package placement

import (
	"errors"
	"strings"
	"testing"
)

func members(ids ...string) []Member {
	var ms []Member
	for _, id := range ids {
		ms = append(ms, Member{ID: id})
	}
	return ms
}

// wantErr checks that err is an *Error with this code, kind, index and id.
func wantErr(t *testing.T, err error, code Code, kind ElementKind, index int, id string) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want an *Error %s", err, code)
	}
	if e.Code != code || e.Kind != kind || e.Index != index || e.ID != id || !errors.Is(err, code) {
		t.Fatalf("got %s (code %d kind %d index %d id %q), want %s %s %d %q", e, e.Code, e.Kind, e.Index, e.ID,
			code, kind, index, id)
	}
	return e
}

func TestSnapshotErrors(t *testing.T) {
	_, err := NewSnapshot(Layout{Members: members("b0", "b1", "b0")})
	e := wantErr(t, err, ErrDupMember, ElemMember, 2, "b0")
	if e.Other != 0 || e.Error() != `E_DUP_MEMBER: duplicate member id (member 2 "b0", clashes with 0)` {
		t.Errorf("other %d, message %q", e.Other, e.Error())
	}

	ms := members("b0", "b1")
	_, err = NewSnapshot(Layout{Members: ms, Shards: []Shard{{Key: "k", Replicas: []string{"b0", "b9"}}}})
	e = wantErr(t, err, ErrMemberRange, ElemShard, 0, "k")
	if e.Reference != "b9" || !strings.Contains(e.Error(), `names unknown "b9"`) {
		t.Errorf("reference %q in %q", e.Reference, e.Error())
	}
	_, err = NewSnapshot(Layout{Members: ms, Shards: []Shard{{Key: "a"}, {Key: "k", Replicas: []string{"b0"}, Leader: "b7"}}})
	wantErr(t, err, ErrMemberRange, ElemShard, 1, "k")
	_, err = NewSnapshot(Layout{Members: ms, Shards: []Shard{{Key: "k", Replicas: []string{"b0"}, OutOfSync: []string{"b1"}}}})
	e = wantErr(t, err, ErrMemberRange, ElemShard, 0, "k")
	if e.Reference != "b1" {
		t.Errorf("out-of-sync reference %q", e.Reference)
	}
	// the library's own checks, naming the element by id
	_, err = NewSnapshot(Layout{Members: ms, Shards: []Shard{{Key: "k", Replicas: []string{"b0"}, Leader: "b1"}}})
	wantErr(t, err, ErrLeaderNotReplica, ElemShard, 0, "k")
	_, err = NewSnapshot(Layout{Members: ms, Shards: []Shard{{Key: "k", Replicas: []string{"b0", "b0"}}}})
	wantErr(t, err, ErrDupReplica, ElemShard, 0, "k")
	_, err = NewSnapshot(Layout{Members: ms, Shards: []Shard{{Key: "k"}, {Key: "j"}, {Key: "k"}}})
	wantErr(t, err, ErrDupShard, ElemShard, 2, "k")
	_, err = NewSnapshot(Layout{Members: ms, Streams: []Stream{{ID: "s"}, {ID: "s"}}})
	wantErr(t, err, ErrDupStream, ElemStream, 1, "s")
	_, err = NewSnapshot(Layout{Members: ms, Streams: []Stream{{ID: "s"}, {ID: "t", Tolerance: MaxShardTolerance + 1, ToleranceSet: true}}})
	wantErr(t, err, ErrTolerance, ElemStream, 1, "t")
	_, err = NewSnapshot(Layout{Members: ms, Streams: []Stream{{ID: "s", Zones: 2}}})
	wantErr(t, err, ErrZoneRule, ElemStream, 0, "s")
	_, err = NewSnapshot(Layout{Members: ms, Streams: []Stream{{ID: "s"}, {ID: "t", Flags: 2}}})
	wantErr(t, err, ErrStreamFlags, ElemStream, 1, "t")
	_, err = NewSnapshot(Layout{Members: []Member{{ID: "b0"}, {ID: ""}}})
	wantErr(t, err, ErrEmptyID, ElemMember, 1, "")
	_, err = NewSnapshot(Layout{Members: []Member{{ID: "b0", Weight: 65537}}})
	wantErr(t, err, ErrWeight, ElemMember, 0, "b0")
	long := strings.Repeat("x", 1025)
	_, err = NewSnapshot(Layout{Members: []Member{{ID: long}}})
	e = wantErr(t, err, ErrLength, ElemMember, 0, long)
	if !strings.Contains(e.Error(), `"`+strings.Repeat("x", 48)+`"... (1025 bytes)`) {
		t.Errorf("a long id in a message: %q", e.Error())
	}
	nine := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}
	_, err = NewSnapshot(Layout{Members: members(nine...), Shards: []Shard{{Key: "k", Replicas: nine}}})
	wantErr(t, err, ErrReplicas, ElemShard, 0, "k")
	_, err = NewSnapshot(Layout{Members: ms, Shards: []Shard{{Key: "k", Replicas: []string{"b0"}, MovingTo: "b1"}}})
	wantErr(t, err, ErrMoveTarget, ElemShard, 0, "k")

	// overrides and copies: by the shard's key
	k := []Shard{{Key: "k", Replicas: []string{"b0"}, Leader: "b0"}}
	_, err = NewSnapshot(Layout{Members: ms, Shards: k, Overrides: []Override{{Shard: "q", Member: "b0"}}})
	e = wantErr(t, err, ErrOverrideShard, ElemOverride, 0, "q")
	_, err = NewSnapshot(Layout{Members: ms, Shards: k, Overrides: []Override{{Shard: "k", Member: "b5"}}})
	e = wantErr(t, err, ErrOverrideMember, ElemOverride, 0, "k")
	if e.Reference != "b5" {
		t.Errorf("override reference %q", e.Reference)
	}
	_, err = NewSnapshot(Layout{Members: ms, Shards: k, Overrides: []Override{{Shard: "k", Member: "b0"}, {Shard: "k", Member: "b1"}}})
	wantErr(t, err, ErrDupOverride, ElemOverride, 1, "k")
	_, err = NewSnapshot(Layout{Members: ms, Shards: k, Overrides: []Override{{Shard: "k", Member: "b0", Origin: 7}}})
	wantErr(t, err, ErrOrigin, ElemOverride, 0, "k")
	_, err = NewSnapshot(Layout{Members: ms, Shards: k, Copies: []Copy{{Shard: "q", To: "b1"}}})
	wantErr(t, err, ErrCopyShard, ElemCopy, 0, "q")
	_, err = NewSnapshot(Layout{Members: ms, Shards: k, Copies: []Copy{{Shard: "k", To: "b9"}}})
	wantErr(t, err, ErrCopyTo, ElemCopy, 0, "k")
	_, err = NewSnapshot(Layout{Members: ms, Shards: k, Copies: []Copy{{Shard: "k", To: "b1", From: "b9"}}})
	wantErr(t, err, ErrCopyFrom, ElemCopy, 0, "k")
	_, err = NewSnapshot(Layout{Members: ms, Shards: k, Copies: []Copy{{Shard: "k", To: "b0"}}})
	wantErr(t, err, ErrCopyTarget, ElemCopy, 0, "k")
	_, err = NewSnapshot(Layout{Members: ms, Shards: k, Copies: []Copy{{Shard: "k", To: "b1", From: "b1"}}})
	wantErr(t, err, ErrCopySource, ElemCopy, 0, "k")
	_, err = NewSnapshot(Layout{Members: ms, Shards: k, Copies: []Copy{{Shard: "k", To: "b1"}, {Shard: "k", To: "b1"}}})
	wantErr(t, err, ErrDupCopy, ElemCopy, 1, "k")

	// ids are bytes: NUL and non-UTF-8 included
	s, err := NewSnapshot(Layout{Members: members("b", "b\x00", "\xff"), Shards: []Shard{{Key: "k\x00", Replicas: []string{"b\x00"}, Leader: "b\x00"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	v, err := s.View()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	st, err := v.ShardState("k\x00")
	if err != nil || st.Leader != "b\x00" {
		t.Errorf("a NUL in an id: %+v %v", st, err)
	}
	_, err = v.ShardState("k")
	wantErr(t, err, ErrNotFound, ElemShard, -1, "k")
}

func TestPolicyErrors(t *testing.T) {
	s, err := NewSnapshot(Layout{Members: members("b0", "b1"), Shards: []Shard{{Key: "k"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = BrokerPlan(s, BrokerConfig{})
	wantErr(t, err, ErrConfig, ElemConfig, 1, "")
	cfg := DefaultBrokerConfig()
	cfg.ReplicationFactor = 9
	_, err = BrokerDryRun(s, cfg)
	wantErr(t, err, ErrConfig, ElemConfig, 5, "")
	_, err = NewView(s, &ViewOptions{Scorer: 99})
	wantErr(t, err, ErrScorer, ElemConfig, 1, "")
	_, err = NewView(s, &ViewOptions{Scorer: ScorerXXH3, MaxReplicas: 9})
	wantErr(t, err, ErrConfig, ElemConfig, 3, "")

	v, err := s.View()
	if err != nil {
		t.Fatal(err)
	}
	err = v.Apply(Action{Kind: KindSetLeader, Reason: ReasonNew, Shard: "k", To: "b0"}) // b0 holds no replica
	wantErr(t, err, ErrAction, ElemShard, 0, "k")
	err = v.Apply(Action{Kind: KindAddReplica, Reason: ReasonNew, Shard: "k", To: "b7"})
	wantErr(t, err, ErrNotFound, ElemMember, -1, "b7")
	_, err = v.Top("k", 9)
	wantErr(t, err, ErrInval, ElemArgument, 5, "")
	v.Close()
	v.Close()
	_, err = v.BrokerPlan(DefaultBrokerConfig())
	wantErr(t, err, ErrInval, ElemArgument, 1, "")
	if _, err = v.MemberTally("b0"); !errors.Is(err, ErrInval) {
		t.Errorf("a closed view's tally: %v", err)
	}
	if c := v.Counts(); c != (Counts{}) {
		t.Errorf("a closed view's counts: %+v", c)
	}
}
