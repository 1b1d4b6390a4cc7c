package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A committed [plugins.NAME] whose command names a script of the
// repository by absolute path: what plugin trust trusts is what dispatch
// checks, though the session runs in a worktree elsewhere. Changing the
// script asks for trust again.
func TestPluginTrustOfAnAbsoluteScriptPathTakes(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	defer sh(t, dir, nil, "git", "agentproto", "sessions", "gc", "--apply")
	agent := filepath.Join(dir, "agent.sh")
	os.WriteFile(agent, []byte(`case "$(cat "$1")" in
*"Reply with exactly READY"*) echo READY;;
*) echo brief >> prompt.log; echo done;;
esac
`), 0o755)
	cfg := "[dispatch]\nadapter = \"myexec\"\n[plugins.myexec]\npath = \"" + filepath.Join(binDir, "agentproto-adapter-exec") + "\"\n" +
		"options = { command = \"sh " + agent + " {prompt}\" }\n" +
		sandboxWorktree // the agent logs at its worktree's root, outside any WP's perimeter
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(cfg), 0o644)
	must(t, dir, "git", "add", "agentproto.toml", "agent.sh")
	must(t, dir, "git", "commit", "-qm", "my exec adapter")

	if out := must(t, dir, "git", "agentproto", "plugin", "trust", "myexec"); !strings.Contains(out, "trusted") {
		t.Fatalf("plugin trust: %s", out)
	}
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo", "--wp", "WP0", "--no-wait")
	if err != nil {
		t.Fatalf("dispatch after plugin trust: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	wt := agentDir(t, dir, "demo/WP0")
	if b, err := os.ReadFile(filepath.Join(wt, "prompt.log")); err != nil || string(b) != "brief\n" {
		t.Fatalf("the agent did not get its brief: %q, %v", b, err)
	}

	os.WriteFile(agent, []byte("echo changed\n"), 0o755)
	_, errOut, err = startSession(t, dir, "--adapter", "myexec", "--worktree", "again", "--prompt", "hi", "--no-ping")
	if exitCode(err) != 5 || !strings.Contains(errOut, "git agentproto plugin trust myexec") || !strings.Contains(errOut, agent) {
		t.Fatalf("a session in a worktree with the script changed after trust: exit %d\n%s", exitCode(err), errOut)
	}
}
