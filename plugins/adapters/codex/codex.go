// Package codex drives the Codex CLI in its headless JSON-lines mode:
// `codex exec --json -c sandbox_mode=MODE -` with the prompt on stdin,
// resuming later turns with `codex exec resume --json ... THREAD_ID -`
// (the id from thread.started), in this process or, after a turn, in a
// new one the session is resumed in (resume.go). Agent messages and
// command results become output; error events become typed faults,
// reconnect notices progress warnings, writes the sandbox refused
// permission_denied warnings.
//
// Options: binary (default "codex"), sandbox (read-only, workspace-write
// or danger-full-access; default workspace-write, applied on every turn as
// -c sandbox_mode, the one form both exec and exec resume accept; inside
// agentproto's own sandbox the default is danger-full-access, as codex's
// sandbox cannot set up its user namespace there and ours holds), extra
// (words added to every call), extra_first (words added to the first call
// only, for flags exec resume rejects).
package codex

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/agentproto/agentproto/plugins/adapters/cliturn"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// Version of the adapter.
const Version = "1.1.0"

// Adapter drives codex.
type Adapter struct{}

// Info declares the capabilities of codex exec.
func (Adapter) Info() sdk.Info {
	return sdk.Info{Name: "codex", Version: Version,
		Capabilities: []string{sdk.CapMessageInjection, sdk.CapInterrupt, sdk.CapResume, sdk.CapTermination},
		AuthMethods:  []string{"api-key", "subscription"}}
}

// Sandboxes are the values of codex's sandbox_mode.
var Sandboxes = []string{"read-only", "workspace-write", "danger-full-access"}

// owned are flags the adapter sets itself.
var owned = map[string]string{
	"--json": "is set by the adapter", "-m": "belongs in the profile's model", "--model": "belongs in the profile's model",
	"-s": "belongs in options.sandbox", "--sandbox": "belongs in options.sandbox",
	"--last": "would resume another session", "resume": "is added by the adapter", "exec": "is added by the adapter",
}

// execOnly are flags of codex 0.169 `exec` that `exec resume` rejects.
var execOnly = map[string]string{
	"-C": "is rejected by codex exec resume; put it in extra_first", "--cd": "is rejected by codex exec resume; put it in extra_first",
	"--add-dir": "is rejected by codex exec resume; put it in extra_first", "--color": "is rejected by codex exec resume; put it in extra_first",
	"--oss": "is rejected by codex exec resume; put it in extra_first", "--local-provider": "is rejected by codex exec resume; put it in extra_first",
	"-p": "is rejected by codex exec resume; put it in extra_first", "--profile": "is rejected by codex exec resume; put it in extra_first",
	"--approve-for-me": "is rejected by codex exec resume; put it in extra_first",
	"--full-auto":      "does not exist in codex 0.169; use options.sandbox",
}

type driver struct {
	opts    cliturn.Options
	sandbox string
	outer   bool // confined by agentproto's sandbox
	model   string

	home string // codex's state directory, for its rollouts

	mu         sync.Mutex
	thread     string
	rolloutOff map[string]int64 // how far each thread's rollout has been read
	// count is the thread's usage at its last turn.completed (usage.go).
	count       usage
	countThread string
}

// Start checks the options and runs the first turn.
func (Adapter) Start(ctx context.Context, req sdk.StartRequest, out sdk.Emitter) (sdk.Session, error) {
	o, err := cliturn.ReadOptions(req, "codex")
	if err != nil {
		return nil, err
	}
	for _, c := range []struct {
		where  string
		words  []string
		banned map[string]string
	}{{"extra", o.Extra, owned}, {"extra", o.Extra, execOnly}, {"extra_first", o.First, owned}} {
		if err := cliturn.Refuse(c.where, c.words, c.banned); err != nil {
			return nil, err
		}
	}
	env := sdk.Environ(req.Env)
	outer := sdk.Confined(env)
	sb := req.Options["sandbox"]
	switch {
	case sb != "":
	case outer:
		// codex's sandbox needs a user namespace and its uid map,
		// which a process confined by ours cannot write: ours holds
		// the perimeter instead.
		sb = "danger-full-access"
	default:
		sb = "workspace-write"
	}
	if !contains(Sandboxes, sb) {
		return nil, sdk.Problemf("options.sandbox %q is not one of %s", sb, strings.Join(Sandboxes, ", "))
	}
	d := &driver{opts: o, sandbox: sb, outer: outer, model: req.Model, home: codexHome(env), rolloutOff: map[string]int64{}}
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
	d.mu.Lock()
	thread := d.thread
	d.mu.Unlock()
	resume := t.N > 1 && thread != ""
	args := []string{"exec"}
	if resume {
		args = append(args, "resume")
	}
	args = append(args, "--json", "-c", `sandbox_mode="`+d.sandbox+`"`)
	if d.model != "" {
		args = append(args, "-m", d.model)
	}
	if t.N == 1 {
		args = append(args, d.opts.First...)
	}
	args = append(args, d.opts.Extra...)
	if resume {
		args = append(args, thread)
	}
	// "-" reads the prompt from stdin, in exec and exec resume alike.
	return cliturn.Call{Name: d.opts.Binary, Args: append(args, "-"), Stdin: t.Prompt}, nil
}

