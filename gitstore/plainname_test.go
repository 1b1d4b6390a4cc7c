package gitstore

import (
	"regexp"
	"strings"
	"testing"
)

// plainPattern is what plainName spells out.
var plainPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)

// plainName accepts exactly the names the pattern does.
func FuzzPlainName(f *testing.F) {
	for _, s := range []string{"", "a", "plan.toml", "WP1-brief.md", ".hidden", "-x", "_x", "a/b", "a b", "a\n", "é",
		strings.Repeat("a", 128), strings.Repeat("a", 129), "A" + strings.Repeat(".", 127), "x\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := plainName(name), plainPattern.MatchString(name); got != want {
			t.Fatalf("plainName(%q) = %v, the pattern says %v", name, got, want)
		}
	})
}
