package pipelinecmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/profiles"
)

// progress prints what dispatch and run do. On a terminal the sessions of
// a wave are a table redrawn in place; elsewhere only changes are printed,
// one line each, so a log stays readable.
type progress struct {
	out io.Writer
	tty bool
	// drawn is how many table lines are on screen below the cursor's
	// line; any other line printed ends the table.
	drawn int
	// last is the line each session last printed (not on a terminal).
	last map[string]string
}

func newProgress(out io.Writer, tty bool) *progress {
	return &progress{out: out, tty: tty, last: map[string]string{}}
}

func (p *progress) line(format string, args ...any) {
	p.drawn = 0
	p.last = map[string]string{}
	fmt.Fprintf(p.out, format, args...)
}

func (p *progress) Step(name string) { p.line("\n== %s\n", name) }

func (p *progress) Event(wp, what, detail string) { p.line("%-5s %-10s %s\n", wp, what, detail) }

func (p *progress) Output() io.Writer {
	p.drawn = 0
	return p.out
}

func (p *progress) Sessions(wave []pipeline.SessionStatus) {
	if p.tty {
		if p.drawn > 0 {
			fmt.Fprintf(p.out, "\x1b[%dA", p.drawn)
		}
		p.drawn = 0
		for _, s := range wave {
			r := s.Record
			fmt.Fprintf(p.out, "\x1b[2K%-5s %-9s turns=%-3d last activity %s  %s\n", s.WP, r.State, r.Turns,
				r.LastActivity.Local().Format("15:04:05"), r.ID)
			p.drawn++
		}
		return
	}
	for _, s := range wave {
		r := s.Record
		line := fmt.Sprintf("%s turns=%d", r.State, r.Turns)
		if p.last[r.ID] != line {
			p.last[r.ID] = line
			fmt.Fprintf(p.out, "%-5s %-10s turns=%d, last activity %s\n", s.WP, r.State, r.Turns, r.LastActivity.Local().Format("15:04:05"))
		}
	}
}

func (p *progress) Preflight(rs []profiles.Result) {
	rows := [][]string{{"PROFILE", "ADAPTER", "MODEL", "PROBLEMS"}}
	for _, r := range rs {
		model := r.Model
		if model == "" {
			model = "-"
		}
		rows = append(rows, []string{r.Name, r.Adapter, model, strings.Join(r.Problems, "; ")})
	}
	for _, l := range cmdutil.Align([]int{14, 12, 20}, rows) {
		p.line("%s\n", l)
	}
}

// Result prints a step of run.
func (p *progress) Result(v any) {
	switch r := v.(type) {
	case *pipeline.Checkpoint:
		p.line("%-5s %.12s (%d paths)\n", r.WP, r.Commit, len(r.Paths))
	case *pipeline.Consolidation:
		for _, w := range r.Wiring {
			p.line("wiring %s %s: %s (%s)\n", w.WP, w.File, w.Line, w.Status)
		}
		for _, m := range r.Config {
			p.line("config %s: %d keys merged (%s)\n%s", m.File, len(m.Changes), m.Status, indentLines(m.Diff, "  "))
		}
		printFindings(p.out, r.Findings)
		if r.OK && r.Gate != nil {
			p.line("merged %v into %s; gate exit %d\n", r.Merged, r.Branch, r.Gate.ExitCode)
		}
	case *pipeline.ReviewResult:
		printFindings(p.out, r.Findings)
		p.line("%d findings\n", len(r.Findings))
	case *pipeline.E2EResult:
		for _, c := range r.Commands {
			p.line("%s: exit %d\n", c.Gate.Command, c.Gate.ExitCode)
		}
	case *pipeline.PROutcome:
		if r.Result == nil {
			p.line("pull request not sent (--dry-run): the push and the request are on stdout\n")
		} else {
			p.line("pull request #%d: %s\n", r.Result.Number, r.Result.URL)
		}
	}
}
