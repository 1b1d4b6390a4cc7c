package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The worktree's index is the agent's (git add works in the sandbox): a
// content staged there with the stat data of another one on disk — here
// within one second, which git's stat check does not tell apart — is not
// what verify records or checkpoint commits. The gate ran on the disk, so
// the disk is what goes in.
func TestCheckpointCommitsTheDiskNotWhatTheAgentStaged(t *testing.T) {
	// Same size, one passes the test and one does not; both an hour old.
	// git status then shows the file staged ("A ") and nothing on disk.
	lie := runStep(`for try in 1 2 3 4 5 6 7 8 9 10; do ` +
		// From the start of a second, all of it within that second: a
		// try that ran over (a loaded machine) is made again.
		`while [ "$(date +%N | cut -c1)" != 0 ]; do :; done; s=$(date +%s); ` +
		`printf 'tr A-Z A-Z\n' > lib/lower.sh && touch -d '1 hour ago' lib/lower.sh && git add lib/lower.sh && ` +
		`printf 'tr A-Z a-z\n' > lib/lower.sh && touch -d '1 hour ago' lib/lower.sh; ` +
		`[ "$(date +%s)" = "$s" ] && break; done; ` +
		// And the index the state tree starts from, were it writable.
		`for f in "$(git rev-parse --git-common-dir)"/agentproto/worktree-index/*/*; do printf AGENT > "$f"; done; true`)
	dir := pipelineRepo(t, lie, "lower lib/lower.sh")
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if err != nil {
		t.Fatalf("dispatch: %v\n%s%s", err, out, errOut)
	}
	wt2 := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "demo-wp2")
	if st := strings.TrimSpace(must(t, wt2, "git", "status", "--porcelain", "--", "lib/lower.sh")); st != "A  lib/lower.sh" {
		t.Fatalf("git status in the worktree = %q: the agent's index did not fool git, so this test proves nothing", st)
	}
	v := verifyJSON(t, dir, "WP2")
	if got := strings.TrimSpace(must(t, dir, "git", "cat-file", "-p", v.Tree+":lib/lower.sh")); v.Verdict != "pass" || got != "tr A-Z a-z" {
		t.Fatalf("verify recorded lib/lower.sh = %q (%s); the disk holds tr A-Z a-z", got, v.Verdict)
	}
	kept, _ := filepath.Glob(filepath.Join(dir, ".git", "agentproto", "worktree-index", "*", "*"))
	if len(kept) == 0 {
		t.Fatal("no checkout index kept")
	}
	for _, f := range kept {
		if b, _ := os.ReadFile(f); !strings.HasPrefix(string(b), "DIRC") {
			t.Fatalf("the agent rewrote the kept checkout index %s: %q", f, b)
		}
	}
	must(t, dir, "git", "agentproto", "checkpoint", "demo", "WP2")
	if got := strings.TrimSpace(must(t, dir, "git", "show", "wt/demo-wp2:lib/lower.sh")); got != "tr A-Z a-z" {
		t.Fatalf("checkpoint committed lib/lower.sh = %q, which the gate never ran on", got)
	}
}

// Checkpoint tells with one git command whether a worktree still holds
// its verified state, from the index verify kept — and only from that
// index: one rewritten to describe a changed worktree (as a hostile
// process could) has another hash than the one the ledger holds, is not
// used, and checkpoint refuses the change as before.
func TestCheckpointUsesOnlyTheIndexVerifyKept(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	must(t, dir, "git", "agentproto", "dispatch", "demo")
	verified := filepath.Join(dir, ".git", "agentproto", "verified")

	// WP1 as it was verified: the kept index answers, no state tree is
	// written, and the index goes once its state is committed.
	v1 := verifyJSON(t, dir, "WP1")
	kept1 := filepath.Join(verified, v1.Index+".index")
	if _, err := os.Stat(kept1); err != nil || v1.Verdict != "pass" {
		t.Fatalf("no index kept for WP1 (%v): %+v", err, v1)
	}
	// WP0 was checkpointed by dispatch, WP1's first verification was
	// replaced by this one: one index each for WP1 and WP2.
	if kept, _ := os.ReadDir(verified); len(kept) != 2 {
		t.Fatalf("kept indexes %v, want WP1's and WP2's", kept)
	}
	traceFile := filepath.Join(t.TempDir(), "trace")
	_, _, err := shEnv(t, dir, []string{"GIT_TRACE=" + traceFile}, "git", "agentproto", "checkpoint", "demo", "WP1")
	b, _ := os.ReadFile(traceFile)
	if trace := string(b); err != nil || !strings.Contains(trace, "add -A --dry-run") || strings.Contains(trace, "write-tree") {
		t.Fatalf("checkpoint of WP1 did not answer from the kept index (%v):\n%s", err, trace)
	}
	// The kept index became the worktree's own: no reset, and the
	// worktree's index is HEAD's, with nothing left to stage.
	wt1 := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "demo-wp1")
	if trace := string(b); strings.Contains(trace, " reset ") {
		t.Fatalf("checkpoint of WP1 reset the index instead of adopting the kept one:\n%s", trace)
	}
	if st := must(t, wt1, "git", "status", "--porcelain", "--untracked-files=all"); strings.TrimSpace(st) != "" {
		t.Fatalf("WP1's worktree after checkpoint: %q", st)
	}
	if _, err := os.Stat(kept1); !os.IsNotExist(err) {
		t.Fatalf("the kept index of a committed state is still there: %v", err)
	}

	// WP2 changed after verify, its kept index rewritten to match.
	v2 := verifyJSON(t, dir, "WP2")
	kept2 := filepath.Join(verified, v2.Index+".index")
	wt2 := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "demo-wp2")
	if err := os.WriteFile(filepath.Join(wt2, "lib", "lower.sh"), []byte("tr A-Z a-y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	forged := filepath.Join(t.TempDir(), "index")
	b, err = os.ReadFile(kept2)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(forged, b, 0o600)
	if _, errOut, err := shEnv(t, wt2, []string{"GIT_INDEX_FILE=" + forged}, "git", "add", "-A"); err != nil {
		t.Fatalf("forging the index: %v %s", err, errOut)
	}
	if b, _ = os.ReadFile(forged); os.WriteFile(kept2, b, 0o600) != nil {
		t.Fatal("could not rewrite the kept index")
	}
	_, errOut, err := sh(t, dir, nil, "git", "agentproto", "checkpoint", "demo", "WP2")
	if exitCode(err) != 5 || !strings.Contains(errOut, "changed since it was verified (lib/lower.sh)") {
		t.Fatalf("checkpoint with a rewritten kept index: %v %s", err, errOut)
	}
	// Put back, it is committed, from a state tree written anew.
	os.WriteFile(filepath.Join(wt2, "lib", "lower.sh"), []byte("tr A-Z a-z\n"), 0o644)
	must(t, dir, "git", "agentproto", "checkpoint", "demo", "WP2")
	if got := strings.TrimSpace(must(t, dir, "git", "show", "wt/demo-wp2:lib/lower.sh")); got != "tr A-Z a-z" {
		t.Fatalf("WP2 committed %q", got)
	}
	if st := must(t, wt2, "git", "status", "--porcelain", "--untracked-files=all"); strings.TrimSpace(st) != "" {
		t.Fatalf("WP2's worktree after checkpoint: %q", st)
	}
}
