package placement_test

import (
	"errors"
	"reflect"
	"testing"

	"libplacement.dev/placement"
)

// TestViewsReuse: the tick loop of ExampleViews, where every tick's view
// (built in Views' buffers with the last tick's as the hint) plans what a
// fresh view of the same snapshot plans, the last tick's view is still
// usable, and the one before it is closed.
func TestViewsReuse(t *testing.T) {
	cfg := placement.DefaultBrokerConfig()
	cfg.MaxMoves = 4
	views := placement.NewViews(nil)
	defer views.Close()
	ps, draining := model(), ""
	var older, last *placement.View
	ticks := 0
	for ; ticks < 30; ticks++ {
		if ticks == 6 {
			draining = "b6"
		}
		snap, err := snapshotOf(ps, draining)
		if err != nil {
			t.Fatal(err)
		}
		view, err := views.Next(snap)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := snap.View() // no hint
		if err != nil {
			t.Fatal(err)
		}
		snap.Close() // the views keep it open
		if _, err := snap.View(); !errors.Is(err, placement.ErrInval) {
			t.Fatalf("a view of a closed snapshot: %v", err)
		}
		want, err := fresh.BrokerPlan(cfg)
		fresh.Close()
		if err != nil {
			t.Fatal(err)
		}
		got, err := view.BrokerPlan(cfg)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("tick %d: the reused view planned %d actions (%s), a fresh one %d (%s), %v", ticks, len(got.Actions),
				got.Status, len(want.Actions), want.Status, err)
		}
		if last != nil && last.Counts().Members != 7 {
			t.Fatalf("tick %d: last tick's view is not usable", ticks)
		}
		if older != nil {
			if _, err := older.BrokerPlan(cfg); !errors.Is(err, placement.ErrInval) {
				t.Fatalf("tick %d: the view of two ticks ago was not closed: %v", ticks, err)
			}
		}
		older, last = last, view
		for _, a := range got.Actions {
			if !carryOut(ps, a) {
				t.Fatalf("tick %d: %s does not fit the model", ticks, a)
			}
		}
		if len(got.Actions) == 0 && draining != "" {
			break
		}
	}
	if ticks < 8 || ticks == 30 {
		t.Errorf("%d ticks", ticks)
	}
}

// bigSnapshot is 100,000 shards of 100 streams over 60 members, RF 3.
func bigSnapshot(b *testing.B) *placement.Snapshot {
	var l placement.Layout
	ids := make([]string, 60)
	for i := range ids {
		ids[i] = "broker-" + string(rune('a'+i/26)) + string(rune('a'+i%26))
		l.Members = append(l.Members, placement.Member{ID: ids[i], Zone: "z" + string(rune('0'+i%3))})
	}
	for k := 0; k < 100000; k++ {
		r := []string{ids[k%60], ids[(k+1)%60], ids[(k+2)%60]}
		l.Shards = append(l.Shards, placement.Shard{Key: "s" + string(rune('0'+k%100/10)) + string(rune('0'+k%10)) +
			"/" + string(rune('a'+k/1000%26)) + string(rune('a'+k/26%26)) + string(rune('a'+k%26)) + "-" +
			string(rune('0'+k/10000)), Stream: "stream-" + string(rune('0'+k%100/10)) + string(rune('0'+k%10)),
			Replicas: r, Leader: r[0]})
	}
	s, err := placement.NewSnapshot(l)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkViewFresh builds a view of one tick's snapshot from nothing.
func BenchmarkViewFresh(b *testing.B) {
	s := bigSnapshot(b)
	defer s.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v, err := s.View()
		if err != nil {
			b.Fatal(err)
		}
		v.Close()
	}
}

// BenchmarkViewsNext builds the same view through Views: last tick's view
// as the hint, in one of two buffers.
func BenchmarkViewsNext(b *testing.B) {
	s := bigSnapshot(b)
	defer s.Close()
	views := placement.NewViews(nil)
	defer views.Close()
	if _, err := views.Next(s); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := views.Next(s); err != nil {
			b.Fatal(err)
		}
	}
}

// TestImbalance: View.Imbalance under each measure, on layouts counted by
// hand (as tests/view/check_imbalance.c counts them), and a measure that
// is not one refused.
func TestImbalance(t *testing.T) {
	view := func(l placement.Layout) *placement.View {
		t.Helper()
		s, err := placement.NewSnapshot(l)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		v, err := s.View()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(v.Close)
		return v
	}
	get := func(v *placement.View, m placement.Measure) placement.Imbalance {
		t.Helper()
		i, err := v.Imbalance(m)
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	ms := []placement.Member{{ID: "b0", Zone: "z0"}, {ID: "b1", Zone: "z1"}, {ID: "b2", Zone: "z2"}}
	var l placement.Layout
	l.Members = ms
	for k, r := range [][2]string{{"b0", "b1"}, {"b1", "b2"}, {"b2", "b0"}} {
		l.Shards = append(l.Shards, placement.Shard{Key: "s/" + string(rune('0'+k)), Stream: "s",
			Replicas: []string{r[0], r[1]}, Leader: r[0]})
	}
	v := view(l)
	for _, m := range []placement.Measure{placement.MeasureBroker, placement.MeasureLeaders, placement.MeasureReplicas} {
		if i := get(v, m); i != (placement.Imbalance{}) {
			t.Errorf("balanced, measure %d: %+v", m, i)
		}
	}
	// b2 draining and b3 down lead one shard each
	l = placement.Layout{Members: append(append([]placement.Member{}, ms...), placement.Member{ID: "b3", Zone: "z3", Down: true}),
		Shards: []placement.Shard{{Key: "s/0", Stream: "s", Replicas: []string{"b2", "b0"}, Leader: "b2"},
			{Key: "s/1", Stream: "s", Replicas: []string{"b3", "b1"}, Leader: "b3"}}}
	l.Members[2].Draining = true
	v = view(l)
	for m, want := range map[placement.Measure]placement.Imbalance{
		placement.MeasureLeaders:  {Total: 8, Totals: 4, Streams: 4},
		placement.MeasureBroker:   {Total: 10, Totals: 5, Streams: 5},
		placement.MeasureReplicas: {},
	} {
		if got := get(v, m); got != want {
			t.Errorf("measure %d: %+v, want %+v", m, got, want)
		}
	}
	// a fleet's overrides: all four shards on b0 of two
	l = placement.Layout{Members: ms[:2]}
	for k := 0; k < 4; k++ {
		key := "k" + string(rune('0'+k))
		l.Shards = append(l.Shards, placement.Shard{Key: key})
		l.Overrides = append(l.Overrides, placement.Override{Shard: key, Member: "b0", Origin: placement.OriginCount})
	}
	v = view(l)
	if got := get(v, placement.MeasureOwned); got != (placement.Imbalance{Total: 4, Totals: 4}) {
		t.Errorf("owned: %+v", got)
	}
	if _, err := v.Imbalance(placement.Measure(4)); !errors.Is(err, placement.ErrInval) {
		t.Errorf("measure 4: %v, want ErrInval", err)
	}
}
