package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/jsondoc"
	"github.com/agentproto/agentproto/sessions"
)

// maxWait bounds one blocking call: many MCP clients give up on a call
// after about 60 s, so a wait returns before that and says to call again.
const maxWait = 50 * time.Second

// worktreeArg is session_start's worktree: a slug, or {slug, base} to
// provision it from a base when it does not exist yet.
type worktreeArg struct {
	Slug string `json:"slug"`
	Base string `json:"base,omitempty"`
}

func (w *worktreeArg) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &w.Slug)
	}
	type plain worktreeArg
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return fault.Invalidf("unknown argument worktree.%s; give {slug, base}", strings.Trim(f, `"`))
		}
		return fault.Invalidf("worktree must be a slug or {slug, base}")
	}
	*w = worktreeArg(p)
	return nil
}

// typeSchemas are the schemas inference cannot find by itself.
var typeSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {Type: "object"},
	reflect.TypeFor[worktreeArg](): {
		Description: "run in this agentproto worktree: a slug, or {slug, base} (it is provisioned, setup hooks run once trusted, when it does not exist); exactly one of worktree and dir is required",
		OneOf: []*jsonschema.Schema{
			{Type: "string"},
			{Type: "object", Required: []string{"slug"}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
				Properties: map[string]*jsonschema.Schema{"slug": {Type: "string"}, "base": {Type: "string"}}},
		},
	},
}

type startIn struct {
	Adapter  string      `json:"adapter,omitempty" jsonschema:"adapter name; required unless profile is given (never both)"`
	Profile  string      `json:"profile,omitempty" jsonschema:"executor profile ([profiles.NAME]): adapter, model and auth; required unless adapter is given (never both)"`
	Model    string      `json:"model,omitempty" jsonschema:"model id"`
	Dir      string      `json:"dir,omitempty" jsonschema:"run in this directory, inside the repository or one of its worktrees; exactly one of dir and worktree is required"`
	Worktree worktreeArg `json:"worktree,omitempty"`
	Prompt   string      `json:"prompt" jsonschema:"the first prompt"`
	Label    string      `json:"label,omitempty" jsonschema:"a label for people"`
	NoPing   bool        `json:"no_ping,omitempty" jsonschema:"skip the liveness ping"`
}

type listIn struct {
	All bool `json:"all,omitempty" jsonschema:"include cleaned sessions"`
}

type monitorIn struct {
	IDs []string `json:"ids" jsonschema:"session ids"`
	For string   `json:"for,omitempty" jsonschema:"the longest to wait, with a unit (default and cap 45s)"`
}

type waitIn struct {
	IDs     []string `json:"ids" jsonschema:"session ids"`
	Until   string   `json:"until,omitempty" jsonschema:"turn-end (default) or exit"`
	Timeout string   `json:"timeout,omitempty" jsonschema:"how long to wait, with a unit; one call waits at most 50s"`
}

type outputIn struct {
	ID    string `json:"id" jsonschema:"session id"`
	Last  int    `json:"last,omitempty" jsonschema:"the last N lines (default 60, at most 2000); a line past 4 KiB is cut with a marker"`
	Clean bool   `json:"clean,omitempty" jsonschema:"strip terminal escapes and control characters"`
}

type promptIn struct {
	ID        string `json:"id" jsonschema:"session id"`
	Text      string `json:"text,omitempty" jsonschema:"the next turn"`
	Interrupt bool   `json:"interrupt,omitempty" jsonschema:"interrupt the current turn first"`
}

type idIn struct {
	ID string `json:"id" jsonschema:"session id"`
}

