package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/spend"
)

// spendReportIn is a supervisor's report of its own spend.
type spendReportIn struct {
	Plan       string   `json:"plan" jsonschema:"the plan the spend was for"`
	ID         string   `json:"id" jsonschema:"names the report: sending it again records it once"`
	Model      string   `json:"model,omitempty" jsonschema:"your model, to price tokens from [prices]"`
	Input      int64    `json:"input_tokens,omitempty" jsonschema:"uncached input tokens"`
	Cached     int64    `json:"cached_input_tokens,omitempty" jsonschema:"input tokens read from the provider's cache"`
	CacheWrite int64    `json:"cache_creation_tokens,omitempty" jsonschema:"input tokens written to the provider's cache"`
	Output     int64    `json:"output_tokens,omitempty" jsonschema:"output tokens"`
	USD        *float64 `json:"usd,omitempty" jsonschema:"the cost in US dollars, when you know it"`
	Note       string   `json:"note,omitempty" jsonschema:"what the spend was for"`
}

type spendShowIn struct{}

// spendReportDoc is what spend_report answers: the turn as recorded, and
// whether it was written now or found already recorded.
type spendReportDoc struct {
	Written bool       `json:"written"`
	Turn    spend.Turn `json:"turn"`
}

// addSpendTools: the roll-up of what the agents cost, and the supervisor's
// report of its own spend (the CLI's spend show and spend report).
func addSpendTools(s *sdk.Server, e *env) {
	addTool(s, "spend_report", "Record your own spend (the supervisor's) for a plan, so that the plan's total is whole: "+
		"the executors' spend is recorded by the sessions daemon turn by turn. Tokens are priced from [prices] unless usd is given.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in spendReportIn) (*Result[spendReportDoc], error) {
			r := app.SupervisorSpend{Plan: in.Plan, ID: in.ID, Model: in.Model, InputTokens: in.Input, CachedInputTokens: in.Cached,
				CacheCreationTokens: in.CacheWrite, OutputTokens: in.Output, Note: in.Note}
			if in.USD != nil {
				r.CostUSD, r.HasCost = *in.USD, true
			}
			t, written, err := e.app.ReportSupervisorSpend(ctx, r)
			if err != nil {
				return nil, err
			}
			sum := fmt.Sprintf("recorded: %d tokens, $%.4f", t.Tokens(), t.CostUSD)
			switch {
			case !written:
				sum = "this report is already recorded; nothing written"
			case t.CostFrom == "":
				sum = fmt.Sprintf("recorded: %d tokens, cost unknown (no price for %q in [prices])", t.Tokens(), t.Model)
			}
			return &Result[spendReportDoc]{Command: "spend report", Doc: spendReportDoc{Written: written, Turn: t}, Summary: sum}, nil
		})
	addTool(s, "spend_show", "What the agents cost: tokens and dollars per plan (executors and supervisor), work package, session and UTC day. "+
		"Turns whose agent reported nothing are counted as unknown, never as zero.",
		func(ctx context.Context, _ *sdk.CallToolRequest, _ spendShowIn) (*Result[*spend.Rollup], error) {
			r, err := e.app.Spend(ctx)
			if err != nil {
				return nil, err
			}
			return &Result[*spend.Rollup]{Command: "spend show", Doc: r, Summary: "all: " + r.All.String()}, nil
		})
}
