package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A setup hook is the user's, run before the WP's session exists: what it
// writes outside the worktree (here, unconfined, a file in the main
// checkout) is part of the outside the WP starts from, never a finding
// against the WP. Dispatch takes git's part of that snapshot while the
// worktree is made only when no hook runs there.
func TestWhatASetupHookWritesOutsideIsNotTheWPs(t *testing.T) {
	scripts := map[string]string{"WP0": `{"op":"write","path":"lib/x.txt","content":"x\n"}
{"op":"report","report":{"wp":"WP0","files":["lib/x.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`}
	dir := scriptedPlan(t, map[string]string{
		"agentproto.toml":  "[dispatch]\nadapter = \"scripted\"\n" + sandboxOff + "[worktree]\nsetup = [\"sh scripts/setup.sh\"]\n",
		"scripts/setup.sh": "echo made > \"$(git rev-parse --path-format=absolute --git-common-dir)/../hook-wrote.txt\"\n",
	}, "[[wp]]\nid = \"WP0\"\ntitle = \"lib\"\nowns = [\"lib/**\"]\n", scripts)
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if _, serr := os.Stat(filepath.Join(dir, "hook-wrote.txt")); serr != nil {
		t.Fatalf("the setup hook did not write the main checkout (%v): %s%s", serr, out, errOut)
	}
	if err != nil || strings.Contains(out+errOut, "outside-worktree") || !strings.Contains(out, "pass (1 changed") {
		t.Fatalf("dispatch: %v\n%s%s", err, out, errOut)
	}
}
