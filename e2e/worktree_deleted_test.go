package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A work package's worktree deleted by hand strands nothing: worktree ls
// says it is missing and what to do, and the next dispatch makes it again
// from its branch and carries the plan on.
func TestDispatchAfterAWorktreeDeletedByHand(t *testing.T) {
	scripts := map[string]string{}
	for wp, own := range map[string]string{"WP0": "a", "WP1": "b", "WP2": "c"} {
		scripts[wp] = writeStep(own+"/x.txt", "x\n") + "\n" +
			`{"op":"report","report":{"wp":"` + wp + `","files":["` + own + `/x.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`
	}
	dir := scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n"},
		"[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\"]\n"+
			"[[wp]]\nid = \"WP1\"\ntitle = \"b\"\nowns = [\"b/**\"]\ndepends_on = [\"WP0\"]\n"+
			"[[wp]]\nid = \"WP2\"\ntitle = \"c\"\nowns = [\"c/**\"]\ndepends_on = [\"WP0\"]\n", scripts)
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP1")
	ls := must(t, dir, "git", "agentproto", "worktree", "ls", "--json")
	path := ""
	for _, line := range strings.Split(must(t, dir, "git", "agentproto", "worktree", "ls"), "\n") {
		if f := strings.Fields(line); len(f) >= 4 && f[0] == "demo-wp1" {
			path = f[3]
		}
	}
	if path == "" {
		t.Fatalf("no worktree demo-wp1:\n%s", ls)
	}
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	out := must(t, dir, "git", "agentproto", "worktree", "ls")
	if !strings.Contains(out, "[missing: its directory was deleted; dispatch makes it again from wt/demo-wp1") {
		t.Fatalf("worktree ls does not say the worktree is missing:\n%s", out)
	}
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if err != nil {
		t.Fatalf("dispatch after the deletion: %v\n%s\n%s", err, out, errOut)
	}
	for _, want := range []string{"was deleted by hand; made it again from wt/demo-wp1", "WP1   verify     pass", "WP2   verify     pass"} {
		if !strings.Contains(out, want) {
			t.Fatalf("dispatch output lacks %q:\n%s\n%s", want, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(path, "b", "x.txt")); err != nil {
		t.Fatalf("WP1's work is not in its worktree again: %v", err)
	}
}
