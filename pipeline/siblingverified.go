package pipeline

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentproto/agentproto/sandbox"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// A sibling at work when a WP's session started has no status in the
// sibling snapshot: its own session changes its worktree. When the wave
// verifies it and ends its session while the WP's session still runs, a
// later write into its worktree is no longer its own doing, and the WP's
// verify compares that worktree with the tree the sibling's verification
// saw. The sibling's checkpoint would refuse such a change anyway; this
// names who made it. Only for a WP whose session ran unconfined: the
// sandbox lets no session write another's worktree.

// verifiedSiblings returns the comparisons to run, with the statuses of
// siblingFindings, for every other WP of the plan verified passing and
// ended during the session of wp, which started at start — those whose
// worktree a status already compares excepted — and report, which adds
// what they found once they ran.
func (e *Env) verifiedSiblings(st *State, wp string, start time.Time, b *blame, compared map[string]bool) (checks []func() error, report func(add func(f, why string))) {
	type found struct {
		id      string
		m       *worktree.Meta
		end     time.Time
		changed []string
	}
	var all []*found
	for _, s := range e.Project.Plan.WPs {
		if s.ID == wp || compared[s.ID] || !b.unconfined() {
			continue
		}
		last, _ := st.LastDispatch(s.ID)
		end, ok := e.endedAfterVerify(st, s.ID, last.Session, start, b.all)
		if !ok {
			continue
		}
		m, err := worktree.Load(e.Repo, Slug(e.Project.Name, s.ID))
		if err != nil || worktree.Missing(m) {
			continue
		}
		f := &found{id: s.ID, m: m, end: end}
		all = append(all, f)
		v := st.Verifications[s.ID]
		checks = append(checks, func() (err error) {
			f.changed, err = e.changedSinceVerified(v, m)
			return err
		})
	}
	return checks, func(add func(f, why string)) {
		for _, f := range all {
			if len(f.changed) == 0 {
				continue
			}
			dated := func() bool { return changedSince(f.m.Path, f.changed, f.end) }
			add(fmt.Sprintf("sibling-worktree: %s's worktree %s changed after %s was verified and its session ended: %s",
				f.id, f.m.Path, f.id, strings.Join(f.changed, ", ")), b.verifiedWriter(f.end, dated))
		}
	}
}

// endedAfterVerify is when s's session ended, for a sibling verified
// passing after start (the WP's session start) in session, the session
// the snapshot saw: the time of the session_cleaned event the daemon
// records once every process of the session has gone. ok is false when s
// was not verified since, or its session has not ended that way.
func (e *Env) endedAfterVerify(st *State, s, session string, start time.Time, all []*sessions.Record) (time.Time, bool) {
	v, ok := st.Verifications[s]
	if !ok || v.Verdict != Pass || v.Tree == "" || session == "" || !st.VerifiedAt[s].After(start) {
		return time.Time{}, false
	}
	for _, r := range all {
		if r.ID != session {
			continue
		}
		if r.State != sessions.StateCleaned {
			return time.Time{}, false
		}
		ev, _, err := e.Ledger.Get(fmt.Sprintf("session/%s/%d-%s", r.ID, r.Transitions, sessions.StateCleaned))
		if err != nil {
			return time.Time{}, false
		}
		end, err := time.Parse(time.RFC3339Nano, ev.Time)
		return end, err == nil && !end.Before(st.VerifiedAt[s])
	}
	return time.Time{}, false
}

// changedSinceVerified lists the paths where the worktree m no longer
// holds the tree v saw: one git command when the index v kept says the
// disk is unchanged, as checkpoint asks it.
func (e *Env) changedSinceVerified(v Verification, m *worktree.Meta) ([]string, error) {
	if index, ok := loadVerifiedIndex(e.Repo.CommonDir, v.Index); ok {
		if same, err := worktree.KeptStateFrom(v.Tree, index).Unchanged(e.Repo, m); err == nil && same {
			return nil, nil
		}
	}
	tree, err := worktree.StateTree(e.Repo, m)
	if err != nil || tree == v.Tree {
		return nil, err
	}
	return worktree.DiffTrees(e.Repo, v.Tree, tree)
}

// unconfined reports whether the WP's session ran outside the sandbox.
func (b *blame) unconfined() bool {
	return b.own != nil && b.own.Sandbox != sandbox.KindLandlock
}

// verifiedWriter is worktreeWriter for a change found in the worktree of a
// sibling whose session ended at end: the WP's only when its session ran
// unconfined, no other unconfined session was at work since, and every
// path changed is dated after end, when the sibling's own processes were
// all gone.
func (b *blame) verifiedWriter(end time.Time, dated func() bool) string {
	why := b.writer(end)
	if why == "" && !dated() {
		why = fmt.Sprintf("not shown to be %s's: not every change is dated after the sibling's session ended", b.wp)
	}
	return why
}
