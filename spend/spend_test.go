package spend

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/gitstore/memstore"
	"github.com/agentproto/agentproto/internal/config"
)

var day = time.Date(2026, 3, 4, 23, 59, 0, 0, time.UTC)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// The agent's own figure wins; tokens alone are priced per million, cache
// writes at the input price unless cache_write says otherwise.
func TestPricedTakesTheAgentsCostElseThePriceTable(t *testing.T) {
	write := 3.75
	prices := map[string]config.Price{"m": {Input: 3, CachedInput: 0.3, Output: 15}, "w": {Input: 3, CachedInput: 0.3, Output: 15, CacheWrite: &write}}
	r := Report{InputTokens: 1000, CachedInputTokens: 2000, CacheCreationTokens: 100, OutputTokens: 50}
	got := Priced(1, day, "m", r, prices)
	want := (1000*3 + 2000*0.3 + 100*3 + 50*15) / 1e6
	if got.CostFrom != CostFromPrices || !near(got.CostUSD, want) || got.Tokens() != 3150 {
		t.Fatalf("priced %+v, want $%v", got, want)
	}
	if w := Priced(1, day, "w", r, prices); !near(w.CostUSD, want+100*0.75/1e6) {
		t.Fatalf("cache_write ignored: %v", w.CostUSD)
	}
	r.CostUSD, r.HasCost = 0.5, true
	if a := Priced(1, day, "m", r, prices); a.CostFrom != CostFromAgent || a.CostUSD != 0.5 {
		t.Fatalf("the agent's cost was not kept: %+v", a)
	}
	r.HasCost = false
	if n := Priced(1, day, "unknown-model", r, prices); n.CostFrom != "" || n.CostUSD != 0 {
		t.Fatalf("a model without a price got a cost: %+v", n)
	}
	if p := Priced(1, day, "", Report{Model: "openai/m", InputTokens: 1e6}, prices); !near(p.CostUSD, 3) {
		t.Fatalf("a provider-prefixed model was not priced: %+v", p)
	}
}

// An unknown turn is counted as a turn and never as zero tokens.
func TestTotalsSayWhatIsUnknown(t *testing.T) {
	var s Total
	if s.String() != "-" {
		t.Fatalf("no turns: %q", s)
	}
	s.Add(Turn{Unknown: true})
	if s.String() != "unknown" || s.Known() {
		t.Fatalf("one unknown turn: %q", s)
	}
	s.Add(Turn{InputTokens: 12000, OutputTokens: 300, CostUSD: 0.01, CostFrom: CostFromAgent})
	if got := s.String(); got != "$0.0100 · 12.3k tok (+1 turns unknown)" {
		t.Fatalf("mixed: %q", got)
	}
	s.Add(Turn{InputTokens: 10})
	if got := s.String(); !strings.HasPrefix(got, "≥$0.0100") {
		t.Fatalf("an unpriced turn must show the dollars as a floor: %q", got)
	}
}

// A turn whose agent gave its cost and no tokens has tokens unknown, not
// zero; the short form says what its figure leaves out.
func TestCostOnlyTurnsAndTheShortForm(t *testing.T) {
	c := Priced(1, day, "m", Report{CostUSD: 0.25, HasCost: true}, nil)
	if !c.TokensUnknown || c.CostUSD != 0.25 || c.CostFrom != CostFromAgent {
		t.Fatalf("cost only: %+v", c)
	}
	if p := Priced(1, day, "m", Report{InputTokens: 5, CostUSD: 0.25, HasCost: true}, nil); p.TokensUnknown {
		t.Fatalf("tokens were given: %+v", p)
	}
	var s Total
	s.Add(c)
	if s.String() != "$0.2500 · ? tok" || s.Short() != "$0.2500" {
		t.Fatalf("one cost-only turn: %q %q", s, s.Short())
	}
	s.Add(Turn{InputTokens: 1000, CostUSD: 0.5, CostFrom: CostFromAgent})
	if s.String() != "$0.7500 · ≥1000 tok" {
		t.Fatalf("some tokens unknown: %q", s)
	}
	for _, c := range []struct {
		turns []Turn
		want  string
	}{
		{nil, "-"},
		{[]Turn{{Unknown: true}}, "unknown"},
		{[]Turn{{InputTokens: 20000}}, "20.0k tok"},
		{[]Turn{{InputTokens: 20000}, {Unknown: true}}, "≥20.0k tok"},
		{[]Turn{{InputTokens: 1, CostUSD: 0.01, CostFrom: CostFromAgent}}, "$0.0100"},
		{[]Turn{{InputTokens: 1, CostUSD: 0.01, CostFrom: CostFromAgent}, {InputTokens: 5}}, "≥$0.0100"},
		{[]Turn{{InputTokens: 1, CostUSD: 0.01, CostFrom: CostFromAgent}, {Unknown: true}}, "≥$0.0100"},
	} {
		var s Total
		for _, t := range c.turns {
			s.Add(t)
		}
		if s.Short() != c.want {
			t.Errorf("%+v: %q, want %q", c.turns, s.Short(), c.want)
		}
	}
}

