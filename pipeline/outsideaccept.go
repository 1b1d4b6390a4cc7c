package pipeline

import (
	"fmt"
	"os"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/sessions"
)

// KindOutsideAccepted is recorded when the user takes the changes outside
// a WP's worktree since its dispatch as their own.
const KindOutsideAccepted = "wp_outside_accepted"

// OutsideAccepted is the data of a wp_outside_accepted event: from now on
// verify compares what lies outside the WP's worktree with Outside, the
// snapshot taken when the user accepted Changed, not with the one taken
// at dispatch. The earlier snapshot is kept (Previous).
type OutsideAccepted struct {
	Project  string   `json:"project"`
	WP       string   `json:"wp"`
	Outside  string   `json:"outside"`
	Previous string   `json:"previous"`
	Changed  []string `json:"changed"`
}

// AcceptOutside records that the changes outside wp's worktree since its
// dispatch are the user's (a remote added, agentproto.toml edited), so
// that verify stops failing on them. It is refused inside a session: an
// executor may not accept its own writes. With nothing changed it records
// nothing and returns nil.
func (e *Env) AcceptOutside(wpID string) (*OutsideAccepted, error) {
	id := os.Getenv(sessions.SessionEnv)
	if id == "" {
		id, _ = sessions.OpenView(e.Repo.CommonDir).Enclosing()
	}
	if id != "" {
		return nil, fault.Refusedf("changes outside a worktree are accepted by the user, not from a session (this runs in %s)", id)
	}
	wp, err := e.Project.WP(wpID)
	if err != nil {
		return nil, err
	}
	st, err := ReadState(e.Ledger, e.Project.Name)
	if err != nil {
		return nil, err
	}
	d, ok := st.LastDispatch(wp.ID)
	if !ok || d.Outside == "" {
		return nil, fault.Invalidf("%s was not dispatched with a snapshot of what lies outside its worktree; there is nothing to accept", wp.ID)
	}
	changed, err := outsideFindings(e.Repo, d.Worktree, d.Outside)
	if err != nil || len(changed) == 0 {
		return nil, err
	}
	now, err := SnapshotOutside(e.Repo, d.Worktree)
	if err != nil {
		return nil, err
	}
	sum, err := SaveOutside(e.Repo.CommonDir, now)
	if err != nil {
		return nil, err
	}
	a := &OutsideAccepted{Project: e.Project.Name, WP: wp.ID, Outside: sum, Previous: d.Outside, Changed: changed}
	// Named by the dispatch and both snapshots: accepting a state seen
	// before, from another, is a new acceptance, not a conflict.
	rid := fmt.Sprintf("pipeline/%s/%s/outside/%d/%.12s-%.16s", e.Project.Name, wp.ID, d.Attempt, d.Outside, sum)
	return a, e.record(KindOutsideAccepted, rid, *a, nil)
}

// OutsideHint is what to do when v failed on changes outside the worktree:
// only the user can tell a change of theirs from an executor's.
func OutsideHint(project string, v *Verification) string {
	for _, f := range v.Findings {
		if strings.HasPrefix(f, "outside-worktree: ") {
			return "next: if the changes outside the worktree are yours (not the session's), accept them: git agentproto verify " + project + " " + v.WP + " --accept-outside"
		}
	}
	return ""
}
