package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentproto/agentproto/internal/fakemodel"
)

// acpAdapter builds the acp adapter into the test binaries' directory.
var acpAdapter = sync.OnceValue(func() error {
	out, err := exec.Command("go", "build", "-o", binDir+string(filepath.Separator),
		"github.com/agentproto/agentproto/cmd/agentproto-adapter-acp").CombinedOutput()
	if err != nil {
		return fmt.Errorf("building the acp adapter: %v\n%s", err, out)
	}
	return nil
})

// Real ACP agents run by the sessions daemon with the environment it
// gives adapters: the perimeter travels in AGENTPROTO_PERIMETER, a dash
// prompt arrives whole, turn 2 (sessions prompt) writes inside the
// perimeter, and a write outside it is refused and recorded.
func TestRealACPThroughTheDaemon(t *testing.T) {
	bins := os.Getenv("AGENTPROTO_REAL_AGENTS")
	if bins == "" {
		t.Skip("the real ACP agents are not installed: run make test-agents")
	}
	if err := acpAdapter(); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, command, model, keyEnv string }{
		// As root (CI) claude refuses to start unless told it is sandboxed.
		{"claude-code-acp", "env IS_SANDBOX=1 " + filepath.Join(bins, "claude-code-acp"), "claude-sonnet-4-5-20250929", "ANTHROPIC_API_KEY"},
		{"codex-acp", filepath.Join(bins, "codex-acp"), "gpt-5.4", "OPENAI_API_KEY"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := newRepo(t)
			home := homeOf(t)
			api := fakemodel.New(t)
			api.SetModels(c.model)
			options := fmt.Sprintf("{ command = %q }", c.command)
			if c.name == "claude-code-acp" {
				writeConfig(t, filepath.Join(home, ".claude", "settings.json"), api.ClaudeSettings(1))
			} else {
				writeConfig(t, filepath.Join(home, ".codex", "config.toml"), api.CodexConfig(c.model, c.keyEnv, 1))
				options = fmt.Sprintf("{ command = %q, mode = \"read-only\" }", c.command)
			}
			os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(fmt.Sprintf(`[profiles.acp]
adapter = "acp"
model = %q
auth = "api-key"
key_env = %q
options = %s
`, c.model, c.keyEnv, options)), 0o644)
			run := func(args ...string) string {
				t.Helper()
				cmd := exec.Command("git", append([]string{"agentproto"}, args...)...)
				cmd.Dir = dir
				cmd.Env = append(gitEnv(home), c.keyEnv+"="+fakemodel.Key, `AGENTPROTO_PERIMETER={"allow":["src"]}`)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
				}
				return strings.TrimSpace(string(out))
			}
			// In the main checkout, a sandboxed agent writes into entries
			// that exist: none is added beside .git.
			os.Mkdir(filepath.Join(dir, "src"), 0o755)
			os.Mkdir(filepath.Join(dir, "docs"), 0o755)
			const first = "- first: say hi\n---"
			api.Script(fakemodel.Text("READY"), fakemodel.Text("first answer"))
			id := run("sessions", "start", "--profile", "acp", "--dir", dir, "--prompt", first)
			run("sessions", "wait", id, "--timeout", "2m")

			hello := filepath.Join(dir, "src", "hello.txt")
			api.Script(acpWrite(c.name, hello, "hi"), fakemodel.Text("wrote it"))
			run("sessions", "prompt", id, "--text", "write src/hello.txt")
			run("sessions", "wait", id, "--timeout", "2m")
			if b, err := os.ReadFile(hello); err != nil || strings.TrimSpace(string(b)) != "hi" {
				t.Fatalf("turn 2 did not write src/hello.txt: %q %v\n%+v\n%s", b, err, meta(t, dir, id), outputLog(dir, id))
			}

			side := filepath.Join(dir, "docs", "side.txt")
			api.Script(acpWrite(c.name, side, "not mine"))
			run("sessions", "prompt", id, "--text", "write docs/side.txt")
			run("sessions", "wait", id, "--timeout", "2m")
			if _, err := os.Lstat(side); err == nil {
				t.Fatal("docs/side.txt was written outside the perimeter")
			}
			m := meta(t, dir, id)
			if len(m.Faults) != 0 || m.State == "failed" || !hasPrefix(m.Warnings, "permission_denied: ") {
				t.Fatalf("after the refused write: %+v\n%s", m, outputLog(dir, id))
			}
			found := false
			for _, w := range m.Warnings {
				found = found || strings.Contains(w, side+": outside the work package's perimeter")
			}
			if !found {
				t.Fatalf("no warning names %s: %q", side, m.Warnings)
			}
			prompts := map[string]bool{}
			for _, r := range api.Requests() {
				prompts[r.Prompt] = true
			}
			if !prompts[first] || !prompts["write src/hello.txt"] {
				t.Fatalf("prompts that arrived: %v", prompts)
			}
			// What an agent did not report is unknown, never zero.
			rec := loadRecord(t, dir, id)
			for _, u := range rec.Usage {
				if !u.Unknown && !u.TokensUnknown && u.Tokens() == 0 {
					t.Errorf("turn %d: usage known and zero: %+v", u.Turn, u)
				}
			}
			if len(rec.Usage) != rec.Turns {
				t.Errorf("%d turns, %d with usage recorded: %+v", rec.Turns, len(rec.Usage), rec.Usage)
			}
			t.Logf("usage: %s", rec.Spend)
		})
	}
}

