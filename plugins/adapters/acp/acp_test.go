package acp_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/procfs"
	"github.com/agentproto/agentproto/perimeter"
	"github.com/agentproto/agentproto/plugins/adapters/acp"
	"github.com/agentproto/agentproto/plugins/sdk"
	"github.com/agentproto/agentproto/plugins/sdk/sdktest"
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeAgentEnv) == "1" {
		runFakeAgent()
	}
	os.Exit(m.Run())
}

// fakeCommand is the options.command that runs this test binary as the
// fake agent.
func fakeCommand(t *testing.T) string {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return "env " + fakeAgentEnv + "=1 " + self
}

// recorder is an Emitter that keeps everything, like the sessions daemon.
type recorder struct {
	mu     sync.Mutex
	out    strings.Builder
	errors []string
	faults []string
	ends   chan struct{}
	// errorsAtEnd is how many errors had come when each turn ended.
	errorsAtEnd []int
	exited      bool
	turnsRun    int
	// caps holds each declaration of the session's capabilities.
	caps [][]string
	// usage holds each usage report, by the turn it came in (from 1).
	usage map[int][]sdk.Usage
}

func (r *recorder) Usage(u sdk.Usage) {
	r.mu.Lock()
	if r.usage == nil {
		r.usage = map[int][]sdk.Usage{}
	}
	r.usage[r.turnsRun] = append(r.usage[r.turnsRun], u)
	r.mu.Unlock()
}

func newRecorder() *recorder { return &recorder{ends: make(chan struct{}, 16)} }

func (r *recorder) Output(p []byte) { r.mu.Lock(); r.out.Write(p); r.mu.Unlock() }
func (r *recorder) TurnStarted()    { r.mu.Lock(); r.turnsRun++; r.mu.Unlock() }
func (r *recorder) TurnEnded() {
	r.mu.Lock()
	r.errorsAtEnd = append(r.errorsAtEnd, len(r.errors))
	r.mu.Unlock()
	r.ends <- struct{}{}
}
func (r *recorder) Error(text, fault string) {
	r.mu.Lock()
	if sdk.IsWarning(fault) {
		text = fault + ": " + text // as the sessions daemon records it
	} else if fault != "" {
		r.faults = append(r.faults, fault)
	}
	r.errors = append(r.errors, text)
	r.mu.Unlock()
}
func (r *recorder) Exited(int) { r.mu.Lock(); r.exited = true; r.mu.Unlock() }

// Capabilities holds the session to what the adapter declares, as the SDK
// does.
func (r *recorder) Capabilities(caps []string) error {
	bound := acp.Adapter{}.Info().Capabilities
	for _, c := range caps {
		if !slices.Contains(bound, c) {
			return fmt.Errorf("%s is beyond %v", c, bound)
		}
	}
	r.mu.Lock()
	r.caps = append(r.caps, caps)
	r.mu.Unlock()
	return nil
}

// declared returns every declaration so far.
func (r *recorder) declared() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]string(nil), r.caps...)
}

func (r *recorder) output() string { r.mu.Lock(); defer r.mu.Unlock(); return r.out.String() }
func (r *recorder) warnings(kind string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var w []string
	for _, e := range r.errors {
		if strings.HasPrefix(e, kind+": ") {
			w = append(w, e)
		}
	}
	return w
}

func (r *recorder) waitTurn(t *testing.T) {
	t.Helper()
	select {
	case <-r.ends:
	case <-time.After(30 * time.Second):
		t.Fatalf("the turn did not end; output:\n%s", r.output())
	}
}

// start opens a session of the fake agent in dir with env.
func start(t *testing.T, dir string, env map[string]string, opts map[string]string) (sdk.Session, *recorder) {
	t.Helper()
	o := map[string]string{"command": fakeCommand(t)}
	for k, v := range opts {
		o[k] = v
	}
	rec := newRecorder()
	s, err := acp.Adapter{}.Start(context.Background(), sdk.StartRequest{Dir: dir, Env: env, Options: o}, rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Terminate(context.Background()) })
	return s, rec
}

func turn(t *testing.T, s sdk.Session, rec *recorder, prompt string) {
	t.Helper()
	if err := s.Prompt(context.Background(), prompt, false); err != nil {
		t.Fatal(err)
	}
	rec.waitTurn(t)
}

