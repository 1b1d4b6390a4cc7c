package acp_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/fakemodel"
	"github.com/agentproto/agentproto/plugins/adapters/acp"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// The model of each agent is set over ACP (session/set_model, or the
// "model" config option), not by its own configuration, which names
// another model or none.
//
// The real ACP agents from npm, pinned in .agents/package.json and
// installed by `make test-agents`, each pointed at the loopback fake model
// API and steered by it into the agent's own write tool.
type realAgent struct {
	name    string
	command []string // under .agents/node_modules/.bin, then arguments
	model   string
	// env points the agent at the fake provider with key.
	env func(t testing.TB, fake *fakemodel.Server, key string) map[string]string
	// write is the model reply that makes the agent write a file with its
	// own tool.
	write func(path, content string) fakemodel.Reply
	// options are adapter options the agent needs.
	options map[string]string
	// failsOn429 is true for an agent that does not retry a 429 within the
	// turn (measured: codex-acp 0.16.0 sends one request and ends the turn
	// "exceeded retry limit", whatever request_max_retries says).
	failsOn429 bool
	// wrap, when set, turns the agent's command line into the one run.
	wrap func(cmd string) string
}

// codexFeatures offers apply_patch as a JSON function tool, the form the
// fake provider calls (the freeform grammar tool is the default).
const codexFeatures = "\n[features]\napply_patch_freeform = false\n"

var realAgents = []realAgent{
	{
		name:    "claude-code-acp",
		command: []string{"claude-code-acp"},
		model:   "claude-sonnet-4-5-20250929",
		env: func(t testing.TB, fake *fakemodel.Server, key string) map[string]string {
			// The provider and quiet settings go where claude reads them, as
			// for the claude-code adapter.
			home := t.TempDir()
			os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
			if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(fake.ClaudeSettings(1)), 0o600); err != nil {
				t.Fatal(err)
			}
			// As root (CI), claude refuses to start unless told it is sandboxed.
			return map[string]string{"ANTHROPIC_API_KEY": key, "HOME": home, "IS_SANDBOX": "1"}
		},
		write: func(path, content string) fakemodel.Reply {
			return fakemodel.Call("mcp__acp__Write", map[string]string{"file_path": path, "content": content})
		},
	},
	{
		name:    "codex-acp",
		command: []string{"codex-acp"},
		model:   "gpt-5.4",
		env: func(t testing.TB, fake *fakemodel.Server, key string) map[string]string {
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(fake.CodexConfig("gpt-5.4-mini", "OPENAI_API_KEY", 2)+codexFeatures), 0o600); err != nil {
				t.Fatal(err)
			}
			return map[string]string{"CODEX_HOME": home, "OPENAI_API_KEY": key, "HOME": t.TempDir()}
		},
		write: func(path, content string) fakemodel.Reply {
			patch := "*** Begin Patch\n*** Add File: " + path + "\n+" + content + "\n*** End Patch\n"
			return fakemodel.Patch(patch)
		},
		options:    map[string]string{"mode": "read-only"},
		failsOn429: true,
	},
}

// gemini is Gemini CLI in ACP mode. It is not in realAgents: with reads
// answered over ACP it cannot create a file (measured with 0.61.0:
// write_file reads the path first, and the "Resource not found" error of
// fs/read_text_file reaches it as a plain object its ENOENT check never
// matches, so the tool fails "Error checking existing file"). It edits
// existing files (TestRealGeminiEditsOnlyInsidePerimeter) and, with
// fs_read = "agent", creates them (TestRealGeminiCreatesFilesOnlyInsidePerimeter).
var gemini = realAgent{
	name:    "gemini",
	command: []string{"gemini", "--experimental-acp"},
	model:   "gemini-2.5-pro",
	env: func(t testing.TB, fake *fakemodel.Server, key string) map[string]string {
		return map[string]string{"GEMINI_API_KEY": key, "GOOGLE_GEMINI_BASE_URL": fake.URL, "HOME": t.TempDir()}
	},
	write: func(path, content string) fakemodel.Reply {
		return fakemodel.Call("write_file", map[string]string{"file_path": path, "content": content})
	},
}

// agentsDir is where `make test-agents` installed the pinned agents
// (AGENTPROTO_REAL_AGENTS), or "" when they are not installed.
func agentsDir(t *testing.T) string {
	return os.Getenv("AGENTPROTO_REAL_AGENTS")
}

