package e2e

import (
	"encoding/pem"
	"fmt"
	"net/http/httptest"
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

// pr_open opens the plan's pull request through the library, against a
// loopback server playing GitHub: dry_run sends nothing and answers with
// the CLI's dry-run document; a real open POSTs, a second one finds the
// pull request and updates it, each answered with pr open --json's
// document.
func TestMCPPROpen(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	remote := filepath.Join(t.TempDir(), "remote.git")
	must(t, dir, "git", "init", "-q", "--bare", remote)
	must(t, dir, "git", "remote", "add", "origin", remote)
	if out, errOut, err := sh(t, dir, nil, "git", "agentproto", "run", "demo"); err != nil {
		t.Fatalf("run: %v\n%s\n%s", err, out, errOut)
	}
	gh := &github{t: t}
	srv := httptest.NewTLSServer(gh)
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644)
	host := strings.TrimPrefix(srv.URL, "https://")
	cfg, _ := os.ReadFile(filepath.Join(dir, "agentproto.toml"))
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), append(cfg, []byte("[pr]\nrepo = \"acme/app\"\nhost = \""+host+"\"\n")...), 0o644)
	env := []string{"GH_TOKEN=test-token", "GH_CONFIG_DIR=" + t.TempDir(), "AGENTPROTO_GITHUB_CA=" + ca}
	cli := func(args ...string) string {
		t.Helper()
		out, errOut, err := sh(t, dir, nil, "env", append(append([]string{}, env...), append([]string{"git", "agentproto"}, args...)...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut)
		}
		return canonical(t, out)
	}
	cs := mcpConnectEnv(t, dir, env)

	dry := mustTool(t, cs, "pr_open", map[string]any{"project": "demo", "dry_run": true})
	if want := cli("pr", "open", "demo", "--dry-run", "--json"); mustJSON(dry.Doc) != want {
		t.Fatalf("pr_open dry_run differs from pr open --dry-run --json:\nmcp %s\ncli %s", mustJSON(dry.Doc), want)
	}
	req, _ := dry.Doc["request"].(map[string]any)
	body, _ := req["body"].(map[string]any)
	if mustJSON(req["push"]) != `["git","push","origin","refs/heads/wt/demo-integration:refs/heads/wt/demo-integration"]` ||
		req["method"] != "POST" || !strings.HasSuffix(fmt.Sprint(req["url"]), "/repos/acme/app/pulls") || body["head"] != "wt/demo-integration" || len(gh.sent()) != 0 {
		t.Fatalf("a dry run gives the push and the request as data, and sends nothing: %v, requests %v", req, gh.sent())
	}
	if refs := must(t, dir, "git", "ls-remote", remote); strings.Contains(refs, "demo-integration") {
		t.Fatalf("a dry run pushed: %s", refs)
	}

	opened := mustTool(t, cs, "pr_open", map[string]any{"project": "demo"})
	if opened.Doc["schema"] != "agentproto.pr.open/v1" || opened.Doc["number"] != float64(7) || opened.Doc["updated"] != false ||
		opened.Doc["head"] != "wt/demo-integration" || !strings.Contains(opened.Text, "opened pull request #7") {
		t.Fatalf("pr_open: %s %+v", opened.Text, opened.Doc)
	}
	if refs := must(t, dir, "git", "ls-remote", remote); !strings.Contains(refs, "refs/heads/wt/demo-integration") {
		t.Fatalf("integration branch not pushed: %s", refs)
	}
	cliDoc := cli("pr", "open", "demo", "--json")
	again := mustTool(t, cs, "pr_open", map[string]any{"project": "demo"})
	if mustJSON(again.Doc) != cliDoc || again.Doc["updated"] != true {
		t.Fatalf("pr_open differs from pr open --json:\nmcp %s\ncli %s", mustJSON(again.Doc), cliDoc)
	}
	want := []string{"POST /api/v3/repos/acme/app/pulls",
		"POST /api/v3/repos/acme/app/pulls", "GET /api/v3/repos/acme/app/pulls?head=acme%3Awt%2Fdemo-integration&state=open", "PATCH /api/v3/repos/acme/app/pulls/7",
		"POST /api/v3/repos/acme/app/pulls", "GET /api/v3/repos/acme/app/pulls?head=acme%3Awt%2Fdemo-integration&state=open", "PATCH /api/v3/repos/acme/app/pulls/7"}
	if got := gh.sent(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s", strings.Join(got, "\n"))
	}
	// Opened once, updated twice with the same content: one record each.
	if n := len(ledgerEvents(t, dir, "pr_opened")); n != 2 {
		t.Fatalf("%d pr_opened events, want 2", n)
	}
	// A bad argument and a credential are refused before anything is sent.
	if c := callTool(t, cs, "pr_open", map[string]any{"project": "demo", "force": true}); !c.IsError || c.Doc["exit_code"] != float64(2) {
		t.Fatalf("unknown argument: %+v", c)
	}
	if c := callTool(t, cs, "pr_open", map[string]any{"project": "demo", "title": "ghp_" + strings.Repeat("xY7", 12)}); !c.IsError || c.Doc["exit_code"] != float64(5) || strings.Contains(c.Text, "xY7") {
		t.Fatalf("credential-shaped title: %+v", c)
	}
	if got := gh.sent(); len(got) != len(want) {
		t.Fatalf("a refused call reached GitHub: %v", got)
	}
}
