package plans

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/lazyre"
	"github.com/agentproto/agentproto/internal/repopath"
	"github.com/agentproto/agentproto/perimeter"
	"github.com/agentproto/agentproto/scout"
)

// Severity of a finding: errors block freeze, warnings do not.
const (
	SevError   = "error"
	SevWarning = "warning"
)

// Finding is one problem of a plan, with a stable code.
type Finding struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	WP       string `json:"wp,omitempty"`
	File     string `json:"file,omitempty"`
	Message  string `json:"message"`
}

// Report is the result of Check.
type Report struct {
	Project  string    `json:"project"`
	OK       bool      `json:"ok"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
	Findings []Finding `json:"findings"`
	// Recon is the check of the plan's RECON.md citations against the
	// base, when it has one; plan freeze records it with the recon.
	Recon *scout.Result `json:"recon,omitempty"`
}

// CheckInput is what a check needs besides the plan folder.
type CheckInput struct {
	// Contract is the canonical contract block.
	Contract string
	// BaseFiles lists the files of the base tree; nil when the base does
	// not resolve (reported as unknown-base).
	BaseFiles []string
	// BaseLinks maps the symlinks of the base tree to their targets.
	BaseLinks map[string]string
	// WorkTree, when set, is the checkout whose disk is checked too: a
	// perimeter must not lead through a symlink out of it.
	WorkTree string
	// Recon is the plan's checked RECON.md (CheckRecon); nil when none.
	Recon *ReconCheck
	// AgentInstructions is the file holding the definition of done
	// ([plans] agent_instructions); a contract that names it points every
	// executor there, so the base tree must have it.
	AgentInstructions string
}

// WithBase fills the base-tree fields of a CheckInput from bt (nil when
// the base does not resolve).
func (in CheckInput) WithBase(bt *BaseTree) CheckInput {
	if bt != nil {
		in.BaseFiles, in.BaseLinks = bt.Files, bt.Links
	}
	return in
}

// Check runs every check of the plan and returns the findings in a stable
// order.
func Check(p *Project, in CheckInput) *Report {
	c := &checker{p: p, in: in, files: map[string]bool{}}
	for _, f := range in.BaseFiles {
		c.files[f] = true
	}
	c.checkBase()
	c.checkWPs()
	c.checkPerimeters()
	c.checkNewFiles()
	c.checkContainment()
	c.checkDependencies()
	c.checkBriefs()
	c.checkChangeTargets()
	c.checkRecon()
	c.checkAgentInstructions()
	r := &Report{Project: p.Name, Findings: c.findings}
	if in.Recon != nil {
		r.Recon = in.Recon.Result
	}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	for _, f := range r.Findings {
		if f.Severity == SevError {
			r.Errors++
		} else {
			r.Warnings++
		}
	}
	r.OK = r.Errors == 0
	return r
}

type checker struct {
	p        *Project
	in       CheckInput
	files    map[string]bool
	findings []Finding
	owns     map[string][]perimeter.Glob // wp -> parsed owns
	shared   []perimeter.Glob
	// unmatched are the owns globs no file of the base tree matches.
	unmatched []ownedGlob
}

func (c *checker) add(sev, code, wp, file, format string, args ...any) {
	c.findings = append(c.findings, Finding{Code: code, Severity: sev, WP: wp, File: file, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) checkBase() {
	if c.p.Plan.Base == "" {
		c.add(SevError, "missing-base", "", PlanFile, "plan.toml sets no base revision")
	} else if c.in.BaseFiles == nil {
		c.add(SevError, "unknown-base", "", PlanFile, "base %q does not resolve to a commit", c.p.Plan.Base)
	}
	if strings.TrimSpace(c.p.Plan.Gate) == "" {
		c.add(SevError, "missing-gate", "", PlanFile, "plan.toml sets no gate command")
	} else if pipeHidesExit(c.p.Plan.Gate) {
		c.add(SevError, "gate-pipe", "", PlanFile, "gate %q pipes its output: the pipe hides the exit code", c.p.Plan.Gate)
	}
}

// pipeHidesExit reports a gate written as "cmd | filter": the shell reports
// the filter's exit code, not the gate's.
func pipeHidesExit(cmd string) bool {
	s := strings.ReplaceAll(cmd, "||", "")
	return strings.Contains(s, "|")
}

func (c *checker) checkWPs() {
	seen := map[string]bool{}
	for _, wp := range c.p.Plan.WPs {
		if err := ValidateWPID(wp.ID); err != nil {
			c.add(SevError, "bad-wp-id", wp.ID, PlanFile, "%v", err)
		}
		if seen[wp.ID] {
			c.add(SevError, "duplicate-wp", wp.ID, PlanFile, "work package %s is defined more than once", wp.ID)
		}
		seen[wp.ID] = true
	}
	if len(c.p.Plan.WPs) == 0 {
		c.add(SevError, "no-wps", "", PlanFile, "the plan has no work packages")
	}
}

// parseAll parses globs, reporting path escapes; literal globs that name a
// file of the base tree are restricted to that file.
func (c *checker) parseAll(wp string, globs []string, what string) []perimeter.Glob {
	var out []perimeter.Glob
	for _, s := range globs {
		g, err := perimeter.ParseGlob(s)
		if err != nil {
			c.add(SevError, "path-escape", wp, PlanFile, "%s: %v", what, err)
			continue
		}
		if g.Literal() && c.files[g.Normal()] {
			g = g.AsFile()
		}
		out = append(out, g)
	}
	return out
}

func (c *checker) checkPerimeters() {
	c.owns = map[string][]perimeter.Glob{}
	c.shared = c.parseAll("", c.p.Plan.Shared, "shared")
	var ids []string
	for _, wp := range c.p.Plan.WPs {
		if _, dup := c.owns[wp.ID]; dup {
			continue
		}
		if len(wp.Owns) == 0 {
			c.add(SevError, "empty-perimeter", wp.ID, PlanFile, "%s owns nothing: list the paths it may change", wp.ID)
		}
		c.owns[wp.ID] = c.parseAll(wp.ID, wp.Owns, "owns")
		c.parseAll(wp.ID, wp.Reads, "reads")
		ids = append(ids, wp.ID)
		for _, g := range c.owns[wp.ID] {
			if c.in.BaseFiles != nil && !c.matchesAny(g) {
				c.unmatched = append(c.unmatched, ownedGlob{wp.ID, g})
			}
			for _, s := range c.shared {
				if ex, ok := perimeter.Overlap(g, s); ok {
					c.add(SevError, "shared-owned", wp.ID, PlanFile, "owns %q covers shared file %q (e.g. %s): shared files belong to nobody", g, s, perimeter.Example(ex))
				}
			}
		}
	}
	for i := 0; i < len(ids); i++ {
		for j := i + 1; j < len(ids); j++ {
			for _, a := range c.owns[ids[i]] {
				for _, b := range c.owns[ids[j]] {
					if ex, ok := perimeter.Overlap(a, b); ok {
						c.add(SevError, "perimeter-overlap", ids[i], PlanFile, "%s owns %q and %s owns %q: both would own %s", ids[i], a, ids[j], b, perimeter.Example(ex))
					}
				}
			}
		}
	}
}

func (c *checker) matchesAny(g perimeter.Glob) bool {
	for f := range c.files {
		if g.Match(f) {
			return true
		}
	}
	return false
}

func (c *checker) checkDependencies() {
	ids := map[string]*WP{}
	for i := range c.p.Plan.WPs {
		ids[c.p.Plan.WPs[i].ID] = &c.p.Plan.WPs[i]
	}
	for _, wp := range c.p.Plan.WPs {
		for _, d := range wp.DependsOn {
			if ids[d] == nil {
				c.add(SevError, "unknown-dependency", wp.ID, PlanFile, "%s depends on %s, which the plan does not define", wp.ID, d)
			}
			if d == wp.ID {
				c.add(SevError, "dependency-cycle", wp.ID, PlanFile, "%s depends on itself", wp.ID)
			}
		}
	}
	if cycle := findCycle(c.p.Plan.WPs); len(cycle) > 1 {
		c.add(SevError, "dependency-cycle", cycle[0], PlanFile, "dependency cycle: %s", strings.Join(cycle, " -> "))
	}
	if ids["WP0"] == nil {
		c.add(SevError, "wp0-not-first", "", PlanFile, "the plan has no WP0: WP0 freezes the contract and runs first")
		return
	}
	if len(ids["WP0"].DependsOn) > 0 {
		c.add(SevError, "wp0-not-first", "WP0", PlanFile, "WP0 must depend on nothing; it runs first")
	}
	for _, wp := range c.p.Plan.WPs {
		if wp.ID != "WP0" && !dependsOn(ids, wp.ID, "WP0", map[string]bool{}) {
			c.add(SevError, "wp0-not-first", wp.ID, PlanFile, "%s does not depend on WP0, which owns the contract", wp.ID)
		}
	}
}

func dependsOn(ids map[string]*WP, from, target string, seen map[string]bool) bool {
	if seen[from] || ids[from] == nil {
		return false
	}
	seen[from] = true
	for _, d := range ids[from].DependsOn {
		if d == target || dependsOn(ids, d, target, seen) {
			return true
		}
	}
	return false
}

// findCycle returns one dependency cycle (a -> b -> a), or nil.
func findCycle(wps []WP) []string {
	deps := map[string][]string{}
	var order []string
	for _, wp := range wps {
		if _, ok := deps[wp.ID]; !ok {
			order = append(order, wp.ID)
		}
		deps[wp.ID] = wp.DependsOn
	}
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	var cycle []string
	var visit func(id string) bool
	visit = func(id string) bool {
		color[id] = grey
		stack = append(stack, id)
		for _, d := range deps[id] {
			if _, ok := deps[d]; !ok || d == id {
				continue
			}
			if color[d] == grey {
				for i, s := range stack {
					if s == d {
						cycle = append(append([]string{}, stack[i:]...), d)
					}
				}
				return true
			}
			if color[d] == white && visit(d) {
				return true
			}
		}
		stack = stack[:len(stack)-1]
		color[id] = black
		return false
	}
	for _, id := range order {
		if color[id] == white && visit(id) {
			return cycle
		}
	}
	return nil
}

var (
	forkHeading   = lazyre.New(`(?im)^##+\s*(forks|stop if|stop and ask)\b.*$`)
	reportHeading = lazyre.New(`(?im)^##+\s*(final\s+)?report\b.*$`)
	anyHeading    = lazyre.New(`(?m)^##+\s`)
)

