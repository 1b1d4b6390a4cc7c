package peers

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/plugins/vocab"
	"github.com/agentproto/agentproto/sessions"
)

// Service carries out peer commands on one repository.
type Service struct {
	Repo   *gitrepo.Repo
	Ledger gitstore.Store
	Now    func() time.Time
	// ForkGate says whether fork is in this clone's decision set (its
	// fork mode is on and its host check passes); nil: it is not.
	ForkGate func() error
	// ForkRows lists the clone's live fork branches for the packet; nil:
	// none are shown.
	ForkRows func() ([]ForkRow, error)
	// Waiting lists the work packages of the repository's plans stopped on
	// a question only the supervisor answers, for the packet, with the
	// plans that could not be read; nil: none are shown. Plans are not the
	// peers' business, so the command that builds the Service hands it in
	// (pipeline.AllWaitingDecisions); decisions must encode as a JSON array.
	Waiting func() (decisions any, problems []error, err error)
	// PullRequests lists the plans' pull requests as their last polls saw
	// them — state, the items pending with their retries left, those
	// waiting for the supervisor with what was tried — in the same way
	// (app.AllPRStatuses); nil: none are shown.
	PullRequests func() (prs any, problems []error, err error)
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// record appends one event of a peer kind (events.go); written is false
// when the same record existed.
func record[T any](s *Service, k gitstore.Kind[T], id string, data T) (bool, error) {
	res, err := k.Record(s.Ledger, id, data)
	if err != nil {
		return false, err
	}
	return len(res.Written) == 1, nil
}

func (s *Service) state() (*State, error) { return Read(s.Ledger) }

func texts(fields map[string]string) error {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := CheckText(k, fields[k], MaxText); err != nil {
			return err
		}
	}
	return nil
}

// Register records a peer. Its capabilities default to what the adapter
// declares; any capability named must be in the closed set.
func (s *Service) Register(p Peer) (bool, error) {
	if err := ValidateName("agent id", p.Agent); err != nil {
		return false, err
	}
	if err := ValidateName("adapter", p.Adapter); err != nil {
		return false, err
	}
	for _, c := range p.Capabilities {
		if !vocab.ValidCapability(c) {
			return false, fault.Invalidf("capability %q is not one of %s", c, strings.Join(vocab.Capabilities, ", "))
		}
	}
	if p.QuotaTurns < 0 {
		return false, fault.Invalidf("--quota-turns must be 0 (none) or more")
	}
	if p.Contract != nil {
		if err := p.Contract.validate(); err != nil {
			return false, err
		}
		sort.Strings(p.Contract.Via)
		sort.Strings(p.Contract.By)
	}
	sort.Strings(p.Capabilities)
	return record(s, peerRegisteredKind, "peer/"+p.Agent+"/registered", p)
}

// AttachSession ties a running session to a peer: its turns count against
// the peer's quota and the inject canary reaches the peer through it.
// written is false when the session was attached already.
func (s *Service) AttachSession(agent, session string) (bool, error) {
	st, err := s.state()
	if err != nil {
		return false, err
	}
	if st.Peers[agent] == nil {
		return false, fault.Invalidf("no peer %q (git agentproto peer register)", agent)
	}
	if _, err := sessions.OpenView(s.Repo.CommonDir).Load(session); err != nil {
		return false, err
	}
	return record(s, peerSessionKind, "peer/"+agent+"/session/"+session, SessionAttached{Agent: agent, Session: session})
}

// Peer is agent's registration as the ledger holds it now, with every
// session attached to it.
func (s *Service) Peer(agent string) (*Peer, error) {
	st, err := s.state()
	if err != nil {
		return nil, err
	}
	p := st.Peers[agent]
	if p == nil {
		return nil, fault.Invalidf("no peer %q (git agentproto peer register)", agent)
	}
	return p, nil
}

// NewGoal records a goal.
func (s *Service) NewGoal(id, title string) (bool, error) {
	if err := ValidateName("goal id", id); err != nil {
		return false, err
	}
	if strings.TrimSpace(title) == "" {
		return false, fault.Invalidf("--title is required")
	}
	if err := texts(map[string]string{"--title": title}); err != nil {
		return false, err
	}
	return record(s, goalKind, "goal/"+id, GoalCreated{ID: id, Title: title})
}

