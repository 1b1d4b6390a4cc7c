package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plans"
)

type initIn struct {
	Remote string `json:"remote,omitempty" jsonschema:"the remote that gets the ledger's fetch refspec (default origin; none is added when it does not exist)"`
}

type planNewIn struct {
	Project string      `json:"project" jsonschema:"the plan name: .plans/PROJECT"`
	Base    string      `json:"base,omitempty" jsonschema:"base revision of a new plan (default: the current branch)"`
	Gate    string      `json:"gate,omitempty" jsonschema:"gate command of a new plan (default: [plans] gate)"`
	WPs     []app.NewWP `json:"wps,omitempty" jsonschema:"work packages to add, each {id, title}; WP0, the contract, comes with a new plan"`
}

type planWriteIn struct {
	Project string            `json:"project" jsonschema:"the plan name (made by plan_new)"`
	Files   map[string]string `json:"files" jsonschema:"file name to its whole new content: plan.toml, SPEC.md, CONTRACT.md or WPn-brief.md"`
}

type planWriteDoc struct {
	Written []string      `json:"written"`
	Check   *plans.Report `json:"check" jsonschema:"the plan checked after the write, as plan_check reports it"`
}

type goalIn struct {
	ID    string `json:"id" jsonschema:"goal id"`
	Title string `json:"title" jsonschema:"what the goal is"`
}

type goalDoc struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Written bool   `json:"written" jsonschema:"false when this goal exists already with this title"`
}

// addSetupTools are what a supervisor needs before a plan runs, so none
// of it sends it back to the shell.
func addSetupTools(s *sdk.Server, e *env) {
	addTool(s, "init", "Prepare this clone for agentproto, changing only what is missing: the ledger writer id, the ledger's fetch refspec, "+
		"a commented agentproto.toml, .plans/ kept out of commits. Safe to call again; first call of a repository that never used agentproto.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in initIn) (*Result[*app.Initialized], error) {
			r, err := e.app.Init(ctx, in.Remote)
			if err != nil {
				return nil, err
			}
			sum := fmt.Sprintf("initialised (writer %s): %s", r.Writer, strings.Join(r.Changed, "; "))
			if len(r.Changed) == 0 {
				sum = fmt.Sprintf("already initialised (writer %s)", r.Writer)
			}
			return &Result[*app.Initialized]{Command: "init", Doc: r, Summary: sum}, nil
		})
	addTool(s, "plan_new", "Create a plan from the templates (plan.toml, SPEC.md, CONTRACT.md, WP0-brief.md) when it does not exist, "+
		"and add work packages, each a brief with the contract block and a [[wp]] entry. Then write their content with plan_write.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in planNewIn) (*Result[*app.NewPlanned], error) {
			r, err := e.app.NewPlan(ctx, app.NewPlanOptions{Name: in.Project, Base: in.Base, Gate: in.Gate, WPs: in.WPs})
			if err != nil {
				if r != nil && len(r.Written) > 0 {
					return &Result[*app.NewPlanned]{Command: "plan new", Doc: r, Fail: err}, nil
				}
				return nil, err
			}
			return &Result[*app.NewPlanned]{Command: "plan new", Doc: r,
				Summary: fmt.Sprintf("plan %s: wrote %s; fill them in with plan_write", r.Project, strings.Join(r.Written, ", "))}, nil
		})
	addTool(s, "plan_write", "Write files of a plan whole (plan.toml, SPEC.md, CONTRACT.md, WPn-brief.md), then check the plan as plan_check does: "+
		"the check is in the result, and a plan with errors is a tool error carrying it (the files stay written: fix them with another plan_write). "+
		"Before a freeze only; after it, correct the SPEC with plan_amend.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in planWriteIn) (*Result[planWriteDoc], error) {
			written, rep, err := e.app.WritePlanFiles(ctx, in.Project, in.Files)
			if err != nil {
				return nil, err
			}
			res := &Result[planWriteDoc]{Command: "plan write", Doc: planWriteDoc{Written: written, Check: rep},
				Summary: fmt.Sprintf("wrote %d files; plan %s: %d errors, %d warnings", len(written), in.Project, rep.Errors, rep.Warnings)}
			if !rep.OK {
				res.Fail = fmt.Errorf("wrote %s; plan %s has %d errors: see check", strings.Join(written, ", "), in.Project, rep.Errors)
			}
			return res, nil
		})
	addTool(s, "goal_new", "Record a goal: the unit peers claim work under, gather evidence for and a supervisor observes (supervisor_observe).",
		func(ctx context.Context, _ *sdk.CallToolRequest, in goalIn) (*Result[goalDoc], error) {
			if strings.TrimSpace(in.Title) == "" {
				return nil, fault.Invalidf("a goal needs a title")
			}
			written, err := e.app.NewGoal(ctx, in.ID, in.Title)
			if err != nil {
				return nil, err
			}
			sum := "created goal " + in.ID
			if !written {
				sum = "goal " + in.ID + " already exists with that title"
			}
			return &Result[goalDoc]{Command: "goal new", Doc: goalDoc{ID: in.ID, Title: in.Title, Written: written}, Summary: sum}, nil
		})
}
