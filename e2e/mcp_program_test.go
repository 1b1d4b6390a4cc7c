package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// git agentproto mcp runs agentproto-mcp in place of itself: the server
// answers on the same stdio, with the CLI's version and the flags given
// to the CLI (--repo from another directory, --role executor).
func TestMCPCommandRunsTheServerProgram(t *testing.T) {
	dir := newRepo(t)
	r := startRaw(t, t.TempDir(), "--repo", dir, "--role", "executor")
	init := r.await(0, time.Second)
	info, _ := init["result"].(map[string]any)["serverInfo"].(map[string]any)
	version := strings.TrimSpace(must(t, dir, "git", "agentproto", "--version"))
	if v, _ := info["version"].(string); info["name"] != "agentproto" || v == "" || !strings.HasSuffix(version, " "+v) {
		t.Errorf("serverInfo %v, want agentproto at the CLI's version (%s)", info, version)
	}
	r.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
	list := r.await(1, 30*time.Second)
	tools, _ := list["result"].(map[string]any)["tools"].([]any)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	// The executor role, in the repository --repo named: its brief and
	// changes, nothing that steers.
	joined := " " + strings.Join(names, " ") + " "
	if !strings.Contains(joined, " brief_read ") || strings.Contains(joined, " session_start ") {
		t.Errorf("tools of --role executor: %v", names)
	}
	// It works on the repository --repo named, not where it was started:
	// a checkout that is no worktree of a WP, refused by name.
	r.call(2, "my_changes", map[string]any{})
	if isErr, doc := r.result(2, 30*time.Second); !isErr || !strings.Contains(doc["error"].(string), dir+" is not an agentproto worktree") {
		t.Errorf("my_changes: %v", doc)
	}
}

func TestMCPWithoutTheServerProgramIsNamed(t *testing.T) {
	dir := newRepo(t)
	env := installedWithout(t, "agentproto-mcp")
	cmd := exec.Command("git", "agentproto", "mcp")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "agentproto-mcp is not installed beside git-agentproto nor on PATH") {
		t.Fatalf("mcp without its program: %v\n%s", err, out)
	}
}

func TestMCPRefusesAnUnknownRole(t *testing.T) {
	dir := newRepo(t)
	cmd := exec.Command(filepath.Join(binDir, "git-agentproto"), "mcp", "--role", "root")
	cmd.Dir, cmd.Env = dir, gitEnv(homeOf(t))
	out, err := cmd.CombinedOutput()
	if code := exitCode(err); code != 2 || !strings.Contains(string(out), `--role "root"`) {
		t.Fatalf("mcp --role root: exit %d\n%s", code, out)
	}
}