// need returns the agent's command line, or skips when it is not installed.
func need(t *testing.T, a realAgent) string {
	dir := agentsDir(t)
	if dir == "" {
		t.Skip("the real ACP agents are not installed: run make test-agents (AGENTPROTO_REAL_AGENTS names their directory)")
	}
	bin := filepath.Join(dir, a.command[0])
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is not in %s: %v", a.name, dir, err)
	}
	cmd := bin
	for _, arg := range a.command[1:] {
		cmd += " " + arg
	}
	return cmd
}

// setup is one real agent's session against its own fake provider, in a
// git worktree whose WP owns src/.
type setup struct {
	a       realAgent
	fake    *fakemodel.Server
	dir     string
	outside string
	s       sdk.Session
	rec     *recorder
	// env and opts started s, for a second session of the same agent.
	env  map[string]string
	opts map[string]string
}

func newSetup(t *testing.T, a realAgent, key string, models ...string) *setup {
	cmd := need(t, a)
	isolate(t)
	st := &setup{a: a, fake: fakemodel.New(t), dir: t.TempDir(), outside: t.TempDir()}
	if out, err := exec.Command("git", "init", "-q", st.dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if len(models) == 0 {
		models = []string{a.model}
	}
	st.fake.SetModels(models...)
	if a.wrap != nil {
		cmd = a.wrap(cmd)
	}
	opts := map[string]string{"command": cmd}
	for k, v := range a.options {
		opts[k] = v
	}
	env := a.env(t, st.fake, key)
	env["PATH"] = os.Getenv("PATH")
	for k, v := range perimeterEnv([]string{"src"}, nil) {
		env[k] = v
	}
	st.rec, st.env, st.opts = newRecorder(), env, opts
	s, err := acp.Adapter{}.Start(context.Background(), sdk.StartRequest{Dir: st.dir, Env: env, Options: opts, Model: a.model}, st.rec)
	if err != nil {
		t.Fatalf("%v (errors %q)", err, st.rec.errors)
	}
	st.s = s
	t.Cleanup(func() { s.Terminate(context.Background()) })
	t.Cleanup(func() {
		if t.Failed() {
			for _, r := range st.fake.Requests() {
				t.Logf("provider saw: %s %s model=%s prompt=%q answered %s", r.API, r.Path, r.Model, r.Prompt, r.Answered)
			}
		}
	})
	return st
}

// isolate keeps this process's provider settings away from the agent.
func isolate(t *testing.T) {
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		for _, p := range []string{"ANTHROPIC_", "CLAUDE_", "CODEX_", "OPENAI_", "GEMINI_", "GOOGLE_", "XDG_"} {
			if strings.HasPrefix(k, p) {
				t.Setenv(k, os.Getenv(k))
				os.Unsetenv(k)
			}
		}
	}
}

func (st *setup) turn(t *testing.T, prompt string) {
	t.Helper()
	if err := st.s.Prompt(context.Background(), prompt, false); err != nil {
		t.Fatal(err)
	}
	st.rec.waitReal(t)
}

func (r *recorder) waitReal(t *testing.T) {
	t.Helper()
	select {
	case <-r.ends:
	case <-time.After(90 * time.Second):
		t.Fatalf("the turn did not end; output:\n%s", r.output())
	}
}

func (r *recorder) snapshot() (errs, faults []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errors...), append([]string(nil), r.faults...)
}

const dashPrompt = "- fix the bug\n---\ntitle: front matter"

