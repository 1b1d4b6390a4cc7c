package sdk

import "github.com/agentproto/agentproto/plugins/internal/proto"

// Usage is what one turn has used so far, as the agent reported it.
// Token counts are the provider's: InputTokens are the uncached input,
// CachedInputTokens the input read from the provider's cache (billed at a
// fraction), CacheCreationTokens the input written to it (billed above
// the input price). A turn whose agent reports nothing sends no Usage at
// all, and is recorded as unknown, never as zero.
type Usage struct {
	Model               string
	InputTokens         int64
	CachedInputTokens   int64
	CacheCreationTokens int64
	OutputTokens        int64
	// CostUSD is the agent's own figure, when HasCost; without one the
	// host prices the tokens from its price table, if it has the model.
	CostUSD float64
	HasCost bool
	// Final marks the agent's own account of the whole turn (claude's
	// result line, codex's turn.completed), which corrects any running
	// figure sent before it.
	Final bool
}

// UsageEmitter is an Emitter that takes usage reports. The SDK's own
// emitter is one; an adapter reports through ReportUsage, so that test
// emitters need not implement it.
type UsageEmitter interface {
	Usage(u Usage)
}

// ReportUsage reports what the current turn has used so far: each report
// replaces the previous one of the same turn (it is a running total, not
// an increment), so an agent that reports per model call and again at the
// end of the turn is never counted twice.
func ReportUsage(out Emitter, u Usage) {
	if ue, ok := out.(UsageEmitter); ok {
		ue.Usage(u)
	}
}

func (e emitter) Usage(u Usage) {
	e.log.add(&proto.Event{Kind: proto.EventKind_EVENT_KIND_USAGE, Usage: &proto.Usage{
		Model: u.Model, InputTokens: u.InputTokens, CachedInputTokens: u.CachedInputTokens,
		CacheCreationTokens: u.CacheCreationTokens, OutputTokens: u.OutputTokens,
		CostUsd: u.CostUSD, HasCost: u.HasCost, Final: u.Final,
	}})
}
