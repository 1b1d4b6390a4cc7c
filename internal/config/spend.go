package config

import (
	"fmt"
	"math"
)

// Price is what a model costs, in US dollars per million tokens, for the
// agents that report tokens but no money (codex, most ACP agents).
type Price struct {
	Input       float64 `toml:"input" json:"input"`
	CachedInput float64 `toml:"cached_input" json:"cached_input"`
	Output      float64 `toml:"output" json:"output"`
	// CacheWrite prices input written to the provider's cache; unset, it
	// costs what input does.
	CacheWrite *float64 `toml:"cache_write" json:"cache_write,omitempty"`
}

// Budgets are the caps the sessions daemon enforces, each in tokens (all
// kinds of input and output together) or US dollars; 0 is no cap. A
// session that reaches one is stopped at once with the fault
// budget_exhausted.
type Budgets struct {
	SessionTokens int64   `toml:"session_tokens" json:"session_tokens,omitempty"`
	SessionUSD    float64 `toml:"session_usd" json:"session_usd,omitempty"`
	WPTokens      int64   `toml:"wp_tokens" json:"wp_tokens,omitempty"`
	WPUSD         float64 `toml:"wp_usd" json:"wp_usd,omitempty"`
	PlanTokens    int64   `toml:"plan_tokens" json:"plan_tokens,omitempty"`
	PlanUSD       float64 `toml:"plan_usd" json:"plan_usd,omitempty"`
	// Day caps are per UTC day, over every session of the repository.
	DayTokens int64   `toml:"day_tokens" json:"day_tokens,omitempty"`
	DayUSD    float64 `toml:"day_usd" json:"day_usd,omitempty"`
}

// IsZero reports whether no budget is set.
func (b Budgets) IsZero() bool { return b == Budgets{} }

func (c *Config) validateSpend() error {
	for model, p := range c.Prices {
		if model == "" {
			return BadValue("a price needs a model name", "prices")
		}
		vals := map[string]float64{"input": p.Input, "cached_input": p.CachedInput, "output": p.Output}
		if p.CacheWrite != nil {
			vals["cache_write"] = *p.CacheWrite
		}
		for k, v := range vals {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return BadValue(fmt.Sprintf("%v is not a price (dollars per million tokens)", v), "prices", model, k)
			}
		}
	}
	b := c.Budgets
	for _, t := range []struct {
		key string
		v   int64
	}{{"session_tokens", b.SessionTokens}, {"wp_tokens", b.WPTokens}, {"plan_tokens", b.PlanTokens}, {"day_tokens", b.DayTokens}} {
		if t.v < 0 {
			return BadValue("must be 0 (no cap) or a positive count of tokens", "budgets", t.key)
		}
	}
	for _, u := range []struct {
		key string
		v   float64
	}{{"session_usd", b.SessionUSD}, {"wp_usd", b.WPUSD}, {"plan_usd", b.PlanUSD}, {"day_usd", b.DayUSD}} {
		if u.v < 0 || math.IsNaN(u.v) || math.IsInf(u.v, 0) {
			return BadValue("must be 0 (no cap) or a positive amount of US dollars", "budgets", u.key)
		}
	}
	return nil
}
