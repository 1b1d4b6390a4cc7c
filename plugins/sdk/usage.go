package sdk

import "github.com/agentproto/agentproto/plugins/internal/proto"

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
