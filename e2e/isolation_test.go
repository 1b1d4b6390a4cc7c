package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// [worktree] isolation is honoured by sessions start, and the environment
// variable wins over it: "always" refuses a directory that is not an
// agentproto worktree, "never" refuses to make a worktree (an existing one
// is still used), "on-request" does what it is asked.
func TestIsolationPolicyOfSessionsStart(t *testing.T) {
	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "init")
	root := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo")
	plain := t.TempDir()
	prompt := script(`{"op":"say","text":"hi"}`)
	start := func(env []string, args ...string) (string, error) {
		t.Helper()
		_, errOut, err := shEnv(t, dir, env, "git", append([]string{"agentproto", "sessions", "start", "--adapter", "scripted", "--no-ping", "--prompt", prompt}, args...)...)
		return errOut, err
	}
	setMode := func(mode string) {
		os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[worktree]\nisolation = \""+mode+"\"\n"), 0o644)
	}

	// on-request (the default): both a plain directory and a new worktree.
	if errOut, err := start(nil, "--dir", plain); err != nil {
		t.Fatalf("on-request --dir: %v %s", err, errOut)
	}
	if errOut, err := start(nil, "--worktree", "asked"); err != nil {
		t.Fatalf("on-request --worktree: %v %s", err, errOut)
	}

	setMode("always")
	errOut, err := start(nil, "--dir", plain)
	if exitCode(err) != 5 || !strings.Contains(errOut, `worktree isolation is "always"`) || !strings.Contains(errOut, "is not an agentproto worktree") {
		t.Fatalf("always --dir outside a worktree: %v %s", err, errOut)
	}
	if errOut, err := start(nil, "--dir", dir); exitCode(err) != 5 {
		t.Fatalf("always --dir of the main worktree: %v %s", err, errOut)
	}
	if errOut, err := start(nil, "--dir", filepath.Join(root, "asked")); err != nil {
		t.Fatalf("always --dir of an agentproto worktree: %v %s", err, errOut)
	}
	// The environment wins over the configuration.
	if errOut, err := start([]string{"AGENTPROTO_WORKTREES_ISOLATION=on-request"}, "--dir", plain); err != nil {
		t.Fatalf("env on-request over always: %v %s", err, errOut)
	}

	setMode("never")
	errOut, err = start(nil, "--worktree", "fresh")
	if exitCode(err) != 5 || !strings.Contains(errOut, `worktree isolation is "never"`) || !strings.Contains(errOut, "worktree fresh is not made") {
		t.Fatalf("never --worktree: %v %s", err, errOut)
	}
	if _, err := os.Stat(filepath.Join(root, "fresh")); !os.IsNotExist(err) {
		t.Fatalf("a refused start made the worktree: %v", err)
	}
	if b := must(t, dir, "git", "branch", "--list", "wt/fresh"); b != "" {
		t.Fatalf("a refused start made a branch: %s", b)
	}
	if errOut, err := start(nil, "--worktree", "asked"); err != nil {
		t.Fatalf("never still runs in an existing worktree: %v %s", err, errOut)
	}
	errOut, err = start([]string{"AGENTPROTO_WORKTREES_ISOLATION=always"}, "--dir", plain)
	if exitCode(err) != 5 || !strings.Contains(errOut, `"always"`) {
		t.Fatalf("env always over never: %v %s", err, errOut)
	}
	if errOut, err := start([]string{"AGENTPROTO_WORKTREES_ISOLATION=sometimes"}, "--dir", plain); exitCode(err) != 2 || !strings.Contains(errOut, `$AGENTPROTO_WORKTREES_ISOLATION is "sometimes"`) {
		t.Fatalf("a bad env value: %v %s", err, errOut)
	}
	setMode("sometimes")
	if errOut, err := start(nil, "--dir", plain); exitCode(err) != 2 || !strings.Contains(errOut, "isolation") {
		t.Fatalf("a bad config value: %v %s", err, errOut)
	}
}

