package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/profiles"
)

type dispatchIn struct {
	Project     string   `json:"project" jsonschema:"the plan name (frozen)"`
	WPs         []string `json:"wps,omitempty" jsonschema:"only these work packages"`
	MaxParallel int      `json:"max_parallel,omitempty" jsonschema:"sessions at once (default [dispatch] max_parallel)"`
	NoPing      bool     `json:"no_ping,omitempty" jsonschema:"skip the liveness ping before the brief"`
}

func addDispatchTools(s *sdk.Server, e *env) {
	addTool(s, "dispatch", "Start the next wave of work packages (WP0 first and alone, then the ones it unblocks), each in its own worktree, and return once launched. "+
		"The run then belongs to the sessions daemon: it verifies each session at its turn's end, kills it once verified and launches the work packages that unblocks, "+
		"also after this client has gone. Follow it with dispatch_status (or session_wait); a WP waiting_decision waits for plan_answer. "+
		"Calling dispatch again is safe: what is verified, running or waiting is not started twice.",
		func(ctx context.Context, req *sdk.CallToolRequest, in dispatchIn) (*Result[dispatchDoc], error) {
			if in.MaxParallel < 0 {
				return nil, fmt.Errorf("max_parallel must be 1 or more")
			}
			progress := newProgress(ctx, req)
			d, runErr := e.app.Dispatch(ctx, app.DispatchOptions{Project: in.Project, WPs: in.WPs, MaxParallel: in.MaxParallel,
				NoPing: in.NoPing, Report: progress})
			if d == nil {
				var pe *app.PlanErrors
				if errors.As(runErr, &pe) {
					return nil, fmt.Errorf("%v (run plan_check)", pe)
				}
				return nil, runErr
			}
			progress.flush()
			st, err := d.State()
			if err != nil {
				return nil, err
			}
			doc := newDispatchDoc(d.Project(), st)
			ok := runErr == nil
			doc.OK = &ok
			res := &Result[dispatchDoc]{Command: "dispatch", Doc: doc, Fail: runErr,
				Summary: fmt.Sprintf("dispatched plan %s: %s", d.Project(), progress.last())}
			if runErr != nil {
				res.Doc.Error = runErr.Error()
			}
			return res, nil
		})
	addTool(s, "dispatch_status", "Where a plan's dispatch stands now, without waiting: its dispatches, sessions and latest verifications, from the ledger. "+
		"To wait until the sessions settle and are verified, use dispatch_wait instead of polling this.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in projectIn) (*Result[dispatchDoc], error) {
			name, st, err := e.app.DispatchState(ctx, in.Project)
			if err != nil {
				return nil, err
			}
			return &Result[dispatchDoc]{Command: "dispatch status", Doc: newDispatchDoc(name, st), Summary: fmt.Sprintf("plan %s: %d WPs dispatched; %s",
				name, len(st.Dispatches), verdictCounts(st.Verifications))}, nil
		})
	addTool(s, "review", "Adversarial review of a plan's work, after consolidate: every gate re-run, commits against perimeters, fake-work patterns; "+
		"with adapter or profile a reviewer session also reads the review brief in its own read-only worktree, and its verdicts are in the result (never counted as a pass). "+
		"Recorded; findings are a tool error carrying the review."+longNote,
		func(ctx context.Context, req *sdk.CallToolRequest, in reviewIn) (*Result[*pipeline.ReviewResult], error) {
			argv := []string{"review", "--json"}
			switch {
			case in.Adapter != "" && in.Profile != "":
				return nil, fault.Invalidf("give adapter or profile, not both")
			case in.Adapter != "":
				argv = append(argv, "--adapter", in.Adapter)
			case in.Profile != "":
				argv = append(argv, "--profile", in.Profile)
			}
			return runLong(ctx, e, req, "review", in.Wait, append(argv, "--", in.Project),
				func(r *pipeline.ReviewResult) *Result[*pipeline.ReviewResult] {
					sum := fmt.Sprintf("review of %s: %d findings", r.Project, len(r.Findings))
					if r.Reviewer != "" {
						sum += "; reviewer session " + r.Reviewer + reviewerSummary(r.ReviewerVerdicts)
					}
					res := &Result[*pipeline.ReviewResult]{Command: "review", Doc: r, Summary: sum}
					if !r.OK {
						res.Fail = fmt.Errorf("review found problems")
					}
					return res
				})
		})
}

