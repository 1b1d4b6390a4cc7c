package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// daemonPid is the pid of the last daemon started for the repository.
func daemonPid(t *testing.T, dir string) int {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "daemon.log"))
	m := regexp.MustCompile(`\(pid (\d+)\)`).FindAllStringSubmatch(string(b), -1)
	if m == nil {
		t.Fatalf("no daemon pid in %s", b)
	}
	pid, _ := strconv.Atoi(m[len(m)-1][1])
	return pid
}

// peakRSS is the high-water mark of a process's resident memory, in KiB.
func peakRSS(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no VmHWM in %s", b)
	}
	kb, _ := strconv.Atoi(string(m[1]))
	return kb
}

// A peer that sends a huge line without a newline gets an error once the
// request bound is passed; the daemon does not grow with the line and
// serves the next client.
func TestSessionsDaemonBoundsRequestLines(t *testing.T) {
	tmp, env := privateTmp(t)
	dir := newRepo(t)
	id, errOut, err := shEnv(t, dir, env, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--dir", dir, "--prompt", "hi")
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	id = strings.TrimSpace(id)
	pid := daemonPid(t, dir)
	before := peakRSS(t, pid)
	conn, err := net.Dial("unix", socketOf(tmp, dir))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	go func() {
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for i := 0; i < 256; i++ { // 256 MiB, no newline
			if _, err := conn.Write(chunk); err != nil {
				return
			}
		}
	}()
	conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	answer, _ := bufio.NewReader(conn).ReadString('\n')
	if !strings.Contains(answer, "request refused: line too long: more than 8388608 bytes without a newline") {
		t.Fatalf("answer: %q", answer)
	}
	// The bound is 8 MiB; the reader holds it at most once more while
	// growing. Before the bound, the daemon held the whole line, twice.
	if after := peakRSS(t, pid); after-before > 48<<10 {
		t.Fatalf("the daemon grew from %d KiB to %d KiB reading one line", before, after)
	}
	if _, errOut, err := shEnv(t, dir, env, "git", "agentproto", "sessions", "wait", id, "--timeout", "20s"); err != nil {
		t.Fatalf("the daemon stopped serving: %v %s", err, errOut)
	}
}

// An agent that crashes on its first turn fails sessions start with one
// message: the session id, its state and the adapter's stderr; --json
// prints the failed session's record.
func TestSessionsStartReportsACrashOnTheFirstTurn(t *testing.T) {
	dir := newRepo(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[plugins.crashy]\npath = \""+self+"\"\n"), 0o644)
	must(t, dir, "git", "agentproto", "plugin", "trust", "crashy") // a binary named by agentproto.toml
	env := []string{"AGENTPROTO_E2E_ADAPTER=crash-on-first-prompt"}
	for _, args := range [][]string{{}, {"--no-ping"}} {
		_, errOut, err := shEnv(t, dir, env, "git", append([]string{"agentproto", "sessions", "start", "--adapter", "crashy", "--dir", dir, "--prompt", "fix it"}, args...)...)
		m := regexp.MustCompile(`session (s-[0-9a-f]{12}) failed: `).FindStringSubmatch(errOut)
		if exitCode(err) != 1 || m == nil || !strings.Contains(errOut, "adapter stderr (last lines):\n  crashy: segmentation fault on the first turn") ||
			!strings.Contains(errOut, "adapter crashy exited") || strings.Contains(errOut, "rpc error") {
			t.Fatalf("%v: exit %d, stderr:\n%s", args, exitCode(err), errOut)
		}
		if ls := sessionLs(t, dir); !strings.Contains(ls, m[1]+"  -            failed") {
			t.Fatalf("ls:\n%s", ls)
		}
		out, errOut, err := shEnv(t, dir, env, "git", append([]string{"agentproto", "sessions", "start", "--json", "--adapter", "crashy", "--dir", dir, "--prompt", "fix it"}, args...)...)
		var rec struct {
			ID, State, Failure string
			StderrTail         string `json:"stderr_tail"`
		}
		if jerr := json.Unmarshal([]byte(out), &rec); jerr != nil || exitCode(err) != 1 {
			t.Fatalf("%v --json: exit %d, %v, stdout %q, stderr %s", args, exitCode(err), jerr, out, errOut)
		}
		if rec.State != "failed" || rec.Failure == "" || rec.StderrTail != "crashy: segmentation fault on the first turn" || !strings.Contains(errOut, "session "+rec.ID+" failed") {
			t.Fatalf("%v --json: %+v\n%s", args, rec, errOut)
		}
	}
}

// sockets lists the Unix sockets under root but the daemon's own.
func pluginSockets(t *testing.T, root, daemonSock string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type()&os.ModeSocket != 0 && path != daemonSock {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// spawnedChild starts a session whose agent leaves a long-lived child and
// returns the session id and the child's pid.
func spawnedChild(t *testing.T, dir string, env []string, adapter string) (string, int) {
	t.Helper()
	// In the main checkout, a sandboxed agent writes into what exists
	// (no new entry at its top, which holds .git).
	os.MkdirAll(filepath.Join(dir, "run"), 0o755)
	os.Remove(filepath.Join(dir, "run", "child.pid"))
	id, errOut, err := shEnv(t, dir, env, "git", "agentproto", "sessions", "start", "--adapter", adapter, "--dir", dir, "--prompt",
		script(`{"op":"spawn","cmd":"echo $$ > run/child.pid; exec sleep 300"}`, `{"op":"sleep","ms":60000}`))
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	var child int
	waitFor(t, "the agent's child", func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "run", "child.pid"))
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return child > 0
	})
	t.Cleanup(func() { syscall.Kill(child, syscall.SIGKILL) })
	return strings.TrimSpace(id), child
}

