// Package cliturn runs an agent CLI once per turn — the shape of every
// headless coding agent: start the CLI, give it the prompt, stream what it
// prints, end the turn when it exits, resume the conversation on the next.
// Adapters supply the command line and a parser for its output.
//
// The prompt never goes in argv: an option parser reads a leading "-" as
// an option, every local user can read argv in /proc/PID/cmdline, and one
// argument is capped at 128 KiB. A driver sends it on stdin or names a
// 0600 file the CLI reads (Turn.PromptFile).
package cliturn

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// Call is the process of one turn.
type Call struct {
	Name  string
	Args  []string
	Stdin string // usually the prompt
}

// Driver is what differs between agent CLIs.
type Driver interface {
	// Command returns the process for a turn.
	Command(t *Turn) (Call, error)
	// Line handles one line of the CLI's stdout, reporting through t.
	Line(t *Turn, line []byte)
}

// Ender is a Driver that looks at what the CLI left behind once a turn's
// process has exited, before the turn ends.
type Ender interface {
	End(t *Turn)
}

// interruptGrace is how long a CLI gets to stop after SIGINT.
const interruptGrace = 3 * time.Second

// NewSession makes the session of a Start request and runs its first turn
// when it has an initial prompt. With req.Resume it continues the session
// an earlier process left (resume.go): the prompt runs as the turn after
// the state's last.
func NewSession(req sdk.StartRequest, out sdk.Emitter, d Driver) (*Session, error) {
	s := &Session{Dir: req.Dir, Env: sdk.Environ(req.Env), Driver: d, Out: out}
	if req.Resume != "" {
		if err := s.restore(req.Resume); err != nil {
			return nil, err
		}
	}
	switch {
	case req.InitialPrompt != "":
		if err := s.Start(req.InitialPrompt); err != nil {
			return nil, err
		}
	case req.Resume != "":
		s.announce(s.turn) // still as resumable as it was
	}
	return s, nil
}

// Session runs turns of a Driver.
type Session struct {
	Dir    string
	Env    []string
	Driver Driver
	Out    sdk.Emitter

	mu     sync.Mutex
	turn   int
	cur    *Turn
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
		// The next turn follows at once: the stopped one does not say
		// the session can be resumed.
		if n := s.interrupt(true); strings.TrimSpace(text) == "" {
			s.announce(n)
		}
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
	t := &Turn{N: s.turn, Prompt: prompt, Out: s.Out}
	s.mu.Unlock()
	c, err := s.Driver.Command(t)
	if err != nil {
		t.cleanup()
		return err
	}
	cmd := sdk.Command(s.Dir, s.Env, c.Name, c.Args...)
	if c.Stdin != "" {
		cmd.Stdin = strings.NewReader(c.Stdin)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.cleanup()
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.cleanup()
		return err
	}
	if err := cmd.Start(); err != nil {
		t.cleanup()
		return sdk.Problemf("cannot run %s: %v", c.Name, err)
	}
	done := make(chan struct{})
	s.mu.Lock()
	s.cmd, s.done, s.cur = cmd, done, t
	s.mu.Unlock()
	s.Out.TurnStarted()
	go s.run(t, cmd, stdout, stderr, done)
	return nil
}

func (s *Session) run(t *Turn, cmd *exec.Cmd, stdout, stderr io.Reader, done chan struct{}) {
	var wg sync.WaitGroup
	var errText strings.Builder
	wg.Add(2)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			s.Driver.Line(t, sc.Bytes())
		}
		io.Copy(io.Discard, stdout) // a line over the limit: drain, never block the CLI
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
		io.Copy(io.Discard, stderr)
	}()
	wg.Wait()
	err := cmd.Wait()
	t.cleanup()
	if e, ok := s.Driver.(Ender); ok {
		e.End(t)
	}
	switch {
	case t.Interrupted():
		t.Warn(sdk.WarnInterrupted, fmt.Sprintf("turn %d was interrupted; the session goes on with the next prompt", t.N))
	case err != nil && !t.Faulted():
		msg := fmt.Sprintf("%s: %v", cmd.Path, err)
		if e := strings.TrimSpace(errText.String()); e != "" {
			msg += ": " + e
		}
		t.Fault(msg, sdk.ClassifyFault(errText.String()))
	}
	s.mu.Lock()
	s.cmd, s.done, s.cur = nil, nil, nil
	s.mu.Unlock()
	s.Out.TurnEnded()
	// The turn's process has exited: nothing runs until the next prompt.
	if !t.handedOff() {
		s.announce(t.N)
	}
	close(done)
}

