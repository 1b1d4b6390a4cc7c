package acp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// fakeAgentEnv makes the test binary act as a small ACP agent (the
// helper-process pattern). It proves the adapter's side of the protocol;
// the perimeter claim is shown against real agents in realagents_test.go.
const fakeAgentEnv = "ACP_FAKE_AGENT"

// fakeAgent runs one line of its prompt as a step:
//
//	say TEXT            message text
//	msg ID TEXT         a chunk of message ID ("-": none), no newline added
//	think TEXT          a thought chunk
//	write PATH TEXT     an edit tool call: permission, then fs/write_text_file
//	fswrite PATH TEXT   fs/write_text_file without asking
//	read PATH           fs/read_text_file, the content said back
//	run CMD             an execute tool call asking permission
//	tool KIND JSON      a tool_call notification: that kind, that raw input
//	ask KIND JSON       a permission request for the last tool call (a new
//	                    one if none) with that raw input, no locations, and
//	                    that kind ("-": none), answered "ask ID OPTION"
//	slow                wait for session/cancel
//	fail MESSAGE        end the turn with a JSON-RPC error
//	failearly MS MSG    the same, but the agent's turn goes on for MS
//	                    milliseconds after the answer, and a prompt that
//	                    arrives meanwhile is never answered (codex-acp
//	                    0.16.0 answers on the error event and steers the
//	                    next prompt into the turn still ending)
//	usage IN OUT CACHED the response reports that usage (unstable ACP)
//	cost AMOUNT CUR     a usage_update: that cumulative session cost
//	quota IN OUT MODEL  the response's _meta.quota, as Gemini CLI sends it
//
// Anything else is echoed back as "echo: TEXT".
type fakeAgent struct {
	conn *acpsdk.AgentSideConnection
	mu   sync.Mutex
	stop context.CancelFunc
	n    int
	// endingUntil is when a turn answered early by failearly ends.
	endingUntil time.Time
}

func runFakeAgent() {
	if path := os.Getenv(fakeChildEnv); path != "" {
		// A child that outlives the agent unless something kills it, as
		// an npm launcher's native binary does.
		child := exec.Command("sleep", "300")
		if err := child.Start(); err == nil {
			os.WriteFile(path, []byte(strconv.Itoa(child.Process.Pid)), 0o644)
		}
	}
	a := &fakeAgent{}
	a.conn = acpsdk.NewAgentSideConnection(a, os.Stdout, os.Stdin)
	<-a.conn.Done()
	os.Exit(0)
}

// fakeChildEnv, when set, is a file the fake agent writes the pid of a
// child it leaves running to.
const fakeChildEnv = "ACP_FAKE_CHILD"

// fakeCapsEnv, when set, is the agentCapabilities JSON the fake agent
// answers initialize with (by default it offers session/load).
const fakeCapsEnv = "ACP_FAKE_CAPS"

func (a *fakeAgent) Initialize(context.Context, acpsdk.InitializeRequest) (acpsdk.InitializeResponse, error) {
	caps := acpsdk.AgentCapabilities{LoadSession: true}
	if j := os.Getenv(fakeCapsEnv); j != "" {
		caps = acpsdk.AgentCapabilities{}
		if err := json.Unmarshal([]byte(j), &caps); err != nil {
			return acpsdk.InitializeResponse{}, err
		}
	}
	return acpsdk.InitializeResponse{ProtocolVersion: acpsdk.ProtocolVersionNumber, AgentCapabilities: caps,
		AgentInfo: &acpsdk.Implementation{Name: "fake-agent", Version: "0.0.1"}}, nil
}
func (a *fakeAgent) Authenticate(context.Context, acpsdk.AuthenticateRequest) (acpsdk.AuthenticateResponse, error) {
	return acpsdk.AuthenticateResponse{}, nil
}

// fakeSetupEnv, when set, makes session setup fail: "auth" answers
// session/new "authentication required"; "model" offers one model,
// fake-model, and refuses session/set_model for any other.
const fakeSetupEnv = "ACP_FAKE_SETUP"

