package placement_test

import (
	"errors"
	"fmt"

	"libplacement.dev/placement"
)

// A dry run: twelve shards of one stream, all led by b2, and the moves
// that even them out, one at a time.
func Example() {
	l := placement.Layout{Members: []placement.Member{{ID: "b0"}, {ID: "b1"}, {ID: "b2"}}}
	for i := 0; i < 12; i++ {
		l.Shards = append(l.Shards, placement.Shard{Key: fmt.Sprintf("perf/%02d", i), Stream: "perf",
			Replicas: []string{"b0", "b1", "b2"}, Leader: "b2"})
	}
	snap, err := placement.NewSnapshot(l)
	if err != nil {
		panic(err)
	}
	defer snap.Close()
	plan, err := placement.BrokerDryRun(snap, placement.DefaultBrokerConfig())
	if err != nil {
		panic(err)
	}
	a := plan.Actions[0]
	fmt.Println(a.Kind, a.Shard, a.From, "->", a.To, a.Reason)
	fmt.Println(a)
	fmt.Println(len(plan.Actions), "actions,", plan.Status)
	// Output:
	// move-leader perf/10 b2 -> b0 stream-skew
	// move leader of perf/10 from b2 to b0: stream perf leads 12 on b2, 0 on b0, floor 4, ceiling 4
	// 8 actions, balanced
}

// A kept stream (StreamKeep, Cruise Control's excluded topics): audit's
// leaders all sit on b0 and stay there; orders, led from b0 too, is
// balanced around it. b0 still leads 4 of the 6, past the totals' ceiling
// of 2, and no move may even them: the plan ends blocked-bounds.
func ExampleStream_keep() {
	l := placement.Layout{
		Members: []placement.Member{{ID: "b0"}, {ID: "b1"}, {ID: "b2"}},
		Streams: []placement.Stream{{ID: "audit", Flags: placement.StreamKeep}, {ID: "orders"}},
	}
	for _, s := range []string{"audit", "orders"} {
		for i := 0; i < 3; i++ {
			l.Shards = append(l.Shards, placement.Shard{Key: fmt.Sprint(s, "/", i), Stream: s,
				Replicas: []string{"b0", "b1", "b2"}, Leader: "b0"})
		}
	}
	snap, err := placement.NewSnapshot(l)
	if err != nil {
		panic(err)
	}
	defer snap.Close()
	plan, err := placement.BrokerDryRun(snap, placement.DefaultBrokerConfig())
	if err != nil {
		panic(err)
	}
	for _, a := range plan.Actions {
		fmt.Println(a.Kind, a.Shard, a.From, "->", a.To, a.Reason)
	}
	fmt.Println(plan.Status)
	// Output:
	// move-leader orders/0 b0 -> b1 stream-skew
	// move-leader orders/2 b0 -> b2 stream-skew
	// blocked-bounds
}

// An error names the element by index and id, and matches its code.
func ExampleError() {
	_, err := placement.NewSnapshot(placement.Layout{
		Members: []placement.Member{{ID: "b0"}, {ID: "b1"}},
		Shards:  []placement.Shard{{Key: "orders/0", Replicas: []string{"b0", "b7"}, Leader: "b0"}},
	})
	var e *placement.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code.String(), e.Kind, e.Index, e.ID, e.Reference)
	}
	fmt.Println(errors.Is(err, placement.ErrMemberRange))
	fmt.Println(err)
	// Output:
	// E_MEMBER_RANGE shard 0 orders/0 b7
	// true
	// E_MEMBER_RANGE: member index out of range (shard 0 "orders/0", names unknown "b7")
}

// Every broker down or draining is no error: the plan says the policy can
// do nothing.
func ExamplePlan_noEligible() {
	snap, err := placement.NewSnapshot(placement.Layout{
		Members: []placement.Member{{ID: "b0", Down: true}, {ID: "b1", Draining: true}},
		Shards:  []placement.Shard{{Key: "k", Replicas: []string{"b0", "b1"}, Leader: "b0"}},
	})
	if err != nil {
		panic(err)
	}
	defer snap.Close()
	plan, err := placement.BrokerDryRun(snap, placement.DefaultBrokerConfig())
	fmt.Println(plan.Status, plan.NoEligible, len(plan.Actions), err)
	// Output: stalled true 0 <nil>
}

// A fleet member's decision: m0 holds every shard through count overrides;
// it drops those that name the shard's ring home, makes one move, and the
// overrides it leaves are the next tick's document.
func ExampleView_FleetDecide() {
	l := placement.Layout{Members: []placement.Member{{ID: "m0"}, {ID: "m1"}, {ID: "m2"}}}
	for _, k := range []string{"a", "b", "c", "d", "e", "f"} {
		l.Shards = append(l.Shards, placement.Shard{Key: k})
		l.Overrides = append(l.Overrides, placement.Override{Shard: k, Member: "m0", Origin: placement.OriginCount, Since: 100})
	}
	snap, err := placement.NewSnapshot(l)
	if err != nil {
		panic(err)
	}
	defer snap.Close()
	view, err := snap.View()
	if err != nil {
		panic(err)
	}
	defer view.Close()
	cfg := placement.DefaultFleetConfig()
	cfg.Now = 1000
	plan, err := view.FleetDecide("m0", cfg)
	if err != nil {
		panic(err)
	}
	for _, a := range plan.Actions {
		fmt.Println(a.Kind, a.Reason, a.Shard, a.From, "->", a.To)
	}
	fmt.Println(plan.Status)
	doc, err := view.FormatOverrides()
	if err != nil {
		panic(err)
	}
	fmt.Print(doc)
	// Output:
	// drop-override redundant-override b m0 -> m0
	// drop-override redundant-override d m0 -> m0
	// drop-override redundant-override f m0 -> m0
	// set-override count a m0 -> m1
	// moving
	// placement-overrides 1
	// a m1 1000 count
	// c m0 100 count
	// e m0 100 count
}
