package sessions

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/fault"
)

// The dispatch action's options become arguments of our own binary:
// anything that could read as a flag is refused, and what is accepted is
// passed in the --flag=value form.
func TestDispatchArgsRefuseFlagsAndKeepOptions(t *testing.T) {
	for _, bad := range []*DispatchArgs{{WPs: []string{"--help"}}, {WPs: []string{""}}, {WPs: []string{"WP1 --json"}}, {WPs: []string{"WP1=x"}}, {MaxParallel: -1}} {
		if err := bad.Validate(); fault.KindOf(err) != fault.Invalid {
			t.Errorf("%+v: %v, want invalid", bad, err)
		}
	}
	a := &DispatchArgs{WPs: []string{"WP1", "WP2"}, MaxParallel: 2, NoPing: true}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	want := []string{"dispatch", "demo", "--no-wait", "--wp=WP1", "--wp=WP2", "--max-parallel=2", "--no-ping"}
	if got := a.Argv("demo"); !reflect.DeepEqual(got, want) {
		t.Fatalf("argv = %q, want %q", got, want)
	}
	var none *DispatchArgs
	if err := none.Validate(); err != nil || !reflect.DeepEqual(none.Argv("demo"), want[:3]) {
		t.Fatalf("no options: %v %q", err, none.Argv("demo"))
	}
	if _, err := ParseActions("verify,kill,dispatch"); err != nil {
		t.Fatalf("dispatch is an action: %v", err)
	}
	if _, err := ParseActions("dispatch:now"); fault.KindOf(err) != fault.Invalid {
		t.Fatalf("dispatch takes no argument: %v", err)
	}
}

// FuzzParseActions: an accepted list names known actions only, each
// argument-free but prompt-file's, and parses again to itself.
func FuzzParseActions(f *testing.F) {
	for _, s := range []string{"verify,kill,dispatch", "prompt-file:/tmp/x", "notify", " verify , checkpoint ", "dispatch:x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		acts, err := ParseActions(list)
		if err != nil {
			return
		}
		for _, a := range acts {
			name, arg, _ := strings.Cut(a, ":")
			switch name {
			case ActVerify, ActCheckpoint, ActKill, ActNotify, ActDispatch:
				if arg != "" {
					t.Fatalf("%q accepted with an argument", a)
				}
			case ActPromptFile:
				if arg == "" {
					t.Fatalf("%q accepted without a path", a)
				}
			default:
				t.Fatalf("unknown action %q accepted", a)
			}
		}
		again, err := ParseActions(strings.Join(acts, ","))
		if err != nil || !reflect.DeepEqual(again, acts) {
			t.Fatalf("%q parses to %q, which parses to %q (%v)", list, acts, again, err)
		}
	})
}
