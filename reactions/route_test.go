package reactions

import (
	"strings"
	"testing"

	"github.com/agentproto/agentproto/plans"
)

func demoPlan() *plans.Project {
	return &plans.Project{Name: "demo", Plan: plans.Plan{Shared: []string{"registry.txt"}, WPs: []plans.WP{
		{ID: "WP1", Owns: []string{"src/a.go", "tests/a_test.sh"}},
		{ID: "WP2", Owns: []string{"src/b.go", "tests/b_test.sh"}},
	}}}
}

// A comment goes to the one WP owning its file; a shared file or a file
// of nobody's waits for the supervisor, saying why.
func TestRouteComment(t *testing.T) {
	p := demoPlan()
	for path, want := range map[string]string{"src/a.go": "WP1", "tests/b_test.sh": "WP2", "registry.txt": "shared file", "README.md": "no work package's perimeter"} {
		r := RouteComment(p, Comment{Path: path})
		got := strings.Join(r.WPs(), ",") + r.Escalate
		if !strings.Contains(got, want) || (r.Escalate != "") == strings.HasPrefix(want, "WP") {
			t.Errorf("%s: routed to %q, escalated %q; want %s", path, r.WPs(), r.Escalate, want)
		}
	}
}

// A failed check goes by its annotations, else by the files its log
// names; each WP gets only its notes. Nothing named, or only shared
// files, escalates.
func TestRouteCheck(t *testing.T) {
	p := demoPlan()
	r := RouteCheck(p, Check{Name: "test", Notes: []Note{{Path: "src/b.go", Line: 3, Message: "wrong"}, {Path: "src/a.go", Message: "also"}}})
	if strings.Join(r.WPs(), ",") != "WP1,WP2" || len(r.Parts["WP2"]) != 1 || r.Parts["WP2"][0].Line != 3 || r.Escalate != "" {
		t.Fatalf("annotations: %+v", r)
	}
	r = RouteCheck(p, Check{Name: "test", Log: "ok  other\n--- FAIL: TestB (0.00s)\n    src/b.go:12: got B want b\nFAIL"})
	if strings.Join(r.WPs(), ",") != "WP2" || r.Parts["WP2"][0].Line != 12 || !strings.Contains(r.Parts["WP2"][0].Message, "got B") {
		t.Fatalf("log: %+v", r)
	}
	if r := RouteCheck(p, Check{Name: "build", Log: "exit status 1"}); r.Escalate == "" || !strings.Contains(r.Escalate, "names no file") {
		t.Fatalf("nothing named: %+v", r)
	}
	if r := RouteCheck(p, Check{Name: "lint", Notes: []Note{{Path: "registry.txt"}}}); len(r.Parts) != 0 || !strings.Contains(r.Escalate, "shared") {
		t.Fatalf("shared only: %+v", r)
	}
}

// What is sent is bounded and scrubbed of secrets: a token pasted in a
// log never reaches an agent, and a megabyte log arrives as its failing
// lines.
func TestPromptBoundedAndScrubbed(t *testing.T) {
	token := "ghp_" + strings.Repeat("A1b2C3d4", 5)[:36]
	var log strings.Builder
	for i := 0; i < 20000; i++ {
		log.WriteString("ok   line that passed\n")
	}
	log.WriteString("--- FAIL: TestB\n    src/b.go:3: token " + token + " leaked\n")
	part := failingPart(log.String(), []string{"src/b.go"})
	if strings.Contains(part, "line that passed") || !strings.Contains(part, "src/b.go:3") || strings.Contains(part, token) {
		t.Fatalf("failing part:\n%s", part)
	}
	c := Check{Name: "test", Conclusion: "failure", Head: strings.Repeat("a", 40), Log: part}
	pr := checkPrompt("demo", "WP2", 7, c, []Note{{Path: "src/b.go", Line: 3, Message: strings.Repeat("x", 20000)}})
	if len(pr) > maxPrompt+100 || !strings.Contains(pr, "more bytes]") || !strings.Contains(pr, "src/b.go:3") {
		t.Fatalf("prompt of %d bytes:\n%.300s", len(pr), pr)
	}
	cm := commentPrompt("demo", "WP1", 7, Comment{User: "bob", Path: "src/a.go", Line: 2, Body: "use " + token})
	if strings.Contains(cm, token) || !strings.Contains(cm, "src/a.go:2") || !strings.Contains(cm, "WP1's perimeter") {
		t.Fatalf("comment prompt:\n%s", cm)
	}
}
