// Package plan wires the `plan` verbs: init, new-wp, check, freeze, status,
// amend, render, show, owner.
package plan

import (
	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
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