func (s *Service) goal(st *State, id string) (*Goal, error) {
	if err := ValidateName("goal id", id); err != nil {
		return nil, err
	}
	g := st.Goals[id]
	if g == nil {
		return nil, fault.Invalidf("no goal %q (git agentproto goal new)", id)
	}
	return g, nil
}

// Configure validates (and with execute records) a goal's supervisor
// configuration. clear disables it.
func (s *Service) Configure(goalID, supervisor string, supervised []string, clear, execute bool) (*SupervisorConfig, bool, error) {
	st, err := s.state()
	if err != nil {
		return nil, false, err
	}
	if _, err := s.goal(st, goalID); err != nil {
		return nil, false, err
	}
	var cfg *SupervisorConfig
	if !clear {
		if st.Peers[supervisor] == nil {
			return nil, false, fault.Invalidf("--supervisor-agent %q is not a registered peer", supervisor)
		}
		seen := map[string]bool{}
		for _, a := range supervised {
			if st.Peers[a] == nil {
				return nil, false, fault.Invalidf("--supervised-agent %q is not a registered peer", a)
			}
			if a == supervisor {
				return nil, false, fault.Invalidf("--supervised-agent %q is the supervisor; a supervisor does not observe itself", a)
			}
			if seen[a] {
				return nil, false, fault.Invalidf("--supervised-agent %q given twice", a)
			}
			seen[a] = true
		}
		sort.Strings(supervised)
		cfg = &SupervisorConfig{Schema: SchemaConfig, SupervisorAgent: supervisor, SupervisedAgents: supervised, ExecutionMode: ModeProposalOnly}
		if cfg.SupervisedAgents == nil {
			cfg.SupervisedAgents = []string{}
		}
	}
	if !execute {
		return cfg, false, nil
	}
	id := fmt.Sprintf("goal/%s/configured/%d", goalID, s.now().UnixNano())
	written, err := record(s, goalConfiguredKind, id, GoalConfigured{Goal: goalID, Supervisor: cfg})
	return cfg, written, err
}

// AddTodo records a todo of a goal.
func (s *Service) AddTodo(goalID, todo, title string) (bool, error) {
	st, err := s.state()
	if err != nil {
		return false, err
	}
	if _, err := s.goal(st, goalID); err != nil {
		return false, err
	}
	if err := ValidateName("todo id", todo); err != nil {
		return false, err
	}
	if err := texts(map[string]string{"--title": title}); err != nil {
		return false, err
	}
	return record(s, todoKind, "goal/"+goalID+"/todo/"+todo, TodoAdded{Goal: goalID, Todo: todo, Title: title})
}

// Claim leases a todo to an agent on this clone only (no arbiter: another
// clone can claim the same todo). A peer claims only for itself: acting
// for another peer is refused (exit 5), as is a todo another peer holds.
func (s *Service) Claim(goalID, todo, agent, actor string, lease time.Duration) (*Claim, error) {
	st, err := s.state()
	if err != nil {
		return nil, err
	}
	if err := checkClaim(st, goalID, todo, agent, actor, lease); err != nil {
		return nil, err
	}
	now := s.now()
	if c, ok := st.Claimed(goalID, todo, now); ok && c.Agent != agent {
		return nil, fault.Refusedf("todo %s is claimed by %s until %s", todo, c.Agent, c.Until)
	}
	c := &Claim{Goal: goalID, Todo: todo, Agent: agent, Until: now.Add(lease).UTC().Format(time.RFC3339), Arbiter: ArbiterLocal}
	_, err = record(s, todoClaimedKind, fmt.Sprintf("goal/%s/todo/%s/claim/%d", goalID, todo, now.UnixNano()), *c)
	return c, err
}

// checkClaim validates a claim before any arbiter is asked.
func checkClaim(st *State, goalID, todo, agent, actor string, lease time.Duration) error {
	if err := ValidateName("goal id", goalID); err != nil {
		return err
	}
	g := st.Goals[goalID]
	if g == nil {
		return fault.Invalidf("no goal %q (git agentproto goal new)", goalID)
	}
	if _, ok := g.Todos[todo]; !ok {
		return fault.Invalidf("goal %s has no todo %q", goalID, todo)
	}
	if st.Peers[agent] == nil {
		return fault.Invalidf("no peer %q", agent)
	}
	if actor != "" && actor != agent {
		return fault.Refusedf("%s cannot claim a todo for %s: a peer claims only for itself", actor, agent)
	}
	if lease <= 0 || lease > 24*time.Hour {
		return fault.Invalidf("--lease must be a duration with a unit, up to 24h")
	}
	return nil
}

