package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The user's own edit of an untracked agentproto.toml after dispatch is
// no outside change when it touches only keys no session can tell
// ([e2e], [ledger], pr.draft); an edit of a key that changes what agents
// or gates see ([gates] pass_env) still fails verify, naming the file
// and the way to accept it.
func TestVerifyIgnoresConfigKeysNoSessionSees(t *testing.T) {
	report := `{"op":"report","report":{"wp":"WP0","files":["a/x.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`
	dir := scriptedPlan(t, nil, "[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\"]\n",
		map[string]string{"WP0": writeStep("a/x.txt", "x\n") + "\n" + report})
	cfg := filepath.Join(dir, "agentproto.toml")
	// Left untracked by init, as a new user has it; unconfined, so that
	// a change outside is the WP's to answer for.
	if out := must(t, dir, "git", "status", "--porcelain", "agentproto.toml"); !strings.HasPrefix(out, "?? ") {
		t.Fatalf("agentproto.toml is not untracked: %q", out)
	}
	os.WriteFile(cfg, []byte("[dispatch]\nadapter = \"scripted\"\n"+sandboxOff), 0o644)
	if out := must(t, dir, "git", "agentproto", "dispatch", "demo"); !strings.Contains(out, "WP0   verify     pass") {
		t.Fatalf("dispatch:\n%s", out)
	}
	appendCfg := func(text string) {
		f, _ := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(text)
		f.Close()
	}

	appendCfg("# the live checks\n[e2e]\ncommands = [\"sh test.sh\"]\n[pr]\ndraft = true\n[ledger]\npack_threshold = 8\n")
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "verify", "demo", "WP0")
	if err != nil || !strings.Contains(out, "WP0: pass") {
		t.Fatalf("verify after [e2e], pr.draft and [ledger] were added: exit %d\n%s%s", exitCode(err), out, errOut)
	}

	appendCfg("[gates]\npass_env = [\"MYTOOL_HOME\"]\n")
	out, errOut, err = sh(t, dir, nil, "git", "agentproto", "verify", "demo", "WP0")
	if exitCode(err) != 1 || !strings.Contains(out+errOut, "outside-worktree: "+cfg+" changed") ||
		!strings.Contains(errOut, "git agentproto verify demo WP0 --accept-outside") {
		t.Fatalf("verify after [gates] pass_env was added: exit %d\n%s%s", exitCode(err), out, errOut)
	}
}
