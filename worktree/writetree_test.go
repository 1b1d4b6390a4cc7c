package worktree

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
	if want := gitWithIndex(t, dir, index, "", "write-tree"); ours != want {
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
	gitWithIndex(t, dir, empty, "", "read-tree", "--empty")
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
		"not an index": func(index string) { os.WriteFile(index, []byte("DIRC but not really"), 0o644) },
	} {
		index := filepath.Join(t.TempDir(), "index")
		gitWithIndex(t, dir, index, "", "read-tree", "HEAD")
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
