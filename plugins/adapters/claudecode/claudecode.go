// Package claudecode drives the Claude Code CLI in its headless JSON-lines
// mode: `claude -p --output-format stream-json --verbose` with the prompt
// on stdin, resuming later turns with `--resume SESSION_ID` (the id from
// the init and result lines). Assistant text becomes output; API errors
// become typed faults from claude's structured fields; retries,
// permission denials and interrupts become typed warnings.
//
// One process per turn, not `--input-format stream-json` (one process,
// many turns): a fresh process costs about a second against turns of
// minutes, a crash or a hang loses one turn and never the session (the
// transcript is on disk and --resume picks it up), an interrupt is a
// documented SIGINT rather than the SDK's control messages, which change
// between versions, and nothing lives between turns to leak or wedge.
// So after each turn the session says a new process of the adapter can
// resume it (resume.go).
//
// Options: binary (default "claude"), permission_mode (default
// acceptEdits), extra (words added to every call), extra_first (words
// added to the first call only).
package claudecode

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentproto/agentproto/plugins/adapters/cliturn"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// Version of the adapter.
const Version = "1.1.0"

// Adapter drives claude.
type Adapter struct{}

// Info declares the capabilities the CLI's headless mode supports.
func (Adapter) Info() sdk.Info {
	return sdk.Info{Name: "claude-code", Version: Version,
		Capabilities: []string{sdk.CapMessageInjection, sdk.CapInterrupt, sdk.CapResume, sdk.CapTermination},
		AuthMethods:  []string{"api-key", "subscription"}}
}

// PermissionModes are the choices of claude's --permission-mode.
var PermissionModes = []string{"acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan"}

// resumeRejects are flags claude 2.1 refuses next to --resume, so they may
// go in extra_first but not in extra.
var resumeRejects = map[string]string{
	"--session-id": "is refused by claude with --resume (later turns); put it in extra_first",
}

// owned are the flags the adapter sets itself; extra may not repeat them.
var owned = map[string]string{
	"-p": "is set by the adapter", "--print": "is set by the adapter",
	"--output-format": "is set by the adapter (stream-json)", "--input-format": "is set by the adapter",
	"-r": "is set by the adapter", "--resume": "is set by the adapter", "-c": "would continue another session", "--continue": "would continue another session",
	"--permission-mode": "belongs in options.permission_mode", "--model": "belongs in the profile's model",
}

type driver struct {
	opts  cliturn.Options
	mode  string
	model string

	mu      sync.Mutex
	session string
	tools   map[string]string // tool_use id -> what it touched
	denied  map[string]bool   // tool_use ids already reported
	usage   turnUsage         // what the turn's model calls used (usage.go)
	// costSeen is the session's total_cost_usd at its last result.
	costSeen    float64
	costSession string
}

// Start checks the options and runs the first turn.
func (Adapter) Start(ctx context.Context, req sdk.StartRequest, out sdk.Emitter) (sdk.Session, error) {
	o, err := cliturn.ReadOptions(req, "claude")
	if err != nil {
		return nil, err
	}
	if err := cliturn.Refuse("extra", o.Extra, owned); err != nil {
		return nil, err
	}
	if err := cliturn.Refuse("extra", o.Extra, resumeRejects); err != nil {
		return nil, err
	}
	if err := cliturn.Refuse("extra_first", o.First, owned); err != nil {
		return nil, err
	}
	mode := req.Options["permission_mode"]
	if mode == "" {
		mode = "acceptEdits"
	}
	if !contains(PermissionModes, mode) {
		return nil, sdk.Problemf("options.permission_mode %q is not one of %s", mode, strings.Join(PermissionModes, ", "))
	}
	d := &driver{opts: o, mode: mode, model: req.Model}
	return cliturn.NewSession(req, out, d)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (d *driver) Command(t *cliturn.Turn) (cliturn.Call, error) {
	args := []string{"-p", "--output-format", "stream-json", "--verbose", "--permission-mode", d.mode}
	if d.model != "" {
		args = append(args, "--model", d.model)
	}
	d.mu.Lock()
	d.tools, d.denied = map[string]string{}, map[string]bool{}
	d.usage.reset()
	resume := d.session
	d.mu.Unlock()
	if t.N > 1 && resume != "" {
		args = append(args, "--resume", resume)
	}
	if t.N == 1 {
		args = append(args, d.opts.First...)
	}
	args = append(args, d.opts.Extra...)
	return cliturn.Call{Name: d.opts.Binary, Args: args, Stdin: t.Prompt}, nil
}

// block is one content block of a message.
type block struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Name    string          `json:"name"`
	ID      string          `json:"id"`
	Input   json.RawMessage `json:"input"`
	ToolUse string          `json:"tool_use_id"`
	IsError bool            `json:"is_error"`
	Content json.RawMessage `json:"content"`
}

