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

// Git runs the user's own hooks while some worktrees are made: git's
// checkout (here for an ident attribute) and the checkpoint of the WP a
// WP starts from update refs, and a reference-transaction hook runs each
// time. What such a hook writes in the main checkout is the outside the
// WP starts from, never a finding against it.
func TestWhatAGitHookWritesWhileAWorktreeIsMadeIsNotTheWPs(t *testing.T) {
	scripts := map[string]string{}
	for id, own := range map[string]string{"WP0": "a", "WP1": "b"} {
		scripts[id] = writeStep(own+"/x.txt", "x\n") + "\n" +
			`{"op":"report","report":{"wp":"` + id + `","files":["` + own + `/x.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`
	}
	dir := scriptedPlan(t, map[string]string{
		"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n",
		".gitattributes":  "id.txt ident\n",
		"id.txt":          "$Id$\n",
	}, "[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\"]\n[[wp]]\nid = \"WP1\"\ntitle = \"b\"\nowns = [\"b/**\"]\ndepends_on = [\"WP0\"]\n", scripts)
	hook := filepath.Join(dir, ".git", "hooks", "reference-transaction")
	os.WriteFile(hook, []byte("#!/bin/sh\necho \"$1\" >> \"$(git rev-parse --path-format=absolute --git-common-dir)/../hook-ran.txt\"\n"), 0o755)
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	ran, _ := os.ReadFile(filepath.Join(dir, "hook-ran.txt"))
	if !strings.Contains(string(ran), "committed") || !strings.Contains(out, "git checkout") {
		t.Fatalf("no git checkout, or the hook did not run while the worktrees were made (%q): %s%s", ran, out, errOut)
	}
	if err != nil || strings.Contains(out+errOut, "outside-worktree") || !strings.Contains(out, "every work package of demo is verified") {
		t.Fatalf("dispatch: %v\n%s%s", err, out, errOut)
	}
}

// A WP that starts from the base by the fast checkout has git's part of
// its outside snapshot taken while its worktree is made; its agent,
// unconfined here and as the user's uid, writes the main checkout and
// makes a branch: both are found against it, as for any other WP.
func TestAnAgentWritingOutsideFromTheBaseIsFound(t *testing.T) {
	scripts := map[string]string{"WP0": runStep(`c=$(git rev-parse --path-format=absolute --git-common-dir) && echo planted > "$c/../planted.txt" && git branch planted`) + "\n" +
		writeStep("a/x.txt", "x\n") + "\n" +
		`{"op":"report","report":{"wp":"WP0","files":["a/x.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`}
	dir := scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n" + sandboxOff},
		"[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\"]\n", scripts)
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if !strings.Contains(out, "fast checkout") {
		t.Fatalf("not made by the fast checkout: %s%s", out, errOut)
	}
	for _, want := range []string{"outside-worktree: " + filepath.Join(dir, "planted.txt") + " changed", "outside-worktree: ref refs/heads/planted changed"} {
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("dispatch (%v) does not say %q:\n%s%s", err, want, out, errOut)
		}
	}
}
