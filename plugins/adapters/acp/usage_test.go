package acp_test

import (
	"context"
	"math"
	"testing"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// An agent that says nothing of usage gets no report (the host records
// the turn as unknown, never as zero); one that sends usage in its
// session/prompt response has it passed on as the turn's account.
func TestUsageIsPassedOnOnlyWhenSent(t *testing.T) {
	s, rec := start(t, t.TempDir(), nil, nil)
	if err := s.Prompt(context.Background(), "say no usage here", false); err != nil {
		t.Fatal(err)
	}
	rec.waitTurn(t)
	if err := s.Prompt(context.Background(), "usage 1200 80 40000\nsay counted", false); err != nil {
		t.Fatal(err)
	}
	rec.waitTurn(t)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.usage[1]) != 0 {
		t.Errorf("a turn without usage reported %+v", rec.usage[1])
	}
	want := sdk.Usage{InputTokens: 1200, OutputTokens: 80, CachedInputTokens: 40000, Final: true}
	if got := rec.usage[2]; len(got) != 1 || got[0] != want {
		t.Errorf("turn 2 reported %+v, want %+v", got, want)
	}
}

// prompt runs one turn of the fake agent and returns its usage reports.
func prompt(t *testing.T, s sdk.Session, rec *recorder, text string) []sdk.Usage {
	t.Helper()
	if err := s.Prompt(context.Background(), text, false); err != nil {
		t.Fatal(err)
	}
	rec.waitTurn(t)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.usage[rec.turnsRun]
}

// costs are the dollars of reports, -1 for a report without a cost.
func costs(us []sdk.Usage) []float64 {
	var out []float64
	for _, u := range us {
		c := -1.0
		if u.HasCost {
			c = math.Round(u.CostUSD*1e6) / 1e6
		}
		out = append(out, c)
	}
	return out
}

func sameCosts(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// usage_update carries the session's cumulative cost: each turn's is what
// it grew by during the turn, passed on as a running figure at each
// update (so a budget can stop the turn) and as the turn's account at its
// end, with the response's tokens when it has them. A cost in another
// currency is not converted: the turn stays unknown.
func TestUsageUpdateCostIsWhatTheTurnAdded(t *testing.T) {
	s, rec := start(t, t.TempDir(), nil, nil)
	if got := costs(prompt(t, s, rec, "cost 0.10 USD\nsay working\ncost 0.25 USD")); !sameCosts(got, []float64{0.10, 0.25, 0.25}) {
		t.Errorf("turn 1: %v, want two running figures and the account", got)
	}
	two := prompt(t, s, rec, "usage 1200 80 0\ncost 0.40 USD")
	if got := costs(two); !sameCosts(got, []float64{0.15, 0.15}) {
		t.Errorf("turn 2: %v, want what the session cost grew by", got)
	}
	if end := two[len(two)-1]; !end.Final || end.InputTokens != 1200 || end.OutputTokens != 80 {
		t.Errorf("turn 2's account lacks the response's tokens: %+v", end)
	}
	if got := prompt(t, s, rec, "cost 12 EUR\nsay no dollars"); len(got) != 0 {
		t.Errorf("a cost in euros was reported: %+v", got)
	}
	if got := prompt(t, s, rec, "say nothing at all"); len(got) != 0 {
		t.Errorf("a turn without usage reported %+v", got)
	}
}

// A loaded session's past cost, which the agent states while it loads, is
// not counted again in the first turn after it.
func TestUsageUpdateOfALoadedSessionCountsTheNewTurnOnly(t *testing.T) {
	s, rec := start(t, t.TempDir(), nil, map[string]string{"resume": "earlier"})
	if got := costs(prompt(t, s, rec, "cost 2.30 USD")); !sameCosts(got, []float64{0.30, 0.30}) {
		t.Errorf("the first turn after the load: %v, want 0.30 of the session's 2.30", got)
	}
}

// Gemini CLI's quota in the response's _meta is the turn's tokens, with
// its one model; a quota of zeros is no account.
func TestGeminiQuotaIsTheTurnsTokens(t *testing.T) {
	s, rec := start(t, t.TempDir(), nil, nil)
	got := prompt(t, s, rec, "quota 5000 120 gemini-2.5-pro\nsay counted")
	want := sdk.Usage{Model: "gemini-2.5-pro", InputTokens: 5000, OutputTokens: 120, Final: true}
	if len(got) != 1 || got[0] != want {
		t.Errorf("reported %+v, want %+v", got, want)
	}
	if got := prompt(t, s, rec, "quota 0 0 gemini-2.5-pro"); len(got) != 0 {
		t.Errorf("a quota of zeros was reported: %+v", got)
	}
}
