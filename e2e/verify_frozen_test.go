package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A WP that adds a directory to its own owns in the live plan.toml and
// writes there is judged against the frozen plan: its write is out of the
// perimeter, and the edit of the plan is a finding in its own verify.
func TestVerifyJudgesAgainstTheFrozenPlan(t *testing.T) {
	extra := strings.Join([]string{
		runStep(`c=$(git rev-parse --path-format=absolute --git-common-dir) && sed -i 's#owns = \["lib/lower.sh", "tests/lower_test.sh"\]#owns = ["lib/lower.sh", "tests/lower_test.sh", "notes/**"]#' "$c/../.plans/demo/plan.toml" && grep -q notes "$c/../.plans/demo/plan.toml"`),
		step("write", "path", "notes/x.txt", "content", "mine now\n"),
	}, "\n")
	dir := pipelineRepoConfig(t, sandboxOff, extra, "lower lib/lower.sh")
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	out, _, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo", "--wp", "WP2")
	if exitCode(err) != 1 || !strings.Contains(out, "WP2   verify     fail") {
		t.Fatalf("dispatch: %v\n%s", err, out)
	}
	v := verifyJSON(t, dir, "WP2")
	if got := strings.Join(v.OutOfScope, ","); got != "notes/x.txt" {
		t.Errorf("out of the frozen perimeter %q, want notes/x.txt\n%+v", got, v)
	}
	if !hasFinding(v, "plan-changed", "plan.toml") {
		t.Errorf("the edit of the live plan is no finding of WP2's verify: %v", v.Findings)
	}
}

// Which files are shared comes from the freeze too. A live plan.toml that
// lists WP1's lib/upper.sh and WP2's lib/lower.sh as shared after the WPs
// passed does not let WP2's wiring into WP1's file through consolidate,
// and does not take WP2's own file out of its perimeter in its verify.
func TestSharedFilesAreTheFrozenOnes(t *testing.T) {
	report := `{"op":"report","report":{"wp":"WP2","files":["lib/lower.sh","tests/lower_test.sh"],"design_choices":[],` +
		`"wiring":[{"file":"registry.txt","line":"lower lib/lower.sh"},{"file":"lib/upper.sh","line":"echo hijacked"}],"claims":["tool:lower"],"exit_codes":[]}}`
	dir := pipelineRepo(t, report, "")
	must(t, dir, "git", "agentproto", "dispatch", "demo")
	for _, wp := range []string{"WP0", "WP1", "WP2"} {
		must(t, dir, "git", "agentproto", "checkpoint", "demo", wp)
	}
	plan := filepath.Join(dir, ".plans", "demo", "plan.toml")
	b, err := os.ReadFile(plan)
	if err != nil {
		t.Fatal(err)
	}
	live := strings.Replace(string(b), `shared = ["registry.txt"]`, `shared = ["registry.txt", "lib/upper.sh", "lib/lower.sh"]`, 1)
	if live == string(b) {
		t.Fatalf("plan.toml has no shared line to edit:\n%s", b)
	}
	os.WriteFile(plan, []byte(live), 0o644)
	out, _, err := sh(t, dir, nil, "git", "agentproto", "consolidate", "demo", "--json")
	if err == nil || !strings.Contains(out, `"code":"wiring-not-shared","wp":"WP2","file":"lib/upper.sh"`) {
		t.Fatalf("consolidate with lib/upper.sh shared only in the live plan: %v\n%s", err, out)
	}
	integ := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "demo-integration", "lib", "upper.sh")
	if b, _ := os.ReadFile(integ); strings.Contains(string(b), "hijacked") {
		t.Fatalf("WP2's wiring reached WP1's file: %s", b)
	}
	v := verifyJSON(t, dir, "WP2")
	if len(v.OutOfScope) != 0 || !hasFinding(v, "plan-changed", "plan.toml") {
		t.Fatalf("WP2 judged by the live shared files (out of scope %v) or the edit not found: %v", v.OutOfScope, v.Findings)
	}
}
