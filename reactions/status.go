package reactions

import (
	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/plans"
)

// Status is where the plan's pull request stands by the ledger alone,
// asking GitHub nothing: its state as last polled, the items still open
// with who has them and the turns left, and those waiting for the
// supervisor. It is nil when no poll has seen the pull request yet.
func Status(l gitstore.Store, p *plans.Project, cfg config.Reactions) (*Report, error) {
	st, err := ReadState(l, p.Name)
	if err != nil || st.PR == nil {
		return nil, err
	}
	return &Report{Project: p.Name, PR: st.PR, Observed: []string{}, Reactions: []Reaction{}, Pending: st.pending(p, *st.PR, cfg),
		Done: st.PR.State != "open"}, nil
}

// Escalation is an item waiting for the supervisor's decision, with what
// was tried: what the waiting-decisions views list beside the WPs that
// stopped on a question.
type Escalation struct {
	Project string   `json:"project"`
	Number  int      `json:"number"`
	Item    string   `json:"item"`
	Trigger string   `json:"trigger"`
	Reason  string   `json:"reason"`
	Tried   []string `json:"tried,omitempty"`
}

// Escalations lists the open items of p's pull request that escalated.
func Escalations(l gitstore.Store, p *plans.Project, cfg config.Reactions) ([]Escalation, error) {
	s, err := Status(l, p, cfg)
	out := []Escalation{}
	if err != nil || s == nil || s.Done {
		return out, err
	}
	for _, pd := range s.Pending {
		if pd.Escalated {
			out = append(out, Escalation{Project: p.Name, Number: s.PR.Number, Item: pd.Item, Trigger: pd.Trigger, Reason: pd.Reason, Tried: pd.Tried})
		}
	}
	return out, nil
}
