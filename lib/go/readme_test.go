package placement_test

import (
	"log"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"libplacement.dev/placement"
)

// controller is what the top-level README's loop calls on its model.
type controller interface {
	Layout() placement.Layout
	CarryOut(placement.Action)
}

// readmeLoop is the top-level README's Go block, compiled (TestReadme
// checks that the README shows it as it is here).
func readmeLoop(ticker *time.Ticker, model controller) error {
	views := placement.NewViews(nil) // two view buffers, reused tick after tick
	defer views.Close()
	cfg := placement.DefaultBrokerConfig()
	cfg.MaxMoves = 4
	for range ticker.C {
		snap, err := placement.NewSnapshot(model.Layout()) // members, streams, shards by id
		if err != nil {
			return err // a *placement.Error: its Code, and the element's Kind, Index and ID
		}
		view, err := views.Next(snap) // last tick's view is the hint: what still holds is reused
		snap.Close()                  // freed once no view reads it
		if err != nil {
			return err
		}
		plan, err := view.BrokerPlan(cfg)
		if err != nil {
			return err
		}
		for _, a := range plan.Actions {
			model.CarryOut(a) // a.Kind == placement.KindMoveLeader, a.Shard, a.From, a.To; a.String() says why
		}
		log.Printf("%d actions, %s", len(plan.Actions), plan.Status) // e.g. "4 actions, move-limit"
	}
	return nil
}

var _ = readmeLoop

// goBlocks is the ```go blocks of a markdown file.
func goBlocks(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	return out
}

// indented is a block as it stands in a function body: each line one tab in.
func indented(block string) string {
	lines := strings.Split(strings.TrimRight(block, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "\t" + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestReadme: the Go code the READMEs show is code the tests compile (the
// package README's is the package's Example, run with its output).
func TestReadme(t *testing.T) {
	for _, c := range []struct{ readme, source string }{
		{"../../README.md", "readme_test.go"},
		{"README.md", "example_test.go"},
	} {
		src, err := os.ReadFile(c.source)
		if err != nil {
			t.Fatal(err)
		}
		blocks := goBlocks(t, c.readme)
		if len(blocks) != 1 {
			t.Errorf("%s: %d Go blocks, want 1", c.readme, len(blocks))
		}
		for _, b := range blocks {
			if !strings.Contains(string(src), indented(b)) {
				t.Errorf("%s shows Go code that is not in %s:\n%s", c.readme, c.source, b)
			}
		}
	}
}