// A dash-leading prompt arrives whole; the next turn writes in the
// worktree with the agent's own tool; a write outside the worktree and one
// inside it but outside the perimeter are refused when attempted, and
// neither file ever appears.
func TestRealACPWritesOnlyInsidePerimeter(t *testing.T) {
	for _, a := range realAgents {
		t.Run(a.name, func(t *testing.T) {
			st := newSetup(t, a, fakemodel.Key)
			st.fake.Script(fakemodel.Text("first answer"))
			st.turn(t, dashPrompt)
			inside := filepath.Join(st.dir, "src/new.txt")
			st.fake.Script(a.write(inside, "inside"), fakemodel.Text("wrote it"))
			st.turn(t, "write src/new.txt")
			if b, err := os.ReadFile(inside); err != nil || strings.TrimSpace(string(b)) != "inside" {
				t.Fatalf("the in-perimeter write: %q %v\n%s", b, err, st.rec.output())
			}
			out := filepath.Join(st.outside, "evil.txt")
			// After a refusal an agent may end the turn or ask again: the
			// default reply answers whatever follows, so no scripted reply
			// is left for the next turn.
			st.fake.Script(a.write(out, "outside"))
			st.turn(t, "write outside the worktree")
			side := filepath.Join(st.dir, "docs/side.txt")
			st.fake.Script(a.write(side, "not mine"))
			st.turn(t, "write docs/side.txt")
			for _, p := range []string{out, side} {
				if _, err := os.Lstat(p); err == nil {
					t.Errorf("%s was written", p)
				}
			}
			errs, faults := st.rec.snapshot()
			denied := st.rec.warnings(acp.WarnPermissionDenied)
			for _, want := range []string{out + ": outside the worktree", side + ": outside the work package's perimeter"} {
				found := false
				for _, d := range denied {
					found = found || strings.Contains(d, want)
				}
				if !found {
					t.Errorf("no permission_denied warning ending %q: %q", want, errs)
				}
			}
			if len(faults) != 0 {
				t.Errorf("faults %v (errors %q)", faults, errs)
			}
			prompts := map[string]bool{}
			for _, r := range st.fake.Requests() {
				prompts[r.Prompt] = true
			}
			if !prompts[dashPrompt] {
				t.Errorf("the dash prompt did not arrive whole: %v", prompts)
			}
			if !strings.Contains(st.rec.output(), "first answer") || !strings.Contains(st.rec.output(), "wrote it") {
				t.Errorf("output:\n%s", st.rec.output())
			}
		})
	}
}

// Provider failures: a 429 the agent retries past is no fault; what stays
// failed is typed.
func TestRealACPProviderFaults(t *testing.T) {
	cases := []struct {
		name   string
		key    string
		models []string
		script []fakemodel.Reply
		fail   int // the provider's answer from then on
		fault  string
	}{
		{name: "429-then-success", script: []fakemodel.Reply{fakemodel.Fail(429), fakemodel.Text("recovered")}},
		{name: "529", fail: 529, fault: sdk.FaultProviderUnavailable},
		{name: "503", fail: 503, fault: sdk.FaultProviderUnavailable},
		{name: "bad-model", models: []string{"some-other-model"}, fault: sdk.FaultInvalidModel},
		{name: "bad-key", key: "sk-wrong-key", fault: sdk.FaultAuthFailed},
	}
	for _, a := range append(realAgents[:len(realAgents):len(realAgents)], gemini) {
		for _, c := range cases {
			t.Run(a.name+"/"+c.name, func(t *testing.T) {
				if a.name == gemini.name && c.fail >= 500 {
					t.Skip("Gemini CLI retries a 5xx for minutes (measured: still retrying after 90 s)")
				}
				key := fakemodel.Key
				if c.key != "" {
					key = c.key
				}
				st := newSetup(t, a, key, c.models...)
				st.fake.Script(c.script...)
				if c.fail != 0 {
					st.fake.Default = fakemodel.Fail(c.fail)
				}
				st.turn(t, "go")
				errs, faults := st.rec.snapshot()
				if c.fault == "" && a.failsOn429 {
					// The turn fails rate_limited; the session goes on.
					st.fake.Script(fakemodel.Text("recovered"))
					st.turn(t, "again")
					errs, faults = st.rec.snapshot()
					if len(faults) != 1 || faults[0] != sdk.FaultRateLimited || !strings.Contains(st.rec.output(), "recovered") {
						t.Fatalf("faults %v errors %q output:\n%s", faults, errs, st.rec.output())
					}
					return
				}
				if c.fault == "" {
					if len(faults) != 0 || !strings.Contains(st.rec.output(), "recovered") {
						t.Fatalf("faults %v errors %q output:\n%s", faults, errs, st.rec.output())
					}
					return
				}
				if len(faults) != 1 || faults[0] != c.fault {
					t.Fatalf("faults %v, want [%s]; errors %q output:\n%s", faults, c.fault, errs, st.rec.output())
				}
			})
		}
	}
}

