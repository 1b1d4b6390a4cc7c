package adapters_test

// Tests against the real claude and codex programs (make test-agents
// installs the pinned versions and sets AGENTPROTO_REAL_AGENTS to their
// directory), talking to a loopback fake provider: nothing leaves the
// machine, and each test has its own HOME.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/fakemodel"
	"github.com/agentproto/agentproto/plugins/adapters/claudecode"
	"github.com/agentproto/agentproto/plugins/adapters/codex"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// realAgents is the directory of the real CLIs, or "" to skip.
func realAgents(t testing.TB) string {
	dir := os.Getenv("AGENTPROTO_REAL_AGENTS")
	if dir == "" {
		t.Skip("the real agent CLIs are not installed: run make test-agents (AGENTPROTO_REAL_AGENTS names their directory)")
	}
	return dir
}

// isolate clears the variables of this process that would point a real
// CLI at a real account or another configuration.
func isolate(t testing.TB) {
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		for _, p := range []string{"ANTHROPIC_", "CLAUDE_", "CODEX_", "OPENAI_", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"} {
			if strings.HasPrefix(k, p) {
				t.Setenv(k, os.Getenv(k)) // restored at the end of the test
				os.Unsetenv(k)
			}
		}
	}
}

// agent is one real CLI set up against a fake provider.
type agent struct {
	name    string
	adapter sdk.Adapter
	binary  string
	model   string
	home    string
	api     *fakemodel.Server
	noKey   bool // start the CLI without its key variable
}

// ClaudeModel and CodexModel are the models the fake provider serves.
const (
	ClaudeModel = "claude-sonnet-4-5"
	CodexModel  = "gpt-5.1-codex"
)

// retries is how often the CLIs retry a failing request in these tests.
const retries = 1

func newAgent(t testing.TB, name string) *agent {
	dir := realAgents(t)
	isolate(t)
	a := &agent{name: name, home: t.TempDir(), api: fakemodel.New(t)}
	switch name {
	case "claude":
		a.adapter, a.binary, a.model = claudecode.Adapter{}, filepath.Join(dir, "claude"), ClaudeModel
		writeFile(t, filepath.Join(a.home, ".claude", "settings.json"), a.api.ClaudeSettings(retries))
	case "codex":
		a.adapter, a.binary, a.model = codex.Adapter{}, filepath.Join(dir, "codex"), CodexModel
		writeFile(t, filepath.Join(a.home, ".codex", "config.toml"), CodexConfig(a.api))
	}
	a.api.SetModels(a.model)
	return a
}

// CodexConfig is a config.toml sending codex to the fake provider. /tmp
// is not writable in the sandbox, so a test's writes outside its worktree
// (all under /tmp) are refused as they would be elsewhere.
func CodexConfig(api *fakemodel.Server) string {
	return api.CodexConfig(CodexModel, "OPENAI_API_KEY", retries) + `
[sandbox_workspace_write]
exclude_slash_tmp = true
exclude_tmpdir_env_var = true

[analytics]
enabled = false
`
}

func writeFile(t testing.TB, path, content string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// env is what the daemon would give the adapter: HOME and the key.
func (a *agent) env() map[string]string {
	key := "ANTHROPIC_API_KEY"
	if a.name == "codex" {
		key = "OPENAI_API_KEY"
	}
	env := map[string]string{"HOME": a.home, "PATH": os.Getenv("PATH")}
	if !a.noKey {
		env[key] = fakemodel.Key
	}
	return env
}

// repo makes a git worktree for the agent to work in.
func repo(t testing.TB) string {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	return dir
}

// session starts a session with opts and waits for its first turn.
func (a *agent) session(t *testing.T, dir string, opts map[string]string, prompt string) (*recorder, sdk.Session) {
	t.Helper()
	o := map[string]string{"binary": a.binary}
	for k, v := range opts {
		o[k] = v
	}
	rec := newRecorder()
	s, err := a.adapter.Start(context.Background(), sdk.StartRequest{Dir: dir, Model: a.model, Env: a.env(), Options: o, InitialPrompt: prompt}, rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Terminate(context.Background()) })
	return rec, s
}

// waitTurn waits for a real CLI's turn, which takes seconds.
func (r *recorder) waitReal(t *testing.T) {
	t.Helper()
	select {
	case <-r.ended:
	case <-time.After(90 * time.Second):
		t.Fatal("the turn did not end")
	}
}

func (r *recorder) snapshot() (out string, faults, errors, warnings []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String(), append([]string(nil), r.faults...), append([]string(nil), r.errors...), append([]string(nil), r.warnings...)
}

