package app

import (
	"context"
	"sort"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/launch"
	"github.com/agentproto/agentproto/lessons"
	"github.com/agentproto/agentproto/peers"
	"github.com/agentproto/agentproto/plugins/probe"
)

// RegisterPeerOptions are the inputs of RegisterPeer.
type RegisterPeerOptions struct {
	Agent   string
	Adapter string
	// Capabilities default to what the adapter declares.
	Capabilities []string
	QuotaTurns   int
	// Session, when given, is attached to the peer once registered.
	Session  string
	Contract *peers.Contract
}

// RegisterPeer registers a peer agent and returns it as the ledger now
// has it; false when it was registered with the same details already.
func (e *Env) RegisterPeer(ctx context.Context, o RegisterPeerOptions) (*peers.Peer, bool, error) {
	s, err := e.Peers(ctx)
	if err != nil {
		return nil, false, err
	}
	if o.Adapter == "" {
		return nil, false, fault.Invalidf("--adapter is required")
	}
	caps := o.Capabilities
	if len(caps) == 0 {
		if caps, err = e.adapterCapabilities(ctx, o.Adapter); err != nil {
			return nil, false, err
		}
	}
	written, err := s.Register(peers.Peer{Agent: o.Agent, Adapter: o.Adapter, Capabilities: caps, QuotaTurns: o.QuotaTurns, Contract: o.Contract})
	if err != nil {
		return nil, false, err
	}
	if o.Session != "" {
		if _, err := s.AttachSession(o.Agent, o.Session); err != nil {
			return nil, false, err
		}
	}
	p, err := s.Peer(o.Agent)
	return p, written, err
}

// adapterCapabilities launches the adapter once to read the capabilities
// it declares.
func (e *Env) adapterCapabilities(ctx context.Context, adapter string) ([]string, error) {
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return nil, err
	}
	found, err := launch.Adapter(cfg, repo.WorkTree, adapter)
	if err != nil {
		return nil, err
	}
	info, err := probe.Describe(ctx, found.Spec, probe.PathAndHome())
	return info.Capabilities, err
}

// AttachPeerSession attaches a running session to a peer and returns the
// peer; false when it was attached already.
func (e *Env) AttachPeerSession(ctx context.Context, agent, session string) (*peers.Peer, bool, error) {
	s, err := e.Peers(ctx)
	if err != nil {
		return nil, false, err
	}
	written, err := s.AttachSession(agent, session)
	if err != nil {
		return nil, false, err
	}
	p, err := s.Peer(agent)
	return p, written, err
}

// ListPeers is the registered peers by agent id; empty, not nil, when
// there is none, so a JSON list is a list.
func (e *Env) ListPeers(ctx context.Context) ([]*peers.Peer, error) {
	s, err := e.Peers(ctx)
	if err != nil {
		return nil, err
	}
	st, err := peers.Read(s.Ledger)
	if err != nil {
		return nil, err
	}
	rows := []*peers.Peer{}
	for _, p := range st.Peers {
		rows = append(rows, p)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Agent < rows[j].Agent })
	return rows, nil
}

// ClaimOptions name a todo claim: who claims which todo of which goal.
type ClaimOptions struct {
	Goal, Todo, Agent string
	// As is the peer acting (default: Agent).
	As    string
	Lease time.Duration
	// Local claims on this clone only, without the remote arbiter.
	Local bool
}

// ClaimTodo claims a todo for a lease, through the claims remote unless
// o.Local.
func (e *Env) ClaimTodo(ctx context.Context, o ClaimOptions) (*peers.Claim, error) {
	s, err := e.Peers(ctx)
	if err != nil {
		return nil, err
	}
	if o.Local {
		return s.Claim(o.Goal, o.Todo, o.Agent, o.As, o.Lease)
	}
	a, err := e.arbiter(s)
	if err != nil {
		return nil, err
	}
	return s.ClaimRemote(a, o.Goal, o.Todo, o.Agent, o.As, o.Lease)
}

// ReleaseTodo releases a claimed todo where it was claimed.
func (e *Env) ReleaseTodo(ctx context.Context, o ClaimOptions) (*peers.Claim, error) {
	s, err := e.Peers(ctx)
	if err != nil {
		return nil, err
	}
	if o.Local {
		return s.Release(o.Goal, o.Todo, o.Agent, o.As)
	}
	a, err := e.arbiter(s)
	if err != nil {
		return nil, err
	}
	return s.ReleaseRemote(a, o.Goal, o.Todo, o.Agent, o.As)
}

// arbiter is the remote that arbitrates this clone's claims: [claims]
// remote, or the remote `init` configured for the ledger.
func (e *Env) arbiter(s *peers.Service) (*peers.Arbiter, error) {
	cfg, err := e.Config()
	if err != nil {
		return nil, err
	}
	return peers.OpenArbiter(s.Repo, cfg.Claims.Remote, cfg.Sync.Remote)
}

// SupervisorBrief is the supervisor's task body and the lessons of the
// goal. The fields are in the order of their JSON names.
type SupervisorBrief struct {
	Agent   string           `json:"agent"`
	Goal    string           `json:"goal"`
	Lessons []lessons.Lesson `json:"lessons"`
	Prompt  string           `json:"prompt"`
}

// SupervisorPrompt is the supervisor's task body with the recent lessons
// tagged with the goal.
func (e *Env) SupervisorPrompt(ctx context.Context, goal, agent string) (*SupervisorBrief, error) {
	s, err := e.Peers(ctx)
	if err != nil {
		return nil, err
	}
	text, err := s.Prompt(goal, agent)
	if err != nil {
		return nil, err
	}
	ls, err := lessons.List(s.Ledger, []string{goal}, true, lessons.Recent)
	if err != nil {
		return nil, err
	}
	return &SupervisorBrief{Agent: agent, Goal: goal, Lessons: append([]lessons.Lesson{}, ls...), Prompt: text}, nil
}
