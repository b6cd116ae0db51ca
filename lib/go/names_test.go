package placement

import (
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func readHeader(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../../include/placement/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// headerList is a PL_*_LIST X-macro's entries: name -> (value, string).
func headerList(t *testing.T, src, list string, re string) map[string][2]string {
	t.Helper()
	start := strings.Index(src, "#define "+list+"(X)")
	if start < 0 {
		t.Fatalf("no %s in the header", list)
	}
	body := src[start:]
	body = body[:strings.Index(body, "\n\n")]
	out := map[string][2]string{}
	for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(body, -1) {
		out[m[1]] = [2]string{m[2], m[3]}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no entries read", list)
	}
	return out
}

// TestCodes: every code of error.h has its constant, of the header's value,
// named by pl_error_name() as the header names it; none is extra.
func TestCodes(t *testing.T) {
	h := headerList(t, readHeader(t, "error.h"), "PL_ERROR_LIST", `X\((E_\w+), (-?\d+), "([^"]*)"\)`)
	if len(h) != len(codeNames) {
		t.Errorf("error.h has %d codes, the package %d", len(h), len(codeNames))
	}
	for c, name := range codeNames {
		e, ok := h[name]
		if !ok {
			t.Errorf("%s is not in error.h", name)
			continue
		}
		if strconv.Itoa(int(c)) != e[0] {
			t.Errorf("%s is %d, error.h says %s", name, c, e[0])
		}
		if c.String() != name || c.Message() != e[1] || c.Error() != name+": "+e[1] {
			t.Errorf("%d: %q %q %q", c, c.String(), c.Message(), c.Error())
		}
		err := error(&Error{Code: c, Index: -1, Other: -1})
		if !errors.Is(err, c) || (c != ErrInval && errors.Is(err, ErrInval)) {
			t.Errorf("errors.Is and %s", name)
		}
	}
	if Code(-1000).String() != "E_UNKNOWN" {
		t.Errorf("an unknown code is %q", Code(-1000).String())
	}
}

// TestNames: kinds, reasons and statuses as plan.h lists them, with the C
// name functions' names.
func TestNames(t *testing.T) {
	src := readHeader(t, "plan.h")
	re := `X\((\w+), (\d+), "([^"]+)"\)`
	check := func(list string, names map[string]uint32, str func(uint32) string) {
		h := headerList(t, src, list, re)
		if len(h) != len(names) {
			t.Errorf("%s has %d entries, the package %d", list, len(h), len(names))
		}
		seen := map[string]bool{}
		for _, e := range h {
			seen[e[1]] = true
		}
		for name, v := range names {
			if !seen[name] {
				t.Errorf("%s: %q is not in plan.h", list, name)
			}
			if got := str(v); got != name {
				t.Errorf("%s: %d is %q, not %q", list, v, got, name)
			}
		}
		for _, e := range h {
			if v, _ := strconv.Atoi(e[0]); names[e[1]] != uint32(v) {
				t.Errorf("%s: %s is %d in plan.h, %d here", list, e[1], v, names[e[1]])
			}
		}
	}
	kinds, reasons, statuses := map[string]uint32{}, map[string]uint32{}, map[string]uint32{}
	for k, n := range kindNames {
		kinds[n] = uint32(k)
	}
	for r, n := range reasonNames {
		reasons[n] = uint32(r)
	}
	for s, n := range statusNames {
		statuses[n] = uint32(s)
	}
	check("PL_ACTION_KIND_LIST", kinds, func(v uint32) string { return Kind(v).String() })
	check("PL_REASON_LIST", reasons, func(v uint32) string { return Reason(v).String() })
	check("PL_STATUS_LIST", statuses, func(v uint32) string { return Status(v).String() })
	if Kind(200).String() != "unknown" || Status(200).String() != "unknown" {
		t.Error("an unknown kind or status is not \"unknown\"")
	}
}

// TestEnums: the package knows every scope, element kind and drain stall
// reason the headers define.
func TestEnums(t *testing.T) {
	count := func(file, prefix string) int {
		return len(regexp.MustCompile(`(?m)^#define `+prefix+`\w+ \d+u`).FindAllString(readHeader(t, file), -1))
	}
	if n := count("plan.h", "PL_SCOPE_"); n != len(scopeNames) || Scope(n-1).String() != scopeNames[n-1] {
		t.Errorf("plan.h has %d scopes, the package %d", n, len(scopeNames))
	}
	if n := count("snapshot.h", "PL_ELEM_"); n != len(elemWords) {
		t.Errorf("snapshot.h has %d element kinds, the package %d", n, len(elemWords))
	}
	if n := count("broker.h", "PL_BROKER_STALL_"); n != 3 || DrainStallReason(n).String() == "unknown" ||
		DrainStallReason(n+1).String() != "unknown" {
		t.Errorf("broker.h has %d drain stall reasons, the package 3", n)
	}
	if n := count("route.h", "PL_ROUTE_RULE_"); n != 10 || Rule(n).String() == "unknown" || Rule(n+1).String() != "unknown" {
		t.Errorf("route.h has %d rules, the package's tests 10", n)
	}
	if n := count("region.h", "PL_REGION_STALL_"); n != 5 || RegionStallReason(n).String() == "unknown" ||
		RegionStallReason(n+1).String() != "unknown" {
		t.Errorf("region.h has %d stall reasons, the package 5", n)
	}
	if ScopeStreamReplicas.String() != "stream-replicas" || ElemConfig.String() != "config field" {
		t.Error("scope or element words")
	}
}

// TestVersion: the headers' version is the linked library's.
func TestVersion(t *testing.T) {
	if Version != LibraryVersion() || !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(Version) {
		t.Errorf("headers %q, library %q", Version, LibraryVersion())
	}
}
