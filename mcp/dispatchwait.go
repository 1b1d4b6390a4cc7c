package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/sessions"
)

// maxDispatchWait bounds one dispatch_wait call, under the 50 s many
// clients allow a request and the seed's 49 s monitor.
const maxDispatchWait = 45 * time.Second

// Where a work package of a dispatch stands, as dispatch_wait says it.
const (
	wpVerified   = "verified"         // passed verification; its session was ended
	wpDecision   = "waiting_decision" // stopped on a question: plan_answer
	wpFailed     = "failed"           // failed verification: read it, prompt or redispatch
	wpEnded      = "ended_unverified" // its session ended with no verdict
	wpWorking    = "working"          // its session is in a turn, or its verdict is being made
	wpNotStarted = "not_started"      // not dispatched yet (waits for what it depends on)
)

type dispatchWaitIn struct {
	Project string `json:"project" jsonschema:"the plan name (dispatched)"`
	For     string `json:"for,omitempty" jsonschema:"the longest to wait, with a unit (default and cap 45s)"`
}

type wpState struct {
	WP      string `json:"wp"`
	State   string `json:"state" jsonschema:"verified, waiting_decision, failed, ended_unverified, working or not_started"`
	Session string `json:"session,omitempty"`
	Verdict string `json:"verdict,omitempty" jsonschema:"the latest verification's verdict"`
}

type dispatchWaitDoc struct {
	Project    string    `json:"project"`
	Done       bool      `json:"done" jsonschema:"every work package is verified: checkpoint, then consolidate"`
	Dispatched bool      `json:"dispatched" jsonschema:"false when no work package of the plan was dispatched yet"`
	Needs      []string  `json:"needs" jsonschema:"work packages that wait for the supervisor (waiting_decision, failed, ended_unverified)"`
	Pending    []string  `json:"pending" jsonschema:"work packages still working or not started: call dispatch_wait again"`
	WPs        []wpState `json:"wps"`
	Waited     string    `json:"waited"`
}

func addDispatchWait(s *sdk.Server, e *env) {
	addTool(s, "dispatch_wait", "Block until a whole dispatch needs you or is done: returns as soon as every work package is verified (done), "+
		"or one waits for the supervisor (waiting_decision: plan_answer; failed or ended_unverified: read session_output, then session_prompt or dispatch), "+
		"or after `for` (at most 45s) with the ones still pending: call again. Fans in over every session of the plan; "+
		"the sessions daemon verifies each at its turn's end and launches the next wave meanwhile. Use it after dispatch instead of polling dispatch_status.",
		func(ctx context.Context, req *sdk.CallToolRequest, in dispatchWaitIn) (*Result[dispatchWaitDoc], error) {
			d, _, err := boundedWait(in.For, "45s", maxDispatchWait, "for")
			if err != nil {
				return nil, err
			}
			start := time.Now()
			deadline := start.Add(d)
			stop := waiting(ctx, req, "dispatch_wait", 0)
			defer stop()
			for {
				doc, live, err := e.dispatchStand(ctx, in.Project)
				if err != nil {
					return nil, err
				}
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				left := time.Until(deadline)
				if doc.Done || len(doc.Needs) > 0 || len(doc.Pending) == 0 || left <= 0 {
					doc.Waited = time.Since(start).Round(100 * time.Millisecond).String()
					return &Result[dispatchWaitDoc]{Command: "dispatch wait", Doc: doc, Summary: standSummary(doc)}, nil
				}
				// Fan in: the first change of any live session, or a
				// short beat for verdicts the ledger gets meanwhile.
				beat := min(left, 2*time.Second)
				if c, err := e.app.Sessions(); err == nil && len(live) > 0 {
					c.Monitor(ctx, live, beat)
				} else {
					select {
					case <-ctx.Done():
					case <-time.After(beat):
					}
				}
			}
		})
}

// dispatchStand reads where each work package of a plan stands, and the
// live sessions to wait on.
func (e *env) dispatchStand(ctx context.Context, project string) (dispatchWaitDoc, []string, error) {
	p, err := e.app.LoadPlan(ctx, project)
	if err != nil {
		return dispatchWaitDoc{}, nil, err
	}
	_, st, err := e.app.DispatchState(ctx, project)
	if err != nil {
		return dispatchWaitDoc{}, nil, err
	}
	doc := dispatchWaitDoc{Project: p.Name, Needs: []string{}, Pending: []string{}, WPs: []wpState{}}
	var live []string
	verified := 0
	for _, wp := range p.Plan.WPs {
		ws := wpState{WP: wp.ID, State: wpNotStarted}
		v, hasV := st.Verifications[wp.ID]
		if hasV {
			ws.Verdict = v.Verdict
		}
		if last, ok := st.LastDispatch(wp.ID); ok {
			ws.Session = last.Session
			ws.State = wpStanding(ctx, e, last.Session, v, hasV)
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
func wpStanding(ctx context.Context, e *env, id string, v pipeline.Verification, hasV bool) string {
	state := sessions.StateExited
	if recs, err := e.app.Records(ctx, []string{id}); err == nil && len(recs) == 1 {
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

func standSummary(d dispatchWaitDoc) string {
	var parts []string
	for _, w := range d.WPs {
		parts = append(parts, w.WP+" "+w.State)
	}
	lead := "still working: call dispatch_wait again"
	switch {
	case !d.Dispatched:
		lead = "nothing is dispatched: call dispatch"
	case d.Done:
		lead = "every work package is verified: checkpoint each, then consolidate"
	case len(d.Needs) > 0:
		lead = "waiting for you: " + strings.Join(d.Needs, ", ")
	}
	return fmt.Sprintf("plan %s after %s: %s (%s)", d.Project, d.Waited, lead, strings.Join(parts, "; "))
}
