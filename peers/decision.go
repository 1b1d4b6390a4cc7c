package peers

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/lazyre"
	"github.com/agentproto/agentproto/plugins/vocab"
)

// Schemas of the protocol's documents.
const (
	SchemaConfig      = "peer_supervisor_v0"
	SchemaDecision    = "supervisor_decision_v0"
	SchemaReceipt     = "supervisor_receipt_v0"
	SchemaObservation = "supervisor_observation_v0"
	// What the commands print around those documents: a proposal or a
	// receipt as recorded, an inject request as validated, a goal's
	// configuration.
	SchemaProposal      = "supervisor_proposal_v0"
	SchemaReceiptRecord = "supervisor_receipt_record_v0"
	SchemaInjectPlan    = "supervisor_inject_plan_v0"
	SchemaGoalConfig    = "goal_configuration_v0"
	ModeProposalOnly    = "proposal_only"
)

// Decision kinds: a closed set.
const (
	KindObserve = "observe"
	KindInject  = "inject"
	KindHandoff = "handoff"
	KindDiscard = "discard"
)

// KindFork is outside the closed set: it joins it only on a clone whose
// fork mode is on and whose host check passes (Service.ForkGate).
const KindFork = "fork"

// ForkCapabilities is what a host must have to admit a fork.
var ForkCapabilities = []string{vocab.CapStateFork}

// RequiredCapabilities says what a host must really have to execute a kind.
var RequiredCapabilities = map[string][]string{
	KindObserve: {},
	KindInject:  {vocab.CapMessageInjection},
	KindHandoff: {vocab.CapStateFork, vocab.CapWorkspaceTransfer},
	KindDiscard: {vocab.CapTermination},
}

// Decision is a supervisor_decision_v0 document.
type Decision struct {
	Schema       string   `json:"schema"`
	DecisionID   string   `json:"decision_id"`
	Kind         string   `json:"kind"`
	ReasonCodes  []string `json:"reason_codes"`
	EvidenceRefs []string `json:"evidence_refs"`
	Target       string   `json:"target,omitempty"`
	Source       string   `json:"source,omitempty"`
	Message      string   `json:"message,omitempty"`
	StateRef     string   `json:"state_ref,omitempty"`
}

// Proposal is a recorded decision (supervisor_proposed).
type Proposal struct {
	Goal                 string   `json:"goal"`
	Supervisor           string   `json:"supervisor"`
	ExecutionMode        string   `json:"execution_mode"`
	RequiredCapabilities []string `json:"required_capabilities"`
	Decision             Decision `json:"decision"`
	Time                 string   `json:"-"`
}

// Receipt statuses.
const (
	StatusRejected = "rejected"
	StatusFailed   = "failed"
	StatusExecuted = "executed"
)

// ReceiptDoc is a supervisor_receipt_v0 document.
type ReceiptDoc struct {
	Schema       string   `json:"schema"`
	ReceiptID    string   `json:"receipt_id"`
	DecisionID   string   `json:"decision_id"`
	Status       string   `json:"status"`
	Reason       string   `json:"reason"`
	EvidenceRefs []string `json:"evidence_refs"`
}

// Rollback is the boundary an executed receipt records; neither mode
// authorizes automatic rollback.
type Rollback struct {
	Mode      string `json:"mode"` // compensating_action or not_reversible
	PolicyRef string `json:"policy_ref"`
}

// Receipt is a recorded receipt (supervisor_receipt). The host-only fields
// are set by the host adapter path, never from editable JSON.
type Receipt struct {
	Goal                 string     `json:"goal"`
	Supervisor           string     `json:"supervisor"`
	Receipt              ReceiptDoc `json:"receipt"`
	VerifiedCapabilities []string   `json:"verified_capabilities,omitempty"`
	AuthorityRef         string     `json:"authority_ref,omitempty"`
	Rollback             *Rollback  `json:"rollback,omitempty"`
	HostResult           string     `json:"host_result,omitempty"`
	Time                 string     `json:"-"`
}

var codePattern = lazyre.New(`^[a-z][a-z0-9_]{0,62}$`)

func idOK(what, s string) error {
	if s == "" {
		return fault.Invalidf("%s is required", what)
	}
	if err := gitstore.ValidateID(s); err != nil {
		return fault.Invalidf("%s: %v", what, err)
	}
	return nil
}

// Validate checks a decision against the closed contract and the goal's
// configuration: the right fields for its kind and nothing else, reason
// codes and evidence always, targets among the supervised peers.
func (d *Decision) Validate(st *State, cfg *SupervisorConfig) error {
	return d.validate(st, cfg, false)
}

