package e2e

import (
	"strings"
	"testing"
)

// A WP of a wave whose agent, unconfined, leaves a process behind that
// waits for a sibling of the same wave to be verified and ended, then
// writes into that sibling's worktree (the second session ended: WP0's
// was the first): the WP's own verify fails on it,
// naming the sibling and the path. The sibling was at work when the WP's
// session started, so the sibling snapshot holds no status of its
// worktree; its verification is what the worktree is held against.
func TestAWriteIntoASiblingVerifiedEarlierInTheWaveIsTheWriters(t *testing.T) {
	bg := `ref=refs/agentproto/ledger/$(cat "$(git rev-parse --path-format=absolute --git-common-dir)/agentproto/writer-id")
i=0
until [ "$(git log --format=%s "$ref" | grep -c 'session_cleaned session/')" -ge 2 ]; do i=$((i+1)); [ $i -lt 600 ] || exit 1; sleep 0.05; done
w=$(git worktree list --porcelain | sed -n 's/^worktree //p' | grep '/demo-wp1$')
echo planted > "$w/planted.txt"
`
	report := func(wp string, files ...string) string {
		return `{"op":"report","report":{"wp":"` + wp + `","files":["` + strings.Join(files, `","`) + `"],"design_choices":[],"wiring":[],"exit_codes":[]}}`
	}
	scripts := map[string]string{
		"WP0": writeStep("a/x.txt", "x\n") + "\n" + report("WP0", "a/x.txt"),
		"WP1": writeStep("b/x.txt", "x\n") + "\n" + report("WP1", "b/x.txt"),
		"WP2": strings.Join([]string{writeStep("c/x.txt", "x\n"), writeStep("c/bg.sh", bg),
			step("run", "cmd", "(setsid sh c/bg.sh >/dev/null 2>&1 &)"), report("WP2", "c/bg.sh", "c/x.txt")}, "\n"),
	}
	// WP2's gate takes a second: the planted file lands while it runs.
	dir := scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n" + sandboxOff, "test.sh": "[ ! -e c/x.txt ] || sleep 1\n"},
		"[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\"]\n"+
			"[[wp]]\nid = \"WP1\"\ntitle = \"b\"\nowns = [\"b/**\"]\ndepends_on = [\"WP0\"]\n"+
			"[[wp]]\nid = \"WP2\"\ntitle = \"c\"\nowns = [\"c/**\"]\ndepends_on = [\"WP0\"]\n", scripts)
	defer killAll("sh c/bg.sh")
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if exitCode(err) != 1 || !strings.Contains(out, "WP1   verify     pass") || !strings.Contains(out, "WP2   verify     fail") {
		t.Fatalf("dispatch: exit %d\n%s%s", exitCode(err), out, errOut)
	}
	if !strings.Contains(out, "sibling-worktree: WP1's worktree") || !strings.Contains(out, "changed after WP1 was verified and its session ended: planted.txt") {
		t.Fatalf("WP2 wrote into WP1's worktree after WP1 was verified; dispatch says:\n%s%s", out, errOut)
	}
}
