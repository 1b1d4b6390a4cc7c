package claudecode

import (
	"strings"
	"testing"
)

// A state whose session id would go into argv as something else is
// refused, and a good one gives --resume its id.
func TestRestoreChecksTheSession(t *testing.T) {
	for state, want := range map[string]string{
		`{"session":"-r"}`:               "not a claude session id",
		`{"session":"a;b"}`:              "not a claude session id",
		`{"session":"s1","cost":-1}`:     "a cost of -1",
		`{"session":"s1","thread":"t"}`:  "unknown field",
		`{"session":"s1"} trailing data`: "claude's part",
	} {
		d := &driver{}
		if err := d.Restore([]byte(state)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", state, err, want)
		}
		if d.session != "" {
			t.Errorf("%s: session %q taken", state, d.session)
		}
	}
	d := &driver{mode: "acceptEdits"}
	if err := d.Restore([]byte(`{"session":"5f0c1e2a-x","cost":0.5}`)); err != nil {
		t.Fatal(err)
	}
	if got := string(d.ResumeState()); got != `{"session":"5f0c1e2a-x","cost":0.5}` {
		t.Errorf("the state given back: %s", got)
	}
}
