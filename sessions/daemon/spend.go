package daemon

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/spend"
)

// limits are the [prices] and [budgets] a session runs under. The daemon
// reads them itself, when the session starts, from the agentproto.toml
// of the repository's main checkout: no start request carries them, and
// no session can write that file (the sandbox keeps it read-only even to
// a session working in the main checkout), so an executor cannot raise
// its own budget. A supervisor's change applies to the sessions started
// after it.
type limits struct {
	prices  map[string]config.Price
	budgets config.Budgets
}

// mainCheckout is the repository's main working tree: where the
// configuration is, whichever worktree the daemon was started from.
func (d *Daemon) mainCheckout() string {
	if filepath.Base(d.repo.CommonDir) == ".git" {
		return filepath.Dir(d.repo.CommonDir)
	}
	return d.repo.WorkTree
}

// loadLimits reads the spend configuration. A file that does not parse
// refuses the session: a budget the daemon cannot read is not enforced.
func (d *Daemon) loadLimits() (limits, error) {
	cfg, src, err := config.Load(d.mainCheckout())
	if err != nil {
		return limits{}, fault.Invalidf("the sessions daemon cannot read [prices] and [budgets] in %s: %v", src.Path, err)
	}
	return limits{prices: cfg.Prices, budgets: cfg.Budgets}, nil
}

// turnUsage is what the daemon follows of a turn's spend.
type turnUsage struct {
	last     *spend.Turn // the turn's latest report
	recorded bool        // its usage_turn event is written
}

// onUsage takes a usage report: it replaces the turn's running figure in
// the record, and stops the session when a budget is reached.
func (d *Daemon) onUsage(l *live, e *host.Event) {
	u := e.Usage
	if u == nil {
		return
	}
	r := spend.Report{Model: u.Model, InputTokens: u.InputTokens, CachedInputTokens: u.CachedInputTokens,
		CacheCreationTokens: u.CacheCreationTokens, OutputTokens: u.OutputTokens, CostUSD: u.CostUSD, HasCost: u.HasCost, Final: u.Final}
	at := time.Now().UTC()
	if e.UnixNanos > 0 {
		at = time.Unix(0, e.UnixNanos).UTC()
	}
	d.mu.Lock()
	t := spend.Priced(l.rec.Turns, at, l.rec.Model, r, l.limits.prices)
	l.turn.usage.last = &t
	setTurn(l.rec, t)
	turns, label := append([]spend.Turn(nil), l.rec.Usage...), l.rec.Label
	d.mu.Unlock()
	d.book.set(l.rec.ID, label, turns)
	d.save(l.rec)
	if ex := d.over(l, label, t); ex != nil {
		go d.exhaust(l, ex)
	}
}

// setTurn puts t in r.Usage, replacing the entry of its turn, and sums.
func setTurn(r *sessions.Record, t spend.Turn) {
	if n := len(r.Usage); n > 0 && r.Usage[n-1].Turn == t.Turn {
		r.Usage[n-1] = t
	} else {
		r.Usage = append(r.Usage, t)
	}
	r.Spend = spend.Total{}
	for _, u := range r.Usage {
		r.Spend.Add(u)
	}
}

// endTurn closes a turn's spend when it ends: a turn without any report
// is recorded as unknown, and every turn gets its usage_turn event.
func (d *Daemon) endTurn(l *live) {
	d.mu.Lock()
	if l.turn.usage.recorded || l.rec.Turns == 0 {
		d.mu.Unlock()
		return
	}
	if l.turn.usage.last == nil {
		t := spend.Turn{Turn: l.rec.Turns, At: time.Now().UTC(), Model: l.rec.Model, Unknown: true}
		l.turn.usage.last = &t
		setTurn(l.rec, t)
	}
	d.mu.Unlock()
	d.recordTurn(l, nil)
}

