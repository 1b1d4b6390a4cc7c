package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plans"
)

type ledgerLogIn struct {
	Kind    string `json:"kind,omitempty" jsonschema:"only events of this kind"`
	Limit   int    `json:"limit,omitempty" jsonschema:"at most this many events (default 50, at most 1000)"`
	Reverse bool   `json:"reverse,omitempty" jsonschema:"oldest first"`
}

func addLedgerTools(s *sdk.Server, e *env) {
	addTool(s, "ledger_log", "List ledger events, newest first (50 by default, at most 1000): each item is one event envelope exactly as stored (as `ledger log --json`). "+
		"The raw history: for where a plan stands prefer plan_status and dispatch_status.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in ledgerLogIn) (*Result[[]json.RawMessage], error) {
			switch {
			case in.Limit < 0 || in.Limit > maxLogEvents:
				return nil, fault.Invalidf("limit must be between 1 and %d, got %d", maxLogEvents, in.Limit)
			case in.Limit == 0:
				in.Limit = defaultLogEvents
			}
			items, err := e.app.LedgerLog(ctx, app.LogOptions{Kind: in.Kind, Limit: in.Limit, Reverse: in.Reverse})
			if err != nil {
				return nil, err
			}
			summary := fmt.Sprintf("%d events", len(items))
			if len(items) == in.Limit {
				summary += fmt.Sprintf(" (there may be more: ask with a larger limit, up to %d, or a kind)", maxLogEvents)
			}
			return &Result[[]json.RawMessage]{Command: "ledger log", Doc: items, Summary: summary}, nil
		})
}

type projectIn struct {
	Project string `json:"project" jsonschema:"the plan name (.plans/PROJECT)"`
}

type renderIn struct {
	Project string `json:"project" jsonschema:"the plan name"`
	WP      string `json:"wp" jsonschema:"the work package id, such as WP1"`
}

type amendIn struct {
	Project    string `json:"project" jsonschema:"the plan name"`
	Correction string `json:"correction" jsonschema:"the corrected fact, appended to the SPEC as a dated CORRECTION"`
}

type answerIn struct {
	Project string `json:"project" jsonschema:"the plan name"`
	WP      string `json:"wp" jsonschema:"the waiting work package"`
	Choice  string `json:"choice" jsonschema:"the supervisor's choice (one of the options, or another answer)"`
}

type lessonIn struct {
	Text string   `json:"text" jsonschema:"the lesson"`
	Tags []string `json:"tags,omitempty" jsonschema:"tags; plan render includes lessons sharing a tag with the plan"`
}

