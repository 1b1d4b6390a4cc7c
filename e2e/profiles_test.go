package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A stub agent CLI driven through the exec adapter: it answers the
// liveness ping, then fails the real turn the way a provider does.
const stubAgent = `#!/bin/sh
case "$(cat "$1")" in
  *READY*) echo READY; exit 0;;
esac
echo "$STUB_FAILURE" >&2
exit 1
`

func TestDispatchFallsBackOnDeadProviders(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	os.WriteFile(filepath.Join(dir, "agent.sh"), []byte(stubAgent), 0o755)
	cfg := `[dispatch]
fallback = ["broke", "limited", "good"]
rate_limit_wait = "10ms"
[profiles.broke]
adapter = "exec"
auth = "none"
options = { command = "env STUB_FAILURE='Error: Credit balance is too low' sh agent.sh {prompt}" }
[profiles.limited]
adapter = "exec"
auth = "none"
options = { command = "env STUB_FAILURE='API error 429: rate limit exceeded' sh agent.sh {prompt}" }
[profiles.good]
adapter = "scripted"
auth = "none"
`
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(cfg), 0o644)
	// The exec profiles run agent.sh from each WP's worktree.
	must(t, dir, "git", "add", "agent.sh")
	must(t, dir, "git", "commit", "-q", "-m", "stub agent")
	// The plan's base moved: freeze again against it.
	must(t, dir, "git", "agentproto", "plan", "freeze", "demo")

	out := must(t, dir, "git", "agentproto", "profile", "check")
	for _, want := range []string{"broke          exec", "good           scripted", "limited        exec"} {
		if !strings.Contains(out, want) {
			t.Fatalf("profile check:\n%s", out)
		}
	}
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	if err != nil {
		t.Fatalf("dispatch: %v\n%s%s", err, out, errOut)
	}
	for _, want := range []string{
		"insufficient_credits on s-",
		"moving from broke to profile limited",
		"waiting 10ms before trying limited again",
		"waiting 20ms before trying limited again",
		"rate_limited on s-",
		"moving from limited to profile good",
		"(profile good, scripted)",
		"WP0   verify     pass",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dispatch output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatal(out)
	}
	trail := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "wp_fallback", "--json", "--reverse")
	lines := strings.Split(strings.TrimSpace(trail), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"fault":"insufficient_credits","from_profile":"broke"`) || !strings.Contains(lines[1], `"fault":"rate_limited","from_profile":"limited"`) || !strings.Contains(lines[1], `"to_profile":"good"`) {
		t.Fatalf("fallback trail:\n%s", trail)
	}
}

func TestDispatchPreflightStopsWithATable(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(`[dispatch]
fallback = ["paid"]
[profiles.paid]
adapter = "scripted"
model = "no-such-model"
auth = "api-key"
key_env = "AGENTPROTO_TEST_UNSET_KEY"
`), 0o644)
	out, _, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if exitCode(err) != 5 || !strings.Contains(out, "paid           scripted") || !strings.Contains(out, "$AGENTPROTO_TEST_UNSET_KEY, which is not set") ||
		!strings.Contains(out, "model no-such-model is not among the adapter's models (scripted)") || !strings.Contains(out, "does not support auth api-key") {
		t.Fatalf("preflight: %v\n%s", err, out)
	}
	if strings.Contains(must(t, dir, "git", "agentproto", "ledger", "log", "--json"), "wp_dispatched") {
		t.Fatal("dispatch started work despite the failed preflight")
	}
	// A key_env holding a value instead of a name is refused outright.
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[profiles.x]\nadapter = \"scripted\"\nauth = \"api-key\"\nkey_env = \"sk-abc123\"\n"), 0o644)
	_, errOut, err := sh(t, dir, nil, "git", "agentproto", "profile", "check")
	if exitCode(err) != 2 || !strings.Contains(errOut, "key_env must name an environment variable") {
		t.Fatalf("key_env value: %v %s", err, errOut)
	}
}
