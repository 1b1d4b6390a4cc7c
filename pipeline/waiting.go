package pipeline

import (
	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/plans"
)

// WaitingWP is a WP whose latest verification found its executor stopped
// on a question.
type WaitingWP struct {
	WP      string `json:"wp"`
	Session string `json:"session,omitempty"`
	Stop    *Stop  `json:"stopped"`
}

// WaitingDecisions lists the WPs of p waiting for the supervisor's answer,
// with the session to send it to; plan status, plan answer and other front
// ends read them alike.
func WaitingDecisions(l gitstore.Store, p *plans.Project) ([]WaitingWP, error) {
	st, err := ReadState(l, p.Name)
	if err != nil {
		return nil, err
	}
	out := []WaitingWP{}
	for _, wp := range p.Plan.WPs {
		v, ok := st.Verifications[wp.ID]
		if !ok || v.Verdict != WaitingDecision || v.Report == nil || v.Report.Stopped == nil {
			continue
		}
		w := WaitingWP{WP: wp.ID, Stop: v.Report.Stopped}
		if d, ok := st.LastDispatch(wp.ID); ok {
			w.Session = d.Session
		}
		out = append(out, w)
	}
	return out, nil
}
