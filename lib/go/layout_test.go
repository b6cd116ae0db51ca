package placement

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// readLayout reads the subset of placement(5) the shared layouts of
// tests/bindings use: `set policy=broker rf=N [max-moves=K]
// [max-moves-in=K] [max-moves-out=K] [paused=on|off] [stream-balance=on|off]
// [replica-balance=on|off] [handoff-only=on|off] [tolerance=N]
// [stream-tolerance=N]`, `member ID [zone=Z]
// [weight=W] [cap=N] [draining] [down]`, `stream ID [tolerance=N]
// [zones=span|majority] [keep]`, `shard ID stream=S
// replicas=a,b leader=a [out-of-sync=a,b] [moving-to=M]`, `copy KEY to=M
// [from=M]` and # comments. Anything else
// fails the test, so a layout the reader would misread is never compared.
func readLayout(t *testing.T, path string) (Layout, BrokerConfig) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var l Layout
	cfg := DefaultBrokerConfig()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		w := strings.Fields(line)
		if len(w) == 0 {
			continue
		}
		bad := func(word string) { t.Fatalf("%s:%d: the test's reader does not take %q", path, n, word) }
		num := func(word, v string) uint32 {
			x, err := strconv.ParseUint(v, 10, 32)
			if err != nil {
				bad(word)
			}
			return uint32(x)
		}
		onOff := func(word, v string) bool {
			if v != "on" && v != "off" {
				bad(word)
			}
			return v == "on"
		}
		switch w[0] {
		case "set":
			for _, kv := range w[1:] {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "policy":
					if v != "broker" {
						bad(kv)
					}
				case "rf":
					cfg.ReplicationFactor = num(kv, v)
				case "max-moves":
					cfg.MaxMoves = num(kv, v)
				case "max-moves-in":
					cfg.MaxMovesIn = num(kv, v)
				case "max-moves-out":
					cfg.MaxMovesOut = num(kv, v)
				case "paused":
					cfg.Paused = onOff(kv, v)
				case "stream-balance":
					cfg.StreamBalance = onOff(kv, v)
				case "replica-balance":
					cfg.ReplicaBalance = onOff(kv, v)
				case "handoff-only":
					cfg.HandoffOnly = onOff(kv, v)
				case "tolerance":
					cfg.Tolerance = num(kv, v)
				case "stream-tolerance":
					cfg.StreamTolerance = num(kv, v)
				default:
					bad(kv)
				}
			}
		case "member":
			if len(w) < 2 {
				bad(line)
			}
			m := Member{ID: w[1]}
			for _, kv := range w[2:] {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "zone":
					m.Zone = v
				case "weight":
					m.Weight = num(kv, v)
				case "cap":
					m.MaxShards = num(kv, v)
				case "draining":
					m.Draining = true
				case "down":
					m.Down = true
				default:
					bad(kv)
				}
			}
			l.Members = append(l.Members, m)
		case "stream":
			if len(w) < 2 {
				bad(line)
			}
			st := Stream{ID: w[1]}
			for _, kv := range w[2:] {
				k, v, _ := strings.Cut(kv, "=")
				switch {
				case k == "tolerance":
					st.Tolerance, st.ToleranceSet = num(kv, v), true
				case kv == "zones=span":
					st.Zones = ZonesSpan
				case kv == "zones=majority":
					st.Zones = ZonesMajority
				case kv == "keep":
					st.Flags |= StreamKeep
				default:
					bad(kv)
				}
			}
			l.Streams = append(l.Streams, st)
		case "shard":
			if len(w) < 2 {
				bad(line)
			}
			k := Shard{Key: w[1]}
			for _, kv := range w[2:] {
				key, v, _ := strings.Cut(kv, "=")
				switch key {
				case "stream":
					k.Stream = v
				case "replicas":
					k.Replicas = strings.Split(v, ",")
				case "leader":
					k.Leader = v
				case "out-of-sync":
					k.OutOfSync = strings.Split(v, ",")
				case "moving-to":
					k.MovingTo = v
				default:
					bad(kv)
				}
			}
			l.Shards = append(l.Shards, k)
		case "copy":
			if len(w) < 3 {
				bad(line)
			}
			c := Copy{Shard: w[1]}
			for _, kv := range w[2:] {
				key, v, _ := strings.Cut(kv, "=")
				switch key {
				case "to":
					c.To = v
				case "from":
					c.From = v
				default:
					bad(kv)
				}
			}
			l.Copies = append(l.Copies, c)
		default:
			bad(w[0])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return l, cfg
}