type event struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	Message  string `json:"message"`
	Error    *struct {
		Message string `json:"message"`
	} `json:"error"`
	Usage *usage `json:"usage"` // turn.completed
	Item  *struct {
		Type             string `json:"type"`
		Text             string `json:"text"`
		Message          string `json:"message"`
		Command          string `json:"command"`
		AggregatedOutput string `json:"aggregated_output"`
		ExitCode         *int   `json:"exit_code"`
		Status           string `json:"status"`
		Changes          []struct {
			Path string `json:"path"`
			Kind string `json:"kind"`
		} `json:"changes"`
	} `json:"item"`
}

// reconnecting is codex's notice while it retries a stream.
var reconnecting = regexp.MustCompile(`^Reconnecting\.\.\. [0-9]+/[0-9]+`)

// refusedWrite finds a path the sandbox refused in a shell's message:
// "bash: line 1: /x/y: Read-only file system".
var refusedWrite = regexp.MustCompile(`(?m)(?:^|: )([^:\n]+): (?:Read-only file system|Permission denied|Operation not permitted)`)

func (d *driver) Line(t *cliturn.Turn, b []byte) {
	var e event
	if err := json.Unmarshal(b, &e); err != nil {
		t.Out.Output(append(append([]byte(nil), b...), '\n'))
		return
	}
	switch e.Type {
	case "thread.started":
		if cliturn.SafeID(e.ThreadID) {
			d.mu.Lock()
			d.thread = e.ThreadID
			d.mu.Unlock()
		}
	case "item.completed":
		if e.Item != nil {
			d.item(t, e)
		}
	case "error":
		if reconnecting.MatchString(e.Message) {
			t.Warn(sdk.WarnRetrying, "codex retries a provider error: "+e.Message)
			return
		}
		t.Fault(e.Message, sdk.ClassifyFault(e.Message))
	case "turn.completed":
		if e.Usage != nil {
			sdk.ReportUsage(t.Out, d.turnUsage(*e.Usage))
		}
	case "turn.failed":
		msg := e.Message
		if e.Error != nil {
			msg = e.Error.Message
		}
		t.Fault(msg, sdk.ClassifyFault(msg))
	}
}

func (d *driver) item(t *cliturn.Turn, e event) {
	it := e.Item
	switch it.Type {
	case "agent_message":
		t.Out.Output([]byte(it.Text + "\n"))
	case "command_execution":
		t.Out.Output([]byte("$ " + it.Command + "\n" + it.AggregatedOutput))
		// Looked for whatever the exit status: a script goes on after a
		// refused write and may end 0.
		d.refused(t, it.AggregatedOutput)
	case "file_change":
		for _, c := range it.Changes {
			t.Out.Output([]byte("[" + c.Kind + "] " + c.Path + "\n"))
		}
		if it.Status == "failed" {
			for _, c := range it.Changes {
				t.Warn(sdk.WarnPermissionDenied, "apply_patch "+c.Path+": the change was refused ("+d.refuser()+")")
			}
		}
	case "error":
		// A non-fatal notice (e.g. unknown model metadata): show it, it is
		// not a provider failure.
		t.Out.Output([]byte("[codex] " + it.Message + "\n"))
	}
}

// refuser names what refuses a write: codex's sandbox, or ours around it.
func (d *driver) refuser() string {
	if d.ours() {
		return "the agentproto sandbox"
	}
	return d.sandbox + " sandbox"
}

// ours: agentproto's sandbox alone holds the agent's writes.
func (d *driver) ours() bool { return d.outer && d.sandbox == "danger-full-access" }
