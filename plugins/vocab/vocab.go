// Package vocab is the vocabulary adapters and hosts share, with no
// transport: capabilities, faults and warnings, what an adapter declares
// (Info), what starts a session (StartRequest), what a turn used (Usage).
// The CLI reads and checks these words without linking the plugin
// transport (go-plugin, gRPC, protobuf), which costs every command
// milliseconds of start-up; adapter authors get them from package sdk,
// which re-exports them unchanged.
package vocab

import "strings"

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
	// idle (see sdk.Resumable); empty for a new session. InitialPrompt is
	// then the next turn's prompt.
	Resume string
}

// MaxResumeBytes bounds a resume state: it is an id or a small cursor,
// kept by the host in the session's record.
const MaxResumeBytes = 4 << 10

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
