package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/launch"
	"github.com/agentproto/agentproto/sessions"
)

// ReviewerOptions say how the reviewer session of a plan runs.
type ReviewerOptions struct {
	Sessions *sessions.Client
	Config   config.Config
	// Adapter runs the reviewer; its committed options must be trusted.
	Adapter string
	// Env is the caller's environment, given to the session as any other.
	Env []string
}

// ReviewerBriefName is the brief written beside the plan for the reviewer.
const ReviewerBriefName = "REVIEW-brief.md"

// RunReviewer runs a review session on a brief written for it, waits for
// its turn and returns the session id and its output. It reports and never
// fixes: the brief says so, and the output is attached, never counted as a
// pass.
func (e *Env) RunReviewer(o ReviewerOptions, r *ReviewResult) (string, []byte, error) {
	l, err := launch.Resolve(o.Config, e.Repo.WorkTree, launch.Request{Adapter: o.Adapter})
	if err != nil {
		return "", nil, err
	}
	if err := l.RequireTrust(o.Config, e.Repo.WorkTree, e.Repo.CommonDir, e.Repo.WorkTree, ""); err != nil {
		return "", nil, err
	}
	brief := filepath.Join(e.Project.Dir, ReviewerBriefName)
	if err := os.WriteFile(brief, []byte(e.reviewerBrief(r)), 0o644); err != nil {
		return "", nil, err
	}
	start := l.StartArgs()
	start.Dir, start.Label, start.Env = e.Repo.WorkTree, e.Project.Name+"/review", o.Env
	start.Prompt = fmt.Sprintf("You are the adversarial reviewer of plan %s.\nYour task is your brief: %s\nReport only; change nothing.\n", e.Project.Name, brief)
	resp, err := o.Sessions.Call(&sessions.Request{Op: "start", Start: start})
	if err != nil {
		return "", nil, err
	}
	id := resp.Session.ID
	if _, err := o.Sessions.Call(&sessions.Request{Op: "wait", IDs: []string{id}, Until: "turn-end", Timeout: o.Config.Dispatch.Timeout.String()}); err != nil {
		return id, nil, err
	}
	out, _ := os.ReadFile(sessions.NewStore(e.Repo.CommonDir).OutputPath(id))
	o.Sessions.Call(&sessions.Request{Op: "kill", ID: id})
	return id, out, nil
}

// reviewerBrief lists the mechanical findings so far for the reviewer to
// start from.
func (e *Env) reviewerBrief(r *ReviewResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Review brief: plan %s\n\nYou review; you never fix. Read SPEC.md, CONTRACT.md and the WP briefs beside this file,\nthen the integration branch %s. Report every place where the code does not do\nwhat the briefs say, with file, line and why. The mechanical findings so far:\n\n", e.Project.Name, IntegrationSlug(e.Project.Name))
	for _, fd := range r.Findings {
		fmt.Fprintf(&b, "- %s %s:%d %s\n", fd.Code, fd.File, fd.Line, fd.Message)
	}
	return b.String()
}