// placeholderFork is the template's example fork, left for the author.
const placeholderFork = "(fork): default (choice)"

// reportItems are what the final report must list; each is matched
// case-insensitively in the brief's report section.
var reportItems = []string{"files touched", "design choices", "wiring", "exit code"}

func (c *checker) checkBriefs() {
	for i := range c.p.Plan.WPs {
		wp := &c.p.Plan.WPs[i]
		path, err := c.p.BriefPath(wp)
		if err != nil {
			c.add(SevError, "path-escape", wp.ID, PlanFile, "%v", err)
			continue
		}
		rel := filepath.Base(path)
		b, err := os.ReadFile(path)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the path is already in the finding
			}
			c.add(SevError, "brief-unreadable", wp.ID, rel, "cannot read the brief: %v", err)
			continue
		}
		brief := string(b)
		if code, detail := compareContract(brief, c.in.Contract); code != "" {
			c.add(SevError, code, wp.ID, rel, "%s", detail)
		}
		if sec, ok := section(brief, forkHeading); !ok || !strings.Contains(strings.ToLower(sec), "default") {
			c.add(SevError, "missing-stop-if-fork", wp.ID, rel, "the brief must name its likely design forks, each with its default, under a \"## Forks\" heading")
		}
		if strings.Contains(brief, placeholderFork) {
			c.add(SevWarning, "brief-placeholder", wp.ID, rel, "the brief still has the template's placeholder fork %q", placeholderFork)
		}
		if sec, ok := section(brief, reportHeading); !ok {
			c.add(SevError, "missing-report-section", wp.ID, rel, "the brief has no \"## Report\" section")
		} else {
			var missing []string
			for _, item := range reportItems {
				if !strings.Contains(strings.ToLower(sec), item) {
					missing = append(missing, item)
				}
			}
			if len(missing) > 0 {
				c.add(SevError, "missing-report-section", wp.ID, rel, "the report section does not ask for: %s", strings.Join(missing, ", "))
			}
		}
	}
}

