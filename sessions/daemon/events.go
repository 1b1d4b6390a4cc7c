package daemon

import (
	"fmt"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/sessions"
)

// Ledger event kinds the sessions daemon records. Each state of the
// lifecycle is a kind of its own, session_<state>, with one payload.
const (
	KindSpawn     = "session_spawn"
	KindDiagnosed = "session_diagnosed"
	KindWedged    = "session_wedged"
	KindPolicy    = "policy_fired"
)

// TransitionKind is the kind of the event a move to state records.
func TransitionKind(state string) string { return "session_" + state }

// owner records the sessions kinds; no other package can, and a user's
// ledger append is refused them.
var owner = gitstore.NewOwner("sessions")

// The typed kinds. Transitions and policy firings carry what agents and
// commands printed (a failure's reason, stderr, an action's output), so
// secrets in them are scrubbed; the others hold only names and counts.
var (
	transitionKinds = declareTransitions()
	spawnKind       = gitstore.Declare[Spawn](owner, KindSpawn)
	diagnosedKind   = gitstore.Declare[Diagnosis](owner, KindDiagnosed)
	wedgedKind      = gitstore.Declare[Wedged](owner, KindWedged)
	policyKind      = gitstore.Declare[PolicyFired](owner, KindPolicy, gitstore.Scrubbed())
)

func declareTransitions() map[string]gitstore.Kind[Transition] {
	m := map[string]gitstore.Kind[Transition]{}
	for state := range transitions {
		m[state] = gitstore.Declare[Transition](owner, TransitionKind(state), gitstore.Scrubbed())
	}
	return m
}

// Transition is the data of a session_<state> event.
type Transition struct {
	Session    string `json:"session"`
	Adapter    string `json:"adapter"`
	Model      string `json:"model"`
	Dir        string `json:"dir"`
	Worktree   string `json:"worktree"`
	Label      string `json:"label"`
	Turn       int    `json:"turn"`
	OutputRef  string `json:"output_ref"`
	Reason     string `json:"reason,omitempty"`
	StderrTail string `json:"stderr_tail,omitempty"`
	// Capabilities the session has, and whether its agent declared them
	// ("session") or they are its adapter's bound ("adapter").
	Capabilities     []string `json:"capabilities,omitempty"`
	CapabilitiesFrom string   `json:"capabilities_from,omitempty"`
	outcome
}

// outcome is what a transition says beyond the session itself: how the
// agent exited, or what was wrong with the turn that just ended.
type outcome struct {
	ExitCode *int `json:"exit_code,omitempty"`
	// Warning is empty_turn for a turn that ended with no output.
	Warning string `json:"warning,omitempty"`
	// Fault and ErrorLogRef: what the agent's error log says of it, and
	// the session artifact that keeps those lines.
	Fault       string `json:"fault,omitempty"`
	ErrorLogRef string `json:"error_log_ref,omitempty"`
}

// sessionRef names a session in the events that are no transition.
type sessionRef struct {
	Session string `json:"session"`
	Turn    int    `json:"turn"`
	Model   string `json:"model"`
	Label   string `json:"label"`
}

// Spawn is the data of a session_spawn event: one step of the spawn
// protocol (model_switch, ping_retry, ping, prompt).
type Spawn struct {
	sessionRef
	Step string `json:"step"`
	// Why a step was taken again (ping_retry).
	Why string `json:"why,omitempty"`
	// Switch is the model switch sent, Confirmed the line that confirmed it.
	Switch    string `json:"switch,omitempty"`
	Confirmed string `json:"confirmed,omitempty"`
}

// Diagnosis is the data of a session_diagnosed event: the fault the
// agent's error log names, and the artifact that keeps its lines.
type Diagnosis struct {
	sessionRef
	Step        string `json:"step"` // error_log
	Fault       string `json:"fault"`
	ErrorLogRef string `json:"error_log_ref"`
}

// Wedged is the data of a session_wedged event: the daemon's state and
// what the agent was seen doing disagree (see wedge.go).
type Wedged struct {
	sessionRef
	// State is the daemon's state of the session when it was found wedged.
	State string `json:"state"`
	// Symptom is WedgeWorking or WedgeStalled.
	Symptom string `json:"symptom"`
	// Evidence lists what moved (error_log, output, cpu), nothing for a
	// stalled session.
	Evidence []string `json:"evidence,omitempty"`
	// After is how long the disagreement lasted when it was called.
	After string `json:"after"`
	// Cause is the fault the agent's error log names, or "unknown".
	Cause       string `json:"cause"`
	ErrorLogRef string `json:"error_log_ref,omitempty"`
}

// PolicyFired is the data of a policy_fired event.
type PolicyFired struct {
	Policy  string                  `json:"policy"`
	Session string                  `json:"session"`
	Project string                  `json:"project,omitempty"` // a pr-watch policy's plan
	Trigger string                  `json:"trigger"`
	Actions []sessions.ActionResult `json:"actions"`
}

// ref describes l for an event, under the lock.
func (d *Daemon) ref(l *live) sessionRef {
	d.mu.Lock()
	defer d.mu.Unlock()
	return sessionRef{Session: l.rec.ID, Turn: l.rec.Turns, Model: l.rec.Model, Label: l.rec.Label}
}

// record queues one event of a sessions kind for the journal. The daemon
// has no caller to hand an error to: a ledger that cannot be written is
// logged, and the session goes on.
func record[T any](d *Daemon, k gitstore.Kind[T], id string, data T) {
	draft, err := k.Draft(id, data)
	if err != nil {
		d.logf("ledger: %s %s: %v", k, id, err)
		return
	}
	d.journal.add(draft)
}

// eventID names a session event that is no transition, once per turn.
func eventID(s sessionRef, kind, step string) string {
	return fmt.Sprintf("session/%s/%s-%s-%d", s.Session, kind[len("session_"):], step, s.Turn)
}
