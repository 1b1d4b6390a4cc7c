package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// prCommands run where a pull request has items waiting for the
// supervisor: TestPRReactionsEndToEnd runs them (answerEscalations).
var prCommands = []jsonCase{
	{path: "pr answer", args: []string{"demo", "comment:102", "--choice", "dismiss", "--note", "I sort the registry myself"}},
}

// checkWaitingViews: what waits for the supervisor on the pull request —
// comment:102 on a shared file, check:test after a foreign commit (check:
// lint escalated on an earlier head) — shows, with what was tried, in
// watch, in waiting and in the observation packet (the MCP
// supervisor_observe serves the same).
func checkWaitingViews(t *testing.T, dir string) {
	t.Helper()
	view := must(t, dir, "git", "agentproto", "watch", "demo", "--once")
	for _, want := range []string{"PULL REQUEST #7 open", "2 waiting for you", "check:test", "tried: WP2: failed at push", "pr answer demo ITEM"} {
		if !strings.Contains(view, want) {
			t.Errorf("watch lacks %q:\n%s", want, view)
		}
	}
	waiting := must(t, dir, "git", "agentproto", "waiting")
	for _, want := range []string{"demo pull request #7 check:test (ci-failed) [WP2]: ", "did not make", "  tried: WP2: failed at push\n",
		"demo pull request #7 comment:102 (comment) []: registry.txt is a shared file", "answer: git agentproto pr answer demo comment:102 --choice retry|dismiss|WPn"} {
		if !strings.Contains(waiting, want) {
			t.Errorf("waiting lacks %q:\n%s", want, waiting)
		}
	}
	must(t, dir, "git", "agentproto", "goal", "new", "g1", "--title", "ship demo")
	must(t, dir, "git", "agentproto", "peer", "register", "a1", "--adapter", "scripted")
	must(t, dir, "git", "agentproto", "goal", "configure", "--goal", "g1", "--supervisor-agent", "a1", "--apply")
	var packet struct {
		Complete bool `json:"decision_input_complete"`
		PRs      []struct {
			Project string `json:"project"`
			Number  int    `json:"number"`
			State   string `json:"state"`
			Pending []struct {
				Item        string   `json:"item"`
				Escalated   bool     `json:"escalated"`
				RetriesLeft int      `json:"retries_left"`
				Reason      string   `json:"reason"`
				Tried       []string `json:"tried"`
			} `json:"pending"`
		} `json:"pull_requests"`
	}
	out := must(t, dir, "git", "agentproto", "supervisor", "observe", "--goal", "g1", "--agent", "a1")
	if err := json.Unmarshal([]byte(out), &packet); err != nil {
		t.Fatalf("observe: %v\n%s", err, out)
	}
	if len(packet.PRs) != 1 || packet.PRs[0].Project != "demo" || packet.PRs[0].Number != 7 || packet.PRs[0].State != "open" || !packet.Complete {
		t.Fatalf("the packet's pull_requests:\n%s", out)
	}
	got := map[string]string{}
	for _, p := range packet.PRs[0].Pending {
		if !p.Escalated || p.RetriesLeft != 0 {
			t.Errorf("an item that waits for nobody, or has turns left: %+v", p)
		}
		got[p.Item] = p.Reason + " | " + strings.Join(p.Tried, "; ")
	}
	if !strings.Contains(got["comment:102"], "shared file") || !strings.Contains(got["check:test"], "did not make") ||
		!strings.Contains(got["check:test"], "| WP2: failed at push") || len(got) != 2 {
		t.Fatalf("the packet's pending items: %v\n%s", got, out)
	}
}

// answerEscalations: an item with no owner cannot be retried, only given
// to a work package; a dismissed item is done with; a retried one gets
// its owner's turn again and, failing again, escalates with the answer
// in what was tried.
func answerEscalations(t *testing.T, dir string, watch func(string) watchReport) {
	t.Helper()
	_, errOut, err := sh(t, dir, nil, "git", "agentproto", "pr", "answer", "demo", "comment:102", "--choice", "retry")
	if exitCode(err) != 5 || !strings.Contains(errOut, "--choice WPn") {
		t.Fatalf("retry of an item no WP owns: exit %d\n%s", exitCode(err), errOut)
	}
	_, errOut, err = sh(t, dir, nil, "git", "agentproto", "pr", "answer", "demo", "check:none", "--choice", "dismiss")
	if exitCode(err) != 5 || !strings.Contains(errOut, "not waiting") {
		t.Fatalf("an item that waits for nobody: exit %d\n%s", exitCode(err), errOut)
	}
	for _, c := range prCommands {
		runJSONCase(t, dir, c, map[string]string{})
	}
	out := must(t, dir, "git", "agentproto", "pr", "answer", "demo", "check:test", "--choice", "retry", "--note", "the reviewer's commit is in")
	if !strings.Contains(out, "check:test on pull request #7 goes to WP2") {
		t.Fatalf("pr answer: %s", out)
	}
	outcome, why := "", ""
	for i := 0; i < 2 && outcome != "escalated"; i++ {
		outcome, _, why = watch("after the retry").outcome("check:test")
	}
	if outcome != "escalated" || !strings.Contains(why, "the supervisor answered retry (the reviewer's commit is in)") {
		t.Fatalf("the retried check: %s %s", outcome, why)
	}
	st := must(t, dir, "git", "agentproto", "plan", "status", "demo")
	if strings.Contains(st, "comment:102") || !strings.Contains(st, "tried: the supervisor answered retry") {
		t.Errorf("plan status after the answers:\n%s", st)
	}
	if log := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "pr_reaction", "--json"); !strings.Contains(log, `"answer":"dismiss"`) {
		t.Errorf("the dismissal is no pr_reaction event: %s", log)
	}
}
