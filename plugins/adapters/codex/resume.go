package codex

import (
	"encoding/json"
	"fmt"

	"github.com/agentproto/agentproto/plugins/adapters/cliturn"
)

// resumeState is what a new process of the adapter needs to go on with a
// session (cliturn.Resumer): the thread, for exec resume, its usage at its
// last turn.completed, so the next turn's is what it added (usage.go), and
// how far its rollout has been read (rollout.go), so no earlier warning is
// given again.
type resumeState struct {
	Thread string `json:"thread,omitempty"`
	Count  *usage `json:"count,omitempty"`
	Read   int64  `json:"read,omitempty"`
}

// ResumeState is the session's thread and what the adapter knows of it.
func (d *driver) ResumeState() json.RawMessage {
	d.mu.Lock()
	r := resumeState{Thread: d.thread}
	if d.thread != "" {
		if d.countThread == d.thread {
			c := d.count
			r.Count = &c
		}
		r.Read = d.rolloutOff[d.thread]
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
			return fmt.Errorf("codex's part: %v", err)
		}
	}
	if r.Thread != "" && !cliturn.SafeID(r.Thread) {
		return fmt.Errorf("%q is not a codex thread id", r.Thread)
	}
	if r.Read < 0 || (r.Thread == "" && (r.Count != nil || r.Read != 0)) {
		return fmt.Errorf("codex's part holds a count or a rollout offset without a thread, or a negative offset")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.thread = r.Thread
	if r.Count != nil {
		d.count, d.countThread = *r.Count, r.Thread
	}
	if r.Read > 0 {
		d.rolloutOff[r.Thread] = r.Read
	}
	return nil
}
