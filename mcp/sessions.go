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
		Description: "run in this agentproto worktree: a slug, or {slug, base} (it is provisioned, setup hooks run once trusted, when it does not exist)",
		OneOf: []*jsonschema.Schema{
			{Type: "string"},
			{Type: "object", Required: []string{"slug"}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
				Properties: map[string]*jsonschema.Schema{"slug": {Type: "string"}, "base": {Type: "string"}}},
		},
	},
}

type startIn struct {
	Adapter  string      `json:"adapter,omitempty" jsonschema:"adapter name (or give profile)"`
	Profile  string      `json:"profile,omitempty" jsonschema:"executor profile ([profiles.NAME]): adapter, model and auth"`
	Model    string      `json:"model,omitempty" jsonschema:"model id"`
	Dir      string      `json:"dir,omitempty" jsonschema:"run in this directory (or give worktree)"`
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
	addTool(s, "session_start", "Start an executor session (owned by the sessions daemon: it outlives this connection) and return its record.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in startIn) (*Result, error) {
			rec, err := e.startSession(ctx, in)
			if err != nil {
				if rec != nil {
					doc, _ := stamped(rec, SchemaOf("sessions start"))
					return nil, &withDoc{err: err, doc: doc}
				}
				return nil, err
			}
			return &Result{Command: "sessions start", Doc: rec, Summary: fmt.Sprintf("started %s (%s) in %s", rec.ID, rec.State, rec.Dir)}, nil
		})
	addTool(s, "session_list", "List sessions: id, label, adapter, model, dir, state, turns, last activity.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in listIn) (*Result, error) {
			rows, err := e.app.ListSessions(ctx, in.All)
			if err != nil {
				return nil, err
			}
			return &Result{Command: "sessions ls", Doc: rows, Summary: fmt.Sprintf("%d sessions", len(rows))}, nil
		})
	addTool(s, "session_monitor", "Return as soon as a named session changes state or turn, or after `for` (at most 45s); at once when all are over.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in monitorIn) (*Result, error) {
			return e.monitor(ctx, in)
		})
	addTool(s, "session_wait", "Wait until every named session reaches `until`. One call waits at most 50s; while `pending` is not empty, call again.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in waitIn) (*Result, error) {
			return e.wait(ctx, in)
		})
	addTool(s, "session_output", "A session's output, one item per line (last N; clean strips terminal escapes).",
		func(ctx context.Context, _ *sdk.CallToolRequest, in outputIn) (*Result, error) {
			lines, err := e.output(ctx, in.ID, in.Last, in.Clean)
			if err != nil {
				return nil, err
			}
			return &Result{Command: "sessions output", Doc: lines, Summary: fmt.Sprintf("%d lines of %s", len(lines), in.ID)}, nil
		})
	addTool(s, "session_prompt", "Send a session another turn, or interrupt its current one.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in promptIn) (*Result, error) {
			if err := sessions.ValidateID(in.ID); err != nil {
				return nil, err
			}
			if in.Text == "" && !in.Interrupt {
				return nil, fault.Invalidf("give text (or interrupt alone)")
			}
			c, err := e.app.Sessions()
			if err != nil {
				return nil, err
			}
			if err := c.Prompt(ctx, in.ID, in.Text, in.Interrupt); err != nil {
				return nil, err
			}
			return &Result{Command: "sessions prompt", Doc: map[string]any{"id": in.ID, "sent": true, "interrupt": in.Interrupt},
				Summary: "sent to " + in.ID}, nil
		})
	addTool(s, "session_kill", "End a session and every process it started.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in idIn) (*Result, error) {
			if err := sessions.ValidateID(in.ID); err != nil {
				return nil, err
			}
			c, err := e.app.Sessions()
			if err != nil {
				return nil, err
			}
			rec, err := c.Kill(ctx, in.ID)
			if err != nil {
				return nil, err
			}
			return &Result{Command: "sessions kill", Doc: rec, Summary: fmt.Sprintf("%s is %s", in.ID, rec.State)}, nil
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
	return e.app.StartSession(ctx, app.StartOptions{Profile: in.Profile, Adapter: in.Adapter, Model: in.Model,
		Worktree: in.Worktree.Slug, Base: in.Worktree.Base, Dir: in.Dir, Confined: true,
		Prompt: in.Prompt, Label: in.Label, NoPing: in.NoPing, By: "mcp"})
}

