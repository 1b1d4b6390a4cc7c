package pipeline

import (
	"fmt"
	"os"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/worktree"
)

// ReviewerSlug is the reviewer's own worktree: PROJECT-review.
func ReviewerSlug(project string) string { return project + "-review" }

// reviewerWorktree makes the reviewer a fresh worktree of the integration
// branch (before consolidate, of the frozen base: the WP branches are read
// from git). A clean one left by an earlier review is made again from
// today's integration state; one with changes is refused, so what an
// earlier reviewer wrote can be looked at first.
func (e *Env) reviewerWorktree(mg *worktree.Manager) (*worktree.Meta, error) {
	if err := mg.Config.NeedsOwnWorktree(os.Getenv, "the reviewer"); err != nil {
		return nil, err
	}
	slug := ReviewerSlug(e.Project.Name)
	if old, err := worktree.Load(e.Repo, slug); err == nil {
		if err := e.dropReviewerWorktree(mg, old); err != nil {
			return nil, err
		}
	} else if _, ok := worktree.FindAbandoned(e.Repo, slug); ok {
		if _, err := mg.Remove(slug, worktree.RemoveOptions{}); err != nil {
			return nil, err
		}
	}
	frozen, err := e.Frozen()
	if err != nil {
		return nil, err
	}
	o := worktree.CreateOptions{Slug: slug, BaseName: frozen.Base, BaseCommit: frozen.BaseCommit, HooksAt: frozen.BaseCommit}
	if o.BaseName == "" {
		o.BaseName = "frozen base"
	}
	branch := worktree.BranchPrefix + IntegrationSlug(e.Project.Name)
	if commit, err := e.Repo.Commit(branch); err == nil {
		o.BaseName, o.BaseCommit = branch, commit
	}
	return mg.New(o)
}

// dropReviewerWorktree removes a reviewer worktree that has no changes,
// and its branch while it still points at the commit it started from.
func (e *Env) dropReviewerWorktree(mg *worktree.Manager, m *worktree.Meta) error {
	changes, err := worktree.Changes(e.Repo, m)
	if err != nil {
		return err
	}
	if len(changes) > 0 {
		return fault.Conflictf("the reviewer's worktree %s has changes (%s): look at them, then remove it (worktree rm %s)", m.Slug, changes[0].Path, m.Slug)
	}
	if _, err := mg.Remove(m.Slug, worktree.RemoveOptions{}); err != nil {
		return err
	}
	if _, err := e.Repo.Git("update-ref", "-d", "refs/heads/"+m.Branch, m.BaseCommit); err != nil {
		return fmt.Errorf("deleting the reviewer's branch %s: %w", m.Branch, err)
	}
	return nil
}

// voidIfChanged voids v when the reviewer changed its worktree, or
// anything outside it since before (the snapshot taken as it started): a
// reviewer reports, never fixes, and nothing it wrote is adopted. A clean
// worktree is removed; a changed one is kept to be looked at.
func (e *Env) voidIfChanged(l ReviewerLaunch, session string, before Outside, v *judge.ReviewerVerdicts) error {
	changes, err := worktree.Changes(e.Repo, l.Worktree)
	if err != nil {
		return err
	}
	moved, err := changedSealed(e.Repo, l.Worktree.Slug, e.Project.Name, before)
	if err != nil {
		return err
	}
	if len(changes) == 0 && len(moved) == 0 {
		return e.dropReviewerWorktree(l.Manager, l.Worktree)
	}
	var where []string
	for _, c := range changes {
		v.Changed = append(v.Changed, c.Path)
	}
	if len(changes) > 0 {
		where = append(where, strings.Join(v.Changed, ", ")+" in its worktree "+l.Worktree.Slug)
	}
	if len(moved) > 0 {
		v.Changed = append(v.Changed, moved...)
		where = append(where, strings.Join(moved, ", ")+" outside it")
	}
	v.Void = fmt.Sprintf("reviewer session %s changed %s: a reviewer reports, never fixes; its verdicts are void and nothing it wrote is adopted",
		session, strings.Join(where, ", and "))
	v.Verdicts, v.Findings = []judge.FindingVerdict{}, []judge.Finding{}
	if len(changes) == 0 {
		return e.dropReviewerWorktree(l.Manager, l.Worktree)
	}
	return nil
}
