package daemon

import (
	"sync"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/sessions"
)

// policyEngine holds the attached policies and what they fired, under a
// lock of its own (the sessions are the registry's, registry.go). What it
// needs of the sessions it is handed, read under the registry's lock
// before its own is taken.
type policyEngine struct {
	mu sync.Mutex
	// changed is broadcast when a policy fires or is canceled.
	changed *sync.Cond
	byID    map[string]*policy
}

func newPolicyEngine() *policyEngine {
	e := &policyEngine{byID: map[string]*policy{}}
	e.changed = sync.NewCond(&e.mu)
	return e
}

// add attaches p.
func (e *policyEngine) add(p *policy) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.byID[p.ID] = p
}

// snapshot copies what p says of itself, for an answer or its file.
func (e *policyEngine) snapshot(p *policy) sessions.Policy {
	e.mu.Lock()
	defer e.mu.Unlock()
	return p.Policy
}

// turnEnd lists the turn-end policies that fire now that session settled,
// and marks them fired for it.
func (e *policyEngine) turnEnd(session string) []*policy {
	e.mu.Lock()
	defer e.mu.Unlock()
	var fire []*policy
	for _, p := range e.byID {
		if !p.Canceled && p.On == "turn-end" && contains(p.Sessions, session) && !p.once(session) {
			if p.firedFor == nil {
				p.firedFor = map[string]bool{}
			}
			p.firedFor[session] = true
			fire = append(fire, p)
		}
	}
	return fire
}

// idleJob is one idle policy due to fire for one session.
type idleJob struct {
	p  *policy
	id string
}

// idleDue lists the idle policies due for the live sessions of activity
// (their last activity) and marks each fired for that activity.
func (e *policyEngine) idleDue(activity map[string]time.Time) []idleJob {
	e.mu.Lock()
	defer e.mu.Unlock()
	var jobs []idleJob
	for _, p := range e.byID {
		if p.Canceled || p.idle == 0 {
			continue
		}
		for _, id := range p.Sessions {
			last, live := activity[id]
			if !live {
				continue
			}
			if time.Since(last) >= p.idle && !p.idleDone[id].Equal(last) {
				p.idleDone[id] = last
				jobs = append(jobs, idleJob{p, id})
			}
		}
	}
	return jobs
}

// watched names the sessions an idle policy waits on: while one of them
// lives, the daemon is not idle.
func (e *policyEngine) watched() map[string]bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string]bool{}
	for _, p := range e.byID {
		if p.Canceled || p.idle == 0 {
			continue
		}
		for _, id := range p.Sessions {
			out[id] = true
		}
	}
	return out
}

// fired counts one firing of p with its results and wakes the waiters;
// it returns the firing's number.
func (e *policyEngine) fired(p *policy, results []sessions.ActionResult) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	p.Fired++
	p.Last = results
	e.changed.Broadcast()
	return p.Fired
}

// cancel stops a policy from firing again; nil when there is none.
func (e *policyEngine) cancel(id string) *policy {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.byID[id]
	if p != nil {
		p.Canceled = true
		e.changed.Broadcast()
	}
	return p
}

// list copies every policy.
func (e *policyEngine) list() []*sessions.Policy {
	e.mu.Lock()
	defer e.mu.Unlock()
	var ps []*sessions.Policy
	for _, p := range e.byID {
		c := p.Policy
		ps = append(ps, &c)
	}
	return ps
}

// wait blocks until each policy of ids fired at least once (or was
// canceled), or dur passed; it returns the policies still pending.
func (e *policyEngine) wait(ids []string, dur time.Duration) ([]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, id := range ids {
		if e.byID[id] == nil {
			return nil, fault.Invalidf("no policy %s in this daemon", id)
		}
	}
	var pending []string
	awaitOn(&e.mu, e.changed, dur, func() bool {
		pending = nil
		for _, id := range ids {
			if p := e.byID[id]; p.Fired == 0 && !p.Canceled {
				pending = append(pending, id)
			}
		}
		return len(pending) == 0
	})
	return pending, nil
}

// prWatchOf is the active pr-watch policy of project in dir, given token
// when one is given (the newest is the one to poll with); nil when there
// is none.
func (e *policyEngine) prWatchOf(dir, project, token string) *policy {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range e.byID {
		if !p.Canceled && p.every > 0 && p.Dir == dir && p.Project == project {
			if token != "" {
				p.token = token
			}
			return p
		}
	}
	return nil
}

// tokenOf is the token p polls with.
func (e *policyEngine) tokenOf(p *policy) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return p.token
}

// everyDue lists the pr-watch policies due to poll at now and marks each
// polling, so a poll never starts while the last one runs.
func (e *policyEngine) everyDue(now time.Time) []*policy {
	e.mu.Lock()
	defer e.mu.Unlock()
	var due []*policy
	for _, p := range e.byID {
		if !p.Canceled && p.every > 0 && !p.polling && !now.Before(p.next) {
			p.polling = true
			due = append(due, p)
		}
	}
	return due
}

// polled counts a poll of p: the next one is an interval after this one
// ended, and a pull request closed or merged (done) ends the policy. It
// returns the firing's number and whether it is recorded: an eventful
// poll, or a failure other than the last one recorded.
func (e *policyEngine) polled(p *policy, results []sessions.ActionResult, eventful, done bool) (int, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p.polling, p.next = false, time.Now().Add(p.every)
	p.Fired++
	p.Last = results
	if done {
		p.Canceled = true
	}
	record := eventful && results[0].OK
	if !results[0].OK {
		record = results[0].Detail != p.failed
		p.failed = results[0].Detail
	} else {
		p.failed = ""
	}
	e.changed.Broadcast()
	return p.Fired, record
}

// prWatching: a pull request is watched, which keeps the daemon up.
func (e *policyEngine) prWatching() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range e.byID {
		if !p.Canceled && p.every > 0 {
			return true
		}
	}
	return false
}
