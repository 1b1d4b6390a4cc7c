package cliturn

import (
	"strings"
	"testing"
)

// Split never panics, and words it returns, each quoted again, split back
// to themselves.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{`aider --message {prompt}`, `sh -c 'echo "$1"' sh`, `a\ b "c d" 'e'`, `"unclosed`, `--add-dir=../x -sread-only`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := Split(s)
		if err != nil {
			return
		}
		var quoted []string
		for _, w := range words {
			if strings.Contains(w, "'") {
				return
			}
			quoted = append(quoted, "'"+w+"'")
		}
		again, err := Split(strings.Join(quoted, " "))
		if err != nil || strings.Join(again, "\x00") != strings.Join(words, "\x00") {
			t.Fatalf("%q -> %q -> %q (%v)", s, words, again, err)
		}
	})
}

// An id accepted by SafeID can never be read as an option or split.
func FuzzSafeID(f *testing.F) {
	for _, s := range []string{"5f0c1e2a-stub-session", "-rf", "th_1", "a b", "01a23345-da99-7ec1-a60f-45e1b77c57bb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if !SafeID(id) {
			return
		}
		if strings.HasPrefix(id, "-") || strings.ContainsAny(id, " \t\n='\"\\/") {
			t.Fatalf("SafeID(%q)", id)
		}
		if w, err := Split(id); err != nil || len(w) != 1 || w[0] != id {
			t.Fatalf("%q splits to %q", id, w)
		}
	})
}
