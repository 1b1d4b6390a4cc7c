package daemon

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/gitstore/memstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/plugins/sdk"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/spend"
)

// accounting is a daemon on a real repository and one live session of
// it, for the spend path alone (no plugin).
func accounting(tb testing.TB, b config.Budgets) (*Daemon, *live) {
	dir := tb.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		tb.Fatalf("git init: %v %s", err, out)
	}
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		tb.Fatal(err)
	}
	d := NewDaemon(repo, time.Minute, nil)
	price := map[string]config.Price{"m": {Input: 3, CachedInput: 0.3, Output: 15}}
	out, _ := os.Create(filepath.Join(dir, "out.log"))
	tb.Cleanup(func() { out.Close() })
	l := &live{rec: &sessions.Record{ID: "s-000000000001", Label: "p/WP1", Adapter: "scripted", State: sessions.StateRunning},
		out: out, limits: limits{prices: price, budgets: b}}
	return d, l
}

// usageEvent is a usage report as the host hands it over.
func usageEvent(in, cached, output int64, final bool) *host.Event {
	return &host.Event{Kind: host.UsageReported, UnixNanos: time.Now().UnixNano(),
		Usage: &sdk.Usage{Model: "m", InputTokens: in, CachedInputTokens: cached, OutputTokens: output, Final: final}}
}

// turn runs one turn's accounting: a running report, the final one, the
// turn's end.
func accountTurn(d *Daemon, l *live) {
	l.rec.Turns++
	l.turn = turn{}
	d.onUsage(l, usageEvent(1000, 90000, 1, false))
	d.onUsage(l, usageEvent(1200, 184000, 355, true))
	d.endTurn(l)
}

// A later report of a turn replaces the earlier one; every turn is one
// usage_turn event; a silent turn is unknown.
func TestTurnAccounting(t *testing.T) {
	d, l := accounting(t, config.Budgets{})
	accountTurn(d, l)
	l.rec.Turns++
	l.turn = turn{}
	d.endTurn(l)
	r := l.rec
	if len(r.Usage) != 2 || r.Usage[0].InputTokens != 1200 || r.Usage[0].CachedInputTokens != 184000 || !r.Usage[1].Unknown {
		t.Fatalf("usage: %+v", r.Usage)
	}
	want := (1200*3 + 184000*0.3 + 355*15) / 1e6
	if r.Spend.Turns != 2 || r.Spend.UnknownTurns != 1 || r.Spend.CostUSD != want {
		t.Fatalf("spend %+v, want $%v", r.Spend, want)
	}
	d.journal.flush() // as every answer of the daemon does
	use, _, err := spend.Read(d.ledger)
	if err != nil || use.Sessions[r.ID].Turns != 2 || use.WPs["p/WP1"].CostUSD != want {
		t.Fatalf("ledger: %+v %v", use, err)
	}
}

// A turn's end costs one append: its usage_turn waits in the journal
// behind the session's earlier events (here one being written, held) and
// goes with the settle that follows it, in that order.
func TestTurnUsageGoesWithTheSettle(t *testing.T) {
	d, l := accounting(t, config.Budgets{})
	store := &batches{Store: memstore.New(), release: make(chan struct{})}
	d.journal = newJournal(store, t.Logf)
	d.transition(l.rec, sessions.StateRunning, "", nil)
	for store.appends() == 0 {
		time.Sleep(time.Millisecond) // until the running event is held in its append
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		close(store.release)
	}()
	accountTurn(d, l)
	d.transition(l.rec, sessions.StateSettled, "", nil)
	d.journal.flush()
	if len(store.sizes) != 2 || store.sizes[1] != 2 {
		t.Fatalf("appends of sizes %v: want the running event, then the turn's usage and the settle in one", store.sizes)
	}
	got := ids(t, store)
	want := []string{"session/s-000000000001/1-running", "usage/s-000000000001/1", "session/s-000000000001/2-settled"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("ledger holds %v, want %v", got, want)
	}
}

