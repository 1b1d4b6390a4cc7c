package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A WP whose executor stops on a question waits for a decision; it has not
// failed. The supervisor's answer is recorded in the SPEC and sent to the
// live session, and the session finishing then verifies as usual.
func TestStopIfForkWaitsForTheAnswer(t *testing.T) {
	stopped := `{"op":"report","report":{"wp":"WP2","files":["lib/lower.sh","tests/lower_test.sh"],"design_choices":[],"wiring":[],"exit_codes":[],` +
		`"stopped":{"question":"lower-case with tr or with awk?","options":["tr","awk"],"default":"tr"}}}`
	dir := pipelineRepo(t, stopped, "lower lib/lower.sh")

	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if exitCode(err) != 5 || !strings.Contains(errOut, "WP2 is waiting for a decision: lower-case with tr or with awk? (options: tr | awk; default: tr)") ||
		!strings.Contains(errOut, "git agentproto plan answer demo WP2 --choice") || !strings.Contains(out, "WP2   verify     waiting_decision") {
		t.Fatalf("dispatch of a stopped WP: %v\n%s%s", err, out, errOut)
	}
	wp2 := sessionOf(t, dir, "demo/WP2")
	var recs []struct{ ID, State string }
	json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "sessions", "ls", "--json")), &recs)
	alive := false
	for _, r := range recs {
		alive = alive || r.ID == wp2 && r.State == "settled"
	}
	if !alive {
		t.Fatalf("the stopped WP's session must stay alive for the answer: %+v", recs)
	}

	out = must(t, dir, "git", "agentproto", "plan", "status", "demo")
	if !strings.Contains(out, "WP2 waiting_decision: lower-case with tr or with awk?") {
		t.Fatalf("plan status must show the waiting WP:\n%s", out)
	}
	var snap struct {
		WPs []struct{ ID, State string } `json:"wps"`
	}
	json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "watch", "demo", "--once", "--json")), &snap)
	states := map[string]string{}
	for _, w := range snap.WPs {
		states[w.ID] = w.State
	}
	if states["WP2"] != "waiting_decision" || states["WP1"] != "verified" {
		t.Fatalf("watch states: %v", states)
	}

	// Answering a WP that is not waiting is refused and writes nothing.
	spec := filepath.Join(dir, ".plans/demo/SPEC.md")
	before, _ := os.ReadFile(spec)
	_, errOut, err = sh(t, dir, nil, "git", "agentproto", "plan", "answer", "demo", "WP1", "--choice", "tr")
	if exitCode(err) != 5 || !strings.Contains(errOut, "WP1 is not waiting for a decision") {
		t.Fatalf("answer to a WP that did not stop: %v %s", err, errOut)
	}
	if after, _ := os.ReadFile(spec); string(after) != string(before) {
		t.Fatal("a refused answer changed the SPEC")
	}

	// The scripted executor acts on a script in what it is sent, so the
	// choice carries the rest of its work.
	choice := "tr\n```agentproto-script\n" +
		`{"op":"report","report":{"wp":"WP2","files":["lib/lower.sh","tests/lower_test.sh"],"design_choices":["tr, as decided"],"wiring":[{"file":"registry.txt","line":"lower lib/lower.sh"}],"claims":["tool:lower"],"exit_codes":[]}}` +
		"\n```"
	out = must(t, dir, "git", "agentproto", "plan", "answer", "demo", "WP2", "--choice", choice)
	if !strings.Contains(out, "sent it to session "+wp2) {
		t.Fatalf("answer: %s", out)
	}
	if b, _ := os.ReadFile(spec); !strings.Contains(string(b), "## CORRECTION ") || !strings.Contains(string(b), "DECISION for WP2: lower-case with tr or with awk?\nChoice: tr") {
		t.Fatalf("the SPEC must carry the dated decision:\n%s", b)
	}
	if out := must(t, dir, "git", "agentproto", "plan", "answer", "demo", "WP2", "--choice", choice); !strings.Contains(out, "already recorded") {
		t.Fatalf("a repeated answer must not be sent twice: %s", out)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", wp2, "--timeout", "30s")
	if got := must(t, dir, "git", "agentproto", "sessions", "output", wp2); !strings.Contains(got, "tr, as decided") {
		t.Fatalf("the session did not act on the decision:\n%s", got)
	}
	out = must(t, dir, "git", "agentproto", "verify", "demo", "WP2")
	if !strings.Contains(out, "demo WP2: pass") {
		t.Fatalf("verify after the answer: %s", out)
	}
	if out := must(t, dir, "git", "agentproto", "plan", "status", "demo"); strings.Contains(out, "waiting_decision") {
		t.Fatalf("a verified WP no longer waits:\n%s", out)
	}
}
