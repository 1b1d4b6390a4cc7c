package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentproto/agentproto/perimeter"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// Session is one ACP session in one agent process.
type Session struct {
	out    sdk.Emitter
	dir    string
	env    []string
	client *client
	// agentReads: the client does not offer fs/read_text_file.
	agentReads bool

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	conn   *acpsdk.ClientSideConnection
	exited chan struct{} // closed when the agent process is gone
	stderr *tail

	id   acpsdk.SessionId
	caps acpsdk.AgentCapabilities
	// ready is closed once the session is open, or failed to (openErr).
	ready   chan struct{}
	openErr error
	// openOnce reports openErr once; step is the setup step under way.
	openOnce sync.Once
	step     string

	mu          sync.Mutex
	turnDone    chan struct{} // non-nil while a turn runs
	interrupted bool
	ended       bool
	// settleUntil: no prompt is sent before it (failSettle).
	settleUntil time.Time
}

// launch starts the agent with pipes for the protocol; its stderr goes to
// the plugin's, where the host keeps a tail.
func (s *Session) launch(argv []string) error {
	env := make([]string, 0, len(s.env))
	for _, kv := range s.env {
		if !strings.HasPrefix(kv, perimeter.Env+"=") {
			env = append(env, kv)
		}
	}
	s.cmd = sdk.Command(s.dir, env, argv[0], argv[1:]...)
	// The protocol runs over the agent's stdin: replace the closed one
	// sdk.Command gives.
	if f, ok := s.cmd.Stdin.(*os.File); ok {
		f.Close()
	}
	s.cmd.Stdin = nil
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	s.stderr = &tail{w: sdk.Stderr}
	s.cmd.Stderr = s.stderr
	// A child the agent leaves behind may hold its stderr open: Wait must
	// still return once the agent itself has exited.
	s.cmd.WaitDelay = exitGrace
	if err := s.cmd.Start(); err != nil {
		return sdk.Problemf("cannot run %s: %v", argv[0], err)
	}
	s.stdin = stdin
	s.exited = make(chan struct{})
	s.conn = acpsdk.NewClientSideConnection(s.client, stdin, stdout)
	s.conn.SetLogger(slog.New(slog.NewTextHandler(sdk.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	go func() {
		err := s.cmd.Wait()
		close(s.exited)
		s.agentGone(err)
	}()
	return nil
}

// open runs initialize and opens (or resumes, loads, forks) the session.
func (s *Session) open(ctx context.Context, req sdk.StartRequest) error {
	s.setStep("initialize")
	init, err := s.conn.Initialize(ctx, acpsdk.InitializeRequest{
		ProtocolVersion: acpsdk.ProtocolVersionNumber,
		ClientInfo:      &acpsdk.Implementation{Name: "agentproto", Version: Version},
		ClientCapabilities: acpsdk.ClientCapabilities{
			Fs:       acpsdk.FileSystemCapabilities{ReadTextFile: !s.agentReads, WriteTextFile: true},
			Terminal: false,
		},
	})
	if err != nil {
		return s.problem("initialize", err)
	}
	if init.ProtocolVersion != acpsdk.ProtocolVersionNumber {
		return sdk.Problemf("the agent speaks ACP version %d; this adapter speaks %d", init.ProtocolVersion, acpsdk.ProtocolVersionNumber)
	}
	s.caps = init.AgentCapabilities
	if m := req.Options["auth_method"]; m != "" {
		if _, err := s.conn.Authenticate(ctx, acpsdk.AuthenticateRequest{MethodId: m}); err != nil {
			return s.problem("authenticate "+m, err)
		}
	}
	s.setStep("session setup")
	models, err := s.openSession(ctx, req)
	if isAuthRequired(err) && req.Options["auth_method"] == "" {
		if m := envAuthMethod(init.AuthMethods, s.env); m != "" {
			if _, aerr := s.conn.Authenticate(ctx, acpsdk.AuthenticateRequest{MethodId: m}); aerr == nil {
				models, err = s.openSession(ctx, req)
			}
		}
	}
	if err != nil {
		if isAuthRequired(err) {
			return s.setupFault("opening the session", fmt.Errorf("the agent asks for authentication: %s; set its key variable or options.auth_method", errText(err)), sdk.FaultAuthFailed)
		}
		return s.problem("opening the session", err)
	}
	if mode := req.Options["mode"]; mode != "" {
		if _, err := s.conn.SetSessionMode(ctx, acpsdk.SetSessionModeRequest{SessionId: s.id, ModeId: acpsdk.SessionModeId(mode)}); err != nil {
			return s.problem("options.mode "+mode, err)
		}
	}
	if req.Model != "" {
		if err := s.setModel(ctx, req.Model, models); err != nil {
			return s.setupFault("setting the model", fmt.Errorf("model %q: %s", req.Model, errText(err)), sdk.FaultInvalidModel)
		}
	}
	s.declare(sessionCapabilities(s.caps))
	name := argvName(s.cmd)
	if init.AgentInfo != nil {
		name = init.AgentInfo.Name + " " + init.AgentInfo.Version
	}
	fmt.Fprintf(sdk.Stderr, "acp: %s, session %s, offers: %s\n", name, s.id, strings.Join(offers(s.caps), ", "))
	return nil
}

// declare tells the host what the session has; a refusal is a bug of
// this adapter, reported where its stderr is kept.
func (s *Session) declare(caps []string) {
	if err := sdk.DeclareCapabilities(s.out, caps); err != nil {
		fmt.Fprintf(sdk.Stderr, "acp: declaring the session's capabilities: %v\n", err)
	}
}

// sessionModels is what session setup says about model choice.
type sessionModels struct {
	models   *acpsdk.SessionModelState
	configID acpsdk.SessionConfigId // a "model" config option, if any
}

func (s *Session) openSession(ctx context.Context, req sdk.StartRequest) (sessionModels, error) {
	sc := s.caps.SessionCapabilities
	var m sessionModels
	switch id := acpsdk.SessionId(req.Options["resume"]); {
	case id != "" && sc.Resume != nil:
		r, err := s.conn.ResumeSession(ctx, acpsdk.ResumeSessionRequest{SessionId: id, Cwd: s.dir, McpServers: []acpsdk.McpServer{}})
		s.id, m = id, sessionModels{models: r.Models, configID: modelConfig(r.ConfigOptions)}
		return m, err
	case id != "" && s.caps.LoadSession:
		r, err := s.conn.LoadSession(ctx, acpsdk.LoadSessionRequest{SessionId: id, Cwd: s.dir, McpServers: []acpsdk.McpServer{}})
		s.id, m = id, sessionModels{models: r.Models, configID: modelConfig(r.ConfigOptions)}
		return m, err
	case id != "":
		return m, sdk.Problemf("options.resume: the agent offers neither session/resume nor session/load")
	}
	if id := acpsdk.SessionId(req.Options["fork"]); id != "" {
		if sc.Fork == nil {
			return m, sdk.Problemf("options.fork: the agent does not offer session/fork")
		}
		r, err := s.conn.UnstableForkSession(ctx, acpsdk.UnstableForkSessionRequest{SessionId: id, Cwd: s.dir, McpServers: []acpsdk.UnstableMcpServer{}})
		s.id = r.SessionId
		// The fork answers with the unstable twins of the model types: the
		// model is chosen the same way (claude-code-acp 0.16.2 lists its
		// models here, and a fork without a model choice failed as
		// invalid_model).
		if r.Models != nil {
			m.models = &acpsdk.SessionModelState{}
		}
		var opts []acpsdk.SessionConfigOption
		if b, jerr := json.Marshal(r.ConfigOptions); jerr == nil && json.Unmarshal(b, &opts) == nil {
			m.configID = modelConfig(opts)
		}
		return m, err
	}
	r, err := s.conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: s.dir, McpServers: []acpsdk.McpServer{}})
	s.id = r.SessionId
	return sessionModels{models: r.Models, configID: modelConfig(r.ConfigOptions)}, err
}

func modelConfig(opts []acpsdk.SessionConfigOption) acpsdk.SessionConfigId {
	for _, o := range opts {
		if o.Select != nil && o.Select.Category != nil && *o.Select.Category == "model" {
			return o.Select.Id
		}
	}
	return ""
}

// setModel chooses the session's model the way the agent offers it: the
// models list (session/set_model) or a "model" config option.
func (s *Session) setModel(ctx context.Context, model string, m sessionModels) error {
	switch {
	case m.models != nil:
		_, err := s.conn.UnstableSetSessionModel(ctx, acpsdk.UnstableSetSessionModelRequest{SessionId: s.id, ModelId: acpsdk.UnstableModelId(model)})
		return err
	case m.configID != "":
		_, err := s.conn.SetSessionConfigOption(ctx, acpsdk.SetSessionConfigOptionRequest{ValueId: &acpsdk.SetSessionConfigOptionValueId{
			SessionId: s.id, ConfigId: m.configID, Value: acpsdk.SessionConfigValueId(model)}})
		return err
	}
	return fmt.Errorf("the agent offers no model choice over ACP; set the model in its own configuration")
}

// agentGone reports an agent that exited on its own.
func (s *Session) agentGone(err error) {
	s.mu.Lock()
	ended := s.ended
	s.ended = true
	s.mu.Unlock()
	if ended {
		return
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	msg := fmt.Sprintf("the agent exited (%v)", err)
	if err == nil {
		msg = "the agent exited"
	}
	if t := s.stderr.String(); t != "" {
		msg += ": " + t
	}
	s.out.Error(msg, classify(s.stderr.String()))
	s.out.Exited(code)
}

// Terminate cancels any turn, closes the agent's stdin (ACP agents exit
// on end of input) and kills it if it stays.
func (s *Session) Terminate(ctx context.Context) error {
	s.mu.Lock()
	done, ended := s.turnDone, s.ended
	s.ended = true
	s.mu.Unlock()
	if ended {
		// Ended by the agent or by a failed start, whose stop may still
		// be waiting out its grace: nothing outlives Terminate.
		if s.exited != nil {
			select {
			case <-s.exited:
			case <-ctx.Done():
			}
		}
		return nil
	}
	if done != nil && isClosed(s.ready) {
		s.conn.Cancel(ctx, acpsdk.CancelNotification{SessionId: s.id})
		select {
		case <-done:
		case <-time.After(exitGrace):
		}
	}
	s.stop()
	s.out.Exited(0)
	return nil
}

// stop ends the agent process.
func (s *Session) stop() {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	left := startedBy(s.cmd.Process.Pid)
	s.stdin.Close()
	select {
	case <-s.exited:
	case <-time.After(exitGrace):
		s.cmd.Process.Kill()
		<-s.exited
	}
	left.kill()
	s.client.files.close()
}

// problem turns a failed setup call into a user-facing problem, with the
// agent's last stderr lines when it died.
func (s *Session) problem(what string, err error) error {
	var p *sdk.Problem
	if errors.As(err, &p) {
		return err
	}
	select {
	case <-s.exited:
		return sdk.Problemf("the agent exited during %s: %s", what, s.stderr.String())
	default:
	}
	return sdk.Problemf("%s: %s", what, errText(err))
}

// setupError is a setup failure whose fault is known from the step that
// failed (authentication, the model), not guessed from its words.
type setupError struct {
	err   error
	fault string
}

func (e *setupError) Error() string { return e.err.Error() }
func (e *setupError) Unwrap() error { return e.err }

// setupFault is problem for a step whose failure has a known fault; an
// agent that died meanwhile is reported by agentGone instead.
func (s *Session) setupFault(what string, err error, fault string) error {
	select {
	case <-s.exited:
		return s.problem(what, err)
	default:
	}
	return &setupError{err: err, fault: fault}
}

// failOpen reports a session that could not be opened, once, and ends it.
func (s *Session) failOpen() {
	s.reportOpen()
	s.mu.Lock()
	ended := s.ended
	s.mu.Unlock()
	if ended {
		return // terminated meanwhile, or the agent died (agentGone said so)
	}
	s.stop()
	s.out.Exited(1)
}
