package codex

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/plugins/adapters/cliturn"
)

// A new process resuming the thread reads its rollout from where the
// earlier one stopped: a warning is not given again.
func TestResumeKeepsTheRolloutRead(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "sessions", "2026", "12", "01")
	os.MkdirAll(dir, 0o700)
	line := `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"/bin/bash: line 1: /x/out.txt: Read-only file system\n"}}` + "\n"
	os.WriteFile(filepath.Join(dir, "rollout-2026-12-01T20-47-32-th1.jsonl"), []byte(line), 0o600)
	first := &driver{sandbox: "workspace-write", home: home, thread: "th1", rolloutOff: map[string]int64{}}
	out := &sink{}
	first.End(&cliturn.Turn{N: 1, Out: out})
	state := first.ResumeState()
	if want := `{"thread":"th1","read":` + strconv.Itoa(len(line)) + `}`; string(state) != want {
		t.Fatalf("state %s, want %s", state, want)
	}
	next := &driver{sandbox: "workspace-write", home: home, rolloutOff: map[string]int64{}}
	if err := next.Restore(state); err != nil {
		t.Fatal(err)
	}
	next.End(&cliturn.Turn{N: 2, Out: out})
	if len(out.warnings) != 1 {
		t.Fatalf("the earlier turn's rollout was read again: %v", out.warnings)
	}
}

// A state whose thread would go into argv as something else is refused.
func TestRestoreRefusesAnUnsafeThread(t *testing.T) {
	for state, want := range map[string]string{
		`{"thread":"--last"}`:          "not a codex thread id",
		`{"thread":"a b"}`:             "not a codex thread id",
		`{"read":5}`:                   "without a thread",
		`{"thread":"t","session":"x"}`: "unknown field",
	} {
		d := &driver{rolloutOff: map[string]int64{}}
		if err := d.Restore([]byte(state)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", state, err, want)
		}
		if d.thread != "" {
			t.Errorf("%s: thread %q taken", state, d.thread)
		}
	}
}
