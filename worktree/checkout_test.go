package worktree

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
)

// diskEntry is what a checkout left at one path.
type diskEntry struct {
	kind    string // file, exec, link, dir
	content string // file content or link target
}

// snapshotTree reads every path under dir but its .git file.
func snapshotTree(t testing.TB, dir string) map[string]diskEntry {
	t.Helper()
	out := map[string]diskEntry{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." || rel == ".git" {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = diskEntry{"link", target}
		case fi.IsDir():
			out[rel] = diskEntry{kind: "dir"}
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			kind := "file"
			if fi.Mode().Perm()&0o100 != 0 {
				kind = "exec"
			}
			if fi.Mode().Perm()&^0o111 != 0o644 {
				kind += fmt.Sprintf("(%o)", fi.Mode().Perm())
			}
			if filepath.Base(rel) == ".git" && strings.HasPrefix(string(b), "gitdir: ") {
				// A submodule's: it names the admin dir of its worktree.
				b = []byte("gitdir: (its worktree's modules)")
			}
			out[rel] = diskEntry{kind, string(b)}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// requireSameTree fails unless ours and git's hold the same paths, kinds,
// modes, contents and link targets.
func requireSameTree(t testing.TB, ours, theirs string) {
	t.Helper()
	a, b := snapshotTree(t, ours), snapshotTree(t, theirs)
	var paths []string
	for p := range a {
		paths = append(paths, p)
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		x, okx := a[p]
		y, oky := b[p]
		switch {
		case !okx:
			t.Errorf("%s: only in git's checkout (%s)", p, y.kind)
		case !oky:
			t.Errorf("%s: only in ours (%s)", p, x.kind)
		case x != y:
			t.Errorf("%s: ours %s %q, git's %s %q", p, x.kind, x.content, y.kind, y.content)
		}
	}
}

// provisionAndCompare provisions the repository's HEAD with agentproto
// and with git worktree add, requires the same tree byte for byte and the
// same (empty) git status in both, and returns our record.
func provisionAndCompare(t *testing.T, dir string, o NewOptions) *Meta {
	t.Helper()
	repo, head := openAtHead(t, dir)
	root := t.TempDir()
	if o.Slug == "" {
		o.Slug = "ours"
	}
	o.Path, o.Base, o.BaseCommit = filepath.Join(root, o.Slug), "main", head
	m, err := Provision(repo, o)
	if err != nil {
		t.Fatalf("provisioning: %v", err)
	}
	theirs := filepath.Join(root, "theirs")
	testgit.Run(t, dir, "worktree", "add", "-q", "-b", "theirs-"+o.Slug, theirs, head)
	if o.Submodules {
		testgit.Run(t, theirs, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "--recursive", "-q")
	}
	requireSameTree(t, m.Path, theirs)
	// git status with every file compared by content (an index older than
	// the files makes git re-read them all; a plain status re-reads only
	// the files written in the index's last clock tick, by chance): blobs
	// a conversion would change on commit (CRLF stored under text) are
	// modified in both, every other file clean.
	ourStatus, gitStatus := contentStatus(t, m.Path), contentStatus(t, theirs)
	if ourStatus != gitStatus {
		t.Errorf("git status by content in ours: %q, in git's: %q", ourStatus, gitStatus)
	}
	return m
}

// contentStatus is git status once the index is older than every file.
func contentStatus(t *testing.T, wt string) string {
	t.Helper()
	idx := testgit.Run(t, wt, "rev-parse", "--path-format=absolute", "--git-path", "index")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(idx, old, old); err != nil {
		t.Fatal(err)
	}
	return testgit.Run(t, wt, "status", "--porcelain")
}

// contentFiles are blobs of every kind line endings care about.
var contentFiles = map[string]string{
	"lf.txt":         "one\ntwo $Id$\nthree\n",
	"crlf.txt":       "one\r\ntwo\r\n",
	"mixed.txt":      "one\r\ntwo\nthree\n",
	"lonecr.txt":     "one\rtwo\n",
	"nonl.txt":       "no newline at all",
	"empty.txt":      "",
	"binary.bin":     "\x00\x01\x02\nbinary\n\xff",
	"ctrl.txt":       "\x01\x02\x03\x04\x05\x06\x07\nmostly control\n",
	"dos-eof.txt":    "text ending in ^Z\n\x1a",
	"sub/nested.txt": "nested\nlines\n",
	"sub/deeper/x.c": "int x;\n",
	"Upper.TXT":      "Case\n",
}

// contentRepo commits contentFiles, an executable and a symlink with no
// attributes in effect (so the blobs hold exactly these bytes), then
// attrs as .gitattributes when given.
func contentRepo(t *testing.T, attrs string) string {
	t.Helper()
	testgit.Isolate(t)
	dir := testgit.Init(t)
	for name, content := range contentFiles {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755)
	os.Symlink("lf.txt", filepath.Join(dir, "link"))
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "content")
	if attrs != "" {
		os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte(attrs), 0o644)
		testgit.Run(t, dir, "add", ".gitattributes")
		testgit.Run(t, dir, "commit", "-q", "-m", "attributes")
	}
	return dir
}

