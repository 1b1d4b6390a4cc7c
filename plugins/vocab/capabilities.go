package vocab

import "slices"

// Capabilities form a closed set; supervisors rely on their exact meaning.
const (
	// CapMessageInjection: Prompt delivers a message into a live session.
	CapMessageInjection = "session_message_injection"
	// CapInterrupt: Prompt with interrupt stops the current turn.
	CapInterrupt = "session_interrupt"
	// CapResume: the conversation outlives the agent process: a later turn
	// or a new session continues it (claude --resume, ACP session/load or
	// session/resume), not only the next prompt of a live session.
	CapResume = "session_resume"
	// CapStateFork: the session's state can be copied into a new session.
	CapStateFork = "session_state_fork"
	// CapWorkspaceTransfer: the session's workspace can move to another.
	CapWorkspaceTransfer = "workspace_state_transfer"
	// CapTermination: Terminate ends the session and all it started.
	CapTermination = "session_termination"
)

// Capabilities lists every capability an adapter may declare.
var Capabilities = []string{CapMessageInjection, CapInterrupt, CapResume, CapStateFork, CapWorkspaceTransfer, CapTermination}

// ValidCapability reports whether c is in the closed set.
func ValidCapability(c string) bool {
	return slices.Contains(Capabilities, c)
}

// CanonicalCapabilities returns the members of the closed set that caps
// names, in the order of Capabilities, each once; anything else is left
// out. It never returns nil, so "declared none" stays apart from "not
// declared".
func CanonicalCapabilities(caps []string) []string {
	out := []string{}
	for _, c := range Capabilities {
		if slices.Contains(caps, c) {
			out = append(out, c)
		}
	}
	return out
}