// acpWrite is the reply that makes an ACP agent write with its own tool.
func acpWrite(agent, path, content string) fakemodel.Reply {
	if agent == "claude-code-acp" {
		return fakemodel.Call("mcp__acp__Write", map[string]string{"file_path": path, "content": content})
	}
	return fakemodel.Patch("*** Begin Patch\n*** Add File: " + path + "\n+" + content + "\n*** End Patch\n")
}

// Dispatch gives a WP's acp session its perimeter: a real agent steered
// into writing inside the WP's perimeter and outside it gets the first
// write and is refused the second when it attempts it.
func TestRealACPDispatchEnforcesPerimeter(t *testing.T) {
	bins := os.Getenv("AGENTPROTO_REAL_AGENTS")
	if bins == "" {
		t.Skip("the real ACP agents are not installed: run make test-agents")
	}
	if err := acpAdapter(); err != nil {
		t.Fatal(err)
	}
	dir := newRepo(t)
	home := homeOf(t)
	api := fakemodel.New(t)
	const model = "claude-sonnet-4-5-20250929"
	api.SetModels(model)
	writeConfig(t, filepath.Join(home, ".claude", "settings.json"), api.ClaudeSettings(1))
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(fmt.Sprintf(`[profiles.acp]
adapter = "acp"
model = %q
auth = "api-key"
key_env = "ANTHROPIC_API_KEY"
options = { command = %q }
`, model, "env IS_SANDBOX=1 "+filepath.Join(bins, "claude-code-acp"))), 0o644)
	env := append(gitEnv(home), "ANTHROPIC_API_KEY="+fakemodel.Key)
	run := func(args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"agentproto"}, args...)...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, args := range [][]string{{"init"}, {"plan", "init", "demo", "--gate", "true"}} {
		if out, err := run(args...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(dir, ".plans/demo/plan.toml"), []byte(`name = "demo"
base = "main"
gate = "true"
[[wp]]
id = "WP0"
title = "contract"
owns = ["api/**"]
profile = "acp"
`), 0o644)
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-q", "-m", "plan")
	if out, err := run("plan", "freeze", "demo"); err != nil {
		t.Fatalf("freeze: %v\n%s", err, out)
	}
	// The profile's command comes from a committed agentproto.toml.
	if out, err := run("profile", "trust", "acp"); err != nil {
		t.Fatalf("profile trust: %v\n%s", err, out)
	}
	// Paths relative to the worktree, which dispatch makes: the adapter
	// takes them from there.
	api.Script(fakemodel.Text("READY"),
		fakemodel.Call("mcp__acp__Write", map[string]string{"file_path": "api/contract.txt", "content": "mine"}),
		fakemodel.Call("mcp__acp__Write", map[string]string{"file_path": "docs/evil.txt", "content": "not mine"}))
	out, derr := run("dispatch", "demo", "--wp", "WP0")
	if ls, _ := run("sessions", "ls", "--all", "--json"); !strings.Contains(ls, "demo/WP0") {
		t.Fatalf("no session for WP0; dispatch: %v\n%s", derr, out)
	}
	id := sessionOf(t, dir, "demo/WP0")
	wt := ""
	lsOut, err := run("worktree", "ls", "--json")
	if err != nil {
		t.Fatalf("worktree ls: %v\n%s", err, lsOut)
	}
	var wts []struct{ Path, Slug string }
	json.Unmarshal([]byte(lsOut), &wts)
	for _, w := range wts {
		if w.Slug == "demo-wp0" {
			wt = w.Path
		}
	}
	if wt == "" {
		t.Fatalf("no worktree for WP0: %s\ndispatch:\n%s", lsOut, out)
	}
	if b, err := os.ReadFile(filepath.Join(wt, "api/contract.txt")); err != nil || string(b) != "mine" {
		t.Fatalf("the in-perimeter write: %q %v\ndispatch:\n%s\nsession:\n%s", b, err, out, outputLog(dir, id))
	}
	if _, err := os.Lstat(filepath.Join(wt, "docs/evil.txt")); err == nil {
		t.Fatal("docs/evil.txt was written outside WP0's perimeter")
	}
	m := meta(t, dir, id)
	found := false
	for _, w := range m.Warnings {
		found = found || (strings.HasPrefix(w, "permission_denied: ") && strings.Contains(w, "docs/evil.txt: outside the work package's perimeter"))
	}
	if !found {
		t.Fatalf("no permission_denied warning for docs/evil.txt: %+v\ndispatch:\n%s", m, out)
	}
}
