package gitstore

import (
	"regexp"
	"strings"
	"testing"
)

// The kind grammar as it was written before the check was done by hand.
var kindGrammar = regexp.MustCompile(`^([a-z][a-z0-9_]{0,62}|x\.[a-z0-9][a-z0-9_.-]{0,62})$`)

// The hand-written check accepts exactly what the grammar accepts: every
// string of up to four bytes over the bytes that matter, and the lengths
// at both ends of each form.
func TestWellFormedKindIsTheGrammar(t *testing.T) {
	alphabet := []string{"a", "z", "x", "0", "9", "_", ".", "-", "A", "\xc3", "\n", " "}
	var walk func(prefix string, depth int)
	walk = func(prefix string, depth int) {
		if got, want := wellFormedKind(prefix), kindGrammar.MatchString(prefix); got != want {
			t.Fatalf("kind %q: well formed %v, grammar %v", prefix, got, want)
		}
		if depth == 0 {
			return
		}
		for _, c := range alphabet {
			walk(prefix+c, depth-1)
		}
	}
	walk("", 4)
	for n := 60; n <= 67; n++ {
		for _, k := range []string{
			"a" + strings.Repeat("b", n-1),
			"x." + strings.Repeat("c", n-2),
			"x." + strings.Repeat("-", n-2),
			"x.a" + strings.Repeat(".", n-3),
			strings.Repeat("a", n) + "\n",
		} {
			if got, want := wellFormedKind(k), kindGrammar.MatchString(k); got != want {
				t.Fatalf("kind of %d bytes %q: well formed %v, grammar %v", len(k), k, got, want)
			}
		}
	}
}

func FuzzWellFormedKind(f *testing.F) {
	for _, k := range []string{"note", "x.build", "x.", "x..a", "Note", "a\x00b", "plan_frozen", "x.a-b.c_d"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, kind string) {
		if got, want := wellFormedKind(kind), kindGrammar.MatchString(kind); got != want {
			t.Fatalf("kind %q: well formed %v, grammar %v", kind, got, want)
		}
	})
}
