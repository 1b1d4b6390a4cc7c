package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"

	"github.com/agentproto/agentproto/internal/clonesetup"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/lazyre"
	"github.com/agentproto/agentproto/plans"
)

// Initialized is what Init did: this clone's ledger writer, and each
// change it made (none when the clone was ready).
type Initialized struct {
	Writer  string   `json:"writer"`
	Changed []string `json:"changed"`
}

// Init prepares the clone for agentproto, changing only what is missing
// (git agentproto init): the ledger writer id, the fetch refspec on
// remote, a commented agentproto.toml, .plans/ kept out of commits.
func (e *Env) Init(ctx context.Context, remote string) (*Initialized, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	if remote == "" {
		remote = "origin"
	}
	writer, changed, err := clonesetup.Prepare(repo, remote)
	if err != nil {
		return nil, err
	}
	if changed == nil {
		changed = []string{}
	}
	return &Initialized{Writer: writer, Changed: changed}, nil
}

// NewPlanOptions are the inputs of NewPlan.
type NewPlanOptions struct {
	Name string
	// Base and Gate of a new plan ("": the current branch, [plans] gate).
	Base, Gate string
	// WPs are work packages to add (WP0 comes with a new plan).
	WPs []NewWP
}

// NewWP is a work package to add.
type NewWP struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
}

// NewPlanned is what NewPlan wrote.
type NewPlanned struct {
	Project string   `json:"project"`
	Created bool     `json:"created" jsonschema:"false when the plan existed and only work packages were added"`
	Base    string   `json:"base,omitempty"`
	Gate    string   `json:"gate,omitempty"`
	Written []string `json:"written"`
	// Files are the plan's files after the change, by name: the
	// templates to fill in.
	Files map[string]string `json:"files"`
}

// NewPlan creates .plans/NAME from the templates when it does not exist
// (plan init) and adds each work package (plan new-wp): its brief with
// the contract block and its [[wp]] entry. An existing work package is a
// conflict and nothing after it is added.
func (e *Env) NewPlan(ctx context.Context, o NewPlanOptions) (*NewPlanned, error) {
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return nil, err
	}
	if err := plans.ValidateProject(o.Name); err != nil {
		return nil, err
	}
	contract, err := plans.ContractBlock(repo.WorkTree, cfg.Plans)
	if err != nil {
		return nil, err
	}
	out := &NewPlanned{Project: o.Name, Written: []string{}}
	if _, err := os.Stat(filepath.Join(plans.ProjectDir(repo.WorkTree, o.Name), plans.PlanFile)); errors.Is(err, os.ErrNotExist) {
		out.Created, out.Base, out.Gate = true, o.Base, o.Gate
		if out.Base == "" {
			out.Base = plans.DefaultBase(repo)
		}
		if out.Gate == "" {
			out.Gate = cfg.Plans.Gate
		}
		written, err := plans.Init(repo.WorkTree, o.Name, out.Base, out.Gate, contract)
		out.Written = append(out.Written, written...)
		if err != nil {
			return out, err
		}
	}
	for _, wp := range o.WPs {
		p, err := plans.Load(repo.WorkTree, o.Name)
		if err != nil {
			return out, err
		}
		path, err := plans.NewWP(p, wp.ID, wp.Title, contract)
		if err != nil {
			return out, err
		}
		out.Written = append(out.Written, path)
	}
	out.Files = map[string]string{}
	dir := plans.ProjectDir(repo.WorkTree, o.Name)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return out, err
	}
	for _, ent := range entries {
		if ent.Type().IsRegular() && planFileName.MatchString(ent.Name()) {
			b, err := os.ReadFile(filepath.Join(dir, ent.Name()))
			if err != nil {
				return out, err
			}
			out.Files[ent.Name()] = string(b)
		}
	}
	return out, nil
}

// planFileName is a file a plan folder holds: plan.toml or a Markdown
// file (SPEC.md, CONTRACT.md, RECON.md, WPn-brief.md), never a path.
var planFileName = lazyre.New(`^(plan\.toml|[A-Za-z0-9][A-Za-z0-9._-]*\.md)$`)

// WritePlanFiles writes files of an existing plan's folder, whole, then
// checks the plan as plan check does: the report says what the files
// still lack. A name that is not a plan file, or a file that is a
// symlink, is refused before anything is written, and so is a plan
// already frozen: its briefs are what the sessions were given.
func (e *Env) WritePlanFiles(ctx context.Context, project string, files map[string]string) ([]string, *plans.Report, error) {
	if _, st, err := e.PlanStatus(ctx, project); err != nil || st.Frozen {
		if err == nil {
			err = fault.Refusedf("plan %s is frozen: its briefs are what the sessions were given; correct the SPEC with plan_amend", project)
		}
		return nil, nil, err
	}
	p, err := e.LoadPlan(ctx, project)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		if !planFileName.MatchString(name) {
			return nil, nil, fault.Invalidf("%q is not a plan file: give plan.toml or a Markdown file name such as WP1-brief.md", name)
		}
		if fi, err := os.Lstat(filepath.Join(p.Dir, name)); err == nil && !fi.Mode().IsRegular() {
			return nil, nil, fault.Refusedf("%s in plan %s is not a regular file; nothing was written", name, p.Name)
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return nil, nil, fault.Invalidf("give at least one file")
	}
	sort.Strings(names)
	written := []string{}
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(p.Dir, name), []byte(files[name]), 0o644); err != nil {
			return written, nil, err
		}
		written = append(written, filepath.Join(plans.Dir, p.Name, name))
	}
	_, rep, err := e.CheckPlan(ctx, project)
	return written, rep, err
}

// NewGoal records a goal (goal new); written is false when a goal with
// that id and title exists already.
func (e *Env) NewGoal(ctx context.Context, id, title string) (bool, error) {
	svc, err := e.Peers(ctx)
	if err != nil {
		return false, err
	}
	return svc.NewGoal(id, title)
}