// recordTurn writes the current turn's usage_turn event once.
func (d *Daemon) recordTurn(l *live, stopped *spend.Exhausted) {
	d.mu.Lock()
	t := l.turn.usage.last
	if t == nil || l.turn.usage.recorded {
		d.mu.Unlock()
		return
	}
	l.turn.usage.recorded = true
	e := spend.TurnEvent{Session: l.rec.ID, Label: l.rec.Label, Adapter: l.rec.Adapter, Profile: l.rec.Profile, Turn: *t, Stopped: stopped}
	d.mu.Unlock()
	draft, err := spend.TurnDraft(e)
	if err != nil {
		d.logf("ledger: %s %s turn %d: %v", spend.KindTurn, e.Session, e.Turn.Turn, err)
		return
	}
	// Queued behind the session's events before it, so it lands after them,
	// and in one append with the settle that follows it: the turn's end
	// waited for two appends of its own before the settle's. An answer
	// waits for it as for every queued event (journal.flush).
	d.journal.add(draft)
}

// over is the first budget the session's spend reaches: its own, its
// work package's, its plan's, the day's.
func (d *Daemon) over(l *live, label string, t spend.Turn) *spend.Exhausted {
	b := l.limits.budgets
	if b.IsZero() {
		return nil
	}
	d.mu.Lock()
	own := l.rec.Spend
	d.mu.Unlock()
	if ex := spend.Check(b, spend.ScopeSession, l.rec.ID, own); ex != nil {
		return ex
	}
	return d.book.check(b, label, spend.Day(t.At), d.supervisorSpend(b))
}

// supervisorSpend is what supervisors reported of their own spend (spend
// report, a usage_supervisor event): no session's record holds it, yet a
// plan's total and a day's include it, so their caps count it. It is read
// from the ledger at each check, through the kind index, and only when a
// plan or day cap is set; a report written while a session runs counts
// from that session's next usage report. nil when no such cap is set, or
// when the ledger cannot be read (logged: the sessions' own spend is
// still held to the caps).
func (d *Daemon) supervisorSpend(b config.Budgets) *spend.Rollup {
	if b.PlanTokens == 0 && b.PlanUSD == 0 && b.DayTokens == 0 && b.DayUSD == 0 {
		return nil
	}
	r, _, err := spend.ReadSupervisor(d.ledger)
	if err != nil {
		d.logf("budgets: the supervisors' spend could not be read, so it is not counted: %v", err)
		return nil
	}
	return r
}

// exhaust stops a session at a budget: its plugin and every process it
// started are killed at once (what they wrote stays on disk), the turn's
// usage is recorded with the cap, and the session fails with the fault
// budget_exhausted, which dispatch treats as a dead provider.
func (d *Daemon) exhaust(l *live, ex *spend.Exhausted) {
	d.mu.Lock()
	if l.stopped || sessions.Terminal(l.rec.State) {
		d.mu.Unlock()
		return
	}
	l.stopped = true
	l.rec.Faults = append(l.rec.Faults, spend.FaultBudgetExhausted)
	d.mu.Unlock()
	d.logf("stop %s: %v", l.rec.ID, ex)
	d.endPlugin(l)
	fmt.Fprintf(l.out, "\n[agentproto] %v; the session was stopped and its work stays on disk\n", ex)
	d.recordTurn(l, ex)
	d.transition(l.rec, sessions.StateFailed, ex.Error(), &outcome{Fault: spend.FaultBudgetExhausted})
}

// refuseSpent refuses a session whose work package, plan or day has
// already reached its cap: dispatch stops there for the supervisor.
func (d *Daemon) refuseSpent(b config.Budgets, label string) error {
	if b.IsZero() {
		return nil
	}
	if ex := d.book.check(b, label, spend.Day(time.Now()), d.supervisorSpend(b)); ex != nil {
		return fault.Refusedf("%v: no session starts under it until the supervisor raises the budget", ex)
	}
	return nil
}
