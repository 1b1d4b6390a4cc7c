package app

import (
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/worktree"
)

// reviewReady refuses a review that would judge work not there yet: a
// review reads each work package's branch (or the integration branch), so
// before a WP is dispatched, verified and checkpointed it would report
// missing work as findings, or see none of it. The error names each WP
// that is not ready and the one command that moves them on.
func reviewReady(pe *pipeline.Env) error {
	st, err := pipeline.ReadState(pe.Ledger, pe.Project.Name)
	if err != nil {
		return err
	}
	p := pe.Project.Name
	var undispatched, unverified, uncommitted []string
	for _, wp := range pe.Project.Plan.WPs {
		if _, err := worktree.Load(pe.Repo, pipeline.Slug(p, wp.ID)); err != nil {
			undispatched = append(undispatched, wp.ID)
			continue
		}
		v, verified := st.Verifications[wp.ID]
		_, checkpointed := st.Checkpoints[wp.ID]
		_, dispatched := st.LastDispatch(wp.ID)
		switch {
		case !verified && dispatched:
			// Work done by hand in the worktree, with no dispatch, is on
			// its branch for review to read; a dispatched WP not yet
			// verified is still at work.
			unverified = append(unverified, wp.ID)
		case v.Verdict == pipeline.Pass && !checkpointed && st.Consolidated == nil:
			uncommitted = append(uncommitted, wp.ID)
		}
	}
	switch {
	case len(undispatched) > 0:
		return fault.Refusedf("review is too early: %s never ran (no worktree); next: git agentproto dispatch %s", list(undispatched), p)
	case len(unverified) > 0:
		return fault.Refusedf("review is too early: %s %s no verification yet (a session may still be at work); next: git agentproto dispatch %s waits for the wave and verifies it (or git agentproto verify %s %s)",
			list(unverified), have(unverified), p, p, unverified[0])
	case len(uncommitted) > 0:
		return fault.Refusedf("review is too early: %s passed verification but %s no checkpoint, so review would not see the work; next: git agentproto consolidate %s --checkpoint",
			list(uncommitted), have(uncommitted), p)
	}
	return nil
}

func list(ids []string) string { return strings.Join(ids, ", ") }

func have(ids []string) string {
	if len(ids) == 1 {
		return "has"
	}
	return "have"
}
