package placement_test

import (
	"fmt"
	"reflect"
	"strings"

	"libplacement.dev/placement"
)

// partition is the controller's own model of a shard.
type partition struct {
	key, topic string
	replicas   []string
	leader     string
}

var racks = [][2]string{{"b0", "a"}, {"b1", "a"}, {"b2", "b"}, {"b3", "b"}, {"b4", "c"}, {"b5", "c"}, {"b6", "d"}}

// model is an uneven start: orders led from rack a, b6 (alone in rack d)
// holding a third of the replicas.
func model() []*partition {
	var ps []*partition
	for _, t := range []struct {
		topic string
		n     int
	}{{"orders", 12}, {"clicks", 6}} {
		for k := 0; k < t.n; k++ {
			n := len(ps)
			r := []string{[]string{"b0", "b1"}[n%2], []string{"b2", "b3"}[n%3%2], []string{"b4", "b6", "b6", "b5"}[n%4]}
			leader := r[0]
			if t.topic == "clicks" {
				leader = r[n%3]
			}
			ps = append(ps, &partition{fmt.Sprintf("%s/%02d", t.topic, k), t.topic, r, leader})
		}
	}
	return ps
}

func snapshotOf(ps []*partition, draining string) (*placement.Snapshot, error) {
	var l placement.Layout
	for _, r := range racks {
		l.Members = append(l.Members, placement.Member{ID: r[0], Zone: r[1], Draining: r[0] == draining})
	}
	for _, p := range ps {
		l.Shards = append(l.Shards, placement.Shard{Key: p.key, Stream: p.topic, Replicas: p.replicas, Leader: p.leader})
	}
	return placement.NewSnapshot(l)
}

// carryOut does an action to the model, as the brokers would; false when
// it does not fit the model.
func carryOut(ps []*partition, a placement.Action) bool {
	for _, p := range ps {
		if p.key != a.Shard {
			continue
		}
		holds := func(m string) bool {
			for _, r := range p.replicas {
				if r == m {
					return true
				}
			}
			return false
		}
		switch {
		case a.Kind == placement.KindSetLeader && holds(a.To):
			p.leader = a.To
		case a.Kind == placement.KindMoveLeader && p.leader == a.From && holds(a.To) != a.StageFirst:
			if a.StageFirst { // a copy on To replaces the old leader's replica
				for i := range p.replicas {
					if p.replicas[i] == a.From {
						p.replicas[i] = a.To
					}
				}
			}
			p.leader = a.To
		case a.Kind == placement.KindAddReplica && !holds(a.To):
			p.replicas = append(p.replicas, a.To)
		case a.Kind == placement.KindMoveReplica && holds(a.From) && !holds(a.To) && (p.leader == a.From) == a.CarriesLeader:
			for i := range p.replicas {
				if p.replicas[i] == a.From {
					p.replicas[i] = a.To
				}
			}
			if a.CarriesLeader {
				p.leader = a.To
			}
		default:
			return false
		}
		return true
	}
	return false
}

// A control plane's tick loop: every tick it builds a snapshot of its own
// model, the tick's view with the previous tick's as the hint (Views, two
// buffers), asks the broker policy for at most 4 moves, and carries them
// out on its model. Once a tick is quiet it drains b6, and goes on until a
// tick is quiet again. Each line: actions, status, then leaders/replicas
// per broker.
func ExampleViews() {
	cfg := placement.DefaultBrokerConfig()
	cfg.MaxMoves = 4
	views := placement.NewViews(nil)
	defer views.Close()
	ps, draining := model(), ""
	var prev *placement.Snapshot
	for tick := 1; tick <= 30; tick++ {
		snap, err := snapshotOf(ps, draining)
		if err != nil {
			panic(err)
		}
		view, err := views.Next(snap) // last tick's view is the hint
		if err != nil {
			panic(err)
		}
		if prev != nil {
			prev.Close() // freed once last tick's view is done with it
		}
		prev = snap
		plan, err := view.BrokerPlan(cfg)
		if err != nil {
			panic(err)
		}
		line := fmt.Sprintf("tick %2d: %d actions, %-10s", tick, len(plan.Actions), plan.Status)
		for _, a := range plan.Actions {
			if !carryOut(ps, a) {
				panic("does not fit the model: " + a.String())
			}
		}
		for _, r := range racks {
			leads, holds := 0, 0
			for _, p := range ps {
				if p.leader == r[0] {
					leads++
				}
				if strings.Contains(","+strings.Join(p.replicas, ",")+",", ","+r[0]+",") {
					holds++
				}
			}
			line += fmt.Sprintf(" %s %d/%d", r[0], leads, holds)
		}
		fmt.Println(line)
		if len(plan.Actions) > 0 {
			continue
		}
		if draining != "" || plan.Status != placement.StatusBalanced {
			break
		}
		fmt.Println("balanced; b6 drains")
		draining = "b6"
	}
	// The final model: a view built with the last tick's as the hint plans
	// what a fresh view plans.
	snap, err := snapshotOf(ps, draining)
	if err != nil {
		panic(err)
	}
	defer snap.Close()
	prev.Close()
	reused, err := views.Next(snap)
	if err != nil {
		panic(err)
	}
	fresh, err := snap.View()
	if err != nil {
		panic(err)
	}
	defer fresh.Close()
	p1, err1 := reused.BrokerPlan(cfg)
	p2, err2 := fresh.BrokerPlan(cfg)
	fmt.Println("reused and fresh plan alike:", reflect.DeepEqual(p1, p2) && err1 == nil && err2 == nil, p1.Status)
	// Output:
	// tick  1: 4 actions, move-limit b0 5/8 b1 5/8 b2 1/12 b3 3/6 b4 1/6 b5 1/5 b6 2/9
	// tick  2: 4 actions, move-limit b0 3/8 b1 3/8 b2 2/12 b3 3/6 b4 2/6 b5 2/5 b6 3/9
	// tick  3: 2 actions, in-flight  b0 3/8 b1 3/8 b2 2/12 b3 2/6 b4 3/6 b5 3/6 b6 2/8
	// tick  4: 4 actions, balanced   b0 3/8 b1 3/8 b2 2/8 b3 2/8 b4 3/7 b5 3/7 b6 2/8
	// tick  5: 0 actions, balanced   b0 3/8 b1 3/8 b2 2/8 b3 2/8 b4 3/7 b5 3/7 b6 2/8
	// balanced; b6 drains
	// tick  6: 4 actions, move-limit b0 3/8 b1 3/9 b2 3/8 b3 3/9 b4 3/7 b5 3/8 b6 0/5
	// tick  7: 4 actions, move-limit b0 3/8 b1 3/9 b2 3/9 b3 3/9 b4 3/9 b5 3/9 b6 0/1
	// tick  8: 1 actions, balanced   b0 3/9 b1 3/9 b2 3/9 b3 3/9 b4 3/9 b5 3/9 b6 0/0
	// tick  9: 0 actions, balanced   b0 3/9 b1 3/9 b2 3/9 b3 3/9 b4 3/9 b5 3/9 b6 0/0
	// reused and fresh plan alike: true balanced
}
