package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/peers"
	"github.com/agentproto/agentproto/worktree"
)

type briefIn struct {
	Project string `json:"project" jsonschema:"the plan name"`
	WP      string `json:"wp" jsonschema:"the work package id"`
}

type evidenceIn struct {
	Goal    string `json:"goal" jsonschema:"goal id"`
	Ref     string `json:"ref" jsonschema:"a compact reference: a commit, a file:line, a session id"`
	Summary string `json:"summary" jsonschema:"what it shows, in one line"`
}

type goalAgentIn struct {
	Goal  string `json:"goal" jsonschema:"goal id"`
	Agent string `json:"agent" jsonschema:"the supervisor's agent id"`
}

// addExecutorTools are all an executor gets: what it may do on itself.
func addExecutorTools(s *sdk.Server, e *env) {
	addTool(s, "brief_read", "Your frozen brief, as recorded in the ledger when the plan was frozen.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in briefIn) (*Result[briefDoc], error) {
			name, text, err := e.app.FrozenBrief(ctx, in.Project, in.WP)
			if err != nil {
				return nil, err
			}
			return &Result[briefDoc]{Command: "plan brief", Doc: briefDoc{Project: in.Project, WP: in.WP, Name: name, Text: text},
				Summary: fmt.Sprintf("%s of plan %s (%d bytes)", name, in.Project, len(text))}, nil
		})
	addTool(s, "my_changes", "Every path changed in your own worktree relative to its base (as `worktree changes --json`).",
		func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*Result[[]worktree.Change], error) {
			m, err := e.app.OwnWorktree(ctx)
			if err != nil {
				return nil, err
			}
			return e.changes(ctx, m.Slug)
		})
	addTool(s, "evidence_add", "Record a compact evidence reference under your own agent id.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in evidenceIn) (*Result[evidenceDoc], error) {
			agent, err := e.agent()
			if err != nil {
				return nil, err
			}
			if err := e.app.AddEvidence(ctx, peers.Evidence{Goal: in.Goal, Agent: agent, Ref: in.Ref, Summary: in.Summary}); err != nil {
				return nil, err
			}
			return &Result[evidenceDoc]{Command: "evidence add", Doc: evidenceDoc{Goal: in.Goal, Agent: agent, Ref: in.Ref, Recorded: true},
				Summary: "recorded evidence " + in.Ref}, nil
		})
	addTool(s, "quota_guard", "Your remaining turns; a spent quota is a tool error (exit 5).",
		func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*Result[*peers.Quota], error) {
			agent, err := e.agent()
			if err != nil {
				return nil, err
			}
			q, err := e.app.QuotaGuard(ctx, agent, agent)
			if err != nil {
				return nil, err
			}
			return &Result[*peers.Quota]{Command: "peer quota-guard", Doc: q, Summary: fmt.Sprintf("%s: %d turns used, %d left", agent, q.Turns, q.Remaining)}, nil
		})
}

func addPeerTools(s *sdk.Server, e *env) {
	addTool(s, "supervisor_observe", "The read-only observation packet of a goal's supervised peers.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in goalAgentIn) (*Result[*peers.Observation], error) {
			o, err := e.app.ObserveGoal(ctx, in.Goal, in.Agent)
			if err != nil {
				return nil, err
			}
			return &Result[*peers.Observation]{Command: "supervisor observe", Doc: o, Summary: "observation of goal " + in.Goal + " · spend " + o.Spend.All.String()}, nil
		})
	addTool(s, "supervisor_propose", "Validate a supervisor_decision_v0 (observe, inject, handoff, discard; fork where the clone's fork mode is on and its host check passes) and, with apply, record it as supervisor_proposed. A proposal never proves anything happened.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in proposeIn) (*Result[*peers.Proposal], error) {
			return recordPeerDoc(ctx, e, "supervisor event propose", "the decision", in.Decision, func(svc *peers.Service, d *peers.Decision) (*peers.Proposal, bool, error) {
				return svc.Propose(in.Goal, in.Agent, d, in.Apply)
			}, in.Apply)
		})
	addTool(s, "supervisor_receipt", "Validate a rejected or failed supervisor_receipt_v0 and, with apply, record it. An executed receipt is refused (exit 5): only the host adapter path writes one.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in receiptIn) (*Result[*peers.Receipt], error) {
			return recordPeerDoc(ctx, e, "supervisor event receipt", "the receipt", in.Receipt, func(svc *peers.Service, r *peers.ReceiptDoc) (*peers.Receipt, bool, error) {
				return svc.RecordReceipt(in.Goal, in.Agent, r, in.Apply)
			}, in.Apply)
		})
}

type proposeIn struct {
	Goal     string          `json:"goal" jsonschema:"goal id"`
	Agent    string          `json:"agent" jsonschema:"the supervisor's agent id"`
	Decision json.RawMessage `json:"decision" jsonschema:"a supervisor_decision_v0 object"`
	Apply    bool            `json:"apply,omitempty" jsonschema:"record it (otherwise only validated)"`
}

type receiptIn struct {
	Goal    string          `json:"goal" jsonschema:"goal id"`
	Agent   string          `json:"agent" jsonschema:"the supervisor's agent id"`
	Receipt json.RawMessage `json:"receipt" jsonschema:"a supervisor_receipt_v0 object, rejected or failed (executed is the host's alone)"`
	Apply   bool            `json:"apply,omitempty" jsonschema:"record it (otherwise only validated)"`
}

// recordPeerDoc decodes a peer protocol document strictly and validates
// or records it, as `supervisor event propose|receipt` do.
func recordPeerDoc[T, Out any](ctx context.Context, e *env, command, what string, raw json.RawMessage, act func(*peers.Service, *T) (Out, bool, error), apply bool) (*Result[Out], error) {
	out, written, err := app.RecordPeerDoc(ctx, e.app, raw, what, act)
	if err != nil {
		return nil, err
	}
	sum := "valid; nothing recorded (give apply)"
	switch {
	case apply && written:
		sum = "recorded"
	case apply:
		sum = "already recorded with the same content"
	}
	return &Result[Out]{Command: command, Doc: out, Summary: sum}, nil
}

func (e *env) agent() (string, error) {
	if e.opts.Agent == "" {
		return "", fault.Invalidf("this executor server was started without --agent: it has no peer id to act as")
	}
	return e.opts.Agent, nil
}
