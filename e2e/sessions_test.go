package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func startSession(t *testing.T, dir string, args ...string) (string, string, error) {
	t.Helper()
	out, errOut, err := sh(t, dir, nil, "git", append([]string{"agentproto", "sessions", "start"}, args...)...)
	return strings.TrimSpace(out), errOut, err
}

func script(lines ...string) string {
	return "```agentproto-script\n" + strings.Join(lines, "\n") + "\n```"
}

func sessionLs(t *testing.T, dir string) string {
	return must(t, dir, "git", "agentproto", "sessions", "ls", "--all")
}

// A crashing adapter fails its session with the reason and the stderr tail;
// the daemon survives and runs the next session.
func TestCrashingAdapterFailsTheSessionNotTheDaemon(t *testing.T) {
	dir := newRepo(t)
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt",
		script(`{"op":"say","text":"going down"}`, `{"op":"sleep","ms":300}`, `{"op":"crash"}`))
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	sh(t, dir, nil, "git", "agentproto", "sessions", "wait", id, "--until", "exit", "--timeout", "20s")
	ls := sessionLs(t, dir)
	if !strings.Contains(ls, id+"  -            failed") || !strings.Contains(ls, "the adapter stopped answering") {
		t.Fatalf("ls:\n%s", ls)
	}
	meta, _ := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "sessions", id, "meta.json"))
	if !strings.Contains(string(meta), "crashing on purpose") {
		t.Fatalf("no stderr tail in %s", meta)
	}
	ev := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "session_failed", "--json")
	if !strings.Contains(ev, `"stderr_tail":"scripted: crashing on purpose"`) {
		t.Fatalf("ledger: %s", ev)
	}
	id2, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt", "still alive?")
	if err != nil {
		t.Fatalf("the daemon did not survive: %v %s", err, errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", id2, "--timeout", "20s")
}

// An adapter that hangs (ignores terminate) is killed with its whole
// process group: the child it spawned does not survive.
func TestKillingAHungSessionLeavesNoOrphans(t *testing.T) {
	dir := newRepo(t)
	os.Mkdir(filepath.Join(dir, "run"), 0o755) // no new entry at the top of the main checkout
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt",
		script(`{"op":"spawn","cmd":"echo $$ > run/child.pid; exec sleep 300"}`, `{"op":"sleep","ms":200}`, `{"op":"hang"}`))
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	var child int
	for i := 0; i < 100 && child == 0; i++ {
		time.Sleep(50 * time.Millisecond)
		b, _ := os.ReadFile(filepath.Join(dir, "run", "child.pid"))
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if child == 0 || syscall.Kill(child, 0) != nil {
		t.Fatal("the spawned child is not running")
	}
	must(t, dir, "git", "agentproto", "sessions", "kill", id)
	for i := 0; i < 100 && syscall.Kill(child, 0) == nil; i++ {
		time.Sleep(30 * time.Millisecond)
	}
	if syscall.Kill(child, 0) == nil {
		// A zombie would still answer; check its state.
		stat, _ := os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat")
		if !strings.Contains(string(stat), ") Z ") {
			t.Fatalf("child %d survived the kill: %s", child, stat)
		}
	}
	if !strings.Contains(sessionLs(t, dir), id+"  -            cleaned") {
		t.Fatalf("ls: %s", sessionLs(t, dir))
	}
}

// Adapters that print garbage or exit before the handshake fail the session
// with a clear reason and the stderr tail; nothing is left running.
func TestAdaptersFailingTheHandshake(t *testing.T) {
	dir := newRepo(t)
	os.WriteFile(filepath.Join(dir, "garbage.sh"), []byte("#!/bin/sh\necho 'this is not a handshake'\nsleep 1\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "early.sh"), []byte("#!/bin/sh\necho 'no API key configured' >&2\nexit 3\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[plugins.garbage]\npath = \"garbage.sh\"\n[plugins.early]\npath = \"early.sh\"\n"), 0o644)
	for name, want := range map[string]string{"garbage": "failed to start", "early": "no API key configured"} {
		must(t, dir, "git", "agentproto", "plugin", "trust", name) // binaries named by agentproto.toml
		_, errOut, err := startSession(t, dir, "--adapter", name, "--dir", dir, "--prompt", "hi")
		if err == nil || !strings.Contains(errOut, want) {
			t.Errorf("%s: err=%v stderr=%s", name, err, errOut)
		}
	}
	ls := must(t, dir, "git", "agentproto", "sessions", "ls", "--json")
	if strings.Count(ls, `"state":"failed"`) != 2 || !strings.Contains(ls, "Unrecognized remote plugin message: this is not a handshake") {
		t.Fatalf("ls:\n%s", ls)
	}
}

// A pinned checksum that no longer matches refuses the session (exit 5).
func TestChangedPinnedAdapterIsRefused(t *testing.T) {
	dir := newRepo(t)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[plugins.scripted]\nsha256 = \""+strings.Repeat("ab", 32)+"\"\n"), 0o644)
	_, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt", "hi")
	if code := exitCode(err); code != 5 || !strings.Contains(errOut, "is pinned") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), nil, 0o644)
	must(t, dir, "git", "agentproto", "plugin", "pin", "scripted")
	cfg, _ := os.ReadFile(filepath.Join(dir, "agentproto.toml"))
	if !strings.Contains(string(cfg), "[plugins.scripted]\nsha256 = \"") {
		t.Fatalf("pin wrote:\n%s", cfg)
	}
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt", "pinned and fine")
	if err != nil {
		t.Fatalf("pinned start: %v %s", err, errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "20s")
	out := must(t, dir, "git", "agentproto", "plugin", "ls")
	if !strings.Contains(out, "scripted       ok") {
		t.Fatalf("plugin ls: %s", out)
	}
	out = must(t, dir, "git", "agentproto", "plugin", "describe", "scripted", "--json")
	if !strings.Contains(out, `"capabilities":["session_message_injection","session_interrupt","session_resume","session_state_fork","workspace_state_transfer","session_termination"]`) {
		t.Fatalf("describe: %s", out)
	}
}