func gone(pid int) bool { return syscall.Kill(pid, 0) != nil || isZombie(pid) }

// A daemon killed with -9 takes its agents with it at once: the plugin
// (parent-death signal) and every process it started (the guard kills
// the group), and their sockets go too.
func TestSessionsAgentsDieWithTheDaemon(t *testing.T) {
	tmp, env := privateTmp(t)
	dir := newRepo(t)
	id, child := spawnedChild(t, dir, env, "scripted")
	var rec struct{ Pid int }
	meta, _ := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "sessions", id, "meta.json"))
	json.Unmarshal(meta, &rec)
	if len(pluginSockets(t, tmp, socketOf(tmp, dir))) == 0 {
		t.Fatal("no plugin socket while the session runs")
	}
	syscall.Kill(daemonPid(t, dir), syscall.SIGKILL)
	waitFor(t, "the plugin to die with the daemon", func() bool { return gone(rec.Pid) })
	waitFor(t, "the agent's child to die with the daemon", func() bool { return gone(child) })
	waitFor(t, "the plugin sockets to go", func() bool { return len(pluginSockets(t, tmp, socketOf(tmp, dir))) == 0 })
	log, _ := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "daemon.log"))
	if strings.Count(string(log), "serving ") != 1 {
		t.Fatalf("another daemon ran:\n%s", log)
	}
}

// The reaper of the next daemon finds every group a dead daemon launched,
// whatever the adapter binary is called, even when the guard died too.
// A sandboxed session needs neither (its launcher ends the tree when the
// daemon dies, TestSandboxedTreeEndsWithADaemonKilledWithItsGuard): the
// reaper is the net of unconfined ones, so the sandbox is off here.
func TestSessionsReaperKillsGroupsOfAnyAdapter(t *testing.T) {
	_, env := privateTmp(t)
	dir := newRepo(t)
	b, err := os.ReadFile(filepath.Join(binDir, "agentproto-adapter-scripted"))
	if err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(t.TempDir(), "odd-agent")
	os.WriteFile(odd, b, 0o755)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[sandbox]\nmode = \"off\"\n[plugins.odd]\npath = \""+odd+"\"\n"), 0o644)
	must(t, dir, "git", "agentproto", "plugin", "trust", "odd") // a binary named by agentproto.toml
	_, child := spawnedChild(t, dir, env, "odd")
	log, _ := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "daemon.log"))
	// The guard goes first, so that only the reaper can end the child.
	if m := regexp.MustCompile(`sessions guard pid (\d+)`).FindSubmatch(log); m != nil {
		guard, _ := strconv.Atoi(string(m[1]))
		syscall.Kill(guard, syscall.SIGKILL)
		waitFor(t, "the guard to die", func() bool { return gone(guard) })
	}
	syscall.Kill(daemonPid(t, dir), syscall.SIGKILL)
	time.Sleep(300 * time.Millisecond)
	if gone(child) {
		t.Fatal("the child died without guard or reaper; this test shows nothing")
	}
	if _, errOut, err := shEnv(t, dir, env, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--dir", dir, "--prompt", "hi"); err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	waitFor(t, "the next daemon to reap the child", func() bool { return gone(child) })
	log, _ = os.ReadFile(filepath.Join(dir, ".git", "agentproto", "daemon.log"))
	if !strings.Contains(string(log), "reaper: killed process group") {
		t.Fatalf("daemon.log:\n%s", log)
	}
}

// Killing a session removes its plugin's socket: none is left in the
// temp dir or the runtime dir.
func TestSessionsKillLeavesNoPluginSockets(t *testing.T) {
	tmp, env := privateTmp(t)
	dir := newRepo(t)
	for i := 0; i < 2; i++ {
		id, errOut, err := shEnv(t, dir, env, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--dir", dir, "--prompt", script(`{"op":"sleep","ms":60000}`))
		if err != nil {
			t.Fatalf("start: %v %s", err, errOut)
		}
		if _, errOut, err := shEnv(t, dir, env, "git", "agentproto", "sessions", "kill", strings.TrimSpace(id)); err != nil {
			t.Fatalf("kill: %v %s", err, errOut)
		}
	}
	if left := pluginSockets(t, tmp, socketOf(tmp, dir)); len(left) > 0 {
		t.Fatalf("sockets left behind: %v", left)
	}
}

// A prompt file must be a regular file of bounded size: /dev/zero would
// grow the command without end and a FIFO would block it for ever.
func TestSessionsPromptFileMustBeARegularFile(t *testing.T) {
	dir := newRepo(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A reader left blocked on the FIFO (the bug) is let go at the end.
	defer func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}()
	big := filepath.Join(t.TempDir(), "big.prompt")
	os.WriteFile(big, bytes.Repeat([]byte("p"), 5<<20), 0o644)
	for file, want := range map[string]string{
		"/dev/zero": "is not a regular file (Dc---------)",
		fifo:        "is not a regular file (p---------)",
		big:         "is larger than 4 MiB",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--dir", dir, "--prompt-file", file)
		cmd.Dir, cmd.Env = dir, gitEnv(homeOf(t))
		cmd.WaitDelay = 2 * time.Second // git-agentproto under git may hold the pipes
		out, err := cmd.CombinedOutput()
		cancel()
		if exitCode(err) != 2 || !strings.Contains(string(out), want) {
			t.Errorf("%s: exit %d: %s", file, exitCode(err), out)
		}
	}
	if ls := sessionLs(t, dir); strings.TrimSpace(ls) != "" {
		t.Fatalf("sessions were started:\n%s", ls)
	}
}
