package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// spawnRepo is a repository whose agentproto.toml has profiles of a
// prompt-switched agent (the scripted adapter answering /model), each
// trusted.
func spawnRepo(t *testing.T, profiles string, names ...string) string {
	t.Helper()
	dir := newRepo(t)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(profiles), 0o644)
	must(t, dir, "git", "add", "agentproto.toml")
	must(t, dir, "git", "commit", "-q", "-m", "profiles")
	for _, n := range names {
		must(t, dir, "git", "agentproto", "profile", "trust", n)
	}
	return dir
}

const switchProfile = `
[profiles.%s]
adapter = "scripted"
model = "cheap/m1"
auth = "none"
model_switch = "/model {model}"
model_switch_expect = "Model switched to: {model}"
options = { %s }
`

// spawnSteps lists the session_spawn steps of a session in ledger order.
func spawnSteps(t *testing.T, dir, id string) []string {
	t.Helper()
	var steps []string
	for _, e := range ledgerEvents(t, dir, "session_spawn") {
		if e["session"] == id {
			steps = append(steps, e["step"].(string))
		}
	}
	return steps
}

// ledgerEvents decodes the data of the ledger's events of one kind,
// oldest first (ledger log shows the newest first).
func ledgerEvents(t *testing.T, dir, kind string) []map[string]any {
	t.Helper()
	out := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", kind, "--json")
	var evs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e struct {
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("ledger log line %q: %v", sc.Text(), err)
		}
		evs = append([]map[string]any{e.Data}, evs...)
	}
	return evs
}

func profileDoc(name, options string) string {
	return strings.Replace(strings.Replace(switchProfile, "%s", name, 1), "%s", options, 1)
}

// The switch goes alone and is confirmed, then the ping, then the prompt.
func TestSpawnSwitchesTheModelBeforeThePingAndThePrompt(t *testing.T) {
	dir := spawnRepo(t, profileDoc("hermes", `x = "1"`), "hermes")
	id, errOut, err := startSession(t, dir, "--profile", "hermes", "--dir", dir, "--prompt", "hi")
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "20s")
	if got := strings.Join(spawnSteps(t, dir, id), ","); got != "model_switch,ping,prompt" {
		t.Fatalf("spawn steps: %s", got)
	}
	out := must(t, dir, "git", "agentproto", "sessions", "output", id)
	sw, ready, hi := strings.Index(out, "Model switched to: cheap/m1\n"), strings.Index(out, "READY\n"), strings.Index(out, "echo: hi\n")
	if sw < 0 || ready < sw || hi < ready {
		t.Fatalf("output out of order:\n%s", out)
	}
}

// An agent that does not confirm the switch never gets the prompt.
func TestSpawnFailsWithoutTheSwitchConfirmation(t *testing.T) {
	dir := spawnRepo(t, profileDoc("hermes", `model_switch = "silent"`), "hermes")
	_, errOut, err := startSession(t, dir, "--profile", "hermes", "--dir", dir, "--prompt", "hi")
	if exitCode(err) != 1 || !strings.Contains(errOut, `model switch not confirmed: after "/model cheap/m1" the agent did not print "Model switched to: cheap/m1"`) ||
		!strings.Contains(errOut, "it never received its prompt") {
		t.Fatalf("exit %d:\n%s", exitCode(err), errOut)
	}
	for _, e := range ledgerEvents(t, dir, "session_spawn") {
		t.Fatalf("a spawn step was recorded: %v", e)
	}
	id := ledgerEvents(t, dir, "session_failed")[0]["session"].(string)
	if out := must(t, dir, "git", "agentproto", "sessions", "output", id); strings.Contains(out, "echo: hi") || strings.Contains(out, "READY") {
		t.Fatalf("the agent got more than the switch:\n%s", out)
	}
}

