package acp

import (
	"encoding/json"
	"math"
	"strings"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// What an ACP agent says a turn used comes from three places, each sent
// by few agents, none by all: the session/prompt response's usage
// (unstable in ACP: tokens), Gemini CLI's quota in that response's _meta
// (tokens), and usage_update notifications (stable since June 2026: the
// context window's occupancy, which is not spend and is not read, and the
// session's cumulative cost, which is). An agent that sends none leaves
// the turn's usage unknown to the host, never zero.

// sessionCost follows the cumulative cost a session's usage_update
// notifications carry; a turn's cost is what it grew by during the turn.
// A figure that arrives while no turn runs (the history a session/load
// replays) moves the start of the next turn, so a loaded session's past
// is not counted again; one that arrives before any (an agent that sends
// it at its turns' ends only) counts the whole session in its first
// turn: high, never low.
type sessionCost struct {
	mu     sync.Mutex
	inTurn bool
	base   float64 // the cumulative cost in US dollars when the turn began
	last   float64 // the latest cumulative cost in US dollars
	seen   bool    // a figure in US dollars came during the turn
}

// begin starts a turn from the latest figure.
func (c *sessionCost) begin() {
	c.mu.Lock()
	c.inTurn, c.base, c.seen = true, c.last, false
	c.mu.Unlock()
}

// update takes a usage_update's cost and returns the turn's so far, false
// when there is none to report: no cost, a currency other than US dollars
// (not converted: the turn's dollars stay unknown or come from [prices]),
// or no turn running.
func (c *sessionCost) update(cost *acpsdk.Cost) (float64, bool) {
	if cost == nil || !strings.EqualFold(cost.Currency, "USD") || cost.Amount < 0 || math.IsNaN(cost.Amount) || math.IsInf(cost.Amount, 0) {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = cost.Amount
	if !c.inTurn {
		c.base = c.last
		return 0, false
	}
	if c.last < c.base {
		c.base = 0 // the agent's count started again
	}
	c.seen = true
	return c.last - c.base, true
}

// end closes the turn and returns its cost, false when no figure in US
// dollars came during it.
func (c *sessionCost) end() (float64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inTurn = false
	return c.last - c.base, c.seen
}

// onUsageUpdate passes on the turn's cost so far as a running figure, so
// that a budget can stop the session before the turn ends.
func (c *client) onUsageUpdate(u *acpsdk.SessionUsageUpdate) {
	if usd, ok := c.cost.update(u.Cost); ok {
		sdk.ReportUsage(c.out, sdk.Usage{CostUSD: usd, HasCost: true})
	}
}

// reportUsage sends the turn's account when it ends: the tokens of the
// session/prompt response (its usage, else Gemini's quota) with the cost
// the usage_update notifications gave, when they did.
//
// The schema calls the response's usage the turn's while its fields say
// "across all turns"; it is taken as the turn's, and cache reads and
// writes as apart from inputTokens, so a doubtful count is high, never
// low.
func reportUsage(out sdk.Emitter, resp acpsdk.PromptResponse, usd float64, hasCost bool) {
	r := sdk.Usage{CostUSD: usd, HasCost: hasCost, Final: true}
	switch q := geminiQuotaOf(resp.Meta); {
	case resp.Usage != nil:
		u := resp.Usage
		r.InputTokens, r.OutputTokens = int64(u.InputTokens), int64(u.OutputTokens)
		if u.CachedReadTokens != nil {
			r.CachedInputTokens = int64(*u.CachedReadTokens)
		}
		if u.CachedWriteTokens != nil {
			r.CacheCreationTokens = int64(*u.CachedWriteTokens)
		}
	case q != nil:
		r.InputTokens, r.OutputTokens = q.TokenCount.Input, q.TokenCount.Output
		if len(q.ModelUsage) == 1 {
			r.Model = q.ModelUsage[0].Model
		}
	case !hasCost:
		return
	}
	sdk.ReportUsage(out, r)
}

// geminiQuota is Gemini CLI's account of a turn (0.61.0: the response's
// _meta.quota, summed over the turn's model calls, with a row per model).
// Its input_tokens is the Gemini API's promptTokenCount, which includes
// the cached tokens: they are counted as uncached input, high, never
// low. Its side calls (the next-speaker check) are not in it.
type geminiQuota struct {
	TokenCount *struct {
		Input  int64 `json:"input_tokens"`
		Output int64 `json:"output_tokens"`
	} `json:"token_count"`
	ModelUsage []struct {
		Model string `json:"model"`
	} `json:"model_usage"`
}

// geminiQuotaOf reads the quota of a response's _meta; nil when there is
// none, it is not of that shape, or it counts no token at all (Gemini
// answers a slash command, or an error before any model call ended, with
// zeros: not an account of what the model used).
func geminiQuotaOf(meta map[string]any) *geminiQuota {
	raw, ok := meta["quota"]
	if !ok {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil
	}
	var q geminiQuota
	if json.Unmarshal(b, &q) != nil || q.TokenCount == nil || q.TokenCount.Input < 0 || q.TokenCount.Output < 0 ||
		q.TokenCount.Input+q.TokenCount.Output == 0 {
		return nil
	}
	return &q
}