func TestConformance(t *testing.T) {
	sdktest.Run(t, acp.Adapter{}, sdktest.Options{Prompt: "say hello", LongPrompt: "slow",
		Options: map[string]string{"command": fakeCommand(t)}})
}

func TestConformanceBinary(t *testing.T) {
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "github.com/agentproto/agentproto/cmd/agentproto-adapter-acp")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatal(err)
	}
	sdktest.RunBinary(t, filepath.Join(dir, "agentproto-adapter-acp"), sdktest.Options{Prompt: "say hello", LongPrompt: "slow",
		Options: map[string]string{"command": fakeCommand(t)}})
}

// A prompt travels as an ACP content block, never as an argument: one that
// starts with dashes arrives as it was written.
func TestDashPromptArrivesWhole(t *testing.T) {
	s, rec := start(t, t.TempDir(), nil, nil)
	turn(t, s, rec, "--- fix the bug\n- and this")
	if out := rec.output(); !strings.Contains(out, "echo: --- fix the bug\necho: - and this\n") {
		t.Fatalf("output:\n%s", out)
	}
}

// Agent messages that end without a newline each start a line of their
// own: a new message id, or a thought between two messages without ids,
// ends the one before. Chunks of one message stay on one line.
func TestAgentMessagesStartTheirOwnLine(t *testing.T) {
	s, rec := start(t, t.TempDir(), nil, nil)
	turn(t, s, rec, "msg m1 I will look.\nmsg m1  Then fix it.\nmsg m2 Fixed.\nmsg - Now\nmsg -  the tests.\nthink they pass\nmsg - All green.")
	if out := rec.output(); !strings.HasSuffix(out, "I will look. Then fix it.\nFixed.\nNow the tests.\nAll green.\n") {
		t.Fatalf("output:\n%q", out)
	}
}

func perimeterEnv(allow, deny []string) map[string]string {
	q := func(l []string) string {
		var b []string
		for _, s := range l {
			b = append(b, `"`+s+`"`)
		}
		return "[" + strings.Join(b, ",") + "]"
	}
	return map[string]string{perimeter.Env: `{"allow":` + q(allow) + `,"deny":` + q(deny) + `}`}
}

// Writes inside the perimeter happen; writes outside it are refused when
// asked for (permission) and when attempted (fs/write_text_file), the
// file never appears, and each refusal is a permission_denied warning
// naming the tool and the path.
func TestPerimeterEnforcedAtWriteTime(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "shared"), 0o755)
	s, rec := start(t, dir, perimeterEnv([]string{"src", "shared"}, []string{"shared/go.mod"}), nil)
	turn(t, s, rec, strings.Join([]string{
		"write " + filepath.Join(dir, "src/a.go") + " package a",
		"write " + filepath.Join(dir, "docs/x.md") + " not mine",
		"fswrite " + filepath.Join(dir, "docs/y.md") + " not mine either",
		"fswrite " + filepath.Join(dir, "src/../../escape.txt") + " up and out",
		"fswrite " + filepath.Join(outside, "abs.txt") + " elsewhere",
		"fswrite " + filepath.Join(dir, "shared/go.mod") + " shared",
		"fswrite " + filepath.Join(dir, ".git/config") + " hooks",
	}, "\n"))
	out := rec.output()
	if b, err := os.ReadFile(filepath.Join(dir, "src/a.go")); err != nil || string(b) != "package a" {
		t.Fatalf("in-perimeter write: %q %v\n%s", b, err, out)
	}
	if !strings.Contains(out, "permission allow\n") {
		t.Errorf("the in-perimeter write was not allowed once:\n%s", out)
	}
	for _, p := range []string{filepath.Join(dir, "docs/x.md"), filepath.Join(dir, "docs/y.md"), filepath.Join(filepath.Dir(dir), "escape.txt"),
		filepath.Join(outside, "abs.txt"), filepath.Join(dir, "shared/go.mod"), filepath.Join(dir, ".git/config")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	if !strings.Contains(out, "permission refused for "+filepath.Join(dir, "docs/x.md")) {
		t.Errorf("the out-of-perimeter edit was not refused at permission time:\n%s", out)
	}
	denied := rec.warnings(acp.WarnPermissionDenied)
	for _, want := range []string{"Write " + filepath.Join(dir, "docs/x.md") + ": outside the work package's perimeter",
		"fs/write_text_file " + filepath.Join(dir, "docs/y.md") + ": outside the work package's perimeter",
		"escape.txt: outside the worktree", "abs.txt: outside the worktree",
		"shared/go.mod: outside the work package's perimeter (shared/go.mod belongs to another owner)",
		".git/config: git metadata is never written by agents"} {
		found := false
		for _, d := range denied {
			found = found || strings.Contains(d, want)
		}
		if !found {
			t.Errorf("no permission_denied warning with %q in %q", want, denied)
		}
	}
	if len(rec.faults) != 0 {
		t.Errorf("refusals are warnings, not faults: %v", rec.faults)
	}
}

