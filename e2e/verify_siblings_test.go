package e2e

import (
	"strings"
	"testing"
)

// siblingTrick dispatches WP0 and WP1, then WP2, whose script plays the
// trick, alone (a session beside it could have played it too); WP2's own
// verify must fail on it. It returns the repository and WP2's verification.
func siblingTrick(t *testing.T, config, trick string) (string, verification) {
	t.Helper()
	dir := pipelineRepoConfig(t, config, runStep(trick), "lower lib/lower.sh")
	for _, wp := range []string{"WP0", "WP1"} {
		if out := must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", wp); !strings.Contains(out, wp+"   verify     pass") {
			t.Fatalf("dispatch %s:\n%s", wp, out)
		}
	}
	out, _, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo", "--wp", "WP2")
	if exitCode(err) != 1 || !strings.Contains(out, "WP2   verify     fail") {
		t.Fatalf("dispatch WP2: %v\n%s", err, out)
	}
	v := verifyJSON(t, dir, "WP2")
	if len(v.OutOfScope) != 0 || v.Gate.ExitCode != 0 {
		t.Fatalf("WP2's own worktree is in order; only the trick may fail it: %+v", v)
	}
	return dir, v
}

// wp1Worktree finds WP1's worktree from WP2's, as an agent would.
const wp1Worktree = `w=$(git worktree list --porcelain | sed -n 's/^worktree //p' | grep '/demo-wp1$') && test -d "$w"`

// A WP that moves a sibling's branch from its own worktree fails its own
// verify, naming the branch. The sandbox lets it (every wt/ branch lives in
// one directory), so this runs with the sandbox as configured by default.
func TestVerifyFindsASiblingsBranchMoved(t *testing.T) {
	dir, v := siblingTrick(t, "", `c=$(git commit-tree HEAD^{tree} -p HEAD -m sneaked) && git update-ref refs/heads/wt/demo-wp1 "$c"`)
	if !hasFinding(v, "sibling-branch: wt/demo-wp1, WP1's branch, moved") {
		t.Fatalf("WP2 moved WP1's branch; its verify says %v (unattributed %v)", v.Findings, v.Unattributed)
	}
	// WP1's own commits and checkpoint move its branch through its HEAD:
	// no finding on anyone.
	must(t, dir, "git", "update-ref", "refs/heads/wt/demo-wp1", "refs/heads/wt/demo-wp1@{1}")
	if v := verifyJSON(t, dir, "WP1"); v.Verdict != "pass" {
		t.Fatalf("WP1 after its branch was put back: %+v", v)
	}
}

// A WP that writes into a sibling's worktree — a file planted, the
// sibling's own file broken — fails its own verify, naming the paths.
// The sandbox would refuse the writes: off here, verify is the backstop.
func TestVerifyFindsWritesIntoASiblingsWorktree(t *testing.T) {
	_, v := siblingTrick(t, sandboxOff, wp1Worktree+` && echo planted > "$w/planted.txt" && echo 'exit 1' >> "$w/lib/upper.sh"`)
	if !hasFinding(v, "sibling-worktree: WP1's worktree", "lib/upper.sh, planted.txt") {
		t.Fatalf("WP2 wrote into WP1's worktree; its verify says %v (unattributed %v)", v.Findings, v.Unattributed)
	}
}

// ledgerTrick runs, once WP2's own dispatch is on the ledger ref, a change
// of the ref from its tip $t to the commit $n that make builds, moved with
// the old value given so that the pipeline's appends are never lost.
func ledgerTrick(make string) string {
	return `ref=refs/agentproto/ledger/$(cat "$(git rev-parse --path-format=absolute --git-common-dir)/agentproto/writer-id") && ` +
		`wait() { i=0; until eval "$1"; do i=$((i+1)); [ $i -lt 200 ] || return 1; sleep 0.05; done; } && ` +
		`wait 'git log --format=%s "$ref" | grep -q "wp_dispatched pipeline/demo/WP2/"' && ` +
		`wait 't=$(git rev-parse "$ref") && ` + strings.ReplaceAll(make, "'", `'"'"'`) + ` && git update-ref "$ref" "$n" "$t"'`
}

// A WP that commits on the ledger ref by hand — here a copy of the ref's
// newest event under another id — fails its own verify, naming it.
func TestVerifyFindsAHandMadeLedgerCommit(t *testing.T) {
	trick := ledgerTrick(`m=$(git log -1 --format=%B "$t" | sed -e 's#"id":"#"id":"forged-#' -e '1s#^\(agentproto [^ ]*\) #\1 forged-#') && ` +
		`n=$(git commit-tree "$t^{tree}" -p "$t" -m "$m")`)
	_, v := siblingTrick(t, sandboxOff, trick)
	if !hasFinding(v, "ledger-forged: ", " forged-", "was committed on the ledger ref since WP2 was dispatched") {
		t.Fatalf("WP2 committed on the ledger ref; its verify says %v (unattributed %v)", v.Findings, v.Unattributed)
	}
}

// A WP that drops its own dispatch from the ledger ref, where the
// snapshots verify compares with are named, fails its own verify all the
// same: a worktree with no dispatch on the ledger is a finding.
func TestVerifyFindsItsDispatchDropped(t *testing.T) {
	trick := ledgerTrick(`d=$(git log --format='%H %s' "$ref" | sed -n 's# agentproto wp_dispatched pipeline/demo/WP2/.*##p') && ` +
		`n=$(git rev-parse "$d^")`)
	_, v := siblingTrick(t, sandboxOff, trick)
	if !hasFinding(v, "no-dispatch: the ledger holds no dispatch of WP2") {
		t.Fatalf("WP2 dropped its dispatch; its verify says %v (unattributed %v)", v.Findings, v.Unattributed)
	}
}
