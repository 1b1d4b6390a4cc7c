package app

import (
	"context"

	"github.com/agentproto/agentproto/pipeline"
)

// VerifyBranch holds commit rev of a work package's branch against the
// ledger's latest verification of it, as the pre-push check does: where
// the worktree is not (a CI job with the branch and the ledger).
func (e *Env) VerifyBranch(ctx context.Context, branch, rev string) (*pipeline.BranchVerification, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	l, err := e.ReadLedger()
	if err != nil {
		return nil, err
	}
	return pipeline.VerifyBranch(repo, l, branch, rev)
}
