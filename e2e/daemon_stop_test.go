package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentproto/agentproto/internal/testbin"
)

// A daemon that stops ends the commands its policies run and waits for
// them, recording the firing: none is left to write into the repository,
// or to start another daemon, once the daemon is gone.
func TestStoppingTheDaemonEndsItsPolicyActions(t *testing.T) {
	dir := newRepo(t)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[policies]\nnotify = \"echo $$ > action.pid; exec sleep 120\"\n"), 0o644)
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--dir", dir, "--prompt", "hello")
	if err != nil {
		t.Fatal(errOut)
	}
	must(t, dir, "git", "agentproto", "policy", "attach", id, "--on", "turn-end", "--do", "notify")
	pidFile := filepath.Join(dir, "action.pid")
	waitFor(t, "the notify action to run", func() bool {
		b, _ := os.ReadFile(pidFile)
		return strings.HasSuffix(string(b), "\n")
	})
	b, _ := os.ReadFile(pidFile)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("action.pid: %q", b)
	}
	if err := testbin.StopDaemon(dir); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the notify action (pid %d) still runs after the daemon stopped", pid)
	}
	log := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "policy_fired", "--json")
	if !strings.Contains(log, `{"action":"notify","detail":"signal: terminated","ok":false`) {
		t.Fatalf("the ended action's firing is not recorded as failed: %s", log)
	}
}
