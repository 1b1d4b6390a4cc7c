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
	// WPs says where each work package stands, in plan order.
	WPs     []WPState   `json:"wps,omitempty"`
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
	ps, err := ReadState(l, p.Name)
	if err != nil {
		return nil, err
	}
	st.WPs = ps.WPStates(p)
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

// WPState is where one work package stands, from the ledger.
type WPState struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// State is planned, dispatched, verified, waiting_decision, failed or
	// checkpointed.
	State   string `json:"state"`
	Verdict string `json:"verdict"` // latest verify verdict, "" before any
	Session string `json:"session,omitempty"`
	// Checkpoint is the short commit of the WP's checkpoint.
	Checkpoint string `json:"checkpoint,omitempty"`
}

// WPStates says where each work package of p stands, in plan order.
func (s *State) WPStates(p *plans.Project) []WPState {
	out := make([]WPState, 0, len(p.Plan.WPs))
	for _, wp := range p.Plan.WPs {
		r := WPState{ID: wp.ID, Title: wp.Title, State: "planned"}
		if d, ok := s.LastDispatch(wp.ID); ok {
			r.State, r.Session = "dispatched", d.Session
		}
		if v, ok := s.Verifications[wp.ID]; ok {
			r.Verdict = v.Verdict
			switch v.Verdict {
			case Pass:
				r.State = "verified"
			case WaitingDecision:
				r.State = WaitingDecision
			default:
				r.State = "failed"
			}
		}
		if c, ok := s.Checkpoints[wp.ID]; ok && s.Verified(wp.ID) {
			r.State, r.Checkpoint = "checkpointed", short(c.Commit)
		}
		out = append(out, r)
	}
	return out
}
