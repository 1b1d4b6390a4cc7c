package worktree

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/testgit"
)

// TestClassifyMany sorts several worktrees at once, each into the class
// its own state calls for, in the order given.
func TestClassifyMany(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	repo, head := openAtHead(t, dir)
	var ms []*Meta
	for _, slug := range []string{"clean", "dirty", "committed", "live", "merged"} {
		m, err := Provision(repo, NewOptions{Slug: slug, Path: filepath.Join(t.TempDir(), slug), Base: "main", BaseCommit: head})
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	os.WriteFile(filepath.Join(ms[1].Path, "scratch.txt"), []byte("work\n"), 0o644)
	for _, m := range ms[2:] {
		os.WriteFile(filepath.Join(m.Path, m.Slug+".txt"), []byte(m.Slug+"\n"), 0o644)
		testgit.Run(t, m.Path, "add", "-A")
		testgit.Run(t, m.Path, "commit", "-q", "-m", m.Slug)
	}
	testgit.Run(t, dir, "merge", "-q", "--ff-only", "wt/merged")
	classes, err := Classify(repo, ms, func(m *Meta) bool { return m.Slug == "live" })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range classes {
		got = append(got, c.Slug+"="+c.Action+"/"+c.Integration)
	}
	want := []string{"clean=reclaim/no commits", "dirty=salvage/no commits", "committed=hold/not merged",
		"live=hold/not merged", "merged=reclaim/merged"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("classes %v, want %v", got, want)
	}

	// A branch deleted behind our back is reported, not fatal to the others.
	testgit.Run(t, ms[0].Path, "checkout", "-q", "--detach")
	testgit.Run(t, dir, "branch", "-q", "-D", "wt/clean")
	st := Statuses(repo, ms)
	if st[0].IntegrationErr == nil || !strings.Contains(st[0].IntegrationErr.Error(), "wt/clean is gone") {
		t.Errorf("gone branch: %+v", st[0])
	}
	if st[1].IntegrationErr != nil || st[1].Tree.Untracked != 1 {
		t.Errorf("dirty worktree next to it: %+v", st[1])
	}
	if _, err := Classify(repo, ms, func(*Meta) bool { return false }); err == nil || !strings.Contains(err.Error(), "worktree clean") {
		t.Errorf("gc over a gone branch: %v", err)
	}
}

// TestFindAbandonedNeedsADeadProvisioner: a worktree being made by a live
// process is not abandoned, whatever its state on disk.
func TestFindAbandonedNeedsADeadProvisioner(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	repo, head := openAtHead(t, dir)
	admin := adminDir(repo, "busy")
	if err := os.MkdirAll(admin, 0o755); err != nil {
		t.Fatal(err)
	}
	lock := func(pid int) {
		os.WriteFile(filepath.Join(admin, "locked"), []byte(fmt.Sprintf("%s pid %d base %s\n", initializing, pid, head)), 0o644)
	}
	lock(os.Getpid())
	if _, ok := FindAbandoned(repo, "busy"); ok {
		t.Fatal("a worktree its live provisioner is making was taken as abandoned")
	}
	// A live process that started after the lock was written only reuses
	// the dead provisioner's pid.
	later := exec.Command("sleep", "5")
	time.Sleep(20 * time.Millisecond)
	if err := later.Start(); err != nil {
		t.Fatal(err)
	}
	defer later.Process.Kill()
	lockTime := time.Now().Add(-2 * time.Second)
	lock(later.Process.Pid)
	os.Chtimes(filepath.Join(admin, "locked"), lockTime, lockTime)
	if a, ok := FindAbandoned(repo, "busy"); !ok || a.Pid != later.Process.Pid {
		t.Fatal("a pid reused by a later process kept the worktree from being seen as abandoned")
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	lock(dead.Process.Pid)
	a, ok := FindAbandoned(repo, "busy")
	if !ok || a.Pid != dead.Process.Pid || a.Base != head {
		t.Fatalf("abandoned by a dead pid: %+v %v", a, ok)
	}
	_, err := Provision(repo, NewOptions{Slug: "busy", Path: filepath.Join(t.TempDir(), "busy"), Base: "main", BaseCommit: head})
	if err == nil || !strings.Contains(err.Error(), "worktree rm busy") {
		t.Fatalf("provisioning over it: %v", err)
	}
}
