package peers

import (
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/spend"
)

// PacketSpend is what the repository's agents cost, from the ledger's
// usage events, for the supervisor to weigh: each plan's total (its
// executors' turns and its supervisor's own reports), today's (UTC) and
// all. A turn an agent reported nothing of counts as unknown, never as
// zero. Each peer's own is in its view.
type PacketSpend struct {
	Plans map[string]spend.Total `json:"plans"`
	Today spend.Total            `json:"today"`
	All   spend.Total            `json:"all"`
}

// addSpend puts the spend in the packet: the plans', the day's, and each
// peer's over its sessions. A session's is its record's when this clone
// has it (the running turn included), else its ended turns from the
// ledger, which syncs. A ledger that cannot be read makes the packet
// incomplete: what was spent is decision input.
func (s *Service) addSpend(o *Observation, store sessions.View) {
	o.Spend = PacketSpend{Plans: map[string]spend.Total{}}
	use, _, err := spend.Read(s.Ledger)
	if err != nil {
		o.Warnings = append(o.Warnings, "spend could not be read: "+err.Error())
		o.DecisionInputComplete = false
		use = spend.NewRollup()
	}
	o.Spend.Plans, o.Spend.Today, o.Spend.All = use.Plans, use.Days[spend.Day(s.now())], use.All
	for i := range o.Peers {
		v := &o.Peers[i]
		for _, id := range v.Sessions {
			if r, err := store.Load(id); err == nil {
				v.Spend.Merge(r.Spend)
			} else {
				v.Spend.Merge(use.Sessions[id])
			}
		}
	}
}