// writeCall is the reply that makes the CLI write path with its own tool.
func (a *agent) writeCall(path, content string) fakemodel.Reply {
	if a.name == "claude" {
		return fakemodel.Call("Write", map[string]string{"file_path": path, "content": content})
	}
	return fakemodel.Call("exec_command", map[string]string{"cmd": "printf '%s' '" + content + "' > '" + path + "'"})
}

var realNames = []string{"claude", "codex"}

func TestRealDashPromptAndWrite(t *testing.T) {
	for _, name := range realNames {
		t.Run(name, func(t *testing.T) {
			a := newAgent(t, name)
			dir := repo(t)
			a.api.Script(fakemodel.Text("first answer"), a.writeCall(filepath.Join(dir, "hello.txt"), "hi"), fakemodel.Text("wrote it"))
			rec, s := a.session(t, dir, nil, dashPrompt)
			rec.waitReal(t)
			if err := s.Prompt(context.Background(), "-w write hello.txt", false); err != nil {
				t.Fatal(err)
			}
			rec.waitReal(t)
			out, faults, errs, warns := rec.snapshot()
			if len(faults) != 0 || !strings.Contains(out, "first answer") || !strings.Contains(out, "wrote it") {
				t.Fatalf("faults %q warnings %q output:\n%s", errs, warns, out)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "hello.txt")); err != nil || string(b) != "hi" {
				t.Fatalf("hello.txt: %q %v (warnings %q)", b, err, warns)
			}
			reqs := a.api.Requests()
			prompts := map[string]bool{}
			for _, r := range reqs {
				prompts[r.Prompt] = true
				if r.Model != a.model {
					t.Errorf("a request for model %q", r.Model)
				}
			}
			if !prompts[dashPrompt] || !prompts["-w write hello.txt"] {
				t.Fatalf("the prompts did not arrive whole: %q", keys(prompts))
			}
		})
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestRealRetryThenSuccess(t *testing.T) {
	for _, name := range realNames {
		t.Run(name, func(t *testing.T) {
			a := newAgent(t, name)
			a.api.Script(fakemodel.Fail(429), fakemodel.Text("after the retry"))
			rec, _ := a.session(t, repo(t), nil, "go")
			rec.waitReal(t)
			out, faults, errs, warns := rec.snapshot()
			if len(faults) != 0 || !strings.Contains(out, "after the retry") || len(warns) == 0 || !strings.HasPrefix(warns[0], "retrying: ") {
				t.Fatalf("faults %q warnings %q output:\n%s", errs, warns, out)
			}
		})
	}
}

func TestRealProviderFaults(t *testing.T) {
	cases := []struct {
		name  string
		setup func(a *agent)
		fault string
	}{
		{"529", func(a *agent) { a.api.Default = fakemodel.Fail(529) }, sdk.FaultProviderUnavailable},
		{"503", func(a *agent) { a.api.Default = fakemodel.Fail(503) }, sdk.FaultProviderUnavailable},
		{"bad-model", func(a *agent) { a.model = "no-such-model" }, sdk.FaultInvalidModel},
		{"bad-key", func(a *agent) { a.api.SetKey("sk-another-key") }, sdk.FaultAuthFailed},
		{"no-key", func(a *agent) { a.noKey = true }, sdk.FaultAuthFailed},
		{"credits", func(a *agent) { a.api.Default = fakemodel.Fail(402) }, sdk.FaultInsufficientCredits},
	}
	for _, name := range realNames {
		for _, c := range cases {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				a := newAgent(t, name)
				c.setup(a)
				rec, _ := a.session(t, repo(t), nil, "go")
				rec.waitReal(t)
				out, faults, errs, warns := rec.snapshot()
				if len(faults) != 1 || faults[0] != c.fault {
					t.Fatalf("faults %v %q, want one %s; warnings %q output:\n%s", faults, errs, c.fault, warns, out)
				}
			})
		}
	}
}

func TestRealInterrupt(t *testing.T) {
	for _, name := range realNames {
		t.Run(name, func(t *testing.T) {
			a := newAgent(t, name)
			a.api.Script(fakemodel.Reply{Text: strings.Repeat("slow ", 200), Delay: 200 * time.Millisecond}, fakemodel.Text("after the interrupt"))
			rec, s := a.session(t, repo(t), nil, "take your time")
			if !a.api.WaitRequests(1, 60*time.Second) {
				t.Fatal("the CLI never called the provider")
			}
			time.Sleep(500 * time.Millisecond) // into the stream
			if err := s.Prompt(context.Background(), "go on", true); err != nil {
				t.Fatal(err)
			}
			rec.waitReal(t)
			rec.waitReal(t)
			out, faults, errs, warns := rec.snapshot()
			if len(faults) != 0 || len(warns) != 1 || !strings.HasPrefix(warns[0], "interrupted: ") || !strings.Contains(out, "after the interrupt") {
				t.Fatalf("faults %q warnings %q output:\n%s", errs, warns, out)
			}
		})
	}
}

