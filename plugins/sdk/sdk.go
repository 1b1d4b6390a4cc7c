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
	"syscall"
)

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
