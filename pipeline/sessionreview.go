package pipeline

import (
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/launch"
	"github.com/agentproto/agentproto/sessions"
)

// ReviewerOptions say how the reviewer session of a plan runs.
type ReviewerOptions struct {
	Sessions *sessions.Client
	Config   config.Config
	// Adapter or Profile runs the reviewer; its committed options must be
	// trusted.
	Adapter, Profile string
	// Env is the caller's environment, given to the session as any other.
	Env []string
}

// ReviewerBriefName is the brief written beside the plan for the reviewer.
const ReviewerBriefName = "REVIEW-brief.md"

// RunReviewer resolves the reviewer's launch through the one resolver and
// runs the LLM leg of the review (LLMReview): the session's verdicts are
// attached to r, never counted as a pass. It returns the session's output.
func (e *Env) RunReviewer(o ReviewerOptions, r *ReviewResult) ([]byte, error) {
	if o.Adapter != "" && o.Profile != "" {
		return nil, fault.Invalidf("--profile names the adapter; do not give --adapter too")
	}
	l, err := launch.Resolve(o.Config, e.Repo.WorkTree, launch.Request{Adapter: o.Adapter, Profile: o.Profile, Env: o.Env})
	if err != nil {
		return nil, err
	}
	if err := l.RequireTrust(o.Config, e.Repo.WorkTree, e.Repo.CommonDir, e.Repo.WorkTree, ""); err != nil {
		return nil, err
	}
	start := l.StartArgs()
	start.Env = o.Env
	return e.LLMReview(ReviewerLaunch{Sessions: o.Sessions, Start: *start, Timeout: o.Config.Dispatch.Timeout.String()}, r)
}
