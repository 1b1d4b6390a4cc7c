package e2e

import (
	"strings"
	"testing"
)

// A WP of a wave whose agent, unconfined, leaves a process behind that
// waits for a sibling of the same wave to be verified and ended (the
// second session ended: WP0's was the first), then writes into that
// sibling's worktree. The sibling was at work when the WP's session
// started, so the sibling snapshot holds no status of its worktree; its
// verification is what the worktree is held against. The change fails
// the wave, laid on no WP: by then every session of the wave had settled,
// and a process any of them left behind could have made it — WP3, which
// did nothing of the kind, passes as WP2 does.
func TestAWriteIntoASiblingVerifiedEarlierInTheWaveFailsTheWave(t *testing.T) {
	plant := `ref=refs/agentproto/ledger/$(cat "$(git rev-parse --path-format=absolute --git-common-dir)/agentproto/writer-id")
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
		"WP2": strings.Join([]string{writeStep("c/x.txt", "x\n"), writeStep("c/plant.sh", plant),
			step("run", "cmd", "(setsid sh c/plant.sh >/dev/null 2>&1 &)"), report("WP2", "c/plant.sh", "c/x.txt")}, "\n"),
		"WP3": writeStep("d/x.txt", "x\n") + "\n" + report("WP3", "d/x.txt"),
	}
	wp := func(id, own string) string {
		return "[[wp]]\nid = \"" + id + "\"\ntitle = \"" + own + "\"\nowns = [\"" + own + "/**\"]\ndepends_on = [\"WP0\"]\n"
	}
	// WP2's gate takes two seconds: the planted file lands while it runs.
	dir := scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n" + sandboxOff, "test.sh": "[ ! -e c/x.txt ] || sleep 2\n"},
		"[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\"]\n"+wp("WP1", "b")+wp("WP2", "c")+wp("WP3", "d"), scripts)
	defer killAll("sh c/plant.sh")
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	for _, wp := range []string{"WP1", "WP2", "WP3"} {
		if !strings.Contains(out, wp+"   verify     pass") {
			t.Fatalf("%s did not pass its own verify:\n%s%s", wp, out, errOut)
		}
	}
	if exitCode(err) != 1 || !strings.Contains(errOut, "the wave failed: 1 change(s) outside the worktrees") ||
		!strings.Contains(out, "unattributed: sibling-worktree: WP1's worktree") || !strings.Contains(out, "changed after WP1 was verified and its session ended: planted.txt") {
		t.Fatalf("WP1's worktree changed after WP1 was verified; dispatch: exit %d\n%s%s", exitCode(err), out, errOut)
	}
}
