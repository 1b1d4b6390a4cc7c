// Package docs holds the checks that keep the prose documents true to the
// code they describe.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A code span that names a repository path: lower-case segments joined by
// slashes, as `pipeline/verify.go` or `internal/testgit`.
var pathSpan = regexp.MustCompile("`([a-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+)`")

// A run of identifier spans, as `Env.Verify` or `Fold` and `On`, right
// before the file that declares them: "(`f.go`", ", `f.go`" or " in `f.go`".
const ident = "`[A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)?`"

var (
	namesThenFile = regexp.MustCompile("((?:" + ident + "(?:, | / | and | or ))*" + ident + ")(?: \\(|, | in )`([A-Za-z0-9_./-]+\\.go)`")
	fileThenNames = regexp.MustCompile("`([A-Za-z0-9_./-]+\\.go)` \\(((?:" + ident + ", )*" + ident + ")\\)")
	identSpan     = regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_.]*)`")
	placeholder   = regexp.MustCompile(`[A-Z]{2,}|<`)
)

func readDoc(t *testing.T) (root, doc string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Mentions wrap across lines; one space stands for any run of them.
	return root, strings.Join(strings.Fields(string(b)), " ")
}

// TestArchitecturePathsExist fails when docs/architecture.md names a file
// or directory of the repository that is not there.
func TestArchitecturePathsExist(t *testing.T) {
	root, doc := readDoc(t)
	top, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	isTop := map[string]bool{}
	for _, e := range top {
		isTop[e.Name()] = e.IsDir()
	}
	checked := 0
	for _, m := range pathSpan.FindAllStringSubmatch(doc, -1) {
		p := m[1]
		first, _, _ := strings.Cut(p, "/")
		// refs/agentproto/... and cmd/agentproto-adapter-NAME are not files.
		if !isTop[first] || placeholder.MatchString(p) {
			continue
		}
		checked++
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
			t.Errorf("docs/architecture.md names %s, which does not exist", p)
		}
	}
	if checked < 40 {
		t.Fatalf("only %d paths checked; the pattern no longer matches how the document names files", checked)
	}
}

// TestArchitectureNamesDeclared fails when docs/architecture.md says a
// function, method, type or constant is in a file that does not declare it.
func TestArchitectureNamesDeclared(t *testing.T) {
	root, doc := readDoc(t)
	type claim struct{ name, file string }
	var claims []claim
	for _, m := range namesThenFile.FindAllStringSubmatch(doc, -1) {
		for _, n := range identSpan.FindAllStringSubmatch(m[1], -1) {
			claims = append(claims, claim{n[1], m[2]})
		}
	}
	for _, m := range fileThenNames.FindAllStringSubmatch(doc, -1) {
		for _, n := range identSpan.FindAllStringSubmatch(m[2], -1) {
			claims = append(claims, claim{n[1], m[1]})
		}
	}
	for _, c := range claims {
		if strings.HasSuffix(c.name, ".go") {
			continue // a file named before the file it is in, not a declaration
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(c.file)))
		if err != nil {
			t.Errorf("docs/architecture.md places %s in %s, which cannot be read: %v", c.name, c.file, err)
			continue
		}
		if !declares(string(src), filepath.Base(filepath.Dir(c.file)), c.name) {
			t.Errorf("docs/architecture.md places %s in %s, which does not declare it", c.name, c.file)
		}
		t.Logf("%s in %s", c.name, c.file)
	}
	if len(claims) < 60 {
		t.Fatalf("only %d names checked; the patterns no longer match how the document names functions", len(claims))
	}
}

// declares reports whether src declares name: Recv.Method as a method of
// Recv, pkg.Name or Name as a function, method, type, constant or variable.
func declares(src, pkg, name string) bool {
	recv, member, qualified := strings.Cut(name, ".")
	if !qualified {
		member = name
	}
	m := regexp.QuoteMeta(member)
	if qualified && recv != pkg {
		method := `func \(\w+ \*?` + regexp.QuoteMeta(recv) + `(?:\[[^\]]*\])?\) ` + m + `[(\[]`
		return regexp.MustCompile(method).MatchString(src)
	}
	decl := `(?m)(?:func (?:\([^)]*\) )?` + m + `[(\[])|(?:^(?:(?:type|const|var) )?\s*` + m + `(?:\s|\[|=))`
	return regexp.MustCompile(decl).MatchString(src)
}
