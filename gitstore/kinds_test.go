package gitstore

import (
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/fault"
)

type kindsTestData struct {
	N int `json:"n"`
}

// Mistakes in declaring kinds stop the program when it starts: a user
// kind taken by a feature, a kind declared twice, a payload that is not an
// object, one owner name used twice.
func TestDeclareRefusesMistakes(t *testing.T) {
	o := NewOwner("kinds-test")
	Declare[kindsTestData](o, "kinds_test_once")
	for _, c := range []struct {
		name string
		fn   func()
		want string
	}{
		{"note", func() { Declare[kindsTestData](o, "note") }, "user kind"},
		{"x.", func() { Declare[kindsTestData](o, "x.mine") }, "user kind"},
		{"malformed", func() { Declare[kindsTestData](o, "Bad") }, "malformed"},
		{"twice", func() { Declare[kindsTestData](NewOwner("kinds-test-2"), "kinds_test_once") }, "declared twice (by kinds-test and kinds-test-2)"},
		{"not a struct", func() { Declare[[]int](o, "kinds_test_slice") }, "must be a struct"},
		{"owner twice", func() { NewOwner("kinds-test") }, `owner "kinds-test" declared twice`},
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, c.want) {
					t.Errorf("%s: panic %v, want %q", c.name, r, c.want)
				}
			}()
			c.fn()
		}()
	}
}

// The user path and the feature path each refuse the other's kinds before
// looking at anything else, with exit code 5 (Refused).
func FuzzValidateOwnership(f *testing.F) {
	for _, k := range []string{"note", "x.build", "kinds_fuzz", "plan_frozen", "x.", "Note", "x..a", "a\x00b"} {
		f.Add(k, true)
		f.Add(k, false)
	}
	o := NewOwner("kinds-fuzz")
	owned := Declare[kindsTestData](o, "kinds_fuzz")
	f.Fuzz(func(t *testing.T, kind string, user bool) {
		d := []Draft{{Kind: kind, ID: "r1", Data: []byte(`{"n":1}`)}}
		err := Validate(d, user)
		switch {
		case ValidateKind(kind) != nil:
			if fault.KindOf(err) != fault.Invalid {
				t.Fatalf("malformed kind %q: %v", kind, err)
			}
		case IsUserKind(kind) != user || kind == owned.String():
			if fault.KindOf(err) != fault.Refused {
				t.Fatalf("kind %q, user %v: %v, want Refused", kind, user, err)
			}
		case err != nil:
			t.Fatalf("kind %q, user %v: %v", kind, user, err)
		}
		if kind == owned.String() {
			od, err := o.Draft(kind, "r1", kindsTestData{N: 1})
			if err != nil {
				t.Fatal(err)
			}
			if err := Validate([]Draft{od}, false); err != nil {
				t.Fatalf("the owner's own draft: %v", err)
			}
			if err := Validate([]Draft{od}, true); fault.KindOf(err) != fault.Refused {
				t.Fatalf("the owner's draft on the user path: %v", err)
			}
		}
	})
}
