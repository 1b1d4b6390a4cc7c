package repopath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/testgit"
)

// git reads a path given after "--" as a pattern: once a committed file
// named "*.go" is deleted, "git add -A -- *.go" stages every changed Go
// file, and ":(top)" is magic. Pathspecs makes each name one path, as the
// real git binary shows.
func TestPathspecsNameOnlyThePath(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	write := func(text string, names ...string) {
		for _, name := range names {
			p := filepath.Join(dir, filepath.FromSlash(name))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("x\n", "*.go", "b.go", "sub/c.go", ":(top)x")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "files")
	os.Remove(filepath.Join(dir, "*.go"))
	write("changed\n", "b.go", "sub/c.go", ":(top)x")
	staged := func() string {
		return strings.TrimSpace(testgit.Run(t, dir, "diff", "--cached", "--name-only"))
	}
	testgit.Run(t, dir, append([]string{"add", "-A", "--"}, Pathspecs([]string{"*.go", ":(top)x"})...)...)
	if got := staged(); got != "*.go\n:(top)x" {
		t.Fatalf("staged %q, want only the two named paths", got)
	}
	testgit.Run(t, dir, "reset", "-q")
	testgit.Run(t, dir, "add", "-A", "--", "*.go") // what a bare path does
	if got := staged(); !strings.Contains(got, "sub/c.go") {
		t.Fatalf("git no longer reads *.go as a pattern (%q): this test proves nothing", got)
	}
}
