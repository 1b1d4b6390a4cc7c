// Package claudecode drives the Claude Code CLI in its headless JSON-lines
// mode: `claude -p PROMPT --output-format stream-json --verbose`, resuming
// later turns with `--resume SESSION_ID` (the id from the init and result
// lines). Assistant text becomes output; an error result becomes a typed
// fault. Interrupt sends SIGINT to the running CLI.
//
// Options: binary (default "claude"), extra (words added to every call,
// e.g. "--permission-mode acceptEdits").
package claudecode

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/agentproto/agentproto/plugins/adapters/cliturn"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// Version of the adapter.
const Version = "1.0.0"

// Adapter drives claude.
type Adapter struct{}

// Info declares the capabilities the CLI's headless mode supports.
func (Adapter) Info() sdk.Info {
	return sdk.Info{Name: "claude-code", Version: Version,
		Capabilities: []string{sdk.CapMessageInjection, sdk.CapInterrupt, sdk.CapResume, sdk.CapTermination},
		AuthMethods:  []string{"api-key", "subscription"}}
}

type driver struct {
	binary  string
	extra   []string
	model   string
	mu      sync.Mutex
	session string
}

// Start runs the first turn.
func (Adapter) Start(ctx context.Context, req sdk.StartRequest, out sdk.Emitter) (sdk.Session, error) {
	bin, extra, err := cliturn.Binary(req, "claude")
	if err != nil {
		return nil, err
	}
	d := &driver{binary: bin, extra: extra, model: req.Model}
	return cliturn.NewSession(req, out, d)
}

func (d *driver) Command(prompt string, turn int) (string, []string, string, error) {
	args := []string{"-p", prompt, "--output-format", "stream-json", "--verbose"}
	if d.model != "" {
		args = append(args, "--model", d.model)
	}
	d.mu.Lock()
	if turn > 1 && d.session != "" {
		args = append(args, "--resume", d.session)
	}
	d.mu.Unlock()
	return d.binary, append(args, d.extra...), "", nil
}

// line is the part of a stream-json line the adapter reads.
type line struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	SessionID string `json:"session_id"`
	IsError   bool   `json:"is_error"`
	Result    string `json:"result"`
	Message   struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
			Name string `json:"name"`
		} `json:"content"`
	} `json:"message"`
}

func (d *driver) Line(b []byte, out sdk.Emitter) bool {
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		out.Output(append(append([]byte(nil), b...), '\n')) // not JSON: pass it on
		return false
	}
	if l.SessionID != "" {
		d.mu.Lock()
		d.session = l.SessionID
		d.mu.Unlock()
	}
	switch l.Type {
	case "assistant":
		for _, c := range l.Message.Content {
			switch c.Type {
			case "text":
				out.Output([]byte(c.Text + "\n"))
			case "tool_use":
				out.Output([]byte("[tool] " + c.Name + "\n"))
			}
		}
	case "result":
		if l.IsError || (l.Subtype != "" && l.Subtype != "success") {
			msg := l.Result
			if msg == "" {
				msg = "claude ended the turn with " + l.Subtype
			}
			out.Error(msg, sdk.ClassifyFault(msg))
			return true
		}
	}
	return false
}
