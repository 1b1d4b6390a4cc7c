package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/fakemodel"
)

// The real claude and codex, told by the (loopback) model to run the
// hostile script through their own shell tools with their own
// permissions wide open (claude allows Bash; codex runs without its
// sandbox, as it does inside ours), get nowhere: the same attempts fail
// as for the exec agent, and the victim session lives on.
func TestRealAgentsCannotLeaveTheSandbox(t *testing.T) {
	bins := os.Getenv("AGENTPROTO_REAL_AGENTS")
	if bins == "" {
		t.Skip("the real agent CLIs are not installed: run make test-agents")
	}
	if err := cliAdapters(); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ cli, adapter, model, keyEnv, tool, arg string }{
		{"claude", "claude-code", "claude-sonnet-4-5", "ANTHROPIC_API_KEY", "Bash", "command"},
		{"codex", "codex", "gpt-5.1-codex", "OPENAI_API_KEY", "exec_command", "cmd"},
	}
	for _, c := range cases {
		t.Run(c.cli, func(t *testing.T) {
			dir := newRepo(t)
			must(t, dir, "git", "agentproto", "init")
			os.WriteFile(filepath.Join(dir, "hostile.sh"), []byte(hostileAgent), 0o755)
			must(t, dir, "git", "add", "hostile.sh")
			must(t, dir, "git", "commit", "-qm", "agent")
			home := homeOf(t)
			os.MkdirAll(filepath.Join(home, ".config", "gh"), 0o700)
			os.WriteFile(filepath.Join(home, ".config", "gh", "hosts.yml"), []byte("github.com:\n  oauth_token: "+hostileToken+"\n"), 0o600)
			api := fakemodel.New(t)
			api.SetModels(c.model)
			if c.cli == "claude" {
				settings := strings.Replace(api.ClaudeSettings(1), `{"env"`, `{"permissions": {"allow": ["Bash"]}, "env"`, 1)
				writeConfig(t, filepath.Join(home, ".claude", "settings.json"), settings)
			} else {
				writeConfig(t, filepath.Join(home, ".codex", "config.toml"), api.CodexConfig(c.model, c.keyEnv, 1))
			}
			os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(fmt.Sprintf("[plugins.%s]\noptions = { binary = %q }\n[profiles.real]\nadapter = %q\nmodel = %q\nauth = \"api-key\"\nkey_env = %q\n",
				c.adapter, filepath.Join(bins, c.cli), c.adapter, c.model, c.keyEnv)), 0o644)
			env := []string{c.keyEnv + "=" + fakemodel.Key, "GH_TOKEN=" + hostileToken}
			run := func(args ...string) string {
				t.Helper()
				cmd := exec.Command("git", append([]string{"agentproto"}, args...)...)
				cmd.Dir = dir
				cmd.Env = append(gitEnv(home), env...)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
				}
				return strings.TrimSpace(string(out))
			}
			victim := run("sessions", "start", "--adapter", "scripted", "--no-ping", "--worktree", "victim", "--prompt", script(`{"op":"sleep","ms":120000}`))
			vrec := sessionJSON(t, dir, victim)
			api.Script(fakemodel.Text("READY"), fakemodel.Text("ready to work"))
			id := run("sessions", "start", "--profile", "real", "--worktree", "hostile", "--prompt", "work")
			run("sessions", "wait", id, "--timeout", "2m")
			// By absolute path: codex's shell does not keep our PATH.
			cmd := "sh hostile.sh " + strings.Join([]string{dir, victim, strconv.Itoa(vrec.Pid), vrec.Dir, filepath.Join(binDir, "git-agentproto")}, " ")
			api.Script(fakemodel.Call(c.tool, map[string]string{c.arg: cmd}), fakemodel.Text("tried everything"))
			run("sessions", "prompt", id, "--text", "get out")
			run("sessions", "wait", id, "--timeout", "2m")
			wt := filepath.Join(filepath.Dir(vrec.Dir), "hostile")
			b, _ := os.ReadFile(filepath.Join(wt, "attempts.log"))
			attempts := string(b)
			t.Logf("attempts:\n%s", attempts)
			if !strings.Contains(attempts, "done") {
				t.Fatalf("the agent's shell did not run the attempts:\n%s\n%s", attempts, outputLog(dir, id))
			}
			for _, bad := range []string{"TOKEN-READ", "HOSTS-READ", "RUNTIME-LISTED", "TOKEN-FILE-READ", "STARTED", "KILLED", "PROMPTED", "MCP-ANSWERED", "SIGNALLED", "WROTE-", "MOVED-MAIN", "APPENDED"} {
				if strings.Contains(attempts, bad) {
					t.Errorf("the agent got through: %s", bad)
				}
			}
			for _, want := range []string{"refused start: agentproto: the sessions daemon refused", "refused kill: agentproto: the sessions daemon refused", "refused mcp kill", "committed own"} {
				if !strings.Contains(attempts, want) {
					t.Errorf("attempts.log lacks %q", want)
				}
			}
			if rec := sessionJSON(t, dir, victim); rec.State != "running" || !pidAlive(rec.Pid) {
				t.Errorf("the victim session is %s", rec.State)
			}
			if _, err := os.Stat(filepath.Join(dir, ".git", "hooks", "post-commit")); err == nil {
				t.Error("a hook was planted")
			}
			if rec := sessionJSON(t, dir, id); rec.Sandbox != "landlock" {
				t.Errorf("sandbox %q", rec.Sandbox)
			}
			run("sessions", "kill", id)
			run("sessions", "kill", victim)
		})
	}
}
