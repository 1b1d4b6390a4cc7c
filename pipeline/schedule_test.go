package pipeline

import (
	"testing"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/plans"
)

func ids(wps []plans.WP) []string {
	var out []string
	for _, w := range wps {
		out = append(out, w.ID)
	}
	return out
}

func same(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// WP0 runs alone; what it unblocks runs next, in dependency order; a WP
// waits until every dependency verified.
func TestNextWave(t *testing.T) {
	p := &plans.Project{Name: "demo", Plan: plans.Plan{WPs: []plans.WP{
		{ID: "WP0"}, {ID: "WP2", DependsOn: []string{"WP0", "WP1"}}, {ID: "WP1", DependsOn: []string{"WP0"}}, {ID: "WP3", DependsOn: []string{"WP0"}},
	}}}
	verified := func(wps ...string) *State {
		st := &State{Verifications: map[string]Verification{}}
		for _, w := range wps {
			st.Verifications[w] = Verification{WP: w, Verdict: Pass}
		}
		return st
	}
	cases := []struct {
		st             *State
		want           map[string]bool
		pending, ready []string
	}{
		{verified(), nil, []string{"WP0", "WP1", "WP3", "WP2"}, []string{"WP0"}},
		{verified("WP0"), nil, []string{"WP1", "WP3", "WP2"}, []string{"WP1", "WP3"}},
		{verified("WP0", "WP1"), nil, []string{"WP3", "WP2"}, []string{"WP3", "WP2"}},
		{verified("WP0", "WP1", "WP2", "WP3"), nil, nil, nil},
		{verified(), map[string]bool{"WP1": true}, []string{"WP1"}, nil},
		{verified("WP0"), map[string]bool{"WP2": true}, []string{"WP2"}, nil},
	}
	for i, c := range cases {
		pending, ready := nextWave(p, c.st, c.want)
		if !same(ids(pending), c.pending) || !same(ids(ready), c.ready) {
			t.Errorf("case %d: pending %v ready %v, want %v %v", i, ids(pending), ids(ready), c.pending, c.ready)
		}
	}
	// A failed verification does not count.
	st := verified()
	st.Verifications["WP0"] = Verification{WP: "WP0", Verdict: "fail"}
	if _, ready := nextWave(p, st, nil); !same(ids(ready), []string{"WP0"}) {
		t.Fatalf("ready after a failed WP0: %v", ids(ready))
	}
}

// A WP runs on its own profile, else the first fallback; a fault moves it
// along the fallback list, and the move sticks for its next dispatch.
func TestProfileForAndNext(t *testing.T) {
	d := &Dispatcher{Config: config.Config{Dispatch: config.Dispatch{Fallback: []string{"a", "b", "c"}}}, pendingFallback: map[string]string{}}
	st := &State{Dispatches: map[string][]Dispatch{}}
	if got := d.profileFor(st, plans.WP{ID: "WP1", Profile: "own"}); got != "own" {
		t.Fatalf("own profile: %q", got)
	}
	if got := d.profileFor(st, plans.WP{ID: "WP1"}); got != "a" {
		t.Fatalf("first fallback: %q", got)
	}
	for from, want := range map[string]string{"a": "b", "b": "c", "c": "", "": "a", "own": ""} {
		if got := d.nextProfile(from); got != want {
			t.Errorf("after %q: %q, want %q", from, got, want)
		}
	}
	st.Dispatches["WP1"] = []Dispatch{{WP: "WP1", Profile: "b"}}
	if got := d.profileFor(st, plans.WP{ID: "WP1", Profile: "own"}); got != "b" {
		t.Fatalf("the last dispatch's profile: %q", got)
	}
	d.pendingFallback["WP1"] = "c"
	if got := d.profileFor(st, plans.WP{ID: "WP1", Profile: "own"}); got != "c" {
		t.Fatalf("a pending move: %q", got)
	}
	if got := (&Dispatcher{pendingFallback: map[string]string{}}).profileFor(&State{}, plans.WP{ID: "WP1"}); got != "" {
		t.Fatalf("no profile and no fallback: %q", got)
	}
}
