package worktree

import (
	"bytes"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/testgit"
)

// ent is one entry of a tree built byte by byte.
type ent struct{ mode, name, hash string }

// rawTreeBytes encodes entries as git stores a tree, in the order given.
func rawTreeBytes(t testing.TB, entries []ent) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, e := range entries {
		h, err := hex.DecodeString(e.hash)
		if err != nil || len(h) != 20 {
			t.Fatalf("bad hash %q", e.hash)
		}
		b.WriteString(e.mode + " " + e.name + "\x00")
		b.Write(h)
	}
	return b.Bytes()
}

// gitStdin runs git in dir with stdin and returns its trimmed stdout.
func gitStdin(t testing.TB, dir string, stdin []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// writeTree stores entries as a tree object exactly as given (git
// mktree would refuse or reorder some of them) and returns its id.
func writeTree(t testing.TB, dir string, entries ...ent) string {
	t.Helper()
	return gitStdin(t, dir, rawTreeBytes(t, entries), "hash-object", "-t", "tree", "-w", "--literally", "--stdin")
}

func writeBlob(t testing.TB, dir, content string) string {
	t.Helper()
	return gitStdin(t, dir, []byte(content), "hash-object", "-w", "--stdin")
}

// commitOnBranch commits tree on branch "hostile" and returns the commit.
func commitOnBranch(t testing.TB, dir, tree string) string {
	t.Helper()
	c := testgit.Run(t, dir, "commit-tree", tree, "-m", "hostile")
	testgit.Run(t, dir, "update-ref", "refs/heads/hostile", c)
	return c
}

// fsckVerdicts runs git fsck --strict (warnings are errors) and returns,
// per object id, the message ids git reported about it.
func fsckVerdicts(t testing.TB, dir string) map[string][]string {
	t.Helper()
	cmd := exec.Command("git", "fsck", "--strict", "--no-dangling", "--no-progress")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	re := regexp.MustCompile(`(?m)^(?:error|warning) in tree ([0-9a-f]{40}): ([a-zA-Z]+):`)
	got := map[string][]string{}
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		got[m[1]] = append(got[m[1]], m[2])
	}
	return got
}

// TestHostileTreesAreRefused builds trees git refuses, byte by byte, puts
// each on a branch and provisions it: every one is refused naming the
// entry, with nothing written inside or outside the worktree and nothing
// left behind (directory, branch, admin dir), while git fsck gives its
// own verdict on the same tree. The first case is an attack: a symlink h
// to the main repository's hooks and a directory h holding pre-commit,
// which a later plain git commit would run.
func TestHostileTreesAreRefused(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	hooks := filepath.Join(dir, ".git", "hooks")
	os.MkdirAll(hooks, 0o755)
	payload := writeBlob(t, dir, "#!/bin/sh\ntouch /tmp/agentproto-pwned\n")
	file := writeBlob(t, dir, "x\n")
	link := writeBlob(t, dir, hooks)
	hooksTree := writeTree(t, dir, ent{"100755", "pre-commit", payload})
	var nested string // the tree fsck names, when not the top one
	sub := func(name string) string { return writeTree(t, dir, ent{"40000", name, hooksTree}) }

	for _, c := range []struct {
		name    string
		tree    func() string
		path    string // what the refusal names
		fsckMsg string
	}{
		{"symlink and directory under one name", func() string {
			return writeTree(t, dir, ent{"120000", "h", link}, ent{"40000", "h", hooksTree})
		}, `"h"`, "duplicateEntries"},
		{"dotdot", func() string { return writeTree(t, dir, ent{"40000", "..", hooksTree}) }, `".."`, "hasDotdot"},
		{"dot", func() string { return writeTree(t, dir, ent{"40000", ".", hooksTree}) }, `"."`, "hasDot"},
		{".git", func() string { return sub(".git") }, `".git"`, "hasDotgit"},
		{".GIT", func() string { return sub(".GIT") }, `".GIT"`, "hasDotgit"},
		{"git~1", func() string { return sub("git~1") }, `"git~1"`, "hasDotgit"},
		{".git with a trailing space", func() string { return sub(".git ") }, `".git "`, "hasDotgit"},
		{".git with a trailing dot", func() string { return sub(".git.") }, `".git."`, "hasDotgit"},
		{".git with a zero-width joiner", func() string { return sub(".g\u200dit") }, `".g\u200dit"`, "hasDotgit"},
		{".git after a backslash", func() string { return sub(`a\.git`) }, `"a\\.git"`, "hasDotgit"},
		{"nested .git", func() string {
			nested = writeTree(t, dir, ent{"40000", ".Git", hooksTree})
			return writeTree(t, dir, ent{"40000", "src", nested})
		}, `"src/.Git"`, "hasDotgit"},
		{"slash in a name", func() string { return writeTree(t, dir, ent{"100644", "a/b", file}) }, `"a/b"`, "fullPathname"},
		{"empty name", func() string { return writeTree(t, dir, ent{"100644", "", file}) }, `""`, "badTree"}, // git's own tree parser stops there
		{".gitmodules as a symlink", func() string { return writeTree(t, dir, ent{"120000", ".gitmodules", link}) }, `".gitmodules"`, "gitmodulesSymlink"},
		{"a file named twice", func() string {
			return writeTree(t, dir, ent{"100644", "f", file}, ent{"100644", "f", payload})
		}, `"f"`, "duplicateEntries"},
		{"entries out of order", func() string {
			return writeTree(t, dir, ent{"100644", "b", file}, ent{"100644", "a", file})
		}, `"a"`, "treeNotSorted"},
	} {
		t.Run(c.name, func(t *testing.T) {
			nested = ""
			tree := c.tree()
			commit := commitOnBranch(t, dir, tree)
			judged := tree
			if nested != "" {
				judged = nested
			}
			if v := fsckVerdicts(t, dir)[judged]; !contains(v, c.fsckMsg) {
				t.Fatalf("git fsck says %v of tree %s, want %s: the case does not test what git refuses", v, tree, c.fsckMsg)
			}
			repo, _ := openAtHead(t, dir)
			outside := t.TempDir()
			path := filepath.Join(outside, "wt")
			_, err := Provision(repo, NewOptions{Slug: "hostile", Path: path, Base: "hostile", BaseCommit: commit})
			if err == nil || fault.KindOf(err) != fault.Refused || !strings.Contains(err.Error(), c.path) {
				t.Fatalf("provisioning: %v (kind %v); want a refusal naming %s", err, fault.KindOf(err), c.path)
			}
			if entries, _ := os.ReadDir(outside); len(entries) > 0 {
				t.Errorf("written beside the worktree: %v", entries)
			}
			if _, err := os.Lstat(filepath.Join(hooks, "pre-commit")); err == nil {
				t.Fatalf("the checkout wrote %s", filepath.Join(hooks, "pre-commit"))
			}
			if _, err := os.Stat(adminDir(repo, "hostile")); !os.IsNotExist(err) {
				t.Errorf("admin dir left: %v", err)
			}
			if out := testgit.Run(t, dir, "branch", "--list", "wt/*"); out != "" {
				t.Errorf("branches left: %s", out)
			}
			// The tree was rejected before anything was made, so removal
			// leaves the repository as it was.
			testgit.Run(t, dir, "update-ref", "-d", "refs/heads/hostile")
		})
	}
	if _, err := os.Stat("/tmp/agentproto-pwned"); err == nil {
		t.Error("the hook payload ran")
	}
}

