package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpConnect starts `git-agentproto mcp ARGS` in dir and connects the Go
// SDK's client to it over the process's stdio.
func mcpConnect(t *testing.T, dir string, args ...string) *sdk.ClientSession {
	t.Helper()
	return mcpConnectEnv(t, dir, nil, args...)
}

// mcpConnectEnv is mcpConnect with extra environment variables (KEY=VALUE)
// for the server.
func mcpConnectEnv(t *testing.T, dir string, env []string, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "git-agentproto"), append([]string{"mcp"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(homeOf(t)), env...)
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to git-agentproto mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// toolCall is one answer, decoded.
type toolCall struct {
	IsError bool
	Text    string
	Doc     map[string]any
}

func callTool(t *testing.T, cs *sdk.ClientSession, name string, args any) toolCall {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 70*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	var out toolCall
	out.IsError = res.IsError
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			out.Text += tc.Text
		}
	}
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &out.Doc)
	return out
}

func mustTool(t *testing.T, cs *sdk.ClientSession, name string, args any) toolCall {
	t.Helper()
	c := callTool(t, cs, name, args)
	if c.IsError {
		t.Fatalf("%s %v: tool error %s", name, args, c.Text)
	}
	return c
}

func toolNames(t *testing.T, cs *sdk.ClientSession) (map[string]*sdk.Tool, []string) {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*sdk.Tool{}
	var names []string
	for _, tl := range res.Tools {
		tools[tl.Name] = tl
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	return tools, names
}

// mcpPlanRepo is a repository with an unchecked two-WP plan made by the
// CLI, its WP0 brief still holding the template's fork placeholder.
func mcpPlanRepo(t *testing.T) string {
	t.Helper()
	dir := newRepo(t)
	os.WriteFile(filepath.Join(dir, "test.sh"), []byte("#!/bin/sh\nexit 0\n"), 0o644)
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-q", "-m", "project")
	must(t, dir, "git", "agentproto", "init")
	must(t, dir, "git", "agentproto", "plan", "init", "demo", "--gate", "sh test.sh")
	must(t, dir, "git", "agentproto", "plan", "new-wp", "demo", "WP1")
	writePlanTOML(t, dir, `"lib/**"`)
	return dir
}

// writePlanTOML gives WP1 the perimeter owns; WP0 owns api/**.
func writePlanTOML(t *testing.T, dir, owns string) {
	t.Helper()
	err := os.WriteFile(filepath.Join(dir, ".plans/demo/plan.toml"), []byte(`name = "demo"
base = "main"
gate = "sh test.sh"
[[wp]]
id = "WP0"
title = "contract"
owns = ["api/**"]
[[wp]]
id = "WP1"
title = "lib"
owns = [`+owns+`]
depends_on = ["WP0"]
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
}

func ledgerCount(t *testing.T, dir string) int {
	t.Helper()
	return strings.Count(must(t, dir, "git", "agentproto", "ledger", "log", "--json"), "\n")
}

// A supervisor drives the whole loop through MCP: tools listed with
// closed schemas, a plan checked (findings as data), frozen and rendered,
// a scripted session started in a worktree the call provisions, then
// waited on, read, prompted and killed from a second connection; bad
// arguments and a credential are refused with nothing written.
func TestMCPSupervisorLoop(t *testing.T) {
	dir := mcpPlanRepo(t)
	a := mcpConnect(t, dir)

	tools, names := toolNames(t, a)
	for _, want := range []string{"ledger_log", "plan_check", "plan_freeze", "plan_status", "plan_render", "plan_amend",
		"adapter_list", "profile_check", "worktree_new", "worktree_ls", "worktree_changes", "session_start", "session_list",
		"session_monitor", "session_wait", "session_output", "session_prompt", "session_kill", "lesson_add",
		"verify", "checkpoint", "consolidate", "e2e", "policy_attach", "supervisor_observe", "supervisor_propose", "supervisor_receipt"} {
		if tools[want] == nil {
			t.Errorf("tools/list has no %s (has %v)", want, names)
		}
	}
	schema, _ := json.Marshal(tools["plan_render"].InputSchema)
	var s struct {
		Type                 string
		Required             []string
		AdditionalProperties any
		Properties           map[string]any
	}
	json.Unmarshal(schema, &s)
	if s.Type != "object" || s.AdditionalProperties != false || s.Properties["wp"] == nil || strings.Join(s.Required, ",") != "project,wp" {
		t.Fatalf("plan_render's input schema is not closed with project and wp required: %s", schema)
	}

	// Two perimeters overlap: the findings come back as data inside a
	// tool error, exit code 1 as for the CLI.
	writePlanTOML(t, dir, `"lib/**", "api/extra.txt"`)
	c := callTool(t, a, "plan_check", map[string]any{"project": "demo"})
	if !c.IsError || c.Doc["exit_code"] != float64(1) {
		t.Fatalf("plan_check of an unfinished plan: %+v", c)
	}
	result, _ := c.Doc["result"].(map[string]any)
	if result["schema"] != "agentproto.plan.check/v1" || result["ok"] != false {
		t.Fatalf("the failed check carries no findings document: %+v", c.Doc)
	}
	findings, _ := result["findings"].([]any)
	if len(findings) == 0 || !strings.Contains(mustJSON(findings), "perimeter-overlap") {
		t.Fatalf("no findings: %+v", c.Doc)
	}
	if c := callTool(t, a, "plan_freeze", map[string]any{"project": "demo"}); !c.IsError || c.Doc["exit_code"] != float64(5) {
		t.Fatalf("a plan with errors was frozen: %+v", c)
	}
	writePlanTOML(t, dir, `"lib/**"`)
	for _, wp := range []string{"WP0", "WP1"} {
		p := filepath.Join(dir, ".plans/demo", wp+"-brief.md")
		b, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.Replace(string(b), "- (fork): default (choice).", "- input: default stdin.", 1)), 0o644)
	}
	c = mustTool(t, a, "plan_check", map[string]any{"project": "demo"})
	if c.Doc["schema"] != "agentproto.plan.check/v1" || c.Doc["ok"] != true {
		t.Fatalf("plan_check: %+v", c.Doc)
	}
	// The structured result is the document `plan check --json` prints.
	var cli map[string]any
	json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "plan", "check", "demo", "--json")), &cli)
	if cj, _ := json.Marshal(cli); string(cj) != mustJSON(c.Doc) {
		t.Fatalf("MCP and CLI documents differ:\nmcp %s\ncli %s", mustJSON(c.Doc), cj)
	}

	// Bad input: an unknown argument, and a credential-shaped value. Each
	// is refused with its exit code, nothing is written, and the value is
	// never echoed.
	before := ledgerCount(t, dir)
	c = callTool(t, a, "plan_freeze", map[string]any{"project": "demo", "force": true})
	if !c.IsError || c.Doc["exit_code"] != float64(2) || !strings.Contains(c.Text, `unknown argument "force"`) {
		t.Fatalf("unknown argument: %+v", c)
	}
	token := "ghp_" + strings.Repeat("aB3", 12)
	c = callTool(t, a, "lesson_add", map[string]any{"text": "the deploy key is " + token})
	if !c.IsError || c.Doc["exit_code"] != float64(5) || strings.Contains(c.Text+mustJSON(c.Doc), token) {
		t.Fatalf("credential-shaped lesson: %+v", c)
	}
	c = callTool(t, a, "session_start", map[string]any{"adapter": "scripted", "worktree": map[string]any{"slug": "wp1", "branch": "x"}, "prompt": "hi"})
	if !c.IsError || c.Doc["exit_code"] != float64(2) {
		t.Fatalf("unknown worktree field: %+v", c)
	}
	if after := ledgerCount(t, dir); after != before {
		t.Fatalf("refused calls wrote %d events", after-before)
	}
	if _, err := os.Stat(filepath.Join(homeOf(t), ".agentproto", "worktrees")); err == nil {
		if out := must(t, dir, "git", "worktree", "list"); strings.Contains(out, "wp1") {
			t.Fatalf("a refused start provisioned a worktree:\n%s", out)
		}
	}

	c = mustTool(t, a, "plan_freeze", map[string]any{"project": "demo"})
	if c.Doc["schema"] != "agentproto.plan.freeze/v1" || c.Doc["written"] != true {
		t.Fatalf("plan_freeze: %+v", c.Doc)
	}
	c = mustTool(t, a, "plan_render", map[string]any{"project": "demo", "wp": "WP1"})
	if p, _ := c.Doc["prompt"].(string); !strings.Contains(p, "executor of work package WP1") {
		t.Fatalf("plan_render: %+v", c.Doc)
	}
	if c := mustTool(t, a, "plan_amend", map[string]any{"project": "demo", "correction": "inputs are UTF-8"}); c.Doc["recorded"] != true {
		t.Fatalf("plan_amend: %+v", c.Doc)
	}
	if c := mustTool(t, a, "plan_status", map[string]any{"project": "demo"}); c.Doc["frozen"] != true || c.Doc["amendments"] != float64(1) {
		t.Fatalf("plan_status: %+v", c.Doc)
	}
	if c := mustTool(t, a, "ledger_log", map[string]any{"kind": "plan_frozen", "limit": 1}); len(c.Doc["items"].([]any)) != 1 {
		t.Fatalf("ledger_log: %+v", c.Doc)
	}

	// One gesture: the worktree object provisions wp1, then the session
	// starts in it.
	c = mustTool(t, a, "session_start", map[string]any{"adapter": "scripted", "worktree": map[string]any{"slug": "wp1", "base": "main"},
		"prompt": "hello from mcp", "label": "wp1"})
	id, _ := c.Doc["id"].(string)
	if c.Doc["schema"] != "agentproto.sessions.start/v1" || id == "" || c.Doc["worktree"] != "wp1" {
		t.Fatalf("session_start: %+v", c.Doc)
	}
	wt := mustTool(t, a, "worktree_ls", map[string]any{})
	if !strings.Contains(mustJSON(wt.Doc), `"slug":"wp1"`) {
		t.Fatalf("worktree_ls has no wp1: %+v", wt.Doc)
	}
	c = mustTool(t, a, "session_wait", map[string]any{"ids": []string{id}, "timeout": "30s"})
	if pending, _ := c.Doc["pending"].([]any); len(pending) != 0 {
		t.Fatalf("session_wait: %+v", c.Doc)
	}
	a.Close()

	// A second connection: the session belongs to the daemon, not to the
	// first client.
	b := mcpConnect(t, dir)
	c = mustTool(t, b, "session_list", map[string]any{})
	if !strings.Contains(mustJSON(c.Doc), `"id":"`+id+`"`) {
		t.Fatalf("session_list on a new connection has no %s: %+v", id, c.Doc)
	}
	c = mustTool(t, b, "session_output", map[string]any{"id": id, "clean": true})
	if !strings.Contains(mustJSON(c.Doc), "echo: hello from mcp") {
		t.Fatalf("session_output: %+v", c.Doc)
	}
	mustTool(t, b, "session_prompt", map[string]any{"id": id, "text": "second turn"})
	mustTool(t, b, "session_wait", map[string]any{"ids": []string{id}, "timeout": "30s"})
	c = mustTool(t, b, "session_output", map[string]any{"id": id, "last": 1})
	if items, _ := c.Doc["items"].([]any); len(items) != 1 || !strings.Contains(mustJSON(items[0]), "echo: second turn") {
		t.Fatalf("session_output after the second turn: %+v", c.Doc)
	}
	rr, err := b.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "agentproto://session/" + id + "/output"})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "echo: second turn") {
		t.Fatalf("output resource: %v %+v", err, rr)
	}
	rr, err = b.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "agentproto://plan/demo/WP1-brief.md"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "input: default stdin") {
		t.Fatalf("frozen brief resource: %v %+v", err, rr)
	}
	// Bounded waits on a session that is still busy: monitor returns
	// after `for`, and a wait shorter than the cap ends as a timeout
	// (exit 4) naming what is pending.
	c = mustTool(t, b, "session_start", map[string]any{"adapter": "scripted", "dir": dir, "no_ping": true,
		"prompt": "```agentproto-script\n{\"op\":\"sleep\",\"ms\":60000}\n```"})
	busy, _ := c.Doc["id"].(string)
	c = mustTool(t, b, "session_monitor", map[string]any{"ids": []string{busy}, "for": "1s"})
	if !strings.Contains(mustJSON(c.Doc), `"id":"`+busy+`"`) || c.Doc["waited_at_most"] != "1s" {
		t.Fatalf("session_monitor: %+v", c.Doc)
	}
	c = callTool(t, b, "session_wait", map[string]any{"ids": []string{busy}, "timeout": "1s"})
	if res, _ := c.Doc["result"].(map[string]any); !c.IsError || c.Doc["exit_code"] != float64(4) || !strings.Contains(mustJSON(res["pending"]), busy) {
		t.Fatalf("session_wait timing out: %+v", c)
	}
	mustTool(t, b, "session_kill", map[string]any{"id": busy})

	c = mustTool(t, b, "session_kill", map[string]any{"id": id})
	if c.Doc["id"] != id {
		t.Fatalf("session_kill: %+v", c.Doc)
	}
	// A session that is over is answered at once, pending empty.
	c = mustTool(t, b, "session_wait", map[string]any{"ids": []string{id}, "until": "exit", "timeout": "40m"})
	if pending, _ := c.Doc["pending"].([]any); len(pending) != 0 || c.Doc["capped"] != nil {
		t.Fatalf("session_wait on a killed session: %+v", c.Doc)
	}
	if c := callTool(t, b, "session_kill", map[string]any{"id": "s-nosuch"}); !c.IsError || c.Doc["exit_code"] != float64(2) {
		t.Fatalf("kill of a malformed id: %+v", c)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// An executor's server lists only what an executor may use on itself;
// the supervisor's tools do not exist for it.
func TestMCPExecutorRoleCannotSpawn(t *testing.T) {
	dir := mcpPlanRepo(t)
	sup := mcpConnect(t, dir)
	if c := mustTool(t, sup, "worktree_new", map[string]any{"slug": "wp1"}); c.Doc["schema"] != "agentproto.worktree.new/v1" || c.Doc["branch"] != "wt/wp1" {
		t.Fatalf("worktree_new: %+v", c.Doc)
	}
	var wtPath string
	for _, line := range strings.Split(must(t, dir, "git", "worktree", "list", "--porcelain"), "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok && strings.HasSuffix(p, "wp1") {
			wtPath = p
		}
	}
	if wtPath == "" {
		t.Fatal("no worktree wp1")
	}
	os.WriteFile(filepath.Join(wtPath, "new.txt"), []byte("x\n"), 0o644)
	ex := mcpConnect(t, wtPath, "--role", "executor", "--agent", "a1")
	_, names := toolNames(t, ex)
	if strings.Join(names, ",") != "brief_read,evidence_add,my_changes,quota_guard" {
		t.Fatalf("executor tools: %v", names)
	}
	for _, name := range []string{"session_start", "session_prompt", "worktree_new", "plan_freeze"} {
		res, err := ex.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err == nil && !res.IsError {
			t.Fatalf("an executor called %s", name)
		}
	}
	mustTool(t, sup, "plan_freeze", map[string]any{"project": "demo"})
	if c := mustTool(t, ex, "brief_read", map[string]any{"project": "demo", "wp": "WP1"}); !strings.Contains(c.Doc["text"].(string), "WP1") {
		t.Fatalf("brief_read in the worktree: %+v", c.Doc)
	}
	c := mustTool(t, ex, "my_changes", map[string]any{})
	if !strings.Contains(mustJSON(c.Doc), `"path":"new.txt"`) || c.Doc["schema"] != "agentproto.worktree.changes/v1" {
		t.Fatalf("my_changes: %+v", c.Doc)
	}
	// a1 is not a registered peer: its quota guard says so (exit 2).
	if c := callTool(t, ex, "quota_guard", map[string]any{}); !c.IsError || c.Doc["exit_code"] != float64(2) {
		t.Fatalf("quota_guard of an unregistered peer: %+v", c)
	}
}

// `mcp config --write` merges into .mcp.json and keeps other servers; a
// file that is not JSON is refused and left as it was.
func TestMCPConfigWriteMergesAndRefusesBadJSON(t *testing.T) {
	dir := newRepo(t)
	path := filepath.Join(dir, ".mcp.json")
	os.WriteFile(path, []byte(`{"mcpServers":{"other":{"command":"other-server","args":["--x"]}},"keep":1}`), 0o644)
	out := must(t, dir, "git", "agentproto", "mcp", "config", "--client", "claude", "--write")
	if !strings.Contains(out, "added agentproto") {
		t.Fatalf("config --write: %s", out)
	}
	var doc struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		}
		Keep int
	}
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &doc); err != nil || doc.Keep != 1 || doc.MCPServers["other"].Command != "other-server" ||
		doc.MCPServers["agentproto"].Command != "git-agentproto" || strings.Join(doc.MCPServers["agentproto"].Args, " ") != "mcp" {
		t.Fatalf(".mcp.json after --write: %v %s", err, b)
	}
	if out := must(t, dir, "git", "agentproto", "mcp", "config", "--client", "claude", "--write"); !strings.Contains(out, "nothing written") {
		t.Fatalf("second --write: %s", out)
	}
	bad := []byte(`{"mcpServers": {"other": `)
	os.WriteFile(path, bad, 0o644)
	_, errOut, err := sh(t, dir, nil, "git", "agentproto", "mcp", "config", "--client", "claude", "--write")
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(errOut, ".mcp.json is not a JSON object") {
		t.Fatalf("bad .mcp.json: %v %s", err, errOut)
	}
	if b, _ := os.ReadFile(path); string(b) != string(bad) {
		t.Fatalf("a bad .mcp.json was rewritten: %s", b)
	}
	for _, client := range []string{"claude", "codex", "cursor"} {
		if out := must(t, dir, "git", "agentproto", "mcp", "config", "--client", client); !strings.Contains(out, "git-agentproto") {
			t.Fatalf("%s snippet: %s", client, out)
		}
	}
}

