package app

import (
	"context"
	"path/filepath"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plans"
)

// WaitingDecision is the verdict of a work package whose executor stopped
// on a question only the supervisor answers; front ends name it when they
// list those work packages.
const WaitingDecision = pipeline.WaitingDecision

// workTree is the repository, refused when it is bare: a plan's files
// live in .plans/ of the work tree.
func (e *Env) workTree() (*gitrepo.Repo, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	if repo.WorkTree == "" {
		return nil, fault.Invalidf("plans need a working tree; this repository is bare")
	}
	return repo, nil
}

// OpenPlan reads the plan name from the work tree, refusing a bare
// repository with a sentence rather than a missing file.
func (e *Env) OpenPlan(ctx context.Context, name string) (*plans.Project, error) {
	repo, err := e.workTree()
	if err != nil {
		return nil, err
	}
	return plans.Load(repo.WorkTree, name)
}

// contract is the contract block every new brief carries, as configured.
func (e *Env) contract(repo *gitrepo.Repo) (string, error) {
	cfg, err := e.Config()
	if err != nil {
		return "", err
	}
	return plans.ContractBlock(repo.WorkTree, cfg.Plans)
}

// PlanInit is what InitPlan made. The fields are in the order of their
// JSON names, as the map it replaced printed them.
type PlanInit struct {
	Base    string   `json:"base"`
	Gate    string   `json:"gate"`
	Project string   `json:"project"`
	Written []string `json:"written"`
}

// InitPlan creates .plans/project with its templates; base defaults to
// the current branch and gate to [plans] gate. The files written before
// a failure come back with the error.
func (e *Env) InitPlan(ctx context.Context, project, base, gate string) (*PlanInit, error) {
	repo, err := e.workTree()
	if err != nil {
		return nil, err
	}
	cfg, err := e.Config()
	if err != nil {
		return nil, err
	}
	if base == "" {
		base = plans.DefaultBase(repo)
	}
	if gate == "" {
		gate = cfg.Plans.Gate
	}
	contract, err := e.contract(repo)
	if err != nil {
		return nil, err
	}
	written, err := plans.Init(repo.WorkTree, project, base, gate, contract)
	return &PlanInit{Base: base, Gate: gate, Project: project, Written: written}, err
}

// WPAdded is what AddWP wrote, in the order of the JSON names.
type WPAdded struct {
	Brief   string `json:"brief"`
	Plan    string `json:"plan"`
	Project string `json:"project"`
	Title   string `json:"title"`
	WP      string `json:"wp"`
}

// AddWP writes the brief of a new work package, with the contract block,
// and adds its [[wp]] entry to the plan.
func (e *Env) AddWP(ctx context.Context, project, wp, title string) (*WPAdded, error) {
	repo, err := e.workTree()
	if err != nil {
		return nil, err
	}
	p, err := plans.Load(repo.WorkTree, project)
	if err != nil {
		return nil, err
	}
	contract, err := e.contract(repo)
	if err != nil {
		return nil, err
	}
	path, err := plans.NewWP(p, wp, title, contract)
	if err != nil {
		return nil, err
	}
	plan := filepath.Join(plans.Dir, p.Name, plans.PlanFile)
	return &WPAdded{Brief: path, Plan: plan, Project: p.Name, Title: title, WP: wp}, nil
}

// PlanOwners says which work package owns each path, or shared, or
// nobody.
func (e *Env) PlanOwners(ctx context.Context, project string, paths []string) ([]plans.PathOwners, error) {
	p, err := e.OpenPlan(ctx, project)
	if err != nil {
		return nil, err
	}
	return plans.Owners(p, paths)
}
