// Package codex drives the Codex CLI in its headless JSON-lines mode:
// `codex exec --json PROMPT`, resuming later turns with
// `codex exec resume THREAD_ID --json PROMPT` (the id from thread.started).
// Agent messages and command results become output; turn.failed and error
// events become typed faults. Interrupt sends SIGINT to the running CLI.
//
// Options: binary (default "codex"), extra (words added to every call,
// e.g. "--full-auto").
package codex

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/agentproto/agentproto/plugins/adapters/cliturn"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// Version of the adapter.
const Version = "1.0.0"

// Adapter drives codex.
type Adapter struct{}

// Info declares the capabilities of codex exec.
func (Adapter) Info() sdk.Info {
	return sdk.Info{Name: "codex", Version: Version,
		Capabilities: []string{sdk.CapMessageInjection, sdk.CapInterrupt, sdk.CapResume, sdk.CapTermination},
		AuthMethods:  []string{"api-key", "subscription"}}
}

type driver struct {
	binary string
	extra  []string
	model  string
	mu     sync.Mutex
	thread string
}

// Start runs the first turn.
func (Adapter) Start(ctx context.Context, req sdk.StartRequest, out sdk.Emitter) (sdk.Session, error) {
	bin, extra, err := cliturn.Binary(req, "codex")
	if err != nil {
		return nil, err
	}
	d := &driver{binary: bin, extra: extra, model: req.Model}
	return cliturn.NewSession(req, out, d)
}

func (d *driver) Command(prompt string, turn int) (string, []string, string, error) {
	args := []string{"exec"}
	d.mu.Lock()
	if turn > 1 && d.thread != "" {
		args = append(args, "resume", d.thread)
	}
	d.mu.Unlock()
	args = append(args, "--json")
	if d.model != "" {
		args = append(args, "-m", d.model)
	}
	args = append(args, d.extra...)
	return d.binary, append(args, prompt), "", nil
}

type event struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	Message  string `json:"message"`
	Error    *struct {
		Message string `json:"message"`
	} `json:"error"`
	Item *struct {
		Type             string `json:"type"`
		Text             string `json:"text"`
		Command          string `json:"command"`
		AggregatedOutput string `json:"aggregated_output"`
		ExitCode         *int   `json:"exit_code"`
	} `json:"item"`
}

func (d *driver) Line(b []byte, out sdk.Emitter) bool {
	var e event
	if err := json.Unmarshal(b, &e); err != nil {
		out.Output(append(append([]byte(nil), b...), '\n'))
		return false
	}
	switch e.Type {
	case "thread.started":
		d.mu.Lock()
		d.thread = e.ThreadID
		d.mu.Unlock()
	case "item.completed":
		if e.Item == nil {
			return false
		}
		switch e.Item.Type {
		case "agent_message":
			out.Output([]byte(e.Item.Text + "\n"))
		case "command_execution":
			out.Output([]byte("$ " + e.Item.Command + "\n" + e.Item.AggregatedOutput))
		}
	case "turn.failed", "error":
		msg := e.Message
		if e.Error != nil {
			msg = e.Error.Message
		}
		out.Error(msg, sdk.ClassifyFault(msg))
		return true
	}
	return false
}
