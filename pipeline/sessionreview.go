package pipeline

import (
	"io"
	"os"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/launch"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// ReviewerOptions say how the reviewer session of a plan runs.
type ReviewerOptions struct {
	Sessions *sessions.Client
	Config   config.Config
	// Adapter or Profile runs the reviewer; its committed options must be
	// trusted.
	Adapter, Profile string
	// Env is the caller's environment, given to the session as dispatch
	// gives it to executors: with a perimeter, here one that allows nothing.
	Env []string
	// Out receives what the reviewer's worktree hooks print; nil discards.
	Out io.Writer
}

// ReviewerBriefName is the brief written beside the plan for the reviewer.
const ReviewerBriefName = "REVIEW-brief.md"

// CheckReviewer is what refuses a reviewer session before the static
// review runs, so minutes of gates are not spent on a refusal: adapter and
// profile both given, or an isolation policy under which the reviewer's
// own worktree is never made.
func CheckReviewer(cfg config.Config, adapter, profile string) error {
	if adapter != "" && profile != "" {
		return fault.Invalidf("--profile names the adapter; do not give --adapter too")
	}
	return cfg.Worktree.NeedsOwnWorktree(os.Getenv, "the reviewer")
}

// RunReviewer resolves the reviewer's launch through the one resolver,
// makes the reviewer its own worktree of the integration state and runs
// the LLM leg of the review (LLMReview) there: the session's verdicts are
// attached to r, never counted as a pass, and void if it changed anything.
// It returns the session's output.
func (e *Env) RunReviewer(o ReviewerOptions, r *ReviewResult) (_ []byte, err error) {
	if err := CheckReviewer(o.Config, o.Adapter, o.Profile); err != nil {
		return nil, err
	}
	l, err := launch.Resolve(o.Config, e.Repo.WorkTree, launch.Request{Adapter: o.Adapter, Profile: o.Profile, Env: o.Env})
	if err != nil {
		return nil, err
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	mg := &worktree.Manager{Repo: e.Repo, Config: o.Config.Worktree, Out: o.Out, By: "review",
		Ledger: func() (gitstore.Store, error) { return e.Ledger, nil }}
	m, err := e.reviewerWorktree(mg)
	if err != nil {
		return nil, err
	}
	if err := l.RequireTrust(o.Config, e.Repo.WorkTree, e.Repo.CommonDir, m.Path, ""); err != nil {
		e.dropReviewerWorktree(mg, m) // made for nothing: clean, so removed
		return nil, err
	}
	start := l.StartArgs()
	// An agent whose writes the adapter sees (acp) may write nothing.
	start.Env = withAllowed(o.Env, []string{})
	return e.LLMReview(ReviewerLaunch{Sessions: o.Sessions, Start: *start, Timeout: o.Config.Dispatch.Timeout.Duration,
		Worktree: m, Manager: mg}, r)
}
