package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/plugins/host"
)

// follow consumes a session's events until it ends.
func (d *Daemon) follow(l *live) {
	err := l.client.Events(context.Background(), 0, func(e *host.Event) error {
		d.onEvent(l, e)
		return nil
	})
	d.mu.Lock()
	state, ending := l.rec.State, l.ending
	d.mu.Unlock()
	if !Terminal(state) && !ending {
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
func (d *Daemon) onEvent(l *live, e *host.Event) {
	if e.Kind == host.Output {
		l.out.Write(e.Data)
	}
	d.mu.Lock()
	eff := apply(l.rec, &l.turn, e, time.Now().UTC(), l.client.StderrTail)
	d.mu.Unlock()
	if eff.note != "" {
		fmt.Fprint(l.out, eff.note)
	}
	if eff.extra["warning"] == "empty_turn" {
		// Same symptom, many causes: the agent's own log may say which.
		if f, ref := d.diagnose(l); f != "" {
			eff.extra["fault"], eff.extra["error_log_ref"] = f, ref
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
	d.mu.Lock()
	l.rec.StderrTail = l.client.StderrTail()
	d.mu.Unlock()
	d.transition(l.rec, StateFailed, reason, nil)
}

// save writes a record that changed without a transition and wakes
// waiters.
func (d *Daemon) save(r *Record) {
	d.mu.Lock()
	snap := *r
	d.store.Save(&snap)
	d.changed.Broadcast()
	d.mu.Unlock()
}

// transition moves a session to state when the state machine allows it,
// saves it, wakes waiters and records the change in the ledger.
func (d *Daemon) transition(r *Record, state, reason string, extra map[string]any) {
	d.mu.Lock()
	if !move(r, state, reason) {
		d.mu.Unlock()
		return
	}
	n := r.Transitions
	snap := *r
	d.store.Save(&snap)
	d.changed.Broadcast()
	d.mu.Unlock()
	data := map[string]any{"session": r.ID, "adapter": r.Adapter, "model": r.Model, "dir": r.Dir,
		"worktree": r.Worktree, "label": r.Label, "turn": snap.Turns, "output_ref": "sessions/" + r.ID + "/output.log"}
	if reason != "" {
		data["reason"] = reason
	}
	if snap.StderrTail != "" {
		data["stderr_tail"] = snap.StderrTail
	}
	if snap.CapabilitiesFrom != "" {
		data["capabilities"], data["capabilities_from"] = snap.Capabilities, snap.CapabilitiesFrom
	}
	for k, v := range extra {
		data[k] = v
	}
	b, _ := json.Marshal(data)
	id := fmt.Sprintf("session/%s/%d-%s", r.ID, n, state)
	if _, err := d.ledger.Append([]gitstore.Draft{{Kind: "session_" + state, ID: id, Data: b}}); err != nil {
		d.logf("ledger: %v", err)
	}
	d.onTransition(r.ID, state)
}