// TestCheckoutMatchesGit is the differential table: attributes × config
// × content, each checked out by agentproto and by git worktree add,
// byte for byte, modes and symlinks included, git status clean in both.
// Line endings are converted on the fast path; filters, ident and
// working-tree-encoding go to git's checkout.
func TestCheckoutMatchesGit(t *testing.T) {
	attributes := []struct {
		name, attrs, path string
	}{
		{"none", "", CheckoutFast},
		{"text=auto", "* text=auto\n", CheckoutFast},
		{"text=auto eol=lf", "* text=auto eol=lf\n", CheckoutFast},
		{"text=auto eol=crlf", "* text=auto eol=crlf\n", CheckoutFast},
		{"text", "* text\n", CheckoutFast},
		{"text eol=crlf", "* text eol=crlf\n", CheckoutFast},
		{"eol=crlf and binary", "*.txt eol=crlf\n*.bin binary\n", CheckoutFast},
		{"-text", "* -text\n", CheckoutFast},
		{"crlf", "* crlf\n", CheckoutFast},
		{"-crlf", "* -crlf\n", CheckoutFast},
		{"crlf=input", "* crlf=input\n", CheckoutFast},
		{"per directory", "*.txt text eol=crlf\n[attr]mine -text\nsub/** mine\n", CheckoutFast},
		{"filter without driver", "*.txt filter=absent\n", CheckoutFast},
		{"ident", "*.txt ident\n", CheckoutGit},
		{"filter with smudge", "*.txt filter=upper\n", CheckoutGit},
		{"working-tree-encoding", "lf.txt working-tree-encoding=UTF-16\n", CheckoutGit},
	}
	configs := []struct {
		name  string
		setup func(t *testing.T, dir string)
	}{
		{"default", func(t *testing.T, dir string) {}},
		{"autocrlf=true", func(t *testing.T, dir string) { testgit.Run(t, dir, "config", "core.autocrlf", "true") }},
		{"autocrlf=input", func(t *testing.T, dir string) { testgit.Run(t, dir, "config", "core.autocrlf", "input") }},
		{"autocrlf=false", func(t *testing.T, dir string) { testgit.Run(t, dir, "config", "core.autocrlf", "false") }},
		{"eol=crlf", func(t *testing.T, dir string) { testgit.Run(t, dir, "config", "core.eol", "crlf") }},
		{"global autocrlf=true", func(t *testing.T, dir string) {
			testgit.Run(t, dir, "config", "--global", "core.autocrlf", "true")
		}},
		{"global attributes file", func(t *testing.T, dir string) {
			p := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "git", "attributes")
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte("*.txt text eol=crlf\n*.c text\n"), 0o644)
		}},
		{"info/attributes", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ".git", "info", "attributes"), []byte("*.TXT eol=crlf\nmixed.txt -text\n"), 0o644)
		}},
	}
	for _, a := range attributes {
		for _, c := range configs {
			t.Run(a.name+"/"+c.name, func(t *testing.T) {
				dir := contentRepo(t, a.attrs)
				testgit.Run(t, dir, "config", "filter.upper.smudge", "tr a-z A-Z")
				testgit.Run(t, dir, "config", "filter.upper.clean", "tr A-Z a-z")
				c.setup(t, dir)
				m := provisionAndCompare(t, dir, NewOptions{})
				if m.Checkout != a.path {
					t.Errorf("checked out by %q (%s), want %q", m.Checkout, m.CheckoutReason, a.path)
				}
			})
		}
	}
}

