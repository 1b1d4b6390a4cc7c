package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// The LLM leg of review: a reviewer session reads the static findings,
// the diff and the plan's review brief, confirms or refutes each finding
// and adds its own. What it says is attached to the review record and
// never makes a review pass: OK is the static review's alone.

// ReviewerLaunch is a reviewer session resolved by the caller: adapter,
// its path and checksum, options, environment, and the reviewer's own
// worktree it runs in.
type ReviewerLaunch struct {
	Sessions *sessions.Client
	Start    sessions.StartArgs
	Timeout  time.Duration
	Worktree *worktree.Meta
	Manager  *worktree.Manager
}

// maxBriefDiff bounds the diff the brief carries; the reviewer reads the
// rest from the branch.
const maxBriefDiff = 256 << 10

// LLMReview runs the reviewer session on r and attaches its verdicts to
// r. It returns the session's output, to be attached in full.
func (e *Env) LLMReview(l ReviewerLaunch, r *ReviewResult) (_ []byte, err error) {
	if l.Worktree == nil || l.Manager == nil {
		return nil, fmt.Errorf("the reviewer runs only in its own worktree")
	}
	defer func() {
		if err != nil {
			// A run that failed leaves no clean worktree behind; one
			// with changes stays to be looked at.
			e.dropReviewerWorktree(l.Manager, l.Worktree)
		}
	}()
	brief, err := e.writeReviewerBrief(r)
	if err != nil {
		return nil, err
	}
	st := l.Start
	st.Dir, st.Worktree = l.Worktree.Path, l.Worktree.Slug
	st.Label = e.Project.Name + "/review"
	st.Prompt = fmt.Sprintf("You are the adversarial reviewer of plan %s.\nYour task is your brief: %s\nReport only; change nothing.\n", e.Project.Name, brief)
	// Its brief and the plan's files beside it, in the main checkout.
	st.Sandbox.Readable = append(st.Sandbox.Readable, e.Project.Dir)
	before, err := snapshotSealed(e.Repo, l.Worktree.Slug, e.Project.Name)
	if err != nil {
		return nil, err
	}
	rec, err := l.Sessions.Start(context.Background(), st)
	if err != nil {
		return nil, err
	}
	id := rec.ID
	r.Reviewer = id
	_, err = l.Sessions.Wait(context.Background(), []string{id}, sessions.UntilTurnEnd, l.Timeout)
	// Killed before its worktree is looked at: nothing writes after.
	l.Sessions.Kill(context.Background(), id)
	if err != nil {
		return nil, err
	}
	out, err := os.ReadFile(sessions.OpenView(e.Repo.CommonDir).OutputPath(id))
	if err != nil {
		return nil, err
	}
	v := judge.ParseReviewerVerdicts(out, len(r.Findings))
	if err := e.voidIfChanged(l, id, before, &v); err != nil {
		return nil, err
	}
	r.ReviewerVerdicts = &v
	return out, nil
}

// writeReviewerBrief writes REVIEW-brief.md beside the plan: the static
// findings numbered F1…, the plan's own REVIEW.md if it has one, the
// answer expected, and the diff under review.
func (e *Env) writeReviewerBrief(r *ReviewResult) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Review brief: plan %s\n\nYou review; you never fix. Read SPEC.md, CONTRACT.md and the WP briefs beside this file,\nthen the integration branch %s. Report every place where the code does not do\nwhat the briefs say, with file, line and why.\n\n## Static findings\n\n", e.Project.Name, IntegrationSlug(e.Project.Name))
	if len(r.Findings) == 0 {
		b.WriteString("(none)\n")
	}
	for i, fd := range r.Findings {
		sev := fd.Severity
		if sev == "" {
			sev = "error"
		}
		fmt.Fprintf(&b, "- F%d %s %s %s:%d %s\n", i+1, sev, fd.Code, fd.File, fd.Line, fd.Message)
	}
	if own, err := os.ReadFile(filepath.Join(e.Project.Dir, "REVIEW.md")); err == nil {
		b.WriteString("\n## The plan's review brief\n\n")
		b.Write(own)
	}
	b.WriteString("\n## Your answer\n\nConfirm or refute every static finding, and add your own. End your output with one block:\n\n" +
		judge.ReviewFence + "\n{\"verdicts\": [{\"finding\": \"F1\", \"verdict\": \"confirmed\", \"why\": \"...\"}],\n \"findings\": [{\"file\": \"a.go\", \"line\": 3, \"severity\": \"error\", \"code\": \"reviewer\", \"message\": \"...\"}]}\n```\n")
	if d := e.reviewDiff(); d != "" {
		b.WriteString("\n## The change\n\n````diff\n" + d + "````\n")
	}
	brief := filepath.Join(e.Project.Dir, ReviewerBriefName)
	return brief, os.WriteFile(brief, []byte(b.String()), 0o644)
}

// reviewDiff is the diff from the frozen base to the integration branch
// (or, before consolidate, to each WP branch), bounded.
func (e *Env) reviewDiff() string {
	frozen, err := e.Frozen()
	if err != nil {
		return ""
	}
	heads := []string{worktree.BranchPrefix + IntegrationSlug(e.Project.Name)}
	if !e.Repo.HasCommit(heads[0]) {
		heads = nil
		for _, wp := range order(e.Project) {
			heads = append(heads, worktree.BranchPrefix+Slug(e.Project.Name, wp.ID))
		}
	}
	var b strings.Builder
	for _, h := range heads {
		out, err := e.Repo.Git("diff", "--no-color", "--no-ext-diff", frozen.BaseCommit, h, "--")
		if err == nil {
			b.Write(out)
		}
		if b.Len() > maxBriefDiff {
			return b.String()[:maxBriefDiff] + "\n… (cut: read the rest from the branch)\n"
		}
	}
	return b.String()
}
