package app

import (
	"context"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/pipeline"
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

// PRPacketRow is a plan's pull request as the last poll saw it, for the
// views of the whole repository (the observation packet): its state, and
// each item still open with who has it and the turns left, or the
// escalation it waits on with what was tried.
type PRPacketRow struct {
	Project string              `json:"project"`
	Number  int                 `json:"number"`
	State   string              `json:"state"`
	Head    string              `json:"head"`
	URL     string              `json:"url,omitempty"`
	Pending []reactions.Pending `json:"pending"`
}

// AllPRStatuses lists the pull requests of every plan under .plans/ that a
// poll has seen. A plan that does not load is named in problems.
func AllPRStatuses(repo *gitrepo.Repo, l gitstore.Store, cfg config.Reactions) (out []PRPacketRow, problems []error, err error) {
	out = []PRPacketRow{}
	for _, name := range plans.List(repo.WorkTree) {
		p, err := plans.Load(repo.WorkTree, name)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		rep, err := reactions.Status(l, p, cfg)
		if err != nil {
			return nil, nil, err
		}
		if rep != nil {
			out = append(out, PRPacketRow{Project: p.Name, Number: rep.PR.Number, State: rep.PR.State, Head: rep.PR.Head, URL: rep.PR.URL, Pending: rep.Pending})
		}
	}
	return out, problems, nil
}

// Waiting is everything that waits for the supervisor, every plan's: the
// work packages stopped on a question (plan answer) and the items of the
// pull requests that escalated (pr answer), each with what was tried.
type Waiting struct {
	Decisions   []pipeline.PlanWaiting `json:"decisions"`
	Escalations []PRWaiting            `json:"escalations"`
	// Problems are plans that could not be read: named, not hidden.
	Problems []string `json:"problems,omitempty"`
}

// PRWaiting is an escalated item of a plan's pull request.
type PRWaiting struct {
	Project string `json:"project"`
	Number  int    `json:"number"`
	reactions.Pending
}

// Waiting lists what waits for the supervisor across the repository's
// plans, from the ledger alone; a broken agentproto.toml counts the
// retries under the defaults rather than hide anything.
func (e *Env) Waiting(ctx context.Context) (*Waiting, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	l, err := e.ReadLedger()
	if err != nil {
		return nil, err
	}
	cfg, err := e.Config()
	if err != nil {
		cfg = config.Default()
	}
	w := &Waiting{Escalations: []PRWaiting{}}
	decisions, problems, err := pipeline.AllWaitingDecisions(repo.WorkTree, l)
	if err != nil {
		return nil, err
	}
	w.Decisions = decisions
	prs, _, err := AllPRStatuses(repo, l, cfg.Reactions)
	if err != nil {
		return nil, err
	}
	for _, pr := range prs {
		for _, p := range pr.Pending {
			if p.Escalated {
				w.Escalations = append(w.Escalations, PRWaiting{Project: pr.Project, Number: pr.Number, Pending: p})
			}
		}
	}
	for _, p := range problems {
		w.Problems = append(w.Problems, p.Error())
	}
	return w, nil
}