// line is the part of a stream-json line the adapter reads.
type line struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	SessionID string `json:"session_id"`
	// assistant and user: an object; system/permission_denied: a string
	Message        json.RawMessage `json:"message"`
	Error          string          `json:"error"`
	APIErrorStatus int             `json:"api_error_status"`
	// result
	IsError           bool                `json:"is_error"`
	Result            string              `json:"result"`
	Errors            []string            `json:"errors"`
	TerminalReason    string              `json:"terminal_reason"`
	Usage             *usageFields        `json:"usage"`
	TotalCostUSD      *float64            `json:"total_cost_usd"`
	ModelUsage        map[string]struct{} `json:"modelUsage"`
	PermissionDenials []struct {
		ToolName  string          `json:"tool_name"`
		ToolUseID string          `json:"tool_use_id"`
		ToolInput json.RawMessage `json:"tool_input"`
	} `json:"permission_denials"`
	// system/api_retry, system/permission_denied
	Attempt     int    `json:"attempt"`
	MaxRetries  int    `json:"max_retries"`
	RetryDelay  int    `json:"retry_delay_ms"`
	ErrorStatus int    `json:"error_status"`
	ToolName    string `json:"tool_name"`
	ToolUseID   string `json:"tool_use_id"`
	Reason      string `json:"decision_reason"`
}

// content is the blocks of an assistant or user message.
func (l *line) content() []block {
	var m struct {
		Content []block `json:"content"`
	}
	json.Unmarshal(l.Message, &m)
	return m.Content
}

// errorFaults maps the assistant message's error field.
var errorFaults = map[string]string{
	"authentication_failed": sdk.FaultAuthFailed,
	"billing_error":         sdk.FaultInsufficientCredits,
	"rate_limit":            sdk.FaultRateLimited,
	"server_error":          sdk.FaultProviderUnavailable,
	"model_not_found":       sdk.FaultInvalidModel,
}

// fault types an API error: the error field, then the status, then text.
func fault(errField string, status int, text string) string {
	if f := errorFaults[errField]; f != "" {
		return f
	}
	if f := sdk.FaultOfStatus(status); f != "" {
		return f
	}
	return sdk.ClassifyFault(text)
}

func (d *driver) Line(t *cliturn.Turn, b []byte) {
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		t.Out.Output(append(append([]byte(nil), b...), '\n')) // not JSON: pass it on
		return
	}
	if l.SessionID != "" && cliturn.SafeID(l.SessionID) {
		d.mu.Lock()
		d.session = l.SessionID
		d.mu.Unlock()
	}
	switch l.Type {
	case "system":
		d.system(t, &l)
	case "assistant":
		d.call(t, l.Message)
		blocks := l.content()
		if l.Error != "" {
			t.Fault(text(blocks), fault(l.Error, l.APIErrorStatus, text(blocks)))
			return
		}
		for _, c := range blocks {
			switch c.Type {
			case "text":
				t.Out.Output([]byte(c.Text + "\n"))
			case "tool_use":
				what := target(c.Input)
				d.mu.Lock()
				d.tools[c.ID] = what
				d.mu.Unlock()
				t.Out.Output([]byte(strings.TrimSpace("[tool] "+c.Name+" "+what) + "\n"))
			}
		}
	case "user":
		for _, c := range l.content() {
			if c.Type == "tool_result" && c.IsError && strings.Contains(string(c.Content), "requested permissions") {
				d.deny(t, c.ToolUse, "", nil, "")
			}
		}
	case "result":
		d.final(t, &l)
		for _, p := range l.PermissionDenials {
			d.deny(t, p.ToolUseID, p.ToolName, p.ToolInput, "")
		}
		if l.IsError || (l.Subtype != "" && l.Subtype != "success") {
			msg := l.Result
			if msg == "" && len(l.Errors) > 0 {
				msg = strings.Join(l.Errors, "; ")
			}
			if msg == "" {
				msg = "claude ended the turn with " + l.Subtype
				if l.TerminalReason != "" {
					msg += " (" + l.TerminalReason + ")"
				}
			}
			t.Fault(msg, fault("", l.APIErrorStatus, msg))
		}
	}
}

func (d *driver) system(t *cliturn.Turn, l *line) {
	switch l.Subtype {
	case "api_retry":
		why := l.Error
		if l.ErrorStatus != 0 {
			why += fmt.Sprintf(", HTTP %d", l.ErrorStatus)
		}
		msg := fmt.Sprintf("claude retries a provider error (%s): attempt %d of %d in %d ms", why, l.Attempt, l.MaxRetries, l.RetryDelay)
		t.Warn(sdk.WarnRetrying, msg)
	case "permission_denied":
		d.deny(t, l.ToolUseID, l.ToolName, nil, l.Reason)
	}
}

// deny reports a refused tool call once, naming the tool and its path.
func (d *driver) deny(t *cliturn.Turn, id, tool string, input json.RawMessage, reason string) {
	d.mu.Lock()
	if id != "" && d.denied[id] {
		d.mu.Unlock()
		return
	}
	d.denied[id] = true
	what := d.tools[id]
	d.mu.Unlock()
	if what == "" {
		what = target(input)
	}
	if tool == "" {
		tool = "a tool"
	}
	if reason == "" {
		reason = "refused by claude's permissions"
	}
	t.Warn(sdk.WarnPermissionDenied, strings.TrimSpace(tool+" "+what)+": "+reason+" (permission_mode "+d.mode+")")
}

// target is what a tool call touches: its path, or its command.
func target(input json.RawMessage) string {
	var in map[string]any
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	for _, k := range []string{"file_path", "notebook_path", "path", "command"} {
		if s, ok := in[k].(string); ok && s != "" {
			return s
		}
	}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func text(blocks []block) string {
	var parts []string
	for _, c := range blocks {
		if c.Type == "text" && c.Text != "" {
			parts = append(parts, c.Text)
		}
	}
	if len(parts) == 0 {
		return "claude reported an API error"
	}
	return strings.Join(parts, " ")
}