// The work package's cap counts the other sessions of the work package,
// and refuses a new session once reached.
func TestWiderBudgetsCountEverySession(t *testing.T) {
	caps := config.Budgets{WPTokens: 500000}
	d, l := accounting(t, caps)
	d.book.set("s-000000000002", "p/WP1", []spend.Turn{{Turn: 1, At: time.Now(), InputTokens: 400000}})
	if ex := d.book.check(caps, "p/WP2", spend.Day(time.Now()), nil); ex != nil {
		t.Fatalf("another WP's session counted: %v", ex)
	}
	l.rec.Turns = 1
	l.stopped = true // the stop itself is the e2e tests'; here no plugin runs
	d.onUsage(l, usageEvent(1000, 0, 0, false))
	if ex := d.book.check(caps, "p/WP1", spend.Day(time.Now()), nil); ex != nil {
		t.Fatalf("401k of 500k: %v", ex)
	}
	d.onUsage(l, usageEvent(100000, 0, 0, false))
	if err := d.refuseSpent(caps, "p/WP1"); err == nil {
		t.Fatal("a session was let start on a spent work package")
	}
	if err := d.refuseSpent(caps, "p/WP2"); err != nil {
		t.Fatalf("another work package refused: %v", err)
	}
}

// A supervisor's reported spend (spend report) counts in its plan's and
// its day's caps, though no session's record holds it: a session of the
// plan whose own spend is far below the cap reaches it, a new session of
// the plan is refused, a session of another plan is not.
func TestSupervisorSpendCountsInPlanAndDayBudgets(t *testing.T) {
	caps := config.Budgets{PlanTokens: 10000}
	d, l := accounting(t, caps)
	if _, err := spend.RecordSupervisor(d.ledger, spend.SupervisorEvent{Plan: "p", ID: "sup-1", Turn: spend.Turn{InputTokens: 9000}}); err != nil {
		t.Fatal(err)
	}
	l.rec.Turns = 1
	l.stopped = true // the stop itself is the e2e tests'; here no plugin runs
	d.onUsage(l, usageEvent(500, 0, 0, false))
	if ex := d.over(l, l.rec.Label, spend.Turn{At: time.Now()}); ex != nil {
		t.Fatalf("9500 of 10000: %v", ex)
	}
	d.onUsage(l, usageEvent(1000, 0, 0, false))
	ex := d.over(l, l.rec.Label, spend.Turn{At: time.Now()})
	if ex == nil || ex.Scope != spend.ScopePlan || ex.Name != "p" || ex.Used != 10000 {
		t.Fatalf("the session's 1000 and the supervisor's 9000 reach the plan's cap of 10000: %+v", ex)
	}
	if err := d.refuseSpent(caps, "p/WP2"); err == nil || !strings.Contains(err.Error(), "plan p used 10000 tokens") {
		t.Fatalf("a new session of the spent plan: %v", err)
	}
	if err := d.refuseSpent(caps, "q/WP1"); err != nil {
		t.Fatalf("another plan refused: %v", err)
	}
	day := config.Budgets{DayTokens: 9500}
	if err := d.refuseSpent(day, "q/WP1"); err == nil || !strings.Contains(err.Error(), "day "+spend.Day(time.Now())) {
		t.Fatalf("the day's cap, reached by the supervisor's 9000 and the session's 1000: %v", err)
	}
}

// BenchmarkTurnAccounting: what the daemon does for one turn's spend —
// two reports priced, saved and checked against four budgets, the turn's
// usage_turn event appended to the ledger.
func BenchmarkTurnAccounting(b *testing.B) {
	d, l := accounting(b, config.Budgets{SessionUSD: 1e9, WPUSD: 1e9, PlanUSD: 1e9, DayTokens: 1 << 60})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		accountTurn(d, l)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/turn")
}

// BenchmarkSupervisorSpendRead: what a usage report adds when a plan or
// day cap is set, the supervisors' reports read from the ledger of a
// repository with 200 turns recorded.
func BenchmarkSupervisorSpendRead(b *testing.B) {
	caps := config.Budgets{PlanUSD: 1e9}
	d, l := accounting(b, caps)
	for i := 0; i < 200; i++ {
		accountTurn(d, l)
	}
	if _, err := spend.RecordSupervisor(d.ledger, spend.SupervisorEvent{Plan: "p", ID: "sup-1", Turn: spend.Turn{InputTokens: 1}}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := d.supervisorSpend(caps); r == nil || r.Supervisor["p"].Turns != 1 {
			b.Fatalf("the supervisor's report: %+v", r)
		}
	}
}
