package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A WP whose worktree was removed (worktree rm keeps the branch) is
// dispatched again from scratch: the old branch is kept under another name
// with its commits, the session of the removed worktree is ended, and a new
// worktree and session start.
func TestRedispatchAfterWorktreeRemoved(t *testing.T) {
	extra := strings.Join([]string{
		step("write", "path", "notes.txt", "content", "stray\n"),
		runStep("git add -A && git commit -qm wip"),
	}, "\n")
	// Widened to the worktree: the stray write must happen for verify to find it.
	dir := pipelineRepoConfig(t, sandboxWorktree, extra, "lower lib/lower.sh")
	defer sh(t, dir, nil, "git", "agentproto", "sessions", "gc", "--apply")
	if out, _, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo"); exitCode(err) != 1 || !strings.Contains(out, "WP2   verify     fail") {
		t.Fatalf("first dispatch: %v\n%s", err, out)
	}
	oldTip := strings.TrimSpace(must(t, dir, "git", "rev-parse", "wt/demo-wp2"))
	oldSession := sessionOf(t, dir, "demo/WP2")
	must(t, dir, "git", "agentproto", "worktree", "rm", "demo-wp2")

	out, _, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo", "--wp", "WP2")
	if exitCode(err) != 1 || !strings.Contains(out, "branch wt/demo-wp2 of an earlier attempt (its worktree removed) kept as wt/demo-wp2-attempt-1") ||
		!strings.Contains(out, oldSession+" ended: its worktree was removed") || strings.Contains(out, "reusing it") {
		t.Fatalf("dispatch after worktree rm: %v\n%s", err, out)
	}
	if kept := strings.TrimSpace(must(t, dir, "git", "rev-parse", "wt/demo-wp2-attempt-1")); kept != oldTip {
		t.Fatalf("the earlier attempt's branch is at %s, was %s", kept, oldTip)
	}
	var recs []struct{ ID, State, Label string }
	json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "sessions", "ls", "--all", "--json")), &recs)
	states := map[string]string{}
	for _, r := range recs {
		states[r.ID] = r.State
	}
	if s := states[oldSession]; s != "cleaned" {
		t.Fatalf("the removed worktree's session is %q: %+v", s, recs)
	}
	if len(states) != 4 {
		t.Fatalf("want WP0, WP1, WP2 and WP2's second session: %+v", recs)
	}
	must(t, dir, "git", "fsck", "--no-progress")

	// Once more: the name taken, the next attempt number is used.
	must(t, dir, "git", "agentproto", "worktree", "rm", "demo-wp2")
	if out, _, _ := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo", "--wp", "WP2"); !strings.Contains(out, "kept as wt/demo-wp2-attempt-2") {
		t.Fatalf("third dispatch:\n%s", out)
	}
}

// A plan frozen again with a changed brief does not leave the WP to a
// session that was sent the old one: dispatch ends it and starts a new
// session, whose dispatch records the new brief's hash.
func TestDispatchAfterRefreezeStartsFromTheNewBrief(t *testing.T) {
	report := `{"op":"report","report":{"wp":"WP0","files":["a/x.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`
	// Widened to the worktree: the stray write must happen for verify to find it.
	dir := scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n" + sandboxWorktree},
		"[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\"]\n",
		map[string]string{"WP0": writeStep("a/x.txt", "x\n") + "\n" + writeStep("stray.txt", "not mine\n") + "\n" + report})
	defer sh(t, dir, nil, "git", "agentproto", "sessions", "gc", "--apply")
	if out, _, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo"); exitCode(err) != 1 || !strings.Contains(out, "WP0   verify     fail") {
		t.Fatalf("first dispatch: %v\n%s", err, out)
	}
	old := sessionOf(t, dir, "demo/WP0")

	brief := filepath.Join(dir, ".plans/demo/WP0-brief.md")
	b, _ := os.ReadFile(brief)
	fixed := strings.Replace(string(b), writeStep("stray.txt", "not mine\n"), `{"op":"delete","path":"stray.txt"}`, 1)
	if fixed == string(b) {
		t.Fatal("the brief's script was not changed")
	}
	os.WriteFile(brief, []byte(fixed), 0o644)
	must(t, dir, "git", "agentproto", "plan", "freeze", "demo")

	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if err != nil || !strings.Contains(out, old+" ended: it was sent the brief of an earlier freeze") || strings.Contains(out, "reusing it") ||
		!strings.Contains(out, "WP0   verify     pass") {
		t.Fatalf("dispatch after the plan was frozen again: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	ds := ledgerEvents(t, dir, "wp_dispatched")
	if len(ds) != 2 || ds[0]["session"] == ds[1]["session"] || ds[0]["brief_sha256"] == ds[1]["brief_sha256"] {
		t.Fatalf("want two dispatches, with two sessions and two briefs: %v", ds)
	}
}

// A WP that failed verify, fixed by hand and verified by hand keeps its
// settled session until dispatch (or run) next looks: it ends it, as a
// wave's own verify would have.
func TestDispatchEndsTheSessionOfAWPVerifiedByHand(t *testing.T) {
	report := `{"op":"report","report":{"wp":"WP0","files":["a/x.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`
	// Widened to the worktree: the stray write must happen for verify to find it.
	dir := scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n" + sandboxWorktree},
		"[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\"]\n",
		map[string]string{"WP0": writeStep("a/x.txt", "x\n") + "\n" + writeStep("stray.txt", "not mine\n") + "\n" + report})
	if out, _, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo"); exitCode(err) != 1 || !strings.Contains(out, "WP0   verify     fail") {
		t.Fatalf("first dispatch: %v\n%s", err, out)
	}
	id := sessionOf(t, dir, "demo/WP0")
	state := func() string {
		var recs []struct{ ID, State string }
		json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "sessions", "ls", "--all", "--json")), &recs)
		for _, r := range recs {
			if r.ID == id {
				return r.State
			}
		}
		return ""
	}
	if s := state(); s != "settled" {
		t.Fatalf("the failed WP's session is %q, want it kept settled", s)
	}
	if st := must(t, dir, "git", "agentproto", "plan", "status", "demo"); !strings.Contains(st, "work packages:\n  WP0    failed           "+id+"\n") {
		t.Fatalf("plan status after the failed verify:\n%s", st)
	}
	os.Remove(filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "demo-wp0", "stray.txt"))
	must(t, dir, "git", "agentproto", "verify", "demo", "WP0")
	if s := state(); s != "settled" {
		t.Fatalf("verify by hand left the session %q", s)
	}
	if st := must(t, dir, "git", "agentproto", "plan", "status", "demo"); !strings.Contains(st, "  WP0    verified         "+id+"\n") {
		t.Fatalf("plan status after the verify by hand:\n%s", st)
	}
	out := must(t, dir, "git", "agentproto", "dispatch", "demo")
	if !strings.Contains(out, id+" ended: WP0 was verified after its last turn") || !strings.Contains(out, "every work package of demo is verified") {
		t.Fatalf("dispatch after a verify by hand:\n%s", out)
	}
	if s := state(); s == "settled" || s == "running" || s == "" {
		t.Fatalf("the verified WP's session is still %q", s)
	}
}
