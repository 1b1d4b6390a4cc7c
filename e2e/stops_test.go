package e2e

import (
	"strings"
	"testing"
)

// slowPlan is a plan of one WP whose agent takes a minute: a dispatch of
// it is still waiting when the test stops it.
func slowPlan(t *testing.T) string {
	return scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n"},
		"[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\"]\n",
		map[string]string{"WP0": `{"op":"sleep","ms":60000}` + "\n" + writeStep("a/x.txt", "x\n")})
}

// dispatch --timeout stops waiting (exit 4) and says which sessions carry
// on in the daemon and the command that picks the wave up again.
func TestDispatchTimeoutSaysWhatRunsAndHowToResume(t *testing.T) {
	dir := slowPlan(t)
	defer sh(t, dir, nil, "git", "agentproto", "sessions", "gc", "--apply")
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo", "--timeout", "2s")
	if exitCode(err) != 4 || !strings.Contains(errOut, "WP0 (session s-") || !strings.Contains(errOut, "still at work in the sessions daemon, which carries on") ||
		!strings.HasSuffix(strings.TrimSpace(errOut), "next: git agentproto dispatch demo") || strings.Count(out+errOut, "next:") != 1 {
		t.Fatalf("dispatch --timeout: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
}

// Ctrl-C in a terminal during dispatch: exit 130, after a line naming the
// session that carries on and the command that resumes.
func TestDispatchInterruptedInATerminalSaysHowToResume(t *testing.T) {
	dir := slowPlan(t)
	defer sh(t, dir, nil, "git", "agentproto", "sessions", "gc", "--apply")
	// The shell handles INT (a handler, not an ignore, which the command
	// would inherit), so it lives on to print the exit status.
	p := startTmux(t, dir, gitEnv(homeOf(t)), "sh -c 'trap true INT; git agentproto dispatch demo; echo exit=$?; sleep 60'")
	p.waitFor("the wave at work", `WP0\s+running`)
	p.keys("C-c")
	screen := p.waitFor("the interrupt", `exit=130`)
	flat := strings.Join(strings.Fields(screen), " ")
	if !strings.Contains(flat, "interrupted: WP0 (session s-") || !strings.Contains(flat, "still at work in the sessions daemon, which carries on; next: git agentproto dispatch demo") {
		t.Fatalf("the screen after Ctrl-C:\n%s", screen)
	}
}

// A run that stops prints one next step: the failed step's own, not
// run's generic one beside it.
func TestAFailingRunPrintsOneNext(t *testing.T) {
	scripts := map[string]string{}
	for wp, own := range map[string]string{"WP0": "a", "WP1": "b"} {
		steps := writeStep(own+"/x.txt", "x\n")
		if wp == "WP1" {
			steps += "\n" + writeStep("stray.txt", "not mine\n")
		}
		scripts[wp] = steps + "\n" + `{"op":"report","report":{"wp":"` + wp + `","files":["` + own + `/x.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`
	}
	// Widened to the worktree: the stray write must happen for verify to find it.
	dir := scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n" + sandboxWorktree},
		"[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\"]\n[[wp]]\nid = \"WP1\"\ntitle = \"b\"\nowns = [\"b/**\"]\ndepends_on = [\"WP0\"]\n", scripts)
	defer sh(t, dir, nil, "git", "agentproto", "sessions", "gc", "--apply")
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "run", "demo")
	if exitCode(err) != 1 || strings.Count(out+errOut, "next:") != 1 || !strings.Contains(errOut, "stopped at dispatch: WP1 failed verification") ||
		!strings.Contains(errOut, "next: tell its session what to fix (git agentproto sessions prompt s-") {
		t.Fatalf("run: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
}
