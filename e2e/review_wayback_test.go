package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// After review finds a problem in a verified WP's files, the way back is
// the one review prints: a turn for that WP with what to fix (dispatch
// --text), verified again, then run on to a passing review. pr open
// refuses meanwhile, as run does, saying the same next step; --force
// goes on.
func TestTheWayBackAfterReviewFoundSomething(t *testing.T) {
	hollow := "package c\n\nimport \"testing\"\n\nfunc TestC(t *testing.T) {}\n"
	scripts := map[string]string{
		"WP0": writeStep("a/x.txt", "x\n") + "\n" + `{"op":"report","report":{"wp":"WP0","files":["a/x.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`,
		"WP1": writeStep("c/c_test.go", hollow) + "\n" + `{"op":"report","report":{"wp":"WP1","files":["c/c_test.go"],"design_choices":[],"wiring":[],"exit_codes":[]}}`,
	}
	dir := scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n", "go.mod": "module example.com/c\n\ngo 1.22\n"},
		"[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\"]\n"+
			"[[wp]]\nid = \"WP1\"\ntitle = \"c\"\nowns = [\"c/**\"]\ndepends_on = [\"WP0\"]\n", scripts)
	defer sh(t, dir, nil, "git", "agentproto", "sessions", "gc", "--apply")
	must(t, dir, "git", "remote", "add", "origin", "https://github.com/acme/app.git")

	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "run", "demo")
	want := "next: git agentproto dispatch demo --wp WP1 --text 'fix what review found: test-no-assertion c/c_test.go:5'"
	if exitCode(err) != 1 || !strings.Contains(errOut, "stopped at review") || !strings.Contains(errOut, want) || strings.Count(errOut, "next:") != 1 {
		t.Fatalf("run: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	out, errOut, err = sh(t, dir, nil, "git", "agentproto", "review", "demo")
	if exitCode(err) != 1 || !strings.Contains(out, want) {
		t.Fatalf("review: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	out, errOut, err = sh(t, dir, nil, "git", "agentproto", "pr", "open", "demo", "--dry-run")
	if exitCode(err) != 5 || !strings.Contains(errOut, "waits for a passing review") || !strings.Contains(errOut, "next: git agentproto dispatch demo --wp WP1") || out != "" {
		t.Fatalf("pr open after a failed review: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	if out, errOut, err = sh(t, dir, nil, "git", "agentproto", "pr", "open", "demo", "--dry-run", "--force"); err != nil || !strings.Contains(out, "test-no-assertion") {
		t.Fatalf("pr open --force: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}

	fixed := "package c\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestC(t *testing.T) {\n\tif len(os.Args) == 0 {\n\t\tt.Fatal(\"no arguments\")\n\t}\n}\n"
	text := "fix what review found\n```agentproto-script\n" + writeStep("c/c_test.go", fixed) + "\n" +
		`{"op":"report","report":{"wp":"WP1","files":["c/c_test.go"],"design_choices":[],"wiring":[],"exit_codes":[]}}` + "\n```\n"
	out, errOut, err = sh(t, dir, nil, "git", "agentproto", "dispatch", "demo", "--wp", "WP1", "--text", text)
	if err != nil || !strings.Contains(out, "WP1   verify     pass") {
		t.Fatalf("dispatch --text: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	out, errOut, err = sh(t, dir, nil, "git", "agentproto", "run", "demo")
	if err != nil || !strings.Contains(errOut, "all green. next: git agentproto pr open demo") {
		t.Fatalf("run after the fix: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	// No [e2e] commands: run says it checked nothing live, never silently.
	if !strings.Contains(errOut, "== e2e\n") || !strings.Contains(errOut, "e2e        skipped: agentproto.toml has no [e2e] commands") {
		t.Fatalf("run without [e2e] commands skipped e2e silently:\n%s", errOut)
	}
	if out, errOut, err = sh(t, dir, nil, "git", "agentproto", "pr", "open", "demo", "--dry-run"); err != nil || strings.Contains(out, "test-no-assertion") {
		t.Fatalf("pr open after the passing review: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	// run --dry-run > file keeps the preview: it is the run's data.
	out, errOut, err = sh(t, dir, nil, "git", "agentproto", "run", "demo", "--dry-run")
	if err != nil || !strings.HasPrefix(out, "git push origin refs/heads/wt/demo-integration:refs/heads/wt/demo-integration\n") || !strings.Contains(out, "POST https://api.github.com/repos/acme/app/pulls") || strings.Contains(errOut, "POST ") {
		t.Fatalf("run --dry-run: exit %d\nstdout:\n%s\nstderr:\n%s", exitCode(err), out, errOut)
	}
	// In --json the preview is data, not one string to take apart.
	type plan struct {
		Push   []string `json:"push"`
		Method string   `json:"method"`
		URL    string   `json:"url"`
		Body   struct {
			Head, Base, Body string
		} `json:"body"`
	}
	for _, args := range [][]string{{"pr", "open", "demo", "--dry-run", "--json"}, {"run", "demo", "--dry-run", "--json"}} {
		var doc struct {
			Request    *plan  `json:"request"`
			PRRequest  *plan  `json:"pr_request"`
			E2ESkipped string `json:"e2e_skipped"`
		}
		out := must(t, dir, "git", append([]string{"agentproto"}, args...)...)
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		p := doc.Request
		if p == nil {
			p = doc.PRRequest
			if !strings.Contains(doc.E2ESkipped, "no [e2e] commands") {
				t.Errorf("run --json does not say e2e was skipped: %s", out)
			}
		}
		if p == nil || strings.Join(p.Push, " ") != "git push origin refs/heads/wt/demo-integration:refs/heads/wt/demo-integration" || p.Method != "POST" ||
			p.URL != "https://api.github.com/repos/acme/app/pulls" || p.Body.Head != "wt/demo-integration" || p.Body.Base != "main" || !strings.Contains(p.Body.Body, "WP1") {
			t.Errorf("%v: the request as data: %+v\n%s", args, p, out)
		}
	}
}