// An interrupt ends the turn with a warning and the session goes on.
func TestRealACPInterrupt(t *testing.T) {
	for _, a := range realAgents {
		t.Run(a.name, func(t *testing.T) {
			st := newSetup(t, a, fakemodel.Key)
			st.fake.Script(fakemodel.Reply{Text: strings.Repeat("slowly ", 200), Delay: 100 * time.Millisecond})
			if err := st.s.Prompt(context.Background(), "write a lot", false); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(60 * time.Second)
			for !strings.Contains(st.rec.output(), "slowly") && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			st.fake.Script(fakemodel.Text("after the interrupt"))
			if err := st.s.Prompt(context.Background(), "now this", true); err != nil {
				t.Fatal(err)
			}
			st.rec.waitReal(t)
			st.rec.waitReal(t)
			errs, faults := st.rec.snapshot()
			if len(faults) != 0 || len(st.rec.warnings(acp.WarnInterrupted)) != 1 {
				t.Fatalf("faults %v errors %q", faults, errs)
			}
			if !strings.Contains(st.rec.output(), "after the interrupt") {
				t.Fatalf("the session did not go on:\n%s", st.rec.output())
			}
		})
	}
}

// Inside a work package the agent's shell is refused by default, when the
// agent asks to run the command: the file the command would make never
// appears, and the refusal names the option that permits the shell.
func TestRealACPShellRefusedInWorkPackage(t *testing.T) {
	for _, c := range []struct {
		a     realAgent
		shell func(cmd string) fakemodel.Reply
	}{
		{realAgents[0], func(cmd string) fakemodel.Reply {
			return fakemodel.Call("Bash", map[string]string{"command": cmd, "description": "make a file"})
		}},
		{gemini, func(cmd string) fakemodel.Reply {
			return fakemodel.Call("run_shell_command", map[string]string{"command": cmd, "description": "make a file"})
		}},
	} {
		t.Run(c.a.name, func(t *testing.T) {
			st := newSetup(t, c.a, fakemodel.Key)
			made := filepath.Join(st.dir, "by-shell.txt")
			st.fake.Script(c.shell("touch "+made), fakemodel.Text("ran it"))
			st.turn(t, "run touch")
			if _, err := os.Lstat(made); err == nil {
				t.Errorf("the shell ran: %s exists\n%s", made, st.rec.output())
			}
			errs, faults := st.rec.snapshot()
			found := false
			for _, d := range st.rec.warnings(acp.WarnPermissionDenied) {
				found = found || strings.Contains(d, `the shell is refused inside a work package's perimeter`)
			}
			if !found || len(faults) != 0 {
				t.Fatalf("faults %v errors %q\n%s", faults, errs, st.rec.output())
			}
		})
	}
}

// Gemini CLI over ACP: a dash prompt arrives whole, an existing file in
// the perimeter is rewritten with its write_file tool, and one outside the
// perimeter is refused when the write is asked for and stays as it was.
func TestRealGeminiEditsOnlyInsidePerimeter(t *testing.T) {
	st := newSetup(t, gemini, fakemodel.Key)
	mine, theirs := filepath.Join(st.dir, "src/mine.txt"), filepath.Join(st.dir, "docs/theirs.txt")
	for _, p := range []string{mine, theirs} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("old\n"), 0o644)
	}
	st.fake.Script(fakemodel.Text("first answer"))
	st.turn(t, dashPrompt)
	st.fake.Script(gemini.write(mine, "new"), fakemodel.Text("wrote it"))
	st.turn(t, "rewrite src/mine.txt")
	if b, _ := os.ReadFile(mine); strings.TrimSpace(string(b)) != "new" {
		t.Fatalf("src/mine.txt is %q\n%s", b, st.rec.output())
	}
	st.fake.Script(gemini.write(theirs, "taken"))
	st.turn(t, "rewrite docs/theirs.txt")
	if b, _ := os.ReadFile(theirs); string(b) != "old\n" {
		t.Fatalf("docs/theirs.txt outside the perimeter was rewritten: %q", b)
	}
	errs, faults := st.rec.snapshot()
	found := false
	for _, d := range st.rec.warnings(acp.WarnPermissionDenied) {
		found = found || strings.Contains(d, theirs+": outside the work package's perimeter")
	}
	if !found || len(faults) != 0 {
		t.Fatalf("faults %v errors %q\n%s", faults, errs, st.rec.output())
	}
	saw := false
	for _, r := range st.fake.Requests() {
		saw = saw || strings.Contains(r.Prompt, dashPrompt)
	}
	if !saw {
		t.Error("the dash prompt did not arrive whole")
	}
}

