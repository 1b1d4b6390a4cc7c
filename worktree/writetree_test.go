package worktree

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/testgit"
)

// gitWithIndex runs git in dir with index as its index file.
func gitWithIndex(t *testing.T, dir, index string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+index)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// sameTreeAsGit checks that writeIndexTree writes the tree git write-tree
// writes for the index, and that the tree, and every tree below it, is in
// the repository afterwards.
func sameTreeAsGit(t *testing.T, dir, index string) {
	t.Helper()
	common := filepath.Join(dir, ".git")
	ours, ok, err := writeIndexTree(common, index)
	if err != nil || !ok {
		t.Fatalf("writeIndexTree: %q %v %v", ours, ok, err)
	}
	// Every tree ours names is readable before git writes any.
	listing := testgit.Run(t, dir, "ls-tree", "-r", "-t", ours)
	// git write-tree caches the trees in the index it reads: it reads a
	// copy, so that the next step starts from the index as it was.
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "index")
	os.WriteFile(copied, b, 0o644)
	if want := gitWithIndex(t, dir, copied, "", "write-tree"); ours != want {
		t.Fatalf("tree %s, git write-tree says %s\nours:\n%s", ours, want, listing)
	}
}

// The trees of indexes of every shape git makes: nested directories whose
// names sort around the slash, spaces and non-ASCII names, an executable,
// a symbolic link, a submodule, versions 2, 3 and 4, an empty index.
func TestWriteIndexTreeIsGitsWriteTree(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	files := []string{"a-b", "a/b", "a/c/d", "a0", "a.b", "b", "z/y/x", "with space/f", "é/ü", "deep/1/2/3/4/5", "a/c-d", "a/c.d", "a/c0"}
	for _, f := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), []byte(f+"\n"), 0o644)
	}
	os.Chmod(filepath.Join(dir, "b"), 0o755)
	os.Symlink("a/b", filepath.Join(dir, "link"))
	index := filepath.Join(t.TempDir(), "index")
	gitWithIndex(t, dir, index, "", "add", "-A")
	head := testgit.Run(t, dir, "rev-parse", "HEAD")
	gitWithIndex(t, dir, index, "", "update-index", "--add", "--cacheinfo", "160000,"+head+",sub/module")
	sameTreeAsGit(t, dir, index)

	gitWithIndex(t, dir, index, "", "update-index", "--skip-worktree", "a/b") // version 3
	sameTreeAsGit(t, dir, index)
	gitWithIndex(t, dir, index, "", "update-index", "--index-version", "4")
	sameTreeAsGit(t, dir, index)

	empty := filepath.Join(t.TempDir(), "empty")
	gitWithIndex(t, dir, empty, "", "update-index", "--add", "--cacheinfo", "100644,"+head+",x")
	gitWithIndex(t, dir, empty, "", "update-index", "--force-remove", "x")
	sameTreeAsGit(t, dir, empty)
}

// An index git would not write as it is, or that this reading does not
// take, is left to git: an entry added with intent to add, a conflict.
func TestWriteIndexTreeLeavesToGit(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	os.WriteFile(filepath.Join(dir, "new"), []byte("new\n"), 0o644)
	blob := testgit.Run(t, dir, "hash-object", "-w", "new")
	common := filepath.Join(dir, ".git")
	for name, setup := range map[string]func(index string){
		"intent to add": func(index string) { gitWithIndex(t, dir, index, "", "add", "-N", "new") },
		"conflict": func(index string) {
			gitWithIndex(t, dir, index, fmt.Sprintf("100644 %s 1\tc\n100644 %s 2\tc\n", blob, blob), "update-index", "--index-info")
		},
		"not an index":  func(index string) { os.WriteFile(index, []byte("DIRC but not really"), 0o644) },
		"a cached tree": func(index string) { gitWithIndex(t, dir, index, "", "read-tree", "HEAD") },
	} {
		index := filepath.Join(t.TempDir(), "index")
		gitWithIndex(t, dir, index, "", "add", "README") // no cached tree
		if tree, ok, err := writeIndexTree(common, index); !ok || err != nil {
			t.Fatalf("%s, before: %q %v %v; want it written here", name, tree, ok, err)
		}
		setup(index)
		if tree, ok, err := writeIndexTree(common, index); ok || err != nil {
			t.Errorf("%s: wrote %q, %v, %v; want it left to git", name, tree, ok, err)
		}
	}
}

