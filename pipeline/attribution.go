package pipeline

import (
	"fmt"
	"time"

	"github.com/agentproto/agentproto/sandbox"
	"github.com/agentproto/agentproto/sessions"
)

// unattributed says why a change outside a WP's worktree cannot be laid
// at that WP's door, "" when it can. A session that ran in the sandbox
// could not write there. An unconfined one could, but so could any other
// unconfined session live at the same time: then no one WP is shown to
// have written it, and the wave fails instead of a WP (dispatch).
func (e *Env) unattributed(d Dispatch, now time.Time) string {
	store := sessions.OpenView(e.Repo.CommonDir)
	own, err := store.Load(d.Session)
	if err != nil {
		return ""
	}
	if own.Sandbox == sandbox.KindLandlock {
		return fmt.Sprintf("not by %s: its session %s ran in the sandbox, which cannot write there", d.WP, own.ID)
	}
	all, _ := store.All()
	for _, r := range all {
		if r.ID == own.ID || r.Sandbox == sandbox.KindLandlock || r.Created.After(now) {
			continue
		}
		if ended := r.LastActivity; sessions.Terminal(r.State) && ended.Before(own.Created) {
			continue
		}
		return fmt.Sprintf("not shown to be %s's: session %s (%s) also ran unconfined meanwhile", d.WP, r.ID, orDash(r.Label))
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
