package adapters_test

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// A per-turn CLI adapter says after a turn that its session can be
// resumed; the host ends that plugin process, and a new one started with
// the state runs the next prompt as the same conversation's next turn.
// Each session here is a real plugin process driven through the host.
func TestResumeInANewProcess(t *testing.T) {
	bins := buildAdapters(t)
	t.Run("claude-code", func(t *testing.T) {
		args := filepath.Join(t.TempDir(), "args")
		r := resumeAcross(t, bins, "claude-code", map[string]string{"binary": stub(t, "stub-claude")},
			map[string]string{"STUB_ARGS": args, "STUB_SESSION": "5f0c1e2a-resume-test"})
		if want := `{"turn":1,"driver":{"session":"5f0c1e2a-resume-test","cost":0.01}}`; r.first != want {
			t.Errorf("first state %s, want %s", r.first, want)
		}
		if want := `{"turn":2,"driver":{"session":"5f0c1e2a-resume-test","cost":0.03}}`; r.second != want {
			t.Errorf("second state %s, want %s", r.second, want)
		}
		// claude's cost is the whole session's after --resume: the new
		// process knows the cost so far, so the turn's own is what it added.
		if r.usage == nil || !r.usage.HasCost || math.Abs(r.usage.CostUSD-0.02) > 1e-9 {
			t.Errorf("the resumed turn's usage %+v, want a cost of 0.02", r.usage)
		}
		calls := lines(t, args)
		if len(calls) != 2 || strings.Contains(calls[0], "--resume") || !strings.HasSuffix(calls[1], " --resume 5f0c1e2a-resume-test") {
			t.Errorf("claude was called with\n%s", strings.Join(calls, "\n"))
		}
		if !strings.Contains(r.out, "answer to: second") || !strings.Contains(r.out, "resumed 5f0c1e2a-resume-test") {
			t.Errorf("the resumed turn's output:\n%s", r.out)
		}
	})
	t.Run("codex", func(t *testing.T) {
		args := filepath.Join(t.TempDir(), "args")
		r := resumeAcross(t, bins, "codex", map[string]string{"binary": stub(t, "stub-codex")},
			map[string]string{"STUB_ARGS": args, "STUB_THREAD": "th_resume42"})
		count := `"count":{"input_tokens":10,"cached_input_tokens":0,"cache_write_input_tokens":0,"output_tokens":5}`
		if want := `{"turn":1,"driver":{"thread":"th_resume42",` + count + `}}`; r.first != want {
			t.Errorf("first state %s, want %s", r.first, want)
		}
		if want := `{"turn":2,"driver":{"thread":"th_resume42",` + count + `}}`; r.second != want {
			t.Errorf("second state %s, want %s", r.second, want)
		}
		calls := lines(t, args)
		if len(calls) != 2 || strings.HasPrefix(calls[0], "exec resume") ||
			!strings.HasPrefix(calls[1], "exec resume --json ") || !strings.HasSuffix(calls[1], " th_resume42 -") {
			t.Errorf("codex was called with\n%s", strings.Join(calls, "\n"))
		}
		if !strings.Contains(r.out, "answer to: second") || !strings.Contains(r.out, "resumed th_resume42") {
			t.Errorf("the resumed turn's output:\n%s", r.out)
		}
		// codex counts the whole thread after exec resume: the new process
		// knows the thread's count, so the turn's own is what it added
		// (nothing, as the stub reports the same count every turn).
		if r.usage == nil || r.usage.InputTokens != 0 || r.usage.OutputTokens != 0 {
			t.Errorf("the resumed turn's usage %+v, want zero tokens", r.usage)
		}
	})
	t.Run("exec", func(t *testing.T) {
		script := filepath.Join(t.TempDir(), "agent.sh")
		os.WriteFile(script, []byte("#!/bin/sh\necho \"args: $*\"\necho \"stdin: $(cat)\"\n"), 0o755)
		r := resumeAcross(t, bins, "exec", map[string]string{"command": script + " --yes", "resume": "--continue"}, nil)
		if r.first != `{"turn":1}` || r.second != `{"turn":2}` {
			t.Errorf("states %s and %s", r.first, r.second)
		}
		if !strings.Contains(r.out, "args: --yes --continue\nstdin: second") {
			t.Errorf("the resumed turn's output:\n%s", r.out)
		}
	})
}

// buildAdapters builds the per-turn CLI adapters into a directory.
func buildAdapters(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"github.com/agentproto/agentproto/cmd/agentproto-adapter-exec",
		"github.com/agentproto/agentproto/cmd/agentproto-adapter-claude-code",
		"github.com/agentproto/agentproto/cmd/agentproto-adapter-codex")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// resumed is what resumeAcross saw.
type resumed struct {
	first, second string // the states said after each process's turn
	out           string // the second process's output
	usage         *sdk.Usage
}

// resumeAcross runs the prompt "first" in one plugin process until it says
// the session can be resumed, kills it, and runs "second" in a new process
// started from that state, in the same directory.
func resumeAcross(t *testing.T, bins, name string, opts, env map[string]string) resumed {
	t.Helper()
	dir := t.TempDir()
	var r resumed
	evs := turnIn(t, filepath.Join(bins, "agentproto-adapter-"+name),
		sdk.StartRequest{SessionID: "s", Dir: dir, Env: env, Options: opts, InitialPrompt: "first"})
	r.first = evs[len(evs)-1].Text
	evs = turnIn(t, filepath.Join(bins, "agentproto-adapter-"+name),
		sdk.StartRequest{SessionID: "s", Dir: dir, Env: env, Options: opts, InitialPrompt: "second", Resume: r.first})
	r.second = evs[len(evs)-1].Text
	for _, e := range evs {
		switch e.Kind {
		case host.Output:
			r.out += string(e.Data)
		case host.UsageReported:
			r.usage = e.Usage
		}
	}
	return r
}

// turnIn starts a session in a new plugin process and returns its events
// up to the Resumable that follows its turn; then the process is killed,
// as the host does with an idle one.
func turnIn(t *testing.T, bin string, req sdk.StartRequest) []*host.Event {
	t.Helper()
	c, err := host.Launch(host.Spec{Name: "under-test", Path: bin}, host.LaunchOptions{Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx, req); err != nil {
		t.Fatal(err)
	}
	var evs []*host.Event
	var ended bool
	c.Events(ctx, 0, func(e *host.Event) error {
		evs = append(evs, e)
		switch {
		case e.Kind == host.TurnEnded && !ended:
			ended = true
			time.AfterFunc(5*time.Second, cancel) // the state follows at once, or never
		case e.Kind == host.Resumable && ended, e.Kind == host.Exited:
			return context.Canceled
		}
		return nil
	})
	if len(evs) == 0 || evs[len(evs)-1].Kind != host.Resumable {
		t.Fatalf("the turn did not end with a resume state: %v\n%s", kindsOf(evs), c.StderrTail())
	}
	return evs
}

func kindsOf(evs []*host.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Kind.String()+" "+e.Text)
	}
	return out
}

func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}
