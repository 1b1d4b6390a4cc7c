package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A WP whose new checkpoint changes a line a hand commit on the
// integration branch changed too: consolidate names the WP and the path,
// and leaves the integration branch where it was.
func TestConsolidateConflictNamesWPAndPath(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	must(t, dir, "git", "agentproto", "dispatch", "demo")
	for _, wp := range []string{"WP0", "WP1", "WP2"} {
		must(t, dir, "git", "agentproto", "checkpoint", "demo", wp)
	}
	must(t, dir, "git", "agentproto", "consolidate", "demo")
	integ := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "demo-integration")
	if merges := strings.TrimSpace(must(t, integ, "git", "rev-list", "--merges", "--count", "HEAD")); merges != "3" {
		t.Fatalf("%s merge commits on the integration branch, want one per WP", merges)
	}

	os.WriteFile(filepath.Join(integ, "lib/lower.sh"), []byte("tr A-Z a-z # by hand\n"), 0o644)
	must(t, integ, "git", "commit", "-qam", "by hand")
	handHead := strings.TrimSpace(must(t, integ, "git", "rev-parse", "HEAD"))
	wt2 := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "demo-wp2")
	os.WriteFile(filepath.Join(wt2, "lib/lower.sh"), []byte("tr 'A-Z' 'a-z'\n"), 0o644)
	must(t, dir, "git", "agentproto", "verify", "demo", "WP2")
	must(t, dir, "git", "agentproto", "checkpoint", "demo", "WP2")

	out, _, err := sh(t, dir, nil, "git", "agentproto", "consolidate", "demo", "--json")
	var c struct {
		Merged   []string `json:"merged"`
		Findings []struct{ Code, WP, File string }
	}
	json.Unmarshal([]byte(out), &c)
	if err == nil || len(c.Findings) != 1 || c.Findings[0].Code != "merge-conflict" || c.Findings[0].WP != "WP2" || c.Findings[0].File != "lib/lower.sh" {
		t.Fatalf("consolidate over a conflicting hand commit: %v\n%s", err, out)
	}
	if strings.Join(c.Merged, " ") != "WP0 WP1" {
		t.Fatalf("merged before the conflict: %v", c.Merged)
	}
	if head := strings.TrimSpace(must(t, integ, "git", "rev-parse", "HEAD")); head != handHead {
		t.Fatalf("integration branch moved to %s (was %s)", head, handHead)
	}
	if st := must(t, integ, "git", "status", "--porcelain"); st != "" {
		t.Fatalf("integration worktree dirty: %s", st)
	}
}

// The same integration head can come back with another verdict: a test
// that fails now (here one that looks at a file in the git dir; a gate
// that timed out on a loaded machine is another). Consolidate records
// the new outcome rather than refusing it as a record already made with
// other content.
func TestConsolidateRecordsANewVerdictForTheSameHead(t *testing.T) {
	flaky := "[ ! -e \"$(git rev-parse --git-common-dir)/flip-verdict\" ] || exit 1\n[ \"$(echo AB | sh lib/lower.sh)\" = ab ]\n"
	dir := pipelineRepo(t, writeStep("tests/lower_test.sh", flaky), "lower lib/lower.sh")
	must(t, dir, "git", "agentproto", "dispatch", "demo")
	must(t, dir, "git", "agentproto", "consolidate", "demo", "--checkpoint")
	integ := filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "demo-integration")
	head := strings.TrimSpace(must(t, integ, "git", "rev-parse", "HEAD"))
	os.WriteFile(filepath.Join(dir, ".git", "flip-verdict"), nil, 0o644)
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "consolidate", "demo")
	if exitCode(err) != 1 || !strings.Contains(out+errOut, "the gate failed in the integration worktree") || strings.Contains(errOut, "already recorded") {
		t.Fatalf("consolidate with a failing test at the same head: %v\n%s\n%s", err, out, errOut)
	}
	if now := strings.TrimSpace(must(t, integ, "git", "rev-parse", "HEAD")); now != head {
		t.Fatalf("the integration head moved: %s, was %s", now, head)
	}
	var oks []bool
	for _, e := range ledgerEvents(t, dir, "plan_consolidated") {
		if e["head"] == head {
			oks = append(oks, e["ok"] == true)
		}
	}
	if len(oks) != 2 || oks[0] == oks[1] {
		t.Fatalf("consolidations recorded for %s: %v, want a pass and a failure", head, oks)
	}
}