// The turn right after the switch may come back empty: one more ping.
func TestSpawnRetriesAnEmptyTurnAfterTheSwitchOnce(t *testing.T) {
	dir := spawnRepo(t, profileDoc("once", `ping = "empty-once"`)+profileDoc("dead", `ping = "empty"`), "once", "dead")
	id, errOut, err := startSession(t, dir, "--profile", "once", "--dir", dir, "--prompt", "hi")
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "20s")
	if got := strings.Join(spawnSteps(t, dir, id), ","); got != "model_switch,ping_retry,ping,prompt" {
		t.Fatalf("spawn steps: %s", got)
	}
	_, errOut, err = startSession(t, dir, "--profile", "dead", "--dir", dir, "--prompt", "hi")
	if exitCode(err) != 1 || !strings.Contains(errOut, "liveness ping") || !strings.Contains(errOut, "it never received its prompt") {
		t.Fatalf("a dead agent: exit %d:\n%s", exitCode(err), errOut)
	}
	var retries int
	for _, e := range ledgerEvents(t, dir, "session_spawn") {
		if e["session"] != id && e["step"] == "ping_retry" {
			retries++
		}
	}
	if retries != 1 {
		t.Fatalf("the dead agent was retried %d times", retries)
	}
}

// A brief that carries its own switch is refused before anything runs.
func TestSpawnRefusesASwitchSentWithThePrompt(t *testing.T) {
	dir := spawnRepo(t, profileDoc("hermes", `x = "1"`), "hermes")
	_, errOut, err := startSession(t, dir, "--profile", "hermes", "--dir", dir, "--prompt", "/model big/expensive\nfix the bug")
	if err == nil || !strings.Contains(errOut, `the prompt carries a model switch ("/model big/expensive")`) {
		t.Fatalf("exit %d:\n%s", exitCode(err), errOut)
	}
	if evs := ledgerEvents(t, dir, "session_launched"); len(evs) != 0 {
		t.Fatalf("a session was launched: %v", evs)
	}
}

// Same symptom (an empty turn), two causes only the agent's error log
// names: each session's fault says which, the ledger holds the fault and a
// reference, the text stays in a private artifact.
func TestSpawnClassifiesAFaultFromTheAgentErrorLog(t *testing.T) {
	logs := t.TempDir()
	doc := ""
	lines := map[string]string{
		"broke":   "2026-12-02 01:00:00 ERROR run_agent: API call failed: HTTP 402: This request requires more credits",
		"wrongid": "2026-12-02 01:00:00 ERROR run_agent: HTTP 400: openai/gpt-9 is not a valid model ID",
	}
	want := map[string]string{"broke": "insufficient_credits", "wrongid": "invalid_model"}
	for name, line := range lines {
		path := filepath.Join(logs, name+".log")
		os.WriteFile(path, []byte("2026-12-01 old line: HTTP 429 rate limit\n"), 0o600) // before the session: not about it
		doc += "[profiles." + name + "]\nadapter = \"scripted\"\nauth = \"none\"\nerror_log = \"" + path + "\"\n" +
			"options = { ping = \"empty\", error_log = \"" + path + "\", error_line = \"" + line + "\" }\n"
	}
	dir := spawnRepo(t, doc, "broke", "wrongid")
	for name := range lines {
		_, errOut, err := startSession(t, dir, "--profile", name, "--dir", dir, "--prompt", "hi")
		if exitCode(err) != 1 || !strings.Contains(errOut, want[name]) || strings.Contains(errOut, "rate_limited") {
			t.Fatalf("%s: exit %d:\n%s", name, exitCode(err), errOut)
		}
	}
	ledger := must(t, dir, "git", "agentproto", "ledger", "log", "--json")
	diag := ledgerEvents(t, dir, "session_diagnosed")
	if len(diag) != 2 {
		t.Fatalf("diagnoses: %v", diag)
	}
	seen := map[string]bool{}
	for _, e := range diag {
		id, f, ref := e["session"].(string), e["fault"].(string), e["error_log_ref"].(string)
		seen[f] = true
		if ref != "sessions/"+id+"/agent-errors.log" {
			t.Fatalf("reference %q", ref)
		}
		path := filepath.Join(dir, ".git", "agentproto", ref)
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("artifact %s: %v %v", path, fi, err)
		}
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), "old line") || !strings.Contains(string(b), "run_agent") {
			t.Fatalf("artifact holds %q", b)
		}
	}
	if !seen["insufficient_credits"] || !seen["invalid_model"] {
		t.Fatalf("faults: %v", seen)
	}
	if strings.Contains(ledger, "run_agent") || strings.Contains(ledger, "requires more credits") {
		t.Fatal("the ledger holds the error log's text")
	}
}
