package adapters_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/agentproto/agentproto/internal/fakemodel"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// sonnet45 is Anthropic's list price of claude-sonnet-4-5 in dollars per
// million tokens: input, cache write (5 minutes), cache read, output.
var sonnet45 = [4]float64{3, 3.75, 0.30, 15}

// sent sums the usage the provider answered with to requests from..to.
func sent(reqs []fakemodel.Request) (sum fakemodel.Usage, n int) {
	for _, r := range reqs {
		if r.Answered != "reply" && r.Answered != "default" {
			continue
		}
		sum.Input += r.Usage.Input
		sum.CacheCreation += r.Usage.CacheCreation
		sum.CacheRead += r.Usage.CacheRead
		sum.Output += r.Usage.Output
		n++
	}
	return sum, n
}

// Each turn's final usage report is exactly what the provider sent in
// that turn, cache reads included: claude's turn of two model calls and
// its one-call turn, codex's likewise. claude's cost is the list price of
// those tokens; codex reports none (the host prices it from [prices]).
// claude's running reports come per model call, never above the final.
func TestRealUsageEqualsWhatTheProviderSent(t *testing.T) {
	for _, name := range realNames {
		t.Run(name, func(t *testing.T) {
			a := newAgent(t, name)
			dir := repo(t)
			u1 := fakemodel.Usage{Input: 1200, CacheCreation: 4000, CacheRead: 90000, Output: 300}
			u2 := fakemodel.Usage{Input: 40, CacheCreation: 600, CacheRead: 94000, Output: 55}
			u3 := fakemodel.Usage{Input: 7, CacheRead: 95000, Output: 11}
			if name == "codex" { // the Responses API writes no cache
				u1.CacheCreation, u2.CacheCreation = 0, 0
			}
			call := a.writeCall(filepath.Join(dir, "x.txt"), "x")
			call.Usage = &u1
			a.api.Script(call, fakemodel.Reply{Text: "wrote it", Usage: &u2}, fakemodel.Reply{Text: "second", Usage: &u3})
			rec, s := a.session(t, dir, nil, "write x.txt")
			rec.waitReal(t)
			first := a.api.Requests()
			if err := s.Prompt(context.Background(), "and again", false); err != nil {
				t.Fatal(err)
			}
			rec.waitReal(t)
			all := a.api.Requests()
			rec.mu.Lock()
			defer rec.mu.Unlock()
			for turn, reqs := range [][]fakemodel.Request{first, all[len(first):]} {
				want, calls := sent(reqs)
				reports := rec.usage[turn]
				if len(reports) == 0 {
					t.Fatalf("turn %d: no usage reported", turn+1)
				}
				final := reports[len(reports)-1]
				got := fakemodel.Usage{Input: final.InputTokens, CacheCreation: final.CacheCreationTokens, CacheRead: final.CachedInputTokens, Output: final.OutputTokens}
				if !final.Final || got != want {
					t.Errorf("turn %d (%d calls): final report %+v, the provider sent %+v", turn+1, calls, final, want)
				}
				if name == "claude" {
					cost := (float64(want.Input)*sonnet45[0] + float64(want.CacheCreation)*sonnet45[1] + float64(want.CacheRead)*sonnet45[2] + float64(want.Output)*sonnet45[3]) / 1e6
					if !final.HasCost || math.Abs(final.CostUSD-cost) > 1e-9 {
						t.Errorf("turn %d: cost %v (has %v), the list price of what was sent is %v", turn+1, final.CostUSD, final.HasCost, cost)
					}
					if len(reports) != calls+1 {
						t.Errorf("turn %d: %d reports for %d model calls: %+v", turn+1, len(reports), calls, reports)
					}
					checkRunning(t, turn, reports)
				} else if final.HasCost {
					t.Errorf("codex gave a cost: %+v", final)
				}
			}
		})
	}
}

// checkRunning: running reports grow call by call and stay within the
// final account.
func checkRunning(t *testing.T, turn int, reports []sdk.Usage) {
	t.Helper()
	final := reports[len(reports)-1]
	var prev sdk.Usage
	for i, r := range reports[:len(reports)-1] {
		if r.Final || r.CachedInputTokens < prev.CachedInputTokens || r.InputTokens < prev.InputTokens ||
			r.InputTokens > final.InputTokens || r.CachedInputTokens > final.CachedInputTokens || r.OutputTokens > final.OutputTokens {
			t.Errorf("turn %d: running report %d %+v (previous %+v, final %+v)", turn+1, i, r, prev, final)
		}
		prev = r
	}
}
