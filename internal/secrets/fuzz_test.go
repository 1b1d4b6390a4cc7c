package secrets

import (
	"encoding/base64"
	"strings"
	"testing"
)

func seeds(f *testing.F) {
	for _, s := range []string{"", "plain", "GH_TOKEN=" + ghToken, base64.StdEncoding.EncodeToString([]byte("x" + modelKey)),
		"aws secret " + strings.Repeat("A", 40), "Bearer " + strings.Repeat("x", 20), "[redacted:GH_TOKEN]", "\xff\xfe"} {
		f.Add(s, uint8(0))
	}
}

// After Scrub, Find finds nothing; a clean text is left as it was. The
// second string, when long enough, is a secret of its own: whatever the
// value (one inside the marker, say), the property holds.
func FuzzScrub(f *testing.F) {
	seeds(f)
	f.Add("x redacted:GH_TOKEN] y", uint8(1))
	base := testSet()
	f.Fuzz(func(t *testing.T, text string, mode uint8) {
		s := base
		if mode%2 == 1 {
			s = New([]string{"GH_TOKEN=" + ghToken, "APP_SECRET=" + text[:len(text)/2]}, Policy{})
			text = text[len(text)/2:] + text[:len(text)/2] + text
		}
		out := s.Scrub(text)
		if found := s.Find(out); len(found) > 0 {
			t.Fatalf("Scrub(%q) = %q, which still holds %v", text, out, found[0])
		}
		if len(s.Find(text)) == 0 && out != text {
			t.Fatalf("Scrub changed a clean text: %q -> %q", text, out)
		}
	})
}

// Findings lie within the text, and a known value put anywhere in any text,
// as is or base64-encoded, is found by name.
func FuzzFind(f *testing.F) {
	seeds(f)
	s := testSet()
	f.Fuzz(func(t *testing.T, text string, at uint8) {
		for _, fd := range s.Find(text) {
			if fd.Start < 0 || fd.End > len(text) || fd.Start >= fd.End {
				t.Fatalf("finding %v out of [0,%d)", fd, len(text))
			}
		}
		i := int(at) % (len(text) + 1)
		with := text[:i] + ghToken + text[i:]
		for _, probe := range []string{with, base64.StdEncoding.EncodeToString([]byte(with)), base64.RawURLEncoding.EncodeToString([]byte(with))} {
			found := false
			for _, fd := range s.Find(probe) {
				found = found || fd.Name == "GH_TOKEN"
			}
			if !found {
				t.Fatalf("the value of $GH_TOKEN is not found in %q", probe)
			}
		}
	})
}