// A session started from within a session runs in its parent's worktree
// instead of getting a second one.
func TestSessionStartedFromASessionInheritsItsWorktree(t *testing.T) {
	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "init")
	// A sandboxed agent cannot start sessions at all
	// (TestHostileAgentIsConfinedByTheSandbox): the inheritance holds
	// where it runs unconfined.
	unconfinedCommitted(t, dir)
	root := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo")
	tmp := t.TempDir()
	child := filepath.Join(tmp, "child.txt")
	os.WriteFile(child, []byte(script(`{"op":"spawn","cmd":"pwd > `+filepath.Join(tmp, "child-ran-in")+`"}`, `{"op":"sleep","ms":100}`)), 0o644)
	run := "git agentproto sessions start --adapter scripted --no-ping --worktree second --prompt-file " + child +
		" --json > " + filepath.Join(tmp, "child.json") + " 2> " + filepath.Join(tmp, "child.err")
	b, _ := json.Marshal(run)
	parent, errOut, err := startSession(t, dir, "--adapter", "scripted", "--no-ping", "--worktree", "first",
		"--prompt", script(`{"op":"run","cmd":`+string(b)+`}`))
	if err != nil {
		t.Fatalf("parent: %v %s", err, errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", parent, "--timeout", "60s")
	childErr, _ := os.ReadFile(filepath.Join(tmp, "child.err"))
	var rec struct{ ID, Dir, Worktree string }
	if b, _ := os.ReadFile(filepath.Join(tmp, "child.json")); json.Unmarshal(b, &rec) != nil || rec.ID == "" {
		t.Fatalf("the child session did not start: %s\n%s", b, childErr)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", rec.ID, "--timeout", "60s")
	if rec.Worktree != "first" || rec.Dir != filepath.Join(root, "first") || !strings.Contains(string(childErr), "runs in its worktree first") {
		t.Fatalf("child record %+v, stderr %s", rec, childErr)
	}
	if ran, _ := os.ReadFile(filepath.Join(tmp, "child-ran-in")); strings.TrimSpace(string(ran)) != filepath.Join(root, "first") {
		t.Fatalf("the child ran in %q", ran)
	}
	if _, err := os.Stat(filepath.Join(root, "second")); !os.IsNotExist(err) {
		t.Fatalf("a second worktree was made: %v", err)
	}
}

// MCP session_start and dispatch honour the policy too.
func TestIsolationPolicyOfMCPAndDispatch(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	root := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo")
	_, errOut, err := shEnv(t, dir, []string{"AGENTPROTO_WORKTREES_ISOLATION=never"}, "git", "agentproto", "dispatch", "demo")
	if exitCode(err) != 5 || !strings.Contains(errOut, `worktree isolation is "never"`) || !strings.Contains(errOut, "dispatch (each WP) runs only in a worktree of its own") {
		t.Fatalf("dispatch under never: %v %s", err, errOut)
	}
	if _, err := os.Stat(filepath.Join(root, "demo-wp0")); !os.IsNotExist(err) {
		t.Fatalf("a refused dispatch made a worktree: %v", err)
	}
	// The scout and the reviewer run only in worktrees of their own too.
	never := []string{"AGENTPROTO_WORKTREES_ISOLATION=never"}
	if _, errOut, err := shEnv(t, dir, never, "git", "agentproto", "scout", "demo", "--adapter", "scripted"); exitCode(err) != 5 || !strings.Contains(errOut, "the scout runs only in a worktree of its own") {
		t.Fatalf("scout under never: %v %s", err, errOut)
	}
	if _, errOut, err := shEnv(t, dir, never, "git", "agentproto", "review", "demo", "--adapter", "scripted"); exitCode(err) != 5 || !strings.Contains(errOut, "the reviewer runs only in a worktree of its own") {
		t.Fatalf("review under never: %v %s", err, errOut)
	}
	for _, slug := range []string{"scout-demo", "demo-review"} {
		if _, err := os.Stat(filepath.Join(root, slug)); !os.IsNotExist(err) {
			t.Fatalf("a refused step made worktree %s: %v", slug, err)
		}
	}

	cs := mcpConnect(t, dir)
	cfg := func(mode string) {
		os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[dispatch]\nadapter = \"scripted\"\n[worktree]\nisolation = \""+mode+"\"\n"), 0o644)
	}
	cfg("always")
	// A plain directory of the repository (one outside it is refused
	// whatever the isolation: TestMCPAnswersAreBoundedByDefault).
	plain := filepath.Join(dir, "plain")
	os.Mkdir(plain, 0o755)
	c := callTool(t, cs, "session_start", map[string]any{"adapter": "scripted", "dir": plain, "no_ping": true, "prompt": "hi"})
	if !c.IsError || c.Doc["exit_code"] != float64(5) || !strings.Contains(c.Text, "is not an agentproto worktree") {
		t.Fatalf("session_start under always, plain dir: %+v", c)
	}
	cfg("never")
	c = callTool(t, cs, "session_start", map[string]any{"adapter": "scripted", "worktree": "fresh", "no_ping": true, "prompt": "hi"})
	if !c.IsError || c.Doc["exit_code"] != float64(5) || !strings.Contains(c.Text, "worktree fresh is not made") {
		t.Fatalf("session_start under never, new worktree: %+v", c)
	}
	if _, err := os.Stat(filepath.Join(root, "fresh")); !os.IsNotExist(err) {
		t.Fatalf("a refused session_start made the worktree: %v", err)
	}
	cfg("on-request")
	mustTool(t, cs, "session_start", map[string]any{"adapter": "scripted", "worktree": "fresh", "no_ping": true, "prompt": "hi"})
}

// A fork branch runs only in a worktree of its own: under "never" its
// admission is refused, no worktree made and nothing recorded.
func TestIsolationNeverRefusesAForkBranch(t *testing.T) {
	h := newForkHost(t, 0, "e1")
	os.WriteFile(filepath.Join(h.dir, "agentproto.toml"), []byte("[worktree]\nisolation = \"never\"\n"), 0o644)
	before := h.ledgerRecords("fork_")
	_, errOut, err := h.admit("b1", nil, `{"op":"say","text":"hi"}`)
	if exitCode(err) != 5 || !strings.Contains(errOut, "a fork branch runs only in a worktree of its own") {
		t.Fatalf("fork admit under never: %v %s", err, errOut)
	}
	if after := h.ledgerRecords("fork_"); after != before {
		t.Fatalf("a refused admission wrote %d records", after-before)
	}
	if l := must(t, h.dir, "git", "worktree", "list"); strings.Count(l, "\n") != 2 {
		t.Fatalf("a refused admission made a worktree:\n%s", l)
	}
}
