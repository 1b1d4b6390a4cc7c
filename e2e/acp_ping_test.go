package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/fakemodel"
)

// The real codex-acp with a model whose metadata codex does not know
// prints its warning ("... can degrade performance and cause issues.")
// and the ping's answer runs into it: "...cause issues.READY". The ping
// still passes — the answer is the output's last word, after a sentence —
// and the session takes its first prompt.
func TestRealACPPingAfterTheUnknownModelWarning(t *testing.T) {
	bins := os.Getenv("AGENTPROTO_REAL_AGENTS")
	if bins == "" {
		t.Skip("the real ACP agents are not installed: run make test-agents")
	}
	if err := acpAdapter(); err != nil {
		t.Fatal(err)
	}
	const model = "gpt-5.1-codex" // served by the fake provider, unknown to codex-acp 0.16.0
	dir := newRepo(t)
	home := homeOf(t)
	api := fakemodel.New(t)
	api.SetModels(model)
	writeConfig(t, filepath.Join(home, ".codex", "config.toml"), api.CodexConfig(model, "OPENAI_API_KEY", 1))
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(fmt.Sprintf(`[profiles.acp]
adapter = "acp"
model = %q
auth = "api-key"
key_env = "OPENAI_API_KEY"
options = { command = %q, mode = "read-only" }
`, model, filepath.Join(bins, "codex-acp"))), 0o644)
	api.Script(fakemodel.Text("READY"), fakemodel.Text("first answer"))
	cmd := exec.Command("git", "agentproto", "sessions", "start", "--profile", "acp", "--dir", dir, "--prompt", "first")
	cmd.Dir = dir
	cmd.Env = append(gitEnv(home), "OPENAI_API_KEY="+fakemodel.Key)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sessions start: %v\n%s", err, out)
	}
	id := strings.TrimSpace(string(out))
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "2m")
	log := outputLog(dir, id)
	if !strings.Contains(log, "cause issues.") {
		t.Fatalf("codex-acp did not warn of the model: the test no longer plays the case\n%s", log)
	}
	if m := meta(t, dir, id); m.State != "settled" || len(m.Faults) != 0 || !strings.Contains(log, "first answer") {
		t.Fatalf("after the ping: %+v\n%s", m, log)
	}
}
