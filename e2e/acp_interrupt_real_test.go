package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/fakemodel"
)

// The real claude-agent-acp answers the prompt sent with an interrupt
// with an empty turn, though its provider answered it (measured with
// 0.23.1: the request for "go on" is served, the turn ends with nothing).
// That is the agent's doing: the session records an empty_after_interrupt
// warning, not the empty_turn fault of a dead provider that would move a
// work package to its fallback profile.
func TestRealACPEmptyTurnAfterAnInterruptIsNoFault(t *testing.T) {
	bins := os.Getenv("AGENTPROTO_REAL_AGENTS")
	if bins == "" {
		t.Skip("the real ACP agents are not installed: run make test-agents")
	}
	if err := acpAdapter(); err != nil {
		t.Fatal(err)
	}
	const model = "claude-sonnet-4-5-20250929"
	dir := newRepo(t)
	home := homeOf(t)
	api := fakemodel.New(t)
	api.SetModels(model)
	writeConfig(t, filepath.Join(home, ".claude", "settings.json"), api.ClaudeSettings(1))
	// As root (CI) claude refuses to start unless told it is sandboxed.
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(fmt.Sprintf(`[profiles.acp]
adapter = "acp"
model = %q
auth = "api-key"
key_env = "ANTHROPIC_API_KEY"
options = { command = %q }
`, model, "env IS_SANDBOX=1 "+filepath.Join(bins, "claude-agent-acp"))), 0o644)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"agentproto"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(gitEnv(home), "ANTHROPIC_API_KEY="+fakemodel.Key)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	api.Script(fakemodel.Text("READY"), fakemodel.Text("first answer"))
	id := run("sessions", "start", "--profile", "acp", "--dir", dir, "--prompt", "first")
	run("sessions", "wait", id, "--timeout", "2m")
	api.Script(fakemodel.Reply{Text: strings.Repeat("slow ", 200), Delay: 200 * time.Millisecond}, fakemodel.Text("after the interrupt"))
	n := len(api.Requests())
	run("sessions", "prompt", id, "--text", "take your time")
	if !api.WaitRequests(n+1, time.Minute) {
		t.Fatal("the slow turn never reached the provider")
	}
	time.Sleep(500 * time.Millisecond) // into the stream
	run("sessions", "prompt", id, "--interrupt", "--text", "go on")
	run("sessions", "wait", id, "--timeout", "2m")
	m := meta(t, dir, id)
	if strings.Contains(outputLog(dir, id), "after the interrupt") {
		t.Fatalf("claude-agent-acp answered the turn after the interrupt: the test no longer plays the case\n%+v", m)
	}
	answered := false
	for _, r := range api.Requests() {
		answered = answered || (r.Prompt == "go on" && r.Answered == "reply")
	}
	if !answered || len(m.Faults) != 0 || m.State != "settled" || !hasPrefix(m.Warnings, "interrupted: ") || !hasPrefix(m.Warnings, "empty_after_interrupt: turn 4 ") {
		t.Fatalf("provider answered %v; after the interrupt: %+v\n%s", answered, m, outputLog(dir, id))
	}
}
