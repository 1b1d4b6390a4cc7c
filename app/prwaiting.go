package app

import (
	"context"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/reactions"
)

// PRAnswerOptions are the inputs of AnswerPR.
type PRAnswerOptions struct {
	Project string
	// Item is what escalated: check:NAME, comment:ID, review:ID.
	Item string
	// Choice is retry, dismiss, or the work package that takes the item.
	Choice string
	// Note says why, for the ledger and the next escalation's "tried".
	Note string
}

// PRAnswer is what answering an escalated item did.
type PRAnswer = reactions.AnswerResult

// AnswerPR answers an item of the plan's pull request that waits for the
// supervisor: retry gives its owners new turns, a work package id sends
// it there, dismiss closes it. The next poll acts on it (pr watch, or
// the daemon's pr-watch policy).
func (e *Env) AnswerPR(ctx context.Context, o PRAnswerOptions) (*PRAnswer, error) {
	pe, cfg, err := e.Pipeline(ctx, o.Project)
	if err != nil {
		return nil, err
	}
	return reactions.Answer(pe.Ledger, pe.Project, cfg.Reactions, o.Item, o.Choice, o.Note)
}

// PREscalation is an item of a plan's pull request waiting for the
// supervisor, with what was tried: what the waiting views list beside
// the work packages stopped on a question.
type PREscalation = reactions.Escalation

// AllPREscalations lists the escalated items of the pull requests of every
// plan under .plans/, for the views of the whole repository (the
// observation packet). A plan that does not load is named in problems.
func AllPREscalations(repo *gitrepo.Repo, l gitstore.Store, cfg config.Reactions) (out []PREscalation, problems []error, err error) {
	out = []PREscalation{}
	for _, name := range plans.List(repo.WorkTree) {
		p, err := plans.Load(repo.WorkTree, name)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		es, err := reactions.Escalations(l, p, cfg)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, es...)
	}
	return out, problems, nil
}
