package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// verdicts maps each WP to its latest verdict in the ledger.
func verdicts(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, data := range ledgerEvents(t, dir, "wp_verified") {
		wp, _ := data["wp"].(string)
		out[wp], _ = data["verdict"].(string)
	}
	return out
}

// dispatchCounts counts the wp_dispatched events of each WP.
func dispatchCounts(t *testing.T, dir string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, data := range ledgerEvents(t, dir, "wp_dispatched") {
		wp, _ := data["wp"].(string)
		out[wp]++
	}
	return out
}

// pollLedger waits until done holds of the ledger, for as long as a slow
// machine needs to run a few scripted sessions and their gates.
func pollLedger(t *testing.T, what string, done func() bool) {
	t.Helper()
	for deadline := time.Now().Add(120 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		if done() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// The run belongs to the sessions daemon: MCP dispatch returns once WP0
// is launched, the client disconnects, and the daemon verifies WP0,
// launches WP1 and WP2 (which WP0 unblocks), and verifies them, with no
// client connected. WP1 and WP2 settling together each run dispatch;
// the lock and the skip of what runs start each WP once.
func TestMCPDispatchRunOwnedByTheDaemon(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	cs := mcpConnect(t, dir)
	c := mustTool(t, cs, "dispatch", map[string]any{"project": "demo"})
	ds, _ := c.Doc["dispatches"].(map[string]any)
	if len(ds) != 1 || ds["WP0"] == nil || !strings.Contains(c.Text, "runs dispatch again") {
		t.Fatalf("the call returns after the first wave, WP0 alone: %s %+v", c.Text, c.Doc)
	}
	cs.Close()

	pollLedger(t, "WP1 and WP2 verified by the daemon", func() bool {
		v := verdicts(t, dir)
		return v["WP0"] == "pass" && v["WP1"] == "pass" && v["WP2"] == "pass"
	})
	// The last dispatch ran after the last verification and found the plan done.
	pollLedger(t, "the dispatch that finds the plan done", func() bool {
		n := 0
		for _, data := range ledgerEvents(t, dir, "policy_fired") {
			acts, _ := data["actions"].([]any)
			for _, a := range acts {
				if r, _ := a.(map[string]any); r["action"] == "dispatch" && r["ok"] == true {
					n++
				}
			}
		}
		return n == 3
	})
	if n := dispatchCounts(t, dir); n["WP0"] != 1 || n["WP1"] != 1 || n["WP2"] != 1 {
		t.Fatalf("each WP is dispatched once: %v", n)
	}
	for _, data := range ledgerEvents(t, dir, "policy_fired") {
		for _, a := range data["actions"].([]any) {
			if r := a.(map[string]any); r["ok"] != true {
				t.Errorf("policy action failed: %+v", r)
			}
		}
	}
	// dispatch_status, from a new client, shows the run done.
	st := mustTool(t, mcpConnect(t, dir), "dispatch_status", map[string]any{"project": "demo"})
	v, _ := st.Doc["verifications"].(map[string]any)
	for _, wp := range []string{"WP0", "WP1", "WP2"} {
		if r, _ := v[wp].(map[string]any); r["verdict"] != "pass" {
			t.Fatalf("dispatch_status %s: %+v", wp, st.Doc)
		}
	}
	// Sessions verified are killed: none is left running.
	var recs []struct{ Label, State string }
	json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "sessions", "ls", "--all", "--json")), &recs)
	for _, r := range recs {
		if r.State != "cleaned" && r.State != "exited" {
			t.Errorf("session %s is %s after its WP verified", r.Label, r.State)
		}
	}
}
