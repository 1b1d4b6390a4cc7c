package confmerge

import (
	"testing"
)

func TestParsePath(t *testing.T) {
	for in, want := range map[string]Path{
		"scripts.test":            {"scripts", "test"},
		"scripts.test:e2e":        {"scripts", "test:e2e"},
		`contributes."a.b".title`: {"contributes", "a.b", "title"},
		`"x=y"."q\"uote"`:         {"x=y", `q"uote`},
		`""`:                      {""},
		"café":                    {"café"},
	} {
		got, err := ParsePath(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParsePath(%q) = %q, %v; want %q", in, got, err, want)
		}
		if back, err := ParsePath(got.String()); err != nil || !back.Equal(got) {
			t.Errorf("%q: String() %q reads back as %q, %v", in, got.String(), back, err)
		}
	}
	for _, bad := range []string{"", ".", "a.", ".a", "a..b", `"a`, "a b", "a=b", `a"b`, "a\tb", `"a"b`, "a.\"\\q\""} {
		if p, err := ParsePath(bad); err == nil {
			t.Errorf("ParsePath(%q) = %q, want an error", bad, p)
		}
	}
}

func TestParsePathPair(t *testing.T) {
	old, nw, err := ParsePathPair(`scripts.test=scripts."test=e2e"`)
	if err != nil || !old.Equal(Path{"scripts", "test"}) || !nw.Equal(Path{"scripts", "test=e2e"}) {
		t.Fatalf("got %q %q %v", old, nw, err)
	}
	for _, bad := range []string{"scripts.test", "=a", "a=", "a==b", "a=b=c"} {
		if _, _, err := ParsePathPair(bad); err == nil {
			t.Errorf("ParsePathPair(%q) gave no error", bad)
		}
	}
}

// FuzzParsePath: whatever parses prints back to the same path, and every
// path prints to text that parses back to it.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"scripts.test", `a."b.c"`, `"\xff".x`, "a=b", `"a\u00e9"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if p, err := ParsePath(s); err == nil {
			if len(p) == 0 {
				t.Fatalf("%q parsed to an empty path", s)
			}
			back, err := ParsePath(p.String())
			if err != nil || !back.Equal(p) {
				t.Fatalf("%q → %q → %q (%v)", s, p.String(), back, err)
			}
		}
		if old, nw, err := ParsePathPair(s); err == nil {
			o2, n2, err := ParsePathPair(old.String() + "=" + nw.String())
			if err != nil || !o2.Equal(old) || !n2.Equal(nw) {
				t.Fatalf("pair %q does not round-trip: %v", s, err)
			}
		}
		// Any key, quoted as String does, reads back.
		p := Path{s, "x"}
		if back, err := ParsePath(p.String()); err != nil || !back.Equal(p) {
			t.Fatalf("Path{%q}.String() = %q reads back as %q (%v)", s, p.String(), back, err)
		}
	})
}
