package pipeline

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/plans"
)

// startCommit is the commit a new worktree of wp starts from: the frozen
// base for a WP without dependencies, else the checkpointed state of what
// it depends on — checkpointing each verified dependency first, and
// merging them when there are several — so a WP sees the code it builds
// on and its own changes are measured from there.
func (d *Dispatcher) startCommit(wp plans.WP) (string, error) {
	frozen := d.Env.History.Frozen
	if len(wp.DependsOn) == 0 {
		return frozen.BaseCommit, nil
	}
	var tips []string
	for _, dep := range wp.DependsOn {
		// Checkpointed once a wave: the WPs of a wave that start from the
		// same dependency start from the same commit, and checking its
		// worktree again for each (30-70 ms a WP) told nothing new.
		cp, ok := d.wave.checkpoint(dep)
		if !ok {
			var err error
			if cp, err = d.Env.Checkpoint(dep, ""); err != nil {
				return "", fmt.Errorf("checkpointing %s, which %s starts from: %w", dep, wp.ID, err)
			}
			if d.wave != nil {
				d.wave.checkpoints[dep] = cp
			}
		}
		d.say(dep, "checkpoint", "%.12s (%d paths); %s starts from it", cp.Commit, len(cp.Paths), wp.ID)
		tips = append(tips, cp.Commit)
	}
	start := tips[0]
	for i, tip := range tips[1:] {
		merged, err := d.mergeStart(start, tip, wp.ID, wp.DependsOn[:i+2])
		if err != nil {
			return "", err
		}
		start = merged
	}
	return start, nil
}

// mergeStart joins two dependency states: the descendant when one holds
// the other, else a merge commit made without any worktree (git
// merge-tree). A conflict between dependencies is refused with the paths.
func (d *Dispatcher) mergeStart(a, b, wp string, deps []string) (string, error) {
	repo := d.Env.Repo
	if repo.IsAncestor(b, a) {
		return a, nil
	}
	if repo.IsAncestor(a, b) {
		return b, nil
	}
	tree, err := repo.MergeTrees(a, b)
	var conflict *gitrepo.MergeConflictError
	if errors.As(err, &conflict) {
		return "", fault.Refusedf("%s depends on %s, whose checkpoints conflict in %s", wp, strings.Join(deps, ", "), strings.Join(conflict.Paths, ", "))
	}
	if err != nil {
		return "", err
	}
	msg := fmt.Sprintf("agentproto: %s starts from %s\n", wp, strings.Join(deps, " + "))
	return repo.CommitTree(tree, []string{a, b}, msg)
}
