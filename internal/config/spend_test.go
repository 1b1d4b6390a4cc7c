package config

import (
	"strings"
	"testing"
)

func TestPricesAndBudgetsParse(t *testing.T) {
	cfg, err := Parse([]byte(`
[prices."claude-sonnet-4-5"]
input = 3.0
cached_input = 0.30
output = 15.0
cache_write = 3.75

[budgets]
session_usd = 0.5
plan_tokens = 2000000
`), FileName)
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Prices["claude-sonnet-4-5"]
	if p.Input != 3 || p.CachedInput != 0.3 || p.Output != 15 || p.CacheWrite == nil || *p.CacheWrite != 3.75 {
		t.Fatalf("price: %+v", p)
	}
	if cfg.Budgets.SessionUSD != 0.5 || cfg.Budgets.PlanTokens != 2000000 || cfg.Budgets.IsZero() {
		t.Fatalf("budgets: %+v", cfg.Budgets)
	}
	if !Default().Budgets.IsZero() {
		t.Fatal("budgets by default")
	}
}

func TestPricesAndBudgetsRefuseBadValues(t *testing.T) {
	for text, want := range map[string]string{
		"[budgets]\nsession_usd = -1\n":             "budgets.session_usd",
		"[budgets]\nday_tokens = -5\n":              "budgets.day_tokens",
		"[budgets]\nweek_usd = 1\n":                 "unknown key",
		"[prices.m]\ninput = -3\n":                  "prices.m.input",
		"[prices.m]\ninput = 1\nbatch = 2\n":        "unknown key",
		"[budgets]\nsession_usd = \"a lot\"\n":      "session_usd",
		"[prices.m]\ninput = 1\ncache_write = -1\n": "prices.m.cache_write",
	} {
		_, err := Parse([]byte(text), FileName)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error naming %s", text, err, want)
		}
	}
}
