// Package execadapter drives any agent CLI from configuration, so a user can
// plug aider, gemini-cli or a script without writing Go:
//
//	[plugins.aider]
//	path = "/usr/local/bin/agentproto-adapter-exec"
//	options = { command = "aider --yes-always --message {prompt}", resume = "--restore-chat-history" }
//
// Options: command (required; {prompt} and {model} are replaced; without
// {prompt} the prompt goes to stdin), prompt ("arg" or "stdin"), resume
// (words added on turns after the first), model (words added when a model
// is given, e.g. "--model {model}").
package execadapter

import (
	"context"
	"strings"

	"github.com/agentproto/agentproto/plugins/adapters/cliturn"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// Version of the exec adapter.
const Version = "1.0.0"

// Adapter is the exec adapter.
type Adapter struct{}

// Info declares what a per-turn CLI can do.
func (Adapter) Info() sdk.Info {
	return sdk.Info{Name: "exec", Version: Version,
		Capabilities: []string{sdk.CapMessageInjection, sdk.CapInterrupt, sdk.CapResume, sdk.CapTermination},
		AuthMethods:  []string{"api-key", "subscription", "none"}}
}

type driver struct {
	command, resume, model []string
	stdin                  bool
	modelID                string
}

// Start checks the options and runs the first turn.
func (Adapter) Start(ctx context.Context, req sdk.StartRequest, out sdk.Emitter) (sdk.Session, error) {
	d := &driver{modelID: req.Model}
	var err error
	if d.command, err = cliturn.Split(req.Options["command"]); err != nil || len(d.command) == 0 {
		return nil, sdk.Problemf("the exec adapter needs options.command, e.g. \"aider --message {prompt}\" (%v)", err)
	}
	if d.resume, err = cliturn.Split(req.Options["resume"]); err != nil {
		return nil, sdk.Problemf("options.resume: %v", err)
	}
	if d.model, err = cliturn.Split(req.Options["model"]); err != nil {
		return nil, sdk.Problemf("options.model: %v", err)
	}
	switch req.Options["prompt"] {
	case "stdin":
		d.stdin = true
	case "", "arg":
		d.stdin = !strings.Contains(req.Options["command"], "{prompt}")
	default:
		return nil, sdk.Problemf("options.prompt must be arg or stdin, not %q", req.Options["prompt"])
	}
	return cliturn.NewSession(req, out, d)
}

func (d *driver) Command(prompt string, turn int) (string, []string, string, error) {
	vars := map[string]string{"prompt": prompt, "model": d.modelID}
	words := cliturn.Expand(d.command, vars)
	if d.modelID != "" {
		words = append(words, cliturn.Expand(d.model, vars)...)
	}
	if turn > 1 {
		words = append(words, cliturn.Expand(d.resume, vars)...)
	}
	stdin := ""
	if d.stdin {
		stdin = prompt
	}
	return words[0], words[1:], stdin, nil
}

// Line passes output through and classifies provider failures it shows.
func (d *driver) Line(line []byte, out sdk.Emitter) bool {
	out.Output(append(append([]byte(nil), line...), '\n'))
	if f := sdk.ClassifyFault(string(line)); f != "" && looksLikeError(string(line)) {
		out.Error(string(line), f)
		return true
	}
	return false
}

// looksLikeError keeps ordinary text that merely mentions "billing" or
// "429" from being taken for a provider failure.
func looksLikeError(line string) bool {
	l := strings.ToLower(line)
	return strings.Contains(l, "error") || strings.Contains(l, "failed") || strings.HasPrefix(l, "fatal")
}
