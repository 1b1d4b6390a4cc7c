package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The LLM leg: a scripted reviewer session, run by the real sessions
// daemon, reads the brief review writes (static findings, the plan's
// REVIEW.md, the diff), refutes the one static finding and adds its own.
// Its verdicts are attached to the review record; the refutation does
// not make the review pass.
func TestReviewReviewerVerdicts(t *testing.T) {
	report := `{"op":"report","report":{"wp":"WP2","files":["lib/lower.sh","tests/lower_test.sh"],"design_choices":[],` +
		`"wiring":[{"file":"registry.txt","line":"lower lib/lower.sh"}],"claims":["command:shout"],"exit_codes":[]}}`
	dir := pipelineRepo(t, report, "")
	if out, errOut, err := sh(t, dir, nil, "git", "agentproto", "run", "demo"); exitCode(err) != 1 {
		t.Fatalf("run: %v\n%s\n%s", err, out, errOut)
	}
	// The scripted reviewer answers with the block the brief asks for
	// (backquotes escaped: the script block is fenced too).
	answer := "\\u0060\\u0060\\u0060agentproto-review\n" +
		`{"verdicts":[{"finding":"F1","verdict":"refuted","why":"shout is planned for WP3"}],` +
		`"findings":[{"file":"lib/lower.sh","line":1,"severity":"warning","message":"tr ranges ignore the locale"}]}` + "\n\\u0060\\u0060\\u0060"
	answer = strings.ReplaceAll(strings.ReplaceAll(answer, `\`, `\\`), "\n", `\n`)
	answer = strings.ReplaceAll(answer, `"`, `\"`)
	answer = strings.ReplaceAll(answer, `\\u0060`, `\u0060`)
	review := "# Review\n\nCheck the claims.\n\n```agentproto-script\n{\"op\":\"say\",\"text\":\"" + answer + "\"}\n```\n"
	if err := os.WriteFile(filepath.Join(dir, ".plans/demo/REVIEW.md"), []byte(review), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "review", "demo", "--adapter", "scripted", "--json")
	if exitCode(err) != 1 {
		t.Fatalf("a refuted finding made the review pass: %v\n%s\n%s", err, out, errOut)
	}
	var r struct {
		Findings []struct{ Code, Message string }
		Reviewer string `json:"reviewer_session"`
		Verdicts *struct {
			Verdicts []struct{ Finding, Verdict, Why string }
			Findings []struct{ File, Severity, Message string }
			Problem  string
		} `json:"reviewer"`
		OK bool
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("review JSON: %v\n%s", err, out)
	}
	if r.OK || len(r.Findings) != 1 || r.Findings[0].Code != "claim-orphan" || !strings.HasPrefix(r.Reviewer, "s-") || r.Verdicts == nil {
		t.Fatalf("review %s", out)
	}
	v := r.Verdicts
	if len(v.Verdicts) != 1 || v.Verdicts[0].Verdict != "refuted" || v.Verdicts[0].Why != "shout is planned for WP3" ||
		len(v.Findings) != 1 || v.Findings[0].File != "lib/lower.sh" || v.Findings[0].Severity != "warning" || v.Problem != "" {
		t.Fatalf("reviewer verdicts %+v\n%s", v, out)
	}
	// The brief the reviewer read carries the finding, the plan's brief
	// and the diff.
	brief, err := os.ReadFile(filepath.Join(dir, ".plans/demo/REVIEW-brief.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"- F1 error claim-orphan", "Check the claims.", "```agentproto-review", "+tr A-Z a-z"} {
		if !strings.Contains(string(brief), want) {
			t.Errorf("the reviewer brief lacks %q:\n%s", want, brief)
		}
	}
	// The record holds the verdicts and the reviewer's whole report.
	rev := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "plan_reviewed", "--limit", "1", "--json")
	if !strings.Contains(rev, `"name":"reviewer-report.txt"`) || !strings.Contains(rev, `"verdict":"refuted"`) {
		t.Fatalf("review event: %s", rev)
	}
}
