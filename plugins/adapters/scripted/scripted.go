// Package scripted is a deterministic fake agent for tests and the demo.
// A prompt carries a fenced agentproto-script block with one JSON step per
// line; the adapter performs the steps in the session's directory.
//
//	```agentproto-script
//	{"op":"write","path":"hello.txt","content":"hi\n"}
//	{"op":"say","text":"wrote hello.txt"}
//	```
//
// Steps: write, append, delete (path, content); run (cmd, via sh -c); say
// (text); sleep (ms); end_turn; exit (code); crash; hang (ignore everything
// from then on, terminate included); spawn (cmd, a long-lived child); fault
// (fault, text: a typed provider error); usage (usage: what the turn
// used so far, as an agent reports it); flood (bytes of output, for
// throughput measurements); report (report: the final report, printed as
// an agentproto-report block). A prompt without a script block
// gets its text echoed back — unless it points to a brief ("Your task is
// your brief: PATH", as plan render writes), whose script block is run.
// Like a prompt-switched agent, it answers "/model NAME" with "Model
// switched to: NAME" (option model_switch = "silent": without it); option
// ping = "empty" or "empty-once" ends pings with no output, appending
// option error_line to the file option error_log names, as agents log the
// provider error they do not print. Option turn_start_delay (a duration)
// starts the turn of each prompt after the first that long after taking
// it, as an adapter on a loaded machine reports the start late. After each
// turn it says a new process can go on with the session (sdk.Resumable),
// unless a spawned child still runs or it hung.
package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentproto/agentproto/internal/lazyre"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// Version of the scripted adapter.
const Version = "1.0.0"

// Adapter is the scripted adapter.
type Adapter struct{}

// Info declares every capability so that supervisor paths can be exercised.
func (Adapter) Info() sdk.Info {
	return sdk.Info{Name: "scripted", Version: Version, Capabilities: sdk.Capabilities,
		Models: []string{"scripted"}, AuthMethods: []string{"none"}}
}

// Start begins a session.
func (Adapter) Start(ctx context.Context, req sdk.StartRequest, out sdk.Emitter) (sdk.Session, error) {
	fi, err := os.Stat(req.Dir)
	if err != nil || !fi.IsDir() {
		return nil, sdk.Problemf("directory %q does not exist", req.Dir)
	}
	var delay time.Duration
	if v := req.Options["turn_start_delay"]; v != "" {
		if delay, err = time.ParseDuration(v); err != nil || delay < 0 {
			return nil, sdk.Problemf("options.turn_start_delay %q is not a duration (such as 7s)", v)
		}
	}
	s := &session{dir: req.Dir, env: sdk.Environ(req.Env), out: out, silentPing: req.Options["ping"] == "silent",
		emptyPings: emptyPings(req.Options["ping"]), switchReply: req.Options["model_switch"],
		errorLog: req.Options["error_log"], errorLine: req.Options["error_line"], startDelay: delay}
	if req.Resume != "" {
		var st resumeState
		if err := json.Unmarshal([]byte(req.Resume), &st); err != nil {
			return nil, sdk.Problemf("the session's resume state %q is not one this adapter wrote: %v", req.Resume, err)
		}
		s.emptyPings = st.EmptyPings
	}
	if req.InitialPrompt != "" {
		s.startTurn(req.InitialPrompt)
	}
	return s, nil
}

// resumeState is what a new process of the adapter needs to go on with a
// session (sdk.Resumable): what is left of the empty pings.
type resumeState struct {
	EmptyPings int `json:"empty_pings"`
}

// resumable says the session can go on in a new process once a turn has
// ended, unless something of it still runs: a spawned child, a hang.
func (s *session) resumable() {
	s.mu.Lock()
	st, idle := resumeState{EmptyPings: s.emptyPings}, len(s.children) == 0 && !s.hung && !s.exited
	s.mu.Unlock()
	if idle {
		b, _ := json.Marshal(st)
		sdk.Resumable(s.out, string(b))
	}
}

