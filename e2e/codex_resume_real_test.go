package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/fakemodel"
)

// realSession is one real CLI's session driven through the sessions
// daemon and a profile, against its own loopback fake provider.
type realSession struct {
	dir, home, id string
	api           *fakemodel.Server
	run           func(args ...string) string
}

// startReal sets up the repository, the CLI's configuration and a
// profile for cli ("claude" or "codex"), then starts a session in the
// worktree "real" with first as its prompt and waits for that turn; the
// provider answers the spawn's ping and first with replies.
func startReal(t *testing.T, cli, first string, replies ...fakemodel.Reply) *realSession {
	t.Helper()
	return startRealWith(t, cli, "", first, replies...)
}

// startRealWith is startReal with more of agentproto.toml after the
// profile.
func startRealWith(t *testing.T, cli, more, first string, replies ...fakemodel.Reply) *realSession {
	t.Helper()
	bins := os.Getenv("AGENTPROTO_REAL_AGENTS")
	if bins == "" {
		t.Skip("the real agent CLIs are not installed: run make test-agents")
	}
	if err := cliAdapters(); err != nil {
		t.Fatal(err)
	}
	adapter, model, keyEnv := "claude-code", "claude-sonnet-4-5", "ANTHROPIC_API_KEY"
	if cli == "codex" {
		adapter, model, keyEnv = "codex", "gpt-5.1-codex", "OPENAI_API_KEY"
	}
	s := &realSession{dir: newRepo(t), home: homeOf(t), api: fakemodel.New(t)}
	s.api.SetModels(model)
	if cli == "claude" {
		writeConfig(t, filepath.Join(s.home, ".claude", "settings.json"), s.api.ClaudeSettings(1))
	} else {
		// /tmp, where the test's other directories are, is not writable
		// in the sandbox, as any place outside the worktree should be.
		writeConfig(t, filepath.Join(s.home, ".codex", "config.toml"), s.api.CodexConfig(model, keyEnv, 1)+
			"[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n")
	}
	os.WriteFile(filepath.Join(s.dir, "agentproto.toml"), []byte(fmt.Sprintf(`[plugins.%s]
options = { binary = %q }
[profiles.real]
adapter = %q
model = %q
auth = "api-key"
key_env = %q
`, adapter, filepath.Join(bins, cli), adapter, model, keyEnv)+more), 0o644)
	s.run = func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"agentproto"}, args...)...)
		cmd.Dir = s.dir
		cmd.Env = append(gitEnv(s.home), keyEnv+"="+fakemodel.Key)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	s.api.Script(replies...)
	// In a worktree, as dispatch runs agents: in the sandbox, a session
	// in the main checkout cannot add a file at its top.
	s.id = s.run("sessions", "start", "--profile", "real", "--worktree", "real", "--prompt", first)
	s.run("sessions", "wait", s.id, "--timeout", "2m")
	return s
}

// worktree is the session's worktree.
func (s *realSession) worktree() string {
	return filepath.Join(s.home, ".agentproto", "worktrees", "repo", "real")
}

// The write of a resumed codex turn (codex exec resume) is on disk once
// sessions wait returns, every time: 20 turns in one session, each
// writing its own file through codex's shell tool. Two races lost such a
// write with the session settled and no fault: a wait that took the
// previous turn's end for this one when the adapter's news of the start
// came late (TestWaitCoversATurnThatStartsLate), and a command that
// outlived codex's wait, stopped when codex exec exited
// (TestRealCodexCommandOutlivingItsTurn).
func TestRealCodexResumedWriteRepeated(t *testing.T) {
	s := startReal(t, "codex", "first", fakemodel.Text("READY"), fakemodel.Text("first answer"))
	const turns = 20
	var missing []string
	for i := 1; i <= turns; i++ {
		name := fmt.Sprintf("out%02d.txt", i)
		path := filepath.Join(s.worktree(), name)
		s.api.Script(writeCall("codex", path, name), fakemodel.Text("wrote "+name))
		s.run("sessions", "prompt", s.id, "--text", "write "+name)
		s.run("sessions", "wait", s.id, "--timeout", "2m")
		if b, err := os.ReadFile(path); err != nil || string(b) != name {
			missing = append(missing, fmt.Sprintf("%s (%q %v; %+v)", name, b, err, meta(t, s.dir, s.id)))
		}
	}
	m := meta(t, s.dir, s.id)
	t.Logf("%d/%d resumed writes on disk when wait returned; %d turns", turns-len(missing), turns, m.Turns)
	// turns+2: the spawn's liveness ping and the first prompt.
	if len(missing) != 0 || len(m.Faults) != 0 || hasPrefix(m.Warnings, "command_stopped: ") || m.Turns != turns+2 {
		t.Fatalf("%d of %d writes missing: %s\nfaults %v, warnings %q, turns %d (want %d)\n%s\nwhat codex told the model of its commands:\n%s\nrequests: %s",
			len(missing), turns, strings.Join(missing, "\n"), m.Faults, m.Warnings, m.Turns, turns+2, outputLog(s.dir, s.id), toolOutputs(s.home), s.answered())
	}
}

// toolOutputs is what codex told the model of each command it ran, from
// its transcripts (rollout-*.jsonl) under home.
func toolOutputs(home string) string {
	var out strings.Builder
	files, _ := filepath.Glob(filepath.Join(home, ".codex", "sessions", "*", "*", "*", "rollout-*.jsonl"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(b), "\n") {
			var l struct {
				Timestamp string `json:"timestamp"`
				Payload   struct {
					Type   string `json:"type"`
					Output string `json:"output"`
				} `json:"payload"`
			}
			if json.Unmarshal([]byte(line), &l) == nil && l.Payload.Type == "function_call_output" {
				fmt.Fprintf(&out, "%s %q\n", l.Timestamp, l.Payload.Output)
			}
		}
	}
	return out.String()
}

// answered lists the provider's requests as prompt=answer.
func (s *realSession) answered() string {
	var out []string
	for _, r := range s.api.Requests() {
		out = append(out, r.Prompt+"="+r.Answered)
	}
	return strings.Join(out, ", ")
}
