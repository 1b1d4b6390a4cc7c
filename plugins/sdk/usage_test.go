package sdk

import (
	"testing"

	"github.com/agentproto/agentproto/plugins/internal/proto"
)

// ReportUsage reaches the wire through the SDK's emitter with every field.
func TestReportUsageSendsAUsageEvent(t *testing.T) {
	l := newEventLog()
	ReportUsage(emitter{log: l}, Usage{Model: "m", InputTokens: 10, CachedInputTokens: 20, CacheCreationTokens: 30, OutputTokens: 40, CostUSD: 0.25, HasCost: true, Final: true})
	if len(l.events) != 1 || l.events[0].Kind != proto.EventKind_EVENT_KIND_USAGE {
		t.Fatalf("events: %v", l.events)
	}
	u := l.events[0].Usage
	if u.Model != "m" || u.InputTokens != 10 || u.CachedInputTokens != 20 || u.CacheCreationTokens != 30 || u.OutputTokens != 40 ||
		u.CostUsd != 0.25 || !u.HasCost || !u.Final {
		t.Fatalf("usage on the wire: %+v", u)
	}
}

// An emitter that takes no usage (a test's recorder) is skipped, not
// broken.
func TestReportUsageToAPlainEmitter(t *testing.T) {
	ReportUsage(plain{}, Usage{InputTokens: 1})
}
