package daemon

import (
	"sync"
	"time"

	"github.com/agentproto/agentproto/sessions"
)

// registry is the daemon's live sessions and who is using the daemon,
// under one lock. The policies are the policy engine's (policyengine.go),
// under a lock of their own: the daemon never holds both at once, so no
// order between them is needed.
type registry struct {
	mu sync.Mutex
	// changed is broadcast on every change of a session a waiter may
	// want: a transition, a record saved, a deadline passing.
	changed  *sync.Cond
	sessions map[string]*live
	pinging  map[string]bool // sessions in their liveness check: no policy fires
	// clients counts the requests in flight, observing ones aside.
	clients  int
	lastBusy time.Time
	// stopping says why the daemon was stopped ("" while it serves).
	stopping string
}

// init readies an empty registry in place (changed waits on its mu).
func (r *registry) init() {
	r.sessions, r.pinging, r.lastBusy = map[string]*live{}, map[string]bool{}, time.Now()
	r.changed = sync.NewCond(&r.mu)
}

// settledOf lists the sessions of ids that are settled, out of their
// liveness check: a turn-end policy attached now fires for them at once.
func (r *registry) settledOf(ids []string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var settled []string
	for _, id := range ids {
		if l := r.sessions[id]; l != nil && l.rec.State == sessions.StateSettled && !r.pinging[id] {
			settled = append(settled, id)
		}
	}
	return settled
}

// isPinging reports whether a session is in its liveness check.
func (r *registry) isPinging(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pinging[id]
}

// activity is the last activity of every session still live, for the
// idle policies.
func (r *registry) activity() map[string]time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]time.Time{}
	for id, l := range r.sessions {
		if !sessions.Terminal(l.rec.State) {
			out[id] = l.rec.LastActivity
		}
	}
	return out
}

// busyLocked reports whether the daemon has something to do: a client, a
// turn in progress, or a live session that watched (the sessions an idle
// policy waits on) names. The caller holds r.mu.
func (r *registry) busyLocked(watched map[string]bool) bool {
	if r.clients > 0 {
		return true
	}
	for _, l := range r.sessions {
		if l.rec.State == sessions.StateLaunched || l.rec.State == sessions.StateRunning {
			return true
		}
	}
	for id := range watched {
		if l := r.sessions[id]; l != nil && !sessions.Terminal(l.rec.State) {
			return true
		}
	}
	return false
}
