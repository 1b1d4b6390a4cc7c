package e2e

import (
	"strings"
	"testing"
)

// A scripted WP whose script does not parse fails its verify, and dispatch
// says why where the person reads: the script's line, the form a script
// takes, and no talk of a dead provider.
func TestDispatchSaysWhyAScriptDidNotRun(t *testing.T) {
	scripts := map[string]string{
		// A JSON array over lines: the form a newcomer guesses first.
		"WP0": "[\n" + `{"op":"write","path":"a/x.txt","content":"x\n"}` + "\n]",
	}
	dir := scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n"},
		"[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\"]\n", scripts)
	defer sh(t, dir, nil, "git", "agentproto", "sessions", "gc", "--apply")
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	all := out + errOut
	if exitCode(err) != 1 || !strings.Contains(all, "its session said: script line 1:") || !strings.Contains(all, "one JSON object per line") {
		t.Fatalf("dispatch of a script that does not parse: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	if strings.Contains(all, "dead provider") || strings.Contains(all, "with no output") {
		t.Errorf("a script error reads as a dead provider:\n%s", all)
	}
}
