package app

import (
	"context"
	"time"

	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/sessions"
)

// Where a work package of a dispatch stands, as WaitDispatch says it.
const (
	wpVerified   = "verified"         // passed verification; its session was ended
	wpDecision   = "waiting_decision" // stopped on a question: plan answer
	wpFailed     = "failed"           // failed verification: read it, prompt or redispatch
	wpEnded      = "ended_unverified" // its session ended with no verdict
	wpWorking    = "working"          // its session is in a turn, or its verdict is being made
	wpNotStarted = "not_started"      // not dispatched yet (waits for what it depends on)
)

// WPStanding is where one work package of a dispatch stands.
type WPStanding struct {
	WP      string `json:"wp"`
	State   string `json:"state" jsonschema:"verified, waiting_decision, failed, ended_unverified, working or not_started"`
	Session string `json:"session,omitempty"`
	Verdict string `json:"verdict,omitempty" jsonschema:"the latest verification's verdict"`
}

// Standing is where a plan's dispatch stands: what is verified, what
// waits for the supervisor, what is still pending.
type Standing struct {
	Project    string       `json:"project"`
	Done       bool         `json:"done" jsonschema:"every work package is verified: checkpoint, then consolidate"`
	Dispatched bool         `json:"dispatched" jsonschema:"false when no work package of the plan was dispatched yet"`
	Needs      []string     `json:"needs" jsonschema:"work packages that wait for the supervisor (waiting_decision, failed, ended_unverified)"`
	Pending    []string     `json:"pending" jsonschema:"work packages still working or not started: call dispatch_wait again"`
	WPs        []WPStanding `json:"wps"`
	Waited     string       `json:"waited"`
}

// WaitDispatch blocks until a plan's dispatch needs the supervisor or is
// done, or for at most d: it returns as soon as every work package is
// verified, or one waits for the supervisor, or nothing can change
// (nothing was dispatched). It fans in over the plan's live sessions;
// the sessions daemon verifies each at its turn's end meanwhile.
func (e *Env) WaitDispatch(ctx context.Context, project string, d time.Duration) (*Standing, error) {
	start := time.Now()
	deadline := start.Add(d)
	for {
		st, live, err := e.standing(ctx, project)
		if err != nil {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		left := time.Until(deadline)
		if st.Done || len(st.Needs) > 0 || len(st.Pending) == 0 || left <= 0 {
			st.Waited = time.Since(start).Round(100 * time.Millisecond).String()
			return st, nil
		}
		// Fan in: the first change of any live session, or a short beat
		// for verdicts the ledger gets meanwhile.
		beat := min(left, 2*time.Second)
		if c, err := e.Sessions(); err == nil && len(live) > 0 {
			c.Monitor(ctx, live, beat)
		} else {
			select {
			case <-ctx.Done():
			case <-time.After(beat):
			}
		}
	}
}

// standing reads where each work package of a plan stands, and the live
// sessions to wait on.
func (e *Env) standing(ctx context.Context, project string) (*Standing, []string, error) {
	p, err := e.LoadPlan(ctx, project)
	if err != nil {
		return nil, nil, err
	}
	_, st, err := e.DispatchState(ctx, project)
	if err != nil {
		return nil, nil, err
	}
	doc := &Standing{Project: p.Name, Needs: []string{}, Pending: []string{}, WPs: []WPStanding{}}
	var live []string
	verified := 0
	for _, wp := range p.Plan.WPs {
		ws := WPStanding{WP: wp.ID, State: wpNotStarted}
		v, hasV := st.Verifications[wp.ID]
		if hasV {
			ws.Verdict = v.Verdict
		}
		if last, ok := st.LastDispatch(wp.ID); ok {
			ws.Session = last.Session
			ws.State = e.wpStanding(ctx, last.Session, v, hasV)
			if ws.State == wpWorking {
				live = append(live, last.Session)
			}
		} else if hasV && v.Verdict == pipeline.Pass {
			ws.State = wpVerified
		}
		switch ws.State {
		case wpVerified:
			verified++
		case wpDecision, wpFailed, wpEnded:
			doc.Needs = append(doc.Needs, wp.ID)
		default:
			doc.Pending = append(doc.Pending, wp.ID)
		}
		doc.WPs = append(doc.WPs, ws)
	}
	doc.Done = verified == len(p.Plan.WPs) && verified > 0
	doc.Dispatched = len(st.Dispatches) > 0
	if len(live) == 0 && len(doc.Needs) == 0 && !doc.Done && !doc.Dispatched {
		// Nothing was dispatched: no wait brings anything.
		doc.Needs = append(doc.Needs, doc.Pending...)
		doc.Pending = []string{}
	}
	return doc, live, nil
}

// wpStanding is where a dispatched work package stands from its session's
// state and its latest verdict.
func (e *Env) wpStanding(ctx context.Context, id string, v pipeline.Verification, hasV bool) string {
	state := sessions.StateExited
	if recs, err := e.Records(ctx, []string{id}); err == nil && len(recs) == 1 {
		state = recs[0].State
	}
	switch {
	case hasV && v.Verdict == pipeline.Pass && sessions.Terminal(state):
		return wpVerified
	case hasV && v.Verdict == pipeline.WaitingDecision && state == sessions.StateSettled:
		return wpDecision
	case hasV && v.Verdict == pipeline.Fail && state == sessions.StateSettled:
		return wpFailed
	case sessions.Terminal(state) && !(hasV && v.Verdict == pipeline.Pass):
		return wpEnded
	}
	return wpWorking
}
