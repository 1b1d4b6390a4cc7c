package claudecode

import (
	"encoding/json"

	"github.com/agentproto/agentproto/plugins/adapters/cliturn"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// claude's stream-json reports usage twice (measured with 2.1.328): each
// assistant line carries its model call's usage as the call began, its
// input and cache tokens exact and output_tokens 1, repeated on every
// line of that call; the result line carries the turn's totals and
// total_cost_usd, claude's own price of them, which, unlike the tokens,
// is the whole session's after --resume (measured: a second turn's
// total_cost_usd held the first turn's cost too); the turn's own is what
// it grew by since the session's previous result. The adapter reports a
// running figure per model call, so a budget can stop a turn that is
// still going, and the result as the turn's final account.

// usageFields is the Messages API's usage object as claude passes it on.
type usageFields struct {
	Input         int64 `json:"input_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
	Output        int64 `json:"output_tokens"`
}

// turnUsage is what a turn's model calls reported so far, by message id.
type turnUsage struct {
	calls map[string]usageFields
	model string
	sent  usageFields
}

func (u *turnUsage) reset() { *u = turnUsage{calls: map[string]usageFields{}} }

// message is the part of an assistant message that says what it used.
type message struct {
	ID    string       `json:"id"`
	Model string       `json:"model"`
	Usage *usageFields `json:"usage"`
}

// call takes an assistant line's usage and reports the running total
// when it moved.
func (d *driver) call(t *cliturn.Turn, raw json.RawMessage) {
	var m message
	if json.Unmarshal(raw, &m) != nil || m.Usage == nil || m.ID == "" {
		return
	}
	d.mu.Lock()
	u := &d.usage
	if u.calls == nil {
		u.reset()
	}
	u.calls[m.ID] = *m.Usage
	if m.Model != "" {
		u.model = m.Model
	}
	var sum usageFields
	for _, c := range u.calls {
		sum.Input += c.Input
		sum.CacheCreation += c.CacheCreation
		sum.CacheRead += c.CacheRead
		sum.Output += c.Output
	}
	moved := sum != u.sent
	u.sent = sum
	model := u.model
	d.mu.Unlock()
	if moved {
		sdk.ReportUsage(t.Out, sdk.Usage{Model: model, InputTokens: sum.Input, CachedInputTokens: sum.CacheRead,
			CacheCreationTokens: sum.CacheCreation, OutputTokens: sum.Output})
	}
}

// final reports the result line's totals and claude's cost of them.
func (d *driver) final(t *cliturn.Turn, l *line) {
	if l.Usage == nil {
		return
	}
	d.mu.Lock()
	model := d.usage.model
	d.mu.Unlock()
	if len(l.ModelUsage) == 1 {
		for m := range l.ModelUsage {
			model = m
		}
	}
	u := sdk.Usage{Model: model, InputTokens: l.Usage.Input, CachedInputTokens: l.Usage.CacheRead,
		CacheCreationTokens: l.Usage.CacheCreation, OutputTokens: l.Usage.Output, Final: true}
	if l.TotalCostUSD != nil {
		total := *l.TotalCostUSD
		d.mu.Lock()
		own := total
		if l.SessionID != "" && d.costSession == l.SessionID && total >= d.costSeen {
			own = total - d.costSeen
		}
		d.costSeen, d.costSession = total, l.SessionID
		d.mu.Unlock()
		u.CostUSD, u.HasCost = own, true
	}
	sdk.ReportUsage(t.Out, u)
}
