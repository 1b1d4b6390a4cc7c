package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentproto/agentproto/sessions"
)

// savedRecord reads a session's record as the daemon saved it.
func savedRecord(t *testing.T, dir, id string) sessions.Record {
	t.Helper()
	var r sessions.Record
	b, err := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "sessions", id, "meta.json"))
	if err == nil {
		err = json.Unmarshal(b, &r)
	}
	if err != nil {
		t.Fatalf("session %s: %v", id, err)
	}
	return r
}

// waitRecord polls a session's record until ok holds, for at most 15 s.
func waitRecord(t *testing.T, dir, id string, ok func(sessions.Record) bool) sessions.Record {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r := savedRecord(t, dir, id)
		if ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s: still %+v", id, r)
		}
	}
}

// releaseRepo is a repository whose sessions let their idle adapters go
// after 300 ms, with a directory of the main checkout agents may write.
func releaseRepo(t *testing.T) string {
	dir := newRepo(t)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[sessions]\nrelease_after = \"300ms\"\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "run"), 0o755)
	return dir
}

// A settled session whose adapter can resume it lets the adapter process
// go; its next prompt starts a new one that goes on with the session: the
// same record, turn 2, its output appended, no exit or failure recorded.
func TestSettledSessionLetsItsAdapterGoAndGoesOn(t *testing.T) {
	dir := releaseRepo(t)
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt",
		script(`{"op":"write","path":"run/one.txt","content":"1\n"}`, `{"op":"say","text":"turn one done"}`))
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "30s")
	first := savedRecord(t, dir, id).Pid
	if first == 0 {
		t.Fatal("no adapter pid in the record")
	}
	r := waitRecord(t, dir, id, func(r sessions.Record) bool { return r.Released })
	if r.State != sessions.StateSettled || r.Pid != 0 {
		t.Fatalf("released: state %s, pid %d", r.State, r.Pid)
	}
	waitGone(t, first)
	if ls := sessionLs(t, dir); !strings.Contains(ls, "settled   scripted") || !strings.Contains(ls, "  released  ") {
		t.Fatalf("sessions ls of a released session:\n%s", ls)
	}
	must(t, dir, "git", "agentproto", "sessions", "prompt", id, "--text",
		script(`{"op":"write","path":"run/two.txt","content":"2\n"}`, `{"op":"say","text":"turn two done"}`))
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "30s")
	if _, err := os.Stat(filepath.Join(dir, "run", "two.txt")); err != nil {
		t.Fatalf("the second turn did not run: %v", err)
	}
	r = savedRecord(t, dir, id)
	if r.State != sessions.StateSettled || r.Turns != 3 { // the ping, then two prompts
		t.Fatalf("after the second prompt: state %s, turns %d", r.State, r.Turns)
	}
	out := must(t, dir, "git", "agentproto", "sessions", "output", id)
	if !strings.Contains(out, "turn one done") || !strings.Contains(out, "turn two done") {
		t.Fatalf("output:\n%s", out)
	}
	for _, kind := range []string{"session_exited", "session_failed"} {
		if ev := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", kind, "--json"); strings.Contains(ev, id) {
			t.Fatalf("%s recorded for a session that only let its adapter go: %s", kind, ev)
		}
	}
	// Let go again, then killed while it has no process: cleaned.
	r = waitRecord(t, dir, id, func(r sessions.Record) bool { return r.Released })
	must(t, dir, "git", "agentproto", "sessions", "kill", id)
	if s := savedRecord(t, dir, id).State; s != sessions.StateCleaned {
		t.Fatalf("killed while released: %s", s)
	}
}

// An adapter with a process still running below it keeps it: the agent
// left a server for its next turn, and letting the adapter go would end it.
func TestSessionWithAProcessLeftRunningKeepsItsAdapter(t *testing.T) {
	dir := releaseRepo(t)
	defer killAll("sleep 3023")
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt",
		script(`{"op":"run","cmd":"setsid sleep 3023 >/dev/null 2>&1 < /dev/null &"}`, `{"op":"say","text":"server up"}`))
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "30s")
	time.Sleep(1500 * time.Millisecond) // five times release_after
	if r := savedRecord(t, dir, id); r.Released || r.Pid == 0 {
		t.Fatalf("the adapter was let go with a process below it: %+v", r)
	}
	if pgrep("sleep 3023") == "" {
		t.Fatal("the process the agent left running is gone")
	}
	must(t, dir, "git", "agentproto", "sessions", "kill", id)
	for i := 0; i < 100 && pgrep("sleep 3023") != ""; i++ {
		time.Sleep(30 * time.Millisecond)
	}
	if left := pgrep("sleep 3023"); left != "" {
		t.Fatalf("the process outlived its session: %s", left)
	}
}

// waitGone waits for a process to end, for at most 10 s.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if syscall.Kill(pid, 0) != nil || isZombie(pid) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("process %d still runs", pid)
}

// A daemon that cannot start says why, in the command's own error: here
// git-agentproto and the adapters are installed without
// agentproto-sessions beside them or on PATH.
func TestMissingSessionsBinaryIsNamed(t *testing.T) {
	dir := newRepo(t)
	env := installedWithout(t, "agentproto-sessions")
	cmd := exec.Command("git", "agentproto", "sessions", "start", "--adapter", "scripted", "--no-ping", "--dir", dir, "--prompt", "hi")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "agentproto-sessions is not installed beside git-agentproto nor on PATH") {
		t.Fatalf("sessions start without the daemon binary: %v\n%s", err, out)
	}
}

// installedWithout is the environment of an installation of every built
// program but name: they alone on PATH, in a directory of their own.
func installedWithout(t *testing.T, name string) []string {
	t.Helper()
	lone := t.TempDir()
	built, _ := os.ReadDir(binDir)
	for _, e := range built {
		if e.Name() != name {
			copyExecutable(t, filepath.Join(binDir, e.Name()), filepath.Join(lone, e.Name()))
		}
	}
	env := []string{"PATH=" + lone + ":/usr/bin:/bin"}
	for _, kv := range gitEnv(homeOf(t)) {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return env
}
