package e2e

import (
	"strings"
	"testing"
)

// A review asked for before the work is there refuses (exit 5, nothing
// recorded) and names the one next step: dispatch before anything ran,
// consolidate --checkpoint once the last wave is verified but not
// committed. consolidate --checkpoint commits that wave, and the review
// then runs.
func TestReviewTooEarlySaysTheNextStep(t *testing.T) {
	report := func(wp, file string) string {
		return `{"op":"report","report":{"wp":"` + wp + `","files":["` + file + `"],"design_choices":[],"wiring":[],"exit_codes":[]}}`
	}
	scripts := map[string]string{
		"WP0": writeStep("a/x.txt", "x\n") + "\n" + report("WP0", "a/x.txt"),
		"WP1": writeStep("b/y.txt", "y\n") + "\n" + report("WP1", "b/y.txt"),
	}
	dir := scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n"},
		"[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\"]\n"+
			"[[wp]]\nid = \"WP1\"\ntitle = \"b\"\nowns = [\"b/**\"]\ndepends_on = [\"WP0\"]\n", scripts)
	defer sh(t, dir, nil, "git", "agentproto", "sessions", "gc", "--apply")
	reviews := func() int {
		return strings.Count(must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "plan_reviewed", "--json"), "\n")
	}

	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "review", "demo")
	if exitCode(err) != 5 || !strings.Contains(errOut, "review is too early: WP0, WP1 never ran") || !strings.Contains(errOut, "next: git agentproto dispatch demo") {
		t.Fatalf("review before dispatch: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	must(t, dir, "git", "agentproto", "dispatch", "demo")

	// The dispatch checkpointed WP0, which WP1 builds on; WP1 is the last
	// wave, verified and not committed.
	out, errOut, err = sh(t, dir, nil, "git", "agentproto", "review", "demo")
	if exitCode(err) != 5 || !strings.Contains(errOut, "WP1 passed verification but has no checkpoint") ||
		!strings.Contains(errOut, "next: git agentproto consolidate demo --checkpoint") || strings.Contains(errOut, "WP0") {
		t.Fatalf("review before the last wave's checkpoint: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	cs := mcpConnect(t, dir)
	early := callTool(t, cs, "review", map[string]any{"project": "demo"})
	if !early.IsError || early.Doc["exit_code"] != float64(5) || !strings.Contains(early.Text, "consolidate demo --checkpoint") {
		t.Fatalf("MCP review before the checkpoint: %+v", early)
	}
	if n := reviews(); n != 0 {
		t.Fatalf("a refused review recorded %d reviews", n)
	}

	out, errOut, err = sh(t, dir, nil, "git", "agentproto", "consolidate", "demo", "--checkpoint")
	if err != nil || !strings.Contains(out, "checkpointed WP1 first") {
		t.Fatalf("consolidate --checkpoint: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	if cps := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "wp_checkpointed", "--json"); !strings.Contains(cps, `"WP1"`) {
		t.Fatalf("no checkpoint of WP1 in the ledger:\n%s", cps)
	}
	if out, errOut, err = sh(t, dir, nil, "git", "agentproto", "review", "demo"); err != nil {
		t.Fatalf("review once consolidated: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	if n := reviews(); n != 1 {
		t.Fatalf("%d reviews recorded; want 1", n)
	}
}
