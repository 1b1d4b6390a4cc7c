package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reviewerScript is a REVIEW.md whose scripted reviewer runs steps (JSON
// lines) and then answers with a block refuting F1.
func reviewerScript(steps ...string) string {
	answer := "\\u0060\\u0060\\u0060agentproto-review\n" +
		`{"verdicts":[{"finding":"F1","verdict":"refuted","why":"planned for WP3"}],"findings":[]}` + "\n\\u0060\\u0060\\u0060"
	answer = strings.ReplaceAll(strings.ReplaceAll(answer, `\`, `\\`), "\n", `\n`)
	answer = strings.ReplaceAll(answer, `"`, `\"`)
	answer = strings.ReplaceAll(answer, `\\u0060`, `\u0060`)
	return "# Review\n\n```agentproto-script\n" + strings.Join(steps, "\n") + "\n{\"op\":\"say\",\"text\":\"" + answer + "\"}\n```\n"
}

type reviewerJSON struct {
	Reviewer string `json:"reviewer_session"`
	Verdicts *struct {
		Verdicts []struct{ Finding, Verdict string }
		Void     string
		Changed  []string
	} `json:"reviewer"`
}

func runReviewer(t *testing.T, dir, review string) (reviewerJSON, string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, ".plans/demo/REVIEW.md"), []byte(review), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "review", "demo", "--adapter", "scripted", "--json")
	if exitCode(err) != 1 {
		t.Fatalf("review: %v\n%s\n%s", err, out, errOut)
	}
	var r reviewerJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Verdicts == nil {
		t.Fatalf("review JSON: %v\n%s\n%s", err, out, errOut)
	}
	return r, out
}

// reviewedRepo is the pipeline run up to its review, whose static
// findings (WP2 claims a command nothing registers) exit 1.
func reviewedRepo(t *testing.T) string {
	t.Helper()
	report := `{"op":"report","report":{"wp":"WP2","files":["lib/lower.sh","tests/lower_test.sh"],"design_choices":[],` +
		`"wiring":[{"file":"registry.txt","line":"lower lib/lower.sh"}],"claims":["command:shout"],"exit_codes":[]}}`
	dir := pipelineRepo(t, report, "")
	if out, errOut, err := sh(t, dir, nil, "git", "agentproto", "run", "demo"); exitCode(err) != 1 {
		t.Fatalf("run: %v\n%s\n%s", err, out, errOut)
	}
	return dir
}

// statusBut is git status of the main checkout without the brief review
// itself writes there.
func statusBut(t *testing.T, dir string) string {
	var keep []string
	for _, l := range strings.Split(must(t, dir, "git", "status", "--porcelain", "--untracked-files=all"), "\n") {
		if !strings.Contains(l, "REVIEW-brief.md") && !strings.Contains(l, "REVIEW.md") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// The reviewer runs in its own worktree of the integration state: a clean
// one has its verdicts attached and its worktree removed; one that writes
// a file has its verdicts voided (said and recorded), the file stays in
// its worktree only, the main checkout is untouched, and the next review
// archives that worktree before it replaces it.
func TestReviewerCannotWrite(t *testing.T) {
	dir := reviewedRepo(t)
	reviewWT := func() string {
		for _, l := range strings.Split(must(t, dir, "git", "worktree", "list", "--porcelain"), "\n") {
			if p, ok := strings.CutPrefix(l, "worktree "); ok && filepath.Base(p) == "demo-review" {
				return p
			}
		}
		return ""
	}

	clean, out := runReviewer(t, dir, reviewerScript())
	if clean.Verdicts.Void != "" || len(clean.Verdicts.Verdicts) != 1 || clean.Verdicts.Verdicts[0].Verdict != "refuted" {
		t.Fatalf("a clean reviewer's verdicts were not attached: %s", out)
	}
	if p := reviewWT(); p != "" {
		t.Fatalf("the clean reviewer's worktree %s was kept", p)
	}

	before := statusBut(t, dir)
	dirty, out := runReviewer(t, dir, reviewerScript(`{"op":"write","path":"lib/fixed.sh","content":"echo fixed\n"}`))
	v := dirty.Verdicts
	if v.Void == "" || !strings.Contains(v.Void, "lib/fixed.sh") || len(v.Verdicts) != 0 || len(v.Changed) != 1 || v.Changed[0] != "lib/fixed.sh" {
		t.Fatalf("a writing reviewer's verdicts were not voided: %s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "lib/fixed.sh")); err == nil {
		t.Fatal("the reviewer wrote into the main checkout")
	}
	if after := statusBut(t, dir); after != before {
		t.Fatalf("the main checkout changed:\nbefore %q\nafter  %q", before, after)
	}
	p := reviewWT()
	if p == "" {
		t.Fatal("the writing reviewer's worktree was not kept to be looked at")
	}
	if b, err := os.ReadFile(filepath.Join(p, "lib/fixed.sh")); err != nil || string(b) != "echo fixed\n" {
		t.Fatalf("the reviewer's write is not in its worktree: %q %v", b, err)
	}
	rev := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "plan_reviewed", "--limit", "1", "--json")
	if !strings.Contains(rev, `"void":`) || !strings.Contains(rev, `"changed":["lib/fixed.sh"]`) {
		t.Fatalf("the void is not recorded: %s", rev)
	}
	// The next review goes on: what the voided reviewer left is archived,
	// said with the way back, and restored on demand.
	os.WriteFile(filepath.Join(dir, ".plans/demo/REVIEW.md"), []byte(reviewerScript()), 0o644)
	text, errText, err := sh(t, dir, nil, "git", "agentproto", "review", "demo", "--adapter", "scripted", "--json")
	var again reviewerJSON
	json.Unmarshal([]byte(text), &again)
	if exitCode(err) != 1 || again.Verdicts == nil || again.Verdicts.Void != "" || len(again.Verdicts.Verdicts) != 1 ||
		!strings.Contains(errText, "demo-review held changes an earlier review left (lib/fixed.sh): archived on refs/agentproto/salvage/demo-review/") ||
		!strings.Contains(errText, "git agentproto worktree restore demo-review brings it back") {
		t.Fatalf("the review after a voided one: exit %d\n%s\n%s", exitCode(err), text, errText)
	}
	if p := reviewWT(); p != "" {
		t.Fatalf("the clean reviewer's worktree %s was kept", p)
	}
	must(t, dir, "git", "agentproto", "worktree", "restore", "demo-review")
	if b, err := os.ReadFile(filepath.Join(reviewWT(), "lib/fixed.sh")); err != nil || string(b) != "echo fixed\n" {
		t.Fatalf("the archived write is not restored: %q %v", b, err)
	}
}

// A reviewer worktree removed by hand after a voided review leaves its
// branch: the next review deletes it when the integration state holds
// its commits, and archives it (saying so) when the reviewer committed;
// no review ends on "branch already exists".
func TestReviewAfterTheReviewerWorktreeWasRemovedByHand(t *testing.T) {
	dir := reviewedRepo(t)
	commit := `{"op":"run","cmd":"echo fixed > lib/fixed.sh && git -c user.name=r -c user.email=r@example.com add lib/fixed.sh && git -c user.name=r -c user.email=r@example.com commit -qm fix"}`
	for _, c := range []struct {
		name, step, rm, want string
	}{
		{"untracked write", `{"op":"write","path":"lib/fixed.sh","content":"echo fixed\n"}`, "--discard-untracked", ""},
		{"commit", commit, "", "the reviewer's old branch wt/demo-review held commits the review does not start from: archived on refs/agentproto/salvage/demo-review/"},
	} {
		if v, out := runReviewer(t, dir, reviewerScript(c.step)); v.Verdicts.Void == "" {
			t.Fatalf("%s: not voided: %s", c.name, out)
		}
		rm := []string{"agentproto", "worktree", "rm", "demo-review"}
		if c.rm != "" {
			rm = append(rm, c.rm)
		}
		must(t, dir, "git", rm...)
		os.WriteFile(filepath.Join(dir, ".plans/demo/REVIEW.md"), []byte(reviewerScript()), 0o644)
		out, errOut, err := sh(t, dir, nil, "git", "agentproto", "review", "demo", "--adapter", "scripted", "--json")
		var v reviewerJSON
		json.Unmarshal([]byte(out), &v)
		if exitCode(err) != 1 || v.Verdicts == nil || v.Verdicts.Void != "" || !strings.Contains(errOut, c.want) || (c.want == "" && strings.Contains(errOut, "archived")) {
			t.Fatalf("%s: review after worktree rm: exit %d\n%s\n%s", c.name, exitCode(err), out, errOut)
		}
		if c.want != "" {
			salvaged := must(t, dir, "git", "log", "--format=%s", "--glob=refs/agentproto/salvage/demo-review/*")
			if !strings.Contains(salvaged, "fix") {
				t.Fatalf("%s: the reviewer's commit is not on the salvage ref:\n%s", c.name, salvaged)
			}
		}
	}
}

// A reviewer that writes outside its worktree (here into the main
// checkout) has its verdicts voided too, the place named, where no
// sandbox stops the write (off here).
func TestReviewerWritingOutsideIsVoid(t *testing.T) {
	dir := reviewedRepo(t)
	unconfined(t, dir)
	stray := filepath.Join(dir, "stray.txt")
	r, out := runReviewer(t, dir, reviewerScript(step("run", "cmd", "echo fixed > "+stray)))
	v := r.Verdicts
	if v.Void == "" || !strings.Contains(v.Void, "stray.txt") || !strings.Contains(v.Void, "outside it") || len(v.Verdicts) != 0 {
		t.Fatalf("a reviewer writing outside its worktree kept its verdicts: %s", out)
	}
	if b, err := os.ReadFile(stray); err != nil || string(b) != "fixed\n" {
		t.Fatalf("the test's premise: the reviewer wrote %s: %q %v", stray, b, err)
	}
	// Moving a WP's branch is a write outside too.
	r, out = runReviewer(t, dir, reviewerScript(step("run", "cmd", "git update-ref refs/heads/wt/demo-wp1 HEAD")))
	if v := r.Verdicts; v.Void == "" || !strings.Contains(v.Void, "ref refs/heads/wt/demo-wp1") || len(v.Verdicts) != 0 {
		t.Fatalf("a reviewer moving a WP branch kept its verdicts: %s", out)
	}
}
