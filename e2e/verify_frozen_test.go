package e2e

import (
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