func allOver(recs []*sessions.Record) bool {
	for _, r := range recs {
		if !sessions.Terminal(r.State) {
			return false
		}
	}
	return true
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

func (e *env) monitor(ctx context.Context, in monitorIn) (*Result, error) {
	recs, err := e.app.Records(ctx, in.IDs)
	if err != nil {
		return nil, err
	}
	d, _, err := boundedWait(in.For, "45s", 45*time.Second, "for")
	if err != nil {
		return nil, err
	}
	if !allOver(recs) {
		c, err := e.app.Sessions()
		if err != nil {
			return nil, err
		}
		changed, err := c.Monitor(ctx, in.IDs, d)
		if err != nil {
			return nil, err
		}
		recs = append([]*sessions.Record{}, changed...)
	}
	var parts []string
	for _, r := range recs {
		parts = append(parts, fmt.Sprintf("%s %s turns=%d", r.ID, r.State, r.Turns))
	}
	return &Result{Command: "sessions monitor", Doc: map[string]any{"sessions": recs, "waited_at_most": d.String()},
		Summary: strings.Join(parts, "; ") + fmt.Sprintf(" (a call waits at most %s)", d)}, nil
}

func (e *env) wait(ctx context.Context, in waitIn) (*Result, error) {
	recs, err := e.app.Records(ctx, in.IDs)
	if err != nil {
		return nil, err
	}
	until := in.Until
	if until == "" {
		until = "turn-end"
	}
	if until != "turn-end" && until != "exit" {
		return nil, fault.Invalidf("until %q: give turn-end or exit", until)
	}
	d, capped, err := boundedWait(in.Timeout, "40m", maxWait, "timeout")
	if err != nil {
		return nil, err
	}
	pending := []string{}
	if !allOver(recs) {
		c, err := e.app.Sessions()
		if err != nil {
			return nil, err
		}
		still, err := c.Wait(ctx, in.IDs, until, d)
		if err != nil {
			return nil, err
		}
		pending = append(pending, still...)
		if recs, err = e.app.Records(ctx, in.IDs); err != nil {
			return nil, err
		}
	}
	doc := map[string]any{"sessions": recs, "pending": pending}
	res := &Result{Command: "sessions wait", Doc: doc}
	switch {
	case len(pending) == 0:
		res.Summary = fmt.Sprintf("all %d sessions reached %s", len(recs), until)
	case capped:
		doc["capped"] = true
		doc["note"] = fmt.Sprintf("one call waits at most %s; still running: %s; call session_wait again", maxWait, strings.Join(pending, " "))
		res.Summary = doc["note"].(string)
	default:
		res.Fail = fault.Timeoutf("timed out after %s; still running: %s", d, strings.Join(pending, " "))
	}
	return res, nil
}

// outputLine is one line of `sessions output --json`.
type outputLine struct {
	Session string `json:"session"`
	Line    string `json:"line"`
}

func (e *env) output(ctx context.Context, id string, last int, clean bool) ([]outputLine, error) {
	if err := sessions.ValidateID(id); err != nil {
		return nil, err
	}
	switch {
	case last < 0 || last > maxOutputLines:
		return nil, fault.Invalidf("last must be between 1 and %d (0: the last %d)", maxOutputLines, defaultOutputLines)
	case last == 0:
		last = defaultOutputLines
	}
	rec, b, err := e.app.SessionOutput(ctx, id)
	if err != nil {
		return nil, err
	}
	if clean {
		b = app.StripEscapes(b)
	}
	parts := bytes.SplitAfter(b, []byte("\n"))
	if n := len(parts); n > 0 && len(parts[n-1]) == 0 {
		parts = parts[:n-1]
	}
	if last > 0 && len(parts) > last {
		parts = parts[len(parts)-last:]
	}
	lines := []outputLine{}
	for _, p := range parts {
		p = bytes.TrimSuffix(bytes.TrimSuffix(p, []byte("\n")), []byte("\r"))
		lines = append(lines, outputLine{Session: rec.ID, Line: cutLine(p)})
	}
	return lines, nil
}