// A writing request is judged by every path it names, however the agent
// spells it, and one whose paths cannot be read is refused inside a work
// package: only requests that say they read go through without a path.
func TestPermissionReadsEveryPath(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "x.go")
	s, rec := start(t, dir, perimeterEnv([]string{"src"}, nil), nil)
	for _, c := range []struct {
		steps string // fake agent lines; the last one asks
		allow bool
		warn  string // in a permission_denied warning, when refused
	}{
		{`ask move {"from": "src/a.go", "to": "` + out + `"}`, false, out + ": outside the worktree"},
		{`ask move {"source": "src/a.go", "destination": "docs/a.go"}`, false, "docs/a.go: outside the work package's perimeter"},
		{`ask delete {"target": "docs/old.md"}`, false, "docs/old.md: outside the work package's perimeter"},
		{`ask edit {"new_path": "src/b.go", "old_path": "docs/b.go"}`, false, "docs/b.go: outside the work package's perimeter"},
		{`ask edit {"edits": [{"file": "src/a.go"}, {"file": "docs/c.md"}]}`, false, "docs/c.md: outside the work package's perimeter"},
		{`ask edit {"files": ["src/a.go", "docs/d.md"]}`, false, "docs/d.md: outside the work package's perimeter"},
		{`ask edit {"changes": {"src/a.go": {"type": "update", "move_path": "docs/e.go"}}}`, false, "docs/e.go: outside the work package's perimeter"},
		{`ask edit {"input": "*** Begin Patch\n*** Update File: src/a.go\n*** Move to: docs/f.go\n*** End Patch"}`, false, "docs/f.go: outside the work package's perimeter"},
		{`ask edit {"file_path": "~/.bashrc"}`, false, "~/.bashrc: outside the worktree"},
		{`ask edit {"uri": "file://` + out + `"}`, false, out + ": outside the worktree"},
		{`ask edit {"content": "x"}`, false, "no path could be read from the request (kind edit)"},
		{`ask - {"command": "rm -rf /"}`, false, "no path could be read from the request (kind not given)"},
		{`ask other {}`, false, "no path could be read from the request (kind other)"},
		// The tool call named a path the request leaves out.
		{"tool edit {\"file_path\": \"docs/g.md\"}\nask - {\"file_path\": \"src/g.go\"}", false, "docs/g.md: outside the work package's perimeter"},
		{`ask move {"from": "src/a.go", "to": "src/b.go"}`, true, ""},
		{"tool edit {\"file_path\": \"src/h.go\"}\nask - {}", true, ""},
		{`ask read {}`, true, ""},
		{`ask search {"path": "src", "pattern": "x"}`, true, ""},
		{`ask fetch {"url": "https://example.com"}`, true, ""},
		{`ask think {}`, true, ""},
	} {
		before := len(rec.warnings(acp.WarnPermissionDenied))
		turn(t, s, rec, c.steps)
		lines := strings.Split(strings.TrimSpace(rec.output()), "\n")
		last := lines[len(lines)-1]
		if got := strings.HasSuffix(last, " allow"); got != c.allow || !strings.HasPrefix(last, "ask ") {
			t.Errorf("%s: answered %q, want allow %v", c.steps, last, c.allow)
		}
		denied := rec.warnings(acp.WarnPermissionDenied)[before:]
		if c.allow && len(denied) != 0 || !c.allow && (len(denied) != 1 || !strings.Contains(denied[0], c.warn)) {
			t.Errorf("%s: permission_denied %q, want %q", c.steps, denied, c.warn)
		}
	}
	if len(rec.faults) != 0 {
		t.Errorf("refusals are warnings, not faults: %v", rec.faults)
	}
}