// Release gives a todo back; only its holder can. It returns the release
// it recorded.
func (s *Service) Release(goalID, todo, agent, actor string) (*Claim, error) {
	st, err := s.state()
	if err != nil {
		return nil, err
	}
	if _, err := s.goal(st, goalID); err != nil {
		return nil, err
	}
	if actor != "" && actor != agent {
		return nil, fault.Refusedf("%s cannot release a todo for %s", actor, agent)
	}
	c, ok := st.Claims[goalID][todo]
	if !ok || c.Agent != agent {
		return nil, fault.Invalidf("%s holds no claim on todo %s", agent, todo)
	}
	rel := &Claim{Goal: goalID, Todo: todo, Agent: agent}
	_, err = record(s, todoReleasedKind, fmt.Sprintf("goal/%s/todo/%s/release/%d", goalID, todo, s.now().UnixNano()), *rel)
	return rel, err
}

// SetStatus records a peer's state and next action on a goal.
func (s *Service) SetStatus(st Status) error {
	state, err := s.state()
	if err != nil {
		return err
	}
	if _, err := s.goal(state, st.Goal); err != nil {
		return err
	}
	if state.Peers[st.Agent] == nil {
		return fault.Invalidf("no peer %q", st.Agent)
	}
	if strings.TrimSpace(st.State) == "" || strings.TrimSpace(st.NextAction) == "" {
		return fault.Invalidf("--state and --next-action are required")
	}
	if err := texts(map[string]string{"--state": st.State, "--next-action": st.NextAction, "--workspace": st.Workspace, "--handoff": st.Handoff}); err != nil {
		return err
	}
	_, err = record(s, peerStatusKind, fmt.Sprintf("goal/%s/status/%s/%d", st.Goal, st.Agent, s.now().UnixNano()), st)
	return err
}

// AddEvidence records a compact evidence reference.
func (s *Service) AddEvidence(ev Evidence) error {
	state, err := s.state()
	if err != nil {
		return err
	}
	if _, err := s.goal(state, ev.Goal); err != nil {
		return err
	}
	if state.Peers[ev.Agent] == nil {
		return fault.Invalidf("no peer %q", ev.Agent)
	}
	if strings.TrimSpace(ev.Ref) == "" || strings.TrimSpace(ev.Summary) == "" {
		return fault.Invalidf("--ref and --summary are required")
	}
	if err := texts(map[string]string{"--ref": ev.Ref, "--summary": ev.Summary}); err != nil {
		return err
	}
	_, err = record(s, evidenceKind, fmt.Sprintf("goal/%s/evidence/%s/%d", ev.Goal, ev.Agent, s.now().UnixNano()), ev)
	return err
}

// Quota says what a peer has left.
type Quota struct {
	Agent     string `json:"agent"`
	Turns     int    `json:"turns_used"`
	Limit     int    `json:"quota_turns"`
	Remaining int    `json:"remaining"`
	Unlimited bool   `json:"unlimited"`
}

// QuotaGuard reports a peer's remaining turns; spent is exit 5. A peer
// reads only its own quota.
func (s *Service) QuotaGuard(agent, actor string) (*Quota, error) {
	if actor != "" && actor != agent {
		return nil, fault.Refusedf("%s cannot run the quota guard of %s: each peer spends and checks only its own quota", actor, agent)
	}
	st, err := s.state()
	if err != nil {
		return nil, err
	}
	p := st.Peers[agent]
	if p == nil {
		return nil, fault.Invalidf("no peer %q", agent)
	}
	q := &Quota{Agent: agent, Limit: p.QuotaTurns, Unlimited: p.QuotaTurns == 0}
	store := sessions.OpenView(s.Repo.CommonDir)
	for _, id := range p.Sessions {
		if r, err := store.Load(id); err == nil {
			q.Turns += r.Turns
		}
	}
	if !q.Unlimited {
		q.Remaining = max(0, q.Limit-q.Turns)
		if q.Remaining == 0 {
			return q, fault.Refusedf("%s has spent its quota: %d of %d turns", agent, q.Turns, q.Limit)
		}
	}
	return q, nil
}
