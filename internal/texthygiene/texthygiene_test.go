package texthygiene

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/fault"
)

type doc struct {
	Message string   `json:"message"`
	Refs    []string `json:"refs"`
}

func TestChecks(t *testing.T) {
	token := "ghp_" + strings.Repeat("Qw3", 12)
	for _, c := range []struct {
		name, in, want string
	}{
		{"fine", `{"message":"hi","refs":["a"]}`, ""},
		{"unknown field", `{"message":"hi","colour":1}`, `unknown field "colour"`},
		{"not json", `{"message":`, "is not valid JSON"},
		{"secret in a list", `{"refs":["ok","` + token + `"]}`, "$.refs[1]"},
		{"secret in a key", `{"` + token + `":1}`, "$ key"},
		{"long message", `{"message":"` + strings.Repeat("m", MaxMessage+1) + `"}`, "$.message is 4001 bytes"},
		{"long ref", `{"refs":["` + strings.Repeat("r", MaxText+1) + `"]}`, "$.refs[0] is 1001 bytes"},
		{"too big", `{"message":"` + strings.Repeat(" ", MaxInput) + `"}`, "the input is"},
	} {
		var d doc
		err := DecodeStrict([]byte(c.in), "the input", &d)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (fault.KindOf(err) != fault.Invalid && fault.KindOf(err) != fault.Refused || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		case err != nil && strings.Contains(err.Error(), token):
			t.Errorf("%s: the error shows the secret: %v", c.name, err)
		}
	}
	for name, ok := range map[string]bool{"a": true, "wp-1.b_c": true, "": false, "A": false, "-a": false, "a/b": false, strings.Repeat("a", 64): false} {
		if got := ValidateName("agent id", name) == nil; got != ok {
			t.Errorf("ValidateName(%q) = %v, want %v", name, got, ok)
		}
	}
}

// Whatever DecodeStrict accepts is one JSON object of the known fields,
// within the limits.
func FuzzDecodeStrict(f *testing.F) {
	for _, s := range []string{`{"message":"hi","refs":["a"]}`, `{"refs":[]}`, `{"x":1}`, `[]`, `{"message":"\u0000"}`, `{"message":"a"} {}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var d doc
		if DecodeStrict(b, "the input", &d) != nil {
			return
		}
		if len(b) > MaxInput || !json.Valid(b) {
			t.Fatalf("accepted %q", b)
		}
		if len(d.Message) > MaxMessage {
			t.Fatalf("accepted a message of %d bytes", len(d.Message))
		}
		for _, r := range d.Refs {
			if len(r) > MaxText {
				t.Fatalf("accepted a ref of %d bytes", len(r))
			}
		}
	})
}