// With fs_read = "agent", Gemini CLI reads its own disk and so can create
// files; every write still comes to the client: a new file inside the
// perimeter appears, one outside is refused at the write and never exists.
func TestRealGeminiCreatesFilesOnlyInsidePerimeter(t *testing.T) {
	g := gemini
	g.options = map[string]string{"fs_read": "agent"}
	st := newSetup(t, g, fakemodel.Key)
	mine, theirs := filepath.Join(st.dir, "src/new.txt"), filepath.Join(st.dir, "docs/new.txt")
	os.MkdirAll(filepath.Dir(theirs), 0o755)
	st.fake.Script(g.write(mine, "created"), fakemodel.Text("created it"))
	st.turn(t, "create src/new.txt")
	if b, err := os.ReadFile(mine); err != nil || strings.TrimSpace(string(b)) != "created" {
		t.Fatalf("src/new.txt: %q %v\n%s", b, err, st.rec.output())
	}
	st.fake.Script(g.write(theirs, "taken"))
	st.turn(t, "create docs/new.txt")
	if _, err := os.Lstat(theirs); err == nil {
		t.Fatalf("docs/new.txt outside the perimeter was created")
	}
	found := false
	for _, d := range st.rec.warnings(acp.WarnPermissionDenied) {
		found = found || strings.Contains(d, theirs+": outside the work package's perimeter")
	}
	if !found {
		t.Fatalf("no permission_denied for docs/new.txt\n%s", st.rec.output())
	}
}

// A session the agent offers to resume (session/resume or session/load) or
// fork continues the conversation in a new adapter session: the provider
// is sent the earlier turn again. The session id is the one the adapter
// names on its stderr when the session opens, as docs/adapters.md says.
func TestRealACPResumeAndForkContinueTheConversation(t *testing.T) {
	for _, a := range realAgents {
		t.Run(a.name, func(t *testing.T) {
			stderr := &syncWriter{}
			saved := sdk.Stderr
			sdk.Stderr = stderr
			t.Cleanup(func() { sdk.Stderr = saved })
			st := newSetup(t, a, fakemodel.Key)
			st.fake.Script(fakemodel.Text("noted"))
			st.turn(t, "remember the word PELICAN")
			m := regexp.MustCompile(`session (\S+), offers: (.*)`).FindStringSubmatch(stderr.String())
			if m == nil {
				t.Fatalf("no session line on stderr:\n%s", stderr.String())
			}
			id, offers := m[1], m[2]
			st.s.Terminate(context.Background())
			for _, mode := range []string{"resume", "fork"} {
				if mode == "resume" && !strings.Contains(offers, "resume") && !strings.Contains(offers, "load") ||
					mode == "fork" && !strings.Contains(offers, "fork") {
					t.Logf("%s offers %q: no %s", a.name, offers, mode)
					continue
				}
				opts := map[string]string{mode: id}
				for k, v := range st.opts {
					opts[k] = v
				}
				rec := newRecorder()
				s, err := acp.Adapter{}.Start(context.Background(), sdk.StartRequest{Dir: st.dir, Env: st.env, Options: opts, Model: a.model}, rec)
				if err != nil {
					t.Fatalf("%s: %v", mode, err)
				}
				before := len(st.fake.Requests())
				st.fake.Script(fakemodel.Text("PELICAN"))
				if err := s.Prompt(context.Background(), "which word did I ask you to remember?", false); err != nil {
					t.Fatal(err)
				}
				rec.waitReal(t)
				s.Terminate(context.Background())
				reqs := st.fake.Requests()[before:]
				carried := false
				for _, r := range reqs {
					carried = carried || strings.Contains(r.Prompt, "which word") && bytes.Contains(r.Body, []byte("remember the word PELICAN"))
				}
				if !carried {
					errs, faults := rec.snapshot()
					t.Fatalf("%s %s: the provider was not sent the earlier turn (%d requests; errors %q, faults %q)\n%s\nstderr:\n%s", a.name, mode, len(reqs), errs, faults, rec.output(), stderr.String())
				}
			}
		})
	}
}

// syncWriter lets the adapter's goroutines write stderr while the test reads it.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
