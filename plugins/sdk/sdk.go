// Package sdk is what an adapter author needs to drive an agent CLI from
// agentproto: implement Adapter and Session, call Serve from main. The
// plugin transport (go-plugin, gRPC, handshake) stays hidden.
//
//	func main() { sdk.Serve(myAdapter{}) }
package sdk

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// Capabilities form a closed set; supervisors rely on their exact meaning.
const (
	// CapMessageInjection: Prompt delivers a message into a live session.
	CapMessageInjection = "session_message_injection"
	// CapInterrupt: Prompt with interrupt stops the current turn.
	CapInterrupt = "session_interrupt"
	// CapResume: the conversation outlives the agent process: a later turn
	// or a new session continues it (claude --resume, ACP session/load or
	// session/resume), not only the next prompt of a live session.
	CapResume = "session_resume"
	// CapStateFork: the session's state can be copied into a new session.
	CapStateFork = "session_state_fork"
	// CapWorkspaceTransfer: the session's workspace can move to another.
	CapWorkspaceTransfer = "workspace_state_transfer"
	// CapTermination: Terminate ends the session and all it started.
	CapTermination = "session_termination"
)

// Capabilities lists every capability an adapter may declare.
var Capabilities = []string{CapMessageInjection, CapInterrupt, CapResume, CapStateFork, CapWorkspaceTransfer, CapTermination}

// ValidCapability reports whether c is in the closed set.
func ValidCapability(c string) bool {
	for _, k := range Capabilities {
		if k == c {
			return true
		}
	}
	return false
}

// Faults are the typed provider failures an adapter reports with Error, so
// the host can fall back to another provider instead of guessing from text.
const (
	FaultInsufficientCredits = "insufficient_credits"
	FaultInvalidModel        = "invalid_model"
	FaultAuthFailed          = "auth_failed"
	FaultRateLimited         = "rate_limited"
	FaultProviderUnavailable = "provider_unavailable"
	FaultEmptyTurn           = "empty_turn"
	// FaultAdapterStartTimeout: the agent did not finish starting in time
	// (e.g. it needs a newer Node.js): the agent on this machine, not the
	// provider, so no fallback to another provider follows.
	FaultAdapterStartTimeout = "adapter_start_timeout"
)

// PingPrompt is the liveness check of the spawn protocol: a session must
// answer it with a line that is exactly READY (or READY right after a
// sentence ending another message) before it gets its brief.
const PingPrompt = "Reply with exactly READY and nothing else."

// Info describes an adapter.
type Info struct {
	Name         string
	Version      string
	Capabilities []string
	Models       []string // empty: the adapter cannot say
	AuthMethods  []string // "api-key", "subscription", "none"
}

// StartRequest starts a session.
type StartRequest struct {
	SessionID     string
	Dir           string
	Model         string
	Env           map[string]string
	InitialPrompt string
	Options       map[string]string
	// Resume is the state of the session's last Resumable, when this
	// process continues a session an earlier one of the adapter left
	// idle (see Resumable); empty for a new session. InitialPrompt is
	// then the next turn's prompt.
	Resume string
}

// Adapter drives one kind of agent.
type Adapter interface {
	Info() Info
	// Start begins a session in req.Dir. Events go to out, from any
	// goroutine, until Exited. With an InitialPrompt the first turn starts.
	Start(ctx context.Context, req StartRequest, out Emitter) (Session, error)
}

// Session is one running agent.
type Session interface {
	// Prompt starts a turn with text; with interrupt it first stops the
	// current turn (adapters without CapInterrupt return an error).
	Prompt(ctx context.Context, text string, interrupt bool) error
	// Terminate ends the agent and every process it started.
	Terminate(ctx context.Context) error
}

// Emitter receives what a session does.
type Emitter interface {
	Output(p []byte)
	TurnStarted()
	TurnEnded()
	// Error reports a problem; fault is one of the Fault constants or "".
	Error(text, fault string)
	Exited(code int)
}

// Problem is an error meant for the user (a wrong option, a missing CLI),
// sent back as a diagnostic rather than as a transport failure.
type Problem struct {
	Summary string
	Detail  string
}

func (p *Problem) Error() string {
	if p.Detail == "" {
		return p.Summary
	}
	return p.Summary + ": " + p.Detail
}

// Problemf returns a Problem.
func Problemf(format string, args ...any) error {
	return &Problem{Summary: fmt.Sprintf(format, args...)}
}

// Command prepares an agent CLI the way agentproto expects: in dir, with
// exactly the given environment and an explicit stdin (never the plugin's
// own, which belongs to the plugin transport). It stays in the plugin's
// process group, so the host's group kill reaches it.
func Command(dir string, env []string, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	if devnull, err := os.Open(os.DevNull); err == nil {
		cmd.Stdin = devnull
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	return cmd
}

// Stderr writes straight to the plugin's standard error, which the host
// keeps and shows when a session fails. Unlike os.Stderr after Serve, it is
// not relayed over gRPC, so a line written just before the process dies is
// not lost.
var Stderr io.Writer = os.NewFile(2, "stderr")

// Environ merges the process environment with extra, extra winning.
func Environ(extra map[string]string) []string {
	env := os.Environ()
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return env
}

// SandboxEnv is set, in an adapter's environment, to the sandbox the
// sessions daemon runs it in ("landlock"); unset when it runs unconfined.
const SandboxEnv = "AGENTPROTO_SANDBOX"

// Confined reports whether env says the adapter runs in agentproto's
// sandbox: an agent CLI's own sandbox may not work inside it.
func Confined(env []string) bool {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == SandboxEnv {
			return v != ""
		}
	}
	return false
}
