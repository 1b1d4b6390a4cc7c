package pipeline

import (
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/worktree"
)

// setAsideBranch clears the way for a WP's new worktree when an earlier
// attempt's worktree was removed and its branch kept (worktree rm keeps
// it): the branch is renamed wt/SLUG-attempt-N, N the attempts so far, so
// its commits stay reachable and the new attempt starts clean. The rename
// is one git update-ref transaction: both refs move, or neither.
func (d *Dispatcher) setAsideBranch(wp, slug string, attempts int) error {
	branch := "refs/heads/" + worktree.BranchPrefix + slug
	refs, err := d.Env.Repo.Refs(branch)
	if err != nil {
		return err
	}
	tip := ""
	for _, r := range refs {
		if r.Name == branch {
			tip = r.ID
		}
	}
	if tip == "" {
		return nil
	}
	if _, ok := worktree.FindAbandoned(d.Env.Repo, slug); ok {
		return nil // half made, not removed: provisioning says how to clear it
	}
	// A branch checked out in some other worktree is that worktree's; moving
	// it would leave it on a ref that is gone.
	list, err := d.Env.Repo.Worktrees()
	if err != nil {
		return err
	}
	for _, w := range list {
		if w.Branch == branch {
			return fault.Conflictf("%s: branch %s is checked out in another worktree (git worktree list); remove that worktree or rename the branch, then dispatch again",
				wp, strings.TrimPrefix(branch, "refs/heads/"))
		}
	}
	if attempts < 1 {
		attempts = 1
	}
	kept := ""
	for n := attempts; ; n++ {
		kept = fmt.Sprintf("%s-attempt-%d", branch, n)
		if refs, err := d.Env.Repo.Refs(kept); err != nil {
			return err
		} else if len(refs) == 0 {
			break
		}
	}
	tx := fmt.Sprintf("start\ncreate %s %s\ndelete %s %s\ncommit\n", kept, tip, branch, tip)
	if _, err := d.Env.Repo.GitInput([]byte(tx), "update-ref", "--stdin"); err != nil {
		return fmt.Errorf("setting aside branch %s: %w", strings.TrimPrefix(branch, "refs/heads/"), err)
	}
	d.say(wp, "worktree", "branch %s of an earlier attempt (its worktree removed) kept as %s",
		strings.TrimPrefix(branch, "refs/heads/"), strings.TrimPrefix(kept, "refs/heads/"))
	return nil
}
