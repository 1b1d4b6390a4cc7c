package app

import (
	"context"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/peers"
)

// Injected is what Inject did: the plan it validated and, once sent, the
// receipt it recorded.
type Injected struct {
	Plan *peers.InjectPlan
	// Sent is true when the message went (or was tried) through the
	// host's session path; Receipt is then the executed or failed receipt.
	Sent    bool
	Receipt *peers.Receipt
}

// Inject is the inject canary. It validates r (the decision exists and is
// an inject, the target's session is live and its adapter declares
// session_message_injection); with execute it sends the message through
// the sessions daemon and records the receipt. A decision executed before
// is not sent again, and executing needs this clone's operator to have
// enabled it.
func (e *Env) Inject(ctx context.Context, r peers.InjectRequest, execute bool) (*Injected, error) {
	s, err := e.Peers(ctx)
	if err != nil {
		return nil, err
	}
	plan, err := s.PlanInject(r)
	if err != nil {
		return nil, err
	}
	if plan.Already != nil || !execute {
		return &Injected{Plan: plan}, nil
	}
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	if !peers.InjectEnabled(repo) {
		return nil, fault.Refusedf("executing injections is disabled on this clone; its operator enables it with: git config --local %s enabled", peers.InjectConfigKey)
	}
	client, err := e.Sessions()
	if err != nil {
		return nil, err
	}
	// The daemon call runs under the caller's context, not the host's
	// delivery timeout, as the CLI always sent it.
	send := func(_ context.Context, session, message string) error {
		return client.Prompt(ctx, session, message, false)
	}
	rec, err := s.ExecuteInject(r, plan, send)
	return &Injected{Plan: plan, Sent: true, Receipt: rec}, err
}
