package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// step is one line of a scripted executor's script.
func step(op string, kv ...string) string {
	m := map[string]string{"op": op}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// runStep is a shell command the executor runs in its worktree; git
// there commits as a throwaway identity.
func runStep(cmd string) string {
	return step("run", "cmd", "git() { command git -c user.name=agent -c user.email=agent@example.com \"$@\"; }; "+cmd)
}

type verification struct {
	Verdict    string   `json:"verdict"`
	Head       string   `json:"head"`
	Base       string   `json:"base"`
	Tree       string   `json:"tree"`
	Index      string   `json:"index"`
	Changed    []string `json:"changed"`
	OutOfScope []string `json:"out_of_scope"`
	Findings   []string `json:"findings"`
	// Unattributed: changes outside that the WP is not shown to have made.
	Unattributed []string `json:"unattributed"`
	Gate         struct {
		ExitCode int `json:"exit_code"`
	} `json:"gate"`
}

// verifyJSON runs verify PROJECT WP --json and decodes it.
func verifyJSON(t *testing.T, dir, wp string) verification {
	t.Helper()
	out, errOut, _ := sh(t, dir, nil, "git", "agentproto", "verify", "demo", wp, "--json")
	var v verification
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("verify %s --json: %v\n%s%s", wp, err, out, errOut)
	}
	return v
}

