package daemon

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/plugins/sdk"
	"github.com/agentproto/agentproto/sessions"
)

// live states accept every state: an adapter may start a turn while one
// runs or end one it never started, and either is still news.
var fromLive = []string{sessions.StateRunning, sessions.StateSettled, sessions.StateExited, sessions.StateFailed, sessions.StateCleaned}

// transitions lists the states each state may move to. A terminal state
// moves only to cleaned, when a session is killed or collected; cleaned is
// the end. The first transition records the launch itself.
var transitions = map[string][]string{
	sessions.StateLaunched: append([]string{sessions.StateLaunched}, fromLive...),
	sessions.StateRunning:  fromLive,
	sessions.StateSettled:  fromLive,
	sessions.StateExited:   {sessions.StateCleaned},
	sessions.StateFailed:   {sessions.StateCleaned},
	sessions.StateCleaned:  nil,
}

// canMove reports whether a session in state from may move to state to.
func canMove(from, to string) bool {
	if _, known := transitions[to]; !known {
		return false
	}
	return contains(transitions[from], to)
}

// move applies a transition to r: its state, the count of transitions
// (which names the ledger event) and the reason, when one is given. It
// reports false, changing nothing, for a move the machine does not allow.
func move(r *sessions.Record, to, reason string) bool {
	if !canMove(r.State, to) {
		return false
	}
	r.State = to
	r.Transitions++
	if reason != "" {
		r.Failure = reason
	}
	return true
}

// turn is what the daemon follows of the current turn.
type turn struct {
	output int64
	// told: the adapter already said why this turn ended (a fault, an
	// interrupt), so no output is no sign of anything more.
	told bool
	// interrupted: this turn was interrupted; afterInterrupt: the one
	// before it was, and this turn answers the prompt sent with the
	// interrupt.
	interrupted, afterInterrupt bool
	// usage is the turn's spend (spend.go).
	usage turnUsage
}

// effect is what an event asks of the daemon once applied to a record.
type effect struct {
	to    string   // a state to move to; "" for none
	extra *outcome // more for the transition's ledger event
	note  string   // a line for the session's output log
	end   bool     // the agent exited: end its plugin
	save  bool     // the record changed with no transition: save it
}

// apply folds one adapter event into a session's record and its turn and
// says what follows. Output is counted here and written by the caller.
// stderrTail is asked only when a turn ends empty.
func apply(r *sessions.Record, t *turn, e *host.Event, now time.Time, stderrTail func() string) effect {
	r.LastSeq = e.Seq
	r.LastActivity = now
	switch e.Kind {
	case host.Output:
		r.OutputBytes += int64(len(e.Data))
		t.output += int64(len(e.Data))
	case host.TurnStarted:
		r.Turns++
		*t = turn{afterInterrupt: t.interrupted}
		return effect{to: sessions.StateRunning}
	case host.TurnEnded:
		if t.output > 0 || t.told {
			return effect{to: sessions.StateSettled}
		}
		if t.afterInterrupt {
			// The agent's doing, not the provider's: claude-agent-acp
			// answers the prompt sent with an interrupt with an empty turn
			// while its provider answered (3 of 3). No fault, no fallback.
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: turn %d ended with no output right after the interrupt of turn %d: the agent answered the prompt sent with the interrupt with nothing (not a sign of a dead provider); prompt it again",
				sdk.WarnEmptyAfterInterrupt, r.Turns, r.Turns-1))
			return effect{to: sessions.StateSettled, extra: &outcome{Warning: sdk.WarnEmptyAfterInterrupt}}
		}
		// Every warning starts with its kind, as the typed ones do.
		w := fmt.Sprintf("%s: turn %d ended with no output (the usual sign of a dead provider or a wrong model id)", sdk.FaultEmptyTurn, r.Turns)
		if tail := stderrTail(); tail != "" {
			w += "; adapter stderr: " + tail
		}
		r.Warnings = append(r.Warnings, w)
		r.Faults = append(r.Faults, sdk.FaultEmptyTurn)
		return effect{to: sessions.StateSettled, extra: &outcome{Warning: "empty_turn"}}
	case host.Error:
		if sdk.IsWarning(e.Fault) { // a typed warning, never a fault
			r.Warnings = append(r.Warnings, e.Fault+": "+e.Text)
			t.told = t.told || e.Fault == sdk.WarnInterrupted
			t.interrupted = t.interrupted || e.Fault == sdk.WarnInterrupted
			return effect{note: fmt.Sprintf("\n[agentproto] warning: %s: %s\n", e.Fault, e.Text)}
		}
		if e.Fault != "" {
			r.Warnings = append(r.Warnings, e.Fault+": "+e.Text)
		} else {
			r.Warnings = append(r.Warnings, e.Text)
		}
		if e.Fault != "" {
			r.Faults = append(r.Faults, e.Fault)
			t.told = true
		}
		return effect{note: fmt.Sprintf("\n[agentproto] error: %s\n", e.Text)}
	case host.CapabilitiesDeclared:
		has, beyond := declared(e.Capabilities, r.AdapterCapabilities)
		r.Capabilities, r.CapabilitiesFrom = has, sessions.CapabilitiesFromSession
		if len(beyond) > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("capabilities: the session declared %q, beyond what its adapter declares; not recorded", beyond))
		}
		return effect{save: true}
	case host.Exited:
		code := int(e.ExitCode)
		r.ExitCode = &code
		return effect{to: sessions.StateExited, extra: &outcome{ExitCode: &code}, end: true}
	}
	return effect{}
}

// declared splits what a session declares into what it has, in the
// closed set's order, and what is beyond its adapter's declaration (or
// the closed set), which a plugin cannot grant itself.
func declared(caps, bound []string) (has, beyond []string) {
	for _, c := range caps {
		if !sdk.ValidCapability(c) || !contains(bound, c) {
			beyond = append(beyond, c)
		}
	}
	var within []string
	for _, c := range caps {
		if contains(bound, c) {
			within = append(within, c)
		}
	}
	return sdk.CanonicalCapabilities(within), beyond
}

func orNone(caps []string) string {
	if len(caps) == 0 {
		return "none"
	}
	return strings.Join(caps, ", ")
}
