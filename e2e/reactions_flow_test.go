package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// After the pull request: a failed check naming src/b.go goes to WP2,
// whose fix is verified, consolidated, reviewed and pushed to the PR
// branch as a new commit; the check passes; a comment on WP1's file goes
// to WP1 and is answered in its thread with the commit; a comment on a
// shared file waits for the supervisor; a check the retries do not fix
// escalates; a branch someone else pushed to is never forced; approved
// and green notifies through [policies] notify once trusted; nothing is
// merged; an hour of polling costs at most 60 requests against the rate
// limit; plan status, watch and the observation packet show what waits,
// with what was tried; and the supervisor's answers are acted on.
func TestPRReactionsEndToEnd(t *testing.T) {
	remote := t.TempDir() + "/remote.git"
	gh, host, ghEnv := startPRGitHub(t, remote)
	notified := filepath.Join(t.TempDir(), "notified.txt")
	dir := reactionsRepo(t, host, "[policies]\nnotify = '"+`echo "$AGENTPROTO_EVENT $AGENTPROTO_PR $AGENTPROTO_ITEM" >> `+notified+"'\n")
	notices := func() string {
		b, _ := os.ReadFile(notified)
		return string(b)
	}
	must(t, dir, "git", "init", "-q", "--bare", remote)
	must(t, dir, "git", "remote", "add", "origin", remote)
	run := func(args ...string) (string, string, error) {
		return sh(t, dir, nil, "env", append(append(append([]string{}, ghEnv...), "git", "agentproto"), args...)...)
	}
	if out, errOut, err := run("run", "demo", "--pr"); err != nil {
		t.Fatalf("run --pr: %v\n%s\n%s", err, out, errOut)
	}
	watch := func(what string) watchReport {
		t.Helper()
		out, errOut, err := run("pr", "watch", "demo", "--once", "--json")
		if err != nil {
			t.Fatalf("%s: pr watch: %v\n%s\n%s", what, err, out, errOut)
		}
		var r watchReport
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%s: pr watch --json: %v\n%s", what, err, out)
		}
		return r
	}
	remoteHead := func() string {
		return strings.TrimSpace(must(t, dir, "git", "--git-dir", remote, "rev-parse", "refs/heads/wt/demo-integration"))
	}
	descends := func(newer, older string) {
		t.Helper()
		if newer == older {
			t.Fatalf("no new commit on the PR branch (still %s)", older)
		}
		must(t, dir, "git", "--git-dir", remote, "merge-base", "--is-ancestor", older, newer)
	}

	// 1. CI fails naming src/b.go: WP2's agent gets it and fixes it.
	head1 := remoteHead()
	fixB := script(writeStep("src/b.go", "package src\n\n// B is fixed.\nfunc B() string { return \"b\" }\n"), partReport("WP2", "b"))
	gh.setCheck(head1, ghCheck{Name: "test", Conclusion: "failure", Text: "--- FAIL: TestB\n    src/b.go:3: B() = \"B\", want \"b\"\nFAIL",
		Annotations: []map[string]any{{"path": "src/b.go", "start_line": 3, "end_line": 3, "annotation_level": "failure", "title": "TestB",
			"message": "B returns the wrong case.\n" + fixB}}})
	r := watch("a failed check")
	if o, wps, why := r.outcome("check:test"); o != "pushed" || wps != "WP2" {
		t.Fatalf("failed check: %s %s %s\n%+v", o, wps, why, r)
	}
	head2 := remoteHead()
	descends(head2, head1)
	if b := must(t, dir, "git", "--git-dir", remote, "show", head2+":src/b.go"); !strings.Contains(b, "B is fixed") {
		t.Fatalf("the pushed head lacks WP2's fix:\n%s", b)
	}
	log := must(t, dir, "git", "agentproto", "ledger", "log", "--json")
	for _, want := range []string{`"kind":"pr_check_failed"`, `"path":"src/b.go"`, `"kind":"pr_reaction"`, `"attempt":2`} {
		if !strings.Contains(log, want) {
			t.Errorf("ledger lacks %s", want)
		}
	}

	// 2. The check passes on the new head; a reviewer comments on WP1's
	// file and on the shared registry.
	gh.setCheck(head2, ghCheck{Name: "test", Conclusion: "success"})
	fixA := script(writeStep("src/a.go", "package src\n\n// A says why it is upper case.\nfunc A() string { return \"A\" }\n"), partReport("WP1", "a"))
	gh.addReview(201, "bob", "COMMENTED", head2)
	gh.addComment(101, 201, "bob", "src/a.go", 3, "A needs a comment saying why.\n"+fixA)
	gh.addComment(102, 201, "bob", "registry.txt", 1, "Sort this file.")
	r = watch("review comments")
	if o, wps, _ := r.outcome("comment:101"); o != "pushed" || wps != "WP1" {
		t.Fatalf("comment on WP1's file: %s %s\n%+v", o, wps, r)
	}
	if o, _, why := r.outcome("comment:102"); o != "escalated" || !strings.Contains(why, "shared file") {
		t.Fatalf("comment on the shared file: %s %s", o, why)
	}
	head3 := remoteHead()
	descends(head3, head2)
	if len(gh.replies) != 1 || gh.replies[0].To != 101 || !strings.Contains(gh.replies[0].Body, head3) {
		t.Fatalf("the thread of comment 101 must get one reply naming %s: %+v", head3, gh.replies)
	}
	// The committed notify command is not trusted yet: it did not run.
	if n := notices(); n != "" {
		t.Fatalf("an untrusted notify command ran: %q", n)
	}
	must(t, dir, "git", "agentproto", "policy", "trust")

	// 3. Approved and green notifies; the escalation still waits.
	gh.setCheck(head3, ghCheck{Name: "test", Conclusion: "success"})
	gh.addReview(202, "alice", "APPROVED", head3)
	r = watch("approved and green")
	if o, _, _ := r.outcome("green:" + head3); o != "notified" {
		t.Fatalf("approved and green: %+v", r)
	}
	if n := notices(); n != "approved-and-green 7 green:"+head3+"\n" {
		t.Fatalf("[policies] notify was told %q", n)
	}
	if len(r.Pending) != 1 || r.Pending[0].Item != "comment:102" || !r.Pending[0].Escalated {
		t.Fatalf("pending: %+v", r.Pending)
	}

	// 4. A check the agent does not fix: one retry, then the supervisor.
	gh.setCheck(head3, ghCheck{Name: "lint", Conclusion: "failure", Annotations: []map[string]any{{"path": "src/b.go", "start_line": 1,
		"end_line": 1, "annotation_level": "failure", "message": "lint: package comment missing\n" + script(`{"op":"say","text":"I see nothing to change"}`)}}})
	r = watch("an unfixed check")
	if o, _, why := r.outcome("check:lint"); o != "failed" || !strings.Contains(why, "changed nothing") {
		t.Fatalf("a turn that changes nothing: %s %s", o, why)
	}
	r = watch("retries run out")
	if o, _, why := r.outcome("check:lint"); o != "escalated" || !strings.Contains(why, "retries ran out") || !strings.Contains(why, "WP2: failed at consolidate") {
		t.Fatalf("retries run out: %s %s", o, why)
	}
	if remoteHead() != head3 {
		t.Fatal("an unfixed check pushed something")
	}
	if n := notices(); !strings.HasSuffix(n, "pr-escalated 7 check:lint\n") {
		t.Fatalf("an escalation is told to [policies] notify: %q", n)
	}

	// 5. Someone else pushes to the PR branch: the next fix is not
	// pushed over it, and waits for the supervisor.
	other := t.TempDir() + "/other"
	must(t, dir, "git", "clone", "-q", "--branch", "wt/demo-integration", remote, other)
	must(t, other, "git", "commit", "-q", "--allow-empty", "-m", "a reviewer's own commit")
	must(t, other, "git", "push", "-q", "origin", "wt/demo-integration")
	human := remoteHead()
	fixB2 := script(writeStep("src/b.go", "package src\n\n// B is fixed, twice.\nfunc B() string { return \"b\" }\n"), partReport("WP2", "b"))
	gh.setCheck(human, ghCheck{Name: "test", Conclusion: "failure", Annotations: []map[string]any{{"path": "src/b.go", "start_line": 3,
		"end_line": 3, "annotation_level": "failure", "message": "TestB again.\n" + fixB2}}})
	r = watch("a foreign commit")
	if o, _, why := r.outcome("check:test"); o != "escalated" || !strings.Contains(why, "did not make") {
		t.Fatalf("a branch someone else moved: %s %s\n%+v", o, why, r)
	}
	if remoteHead() != human {
		t.Fatal("the PR branch was pushed over a commit agentproto did not make")
	}

	// 6. An hour of polls at one a minute ([reactions] interval's
	// default): sixty polls of five reads each. Halfway, a reviewer
	// comments without asking for anything: the poll after it pays for
	// the list that changed, and every other read is a 304.
	gh.costs()
	gh.at(150, func() { gh.reviews = append(gh.reviews, ghReview(203, "carol", "COMMENTED", human)) })
	if out, errOut, err := run("pr", "watch", "demo", "--polls", "60", "--interval", "5ms"); err != nil {
		t.Fatalf("60 polls: %v\n%s\n%s", err, out, errOut)
	}
	counted, free := gh.costs()
	t.Logf("60 polls: %d requests counted against the rate limit, %d answered 304", counted, free)
	if counted > 60 || counted == 0 || free < 5*60-counted {
		t.Errorf("60 polls cost %d counted requests (%d 304s); want the one changed list counted, at most 60, the rest 304s", counted, free)
	}
	if log := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "pr_review_submitted", "--json"); !strings.Contains(log, `"user":"carol"`) {
		t.Errorf("the review made halfway through the hour was not seen: %s", log)
	}

	// plan status shows the pull request and what waits for the
	// supervisor, with what was tried.
	st := must(t, dir, "git", "agentproto", "plan", "status", "demo")
	for _, want := range []string{"pull request #7 open", "comment comment:102 []: waiting for the supervisor: registry.txt is a shared file", "ci-failed check:test [WP2]: waiting for the supervisor"} {
		if !strings.Contains(st, want) {
			t.Errorf("plan status lacks %q:\n%s", want, st)
		}
	}
	if js := must(t, dir, "git", "agentproto", "plan", "status", "demo", "--json"); !strings.Contains(js, `"pull_request":{`) || !strings.Contains(js, `"retries_left":0`) {
		t.Errorf("plan status --json: %s", js)
	}
	checkWaitingViews(t, dir)
	answerEscalations(t, dir, watch)

	// Nothing was ever merged, or asked to be.
	for _, req := range gh.sent() {
		if strings.Contains(req, "merge") || strings.HasPrefix(req, "PUT ") {
			t.Errorf("a merge was asked for: %s", req)
		}
	}
}