func hasFinding(v verification, parts ...string) bool {
	for _, f := range v.Findings {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(f, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// A path committed outside the perimeter and then put back in the
// working tree, a change that lives only in the index, and a change
// assume-unchanged hides from git status are all counted; checkpoint
// refuses.
func TestVerifyCountsEveryChangedPath(t *testing.T) {
	extra := strings.Join([]string{
		step("write", "path", "notes.txt", "content", "stray\n"),
		runStep("git add notes.txt && git commit -qm notes && rm notes.txt"),
		step("write", "path", "registry.txt", "content", "# tools\nstaged\n"),
		runStep("git add registry.txt && git show HEAD:registry.txt > registry.txt"),
		step("write", "path", "AGENTS.md", "content", "# Definition of done\nhidden\n"),
		runStep("git update-index --assume-unchanged AGENTS.md"),
	}, "\n")
	// Widened to the worktree: the stray write must happen for verify to find it.
	dir := pipelineRepoConfig(t, sandboxWorktree, extra, "lower lib/lower.sh")
	out, _, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if exitCode(err) != 1 || !strings.Contains(out, "WP2   verify     fail") {
		t.Fatalf("dispatch: %v\n%s", err, out)
	}
	v := verifyJSON(t, dir, "WP2")
	if got := strings.Join(v.OutOfScope, ","); v.Verdict != "fail" || got != "AGENTS.md,notes.txt,registry.txt" {
		t.Fatalf("out of the perimeter %q (verdict %s), want AGENTS.md,notes.txt,registry.txt\n%+v", got, v.Verdict, v)
	}
	if !hasFinding(v, "hidden-change: AGENTS.md") {
		t.Fatalf("the assume-unchanged change is not named: %v", v.Findings)
	}
	_, errOut, err := sh(t, dir, nil, "git", "agentproto", "checkpoint", "demo", "WP2")
	if exitCode(err) != 5 || !strings.Contains(errOut, "no passing verification") {
		t.Fatalf("checkpoint after a failed verify: %v %s", err, errOut)
	}
}

// What an executor writes outside its worktree — the main checkout, the
// common git dir's info/exclude and hooks — is found and named: verify is
// the backstop where no sandbox stops the write (off here).
func TestVerifyFindsWritesOutsideTheWorktree(t *testing.T) {
	extra := runStep(`c=$(git rev-parse --path-format=absolute --git-common-dir) && echo '*.secret' >> "$c/info/exclude" && printf '#!/bin/sh\nexit 0\n' > "$c/hooks/pre-commit" && echo planted > "$c/../planted.txt"`)
	dir := pipelineRepoConfig(t, sandboxOff, extra, "lower lib/lower.sh")
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	// WP2 alone: sessions running beside it would see its writes too.
	out, _, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo", "--wp", "WP2")
	if exitCode(err) != 1 || !strings.Contains(out, "WP2   verify     fail") {
		t.Fatalf("dispatch: %v\n%s", err, out)
	}
	v := verifyJSON(t, dir, "WP2")
	common := filepath.Join(dir, ".git")
	for _, p := range []string{filepath.Join(common, "info", "exclude"), filepath.Join(common, "hooks", "pre-commit"), filepath.Join(dir, "planted.txt")} {
		if !hasFinding(v, "outside-worktree: "+p+" changed") {
			t.Errorf("no finding for %s: %v", p, v.Findings)
		}
	}
	if len(v.OutOfScope) != 0 || v.Verdict != "fail" {
		t.Fatalf("the worktree itself is in order; the verdict fails on the outside writes: %+v", v)
	}
	// WP1, dispatched after, is measured from what it found: it passes.
	out = must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP1")
	if !strings.Contains(out, "WP1   verify     pass") {
		t.Fatalf("WP1 dispatched after the outside writes:\n%s", out)
	}
}

// The report is held against the disk and the gate re-run: a listed file
// that did not change, a changed file not listed, and a claimed gate exit
// code the re-run does not give are each a finding, and fail verify.
func TestVerifyHoldsTheReportAgainstTheDisk(t *testing.T) {
	report := `{"wp":"WP2","files":["lib/lower.sh","lib/ghost.sh"],"design_choices":[],"wiring":[{"file":"registry.txt","line":"lower lib/lower.sh"}],"claims":["tool:lower"],"exit_codes":[{"command":"sh  test.sh","exit_code":1}]}`
	b, _ := json.Marshal(map[string]json.RawMessage{"op": json.RawMessage(`"report"`), "report": json.RawMessage(report)})
	dir := pipelineRepo(t, string(b), "lower lib/lower.sh")
	out, _, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if exitCode(err) != 1 || !strings.Contains(out, "WP2   verify     fail") || !strings.Contains(out, "WP1   verify     pass") {
		t.Fatalf("dispatch: %v\n%s", err, out)
	}
	v := verifyJSON(t, dir, "WP2")
	for _, want := range []string{"report-unchanged: the report lists lib/ghost.sh", "report-unlisted: tests/lower_test.sh", `report-exit-code: the report says "sh  test.sh" exited 1; run again here it exited 0`} {
		if !hasFinding(v, want) {
			t.Errorf("no finding %q: %v", want, v.Findings)
		}
	}
	if v.Verdict != "fail" {
		t.Fatalf("a report the disk contradicts fails verify: %+v", v)
	}
}

// A script the gate calls is part of the gate: a masked exit code in it
// fails verify, named with its line.
func TestVerifyFindsMaskedExitCodesInGateScripts(t *testing.T) {
	extra := step("write", "path", "tests/lower_test.sh", "content", "[ \"$(echo AB | sh lib/lower.sh)\" = ab ]\nfalse || true\n")
	dir := pipelineRepo(t, extra, "lower lib/lower.sh")
	sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	v := verifyJSON(t, dir, "WP2")
	if v.Verdict != "fail" || v.Gate.ExitCode != 0 || !hasFinding(v, "gate-masked: tests/lower_test.sh:2", "|| true") {
		t.Fatalf("masked exit code in a gate script: %+v", v)
	}
}

// A WP starts from the checkpointed state of what it depends on, and is
// measured from there: WP2's test needs WP0's contract.
func TestVerifyWPStartsFromItsDependencies(t *testing.T) {
	extra := step("write", "path", "tests/lower_test.sh", "content", "[ -s api/contract.txt ] && [ \"$(echo AB | sh lib/lower.sh)\" = ab ]\n")
	dir := pipelineRepo(t, extra, "lower lib/lower.sh")
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if err != nil {
		t.Fatalf("dispatch: %v\n%s%s", err, out, errOut)
	}
	wp0 := strings.TrimSpace(must(t, dir, "git", "rev-parse", "wt/demo-wp0"))
	v := verifyJSON(t, dir, "WP2")
	if v.Verdict != "pass" || v.Base != wp0 || strings.Join(v.Changed, ",") != "lib/lower.sh,tests/lower_test.sh" || v.Tree == "" {
		t.Fatalf("WP2 from WP0's checkpoint %.12s: %+v", wp0, v)
	}
	// Review measures each WP from its own base too: WP0's file is not
	// WP2's commit.
	for _, wp := range []string{"WP1", "WP2"} {
		must(t, dir, "git", "agentproto", "checkpoint", "demo", wp)
	}
	out, _, _ = sh(t, dir, nil, "git", "agentproto", "review", "demo", "--json")
	if strings.Contains(out, "commit-out-of-perimeter") {
		t.Fatalf("review counts a dependency's files against the WP:\n%s", out)
	}
}

// A verification is bound to the state it saw: a commit made after it —
// outside the perimeter — is refused by the pre-push hook (whichever way
// the branch is named), by checkpoint and by consolidate, until the
// worktree is back at the verified state.
func TestVerifyBoundToWhatItSaw(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	remote := filepath.Join(t.TempDir(), "remote.git")
	must(t, dir, "git", "init", "-q", "--bare", remote)
	must(t, dir, "git", "remote", "add", "origin", remote)
	must(t, dir, "git", "agentproto", "hooks", "install")
	must(t, dir, "git", "agentproto", "dispatch", "demo")

	// After verify, a commit outside the perimeter.
	wt2 := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "demo-wp2")
	must(t, wt2, "sh", "-c", "echo stray > notes.txt && git add notes.txt && git commit -qm notes")
	for _, push := range [][]string{{"wt/demo-wp2"}, {"HEAD:refs/heads/wt/demo-wp2"}} {
		_, errOut, err := sh(t, wt2, nil, "git", append([]string{"push", "-q", "origin"}, push...)...)
		if err == nil || !strings.Contains(errOut, "is not the state WP2 was verified at") {
			t.Fatalf("pre-push let a commit made after verify through (%s): %v %s", push[0], err, errOut)
		}
	}
	if refs := must(t, dir, "git", "ls-remote", remote); refs != "" {
		t.Fatalf("refused pushes reached the remote: %s", refs)
	}
	_, errOut, err := sh(t, dir, nil, "git", "agentproto", "checkpoint", "demo", "WP2")
	if exitCode(err) != 5 || !strings.Contains(errOut, "changed since it was verified (notes.txt)") {
		t.Fatalf("checkpoint after a commit outside the perimeter: %v %s", err, errOut)
	}

	// Back at the verified state: checkpoint, then the push goes through.
	must(t, wt2, "git", "reset", "-q", "--hard", "HEAD~1") // WP2's own files are untracked: kept
	for _, wp := range []string{"WP1", "WP2"} {
		must(t, dir, "git", "agentproto", "checkpoint", "demo", wp)
	}
	must(t, dir, "git", "push", "-q", "origin", "wt/demo-wp2")
	// Checkpoint again changes nothing.
	tip := must(t, dir, "git", "rev-parse", "wt/demo-wp2")
	must(t, dir, "git", "agentproto", "checkpoint", "demo", "WP2")
	if again := must(t, dir, "git", "rev-parse", "wt/demo-wp2"); again != tip {
		t.Fatalf("a second checkpoint moved the branch: %s -> %s", tip, again)
	}

	// A commit on a checkpointed branch: consolidate merges none of it.
	wt1 := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "demo-wp1")
	must(t, wt1, "sh", "-c", "echo stray > notes.txt && git add notes.txt && git commit -qm notes")
	out, _, err := sh(t, dir, nil, "git", "agentproto", "consolidate", "demo", "--json")
	if err == nil || !strings.Contains(out, `"code":"not-verified-state"`) || !strings.Contains(out, "wt/demo-wp1") {
		t.Fatalf("consolidate took a state no verify saw: %v\n%s", err, out)
	}
}

// A session that writes outside its worktree and then dies on its
// provider does not make its writes the starting point of the session
// that takes over: the snapshot of the first dispatch still counts.
func TestVerifyOutsideSnapshotSurvivesFallback(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	agent := `#!/bin/sh
case "$1" in
  *READY*) echo READY; exit 0;;
esac
echo '*.hidden' >> "$(git rev-parse --path-format=absolute --git-common-dir)/info/exclude"
echo "Error: Credit balance is too low" >&2
exit 1
`
	os.WriteFile(filepath.Join(dir, "agent.sh"), []byte(agent), 0o755)
	cfg := sandboxOff + `[dispatch]
fallback = ["broke", "good"]
[profiles.broke]
adapter = "exec"
auth = "none"
options = { command = "sh agent.sh {prompt}" }
[profiles.good]
adapter = "scripted"
auth = "none"
`
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(cfg), 0o644)
	must(t, dir, "git", "add", "agent.sh", "agentproto.toml")
	must(t, dir, "git", "commit", "-q", "-m", "stub agent")
	must(t, dir, "git", "agentproto", "profile", "trust", "broke")
	must(t, dir, "git", "agentproto", "plan", "freeze", "demo")
	out, _, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	if exitCode(err) != 1 || !strings.Contains(out, "moving from broke to profile good") || !strings.Contains(out, "WP0   verify     fail") ||
		!strings.Contains(out, "outside-worktree: "+filepath.Join(dir, ".git", "info", "exclude")+" changed") {
		t.Fatalf("dispatch: %v\n%s", err, out)
	}
}

