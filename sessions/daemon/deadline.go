package daemon

import (
	"time"

	"github.com/agentproto/agentproto/sessions"
)

// endAtDeadline ends l at its deadline (none when zero) if it is still
// live then. It does not wait for anyone to ask: a fork branch past its
// lease must stop working even when no command runs to notice, and the
// next fork command then records the branch expired.
func (d *Daemon) endAtDeadline(l *live, deadline time.Time) {
	if deadline.IsZero() {
		return
	}
	id := l.rec.ID
	time.AfterFunc(time.Until(deadline), func() {
		if sessions.Terminal(d.state(l)) {
			return
		}
		d.logf("session %s: deadline %s passed; ending it", id, deadline.UTC().Format(time.RFC3339))
		d.kill(id, "its deadline "+deadline.UTC().Format(time.RFC3339)+" passed")
	})
}
