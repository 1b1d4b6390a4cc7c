package worktree

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
)

// historyRepo makes a repository whose files went through many revisions,
// so that repacking stores most of them as chains of deltas, with an
// executable, a symlink, an empty file and an incompressible binary.
func historyRepo(t *testing.T) string {
	t.Helper()
	testgit.Isolate(t)
	dir := testgit.Init(t)
	rng := rand.New(rand.NewSource(7))
	lines := make([]string, 400)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d of the shared text %d", i, rng.Int())
	}
	write := func(name string, data []byte, mode os.FileMode) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
	}
	for rev := 0; rev < 60; rev++ {
		for f := 0; f < 6; f++ {
			lines[rng.Intn(len(lines))] = fmt.Sprintf("revision %d file %d %d", rev, f, rng.Int())
			write(fmt.Sprintf("src/d%d/file%d.txt", f%3, f), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
		}
		testgit.Run(t, dir, "add", "-A")
		testgit.Run(t, dir, "commit", "-q", "-m", "revision "+strconv.Itoa(rev))
	}
	big := make([]byte, 1<<20)
	rng.Read(big)
	write("bin/blob.dat", big, 0o644)
	write("bin/tool.sh", []byte("#!/bin/sh\necho tool\n"), 0o755)
	write("empty", nil, 0o644)
	if err := os.Symlink("src/d0/file0.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "odd files")
	return dir
}

func mustGlob(t *testing.T, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(pattern)
	if len(m) != 1 {
		t.Fatalf("%s matched %v", pattern, m)
	}
	return m[0]
}

// TestProvisionMatchesGitCheckout checks out the same commit with every
// object layout a repository can have (delta chains, several packs, loose
// objects) and has git re-hash every file it wrote.
func TestProvisionMatchesGitCheckout(t *testing.T) {
	dir := historyRepo(t)
	testgit.Run(t, dir, "repack", "-adq", "--depth=50")
	// A second pack and loose objects on top of the first.
	for i, name := range []string{"second-pack.txt", "loose.txt"} {
		os.WriteFile(filepath.Join(dir, name), bytes.Repeat([]byte(name+"\n"), 1000+i), 0o644) // over 4 KiB: streamed below
		testgit.Run(t, dir, "add", name)
		testgit.Run(t, dir, "commit", "-q", "-m", name)
		if i == 0 {
			testgit.Run(t, dir, "repack", "-dq")
		}
	}
	if n := len(globAll(filepath.Join(dir, ".git/objects/pack/*.pack"))); n != 2 {
		t.Fatalf("%d packs, want 2", n)
	}
	repo, head := openAtHead(t, dir)
	for _, threshold := range []int64{streamOver, 4 << 10} {
		t.Run(fmt.Sprintf("stream-over-%d", threshold), func(t *testing.T) {
			defer func(old int64) { streamOver = old }(streamOver)
			streamOver = threshold
			path := filepath.Join(t.TempDir(), "wt")
			if _, err := Provision(repo, NewOptions{Slug: fmt.Sprintf("layouts%d", threshold), Path: path, Base: "main", BaseCommit: head}); err != nil {
				t.Fatal(err)
			}
			checkAgainstIndex(t, path)
		})
	}
}

// checkAgainstIndex has git hash every file of the worktree at path and
// compares the ids with those its index records.
func checkAgainstIndex(t *testing.T, path string) {
	t.Helper()
	if out := testgit.Run(t, path, "status", "--porcelain"); out != "" {
		t.Fatalf("git status after provisioning:\n%s", out)
	}
	// The index says which blob each path holds; git hashes what is on disk.
	staged := strings.Split(testgit.Run(t, path, "ls-files", "-s"), "\n")
	var names, wantIDs []string
	for _, line := range staged {
		meta, name, _ := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if f[0] == "120000" {
			target, err := os.Readlink(filepath.Join(path, name))
			if err != nil || target != "src/d0/file0.txt" {
				t.Fatalf("symlink %s -> %q (%v)", name, target, err)
			}
			continue
		}
		names = append(names, name)
		wantIDs = append(wantIDs, f[1])
	}
	cmd := exec.Command("git", "hash-object", "--no-filters", "--stdin-paths")
	cmd.Dir = path
	cmd.Stdin = strings.NewReader(strings.Join(names, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(out))
	if len(got) != len(names) || len(names) < 9 {
		t.Fatalf("hashed %d files of %d", len(got), len(names))
	}
	for i := range names {
		if got[i] != wantIDs[i] {
			t.Errorf("%s holds %s on disk, want %s", names[i], got[i], wantIDs[i])
		}
	}
	if fi, err := os.Stat(filepath.Join(path, "bin/tool.sh")); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("bin/tool.sh lost its executable bit: %v %v", fi.Mode(), err)
	}
}

func globAll(pattern string) []string {
	m, _ := filepath.Glob(pattern)
	return m
}

// TestCorruptPackFailsCleanly damages the compressed data of a pack: the
// checkout must fail naming the object, and leave nothing behind, whether
// the blob is read in memory or streamed.
func TestCorruptPackFailsCleanly(t *testing.T) {
	for _, threshold := range []int64{streamOver, 64 << 10} {
		t.Run(fmt.Sprintf("stream-over-%d", threshold), func(t *testing.T) {
			defer func(old int64) { streamOver = old }(streamOver)
			streamOver = threshold
			corruptPackFailsCleanly(t)
		})
	}
}

func corruptPackFailsCleanly(t *testing.T) {
	dir := historyRepo(t)
	testgit.Run(t, dir, "repack", "-adq")
	pack := mustGlob(t, filepath.Join(dir, ".git/objects/pack/*.pack"))
	blob := testgit.Run(t, dir, "rev-parse", "HEAD:bin/blob.dat")
	off := -1
	for _, line := range strings.Split(testgit.Run(t, dir, "verify-pack", "-v", strings.TrimSuffix(pack, ".pack")+".idx"), "\n") {
		if f := strings.Fields(line); len(f) >= 5 && f[0] == blob {
			off, _ = strconv.Atoi(f[4])
		}
	}
	if off < 0 {
		t.Fatal("blob not found in verify-pack output")
	}
	data, err := os.ReadFile(pack)
	if err != nil {
		t.Fatal(err)
	}
	for i := off + 100; i < off+200; i++ {
		data[i] ^= 0xff
	}
	os.Chmod(pack, 0o644)
	if err := os.WriteFile(pack, data, 0o444); err != nil {
		t.Fatal(err)
	}
	repo, head := openAtHead(t, dir)
	path := filepath.Join(t.TempDir(), "wt")
	_, err = Provision(repo, NewOptions{Slug: "corrupt", Path: path, Base: "main", BaseCommit: head})
	if err == nil || !strings.Contains(err.Error(), "bin/blob.dat") {
		t.Fatalf("provisioning over a corrupt pack: %v, want an error naming bin/blob.dat", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s left behind (%v)", path, err)
	}
	// Into an empty directory that was there before: it stays, empty.
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err = Provision(repo, NewOptions{Slug: "corrupt", Path: path, Base: "main", BaseCommit: head}); err == nil {
		t.Fatal("provisioning over a corrupt pack into an empty directory succeeded")
	}
	if entries, err := os.ReadDir(path); err != nil || len(entries) != 0 {
		t.Errorf("the directory given was left with %d entries (%v)", len(entries), err)
	}
	if out := testgit.Run(t, dir, "worktree", "list", "--porcelain"); strings.Contains(out, "corrupt") {
		t.Errorf("git still lists the worktree:\n%s", out)
	}
}

// TestProvisionBorrowedObjects checks out a clone that borrows its objects
// (git clone --shared): packed and loose objects of the store it names in
// objects/info/alternates, by an absolute and by a relative path.
func TestProvisionBorrowedObjects(t *testing.T) {
	src := historyRepo(t)
	testgit.Run(t, src, "repack", "-adq")
	// A commit left loose in the source after the clone borrows it.
	for _, relative := range []bool{false, true} {
		t.Run(fmt.Sprintf("relative-%v", relative), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "borrower")
			testgit.Run(t, t.TempDir(), "clone", "-q", "--shared", "--no-checkout", src, dir)
			os.WriteFile(filepath.Join(src, "late.txt"), []byte(fmt.Sprintf("loose in the source %v\n", relative)), 0o644)
			testgit.Run(t, src, "add", "late.txt")
			testgit.Run(t, src, "commit", "-q", "-m", "late")
			late := testgit.Run(t, src, "rev-parse", "HEAD")
			testgit.Run(t, dir, "fetch", "-q", "origin")
			if n := len(globAll(filepath.Join(dir, ".git/objects/pack/*.pack"))); n != 0 {
				t.Fatalf("the borrower has %d packs of its own; the test needs none", n)
			}
			alt := filepath.Join(dir, ".git/objects/info/alternates")
			if relative {
				rel, err := filepath.Rel(filepath.Join(dir, ".git/objects"), filepath.Join(src, ".git/objects"))
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(alt, []byte(rel+"\n"), 0o644)
			}
			repo, err := gitrepo.Discover(dir)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "wt")
			if _, err := Provision(repo, NewOptions{Slug: "borrowed", Path: path, Base: "origin/main", BaseCommit: late}); err != nil {
				t.Fatal(err)
			}
			checkAgainstIndex(t, path)
			if b, err := os.ReadFile(filepath.Join(path, "late.txt")); err != nil || !strings.Contains(string(b), "loose in the source") {
				t.Fatalf("late.txt: %q %v", b, err)
			}
		})
	}
}
