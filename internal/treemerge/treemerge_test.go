package treemerge

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/agentproto/agentproto/internal/testgit"
)

// file is a path's content and whether it is executable; link makes it a
// symbolic link to content.
type file struct {
	content    string
	exec, link bool
}

type repo struct {
	t   *testing.T
	dir string
}

func newRepo(t *testing.T) *repo {
	testgit.Isolate(t)
	return &repo{t: t, dir: testgit.Init(t)}
}

func (r *repo) git(args ...string) string { return testgit.Run(r.t, r.dir, args...) }

// commit makes a commit on top of parent (none: the initial one) holding
// exactly files, and returns its id.
func (r *repo) commit(parent string, files map[string]file, msg string) string {
	r.t.Helper()
	if parent == "" {
		parent = r.git("rev-list", "--max-parents=0", "HEAD")
	}
	r.git("checkout", "-q", "--detach", parent)
	r.git("rm", "-rq", "--ignore-unmatch", ".")
	for p, f := range files {
		path := filepath.Join(r.dir, p)
		os.MkdirAll(filepath.Dir(path), 0o755)
		var err error
		switch {
		case f.link:
			err = os.Symlink(f.content, path)
		case f.exec:
			err = os.WriteFile(path, []byte(f.content), 0o755)
		default:
			err = os.WriteFile(path, []byte(f.content), 0o644)
		}
		if err != nil {
			r.t.Fatal(err)
		}
	}
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// gitMerge is what git merge-tree says of merging theirs into ours.
func (r *repo) gitMerge(ours, theirs string) (tree string, clean bool) {
	r.t.Helper()
	cmd := exec.Command("git", "merge-tree", "--write-tree", "--no-messages", ours, theirs)
	cmd.Dir = r.dir
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		r.t.Fatalf("git merge-tree %s %s: %v", ours, theirs, err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return first, err == nil
}

func (r *repo) open() *Store {
	s := Open(filepath.Join(r.dir, ".git"))
	r.t.Cleanup(s.Close)
	return s
}

// check merges theirs into ours here and with git: a tree given here is
// git's clean result, written where git reads it. It reports whether the
// merge was done here.
func (r *repo) check(s *Store, ours, theirs string) bool {
	r.t.Helper()
	want, clean := r.gitMerge(ours, theirs)
	got, err := s.Merge(plumbing.NewHash(ours), plumbing.NewHash(theirs))
	if errors.Is(err, ErrUnsure) {
		return false
	}
	if err != nil {
		r.t.Fatalf("merge %s into %s: %v", theirs, ours, err)
	}
	if !clean || got.String() != want {
		r.t.Fatalf("merge %.7s into %.7s: got tree %s, git says %s (clean %v)", theirs, ours, got, want, clean)
	}
	if err := s.Flush(); err != nil {
		r.t.Fatal(err)
	}
	r.git("cat-file", "-e", got.String())
	return true
}

func TestDisjointChangesMergeLikeGit(t *testing.T) {
	r := newRepo(t)
	base := r.commit("", map[string]file{"a": {content: "a\n"}, "d/x": {content: "x\n"}, "d/y": {content: "y\n"}, "t/u/v": {content: "v\n"}}, "base")
	cases := []struct {
		name         string
		ours, theirs map[string]file
	}{
		{"new directories", map[string]file{"p1/f": {content: "1\n"}}, map[string]file{"p2/f": {content: "2\n"}}},
		{"one directory, other files", map[string]file{"d/x": {content: "x2\n"}}, map[string]file{"d/y": {content: "y2\n"}}},
		{"directory emptied by the two", map[string]file{"d/x": {}}, map[string]file{"d/y": {}}},
		{"deep", map[string]file{"t/u/w": {content: "w\n"}}, map[string]file{"t/q": {content: "q\n"}}},
		{"file becomes a directory", map[string]file{"a": {}, "a/b": {content: "b\n"}}, map[string]file{"d/z": {content: "z\n"}}},
		{"executable and link", map[string]file{"a": {content: "a\n", exec: true}}, map[string]file{"l": {content: "d/x", link: true}}},
		{"rename on one side", map[string]file{"a": {}, "moved/a": {content: "a\n"}}, map[string]file{"d/x": {content: "x3\n"}}},
	}
	s := r.open()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ours := r.commit(base, apply(r.files(base), c.ours), "ours")
			theirs := r.commit(base, apply(r.files(base), c.theirs), "theirs")
			if !r.check(s, ours, theirs) {
				t.Fatal("a merge of disjoint changes was left to git")
			}
			if !r.check(s, ours, base) || !r.check(s, base, theirs) {
				t.Fatal("a merge with an ancestor was left to git")
			}
		})
	}
}

