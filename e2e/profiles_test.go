package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/fakemodel"
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
	// Their committed commands run only once trusted.
	must(t, dir, "git", "agentproto", "profile", "trust", "broke")
	must(t, dir, "git", "agentproto", "profile", "trust", "limited")
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

// cliAdapters builds the claude-code and codex adapters into the test
// binaries' directory (on PATH), once.
var cliAdapters = sync.OnceValue(func() error {
	out, err := exec.Command("go", "build", "-o", binDir+string(filepath.Separator),
		"github.com/agentproto/agentproto/cmd/agentproto-adapter-claude-code",
		"github.com/agentproto/agentproto/cmd/agentproto-adapter-codex").CombinedOutput()
	if err != nil {
		return fmt.Errorf("building the adapters: %v\n%s", err, out)
	}
	return nil
})

// A flag codex exec resume rejects is refused by profile check, before any
// dispatch, and so is an unknown sandbox or permission mode.
func TestProfileCheckRefusesBadAdapterOptions(t *testing.T) {
	if err := cliAdapters(); err != nil {
		t.Fatal(err)
	}
	dir := newRepo(t)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(`[profiles.cx]
adapter = "codex"
auth = "api-key"
key_env = "AGENTPROTO_TEST_KEY"
options = { extra = "--add-dir ../shared" }
[profiles.cs]
adapter = "codex"
auth = "api-key"
key_env = "AGENTPROTO_TEST_KEY"
options = { sandbox = "wide-open" }
[profiles.cc]
adapter = "claude-code"
auth = "api-key"
key_env = "AGENTPROTO_TEST_KEY"
options = { permission_mode = "yolo" }
[profiles.ok]
adapter = "codex"
auth = "api-key"
key_env = "AGENTPROTO_TEST_KEY"
options = { extra_first = "--add-dir ../shared", sandbox = "read-only" }
`), 0o644)
	cmd := exec.Command("git", "agentproto", "profile", "check")
	cmd.Dir = dir
	cmd.Env = append(gitEnv(homeOf(t)), "AGENTPROTO_TEST_KEY=k")
	b, err := cmd.CombinedOutput()
	out := string(b)
	if exitCode(err) == 0 {
		t.Fatalf("profile check passed:\n%s", out)
	}
	for _, want := range []string{
		"options.extra: --add-dir is rejected by codex exec resume; put it in extra_first",
		`options.sandbox "wide-open" is not one of read-only, workspace-write, danger-full-access`,
		`options.permission_mode "yolo" is not one of acceptEdits`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("profile check lacks %q", want)
		}
	}
	if !regexp.MustCompile(`(?m)^ok +codex .* yes +yes +-$`).MatchString(out) {
		t.Errorf("the good profile was refused")
	}
	if t.Failed() {
		t.Fatal(out)
	}
}

