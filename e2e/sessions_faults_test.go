package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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
	crash := script(`{"op":"crash"}`)
	for _, args := range [][]string{{}, {"--no-ping"}} {
		_, errOut, err := startSession(t, dir, append(args, "--adapter", "scripted", "--dir", dir, "--prompt", crash)...)
		m := regexp.MustCompile(`session (s-[0-9a-f]{12}) failed: `).FindStringSubmatch(errOut)
		if exitCode(err) != 1 || m == nil || !strings.Contains(errOut, "adapter stderr (last lines):\n  scripted: crashing on purpose") ||
			!strings.Contains(errOut, "adapter scripted exited") || strings.Contains(errOut, "rpc error") {
			t.Fatalf("%v: exit %d, stderr:\n%s", args, exitCode(err), errOut)
		}
		if ls := sessionLs(t, dir); !strings.Contains(ls, m[1]+"  -            failed") {
			t.Fatalf("ls:\n%s", ls)
		}
		out, errOut, err := startSession(t, dir, append(args, "--json", "--adapter", "scripted", "--dir", dir, "--prompt", crash)...)
		var rec struct {
			ID, State, Failure string
			StderrTail         string `json:"stderr_tail"`
		}
		if jerr := json.Unmarshal([]byte(out), &rec); jerr != nil || exitCode(err) != 1 {
			t.Fatalf("%v --json: exit %d, %v, stdout %q, stderr %s", args, exitCode(err), jerr, out, errOut)
		}
		if rec.State != "failed" || rec.Failure == "" || rec.StderrTail != "scripted: crashing on purpose" || !strings.Contains(errOut, "session "+rec.ID+" failed") {
			t.Fatalf("%v --json: %+v\n%s", args, rec, errOut)
		}
	}
}
