package placement

import (
	"errors"
	"testing"
)

// TestRouteDecide: the forwarding table's rows, first call and second.
func TestRouteDecide(t *testing.T) {
	base := DefaultRouteRequest()
	if !base.DataPlane || base.Answer != AnswerServed || base.Outcome != OutcomeNone {
		t.Fatalf("defaults %+v", base)
	}
	notOwner := base
	notOwner.Answer, notOwner.OwnerKnown = AnswerNotOwner, true
	cases := []struct {
		edit func(*RouteRequest)
		want Verdict
	}{
		{func(r *RouteRequest) {}, Verdict{Kind: VerdictServe, Rule: 2}},
		{func(r *RouteRequest) { r.DataPlane = false }, Verdict{Kind: VerdictServe, Rule: 1}},
		{func(r *RouteRequest) { *r = notOwner }, Verdict{Kind: VerdictForward, Rule: 7, Mark: true, SendBody: SendStream}},
		{func(r *RouteRequest) { *r = notOwner; r.Body = BodyWhole }, Verdict{Kind: VerdictForward, Rule: 7, Mark: true, SendBody: SendFrames}},
		{func(r *RouteRequest) { *r = notOwner; r.Forwarded = true }, Verdict{Kind: VerdictReplay, Rule: 3, Status: 409}},
		{func(r *RouteRequest) { *r = notOwner; r.OwnerKnown = false }, Verdict{Kind: VerdictReplay, Rule: 4, Status: 409}},
		{func(r *RouteRequest) { *r = notOwner; r.Body = BodyPastLimit }, Verdict{Kind: VerdictReplay, Rule: 5, Status: 409}},
		{func(r *RouteRequest) { *r = notOwner; r.Body = BodyPartial }, Verdict{Kind: VerdictReplay, Rule: 6, Status: 409}},
		{func(r *RouteRequest) { *r = notOwner; r.Outcome = OutcomeAnswered }, Verdict{Kind: VerdictRelay, Rule: 8}},
		{func(r *RouteRequest) { *r = notOwner; r.Outcome = OutcomeRefused }, Verdict{Kind: VerdictReplay, Rule: 9, Status: 409}},
		{func(r *RouteRequest) { *r = notOwner; r.Outcome = OutcomeFailed }, Verdict{Kind: VerdictFailed, Rule: 10, Status: 503, RetryAfter: 1}},
	}
	for i, c := range cases {
		r := base
		c.edit(&r)
		v, err := RouteDecide(r)
		if err != nil || v != c.want {
			t.Errorf("case %d: %+v (%s, %s), %v; want %+v", i, v, v.Kind, v.Rule, err, c.want)
		}
	}
	if Rule(3).String() != "already-forwarded" || VerdictRelay.String() != "relay" || BodyPastLimit.String() != "past-limit" {
		t.Error("names")
	}
	r := base
	r.Body = 9
	_, err := RouteDecide(r)
	wantErr(t, err, ErrRouteValue, ElemConfig, 5, "")
	r = base
	r.Outcome = OutcomeAnswered
	_, err = RouteDecide(r)
	wantErr(t, err, ErrRouteOutcome, ElemConfig, 6, "")
}

func TestRouteLookup(t *testing.T) {
	s := fleet(t) // every shard on m0 by override
	v, _ := s.View()
	defer v.Close()
	o, err := v.RouteLookup("03", "m1")
	if err != nil || o.Owner != "m0" || o.IsSelf || !o.Known {
		t.Errorf("03: %+v, %v", o, err)
	}
	home, _ := v.Home("03")
	if o.Home != home {
		t.Errorf("home %q, the view says %q", o.Home, home)
	}
	o, err = v.RouteLookup("new-stream/0", "")
	top, _ := v.Top("new-stream/0", 1)
	if err != nil || o.Known || o.Owner != o.Home || o.Owner != top[0] || o.IsSelf {
		t.Errorf("a key the snapshot lacks: %+v, %v", o, err)
	}
	o, err = v.RouteLookup("00", "m0")
	if err != nil || !o.IsSelf {
		t.Errorf("self: %+v, %v", o, err)
	}
	if _, err = v.RouteLookup("00", "m9"); !errors.Is(err, ErrNotFound) {
		t.Errorf("an unknown self: %v", err)
	}
	long := string(make([]byte, 1025))
	_, err = v.RouteLookup(long, "")
	wantErr(t, err, ErrLength, ElemArgument, 3, long)
}
