package gitrepo

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// newHistory makes a repository with a base commit, two branches that
// change f.txt differently (a conflict) and one that adds a file.
func newHistory(t *testing.T) (string, *Repo) {
	t.Helper()
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	write := func(name, text string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("f.txt", "base\n")
	write("sub/g.txt", "g\n")
	os.Symlink("f.txt", filepath.Join(dir, "link"))
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-qm", "base")
	gitIn(t, dir, "branch", "left")
	gitIn(t, dir, "branch", "right")
	gitIn(t, dir, "branch", "added")
	gitIn(t, dir, "checkout", "-q", "left")
	write("f.txt", "left\n")
	gitIn(t, dir, "commit", "-qam", "left")
	gitIn(t, dir, "checkout", "-q", "right")
	write("f.txt", "right\n")
	gitIn(t, dir, "commit", "-qam", "right")
	gitIn(t, dir, "checkout", "-q", "added")
	write("new file.txt", "new\n")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-qm", "added", "-m", "with a body")
	gitIn(t, dir, "checkout", "-q", "main")
	repo, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, repo
}

func TestBlobsAndTrees(t *testing.T) {
	dir, repo := newHistory(t)
	id := gitIn(t, dir, "rev-parse", "main:sub/g.txt")
	if b, err := repo.BlobByID(id); err != nil || string(b) != "g\n" {
		t.Errorf("BlobByID = %q, %v", b, err)
	}
	if b, err := repo.Blob("left", "f.txt"); err != nil || string(b) != "left\n" {
		t.Errorf("Blob = %q, %v", b, err)
	}
	missing := strings.Repeat("1", len(id))
	if _, err := repo.BlobByID(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("BlobByID(missing): %v, want an error naming it", err)
	}
	if _, err := repo.Blob("main", "gone.txt"); err == nil || !strings.Contains(err.Error(), "main:gone.txt") {
		t.Errorf("Blob(main, gone.txt): %v, want an error naming it", err)
	}
	for rev, want := range map[string]string{"main:sub/g.txt": "blob", "main:sub": "tree", "main": "commit", id: "blob"} {
		if got, err := repo.ObjectType(rev); err != nil || got != want {
			t.Errorf("ObjectType(%q) = %q, %v; want %q", rev, got, err, want)
		}
	}
	for _, rev := range []string{"main:gone.txt", missing, "-p", ""} {
		if got, err := repo.ObjectType(rev); err == nil || got != "" || !strings.Contains(err.Error(), rev) {
			t.Errorf("ObjectType(%q) = %q, %v; want an error naming it", rev, got, err)
		}
	}

	// From a subdirectory the listing is still of the whole tree.
	sub, err := Discover(filepath.Join(dir, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := sub.ListTree("main")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range entries {
		paths = append(paths, e.Path)
		if e.Type != "blob" || len(e.ID) != len(id) {
			t.Errorf("entry %+v", e)
		}
		if e.IsSymlink() != (e.Path == "link") {
			t.Errorf("%s: IsSymlink = %v", e.Path, e.IsSymlink())
		}
	}
	if want := []string{"f.txt", "link", "sub/g.txt"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("ListTree paths = %q, want %q", paths, want)
	}
	if _, err := repo.ListTree("nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("ListTree(nope): %v, want an error naming it", err)
	}
}

func TestCommitsAndLog(t *testing.T) {
	dir, repo := newHistory(t)
	base := gitIn(t, dir, "rev-parse", "main")
	c, err := repo.ReadCommit("added")
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != gitIn(t, dir, "rev-parse", "added") || c.Tree != gitIn(t, dir, "rev-parse", "added^{tree}") ||
		!reflect.DeepEqual(c.Parents, []string{base}) || c.Message != "added\n\nwith a body\n" {
		t.Errorf("ReadCommit(added) = %+v", c)
	}
	if root, err := repo.ReadCommit("main"); err != nil || len(root.Parents) != 0 || root.Message != "base\n" {
		t.Errorf("ReadCommit(main) = %+v, %v", root, err)
	}
	if _, err := repo.ReadCommit("nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("ReadCommit(nope): %v, want an error naming it", err)
	}

	log, err := repo.Log("added")
	if err != nil || len(log) != 2 || log[0].ID != c.ID || log[1].ID != base || log[1].Message != "base\n" {
		t.Errorf("Log(added) = %+v, %v", log, err)
	}
	if log, err := repo.Log("main..added"); err != nil || len(log) != 1 || log[0].ID != c.ID {
		t.Errorf("Log(main..added) = %+v, %v", log, err)
	}
	if log, err := repo.Log("added..main"); err != nil || len(log) != 0 {
		t.Errorf("Log(added..main) = %+v, %v", log, err)
	}
	if _, err := repo.Log("--all"); err == nil {
		t.Error("Log(--all) read an option as a revision")
	}
}

func TestWritingCommits(t *testing.T) {
	dir, repo := newHistory(t)
	left, right, added := gitIn(t, dir, "rev-parse", "left"), gitIn(t, dir, "rev-parse", "right"), gitIn(t, dir, "rev-parse", "added")

	tree, err := repo.MergeTrees(left, added)
	if err != nil {
		t.Fatal(err)
	}
	merge, err := repo.CommitTree(tree, []string{left, added}, "merge\n")
	if err != nil {
		t.Fatal(err)
	}
	c, err := repo.ReadCommit(merge)
	if err != nil || c.Tree != tree || !reflect.DeepEqual(c.Parents, []string{left, added}) || c.Message != "merge\n" {
		t.Errorf("the merge commit is %+v, %v", c, err)
	}
	if b, _ := repo.Blob(merge, "f.txt"); string(b) != "left\n" {
		t.Errorf("merged f.txt = %q", b)
	}
	if names, err := repo.ChangedNames(left, merge); err != nil || !reflect.DeepEqual(names, []string{"new file.txt"}) {
		t.Errorf("ChangedNames(left, merge) = %q, %v", names, err)
	}
	if names, err := repo.ChangedNames(right+"^{tree}", tree); err != nil || !reflect.DeepEqual(names, []string{"f.txt", "new file.txt"}) {
		t.Errorf("ChangedNames(right tree, merged tree) = %q, %v", names, err)
	}
	if _, err := repo.ChangedNames("nope", left); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("ChangedNames(nope, left): %v, want an error naming it", err)
	}

	_, err = repo.MergeTrees(left, right)
	var mc *MergeConflictError
	if !errors.As(err, &mc) || !reflect.DeepEqual(mc.Paths, []string{"f.txt"}) {
		t.Errorf("MergeTrees(left, right) = %v, want a conflict in f.txt", err)
	}
	if _, err := repo.MergeTrees(left, "nope"); err == nil || errors.As(err, &mc) {
		t.Errorf("MergeTrees(left, nope) = %v, want git's error", err)
	}
	if _, err := repo.CommitTree("nope", nil, "m"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("CommitTree(nope): %v, want an error naming it", err)
	}
}
