package pipeline

import (
	"fmt"
	"io"
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
// from git), after clearing what an earlier review left (clearReviewer).
func (e *Env) reviewerWorktree(mg *worktree.Manager) (*worktree.Meta, error) {
	if err := mg.Config.NeedsOwnWorktree(os.Getenv, "the reviewer"); err != nil {
		return nil, err
	}
	slug := ReviewerSlug(e.Project.Name)
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
	if err := e.clearReviewer(mg, slug, o.BaseCommit); err != nil {
		return nil, err
	}
	return mg.New(o)
}

// clearReviewer makes way for a new reviewer worktree. A clean one left by
// an earlier review goes, with its branch. One with changes — what a
// voided reviewer wrote — is archived on a salvage ref first and said on
// mg.Out, so the review goes on and nothing is lost. A branch left
// without its worktree (removed by hand) is deleted when base holds all
// its commits, else archived too.
func (e *Env) clearReviewer(mg *worktree.Manager, slug, base string) error {
	out := mg.Out
	if out == nil {
		out = io.Discard
	}
	if old, err := worktree.Load(e.Repo, slug); err == nil {
		changes, err := worktree.Changes(e.Repo, old)
		if err != nil {
			return err
		}
		if len(changes) == 0 {
			return e.dropReviewerWorktree(mg, old)
		}
		s, err := mg.Archive(slug)
		if err != nil {
			return fmt.Errorf("archiving the changes an earlier reviewer left in %s: %w", slug, err)
		}
		// The salvage holds the branch's commits: it can go.
		if err := e.Repo.DeleteRef("refs/heads/"+old.Branch, s.Head); err != nil {
			return fmt.Errorf("deleting the reviewer's branch %s: %w", old.Branch, err)
		}
		fmt.Fprintf(out, "the reviewer's worktree %s held changes an earlier review left (%s): archived on %s; git agentproto worktree restore %s brings it back\n",
			slug, changes[0].Path, s.Ref, slug)
		return nil
	} else if _, ok := worktree.FindAbandoned(e.Repo, slug); ok {
		if _, err := mg.Remove(slug, worktree.RemoveOptions{}); err != nil {
			return err
		}
	}
	branch := worktree.BranchPrefix + slug
	tip, err := e.Repo.Commit("refs/heads/" + branch)
	if err != nil {
		return nil // no branch left
	}
	if e.Repo.IsAncestor(tip, base) {
		if err := e.Repo.DeleteRef("refs/heads/"+branch, tip); err != nil {
			return fmt.Errorf("deleting the reviewer's old branch %s: %w", branch, err)
		}
		return nil
	}
	s, err := mg.ArchiveBranch(slug, branch)
	if err != nil {
		return fmt.Errorf("archiving the reviewer's old branch %s: %w", branch, err)
	}
	fmt.Fprintf(out, "the reviewer's old branch %s held commits the review does not start from: archived on %s; git agentproto worktree restore %s brings it back\n",
		branch, s.Ref, slug)
	return nil
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
	if err := e.Repo.DeleteRef("refs/heads/"+m.Branch, m.BaseCommit); err != nil {
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
