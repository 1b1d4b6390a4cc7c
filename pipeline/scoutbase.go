package pipeline

import (
	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/plans"
)

// ScoutCheckBase is the commit scout check holds a plan's RECON.md
// against: base when given, else the plan's base (plan.toml), else the
// commit the last scout run read. The ledger is opened only for the last.
func ScoutCheckBase(repo *gitrepo.Repo, ledger func() (*gitstore.Ledger, error), project, base string) (string, error) {
	rev := base
	if rev == "" {
		if p, err := plans.Load(repo.WorkTree, project); err == nil {
			rev = p.Plan.Base
		}
	}
	if rev == "" {
		l, err := ledger()
		if err != nil {
			return "", err
		}
		if last, err := LastScout(l, project); err != nil {
			return "", err
		} else if last != nil {
			rev = last.BaseCommit
		}
	}
	if rev == "" {
		return "", fault.Invalidf("no base to check against: give --base REV (plan %s has no plan.toml and no scout run)", project)
	}
	commit, err := repo.Commit(rev)
	if err != nil {
		return "", fault.Invalidf("base %q does not name a commit", rev)
	}
	return commit, nil
}