// The user changes the main checkout after a dispatch — a remote added,
// agentproto.toml edited — and verify fails on it, naming the way out:
// verify --accept-outside, which the user runs (from inside a session it
// is refused) and which records what was accepted; verify then passes,
// and a write outside made after that is found again.
func TestVerifyAcceptsTheUsersOwnChangesOutside(t *testing.T) {
	// Unconfined: with the sandbox, a change outside is never the WP's
	// (TestSandboxedWorkPackageIsNotBlamedForAChangeOutside).
	dir := pipelineRepoConfig(t, sandboxOff, "", "lower lib/lower.sh")
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP2")
	must(t, dir, "git", "remote", "add", "origin", "git@github.com:me/demo.git")
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("# mine\n"), 0o644)

	_, errOut, err := sh(t, dir, nil, "git", "agentproto", "verify", "demo", "WP2")
	if exitCode(err) != 1 || !strings.Contains(errOut, "git agentproto verify demo WP2 --accept-outside") {
		t.Fatalf("verify after the user's changes: exit %d\n%s", exitCode(err), errOut)
	}
	before := ledgerCount(t, dir)
	_, errOut, err = shEnv(t, dir, []string{"AGENTPROTO_SESSION=s-000000000001"}, "git", "agentproto", "verify", "demo", "WP2", "--accept-outside")
	if exitCode(err) != 5 || !strings.Contains(errOut, "not from a session") || ledgerCount(t, dir) != before {
		t.Fatalf("accept from a session: exit %d\n%s", exitCode(err), errOut)
	}
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "verify", "demo", "WP2", "--accept-outside")
	if err != nil || !strings.Contains(out, "WP2: pass") || !strings.Contains(errOut, "accepted as yours: outside-worktree: "+filepath.Join(dir, "agentproto.toml")) {
		t.Fatalf("verify --accept-outside: %v\n%s\n%s", err, out, errOut)
	}
	acc := ledgerEvents(t, dir, "wp_outside_accepted")
	if len(acc) != 1 || acc[0]["wp"] != "WP2" || !strings.Contains(mustJSON(acc[0]["changed"]), "agentproto.toml") {
		t.Fatalf("wp_outside_accepted: %v", acc)
	}
	os.WriteFile(filepath.Join(dir, "planted.txt"), []byte("x\n"), 0o644)
	v := verifyJSON(t, dir, "WP2")
	if v.Verdict != "fail" || !hasFinding(v, "outside-worktree: "+filepath.Join(dir, "planted.txt")) || hasFinding(v, "agentproto.toml") {
		t.Fatalf("a later write outside: %+v", v)
	}
}

