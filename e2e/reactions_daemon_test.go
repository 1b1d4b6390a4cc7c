package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The sessions daemon watches the pull request with no command in the
// foreground: a failed check naming src/b.go is observed and goes to
// WP2, whose fix goes through the pipeline to a new commit on the PR
// branch; its polls cost at most one counted request each (the ETags
// make the rest 304s); the watch ends when the pull request is closed,
// and the token it was handed is never written down.
func TestPRWatchedByTheDaemon(t *testing.T) {
	remote := t.TempDir() + "/remote.git"
	gh, host, ghEnv := startPRGitHub(t, remote)
	dir := reactionsRepo(t, host, "")
	must(t, dir, "git", "init", "-q", "--bare", remote)
	must(t, dir, "git", "remote", "add", "origin", remote)
	run := func(args ...string) string {
		t.Helper()
		out, errOut, err := sh(t, dir, nil, "env", append(append(append([]string{}, ghEnv...), "git", "agentproto"), args...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s\n%s", args, err, out, errOut)
		}
		return out
	}
	run("run", "demo", "--pr")
	remoteHead := func() string {
		return strings.TrimSpace(must(t, dir, "git", "--git-dir", remote, "rev-parse", "refs/heads/wt/demo-integration"))
	}
	head1 := remoteHead()
	fixB := script(writeStep("src/b.go", "package src\n\n// B is fixed.\nfunc B() string { return \"b\" }\n"), partReport("WP2", "b"))
	gh.setCheck(head1, ghCheck{Name: "test", Conclusion: "failure", Annotations: []map[string]any{{"path": "src/b.go", "start_line": 3,
		"end_line": 3, "annotation_level": "failure", "message": "B returns the wrong case.\n" + fixB}}})

	// An LLM supervisor hands the watch over through MCP; the CLI's
	// --daemon then finds the same watch.
	cs := mcpConnectEnv(t, dir, ghEnv)
	if c := callTool(t, cs, "pr_watch", map[string]any{"project": "demo", "interval": "10ms"}); !c.IsError || c.Doc["exit_code"] != float64(2) {
		t.Fatalf("pr_watch polling faster than once a second: %+v", c)
	}
	w := mustTool(t, cs, "pr_watch", map[string]any{"project": "demo", "interval": "1s"})
	pol, _ := w.Doc["policy"].(map[string]any)
	id, _ := pol["id"].(string)
	if w.Doc["schema"] != "agentproto.pr.watch/v1" || w.Doc["number"] != float64(7) || w.Doc["every"] != "1s" || !strings.HasPrefix(id, "p-") {
		t.Fatalf("pr_watch: %s %+v", w.Text, w.Doc)
	}
	if again := run("pr", "watch", "demo", "--daemon", "--interval", "1s"); !strings.Contains(again, "(policy "+id+";") {
		t.Fatalf("a second watch of one plan: %s", again)
	}
	if c := callTool(t, cs, "pr_answer", map[string]any{"project": "demo", "item": "check:test", "choice": "retry"}); !c.IsError || c.Doc["exit_code"] != float64(5) {
		t.Fatalf("pr_answer for an item that waits for nobody: %+v", c)
	}
	type policyFile struct {
		Fired    int  `json:"fired"`
		Canceled bool `json:"canceled"`
	}
	polFile := filepath.Join(dir, ".git", "agentproto", "policies", id+".json")
	policy := func() policyFile {
		var p policyFile
		b, _ := os.ReadFile(polFile)
		json.Unmarshal(b, &p)
		return p
	}
	// Nothing runs in the foreground from here: the daemon polls, routes
	// and pushes. The disk is read, never the CLI (a client would count
	// as the daemon being busy).
	waitLong := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if cond() {
				return
			}
		}
		log, _, _ := sh(t, dir, nil, "git", "agentproto", "ledger", "log", "--kind", "policy_fired", "--json")
		t.Fatalf("timed out waiting for %s; policy %+v\n%s", what, policy(), log)
	}
	waitLong("the daemon's fix on the PR branch", func() bool { return remoteHead() != head1 })
	head2 := remoteHead()
	must(t, dir, "git", "--git-dir", remote, "merge-base", "--is-ancestor", head1, head2)
	if b := must(t, dir, "git", "--git-dir", remote, "show", head2+":src/b.go"); !strings.Contains(b, "B is fixed") {
		t.Fatalf("the pushed head lacks WP2's fix:\n%s", b)
	}
	// The push lands before its records: pr watch records what it did
	// once the push is done, and the daemon its firing once pr watch
	// has exited.
	wants := []string{`"kind":"pr_check_failed"`, `"outcome":"pushed"`, `"wps":["WP2"]`, `"kind":"policy_fired"`, `"action":"pr-watch"`, `"project":"demo"`}
	waitLong("the records of the push", func() bool {
		log := must(t, dir, "git", "agentproto", "ledger", "log", "--json")
		for _, want := range wants {
			if !strings.Contains(log, want) {
				return false
			}
		}
		return true
	})

	// Green again: polls with nothing new are 304s.
	gh.setCheck(head2, ghCheck{Name: "test", Conclusion: "success"})
	waitLong("a poll seeing the check pass", func() bool {
		return strings.Contains(must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "pr_check_passed", "--json"), head2)
	})
	gh.costs()
	from := policy().Fired
	waitLong("five quiet polls", func() bool { return policy().Fired >= from+5 })
	polls := policy().Fired - from
	counted, free := gh.costs()
	t.Logf("%d polls by the daemon: %d requests counted, %d answered 304", polls, counted, free)
	if counted > polls || free < 4*polls {
		t.Errorf("%d quiet polls cost %d counted requests and %d 304s: want at most one counted per poll", polls, counted, free)
	}

	// Closed: the watch ends by itself.
	gh.close()
	waitLong("the watch to end with the pull request", func() bool { return policy().Canceled })
	b, _ := os.ReadFile(polFile)
	if strings.Contains(string(b), "test-token") || strings.Contains(string(b), "forge_token") {
		t.Fatalf("the policy's file holds the token: %s", b)
	}
	if st := must(t, dir, "git", "agentproto", "plan", "status", "demo"); !strings.Contains(st, "pull request #7 closed") {
		t.Errorf("plan status: %s", st)
	}
	for _, req := range gh.sent() {
		if strings.Contains(req, "merge") || strings.HasPrefix(req, "PUT ") {
			t.Errorf("a merge was asked for: %s", req)
		}
	}
}
