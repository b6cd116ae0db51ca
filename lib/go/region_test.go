package placement

import (
	"reflect"
	"testing"
)

// regions is placement(1)'s region-stalls layout (tests/placement/golden).
func regions(t *testing.T) *Snapshot {
	l := Layout{Members: []Member{
		{ID: "n0", Zone: "a", JoinedAt: 1, MapVersion: 5, Load: 90},
		{ID: "n1", Zone: "b", JoinedAt: 2, MapVersion: 5, Load: 10},
		{ID: "n2", Zone: "c", JoinedAt: 3, MapVersion: 4, Load: 30},
		{ID: "n3", Zone: "c", JoinedAt: 4, MapVersion: 5, Unmeasured: true},
		{ID: "n4", Zone: "d", JoinedAt: 5, MapVersion: 5, Down: true},
	}, Shards: []Shard{
		{Key: "r0", Replicas: []string{"n0", "n1"}, Leader: "n0", Epoch: 5},
		{Key: "r1", Replicas: []string{"n0"}, Leader: "n0", Epoch: 5},
		{Key: "r2", Replicas: []string{"n0", "n1", "n3"}, Leader: "n0", Epoch: 5},
		{Key: "r3", Replicas: []string{"n0"}, Leader: "n0", Epoch: 5, NotIdempotent: true},
		{Key: "r4", Replicas: []string{"n0"}, Leader: "n0", Epoch: 5, TransferDebt: true},
		{Key: "r5", Replicas: []string{"n0", "n1"}, Leader: "n1", Epoch: 5},
		{Key: "r6", Replicas: []string{"n1"}, Leader: "n1", Epoch: 5},
		{Key: "r7", Replicas: []string{"n4"}, Leader: "n4", Epoch: 5},
	}}
	return snapshot(t, l)
}

// TestRegionPlan: tick by tick, the plan placement(1) makes of the same
// layout (tests/placement/golden/region-stalls.plan), then its stalls.
func TestRegionPlan(t *testing.T) {
	v, err := regions(t).View()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	cfg := DefaultRegionConfig()
	cfg.LoadBalance, cfg.LoadThreshold, cfg.MaxActions = true, 20, 4
	if rf, err := v.RegionEffectiveRF(cfg); rf != 3 || err != nil {
		t.Errorf("effective RF %d, %v", rf, err)
	}
	want := [][]string{
		{"add-replica r0 n3 under-rf", "add-replica r1 n3 under-rf", "add-replica r5 n3 under-rf", "add-replica r6 n3 under-rf"},
		{"add-replica r1 n1 under-rf", "add-replica r6 n0 under-rf", "move-leader r0 n3 newest-peer", "move-leader r2 n3 newest-peer"},
		{"move-leader r1 n3 newest-peer"},
		nil,
	}
	var p Plan
	var stalls []RegionStall
	for tick, w := range want {
		p, stalls, err = v.RegionPlan(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range p.Actions {
			got = append(got, a.Kind.String()+" "+a.Shard+" "+a.To+" "+a.Reason.String())
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("tick %d: %v, want %v", tick+1, got, w)
		}
		if _, err := v.Settle(); err != nil {
			t.Fatal(err)
		}
	}
	wantStalls := []RegionStall{
		{Region: "r7", Reason: RegionNoSource, Step: 1, Wanted: WantPrimary},            // its only peer is down
		{Region: "r5", Reason: RegionNotReady, Step: 2, Member: "n2", Wanted: WantPeer}, // n2 idle, its map behind
	}
	if p.Status != StatusStalled || p.Detail != "r7" || p.Blocked != 2 || !reflect.DeepEqual(stalls, wantStalls) {
		t.Errorf("end: %s detail %q blocked %d, stalls %+v", p.Status, p.Detail, p.Blocked, stalls)
	}
	if RegionNotReady.String() != "not-ready" || RegionNoSource.String() != "no-source" || WantPeer.String() != "peer" {
		t.Error("stall names")
	}
}

func TestCheckAddPeer(t *testing.T) {
	v, err := regions(t).View()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if err := v.CheckAddPeer("r0", "n3", 5); err != nil {
		t.Errorf("r0 onto n3: %v", err)
	}
	wantErr(t, v.CheckAddPeer("r3", "n3", 5), ErrNotIdempotent, ElemShard, 3, "r3")
	wantErr(t, v.CheckAddPeer("r4", "n3", 5), ErrTransferDebt, ElemShard, 4, "r4")
	wantErr(t, v.CheckAddPeer("r0", "n3", 4), ErrEpochStale, ElemShard, 0, "r0")
	wantErr(t, v.CheckAddPeer("r0", "n1", 5), ErrPeerDuplicate, ElemMember, 1, "n1")
	wantErr(t, v.CheckAddPeer("r0", "n4", 5), ErrMemberUnavailable, ElemMember, 4, "n4")
	wantErr(t, v.CheckAddPeer("r5", "n2", 5), ErrNotReady, ElemMember, 2, "n2")
	wantErr(t, v.CheckAddPeer("r9", "n2", 5), ErrNotFound, ElemShard, -1, "r9")
	cfg := DefaultRegionConfig()
	cfg.ReplicationFactor = 0
	_, _, err = v.RegionPlan(cfg)
	wantErr(t, err, ErrConfig, ElemConfig, 1, "")
	if _, err := v.RegionEffectiveRF(cfg); err == nil {
		t.Error("effective RF of a bad config")
	}
	l := Layout{Members: []Member{{ID: "n0", Down: true}}, Shards: []Shard{{Key: "r0", Replicas: []string{"n0"}, Leader: "n0"}}}
	nv, _ := snapshot(t, l).View()
	defer nv.Close()
	p, stalls, err := nv.RegionPlan(DefaultRegionConfig())
	if err != nil || !p.NoEligible || p.Status != StatusStalled || stalls != nil {
		t.Errorf("no eligible member: %+v %v %v", p, stalls, err)
	}
}