func addSessionTools(s *sdk.Server, e *env) {
	addTool(s, "session_start", "Start one executor session by hand and return its record; the sessions daemon owns it, so it outlives this connection. "+
		"Give adapter or profile, and worktree or dir. To run a frozen plan use dispatch instead: it starts each work package with its brief in its own worktree and verifies it.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in startIn) (*Result[*sessions.Record], error) {
			rec, err := e.startSession(ctx, in)
			if err != nil {
				if rec != nil {
					doc, _ := stamped(rec, jsondoc.Schema("sessions start"))
					return nil, &withDoc{err: err, doc: doc}
				}
				return nil, err
			}
			return &Result[*sessions.Record]{Command: "sessions start", Doc: rec, Summary: fmt.Sprintf("started %s (%s) in %s", rec.ID, rec.State, rec.Dir)}, nil
		})
	addTool(s, "session_list", "List sessions: id, label, adapter, model, dir, state, turns, spend (each turn's usage; a turn its agent reported nothing of is unknown, never 0), last activity. For one plan's work packages and their verdicts, dispatch_status says more.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in listIn) (*Result[[]*sessions.Record], error) {
			rows, err := e.app.ListSessions(ctx, in.All)
			if err != nil {
				return nil, err
			}
			return &Result[[]*sessions.Record]{Command: "sessions ls", Doc: rows, Summary: fmt.Sprintf("%d sessions", len(rows))}, nil
		})
	addTool(s, "session_monitor", "Fan-in: return as soon as any one of the named sessions changes state or turn, or after `for` (at most 45s); at once when all are over. "+
		"Use session_wait to wait for all of them, dispatch_wait for a whole dispatch (it also waits for the verdicts).",
		func(ctx context.Context, req *sdk.CallToolRequest, in monitorIn) (*Result[monitorDoc], error) {
			return e.monitor(ctx, req, in)
		})
	addTool(s, "session_wait", "Wait until every named session reaches `until` (turn-end or exit). One call waits at most 50s; while `pending` is not empty, call again. "+
		"For a dispatch's sessions use dispatch_wait: it also waits for each verdict; for the first change of several use session_monitor.",
		func(ctx context.Context, req *sdk.CallToolRequest, in waitIn) (*Result[waitDoc], error) {
			return e.wait(ctx, req, in)
		})
	addTool(s, "session_output", "A session's output, one item per line: the last 60 by default (at most 2000), a line past 4 KiB cut with a marker; clean strips terminal escapes. "+
		"Read it after a turn ends to see how it ended.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in outputIn) (*Result[[]app.OutputLine], error) {
			lines, err := e.app.SessionTail(ctx, in.ID, in.Last, in.Clean)
			if err != nil {
				return nil, err
			}
			return &Result[[]app.OutputLine]{Command: "sessions output", Doc: lines, Summary: fmt.Sprintf("%d lines of %s", len(lines), in.ID)}, nil
		})
	addTool(s, "session_prompt", "Send a session another turn, or interrupt its current one (the turn in progress is lost). To answer a work package waiting_decision use plan_answer: it also records the choice.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in promptIn) (*Result[promptDoc], error) {
			if in.Text == "" && !in.Interrupt {
				return nil, fault.Invalidf("give text (or interrupt alone)")
			}
			if err := e.app.PromptSession(ctx, in.ID, in.Text, in.Interrupt); err != nil {
				return nil, err
			}
			return &Result[promptDoc]{Command: "sessions prompt", Doc: promptDoc{ID: in.ID, Sent: true, Interrupt: in.Interrupt},
				Summary: "sent to " + in.ID}, nil
		})
	addTool(s, "session_kill", "End a session and every process it started; its worktree stays. A dispatched session is ended by the daemon once verified: kill only what is stuck.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in idIn) (*Result[*sessions.Record], error) {
			rec, err := e.app.KillSession(ctx, in.ID)
			if err != nil {
				return nil, err
			}
			return &Result[*sessions.Record]{Command: "sessions kill", Doc: rec, Summary: fmt.Sprintf("%s is %s", in.ID, rec.State)}, nil
		})
}

// withDoc is an error that still has a document to show (a session that
// failed while starting has a record).
type withDoc struct {
	err error
	doc []byte
}

func (w *withDoc) Error() string { return w.err.Error() }
func (w *withDoc) Unwrap() error { return w.err }

