package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A work package whose agent never comes up — a real Node.js process that,
// as an agent needing a newer Node does, says so and never answers ACP
// initialize — stops dispatch with adapter_start_timeout and the likely
// cause: the agent on this machine is at fault, not its provider, so the
// fallback profile is not tried (an empty turn, "the usual sign of a dead
// provider", moved it there before).
func TestDispatchDoesNotFallBackForAnAgentThatNeverStarts(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node on PATH")
	}
	if err := acpAdapter(); err != nil {
		t.Fatal(err)
	}
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	cfg := `[dispatch]
fallback = ["stuck", "good"]
[profiles.stuck]
adapter = "acp"
auth = "subscription"
options = { command = "node -e 'console.error(\"this agent needs Node.js >= 99, not \" + process.version); setInterval(() => {}, 1000)'", start_timeout = "2s" }
[profiles.good]
adapter = "scripted"
auth = "none"
`
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(cfg), 0o644)
	must(t, dir, "git", "agentproto", "profile", "trust", "stuck")
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	if err == nil {
		t.Fatalf("dispatch went on:\n%s%s", out, errOut)
	}
	all := out + errOut
	for _, want := range []string{"could not start its agent (adapter_start_timeout)", "did not finish starting within 2s (it hung in initialize)",
		"a Node.js older than the agent needs", "this agent needs Node.js >= 99", "no fallback profile is tried"} {
		if !strings.Contains(all, want) {
			t.Errorf("dispatch's output lacks %q", want)
		}
	}
	if strings.Contains(all, "empty_turn") || strings.Contains(all, "dead provider") {
		t.Errorf("the agent's failure to start was taken for a dead provider")
	}
	if trail := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "wp_fallback", "--json"); strings.Contains(trail, "wp_fallback") {
		t.Errorf("a fallback was recorded: %s", trail)
	}
	if t.Failed() {
		t.Fatal(all)
	}
}