// A plain session's perimeter is the worktree: a write whose paths cannot
// be read is left to the agent as before, one that names a path outside is
// still refused.
func TestPlainSessionWritesWithoutPaths(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.go")
	s, rec := start(t, t.TempDir(), nil, nil)
	turn(t, s, rec, `ask edit {"content": "x"}`+"\n"+`ask move {"from": "a.go", "to": "`+out+`"}`)
	if o := rec.output(); !strings.Contains(o, "ask tool-1 allow\n") || !strings.Contains(o, "ask tool-2 reject\n") {
		t.Fatalf("output:\n%s", o)
	}
}

// A symlink inside the worktree never carries a write out of it, nor into
// another part of the worktree the perimeter does not cover.
func TestWritesNeverFollowSymlinks(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	os.MkdirAll(filepath.Join(dir, "other"), 0o755)
	os.Symlink(outside, filepath.Join(dir, "src/out"))
	os.Symlink(filepath.Join(dir, "other"), filepath.Join(dir, "src/side"))
	os.WriteFile(filepath.Join(outside, "target"), []byte("keep"), 0o644)
	os.Symlink(filepath.Join(outside, "target"), filepath.Join(dir, "src/file"))
	s, rec := start(t, dir, perimeterEnv([]string{"src"}, nil), nil)
	turn(t, s, rec, strings.Join([]string{
		"fswrite " + filepath.Join(dir, "src/out/x.txt") + " out",
		"write " + filepath.Join(dir, "src/side/y.txt") + " side",
		"fswrite " + filepath.Join(dir, "src/file") + " replaced",
		"read " + filepath.Join(dir, "src/out/../../../etc/hostname"),
	}, "\n"))
	if _, err := os.Lstat(filepath.Join(outside, "x.txt")); err == nil {
		t.Error("a write went through the symlink out of the worktree")
	}
	if _, err := os.Lstat(filepath.Join(dir, "other/y.txt")); err == nil {
		t.Error("a write went through the symlink into another part of the worktree")
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "target")); string(b) != "keep" {
		t.Errorf("the symlinked file's target was overwritten: %q", b)
	}
	if n := len(rec.warnings(acp.WarnPermissionDenied)); n != 4 {
		t.Errorf("%d permission_denied warnings, want 4: %q\n%s", n, rec.warnings(acp.WarnPermissionDenied), rec.output())
	}
}

// Without a WP the perimeter is the whole worktree; reads stay inside it.
func TestNoPerimeterMeansWorktree(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README"), []byte("line1\nline2\n"), 0o644)
	s, rec := start(t, dir, nil, nil)
	turn(t, s, rec, "fswrite "+filepath.Join(dir, "deep/new/file.txt")+" made\nread "+filepath.Join(dir, "README")+"\nread /etc/passwd")
	if b, err := os.ReadFile(filepath.Join(dir, "deep/new/file.txt")); err != nil || string(b) != "made" {
		t.Fatalf("write: %q %v", b, err)
	}
	out := rec.output()
	if !strings.Contains(out, "content: line1\nline2\n") || !strings.Contains(out, "read refused: ") {
		t.Fatalf("output:\n%s", out)
	}
}

// The shell: a plain session has it unless execute = "deny"; inside a
// work package's perimeter, which a command could write past, it is
// refused unless execute = "allow", and then noted once as unconfined.
func TestExecuteOption(t *testing.T) {
	wp := perimeterEnv([]string{"src"}, nil)
	for _, c := range []struct {
		name    string
		env     map[string]string
		execute string
		answer  string
		denied  string // the permission_denied warning, when refused
	}{
		{"plain session", nil, "", "allow", ""},
		{"plain session, deny", nil, "deny", "reject", `the shell is refused for this session (execute = "deny")`},
		{"work package", wp, "", "reject", `the shell is refused inside a work package's perimeter, which its commands could write past (options.execute = "allow" permits it)`},
		{"work package, allow", wp, "allow", "allow", ""},
		{"work package, deny", wp, "deny", "reject", `the shell is refused for this session (execute = "deny")`},
	} {
		opts := map[string]string{}
		if c.execute != "" {
			opts["execute"] = c.execute
		}
		s, rec := start(t, t.TempDir(), c.env, opts)
		turn(t, s, rec, "run make test\nrun go vet")
		out := rec.output()
		if strings.Count(out, "run "+c.answer+"\n") != 2 {
			t.Errorf("%s: want both commands answered %s:\n%s", c.name, c.answer, out)
		}
		denied := rec.warnings(acp.WarnPermissionDenied)
		if c.denied == "" && len(denied) != 0 || c.denied != "" && (len(denied) != 2 || !strings.Contains(denied[0], "Bash make test: "+c.denied)) {
			t.Errorf("%s: permission_denied %q, want %q", c.name, denied, c.denied)
		}
		notes := strings.Count(out, "its commands are not held to the work package's perimeter")
		if want := map[bool]int{true: 1}[c.name == "work package, allow"]; notes != want {
			t.Errorf("%s: %d notes that the shell is unconfined, want %d:\n%s", c.name, notes, want, out)
		}
	}
}

