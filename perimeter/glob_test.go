package perimeter

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/repopath"
)

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
	for _, s := range []string{"/etc/passwd", "../x", "a/../../b", "a/../b", "", " ", "a\\b", "x/[ab",
		"//etc", ".git/hooks/**", "**/.git/**", ".GIT", "a/.Git./b", "git~1/x", "C:/x", "a\x00b", ".", "./"} {
		if _, err := ParseGlob(s); err == nil {
			t.Errorf("ParseGlob(%q) accepted", s)
		}
	}
}

func TestParseGlobNormalises(t *testing.T) {
	for in, want := range map[string]string{"./src//**": "src/**", "a/./b/": "a/b", "docs/": "docs"} {
		g, err := ParseGlob(in)
		if err != nil || g.Normal() != want {
			t.Errorf("ParseGlob(%q) = %q, %v; want %q", in, g.Normal(), err, want)
		}
	}
	g, _ := ParseGlob("./src//lib")
	if !g.Match("src/lib/a.go") || g.String() != "./src//lib" {
		t.Errorf("%q: normal form does not match, or the text is lost", g)
	}
}

// Paths that leave the repository, or reach into git's own directory, are
// owned by no glob, however wide.
func TestMatchNeverOwnsEscapes(t *testing.T) {
	globs := []string{"**", "*", "**/x", "**/*", "*/*", "**/hooks/*", "a/**", "?*/**", "[.]*/**", "**/[.]git/**", "**/.[g]it/**"}
	paths := []string{"../x", "..", "../../etc/passwd", "/etc/passwd", "/x", "//x", "a/../../x", "a/../x",
		"x/..", "../a/x", ".git/config", ".git/hooks/pre-commit", "a/.git/x", ".GIT/hooks/x", ".git./x",
		"git~1/hooks/x", ".g\u200cit/hooks/x", "a\\..\\x", "a\x00b", "C:/x", "", ".", "./"}
	for _, gs := range globs {
		g, err := ParseGlob(gs)
		if err != nil {
			t.Fatalf("ParseGlob(%q): %v", gs, err)
		}
		for _, p := range paths {
			if g.Match(p) {
				t.Errorf("%q owns %q, which is not a path inside the repository", gs, p)
			}
		}
	}
	// and the same globs still own ordinary paths, written loosely.
	for gs, p := range map[string]string{"**/x": "./a//x", "*": "./x", "a/**": "a/b/./c"} {
		if g, _ := ParseGlob(gs); !g.Match(p) {
			t.Errorf("%q does not own %q", gs, p)
		}
	}
}

// FuzzGlobMatch: a match never holds for a path that escapes the
// repository or names git's directory, judged independently of the
// normaliser by the standard library's filepath.IsLocal and a plain segment
// scan; matching a path and its normal form agree.
func FuzzGlobMatch(f *testing.F) {
	for _, s := range [][2]string{{"**/x", "../x"}, {"*", ".."}, {"**", "/etc/passwd"}, {"a/**", "a/../../b"},
		{"**/*.go", "cmd/main.go"}, {"[!a]*/**", ".git/hooks/x"}, {"**", "x/.GIT/y"}, {"*", "a\\b"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		g, err := ParseGlob(pattern)
		if err != nil {
			return
		}
		if !g.Match(path) {
			return
		}
		if !filepath.IsLocal(path) || strings.HasPrefix(path, "/") || strings.ContainsAny(path, "\\\x00") {
			t.Fatalf("%q owns %q, which is not local", pattern, path)
		}
		for _, seg := range strings.Split(path, "/") {
			if seg == ".." || strings.EqualFold(seg, ".git") {
				t.Fatalf("%q owns %q, which has segment %q", pattern, path, seg)
			}
		}
		clean, err := repopath.Clean(path)
		if err != nil || !g.Match(clean) {
			t.Fatalf("%q owns %q but not its normal form %q (%v)", pattern, path, clean, err)
		}
	})
}

// FuzzGlobOverlap: the example path Overlap gives is owned by both globs
// whenever it is a path at all, and Overlap is symmetric.
func FuzzGlobOverlap(f *testing.F) {
	for _, s := range [][2]string{{"**/*.go", "cmd/main.go"}, {"a/[ab]*", "a/*b"}, {"x/**/y", "**/y/z"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, x, y string) {
		a, err := ParseGlob(x)
		if err != nil {
			return
		}
		b, err := ParseGlob(y)
		if err != nil {
			return
		}
		w, ok := Overlap(a, b)
		if _, ok2 := Overlap(b, a); ok != ok2 {
			t.Fatalf("Overlap(%q, %q) = %v but reversed %v", x, y, ok, ok2)
		}
		if !ok {
			return
		}
		if _, err := repopath.Clean(w); err == nil && (!a.Match(w) || !b.Match(w)) {
			t.Fatalf("Overlap(%q, %q) example %q is not owned by both", x, y, w)
		}
	})
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
