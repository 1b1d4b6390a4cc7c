package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWorktreeNewInterrupted stops `worktree new` while it writes files.
// SIGTERM: it removes everything it made and ends as the signal would.
// SIGKILL: what it made stays, is listed as abandoned, blocks the slug with
// a message saying what to do, and `worktree rm` clears it.
func TestWorktreeNewInterrupted(t *testing.T) {
	dir := newRepo(t)
	for i := 0; i < 4000; i++ { // enough files to be caught mid-checkout
		p := filepath.Join(dir, fmt.Sprintf("d%02d/f%d.txt", i%40, i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("line %d\n", i), 40)), 0o644)
	}
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-q", "-m", "files")
	must(t, dir, "git", "agentproto", "init")
	root := t.TempDir()
	env := append(gitEnv(homeOf(t)), "AGENTPROTO_WORKTREES_ROOT="+root)
	run := func(args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"agentproto"}, args...)...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	gone := func(slug string) {
		t.Helper()
		for _, p := range []string{filepath.Join(root, "repo", slug), filepath.Join(dir, ".git", "worktrees", slug)} {
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Errorf("%s is left (%v)", p, err)
			}
		}
		if out := must(t, dir, "git", "branch", "--list", "wt/"+slug); out != "" {
			t.Errorf("branch left: %s", out)
		}
	}
	// cut starts worktree new and sends sig once files are being written.
	cut := func(slug string, sig syscall.Signal) {
		t.Helper()
		path := filepath.Join(root, "repo", slug)
		cmd := exec.Command(filepath.Join(binDir, "git-agentproto"), "worktree", "new", "--no-setup", slug)
		cmd.Dir, cmd.Env = dir, env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			if entries, _ := os.ReadDir(path); len(entries) > 1 || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Microsecond)
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != sig {
			t.Fatalf("%s: worktree new ended with %v, want death by %v", slug, err, sig)
		}
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		slug := "cut-" + map[syscall.Signal]string{syscall.SIGTERM: "term", syscall.SIGKILL: "kill"}[sig]
		path := filepath.Join(root, "repo", slug)
		cut(slug, sig)
		if sig == syscall.SIGTERM {
			gone(slug)
		} else {
			out, _ := run("worktree", "ls")
			if !strings.Contains(out, slug) || !strings.Contains(out, "[abandoned]") || !strings.Contains(out, "worktree rm "+slug) {
				t.Fatalf("worktree ls after SIGKILL:\n%s", out)
			}
			out, err := run("worktree", "new", "--no-setup", slug)
			if code := exitCode(err); code != 3 || !strings.Contains(out, "left half made by an interrupted worktree new") {
				t.Fatalf("new over the abandoned worktree: exit %d\n%s", code, out)
			}
			if out, err := run("worktree", "rm", slug); err != nil || !strings.Contains(out, "removed the half-made worktree "+slug) {
				t.Fatalf("rm: %v\n%s", err, out)
			}
			gone(slug)
			if out := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "worktree_removed", "--json"); !strings.Contains(out, `"abandoned_by_pid"`) {
				t.Errorf("no worktree_removed event for the abandoned worktree:\n%s", out)
			}
		}
		// The slug is free again.
		if out, err := run("worktree", "new", "--no-setup", slug); err != nil {
			t.Fatalf("new after cleanup: %v\n%s", err, out)
		}
		if out := must(t, path, "git", "status", "--porcelain"); out != "" {
			t.Errorf("the new worktree is not clean:\n%s", out)
		}
	}
	// gc reclaims an abandoned worktree: listed in the dry run, removed by --apply.
	cut("cut-gc", syscall.SIGKILL)
	out, err := run("worktree", "gc")
	if err != nil || !strings.Contains(out, "reclaim  cut-gc") || !strings.Contains(out, "interrupted worktree new") {
		t.Fatalf("gc dry run: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(root, "repo", "cut-gc")); err != nil {
		t.Fatalf("the dry run removed something: %v", err)
	}
	out, err = run("worktree", "gc", "--apply", "--json")
	if err != nil || !strings.Contains(out, `"slug":"cut-gc"`) || !strings.Contains(out, `"done":"removed"`) || !strings.HasPrefix(strings.TrimSpace(out), "[") {
		t.Fatalf("gc --apply --json: %v\n%s", err, out)
	}
	gone("cut-gc")
}

// TestWorktreeNewInterruptedInGitCheckout: SIGTERM while git's own
// checkout runs (here a slow smudge filter) stops git, removes the
// branch, the admin dir and the files, and ends worktree new by the
// signal, as on our own checkout.
func TestWorktreeNewInterruptedInGitCheckout(t *testing.T) {
	dir := newRepo(t)
	os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.txt filter=slow\n"), 0o644)
	for i := 0; i < 200; i++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.txt", i)), []byte("content\n"), 0o644)
	}
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-q", "-m", "files")
	must(t, dir, "git", "config", "filter.slow.smudge", "sleep 0.05; cat")
	must(t, dir, "git", "agentproto", "init")
	root := t.TempDir()
	path := filepath.Join(root, "repo", "cut")
	cmd := exec.Command(filepath.Join(binDir, "git-agentproto"), "worktree", "new", "--no-setup", "cut")
	cmd.Dir, cmd.Env = dir, append(gitEnv(homeOf(t)), "AGENTPROTO_WORKTREES_ROOT="+root)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if entries, _ := os.ReadDir(path); len(entries) > 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Fatalf("worktree new ended with %v, want death by SIGTERM", err)
	}
	for _, p := range []string{path, filepath.Join(dir, ".git", "worktrees", "cut")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is left (%v)", p, err)
		}
	}
	if out := must(t, dir, "git", "branch", "--list", "wt/cut"); out != "" {
		t.Errorf("branch left: %s", out)
	}
	// Uninterrupted, the same checkout completes, clean, by git's path.
	cmd = exec.Command(filepath.Join(binDir, "git-agentproto"), "worktree", "new", "--no-setup", "--json", "cut")
	cmd.Dir, cmd.Env = dir, append(gitEnv(homeOf(t)), "AGENTPROTO_WORKTREES_ROOT="+root)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"checkout":"git"`) || !strings.Contains(string(out), "filter=slow on") {
		t.Fatalf("worktree new: %v\n%s", err, out)
	}
	if st := must(t, path, "git", "status", "--porcelain"); st != "" {
		t.Errorf("not clean:\n%s", st)
	}
}

// provisionedBy fails unless worktree slug was recorded as provisioned,
// once, by by: whoever makes a worktree goes through worktree.Manager.
func provisionedBy(t *testing.T, dir, slug, by string) {
	t.Helper()
	var found []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "worktree_provisioned", "--json")), "\n") {
		var ev struct {
			Data map[string]any `json:"data"`
		}
		if line == "" {
			continue
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("ledger log: %v\n%s", err, line)
		}
		if ev.Data["slug"] == slug {
			found = append(found, ev.Data)
		}
	}
	if len(found) != 1 || found[0]["by"] != by {
		t.Errorf("worktree_provisioned events of %s: %v, want one by %s", slug, found, by)
	}
}
