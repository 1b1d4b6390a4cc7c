// Package spend is what agents cost: the usage of each turn as its agent
// reported it (tokens, and money when the agent gives a figure), priced
// from the [prices] table when it does not, and summed per session, work
// package, plan and day. A turn whose agent reported nothing is unknown:
// it counts as a turn of unknown cost, never as zero.
package spend

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/config"
)

// Where a turn's cost comes from.
const (
	CostFromAgent  = "agent"  // the agent's own figure (claude's total_cost_usd)
	CostFromPrices = "prices" // tokens priced from [prices]
)

// Turn is what one turn of a session used.
type Turn struct {
	Turn  int       `json:"turn"`
	At    time.Time `json:"at"`
	Model string    `json:"model,omitempty"`
	// Unknown: the agent reported no usage for the turn. Its tokens and
	// cost are not zero, they are not known.
	Unknown bool `json:"unknown,omitempty"`
	// TokensUnknown: the agent gave the turn's cost but no token counts
	// (an ACP agent's usage_update): its tokens are not known, not zero.
	TokensUnknown       bool    `json:"tokens_unknown,omitempty"`
	InputTokens         int64   `json:"input_tokens"`
	CachedInputTokens   int64   `json:"cached_input_tokens"`
	CacheCreationTokens int64   `json:"cache_creation_tokens"`
	OutputTokens        int64   `json:"output_tokens"`
	CostUSD             float64 `json:"cost_usd"`
	// CostFrom is CostFromAgent or CostFromPrices; "" when neither the
	// agent nor the price table gave one (the cost is unknown).
	CostFrom string `json:"cost_from,omitempty"`
	// Final: the agent's account of the whole turn, not a running figure.
	Final bool `json:"final,omitempty"`
}

// Tokens is every token of the turn: input, cached input, input written
// to the cache and output.
func (t Turn) Tokens() int64 {
	return t.InputTokens + t.CachedInputTokens + t.CacheCreationTokens + t.OutputTokens
}

// Report is what an agent said of a turn (sdk.Usage, without the import).
type Report struct {
	Model               string
	InputTokens         int64
	CachedInputTokens   int64
	CacheCreationTokens int64
	OutputTokens        int64
	CostUSD             float64
	HasCost             bool
	Final               bool
}

// Priced makes a turn of a report: the agent's cost when it gave one,
// else the price table's for its model (the session's model when the
// report names none), else no cost.
func Priced(n int, at time.Time, model string, r Report, prices map[string]config.Price) Turn {
	if r.Model != "" {
		model = r.Model
	}
	t := Turn{Turn: n, At: at.UTC(), Model: model, InputTokens: r.InputTokens, CachedInputTokens: r.CachedInputTokens,
		CacheCreationTokens: r.CacheCreationTokens, OutputTokens: r.OutputTokens, Final: r.Final}
	t.TokensUnknown = r.HasCost && t.Tokens() == 0
	switch p, ok := PriceOf(prices, model); {
	case r.HasCost:
		t.CostUSD, t.CostFrom = r.CostUSD, CostFromAgent
	case ok:
		t.CostUSD, t.CostFrom = p.Cost(t), CostFromPrices
	}
	return t
}

// PriceOf finds a model's price: its own entry, else the entry its name
// ends a provider prefix with ("anthropic/claude-x" finds "claude-x").
func PriceOf(prices map[string]config.Price, model string) (Price, bool) {
	if p, ok := prices[model]; ok {
		return Price(p), true
	}
	if i := strings.LastIndex(model, "/"); i >= 0 {
		if p, ok := prices[model[i+1:]]; ok {
			return Price(p), true
		}
	}
	return Price{}, false
}

// Price is a config.Price that computes.
type Price config.Price

// Cost of a turn in US dollars.
func (p Price) Cost(t Turn) float64 {
	write := p.Input
	if p.CacheWrite != nil {
		write = *p.CacheWrite
	}
	return (float64(t.InputTokens)*p.Input + float64(t.CachedInputTokens)*p.CachedInput +
		float64(t.CacheCreationTokens)*write + float64(t.OutputTokens)*p.Output) / 1e6
}

