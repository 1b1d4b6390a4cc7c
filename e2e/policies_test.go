package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// waitFor polls the disk (never the CLI: no client may be connected while a
// policy fires) until cond holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 300; i++ {
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func sessionState(dir, id string) string {
	b, _ := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "sessions", id, "meta.json"))
	if i := strings.Index(string(b), `"state": "`); i >= 0 {
		rest := string(b)[i+10:]
		return rest[:strings.IndexByte(rest, '"')]
	}
	return ""
}

func TestPoliciesFireWithoutAClient(t *testing.T) {
	dir := newRepo(t)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[policies]\nnotify = \"echo $AGENTPROTO_EVENT $AGENTPROTO_SESSION >> notified.txt\"\n"), 0o644)
	slow := script(`{"op":"sleep","ms":700}`, `{"op":"say","text":"done"}`)
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt", slow)
	if err != nil {
		t.Fatal(errOut)
	}
	pol := strings.TrimSpace(must(t, dir, "git", "agentproto", "policy", "attach", id, "--on", "turn-end", "--do", "notify,kill"))
	if !strings.HasPrefix(pol, "p-") {
		t.Fatalf("policy id %q", pol)
	}
	// No command runs now; the daemon fires on its own.
	waitFor(t, "the turn-end policy", func() bool { return sessionState(dir, id) == "cleaned" })
	b, _ := os.ReadFile(filepath.Join(dir, "notified.txt"))
	if strings.TrimSpace(string(b)) != "turn-end "+id {
		t.Fatalf("notify ran with %q", b)
	}
	must(t, dir, "git", "agentproto", "policy", "wait", pol, "--timeout", "5s")
	log := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "policy_fired", "--json")
	if !strings.Contains(log, `"actions":[{"action":"notify","ok":true`) || !strings.Contains(log, `{"action":"kill","ok":true,"session":"`+id+`"}`) {
		t.Fatalf("policy_fired: %s", log)
	}

	// idle:DURATION fires on a quiet session.
	id2, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt", "hello")
	if err != nil {
		t.Fatal(errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", id2, "--timeout", "20s")
	pol2 := strings.TrimSpace(must(t, dir, "git", "agentproto", "policy", "attach", id2, "--on", "idle:1s", "--do", "kill"))
	waitFor(t, "the idle policy", func() bool { return sessionState(dir, id2) == "cleaned" })
	if out := must(t, dir, "git", "agentproto", "policy", "ls"); !strings.Contains(out, pol2+"  active   on idle:1s") || !strings.Contains(out, "kill ok=true") {
		t.Fatalf("policy ls: %s", out)
	}

	// A policy that does not fire in time: exit 4.
	id3, _, _ := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt", "again")
	pol3 := strings.TrimSpace(must(t, dir, "git", "agentproto", "policy", "attach", id3, "--on", "idle:1h", "--do", "kill"))
	_, errOut, err = sh(t, dir, nil, "git", "agentproto", "policy", "wait", pol3, "--timeout", "300ms")
	if exitCode(err) != 4 || !strings.Contains(errOut, "not fired yet: "+pol3) {
		t.Fatalf("policy wait: %v %s", err, errOut)
	}
	must(t, dir, "git", "agentproto", "policy", "cancel", pol3)
	// Bad input.
	_, errOut, err = sh(t, dir, nil, "git", "agentproto", "policy", "attach", id3, "--on", "idle:5", "--do", "kill")
	if exitCode(err) != 2 || !strings.Contains(errOut, "needs a duration with a unit") {
		t.Fatalf("idle without unit: %s", errOut)
	}
	_, errOut, err = sh(t, dir, nil, "git", "agentproto", "policy", "attach", id3, "--do", "explode")
	if exitCode(err) != 2 || !strings.Contains(errOut, `unknown action "explode"`) {
		t.Fatalf("unknown action: %s", errOut)
	}
}

func TestMonitorReturnsOnChange(t *testing.T) {
	dir := newRepo(t)
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt", script(`{"op":"sleep","ms":600}`, `{"op":"say","text":"x"}`))
	if err != nil {
		t.Fatal(errOut)
	}
	out := must(t, dir, "git", "agentproto", "sessions", "monitor", id, "--for", "30s")
	if !strings.HasPrefix(out, id+" settled turns=2") {
		t.Fatalf("monitor: %q", out)
	}
	// Nothing changes: it returns when the time is up, state unchanged.
	out = must(t, dir, "git", "agentproto", "sessions", "monitor", id, "--for", "200ms")
	if !strings.HasPrefix(out, id+" settled turns=2") {
		t.Fatalf("idle monitor: %q", out)
	}
}

// dispatch --no-wait leaves the rest to the default policy: verify on
// turn-end, kill once verified.
func TestDispatchNoWaitUsesTheDefaultPolicy(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	out := must(t, dir, "git", "agentproto", "dispatch", "demo", "--no-wait")
	if !strings.Contains(out, "verifies each on turn-end and kills it once verified") {
		t.Fatalf("dispatch: %s", out)
	}
	id := sessionOf(t, dir, "demo/WP0")
	for i := 0; i < 100 && sessionState(dir, id) != "cleaned"; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if sessionState(dir, id) != "cleaned" {
		t.Fatalf("not cleaned: %s\n%s", must(t, dir, "git", "agentproto", "policy", "ls"), must(t, dir, "git", "agentproto", "sessions", "ls", "--all"))
	}
	v := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "wp_verified", "--json")
	if !strings.Contains(v, `"verdict":"pass"`) || !strings.Contains(v, `"wp":"WP0"`) {
		t.Fatalf("wp_verified: %s", v)
	}
	runSettled(t, dir, 3) // the daemon's run goes on to WP1 and WP2
}

