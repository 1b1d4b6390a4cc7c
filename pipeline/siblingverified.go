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
// sibling snapshot: its own session changes its worktree. Once it is
// verified and its session ended after the WP's unconfined session
// started, its worktree no longer changes by its session's doing, and the
// WP's verify holds it against the tree the sibling's verification saw.
// A change is reported, never laid on the WP: a wave's sessions have
// settled when it is verified (with --no-wait, each as its own settles),
// and a process any session left behind (setsid, a watcher) writes as
// well after that as the WP's own.
// The sibling's checkpoint refuses such a change anyway; this says so
// while the wave is verified. With the sandbox, no session can write
// another's worktree and nothing is looked at.

// verifiedSiblings returns the comparisons to run, with the statuses of
// siblingFindings, for every other WP of the plan verified passing and
// ended during the session of wp, which started at start — those whose
// worktree a status already compares excepted — and report, which adds
// what they found once they ran.
func (e *Env) verifiedSiblings(st *State, wp string, start time.Time, b *blame, compared map[string]bool) (checks []func() error, report func(add func(f, why string))) {
	type found struct {
		id      string
		m       *worktree.Meta
		changed []string
	}
	var all []*found
	report = func(add func(f, why string)) {
		for _, f := range all {
			if len(f.changed) > 0 {
				add(fmt.Sprintf("sibling-worktree: %s's worktree %s changed after %s was verified and its session ended: %s",
					f.id, f.m.Path, f.id, strings.Join(f.changed, ", ")),
					"not shown to be "+wp+"'s: a process any session left behind could have written it")
			}
		}
	}
	if !b.unconfined() {
		return nil, report
	}
	for _, s := range e.Project.Plan.WPs {
		if s.ID == wp || compared[s.ID] {
			continue
		}
		last, _ := st.LastDispatch(s.ID)
		if !e.endedAfterVerify(st, s.ID, last.Session, start, b.all) {
			continue
		}
		m, err := worktree.Load(e.Repo, Slug(e.Project.Name, s.ID))
		if err != nil || worktree.Missing(m) {
			continue
		}
		f := &found{id: s.ID, m: m}
		all = append(all, f)
		v := st.Verifications[s.ID]
		checks = append(checks, func() (err error) {
			f.changed, err = e.changedSinceVerified(v, m)
			return err
		})
	}
	return checks, report
}

// endedAfterVerify reports whether s was verified passing after start
// (the WP's session start) in session, the session the snapshot saw,
// with no turn since, and that session then ended: cleaned, with its
// session_cleaned event in the ledger dated after the verification.
func (e *Env) endedAfterVerify(st *State, s, session string, start time.Time, all []*sessions.Record) bool {
	v, ok := st.Verifications[s]
	verifiedAt := st.VerifiedAt[s]
	if !ok || v.Verdict != Pass || v.Tree == "" || session == "" || !verifiedAt.After(start) {
		return false
	}
	for _, r := range all {
		if r.ID != session {
			continue
		}
		if r.State != sessions.StateCleaned || !lastTurnBefore(r, verifiedAt) {
			return false
		}
		ev, _, err := e.Ledger.Get(fmt.Sprintf("session/%s/%d-%s", r.ID, r.Transitions, sessions.StateCleaned))
		if err != nil {
			return false
		}
		end, err := time.Parse(time.RFC3339Nano, ev.Time)
		return err == nil && !end.Before(verifiedAt)
	}
	return false
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

// lastTurnBefore reports whether every turn of r ended before t: its
// last turn's usage, which the daemon records as the turn ends, is dated
// before t. A turn since (a reaction, a prompt) leaves its worktree the
// session's to change.
func lastTurnBefore(r *sessions.Record, t time.Time) bool {
	n := len(r.Usage)
	return n > 0 && r.Usage[n-1].Turn == r.Turns && r.Usage[n-1].At.Before(t)
}