// Random trees of names built from characters that sort around '/' give
// the tree git gives, after changes, removals and additions.
func TestWriteIndexTreeOnRandomTrees(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	r := rand.New(rand.NewPCG(1, 2))
	parts := []string{"a", "a-", "a.", "a0", "b", "-", "A", "a b"}
	index := filepath.Join(t.TempDir(), "index")
	for round := 0; round < 12; round++ {
		for i := 0; i < 20; i++ {
			var p []string
			for d := r.IntN(4); d >= 0; d-- {
				p = append(p, parts[r.IntN(len(parts))])
			}
			path := filepath.Join(dir, filepath.Join(p...))
			if st, err := os.Stat(path); err == nil && st.IsDir() {
				continue
			}
			if os.MkdirAll(filepath.Dir(path), 0o755) != nil {
				continue // a file holds the place of one of its directories
			}
			os.WriteFile(path, []byte(fmt.Sprintln(round, i)), 0o644)
		}
		if round%3 == 2 {
			os.RemoveAll(filepath.Join(dir, parts[r.IntN(len(parts))]))
		}
		gitWithIndex(t, dir, index, "", "add", "-A")
		sameTreeAsGit(t, dir, index)
	}
}

// A tree of HEAD's that git would not write the same way today — a mode
// 100664 from an old git, a zero-padded 040000 — keeps its id in the cached
// tree of an index read from HEAD, and git write-tree answers with it: such
// an index is left to git. Once a change has invalidated every directory
// (here the only one, the root), the trees are written here again.
func TestWriteIndexTreeLeavesHeadsCachedTreesToGit(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	common := filepath.Join(dir, ".git")
	os.MkdirAll(filepath.Join(dir, "d"), 0o755)
	os.WriteFile(filepath.Join(dir, "d", "g"), []byte("x\n"), 0o644)
	blob := testgit.Run(t, dir, "hash-object", "-w", "d/g")
	readme := testgit.Run(t, dir, "rev-parse", "HEAD:README")
	sub := gitWithIndex(t, dir, filepath.Join(t.TempDir(), "unused"), fmt.Sprintf("100664 blob %s\tg\n", blob), "mktree")
	root := gitWithIndex(t, dir, filepath.Join(t.TempDir(), "unused"), fmt.Sprintf("100644 blob %s\tREADME\n040000 tree %s\td\n", readme, sub), "mktree")
	commit := testgit.Run(t, dir, "commit-tree", root, "-m", "legacy")
	testgit.Run(t, dir, "update-ref", "refs/heads/main", commit)
	testgit.Run(t, dir, "reset", "-q", "--hard") // the index caches HEAD's trees
	old := time.Now().Add(-time.Hour)
	for _, f := range []string{"README", "d/g"} {
		os.Chtimes(filepath.Join(dir, f), old, old)
	}
	testgit.Run(t, dir, "update-index", "-q", "--refresh") // no entry racily clean
	b, err := os.ReadFile(filepath.Join(common, "index"))
	if err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(t.TempDir(), "index")
	os.WriteFile(index, b, 0o644)
	gitWithIndex(t, dir, index, "", "add", "-A")
	probe := filepath.Join(t.TempDir(), "index")
	if b, err = os.ReadFile(index); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(probe, b, 0o644)
	if got := gitWithIndex(t, dir, probe, "", "write-tree"); got != root {
		t.Fatalf("git write-tree %s, HEAD's tree %s: the case does not hold", got, root)
	}
	if tree, ok, err := writeIndexTree(common, index); ok || err != nil {
		t.Fatalf("wrote %q, %v, %v over HEAD's cached trees; want it left to git", tree, ok, err)
	}

	flat := t.TempDir()
	testgit.Run(t, flat, "init", "-q")
	os.WriteFile(filepath.Join(flat, "a"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(flat, "b"), []byte("b\n"), 0o644)
	flatIndex := filepath.Join(t.TempDir(), "index")
	gitWithIndex(t, flat, flatIndex, "", "add", "-A")
	gitWithIndex(t, flat, flatIndex, "", "write-tree") // caches the root
	os.WriteFile(filepath.Join(flat, "b"), []byte("changed\n"), 0o644)
	gitWithIndex(t, flat, flatIndex, "", "add", "-A") // invalidates it
	sameTreeAsGit(t, flat, flatIndex)
}

// A tree already there as a loose object is freshened, as git write-tree
// does, so that a prune of old unreferenced objects does not take it.
func TestWriteIndexTreeFreshensTreesThere(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	os.MkdirAll(filepath.Join(dir, "d"), 0o755)
	os.WriteFile(filepath.Join(dir, "d", "f"), []byte("f\n"), 0o644)
	index := filepath.Join(t.TempDir(), "index")
	gitWithIndex(t, dir, index, "", "add", "-A")
	tree, ok, err := writeIndexTree(filepath.Join(dir, ".git"), index)
	if !ok || err != nil {
		t.Fatalf("%q %v %v", tree, ok, err)
	}
	path := filepath.Join(dir, ".git", "objects", tree[:2], tree[2:])
	old := time.Now().Add(-30 * 24 * time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if again, _, _ := writeIndexTree(filepath.Join(dir, ".git"), index); again != tree {
		t.Fatalf("the same index wrote %s, then %s", tree, again)
	}
	if st, err := os.Stat(path); err != nil || time.Since(st.ModTime()) > time.Hour {
		t.Fatalf("the tree there was left at %v (%v)", st.ModTime(), err)
	}
}
