package app

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/spend"
)

// SupervisorSpend is what a supervisor (the LLM driving agentproto through
// MCP or the CLI) reports it used for a plan, so that the plan's total is
// whole: the executors' spend is recorded by the sessions daemon, the
// supervisor's own only it can tell.
type SupervisorSpend struct {
	Plan string
	// ID names the report: sending one again with the same id and figures
	// is a no-op, with other figures a conflict.
	ID                  string
	Model               string
	InputTokens         int64
	CachedInputTokens   int64
	CacheCreationTokens int64
	OutputTokens        int64
	// CostUSD is the supervisor's own figure when HasCost; without it the
	// tokens are priced from [prices].
	CostUSD float64
	HasCost bool
	Note    string
}

// ReportSupervisorSpend records a supervisor's spend for a plan; false
// when the same report was recorded before.
func (e *Env) ReportSupervisorSpend(ctx context.Context, s SupervisorSpend) (spend.Turn, bool, error) {
	if err := plans.ValidateProject(s.Plan); err != nil {
		return spend.Turn{}, false, err
	}
	if s.ID == "" {
		return spend.Turn{}, false, fault.Invalidf("a spend report needs an id (--id), so that sending it again records it once")
	}
	for _, n := range []int64{s.InputTokens, s.CachedInputTokens, s.CacheCreationTokens, s.OutputTokens} {
		if n < 0 {
			return spend.Turn{}, false, fault.Invalidf("token counts cannot be negative")
		}
	}
	if s.HasCost && (s.CostUSD < 0 || math.IsNaN(s.CostUSD) || math.IsInf(s.CostUSD, 0)) {
		return spend.Turn{}, false, fault.Invalidf("%v is not a cost in US dollars", s.CostUSD)
	}
	if s.InputTokens+s.CachedInputTokens+s.CacheCreationTokens+s.OutputTokens == 0 && !s.HasCost {
		return spend.Turn{}, false, fault.Invalidf("a spend report needs tokens or a cost")
	}
	cfg, err := e.Config()
	if err != nil {
		return spend.Turn{}, false, err
	}
	l, err := e.Ledger()
	if err != nil {
		return spend.Turn{}, false, err
	}
	t := spend.Priced(0, time.Now(), s.Model, spend.Report{InputTokens: s.InputTokens, CachedInputTokens: s.CachedInputTokens,
		CacheCreationTokens: s.CacheCreationTokens, OutputTokens: s.OutputTokens, CostUSD: s.CostUSD, HasCost: s.HasCost, Final: true}, cfg.Prices)
	res, err := spend.RecordSupervisor(l, spend.SupervisorEvent{Plan: s.Plan, ID: s.ID, Turn: t, Note: s.Note})
	if err != nil {
		return t, false, fmt.Errorf("recording the supervisor's spend: %w", err)
	}
	return t, len(res.Written) > 0, nil
}

// Spend is the roll-up of every usage event in the ledger: per session,
// work package, plan (executors and supervisor) and day.
func (e *Env) Spend(ctx context.Context) (*spend.Rollup, error) {
	l, err := e.ReadLedger()
	if err != nil {
		return nil, err
	}
	r, _, err := spend.Read(l)
	return r, err
}
