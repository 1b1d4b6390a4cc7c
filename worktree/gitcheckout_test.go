package worktree

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/testgit"
)

// TestSparseCheckoutByGit: a sparse main worktree gives its patterns to
// the new worktree, and git's checkout honours them, as git worktree add
// does.
func TestSparseCheckoutByGit(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	for _, p := range []string{"keep/a.txt", "drop/b.txt", "top.txt"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(p+"\n"), 0o644)
	}
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "dirs")
	testgit.Run(t, dir, "sparse-checkout", "set", "keep")
	m := provisionAndCompare(t, dir, NewOptions{})
	if m.Checkout != CheckoutGit || !strings.Contains(m.CheckoutReason, "sparse") {
		t.Fatalf("checked out by %q (%s)", m.Checkout, m.CheckoutReason)
	}
	if _, err := os.Stat(filepath.Join(m.Path, "drop")); !os.IsNotExist(err) {
		t.Errorf("drop/ checked out in a sparse worktree: %v", err)
	}
	if _, err := os.Stat(filepath.Join(m.Path, "keep", "a.txt")); err != nil {
		t.Error(err)
	}
}

// TestPartialCloneByGit: blobs a partial clone lacks are fetched by git's
// checkout from the promisor remote.
func TestPartialCloneByGit(t *testing.T) {
	testgit.Isolate(t)
	src := testgit.Init(t)
	os.WriteFile(filepath.Join(src, "more.txt"), []byte("more\n"), 0o644)
	testgit.Run(t, src, "add", "more.txt")
	testgit.Run(t, src, "commit", "-q", "-m", "more")
	testgit.Run(t, src, "config", "uploadpack.allowFilter", "true")
	dir := filepath.Join(t.TempDir(), "clone")
	testgit.Run(t, t.TempDir(), "clone", "-q", "--filter=blob:none", "--no-checkout", "file://"+src, dir)
	if missing := testgit.Run(t, dir, "rev-list", "--objects", "--missing=print", "HEAD"); !strings.Contains(missing, "?") {
		t.Fatalf("the clone lacks no blob: %s", missing)
	}
	m := provisionAndCompare(t, dir, NewOptions{})
	if m.Checkout != CheckoutGit || !strings.Contains(m.CheckoutReason, "partial clone") {
		t.Fatalf("checked out by %q (%s)", m.Checkout, m.CheckoutReason)
	}
	if b, _ := os.ReadFile(filepath.Join(m.Path, "more.txt")); string(b) != "more\n" {
		t.Fatalf("more.txt holds %q", b)
	}
}

// submoduleRepo makes a repository whose tree holds a submodule at lib,
// cloned from a local repository.
func submoduleRepo(t *testing.T) string {
	t.Helper()
	testgit.Isolate(t)
	testgit.Run(t, t.TempDir(), "config", "--global", "protocol.file.allow", "always")
	lib := testgit.Init(t)
	os.WriteFile(filepath.Join(lib, "lib.c"), []byte("int lib;\n"), 0o644)
	testgit.Run(t, lib, "add", "lib.c")
	testgit.Run(t, lib, "commit", "-q", "-m", "lib")
	dir := testgit.Init(t)
	testgit.Run(t, dir, "submodule", "add", "-q", lib, "lib")
	testgit.Run(t, dir, "commit", "-q", "-m", "submodule")
	return dir
}

// TestSubmodulesEmptyUnlessAskedFor: without [worktree] submodules the
// submodule is an empty directory (our checkout, as git worktree add
// leaves it); with it, git's checkout initialises and updates it.
func TestSubmodulesEmptyUnlessAskedFor(t *testing.T) {
	dir := submoduleRepo(t)
	m := provisionAndCompare(t, dir, NewOptions{Slug: "plain"})
	if m.Checkout != CheckoutFast {
		t.Errorf("checked out by %q (%s)", m.Checkout, m.CheckoutReason)
	}
	if entries, err := os.ReadDir(filepath.Join(m.Path, "lib")); err != nil || len(entries) != 0 {
		t.Errorf("lib: %v %v, want an empty directory", entries, err)
	}
	m = provisionAndCompare(t, dir, NewOptions{Slug: "with", Submodules: true})
	if m.Checkout != CheckoutGit || !strings.Contains(m.CheckoutReason, "submodules") {
		t.Fatalf("checked out by %q (%s)", m.Checkout, m.CheckoutReason)
	}
	if b, _ := os.ReadFile(filepath.Join(m.Path, "lib", "lib.c")); string(b) != "int lib;\n" {
		t.Fatalf("lib/lib.c holds %q", b)
	}
}