func TestOverlapsAreLeftToGit(t *testing.T) {
	r := newRepo(t)
	lines := "1\n2\n3\n4\n5\n6\n7\n8\n9\n"
	base := r.commit("", map[string]file{"a": {content: lines}, "d/x": {content: lines}, "d/y": {content: "y\n"}}, "base")
	cases := []struct {
		name         string
		ours, theirs map[string]file
	}{
		{"one file, different lines", map[string]file{"a": {content: "0\n" + lines}}, map[string]file{"a": {content: lines + "10\n"}}},
		{"one file, same change", map[string]file{"a": {content: "new\n"}}, map[string]file{"a": {content: "new\n"}}},
		{"both delete", map[string]file{"a": {}}, map[string]file{"a": {}}},
		{"rename against change", map[string]file{"a": {}, "b": {content: lines}}, map[string]file{"a": {content: lines + "10\n"}}},
		{"directory renamed, file added to it", map[string]file{"d/x": {}, "d/y": {}, "e/x": {content: lines}, "e/y": {content: "y\n"}}, map[string]file{"d/z": {content: "z\n"}}},
		{"mode against content", map[string]file{"a": {content: lines, exec: true}}, map[string]file{"a": {content: lines + "10\n"}}},
		{"file against directory", map[string]file{"n": {content: "n\n"}}, map[string]file{"n/m": {content: "m\n"}}},
	}
	s := r.open()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ours := r.commit(base, apply(r.files(base), c.ours), "ours")
			theirs := r.commit(base, apply(r.files(base), c.theirs), "theirs")
			if r.check(s, ours, theirs) {
				t.Fatal("a merge where both sides changed one path was made here")
			}
		})
	}
}

// files reads back the files of commit c.
func (r *repo) files(c string) map[string]file {
	out := map[string]file{}
	for _, line := range strings.Split(r.git("ls-tree", "-r", c), "\n") {
		meta, path, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		content := r.git("cat-file", "blob", f[2])
		if f[0] != "120000" {
			content += "\n" // the Run helper trims it
		}
		out[path] = file{content: content, exec: f[0] == "100755", link: f[0] == "120000"}
	}
	return out
}

// apply returns files with changes: an empty file is a deletion.
func apply(files, changes map[string]file) map[string]file {
	for p, f := range changes {
		if f == (file{}) {
			delete(files, p)
		} else {
			files[p] = f
		}
	}
	return files
}

// TestRandomMergesAgreeWithGit merges random changes of a few paths —
// edits, deletions, additions, renames, files turned into directories —
// and holds every merge made here to git's.
func TestRandomMergesAgreeWithGit(t *testing.T) {
	r := newRepo(t)
	s := r.open()
	universe := []string{"a", "b", "c/d", "c/e", "c/f/g", "c/f/h", "i/j", "i", "k/l/m", "n"}
	body := func(rng *rand.Rand) string {
		var b strings.Builder
		for i := 0; i < 8; i++ {
			fmt.Fprintf(&b, "line %d of %d\n", i, rng.Intn(3))
		}
		return b.String()
	}
	fits := func(files map[string]file, p string) bool {
		for q := range files {
			if q == p || strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
				return false
			}
		}
		return true
	}
	change := func(rng *rand.Rand, files map[string]file) map[string]file {
		out := map[string]file{}
		for p, f := range files {
			out[p] = f
		}
		for n := rng.Intn(3) + 1; n > 0; n-- {
			paths := make([]string, 0, len(out))
			for p := range out {
				paths = append(paths, p)
			}
			sort.Strings(paths)
			p := universe[rng.Intn(len(universe))]
			switch op := rng.Intn(5); {
			case op == 0 && len(paths) > 0:
				old := paths[rng.Intn(len(paths))]
				out[old] = file{content: out[old].content + "edit\n"}
			case op == 1 && len(paths) > 0:
				delete(out, paths[rng.Intn(len(paths))])
			case op == 2 && len(paths) > 0:
				old := paths[rng.Intn(len(paths))]
				f := out[old]
				delete(out, old)
				if fits(out, p) {
					out[p] = f // a rename
				}
			case op == 3 && len(paths) > 0:
				old := paths[rng.Intn(len(paths))]
				out[old] = file{content: out[old].content, exec: !out[old].exec}
			default:
				if fits(out, p) {
					out[p] = file{content: body(rng)}
				}
			}
		}
		return out
	}
	here := 0
	for seed := int64(0); seed < 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		files := map[string]file{}
		for _, p := range universe {
			if rng.Intn(2) == 0 && fits(files, p) {
				files[p] = file{content: body(rng)}
			}
		}
		base := r.commit("", files, "base")
		ours := r.commit(base, change(rng, files), "ours")
		theirs := r.commit(base, change(rng, files), "theirs")
		if r.check(s, ours, theirs) {
			here++
		}
	}
	if here == 0 {
		t.Fatal("every random merge was left to git")
	}
	t.Logf("%d of 40 merges made here", here)
}

