package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/fork"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/peers"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/sessions"
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
		func(ctx context.Context, _ *sdk.CallToolRequest, in briefIn) (*Result, error) {
			name, text, err := e.frozenBrief(in.Project, in.WP)
			if err != nil {
				return nil, err
			}
			return &Result{Command: "plan brief", Doc: map[string]any{"project": in.Project, "wp": in.WP, "name": name, "text": text},
				Summary: fmt.Sprintf("%s of plan %s (%d bytes)", name, in.Project, len(text))}, nil
		})
	addTool(s, "my_changes", "Every path changed in your own worktree relative to its base (as `worktree changes --json`).",
		func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*Result, error) {
			m, err := e.ownWorktree()
			if err != nil {
				return nil, err
			}
			return e.changes(m.Slug)
		})
	addTool(s, "evidence_add", "Record a compact evidence reference under your own agent id.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in evidenceIn) (*Result, error) {
			svc, err := e.peers()
			if err != nil {
				return nil, err
			}
			agent, err := e.agent()
			if err != nil {
				return nil, err
			}
			if err := svc.AddEvidence(peers.Evidence{Goal: in.Goal, Agent: agent, Ref: in.Ref, Summary: in.Summary}); err != nil {
				return nil, err
			}
			return &Result{Command: "evidence add", Doc: map[string]any{"goal": in.Goal, "agent": agent, "ref": in.Ref, "recorded": true},
				Summary: "recorded evidence " + in.Ref}, nil
		})
	addTool(s, "quota_guard", "Your remaining turns; a spent quota is a tool error (exit 5).",
		func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*Result, error) {
			svc, err := e.peers()
			if err != nil {
				return nil, err
			}
			agent, err := e.agent()
			if err != nil {
				return nil, err
			}
			q, err := svc.QuotaGuard(agent, agent)
			if err != nil {
				return nil, err
			}
			return &Result{Command: "peer quota-guard", Doc: q, Summary: fmt.Sprintf("%s: %d turns used, %d left", agent, q.Turns, q.Remaining)}, nil
		})
}

func addPeerTools(s *sdk.Server, e *env) {
	addTool(s, "supervisor_observe", "The read-only observation packet of a goal's supervised peers.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in goalAgentIn) (*Result, error) {
			svc, err := e.peers()
			if err != nil {
				return nil, err
			}
			o, err := svc.Observe(in.Goal, in.Agent)
			if err != nil {
				return nil, err
			}
			return &Result{Command: "supervisor observe", Doc: o, Summary: "observation of goal " + in.Goal}, nil
		})
	addTool(s, "supervisor_propose", "Validate a supervisor_decision_v0 (observe, inject, handoff, discard; fork where the clone's fork mode is on and its host check passes) and, with apply, record it as supervisor_proposed. A proposal never proves anything happened.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in proposeIn) (*Result, error) {
			return recordPeerDoc(e, "supervisor event propose", "the decision", in.Decision, func(svc *peers.Service, d *peers.Decision) (any, bool, error) {
				return svc.Propose(in.Goal, in.Agent, d, in.Apply)
			}, in.Apply)
		})
	addTool(s, "supervisor_receipt", "Validate a rejected or failed supervisor_receipt_v0 and, with apply, record it. An executed receipt is refused (exit 5): only the host adapter path writes one.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in receiptIn) (*Result, error) {
			return recordPeerDoc(e, "supervisor event receipt", "the receipt", in.Receipt, func(svc *peers.Service, r *peers.ReceiptDoc) (any, bool, error) {
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
func recordPeerDoc[T any](e *env, command, what string, raw json.RawMessage, act func(*peers.Service, *T) (any, bool, error), apply bool) (*Result, error) {
	svc, err := e.peers()
	if err != nil {
		return nil, err
	}
	var doc T
	if err := peers.DecodeStrict(raw, what, &doc); err != nil {
		return nil, err
	}
	out, written, err := act(svc, &doc)
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
	return &Result{Command: command, Doc: out, Summary: sum}, nil
}

func (e *env) peers() (*peers.Service, error) {
	l, err := e.ledger()
	if err != nil {
		return nil, err
	}
	// The CLI's service, fork joined the same way: a fork decision is
	// admitted only where the clone's host check passes, and the packet
	// lists the live branches and the plans' waiting decisions.
	waiting := func() (any, []error, error) { return pipeline.AllWaitingDecisions(e.repo.WorkTree, l) }
	return fork.Peers(e.repo, l, func() (*fork.Service, error) {
		cfg, err := e.config()
		if err != nil {
			return nil, err
		}
		host := fork.SessionsHost{Repo: e.repo, Config: cfg, Client: func() (*sessions.Client, error) { return e.sessions(), nil }}
		return &fork.Service{Repo: e.repo, Ledger: l, Host: host, MaxBranches: cfg.Fork.MaxBranches, Worktree: cfg.Worktree}, nil
	}, waiting), nil
}

func (e *env) agent() (string, error) {
	if e.opts.Agent == "" {
		return "", fault.Invalidf("this executor server was started without --agent: it has no peer id to act as")
	}
	return e.opts.Agent, nil
}

// ownWorktree is the agentproto worktree this server runs in.
func (e *env) ownWorktree() (*worktree.Meta, error) {
	all, err := worktree.All(e.repo)
	if err != nil {
		return nil, err
	}
	here, _ := filepath.EvalSymlinks(e.repo.WorkTree)
	for _, m := range all {
		p, _ := filepath.EvalSymlinks(m.Path)
		if m.Path == e.repo.WorkTree || (p != "" && p == here) {
			return m, nil
		}
	}
	return nil, fault.Refusedf("%s is not an agentproto worktree; an executor reads only its own worktree's changes", e.repo.WorkTree)
}

// frozenBrief reads a work package's brief as frozen: the attachment of
// the plan_frozen event, not the working file an agent may have edited.
func (e *env) frozenBrief(project, wpID string) (name, text string, err error) {
	if err := plans.ValidateProject(project); err != nil {
		return "", "", err
	}
	if err := plans.ValidateWPID(wpID); err != nil {
		return "", "", err
	}
	l := e.readLedger()
	h, err := plans.ReadHistory(l, project)
	if err != nil {
		return "", "", err
	}
	if h.Frozen == nil {
		return "", "", fault.Invalidf("plan %s is not frozen", project)
	}
	for _, wp := range h.Frozen.WPs {
		if wp.ID != wpID {
			continue
		}
		name = wp.Brief
		if name == "" {
			name = wp.ID + "-brief.md"
		}
		name = filepath.Base(name)
		b, err := e.frozenFile(h.Frozen.RecordID, name)
		return name, string(b), err
	}
	return "", "", fault.Invalidf("plan %s has no work package %s", project, wpID)
}

// frozenFile reads one file attached to a plan_frozen event.
func (e *env) frozenFile(record, name string) ([]byte, error) {
	ev, _, err := e.readLedger().Get(record)
	if err != nil {
		return nil, err
	}
	for _, a := range ev.Attachments {
		if a.Name == name {
			return e.repo.Git("cat-file", "blob", a.OID)
		}
	}
	return nil, fault.Invalidf("the frozen plan %s has no %s", record, name)
}