func (a *fakeAgent) NewSession(_ context.Context, r acpsdk.NewSessionRequest) (acpsdk.NewSessionResponse, error) {
	switch os.Getenv(fakeSetupEnv) {
	case "auth":
		return acpsdk.NewSessionResponse{}, acpsdk.NewAuthRequired(nil)
	case "model":
		return acpsdk.NewSessionResponse{SessionId: "fake-1", Models: &acpsdk.SessionModelState{
			AvailableModels: []acpsdk.ModelInfo{{ModelId: "fake-model", Name: "Fake"}}, CurrentModelId: "fake-model"}}, nil
	}
	return acpsdk.NewSessionResponse{SessionId: "fake-1"}, nil
}

// UnstableSetSessionModel knows fake-model only, and says so as
// claude-code-acp does.
func (a *fakeAgent) UnstableSetSessionModel(_ context.Context, r acpsdk.UnstableSetSessionModelRequest) (acpsdk.UnstableSetSessionModelResponse, error) {
	if r.ModelId != "fake-model" {
		return acpsdk.UnstableSetSessionModelResponse{}, acpsdk.NewInvalidParams(map[string]any{"details": "model not found: " + string(r.ModelId)})
	}
	return acpsdk.UnstableSetSessionModelResponse{}, nil
}
func (a *fakeAgent) LoadSession(_ context.Context, r acpsdk.LoadSessionRequest) (acpsdk.LoadSessionResponse, error) {
	if r.SessionId != "earlier" {
		return acpsdk.LoadSessionResponse{}, acpsdk.NewInvalidParams("no such session")
	}
	a.conn.SessionUpdate(context.Background(), acpsdk.SessionNotification{SessionId: r.SessionId,
		Update: acpsdk.UpdateAgentMessageText("replayed history\n")})
	// What the session cost before, as an agent says it while loading.
	a.conn.SessionUpdate(context.Background(), acpsdk.SessionNotification{SessionId: r.SessionId, Update: acpsdk.SessionUpdate{UsageUpdate: &acpsdk.SessionUsageUpdate{
		SessionUpdate: "usage_update", Used: 1000, Size: 200000, Cost: &acpsdk.Cost{Amount: 2, Currency: "USD"}}}})
	return acpsdk.LoadSessionResponse{}, nil
}
func (a *fakeAgent) Cancel(context.Context, acpsdk.CancelNotification) error {
	a.mu.Lock()
	if a.stop != nil {
		a.stop()
	}
	a.mu.Unlock()
	return nil
}
func (a *fakeAgent) CloseSession(context.Context, acpsdk.CloseSessionRequest) (acpsdk.CloseSessionResponse, error) {
	return acpsdk.CloseSessionResponse{}, nil
}
func (a *fakeAgent) ListSessions(context.Context, acpsdk.ListSessionsRequest) (acpsdk.ListSessionsResponse, error) {
	return acpsdk.ListSessionsResponse{}, nil
}
func (a *fakeAgent) ResumeSession(context.Context, acpsdk.ResumeSessionRequest) (acpsdk.ResumeSessionResponse, error) {
	return acpsdk.ResumeSessionResponse{}, acpsdk.NewMethodNotFound(acpsdk.AgentMethodSessionResume)
}
func (a *fakeAgent) SetSessionConfigOption(context.Context, acpsdk.SetSessionConfigOptionRequest) (acpsdk.SetSessionConfigOptionResponse, error) {
	return acpsdk.SetSessionConfigOptionResponse{}, nil
}
func (a *fakeAgent) SetSessionMode(context.Context, acpsdk.SetSessionModeRequest) (acpsdk.SetSessionModeResponse, error) {
	return acpsdk.SetSessionModeResponse{}, nil
}

func (a *fakeAgent) say(sid acpsdk.SessionId, text string) {
	a.conn.SessionUpdate(context.Background(), acpsdk.SessionNotification{SessionId: sid, Update: acpsdk.UpdateAgentMessageText(text)})
}

