// Package plans is the supervisor's written method: a SPEC, an interface
// contract that WP0 freezes, and one brief per work package (WP) whose file
// perimeter is disjoint from every other's. Plans live in the working folder
// .plans/PROJECT/ (never committed) and, once frozen, in the ledger.
package plans

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/names"
)

// Dir is the working folder of plans, at the top of the main worktree.
const Dir = ".plans"

// PlanFile is the plan description inside a project folder.
const PlanFile = "plan.toml"

// Plan is plan.toml.
type Plan struct {
	Name   string   `toml:"name" json:"name"`
	Base   string   `toml:"base" json:"base"`
	Gate   string   `toml:"gate" json:"gate"`
	Shared []string `toml:"shared" json:"shared"`
	// Tags select the lessons included in executor prompts.
	Tags []string `toml:"tags" json:"tags,omitempty"`
	WPs  []WP     `toml:"wp" json:"wps"`
}

// WP is one work package.
type WP struct {
	ID        string   `toml:"id" json:"id"`
	Title     string   `toml:"title" json:"title"`
	Brief     string   `toml:"brief" json:"brief"`
	Owns      []string `toml:"owns" json:"owns"`
	Reads     []string `toml:"reads" json:"reads"`
	DependsOn []string `toml:"depends_on" json:"depends_on"`
	Adapter   string   `toml:"adapter" json:"adapter,omitempty"`
	Model     string   `toml:"model" json:"model,omitempty"`
	Profile   string   `toml:"profile" json:"profile,omitempty"`
}

// Project is a plan folder on disk.
type Project struct {
	Name string
	Dir  string // absolute path of .plans/NAME
	Plan Plan
	// Raw is plan.toml as read, for freezing and drift.
	Raw []byte
}

// ValidateProject reports why name cannot name a plan folder.
func ValidateProject(name string) error {
	if !names.Dashed(name, 1, 63) {
		return fault.Invalidf("plan name %q is not valid: use lowercase letters, digits and dashes", name)
	}
	return nil
}

// ValidateWPID reports why id cannot name a work package.
func ValidateWPID(id string) error {
	if !names.WP(id) {
		return fault.Invalidf("work package id %q is not valid: use WP0, WP1, ...", id)
	}
	return nil
}

// ProjectDir returns the folder of plan name under the work tree.
func ProjectDir(workTree, name string) string {
	return filepath.Join(workTree, Dir, name)
}

// Load reads a project's plan.toml strictly.
func Load(workTree, name string) (*Project, error) {
	if err := ValidateProject(name); err != nil {
		return nil, err
	}
	if workTree == "" {
		return nil, fault.Invalidf("plans need a working tree; this repository is bare")
	}
	dir := ProjectDir(workTree, name)
	raw, err := os.ReadFile(filepath.Join(dir, PlanFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fault.Invalidf("no plan %q: %s does not exist (git agentproto plan init %s)", name, filepath.Join(Dir, name, PlanFile), name)
	}
	if err != nil {
		return nil, err
	}
	return parse(name, dir, raw)
}

// FromFrozen is the plan as its plan.toml was frozen (the plan_frozen
// event's attachment), for a repository whose working tree does not hold
// it: a CI job's checkout. It has no folder.
func FromFrozen(name string, raw []byte) (*Project, error) {
	if err := ValidateProject(name); err != nil {
		return nil, err
	}
	return parse(name, "", raw)
}

func parse(name, dir string, raw []byte) (*Project, error) {
	p := &Project{Name: name, Dir: dir, Raw: raw}
	if err := config.DecodeStrict(raw, filepath.Join(Dir, name, PlanFile), &p.Plan); err != nil {
		return nil, err
	}
	if p.Plan.Name != "" && p.Plan.Name != name {
		return nil, fault.Invalidf("%s: name = %q but the folder is %q", filepath.Join(Dir, name, PlanFile), p.Plan.Name, name)
	}
	return p, nil
}

// WP returns the work package with id.
func (p *Project) WP(id string) (*WP, error) {
	for i := range p.Plan.WPs {
		if p.Plan.WPs[i].ID == id {
			return &p.Plan.WPs[i], nil
		}
	}
	return nil, fault.Invalidf("plan %s has no work package %s", p.Name, id)
}

// BriefPath returns the path of a WP's brief file. Brief names are plain
// file names inside the project folder.
func (p *Project) BriefPath(wp *WP) (string, error) {
	name := wp.Brief
	if name == "" {
		name = wp.ID + "-brief.md"
	}
	if name != filepath.Base(name) || name == "." || name == ".." {
		return "", fmt.Errorf("brief %q must be a file name inside %s", name, filepath.Join(Dir, p.Name))
	}
	return filepath.Join(p.Dir, name), nil
}