func TestCheckReachesACapAtItsValue(t *testing.T) {
	b := config.Budgets{SessionTokens: 100, PlanUSD: 0.5}
	if e := Check(b, ScopeSession, "s", Total{InputTokens: 99}); e != nil {
		t.Fatalf("under the cap: %v", e)
	}
	e := Check(b, ScopeSession, "s-1", Total{InputTokens: 60, OutputTokens: 40})
	if e == nil || e.Key != "session_tokens" || e.Used != 100 {
		t.Fatalf("at the cap: %+v", e)
	}
	if !strings.Contains(e.Error(), "budget_exhausted: session s-1 used 100 tokens") {
		t.Fatalf("message: %s", e)
	}
	if e := Check(b, ScopePlan, "p", Total{CostUSD: 0.5}); e == nil || e.Key != "plan_usd" {
		t.Fatalf("plan dollars: %+v", e)
	}
	if e := Check(b, ScopeDay, "d", Total{CostUSD: 1e9, InputTokens: 1e9}); e != nil {
		t.Fatalf("no day cap set: %+v", e)
	}
}

func TestLabels(t *testing.T) {
	for label, want := range map[string][2]string{"p/WP1": {"p/WP1", "p"}, "hand": {"", ""}, "/x": {"", ""}, "p/": {"", ""}} {
		if WPOf(label) != want[0] || PlanOf(label) != want[1] {
			t.Errorf("%q: wp %q plan %q", label, WPOf(label), PlanOf(label))
		}
	}
}

// Usage events fold into per-session, WP, plan and day totals, with the
// supervisor's own spend in its plan.
func TestRollupFromTheLedger(t *testing.T) {
	s := memstore.New()
	s.Now = func() time.Time { return day } // dates the supervisor's report
	turns := []TurnEvent{
		{Session: "s-1", Label: "p/WP1", Adapter: "claude-code", Turn: Turn{Turn: 1, At: day, InputTokens: 10, OutputTokens: 5, CostUSD: 0.1, CostFrom: CostFromAgent}},
		{Session: "s-1", Label: "p/WP1", Adapter: "claude-code", Turn: Turn{Turn: 2, At: day.Add(2 * time.Minute), InputTokens: 1, CostUSD: 0.2, CostFrom: CostFromAgent}},
		{Session: "s-2", Label: "p/WP2", Adapter: "acp", Turn: Turn{Turn: 1, At: day, Unknown: true}},
		{Session: "s-3", Label: "other", Adapter: "codex", Turn: Turn{Turn: 1, At: day, OutputTokens: 7}},
	}
	for _, e := range turns {
		if err := RecordTurn(s, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := RecordTurn(s, turns[0]); err != nil {
		t.Fatalf("recording a turn again must be a no-op: %v", err)
	}
	if _, err := RecordSupervisor(s, SupervisorEvent{Plan: "p", ID: "r1", Turn: Turn{At: day, InputTokens: 100, CostUSD: 1, CostFrom: CostFromAgent}}); err != nil {
		t.Fatal(err)
	}
	r, _, err := Read(s)
	if err != nil {
		t.Fatal(err)
	}
	if w := r.WPs["p/WP1"]; w.Turns != 2 || w.Tokens() != 16 || !near(w.CostUSD, 0.3) {
		t.Errorf("WP1: %+v", w)
	}
	if w := r.WPs["p/WP2"]; w.UnknownTurns != 1 || w.Tokens() != 0 {
		t.Errorf("WP2: %+v", w)
	}
	if p := r.Plans["p"]; p.Turns != 4 || p.Tokens() != 116 || !near(p.CostUSD, 1.3) || p.UnknownTurns != 1 {
		t.Errorf("plan p: %+v", p)
	}
	if _, ok := r.Plans["other"]; ok {
		t.Error("a session with no plan label counted in a plan")
	}
	if d := r.Days["2026-03-04"]; d.Turns != 4 || r.Days["2026-03-05"].Turns != 1 { // turn 2 fell after midnight UTC
		t.Errorf("days: %+v", r.Days)
	}
	if r.All.Turns != 5 || r.Supervisor["p"].Tokens() != 100 {
		t.Errorf("all %+v supervisor %+v", r.All, r.Supervisor)
	}
}