// The peer protocol over MCP: a proposal validated then recorded, an
// executed receipt refused (only the host path writes one), and an
// executor server acting only as its own agent: its quota, its evidence.
func TestMCPPeerToolsAndExecutorEvidence(t *testing.T) {
	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "init")
	for _, args := range [][]string{
		{"peer", "register", "sup", "--adapter", "scripted"},
		{"peer", "register", "alice", "--adapter", "scripted", "--quota-turns", "2"},
		{"goal", "new", "g1", "--title", "Ship the parser"},
		{"goal", "configure", "--goal-id", "g1", "--supervisor-agent", "sup", "--supervised-agent", "alice", "--execute"},
	} {
		must(t, dir, "git", append([]string{"agentproto"}, args...)...)
	}
	sup := mcpConnect(t, dir)
	if c := mustTool(t, sup, "supervisor_observe", map[string]any{"goal": "g1", "agent": "sup"}); !strings.Contains(mustJSON(c.Doc), "alice") {
		t.Fatalf("supervisor_observe: %+v", c.Doc)
	}
	decision := map[string]any{"schema": "supervisor_decision_v0", "decision_id": "d-1", "kind": "observe",
		"reason_codes": []string{"all_green"}, "evidence_refs": []string{"issue:12"}}
	before := ledgerCount(t, dir)
	if c := mustTool(t, sup, "supervisor_propose", map[string]any{"goal": "g1", "agent": "sup", "decision": decision}); !strings.Contains(c.Text, "nothing recorded") {
		t.Fatalf("propose without apply: %+v", c)
	}
	if ledgerCount(t, dir) != before {
		t.Fatal("propose without apply wrote to the ledger")
	}
	mustTool(t, sup, "supervisor_propose", map[string]any{"goal": "g1", "agent": "sup", "decision": decision, "apply": true})
	if !strings.Contains(must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "supervisor_proposed", "--json"), `"decision_id":"d-1"`) {
		t.Fatal("the applied proposal is not in the ledger")
	}
	executed := map[string]any{"schema": "supervisor_receipt_v0", "receipt_id": "r-1", "decision_id": "d-1", "status": "executed", "reason": "done", "evidence_refs": []string{"x"}}
	before = ledgerCount(t, dir)
	if c := callTool(t, sup, "supervisor_receipt", map[string]any{"goal": "g1", "agent": "sup", "receipt": executed, "apply": true}); !c.IsError || c.Doc["exit_code"] != float64(5) {
		t.Fatalf("an executed receipt through MCP: %+v", c)
	}
	if ledgerCount(t, dir) != before {
		t.Fatal("a refused receipt wrote to the ledger")
	}

	ex := mcpConnect(t, dir, "--role", "executor", "--agent", "alice")
	c := mustTool(t, ex, "quota_guard", map[string]any{})
	if c.Doc["agent"] != "alice" || c.Doc["remaining"] != float64(2) || c.Doc["schema"] != "agentproto.peer.quota-guard/v1" {
		t.Fatalf("quota_guard: %+v", c.Doc)
	}
	if c := callTool(t, ex, "quota_guard", map[string]any{"agent": "sup"}); !c.IsError || c.Doc["exit_code"] != float64(2) {
		t.Fatalf("an executor named another agent: %+v", c)
	}
	mustTool(t, ex, "evidence_add", map[string]any{"goal": "g1", "ref": "commit:abc123", "summary": "parser passes"})
	ev := must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "evidence_added", "--json")
	if !strings.Contains(ev, `"agent":"alice"`) || !strings.Contains(ev, `"ref":"commit:abc123"`) {
		t.Fatalf("evidence: %s", ev)
	}
}

