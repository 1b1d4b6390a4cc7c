// Package cliturn runs an agent CLI once per turn — the shape of every
// headless coding agent: start the CLI with the prompt, stream what it
// prints, end the turn when it exits, resume the conversation on the next.
// Adapters supply the command line and a parser for its output.
package cliturn

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// Driver is what differs between agent CLIs.
type Driver interface {
	// Command returns the process for one turn; turn counts from 1.
	Command(prompt string, turn int) (name string, args []string, stdin string, err error)
	// Line handles one line of the CLI's stdout.
	Line(line []byte, out sdk.Emitter) (faulted bool)
}

// interruptGrace is how long a CLI gets to stop after SIGINT.
const interruptGrace = 3 * time.Second

// NewSession makes the session of a Start request and runs its first turn
// when it has an initial prompt.
func NewSession(req sdk.StartRequest, out sdk.Emitter, d Driver) (*Session, error) {
	s := &Session{Dir: req.Dir, Env: sdk.Environ(req.Env), Driver: d, Out: out}
	if req.InitialPrompt != "" {
		if err := s.Start(req.InitialPrompt); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Binary reads the common options of CLI adapters: binary (the CLI to run,
// default def) and extra (words added to every call).
func Binary(req sdk.StartRequest, def string) (string, []string, error) {
	bin := req.Options["binary"]
	if bin == "" {
		bin = def
	}
	extra, err := Split(req.Options["extra"])
	if err != nil {
		return "", nil, sdk.Problemf("options.extra: %v", err)
	}
	return bin, extra, nil
}

// Session runs turns of a Driver.
type Session struct {
	Dir    string
	Env    []string
	Driver Driver
	Out    sdk.Emitter

	mu     sync.Mutex
	turn   int
	cmd    *exec.Cmd
	done   chan struct{}
	exited bool
}

// Prompt starts a turn; with interrupt it first stops the running one.
func (s *Session) Prompt(ctx context.Context, text string, interrupt bool) error {
	s.mu.Lock()
	busy, exited := s.done != nil, s.exited
	s.mu.Unlock()
	switch {
	case exited:
		return sdk.Problemf("the session has ended")
	case busy && interrupt:
		s.interrupt()
	case busy:
		return sdk.Problemf("a turn is running; send the prompt with interrupt, or wait for the turn to end")
	}
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return s.Start(text)
}

// Start runs one turn in the background.
func (s *Session) Start(prompt string) error {
	s.mu.Lock()
	s.turn++
	turn := s.turn
	s.mu.Unlock()
	name, args, stdin, err := s.Driver.Command(prompt, turn)
	if err != nil {
		return err
	}
	cmd := sdk.Command(s.Dir, s.Env, name, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return sdk.Problemf("cannot run %s: %v", name, err)
	}
	done := make(chan struct{})
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	s.Out.TurnStarted()
	go s.run(cmd, stdout, stderr, done)
	return nil
}

func (s *Session) run(cmd *exec.Cmd, stdout, stderr io.Reader, done chan struct{}) {
	var wg sync.WaitGroup
	faulted := false
	var errText strings.Builder
	wg.Add(2)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			if s.Driver.Line(sc.Bytes(), s.Out) {
				faulted = true
			}
		}
	}()
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(sdk.Stderr, line)
			if errText.Len() < 4096 {
				errText.WriteString(line + "\n")
			}
		}
	}()
	wg.Wait()
	err := cmd.Wait()
	if err != nil && !faulted {
		msg := fmt.Sprintf("%s: %v", cmd.Path, err)
		if t := strings.TrimSpace(errText.String()); t != "" {
			msg += ": " + t
		}
		s.Out.Error(msg, sdk.ClassifyFault(errText.String()))
	}
	s.mu.Lock()
	s.cmd, s.done = nil, nil
	s.mu.Unlock()
	s.Out.TurnEnded()
	close(done)
}

// interrupt stops the running turn: SIGINT, then SIGKILL after a grace.
func (s *Session) interrupt() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(interruptGrace):
		cmd.Process.Kill()
		<-done
	}
}

// Terminate stops any turn and ends the session.
func (s *Session) Terminate(ctx context.Context) error {
	s.interrupt()
	s.mu.Lock()
	already := s.exited
	s.exited = true
	s.mu.Unlock()
	if !already {
		s.Out.Exited(0)
	}
	return nil
}