// An interrupt ends the turn with a warning, not a fault, and the session
// takes the next prompt.
func TestInterruptLeavesSessionUsable(t *testing.T) {
	s, rec := start(t, t.TempDir(), nil, nil)
	if err := s.Prompt(context.Background(), "slow", false); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(rec.output(), "working...") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.Prompt(context.Background(), "say after", true); err != nil {
		t.Fatal(err)
	}
	rec.waitTurn(t)
	rec.waitTurn(t)
	if len(rec.warnings(acp.WarnInterrupted)) != 1 || len(rec.faults) != 0 {
		t.Fatalf("errors %q faults %v", rec.errors, rec.faults)
	}
	if !strings.Contains(rec.output(), "after\n") {
		t.Fatalf("the turn after the interrupt did not run:\n%s", rec.output())
	}
}

func TestTurnErrorsAreTyped(t *testing.T) {
	cases := map[string]string{
		"API Error: 429 rate_limit_error":                          sdk.FaultRateLimited,
		`{"type":"error","error":{"type":"overloaded_error"}} 529`: sdk.FaultProviderUnavailable,
		"Service Unavailable (503)":                                sdk.FaultProviderUnavailable,
		"model not found: claude-nope (404)":                       sdk.FaultInvalidModel,
		"API Error: 401 invalid x-api-key":                         sdk.FaultAuthFailed,
		"402 Payment Required: credit balance is too low":          sdk.FaultInsufficientCredits,
		`{"error":{"code":400,"details":[{"reason":"API_KEY_INVALID"}],"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`: sdk.FaultAuthFailed,
		"models/gemini-nope is not found for API version v1beta, or is not supported for generateContent.":                                                        sdk.FaultInvalidModel,
	}
	for msg, fault := range cases {
		s, rec := start(t, t.TempDir(), nil, nil)
		turn(t, s, rec, "fail "+msg)
		if len(rec.faults) != 1 || rec.faults[0] != fault {
			t.Errorf("%q: faults %v, want %s (errors %q)", msg, rec.faults, fault, rec.errors)
		}
	}
}

func TestResumeLoadsEarlierSession(t *testing.T) {
	s, rec := start(t, t.TempDir(), nil, map[string]string{"resume": "earlier"})
	turn(t, s, rec, "say next")
	if out := rec.output(); !strings.Contains(out, "next") {
		t.Fatalf("output:\n%s", out)
	}
	// Session setup runs after Start returns: a fork the agent does not
	// offer ends the session with the reason.
	rec2 := newRecorder()
	s2, err := acp.Adapter{}.Start(context.Background(), sdk.StartRequest{Dir: t.TempDir(),
		Options: map[string]string{"command": fakeCommand(t), "fork": "earlier"}}, rec2)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Terminate(context.Background())
	for deadline := time.Now().Add(10 * time.Second); !rec2.hasExited() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	errs, _ := rec2.snapshot()
	if !rec2.hasExited() || len(errs) != 1 || !strings.Contains(errs[0], "does not offer session/fork") {
		t.Fatalf("fork on an agent without it: exited %v, errors %q", rec2.hasExited(), errs)
	}
	if err := s2.Prompt(context.Background(), "say hi", false); err == nil || !strings.Contains(err.Error(), "the session has ended") {
		t.Fatalf("a prompt after the failed setup: %v", err)
	}
}

func (r *recorder) hasExited() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.exited }

