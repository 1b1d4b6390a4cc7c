package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// wedgeRepo is a repository with one trusted profile per name: the
// scripted agent, its error log at logs/NAME.log, and a wedge_after short
// enough for a test (the daemon checks four times per wedge_after).
func wedgeRepo(t *testing.T, names ...string) (dir string, logs map[string]string) {
	t.Helper()
	tmp := t.TempDir()
	logs = map[string]string{}
	doc := ""
	for _, n := range names {
		logs[n] = filepath.Join(tmp, n+".log")
		// Before the session: not about it, never its cause.
		os.WriteFile(logs[n], []byte("2026-12-01 old line: HTTP 401 unauthorized\n"), 0o600)
		doc += "[profiles." + n + "]\nadapter = \"scripted\"\nauth = \"none\"\nwedge_after = \"1s\"\nerror_log = \"" + logs[n] + "\"\n"
	}
	return spawnRepo(t, doc, names...), logs
}

// wedgedEvent waits (a generous bound, no timing asserted) until the
// daemon called session id wedged, and returns its session_wedged event.
func wedgedEvent(t *testing.T, dir, id string) map[string]any {
	t.Helper()
	meta := filepath.Join(dir, ".git", "agentproto", "sessions", id, "meta.json")
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if b, _ := os.ReadFile(meta); strings.Contains(string(b), `"wedged"`) {
			break
		}
	}
	var found []map[string]any
	for _, e := range ledgerEvents(t, dir, "session_wedged") {
		if e["session"] == id {
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		b, _ := os.ReadFile(meta)
		t.Fatalf("session %s: %d session_wedged events; record:\n%s", id, len(found), b)
	}
	return found[0]
}

