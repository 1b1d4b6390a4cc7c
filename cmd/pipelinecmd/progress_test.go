package pipelinecmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/profiles"
	"github.com/agentproto/agentproto/sessions"
)

func wave(state string, turns int) []pipeline.SessionStatus {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)
	return []pipeline.SessionStatus{
		{WP: "WP1", Record: &sessions.Record{ID: "s-1", State: state, Turns: turns, LastActivity: at}},
		{WP: "WP2", Record: &sessions.Record{ID: "s-2", State: "running", Turns: 1, LastActivity: at}},
	}
}

// Off a terminal a wave prints only what changed, one line each, so a log
// of a long wait stays short; a line of its own starts the next wave over.
func TestProgressPrintsChangesOffATerminal(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, false)
	p.Sessions(wave("running", 1))
	p.Sessions(wave("running", 1))
	p.Sessions(wave("settled", 2))
	if strings.Contains(b.String(), "\x1b[") {
		t.Fatalf("escape codes off a terminal: %q", b.String())
	}
	want := "WP1   running    turns=1, last activity 03:04:05\n" +
		"WP2   running    turns=1, last activity 03:04:05\n" +
		"WP1   settled    turns=2, last activity 03:04:05\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	p.Event("WP1", "verify", "pass")
	p.Sessions(wave("settled", 2))
	if !strings.Contains(b.String(), "WP2   running") {
		t.Fatalf("after an event the wave is printed again: %q", b.String())
	}
}

// On a terminal the wave is a table redrawn in place: the cursor moves up
// over the lines it drew, never over a line someone else printed.
func TestProgressRedrawsATableOnATerminal(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, true)
	p.Sessions(wave("running", 1))
	if strings.Contains(b.String(), "\x1b[2A") {
		t.Fatalf("moved up before drawing: %q", b.String())
	}
	b.Reset()
	p.Sessions(wave("settled", 2))
	if !strings.HasPrefix(b.String(), "\x1b[2A\x1b[2KWP1   settled   turns=2") || strings.Count(b.String(), "\x1b[2K") != 2 {
		t.Fatalf("redraw = %q", b.String())
	}
	b.Reset()
	p.Event("WP1", "verify", "pass")
	p.Sessions(wave("settled", 2))
	if strings.Contains(b.String(), "\x1b[2A") {
		t.Fatalf("the table was drawn over the verify line: %q", b.String())
	}
}

func TestProgressPrintsRunResults(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, false)
	p.Step("consolidate")
	p.Result(&pipeline.Checkpoint{WP: "WP0", Commit: "0123456789abcdef", Paths: []string{"a", "b"}})
	p.Result(&pipeline.Consolidation{Merged: []string{"WP0", "WP1"}, Branch: "wt/demo-integration", OK: true, Gate: &judge.Gate{ExitCode: 0},
		Wiring: []pipeline.AppliedWiring{{WP: "WP1", File: "registry.txt", Line: "upper", Status: "applied"}}})
	p.Result(&pipeline.Consolidation{Merged: []string{"WP0"}, Findings: []judge.Finding{{Code: "conflict", WP: "WP1", File: "a.go", Message: "both changed"}}})
	p.Result(&pipeline.ReviewResult{Findings: []judge.Finding{{Code: "no-assert", File: "x_test.go", Line: 3, Message: "asserts nothing", Severity: "warning"}}})
	p.Result(&pipeline.E2EResult{Commands: []judge.GateRun{{Gate: judge.Gate{Command: "sh e2e.sh", ExitCode: 3}}}})
	p.Result(&pipeline.PROutcome{Result: &pipeline.PRResult{Number: 7, URL: "https://example.com/pull/7"}})
	p.Result(&pipeline.PROutcome{Request: &pipeline.PRPlan{Push: []string{"git", "push"}}})
	p.Preflight([]profiles.Result{{Name: "paid", Adapter: "scripted", Problems: []string{"no key", "no model"}}})
	for _, want := range []string{"\n== consolidate\n", "WP0   0123456789ab (2 paths)\n", "wiring WP1 registry.txt: upper (applied)\n",
		"merged [WP0 WP1] into wt/demo-integration; gate exit 0\n", "  conflict WP1 a.go: both changed\n",
		"  warning no-assert x_test.go:3: asserts nothing\n1 findings\n", "sh e2e.sh: exit 3\n", "pull request #7: https://example.com/pull/7\n",
		"pull request not sent (--dry-run): the push and the request are on stdout\n", "paid           scripted     -                    no key; no model\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Count(b.String(), "merged") != 1 {
		t.Fatalf("a consolidation that stopped printed merged:\n%s", b.String())
	}
}
