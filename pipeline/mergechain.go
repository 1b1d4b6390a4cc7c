package pipeline

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/worktree"
)

// mergeChain merges each WP's verified commit onto start in plan order,
// one merge commit each with git merge --no-ff's message and parents, but
// without touching the worktree: git merge-tree --write-tree gives the
// merged tree (or the conflicting paths) and commit-tree the commit. A git
// merge per WP checked the whole tree out each time, which was most of
// consolidate's cost. A WP whose commit start already holds (a re-run) is
// merged already, as git merge says "Already up to date". It returns the
// last commit; the caller moves the worktree there once.
func (e *Env) mergeChain(wt *gitrepo.Repo, start string, wps []plans.WP, tips map[string]string, c *Consolidation) (string, error) {
	held, err := e.mergedInto(wt, start)
	if err != nil {
		return "", err
	}
	head := start
	for _, wp := range wps {
		tip := tips[wp.ID]
		if held[tip] {
			c.Merged = append(c.Merged, wp.ID)
			continue
		}
		branch := worktree.BranchPrefix + Slug(e.Project.Name, wp.ID)
		tree, err := wt.MergeTrees(head, tip)
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
		head, err = wt.CommitTree(tree, []string{head, tip}, "consolidate "+e.Project.Name+": merge "+wp.ID)
		if err != nil {
			return "", err
		}
		c.Merged = append(c.Merged, wp.ID)
	}
	return head, nil
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
