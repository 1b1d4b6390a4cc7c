// Package execadapter drives any agent CLI from configuration, so a user can
// plug aider, gemini-cli or a script without writing Go:
//
//	[plugins.aider]
//	path = "/usr/local/bin/agentproto-adapter-exec"
//	options = { command = "aider --yes-always --message-file {prompt}", resume = "--restore-chat-history" }
//
// Options: command (required; {model} is replaced by the model, {prompt}
// by the path of a file holding the prompt, readable by this user only and
// removed when the turn ends; without {prompt} the prompt goes to stdin),
// prompt ("file" or "stdin"; the default follows command), resume (words
// added on turns after the first, also in a new process of the adapter
// that resumes the session), model (words added when a model is
// given, e.g. "--model {model}").
//
// The prompt itself never goes in argv: an option parser reads a leading
// "-" as an option, every local user can read argv, and one argument is
// capped at 128 KiB.
package execadapter

import (
	"context"
	"encoding/json"
	"fmt"
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
	if d.command, err = cliturn.Split(req.Options["command"]); err != nil {
		return nil, sdk.Problemf("options.command: %v", err)
	}
	if len(d.command) == 0 {
		return nil, sdk.Problemf("the exec adapter needs options.command, e.g. \"aider --message-file {prompt}\"")
	}
	if d.resume, err = cliturn.Split(req.Options["resume"]); err != nil {
		return nil, sdk.Problemf("options.resume: %v", err)
	}
	if d.model, err = cliturn.Split(req.Options["model"]); err != nil {
		return nil, sdk.Problemf("options.model: %v", err)
	}
	inArgs := strings.Contains(req.Options["command"], "{prompt}") || strings.Contains(req.Options["resume"], "{prompt}") || strings.Contains(req.Options["model"], "{prompt}")
	switch req.Options["prompt"] {
	case "stdin":
		if inArgs {
			return nil, sdk.Problemf("options.prompt is stdin but the command names {prompt}; drop one")
		}
		d.stdin = true
	case "file":
		if !inArgs {
			return nil, sdk.Problemf("options.prompt is file but the command does not name {prompt}, the file's path")
		}
	case "":
		d.stdin = !inArgs
	case "arg":
		return nil, sdk.Problemf("options.prompt arg is refused: the prompt never goes in argv (a leading - is read as an option, argv is public, one argument is capped at 128 KiB); {prompt} in the command is the path of a private file holding it, or leave {prompt} out to get it on stdin")
	default:
		return nil, sdk.Problemf("options.prompt must be file or stdin, not %q", req.Options["prompt"])
	}
	return cliturn.NewSession(req, out, d)
}

func (d *driver) Command(t *cliturn.Turn) (cliturn.Call, error) {
	vars := map[string]string{"model": d.modelID}
	if d.stdin {
		vars["prompt"] = ""
	} else {
		path, err := t.PromptFile()
		if err != nil {
			return cliturn.Call{}, sdk.Problemf("cannot write the prompt file: %v", err)
		}
		vars["prompt"] = path
	}
	words := cliturn.Expand(d.command, vars)
	if d.modelID != "" {
		words = append(words, cliturn.Expand(d.model, vars)...)
	}
	if t.N > 1 {
		words = append(words, cliturn.Expand(d.resume, vars)...)
	}
	c := cliturn.Call{Name: words[0], Args: words[1:]}
	if d.stdin {
		c.Stdin = t.Prompt
	}
	return c, nil
}

// ResumeState is empty: the turn count cliturn keeps is all a new process
// needs, for the resume words.
func (d *driver) ResumeState() json.RawMessage { return nil }

// Restore takes a state without a part of the driver's.
func (d *driver) Restore(state json.RawMessage) error {
	if state != nil {
		return fmt.Errorf("the exec adapter keeps no state of its own, and this one has %s", state)
	}
	return nil
}

// Line passes output through and classifies provider failures it shows.
func (d *driver) Line(t *cliturn.Turn, line []byte) {
	t.Out.Output(append(append([]byte(nil), line...), '\n'))
	if f := sdk.ClassifyFault(string(line)); f != "" && looksLikeError(string(line)) {
		t.Fault(string(line), f)
	}
}

// looksLikeError keeps ordinary text that merely mentions "billing" or
// "429" from being taken for a provider failure.
func looksLikeError(line string) bool {
	l := strings.ToLower(line)
	return strings.Contains(l, "error") || strings.Contains(l, "failed") || strings.HasPrefix(l, "fatal")
}
