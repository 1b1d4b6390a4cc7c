package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

// runSettled waits until the daemon's policies ran the dispatch action n
// times, each recorded once it returned: the run launches nothing more,
// and the test may end without a launch still writing in its repository.
func runSettled(t *testing.T, dir string, n int) {
	t.Helper()
	pollLedger(t, fmt.Sprintf("%d dispatch actions", n), func() bool {
		got := 0
		for _, data := range ledgerEvents(t, dir, "policy_fired") {
			acts, _ := data["actions"].([]any)
			for _, a := range acts {
				if r, _ := a.(map[string]any); r["action"] == "dispatch" {
					got++
				}
			}
		}
		return got >= n
	})
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
	runSettled(t, dir, 3)
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

type sessionRow struct {
	ID, Label, State string
	Turns            int
}

func sessionByLabel(t *testing.T, dir, label string) sessionRow {
	t.Helper()
	var recs []sessionRow
	json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "sessions", "ls", "--all", "--json")), &recs)
	for _, r := range recs {
		if r.Label == label {
			return r
		}
	}
	t.Fatalf("no session %s", label)
	return sessionRow{}
}

// A daemon-owned run meets a WP that stops on a question: the WP waits,
// its session stays alive, a second dispatch --no-wait neither kills nor
// re-prompts it, MCP shows the question in plan_status and the packet,
// and plan_answer sends the choice, after which the daemon verifies the
// WP and the run ends.
func TestDaemonRunWaitsForTheDecision(t *testing.T) {
	stopped := `{"op":"report","report":{"wp":"WP2","files":["lib/lower.sh","tests/lower_test.sh"],"design_choices":[],"wiring":[],"exit_codes":[],` +
		`"stopped":{"question":"lower-case with tr or with awk?","options":["tr","awk"],"default":"tr"}}}`
	dir := pipelineRepo(t, stopped, "lower lib/lower.sh")
	must(t, dir, "git", "agentproto", "goal", "new", "g1", "--title", "demo")
	must(t, dir, "git", "agentproto", "peer", "register", "sup", "--adapter", "scripted")
	must(t, dir, "git", "agentproto", "goal", "configure", "--goal-id", "g1", "--supervisor-agent", "sup", "--execute")

	out := must(t, dir, "git", "agentproto", "dispatch", "demo", "--no-wait")
	if !strings.Contains(out, "the sessions daemon starts the next waves") {
		t.Fatalf("dispatch --no-wait: %s", out)
	}
	pollLedger(t, "WP1 verified and WP2 waiting", func() bool {
		v := verdicts(t, dir)
		return v["WP1"] == "pass" && v["WP2"] == "waiting_decision"
	})
	wp2 := sessionByLabel(t, dir, "demo/WP2")
	if wp2.State != "settled" {
		t.Fatalf("the waiting WP's session must stay alive for the answer: %+v", wp2)
	}
	checks := len(ledgerEvents(t, dir, "wp_verified"))

	// Dispatching again leaves the waiting WP alone.
	out = must(t, dir, "git", "agentproto", "dispatch", "demo", "--no-wait")
	if !strings.Contains(out, "nothing new to start") {
		t.Fatalf("a second dispatch --no-wait: %s", out)
	}
	time.Sleep(time.Second) // what a wrongly attached policy would fire has time to
	if again := sessionByLabel(t, dir, "demo/WP2"); again.State != "settled" || again.Turns != wp2.Turns {
		t.Fatalf("the waiting session was killed or prompted again: %+v, was %+v", again, wp2)
	}
	if n := dispatchCounts(t, dir); n["WP2"] != 1 {
		t.Fatalf("WP2 dispatched again: %v", n)
	}
	if n := len(ledgerEvents(t, dir, "wp_verified")); n != checks {
		t.Fatalf("WP2 verified again with nothing new: %d verifications, was %d", n, checks)
	}

	cs := mcpConnect(t, dir)
	// dispatch_wait answers at once: the run waits for the supervisor.
	start := time.Now()
	dw := mustTool(t, cs, "dispatch_wait", map[string]any{"project": "demo", "for": "30s"})
	states := map[string]string{}
	for _, x := range dw.Doc["wps"].([]any) {
		w := x.(map[string]any)
		states[w["wp"].(string)] = w["state"].(string)
	}
	if mustJSON(dw.Doc["needs"]) != `["WP2"]` || states["WP2"] != "waiting_decision" || states["WP1"] != "verified" || dw.Doc["done"] != false ||
		time.Since(start) > 10*time.Second {
		t.Fatalf("dispatch_wait with a WP waiting (%s): %s %+v", time.Since(start), dw.Text, dw.Doc)
	}
	st := mustTool(t, cs, "plan_status", map[string]any{"project": "demo"})
	if want := cliDoc(t, dir, "agentproto.plan.status/v1", "plan", "status", "demo", "--json"); mustJSON(st.Doc) != want {
		t.Fatalf("plan_status differs from plan status --json:\nmcp %s\ncli %s", mustJSON(st.Doc), want)
	}
	ws, _ := st.Doc["waiting_decision"].([]any)
	if len(ws) != 1 || !strings.Contains(st.Text, "WP2 waiting_decision: lower-case with tr or with awk?") {
		t.Fatalf("plan_status waiting: %s %+v", st.Text, st.Doc)
	}
	w := ws[0].(map[string]any)
	stop, _ := w["stopped"].(map[string]any)
	if w["wp"] != "WP2" || w["session"] != wp2.ID || stop["question"] != "lower-case with tr or with awk?" || stop["default"] != "tr" || mustJSON(stop["options"]) != `["tr","awk"]` {
		t.Fatalf("waiting WP: %+v", w)
	}
	obs := mustTool(t, cs, "supervisor_observe", map[string]any{"goal": "g1", "agent": "sup"})
	cli := must(t, dir, "git", "agentproto", "supervisor", "observe", "--goal", "g1", "--agent", "sup")
	var cliObs map[string]any
	json.Unmarshal([]byte(cli), &cliObs)
	ow, _ := obs.Doc["waiting_decisions"].([]any)
	if len(ow) != 1 || mustJSON(cliObs["waiting_decisions"]) != mustJSON(ow) {
		t.Fatalf("the packet's waiting decisions: mcp %s, cli %s", mustJSON(ow), mustJSON(cliObs["waiting_decisions"]))
	}
	if o := ow[0].(map[string]any); o["project"] != "demo" || o["wp"] != "WP2" {
		t.Fatalf("packet row: %+v", o)
	}

	// A WP that does not wait is refused, and nothing is written.
	spec := filepath.Join(dir, ".plans/demo/SPEC.md")
	before, _ := os.ReadFile(spec)
	if c := callTool(t, cs, "plan_answer", map[string]any{"project": "demo", "wp": "WP1", "choice": "tr"}); !c.IsError || c.Doc["exit_code"] != float64(5) ||
		!strings.Contains(c.Text, "WP1 is not waiting for a decision") {
		t.Fatalf("answer to a WP that did not stop: %+v", c)
	}
	if after, _ := os.ReadFile(spec); string(after) != string(before) {
		t.Fatal("a refused answer changed the SPEC")
	}
	choice := "tr\n```agentproto-script\n" +
		`{"op":"report","report":{"wp":"WP2","files":["lib/lower.sh","tests/lower_test.sh"],"design_choices":["tr, as decided"],"wiring":[{"file":"registry.txt","line":"lower lib/lower.sh"}],"claims":["tool:lower"],"exit_codes":[]}}` +
		"\n```"
	a := mustTool(t, cs, "plan_answer", map[string]any{"project": "demo", "wp": "WP2", "choice": choice})
	if a.Doc["schema"] != "agentproto.plan.answer/v1" || a.Doc["recorded"] != true || a.Doc["sent"] != true || a.Doc["session"] != wp2.ID || a.Doc["off_options"] != true {
		t.Fatalf("plan_answer: %+v", a.Doc)
	}
	cs.Close()
	// The daemon's policy verifies the answered WP, kills it and ends the run.
	pollLedger(t, "WP2 verified after the answer", func() bool { return verdicts(t, dir)["WP2"] == "pass" })
	pollLedger(t, "WP2's session killed once verified", func() bool { return sessionByLabel(t, dir, "demo/WP2").State == "cleaned" })
	runSettled(t, dir, 3) // WP0, WP1, and WP2 once answered
	if out := must(t, dir, "git", "agentproto", "plan", "status", "demo"); strings.Contains(out, "waiting_decision") {
		t.Fatalf("a verified WP no longer waits:\n%s", out)
	}
}