// interrupt stops the running turn: SIGINT, then SIGKILL after a grace,
// to the CLI and all it started. With handoff a prompt takes over at once,
// so the stopped turn does not say the session can be resumed. It returns
// the stopped turn's number (0 when none ran).
func (s *Session) interrupt(handoff bool) int {
	s.mu.Lock()
	cmd, done, t := s.cmd, s.done, s.cur
	s.mu.Unlock()
	if cmd == nil {
		return 0
	}
	t.markInterrupted(handoff)
	signalTree(cmd.Process.Pid, syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(interruptGrace):
		signalTree(cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	return t.N
}

// Terminate stops any turn and ends the session. It is ended from the
// start: no prompt gets in, and the stopped turn does not say the session
// can be resumed.
func (s *Session) Terminate(ctx context.Context) error {
	s.mu.Lock()
	already := s.exited
	s.exited = true
	s.mu.Unlock()
	s.interrupt(false)
	if !already {
		s.Out.Exited(0)
	}
	return nil
}

// Turn is one run of the CLI. Drivers report through it, so that each
// provider error is shown once and an interrupt is not taken for a fault.
type Turn struct {
	N      int
	Prompt string
	Out    sdk.Emitter

	mu          sync.Mutex
	interrupted bool
	handoff     bool // a prompt takes over once it has stopped
	faults      []string
	said        map[string]bool
	promptDir   string
}

// Fault reports a provider error once: a second report with the same text
// or the same fault in this turn is dropped (CLIs print one error as an
// event and again in their final result).
func (t *Turn) Fault(text, fault string) {
	t.mu.Lock()
	if t.interrupted || t.said["e:"+text] || (fault != "" && t.said["f:"+fault]) {
		t.mu.Unlock()
		return
	}
	t.remember("e:"+text, "f:"+fault)
	t.faults = append(t.faults, fault)
	t.mu.Unlock()
	t.Out.Error(text, fault)
}

// Warn reports a typed warning once per text.
func (t *Turn) Warn(kind, text string) {
	t.mu.Lock()
	if t.said["w:"+kind+text] {
		t.mu.Unlock()
		return
	}
	t.remember("w:" + kind + text)
	t.mu.Unlock()
	sdk.Warn(t.Out, kind, text)
}

func (t *Turn) remember(keys ...string) {
	if t.said == nil {
		t.said = map[string]bool{}
	}
	for _, k := range keys {
		t.said[k] = true
	}
}

// Faulted reports whether a fault was reported in this turn.
func (t *Turn) Faulted() bool { t.mu.Lock(); defer t.mu.Unlock(); return len(t.faults) > 0 }

// Interrupted reports whether the turn was stopped by an interrupt.
func (t *Turn) Interrupted() bool { t.mu.Lock(); defer t.mu.Unlock(); return t.interrupted }

func (t *Turn) markInterrupted(handoff bool) {
	t.mu.Lock()
	t.interrupted = true
	t.handoff = t.handoff || handoff
	t.mu.Unlock()
}

func (t *Turn) handedOff() bool { t.mu.Lock(); defer t.mu.Unlock(); return t.handoff }

// PromptFile writes the prompt to a file only this user can read, in a
// fresh private directory, and returns its path; it is removed when the
// turn ends.
func (t *Turn) PromptFile() (string, error) {
	dir, err := os.MkdirTemp("", "agentproto-prompt-")
	if err != nil {
		return "", err
	}
	t.mu.Lock()
	t.promptDir = dir
	t.mu.Unlock()
	path := dir + string(os.PathSeparator) + "prompt.md"
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(t.Prompt); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}

func (t *Turn) cleanup() {
	t.mu.Lock()
	dir := t.promptDir
	t.promptDir = ""
	t.mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
	}
}
