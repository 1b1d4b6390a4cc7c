package app

import (
	"context"
	"time"

	"github.com/agentproto/agentproto/sessions"
)

// PromptSession sends session id another turn with text, after
// interrupting its current one when interrupt (the turn in progress is
// lost).
func (e *Env) PromptSession(ctx context.Context, id, text string, interrupt bool) error {
	if err := sessions.ValidateID(id); err != nil {
		return err
	}
	c, err := e.Sessions()
	if err != nil {
		return err
	}
	return c.Prompt(ctx, id, text, interrupt)
}

// KillSession ends session id and every process it started, and returns
// its record after the kill; its worktree stays.
func (e *Env) KillSession(ctx context.Context, id string) (*sessions.Record, error) {
	if err := sessions.ValidateID(id); err != nil {
		return nil, err
	}
	c, err := e.Sessions()
	if err != nil {
		return nil, err
	}
	return c.Kill(ctx, id)
}

// CancelPolicy cancels policy id: it fires no more; what it started goes
// on.
func (e *Env) CancelPolicy(ctx context.Context, id string) error {
	c, err := e.Sessions()
	if err != nil {
		return err
	}
	return c.CancelPolicy(ctx, id)
}

// MonitorSessions returns the named sessions as soon as any one of them
// changes state or turn, or after d; at once when all are over. An
// unknown session is refused before anything waits.
func (e *Env) MonitorSessions(ctx context.Context, ids []string, d time.Duration) ([]*sessions.Record, error) {
	recs, err := e.Records(ctx, ids)
	if err != nil || allOver(recs) {
		return recs, err
	}
	c, err := e.Sessions()
	if err != nil {
		return nil, err
	}
	changed, err := c.Monitor(ctx, ids, d)
	if err != nil {
		return nil, err
	}
	return append([]*sessions.Record{}, changed...), nil
}

// WaitSessions waits up to d until every named session reaches until
// (sessions.UntilTurnEnd or UntilExit), and returns their records and
// those that did not reach it. An unknown session is refused before
// anything waits.
func (e *Env) WaitSessions(ctx context.Context, ids []string, until string, d time.Duration) (recs []*sessions.Record, pending []string, err error) {
	if recs, err = e.Records(ctx, ids); err != nil {
		return nil, nil, err
	}
	pending = []string{}
	if allOver(recs) {
		return recs, pending, nil
	}
	c, err := e.Sessions()
	if err != nil {
		return nil, nil, err
	}
	still, err := c.Wait(ctx, ids, until, d)
	if err != nil {
		return nil, nil, err
	}
	pending = append(pending, still...)
	recs, err = e.Records(ctx, ids)
	return recs, pending, err
}

// allOver says whether every session has ended: nothing to wait for.
func allOver(recs []*sessions.Record) bool {
	for _, r := range recs {
		if !sessions.Terminal(r.State) {
			return false
		}
	}
	return true
}

// Policies lists the daemon's policies and what they did; running is
// false, and the list empty, when no daemon runs (none is started to
// say so).
func (e *Env) Policies(ctx context.Context) (ps []*sessions.Policy, running bool, err error) {
	c, err := e.Sessions()
	if err != nil || !c.Running(ctx) {
		return nil, false, err
	}
	ps, err = c.Policies(ctx)
	if ps == nil {
		ps = []*sessions.Policy{}
	}
	return ps, true, err
}

// WaitPolicies waits up to d until every named policy fired, and returns
// those that did not.
func (e *Env) WaitPolicies(ctx context.Context, ids []string, d time.Duration) ([]string, error) {
	c, err := e.Sessions()
	if err != nil {
		return nil, err
	}
	return c.WaitPolicies(ctx, ids, d)
}

// stopWait bounds the wait for the daemon to end its sessions and exit.
const stopWait = time.Minute

// DaemonStop is what stopping the sessions daemon did: nothing when none
// ran, else its pid and the sessions it ended.
type DaemonStop struct {
	Stopped bool
	PID     int
	Ended   []*sessions.Record
}

// StopDaemon stops this repository's sessions daemon now, ending the
// sessions it still holds; while a turn is in progress it refuses unless
// force. With no daemon running it does nothing and starts none.
func (e *Env) StopDaemon(ctx context.Context, force bool) (*DaemonStop, error) {
	c, err := e.Sessions()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, stopWait)
	defer cancel()
	s := &DaemonStop{Ended: []*sessions.Record{}}
	if s.Stopped, err = c.Probe(ctx); err != nil || !s.Stopped {
		return s, err
	}
	pid, ended, err := c.Stop(ctx, force)
	if err != nil {
		return nil, err
	}
	s.PID = pid
	if ended != nil {
		s.Ended = ended
	}
	return s, nil
}
