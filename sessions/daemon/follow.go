package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/sessions"
)

// follow consumes the events of a session's adapter process c, of
// generation gen, until it ends. The stream of a process the session let
// go (release.go) ends as no news.
func (d *Daemon) follow(l *live, c *host.Client, gen int) {
	err := c.Events(context.Background(), 0, func(e *host.Event) error {
		d.onEvent(l, c, gen, e)
		return nil
	})
	d.mu.Lock()
	state, ending, current := l.rec.State, l.ending, l.gen == gen
	d.mu.Unlock()
	if !current {
		return
	}
	if !sessions.Terminal(state) && !ending {
		reason := "the adapter's event stream ended"
		if err != nil {
			reason = fmt.Sprintf("the adapter stopped answering: %v", err)
		}
		d.fail(l, reason)
	}
	l.out.Close()
}

// onEvent applies one adapter event (state.go says what it means) and
// carries out what follows: output to the log, a transition, the end of
// the plugin.
func (d *Daemon) onEvent(l *live, c *host.Client, gen int, e *host.Event) {
	d.mu.Lock()
	current := l.gen == gen
	d.mu.Unlock()
	if !current {
		return // a process the session let go
	}
	switch e.Kind {
	case host.Resumable:
		d.onResumable(l, gen, e.Text)
		return
	case host.Output:
		l.out.Write(e.Data)
	case host.UsageReported:
		d.onUsage(l, e)
	case host.TurnEnded:
		d.endTurn(l) // before the transition: a policy may end the session
	}
	d.mu.Lock()
	if e.Kind == host.TurnStarted {
		l.resumeState = "" // what it said before this turn is void
		if l.prompted > 0 {
			l.prompted-- // the turn of a prompt took
		}
	}
	eff := apply(l.rec, &l.turn, e, time.Now().UTC(), c.StderrTail)
	d.mu.Unlock()
	if eff.note != "" {
		fmt.Fprint(l.out, eff.note)
	}
	if eff.extra != nil && eff.extra.Warning == "empty_turn" {
		// Same symptom, many causes: the agent's own log may say which.
		if f, ref := d.diagnose(l); f != "" {
			eff.extra.Fault, eff.extra.ErrorLogRef = f, ref
		}
	}
	if eff.save {
		d.save(l.rec)
	}
	if eff.to != "" {
		d.transition(l.rec, eff.to, "", eff.extra)
	}
	if eff.end {
		d.endPlugin(l)
	}
}

// fail ends a session's plugin and records why the session failed.
func (d *Daemon) fail(l *live, reason string) {
	// Kill first: it returns once the plugin's stderr is read to the end,
	// and a crash's last words are the ones worth keeping.
	d.endPlugin(l)
	d.endTurn(l)
	d.mu.Lock()
	l.rec.StderrTail = l.cli().StderrTail()
	d.mu.Unlock()
	d.transition(l.rec, sessions.StateFailed, reason, nil)
}

// save writes a record that changed without a transition and wakes
// waiters.
func (d *Daemon) save(r *sessions.Record) {
	d.mu.Lock()
	snap := *r
	d.store.Save(&snap)
	d.changed.Broadcast()
	d.mu.Unlock()
}

// transition moves a session to state when the state machine allows it,
// saves it, wakes waiters and records the change in the ledger.
func (d *Daemon) transition(r *sessions.Record, state, reason string, extra *outcome) {
	d.mu.Lock()
	if !move(r, state, reason) {
		d.mu.Unlock()
		return
	}
	n := r.Transitions
	snap := *r
	d.store.Save(&snap)
	data := Transition{Session: r.ID, Adapter: r.Adapter, Model: r.Model, Dir: r.Dir, Worktree: r.Worktree, Label: r.Label,
		Turn: snap.Turns, OutputRef: "sessions/" + r.ID + "/output.log", Reason: reason, StderrTail: snap.StderrTail}
	if extra != nil {
		data.outcome = *extra
	}
	if snap.CapabilitiesFrom != "" {
		data.Capabilities, data.CapabilitiesFrom = snap.Capabilities, snap.CapabilitiesFrom
	}
	// Queued before waiters wake: an answer they give includes it.
	record(d, transitionKinds[state], fmt.Sprintf("session/%s/%d-%s", r.ID, n, state), data)
	d.changed.Broadcast()
	d.mu.Unlock()
	d.onTransition(r.ID, state)
}
