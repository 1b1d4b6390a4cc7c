package plans

import "testing"

func TestOverlap(t *testing.T) {
	cases := []struct {
		a, b    string
		overlap bool
	}{
		{"internal/parser", "internal/parser/lex.go", true},
		{"internal/parser/", "internal/parser/**", true},
		{"internal/parser/**", "internal/lexer/**", false},
		{"**/*.go", "docs/*.md", false},
		{"**/*.go", "cmd/main.go", true},
		{"**/*_test.go", "pkg/*.go", true},
		{"pkg/*.go", "pkg/sub/*.go", false},
		{"pkg/**", "pkg/sub/*.go", true},
		{"pkg/*.txt", "pkg/sub/*.go", false},
		{"a/[abc].go", "a/[cde].go", true},
		{"a/[ab].go", "a/[cd].go", false},
		{"a/[!a].go", "a/a.go", false},
		{"a/[!a].go", "a/b.go", true},
		{"a/?.go", "a/ab.go", false},
		{"a/*", "a/b/c", false},
		{"a/*", "a/b", true},
		{"a", "a/b/c", true},
		{"src/**/gen/*.go", "src/x/y/gen/a.go", true},
		{"src/**/gen/*.go", "src/x/y/other/a.go", true}, // a.go might be a directory
		{"src/**/gen/*.go", "src/x/y/other/b.go/", true},
		{"**", "anything/at/all", true},
		{"README.md", "README", false},
		{"a*b", "*c", false},
		{"a*b", "*b", true},
		{"a*", "*a", true},
		{"x/a*z/y", "x/*q*/y", true},
	}
	for _, c := range cases {
		a, err := ParseGlob(c.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ParseGlob(c.b)
		if err != nil {
			t.Fatal(err)
		}
		w, got := Overlap(a, b)
		if got != c.overlap {
			t.Errorf("Overlap(%q, %q) = %v (%q), want %v", c.a, c.b, got, w, c.overlap)
			continue
		}
		if got && (!a.Match(w) || !b.Match(w)) {
			t.Errorf("Overlap(%q, %q) example %q is not matched by both", c.a, c.b, w)
		}
		if w2, got2 := Overlap(b, a); got2 != got {
			t.Errorf("Overlap not symmetric for %q %q (%q)", c.a, c.b, w2)
		}
	}
}

func TestMatch(t *testing.T) {
	cases := []struct {
		glob, path string
		want       bool
	}{
		{"internal/parser", "internal/parser/lex.go", true},
		{"internal/parser", "internal/parserx/lex.go", false},
		{"*.go", "main.go", true},
		{"*.go", "cmd/main.go", false},
		{"**/*.go", "main.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"docs/", "docs/a/b.md", true},
		{"a/[0-9]*.sql", "a/001_init.sql", true},
		{"a/[0-9]*.sql", "a/init.sql", false},
		{"weird[", "weird[", false},
	}
	for _, c := range cases {
		g, err := ParseGlob(c.glob)
		if err != nil {
			if c.want {
				t.Errorf("ParseGlob(%q): %v", c.glob, err)
			}
			continue
		}
		if got := g.Match(c.path); got != c.want {
			t.Errorf("%q.Match(%q) = %v, want %v", c.glob, c.path, got, c.want)
		}
	}
}

func TestParseGlobRefusesEscapes(t *testing.T) {
	for _, s := range []string{"/etc/passwd", "../x", "a/../../b", "a//b", "", "a\\b", "a/./b", "x/[ab"} {
		if _, err := ParseGlob(s); err == nil {
			t.Errorf("ParseGlob(%q) accepted", s)
		}
	}
}

func TestAsFileStopsClaimingBeneath(t *testing.T) {
	a, _ := ParseGlob("cmd/main.go")
	b, _ := ParseGlob("**/*_test.go")
	if _, ok := Overlap(a, b); !ok {
		t.Fatal("a literal may name a directory")
	}
	if w, ok := Overlap(a.AsFile(), b); ok {
		t.Fatalf("file cmd/main.go overlaps **/*_test.go at %q", w)
	}
	if !a.AsFile().Match("cmd/main.go") || a.AsFile().Match("cmd/main.go/x") {
		t.Fatal("AsFile must match exactly the file")
	}
}