func filemodeOf(mode string) filemode.FileMode {
	m, err := parseMode([]byte(mode))
	if err != nil {
		panic(err)
	}
	return m
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestDirMakerNeverFollowsSymlinks: a symlink already on disk where the
// checkout wants a directory (put there by someone else) is not taken for
// a directory made: EEXIST from mkdir ends in an error, and nothing is
// written where the link points.
func TestDirMakerNeverFollowsSymlinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "h")); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(root, "d"), 0o755)
	if err := os.Symlink(outside, filepath.Join(root, "d", "x")); err != nil {
		t.Fatal(err)
	}
	dirs, err := newDirMaker(root)
	if err != nil {
		t.Fatal(err)
	}
	defer dirs.Close()
	for _, rel := range []string{"h", "h/sub", "d/x", "d/x/y"} {
		if fd, err := dirs.open(rel); err == nil {
			t.Errorf("opened %s through a symlink (fd %d)", rel, fd)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("written through the symlink: %v", entries)
	}
}

// nameCases are names near git's aliases of .git and .gitmodules, on
// both sides of each rule.
func nameCases() []string {
	names := []string{
		"a", ".gitignore", ".github", ".gitx", "..a", "...", " .git", "x.git", ".gi", "git", "gitx",
		".git", ".GIT", ".Git", ".gIt", ".git ", ".git.", ".git. .", ".git x", ".git:x", ".git\\", ".git\\x",
		"git~1", "GIT~1", "git~1 .", ".git::$INDEX_ALLOCATION", "git~1:x", ".gitmodules::$DATA", "git~2", "git~10", "git~1x", "a\\.git", "a\\b\\git~1", "a\\.gitx",
		".git\xff", ".gi\xfft", ".git\uffff", ".git\ufeff", "\u200c.git", ".\u200dgit", ".g\u200cit", ".gi\u200et",
		".git\u200f", ".git\u202a\u202e", ".\u206agit\u206f", ".gît", ".g\u0131t", ".git\u00a0",
		".gitmodules", ".GITMODULES", ".gitmodules ", ".gitmodules.", ".gitmodules:$DATA", ".gitmodulesx",
		".gitmodule", "gitmod~1", "GITMOD~4", "gitmod~5", "gi7eba~1", "gi7eba~9", "gi7eb~12", "gi7e~123",
		"gi7eba~1 .", "gi7ebax~1", "g~1", "gitmodules", ".gitmod\u200cules", "a\\.gitmodules", "x\\gitmod~1",
	}
	// Case and ignorable code points everywhere in ".git".
	for _, ign := range []string{"\u200c", "\ufeff", "\u206e"} {
		for i := 0; i <= 4; i++ {
			names = append(names, ".GiT"[:i]+ign+".GiT"[i:])
		}
	}
	return names
}

// TestTreeEntryNamesAgainstGitFsck: for every name, as a file and as a
// symlink, our rules refuse exactly the trees git fsck --strict reports
// for their names.
func TestTreeEntryNamesAgainstGitFsck(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	file := writeBlob(t, dir, "x\n")
	nameMsgs := map[string]bool{"hasDot": true, "hasDotdot": true, "hasDotgit": true, "fullPathname": true,
		"emptyName": true, "gitmodulesSymlink": true, "badTree": true}
	type tc struct{ name, mode, tree string }
	var cases []tc
	for _, name := range nameCases() {
		for _, mode := range []string{"100644", "120000"} {
			cases = append(cases, tc{name, mode, writeTree(t, dir, ent{mode, name, file})})
		}
	}
	verdicts := fsckVerdicts(t, dir)
	for _, c := range cases {
		gitRefuses := false
		for _, m := range verdicts[c.tree] {
			gitRefuses = gitRefuses || nameMsgs[m]
		}
		mode := filemodeOf(c.mode)
		ours := entryNameProblem(c.name, mode)
		if (ours != "") != gitRefuses {
			t.Errorf("%q (%s): we say %q, git fsck says %v", c.name, c.mode, ours, verdicts[c.tree])
		}
	}
}
