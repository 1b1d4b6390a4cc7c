// Package plan wires the `plan` verbs: init, new-wp, check, freeze, status,
// amend, render, show, owner.
package plan

import (
	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/plans"
)

// NewCmdPlan returns the `plan` command.
func NewCmdPlan(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan <command>",
		Short: "Write, check and freeze plans: SPEC, contract, work-package briefs",
		Long: `A plan lives in .plans/PROJECT/ (kept out of commits): plan.toml, SPEC.md,
CONTRACT.md and one brief per work package (WP). Perimeters (owns globs) of
different WPs never overlap; shared files belong to nobody. WP0 freezes the
contract and runs first. Once checked, the plan is frozen into the ledger.`,
	}
	cmd.AddCommand(newCmdInit(f), newCmdNewWP(f), newCmdCheck(f), newCmdFreeze(f),
		newCmdStatus(f), newCmdAmend(f), newCmdAnswer(f), newCmdRender(f), newCmdShow(f), newCmdOwner(f))
	return cmd
}

// env gathers what the plan verbs share.
type env struct {
	f    *cmdutil.Factory
	repo *gitrepo.Repo
}

func newEnv(f *cmdutil.Factory) (*env, error) {
	repo, err := f.Repo()
	if err != nil {
		return nil, err
	}
	if repo.WorkTree == "" {
		return nil, fault.Invalidf("plans need a working tree; this repository is bare")
	}
	return &env{f: f, repo: repo}, nil
}

// openPlan is what most plan verbs start with: the environment and the
// plan named on the command line.
func openPlan(f *cmdutil.Factory, name string) (*env, *plans.Project, error) {
	e, err := newEnv(f)
	if err != nil {
		return nil, nil, err
	}
	p, err := e.load(name)
	return e, p, err
}

// openPlanHistory opens the named plan and reads what the ledger holds
// of it (freezes and amendments), for verbs that compare the two.
func openPlanHistory(f *cmdutil.Factory, name string) (*plans.Project, *gitstore.Ledger, *plans.History, error) {
	_, p, err := openPlan(f, name)
	if err != nil {
		return nil, nil, nil, err
	}
	l, err := f.ReadLedger()
	if err != nil {
		return nil, nil, nil, err
	}
	h, err := plans.ReadHistory(l, p.Name)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, l, h, nil
}

func (e *env) load(name string) (*plans.Project, error) {
	return plans.Load(e.repo.WorkTree, name)
}

func (e *env) contract() (string, error) {
	cfg, _, err := e.f.Config()
	if err != nil {
		return "", err
	}
	return plans.ContractBlock(e.repo.WorkTree, cfg.Plans)
}

// resolve returns the commit a revision names, or "" when it names none.
func (e *env) resolve(rev string) string { return plans.ResolveCommit(e.repo, rev) }

func (e *env) check(p *plans.Project) (*plans.Report, error) {
	cfg, _, err := e.f.Config()
	if err != nil {
		return nil, err
	}
	return plans.CheckAt(e.repo, p, cfg.Plans, e.resolve(p.Plan.Base))
}
