package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/fakemodel"
	"github.com/agentproto/agentproto/spend"
)

// sonnet is Anthropic's list price of claude-sonnet-4-5, dollars per
// million tokens, as [prices] writes it.
const sonnetPrice = `[prices."claude-sonnet-4-5"]
input = 3.0
cached_input = 0.30
cache_write = 3.75
output = 15.0
`

// listCost is what u costs at sonnetPrice.
func listCost(u fakemodel.Usage) float64 {
	return (float64(u.Input)*3 + float64(u.CacheCreation)*3.75 + float64(u.CacheRead)*0.3 + float64(u.Output)*15) / 1e6
}

// A plan whose session budget the real claude reaches in the middle of
// its turn: the daemon stops the session within a second of the usage
// report that crossed the cap (the model call after it never finishes),
// dispatch falls back to the cheaper profile, which does the work, and
// the stopped session's total is over the cap by less than the one model
// call that crossed it.
func TestRealBudgetStopsClaudeMidTurnAndFallsBack(t *testing.T) {
	bins := os.Getenv("AGENTPROTO_REAL_AGENTS")
	if bins == "" {
		t.Skip("the real agent CLIs are not installed: run make test-agents")
	}
	if err := cliAdapters(); err != nil {
		t.Fatal(err)
	}
	const capUSD = 0.05
	cfg := fmt.Sprintf(`[plugins.claude-code]
options = { binary = %q }
[profiles.dear]
adapter = "claude-code"
model = "claude-sonnet-4-5"
auth = "api-key"
key_env = "ANTHROPIC_API_KEY"
[profiles.cheap]
adapter = "scripted"
auth = "none"
[budgets]
session_usd = %v
`, filepath.Join(bins, "claude"), capUSD) + sonnetPrice
	dir := pipelineRepoConfig(t, cfg, "", "lower lib/lower.sh")
	// [dispatch] is written once by pipelineRepoConfig: add the chain there.
	b, _ := os.ReadFile(filepath.Join(dir, "agentproto.toml"))
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(strings.Replace(string(b), "[dispatch]\nadapter = \"scripted\"\n", "[dispatch]\nadapter = \"scripted\"\nfallback = [\"dear\", \"cheap\"]\n", 1)), 0o644)
	must(t, dir, "git", "commit", "-q", "-am", "fallback chain")
	must(t, dir, "git", "agentproto", "plan", "freeze", "demo")
	must(t, dir, "git", "agentproto", "plugin", "trust", "claude-code")

	home := homeOf(t)
	api := fakemodel.New(t)
	api.SetModels("claude-sonnet-4-5")
	writeConfig(t, filepath.Join(home, ".claude", "settings.json"), api.ClaudeSettings(1))
	// The ping, then a model call that writes the contract and crosses the
	// cap, then a slow one that would cost as much again.
	crossing := fakemodel.Usage{Input: 2000, CacheCreation: 10000, CacheRead: 50000, Output: 500}
	after := fakemodel.Usage{Input: 5000, CacheRead: 300000, Output: 900}
	worktree := filepath.Join(home, ".agentproto", "worktrees", "repo", "demo-wp0")
	write := writeCall("claude", filepath.Join(worktree, "api", "contract.txt"), "tools read stdin\n")
	write.Usage = &crossing
	api.Script(fakemodel.Text("READY"), write, fakemodel.Reply{Text: strings.Repeat("slow ", 50), Delay: 300 * time.Millisecond, Usage: &after})

	cmd := exec.Command("git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	cmd.Dir = dir
	cmd.Env = append(gitEnv(home), "ANTHROPIC_API_KEY="+fakemodel.Key)
	outB, err := cmd.CombinedOutput()
	out := string(outB)
	if err != nil {
		t.Fatalf("dispatch: %v\n%s", err, out)
	}
	for _, want := range []string{"budget_exhausted on s-", "moving from dear to profile cheap", "(profile cheap, scripted)", "WP0   verify     pass"} {
		if !strings.Contains(out, want) {
			t.Errorf("dispatch output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatal(out)
	}
	trail := ledgerKind(t, dir, "wp_fallback")
	if len(trail) != 1 || !strings.Contains(string(trail[0].Data), `"fault":"budget_exhausted","from_profile":"dear"`) {
		t.Fatalf("fallback trail: %+v", trail)
	}
	var fb struct{ Session string }
	json.Unmarshal(trail[0].Data, &fb)
	r := loadRecord(t, dir, fb.Session)
	if r.Profile != "dear" || !containsStr(r.Faults, spend.FaultBudgetExhausted) {
		t.Fatalf("the stopped session: %+v", r)
	}
	// Stopped at the crossing report: the slow call never completed.
	for _, q := range api.Requests() {
		if q.Usage == after {
			t.Errorf("the model call after the cap was answered whole: the session ran on")
		}
	}
	var stopped *spend.TurnEvent
	for _, e := range usageTurns(t, dir) {
		if e.Session == fb.Session && e.Stopped != nil {
			stopped = &e
		}
	}
	if stopped == nil || stopped.Stopped.Key != "session_usd" || stopped.CachedInputTokens != crossing.CacheRead || stopped.InputTokens != crossing.Input {
		t.Fatalf("the crossing turn's usage: %+v", stopped)
	}
	var failedAt time.Time
	for _, e := range ledgerKind(t, dir, "session_failed") {
		if strings.Contains(string(e.Data), fb.Session) {
			failedAt, _ = time.Parse(time.RFC3339Nano, e.Time)
		}
	}
	gap := failedAt.Sub(stopped.At)
	t.Logf("stopped %v after the crossing report; spent $%.6f against a cap of $%v", gap, r.Spend.CostUSD, capUSD)
	if gap < 0 || gap > time.Second {
		t.Errorf("stopped %v after the crossing report", gap)
	}
	if over := r.Spend.CostUSD - capUSD; over < 0 || over > listCost(crossing) {
		t.Errorf("the session spent $%.6f against a cap of $%v: over by more than the crossing call ($%.6f)", r.Spend.CostUSD, capUSD, listCost(crossing))
	}
}
