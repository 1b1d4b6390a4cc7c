// The inject canary: the one decision the host may execute, and only
// through its adapter path, once this clone's operator enabled it.

package peers

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/sessions"
)

// InjectConfigKey is the local git config switch of the inject canary. It
// lives in this clone's config, never in a file of the repository, which an
// agent could edit.
const InjectConfigKey = "agentproto.supervisor.inject"

// InjectRequest is what the inject canary is asked to do.
type InjectRequest struct {
	Goal, Agent, DecisionID string
	AuthorityRef            string
	RollbackMode            string
	RollbackPolicyRef       string
}

// InjectPlan is what an inject would do, validated.
type InjectPlan struct {
	Decision     Decision `json:"decision"`
	Session      string   `json:"session"`
	Capabilities []string `json:"verified_capabilities"`
	Already      *Receipt `json:"already_executed,omitempty"`
}

// PlanInject validates the whole request: the decision exists and is an
// inject, the target has a live session whose adapter declared
// session_message_injection, the rollback boundary and authority are given.
// It calls nothing.
func (s *Service) PlanInject(r InjectRequest) (*InjectPlan, error) {
	st, err := s.state()
	if err != nil {
		return nil, err
	}
	if _, err := s.supervisorOf(st, r.Goal, r.Agent); err != nil {
		return nil, err
	}
	if r.RollbackMode != "compensating_action" && r.RollbackMode != "not_reversible" {
		return nil, fault.Invalidf("--rollback-mode must be compensating_action or not_reversible")
	}
	for k, v := range map[string]string{"--authority-ref": r.AuthorityRef, "--rollback-policy-ref": r.RollbackPolicyRef} {
		if strings.TrimSpace(v) == "" {
			return nil, fault.Refusedf("%s is required: an executed receipt fails closed without it", k)
		}
		if err := CheckText(k, v, MaxText); err != nil {
			return nil, err
		}
	}
	p, ok := st.Proposal(r.Goal, r.DecisionID)
	if !ok {
		return nil, fault.Invalidf("goal %s has no proposal %q", r.Goal, r.DecisionID)
	}
	if p.Decision.Kind != KindInject {
		return nil, fault.Refusedf("decision %s is a %s; only inject can be executed (handoff and discard stay proposal-only)", r.DecisionID, p.Decision.Kind)
	}
	plan := &InjectPlan{Decision: p.Decision}
	if rc, done := st.Executed(r.Goal, r.DecisionID); done {
		plan.Already = &rc
		return plan, nil
	}
	target := st.Peers[p.Decision.Target]
	if target == nil {
		return nil, fault.Invalidf("target %s is not registered", p.Decision.Target)
	}
	// The contract may have changed since the proposal.
	if err := target.Contract.admits(target.Agent, KindInject, r.Agent); err != nil {
		return nil, err
	}
	store := sessions.OpenView(s.Repo.CommonDir)
	for i := len(target.Sessions) - 1; i >= 0; i-- {
		rec, err := store.Load(target.Sessions[i])
		if err != nil || sessions.Terminal(rec.State) {
			continue
		}
		plan.Session, plan.Capabilities = rec.ID, rec.Capabilities
		break
	}
	if plan.Session == "" {
		return nil, fault.Refusedf("target %s has no live session (git agentproto peer attach %s --session ID)", target.Agent, target.Agent)
	}
	if miss := MissingCapabilities(RequiredCapabilities[KindInject], plan.Capabilities); len(miss) > 0 {
		return nil, fault.Refusedf("session %s does not have %s", plan.Session, strings.Join(miss, ", "))
	}
	return plan, nil
}

// InjectEnabled reads the local switch; only this clone's operator sets it.
func InjectEnabled(repo *gitrepo.Repo) bool {
	values, err := repo.LocalConfigValues(InjectConfigKey)
	return err == nil && len(values) > 0 && strings.TrimSpace(values[len(values)-1]) == "enabled"
}

// Sender delivers a message to a live session; it is the host adapter path.
type Sender func(ctx context.Context, session, message string) error

// ExecuteInject sends the message through the host and appends the
// executed (or failed) receipt with the verified capabilities. A prior
// executed receipt suppresses a second send.
func (s *Service) ExecuteInject(r InjectRequest, plan *InjectPlan, send Sender) (*Receipt, error) {
	if plan.Already != nil {
		return plan.Already, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := send(ctx, plan.Session, plan.Decision.Message)
	rec := &Receipt{Goal: r.Goal, Supervisor: r.Agent, VerifiedCapabilities: plan.Capabilities, AuthorityRef: r.AuthorityRef,
		Rollback: &Rollback{Mode: r.RollbackMode, PolicyRef: r.RollbackPolicyRef},
		Receipt:  ReceiptDoc{Schema: SchemaReceipt, DecisionID: plan.Decision.DecisionID, EvidenceRefs: []string{"session:" + plan.Session}}}
	if err != nil {
		rec.Receipt.Status, rec.Receipt.Reason, rec.HostResult = StatusFailed, "the host could not deliver the message", err.Error()
		rec.Receipt.ReceiptID = fmt.Sprintf("%s-failed-%d", plan.Decision.DecisionID, s.now().UnixNano())
		if _, aerr := record(s, receiptKind, recordID(r.Goal, "receipt", rec.Receipt.ReceiptID), *rec); aerr != nil {
			return nil, aerr
		}
		return rec, fmt.Errorf("inject failed: %w", err)
	}
	rec.Receipt.Status, rec.Receipt.Reason, rec.HostResult = StatusExecuted, "message delivered to the live session", "delivered"
	rec.Receipt.ReceiptID = plan.Decision.DecisionID + "-executed"
	// One id per decision: a second executed receipt is the same record.
	_, err = record(s, receiptKind, recordID(r.Goal, "decision", plan.Decision.DecisionID)+"/executed", *rec)
	return rec, err
}
