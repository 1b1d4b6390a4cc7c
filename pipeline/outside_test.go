package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
)

// TestOutsideFindings: a snapshot that matches says nothing; each change
// outside the worktree is named; agentproto's own wt/* branches are not
// watched; an altered snapshot file is itself a finding.
func TestOutsideFindings(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	os.WriteFile(filepath.Join(dir, "dirty.txt"), []byte("x\n"), 0o644)
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := SnapshotOutside(repo, "demo-wp1")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := SaveOutside(repo.CommonDir, snap)
	if err != nil {
		t.Fatal(err)
	}
	if fs, err := outsideFindings(repo, "demo-wp1", sum); err != nil || len(fs) != 0 {
		t.Fatalf("nothing changed: %v %v", fs, err)
	}
	testgit.Run(t, dir, "branch", "wt/demo-wp1")
	if fs, _ := outsideFindings(repo, "demo-wp1", sum); len(fs) != 0 {
		t.Fatalf("a wt/* branch is agentproto's own: %v", fs)
	}
	os.WriteFile(filepath.Join(dir, "dirty.txt"), []byte("longer\n"), 0o644)
	os.WriteFile(filepath.Join(repo.CommonDir, "hooks", "post-checkout"), []byte("#!/bin/sh\n"), 0o755)
	testgit.Run(t, dir, "config", "core.excludesFile", "/tmp/x")
	testgit.Run(t, dir, "branch", "planted")
	fs, err := outsideFindings(repo, "demo-wp1", sum)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(fs, "\n")
	for _, want := range []string{filepath.Join(dir, "dirty.txt"), filepath.Join(repo.CommonDir, "hooks", "post-checkout"), filepath.Join(repo.CommonDir, "config"), "ref refs/heads/planted"} {
		if !strings.Contains(text, "outside-worktree: "+want+" changed") {
			t.Errorf("no finding for %s:\n%s", want, text)
		}
	}
	if len(fs) != 4 {
		t.Errorf("%d findings, want 4:\n%s", len(fs), text)
	}
	// The snapshot file rewritten to match the new state: the hash in
	// the ledger tells.
	now, _ := SnapshotOutside(repo, "demo-wp1")
	b, _ := now.encode()
	os.WriteFile(filepath.Join(outsideDir(repo.CommonDir), sum+".json"), b, 0o600)
	fs, _ = outsideFindings(repo, "demo-wp1", sum)
	if len(fs) != 1 || !strings.Contains(fs[0], "outside-snapshot:") || !strings.Contains(fs[0], "altered") {
		t.Fatalf("altered snapshot: %v", fs)
	}
}
