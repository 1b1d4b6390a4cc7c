package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionStartProvisionsItsWorktree: `sessions start --worktree SLUG`
// makes the worktree when it is missing — default base or --base, setup
// hooks once trusted, recorded as worktree new records it — then starts the
// session in it; an existing worktree is reused, its setup not run again.
// Bad input and untrusted hooks make nothing.
func TestSessionStartProvisionsItsWorktree(t *testing.T) {
	dir := newRepo(t)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(`[worktree]
setup = ["echo made from $(git rev-parse --abbrev-ref HEAD) > setup-ran"]
`), 0o644)
	must(t, dir, "git", "add", "agentproto.toml")
	must(t, dir, "git", "commit", "-q", "-m", "setup hook")
	must(t, dir, "git", "agentproto", "init")
	must(t, dir, "git", "branch", "other")
	must(t, dir, "git", "checkout", "-q", "other")
	os.WriteFile(filepath.Join(dir, "only-on-other"), []byte("x\n"), 0o644)
	must(t, dir, "git", "add", "only-on-other")
	must(t, dir, "git", "commit", "-q", "-m", "other")
	must(t, dir, "git", "checkout", "-q", "main")
	other := strings.TrimSpace(must(t, dir, "git", "rev-parse", "other"))
	root := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo")
	// The session proves where it ran: it writes its working directory.
	prompt := script(`{"op":"spawn","cmd":"pwd > ran-in"}`, `{"op":"sleep","ms":100}`, `{"op":"say","text":"done"}`)
	start := func(args ...string) (map[string]any, string, error) {
		t.Helper()
		out, errOut, err := startSession(t, dir, append([]string{"--adapter", "scripted", "--json", "--prompt", prompt}, args...)...)
		var rec map[string]any
		if err == nil {
			if jerr := json.Unmarshal([]byte(out), &rec); jerr != nil {
				t.Fatalf("start --json: %v\n%s", jerr, out)
			}
		}
		return rec, errOut, err
	}
	nothingMade := func(slug string) {
		t.Helper()
		if _, err := os.Stat(filepath.Join(root, slug)); !os.IsNotExist(err) {
			t.Errorf("worktree %s was made (%v)", slug, err)
		}
		if b := must(t, dir, "git", "branch", "--list", "wt/"+slug); b != "" {
			t.Errorf("branch made: %s", b)
		}
	}
	provisioned := func() []map[string]any {
		var evs []map[string]any
		for _, line := range strings.Split(strings.TrimSpace(must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "worktree_provisioned", "--json")), "\n") {
			if line == "" {
				continue
			}
			var ev map[string]any
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("ledger log: %v\n%s", err, line)
			}
			evs = append(evs, ev)
		}
		return evs
	}

	// Untrusted hooks: refused (exit 5) before anything is made.
	_, errOut, err := start("--worktree", "gesture")
	if exitCode(err) != 5 || !strings.Contains(errOut, "not trusted") || !strings.Contains(errOut, "git agentproto trust --base main") {
		t.Fatalf("untrusted: exit %d, want 5 naming the trust command:\n%s", exitCode(err), errOut)
	}
	nothingMade("gesture")
	// Bad input: nothing made either.
	if _, errOut, err := start("--worktree", "bad-base", "--base", "no-such-rev"); exitCode(err) != 2 || !strings.Contains(errOut, `base "no-such-rev" does not name a commit`) {
		t.Fatalf("bad base: exit %d:\n%s", exitCode(err), errOut)
	}
	nothingMade("bad-base")
	if _, errOut, err := start("--dir", dir, "--base", "other"); exitCode(err) != 2 || !strings.Contains(errOut, "--base") {
		t.Fatalf("--base without --worktree: exit %d:\n%s", exitCode(err), errOut)
	}
	if _, errOut, err := start("--worktree", "gesture", "--adapter", "no-such-adapter"); err == nil || !strings.Contains(errOut, "no-such-adapter") {
		t.Fatalf("unknown adapter accepted:\n%s", errOut)
	}
	nothingMade("gesture")

	must(t, dir, "git", "agentproto", "trust")
	rec, errOut, err := start("--worktree", "gesture")
	if err != nil {
		t.Fatalf("start: %v\n%s", err, errOut)
	}
	path := filepath.Join(root, "gesture")
	if rec["dir"] != path || rec["worktree"] != "gesture" {
		t.Fatalf("session dir %v worktree %v, want %s", rec["dir"], rec["worktree"], path)
	}
	if !strings.Contains(errOut, "[setup 1/1]") {
		t.Errorf("setup output not shown:\n%s", errOut)
	}
	id := rec["id"].(string)
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "20s")
	if b, _ := os.ReadFile(filepath.Join(path, "setup-ran")); string(b) != "made from wt/gesture\n" {
		t.Errorf("setup-ran: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(path, "ran-in")); strings.TrimSpace(string(b)) != path {
		t.Errorf("the session ran in %q, want %s", b, path)
	}
	evs := provisioned()
	if len(evs) != 1 {
		t.Fatalf("%d worktree_provisioned events, want 1: %v", len(evs), evs)
	}
	data, _ := evs[0]["data"].(map[string]any)
	if data["slug"] != "gesture" || data["by"] != "sessions start" || data["base"] != "main" {
		t.Errorf("event: %v", data)
	}
	if setup, _ := data["setup"].(map[string]any); setup["ok"] != true {
		t.Errorf("setup not recorded ok: %v", data)
	}
	if got := must(t, dir, "git", "agentproto", "worktree", "ls"); !strings.Contains(got, "gesture") {
		t.Errorf("worktree ls:\n%s", got)
	}

	// An existing worktree is reused as it is: no second provisioning.
	os.Remove(filepath.Join(path, "setup-ran"))
	rec, errOut, err = start("--worktree", "gesture")
	if err != nil {
		t.Fatalf("second start: %v\n%s", err, errOut)
	}
	if rec["dir"] != path || strings.Contains(errOut, "[setup") {
		t.Errorf("second start: dir %v, stderr:\n%s", rec["dir"], errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", rec["id"].(string), "--timeout", "20s")
	if _, err := os.Stat(filepath.Join(path, "setup-ran")); !os.IsNotExist(err) {
		t.Errorf("setup ran again on an existing worktree")
	}
	if n := len(provisioned()); n != 1 {
		t.Errorf("%d worktree_provisioned events after reuse, want 1", n)
	}

	// --base picks what a new worktree starts from.
	rec, errOut, err = start("--worktree", "from-other", "--base", "other")
	if err != nil {
		t.Fatalf("start --base other: %v\n%s", err, errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", rec["id"].(string), "--timeout", "20s")
	p2 := filepath.Join(root, "from-other")
	if _, err := os.Stat(filepath.Join(p2, "only-on-other")); err != nil {
		t.Errorf("the worktree is not at other: %v", err)
	}
	if b := strings.TrimSpace(must(t, p2, "git", "rev-parse", "HEAD")); b != other {
		t.Errorf("from-other HEAD %s, want %s", b, other)
	}
}

// Committed adapter options are trusted before a session's worktree is
// made: untrusted, sessions start and MCP's session_start refuse (exit 5)
// and make nothing; trusted, both make the worktree and start in it.
func TestSessionStartTrustsOptionsBeforeItMakesAWorktree(t *testing.T) {
	dir := dispatchExecRepo(t)
	madeNothing := func(slug string) {
		t.Helper()
		if wts := must(t, dir, "git", "worktree", "list"); strings.Contains(wts, slug) {
			t.Errorf("worktree %s was made:\n%s", slug, wts)
		}
		if b := must(t, dir, "git", "branch", "--list", "wt/"+slug); b != "" {
			t.Errorf("branch made: %s", b)
		}
	}
	_, errOut, err := startSession(t, dir, "--adapter", "exec", "--worktree", "cli1", "--prompt", "hi", "--no-ping")
	if exitCode(err) != 5 || !strings.Contains(errOut, "not trusted") {
		t.Fatalf("untrusted options from the CLI: exit %d\n%s", exitCode(err), errOut)
	}
	madeNothing("cli1")
	cs := mcpConnect(t, dir)
	c := callTool(t, cs, "session_start", map[string]any{"adapter": "exec", "worktree": "mcp1", "prompt": "hi", "no_ping": true})
	if !c.IsError || c.Doc["exit_code"] != float64(5) || !strings.Contains(c.Text, "not trusted") {
		t.Fatalf("untrusted options over MCP: %+v", c)
	}
	madeNothing("mcp1")

	must(t, dir, "git", "agentproto", "plugin", "trust", "exec")
	c = mustTool(t, cs, "session_start", map[string]any{"adapter": "exec", "worktree": "mcp2", "prompt": "hi", "no_ping": true})
	if c.Doc["worktree"] != "mcp2" || !strings.Contains(mustJSON(c.Doc["dir"]), "mcp2") {
		t.Fatalf("trusted options over MCP: %+v", c.Doc)
	}
	out, errOut, err := startSession(t, dir, "--adapter", "exec", "--worktree", "cli2", "--prompt", "hi", "--no-ping")
	if err != nil || strings.TrimSpace(out) == "" {
		t.Fatalf("trusted options from the CLI: %v\n%s", err, errOut)
	}
	for _, slug := range []string{"mcp2", "cli2"} {
		if b := must(t, dir, "git", "branch", "--list", "wt/"+slug); b == "" {
			t.Errorf("no branch wt/%s", slug)
		}
	}
}
