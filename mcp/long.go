package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/internal/fault"
)

// longNote is what every long tool's description ends with.
const longNote = " Runs as a job that outlives this connection and records its result in the ledger: the call answers within `wait` " +
	"(default and cap 40s) with the result, or with a job id to give job_wait; progress notifications come every 2s when asked for. " +
	"Cancelling the call stops the work."

// longWait parses a long tool's wait: how long the call waits for the
// job before handing it back (0s: hand it back at once).
func longWait(s string) (time.Duration, error) {
	if s == "" {
		return callBound, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || strings.HasPrefix(s, "-") {
		return 0, fault.Invalidf("wait %q needs a unit, such as 10s (0s hands the job back at once)", s)
	}
	return min(d, callBound), nil
}

// callBound is the longest a long tool's call waits before it hands back
// a job: clients commonly give up on a request after 60 s (the MCP
// TypeScript SDK's default), and a client that gives up sends a
// cancellation, which would stop the work.
const callBound = 40 * time.Second

// runLong runs `git-agentproto ARGV` as tool's job and answers within
// wait: with the command's document, decoded as Out and summed up by
// sum, or with the job to wait on. A cancelled call stops the job.
func runLong[Out any](ctx context.Context, e *env, req *sdk.CallToolRequest, tool, wait string, argv []string,
	sum func(Out) *Result[Out]) (*Result[Out], error) {
	d, err := longWait(wait)
	if err != nil {
		return nil, err
	}
	j, done, err := e.app.RunJob(ctx, tool, argv, d, heartbeat(ctx, req, tool))
	if err != nil {
		return nil, err
	}
	if !done {
		return &Result[Out]{Command: tool, Job: j.Handoff(), Summary: j.Handoff().Note}, nil
	}
	return finish(j, sum)
}

// finish is an ended job's answer, as its tool gives it.
func finish[Out any](j *app.Job, sum func(Out) *Result[Out]) (*Result[Out], error) {
	doc, runErr := j.Outcome()
	if doc == nil {
		if runErr == nil {
			runErr = fmt.Errorf("%s printed no document", j.Doc.Tool)
		}
		return nil, runErr
	}
	var out Out
	if err := json.Unmarshal(doc, &out); err != nil {
		return nil, fmt.Errorf("%s printed a document this server cannot read: %v", j.Doc.Tool, err)
	}
	res := sum(out)
	if runErr != nil && res.Fail == nil {
		res.Fail = runErr
	}
	return res, nil
}

// heartbeat sends a progress notification for each tick when the client
// gave a progress token: how long the job has run and what it last said.
func heartbeat(ctx context.Context, req *sdk.CallToolRequest, tool string) func(time.Duration, string) {
	var token any
	if req != nil && req.Params != nil {
		token = req.Params.GetProgressToken()
	}
	if token == nil || req.Session == nil {
		return nil
	}
	n := 0.0
	return func(elapsed time.Duration, said string) {
		n++
		msg := fmt.Sprintf("%s running for %s", tool, elapsed)
		if said != "" {
			msg += ": " + said
		}
		req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: n, Message: msg})
	}
}

// waiting sends a progress notification every two seconds while a wait
// blocks, when the client gave a progress token; stop ends them.
func waiting(ctx context.Context, req *sdk.CallToolRequest, tool string, n int) (stop func()) {
	beat := heartbeat(ctx, req, tool)
	if beat == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				beat(now.Sub(start).Round(time.Second), fmt.Sprintf("waiting for %d sessions", n))
			}
		}
	}()
	return func() { cancel(); <-done }
}

type jobIn struct {
	Job string `json:"job" jsonschema:"the job id a long tool answered with"`
	For string `json:"for,omitempty" jsonschema:"the longest to wait, with a unit (default and cap 45s)"`
}

type jobIDIn struct {
	Job string `json:"job" jsonschema:"the job id a long tool answered with"`
}

func addJobTools(s *sdk.Server, e *env) {
	addTool(s, "job_wait", "Wait for a job (the answer of verify, review, consolidate or e2e past its call's bound) and return its result: "+
		"the document the tool would have answered, or its error. One call waits at most 45s; while the answer is still a job, call again. "+
		"Works from any connection: the job outlived the one that started it.",
		func(ctx context.Context, req *sdk.CallToolRequest, in jobIn) (*Result[json.RawMessage], error) {
			j, err := e.app.OpenJob(ctx, in.Job)
			if err != nil {
				return nil, err
			}
			d, _, err := boundedWait(in.For, "45s", 45*time.Second, "for")
			if err != nil {
				return nil, err
			}
			if !j.Wait(ctx, d, heartbeat(ctx, req, j.Doc.Tool)) {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return &Result[json.RawMessage]{Command: "job", Job: j.Handoff(), Summary: j.Handoff().Note}, nil
			}
			return finish(j, func(doc json.RawMessage) *Result[json.RawMessage] {
				return &Result[json.RawMessage]{Command: "job", Doc: doc, Summary: fmt.Sprintf("job %s (%s) ended", j.Doc.Job, j.Doc.Tool)}
			})
		})
	addTool(s, "job_cancel", "Stop a job and every process it started; what it already recorded stays. Stopping an ended job does nothing.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in jobIDIn) (*Result[*app.JobDoc], error) {
			j, err := e.app.OpenJob(ctx, in.Job)
			if err != nil {
				return nil, err
			}
			d, err := j.Cancel(ctx)
			if err != nil {
				return nil, err
			}
			return &Result[*app.JobDoc]{Command: "job", Doc: d, Summary: fmt.Sprintf("job %s: %s", d.Job, d.State)}, nil
		})
}