// section returns the text under the first heading matching re, up to the
// next heading.
func section(doc string, re *lazyre.Regexp) (string, bool) {
	loc := re.FindStringIndex(doc)
	if loc == nil {
		return "", false
	}
	rest := doc[loc[1]:]
	if next := anyHeading.FindStringIndex(rest); next != nil {
		rest = rest[:next[0]]
	}
	return rest, true
}

func (c *checker) owner(path string) string {
	for _, g := range c.shared {
		if g.Match(path) {
			return "shared"
		}
	}
	for _, wp := range c.p.Plan.WPs {
		for _, g := range c.owns[wp.ID] {
			if g.Match(path) {
				return wp.ID
			}
		}
	}
	return ""
}

// checkAgentInstructions warns when the contract block sends executors to
// a definition of done the base tree does not have: each executor would
// look for it in its worktree, find nothing, and guess.
func (c *checker) checkAgentInstructions() {
	name := c.in.AgentInstructions
	if name == "" || c.in.BaseFiles == nil || !strings.Contains(c.in.Contract, name) {
		return
	}
	clean, err := repopath.Clean(name)
	if err != nil || c.files[clean] {
		return // a path out of the tree is config check's to refuse
	}
	where := "commit it"
	if c.in.WorkTree != "" {
		if _, err := os.Lstat(filepath.Join(c.in.WorkTree, filepath.FromSlash(clean))); err == nil {
			where = "it is in the working tree but not committed: commit it"
		}
	}
	c.add(SevWarning, "agent-instructions-missing", "", name,
		"the contract block points executors to %s for the definition of done, but the base %s has no such file: %s, or set [plans] agent_instructions", name, c.p.Plan.Base, where)
}
