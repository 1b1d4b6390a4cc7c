package daemon

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/sessions"
)

// Every kind the daemon writes is the sessions feature's.
func TestSessionKindsAreOwned(t *testing.T) {
	kinds := []string{KindSpawn, KindDiagnosed, KindWedged, KindPolicy}
	for state := range transitions {
		kinds = append(kinds, TransitionKind(state))
	}
	for _, k := range kinds {
		if owner := gitstore.KindOwner(k); owner != "sessions" {
			t.Errorf("%s: owner %q", k, owner)
		}
	}
}

// The payloads keep the field names their readers (ledger log --json,
// watch, the tests of other features) have always seen.
func TestSessionPayloadFields(t *testing.T) {
	code := 3
	for _, c := range []struct {
		data any
		want []string
	}{
		{Transition{Session: "s", Reason: "r", StderrTail: "e", outcome: outcome{ExitCode: &code, Warning: "empty_turn", Fault: "f", ErrorLogRef: "x"}},
			[]string{"adapter", "dir", "error_log_ref", "exit_code", "fault", "label", "model", "output_ref", "reason", "session", "stderr_tail", "turn", "warning", "worktree"}},
		{Transition{Session: "s"}, []string{"adapter", "dir", "label", "model", "output_ref", "session", "turn", "worktree"}},
		{Spawn{sessionRef: sessionRef{Session: "s"}, Step: "model_switch", Switch: "/model m", Confirmed: "ok"},
			[]string{"confirmed", "label", "model", "session", "step", "switch", "turn"}},
		{Spawn{Step: "ping_retry", Why: "w"}, []string{"label", "model", "session", "step", "turn", "why"}},
		{Diagnosis{Step: "error_log", Fault: "f", ErrorLogRef: "x"}, []string{"error_log_ref", "fault", "label", "model", "session", "step", "turn"}},
		{PolicyFired{Policy: "p", Session: "s", Trigger: "turn-end"}, []string{"actions", "policy", "session", "trigger"}},
		{Wedged{State: sessions.StateSettled, Symptom: WedgeWorking, Evidence: []string{"cpu"}, After: "1s", Cause: "unknown"},
			[]string{"after", "cause", "evidence", "label", "model", "session", "state", "symptom", "turn"}},
	} {
		b, _ := json.Marshal(c.data)
		var m map[string]any
		json.Unmarshal(b, &m)
		if got := slices.Sorted(maps.Keys(m)); !slices.Equal(got, c.want) {
			t.Errorf("%T: fields %v, want %v", c.data, got, c.want)
		}
	}
}
