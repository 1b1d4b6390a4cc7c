package daemon

import (
	"sync"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/spend"
)

// book is the spend of every session of the repository, the daemon's
// live ones and those of earlier daemons, for the budgets wider than a
// session (work package, plan, day). It is read from the records once,
// then kept by the usage reports of live sessions.
type book struct {
	once    sync.Once
	mu      sync.Mutex
	entries map[string]bookEntry
}

type bookEntry struct {
	label string
	turns []spend.Turn
}

// load reads the records of every session once.
func (b *book) load(view sessions.View) {
	b.once.Do(func() {
		recs, _ := view.All()
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.entries == nil {
			b.entries = map[string]bookEntry{}
		}
		for _, r := range recs {
			if _, live := b.entries[r.ID]; !live && len(r.Usage) > 0 {
				b.entries[r.ID] = bookEntry{label: r.Label, turns: r.Usage}
			}
		}
	})
}

// set replaces a session's turns.
func (b *book) set(id, label string, turns []spend.Turn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.entries == nil {
		b.entries = map[string]bookEntry{}
	}
	b.entries[id] = bookEntry{label: label, turns: turns}
}

// check is the first cap reached by the work package and plan of label
// or by day, or nil. sup, when not nil, holds the supervisors' reports,
// which count in their plan and day.
func (b *book) check(caps config.Budgets, label, day string, sup *spend.Rollup) *spend.Exhausted {
	wp, plan := spend.WPOf(label), spend.PlanOf(label)
	var wpT, planT, dayT spend.Total
	if sup != nil {
		planT, dayT = sup.Supervisor[plan], sup.Days[day]
	}
	b.mu.Lock()
	for _, e := range b.entries {
		for _, t := range e.turns {
			if spend.Day(t.At) == day {
				dayT.Add(t)
			}
			if wp == "" {
				continue
			}
			if e.label == wp {
				wpT.Add(t)
			}
			if spend.PlanOf(e.label) == plan {
				planT.Add(t)
			}
		}
	}
	b.mu.Unlock()
	if wp != "" {
		if ex := spend.Check(caps, spend.ScopeWP, wp, wpT); ex != nil {
			return ex
		}
		if ex := spend.Check(caps, spend.ScopePlan, plan, planT); ex != nil {
			return ex
		}
	}
	return spend.Check(caps, spend.ScopeDay, day, dayT)
}
