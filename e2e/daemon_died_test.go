package e2e

import (
	"bytes"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// The sessions daemon killed with -9 in the middle of a wave: the next
// dispatch, run once, gives the WPs whose sessions died with it new
// sessions in their worktrees and carries the plan on to the end.
func TestDispatchCarriesOnAfterTheDaemonDiedMidWave(t *testing.T) {
	scripts := map[string]string{"WP0": writeStep("a/x.txt", "x\n") + "\n" +
		`{"op":"report","report":{"wp":"WP0","files":["a/x.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`}
	for wp, own := range map[string]string{"WP1": "b", "WP2": "c"} {
		// Slow the first time only: its session is still at work when the
		// daemon dies; the next one finds the marker and goes on.
		slow := `{"op":"run","cmd":"[ -e ` + own + `/started ] || { mkdir -p ` + own + ` && touch ` + own + `/started; sleep 3024; }"}`
		scripts[wp] = slow + "\n" + writeStep(own+"/x.txt", "x\n") + "\n" +
			`{"op":"report","report":{"wp":"` + wp + `","files":["` + own + `/started","` + own + `/x.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`
	}
	dir := scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n"},
		"[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\"]\n"+
			"[[wp]]\nid = \"WP1\"\ntitle = \"b\"\nowns = [\"b/**\"]\ndepends_on = [\"WP0\"]\n"+
			"[[wp]]\nid = \"WP2\"\ntitle = \"c\"\nowns = [\"c/**\"]\ndepends_on = [\"WP0\"]\n", scripts)
	defer killAll("sleep 3024")
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")

	wave := exec.Command("git", "agentproto", "dispatch", "demo")
	wave.Dir, wave.Env = dir, gitEnv(homeOf(t))
	var waveOut bytes.Buffer
	wave.Stdout, wave.Stderr = &waveOut, &waveOut
	if err := wave.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "both sessions of the wave at work", func() bool { return len(strings.Fields(pgrep("^sleep 3024$"))) == 2 })
	syscall.Kill(daemonPid(t, dir), syscall.SIGKILL)
	if err := wave.Wait(); exitCode(err) != 1 || !strings.Contains(waveOut.String(), "next: git agentproto dispatch demo") {
		t.Fatalf("the wave's dispatch, its daemon killed: exit %d\n%s", exitCode(err), waveOut.String())
	}

	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if err != nil || !strings.Contains(out, "WP1   verify     pass") || !strings.Contains(out, "WP2   verify     pass") {
		t.Fatalf("the first dispatch after the daemon died: exit %d\n%s\n%s\n(the wave's own dispatch said:\n%s)", exitCode(err), out, errOut, waveOut.String())
	}
	if !strings.Contains(out, "every work package of demo is verified") {
		t.Fatalf("dispatch did not carry the plan to its end:\n%s", out)
	}
}
