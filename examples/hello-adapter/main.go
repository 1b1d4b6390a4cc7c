// Command agentproto-adapter-hello is an example adapter: each prompt runs
// as one shell command in the session directory, and its output is the
// turn's output. A real adapter starts an agent CLI the same way.
package main

import (
	"context"
	"os/exec"
	"sync"

	"github.com/agentproto/agentproto/plugins/sdk"
)

type adapter struct{}

func (adapter) Info() sdk.Info {
	return sdk.Info{Name: "hello", Version: "0.1.0",
		Capabilities: []string{sdk.CapMessageInjection, sdk.CapTermination},
		AuthMethods:  []string{"none"}}
}

func (adapter) Start(ctx context.Context, req sdk.StartRequest, out sdk.Emitter) (sdk.Session, error) {
	s := &session{dir: req.Dir, env: sdk.Environ(req.Env), out: out}
	if req.InitialPrompt != "" {
		s.turn(req.InitialPrompt)
	}
	return s, nil
}

type session struct {
	dir  string
	env  []string
	out  sdk.Emitter
	mu   sync.Mutex
	busy bool
}

// turn runs one prompt in the background and reports it as a turn.
func (s *session) turn(prompt string) {
	s.mu.Lock()
	s.busy = true
	s.mu.Unlock()
	s.out.TurnStarted()
	go func() {
		cmd := sdk.Command(s.dir, s.env, "sh", "-c", prompt)
		b, err := cmd.CombinedOutput()
		s.out.Output(b)
		if ee, ok := err.(*exec.ExitError); ok {
			s.out.Error(ee.Error(), sdk.ClassifyFault(string(b)))
		}
		s.mu.Lock()
		s.busy = false
		s.mu.Unlock()
		s.out.TurnEnded()
	}()
}

func (s *session) Prompt(ctx context.Context, text string, interrupt bool) error {
	s.mu.Lock()
	busy := s.busy
	s.mu.Unlock()
	if busy {
		return sdk.Problemf("a turn is running")
	}
	if interrupt {
		return sdk.Problemf("hello cannot interrupt a turn")
	}
	s.turn(text)
	return nil
}

func (s *session) Terminate(ctx context.Context) error {
	s.out.Exited(0)
	return nil
}

func main() { sdk.Serve(adapter{}) }