// TestChainOfMerges merges branches one after the other onto commits made
// here, as consolidate does, and compares each step with git.
func TestChainOfMerges(t *testing.T) {
	r := newRepo(t)
	base := r.commit("", map[string]file{"README": {content: "hello\n"}}, "base")
	var tips []string
	for i := 0; i < 6; i++ {
		tips = append(tips, r.commit(base, map[string]file{"README": {content: "hello\n"}, fmt.Sprintf("p%d/x", i): {content: fmt.Sprint(i, "\n")}}, fmt.Sprint("wp", i)))
	}
	first := r.git("commit-tree", r.git("merge-tree", "--write-tree", base, tips[0]), "-p", base, "-p", tips[0], "-m", "merge 0")
	s := r.open()
	identity, err := s.Identity(plumbing.NewHash(first))
	if err != nil {
		t.Fatal(err)
	}
	head := plumbing.NewHash(first)
	var chain []plumbing.Hash
	for _, tip := range tips[1:] {
		tree, err := s.Merge(head, plumbing.NewHash(tip))
		if err != nil {
			t.Fatalf("merging %s: %v", tip, err)
		}
		head = s.Commit(tree, []plumbing.Hash{head, plumbing.NewHash(tip)}, identity, "merge")
		chain = append(chain, head)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	prev := first
	for i, c := range chain {
		want, clean := r.gitMerge(prev, tips[i+1])
		if got := r.git("rev-parse", c.String()+"^{tree}"); !clean || got != want {
			t.Fatalf("step %d: tree %s, git merges to %s", i+1, got, want)
		}
		prev = c.String()
	}
	if n := r.git("rev-list", "--count", "--merges", head.String()); n != "6" {
		t.Fatalf("%s merges in the chain, want 6", n)
	}
	r.git("fsck", "--no-dangling", "--strict")
}

func TestCommitIsWhatCommitTreeWrites(t *testing.T) {
	r := newRepo(t)
	head := r.git("rev-parse", "HEAD")
	tree := r.git("rev-parse", "HEAD^{tree}")
	made := r.git("commit-tree", tree, "-p", head, "-m", "one")
	s := r.open()
	identity, err := s.Identity(plumbing.NewHash(made))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Commit(plumbing.NewHash(tree), []plumbing.Hash{plumbing.NewHash(head)}, identity, "one"); got.String() != made {
		t.Fatalf("made %s, git commit-tree made %s", got, made)
	}
}

func TestHistoryGitRewritesIsLeftToGit(t *testing.T) {
	r := newRepo(t)
	base := r.git("rev-parse", "HEAD")
	ours := r.commit(base, map[string]file{"README": {content: "hello\n"}, "a": {content: "a\n"}}, "ours")
	theirs := r.commit(base, map[string]file{"README": {content: "hello\n"}, "b": {content: "b\n"}}, "theirs")
	if !r.check(r.open(), ours, theirs) {
		t.Fatal("a plain merge was left to git")
	}
	r.git("replace", "--graft", theirs, ours) // git now sees theirs on top of ours
	if r.check(r.open(), ours, theirs) {
		t.Fatal("a merge under a replace ref was made here")
	}
}

func TestCrissCrossIsLeftToGit(t *testing.T) {
	r := newRepo(t)
	base := r.git("rev-parse", "HEAD")
	a := r.commit(base, map[string]file{"README": {content: "hello\n"}, "a": {content: "a\n"}}, "a")
	b := r.commit(base, map[string]file{"README": {content: "hello\n"}, "b": {content: "b\n"}}, "b")
	both := map[string]file{"README": {content: "hello\n"}, "a": {content: "a\n"}, "b": {content: "b\n"}}
	ab := r.git("commit-tree", r.git("rev-parse", a+"^{tree}"), "-p", a, "-p", b, "-m", "ab")
	ba := r.git("commit-tree", r.git("rev-parse", b+"^{tree}"), "-p", b, "-p", a, "-m", "ba")
	ours := r.commit(ab, apply(both, map[string]file{"c": {content: "c\n"}}), "ours")
	theirs := r.commit(ba, apply(both, map[string]file{"d": {content: "d\n"}}), "theirs")
	if _, err := r.open().MergeBase(plumbing.NewHash(ours), plumbing.NewHash(theirs)); !errors.Is(err, ErrUnsure) {
		t.Fatalf("criss-cross merge base: %v, want ErrUnsure", err)
	}
}