// A policy can give a settled session its next prompt from a file, and
// output --clean strips terminal escapes.
func TestPromptFilePolicyAndCleanOutput(t *testing.T) {
	dir := newRepo(t)
	next := filepath.Join(t.TempDir(), "next.prompt")
	os.WriteFile(next, []byte(script(`{"op":"say","text":"\u001b[31mred\u001b[0m second turn"}`)), 0o644)
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt", script(`{"op":"sleep","ms":400}`, `{"op":"say","text":"first"}`))
	if err != nil {
		t.Fatal(errOut)
	}
	pol := strings.TrimSpace(must(t, dir, "git", "agentproto", "policy", "attach", id, "--on", "turn-end", "--do", "prompt-file:"+next))
	must(t, dir, "git", "agentproto", "policy", "wait", pol, "--timeout", "20s")
	must(t, dir, "git", "agentproto", "policy", "cancel", pol)
	waitFor(t, "the second turn", func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "sessions", id, "output.log"))
		return strings.Contains(string(b), "second turn")
	})
	raw := must(t, dir, "git", "agentproto", "sessions", "output", id, "--last", "1")
	clean := must(t, dir, "git", "agentproto", "sessions", "output", id, "--last", "1", "--clean")
	if !strings.Contains(raw, "\x1b[31m") || clean != "red second turn\n" {
		t.Fatalf("raw %q, clean %q", raw, clean)
	}
}