// An executor that drops AGENTPROTO_SESSION from its environment is still
// refused --accept-outside where no sandbox holds it (off here): its
// process belongs to a session's group.
func TestAcceptOutsideRefusedToAnAgentWithoutItsSessionVariable(t *testing.T) {
	accept := runStep(`log=$PWD/accept.log; cd "$(git rev-parse --path-format=absolute --git-common-dir)/.." && ` +
		`env -u AGENTPROTO_SESSION git agentproto verify demo WP2 --accept-outside > "$log" 2>&1; echo "exit $?" >> "$log"`)
	dir := pipelineRepoConfig(t, sandboxOff, accept, "lower lib/lower.sh")
	sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	b, err := os.ReadFile(filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "demo-wp2", "accept.log"))
	if err != nil || !strings.Contains(string(b), "not from a session (this runs in s-") || !strings.Contains(string(b), "exit 5") {
		t.Fatalf("the agent's own --accept-outside: %v\n%s", err, b)
	}
	if acc := ledgerEvents(t, dir, "wp_outside_accepted"); len(acc) != 0 {
		t.Fatalf("the agent accepted: %v", acc)
	}
}

// A gate whose agent-written test rewrites a file of the worktree — same
// size, its modification time put back — is found: verify names what the
// gate wrote and fails, and the tree it records is the one it checked
// before the gate, not what the gate left on disk.
func TestVerifyFindsWhatTheGateWrote(t *testing.T) {
	// Each run swaps the file between two contents of one size that
	// both pass, so that every verification's gate changes it.
	test := `[ "$(echo AB | sh lib/lower.sh)" = ab ] && cp -p lib/lower.sh "$TMPDIR/was" && if grep -q a-z lib/lower.sh; then new='tr A-Z a-y'; else new='tr A-Z a-z'; fi && printf '%s\n' "$new" > lib/lower.sh && touch -r "$TMPDIR/was" lib/lower.sh` + "\n"
	extra := step("write", "path", "tests/lower_test.sh", "content", test)
	dir := pipelineRepo(t, extra, "lower lib/lower.sh")
	out, _, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if exitCode(err) != 1 || !strings.Contains(out, "WP2   verify     fail") || !strings.Contains(out, "WP1   verify     pass") {
		t.Fatalf("dispatch: %v\n%s", err, out)
	}
	v := verifyJSON(t, dir, "WP2")
	if v.Verdict != "fail" || !hasFinding(v, "gate-wrote: the gate changed the worktree (lib/lower.sh)") {
		t.Fatalf("a gate that rewrote lib/lower.sh: %+v", v)
	}
	verified := strings.TrimSpace(must(t, dir, "git", "cat-file", "-p", v.Tree+":lib/lower.sh"))
	wt := strings.TrimSpace(must(t, dir, "git", "worktree", "list", "--porcelain"))
	var wp2 string
	for _, line := range strings.Split(wt, "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok && strings.HasSuffix(p, "wp2") {
			wp2 = p
		}
	}
	onDisk, _ := os.ReadFile(filepath.Join(wp2, "lib", "lower.sh"))
	if wp2 == "" || verified == strings.TrimSpace(string(onDisk)) {
		t.Fatalf("the verified tree holds %q, the disk %q (worktree %q): the tree must be the one seen before the gate", verified, onDisk, wp2)
	}
	// WP1's gate leaves its worktree as it found it: no such finding.
	v1 := verifyJSON(t, dir, "WP1")
	if v1.Verdict != "pass" || hasFinding(v1, "gate-wrote") {
		t.Fatalf("WP1, whose gate writes nothing: %+v", v1)
	}
}
