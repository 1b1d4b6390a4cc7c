package worktree

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
)

// changesFixture provisions a worktree of a small repository and returns
// the repository, the worktree record and a git runner inside it.
func changesFixture(t *testing.T) (*gitrepo.Repo, *Meta, func(...string) string) {
	t.Helper()
	testgit.Isolate(t)
	dir := testgit.Init(t)
	for _, f := range []string{"a", "b", "c", "d", "e", "g", "h", "i", "j", "k"} {
		os.WriteFile(filepath.Join(dir, f), []byte(f+"\n"), 0o644)
	}
	os.Symlink("a", filepath.Join(dir, "l1"))
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "files")
	repo, head := openAtHead(t, dir)
	m, err := Provision(repo, NewOptions{Slug: "ch", Path: filepath.Join(t.TempDir(), "ch"), Base: "main", BaseCommit: head})
	if err != nil {
		t.Fatal(err)
	}
	return repo, m, func(args ...string) string { return testgit.Run(t, m.Path, args...) }
}

// compareWithDiff checks that the answer read from one git status is the
// one git diff against the base gives.
func compareWithDiff(t *testing.T, repo *gitrepo.Repo, m *Meta, what string) []Change {
	t.Helper()
	wt := Repo(repo, m)
	fast, ok, err := changesAtBase(wt)
	if err != nil || !ok {
		t.Fatalf("%s: status reading not used (ok=%v, err=%v)", what, ok, err)
	}
	slow, err := changesByDiff(wt, m)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%s:\nfrom status: %+v\nfrom diff:   %+v", what, fast, slow)
	}
	return fast
}