func (a *fakeAgent) Prompt(ctx context.Context, r acpsdk.PromptRequest) (acpsdk.PromptResponse, error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	a.mu.Lock()
	a.stop = stop
	ending := time.Now().Before(a.endingUntil)
	a.mu.Unlock()
	if ending {
		<-ctx.Done()
		return acpsdk.PromptResponse{}, ctx.Err()
	}
	var text strings.Builder
	for _, b := range r.Prompt {
		if b.Text != nil {
			text.WriteString(b.Text.Text)
		}
	}
	if text.String() == sdk.PingPrompt {
		a.say(r.SessionId, "READY")
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonEndTurn}, nil
	}
	var tool acpsdk.ToolCallId // the last tool call, for ask
	var usage *acpsdk.Usage
	var meta map[string]any
	for _, line := range strings.Split(text.String(), "\n") {
		verb, rest, _ := strings.Cut(line, " ")
		arg, body, _ := strings.Cut(rest, " ")
		switch verb {
		case "usage":
			var in, out, cached int
			fmt.Sscan(rest, &in, &out, &cached)
			usage = &acpsdk.Usage{InputTokens: in, OutputTokens: out, CachedReadTokens: &cached, TotalTokens: in + out + cached}
		case "cost":
			var amount float64
			var currency string
			fmt.Sscan(rest, &amount, &currency)
			a.conn.SessionUpdate(ctx, acpsdk.SessionNotification{SessionId: r.SessionId, Update: acpsdk.SessionUpdate{UsageUpdate: &acpsdk.SessionUsageUpdate{
				SessionUpdate: "usage_update", Used: 50000, Size: 200000, Cost: &acpsdk.Cost{Amount: amount, Currency: currency}}}})
		case "quota":
			var in, out int
			var model string
			fmt.Sscan(rest, &in, &out, &model)
			count := map[string]any{"input_tokens": in, "output_tokens": out}
			meta = map[string]any{"quota": map[string]any{"token_count": count,
				"model_usage": []any{map[string]any{"model": model, "token_count": count}}}}
		case "say":
			a.say(r.SessionId, rest+"\n")
		case "msg":
			// A chunk of message arg ("-": no id), no newline added.
			u := acpsdk.UpdateAgentMessageText(body)
			if arg != "-" {
				u.AgentMessageChunk.MessageId = acpsdk.Ptr(arg)
			}
			a.conn.SessionUpdate(ctx, acpsdk.SessionNotification{SessionId: r.SessionId, Update: u})
		case "think":
			a.conn.SessionUpdate(ctx, acpsdk.SessionNotification{SessionId: r.SessionId, Update: acpsdk.UpdateAgentThoughtText(rest)})
		case "write":
			a.n++
			id := acpsdk.ToolCallId(fmt.Sprintf("call-%d", a.n))
			a.conn.SessionUpdate(ctx, acpsdk.SessionNotification{SessionId: r.SessionId, Update: acpsdk.StartEditToolCall(id, "Write "+arg, arg, body)})
			resp, err := a.conn.RequestPermission(ctx, acpsdk.RequestPermissionRequest{SessionId: r.SessionId,
				// Like claude-code-acp: a title and the raw input, no kind
				// (that came with the tool_call notification).
				ToolCall: acpsdk.ToolCallUpdate{ToolCallId: id, Title: acpsdk.Ptr("Write " + arg), RawInput: map[string]any{"file_path": arg, "content": body}},
				Options: []acpsdk.PermissionOption{
					{Kind: acpsdk.PermissionOptionKindAllowAlways, Name: "Always", OptionId: "always"},
					{Kind: acpsdk.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: "allow"},
					{Kind: acpsdk.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: "reject"}}})
			switch {
			case err != nil:
				a.say(r.SessionId, "permission error: "+err.Error()+"\n")
			case resp.Outcome.Selected == nil || resp.Outcome.Selected.OptionId == "reject":
				a.say(r.SessionId, "permission refused for "+arg+"\n")
			default:
				a.say(r.SessionId, "permission "+string(resp.Outcome.Selected.OptionId)+"\n")
				a.write(ctx, r.SessionId, arg, body)
			}
		case "fswrite":
			a.write(ctx, r.SessionId, arg, body)
		case "read":
			resp, err := a.conn.ReadTextFile(ctx, acpsdk.ReadTextFileRequest{SessionId: r.SessionId, Path: arg})
			if err != nil {
				a.say(r.SessionId, "read refused: "+err.Error()+"\n")
			} else {
				a.say(r.SessionId, "content: "+resp.Content+"\n")
			}
		case "run":
			kind := acpsdk.ToolKindExecute
			resp, err := a.conn.RequestPermission(ctx, acpsdk.RequestPermissionRequest{SessionId: r.SessionId,
				ToolCall: acpsdk.ToolCallUpdate{ToolCallId: "run-1", Kind: &kind, Title: acpsdk.Ptr("Bash " + rest)},
				Options: []acpsdk.PermissionOption{{Kind: acpsdk.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: "allow"},
					{Kind: acpsdk.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: "reject"}}})
			if err == nil && resp.Outcome.Selected != nil {
				a.say(r.SessionId, "run "+string(resp.Outcome.Selected.OptionId)+"\n")
			}
		case "tool", "ask":
			var raw map[string]any
			if err := json.Unmarshal([]byte(body), &raw); err != nil {
				a.say(r.SessionId, "bad JSON: "+err.Error()+"\n")
				continue
			}
			kind := acpsdk.ToolKind(arg)
			if verb == "tool" || tool == "" {
				a.n++
				tool = acpsdk.ToolCallId(fmt.Sprintf("tool-%d", a.n))
			}
			if verb == "tool" {
				a.conn.SessionUpdate(ctx, acpsdk.SessionNotification{SessionId: r.SessionId, Update: acpsdk.SessionUpdate{ToolCall: &acpsdk.SessionUpdateToolCall{
					ToolCallId: tool, Title: "Tool " + string(tool), Kind: kind, Status: acpsdk.ToolCallStatusPending, RawInput: raw}}})
				continue
			}
			req := acpsdk.ToolCallUpdate{ToolCallId: tool, Title: acpsdk.Ptr("Ask " + string(tool)), RawInput: raw, Locations: []acpsdk.ToolCallLocation{}}
			if kind != "-" {
				req.Kind = &kind
			}
			resp, err := a.conn.RequestPermission(ctx, acpsdk.RequestPermissionRequest{SessionId: r.SessionId, ToolCall: req,
				Options: []acpsdk.PermissionOption{{Kind: acpsdk.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: "allow"},
					{Kind: acpsdk.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: "reject"}}})
			if err == nil && resp.Outcome.Selected != nil {
				a.say(r.SessionId, "ask "+string(tool)+" "+string(resp.Outcome.Selected.OptionId)+"\n")
			}
			tool = ""
		case "slow":
			a.say(r.SessionId, "working...\n")
			<-ctx.Done()
			return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonCancelled}, nil
		case "failearly":
			ms, _ := strconv.Atoi(arg)
			a.mu.Lock()
			a.endingUntil = time.Now().Add(time.Duration(ms) * time.Millisecond)
			a.mu.Unlock()
			return acpsdk.PromptResponse{}, &acpsdk.RequestError{Code: -32603, Message: "Internal error", Data: map[string]any{"message": body}}
		case "fail":
			return acpsdk.PromptResponse{}, &acpsdk.RequestError{Code: -32603, Message: "Internal error", Data: map[string]any{"details": rest}}
		default:
			a.say(r.SessionId, "echo: "+line+"\n")
		}
	}
	return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonEndTurn, Usage: usage, Meta: meta}, nil
}

func (a *fakeAgent) write(ctx context.Context, sid acpsdk.SessionId, path, body string) {
	if _, err := a.conn.WriteTextFile(ctx, acpsdk.WriteTextFileRequest{SessionId: sid, Path: path, Content: body}); err != nil {
		a.say(sid, "write refused: "+err.Error()+"\n")
		return
	}
	a.say(sid, "wrote "+path+"\n")
}