// dispatch over MCP returns once a wave is launched, with progress
// notifications; the supervisor waits, verifies and calls dispatch again
// for the next wave, which reuses what passed — while the daemon's run
// does the same, so each step is safe beside it.
func TestMCPDispatchWaveByWave(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	var mu sync.Mutex
	var notes []string
	cmd := exec.Command(filepath.Join(binDir, "git-agentproto"), "mcp")
	cmd.Dir, cmd.Env = dir, gitEnv(homeOf(t))
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			notes = append(notes, r.Params.Message)
			mu.Unlock()
		}})
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dispatch := func() map[string]any {
		p := &sdk.CallToolParams{Name: "dispatch", Arguments: map[string]any{"project": "demo"}}
		p.SetProgressToken("d1")
		res, err := cs.CallTool(context.Background(), p)
		if err != nil || res.IsError {
			t.Fatalf("dispatch: %v %+v", err, res)
		}
		var doc map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &doc)
		return doc
	}
	sessionsOf := func(doc map[string]any) map[string]string {
		out := map[string]string{}
		ds, _ := doc["dispatches"].(map[string]any)
		for wp, list := range ds {
			l, _ := list.([]any)
			last, _ := l[len(l)-1].(map[string]any)
			out[wp], _ = last["session"].(string)
		}
		return out
	}
	doc := dispatch()
	first := sessionsOf(doc)
	if doc["schema"] != "agentproto.dispatch/v1" || len(first) != 1 || first["WP0"] == "" {
		t.Fatalf("the first wave is WP0 alone: %+v", doc)
	}
	mu.Lock()
	got := len(notes)
	mu.Unlock()
	if got == 0 {
		t.Fatal("dispatch sent no progress notifications")
	}
	mustTool(t, cs, "session_wait", map[string]any{"ids": []string{first["WP0"]}, "timeout": "40s"})
	if c := mustTool(t, cs, "verify", map[string]any{"project": "demo", "wp": "WP0"}); c.Doc["verdict"] != "pass" {
		t.Fatalf("verify WP0: %+v", c.Doc)
	}
	doc = dispatch()
	next := sessionsOf(doc)
	if len(next) != 3 || next["WP0"] != first["WP0"] || next["WP1"] == "" || next["WP2"] == "" {
		t.Fatalf("the second wave: %+v", doc)
	}
	// The client goes; the daemon's turn-end policies verify the wave.
	cs.Close()
	b := mcpConnect(t, dir)
	mustTool(t, b, "session_wait", map[string]any{"ids": []string{next["WP1"], next["WP2"]}, "timeout": "40s"})
	var st toolCall
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		st = mustTool(t, b, "dispatch_status", map[string]any{"project": "demo"})
		if v, _ := st.Doc["verifications"].(map[string]any); v["WP1"] != nil && v["WP2"] != nil {
			break
		}
	}
	v, _ := st.Doc["verifications"].(map[string]any)
	for _, wp := range []string{"WP1", "WP2"} {
		if r, _ := v[wp].(map[string]any); r["verdict"] != "pass" {
			t.Fatalf("%s was not verified after the client left: %+v", wp, st.Doc)
		}
	}
	if len(sessionsOf(st.Doc)) != 3 {
		t.Fatalf("dispatch_status: %+v", st.Doc)
	}
	runSettled(t, dir, 3)
}