// TestLFSSmudgedByGit: LFS pointers come out as their content, through
// git-lfs's filter in git's checkout. Needs git-lfs on PATH.
func TestLFSSmudgedByGit(t *testing.T) {
	if _, err := exec.LookPath("git-lfs"); err != nil {
		t.Skip("git-lfs is not installed (apt-get install git-lfs): the LFS checkout is not tested")
	}
	testgit.Isolate(t)
	dir := testgit.Init(t)
	testgit.Run(t, dir, "lfs", "install", "--local")
	testgit.Run(t, dir, "lfs", "track", "*.bin")
	content := strings.Repeat("large binary content\x00", 1000)
	os.WriteFile(filepath.Join(dir, "big.bin"), []byte(content), 0o644)
	testgit.Run(t, dir, "add", ".gitattributes", "big.bin")
	testgit.Run(t, dir, "commit", "-q", "-m", "lfs")
	if blob := testgit.Run(t, dir, "cat-file", "-p", "HEAD:big.bin"); !strings.HasPrefix(blob, "version https://git-lfs") {
		t.Fatalf("big.bin is not stored as an LFS pointer: %.80q", blob)
	}
	m := provisionAndCompare(t, dir, NewOptions{})
	if m.Checkout != CheckoutGit || !strings.Contains(m.CheckoutReason, "filter=lfs") {
		t.Fatalf("checked out by %q (%s)", m.Checkout, m.CheckoutReason)
	}
	if b, _ := os.ReadFile(filepath.Join(m.Path, "big.bin")); string(b) != content {
		t.Fatalf("big.bin holds %.80q, want its content", b)
	}
}

// TestGitCheckoutFailureLeavesNothing: when git's checkout fails (a
// required filter that fails), nothing is left behind.
func TestGitCheckoutFailureLeavesNothing(t *testing.T) {
	dir := contentRepo(t, "*.txt filter=broken\n")
	testgit.Run(t, dir, "config", "filter.broken.smudge", "false")
	testgit.Run(t, dir, "config", "filter.broken.required", "true")
	requireRefusedOrFailed(t, dir, "filter")
}

// requireRefusedOrFailed provisions HEAD and requires an error saying
// want, with no directory, admin dir or branch left.
func requireRefusedOrFailed(t *testing.T, dir, want string) {
	t.Helper()
	repo, head := openAtHead(t, dir)
	path := filepath.Join(t.TempDir(), "wt")
	_, err := Provision(repo, NewOptions{Slug: "failed", Path: path, Base: "main", BaseCommit: head})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("provisioning: %v, want an error saying %q", err, want)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s was left", path)
	}
	if _, err := os.Stat(adminDir(repo, "failed")); !os.IsNotExist(err) {
		t.Errorf("admin dir left: %v", err)
	}
	if out := testgit.Run(t, dir, "branch", "--list", "wt/*"); out != "" {
		t.Errorf("branches left: %s", out)
	}
}

// TestPartialCloneWithoutTrees: a clone missing trees as well as blobs
// has them fetched by git before the tree is checked, then goes through
// git's checkout.
func TestPartialCloneWithoutTrees(t *testing.T) {
	testgit.Isolate(t)
	src := testgit.Init(t)
	os.MkdirAll(filepath.Join(src, "deep", "er"), 0o755)
	os.WriteFile(filepath.Join(src, "deep", "er", "x.txt"), []byte("x\n"), 0o644)
	testgit.Run(t, src, "add", "-A")
	testgit.Run(t, src, "commit", "-q", "-m", "deep")
	testgit.Run(t, src, "config", "uploadpack.allowFilter", "true")
	dir := filepath.Join(t.TempDir(), "clone")
	testgit.Run(t, t.TempDir(), "clone", "-q", "--filter=tree:0", "--no-checkout", "file://"+src, dir)
	m := provisionAndCompare(t, dir, NewOptions{})
	if m.Checkout != CheckoutGit {
		t.Fatalf("checked out by %q (%s)", m.Checkout, m.CheckoutReason)
	}
	if b, _ := os.ReadFile(filepath.Join(m.Path, "deep", "er", "x.txt")); string(b) != "x\n" {
		t.Fatalf("deep/er/x.txt holds %q", b)
	}
}