// sessionRecord reads one session from sessions ls --json.
func sessionRecord(t *testing.T, dir, id string) (faults, warnings []string) {
	t.Helper()
	var recs []struct {
		ID       string   `json:"id"`
		Faults   []string `json:"faults"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "sessions", "ls", "--all", "--json")), &recs); err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.ID == id {
			return r.Faults, r.Warnings
		}
	}
	t.Fatalf("no session %s in sessions ls --json", id)
	return nil, nil
}

// The agent says its turn ended, then keeps working: a child it started
// goes on writing its log. The daemon, which takes the session as
// awaiting input, calls it wedged — with the cause only the agent's log
// names for one session, "unknown" for the other — in the record, in
// sessions ls and in the ledger, which holds no line of the log.
func TestWedgedSessionWorkingAfterItsTurnEnded(t *testing.T) {
	dir, logs := wedgeRepo(t, "broke", "busy")
	keepWriting := func(log, first string) string {
		cmd := "while :; do echo 'tool call: reading src/main.go' >> " + log + "; sleep 0.05; done"
		if first != "" {
			cmd = "echo '" + first + "' >> " + log + "; " + cmd
		}
		b, _ := json.Marshal(map[string]string{"op": "spawn", "cmd": cmd})
		return script(string(b), `{"op":"say","text":"all done"}`)
	}
	cases := map[string]struct{ first, cause string }{
		"broke": {"2026-12-02 01:00:00 ERROR run_agent: API call failed: HTTP 402: This request requires more credits", "insufficient_credits"},
		"busy":  {"", "unknown"},
	}
	ids := map[string]string{}
	for name, c := range cases {
		id, errOut, err := startSession(t, dir, "--profile", name, "--dir", dir, "--prompt", keepWriting(logs[name], c.first))
		if err != nil {
			t.Fatalf("%s: start: %v %s", name, err, errOut)
		}
		ids[name] = id
		t.Cleanup(func() { sh(t, dir, nil, "git", "agentproto", "sessions", "kill", id) })
	}
	for name, c := range cases {
		id := ids[name]
		e := wedgedEvent(t, dir, id)
		if e["symptom"] != "working_after_turn_end" || e["state"] != "settled" || e["cause"] != c.cause {
			t.Fatalf("%s: event %v", name, e)
		}
		if ev, _ := e["evidence"].([]any); !slices.Contains(ev, any("error_log")) {
			t.Fatalf("%s: evidence %v", name, e["evidence"])
		}
		ref := "sessions/" + id + "/agent-errors.log"
		if e["error_log_ref"] != ref {
			t.Fatalf("%s: reference %v", name, e["error_log_ref"])
		}
		path := filepath.Join(dir, ".git", "agentproto", ref)
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: artifact %v %v", name, fi, err)
		}
		if b, _ := os.ReadFile(path); strings.Contains(string(b), "old line") || !strings.Contains(string(b), "tool call") {
			t.Fatalf("%s: artifact holds %q", name, b)
		}
		faults, warnings := sessionRecord(t, dir, id)
		wantFaults := []string{"wedged"}
		if c.cause != "unknown" {
			wantFaults = []string{c.cause, "wedged"}
		}
		if !slices.Equal(faults, wantFaults) {
			t.Fatalf("%s: faults %v, want %v", name, faults, wantFaults)
		}
		if len(warnings) != 1 || !strings.Contains(warnings[0], "awaits input, but its agent is still working") ||
			!strings.Contains(warnings[0], "cause: "+c.cause) {
			t.Fatalf("%s: warnings %q", name, warnings)
		}
		if ls := sessionLs(t, dir); !strings.Contains(ls, "warning: wedged: turn ") {
			t.Fatalf("sessions ls:\n%s", ls)
		}
	}
	ledger := must(t, dir, "git", "agentproto", "ledger", "log", "--json")
	if strings.Contains(ledger, "run_agent") || strings.Contains(ledger, "requires more credits") || strings.Contains(ledger, "tool call") {
		t.Fatal("the ledger holds the error log's text")
	}
}

// The reverse: the session runs, but nothing moves — no event, no CPU, no
// log line after the one that says why. Stalled, with that cause.
func TestWedgedSessionStalledMidTurn(t *testing.T) {
	dir, logs := wedgeRepo(t, "limited")
	b, _ := json.Marshal(map[string]string{"op": "run", "cmd": "echo 'WARN provider: HTTP 429 rate limit, retrying in 600s' >> " + logs["limited"]})
	id, errOut, err := startSession(t, dir, "--profile", "limited", "--dir", dir, "--prompt", script(string(b), `{"op":"sleep","ms":120000}`))
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	t.Cleanup(func() { sh(t, dir, nil, "git", "agentproto", "sessions", "kill", id) })
	e := wedgedEvent(t, dir, id)
	if e["symptom"] != "stalled_mid_turn" || e["state"] != "running" || e["cause"] != "rate_limited" || e["evidence"] != nil {
		t.Fatalf("event %v", e)
	}
	if faults, _ := sessionRecord(t, dir, id); !slices.Equal(faults, []string{"rate_limited", "wedged"}) {
		t.Fatalf("faults %v", faults)
	}
}

// A session the MCP server starts is launched as sessions start launches
// it: the profile's wedge bound and error log come with it, so the same
// stall is called wedged, with the cause its log gives.
func TestMCPStartedSessionIsWatchedForWedges(t *testing.T) {
	dir, logs := wedgeRepo(t, "limited")
	b, _ := json.Marshal(map[string]string{"op": "run", "cmd": "echo 'WARN provider: HTTP 429 rate limit, retrying in 600s' >> " + logs["limited"]})
	cs := mcpConnect(t, dir)
	c := mustTool(t, cs, "session_start", map[string]any{"profile": "limited", "dir": dir,
		"prompt": script(string(b), `{"op":"sleep","ms":120000}`)})
	id, _ := c.Doc["id"].(string)
	if id == "" || c.Doc["profile"] != "limited" {
		t.Fatalf("session_start: %+v", c.Doc)
	}
	t.Cleanup(func() { sh(t, dir, nil, "git", "agentproto", "sessions", "kill", id) })
	e := wedgedEvent(t, dir, id)
	if e["symptom"] != "stalled_mid_turn" || e["cause"] != "rate_limited" {
		t.Fatalf("event %v", e)
	}
}

// The daemon's kinds are the sessions feature's: the user's ledger append
// is refused them, naming their owner, and nothing is written.
func TestLedgerAppendRefusesTheSessionsKinds(t *testing.T) {
	dir := newRepo(t)
	for _, kind := range []string{"session_running", "session_wedged", "session_spawn", "policy_fired"} {
		_, errOut, err := sh(t, dir, nil, "git", "agentproto", "ledger", "append", "--kind", kind, "--id", "forged", "--data", `{"session":"s-000000000000"}`)
		if exitCode(err) != 5 || !strings.Contains(errOut, `kind "`+kind+`" belongs to its own command (sessions)`) {
			t.Fatalf("%s: exit %d: %s", kind, exitCode(err), errOut)
		}
	}
	if out, _, _ := sh(t, dir, nil, "git", "for-each-ref", "refs/agentproto/"); out != "" {
		t.Fatalf("something was written: %s", out)
	}
}

// A failure's reason holds what the adapter printed; a token in it is
// scrubbed from the session_failed event, which is still recorded.
func TestSessionFailureWithASecretIsRecordedScrubbed(t *testing.T) {
	dir := newRepo(t)
	token := "ghp_" + strings.Repeat("Zz9", 12)
	os.WriteFile(filepath.Join(dir, "leaky.sh"), []byte("#!/bin/sh\necho 'auth failed with GITHUB_TOKEN="+token+"' >&2\nexit 3\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[plugins.leaky]\npath = \"leaky.sh\"\n"), 0o644)
	must(t, dir, "git", "agentproto", "plugin", "trust", "leaky")
	if _, errOut, err := startSession(t, dir, "--adapter", "leaky", "--dir", dir, "--prompt", "hi"); err == nil {
		t.Fatalf("a failing adapter started: %s", errOut)
	}
	failed := ledgerEvents(t, dir, "session_failed")
	if len(failed) != 1 {
		t.Fatalf("session_failed events: %v", failed)
	}
	if reason, _ := failed[0]["reason"].(string); strings.Contains(reason, token) || !strings.Contains(reason, "GITHUB_TOKEN=[redacted") {
		t.Fatalf("reason %q", reason)
	}
}
