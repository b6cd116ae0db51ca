package placement

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// fleet is 12 shards over m0..m2, every one held by m0 through a count
// override written at 100.
func fleet(t *testing.T) *Snapshot {
	l := Layout{Members: members("m0", "m1", "m2")}
	for i := 0; i < 12; i++ {
		k := fmt.Sprintf("%02d", i)
		l.Shards = append(l.Shards, Shard{Key: k})
		l.Overrides = append(l.Overrides, Override{Shard: k, Member: "m0", Origin: OriginCount, Since: 100})
	}
	return snapshot(t, l)
}

func TestFleetDecide(t *testing.T) {
	s := fleet(t)
	v, err := s.View()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	owners, err := v.FleetOwners()
	if err != nil || len(owners) != 12 || owners[0] != "m0" || owners[11] != "m0" {
		t.Fatalf("owners %v, %v", owners, err)
	}
	cfg := DefaultFleetConfig()
	cfg.Now, cfg.MovesPerDecision = 1000, 3
	if cfg.LastMove != FleetNever || cfg.ReturnHomeAge != 300 || cfg.Cooldown != 5 {
		t.Errorf("defaults %+v", cfg)
	}
	p, err := v.FleetDecide("m0", cfg)
	// clean-up first (three overrides name their shard's ring home, m0),
	// then three count moves off m0
	if err != nil || len(p.Actions) != 6 || p.Status != StatusMoving {
		t.Fatalf("%d actions, %s, %v", len(p.Actions), p.Status, err)
	}
	moved := map[string]string{}
	for i, a := range p.Actions {
		if i < 3 {
			if a.Kind != KindDropOverride || a.Reason != ReasonRedundantOverride || a.From != "m0" || a.To != "m0" {
				t.Errorf("clean-up %d: %+v", i, a)
			}
			continue
		}
		if a.Reason != ReasonCount || a.From != "m0" || a.To == "m0" || a.Scope != ScopeOwned || a.Total != 12 ||
			a.FromCount != uint32(15-i) || a.Origin != OriginCount || !strings.Contains(a.String(), "over the share 4") {
			t.Errorf("move %d: %+v", i, a)
		}
		moved[a.Shard] = a.To
		if owner, _ := v.FleetOwner(a.Shard); owner != a.To {
			t.Errorf("%s: owner %s after a move to %s", a.Shard, owner, a.To)
		}
	}
	// the document of the overrides in force, read back
	doc, err := v.FormatOverrides()
	if err != nil || !strings.HasPrefix(doc, "placement-overrides 1\n") {
		t.Fatalf("document %q, %v", doc, err)
	}
	back, err := v.ReadOverrides(doc + "99 m0 5 lag\n00 gone 5\n")
	if err != nil || back.Skipped != 2 || len(back.Overrides) != 12-5 {
		t.Fatalf("read back: %+v, %v", back, err)
	}
	for _, o := range back.Overrides {
		if to, ok := moved[o.Shard]; ok && o.Member != to {
			t.Errorf("%s: override on %s after a move to %s", o.Shard, o.Member, to)
		}
	}
	next := Layout{Members: members("m0", "m1", "m2"), Overrides: back.Overrides}
	for _, k := range s.ShardKeys() {
		next.Shards = append(next.Shards, Shard{Key: k})
	}
	nv, err := snapshot(t, next).View()
	if err != nil {
		t.Fatal(err)
	}
	defer nv.Close()
	again, _ := nv.FleetOwners()
	now, _ := v.FleetOwners()
	if !reflect.DeepEqual(again, now) {
		t.Errorf("owners from the document %v, in the view %v", again, now)
	}

	// the cooldown runs after a move
	cfg.LastMove = 998
	p, err = nv.FleetDecide("m0", cfg)
	if err != nil || len(p.Actions) != 0 || p.Status != StatusCooldown {
		t.Errorf("in cooldown: %d actions, %s, %v", len(p.Actions), p.Status, err)
	}
}

func TestFleetErrors(t *testing.T) {
	s := fleet(t)
	v, _ := s.View()
	defer v.Close()
	_, err := v.FleetDecide("m9", DefaultFleetConfig())
	wantErr(t, err, ErrNotFound, ElemMember, -1, "m9")
	cfg := DefaultFleetConfig()
	cfg.MovesPerDecision = 0
	_, err = v.FleetDecide("m1", cfg)
	wantErr(t, err, ErrConfig, ElemConfig, 5, "")
	_, err = v.ReadOverrides("placement-overrides 1\n# ok\n00 m1\n")
	e := wantErr(t, err, ErrDocSyntax, ElemArgument, 2, "")
	if e.Other != 3 {
		t.Errorf("line %d", e.Other)
	}
	_, err = v.ReadOverrides("placement-overrides 2\n")
	wantErr(t, err, ErrDocVersion, ElemArgument, 2, "")
	_, err = v.ReadOverrides("placement-overrides 1\n00 m1 5 sideways\n")
	wantErr(t, err, ErrOrigin, ElemArgument, 2, "")
	if doc, err := v.ReadOverrides(""); err != nil || len(doc.Overrides) != 0 {
		t.Errorf("an empty document: %+v, %v", doc, err)
	}

	// no eligible member: a plan, as for the broker
	l := Layout{Members: []Member{{ID: "m0", Draining: true}}, Shards: []Shard{{Key: "00"}}}
	p, err := FleetDecide(snapshot(t, l), "m0", DefaultFleetConfig())
	if err != nil || !p.NoEligible || p.Status != StatusStalled {
		t.Errorf("no eligible member: %+v, %v", p, err)
	}
	nv, _ := snapshot(t, l).View()
	defer nv.Close()
	if _, err := nv.FleetOwners(); !errors.Is(err, ErrNoEligible) {
		t.Errorf("owners with no eligible member: %v", err)
	}
}