// TestChangesAtBaseEdgeCases covers every kind of change git status can
// report while HEAD is the base, each compared with git diff.
func TestChangesAtBaseEdgeCases(t *testing.T) {
	repo, m, git := changesFixture(t)
	w := func(name, text string) {
		if err := os.WriteFile(filepath.Join(m.Path, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rm := func(name string) { os.Remove(filepath.Join(m.Path, name)) }
	w("n1", "new\n")
	git("add", "n1")
	rm("n1") // staged add, gone from the tree
	w("n2", "new\n")
	git("add", "n2")
	w("n3", "new\n")
	git("add", "-N", "n3")
	w("a", "a2\n")
	w("b", "b2\n")
	git("add", "b")
	w("b", "b\n") // staged, then edited back to the base
	w("c", "c2\n")
	git("add", "c")
	w("c", "c3\n")
	git("rm", "-q", "--cached", "d")
	rm("e")
	git("rm", "-q", "g")
	rm("h")
	os.Symlink("a", filepath.Join(m.Path, "h"))
	os.Chmod(filepath.Join(m.Path, "i"), 0o755)
	rm("l1")
	w("l1", "not a link\n")
	w("k", "k2\n")
	git("add", "k")
	w("k", "k\n")
	git("add", "k")
	w("untracked", "u\n")
	w("with space", "s\n")
	w("ünïcode", "u\n")
	got := compareWithDiff(t, repo, m, "edge cases")
	// n1 and b are back at the base in the working tree, but the index
	// holds a change: a commit would carry it.
	want := map[string]string{"a": "modified", "b": "reverted", "c": "modified", "d": "untracked", "e": "deleted", "g": "deleted",
		"h": "type-changed", "i": "modified", "l1": "type-changed", "n1": "reverted", "n2": "added", "n3": "added", "untracked": "untracked",
		"with space": "untracked", "ünïcode": "untracked"}
	gotMap := map[string]string{}
	for _, c := range got {
		gotMap[c.Path] = c.Status
	}
	if !reflect.DeepEqual(gotMap, want) {
		t.Errorf("changes %v, want %v", gotMap, want)
	}
}

// TestChangesAtBaseRandom applies random edits, stages and reverts in
// rounds and compares the status reading with git diff after each.
func TestChangesAtBaseRandom(t *testing.T) {
	repo, m, git := changesFixture(t)
	rng := rand.New(rand.NewSource(3))
	names := []string{"a", "b", "c", "d", "e", "g", "h", "i", "j", "k", "new1", "sub/new2"}
	for round := 0; round < 12; round++ {
		for op := 0; op < 6; op++ {
			name := names[rng.Intn(len(names))]
			p := filepath.Join(m.Path, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			switch rng.Intn(7) {
			case 0:
				os.WriteFile(p, []byte(fmt.Sprintf("round %d\n", round)), 0o644)
			case 1:
				os.WriteFile(p, []byte(filepath.Base(name)+"\n"), 0o644) // the base content
			case 2:
				os.Remove(p)
			case 3:
				testgit.Run(t, m.Path, "add", "-A", "--", ".")
			case 4:
				if _, err := os.Lstat(p); err == nil {
					os.Chmod(p, 0o755)
				}
			case 5:
				git("reset", "-q", "--", ".")
			case 6:
				if _, err := os.Lstat(p); err == nil {
					git("add", "-N", "--", name)
				}
			}
		}
		compareWithDiff(t, repo, m, fmt.Sprintf("round %d", round))
	}
}

// TestChangesAfterCommits: once the branch has commits the answer names
// them as committed, from git diff.
func TestChangesAfterCommits(t *testing.T) {
	repo, m, git := changesFixture(t)
	os.WriteFile(filepath.Join(m.Path, "a"), []byte("committed\n"), 0o644)
	git("commit", "-q", "-am", "change a")
	os.WriteFile(filepath.Join(m.Path, "b"), []byte("unstaged\n"), 0o644)
	got, err := Changes(repo, m)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{Path: "a", Status: "modified", Where: []string{"committed"}},
		{Path: "b", Status: "modified", Where: []string{"unstaged"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("changes %+v, want %+v", got, want)
	}
	// A detached HEAD elsewhere is read too, not only the branch.
	git("checkout", "-q", "--detach")
	git("update-ref", "refs/heads/wt/ch", m.BaseCommit)
	got, err = Changes(repo, m)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("detached HEAD with a commit: %+v", got)
	}
}

// TestChangesNewlineInName: a staged-then-edited path whose name holds a
// newline cannot be hashed through --stdin-paths; git diff answers.
func TestChangesNewlineInName(t *testing.T) {
	repo, m, git := changesFixture(t)
	name := "odd\nname"
	p := filepath.Join(m.Path, name)
	os.WriteFile(p, []byte("one\n"), 0o644)
	git("add", "--", name)
	git("commit", "-q", "-m", "odd name")
	// The branch moved; use a base at that commit for the status reading.
	m.BaseCommit = git("rev-parse", "HEAD")
	os.WriteFile(p, []byte("two\n"), 0o644)
	git("add", "--", name)
	os.WriteFile(p, []byte("one\n"), 0o644) // back to the base
	if _, ok, err := changesAtBase(Repo(repo, m)); ok || err != nil {
		t.Fatalf("status reading used for a newline name (ok=%v, err=%v)", ok, err)
	}
	got, err := Changes(repo, m)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{Path: name, Status: "reverted", Where: []string{"staged", "unstaged"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("a path staged and edited back to the base is a change the index holds: %+v", got)
	}
}

// TestChangesKeepsUndoneChanges: a path committed and then put back in
// the working tree, committed and then reverted by a later commit, or
// changed only in the index is still a change: a commit or a push would
// carry it.
func TestChangesKeepsUndoneChanges(t *testing.T) {
	repo, m, git := changesFixture(t)
	w := func(name, text string) {
		if err := os.WriteFile(filepath.Join(m.Path, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Staged only, HEAD still at the base: the status reading answers.
	w("a", "staged\n")
	git("add", "a")
	w("a", "a\n")
	got, err := Changes(repo, m)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{Path: "a", Status: "reverted", Where: []string{"staged", "unstaged"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("index-only change: %+v, want %+v", got, want)
	}
	git("reset", "-q", "a")
	// Committed, then put back in the working tree.
	w("b", "committed\n")
	git("commit", "-q", "-am", "b")
	w("b", "b\n")
	// Committed, then reverted by a second commit.
	w("c", "committed\n")
	git("commit", "-q", "-m", "c", "--", "c")
	w("c", "c\n")
	git("commit", "-q", "-m", "c back", "--", "c")
	got, err = Changes(repo, m)
	if err != nil {
		t.Fatal(err)
	}
	want = []Change{{Path: "b", Status: "reverted", Where: []string{"committed", "unstaged"}},
		{Path: "c", Status: "reverted", Where: []string{"committed"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("undone changes: %+v, want %+v", got, want)
	}
}
