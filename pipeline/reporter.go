package pipeline

import (
	"io"

	"github.com/agentproto/agentproto/profiles"
	"github.com/agentproto/agentproto/sessions"
)

// Reporter is told what dispatch and Run do while they do it. The CLI
// prints it; another front end forwards it as progress. Calls come from
// one goroutine at a time.
type Reporter interface {
	// Step begins a step of Run: "dispatch and verify", "checkpoint"…
	Step(name string)
	// Event is one thing that happened to a work package (wp is "" for the
	// plan as a whole): what is a short word ("worktree", "session",
	// "verify", "fallback"), detail the rest of the line.
	Event(wp, what, detail string)
	// Sessions is the state of the sessions a wave waits for, each time it
	// is looked at (about three times a second, and once at the end).
	Sessions(wave []SessionStatus)
	// Preflight is the check of every profile the plan may use, given when
	// one of them has a problem and dispatch stops.
	Preflight(results []profiles.Result)
	// Result is the outcome of one step of Run: a *Checkpoint, a
	// *Consolidation, a *ReviewResult, an *E2EResult, or a *PROutcome.
	Result(v any)
	// Output is where the commands run on the user's behalf while
	// dispatching (setup hooks, copied files) write.
	Output() io.Writer
}

// SessionStatus is one session of a wave, as the store last saw it.
type SessionStatus struct {
	WP     string
	Record *sessions.Record
}

// Discard is a Reporter that reports nothing.
var Discard Reporter = discard{}

type discard struct{}

func (discard) Step(string)                  {}
func (discard) Event(string, string, string) {}
func (discard) Sessions([]SessionStatus)     {}
func (discard) Preflight([]profiles.Result)  {}
func (discard) Result(any)                   {}
func (discard) Output() io.Writer            { return io.Discard }
