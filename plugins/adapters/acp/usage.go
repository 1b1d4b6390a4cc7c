package acp

import (
	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// reportUsage passes on the usage a session/prompt response carries
// (unstable in ACP, sent by few agents) as the turn's account. An agent
// that sends none leaves the turn's usage unknown to the host, never
// zero. session/update usage_update is not read: its used/size is the
// context window's occupancy, not spend.
//
// The schema calls the response's usage the turn's while its fields say
// "across all turns"; it is taken as the turn's, and cache reads and
// writes as apart from inputTokens, so a doubtful count is high, never
// low.
func reportUsage(out sdk.Emitter, model string, u *acpsdk.Usage) {
	if u == nil {
		return
	}
	r := sdk.Usage{Model: model, InputTokens: int64(u.InputTokens), OutputTokens: int64(u.OutputTokens), Final: true}
	if u.CachedReadTokens != nil {
		r.CachedInputTokens = int64(*u.CachedReadTokens)
	}
	if u.CachedWriteTokens != nil {
		r.CacheCreationTokens = int64(*u.CachedWriteTokens)
	}
	sdk.ReportUsage(out, r)
}