func TestBadOptionsAreProblems(t *testing.T) {
	for opts, want := range map[string]map[string]string{
		"options.command is required":        {},
		"options.binary is not an option":    {"command": "x", "binary": "y"},
		"options.execute is \"maybe\"":       {"command": "x", "execute": "maybe"},
		"cannot run /nonexistent/agent":      {"command": "/nonexistent/agent"},
		"resume and options.fork exclude":    {"command": "x", "resume": "a", "fork": "b"},
		perimeter.Env + " is not valid JSON": {"command": "x"},
	} {
		env := map[string]string{}
		if strings.HasPrefix(opts, perimeter.Env) {
			env[perimeter.Env] = `{"allow": "src"}`
		}
		_, err := acp.Adapter{}.Start(context.Background(), sdk.StartRequest{Dir: t.TempDir(), Options: want, Env: env}, newRecorder())
		if err == nil || !strings.Contains(err.Error(), opts) {
			t.Errorf("%v: %v, want %q", want, err, opts)
		}
	}
}

// A session declares the baseline at once, and what its agent's initialize
// answer offers once the session is open: two agents, two sets.
func TestSessionDeclaresWhatTheAgentOffers(t *testing.T) {
	base := []string{sdk.CapMessageInjection, sdk.CapInterrupt, sdk.CapTermination}
	for _, c := range []struct {
		caps string // the fake agent's agentCapabilities
		want []string
	}{
		{`{"loadSession":true}`, []string{sdk.CapMessageInjection, sdk.CapInterrupt, sdk.CapResume, sdk.CapTermination}},
		{`{"sessionCapabilities":{"fork":{},"list":{}}}`, []string{sdk.CapMessageInjection, sdk.CapInterrupt, sdk.CapStateFork, sdk.CapTermination}},
		{`{}`, base},
	} {
		s, rec := start(t, t.TempDir(), map[string]string{fakeCapsEnv: c.caps}, nil)
		if d := rec.declared(); len(d) != 1 || !slices.Equal(d[0], base) {
			t.Errorf("%s: declared at start %v, want %v", c.caps, d, base)
		}
		turn(t, s, rec, "say hi")
		d := rec.declared()
		if len(d) != 2 || !slices.Equal(d[1], c.want) {
			t.Errorf("%s: declared %v, want %v last", c.caps, d, c.want)
		}
	}
}

// A session that cannot be opened is one failure: one error, with its
// fault, however many steps of setup saw it.
func TestSetupFailureIsOneFault(t *testing.T) {
	for _, c := range []struct{ setup, model, fault, says string }{
		{"auth", "", sdk.FaultAuthFailed, "the agent asks for authentication"},
		{"model", "nope", sdk.FaultInvalidModel, "model not found: nope"},
	} {
		rec := newRecorder()
		s, err := acp.Adapter{}.Start(context.Background(), sdk.StartRequest{Dir: t.TempDir(), Model: c.model,
			Env: map[string]string{fakeSetupEnv: c.setup}, Options: map[string]string{"command": fakeCommand(t)}}, rec)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Terminate(context.Background())
		for deadline := time.Now().Add(10 * time.Second); !rec.hasExited() && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		errs, faults := rec.snapshot()
		if !rec.hasExited() || len(errs) != 1 || !strings.Contains(errs[0], c.says) || !slices.Equal(faults, []string{c.fault}) {
			t.Errorf("%s: exited %v, errors %q, faults %v; want one error saying %q with fault %s", c.setup, rec.hasExited(), errs, faults, c.says, c.fault)
		}
	}
}

// Terminate ends what the agent started too: a child it leaves running
// (an npm launcher's native binary) would otherwise be re-parented and
// outlive the session.
func TestTerminateEndsWhatTheAgentStarted(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, rec := start(t, t.TempDir(), nil, map[string]string{"command": "env " + fakeAgentEnv + "=1 " + fakeChildEnv + "=" + pidFile + " " + self})
	turn(t, s, rec, "hello")
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the agent's child %d is not running before Terminate: %v", pid, err)
	}
	if err := s.Terminate(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := procfs.ReadStat(pid)
		if err != nil || st.State == 'Z' {
			return // gone, or dead and waiting for its new parent to reap it
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent's child %d still runs after Terminate (state %c)", pid, st.State)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
