// Package adapters_test runs the SDK conformance suite against every
// reference adapter and checks the CLI adapters against stub CLIs that emit
// the documented formats.
package adapters_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentproto/agentproto/plugins/adapters/claudecode"
	"github.com/agentproto/agentproto/plugins/adapters/codex"
	"github.com/agentproto/agentproto/plugins/adapters/execadapter"
	"github.com/agentproto/agentproto/plugins/sdk"
	"github.com/agentproto/agentproto/plugins/sdk/sdktest"
)

// execStub is an exec adapter command reading the prompt from its file.
const execStub = `sh -c 'p=$(cat "$1"); if [ "$p" = slow ]; then exec sleep 60; fi; echo "got: $p"' sh {prompt}`

func stub(t *testing.T, name string) string {
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConformance(t *testing.T) {
	t.Run("exec", func(t *testing.T) {
		sdktest.Run(t, execadapter.Adapter{}, sdktest.Options{Prompt: "hello", LongPrompt: "slow",
			Options: map[string]string{"command": execStub}})
	})
	t.Run("claude-code", func(t *testing.T) {
		sdktest.Run(t, claudecode.Adapter{}, sdktest.Options{Prompt: "hello", LongPrompt: "slow", Options: map[string]string{"binary": stub(t, "stub-claude")}})
	})
	t.Run("codex", func(t *testing.T) {
		sdktest.Run(t, codex.Adapter{}, sdktest.Options{Prompt: "hello", LongPrompt: "slow", Options: map[string]string{"binary": stub(t, "stub-codex")}})
	})
}

// recorder is an Emitter that keeps everything.
type recorder struct {
	mu       sync.Mutex
	out      strings.Builder
	faults   []string
	errors   []string
	warnings []string // kind: text
	ends     int
	ended    chan struct{}
	usage    map[int][]sdk.Usage // by turn, counted from 0 (ends when reported)
}

func newRecorder() *recorder { return &recorder{ended: make(chan struct{}, 16)} }

func (r *recorder) Output(p []byte) { r.mu.Lock(); r.out.Write(p); r.mu.Unlock() }
func (r *recorder) TurnStarted()    {}
func (r *recorder) TurnEnded()      { r.mu.Lock(); r.ends++; r.mu.Unlock(); r.ended <- struct{}{} }
func (r *recorder) Error(text, fault string) {
	r.mu.Lock()
	if sdk.IsWarning(fault) {
		r.warnings = append(r.warnings, fault+": "+text)
	} else {
		r.faults = append(r.faults, fault)
		r.errors = append(r.errors, text)
	}
	r.mu.Unlock()
}
func (r *recorder) Exited(int) {}
func (r *recorder) Usage(u sdk.Usage) {
	r.mu.Lock()
	if r.usage == nil {
		r.usage = map[int][]sdk.Usage{}
	}
	r.usage[r.ends] = append(r.usage[r.ends], u)
	r.mu.Unlock()
}

func (r *recorder) waitTurn(t *testing.T) {
	t.Helper()
	select {
	case <-r.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the turn did not end")
	}
}

func runTurns(t *testing.T, a sdk.Adapter, opts map[string]string, env map[string]string, prompts ...string) *recorder {
	t.Helper()
	rec := newRecorder()
	s, err := a.Start(context.Background(), sdk.StartRequest{Dir: t.TempDir(), Options: opts, Env: env, InitialPrompt: prompts[0]}, rec)
	if err != nil {
		t.Fatal(err)
	}
	rec.waitTurn(t)
	for _, p := range prompts[1:] {
		if err := s.Prompt(context.Background(), p, false); err != nil {
			t.Fatal(err)
		}
		rec.waitTurn(t)
	}
	s.Terminate(context.Background())
	return rec
}

func TestClaudeCodeResumesAndParses(t *testing.T) {
	rec := runTurns(t, claudecode.Adapter{}, map[string]string{"binary": stub(t, "stub-claude")}, nil, "first", "second")
	out := rec.out.String()
	for _, want := range []string{"answer to: first", "[tool] Edit", "answer to: second", "resumed 5f0c1e2a-stub-session"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCodexResumesAndParses(t *testing.T) {
	rec := runTurns(t, codex.Adapter{}, map[string]string{"binary": stub(t, "stub-codex")}, nil, "first", "second")
	out := rec.out.String()
	for _, want := range []string{"$ ls\na.txt", "answer to: first", "resumed th_stub123"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestProviderFaultsAreTyped(t *testing.T) {
	cases := []struct {
		adapter sdk.Adapter
		stub    string
		mode    string
		fault   string
	}{
		{claudecode.Adapter{}, "stub-claude", "credits", sdk.FaultInsufficientCredits},
		{claudecode.Adapter{}, "stub-claude", "model", sdk.FaultInvalidModel},
		{claudecode.Adapter{}, "stub-claude", "auth", sdk.FaultAuthFailed},
		{claudecode.Adapter{}, "stub-claude", "ratelimit", sdk.FaultRateLimited},
		{codex.Adapter{}, "stub-codex", "credits", sdk.FaultInsufficientCredits},
		{codex.Adapter{}, "stub-codex", "model", sdk.FaultInvalidModel},
		{codex.Adapter{}, "stub-codex", "unavailable", sdk.FaultProviderUnavailable},
	}
	for _, c := range cases {
		t.Run(c.stub+"/"+c.mode, func(t *testing.T) {
			rec := runTurns(t, c.adapter, map[string]string{"binary": stub(t, c.stub)}, map[string]string{"STUB_MODE": c.mode}, "go")
			// One provider error is one fault, however often the CLI repeats it.
			if len(rec.faults) != 1 || rec.faults[0] != c.fault {
				t.Fatalf("faults = %v %q, want one %s", rec.faults, rec.errors, c.fault)
			}
		})
	}
}

func TestExecAdapterOptions(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "agent.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"args: $*\"\necho \"stdin: $(cat)\"\n"), 0o755)
	rec := runTurns(t, execadapter.Adapter{}, map[string]string{"command": script + " --yes", "resume": "--continue", "model": "--model {model}"}, nil, "one", "two")
	out := rec.out.String()
	if !strings.Contains(out, "args: --yes\nstdin: one") || !strings.Contains(out, "args: --yes --continue\nstdin: two") {
		t.Fatalf("output:\n%s", out)
	}
	if _, err := (execadapter.Adapter{}).Start(context.Background(), sdk.StartRequest{Dir: dir}, newRecorder()); err == nil || !strings.Contains(err.Error(), "options.command") {
		t.Fatalf("missing command: %v", err)
	}
}

// Every reference adapter also passes the suite as a real plugin process.
func TestConformanceBinaries(t *testing.T) {
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"github.com/agentproto/agentproto/cmd/agentproto-adapter-exec",
		"github.com/agentproto/agentproto/cmd/agentproto-adapter-claude-code",
		"github.com/agentproto/agentproto/cmd/agentproto-adapter-codex")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatal(err)
	}
	cases := map[string]map[string]string{
		"exec":        {"command": execStub},
		"claude-code": {"binary": stub(t, "stub-claude")},
		"codex":       {"binary": stub(t, "stub-codex")},
	}
	for name, opts := range cases {
		t.Run(name, func(t *testing.T) {
			sdktest.RunBinary(t, filepath.Join(dir, "agentproto-adapter-"+name), sdktest.Options{Prompt: "hello", LongPrompt: "slow", Options: opts})
		})
	}
}
