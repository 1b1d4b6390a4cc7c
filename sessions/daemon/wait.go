package daemon

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/sessions"
)

// awaitOn blocks until done reports true or dur has passed, and says
// whether done was reached. The caller holds mu, the lock of changed;
// done is checked under it after every broadcast of changed, and once
// more when the time is up.
func awaitOn(mu *sync.Mutex, changed *sync.Cond, dur time.Duration, done func() bool) bool {
	deadline := time.Now().Add(dur)
	// The timer's broadcast wakes the wait below when nothing else does.
	timer := time.AfterFunc(dur, func() {
		mu.Lock()
		changed.Broadcast()
		mu.Unlock()
	})
	defer timer.Stop()
	for !done() {
		if !time.Now().Before(deadline) {
			return false
		}
		changed.Wait()
	}
	return true
}

// awaitLocked waits on the sessions: the caller holds r.mu, and done is
// checked after every change of a session (r.changed).
func (r *registry) awaitLocked(dur time.Duration, done func() bool) bool {
	return awaitOn(&r.mu, r.changed, dur, done)
}

// await is awaitLocked for a caller that does not hold r.mu.
func (r *registry) await(dur time.Duration, done func() bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.awaitLocked(dur, done)
}

// timeoutArg parses the duration a waiting operation was given; flag names
// the option the user set it with.
func timeoutArg(flag, s string) (time.Duration, error) {
	dur, err := time.ParseDuration(s)
	if err != nil || dur <= 0 {
		return 0, fault.Invalidf("%s %q is not a duration with a unit (such as 40m)", flag, s)
	}
	return dur, nil
}

// reached reports whether a session is where wait wants it.
func reached(state, until string) bool {
	if until == sessions.UntilExit {
		return sessions.Terminal(state)
	}
	return state == sessions.StateSettled || sessions.Terminal(state)
}

// wait blocks until every named session reached until, or the time
// passed; it returns the sessions still pending.
func (d *Daemon) wait(ids []string, until, timeout string) ([]string, error) {
	if until == "" {
		until = sessions.UntilTurnEnd
	}
	if until != sessions.UntilTurnEnd && until != sessions.UntilExit {
		return nil, fault.Invalidf("--until takes turn-end or exit, not %q", until)
	}
	dur, err := timeoutArg("--timeout", timeout)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if _, err := d.get(id); err != nil {
			if rec, lerr := d.store.Load(id); lerr == nil && reached(rec.State, until) {
				continue
			}
			return nil, err
		}
	}
	var pending []string
	d.await(dur, func() bool {
		pending = nil
		for _, id := range ids {
			if l := d.sessions[id]; l != nil && (!reached(l.rec.State, until) || l.prompted > 0 && !sessions.Terminal(l.rec.State)) {
				pending = append(pending, id)
			}
		}
		return len(pending) == 0
	})
	return pending, nil
}

// monitor returns as soon as any named session changes state or turns, or
// the time passes.
func (d *Daemon) monitor(ids []string, timeout string) ([]*sessions.Record, error) {
	dur, err := timeoutArg("--for", timeout)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if err := sessions.ValidateID(id); err != nil {
			return nil, err
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	first, recs := d.sightLocked(ids)
	if len(recs) == 0 {
		return nil, fault.Invalidf("no such sessions")
	}
	d.awaitLocked(dur, func() bool {
		var key string
		key, recs = d.sightLocked(ids)
		return key != first
	})
	return recs, nil
}

// sightLocked copies the named sessions' records, live or on disk, with a
// key that changes when any of them changes state or turns.
func (d *Daemon) sightLocked(ids []string) (string, []*sessions.Record) {
	var key strings.Builder
	var recs []*sessions.Record
	for _, id := range ids {
		var r *sessions.Record
		if l := d.sessions[id]; l != nil {
			c := *l.rec
			r = &c
		} else if rec, err := d.store.Load(id); err == nil {
			r = rec
		}
		if r != nil {
			fmt.Fprintf(&key, "%s:%s:%d;", id, r.State, r.Turns)
			recs = append(recs, r)
		}
	}
	return key.String(), recs
}