type reviewIn struct {
	Project string `json:"project" jsonschema:"the plan name"`
	Adapter string `json:"adapter,omitempty" jsonschema:"also run a reviewer session with this adapter"`
	Profile string `json:"profile,omitempty" jsonschema:"also run a reviewer session with this profile ([profiles.NAME])"`
	Wait    string `json:"wait,omitempty" jsonschema:"the longest this call waits before it answers with a job to give job_wait (default and cap 40s; 0s answers with the job at once)"`
}

func reviewerSummary(v *judge.ReviewerVerdicts) string {
	if v == nil {
		return ""
	}
	s := fmt.Sprintf(" (%d verdicts, %d findings of its own)", len(v.Verdicts), len(v.Findings))
	if v.Void != "" {
		s += "; VOID: " + v.Void
	}
	return s
}

func newDispatchDoc(project string, st *pipeline.State) dispatchDoc {
	return dispatchDoc{Project: project, Dispatches: st.Dispatches, Verifications: st.Verifications}
}

// progress turns the dispatcher's progress lines into MCP progress
// notifications while the client that asked for them is connected.
type progress struct {
	ctx   context.Context
	req   *sdk.CallToolRequest
	token any
	mu    sync.Mutex
	buf   bytes.Buffer
	n     float64
	lines []string
}

var _ io.Writer = (*progress)(nil)

func newProgress(ctx context.Context, req *sdk.CallToolRequest) *progress {
	p := &progress{ctx: ctx, req: req}
	if req != nil && req.Params != nil {
		p.token = req.Params.GetProgressToken()
	}
	return p
}

func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf.Write(b)
	for {
		line, err := p.buf.ReadString('\n')
		if err != nil {
			p.buf.WriteString(line)
			return len(b), nil
		}
		p.send(strings.TrimSpace(line))
	}
}

// The Reporter: each event is a progress line (the words the CLI prints);
// the table of a wave's sessions is the CLI's to draw and is not sent.
func (p *progress) Step(name string) { p.Write([]byte("step " + name + "\n")) }
func (p *progress) Event(wp, what, detail string) {
	line := strings.TrimSpace(strings.Join([]string{wp, what, detail}, " "))
	p.Write([]byte(line + "\n"))
}
func (p *progress) Sessions([]pipeline.SessionStatus) {}
func (p *progress) Preflight(rs []profiles.Result) {
	for _, r := range rs {
		b, _ := json.Marshal(r)
		p.Write(append([]byte("preflight "), append(b, '\n')...))
	}
}
func (p *progress) Result(any)        {}
func (p *progress) Output() io.Writer { return p }

func (p *progress) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if rest := strings.TrimSpace(p.buf.String()); rest != "" {
		p.send(rest)
	}
	p.buf.Reset()
}

func (p *progress) send(line string) {
	if line == "" {
		return
	}
	p.lines = append(p.lines, line)
	if p.token == nil || p.req.Session == nil {
		return
	}
	p.n++
	p.req.Session.NotifyProgress(p.ctx, &sdk.ProgressNotificationParams{ProgressToken: p.token, Message: line, Progress: p.n})
}

func (p *progress) last() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.lines) == 0 {
		return "nothing to start"
	}
	return p.lines[len(p.lines)-1]
}

// verdictCounts says how many latest verifications have each verdict
// ("2 pass, 1 waiting_decision"): a waiting or failed WP is not verified.
func verdictCounts(vs map[string]pipeline.Verification) string {
	counts := map[string]int{}
	for _, v := range vs {
		counts[v.Verdict]++
	}
	if len(counts) == 0 {
		return "none verified yet"
	}
	var parts []string
	for _, verdict := range []string{pipeline.Pass, pipeline.Fail, pipeline.WaitingDecision} {
		if n := counts[verdict]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, verdict))
			delete(counts, verdict)
		}
	}
	for verdict, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, verdict))
	}
	return strings.Join(parts, ", ")
}
