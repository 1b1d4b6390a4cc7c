package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// npmOutcome is one step the npm client ran.
type npmOutcome struct {
	Tool              string         `json:"tool"`
	IsError           bool           `json:"isError"`
	StructuredContent map[string]any `json:"structuredContent"`
	Texts             []string       `json:"texts"`
	Progress          []string       `json:"progress"`
	Error             string         `json:"error"`
	MS                int            `json:"ms"`
}

type npmRun struct {
	Tools []struct {
		Name         string         `json:"name"`
		Annotations  map[string]any `json:"annotations"`
		OutputSchema bool           `json:"outputSchema"`
	} `json:"tools"`
	Outcomes []npmOutcome `json:"outcomes"`
}

// npmClient runs testdata/mcpclient.cjs, a client made with the official
// MCP TypeScript SDK pinned in .agents, against `git-agentproto mcp` in
// dir; it is skipped unless make test-agents installed the pins.
func npmClient(t *testing.T, dir string, steps []map[string]any) npmRun {
	t.Helper()
	bins := os.Getenv("AGENTPROTO_REAL_AGENTS")
	if bins == "" {
		t.Skip("the MCP TypeScript SDK is not installed: run make test-agents")
	}
	modules := filepath.Dir(bins)
	if _, err := os.Stat(filepath.Join(modules, "@modelcontextprotocol/sdk/package.json")); err != nil {
		t.Skipf("no @modelcontextprotocol/sdk in %s: run make test-agents", modules)
	}
	script, _ := filepath.Abs("testdata/mcpclient.cjs")
	arg, _ := json.Marshal(steps)
	cmd := exec.Command("node", script, string(arg))
	cmd.Dir = dir
	cmd.Env = append(gitEnv(homeOf(t)), "MCP_NODE_MODULES="+modules, "AGENTPROTO_BIN="+filepath.Join(binDir, "git-agentproto"))
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("the npm client failed: %v\n%s%s", err, out, stderr)
	}
	var run npmRun
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatalf("the npm client printed %s: %v", out, err)
	}
	return run
}

// A client made with the official TypeScript SDK: it accepts every
// tool's annotations and output schema (its zod check of tools/list),
// validates each structured result against the output schema (its Ajv
// check), gets progress from a long wait and the whole dispatch, and its
// abort cancels a wait in well under the wait.
func TestRealMCPSDKClient(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	run := npmClient(t, dir, []map[string]any{
		{"tool": "plan_check", "args": map[string]any{"project": "demo"}},
		{"tool": "plan_status", "args": map[string]any{"project": "demo", "force": true}},
		{"tool": "dispatch", "args": map[string]any{"project": "demo"}, "progress": true},
		{"tool": "dispatch_wait", "args": map[string]any{"project": "demo"}, "progress": true},
		{"tool": "dispatch_wait", "args": map[string]any{"project": "demo"}, "progress": true},
		{"tool": "session_list", "args": map[string]any{"all": true}},
		{"tool": "ledger_log", "args": map[string]any{"limit": 3}},
		{"tool": "session_start", "args": map[string]any{"adapter": "scripted", "worktree": map[string]any{"slug": "idle", "base": "main"}, "prompt": "hi"}},
		{"tool": "session_wait", "args": map[string]any{"ids": []string{"$started"}, "until": "exit"}, "abortAfterMs": 500},
		{"tool": "session_kill", "args": map[string]any{"id": "$started"}},
	})
	if len(run.Tools) < 30 {
		t.Fatalf("%d tools listed", len(run.Tools))
	}
	for _, tl := range run.Tools {
		if tl.Annotations == nil || tl.Annotations["title"] == nil || !tl.OutputSchema {
			t.Errorf("%s: annotations %v, output schema %v", tl.Name, tl.Annotations, tl.OutputSchema)
		}
	}
	o := run.Outcomes
	for _, c := range append(o[:8:8], o[9]) {
		if c.Error != "" {
			t.Errorf("%s: the SDK refused the answer: %s", c.Tool, c.Error)
		}
	}
	if o[0].IsError || o[0].StructuredContent["schema"] != "agentproto.plan.check/v1" || len(o[0].Texts) != 2 ||
		!strings.HasPrefix(o[0].Texts[1], `{"schema":"agentproto.plan.check/v1"`) {
		t.Errorf("plan_check: %+v", o[0])
	}
	if !o[1].IsError || o[1].StructuredContent["exit_code"] != float64(2) {
		t.Errorf("an unknown argument: %+v", o[1])
	}
	if len(o[2].Progress) == 0 {
		t.Errorf("dispatch sent no progress: %+v", o[2])
	}
	done := o[3].StructuredContent["done"] == true || o[4].StructuredContent["done"] == true
	if !done {
		t.Errorf("dispatch_wait never said done: %+v %+v", o[3], o[4])
	}
	if len(o[3].Progress) == 0 {
		t.Errorf("dispatch_wait sent no progress while it waited: %+v", o[3])
	}
	if c := o[8]; c.Error == "" || c.MS > 2000 {
		t.Errorf("the aborted session_wait: %+v", c)
	} else {
		t.Logf("the aborted session_wait ended after %d ms: %s", c.MS, c.Error)
	}
}
