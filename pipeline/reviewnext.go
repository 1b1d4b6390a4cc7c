package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/plans"
)

// FindingWPs lists, in plan order, the work packages a review's error
// findings are about: the one a finding names, else the one whose
// perimeter owns its file. Findings of no single WP (the integration's
// gate, a shared file) name none.
func (e *Env) FindingWPs(fs []judge.Finding) []string {
	seen := map[string]bool{}
	for _, f := range fs {
		if f.Severity == "warning" {
			continue
		}
		if wp := e.findingWP(f); wp != "" {
			seen[wp] = true
		}
	}
	var out []string
	for _, wp := range order(e.Project) {
		if seen[wp.ID] {
			out = append(out, wp.ID)
		}
	}
	return out
}

func (e *Env) findingWP(f judge.Finding) string {
	if f.WP != "" {
		return f.WP
	}
	if f.File == "" {
		return ""
	}
	owners := plans.Owner(e.Project, f.File)
	if len(owners) == 1 && slices.ContainsFunc(e.Project.Plan.WPs, func(wp plans.WP) bool { return wp.ID == owners[0] }) {
		return owners[0]
	}
	return ""
}

// ReviewNext is the one step after a review that found problems: give
// the work packages its findings are about a turn in their worktrees
// with what to fix (dispatch --text verifies them again), then run the
// pipeline on from there. "" when the review passed.
func (e *Env) ReviewNext(r *ReviewResult) string {
	if r == nil || r.OK {
		return ""
	}
	p := e.Project.Name
	wps := e.FindingWPs(r.Findings)
	if len(wps) == 0 {
		return fmt.Sprintf("none of the findings is about one work package's files: read them, give the WP that should fix them a turn (git agentproto dispatch %s --wp WPn --text 'what to fix'), then git agentproto run %s", p, p)
	}
	var flags []string
	for _, wp := range wps {
		flags = append(flags, "--wp "+wp)
	}
	return fmt.Sprintf("git agentproto dispatch %s %s --text 'fix what review found: %s' (a turn in its worktree, verified again), then git agentproto run %s",
		p, strings.Join(flags, " "), e.findingsText(r.Findings, wps), p)
}

// findingsText names the first error findings of wps, as code file:line,
// for the text to send their agents.
func (e *Env) findingsText(fs []judge.Finding, wps []string) string {
	var parts []string
	for _, f := range fs {
		if f.Severity == "warning" || !slices.Contains(wps, e.findingWP(f)) {
			continue
		}
		at := f.Code
		if f.File != "" {
			at += fmt.Sprintf(" %s:%d", f.File, f.Line)
		}
		if parts = append(parts, at); len(parts) == 3 {
			break
		}
	}
	return strings.Join(parts, ", ")
}
