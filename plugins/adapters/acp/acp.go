// Package acp makes any agent that speaks the Agent Client Protocol
// (JSON-RPC over the agent's stdio: Gemini CLI, claude-code-acp,
// codex-acp...) an agentproto executor. The adapter is the ACP client: it
// starts the agent, opens one ACP session in the worktree, sends each turn
// as session/prompt and interrupts with session/cancel. It answers the
// agent's permission and file-system requests itself, so a write outside
// the work package's perimeter is refused when it is attempted.
//
// Options: command (the agent and its arguments, required), auth_method
// (an ACP auth method id; by default one whose environment variables are
// set is chosen when the agent asks), resume (an ACP session id to
// continue, through session/resume or session/load), fork (an ACP session
// id to copy, through session/fork), execute ("allow" or "deny": the
// agent's shell tool; by default refused inside a work package's
// perimeter, which a command could write past, and allowed in a plain
// session), mode (an ACP session mode to set, e.g. codex-acp's
// "read-only", under which every edit asks permission), fs_read ("agent"
// leaves file reads to the agent), start_timeout (how long launch,
// initialize and session setup may take; default 60s).
//
// Protocol library: github.com/coder/acp-go-sdk (see docs/adapters.md for
// the comparison that chose it).
package acp

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentproto/agentproto/perimeter"
	"github.com/agentproto/agentproto/plugins/adapters/cliturn"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// Version of the adapter.
const Version = "1.0.0"

const (
	// initTimeout bounds launch + initialize + session setup: node agents
	// load for 1-3 s here; a minute means the agent is not coming up
	// (starting.go). options.start_timeout changes it.
	initTimeout = 60 * time.Second
	// cancelGrace is how long an interrupted turn gets to end after
	// session/cancel before the adapter stops waiting for it.
	cancelGrace = 15 * time.Second
	// cancelRepeat is how often session/cancel is sent again meanwhile.
	cancelRepeat = time.Second
	// failSettle is how long the next prompt waits after a turn that ended
	// in an error: codex-acp 0.16.0 answers session/prompt on the error
	// before its turn has ended, and steers a prompt arriving meanwhile
	// into that ending turn, where it is never answered (measured in CI
	// after a 429: the next turn did not end in 90 s). Errors are rare
	// and a rate limit wants a pause anyway.
	failSettle = time.Second
	// exitGrace is how long the agent gets to exit once its stdin closes.
	exitGrace = 3 * time.Second
)

// Adapter drives an ACP agent.
type Adapter struct{}

// Info declares what a session of an ACP agent may have. What one has
// depends on the agent: each session declares its own set
// (sessionCapabilities) once the agent has answered initialize, and the
// baseline of every ACP agent until then.
func (Adapter) Info() sdk.Info {
	return sdk.Info{Name: "acp", Version: Version, Capabilities: sdk.CanonicalCapabilities(upperBound),
		AuthMethods: []string{"api-key", "subscription"}}
}

var knownOptions = []string{"command", "auth_method", "resume", "fork", "execute", "mode", "fs_read", "start_timeout"}

// Start checks the options, launches the agent and begins opening the
// session (initialize, session/new or resume/load/fork), which the first
// turn waits for.
func (Adapter) Start(ctx context.Context, req sdk.StartRequest, out sdk.Emitter) (sdk.Session, error) {
	for k := range req.Options {
		if !contains(knownOptions, k) {
			return nil, sdk.Problemf("options.%s is not an option of the acp adapter (it has %s)", k, strings.Join(knownOptions, ", "))
		}
	}
	argv, err := cliturn.Split(req.Options["command"])
	if err != nil {
		return nil, sdk.Problemf("options.command: %v", err)
	}
	if len(argv) == 0 {
		return nil, sdk.Problemf("options.command is required: the ACP agent to run, e.g. \"gemini --experimental-acp\"")
	}
	execute := req.Options["execute"]
	if execute != "" && execute != "allow" && execute != "deny" {
		return nil, sdk.Problemf("options.execute is %q; use \"allow\" or \"deny\"", execute)
	}
	// fs_read = "agent" leaves reads to the agent's own file system:
	// Gemini CLI 0.61.0 cannot tell our "Resource not found" from other
	// errors (it reaches its ENOENT check as a plain object), so over
	// fs/read_text_file it can never create a file. Writes still come to
	// us and are held to the perimeter.
	switch req.Options["fs_read"] {
	case "", "client", "agent":
	default:
		return nil, sdk.Problemf("options.fs_read is %q; use \"client\" (reads answered by agentproto, the default) or \"agent\"", req.Options["fs_read"])
	}
	within, err := startTimeout(req.Options["start_timeout"])
	if err != nil {
		return nil, err
	}
	if req.Options["resume"] != "" && req.Options["fork"] != "" {
		return nil, sdk.Problemf("options.resume and options.fork exclude each other")
	}
	env := sdk.Environ(req.Env)
	per, err := NewPerimeter(req.Dir, lookup(env, perimeter.Env))
	if err != nil {
		return nil, sdk.Problemf("%v", err)
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return nil, sdk.Problemf("cannot run %s: %v", argv[0], err)
	}
	f, err := openFiles(per)
	if err != nil {
		return nil, err
	}
	s := &Session{out: out, dir: req.Dir, env: env, agentReads: req.Options["fs_read"] == "agent"}
	s.client = newClient(out, per, f, execute)
	if err := s.launch(argv); err != nil {
		f.close()
		return nil, err
	}
	// Until the agent has said more, the session has what every ACP
	// agent has.
	s.declare(baseline)
	// initialize and session setup take the agent seconds (node agents
	// load for 1-10 s here): they run while Start returns, so a profile
	// check, which starts and terminates a session, stays quick. The first
	// turn waits for them.
	s.ready = make(chan struct{})
	go func() {
		ictx, cancel := context.WithTimeout(context.Background(), within)
		defer cancel()
		s.openErr = s.timedOut(ictx, s.open(ictx, req), within)
		close(s.ready)
		if s.openErr != nil {
			s.failOpen()
		}
	}()
	if req.InitialPrompt != "" {
		s.startTurn(req.InitialPrompt)
	}
	return s, nil
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func isAuthRequired(err error) bool {
	var re *acpsdk.RequestError
	return errors.As(err, &re) && re.Code == -32000
}

// envAuthMethod picks the first env_var auth method whose variables are
// all set.
func envAuthMethod(ms []acpsdk.AuthMethod, env []string) string {
	for _, m := range ms {
		if m.EnvVar == nil {
			continue
		}
		ok := len(m.EnvVar.Vars) > 0
		for _, v := range m.EnvVar.Vars {
			if lookup(env, v.Name) == "" && !v.Optional {
				ok = false
			}
		}
		if ok {
			return m.EnvVar.Id
		}
	}
	return ""
}

func argvName(cmd *exec.Cmd) string {
	if cmd == nil || len(cmd.Args) == 0 {
		return "agent"
	}
	return cmd.Args[0]
}

func lookup(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val // the last one wins, as in exec
		}
	}
	return v
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// tail passes the agent's stderr on and keeps its last lines.
type tail struct {
	w   io.Writer
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.w.Write(p)
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = t.buf[len(t.buf)-tailBytes:]
	}
	t.mu.Unlock()
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
