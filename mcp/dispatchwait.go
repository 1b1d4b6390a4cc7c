package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/app"
)

// maxDispatchWait bounds one dispatch_wait call, under the 50 s many
// clients allow a request and the seed's 49 s monitor.
const maxDispatchWait = 45 * time.Second

type dispatchWaitIn struct {
	Project string `json:"project" jsonschema:"the plan name (dispatched)"`
	For     string `json:"for,omitempty" jsonschema:"the longest to wait, with a unit (default and cap 45s)"`
}

func addDispatchWait(s *sdk.Server, e *env) {
	addTool(s, "dispatch_wait", "Block until a whole dispatch needs you or is done: returns as soon as every work package is verified (done), "+
		"or one waits for the supervisor (waiting_decision: plan_answer; failed or ended_unverified: read session_output, then session_prompt or dispatch), "+
		"or after `for` (at most 45s) with the ones still pending: call again. Fans in over every session of the plan; "+
		"the sessions daemon verifies each at its turn's end and launches the next wave meanwhile. Use it after dispatch instead of polling dispatch_status.",
		func(ctx context.Context, req *sdk.CallToolRequest, in dispatchWaitIn) (*Result[*app.Standing], error) {
			d, _, err := boundedWait(in.For, "45s", maxDispatchWait, "for")
			if err != nil {
				return nil, err
			}
			stop := waiting(ctx, req, "dispatch_wait", 0)
			defer stop()
			doc, err := e.app.WaitDispatch(ctx, in.Project, d)
			if err != nil {
				return nil, err
			}
			return &Result[*app.Standing]{Command: "dispatch wait", Doc: doc, Summary: standSummary(doc)}, nil
		})
}

func standSummary(d *app.Standing) string {
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
