package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dispatchExecRepo is the three-WP pipeline repository with the exec
// adapter named only by [dispatch] adapter, its command only in
// [plugins.exec] options. The agent logs, in its worktree, whether it was
// pinged and whether it got its brief.
func dispatchExecRepo(t *testing.T) string {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	commitExecAgent(t, dir, `case "$(cat "$1")" in
*"Reply with exactly READY"*) echo pinged >> ping.log; echo READY;;
*) echo brief >> prompt.log; echo done;;
esac
`)
	return dir
}

// commitExecAgent commits an agentproto.toml whose [dispatch] adapter is
// exec, running script with sh and the prompt's file as $1.
func commitExecAgent(t *testing.T, dir, script string) {
	t.Helper()
	agent := filepath.Join(t.TempDir(), "agent.sh")
	os.WriteFile(agent, []byte(script), 0o755)
	// The agent logs at its worktree's root, outside any WP's perimeter.
	cfg := "[dispatch]\nadapter = \"exec\"\n[plugins.exec]\noptions = { command = \"sh " + agent + " {prompt}\" }\n" + sandboxWorktree
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(cfg), 0o644)
	must(t, dir, "git", "add", "agentproto.toml")
	must(t, dir, "git", "commit", "-qm", "exec adapter")
}

// agentDir waits for the WP's session to settle and returns its directory.
func agentDir(t *testing.T, dir, label string) string {
	id := sessionOf(t, dir, label)
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--timeout", "30s")
	out := must(t, dir, "git", "agentproto", "sessions", "ls", "--all", "--json")
	var recs []struct{ ID, Dir, State, Failure string }
	json.Unmarshal([]byte(out), &recs)
	for _, r := range recs {
		if r.ID == id {
			if r.Failure != "" {
				t.Fatalf("session %s %s: %s", id, r.State, r.Failure)
			}
			return r.Dir
		}
	}
	t.Fatalf("no session %s in %s", id, out)
	return ""
}

func TestDispatchAdapterKeepsItsPluginOptions(t *testing.T) {
	dir := dispatchExecRepo(t)
	defer sh(t, dir, nil, "git", "agentproto", "sessions", "gc", "--apply")

	// Committed options are not trusted yet: refused before any session.
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo", "--no-wait")
	if exitCode(err) != 5 || !strings.Contains(errOut, "[plugins.exec]") || !strings.Contains(errOut, "git agentproto plugin trust exec") {
		t.Fatalf("untrusted dispatch: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	if ls := must(t, dir, "git", "agentproto", "sessions", "ls", "--all"); strings.Contains(ls, "demo/WP0") {
		t.Fatalf("a session started for untrusted options:\n%s", ls)
	}

	must(t, dir, "git", "agentproto", "plugin", "trust", "exec")
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--no-wait")
	wt := agentDir(t, dir, "demo/WP0")
	for _, log := range []string{"ping.log", "prompt.log"} {
		if b, err := os.ReadFile(filepath.Join(wt, log)); err != nil || len(b) == 0 {
			t.Fatalf("%s in %s: %v (the agent ran without its options?)", log, wt, err)
		}
	}
}

func TestDispatchNoPingSkipsTheLivenessPing(t *testing.T) {
	dir := dispatchExecRepo(t)
	defer sh(t, dir, nil, "git", "agentproto", "sessions", "gc", "--apply")
	must(t, dir, "git", "agentproto", "plugin", "trust", "exec")
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--no-wait", "--no-ping")
	wt := agentDir(t, dir, "demo/WP0")
	if b, err := os.ReadFile(filepath.Join(wt, "prompt.log")); err != nil || string(b) != "brief\n" {
		t.Fatalf("prompt.log: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(wt, "ping.log")); !os.IsNotExist(err) {
		t.Fatalf("--no-ping: the agent was pinged (%v)", err)
	}
}

func TestReviewerSessionNeedsTrustedOptions(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	defer sh(t, dir, nil, "git", "agentproto", "sessions", "gc", "--apply")
	if out, errOut, err := sh(t, dir, nil, "git", "agentproto", "run", "demo"); err != nil {
		t.Fatalf("run: %v\n%s\n%s", err, out, errOut)
	}
	marker := filepath.Join(t.TempDir(), "reviewer-ran")
	cfg, _ := os.ReadFile(filepath.Join(dir, "agentproto.toml"))
	cfg = append(cfg, []byte("[plugins.exec]\noptions = { command = \"sh -c 'touch "+marker+"; echo READY' {prompt}\" }\n")...)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), cfg, 0o644)
	must(t, dir, "git", "commit", "-qam", "a reviewer command")
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "review", "demo", "--adapter", "exec")
	if exitCode(err) != 5 || !strings.Contains(errOut, "the options of [plugins.exec] come from agentproto.toml and are not trusted") {
		t.Fatalf("review --adapter exec, untrusted: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("the untrusted reviewer command ran (%v)", err)
	}
}