type session struct {
	dir string
	env []string
	out sdk.Emitter

	mu       sync.Mutex
	cancel   context.CancelFunc
	turnDone chan struct{}
	hung     bool
	exited   bool
	// silentPing makes the agent fail the liveness ping, for tests of the
	// spawn protocol (option ping = "silent").
	silentPing bool
	// emptyPings: that many pings first end with no output (option ping =
	// "empty" for all, "empty-once" for one), as an agent reloading its
	// model does; errorLine is then appended to the errorLog file, as
	// agents log the provider error they do not print.
	emptyPings          int
	errorLog, errorLine string
	// switchReply answers a "/model NAME" prompt: "" confirms it ("Model
	// switched to: NAME"), "silent" does not.
	switchReply string
	// startDelay is option turn_start_delay.
	startDelay time.Duration
	children   []*exec.Cmd
}

func (s *session) Prompt(ctx context.Context, text string, interrupt bool) error {
	s.mu.Lock()
	hung, exited, busy := s.hung, s.exited, s.turnDone != nil
	s.mu.Unlock()
	switch {
	case hung:
		return nil // ignores everything
	case exited:
		return sdk.Problemf("the session has exited")
	case busy && interrupt:
		s.interrupt()
	case busy:
		return sdk.Problemf("a turn is running; send the prompt with interrupt, or wait for the turn to end")
	}
	if text == "" {
		return nil
	}
	if s.startDelay > 0 {
		go func() {
			time.Sleep(s.startDelay)
			s.startTurn(text)
		}()
		return nil
	}
	s.startTurn(text)
	return nil
}

func (s *session) interrupt() {
	s.mu.Lock()
	cancel, done := s.cancel, s.turnDone
	s.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

func (s *session) startTurn(prompt string) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	s.mu.Lock()
	s.cancel, s.turnDone = cancel, done
	s.mu.Unlock()
	s.out.TurnStarted()
	go func() {
		end := s.run(ctx, prompt)
		s.mu.Lock()
		s.cancel, s.turnDone = nil, nil
		s.mu.Unlock()
		if end {
			s.out.TurnEnded()
			s.resumable()
		}
		close(done)
	}()
}

// briefLine is how a rendered executor prompt points at its brief; the
// scripted agent, like a real one, reads the brief it is pointed to.
var briefLine = lazyre.New(`(?m)^Your task is your brief: (\S+)`)

// modelSwitch is the model switch prompt of prompt-switched agents.
var modelSwitch = lazyre.New(`^/model (\S+)$`)

// emptyPings is how many pings end empty under the ping option.
func emptyPings(opt string) int {
	switch opt {
	case "empty":
		return 1 << 30
	case "empty-once":
		return 1
	}
	return 0
}

