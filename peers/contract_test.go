package peers

import (
	"strings"
	"testing"
)

func TestContractValidate(t *testing.T) {
	for _, c := range []struct {
		via, by []string
		bad     string
	}{
		{via: []string{"inject"}, by: []string{"user", "peer-a"}},
		{via: []string{"none"}},
		{via: []string{"email"}, bad: "not one of"},
		{via: []string{"none", "todo"}, bad: "none cannot"},
		{by: []string{"user"}, bad: "needs --address-via"},
		{via: []string{"todo"}, by: []string{"../x"}, bad: "addressed-by"},
	} {
		err := (&Contract{Via: c.via, By: c.by}).validate()
		if c.bad == "" && err != nil || c.bad != "" && (err == nil || !strings.Contains(err.Error(), c.bad)) {
			t.Errorf("%v %v: %v, want %q", c.via, c.by, err, c.bad)
		}
	}
}

// FuzzContractValidate: an accepted contract names only ways of the
// closed set and addressers that are roles or valid agent ids.
func FuzzContractValidate(f *testing.F) {
	f.Add("inject", "user")
	f.Add("none", "")
	f.Add("todo", "a\x00b")
	f.Fuzz(func(t *testing.T, via, by string) {
		c := &Contract{Via: []string{via}, By: []string{by}}
		if c.validate() != nil {
			return
		}
		if !contains(ContractVia, via) {
			t.Fatalf("accepted way %q", via)
		}
		if !contains(ContractBy, by) && ValidateName("x", by) != nil {
			t.Fatalf("accepted addresser %q", by)
		}
	})
}
