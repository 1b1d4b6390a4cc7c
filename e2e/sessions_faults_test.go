package e2e

import (
	"bufio"
	"bytes"
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