// startSession checks the arguments as `sessions start` checks its flags
// and starts the session, confined to the repository and its worktrees.
func (e *env) startSession(ctx context.Context, in startIn) (*sessions.Record, error) {
	if in.Profile != "" && in.Adapter != "" {
		return nil, fault.Invalidf("profile names the adapter; do not give adapter too")
	}
	if in.Profile == "" && in.Adapter == "" {
		return nil, fault.Invalidf("adapter or profile is required")
	}
	if (in.Worktree.Slug == "") == (in.Dir == "") {
		return nil, fault.Invalidf("give exactly one of worktree and dir")
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return nil, fault.Invalidf("a session starts with a prompt")
	}
	// A call cancelled while the start runs undoes it: no orphan session,
	// no worktree made for nothing.
	return e.app.StartSessionUndoable(ctx, app.StartOptions{Profile: in.Profile, Adapter: in.Adapter, Model: in.Model,
		Worktree: in.Worktree.Slug, Base: in.Worktree.Base, Dir: in.Dir, Confined: true,
		Prompt: in.Prompt, Label: in.Label, NoPing: in.NoPing, By: "mcp"})
}

// boundedWait parses a wait and caps it at cap; capped says the cap cut it.
func boundedWait(s, def string, limit time.Duration, what string) (time.Duration, bool, error) {
	if s == "" {
		s = def
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, false, fault.Invalidf("%s %q needs a unit, such as 40m or 30s", what, s)
	}
	if d > limit {
		return limit, true, nil
	}
	return d, false, nil
}

func (e *env) monitor(ctx context.Context, req *sdk.CallToolRequest, in monitorIn) (*Result[monitorDoc], error) {
	d, _, err := boundedWait(in.For, "45s", 45*time.Second, "for")
	if err != nil {
		return nil, err
	}
	stop := waiting(ctx, req, "session_monitor", len(in.IDs))
	recs, err := e.app.MonitorSessions(ctx, in.IDs, d)
	stop()
	if err != nil {
		return nil, err
	}
	var parts []string
	for _, r := range recs {
		parts = append(parts, fmt.Sprintf("%s %s turns=%d", r.ID, r.State, r.Turns))
	}
	return &Result[monitorDoc]{Command: "sessions monitor", Doc: monitorDoc{Sessions: recs, WaitedAtMost: d.String()},
		Summary: strings.Join(parts, "; ") + fmt.Sprintf(" (a call waits at most %s)", d)}, nil
}

// checkUntil is session_wait's until: turn-end (the default) or exit.
func checkUntil(until string) (string, error) {
	switch until {
	case "":
		return "turn-end", nil
	case "turn-end", "exit":
		return until, nil
	}
	return "", fault.Invalidf("until %q: give turn-end or exit", until)
}

func (e *env) wait(ctx context.Context, req *sdk.CallToolRequest, in waitIn) (*Result[waitDoc], error) {
	until, err := checkUntil(in.Until)
	if err != nil {
		return nil, err
	}
	d, capped, err := boundedWait(in.Timeout, "40m", maxWait, "timeout")
	if err != nil {
		return nil, err
	}
	stop := waiting(ctx, req, "session_wait", len(in.IDs))
	recs, pending, err := e.app.WaitSessions(ctx, in.IDs, until, d)
	stop()
	if err != nil {
		return nil, err
	}
	res := &Result[waitDoc]{Command: "sessions wait", Doc: waitDoc{Sessions: recs, Pending: pending}}
	switch {
	case len(pending) == 0:
		res.Summary = fmt.Sprintf("all %d sessions reached %s", len(recs), until)
	case capped:
		res.Doc.Capped = true
		res.Doc.Note = fmt.Sprintf("one call waits at most %s; still running: %s; call session_wait again", maxWait, strings.Join(pending, " "))
		res.Summary = res.Doc.Note
	default:
		res.Fail = fault.Timeoutf("timed out after %s; still running: %s", d, strings.Join(pending, " "))
	}
	return res, nil
}
