package adapters_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/plugins/adapters/claudecode"
	"github.com/agentproto/agentproto/plugins/adapters/codex"
	"github.com/agentproto/agentproto/plugins/adapters/execadapter"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// dashPrompt is what an option parser takes for flags if it is in argv.
const dashPrompt = "--- front matter\n- fix the bug"

// Prompts go on stdin (the stubs refuse one in argv) and arrive whole,
// a leading dash included.
func TestPromptsNeverInArgv(t *testing.T) {
	for name, a := range map[string]sdk.Adapter{"stub-claude": claudecode.Adapter{}, "stub-codex": codex.Adapter{}} {
		t.Run(name, func(t *testing.T) {
			rec := runTurns(t, a, map[string]string{"binary": stub(t, name)}, nil, dashPrompt, "-v")
			out := rec.out.String()
			if !strings.Contains(out, "answer to: "+dashPrompt) || !strings.Contains(out, "answer to: -v") || len(rec.faults) != 0 {
				t.Fatalf("faults %v %q, output:\n%s", rec.faults, rec.errors, out)
			}
		})
	}
}

// The exec adapter's {prompt} is a private file's path, gone after the
// turn; a prompt over the 128 KiB argv limit gets through.
func TestExecPromptFile(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "agent.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"mode $(stat -c %a \"$1\") size $(wc -c < \"$1\") head $(head -c 5 \"$1\")\"\necho \"$1\" > "+filepath.Join(dir, "path")+"\n"), 0o755)
	big := "- big" + strings.Repeat("x", 200<<10)
	rec := runTurns(t, execadapter.Adapter{}, map[string]string{"command": script + " {prompt}"}, nil, big)
	want := "mode 600 size " + strconv.Itoa(len(big)) + " head - big"
	if out := rec.out.String(); !strings.Contains(out, want) || len(rec.faults) != 0 {
		t.Fatalf("want %q, faults %v, output:\n%s", want, rec.errors, out)
	}
	p, _ := os.ReadFile(filepath.Join(dir, "path"))
	if _, err := os.Stat(strings.TrimSpace(string(p))); !os.IsNotExist(err) {
		t.Fatalf("the prompt file %s outlived its turn: %v", p, err)
	}
	_, err := (execadapter.Adapter{}).Start(context.Background(), sdk.StartRequest{Dir: dir, Options: map[string]string{"command": "x {prompt}", "prompt": "arg"}}, newRecorder())
	if err == nil || !strings.Contains(err.Error(), "never goes in argv") {
		t.Fatalf("prompt = arg: %v", err)
	}
}

// A retry notice is a progress warning; the turn that then succeeds has
// no fault.
func TestRetriesAreWarnings(t *testing.T) {
	for name, a := range map[string]sdk.Adapter{"stub-claude": claudecode.Adapter{}, "stub-codex": codex.Adapter{}} {
		t.Run(name, func(t *testing.T) {
			rec := runTurns(t, a, map[string]string{"binary": stub(t, name)}, map[string]string{"STUB_MODE": "retry"}, "go")
			if len(rec.faults) != 0 || len(rec.warnings) != 1 || !strings.HasPrefix(rec.warnings[0], "retrying: ") || !strings.Contains(rec.warnings[0], "429") {
				t.Fatalf("faults %q warnings %q", rec.errors, rec.warnings)
			}
		})
	}
}

// A write the agent's permissions refused is a permission_denied warning
// naming the tool and the path, once.
func TestPermissionDenialsAreWarnings(t *testing.T) {
	cases := map[string]struct {
		a    sdk.Adapter
		want string
	}{
		"stub-claude": {claudecode.Adapter{}, "permission_denied: Write /etc/x"},
		"stub-codex":  {codex.Adapter{}, "permission_denied: shell /var/x"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			rec := runTurns(t, c.a, map[string]string{"binary": stub(t, name)}, map[string]string{"STUB_MODE": "denied"}, "go")
			if len(rec.faults) != 0 || len(rec.warnings) != 1 || !strings.HasPrefix(rec.warnings[0], c.want) {
				t.Fatalf("faults %q warnings %q", rec.errors, rec.warnings)
			}
		})
	}
}

