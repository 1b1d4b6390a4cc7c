package app

import (
	"context"

	"github.com/agentproto/agentproto/peers"
)

// The peer protocol's records and reads, each one call of the peers
// service; written is false when the same record was there already.

// AddEvidence records a compact evidence reference under its agent.
func (e *Env) AddEvidence(ctx context.Context, ev peers.Evidence) error {
	s, err := e.Peers(ctx)
	if err != nil {
		return err
	}
	return s.AddEvidence(ev)
}

// SetPeerStatus records a peer's status on a goal.
func (e *Env) SetPeerStatus(ctx context.Context, st peers.Status) error {
	s, err := e.Peers(ctx)
	if err != nil {
		return err
	}
	return s.SetStatus(st)
}

// QuotaGuard is agent's remaining turns as actor sees them; a spent quota
// is refused (exit 5) with the quota.
func (e *Env) QuotaGuard(ctx context.Context, agent, actor string) (*peers.Quota, error) {
	s, err := e.Peers(ctx)
	if err != nil {
		return nil, err
	}
	return s.QuotaGuard(agent, actor)
}

// ObserveGoal is the read-only observation packet of a goal's
// supervised peers, as agent, its supervisor, reads it.
func (e *Env) ObserveGoal(ctx context.Context, goal, agent string) (*peers.Observation, error) {
	s, err := e.Peers(ctx)
	if err != nil {
		return nil, err
	}
	return s.Observe(goal, agent)
}

// SupervisorEvents lists a goal's supervisor decisions and receipts.
func (e *Env) SupervisorEvents(ctx context.Context, goal, agent string) ([]peers.ListRow, error) {
	s, err := e.Peers(ctx)
	if err != nil {
		return nil, err
	}
	return s.List(goal, agent)
}

// AddTodo adds a todo to a goal.
func (e *Env) AddTodo(ctx context.Context, goal, id, title string) (bool, error) {
	s, err := e.Peers(ctx)
	if err != nil {
		return false, err
	}
	return s.AddTodo(goal, id, title)
}

// AddGate opens a gate of a goal: a decision only the user can take.
func (e *Env) AddGate(ctx context.Context, goal, id, question string) (bool, error) {
	s, err := e.Peers(ctx)
	if err != nil {
		return false, err
	}
	return s.AddGate(goal, id, question)
}

// CloseGate closes a goal's gate with the user's answer.
func (e *Env) CloseGate(ctx context.Context, goal, id, answer string) (bool, error) {
	s, err := e.Peers(ctx)
	if err != nil {
		return false, err
	}
	return s.CloseGate(goal, id, answer)
}

// ConfigureGoal validates a goal's supervisor (or its clearing) and, with
// execute, records it.
func (e *Env) ConfigureGoal(ctx context.Context, goal, supervisor string, supervised []string, clear, execute bool) (*peers.SupervisorConfig, bool, error) {
	s, err := e.Peers(ctx)
	if err != nil {
		return nil, false, err
	}
	return s.Configure(goal, supervisor, supervised, clear, execute)
}
