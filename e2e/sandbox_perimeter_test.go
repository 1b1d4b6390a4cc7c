package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The agent of a work package whose perimeter lies in directories
// (a/**, docs/*.md) writes only those: a file of its worktree outside
// them is refused at the system call ([sandbox] perimeter = "narrow",
// the default), so the file is never written and verify passes. A
// directory of the perimeter missing from the tree is made for it.
func TestNarrowedAgentCannotWriteOutsideItsPerimeterDirectories(t *testing.T) {
	attempt := runStep(`(echo x > stray.txt) 2>/dev/null && echo wrote > a/attempt.txt || echo refused > a/attempt.txt; ` +
		`(echo x > docs/../b.txt) 2>/dev/null && echo wrote >> a/attempt.txt || echo refused >> a/attempt.txt; ` +
		`echo notes > docs/notes.md`)
	report := `{"op":"report","report":{"wp":"WP0","files":["a/x.txt","a/attempt.txt","docs/notes.md"],"design_choices":[],"wiring":[],"exit_codes":[]}}`
	dir := scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n"},
		"[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\", \"docs/*.md\"]\n",
		map[string]string{"WP0": writeStep("a/x.txt", "x\n") + "\n" + attempt + "\n" + report})
	defer sh(t, dir, nil, "git", "agentproto", "sessions", "gc", "--apply")
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if err != nil || !strings.Contains(out, "WP0   verify     pass") {
		t.Fatalf("dispatch: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	wt := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "demo-wp0")
	if b, err := os.ReadFile(filepath.Join(wt, "a", "attempt.txt")); err != nil || string(b) != "refused\nrefused\n" {
		t.Errorf("the agent's attempts outside its perimeter: %q, %v", b, err)
	}
	for _, f := range []string{"stray.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(wt, f)); err == nil {
			t.Errorf("%s was written in the worktree", f)
		}
	}
	if b, err := os.ReadFile(filepath.Join(wt, "docs", "notes.md")); err != nil || string(b) != "notes\n" {
		t.Errorf("docs/, missing from the tree, was not made writable: %q, %v", b, err)
	}
	if v := verifyJSON(t, dir, "WP0"); v.Verdict != "pass" || len(v.OutOfScope) != 0 {
		t.Errorf("verify: %+v", v)
	}
}
