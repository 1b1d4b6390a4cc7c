// Package peers is the peer supervisor protocol: equal peer agents working
// toward a goal, an optional supervisor that reads one observation packet
// and records typed proposals, and host receipts that only the host adapter
// path can mark executed. Everything is a ledger event; absence of
// configuration means the supervisor is disabled.
package peers

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/lazyre"
)

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

var namePattern = lazyre.New(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// ValidateName reports why s cannot name an agent, goal or todo.
func ValidateName(what, s string) error {
	if !namePattern.MatchString(s) {
		return fault.Invalidf("%s %q is not valid: lowercase letters, digits, '.', '_' and '-'", what, s)
	}
	return nil
}

// Peer is a registered agent.
type Peer struct {
	Agent        string   `json:"agent"`
	Adapter      string   `json:"adapter"`
	Capabilities []string `json:"capabilities"`
	QuotaTurns   int      `json:"quota_turns,omitempty"`
	Sessions     []string `json:"sessions,omitempty"`
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

// SupervisorConfig is coordination.supervisor of a goal.
type SupervisorConfig struct {
	Schema           string   `json:"schema"`
	SupervisorAgent  string   `json:"supervisor_agent"`
	SupervisedAgents []string `json:"supervised_agents"`
	ExecutionMode    string   `json:"execution_mode"`
}

// Goal is a goal with its todos and configuration.
type Goal struct {
	ID         string            `json:"id"`
	Title      string            `json:"title"`
	Todos      map[string]string `json:"todos"` // id -> title
	Supervisor *SupervisorConfig `json:"supervisor,omitempty"`
}

// State is the projection of every peer event.
type State struct {
	Peers  map[string]*Peer
	Goals  map[string]*Goal
	Status map[string]map[string]Status // goal -> agent -> latest
	Claims map[string]map[string]Claim  // goal -> todo -> claim (released ones removed)
	// Holders are every unreleased claim of a todo by agent: more than
	// one live holder is a contested todo (only local claims can overlap).
	Holders   map[string]map[string]map[string]Claim
	Lost      map[string]map[string][]ClaimLost // goal -> todo -> lost races, oldest first
	Evidence  map[string][]Evidence             // goal -> oldest first
	Proposals map[string][]Proposal             // goal -> oldest first
	Receipts  map[string][]Receipt              // goal -> oldest first
	LastSeen  map[string]string                 // agent -> time of its last event
}

// stateKinds are the event kinds Read projects.
var stateKinds = []string{KindPeerRegistered, KindPeerSession, KindGoal, KindGoalConfigured, KindTodo,
	KindTodoClaimed, KindTodoReleased, KindTodoClaimLost, KindPeerStatus, KindEvidence, KindProposed, KindReceipt}

// Read projects the ledger.
func Read(l *gitstore.Ledger) (*State, error) {
	st := &State{Peers: map[string]*Peer{}, Goals: map[string]*Goal{}, Status: map[string]map[string]Status{},
		Claims: map[string]map[string]Claim{}, Evidence: map[string][]Evidence{}, Proposals: map[string][]Proposal{},
		Receipts: map[string][]Receipt{}, LastSeen: map[string]string{},
		Holders: map[string]map[string]map[string]Claim{}, Lost: map[string]map[string][]ClaimLost{}}
	err := l.Events(gitstore.Query{Kinds: stateKinds, Reverse: true}, func(e *gitstore.Event) error {
		switch e.Kind {
		case KindPeerRegistered:
			var p Peer
			if json.Unmarshal(e.Data, &p) == nil {
				st.Peers[p.Agent] = &p
				st.LastSeen[p.Agent] = e.Time
			}
		case KindPeerSession:
			var d struct{ Agent, Session string }
			if json.Unmarshal(e.Data, &d) == nil && st.Peers[d.Agent] != nil {
				st.Peers[d.Agent].Sessions = append(st.Peers[d.Agent].Sessions, d.Session)
			}
		case KindGoal:
			var g Goal
			if json.Unmarshal(e.Data, &g) == nil {
				g.Todos = map[string]string{}
				st.Goals[g.ID] = &g
			}
		case KindGoalConfigured:
			var d struct {
				Goal       string            `json:"goal"`
				Supervisor *SupervisorConfig `json:"supervisor"`
			}
			if json.Unmarshal(e.Data, &d) == nil && st.Goals[d.Goal] != nil {
				st.Goals[d.Goal].Supervisor = d.Supervisor
			}
		case KindTodo:
			var d struct{ Goal, Todo, Title string }
			if json.Unmarshal(e.Data, &d) == nil && st.Goals[d.Goal] != nil {
				st.Goals[d.Goal].Todos[d.Todo] = d.Title
			}
		case KindTodoClaimed:
			var c Claim
			if json.Unmarshal(e.Data, &c) == nil {
				if st.Claims[c.Goal] == nil {
					st.Claims[c.Goal] = map[string]Claim{}
				}
				st.Claims[c.Goal][c.Todo] = c
				st.hold(c)
				st.LastSeen[c.Agent] = e.Time
			}
		case KindTodoReleased:
			var c Claim
			if json.Unmarshal(e.Data, &c) == nil && st.Claims[c.Goal] != nil {
				if cur, ok := st.Claims[c.Goal][c.Todo]; ok && cur.Agent == c.Agent {
					delete(st.Claims[c.Goal], c.Todo)
				}
				delete(st.Holders[c.Goal][c.Todo], c.Agent)
				st.LastSeen[c.Agent] = e.Time
			}
		case KindTodoClaimLost:
			var l ClaimLost
			if json.Unmarshal(e.Data, &l) == nil {
				if st.Lost[l.Goal] == nil {
					st.Lost[l.Goal] = map[string][]ClaimLost{}
				}
				l.Time = e.Time
				st.Lost[l.Goal][l.Todo] = append(st.Lost[l.Goal][l.Todo], l)
				st.LastSeen[l.Agent] = e.Time
			}
		case KindPeerStatus:
			var s Status
			if json.Unmarshal(e.Data, &s) == nil {
				s.Time = e.Time
				if st.Status[s.Goal] == nil {
					st.Status[s.Goal] = map[string]Status{}
				}
				st.Status[s.Goal][s.Agent] = s
				st.LastSeen[s.Agent] = e.Time
			}
		case KindEvidence:
			var ev Evidence
			if json.Unmarshal(e.Data, &ev) == nil {
				ev.Time = e.Time
				st.Evidence[ev.Goal] = append(st.Evidence[ev.Goal], ev)
				st.LastSeen[ev.Agent] = e.Time
			}
		case KindProposed:
			var p Proposal
			if json.Unmarshal(e.Data, &p) == nil {
				p.Time = e.Time
				st.Proposals[p.Goal] = append(st.Proposals[p.Goal], p)
			}
		case KindReceipt:
			var r Receipt
			if json.Unmarshal(e.Data, &r) == nil {
				r.Time = e.Time
				st.Receipts[r.Goal] = append(st.Receipts[r.Goal], r)
			}
		}
		return nil
	})
	return st, err
}

// Claimed returns the live claim of a todo (a lease not yet over).
func (st *State) Claimed(goal, todo string, now time.Time) (Claim, bool) {
	c, ok := st.Claims[goal][todo]
	if !ok {
		return c, false
	}
	if until, err := time.Parse(time.RFC3339, c.Until); err == nil && now.After(until) {
		return c, false
	}
	return c, true
}

// Supervised returns the peers a supervisor observes: the configured ones,
// or every registered peer but the supervisor.
func (st *State) Supervised(cfg *SupervisorConfig) []string {
	if len(cfg.SupervisedAgents) > 0 {
		return cfg.SupervisedAgents
	}
	var out []string
	for a := range st.Peers {
		if a != cfg.SupervisorAgent {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// Proposal finds a recorded decision.
func (st *State) Proposal(goal, decision string) (Proposal, bool) {
	for _, p := range st.Proposals[goal] {
		if p.Decision.DecisionID == decision {
			return p, true
		}
	}
	return Proposal{}, false
}

// Executed returns the executed receipt of a decision, if one exists.
func (st *State) Executed(goal, decision string) (Receipt, bool) {
	for _, r := range st.Receipts[goal] {
		if r.Receipt.DecisionID == decision && r.Receipt.Status == StatusExecuted {
			return r, true
		}
	}
	return Receipt{}, false
}
