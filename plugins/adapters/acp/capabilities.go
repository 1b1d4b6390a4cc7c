package acp

import (
	"sort"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// baseline is what a session of every ACP agent has. The ACP schema
// (SessionCapabilities): "all Agents MUST support session/new,
// session/prompt, session/cancel, and session/update" — a prompt goes into
// the live session, session/cancel interrupts its turn — and the adapter
// ends the agent and what it started itself.
var baseline = []string{sdk.CapMessageInjection, sdk.CapInterrupt, sdk.CapTermination}

// upperBound is what the adapter declares in Info: what a session may have
// once its agent says so.
var upperBound = append([]string{sdk.CapResume, sdk.CapStateFork}, baseline...)

// sessionCapabilities maps what the agent's initialize answer says onto
// the closed set:
//
//   - session_resume: loadSession or sessionCapabilities.resume, the two
//     ways a later session continues this one's conversation (the resume
//     option uses them);
//   - session_state_fork: sessionCapabilities.fork (unstable in ACP), which
//     copies the conversation into a new session (the fork option);
//   - workspace_state_transfer: never; ACP has no such method, and the
//     workspace is the worktree, not the agent's.
//
// What ACP offers beyond the closed set (session/list, session/close,
// prompt content types, MCP transports) is not a capability of agentproto.
func sessionCapabilities(c acpsdk.AgentCapabilities) []string {
	caps := append([]string(nil), baseline...)
	if c.LoadSession || c.SessionCapabilities.Resume != nil {
		caps = append(caps, sdk.CapResume)
	}
	if c.SessionCapabilities.Fork != nil {
		caps = append(caps, sdk.CapStateFork)
	}
	return sdk.CanonicalCapabilities(caps)
}

// offers names the session methods the agent offers beyond the baseline,
// as ACP names them, for the line the adapter writes when a session opens.
func offers(c acpsdk.AgentCapabilities) []string {
	var o []string
	if c.LoadSession {
		o = append(o, "load")
	}
	sc := c.SessionCapabilities
	if sc.Resume != nil {
		o = append(o, "resume")
	}
	if sc.Fork != nil {
		o = append(o, "fork")
	}
	if sc.List != nil {
		o = append(o, "list")
	}
	if len(o) == 0 {
		o = append(o, "new sessions only")
	}
	sort.Strings(o)
	return o
}