// Total sums turns.
type Total struct {
	Turns               int     `json:"turns"`
	UnknownTurns        int     `json:"unknown_turns,omitempty"`
	UnpricedTurns       int     `json:"unpriced_turns,omitempty"`
	TokensUnknownTurns  int     `json:"tokens_unknown_turns,omitempty"`
	InputTokens         int64   `json:"input_tokens"`
	CachedInputTokens   int64   `json:"cached_input_tokens"`
	CacheCreationTokens int64   `json:"cache_creation_tokens"`
	OutputTokens        int64   `json:"output_tokens"`
	CostUSD             float64 `json:"cost_usd"`
}

// Add counts one turn.
func (s *Total) Add(t Turn) {
	s.Turns++
	if t.Unknown {
		s.UnknownTurns++
		return
	}
	if t.CostFrom == "" {
		s.UnpricedTurns++
	}
	if t.TokensUnknown {
		s.TokensUnknownTurns++
	}
	s.InputTokens += t.InputTokens
	s.CachedInputTokens += t.CachedInputTokens
	s.CacheCreationTokens += t.CacheCreationTokens
	s.OutputTokens += t.OutputTokens
	s.CostUSD += t.CostUSD
}

// Merge adds another total.
func (s *Total) Merge(o Total) {
	s.Turns += o.Turns
	s.UnknownTurns += o.UnknownTurns
	s.UnpricedTurns += o.UnpricedTurns
	s.TokensUnknownTurns += o.TokensUnknownTurns
	s.InputTokens += o.InputTokens
	s.CachedInputTokens += o.CachedInputTokens
	s.CacheCreationTokens += o.CacheCreationTokens
	s.OutputTokens += o.OutputTokens
	s.CostUSD += o.CostUSD
}

// Tokens is every token counted.
func (s Total) Tokens() int64 {
	return s.InputTokens + s.CachedInputTokens + s.CacheCreationTokens + s.OutputTokens
}

// Known reports whether every turn's tokens are known.
func (s Total) Known() bool { return s.UnknownTurns == 0 }

// String is the short form the CLI prints: "$0.0123 · 45.6k tok", with
// what is not known said, never hidden as zero.
func (s Total) String() string {
	if s.Turns == 0 {
		return "-"
	}
	if s.UnknownTurns == s.Turns {
		return "unknown"
	}
	money := fmt.Sprintf("$%.4f", s.CostUSD)
	if s.UnpricedTurns > 0 {
		money = "$?"
		if s.UnpricedTurns < s.Turns-s.UnknownTurns {
			money = fmt.Sprintf("≥$%.4f", s.CostUSD)
		}
	}
	out := money + " · " + s.tokens() + " tok"
	if s.UnknownTurns > 0 {
		out += fmt.Sprintf(" (+%d turns unknown)", s.UnknownTurns)
	}
	return out
}

// tokens is the token count, "?" when no known turn gave one and a floor
// when some did not.
func (s Total) tokens() string {
	switch known := s.Turns - s.UnknownTurns; {
	case s.TokensUnknownTurns == known:
		return "?"
	case s.TokensUnknownTurns > 0:
		return "≥" + Count(s.Tokens())
	}
	return Count(s.Tokens())
}

// Short is the narrow form a live view's column holds: the dollars when
// any turn has them, else the tokens; "≥" when some turns are not in the
// figure (unknown, unpriced, or without token counts), "unknown" when no
// turn reported anything, "-" before the first turn.
func (s Total) Short() string {
	known := s.Turns - s.UnknownTurns
	switch {
	case s.Turns == 0:
		return "-"
	case known == 0:
		return "unknown"
	case s.UnpricedTurns < known:
		return floor(s.UnknownTurns+s.UnpricedTurns > 0) + fmt.Sprintf("$%.4f", s.CostUSD)
	case s.TokensUnknownTurns == known:
		return "? tok"
	}
	return floor(s.UnknownTurns+s.TokensUnknownTurns > 0) + Count(s.Tokens()) + " tok"
}

func floor(partial bool) string {
	if partial {
		return "≥"
	}
	return ""
}

// Count prints a token count short: 950, 12.3k, 4.56M.
func Count(n int64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
