package plans

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/repopath"
	"github.com/agentproto/agentproto/perimeter"
	"github.com/agentproto/agentproto/scout"
)

// Owner answers which work package owns path: a WP id, "shared", or
// "nobody". Several ids mean the perimeters overlap (plan check says so).
// A path that cannot name a file inside the repository (see repopath) is
// owned by nobody.
func Owner(p *Project, path string) []string {
	path, err := repopath.Clean(path)
	if err != nil {
		return []string{"nobody"}
	}
	for _, s := range p.Plan.Shared {
		if g, err := perimeter.ParseGlob(s); err == nil && g.Match(path) {
			return []string{"shared"}
		}
	}
	var out []string
	for _, wp := range p.Plan.WPs {
		for _, s := range wp.Owns {
			if g, err := perimeter.ParseGlob(s); err == nil && g.Match(path) {
				out = append(out, wp.ID)
				break
			}
		}
	}
	if len(out) == 0 {
		return []string{"nobody"}
	}
	return out
}

// Render writes the session prompt of an executor: where its frozen brief
// is and the overrides of this run. It never restates the brief.
func Render(p *Project, h *History, wpID string, lessons []string) (string, error) {
	wp, err := p.WP(wpID)
	if err != nil {
		return "", err
	}
	if h.Frozen == nil {
		return "", fault.Invalidf("plan %s is not frozen: run git agentproto plan freeze %s first", p.Name, p.Name)
	}
	path, err := p.BriefPath(wp)
	if err != nil {
		return "", err
	}
	name := filepath.Base(path)
	frozen := h.Frozen.Files[name]
	if frozen == "" {
		return "", fault.Conflictf("%s's brief %s was not part of the frozen plan: freeze again", wpID, name)
	}
	drift, err := Drift(p, h)
	if err != nil {
		return "", err
	}
	for _, d := range drift {
		if d.Name == name && d.State != "unchanged" {
			return "", fault.Conflictf("%s is %s since the freeze: freeze the plan again (or amend the SPEC) before dispatching", name, d.State)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "You are the executor of work package %s (%s) of plan %s.\n\n", wp.ID, wp.Title, p.Name)
	fmt.Fprintf(&b, "Your task is your brief: %s\n(frozen, sha256 %s). Read it now and follow it;\n", path, frozen)
	fmt.Fprintf(&b, "it starts with the contract every executor works under. The SPEC and\nCONTRACT.md are beside it.\n\n")
	b.WriteString("Overrides for this session:\n")
	b.WriteString("- Run no git commands that change refs, the index or history (commit, add,\n  checkout, reset, stash, rebase, push): the supervisor checkpoints your work.\n")
	b.WriteString("- Start no sub-agents; do the work yourself.\n")
	b.WriteString("- Other executors work in parallel on other work packages. Change only the\n  paths your brief says you own; shared files are wired by the supervisor from\n  your report.\n")
	fmt.Fprintf(&b, "- Your work is verified on disk: the supervisor re-runs the gate (%s)\n  and reads the files, not your report.\n", h.Frozen.Gate)
	fmt.Fprintf(&b, reportHowTo, wp.ID)
	if doc, err := os.ReadFile(filepath.Join(p.Dir, ReconFile)); err == nil {
		if r, err := scout.Parse(doc); err == nil && len(r.Corrections) > 0 {
			fmt.Fprintf(&b, "\nCorrections to %s (they win over what it says):\n", ReconFile)
			for _, c := range r.Corrections {
				fmt.Fprintf(&b, "- %s: %s\n", c.Date, strings.ReplaceAll(c.Text, "\n", "\n  "))
			}
		}
	}
	if len(lessons) > 0 {
		b.WriteString("\nLessons from earlier runs:\n")
		for _, l := range lessons {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	return b.String(), nil
}

// reportHowTo tells the executor the one form of report verify reads: a
// report in prose is no report (verify's report-missing).
const reportHowTo = "\nEnd your last message with your report, as one fenced block in exactly this\n" +
	"form (JSON; lists may be empty; wiring lines are for shared files only):\n\n" +
	"```agentproto-report\n" +
	`{"wp": "%s", "files": ["path/you/changed"], "design_choices": ["what you chose and why"],` + "\n" +
	` "wiring": [{"file": "shared/file", "line": "the exact line it needs"}], "claims": ["command:name"],` + "\n" +
	` "exit_codes": [{"command": "the gate, as run", "exit_code": 0}]}` + "\n" +
	"```\n\n" +
	"For a JSON, TOML or YAML shared file give {\"file\": ..., \"snippet\": \"the keys to add\"}.\n" +
	"If you stopped on a design fork, add \"stopped\": {\"question\": ..., \"options\": [...],\n" +
	"\"default\": ...} and end the turn: the supervisor answers.\n"