// An interrupted turn is a warning, and the session takes the next prompt.
func TestInterruptIsAWarning(t *testing.T) {
	for name, a := range map[string]sdk.Adapter{"stub-claude": claudecode.Adapter{}, "stub-codex": codex.Adapter{}} {
		t.Run(name, func(t *testing.T) {
			rec := newRecorder()
			s, err := a.Start(context.Background(), sdk.StartRequest{Dir: t.TempDir(), Options: map[string]string{"binary": stub(t, name)}, InitialPrompt: "slow"}, rec)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Terminate(context.Background())
			if err := s.Prompt(context.Background(), "after", true); err != nil {
				t.Fatal(err)
			}
			rec.waitTurn(t)
			rec.waitTurn(t)
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if len(rec.faults) != 0 || len(rec.warnings) != 1 || !strings.HasPrefix(rec.warnings[0], "interrupted: ") || !strings.Contains(rec.out.String(), "answer to: after") {
				t.Fatalf("faults %q warnings %q output:\n%s", rec.errors, rec.warnings, rec.out.String())
			}
		})
	}
}

// extra goes to every call and may not hold what exec resume rejects;
// extra_first goes to the first call only.
func TestCodexExtraSplit(t *testing.T) {
	_, err := (codex.Adapter{}).Start(context.Background(), sdk.StartRequest{Dir: t.TempDir(), Options: map[string]string{"binary": stub(t, "stub-codex"), "extra": "--add-dir /x"}, InitialPrompt: "go"}, newRecorder())
	if err == nil || !strings.Contains(err.Error(), "options.extra: --add-dir is rejected by codex exec resume; put it in extra_first") {
		t.Fatalf("extra --add-dir: %v", err)
	}
	for opt, want := range map[string]string{"--full-auto": "does not exist", "--sandbox=read-only": "options.sandbox", "--json": "set by the adapter"} {
		_, err := (codex.Adapter{}).Start(context.Background(), sdk.StartRequest{Dir: t.TempDir(), Options: map[string]string{"extra": opt}}, newRecorder())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("extra %s: %v", opt, err)
		}
	}
	_, err = (codex.Adapter{}).Start(context.Background(), sdk.StartRequest{Dir: t.TempDir(), Options: map[string]string{"sandbox": "open"}}, newRecorder())
	if err == nil || !strings.Contains(err.Error(), "read-only, workspace-write, danger-full-access") {
		t.Fatalf("bad sandbox: %v", err)
	}
	// The stub rejects --add-dir after resume, as codex does.
	rec := runTurns(t, codex.Adapter{}, map[string]string{"binary": stub(t, "stub-codex"), "extra_first": "--add-dir /x"}, nil, "one", "two")
	if len(rec.faults) != 0 || !strings.Contains(rec.out.String(), "answer to: two") {
		t.Fatalf("faults %q output:\n%s", rec.errors, rec.out.String())
	}
}

func TestClaudeOptionsChecked(t *testing.T) {
	for opts, want := range map[string]string{"permission_mode=yolo": "not one of acceptEdits", "extra=--permission-mode plan": "options.permission_mode", "extra_first=-p": "set by the adapter", "extra=--session-id 5f0c1e2a-0000-4000-8000-000000000001": "put it in extra_first"} {
		k, v, _ := strings.Cut(opts, "=")
		_, err := (claudecode.Adapter{}).Start(context.Background(), sdk.StartRequest{Dir: t.TempDir(), Options: map[string]string{k: v}}, newRecorder())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", opts, err)
		}
	}
	rec := runTurns(t, claudecode.Adapter{}, map[string]string{"binary": stub(t, "stub-claude")}, nil, "go")
	if !strings.Contains(rec.out.String(), "[tool] Edit a.txt") {
		t.Fatalf("output:\n%s", rec.out.String())
	}
}
