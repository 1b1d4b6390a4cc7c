package app

import (
	"context"
	"fmt"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plans"
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

// BranchReviewOptions are the inputs of ReviewBranch.
type BranchReviewOptions struct {
	// Branch is the pull request's branch (wt/...); Head its commit
	// (default: the branch), Base where the change starts (needed when the
	// change is judged alone).
	Branch, Base, Head string
	// Gate and Own judge a change whose plan the ledger does not hold.
	Gate           string
	Own            []string
	MutationBudget time.Duration
}

// ReviewBranch reviews a pull request's branch where the worktrees are
// not (a CI job): with the branch's plan in the ledger, as review PROJECT
// does, on the commits; without it, the change alone, saying what that
// cannot see. Nothing is recorded.
func (e *Env) ReviewBranch(ctx context.Context, o BranchReviewOptions) (*pipeline.BranchReview, error) {
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return nil, err
	}
	l, err := e.ReadLedger()
	if err != nil {
		return nil, err
	}
	if o.Head == "" {
		o.Head = o.Branch
	}
	head, err := repo.Commit(o.Head)
	if err != nil {
		return nil, fault.Invalidf("--head %q names no commit", o.Head)
	}
	br := &pipeline.BranchReview{Branch: o.Branch, Head: head}
	project, wp, found, err := pipeline.PlanOfBranch(l, o.Branch)
	if err != nil {
		return nil, err
	}
	var h *plans.History
	if found {
		if h, err = plans.ReadHistory(l, project); err != nil {
			return nil, err
		}
	}
	if h == nil || h.Frozen == nil {
		return e.reviewChangeAlone(ctx, br, o, l)
	}
	raw, err := e.frozenFile(h.Frozen.RecordID, plans.PlanFile)
	if err != nil {
		return nil, err
	}
	p, err := plans.FromFrozen(project, raw)
	if err != nil {
		return nil, err
	}
	pe := &pipeline.Env{Repo: repo, Ledger: l, Project: p, History: h}
	r, err := pe.ReviewAt(wp, head, cfg.Dispatch.GateTimeout.Duration, mutationBudget(o.MutationBudget, cfg))
	if err != nil {
		return nil, err
	}
	br.Judged, br.Project, br.WP, br.Base = pipeline.JudgedPlan, project, wp, h.Frozen.BaseCommit
	br.Gates, br.Findings, br.OK = r.Gates, r.Findings, r.OK
	if o.Gate != "" && o.Gate != h.Frozen.Gate {
		br.Notes = append(br.Notes, fmt.Sprintf("the plan's frozen gate %q ran, not %q: that one judges changes whose plan the ledger does not hold", h.Frozen.Gate, o.Gate))
	}
	if len(o.Own) > 0 {
		br.Notes = append(br.Notes, "the briefs' perimeters held the paths, not the globs given (--own)")
	}
	return br, nil
}

// reviewChangeAlone judges base..head with no plan and says why, and what
// that review cannot see.
func (e *Env) reviewChangeAlone(ctx context.Context, br *pipeline.BranchReview, o BranchReviewOptions, l *gitstore.Ledger) (*pipeline.BranchReview, error) {
	if o.Base == "" {
		return nil, fault.Invalidf("the ledger holds no plan for branch %s, and the change cannot be judged alone without --base (is the ledger fetched? git fetch origin 'refs/agentproto/*:refs/agentproto/*')", o.Branch)
	}
	cr, err := e.ReviewChange(ctx, ChangeReviewOptions{Base: o.Base, Head: br.Head, Gate: o.Gate, Own: o.Own, MutationBudget: o.MutationBudget})
	if err != nil {
		return nil, err
	}
	why := "the ledger (refs/agentproto/*) is not in this repository: fetch it (git agentproto sync pushes it)"
	if n, _, _ := l.Count(); n > 0 {
		why = "the ledger names no plan for branch " + o.Branch
	}
	br.Judged, br.Base, br.Unseen = pipeline.JudgedChange, cr.Base, pipeline.Unseen
	br.Notes = append(br.Notes, "judged the change alone: "+why)
	br.Gates, br.Findings, br.OK = cr.Gates, cr.Findings, cr.OK
	return br, nil
}
