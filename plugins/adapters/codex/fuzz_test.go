package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/plugins/adapters/cliturn"
	"github.com/agentproto/agentproto/plugins/sdk"
)

type sink struct{ faults, warnings []string }

func (s *sink) Output([]byte) {}
func (s *sink) TurnStarted()  {}
func (s *sink) TurnEnded()    {}
func (s *sink) Exited(int)    {}
func (s *sink) Error(text, fault string) {
	if sdk.IsWarning(fault) {
		s.warnings = append(s.warnings, fault)
	} else {
		s.faults = append(s.faults, fault)
	}
}

// Any stream of events parses without a panic, reconnect notices are never
// faults, and a thread id that goes back into argv is safe.
func FuzzLines(f *testing.F) {
	f.Add(`{"type":"thread.started","thread_id":"01a2"}` + "\n" + `{"type":"error","message":"Reconnecting... 1/5 (unexpected status 429)"}` + "\n" + `{"type":"turn.failed","error":{"message":"unexpected status 429"}}`)
	f.Add(`{"type":"item.completed","item":{"type":"command_execution","command":"x","aggregated_output":"bash: /a: Read-only file system\n","status":"failed"}}`)
	f.Add(`{"type":"thread.started","thread_id":"--last"}`)
	f.Fuzz(func(t *testing.T, stream string) {
		d := &driver{opts: cliturn.Options{Binary: "codex"}, sandbox: "workspace-write"}
		out := &sink{}
		turn := &cliturn.Turn{N: 1, Out: out}
		for _, l := range strings.Split(stream, "\n") {
			d.Line(turn, []byte(l))
		}
		if strings.HasPrefix(strings.TrimSpace(stream), `{"type":"error","message":"Reconnecting... `) && !strings.Contains(stream, "\n") && len(out.faults) != 0 {
			t.Fatalf("a reconnect notice became a fault: %v", out.faults)
		}
		if d.thread != "" && !cliturn.SafeID(d.thread) {
			t.Fatalf("unsafe thread id kept: %q", d.thread)
		}
		c, _ := d.Command(&cliturn.Turn{N: 2, Prompt: "p", Out: out})
		if c.Args[len(c.Args)-1] != "-" {
			t.Fatalf("the prompt is not read from stdin: %q", c.Args)
		}
	})
}

func TestErrorThenTurnFailedIsOneFault(t *testing.T) {
	d := &driver{opts: cliturn.Options{Binary: "codex"}, sandbox: "workspace-write"}
	out := &sink{}
	turn := &cliturn.Turn{N: 1, Out: out}
	for _, l := range []string{
		`{"type":"error","message":"Reconnecting... 1/1 (unexpected status 503 Service Unavailable: The engine is currently overloaded)"}`,
		`{"type":"error","message":"unexpected status 503 Service Unavailable: The engine is currently overloaded"}`,
		`{"type":"turn.failed","error":{"message":"unexpected status 503 Service Unavailable: The engine is currently overloaded"}}`,
	} {
		d.Line(turn, []byte(l))
	}
	if len(out.faults) != 1 || out.faults[0] != sdk.FaultProviderUnavailable || len(out.warnings) != 1 {
		t.Fatalf("faults %v warnings %v", out.faults, out.warnings)
	}
}

// A refused write that only the rollout shows is warned of once, and a
// second turn reads only what it appended.
func TestRolloutShowsRefusedWrites(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "sessions", "2026", "12", "01")
	os.MkdirAll(dir, 0o700)
	path := filepath.Join(dir, "rollout-2026-12-01T20-47-32-th1.jsonl")
	line := `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Process exited with code 1\nOutput:\n/bin/bash: line 1: /x/out.txt: Read-only file system\n"}}` + "\n"
	os.WriteFile(path, []byte(line), 0o600)
	d := &driver{opts: cliturn.Options{Binary: "codex"}, sandbox: "workspace-write", home: home, thread: "th1", rolloutOff: map[string]int64{}}
	out := &sink{}
	d.End(&cliturn.Turn{N: 1, Out: out})
	if len(out.warnings) != 1 || out.warnings[0] != sdk.WarnPermissionDenied {
		t.Fatalf("warnings %v", out.warnings)
	}
	d.End(&cliturn.Turn{N: 2, Out: out})
	if len(out.warnings) != 1 {
		t.Fatalf("the old turn was read again: %v", out.warnings)
	}
}
