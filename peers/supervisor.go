package peers

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/spend"
	"github.com/agentproto/agentproto/worktree"
)

// supervisorOf returns the goal's configuration, checking that agent is
// its supervisor. Absence of configuration means disabled.
func (s *Service) supervisorOf(st *State, goalID, agent string) (*SupervisorConfig, error) {
	g, err := s.goal(st, goalID)
	if err != nil {
		return nil, err
	}
	if g.Supervisor == nil {
		return nil, fault.Refusedf("goal %s has no supervisor configured (git agentproto goal configure --goal %s --supervisor-agent A --apply)", goalID, goalID)
	}
	if g.Supervisor.SupervisorAgent != agent {
		return nil, fault.Refusedf("%s is not the supervisor of goal %s (%s is)", agent, goalID, g.Supervisor.SupervisorAgent)
	}
	return g.Supervisor, nil
}

// Propose validates a decision and, with execute, records it as
// supervisor_proposed. The proposal never proves that anything happened.
func (s *Service) Propose(goalID, agent string, d *Decision, execute bool) (*Proposal, bool, error) {
	st, err := s.state()
	if err != nil {
		return nil, false, err
	}
	cfg, err := s.supervisorOf(st, goalID, agent)
	if err != nil {
		return nil, false, err
	}
	withFork := false
	if d.Kind == KindFork && s.ForkGate != nil {
		if err := s.ForkGate(); err != nil {
			return nil, false, err
		}
		withFork = true
	}
	if err := d.validate(st, cfg, withFork); err != nil {
		return nil, false, err
	}
	// An inject addresses its target; a handoff both the peer whose work
	// it takes and the one it gives the work to.
	addressed := []string{d.Target}
	if d.Kind == KindHandoff {
		addressed = []string{d.Source, d.Target}
	}
	for _, a := range addressed {
		if p := st.Peers[a]; p != nil {
			if err := p.Contract.admits(a, d.Kind, agent); err != nil {
				return nil, false, err
			}
		}
	}
	need := RequiredCapabilities[d.Kind]
	if d.Kind == KindFork {
		need = ForkCapabilities
	}
	if need == nil {
		need = []string{}
	}
	p := &Proposal{Goal: goalID, Supervisor: agent, ExecutionMode: ModeProposalOnly, RequiredCapabilities: need, Decision: *d}
	if !execute {
		return p, false, nil
	}
	written, err := record(s, proposedKind, recordID(goalID, "decision", d.DecisionID), *p)
	return p, written, err
}

// RecordReceipt validates a receipt from the CLI path (rejected or failed
// only) and, with execute, records it.
func (s *Service) RecordReceipt(goalID, agent string, r *ReceiptDoc, execute bool) (*Receipt, bool, error) {
	st, err := s.state()
	if err != nil {
		return nil, false, err
	}
	if _, err := s.supervisorOf(st, goalID, agent); err != nil {
		return nil, false, err
	}
	if err := r.ValidateCLI(st, goalID); err != nil {
		return nil, false, err
	}
	rec := &Receipt{Goal: goalID, Supervisor: agent, Receipt: *r}
	if !execute {
		return rec, false, nil
	}
	written, err := record(s, receiptKind, recordID(goalID, "receipt", r.ReceiptID), *rec)
	return rec, written, err
}

// ListRow is a proposal with its receipts.
type ListRow struct {
	DecisionID string   `json:"decision_id"`
	Kind       string   `json:"kind"`
	Target     string   `json:"target,omitempty"`
	Reasons    []string `json:"reason_codes"`
	Proposed   string   `json:"proposed"`
	Receipts   []string `json:"receipts"` // "status:receipt_id"
	Executed   bool     `json:"executed"`
}

