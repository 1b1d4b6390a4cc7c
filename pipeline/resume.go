package pipeline

import (
	"fmt"

	"github.com/agentproto/agentproto/internal/fault"
)

// Started is the session a Resume's start function started.
type Started struct {
	Session, Adapter, Model, Profile string
}

// Resume gives a dispatched WP a new session in its worktree after the
// one it was dispatched to ended (a verified WP's session is killed): a
// reaction to its pull request, say. What lies outside the worktree is
// snapshotted first, so verify holds the new session to the state it
// started from, not to the first session's; the session is recorded as
// the WP's newest dispatch, so verify reads its report. start gets the
// worktree's slug and starts the session there.
func (e *Env) Resume(wpID string, start func(slug string) (Started, error)) (*Dispatch, error) {
	frozen, err := e.Frozen()
	if err != nil {
		return nil, err
	}
	wp, err := e.Project.WP(wpID)
	if err != nil {
		return nil, err
	}
	st, err := ReadState(e.Ledger, e.Project.Name)
	if err != nil {
		return nil, err
	}
	last, ok := st.LastDispatch(wp.ID)
	if !ok {
		return nil, fault.Refusedf("%s was never dispatched: git agentproto dispatch %s --wp %s", wp.ID, e.Project.Name, wp.ID)
	}
	outside, err := SnapshotOutside(e.Repo, last.Worktree)
	if err != nil {
		return nil, err
	}
	sum, err := SaveOutside(e.Repo.CommonDir, outside)
	if err != nil {
		return nil, err
	}
	siblings, err := e.snapshotSiblings(st, wp.ID, nil)
	if err != nil {
		return nil, err
	}
	siblingSum, err := SaveOutside(e.Repo.CommonDir, siblings)
	if err != nil {
		return nil, err
	}
	s, err := start(last.Worktree)
	if err != nil && s.Session == "" {
		return nil, err
	}
	brief, _ := e.Project.BriefPath(wp)
	d := Dispatch{Project: e.Project.Name, WP: wp.ID, Worktree: last.Worktree, Session: s.Session, Adapter: s.Adapter, Model: s.Model,
		Profile: s.Profile, Brief: frozen.Files[baseName(brief)], Attempt: len(st.Dispatches[wp.ID]) + 1, Base: st.Base(wp.ID), Outside: sum, Siblings: siblingSum}
	id := fmt.Sprintf("pipeline/%s/%s/dispatch/%d", e.Project.Name, wp.ID, d.Attempt)
	if rerr := e.record(KindDispatched, id, d, nil); rerr != nil {
		return nil, rerr
	}
	return &d, err
}
