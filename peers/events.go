package peers

import "github.com/agentproto/agentproto/gitstore"

// Event kinds owned by the peer commands.
const (
	KindPeerRegistered = "peer_registered"
	KindPeerSession    = "peer_session_attached"
	KindPeerStatus     = "peer_status"
	KindGoal           = "goal_created"
	KindGoalConfigured = "goal_configured"
	KindTodo           = "todo_added"
	KindTodoClaimed    = "todo_claimed"
	KindTodoReleased   = "todo_released"
	KindTodoClaimLost  = "todo_claim_lost"
	KindEvidence       = "evidence_added"
	KindProposed       = "supervisor_proposed"
	KindReceipt        = "supervisor_receipt"
)

// owner records the peer kinds; no other package can.
var owner = gitstore.NewOwner("peers")

// The typed kinds, each with the struct its data is.
var (
	peerRegisteredKind = gitstore.Declare[Peer](owner, KindPeerRegistered)
	peerSessionKind    = gitstore.Declare[SessionAttached](owner, KindPeerSession)
	peerStatusKind     = gitstore.Declare[Status](owner, KindPeerStatus)
	goalKind           = gitstore.Declare[GoalCreated](owner, KindGoal)
	goalConfiguredKind = gitstore.Declare[GoalConfigured](owner, KindGoalConfigured)
	todoKind           = gitstore.Declare[TodoAdded](owner, KindTodo)
	todoClaimedKind    = gitstore.Declare[Claim](owner, KindTodoClaimed)
	todoReleasedKind   = gitstore.Declare[Claim](owner, KindTodoReleased)
	todoClaimLostKind  = gitstore.Declare[ClaimLost](owner, KindTodoClaimLost)
	evidenceKind       = gitstore.Declare[Evidence](owner, KindEvidence)
	proposedKind       = gitstore.Declare[Proposal](owner, KindProposed)
	receiptKind        = gitstore.Declare[Receipt](owner, KindReceipt)
)

// Peer is a registered agent.
type Peer struct {
	Agent        string   `json:"agent"`
	Adapter      string   `json:"adapter"`
	Capabilities []string `json:"capabilities"`
	QuotaTurns   int      `json:"quota_turns,omitempty"`
	Sessions     []string `json:"sessions,omitempty"`
	// Contract is how it may be addressed, by whom; nil: it stated none.
	Contract *Contract `json:"contract,omitempty"`
}

// Status is a peer's latest report on a goal.
type Status struct {
	Goal       string `json:"goal"`
	Agent      string `json:"agent"`
	State      string `json:"state"`
	NextAction string `json:"next_action"`
	Workspace  string `json:"workspace,omitempty"`
	Handoff    string `json:"handoff,omitempty"`
	Time       string `json:"time,omitempty"`
}

// Claim is a todo claimed by an agent until its lease ends.
type Claim struct {
	Goal  string `json:"goal"`
	Todo  string `json:"todo"`
	Agent string `json:"agent"`
	Until string `json:"lease_until"`
	// Arbiter is "remote" (taken by a push of the claim ref) or "local"
	// (this clone only); events recorded before arbiters were local.
	Arbiter string `json:"arbiter,omitempty"`
	Remote  string `json:"remote,omitempty"`
	Writer  string `json:"writer,omitempty"`
	Commit  string `json:"commit,omitempty"`
	// TookOverFrom is the holder whose expired lease this claim replaced.
	TookOverFrom string `json:"took_over_from,omitempty"`
}

// Evidence is a compact reference a peer recorded.
type Evidence struct {
	Goal    string `json:"goal"`
	Agent   string `json:"agent"`
	Ref     string `json:"ref"`
	Summary string `json:"summary"`
	Time    string `json:"time,omitempty"`
}

// SessionAttached is the data of a peer_session_attached event.
type SessionAttached struct {
	Agent   string `json:"agent"`
	Session string `json:"session"`
}

// GoalCreated is the data of a goal_created event.
type GoalCreated struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// GoalConfigured is the data of a goal_configured event; a nil Supervisor
// turns the supervisor off.
type GoalConfigured struct {
	Goal       string            `json:"goal"`
	Supervisor *SupervisorConfig `json:"supervisor"`
}

// TodoAdded is the data of a todo_added event.
type TodoAdded struct {
	Goal  string `json:"goal"`
	Todo  string `json:"todo"`
	Title string `json:"title"`
}