// validate is Validate with fork in the decision set when withFork: only
// on a clone whose fork gate passed.
func (d *Decision) validate(st *State, cfg *SupervisorConfig, withFork bool) error {
	if d.Schema != SchemaDecision {
		return fault.Invalidf("$.schema must be %q", SchemaDecision)
	}
	if err := idOK("$.decision_id", d.DecisionID); err != nil {
		return err
	}
	if _, ok := RequiredCapabilities[d.Kind]; !ok && !(withFork && d.Kind == KindFork) {
		return fault.Invalidf("$.kind %q is not one of observe, inject, handoff, discard", d.Kind)
	}
	if len(d.ReasonCodes) == 0 {
		return fault.Invalidf("$.reason_codes: at least one reason code is required")
	}
	for i, c := range d.ReasonCodes {
		if !codePattern.MatchString(c) {
			return fault.Invalidf("$.reason_codes[%d] %q is not a reason code (lowercase, digits, _)", i, c)
		}
	}
	if len(d.EvidenceRefs) == 0 {
		return fault.Invalidf("$.evidence_refs: at least one evidence reference is required")
	}
	for i, r := range d.EvidenceRefs {
		if strings.TrimSpace(r) == "" {
			return fault.Invalidf("$.evidence_refs[%d] is empty", i)
		}
	}
	need := map[string][]string{
		KindObserve: {},
		KindInject:  {"target", "message"},
		KindHandoff: {"source", "target", "state_ref"},
		KindDiscard: {"target", "state_ref"},
		KindFork:    {"source"},
	}[d.Kind]
	optional := map[string][]string{KindFork: {"target"}}[d.Kind]
	have := map[string]string{"target": d.Target, "source": d.Source, "message": d.Message, "state_ref": d.StateRef}
	for _, f := range need {
		if strings.TrimSpace(have[f]) == "" {
			return fault.Invalidf("$.%s is required for a %s decision", f, d.Kind)
		}
	}
	for f, v := range have {
		if v != "" && !contains(need, f) && !contains(optional, f) {
			return fault.Invalidf("$.%s does not belong in a %s decision", f, d.Kind)
		}
	}
	supervised := st.Supervised(cfg)
	for _, f := range []struct{ path, agent string }{{"$.target", d.Target}, {"$.source", d.Source}} {
		if f.agent == "" {
			continue
		}
		if f.agent == cfg.SupervisorAgent {
			return fault.Refusedf("%s names the supervisor itself; a supervisor proposes about the peers it observes", f.path)
		}
		if !contains(supervised, f.agent) {
			return fault.Refusedf("%s %q is not a peer this supervisor observes (%s)", f.path, f.agent, strings.Join(supervised, ", "))
		}
	}
	return nil
}

// ValidateCLI checks a receipt given on the CLI path: only rejected and
// failed receipts can be appended there.
func (r *ReceiptDoc) ValidateCLI(st *State, goal string) error {
	if r.Schema != SchemaReceipt {
		return fault.Invalidf("$.schema must be %q", SchemaReceipt)
	}
	if err := idOK("$.receipt_id", r.ReceiptID); err != nil {
		return err
	}
	if err := idOK("$.decision_id", r.DecisionID); err != nil {
		return err
	}
	switch r.Status {
	case StatusRejected, StatusFailed:
	case StatusExecuted:
		return fault.Refusedf("$.status executed can only be written by the host adapter path, which verifies capabilities itself (git agentproto supervisor inject --apply); the CLI records rejected and failed attempts")
	default:
		return fault.Invalidf("$.status %q is not rejected or failed", r.Status)
	}
	if strings.TrimSpace(r.Reason) == "" {
		return fault.Invalidf("$.reason is required")
	}
	if len(r.EvidenceRefs) == 0 {
		return fault.Invalidf("$.evidence_refs: at least one evidence reference is required")
	}
	if _, ok := st.Proposal(goal, r.DecisionID); !ok {
		return fault.Invalidf("$.decision_id %q names no proposal of goal %s", r.DecisionID, goal)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// MissingCapabilities lists, sorted, the capabilities of need that have
// lacks.
func MissingCapabilities(need, have []string) []string {
	var out []string
	for _, n := range need {
		if !contains(have, n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// recordID names a record for idempotency: same id and payload is a no-op,
// same id and other payload a conflict.
func recordID(goal, kind, id string) string {
	return fmt.Sprintf("supervisor/%s/%s/%s", goal, kind, id)
}
