package host

import (
	"fmt"

	"github.com/agentproto/agentproto/plugins/internal/proto"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// EventKind says what a session did.
type EventKind int

// Event kinds. The zero value is no kind: an adapter that sends one the
// host does not know is passed on as it is, never mistaken for another.
const (
	Output      EventKind = iota + 1 // Data holds agent output
	TurnStarted                      // a prompt's turn began
	TurnEnded                        // the turn is over; the session waits
	Error                            // Text says what went wrong; Fault names it
	Exited                           // the agent ended with ExitCode
	// CapabilitiesDeclared: Capabilities is what the session has, within
	// what the adapter's Describe declared; a later one replaces it.
	CapabilitiesDeclared
	// UsageReported: Usage is what the current turn has used so far; a
	// later one of the same turn replaces it.
	UsageReported
	// Resumable: the session can be ended and continued by a new process
	// of its adapter from Text (sdk.Resumable); a turn's start voids it.
	Resumable
)

var kindNames = map[EventKind]string{Output: "output", TurnStarted: "turn_started", TurnEnded: "turn_ended", Error: "error", Exited: "exited",
	CapabilitiesDeclared: "capabilities", UsageReported: "usage", Resumable: "resumable"}

func (k EventKind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Event is one thing a session did, as the host gives it: the wire type
// stays inside the plugin protocol.
type Event struct {
	Seq      uint64 // increases by one per event of a session
	Kind     EventKind
	Data     []byte
	Text     string
	ExitCode int32
	// Fault is a typed cause (sdk.Fault*) or warning (sdk.Warn*).
	Fault     string
	UnixNanos int64
	// Capabilities of a CapabilitiesDeclared event (sdk.Cap*).
	Capabilities []string
	// Usage of a UsageReported event.
	Usage *sdk.Usage
}

// wireKinds maps the protocol's kinds to the host's; the numbers are the
// same today, and this table is what keeps them free to differ.
var wireKinds = map[proto.EventKind]EventKind{
	proto.EventKind_EVENT_KIND_OUTPUT:       Output,
	proto.EventKind_EVENT_KIND_TURN_STARTED: TurnStarted,
	proto.EventKind_EVENT_KIND_TURN_ENDED:   TurnEnded,
	proto.EventKind_EVENT_KIND_ERROR:        Error,
	proto.EventKind_EVENT_KIND_EXITED:       Exited,
	proto.EventKind_EVENT_KIND_CAPABILITIES: CapabilitiesDeclared,
	proto.EventKind_EVENT_KIND_USAGE:        UsageReported,
	proto.EventKind_EVENT_KIND_RESUMABLE:    Resumable,
}

// fromWire converts an event at the host boundary.
func fromWire(e *proto.Event) *Event {
	ev := &Event{Seq: e.Seq, Kind: wireKinds[e.Kind], Data: e.Data, Text: e.Text,
		ExitCode: e.ExitCode, Fault: e.Fault, UnixNanos: e.UnixNanos, Capabilities: e.Capabilities}
	if u := e.Usage; u != nil {
		ev.Usage = &sdk.Usage{Model: u.Model, InputTokens: u.InputTokens, CachedInputTokens: u.CachedInputTokens,
			CacheCreationTokens: u.CacheCreationTokens, OutputTokens: u.OutputTokens, CostUSD: u.CostUsd, HasCost: u.HasCost, Final: u.Final}
	}
	return ev
}
