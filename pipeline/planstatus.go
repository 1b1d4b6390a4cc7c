package pipeline

import (
	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/spend"
)

// PlanStatus is where a plan stands: frozen or not, how its working files
// drifted from the frozen version, and which WPs wait for a decision.
type PlanStatus struct {
	Project string `json:"project"`
	Frozen  bool   `json:"frozen"`
	*FrozenStatus
	Waiting []WaitingWP `json:"waiting_decision,omitempty"`
	// Spend is what the plan's sessions and its supervisor used, from
	// the ledger's usage events; nil before any was recorded.
	Spend *spend.Plan `json:"spend,omitempty"`
}

// FrozenStatus is the part of a PlanStatus only a frozen plan has.
type FrozenStatus struct {
	Record     string            `json:"record"`
	Time       string            `json:"time"`
	Amendments int               `json:"amendments"`
	Files      []plans.FileState `json:"files"`
}

// Status reads where plan p stands from its history h and the ledger l.
func Status(l gitstore.Store, p *plans.Project, h *plans.History) (*PlanStatus, error) {
	st := &PlanStatus{Project: p.Name}
	if h.Frozen == nil {
		return st, nil
	}
	drift, err := plans.Drift(p, h)
	if err != nil {
		return nil, err
	}
	waiting, err := WaitingDecisions(l, p)
	if err != nil {
		return nil, err
	}
	use, _, err := spend.Read(l)
	if err != nil {
		return nil, err
	}
	st.Spend = use.Plan(p.Name)
	st.Frozen = true
	st.FrozenStatus = &FrozenStatus{Record: h.Frozen.RecordID, Time: h.Frozen.Time, Amendments: len(h.Amendments), Files: drift}
	if len(waiting) > 0 {
		st.Waiting = waiting
	}
	return st, nil
}
