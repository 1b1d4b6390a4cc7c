package spend

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/config"
)

// FaultBudgetExhausted is the fault of a session the daemon stopped at a
// [budgets] cap. Dispatch treats it as a dead provider: the WP moves to
// the next profile of its fallback chain, or dispatch stops for the
// supervisor.
const FaultBudgetExhausted = "budget_exhausted"

// The scopes a budget caps.
const (
	ScopeSession = "session"
	ScopeWP      = "wp"
	ScopePlan    = "plan"
	ScopeDay     = "day"
)

// Scopes in the order they are checked.
var Scopes = []string{ScopeSession, ScopeWP, ScopePlan, ScopeDay}

// Exhausted says which cap a scope's total has reached, or nil. Tokens
// count every kind; dollars count the turns that have a cost (an unknown
// or unpriced turn cannot reach a dollar cap, nor a turn whose agent gave
// no token counts a token cap, and Total.String says so).
type Exhausted struct {
	Scope string  `json:"scope"`
	Key   string  `json:"key"`  // budgets key, "session_usd"
	Cap   float64 `json:"cap"`  // the cap
	Used  float64 `json:"used"` // what was used when it was reached
	// Name is what the scope is: the session id, "plan/WP", the plan, the day.
	Name string `json:"name,omitempty"`
}

func (e *Exhausted) Error() string {
	unit := func(v float64) string { return fmt.Sprintf("%.0f tokens", v) }
	if strings.HasSuffix(e.Key, "_usd") {
		unit = func(v float64) string { return fmt.Sprintf("$%.4f", v) }
	}
	return fmt.Sprintf("%s: %s %s used %s, reaching its cap of %s ([budgets] %s)", FaultBudgetExhausted, e.Scope, e.Name, unit(e.Used), unit(e.Cap), e.Key)
}

// Check reports the cap of scope that t reaches (used >= cap), or nil.
func Check(b config.Budgets, scope, name string, t Total) *Exhausted {
	tokens, usd := caps(b, scope)
	if tokens > 0 && t.Tokens() >= tokens {
		return &Exhausted{Scope: scope, Key: scope + "_tokens", Cap: float64(tokens), Used: float64(t.Tokens()), Name: name}
	}
	if usd > 0 && t.CostUSD >= usd {
		return &Exhausted{Scope: scope, Key: scope + "_usd", Cap: usd, Used: t.CostUSD, Name: name}
	}
	return nil
}

func caps(b config.Budgets, scope string) (int64, float64) {
	switch scope {
	case ScopeSession:
		return b.SessionTokens, b.SessionUSD
	case ScopeWP:
		return b.WPTokens, b.WPUSD
	case ScopePlan:
		return b.PlanTokens, b.PlanUSD
	case ScopeDay:
		return b.DayTokens, b.DayUSD
	}
	return 0, 0
}

// WPOf and PlanOf read a session's label as dispatch writes it
// ("plan/WP"): a session started by hand with another label belongs to
// no work package or plan.
func WPOf(label string) string {
	if plan, wp, ok := strings.Cut(label, "/"); ok && plan != "" && wp != "" {
		return label
	}
	return ""
}

// PlanOf is the plan of a "plan/WP" label, or "".
func PlanOf(label string) string {
	if WPOf(label) == "" {
		return ""
	}
	plan, _, _ := strings.Cut(label, "/")
	return plan
}

// Day is the UTC day a turn counts in.
func Day(t time.Time) string { return t.UTC().Format("2006-01-02") }
