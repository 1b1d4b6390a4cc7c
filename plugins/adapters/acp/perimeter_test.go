package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzPerimeter: whatever path an agent names, Rel either refuses it or
// returns a slash path inside the worktree with no ".." segment, and a
// path CheckWrite allows never touches git metadata.
func FuzzPerimeter(f *testing.F) {
	dir := f.TempDir()
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	os.Symlink("/etc", filepath.Join(dir, "src", "link"))
	per, err := NewPerimeter(dir, `{"allow":["src","docs/*.md"],"deny":["src/gen"]}`)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"src/a.go", "/etc/passwd", "../x", "src/../../x", "src/link/passwd", ".git/config", "src/.GIT/x",
		"docs/a.md", "docs/sub/a.md", "src/gen/x", "", "\x00", "./src//a", dir + "/src/a", dir + "/../x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		rel, err := per.Rel(path)
		if err != nil {
			return
		}
		if strings.HasPrefix(rel, "/") || rel == ".." || strings.HasPrefix(rel, "../") || strings.Contains(rel, "/../") || strings.HasSuffix(rel, "/..") {
			t.Fatalf("Rel(%q) = %q leaves the worktree", path, rel)
		}
		if err := per.CheckWrite(rel); err == nil {
			for _, part := range strings.Split(rel, "/") {
				if strings.EqualFold(part, ".git") {
					t.Fatalf("CheckWrite allows %q", rel)
				}
			}
			if under(rel, "src/link") || under(rel, "src/gen") {
				t.Fatalf("CheckWrite allows %q", rel)
			}
		}
	})
}

func under(rel, dir string) bool { return rel == dir || strings.HasPrefix(rel, dir+"/") }
