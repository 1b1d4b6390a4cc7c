package daemon

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

func startGroup(t *testing.T) (*exec.Cmd, *group) {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	g, err := newGroup(cmd.Process.Pid, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return cmd, g
}

func exited(cmd *exec.Cmd) bool {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}

// When the daemon's pipe closes, the guard kills the groups still open
// and only those.
func TestGuardKillsOpenGroupsWhenThePipeCloses(t *testing.T) {
	open, g1 := startGroup(t)
	closed, g2 := startGroup(t)
	r, w := io.Pipe()
	var log strings.Builder
	done := make(chan error)
	go func() { done <- Guard(r, &log) }()
	enc := json.NewEncoder(w)
	enc.Encode(guardMsg{Add: g1})
	enc.Encode(guardMsg{Add: g2})
	enc.Encode(guardMsg{Del: g2.Pgid})
	w.Write([]byte("not json\n"))
	w.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !exited(open) {
		t.Fatal("the open group survived the guard")
	}
	if syscall.Kill(closed.Process.Pid, 0) != nil {
		t.Fatal("the guard killed a group the daemon had closed")
	}
	if _, err := os.Stat(g1.Sockets); err == nil {
		t.Fatal("the open group's socket directory is left")
	}
	if _, err := os.Stat(g2.Sockets); err != nil {
		t.Fatal("the guard removed a closed group's socket directory")
	}
	if !strings.Contains(log.String(), "killed process group") {
		t.Fatalf("log: %q", log.String())
	}
}