// List projects a goal's proposals and their receipts.
func (s *Service) List(goalID, agent string) ([]ListRow, error) {
	st, err := s.state()
	if err != nil {
		return nil, err
	}
	if _, err := s.supervisorOf(st, goalID, agent); err != nil {
		return nil, err
	}
	rows := []ListRow{}
	for _, p := range st.Proposals[goalID] {
		r := ListRow{DecisionID: p.Decision.DecisionID, Kind: p.Decision.Kind, Target: p.Decision.Target,
			Reasons: p.Decision.ReasonCodes, Proposed: p.Time, Receipts: []string{}}
		for _, rc := range st.Receipts[goalID] {
			if rc.Receipt.DecisionID == r.DecisionID {
				r.Receipts = append(r.Receipts, rc.Receipt.Status+":"+rc.Receipt.ReceiptID)
				if rc.Receipt.Status == StatusExecuted {
					r.Executed = true
				}
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// Prompt is the supervisor's task body.
func (s *Service) Prompt(goalID, agent string) (string, error) {
	st, err := s.state()
	if err != nil {
		return "", err
	}
	cfg, err := s.supervisorOf(st, goalID, agent)
	if err != nil {
		return "", err
	}
	g := st.Goals[goalID]
	var b strings.Builder
	fmt.Fprintf(&b, "You are %s, the supervisor of goal %s (%s): an equal peer with one extra duty,\nto observe the others and propose. You have no authority over them.\n\n", agent, goalID, g.Title)
	fmt.Fprintf(&b, "You observe: %s.\n\n", strings.Join(st.Supervised(cfg), ", "))
	b.WriteString("Each round:\n")
	fmt.Fprintf(&b, "1. Run your own quota guard; stop if it exits 5:\n   git agentproto peer quota-guard %s\n", agent)
	fmt.Fprintf(&b, "2. Read the observation packet (read-only):\n   git agentproto supervisor observe --goal %s --agent %s\n", goalID, agent)
	b.WriteString("   If decision_input_complete is false, say what is missing; do not guess.\n")
	b.WriteString("3. Decide one of observe, inject, handoff, discard (supervisor_decision_v0), with\n   reason codes and evidence references from the packet. Write it to a file, then\n   validate and record it:\n")
	fmt.Fprintf(&b, "   git agentproto supervisor event propose --goal %s --agent %s --decision-json FILE\n", goalID, agent)
	fmt.Fprintf(&b, "   git agentproto supervisor event propose --goal %s --agent %s --decision-json FILE --apply\n", goalID, agent)
	b.WriteString("4. A proposal is not an action. Only the host executes, and only an inject, and only\n   when its operator enabled it; never report a proposal as done.\n\n")
	b.WriteString("You cannot claim another peer's todo, spend or check another peer's quota, or change\nthe goal's configuration. Put credentials nowhere: they are refused.\n")
	b.WriteString("Decision format:\n{\"schema\":\"supervisor_decision_v0\",\"decision_id\":\"d-1\",\"kind\":\"inject\",\"reason_codes\":[\"stalled\"],\n \"evidence_refs\":[\"...\"],\"target\":\"peer-b\",\"message\":\"...\"}\n")
	return b.String(), nil
}

// Observation is a supervisor_observation_v0 packet.
type Observation struct {
	Schema                 string              `json:"schema"`
	Goal                   GoalRef             `json:"goal"`
	Supervisor             string              `json:"supervisor"`
	ExecutionMode          string              `json:"execution_mode"`
	DecisionInputComplete  bool                `json:"decision_input_complete"`
	Warnings               []string            `json:"warnings"`
	Health                 map[string]int      `json:"health"`
	Peers                  []PeerView          `json:"peers"`
	OpenProposals          []string            `json:"open_proposals"`
	UnclaimedTodos         []string            `json:"unclaimed_todos"`
	RequiredCapabilityKeys map[string][]string `json:"required_capabilities"`
	// UserGates are the goal's open decisions only the user can take.
	UserGates []Gate `json:"user_gates"`
	// ForkInbox are the live fork branches of the goal's agents.
	ForkInbox []ForkRow `json:"fork_inbox"`
	// WaitingDecisions are the work packages of the repository's plans
	// stopped on a question only the supervisor answers (plan answer), as
	// Service.Waiting gives them.
	WaitingDecisions any `json:"waiting_decisions"`
	// Spend is what the repository's plans cost, today and in all
	// (spend.go).
	Spend PacketSpend `json:"spend"`
	// PullRequests are the plans' pull requests as their last polls saw
	// them: state, the reactions pending with their retries left, and the
	// items waiting for the supervisor (pr answer) with what was tried.
	PullRequests any `json:"pull_requests"`
}

// GoalRef names the goal.
type GoalRef struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// PeerView is what the supervisor sees of one peer: no transcripts, no
// quota guard of another peer.
type PeerView struct {
	Agent        string        `json:"agent"`
	Adapter      string        `json:"adapter"`
	Capabilities []string      `json:"capabilities"`
	Claims       []ClaimView   `json:"claims"`
	State        string        `json:"state"`
	NextAction   string        `json:"next_action"`
	LastActivity string        `json:"last_activity"`
	Workspace    string        `json:"workspace,omitempty"`
	Handoff      string        `json:"handoff,omitempty"`
	Sessions     []string      `json:"sessions"`
	Evidence     []EvidenceRow `json:"evidence"`
	Effects      []Effect      `json:"effects"`
	// Contract is how the peer may be addressed, by whom; empty lists
	// when it stated none.
	Contract Contract `json:"contract"`
	// Spend is what the peer's sessions used.
	Spend spend.Total `json:"spend"`
}

// ClaimView is one of a peer's current claims.
type ClaimView struct {
	Todo  string `json:"todo"`
	Title string `json:"title"`
	Until string `json:"lease_until"`
	// Arbiter is remote-held, local-only, expired or contested.
	Arbiter string `json:"arbiter"`
}

// EvidenceRow is a thin evidence reference.
type EvidenceRow struct {
	Ref     string `json:"ref"`
	Summary string `json:"summary"`
	Time    string `json:"time"`
}

// Effect is a compact reference to something a peer changed.
type Effect struct {
	Kind    string `json:"kind"` // commit, session
	Ref     string `json:"ref"`
	Summary string `json:"summary"`
}

// evidenceRows is how many recent evidence rows a peer view keeps.
const evidenceRows = 5

// Observe builds the read-only observation packet.
func (s *Service) Observe(goalID, agent string) (*Observation, error) {
	st, err := s.state()
	if err != nil {
		return nil, err
	}
	cfg, err := s.supervisorOf(st, goalID, agent)
	if err != nil {
		return nil, err
	}
	g := st.Goals[goalID]
	o := &Observation{Schema: SchemaObservation, Goal: GoalRef{ID: g.ID, Title: g.Title}, Supervisor: agent,
		ExecutionMode: cfg.ExecutionMode, DecisionInputComplete: true, Warnings: []string{}, Peers: []PeerView{},
		Health: map[string]int{}, OpenProposals: []string{}, UnclaimedTodos: []string{}, RequiredCapabilityKeys: RequiredCapabilities}
	now := s.now()
	store := sessions.OpenView(s.Repo.CommonDir)
	for _, a := range st.Supervised(cfg) {
		p := st.Peers[a]
		o.Health["peers"]++
		if p == nil {
			o.Warnings = append(o.Warnings, a+" is configured but not registered")
			o.DecisionInputComplete = false
			o.Health["unregistered"]++
			continue
		}
		v := PeerView{Agent: a, Adapter: p.Adapter, Capabilities: p.Capabilities, Sessions: p.Sessions,
			Evidence: []EvidenceRow{}, Effects: []Effect{}, LastActivity: st.LastSeen[a]}
		if v.Capabilities == nil {
			v.Capabilities = []string{}
		}
		if v.Sessions == nil {
			v.Sessions = []string{}
		}
		v.Contract = Contract{Via: []string{}, By: []string{}}
		if p.Contract != nil {
			v.Contract.Via = append(v.Contract.Via, p.Contract.Via...)
			v.Contract.By = append(v.Contract.By, p.Contract.By...)
		} else {
			o.Warnings = append(o.Warnings, a+" states no interaction contract (peer register --address-via): address it only through todos")
		}
		v.Claims = []ClaimView{}
		todos := make([]string, 0, len(st.Holders[goalID]))
		for todo := range st.Holders[goalID] {
			todos = append(todos, todo)
		}
		sort.Strings(todos)
		for _, todo := range todos {
			c, ok := st.Holders[goalID][todo][a]
			if !ok {
				continue
			}
			switch state := st.ArbiterState(c, now); state {
			case StateExpired:
				if st.Claims[goalID][todo].Agent != a {
					continue // someone claimed it since
				}
				v.Claims = append(v.Claims, ClaimView{Todo: todo, Title: g.Todos[todo], Until: c.Until, Arbiter: state})
				o.Warnings = append(o.Warnings, fmt.Sprintf("%s's claim on %s expired at %s", a, todo, c.Until))
				o.Health["expired_claims"]++
			case StateContested:
				v.Claims = append(v.Claims, ClaimView{Todo: todo, Title: g.Todos[todo], Until: c.Until, Arbiter: state})
				o.Warnings = append(o.Warnings, fmt.Sprintf("%s's claim on %s is contested: another peer holds a live claim on it (a local-only claim)", a, todo))
				o.Health["contested_claims"]++
			default:
				v.Claims = append(v.Claims, ClaimView{Todo: todo, Title: g.Todos[todo], Until: c.Until, Arbiter: state})
			}
		}
		if stt, ok := st.Status[goalID][a]; ok {
			v.State, v.NextAction, v.Workspace, v.Handoff = stt.State, stt.NextAction, stt.Workspace, stt.Handoff
			o.Health["with_status"]++
		} else {
			o.Warnings = append(o.Warnings, a+" has reported no status on this goal")
			o.DecisionInputComplete = false
			o.Health["missing_status"]++
		}
		var evs []EvidenceRow
		for _, ev := range st.Evidence[goalID] {
			if ev.Agent == a {
				evs = append(evs, EvidenceRow{Ref: ev.Ref, Summary: ev.Summary, Time: ev.Time})
			}
		}
		if len(evs) == 0 {
			o.Warnings = append(o.Warnings, a+" has recorded no evidence on this goal")
			o.DecisionInputComplete = false
			o.Health["missing_evidence"]++
		} else {
			o.Health["with_evidence"]++
		}
		if len(evs) > evidenceRows {
			evs = evs[len(evs)-evidenceRows:]
		}
		v.Evidence = append(v.Evidence, evs...)
		for _, id := range p.Sessions {
			if r, err := store.Load(id); err == nil {
				v.Effects = append(v.Effects, Effect{Kind: "session", Ref: id, Summary: fmt.Sprintf("%s, %d turns, %s", r.State, r.Turns, r.Spend)})
			}
		}
		v.Effects = append(v.Effects, s.commits(v.Workspace)...)
		o.Peers = append(o.Peers, v)
	}
	for _, p := range st.Proposals[goalID] {
		if _, done := st.Executed(goalID, p.Decision.DecisionID); !done {
			o.OpenProposals = append(o.OpenProposals, p.Decision.DecisionID)
		}
	}
	for todo := range g.Todos {
		if _, ok := st.Claimed(goalID, todo, now); !ok {
			o.UnclaimedTodos = append(o.UnclaimedTodos, todo)
		}
	}
	sort.Strings(o.UnclaimedTodos)
	o.UserGates = st.OpenGates(goalID)
	o.ForkInbox = []ForkRow{}
	if s.ForkRows != nil {
		rows, err := s.ForkRows()
		if err != nil {
			o.Warnings = append(o.Warnings, "fork branches could not be read: "+err.Error())
			o.DecisionInputComplete = false
		} else {
			o.ForkInbox = forkInbox(rows, append(st.Supervised(cfg), agent))
		}
	}
	s.addWaiting(o)
	s.addSpend(o, store)
	sort.Strings(o.Warnings)
	return o, nil
}

// commits returns compact references to the last commits on a peer's
// worktree branch beyond its base (a workspace given as a worktree slug).
func (s *Service) commits(slug string) []Effect {
	if slug == "" {
		return nil
	}
	m, err := worktree.Load(s.Repo, slug)
	if err != nil {
		return nil
	}
	out, err := s.Repo.Git("log", "--format=%H %s", "-5", m.BaseCommit+"..refs/heads/"+m.Branch)
	if err != nil {
		return nil
	}
	var effects []Effect
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if h, subj, ok := strings.Cut(line, " "); ok {
			effects = append(effects, Effect{Kind: "commit", Ref: h, Summary: subj})
		}
	}
	return effects
}