// imbalanceLines are the shared .plan file's last two lines: the layout's
// imbalance and that of a view with every action of p applied, `imbalance
// before|after TOTAL TOTALS STREAMS`, under the broker's measure.
func imbalanceLines(t *testing.T, snap *Snapshot, cfg BrokerConfig, p Plan) []string {
	t.Helper()
	m := MeasureBroker
	if !cfg.ReplicaBalance || cfg.HandoffOnly { // handoff-only copies nothing: leaders only, as the tool counts
		m = MeasureLeaders
	}
	v, err := snap.View()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	line := func(when string) string {
		i, err := v.Imbalance(m)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("imbalance %s %d %d %d", when, i.Total, i.Totals, i.Streams)
	}
	out := []string{line("before")}
	for _, a := range p.Actions {
		if err := v.Apply(a); err != nil {
			t.Fatal(err)
		}
	}
	return append(out, line("after"))
}

// planLines is a dry run in the shared .plan form: `KIND SHARD FROM TO
// REASON` per action, "-" for no member, then `status STATUS`.
func planLines(p Plan) []string {
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	var out []string
	for _, a := range p.Actions {
		out = append(out, fmt.Sprintf("%s %s %s %s %s", a.Kind, a.Shard, dash(a.From), dash(a.To), a.Reason))
	}
	return append(out, "status "+p.Status.String())
}

// dryRunLayout reads a shared layout and dry-runs it; the caller closes
// the snapshot.
func dryRunLayout(t *testing.T, path string) (*Snapshot, BrokerConfig, Plan) {
	l, cfg := readLayout(t, path)
	snap, err := NewSnapshot(l)
	if err != nil {
		t.Fatal(err)
	}
	p, err := BrokerDryRun(snap, cfg)
	if err != nil {
		snap.Close()
		t.Fatal(err)
	}
	return snap, cfg, p
}

// TestSharedLayouts: the package's dry run of every tests/bindings layout
// is the plan placement(1) wrote for it, action for action, and the
// imbalance before and after it is placement(1)'s.
func TestSharedLayouts(t *testing.T) {
	files, err := filepath.Glob("../../tests/bindings/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no layouts in ../../tests/bindings")
	}
	for _, f := range files {
		f := f
		t.Run(filepath.Base(f), func(t *testing.T) {
			want, err := os.ReadFile(strings.TrimSuffix(f, ".txt") + ".plan")
			if err != nil {
				t.Fatal(err)
			}
			snap, cfg, p := dryRunLayout(t, f)
			defer snap.Close()
			got := strings.Join(append(planLines(p), imbalanceLines(t, snap, cfg, p)...), "\n")
			if got != strings.TrimRight(string(want), "\n") {
				t.Errorf("dry run of %s:\n%s\nplacement(1) planned:\n%s", f, got, want)
			}
		})
	}
}

// TestStagedAndPairedFlags: a follower's copy staged for a hand-off says so
// (ForHandoff) and the hand-off of that shard to that member follows it; a
// paired step flags both of its actions.
func TestStagedAndPairedFlags(t *testing.T) {
	plan := func(name string) Plan {
		snap, _, p := dryRunLayout(t, "../../tests/bindings/"+name)
		snap.Close()
		return p
	}
	p := plan("staged-handoff.txt")
	staged := 0
	for i, a := range p.Actions {
		if !a.ForHandoff {
			continue
		}
		staged++
		if a.Kind != KindMoveReplica || !a.StageFirst || a.CarriesLeader || a.Paired {
			t.Errorf("action %d: %s", i, a.Explanation)
		}
		found := false
		for _, b := range p.Actions[i+1:] {
			if b.Kind == KindMoveLeader && b.Shard == a.Shard {
				found = b.To == a.To && !b.StageFirst
				break
			}
		}
		if !found {
			t.Errorf("action %d is followed by no hand-off to %s: %s", i, a.To, a.Explanation)
		}
	}
	if staged != 10 {
		t.Errorf("%d copies staged for a hand-off, want 10", staged)
	}
	p = plan("replicas-3-4-5.txt")
	if len(p.Actions) != 2 || !p.Actions[0].Paired || !p.Actions[0].CarriesLeader || !p.Actions[1].Paired {
		t.Errorf("the paired step: %+v", p.Actions)
	}
}
