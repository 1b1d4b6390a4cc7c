package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// inspect runs the MCP Inspector's CLI mode against `git-agentproto mcp`
// in dir and decodes the JSON it prints; a tool error is printed the same
// way, then the Inspector exits non-zero.
func inspect(t *testing.T, bins, dir string, args ...string) map[string]any {
	t.Helper()
	doc, err := inspectRun(t, bins, dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func inspectRun(t *testing.T, bins, dir string, args ...string) (map[string]any, error) {
	t.Helper()
	argv := append([]string{"--cli", filepath.Join(binDir, "git-agentproto"), "mcp"}, args...)
	cmd := exec.Command(filepath.Join(bins, "mcp-inspector"), argv...)
	cmd.Dir = dir
	cmd.Env = gitEnv(homeOf(t))
	out, runErr := cmd.Output()
	var doc map[string]any
	if err := json.NewDecoder(bytes.NewReader(out)).Decode(&doc); err != nil {
		stderr := ""
		if ee, ok := runErr.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("mcp-inspector %s printed no JSON (%v, %v):\n%s%s", strings.Join(args, " "), err, runErr, out, stderr)
	}
	return doc, runErr
}

// A real MCP client from npm (the MCP Inspector, CLI mode) lists the
// tools with their closed schemas and calls them: a plan is checked and
// frozen into the ledger, and an unknown argument is a tool error.
func TestRealMCPInspectorListsAndCallsTools(t *testing.T) {
	bins := os.Getenv("AGENTPROTO_REAL_AGENTS")
	if bins == "" {
		t.Skip("the MCP Inspector is not installed: run make test-agents")
	}
	dir := mcpPlanRepo(t)
	for _, wp := range []string{"WP0", "WP1"} {
		p := filepath.Join(dir, ".plans/demo", wp+"-brief.md")
		b, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.Replace(string(b), "- (fork): default (choice).", "- input: default stdin.", 1)), 0o644)
	}
	list := inspect(t, bins, dir, "--method", "tools/list")
	tools, _ := list["tools"].([]any)
	found := false
	for _, x := range tools {
		tl, _ := x.(map[string]any)
		if tl["name"] == "plan_freeze" {
			schema, _ := tl["inputSchema"].(map[string]any)
			found = schema["additionalProperties"] == false && schema["type"] == "object"
		}
	}
	if !found || len(tools) < 15 {
		t.Fatalf("tools/list has no closed plan_freeze schema (%d tools): %v", len(tools), list)
	}
	res := inspect(t, bins, dir, "--method", "tools/call", "--tool-name", "plan_check", "--tool-arg", "project=demo")
	sc, _ := res["structuredContent"].(map[string]any)
	if res["isError"] == true || sc["schema"] != "agentproto.plan.check/v1" || sc["ok"] != true {
		t.Fatalf("plan_check: %v", res)
	}
	res = inspect(t, bins, dir, "--method", "tools/call", "--tool-name", "plan_freeze", "--tool-arg", "project=demo")
	if sc, _ := res["structuredContent"].(map[string]any); sc["written"] != true {
		t.Fatalf("plan_freeze: %v", res)
	}
	if out := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "plan_frozen"); !strings.Contains(out, "plan/demo/frozen/") {
		t.Fatalf("the freeze is not in the ledger: %s", out)
	}
	res, err := inspectRun(t, bins, dir, "--method", "tools/call", "--tool-name", "plan_status", "--tool-arg", "project=demo", "--tool-arg", "force=true")
	if sc, _ := res["structuredContent"].(map[string]any); err == nil || res["isError"] != true || sc["exit_code"] != float64(2) {
		t.Fatalf("an unknown argument was accepted: %v %v", err, res)
	}
}