// run performs a prompt's steps; it reports whether the turn ends normally.
func (s *session) run(ctx context.Context, prompt string) bool {
	if m := modelSwitch.FindStringSubmatch(prompt); m != nil {
		if s.switchReply == "silent" {
			s.out.Output([]byte("ok\n"))
		} else {
			s.out.Output([]byte("Model switched to: " + m[1] + "\n"))
		}
		return true
	}
	if prompt == sdk.PingPrompt && s.emptyPings > 0 {
		s.emptyPings--
		if s.errorLog != "" && s.errorLine != "" {
			if f, err := os.OpenFile(s.errorLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
				fmt.Fprintln(f, s.errorLine)
				f.Close()
			}
		}
		return true
	}
	if prompt == sdk.PingPrompt {
		if s.silentPing {
			s.out.Output([]byte("thinking about it\n"))
		} else {
			s.out.Output([]byte("READY\n"))
		}
		return true
	}
	steps, found, err := Parse(prompt)
	if !found && err == nil {
		if m := briefLine.FindStringSubmatch(prompt); m != nil {
			if b, rerr := os.ReadFile(m[1]); rerr == nil {
				steps, found, err = Parse(string(b))
			}
		}
	}
	if err != nil {
		// Said as output too: a script that does not parse is the
		// script's fault, not a silent (dead) provider's.
		s.out.Output([]byte("agentproto-script: " + err.Error() + "\n"))
		s.out.Error(err.Error(), "")
		return true
	}
	if !found {
		s.out.Output([]byte("echo: " + prompt + "\n"))
		return true
	}
	for _, st := range steps {
		if ctx.Err() != nil {
			s.out.Output([]byte("interrupted\n"))
			return true
		}
		switch st.Op {
		case "write", "append":
			if err := s.write(st, st.Op == "append"); err != nil {
				s.out.Error(err.Error(), "")
			}
		case "delete":
			if err := os.Remove(s.path(st.Path)); err != nil {
				s.out.Error(err.Error(), "")
			}
		case "run":
			s.runCmd(ctx, st.Cmd)
		case "say":
			s.out.Output([]byte(st.Text + "\n"))
		case "sleep":
			select {
			case <-time.After(time.Duration(st.Ms) * time.Millisecond):
			case <-ctx.Done():
			}
		case "end_turn":
			return true
		case "exit":
			s.mu.Lock()
			s.exited = true
			s.mu.Unlock()
			s.out.TurnEnded()
			s.out.Exited(st.Code)
			return false
		case "crash":
			fmt.Fprintln(sdk.Stderr, "scripted: crashing on purpose")
			os.Exit(3)
		case "hang":
			s.mu.Lock()
			s.hung = true
			s.mu.Unlock()
			select {} // the turn never ends
		case "spawn":
			cmd := sdk.Command(s.dir, s.env, "sh", "-c", st.Cmd)
			if err := cmd.Start(); err != nil {
				s.out.Error(err.Error(), "")
				continue
			}
			s.mu.Lock()
			s.children = append(s.children, cmd)
			s.mu.Unlock()
			s.out.Output([]byte(fmt.Sprintf("spawned pid %d\n", cmd.Process.Pid)))
		case "fault":
			s.out.Error(st.Text, st.Fault)
		case "usage":
			sdk.ReportUsage(s.out, st.Usage.sdk())
		case "report":
			// The final report, fenced as the pipeline reads it.
			s.out.Output([]byte("```agentproto-report\n" + string(st.Report) + "\n```\n"))
		case "flood":
			// Bulk output for throughput measurements: Bytes in 32 KiB chunks.
			chunk := make([]byte, 32<<10)
			for i := range chunk {
				chunk[i] = 'a' + byte(i%26)
			}
			for left := st.Bytes; left > 0 && ctx.Err() == nil; left -= len(chunk) {
				s.out.Output(chunk[:min(len(chunk), left)])
			}
		default:
			s.out.Error(fmt.Sprintf("unknown script op %q", st.Op), "")
		}
	}
	return true
}

// path resolves a script path inside the session directory.
func (s *session) path(p string) string {
	return filepath.Join(s.dir, filepath.Clean("/"+p))
}

func (s *session) write(st Step, appendTo bool) error {
	path := s.path(st.Path)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	flag := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if appendTo {
		flag = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(st.Content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runCmd runs a shell command and streams its output.
func (s *session) runCmd(ctx context.Context, command string) {
	cmd := sdk.Command(s.dir, s.env, "sh", "-c", command)
	w := outWriter{s.out}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		s.out.Error(err.Error(), "")
		return
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			s.out.Error(fmt.Sprintf("%s: %v", command, err), "")
		}
	case <-ctx.Done():
		cmd.Process.Kill()
		<-done
	}
}

type outWriter struct{ out sdk.Emitter }

func (w outWriter) Write(p []byte) (int, error) {
	w.out.Output(p)
	return len(p), nil
}

func (s *session) Terminate(ctx context.Context) error {
	s.mu.Lock()
	hung := s.hung
	s.mu.Unlock()
	if hung {
		select {} // ignores terminate too: the host must kill the group
	}
	s.interrupt()
	s.mu.Lock()
	for _, c := range s.children {
		c.Process.Kill()
	}
	exited := s.exited
	s.exited = true
	s.mu.Unlock()
	if !exited {
		s.out.Exited(0)
	}
	return nil
}