func addPlanTools(s *sdk.Server, e *env) {
	addTool(s, "plan_check", "Check a plan: perimeters, contract blocks, briefs, dependencies. Findings are data; a plan with errors is a tool error carrying them.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in projectIn) (*Result[*plans.Report], error) {
			p, rep, err := e.app.CheckPlan(ctx, in.Project)
			if err != nil {
				return nil, err
			}
			res := &Result[*plans.Report]{Command: "plan check", Doc: rep,
				Summary: fmt.Sprintf("plan %s: %d errors, %d warnings", rep.Project, rep.Errors, rep.Warnings)}
			if !rep.OK {
				res.Fail = fmt.Errorf("plan %s has %d errors", p.Name, rep.Errors)
			}
			return res, nil
		})
	addTool(s, "plan_freeze", "Record the checked plan in the ledger (plan_frozen, every file attached). Refused (exit 5) while the check has errors.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in projectIn) (*Result[freezeDoc], error) {
			f, err := e.app.FreezePlan(ctx, in.Project)
			var pe *app.PlanErrors
			if errors.As(err, &pe) {
				return nil, fault.Refusedf("%v; nothing was recorded (run plan_check)", pe)
			}
			if err != nil {
				return nil, err
			}
			p, fr, written := f.Project, f.Frozen, f.Written
			sum := fmt.Sprintf("froze plan %s as %s (%d files)", p.Name, fr.RecordID, len(fr.Files))
			if !written {
				sum = fmt.Sprintf("plan %s is already frozen as %s; nothing written", p.Name, fr.RecordID)
			}
			return &Result[freezeDoc]{Command: "plan freeze", Doc: freezeDoc{Record: fr.RecordID, Written: written, Files: fr.Files}, Summary: sum}, nil
		})
	addTool(s, "plan_status", "Show drift of the plan's working files against the frozen version, and the work packages waiting_decision "+
		"(stopped on a question: its options and default; answer with plan_answer), and its pull request as pr watch last saw it "+
		"(state, reactions pending with their retries left, escalations waiting for the supervisor with what was tried: answer them with pr_answer).",
		func(ctx context.Context, _ *sdk.CallToolRequest, in projectIn) (*Result[*app.PlanStatus], error) {
			p, st, err := e.app.PlanStatus(ctx, in.Project)
			if err != nil {
				return nil, err
			}
			if !st.Frozen {
				return &Result[*app.PlanStatus]{Command: "plan status", Doc: st, Summary: fmt.Sprintf("plan %s is not frozen", p.Name)}, nil
			}
			changed := 0
			for _, d := range st.Files {
				if d.State != "unchanged" {
					changed++
				}
			}
			sum := fmt.Sprintf("plan %s frozen as %s; %d files drifted, %d amendments", p.Name, st.Record, changed, st.Amendments)
			for _, w := range st.Waiting {
				sum += fmt.Sprintf("; %s waiting_decision: %s", w.WP, w.Stop.Question)
			}
			if pr := st.PR; pr != nil {
				sum += fmt.Sprintf("; pull request #%d %s, %d reactions pending", pr.PR.Number, pr.PR.State, len(pr.Pending))
				for _, p := range pr.Pending {
					if p.Escalated {
						sum += fmt.Sprintf("; %s waits for you (pr_answer): %s", p.Item, p.Reason)
					}
				}
			}
			return &Result[*app.PlanStatus]{Command: "plan status", Doc: st, Summary: sum}, nil
		})
	addTool(s, "plan_answer", "Answer the question a waiting_decision work package stopped on: the choice is recorded in the SPEC as a dated DECISION "+
		"and sent to the WP's live session; its policy (or verify) checks it at the turn's end. Refused (exit 5) for a WP that is not waiting.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in answerIn) (*Result[*pipeline.Answer], error) {
			_, a, err := e.app.AnswerDecision(ctx, in.Project, in.WP, in.Choice)
			if a == nil {
				return nil, err
			}
			if err != nil {
				// Recorded, not sent: the document says so.
				return &Result[*pipeline.Answer]{Command: "plan answer", Doc: a, Fail: err}, nil
			}
			sum := fmt.Sprintf("recorded the answer for %s and sent it to session %s; verify it when its turn ends", a.WP, a.Session)
			if !a.Recorded {
				sum = "this answer is already recorded; nothing written or sent"
			}
			if a.OffOptions {
				sum += " (the choice is none of the options the session offered)"
			}
			return &Result[*pipeline.Answer]{Command: "plan answer", Doc: a, Summary: sum}, nil
		})
	addTool(s, "plan_render", "The executor's session prompt for one work package: a pointer to its frozen brief and the overrides.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in renderIn) (*Result[*app.Prompt], error) {
			pr, err := e.app.RenderPrompt(ctx, in.Project, in.WP)
			if err != nil {
				return nil, err
			}
			return &Result[*app.Prompt]{Command: "plan render", Doc: pr,
				Summary: fmt.Sprintf("prompt for %s of plan %s (%d bytes)", in.WP, pr.Project, len(pr.Prompt))}, nil
		})
	addTool(s, "plan_amend", "Append a dated CORRECTION to the plan's SPEC and record it in the ledger.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in amendIn) (*Result[amendDoc], error) {
			if strings.TrimSpace(in.Correction) == "" {
				return nil, fault.Invalidf("correction is empty")
			}
			p, recorded, err := e.app.AmendPlan(ctx, in.Project, "SPEC.md", in.Correction)
			if err != nil {
				return nil, err
			}
			sum := "appended a CORRECTION to the SPEC and recorded it"
			if !recorded {
				sum = "this correction is already recorded; nothing written"
			}
			return &Result[amendDoc]{Command: "plan amend", Doc: amendDoc{Project: p.Name, Recorded: recorded}, Summary: sum}, nil
		})
	addTool(s, "lesson_add", "Record a lesson: the next supervisor and every executor prompt of a plan sharing a tag learn it.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in lessonIn) (*Result[writtenDoc], error) {
			written, err := e.app.AddLesson(ctx, in.Text, in.Tags)
			if err != nil {
				return nil, err
			}
			sum := "recorded the lesson"
			if !written {
				sum = "this lesson is already recorded"
			}
			return &Result[writtenDoc]{Command: "lesson add", Doc: writtenDoc{Written: written}, Summary: sum}, nil
		})
}

// Bounds of ledger_log: a whole ledger is hundreds of KiB in a client's
// context; the newest events are what a supervisor asks for.
const (
	defaultLogEvents = 50
	maxLogEvents     = 1000
)
