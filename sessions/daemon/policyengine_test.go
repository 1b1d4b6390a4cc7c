package daemon

import (
	"sync"
	"testing"
	"time"

	"github.com/agentproto/agentproto/sessions"
)

func turnEndPolicy(id string, sessionIDs ...string) *policy {
	return &policy{Policy: sessions.Policy{ID: id, Sessions: sessionIDs, On: "turn-end", Do: []string{sessions.ActKill}},
		idleDone: map[string]time.Time{}, firedFor: map[string]bool{}}
}

// The policies have a lock of their own: a wait for a policy ends when it
// fires even while the sessions' lock is held, and firing, listing,
// cancelling and waiting may run together.
func TestPolicyEngineHasItsOwnLock(t *testing.T) {
	d := bareDaemon()
	p := turnEndPolicy("p-000000000001", "s-000000000001")
	d.policies.add(p)
	d.mu.Lock() // the registry's
	defer d.mu.Unlock()
	done := make(chan []string)
	go func() {
		pending, _ := d.waitPolicies([]string{p.ID}, "1m")
		done <- pending
	}()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.policies.turnEnd("s-000000000001")
			d.policies.fired(p, []sessions.ActionResult{{Session: "s-000000000001", Action: sessions.ActKill, OK: true}})
			d.listPolicies()
		}()
	}
	wg.Wait()
	select {
	case pending := <-done:
		if len(pending) != 0 {
			t.Fatalf("pending %v after the policy fired", pending)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not end when the policy fired")
	}
	if ps := d.listPolicies(); len(ps) != 1 || ps[0].Fired != 4 {
		t.Fatalf("policies %+v", ps)
	}
}

// A turn-end policy fires for the sessions it names, and a canceled one
// no more; idle policies are what keep the daemon busy.
func TestPolicyEngineTurnEndAndWatched(t *testing.T) {
	e := newPolicyEngine()
	p := turnEndPolicy("p-000000000001", "s-000000000001")
	e.add(p)
	if fire := e.turnEnd("s-000000000002"); len(fire) != 0 {
		t.Fatalf("fired for a session it does not name: %v", fire)
	}
	if fire := e.turnEnd("s-000000000001"); len(fire) != 1 || !p.firedFor["s-000000000001"] {
		t.Fatalf("turn end fired %v", fire)
	}
	idle := turnEndPolicy("p-000000000002", "s-000000000003")
	idle.On, idle.idle = "idle:1m", time.Minute
	e.add(idle)
	if w := e.watched(); len(w) != 1 || !w["s-000000000003"] {
		t.Fatalf("watched %v", w)
	}
	if e.cancel(p.ID) == nil || e.cancel("p-000000000009") != nil {
		t.Fatal("cancel")
	}
	if fire := e.turnEnd("s-000000000001"); len(fire) != 0 {
		t.Fatalf("a canceled policy fired: %v", fire)
	}
	e.cancel(idle.ID)
	if w := e.watched(); len(w) != 0 {
		t.Fatalf("a canceled idle policy still watches %v", w)
	}
}
