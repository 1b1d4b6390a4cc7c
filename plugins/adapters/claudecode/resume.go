package claudecode

import (
	"encoding/json"
	"fmt"

	"github.com/agentproto/agentproto/plugins/adapters/cliturn"
)

// resumeState is what a new process of the adapter needs to go on with a
// session (cliturn.Resumer): claude's session id, for --resume, and the
// session's total_cost_usd at its last result, so the next turn's cost is
// what it added (usage.go).
type resumeState struct {
	Session string  `json:"session,omitempty"`
	Cost    float64 `json:"cost,omitempty"`
}

// ResumeState is the session's id and cost so far.
func (d *driver) ResumeState() json.RawMessage {
	d.mu.Lock()
	r := resumeState{Session: d.session}
	if d.session != "" && d.costSession == d.session {
		r.Cost = d.costSeen
	}
	d.mu.Unlock()
	b, _ := json.Marshal(r)
	return b
}

// Restore takes the state of an earlier process's session.
func (d *driver) Restore(state json.RawMessage) error {
	var r resumeState
	if state != nil {
		if err := cliturn.ReadState(state, &r); err != nil {
			return fmt.Errorf("claude's part: %v", err)
		}
	}
	if r.Session != "" && !cliturn.SafeID(r.Session) {
		return fmt.Errorf("%q is not a claude session id", r.Session)
	}
	if r.Cost < 0 {
		return fmt.Errorf("a cost of %v", r.Cost)
	}
	d.mu.Lock()
	d.session = r.Session
	if r.Session != "" {
		d.costSession, d.costSeen = r.Session, r.Cost
	}
	d.mu.Unlock()
	return nil
}