// The real claude and codex (make test-agents) driven through the sessions
// daemon and a profile, against a loopback fake provider: a dash-leading
// first prompt, a later turn from sessions prompt that writes a file with
// no extra options, an interrupt that leaves the session usable, a retried
// 429, a refused write and a 529.
func TestRealAgentsThroughTheDaemon(t *testing.T) {
	for _, cli := range []string{"claude", "codex"} {
		t.Run(cli, func(t *testing.T) {
			const first = "- first: say hi\n---"
			s := startReal(t, cli, first, fakemodel.Text("READY"), fakemodel.Text("first answer"))
			api, run, dir, id := s.api, s.run, s.dir, s.id
			hello := filepath.Join(s.worktree(), "hello.txt")
			api.Script(writeCall(cli, hello, "hi"), fakemodel.Text("wrote it"))
			run("sessions", "prompt", id, "--text", "write hello.txt")
			run("sessions", "wait", id, "--timeout", "2m")
			if b, err := os.ReadFile(hello); err != nil || string(b) != "hi" {
				t.Fatalf("turn 2 did not write hello.txt: %q %v\n%+v", b, err, meta(t, dir, id))
			}

			api.Script(fakemodel.Reply{Text: strings.Repeat("slow ", 200), Delay: 200 * time.Millisecond}, fakemodel.Text("after the interrupt"))
			n := len(api.Requests())
			run("sessions", "prompt", id, "--text", "take your time")
			if !api.WaitRequests(n+1, time.Minute) {
				t.Fatal("the slow turn never reached the provider")
			}
			time.Sleep(500 * time.Millisecond)
			run("sessions", "prompt", id, "--interrupt", "--text", "go on")
			waitLong(t, func() bool { return strings.Contains(outputLog(dir, id), "after the interrupt") })
			run("sessions", "wait", id, "--timeout", "2m")

			m := meta(t, dir, id)
			if len(m.Faults) != 0 || m.State == "failed" || !hasPrefix(m.Warnings, "interrupted: ") {
				t.Fatalf("after the interrupt: %+v", m)
			}
			// A 429 the CLI retries past is no fault; a write outside the
			// worktree is refused and recorded; a provider that stays at 529
			// is one provider_unavailable, shown once.
			api.Script(fakemodel.Fail(429), fakemodel.Text("after the retry"))
			run("sessions", "prompt", id, "--text", "retry")
			run("sessions", "wait", id, "--timeout", "2m")
			outside := filepath.Join(t.TempDir(), "outside.txt")
			api.Script(writeCall(cli, outside, "x"), fakemodel.Text("tried"))
			run("sessions", "prompt", id, "--text", "write outside")
			run("sessions", "wait", id, "--timeout", "2m")
			if m := meta(t, dir, id); len(m.Faults) != 0 || !hasPrefix(m.Warnings, "retrying: ") || !hasPrefix(m.Warnings, "permission_denied: ") {
				var answered []string
				for _, r := range api.Requests() {
					answered = append(answered, r.Prompt+"="+r.Answered)
				}
				t.Fatalf("after the retry and the refused write: %+v\nrequests: %q\n%s", m, answered, outputLog(dir, id))
			}
			if _, err := os.Stat(outside); !os.IsNotExist(err) {
				t.Fatalf("the refused write happened: %v", err)
			}
			api.Default = fakemodel.Fail(529)
			run("sessions", "prompt", id, "--text", "overloaded")
			run("sessions", "wait", id, "--timeout", "2m")
			if m := meta(t, dir, id); len(m.Faults) != 1 || m.Faults[0] != "provider_unavailable" {
				t.Fatalf("after a 529: %+v", m)
			}
			if n := strings.Count(outputLog(dir, id), "[agentproto] error:"); n != 1 {
				t.Fatalf("the provider error was shown %d times:\n%s", n, outputLog(dir, id))
			}

			prompts := map[string]bool{}
			for _, r := range api.Requests() {
				prompts[r.Prompt] = true
			}
			if !prompts[first] || !prompts["write hello.txt"] || !prompts["go on"] {
				t.Fatalf("prompts that arrived: %v", prompts)
			}
		})
	}
}

func writeCall(cli, path, content string) fakemodel.Reply {
	if cli == "claude" {
		return fakemodel.Call("Write", map[string]string{"file_path": path, "content": content})
	}
	return fakemodel.Call("exec_command", map[string]string{"cmd": "printf '%s' '" + content + "' > '" + path + "'"})
}

func writeConfig(t *testing.T, path, text string) {
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

type sessionMeta struct {
	State    string   `json:"state"`
	Turns    int      `json:"turns"`
	Warnings []string `json:"warnings"`
	Faults   []string `json:"faults"`
}

func meta(t *testing.T, dir, id string) sessionMeta {
	var m sessionMeta
	b, err := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "sessions", id, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(b, &m)
	return m
}

func outputLog(dir, id string) string {
	b, _ := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "sessions", id, "output.log"))
	return string(b)
}

func hasPrefix(list []string, p string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// waitLong polls for ok for as long as a real CLI's turn may take.
func waitLong(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); !ok(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

// Without the real CLIs: a provider error is one fault (not also an
// empty turn), and an interrupted silent turn is a warning, not a fault,
// with the session going on.
func TestOneFaultAndInterruptWarning(t *testing.T) {
	dir := newRepo(t)
	agent := filepath.Join(dir, "agent.sh")
	os.WriteFile(agent, []byte(`#!/bin/sh
case "$(cat "$1")" in
  *broke*) echo "Error: Credit balance is too low" >&2; exit 1;;
  *slow*) exec sleep 60;;
esac
echo "done: $(cat "$1")"
`), 0o755)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(fmt.Sprintf("[plugins.exec]\noptions = { command = %q }\n", "sh "+agent+" {prompt}")), 0o644)
	id := must(t, dir, "git", "agentproto", "sessions", "start", "--adapter", "exec", "--dir", dir, "--no-ping", "--prompt", "broke")
	id = strings.TrimSpace(id)
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "30s")
	if m := meta(t, dir, id); len(m.Faults) != 1 || m.Faults[0] != "insufficient_credits" {
		t.Fatalf("after a provider error: %+v", m)
	}
	must(t, dir, "git", "agentproto", "sessions", "prompt", id, "--text", "slow")
	waitFor(t, "the slow turn", func() bool { return meta(t, dir, id).Turns == 2 })
	must(t, dir, "git", "agentproto", "sessions", "prompt", id, "--interrupt", "--text", "- after")
	waitFor(t, "the turn after the interrupt", func() bool { return strings.Contains(outputLog(dir, id), "done: - after") })
	if m := meta(t, dir, id); len(m.Faults) != 1 || !hasPrefix(m.Warnings, "interrupted: ") || m.State == "failed" {
		t.Fatalf("after the interrupt: %+v", m)
	}
}
