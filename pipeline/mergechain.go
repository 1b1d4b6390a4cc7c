package pipeline

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/treemerge"
	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/worktree"
)

// mergeChain merges each WP's verified commit onto start in plan order,
// one merge commit each with git merge --no-ff's message and parents, but
// without touching the worktree. A merge whose outcome is certain without
// git's judgement — no path changed on both sides, one merge base: the
// disjoint perimeters of a plan — is made in-process; any other goes to
// git merge-tree --write-tree, which gives the merged tree or the
// conflicting paths. A process per WP was most of consolidate's cost.
// A WP whose commit start already holds (a re-run) is merged already, as
// git merge says "Already up to date". It returns the last commit, written
// to the repository; the caller moves the worktree there once.
func (e *Env) mergeChain(wt *gitrepo.Repo, start string, wps []plans.WP, tips map[string]string, c *Consolidation) (string, error) {
	held, err := e.mergedInto(wt, start)
	if err != nil {
		return "", err
	}
	m := &merger{git: wt, store: treemerge.Open(wt.CommonDir)}
	defer m.store.Close()
	head := start
	for _, wp := range wps {
		tip := tips[wp.ID]
		if held[tip] {
			c.Merged = append(c.Merged, wp.ID)
			continue
		}
		branch := worktree.BranchPrefix + Slug(e.Project.Name, wp.ID)
		tree, err := m.merge(head, tip)
		if err != nil {
			var conflict *gitrepo.MergeConflictError
			if errors.As(err, &conflict) {
				for _, f := range conflict.Paths {
					c.Findings = append(c.Findings, judge.Finding{Code: "merge-conflict", WP: wp.ID, File: f, Message: "merging " + branch + " conflicts here"})
				}
			} else {
				c.Findings = append(c.Findings, judge.Finding{Code: "merge-failed", WP: wp.ID, Message: err.Error()})
			}
			return "", fmt.Errorf("consolidate stopped at %s: %d conflicts; the integration branch is unchanged", wp.ID, len(c.Findings))
		}
		if head, err = m.commit(tree, head, tip, "consolidate "+e.Project.Name+": merge "+wp.ID); err != nil {
			return "", err
		}
		c.Merged = append(c.Merged, wp.ID)
	}
	return head, m.store.Flush()
}

// merger makes a chain of merge commits: in-process where treemerge is
// certain, with git where it is not. The first commit is git's own
// (commit-tree); the others copy its author and committer lines, so each
// is the commit git would have written in the same second.
type merger struct {
	git   *gitrepo.Repo
	store *treemerge.Store
	// identity is "" until git has made a commit whose lines can be copied.
	identity string
}

// merge returns the tree of merging tip into head; a conflict is git's
// *gitrepo.MergeConflictError.
func (m *merger) merge(head, tip string) (string, error) {
	if tree, err := m.store.Merge(plumbing.NewHash(head), plumbing.NewHash(tip)); err == nil {
		return tree.String(), nil
	}
	if err := m.store.Flush(); err != nil { // git reads head from the repository
		return "", err
	}
	return m.git.MergeTrees(head, tip)
}

// commit makes the merge commit of tree with parents head and tip.
func (m *merger) commit(tree, head, tip, msg string) (string, error) {
	if m.identity != "" {
		parents := []plumbing.Hash{plumbing.NewHash(head), plumbing.NewHash(tip)}
		return m.store.Commit(plumbing.NewHash(tree), parents, m.identity, msg).String(), nil
	}
	if err := m.store.Flush(); err != nil { // git reads the tree from the repository
		return "", err
	}
	commit, err := m.git.CommitTree(tree, []string{head, tip}, msg)
	if err != nil {
		return "", err
	}
	if identity, err := m.store.Identity(plumbing.NewHash(commit)); err == nil {
		m.identity = identity
	}
	return commit, nil
}

// mergedInto returns the tips of the plan's WP branches that start holds,
// in one process.
func (e *Env) mergedInto(wt *gitrepo.Repo, start string) (map[string]bool, error) {
	pattern := "refs/heads/" + worktree.BranchPrefix + Slug(e.Project.Name, "")
	out, err := wt.Git("for-each-ref", "--merged="+start, "--format=%(objectname)", pattern+"*")
	if err != nil {
		return nil, err
	}
	held := map[string]bool{}
	for _, id := range strings.Fields(string(out)) {
		held[id] = true
	}
	return held, nil
}
