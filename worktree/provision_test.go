package worktree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
)

// TestResolveBaseOrder follows the default chain: the requested base, else
// the configured one, else origin/HEAD (loose, symbolic or packed), else
// HEAD.
func TestResolveBaseOrder(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	first := testgit.Run(t, dir, "rev-parse", "HEAD")
	os.WriteFile(filepath.Join(dir, "second"), []byte("2\n"), 0o644)
	testgit.Run(t, dir, "add", "second")
	testgit.Run(t, dir, "commit", "-q", "-m", "second")
	second := testgit.Run(t, dir, "rev-parse", "HEAD")
	testgit.Run(t, dir, "branch", "release", first)
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what, requested, configured, wantName, wantCommit string) {
		t.Helper()
		name, commit, err := ResolveBase(repo, requested, configured)
		if err != nil || name != wantName || commit != wantCommit {
			t.Errorf("%s: got %q %s (%v), want %q %s", what, name, commit, err, wantName, wantCommit)
		}
	}
	check("no remote: HEAD", "", "", "main", second)
	check("configured", "", "release", "release", first)
	check("requested over configured", "main~1", "release", "main~1", first)

	testgit.Run(t, dir, "update-ref", "refs/remotes/origin/main", first)
	testgit.Run(t, dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	check("symbolic origin/HEAD", "", "", "origin/main", first)

	testgit.Run(t, dir, "update-ref", "-d", "--no-deref", "refs/remotes/origin/HEAD")
	testgit.Run(t, dir, "update-ref", "--no-deref", "refs/remotes/origin/HEAD", first)
	testgit.Run(t, dir, "pack-refs", "--all")
	if _, err := os.Stat(filepath.Join(dir, ".git/refs/remotes/origin/HEAD")); !os.IsNotExist(err) {
		t.Fatalf("origin/HEAD still loose after pack-refs: %v", err)
	}
	check("packed detached origin/HEAD", "", "", "origin/HEAD", first)

	if _, _, err := ResolveBase(repo, "nosuchrev", ""); err == nil {
		t.Error("an unknown requested base resolved")
	}
}

// TestRefusesSHA256Repository: go-git reads SHA-1 repositories only; a
// SHA-256 one is refused before anything is made.
func TestRefusesSHA256Repository(t *testing.T) {
	testgit.Isolate(t)
	dir := filepath.Join(t.TempDir(), "repo")
	testgit.Run(t, t.TempDir(), "init", "-q", "--object-format=sha256", "-b", "main", dir)
	os.WriteFile(filepath.Join(dir, "f"), []byte("x\n"), 0o644)
	testgit.Run(t, dir, "add", "f")
	testgit.Run(t, dir, "commit", "-q", "-m", "one")
	requireRefused(t, dir, "sha256")
}

// requireRefused provisions HEAD of the repository in dir and requires a
// refusal that says want, with no directory or branch made.
func requireRefused(t *testing.T, dir, want string) {
	t.Helper()
	repo, head := openAtHead(t, dir)
	path := filepath.Join(t.TempDir(), "wt")
	_, err := Provision(repo, NewOptions{Slug: "refused", Path: path, Base: "main", BaseCommit: head})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("provisioning: %v, want a refusal saying %q", err, want)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s was made", path)
	}
	if out := testgit.Run(t, dir, "branch", "--list", "wt/*"); out != "" {
		t.Errorf("branches left: %s", out)
	}
}

// openAtHead opens the repository in dir and returns it with its HEAD commit.
func openAtHead(t *testing.T, dir string) (*gitrepo.Repo, string) {
	t.Helper()
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo, testgit.Run(t, dir, "rev-parse", "HEAD")
}

// TestRefusesReftable: git 2.39 cannot open such a repository at all, so
// the extension is written after HEAD is read.
func TestRefusesReftable(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	repo, head := openAtHead(t, dir)
	f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[extensions]\n\trefStorage = reftable\n")
	f.Close()
	_, err = Provision(repo, NewOptions{Slug: "refused", Path: filepath.Join(t.TempDir(), "wt"), Base: "main", BaseCommit: head})
	if err == nil || !strings.Contains(err.Error(), "stores refs as reftable") {
		t.Fatalf("provisioning a reftable repository: %v", err)
	}
}

// TestLocationFromALinkedWorktree: asked from inside one of its worktrees,
// the repository still names the directory new worktrees go to.
func TestLocationFromALinkedWorktree(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	repo, head := openAtHead(t, dir)
	root := t.TempDir()
	m, err := Provision(repo, NewOptions{Slug: "agent", Path: filepath.Join(t.TempDir(), "agent"), Base: "main", BaseCommit: head})
	if err != nil {
		t.Fatal(err)
	}
	inside, err := gitrepo.Discover(m.Path)
	if err != nil {
		t.Fatal(err)
	}
	fromMain, err := Location(repo, root, "next")
	if err != nil {
		t.Fatal(err)
	}
	fromInside, err := Location(inside, root, "next")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "repo", "next"); fromMain != want || fromInside != want {
		t.Fatalf("from the main worktree %s, from a linked one %s; want %s for both", fromMain, fromInside, want)
	}
}
