// Package peers is the peer supervisor protocol: equal peer agents working
// toward a goal, an optional supervisor that reads one observation packet
// and records typed proposals, and host receipts that only the host adapter
// path can mark executed. Everything is a ledger event; absence of
// configuration means the supervisor is disabled.
package peers

import (
	"sort"
	"time"

	"github.com/agentproto/agentproto/gitstore"
)

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
	Gates     map[string]map[string]*Gate       // goal -> gate id -> user gate
}

// Read projects the ledger.
func Read(l gitstore.Store) (*State, error) {
	st := &State{Peers: map[string]*Peer{}, Goals: map[string]*Goal{}, Status: map[string]map[string]Status{},
		Claims: map[string]map[string]Claim{}, Evidence: map[string][]Evidence{}, Proposals: map[string][]Proposal{},
		Receipts: map[string][]Receipt{}, LastSeen: map[string]string{},
		Holders: map[string]map[string]map[string]Claim{}, Lost: map[string]map[string][]ClaimLost{}}
	_, err := gitstore.Fold(l, st, projection...)
	return st, err
}

// projection folds every peer kind into a State.
var projection = []gitstore.Handler[*State]{
	gitstore.On(peerRegisteredKind, func(st *State, e *gitstore.Event, p Peer) {
		st.Peers[p.Agent] = &p
		st.LastSeen[p.Agent] = e.Time
	}),
	gitstore.On(peerSessionKind, func(st *State, _ *gitstore.Event, d SessionAttached) {
		if p := st.Peers[d.Agent]; p != nil {
			p.Sessions = append(p.Sessions, d.Session)
		}
	}),
	gitstore.On(goalKind, func(st *State, _ *gitstore.Event, g GoalCreated) {
		st.Goals[g.ID] = &Goal{ID: g.ID, Title: g.Title, Todos: map[string]string{}}
	}),
	gitstore.On(goalConfiguredKind, func(st *State, _ *gitstore.Event, d GoalConfigured) {
		if g := st.Goals[d.Goal]; g != nil {
			g.Supervisor = d.Supervisor
		}
	}),
	gitstore.On(todoKind, func(st *State, _ *gitstore.Event, d TodoAdded) {
		if g := st.Goals[d.Goal]; g != nil {
			g.Todos[d.Todo] = d.Title
		}
	}),
	gitstore.On(todoClaimedKind, func(st *State, e *gitstore.Event, c Claim) {
		if st.Claims[c.Goal] == nil {
			st.Claims[c.Goal] = map[string]Claim{}
		}
		st.Claims[c.Goal][c.Todo] = c
		st.hold(c)
		st.LastSeen[c.Agent] = e.Time
	}),
	gitstore.On(todoReleasedKind, func(st *State, e *gitstore.Event, c Claim) {
		if st.Claims[c.Goal] == nil {
			return
		}
		if cur, ok := st.Claims[c.Goal][c.Todo]; ok && cur.Agent == c.Agent {
			delete(st.Claims[c.Goal], c.Todo)
		}
		delete(st.Holders[c.Goal][c.Todo], c.Agent)
		st.LastSeen[c.Agent] = e.Time
	}),
	gitstore.On(todoClaimLostKind, func(st *State, e *gitstore.Event, l ClaimLost) {
		if st.Lost[l.Goal] == nil {
			st.Lost[l.Goal] = map[string][]ClaimLost{}
		}
		l.Time = e.Time
		st.Lost[l.Goal][l.Todo] = append(st.Lost[l.Goal][l.Todo], l)
		st.LastSeen[l.Agent] = e.Time
	}),
	gitstore.On(peerStatusKind, func(st *State, e *gitstore.Event, s Status) {
		s.Time = e.Time
		if st.Status[s.Goal] == nil {
			st.Status[s.Goal] = map[string]Status{}
		}
		st.Status[s.Goal][s.Agent] = s
		st.LastSeen[s.Agent] = e.Time
	}),
	gitstore.On(evidenceKind, func(st *State, e *gitstore.Event, ev Evidence) {
		ev.Time = e.Time
		st.Evidence[ev.Goal] = append(st.Evidence[ev.Goal], ev)
		st.LastSeen[ev.Agent] = e.Time
	}),
	gitstore.On(proposedKind, func(st *State, e *gitstore.Event, p Proposal) {
		p.Time = e.Time
		st.Proposals[p.Goal] = append(st.Proposals[p.Goal], p)
	}),
	gitstore.On(receiptKind, func(st *State, e *gitstore.Event, r Receipt) {
		r.Time = e.Time
		st.Receipts[r.Goal] = append(st.Receipts[r.Goal], r)
	}),
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
