package gitrepo

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWorktrees(t *testing.T) {
	dir, repo := newHistory(t)
	linked := filepath.Join(t.TempDir(), "linked")
	detached := filepath.Join(t.TempDir(), "detached")
	gitIn(t, dir, "worktree", "add", "-q", linked, "left")
	gitIn(t, dir, "worktree", "add", "-q", "--detach", detached, "right")
	os.RemoveAll(detached) // gone, not yet pruned: still listed
	list, err := repo.Worktrees()
	if err != nil {
		t.Fatal(err)
	}
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			return filepath.Join(r, filepath.Base(p))
		}
		return p
	}
	want := []Worktree{
		{Path: real(dir), Head: gitIn(t, dir, "rev-parse", "main"), Branch: "refs/heads/main"},
		{Path: real(linked), Head: gitIn(t, dir, "rev-parse", "left"), Branch: "refs/heads/left"},
		{Path: real(detached), Head: gitIn(t, dir, "rev-parse", "right")},
	}
	if len(list) != len(want) {
		t.Fatalf("Worktrees = %+v, want %+v", list, want)
	}
	for i := range want {
		if got := list[i]; real(got.Path) != want[i].Path || got.Head != want[i].Head || got.Branch != want[i].Branch {
			t.Errorf("worktree %d = %+v, want %+v", i, got, want[i])
		}
	}

	bare := &Repo{GitDir: filepath.Join(t.TempDir(), "nothing"), CommonDir: "x"}
	if _, err := bare.Worktrees(); err == nil {
		t.Error("Worktrees of no repository answered")
	}
}
