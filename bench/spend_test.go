package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/sessions"
)

// usageSteps is what claude reports in a turn of two model calls: a
// running figure per call, then the result's account.
const usageSteps = `{"op":"usage","usage":{"model":"m","input":1200,"creation":4000,"cached":90000,"output":1}}` + "\n" +
	`{"op":"usage","usage":{"model":"m","input":1240,"creation":4600,"cached":184000,"output":2}}` + "\n" +
	`{"op":"usage","usage":{"model":"m","input":1240,"creation":4600,"cached":184000,"output":355,"cost":0.081495,"final":true}}` + "\n"

// BenchmarkUsageTurn: prompt to turn end through the sessions daemon, a
// turn whose agent reports its usage three times (priced, checked against
// four budgets, saved with the record) against the same turn reporting
// none; alternating, medians of 21. Both record the turn's usage_turn
// event (the silent one as unknown). Target: no measurable difference.
func BenchmarkUsageTurn(b *testing.B) {
	r := newRunner(b)
	cfg := "[prices.\"m\"]\ninput = 3.0\ncached_input = 0.3\noutput = 15.0\n" +
		"[budgets]\nsession_usd = 1000.0\nwp_usd = 1000.0\nplan_usd = 1000.0\nday_tokens = 100000000000\n"
	if err := os.WriteFile(filepath.Join(r.dir, "agentproto.toml"), []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	work := filepath.Join(r.dir, "work")
	os.MkdirAll(work, 0o755)
	repo, err := gitrepo.Discover(r.dir)
	if err != nil {
		b.Fatal(err)
	}
	c := &sessions.Client{Repo: repo, Serve: []string{filepath.Join(binDir, "git-agentproto"), "serve"}}
	ctx := context.Background()
	start := func(label string) string {
		rec, err := c.Start(ctx, sessions.StartArgs{Adapter: "scripted", Path: scriptedSpec().Path, Dir: work, Prompt: "hi", Label: label, Env: pluginEnv()})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Wait(ctx, []string{rec.ID}, sessions.UntilTurnEnd, 30*time.Second); err != nil {
			b.Fatal(err)
		}
		return rec.ID
	}
	turn := func(id, prompt string) time.Duration {
		t0 := time.Now()
		if err := c.Prompt(ctx, id, prompt, false); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Wait(ctx, []string{id}, sessions.UntilTurnEnd, 30*time.Second); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	withUsage := strings.Replace(turnScript, "```agentproto-script\n", "```agentproto-script\n"+usageSteps, 1)
	counted, silent := start("bench/WP1"), start("bench/WP2")
	turn(counted, withUsage)
	turn(silent, turnScript)
	for i := 0; i < b.N; i++ {
		var on, off []time.Duration
		for k := 0; k < 21; k++ {
			off = append(off, turn(silent, turnScript))
			on = append(on, turn(counted, withUsage))
		}
		b.ReportMetric(millis(median(off)), "silent-turn-ms")
		b.ReportMetric(millis(median(on)), "usage-turn-ms")
		b.ReportMetric(median(on).Seconds()/median(off).Seconds(), "usage/silent")
	}
	v := sessions.OpenView(repo.CommonDir)
	rec, err := v.Load(counted)
	if err != nil || rec.Spend.UnknownTurns != 1 || rec.Spend.Turns < 22 {
		b.Fatalf("the counted session's spend: %+v %v", rec.Spend, err)
	}
}
