package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scriptedReview writes a REVIEW.md whose script makes the scripted
// reviewer refute finding F1 and add a warning of its own.
func scriptedReview(t *testing.T, dir string) {
	t.Helper()
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
}

// MCP review with an adapter runs the reviewer session as review
// --adapter does: its verdicts are in the result and in the ledger, and
// a refuted finding still fails the review.
func TestMCPReviewRunsTheReviewerSession(t *testing.T) {
	report := `{"op":"report","report":{"wp":"WP2","files":["lib/lower.sh","tests/lower_test.sh"],"design_choices":[],` +
		`"wiring":[{"file":"registry.txt","line":"lower lib/lower.sh"}],"claims":["command:shout"],"exit_codes":[]}}`
	dir := pipelineRepo(t, report, "")
	if out, errOut, err := sh(t, dir, nil, "git", "agentproto", "run", "demo"); exitCode(err) != 1 {
		t.Fatalf("run: %v\n%s\n%s", err, out, errOut)
	}
	scriptedReview(t, dir)
	cs := mcpConnect(t, dir)

	bad := callTool(t, cs, "review", map[string]any{"project": "demo", "adapter": "scripted", "profile": "cheap"})
	if !bad.IsError || bad.Doc["exit_code"] != float64(2) {
		t.Fatalf("adapter and profile together: %+v", bad)
	}
	c := callTool(t, cs, "review", map[string]any{"project": "demo", "adapter": "scripted"})
	if !c.IsError || c.Doc["exit_code"] != float64(1) || !strings.Contains(c.Text, "review found problems") {
		t.Fatalf("a refuted finding made the review pass: %+v", c)
	}
	r, _ := c.Doc["result"].(map[string]any)
	if r["schema"] != "agentproto.review/v1" || !strings.HasPrefix(r["reviewer_session"].(string), "s-") {
		t.Fatalf("review result: %+v", r)
	}
	v, _ := r["reviewer"].(map[string]any)
	verdicts, _ := v["verdicts"].([]any)
	findings, _ := v["findings"].([]any)
	if len(verdicts) != 1 || len(findings) != 1 {
		t.Fatalf("reviewer verdicts: %+v", v)
	}
	if fv := verdicts[0].(map[string]any); fv["finding"] != "F1" || fv["verdict"] != "refuted" || fv["why"] != "shout is planned for WP3" {
		t.Fatalf("verdict: %+v", fv)
	}
	if fd := findings[0].(map[string]any); fd["file"] != "lib/lower.sh" || fd["severity"] != "warning" {
		t.Fatalf("reviewer finding: %+v", fd)
	}
	rev := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "plan_reviewed", "--limit", "1", "--json")
	if !strings.Contains(rev, `"name":"reviewer-report.txt"`) || !strings.Contains(rev, `"reviewer_session":"`+r["reviewer_session"].(string)+`"`) {
		t.Fatalf("review event: %s", rev)
	}
}
