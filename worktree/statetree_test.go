package worktree

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestStateTreeReadsTheDisk: the state tree holds untracked files and
// changes hidden from git status by assume-unchanged and skip-worktree,
// and building it leaves the worktree's index as it was.
func TestStateTreeReadsTheDisk(t *testing.T) {
	repo, m, git := changesFixture(t)
	os.WriteFile(filepath.Join(m.Path, "a"), []byte("hidden\n"), 0o644)
	git("update-index", "--assume-unchanged", "a")
	os.WriteFile(filepath.Join(m.Path, "b"), []byte("hidden too\n"), 0o644)
	git("update-index", "--skip-worktree", "b")
	os.WriteFile(filepath.Join(m.Path, "new"), []byte("untracked\n"), 0o644)
	if st := git("status", "--porcelain"); st != "?? new" {
		t.Fatalf("fixture: git status should see only the untracked file, got %q", st)
	}
	index := filepath.Join(adminDir(repo, m.Slug), "index")
	before, _ := os.ReadFile(index)
	tree, err := StateTree(repo, m)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(index)
	if !bytes.Equal(before, after) {
		t.Fatal("StateTree changed the worktree's index")
	}
	got, err := DiffTrees(repo, m.BaseCommit, tree)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "new"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("state tree differs from the base in %v, want %v", got, want)
	}
	if blob := git("cat-file", "-p", tree+":a"); blob != "hidden" {
		t.Fatalf("a in the state tree = %q", blob)
	}
	// Nothing changed on disk: the same tree again.
	again, err := StateTree(repo, m)
	if err != nil || again != tree {
		t.Fatalf("second state tree %s (%v), first %s", again, err, tree)
	}
}