func TestRealDeniedWrite(t *testing.T) {
	for _, name := range realNames {
		t.Run(name, func(t *testing.T) {
			a := newAgent(t, name)
			outside := filepath.Join(t.TempDir(), "outside.txt")
			a.api.Script(a.writeCall(outside, "x"), fakemodel.Text("tried"))
			rec, _ := a.session(t, repo(t), nil, "write outside")
			rec.waitReal(t)
			out, faults, errs, warns := rec.snapshot()
			if len(faults) != 0 || len(warns) != 1 || !strings.HasPrefix(warns[0], "permission_denied: ") || !strings.Contains(warns[0], outside) {
				t.Fatalf("faults %q warnings %q output:\n%s", errs, warns, out)
			}
			if _, err := os.Stat(outside); !os.IsNotExist(err) {
				t.Fatalf("the refused write happened: %v", err)
			}
		})
	}
}

// A stream cut mid-way is retried by both CLIs: the turn ends with the
// whole answer of the second attempt and no fault.
func TestRealStreamCut(t *testing.T) {
	for _, name := range realNames {
		t.Run(name, func(t *testing.T) {
			a := newAgent(t, name)
			a.api.Script(fakemodel.Reply{Text: "a partial answer that never ends", Cut: true}, fakemodel.Text("the whole answer"))
			rec, _ := a.session(t, repo(t), nil, "go")
			rec.waitReal(t)
			out, faults, errs, warns := rec.snapshot()
			if len(faults) != 0 || !strings.Contains(out, "the whole answer") || !hasPrefix(warns, "retrying: ") {
				t.Fatalf("faults %q warnings %q output:\n%s", errs, warns, out)
			}
		})
	}
}

func hasPrefix(list []string, p string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// The typed options reach the CLIs: claude under permission_mode manual
// and codex under sandbox read-only refuse a write inside the worktree,
// and say so.
func TestRealStricterModesRefuseWrites(t *testing.T) {
	opts := map[string]map[string]string{"claude": {"permission_mode": "manual"}, "codex": {"sandbox": "read-only"}}
	for _, name := range realNames {
		t.Run(name, func(t *testing.T) {
			a := newAgent(t, name)
			dir := repo(t)
			inside := filepath.Join(dir, "inside.txt")
			a.api.Script(a.writeCall(inside, "x"), fakemodel.Text("tried"))
			rec, _ := a.session(t, dir, opts[name], "write inside")
			rec.waitReal(t)
			out, faults, errs, warns := rec.snapshot()
			if len(faults) != 0 || len(warns) != 1 || !strings.HasPrefix(warns[0], "permission_denied: ") || !strings.Contains(warns[0], inside) {
				t.Fatalf("faults %q warnings %q output:\n%s", errs, warns, out)
			}
			if _, err := os.Stat(inside); !os.IsNotExist(err) {
				t.Fatalf("the refused write happened: %v", err)
			}
		})
	}
}

// extra_first goes to the first call only: claude takes --session-id on
// the first turn and would refuse it next to --resume on the second; both
// turns run in that session.
func TestRealClaudeExtraFirst(t *testing.T) {
	a := newAgent(t, "claude")
	const id = "5f0c1e2a-0000-4000-8000-00000000abcd"
	a.api.Script(fakemodel.Text("one"), fakemodel.Text("two"))
	rec, s := a.session(t, repo(t), map[string]string{"extra_first": "--session-id " + id}, "first")
	rec.waitReal(t)
	if err := s.Prompt(context.Background(), "second", false); err != nil {
		t.Fatal(err)
	}
	rec.waitReal(t)
	out, faults, errs, _ := rec.snapshot()
	if len(faults) != 0 || !strings.Contains(out, "two") {
		t.Fatalf("faults %q output:\n%s", errs, out)
	}
	for _, r := range a.api.Requests() {
		if got := r.Header.Get("X-Claude-Code-Session-Id"); got != id {
			t.Fatalf("a request in session %q, want %s", got, id)
		}
	}
}
