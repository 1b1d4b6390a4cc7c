package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestTypedRevisionCalls(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("one\n"), 0o644)
	gitIn(t, dir, "add", "f.txt")
	gitIn(t, dir, "commit", "-qm", "one")
	first := gitIn(t, dir, "rev-parse", "HEAD")
	gitIn(t, dir, "tag", "-a", "v1", "-m", "v1")
	gitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	second := gitIn(t, dir, "rev-parse", "HEAD")
	repo, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	for rev, want := range map[string]string{"main": second, "v1": first, "HEAD~1": first, second[:10]: second} {
		if got, err := repo.Commit(rev); err != nil || got != want {
			t.Errorf("Commit(%q) = %q, %v; want %q", rev, got, err, want)
		}
	}
	for _, rev := range []string{"", "nope", "--all", "-q", "HEAD:f.txt"} {
		if got, err := repo.Commit(rev); !errors.Is(err, ErrNoCommit) || got != "" {
			t.Errorf("Commit(%q) = %q, %v; want ErrNoCommit", rev, got, err)
		} else if !strings.Contains(err.Error(), fmt.Sprintf("%q", rev)) {
			t.Errorf("Commit(%q): %v does not name the revision", rev, err)
		}
	}
	tree := gitIn(t, dir, "rev-parse", "v1^{tree}")
	blob := gitIn(t, dir, "rev-parse", "v1:f.txt")
	for rev, want := range map[string]string{"v1": tree, tree: tree, "HEAD~1": tree} {
		if got, err := repo.Tree(rev); err != nil || got != want {
			t.Errorf("Tree(%q) = %q, %v; want %q", rev, got, err, want)
		}
	}
	for rev, want := range map[string]string{"v1:f.txt": blob, "HEAD": second, "v1^{tree}": tree} {
		if got, err := repo.Object(rev); err != nil || got != want {
			t.Errorf("Object(%q) = %q, %v; want %q", rev, got, err, want)
		}
	}
	for _, rev := range []string{"", "nope", "--all", "v1:gone.txt"} {
		if got, err := repo.Object(rev); !errors.Is(err, ErrNoObject) || got != "" || !strings.Contains(err.Error(), fmt.Sprintf("%q", rev)) {
			t.Errorf("Object(%q) = %q, %v; want ErrNoObject naming it", rev, got, err)
		}
	}
	// A blob peels to no tree: git says why, and the error names it.
	if got, err := repo.Tree(blob); err == nil || got != "" || !strings.Contains(err.Error(), blob) {
		t.Errorf("Tree(blob) = %q, %v; want an error naming it", got, err)
	}
	if !repo.IsAncestor(first, second) || repo.IsAncestor(second, first) || !repo.IsAncestor(first, first) {
		t.Error("IsAncestor answers wrong")
	}
	if mb, err := repo.MergeBase(first, second); err != nil || mb != first {
		t.Errorf("MergeBase = %q, %v", mb, err)
	}
	if b, err := repo.Blob("v1", "f.txt"); err != nil || string(b) != "one\n" {
		t.Errorf("Blob = %q, %v", b, err)
	}
	if err := repo.UpdateRef("refs/heads/side", first, ""); err != nil {
		t.Fatal(err)
	}
	if err := repo.UpdateRef("refs/heads/side", second, second); err == nil {
		t.Error("UpdateRef moved a ref that was not at the old id")
	}
	if err := repo.UpdateRef("refs/heads/side", second, first); err != nil {
		t.Fatal(err)
	}
	if got, _ := repo.Commit("side"); got != second {
		t.Errorf("side = %s, want %s", got, second)
	}
}