// TestNormalizedRepositoriesAreClean: with blobs stored as git stores
// them under their attributes (LF), git status is empty in ours, under
// every line ending setting.
func TestNormalizedRepositoriesAreClean(t *testing.T) {
	for _, c := range []struct{ attrs, config string }{
		{"* text=auto eol=lf\n", ""}, {"* text=auto\n", "core.autocrlf=true"}, {"* text eol=crlf\n", ""},
		{"", "core.autocrlf=true"}, {"*.txt text\n", "core.eol=crlf"},
	} {
		t.Run(c.attrs+c.config, func(t *testing.T) {
			testgit.Isolate(t)
			dir := testgit.Init(t)
			os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte(c.attrs), 0o644)
			os.MkdirAll(filepath.Join(dir, "src"), 0o755)
			os.WriteFile(filepath.Join(dir, "src", "a.txt"), []byte("one\ntwo\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "src", "b.bin"), []byte("\x00\n\x01"), 0o644)
			testgit.Run(t, dir, "add", "-A")
			testgit.Run(t, dir, "commit", "-q", "-m", "normalized")
			if k, v, ok := strings.Cut(c.config, "="); ok {
				testgit.Run(t, dir, "config", "--global", k, v)
			}
			m := provisionAndCompare(t, dir, NewOptions{})
			if st := contentStatus(t, m.Path); st != "" {
				t.Errorf("git status: %q", st)
			}
		})
	}
}

// TestConversionsDoSomething guards the table against testing nothing:
// under eol=crlf our checkout does write CRLF where the blob has LF.
func TestConversionsDoSomething(t *testing.T) {
	dir := contentRepo(t, "* text eol=crlf\n")
	m := provisionAndCompare(t, dir, NewOptions{})
	b, err := os.ReadFile(filepath.Join(m.Path, "lf.txt"))
	if err != nil || !bytes.Equal(b, []byte("one\r\ntwo $Id$\r\nthree\r\n")) {
		t.Fatalf("lf.txt holds %q (%v)", b, err)
	}
	if m.Checkout != CheckoutFast {
		t.Errorf("checked out by %s (%s)", m.Checkout, m.CheckoutReason)
	}
}

// TestGlobalAutocrlfFromAnyLayer: core.autocrlf set only in the global
// config (the repository says nothing) is applied, as git applies it.
func TestGlobalAutocrlfFromAnyLayer(t *testing.T) {
	dir := contentRepo(t, "")
	testgit.Run(t, dir, "config", "--global", "core.autocrlf", "true")
	m := provisionAndCompare(t, dir, NewOptions{})
	if b, _ := os.ReadFile(filepath.Join(m.Path, "sub", "nested.txt")); string(b) != "nested\r\nlines\r\n" {
		t.Fatalf("sub/nested.txt holds %q", b)
	}
}

// openRepo opens the repository in dir.
func openRepo(t *testing.T, dir string) *gitrepo.Repo {
	t.Helper()
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(testgit.Run(t, dir, args...))
}

// TestStreamedConversionsMatchGit: blobs too large to hold are counted,
// then converted as they stream; with every blob streamed, the tree is
// still git's.
func TestStreamedConversionsMatchGit(t *testing.T) {
	defer func(old int64) { streamOver = old }(streamOver)
	streamOver = 1
	for _, c := range []struct{ attrs, config string }{
		{"* text eol=crlf\n", ""}, {"* text=auto\n", "core.autocrlf=true"}, {"", "core.autocrlf=true"},
		{"* -text\n", "core.autocrlf=true"}, {"*.txt eol=crlf\n*.bin binary\n", ""},
	} {
		t.Run(c.attrs+c.config, func(t *testing.T) {
			dir := contentRepo(t, c.attrs)
			if k, v, ok := strings.Cut(c.config, "="); ok {
				testgit.Run(t, dir, "config", "--global", k, v)
			}
			provisionAndCompare(t, dir, NewOptions{})
		})
	}
}
