package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
	"github.com/agentproto/agentproto/worktree"
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

// What git tells of the outside is taken while a WP's worktree is made
// (dispatch, without setup hooks): making one, by the fast checkout or by
// git's (ident in .gitattributes), changes none of it — the status of
// a dirty main checkout, the hooks path's directory, the branches and tags.
func TestMakingAWorktreeLeavesWhatGitTellsOfTheOutside(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	testgit.Run(t, dir, "tag", "v1")
	hooks := filepath.Join(t.TempDir(), "hooks")
	os.MkdirAll(hooks, 0o755)
	os.WriteFile(filepath.Join(hooks, "pre-commit"), []byte("#!/bin/sh\n"), 0o755)
	testgit.Run(t, dir, "config", "core.hooksPath", hooks)
	os.WriteFile(filepath.Join(dir, "untracked.txt"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "README"), []byte("changed\n"), 0o644)
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(testgit.Run(t, dir, "rev-parse", "HEAD"))
	for i, attrs := range []string{"", "README ident\n"} {
		if attrs != "" {
			os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte(attrs), 0o644)
			testgit.Run(t, dir, "add", ".gitattributes")
			testgit.Run(t, dir, "commit", "-qm", "attributes")
			head = strings.TrimSpace(testgit.Run(t, dir, "rev-parse", "HEAD"))
		}
		before, err := snapshotByGit(repo)
		if err != nil {
			t.Fatal(err)
		}
		if before["hooks-path:"+hooks+"/pre-commit"] == "" || before["ref:refs/tags/v1"] == "" || before["checkout:untracked.txt"] == "" {
			t.Fatalf("the snapshot misses what it is about: %v", before)
		}
		slug := fmt.Sprintf("demo-wp%d", i)
		m, err := worktree.Provision(repo, worktree.NewOptions{Slug: slug, Path: filepath.Join(t.TempDir(), slug), Base: "main", BaseCommit: head})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{worktree.CheckoutFast, worktree.CheckoutGit}[i]; m.Checkout != want {
			t.Fatalf("%s was made by the %s checkout, want %s", slug, m.Checkout, want)
		}
		after, err := snapshotByGit(repo)
		if err != nil {
			t.Fatal(err)
		}
		if d := diffOutside(repo.CommonDir, before, after); len(d) > 0 {
			t.Fatalf("making %s changed what git tells of the outside: %v", slug, d)
		}
	}
}