// output --follow prints as the session writes and returns when it ends.
func TestOutputFollow(t *testing.T) {
	dir := newRepo(t)
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt",
		script(`{"op":"say","text":"one"}`, `{"op":"sleep","ms":500}`, `{"op":"say","text":"two"}`, `{"op":"exit","code":0}`))
	if err != nil {
		t.Fatal(errOut)
	}
	out := must(t, dir, "git", "agentproto", "sessions", "output", id, "--follow")
	if !strings.Contains(out, "one\n") || !strings.Contains(out, "two\n") {
		t.Fatalf("follow printed %q", out)
	}
}

// A daemon killed with -9 takes its plugins with it; their records stay
// live (orphaned) until the next daemon marks them failed, once.
func TestDaemonKilledThenRecovered(t *testing.T) {
	dir := newRepo(t)
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt", script(`{"op":"sleep","ms":60000}`))
	if err != nil {
		t.Fatal(errOut)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "daemon.log"))
	m := regexp.MustCompile(`\(pid (\d+)\)`).FindStringSubmatch(string(b))
	if m == nil {
		t.Fatalf("no daemon pid in %s", b)
	}
	daemon, _ := strconv.Atoi(m[1])
	syscall.Kill(daemon, syscall.SIGKILL)
	waitFor(t, "the daemon to die", func() bool { return syscall.Kill(daemon, 0) != nil })
	out := must(t, dir, "git", "agentproto", "sessions", "ls")
	if !strings.Contains(out, id+"  -            orphaned") {
		t.Fatalf("ls without a daemon: %s", out)
	}
	var rec struct{ Pid int }
	meta, _ := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "sessions", id, "meta.json"))
	json.Unmarshal(meta, &rec)
	if rec.Pid == 0 {
		t.Fatalf("no plugin pid in %s", meta)
	}
	waitFor(t, "the plugin to die with its daemon", func() bool { return syscall.Kill(rec.Pid, 0) != nil || isZombie(rec.Pid) })
	// Any daemon command starts a new daemon, which recovers the orphan.
	id2, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt", "hi")
	if err != nil {
		t.Fatal(errOut)
	}
	out = must(t, dir, "git", "agentproto", "sessions", "ls", "--all")
	if !strings.Contains(out, id+"  -            failed") || !strings.Contains(out, "the sessions daemon stopped while the session was live") {
		t.Fatalf("after recovery: %s", out)
	}
	ev := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "session_failed", "--json")
	if strings.Count(ev, `"session":"`+id+`"`) != 1 || !strings.Contains(ev, "the sessions daemon stopped while the session was live") {
		t.Fatalf("the orphan's end should be in the ledger once: %s", ev)
	}
	must(t, dir, "git", "agentproto", "sessions", "kill", id2)
}

func isZombie(pid int) bool {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return strings.Contains(string(b), ") Z ")
}