// cliDoc runs a command with --json and gives the document an MCP tool
// answers with: an object as printed, a list (or one document per line)
// as {"schema", "items"}.
func cliDoc(t *testing.T, dir, schema string, args ...string) string {
	t.Helper()
	out := strings.TrimSpace(must(t, dir, "git", append([]string{"agentproto"}, args...)...))
	if strings.HasPrefix(out, "{") && !strings.Contains(out, "\n") {
		return canonical(t, out)
	}
	items := []json.RawMessage{}
	if strings.HasPrefix(out, "[") {
		json.Unmarshal([]byte(out), &items)
	} else {
		for _, line := range strings.Split(out, "\n") {
			items = append(items, json.RawMessage(line))
		}
	}
	b, _ := json.Marshal(map[string]any{"schema": schema, "items": items})
	return canonical(t, string(b))
}

func canonical(t *testing.T, doc string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc)
	}
	return mustJSON(v)
}

// Every read tool answers with the document its command prints with
// --json, schema included.
func TestMCPDocumentsMatchTheCLI(t *testing.T) {
	dir := mcpPlanRepo(t)
	for _, wp := range []string{"WP0", "WP1"} {
		p := filepath.Join(dir, ".plans/demo", wp+"-brief.md")
		b, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.Replace(string(b), "- (fork): default (choice).", "- input: default stdin.", 1)), 0o644)
	}
	must(t, dir, "git", "agentproto", "plan", "freeze", "demo")
	must(t, dir, "git", "agentproto", "worktree", "new", "wp1")
	id, errOut, err := startSession(t, dir, "--adapter", "scripted", "--worktree", "wp1", "--prompt", "hi")
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "kill", id)
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--until", "exit", "--timeout", "20s")
	wt := strings.TrimSpace(must(t, dir, "git", "agentproto", "worktree", "ls", "--json", "--jq", ".[0].path"))
	os.WriteFile(filepath.Join(wt, "lib.txt"), []byte("x\n"), 0o644)

	cs := mcpConnect(t, dir)
	cases := []struct {
		tool string
		args map[string]any
		cli  []string
	}{
		{"ledger_log", map[string]any{"limit": 5}, []string{"ledger", "log", "--json", "--limit", "5"}},
		{"plan_check", map[string]any{"project": "demo"}, []string{"plan", "check", "demo", "--json"}},
		{"plan_status", map[string]any{"project": "demo"}, []string{"plan", "status", "demo", "--json"}},
		{"plan_render", map[string]any{"project": "demo", "wp": "WP1"}, []string{"plan", "render", "demo", "WP1", "--json"}},
		{"worktree_ls", map[string]any{"status": true}, []string{"worktree", "ls", "--status", "--json"}},
		{"worktree_changes", map[string]any{"slug": "wp1"}, []string{"worktree", "changes", "wp1", "--json"}},
		{"adapter_list", map[string]any{}, []string{"plugin", "ls", "--json"}},
		{"profile_check", map[string]any{}, []string{"profile", "check", "--json"}},
		{"session_list", map[string]any{"all": true}, []string{"sessions", "ls", "--all", "--json"}},
		{"session_output", map[string]any{"id": id, "clean": true}, []string{"sessions", "output", id, "--clean", "--json"}},
	}
	for _, c := range cases {
		got := mustTool(t, cs, c.tool, c.args)
		schema, _ := got.Doc["schema"].(string)
		want := cliDoc(t, dir, schema, c.cli...)
		if mustJSON(got.Doc) != want {
			t.Errorf("%s differs from %s --json:\nmcp %s\ncli %s", c.tool, strings.Join(c.cli[:len(c.cli)-1], " "), mustJSON(got.Doc), want)
		}
	}
}
