// Command acpagent is a small ACP agent for the sessions tests: its
// initialize answer offers the agentCapabilities JSON given as its one
// argument, and each prompt is echoed back as the turn's text.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"
)

type agent struct {
	conn *acpsdk.AgentSideConnection
	caps acpsdk.AgentCapabilities
}

func main() {
	a := &agent{}
	if len(os.Args) > 1 {
		if err := json.Unmarshal([]byte(os.Args[1]), &a.caps); err != nil {
			fmt.Fprintln(os.Stderr, "acpagent:", err)
			os.Exit(2)
		}
	}
	a.conn = acpsdk.NewAgentSideConnection(a, os.Stdout, os.Stdin)
	<-a.conn.Done()
}

func (a *agent) Initialize(context.Context, acpsdk.InitializeRequest) (acpsdk.InitializeResponse, error) {
	return acpsdk.InitializeResponse{ProtocolVersion: acpsdk.ProtocolVersionNumber, AgentCapabilities: a.caps,
		AgentInfo: &acpsdk.Implementation{Name: "acpagent", Version: "0.0.1"}}, nil
}

func (a *agent) NewSession(context.Context, acpsdk.NewSessionRequest) (acpsdk.NewSessionResponse, error) {
	return acpsdk.NewSessionResponse{SessionId: "acpagent-1"}, nil
}

func (a *agent) Prompt(ctx context.Context, r acpsdk.PromptRequest) (acpsdk.PromptResponse, error) {
	var text strings.Builder
	for _, b := range r.Prompt {
		if b.Text != nil {
			text.WriteString(b.Text.Text)
		}
	}
	reply := "echo: " + text.String() + "\n"
	if text.String() == "Reply with exactly READY and nothing else." {
		reply = "READY\n"
	}
	err := a.conn.SessionUpdate(ctx, acpsdk.SessionNotification{SessionId: r.SessionId, Update: acpsdk.UpdateAgentMessageText(reply)})
	return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonEndTurn}, err
}

func (a *agent) Cancel(context.Context, acpsdk.CancelNotification) error { return nil }

func (a *agent) Authenticate(context.Context, acpsdk.AuthenticateRequest) (acpsdk.AuthenticateResponse, error) {
	return acpsdk.AuthenticateResponse{}, nil
}

func (a *agent) CloseSession(context.Context, acpsdk.CloseSessionRequest) (acpsdk.CloseSessionResponse, error) {
	return acpsdk.CloseSessionResponse{}, nil
}

func (a *agent) ListSessions(context.Context, acpsdk.ListSessionsRequest) (acpsdk.ListSessionsResponse, error) {
	return acpsdk.ListSessionsResponse{}, nil
}

func (a *agent) ResumeSession(context.Context, acpsdk.ResumeSessionRequest) (acpsdk.ResumeSessionResponse, error) {
	return acpsdk.ResumeSessionResponse{}, acpsdk.NewMethodNotFound(acpsdk.AgentMethodSessionResume)
}

func (a *agent) SetSessionConfigOption(context.Context, acpsdk.SetSessionConfigOptionRequest) (acpsdk.SetSessionConfigOptionResponse, error) {
	return acpsdk.SetSessionConfigOptionResponse{}, nil
}

func (a *agent) SetSessionMode(context.Context, acpsdk.SetSessionModeRequest) (acpsdk.SetSessionModeResponse, error) {
	return acpsdk.SetSessionModeResponse{}, nil
}