// The daemon stops by itself when idle, and comes back on demand.
func TestDaemonStopsWhenIdle(t *testing.T) {
	dir := newRepo(t)
	cmd := []string{"AGENTPROTO_DAEMON_IDLE=1s", "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--dir", dir, "--prompt", "hi"}
	out, errOut, err := sh(t, dir, nil, "env", cmd...)
	if err != nil {
		t.Fatal(errOut)
	}
	id := strings.TrimSpace(out)
	must(t, dir, "git", "agentproto", "sessions", "kill", id)
	log := filepath.Join(dir, ".git", "agentproto", "daemon.log")
	waitFor(t, "the daemon to stop", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "stopping")
	})
	if out := must(t, dir, "git", "agentproto", "sessions", "gc"); !strings.Contains(out, "no sessions daemon runs") {
		t.Fatalf("gc: %s", out)
	}
	out, errOut, err = sh(t, dir, nil, "env", cmd...)
	if err != nil || !strings.HasPrefix(out, "s-") {
		t.Fatalf("restart on demand: %v %s", err, errOut)
	}
	// Let the second daemon stop too before the test's directory goes.
	must(t, dir, "git", "agentproto", "sessions", "kill", strings.TrimSpace(out))
	waitFor(t, "the second daemon to stop", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "stopping") == 2
	})
}

// The daemon reads [sessions] idle_exit from the repository's config.
func TestDaemonReadsIdleExitFromConfig(t *testing.T) {
	dir := newRepo(t)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[sessions]\nidle_exit = \"1s\"\n"), 0o644)
	// The environment's 5s would otherwise apply; the test clears it.
	out, errOut, err := sh(t, dir, nil, "env", "-u", "AGENTPROTO_DAEMON_IDLE", "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--dir", dir, "--prompt", "hi")
	if err != nil {
		t.Fatal(errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "kill", strings.TrimSpace(out))
	log := filepath.Join(dir, ".git", "agentproto", "daemon.log")
	waitFor(t, "the daemon to stop after 1s", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "idle for 1s; stopping")
	})
}

// [policies] notify from a tracked agentproto.toml is a command the daemon
// runs: like a hook, it runs only once trusted, and again after a change.
func TestCommittedNotifyNeedsTrust(t *testing.T) {
	dir := newRepo(t)
	os.WriteFile(filepath.Join(dir, "notify.sh"), []byte("echo notified >> notified.txt\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[policies]\nnotify = \"sh notify.sh\"\n"), 0o644)
	must(t, dir, "git", "add", "agentproto.toml", "notify.sh")
	must(t, dir, "git", "commit", "-q", "-m", "notify")
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt", script(`{"op":"sleep","ms":300}`, `{"op":"say","text":"done"}`))
	if err != nil {
		t.Fatal(errOut)
	}
	_, errOut, err = sh(t, dir, nil, "git", "agentproto", "policy", "attach", id, "--on", "turn-end", "--do", "notify")
	if exitCode(err) != 5 || !strings.Contains(errOut, "not trusted") || !strings.Contains(errOut, "git agentproto policy trust") {
		t.Fatalf("untrusted notify: exit %d\n%s", exitCode(err), errOut)
	}
	if out := must(t, dir, "git", "agentproto", "policy", "ls"); strings.Contains(out, "notify") {
		t.Fatalf("a refused policy was attached: %s", out)
	}
	must(t, dir, "git", "agentproto", "policy", "trust")
	pol := strings.TrimSpace(must(t, dir, "git", "agentproto", "policy", "attach", id, "--on", "turn-end", "--do", "notify"))
	must(t, dir, "git", "agentproto", "policy", "wait", pol, "--timeout", "20s")
	if b, _ := os.ReadFile(filepath.Join(dir, "notified.txt")); strings.TrimSpace(string(b)) != "notified" {
		t.Fatalf("trusted notify did not run: %q", b)
	}
	must(t, dir, "git", "agentproto", "policy", "cancel", pol)
	// The script it names changes: refused again.
	os.WriteFile(filepath.Join(dir, "notify.sh"), []byte("echo changed >> notified.txt\n"), 0o755)
	_, errOut, err = sh(t, dir, nil, "git", "agentproto", "policy", "attach", id, "--on", "turn-end", "--do", "notify")
	if exitCode(err) != 5 || !strings.Contains(errOut, "notify.sh") {
		t.Fatalf("changed script: exit %d\n%s", exitCode(err), errOut)
	}
}
